/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The byte budget (see budget.h).  One lock; no work is done under it.
 */
#include "engine/budget.h"
#include "engine/sched.h"

#include <stdlib.h>

void pl__budget_init(pl__budget *b, uint64_t limit)
{
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->released, NULL);
    b->limit = limit;
    b->reserved = 0;
    b->peak = 0;
}

void pl__budget_destroy(pl__budget *b)
{
    pthread_cond_destroy(&b->released);
    pthread_mutex_destroy(&b->lock);
}

/* The planner asks the same question of its simulated budget. */
static bool fits(const pl__budget *b, uint64_t bytes)
{
    return pl__sched_can_fit(b->limit, b->reserved, bytes);
}

static void take(pl__budget *b, uint64_t bytes)
{
    b->reserved += bytes;
    if (b->reserved > b->peak)
        b->peak = b->reserved;
}

bool pl__budget_try_reserve(pl__budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    bool ok = fits(b, bytes);
    if (ok)
        take(b, bytes);
    pthread_mutex_unlock(&b->lock);
    return ok;
}

bool pl__budget_reserve(pl__budget *b, uint64_t bytes,
                        bool (*give_up)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&b->lock);
    bool ok = false;
    for (;;) {
        if (bytes > b->limit || (give_up && give_up(ctx)))
            break;
        if (fits(b, bytes)) {
            take(b, bytes);
            ok = true;
            break;
        }
        pthread_cond_wait(&b->released, &b->lock);
    }
    pthread_mutex_unlock(&b->lock);
    return ok;
}

void pl__budget_release(pl__budget *b, uint64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    if (bytes > b->reserved)
        abort(); /* releasing more than was reserved: the books are wrong */
    b->reserved -= bytes;
    pthread_cond_broadcast(&b->released);
    pthread_mutex_unlock(&b->lock);
}

void pl__budget_wake(pl__budget *b)
{
    pthread_mutex_lock(&b->lock);
    pthread_cond_broadcast(&b->released);
    pthread_mutex_unlock(&b->lock);
}

void pl__budget_read(pl__budget *b, uint64_t *reserved, uint64_t *peak)
{
    pthread_mutex_lock(&b->lock);
    if (reserved)
        *reserved = b->reserved;
    if (peak)
        *peak = b->peak;
    pthread_mutex_unlock(&b->lock);
}
