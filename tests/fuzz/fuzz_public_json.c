/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: public.json (pl__public_parse_json, the code of
 * pl_public_read_json).  Accepted inputs are below r and no more numerous
 * than the text can hold. */
#include "fuzz.h"
#include "field/field.h"
#include "formats/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pl_fuzz_begin();
    pl_error err = {0};
    pl_scalar *vals = NULL;
    size_t n = 0;
    pl_status st = pl__public_parse_json(&vals, &n, (const char *)data, size,
                                         PL_FUZZ_NAME, &err);
    pl_fuzz_check_outcome(st, &err);
    PL_FUZZ_ASSERT((st == PL_OK) == (vals != NULL), "array and status disagree");
    PL_FUZZ_ASSERT(n * 4 <= size + 2, "%zu inputs in %zu bytes", n, size);
    for (size_t i = 0; i < n; i++)
        PL_FUZZ_ASSERT(pl__scalar_is_canonical(vals[i].b), "input %zu >= r", i);
    pl_public_free(vals);
    pl_fuzz_end(size);
    return 0;
}
