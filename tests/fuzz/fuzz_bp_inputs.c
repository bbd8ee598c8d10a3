/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: bellperson's public-inputs file (pl_bp_inputs_read, the
 * input written to a file): 32-byte little-endian values, at most
 * max_count of them (chosen by the input's first byte: 0 to 3, 0 for no
 * limit).  An accepted file is a whole number of values, each below r and
 * each the file's own bytes; an empty file is no inputs. */
#include "fuzz.h"
#include "proofline_c2.h"
#include "field/field.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    size_t max_count = size ? data[0] % 4 : 0;
    pl_scalar *v = NULL;
    size_t n = 0;
    pl_status st = pl_bp_inputs_read(&v, &n, pl_fuzz_file(data, size),
                                     max_count, &err);
    pl_fuzz_check_outcome(st, &err);
    PL_FUZZ_ASSERT((st == PL_OK) == (v != NULL), "array and status disagree");
    if (st == PL_OK) {
        PL_FUZZ_ASSERT(n * 32 == size && (!max_count || n <= max_count),
                       "%zu inputs from %zu bytes (at most %zu)", n, size,
                       max_count);
        for (size_t i = 0; i < n; i++) {
            PL_FUZZ_ASSERT(pl__scalar_is_canonical(v[i].b), "input %zu >= r",
                           i);
            PL_FUZZ_ASSERT(memcmp(v[i].b, data + 32 * i, 32) == 0,
                           "input %zu is not the file's bytes", i);
        }
    }
    pl_public_free(v);
    pl_fuzz_end(size);
    return 0;
}
