/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared checks of the fuzz targets (tests/fuzz/fuzz_<target>.c).  Each
 * target is one LLVMFuzzerTestOneInput that feeds its bytes to one parser's
 * in-memory entry, the same code as the path-taking public call.  A target
 * is linked either with libFuzzer (`make fuzz`, clang) or with replay.c, a
 * plain main that runs the seed corpus and tests/fuzz/regressions/<target>/
 * in `make test`.
 *
 * Beyond "no crash, no leak, no undefined behaviour" (the sanitizers'
 * job), every target checks the contract of a refusal: the status is a
 * bad-input one (PL_EFORMAT or PL_EUNSUPPORTED, never internal), err.code
 * agrees, and the message is a terminated string naming the input.
 *
 * Memory: a parser may allocate in proportion to its input, never to a
 * count the input claims.  Heap allocations are bounded from outside by
 * libFuzzer's -malloc_limit_mb and -rss_limit_mb (see run.sh: inputs are
 * capped at 64 KiB, the limit is 16 MiB).  Accounted buffers of 1 MiB or
 * more are anonymous maps that those limits do not see, so pl_fuzz_end
 * checks them itself: every class back to zero, and the peak of the input
 * at most PL_FUZZ_BYTES_PER_BYTE times its size (plus a constant).
 */
#ifndef PL_FUZZ_H
#define PL_FUZZ_H

#include "proofline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name the inputs go by in messages. */
#define PL_FUZZ_NAME "fuzz-input"

#define PL_FUZZ_ASSERT(cond, ...)                                             \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            abort();                                                          \
        }                                                                     \
    } while (0)

static inline void pl_fuzz_check_outcome(pl_status st, const pl_error *err)
{
    if (st == PL_OK)
        return;
    PL_FUZZ_ASSERT(st == PL_EFORMAT || st == PL_EUNSUPPORTED,
                   "status %s for bad input: %.256s", pl_strerror(st),
                   err->msg);
    PL_FUZZ_ASSERT(err->code == st, "err.code %d, returned %d", err->code,
                   st);
    PL_FUZZ_ASSERT(memchr(err->msg, '\0', sizeof(err->msg)) != NULL,
                   "message not terminated");
    PL_FUZZ_ASSERT(strstr(err->msg, PL_FUZZ_NAME) != NULL,
                   "message does not name the input: %s", err->msg);
}

/* A verification key holds a 96-byte point per IC entry, which takes at
 * least 13 characters of JSON ("["0","1","0"]"): 8 bytes per byte. */
#define PL_FUZZ_BYTES_PER_BYTE 16u
#define PL_FUZZ_BYTES_FIXED 65536u

/* Restarts the accounted high-water marks (every class is at zero here). */
static inline void pl_fuzz_begin(void)
{
    pl_alloc_stats s;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        pl_alloc_stats_read(&s, (pl_buffer_class)c, true);
}

static inline void pl_fuzz_end(size_t size)
{
    pl_error err = {0};
    PL_FUZZ_ASSERT(pl_alloc_all_freed(&err), "%s", err.msg);
    uint64_t peak = 0;
    pl_alloc_stats s;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        pl_alloc_stats_read(&s, (pl_buffer_class)c, false);
        peak += s.high_water_bytes;
    }
    PL_FUZZ_ASSERT(peak <= (uint64_t)size * PL_FUZZ_BYTES_PER_BYTE +
                               PL_FUZZ_BYTES_FIXED,
                   "accounted peak %llu bytes for a %zu-byte input",
                   (unsigned long long)peak, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* PL_FUZZ_H */
