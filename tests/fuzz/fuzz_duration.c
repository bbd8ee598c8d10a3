/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: cli_parse_duration (cli/cli.c), the durations of the
 * command line (--timeout, --lease, --drain-timeout, ...: "30s", "10m",
 * "1.5h", "7d", "45").  The bytes become a C string, cut at the first NUL
 * as argv would be.  An accepted duration is a finite number of seconds,
 * not negative, and parsing is a pure function. */
#include "fuzz.h"
#include "../../cli/cli.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    PL_FUZZ_ASSERT(text != NULL, "out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    double a = -1, b = -1;
    bool ok = cli_parse_duration(text, &a);
    PL_FUZZ_ASSERT(ok == cli_parse_duration(text, &b), "not deterministic");
    if (ok)
        PL_FUZZ_ASSERT(isfinite(a) && a >= 0 && a == b,
                       "accepted \"%.64s\" as %g seconds", text, a);
    free(text);
    return 0;
}
