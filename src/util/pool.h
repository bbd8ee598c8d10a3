/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fixed-size worker pool owned by a handle (the prover).  pl__pool_run
 * hands out task indices 0..ntasks-1 to the workers and the calling thread,
 * and returns when all are done.  Threads are named "<name>-<i>" and joined
 * on destroy.  One run at a time per pool: concurrent callers queue.
 */
#ifndef PL_UTIL_POOL_H
#define PL_UTIL_POOL_H

#include "proofline.h"

typedef struct pl__pool pl__pool;

/* worker is in [0, pl__pool_size(pool)): an index for per-worker scratch. */
typedef void (*pl__task_fn)(void *ctx, size_t task, unsigned worker);

/* threads counts the caller: threads = 1 creates no thread. */
pl_status pl__pool_create(pl__pool **out, unsigned threads, const char *name,
                          pl_error *err);
void pl__pool_destroy(pl__pool *pool);
/* A NULL pool has size 1 and runs tasks on the caller. */
unsigned pl__pool_size(const pl__pool *pool);
void pl__pool_run(pl__pool *pool, size_t ntasks, pl__task_fn fn, void *ctx);

#define PL__POOL_MAX_THREADS 1024u
/* The pool size pl__pool_create makes for a requested count (0: one per
 * online core; clamped to PL__POOL_MAX_THREADS). */
unsigned pl__pool_threads_for(unsigned requested);

/* Online cores, at least 1. */
unsigned pl__cpu_count(void);

#endif /* PL_UTIL_POOL_H */
