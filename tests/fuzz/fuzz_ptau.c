/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the .ptau reader of the ceremony (pl__ptau_open: the
 * header, the sections' sizes, the contribution records) on the input as a
 * file.  An accepted file holds the points its power claims.  One accepted
 * input in 16 (by a hash of its bytes, so a replay does the same) then goes
 * through `ptau verify` (pl_ptau_verify: every contribution's proofs of
 * knowledge and hashes, the powers' pairings, the Lagrange bases), which
 * must refuse cleanly whatever the points are; on every input it would cut
 * the executions by a hundred. */
#include "fuzz.h"
#include "ceremony/ceremony.h"
#include "proofline_ceremony.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    const char *path = pl_fuzz_file(data, size);
    pl__ptau p;
    pl_status st = pl__ptau_open(&p, path, &err);
    pl_fuzz_check_outcome(st, &err);
    if (st == PL_OK) {
        uint64_t bytes = 0;
        for (unsigned id = 2; id <= 6; id++)
            bytes += pl__ptau_section_points(id, p.power) *
                     pl__ptau_section_group(p.curve, id)->aff_bytes;
        PL_FUZZ_ASSERT(bytes <= size, "power %u needs %llu bytes of points "
                       "in %zu", p.power, (unsigned long long)bytes, size);
        PL_FUZZ_ASSERT(p.power <= p.ceremony_power, "power %u of %u",
                       p.power, p.ceremony_power);
    }
    pl__ptau_close(&p);
    if (st == PL_OK && (pl_fuzz_hash(data, size) & 15) == 0) {
        pl_ceremony_config cfg;
        pl_ceremony_config_init(&cfg);
        cfg.threads = 1;
        cfg.max_beacon_exp = 12; /* the seeds' are 10: a file's larger
                                   * beacon is refused, not replayed */
        st = pl_ptau_verify(path, &cfg, &err);
        /* a contribution or a power that does not check out is a
         * verification failure, not a bad input */
        pl_fuzz_check_refusal(st, &err, PL_EINVALID);
    }
    pl_fuzz_end(size);
    return 0;
}
