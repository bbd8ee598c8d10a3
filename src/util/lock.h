/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A mutex that knows its holder, so that a function named *_locked can
 * assert that its caller holds the lock (pl__lock_mine).  Debug builds
 * keep the holder; release builds (NDEBUG) compile the bookkeeping away
 * and pl__lock_mine answers true.  The holder fields are written and read
 * only by the thread that holds the mutex.  Every use of such a lock goes
 * through these, waits on condition variables included.
 */
#ifndef PL_UTIL_LOCK_H
#define PL_UTIL_LOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

typedef struct pl__lock {
    pthread_mutex_t mutex;
#ifndef NDEBUG
    bool held;
    pthread_t owner;
#endif
} pl__lock;

#define PL__LOCK_INITIALIZER {.mutex = PTHREAD_MUTEX_INITIALIZER}

static inline void pl__lock_note(pl__lock *l, bool held)
{
#ifndef NDEBUG
    l->held = held;
    l->owner = pthread_self();
#else
    (void)l, (void)held;
#endif
}

static inline void pl__lock_init(pl__lock *l)
{
    pthread_mutex_init(&l->mutex, NULL);
    pl__lock_note(l, false);
}

static inline void pl__lock_destroy(pl__lock *l)
{
    pthread_mutex_destroy(&l->mutex);
}

static inline void pl__lock_acquire(pl__lock *l)
{
    pthread_mutex_lock(&l->mutex);
    pl__lock_note(l, true);
}

static inline void pl__lock_release(pl__lock *l)
{
    pl__lock_note(l, false);
    pthread_mutex_unlock(&l->mutex);
}

/* pthread_cond_wait on the lock, which the caller holds. */
static inline void pl__lock_wait(pl__lock *l, pthread_cond_t *cond)
{
    pl__lock_note(l, false);
    pthread_cond_wait(cond, &l->mutex);
    pl__lock_note(l, true);
}

/* pthread_cond_timedwait on the lock: its result (ETIMEDOUT at until). */
static inline int pl__lock_timedwait(pl__lock *l, pthread_cond_t *cond,
                                     const struct timespec *until)
{
    pl__lock_note(l, false);
    int rc = pthread_cond_timedwait(cond, &l->mutex, until);
    pl__lock_note(l, true);
    return rc;
}

/* Whether the calling thread holds the lock (debug builds; else true). */
static inline bool pl__lock_mine(const pl__lock *l)
{
#ifndef NDEBUG
    return l->held && pthread_equal(l->owner, pthread_self());
#else
    (void)l;
    return true;
#endif
}

#endif /* PL_UTIL_LOCK_H */
