/* SPDX-License-Identifier: Apache-2.0 */
/* The test harness: case registry, failure reporting, ledger-zero check. */
#include "harness.h"

#include <stdarg.h>
#include <sys/stat.h>

#define MAX_CASES 256
static struct {
    const char *name;
    pl_test_fn fn;
} cases[MAX_CASES];
static int n_cases;

void pl_test_register(const char *name, pl_test_fn fn)
{
    if (n_cases < MAX_CASES) {
        cases[n_cases].name = name;
        cases[n_cases].fn = fn;
        n_cases++;
    }
}

_Noreturn void pl_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

const char *pl_test_vector(const char *relative)
{
    static char path[4096];
    snprintf(path, sizeof(path), "%s/%s", PL_TEST_VECTORS, relative);
    return path;
}

const char *pl_test_tmp(const char *name)
{
    static char path[4096];
    mkdir(PL_TEST_TMP, 0777);
    snprintf(path, sizeof(path), "%s/%s", PL_TEST_TMP, name);
    return path;
}

void pl_test_random_bytes(uint64_t *state, void *out, size_t n)
{
    uint8_t *p = out;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *state = x;
        p[i] = (uint8_t)(x >> 24);
    }
}

static int run_case(int i)
{
    cases[i].fn();
    pl_error err = {0};
    if (!pl_alloc_all_freed(&err)) {
        fprintf(stderr, "FAIL %s: ledger not zero after the case: %s\n",
                cases[i].name, err.msg);
        return 1;
    }
    printf("ok %s\n", cases[i].name);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { /* run every case in this process */
        int failed = 0;
        for (int i = 0; i < n_cases; i++)
            failed |= run_case(i);
        return failed;
    }
    for (int i = 0; i < n_cases; i++)
        if (strcmp(cases[i].name, argv[1]) == 0)
            return run_case(i);
    fprintf(stderr, "no test case named %s\n", argv[1]);
    return 2;
}
