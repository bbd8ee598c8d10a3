/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the .zkey reader (pl__zkey_parse, the code of pl_zkey_open).
 * An accepted zkey must have counts its size can hold.  One accepted input
 * in 8 (by a hash of its bytes, so a replay does the same) then goes through
 * the parameter check and the verification key, which must refuse cleanly
 * whatever the points are: they cost milliseconds (subgroup checks, a
 * pairing), which on every input would cut the executions tenfold. */
#include "fuzz.h"
#include "formats/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_zkey *z = NULL;
    pl_status st = pl__zkey_parse(&z, data, size, PL_FUZZ_NAME, &err);
    pl_fuzz_check_outcome(st, &err);
    PL_FUZZ_ASSERT((st == PL_OK) == (z != NULL), "handle and status disagree");
    if (z) {
        pl_zkey_info info;
        pl_zkey_get_info(z, &info);
        uint64_t points = 3 * (uint64_t)info.n_vars + info.domain_size;
        PL_FUZZ_ASSERT(points * 96 + (uint64_t)info.n_coefs * 44 <= size,
                       "counts nVars %u domain %u nCoef %u in %zu bytes",
                       info.n_vars, info.domain_size, info.n_coefs, size);
        PL_FUZZ_ASSERT(info.n_constraints + (uint64_t)info.n_public + 1 <=
                           info.domain_size, "constraints beyond the domain");
        if ((pl_fuzz_hash(data, size) & 7) == 0) {
            pl_fuzz_check_outcome(pl_zkey_check_points(z, &err), &err);
            pl_vkey *vk = NULL;
            pl_fuzz_check_outcome(pl_vkey_from_zkey(&vk, z, &err), &err);
            pl_vkey_destroy(vk);
        }
        pl_zkey_close(z);
    }
    pl_fuzz_end(size);
    return 0;
}
