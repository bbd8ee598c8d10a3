/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's scheduling decisions, as functions of plain values: the
 * defaults of its configuration, which partition is admitted next, how
 * many bytes it reserves and at which events they come back, whether it
 * can ever fit, whether the hand-off (and the finisher's queue) has a free
 * slot, and when a synthesis worker is free to admit again.  None of them
 * locks, sleeps or allocates, so a second caller, the planner (src/plan/,
 * the engine's policy on a simulated clock), makes the same decisions
 * through the same code.  engine.c calls them under its locks.
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

/* A queue of `capacity` holding `count` can take one more (the finisher's
 * queue: its capacity is the prover workers). */
bool pl__sched_queue_has_room(size_t count, size_t capacity);

/* The bytes a partition gives back right after `event` (its buffers freed
 * by then): the a/b/c share once start has freed them (abc_freed), all it
 * still holds when it is retired (dealloc_done, failed, cancelled);
 * nothing at any other event.  `held`: what it still holds. */
uint64_t pl__sched_release_after(const pl__sched_reservation *r,
                                 pl_event event, uint64_t held);

/* When a synthesis worker may admit the next partition.  The engine's
 * policy (OURS) keeps the worker, and so the partition it holds, until the
 * hand-off has taken the partition: synthesized partitions in memory are
 * bounded by the workers plus the hand-off's slots.  The story's
 * (DESIGN.md) returned the permit as soon as synthesis ended, so any
 * number could pile up in front of the prover; the planner replays it. */
typedef enum {
    PL__SCHED_OURS,
    PL__SCHED_RELEASE_AT_SYNTH_END,
} pl__sched_policy;

/* True when, under `policy`, a synthesis worker is free once `event` has
 * happened to its partition. */
bool pl__sched_worker_free_after(pl__sched_policy policy, pl_event event);

/* The engine's defaults for what a configuration leaves at 0: the budget
 * (80% of memory_limit, the memory the process can use; 4 GiB when that is
 * unknown), pw 2, one prover worker per device (devices: what the backend
 * has, at least 1), as many hand-off slots as prover workers.  threads and
 * the sampling period are left alone. */
void pl__sched_config_complete(pl_engine_config *cfg, uint64_t memory_limit,
                               unsigned devices);
/* The device prover worker w proves on, of `devices`. */
unsigned pl__sched_worker_device(unsigned worker, unsigned devices);
/* Whether a job limited to device_mask (bit d: device d; 0: any) may be
 * proved on device d. */
bool pl__sched_device_allowed(uint32_t device_mask, unsigned device);

#endif /* PL_ENGINE_SCHED_H */
