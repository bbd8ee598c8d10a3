/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The byte budget: a counting semaphore over bytes.  Bytes are reserved
 * before the buffers they stand for are allocated and released after those
 * buffers are freed, so reserved >= allocated at every instant and the peak
 * reserved never exceeds the limit.  The engine serializes waiters (one
 * admission at a time), which makes admission strictly ordered.
 */
#ifndef PL_ENGINE_BUDGET_H
#define PL_ENGINE_BUDGET_H

#include "proofline.h"

#include <pthread.h>

typedef struct pl__budget {
    pthread_mutex_t lock;
    pthread_cond_t released;
    uint64_t limit;
    uint64_t reserved;
    uint64_t peak;
} pl__budget;

void pl__budget_init(pl__budget *b, uint64_t limit);
void pl__budget_destroy(pl__budget *b);

/* Takes `bytes` if they fit now. */
bool pl__budget_try_reserve(pl__budget *b, uint64_t bytes);
/* Waits until `bytes` fit, or until give_up(ctx) returns true (checked
 * whenever bytes are released, and on pl__budget_wake).  Returns true if
 * reserved.  bytes must not exceed the limit. */
bool pl__budget_reserve(pl__budget *b, uint64_t bytes,
                        bool (*give_up)(void *ctx), void *ctx);
void pl__budget_release(pl__budget *b, uint64_t bytes);
/* Wakes waiters so they re-check give_up (cancellation, shutdown). */
void pl__budget_wake(pl__budget *b);
void pl__budget_read(pl__budget *b, uint64_t *reserved, uint64_t *peak);

#endif /* PL_ENGINE_BUDGET_H */
