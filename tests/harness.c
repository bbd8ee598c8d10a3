/* SPDX-License-Identifier: Apache-2.0 */
/* The test harness: case registry, failure reporting, ledger-zero check. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "backend/backend.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>

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
    static _Thread_local char path[4096]; /* one per thread */
    snprintf(path, sizeof(path), "%s/%s", PL_TEST_VECTORS, relative);
    return path;
}

const char *pl_test_tmp(const char *name)
{
    static _Thread_local char path[4096]; /* one per thread */
    mkdir(PL_TEST_TMP, 0777);
    snprintf(path, sizeof(path), "%s/%s", PL_TEST_TMP, name);
    return path;
}

void pl_test_live_read(pl_test_live *out)
{
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        pl_alloc_stats st;
        pl_alloc_stats_read(&st, (pl_buffer_class)c, false);
        out->bytes[c] = st.live_bytes;
        out->count[c] = st.live_count;
    }
}

bool pl_test_live_as_before(const pl_test_live *before, pl_error *err)
{
    pl_test_live now;
    pl_test_live_read(&now);
    size_t used = 0;
    err->msg[0] = '\0';
    bool same = true;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        if (now.bytes[c] == before->bytes[c] &&
            now.count[c] == before->count[c])
            continue;
        same = false;
        if (used + 1 >= sizeof(err->msg))
            continue;
        used += (size_t)snprintf(err->msg + used, sizeof(err->msg) - used,
                                 "%s%s: %llu bytes in %llu, were %llu in "
                                 "%llu", used ? "; " : "",
                                 pl_buffer_class_name((pl_buffer_class)c),
                                 (unsigned long long)now.bytes[c],
                                 (unsigned long long)now.count[c],
                                 (unsigned long long)before->bytes[c],
                                 (unsigned long long)before->count[c]);
    }
    return same;
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

uint8_t *pl_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        pl_test_fail(__FILE__, __LINE__, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    CHECK(buf != NULL);
    CHECK_EQ(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

void pl_test_write_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        pl_test_fail(__FILE__, __LINE__, "cannot create %s", path);
    CHECK_EQ(fwrite(buf, 1, len, f), len);
    CHECK(fclose(f) == 0);
}

void pl_test_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void pl_test_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

size_t pl_test_find_section(const uint8_t *b, size_t len, uint32_t id,
                            uint64_t *size)
{
    size_t off = 12;
    uint32_t n = (uint32_t)get_le(b + 8, 4);
    for (uint32_t i = 0; i < n && off + 12 <= len; i++) {
        uint64_t sz = get_le(b + off + 4, 8);
        if (get_le(b + off, 4) == id) {
            if (size)
                *size = sz;
            return off;
        }
        off += 12 + (size_t)sz;
    }
    return 0;
}

size_t pl_test_section_payload(const uint8_t *b, size_t len, uint32_t id)
{
    size_t off = pl_test_find_section(b, len, id, NULL);
    if (off == 0)
        pl_test_fail(__FILE__, __LINE__, "test vector lacks section %u", id);
    return off + 12;
}

static const char *current_case = "";

const char *pl_test_case(void) { return current_case; }

static int run_case(int i)
{
    current_case = cases[i].name;
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

static int slow_backend_ms;

static pl_status slow_begin(pl__backend_proof *proof, pl_error *err)
{
    struct timespec ts = {slow_backend_ms / 1000,
                          (long)(slow_backend_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return pl__backend_cpu.begin(proof, err);
}

void pl_test_slow_backend(pl__backend_ops *out, int delay_ms)
{
    slow_backend_ms = delay_ms;
    *out = pl__backend_cpu;
    out->name = "slow-test";
    out->begin = slow_begin;
}
