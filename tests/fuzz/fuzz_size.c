/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: pl_parse_size, the --budget argument.  The bytes become a C
 * string (cut at the first NUL, as argv would be); an accepted size is at
 * least one byte, and parsing is a pure function. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    PL_FUZZ_ASSERT(text != NULL, "out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    uint64_t a = 0, b = 0;
    bool ok = pl_parse_size(text, &a);
    PL_FUZZ_ASSERT(ok == pl_parse_size(text, &b), "not deterministic");
    if (ok)
        PL_FUZZ_ASSERT(a >= 1 && a == b, "accepted \"%s\" as %llu", text,
                       (unsigned long long)a);
    free(text);
    return 0;
}
