/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a file of bellperson's 192-byte proofs (pl_bp_proofs_read,
 * the input written to a file) and the decoder under it
 * (pl_proof_from_bp_bytes).  An accepted file is a whole number of proofs,
 * at most max_count of them (chosen by the input's first byte: 0, 1, 2 or
 * 3, 0 for no limit), and each proof encodes back to its own bytes: two
 * byte strings for one proof would be a malleability bellperson does not
 * have.  One accepted file in 16 (by a hash of its bytes, so a replay does
 * the same) has its first proof verified against corpus/bp_params/
 * multiplier.vk with zero inputs: the verifier's subgroup and infinity
 * checks on points the decoder let through, a pairing each, too slow for
 * every input. */
#include "fuzz.h"
#include "proofline_c2.h"

static pl_vkey *vk; /* made once: its IC stays allocated for the run */

static void open_vk(void)
{
    pl_error err = {0};
    pl_bp_params *p = NULL;
    PL_FUZZ_ASSERT(pl_bp_params_open(&p, PL_FUZZ_SRC
                                     "/corpus/bp_params/multiplier.vk",
                                     &err) == PL_OK &&
                       pl_vkey_from_bp_params(&vk, p, &err) == PL_OK,
                   "%s", err.msg);
    pl_bp_params_close(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!vk)
        open_vk();
    pl_fuzz_begin();
    pl_error err = {0};
    size_t max_count = size ? data[0] % 4 : 0;
    pl_proof *proofs = NULL;
    size_t n = 0;
    pl_status st = pl_bp_proofs_read(&proofs, &n, pl_fuzz_file(data, size),
                                     max_count, &err);
    pl_fuzz_check_refusal(st, &err, PL_EINVALID);
    PL_FUZZ_ASSERT((st == PL_OK) == (proofs != NULL), "array and status "
                   "disagree");
    if (st == PL_OK) {
        PL_FUZZ_ASSERT(n >= 1 && n * PL_BP_PROOF_BYTES == size &&
                           (!max_count || n <= max_count),
                       "%zu proofs from %zu bytes (at most %zu)", n, size,
                       max_count);
        for (size_t i = 0; i < n; i++) {
            uint8_t back[PL_BP_PROOF_BYTES];
            pl_proof_to_bp_bytes(back, &proofs[i]);
            PL_FUZZ_ASSERT(memcmp(back, data + i * PL_BP_PROOF_BYTES,
                                  sizeof(back)) == 0,
                           "proof %zu does not encode back to its bytes", i);
        }
        if ((pl_fuzz_hash(data, size) & 15) == 0) {
            size_t n_pub = pl_vkey_n_public(vk);
            pl_scalar *zeros = calloc(n_pub ? n_pub : 1, sizeof(*zeros));
            PL_FUZZ_ASSERT(zeros != NULL, "out of memory");
            err = (pl_error){0};
            st = pl_verify(vk, &proofs[0], zeros, n_pub, &err);
            PL_FUZZ_ASSERT(st == PL_OK || st == PL_EINVALID, "verify: %s: %s",
                           pl_strerror(st), err.msg);
            free(zeros);
        }
    }
    /* the decoder alone, on every input long enough */
    if (size >= PL_BP_PROOF_BYTES) {
        pl_proof one;
        err = (pl_error){0};
        st = pl_proof_from_bp_bytes(&one, data, &err);
        PL_FUZZ_ASSERT(st == PL_OK || st == PL_EFORMAT || st == PL_EINVALID,
                       "proof decode: %s", pl_strerror(st));
        PL_FUZZ_ASSERT(st == PL_OK || (err.code == st && err.msg[0]),
                       "a refusal without its message");
    }
    pl_bp_proofs_free(proofs);
    pl_fuzz_end(size);
    return 0;
}
