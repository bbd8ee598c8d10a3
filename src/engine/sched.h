/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's scheduling decisions, as functions of plain values: which
 * partition is admitted next, how many bytes it reserves and when they come
 * back, whether it can ever fit, whether the hand-off has a free slot.
 * None of them locks, sleeps or allocates, so a second caller (the planner,
 * running the engine's policy on a simulated clock) makes the same
 * decisions through the same code.  engine.c calls them under its locks.
 */
#ifndef PL_ENGINE_SCHED_H
#define PL_ENGINE_SCHED_H

#include "proofline.h"
#include "groth16/prover.h" /* pl__prove_plan */

/* What admission orders partitions by: higher priority first, then the
 * older job (smaller sequence number), then the lower partition. */
typedef struct pl__sched_key {
    int priority;
    uint64_t job_seq;
    size_t partition;
} pl__sched_key;

/* True when a is admitted before b. */
bool pl__sched_before(const pl__sched_key *a, const pl__sched_key *b);

/* Whether a job of priority `arriving` makes the admission waiting for
 * room for a partition of priority `waiting` give way (INT_MIN: none
 * waits): only a strictly higher priority does, so equal ones keep their
 * arrival order. */
bool pl__sched_preempts(int waiting, int arriving);

/* A partition's reservation: everything one proof of the circuit plans,
 * plus its witness; abc_share goes back once start has freed a/b/c, the
 * rest when the partition is retired (its buffers freed). */
typedef struct pl__sched_reservation {
    uint64_t total;
    uint64_t abc_share;
} pl__sched_reservation;

void pl__sched_reservation_for(pl__sched_reservation *out,
                               const pl__prove_plan *plan,
                               uint64_t witness_bytes);

/* Whether a reservation of `bytes` can ever be granted by a budget of
 * `limit` bytes of which open circuits hold `resident` for as long as they
 * are open: everything else comes back, those bytes do not. */
bool pl__sched_can_fit(uint64_t limit, uint64_t resident, uint64_t bytes);
/* The smallest budget under which it can. */
uint64_t pl__sched_smallest_budget(uint64_t resident, uint64_t bytes);

/* Whether a synthesized partition may claim a hand-off slot now: `queued`
 * are in it, `claimed` are about to be pushed. */
bool pl__sched_handoff_has_room(size_t queued, size_t claimed,
                                size_t capacity);

#endif /* PL_ENGINE_SCHED_H */
