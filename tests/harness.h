/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A tiny test harness.  A test file declares cases with
 *     PL_TEST(case_name) { ... }
 * at the start of a line (CMake reads those lines to register one ctest
 * test per case, each run in its own process as `test_x case_name`).
 * After a case returns, the harness asserts that every buffer class of the
 * accounted allocator is back to zero.
 */
#ifndef PL_TEST_HARNESS_H
#define PL_TEST_HARNESS_H

#include "proofline.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*pl_test_fn)(void);
void pl_test_register(const char *name, pl_test_fn fn);
_Noreturn void pl_test_fail(const char *file, int line, const char *fmt, ...);

#define PL_TEST(name)                                                         \
    static void name(void);                                                   \
    __attribute__((constructor)) static void pl_test_reg_##name(void)         \
    {                                                                         \
        pl_test_register(#name, name);                                        \
    }                                                                         \
    static void name(void)

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond))                                                          \
            pl_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);             \
    } while (0)

#define CHECK_EQ(a, b)                                                        \
    do {                                                                      \
        uint64_t pl_a_ = (uint64_t)(a), pl_b_ = (uint64_t)(b);                \
        if (pl_a_ != pl_b_)                                                   \
            pl_test_fail(__FILE__, __LINE__, "%s == %s: %" PRIu64             \
                         " != %" PRIu64, #a, #b, pl_a_, pl_b_);               \
    } while (0)

#define CHECK_MEM(a, b, n)                                                    \
    do {                                                                      \
        if (memcmp((a), (b), (n)) != 0)                                       \
            pl_test_fail(__FILE__, __LINE__, "memcmp(%s, %s, %s) != 0", #a,   \
                         #b, #n);                                             \
    } while (0)

/* A call that must succeed; prints the error message if not. */
#define CHECK_OK(call, errp)                                                  \
    do {                                                                      \
        pl_status pl_s_ = (call);                                             \
        if (pl_s_ != PL_OK)                                                   \
            pl_test_fail(__FILE__, __LINE__, "%s -> %s: %s", #call,           \
                         pl_strerror(pl_s_), (errp)->msg);                    \
    } while (0)

/* A call that must fail with `code`. */
#define CHECK_STATUS(call, code, errp)                                        \
    do {                                                                      \
        pl_status pl_s_ = (call);                                             \
        if (pl_s_ != (code))                                                  \
            pl_test_fail(__FILE__, __LINE__, "%s -> %s, wanted %s (%s)",      \
                         #call, pl_strerror(pl_s_), pl_strerror(code),        \
                         (errp)->msg);                                        \
    } while (0)

/* Paths of committed vectors and of a scratch folder for this build. */
const char *pl_test_vector(const char *relative); /* a buffer per thread */
const char *pl_test_tmp(const char *name);        /* a buffer per thread */
/* The case running now ("" before any).  ctest runs the cases of one
 * program as parallel processes, so a scratch file that cases write
 * carries it in its name, or two cases write one file at once. */
const char *pl_test_case(void);

/* A whole file, malloc'd and NUL-terminated (so JSON can be read as text);
 * fails the test if it cannot be read. */
uint8_t *pl_test_read_file(const char *path, size_t *len);
/* Writes len bytes to path; fails the test on error. */
void pl_test_write_file(const char *path, const void *buf, size_t len);
/* Little-endian stores, for crafting file bytes. */
void pl_test_put_le32(uint8_t *p, uint32_t v);
void pl_test_put_le64(uint8_t *p, uint64_t v);
/* The test's own walk of a snarkjs container's section table, independent
 * of the code under test: the header offset of section id (0 if absent) and
 * its size; and the payload offset of a section that must exist. */
size_t pl_test_find_section(const uint8_t *b, size_t len, uint32_t id,
                            uint64_t *size);
size_t pl_test_section_payload(const uint8_t *b, size_t len, uint32_t id);

/* Every class's live bytes and buffers now (process-wide), so a test that
 * holds buffers of its own (an open witness, read whole) can check that a
 * run gave back everything it took: as pl_alloc_all_freed, relative. */
typedef struct pl_test_live {
    uint64_t bytes[PL_BUF_CLASS_COUNT], count[PL_BUF_CLASS_COUNT];
} pl_test_live;
void pl_test_live_read(pl_test_live *out);
/* True when every class holds what it did at `before`; else false, with
 * the classes that differ in err. */
bool pl_test_live_as_before(const pl_test_live *before, pl_error *err);

/* Deterministic pseudo-random bytes (xorshift), for reproducible inputs. */
void pl_test_random_bytes(uint64_t *state, void *out, size_t n);

/* The CPU backend with each proof's backend work delayed by delay_ms: a
 * slow prover, so that synthesis outruns it. */
struct pl__backend_ops;
void pl_test_slow_backend(struct pl__backend_ops *out, int delay_ms);

#endif /* PL_TEST_HARNESS_H */
