/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Work beside the calling thread: one function on a thread of its own,
 * joined once.  The thread counts its allocations in its starter's
 * accounting scope and reports its stages to a copy of its starter's stage
 * sink, marked helper, so its buffers and its trace spans belong to the
 * proof that started it even after the starter has moved on.  The provers
 * run their G2 sum so (groth16/prover.c, groth16/c2.c).
 */
#ifndef PL_UTIL_BESIDE_H
#define PL_UTIL_BESIDE_H

#include "proofline.h"
#include "util/alloc.h"
#include "util/clock.h"

#include <pthread.h>

typedef struct pl__beside {
    pthread_t thread;
    bool running;
    void (*fn)(void *arg);
    void *arg;
    pl__alloc_scope *scope;
    pl__stage_sink sink;
} pl__beside;

/* Starts fn(arg) on its own thread, named name (at most 15 characters).
 * PL_EINTERNAL when no thread can be started (nothing runs then). */
pl_status pl__beside_start(pl__beside *b, const char *name,
                           void (*fn)(void *arg), void *arg, pl_error *err);
/* Waits for fn to return; a no-op when nothing runs. */
void pl__beside_join(pl__beside *b);

#endif /* PL_UTIL_BESIDE_H */
