/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared checks of the fuzz targets (tests/fuzz/fuzz_<target>.c).  Each
 * target is one LLVMFuzzerTestOneInput that feeds its bytes to one parser:
 * its in-memory entry where it has one (the same code as the path-taking
 * public call), else the input written to a file (pl_fuzz_file).  A target
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
 * checks them itself: every class back to what was live at pl_fuzz_begin
 * (a target may keep a key or an SRS for the whole run), and the input's
 * peak at most PL_FUZZ_BYTES_PER_BYTE times its size (plus a constant).
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

/* The same, `also` one more status a refusal may have (PL_EINVALID: a
 * proof that decodes to no point of the curve). */
static inline void pl_fuzz_check_refusal(pl_status st, const pl_error *err,
                                         pl_status also)
{
    if (st == PL_OK)
        return;
    PL_FUZZ_ASSERT(st == PL_EFORMAT || st == PL_EUNSUPPORTED || st == also,
                   "status %s for bad input: %.256s", pl_strerror(st),
                   err->msg);
    PL_FUZZ_ASSERT(err->code == st, "err.code %d, returned %d", err->code,
                   st);
    PL_FUZZ_ASSERT(memchr(err->msg, '\0', sizeof(err->msg)) != NULL,
                   "message not terminated");
    PL_FUZZ_ASSERT(strstr(err->msg, PL_FUZZ_NAME) != NULL,
                   "message does not name the input: %s", err->msg);
}

static inline void pl_fuzz_check_outcome(pl_status st, const pl_error *err)
{
    pl_fuzz_check_refusal(st, err, PL_EFORMAT);
}

/* A hash of the input (FNV-1a), for the targets that run a slow check on
 * one input in 2^k: chosen by the bytes, so a replay does the same. */
static inline uint32_t pl_fuzz_hash(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return h;
}

/* A verification key holds a 96-byte point per IC entry, which takes at
 * least 13 characters of JSON ("["0","1","0"]"): 8 bytes per byte. */
#define PL_FUZZ_BYTES_PER_BYTE 16u
#define PL_FUZZ_BYTES_FIXED 65536u

/* What was live in each class when the input began: a target that keeps
 * state across inputs (a key, an SRS, a service) holds accounted buffers
 * the whole run; each input must give back what it took. */
static pl_alloc_stats pl_fuzz_at_begin[PL_BUF_CLASS_COUNT];

/* Restarts the accounted high-water marks at the live bytes. */
static inline void pl_fuzz_begin(void)
{
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        pl_alloc_stats_read(&pl_fuzz_at_begin[c], (pl_buffer_class)c, true);
}

/* Every class back to its bytes at pl_fuzz_begin, and the input's peak
 * (over them) at most PL_FUZZ_BYTES_PER_BYTE times its size plus
 * PL_FUZZ_BYTES_FIXED. */
static inline void pl_fuzz_end(size_t size)
{
    uint64_t peak = 0;
    pl_alloc_stats s;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        const pl_alloc_stats *b = &pl_fuzz_at_begin[c];
        pl_alloc_stats_read(&s, (pl_buffer_class)c, false);
        PL_FUZZ_ASSERT(s.live_bytes == b->live_bytes &&
                           s.live_count == b->live_count,
                       "class %s: %llu buffers, %llu bytes live, %llu and "
                       "%llu before the input",
                       pl_buffer_class_name((pl_buffer_class)c),
                       (unsigned long long)s.live_count,
                       (unsigned long long)s.live_bytes,
                       (unsigned long long)b->live_count,
                       (unsigned long long)b->live_bytes);
        peak += s.high_water_bytes - b->live_bytes;
    }
    PL_FUZZ_ASSERT(peak <= (uint64_t)size * PL_FUZZ_BYTES_PER_BYTE +
                               PL_FUZZ_BYTES_FIXED,
                   "accounted peak %llu bytes for a %zu-byte input",
                   (unsigned long long)peak, size);
}

/* For the readers that take a path: the input written whole to a file
 * named PL_FUZZ_NAME in a folder of this process's own (made at the first
 * call under $PL_FUZZ_TMP, else /dev/shm, else $TMPDIR or /tmp; removed
 * at exit), whose path is returned; the messages name it, so they name
 * PL_FUZZ_NAME. */
const char *pl_fuzz_file(const uint8_t *data, size_t size);
/* That folder, made if it is not there yet. */
const char *pl_fuzz_dir(void);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* PL_FUZZ_H */
