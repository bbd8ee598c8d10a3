/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the planner's stage-costs file (pl_plan_costs_read, `plan
 * --costs FILE`; the input written to a file).  An accepted file gives
 * each stage a finite, non-negative fixed time and time per row, a core
 * count of at least one and terminated names; the seconds it predicts at
 * any size are finite and not negative. */
#include "fuzz.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_plan_costs c;
    pl_status st = pl_plan_costs_read(&c, pl_fuzz_file(data, size), &err);
    pl_fuzz_check_outcome(st, &err);
    if (st == PL_OK) {
        PL_FUZZ_ASSERT(c.cores >= 1, "cores %u", c.cores);
        PL_FUZZ_ASSERT(memchr(c.profile, 0, sizeof(c.profile)) &&
                           memchr(c.source, 0, sizeof(c.source)),
                       "a name not terminated");
        for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++) {
            PL_FUZZ_ASSERT(isfinite(c.fixed[s]) && c.fixed[s] >= 0 &&
                               isfinite(c.per_row[s]) && c.per_row[s] >= 0,
                           "stage %d: %g + %g per row", s, c.fixed[s],
                           c.per_row[s]);
            PL_FUZZ_ASSERT(isfinite(c.bn254_fixed[s]) &&
                               c.bn254_fixed[s] >= 0 &&
                               isfinite(c.bn254_per_row[s]) &&
                               c.bn254_per_row[s] >= 0,
                           "BN254 stage %d: %g + %g per row", s,
                           c.bn254_fixed[s], c.bn254_per_row[s]);
            const uint64_t rows[] = {0, 1, 1u << 27, UINT64_MAX};
            for (unsigned i = 0; i < 4; i++) {
                double t = pl_plan_costs_seconds(&c, (pl_plan_stage)s,
                                                 rows[i]) +
                           pl_plan_costs_seconds_curve(&c, PL_CURVE_BN254,
                                                       (pl_plan_stage)s,
                                                       rows[i]);
                PL_FUZZ_ASSERT(t >= 0 && !isnan(t), "stage %d at %llu rows: "
                               "%g s", s, (unsigned long long)rows[i], t);
            }
        }
    }
    pl_fuzz_end(size);
    return 0;
}
