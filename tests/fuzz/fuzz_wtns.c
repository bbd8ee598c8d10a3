/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the .wtns reader (pl__wtns_parse, the code of pl_wtns_open
 * and pl__wtns_load).  An accepted witness holds its count of values in its
 * size, every one below r. */
#include "fuzz.h"
#include "field/field.h"
#include "formats/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_wtns *w = NULL;
    pl_status st = pl__wtns_parse(&w, data, size, PL_FUZZ_NAME, &err);
    pl_fuzz_check_outcome(st, &err);
    PL_FUZZ_ASSERT((st == PL_OK) == (w != NULL), "handle and status disagree");
    if (w) {
        size_t n = pl_wtns_count(w);
        PL_FUZZ_ASSERT((uint64_t)n * 32 <= size, "%zu values in %zu bytes", n,
                       size);
        const pl_scalar *v = pl_wtns_values(w);
        for (size_t i = 0; i < n; i++)
            PL_FUZZ_ASSERT(pl__scalar_is_canonical(v[i].b), "value %zu >= r",
                           i);
        pl_wtns_close(w);
    }
    pl_fuzz_end(size);
    return 0;
}
