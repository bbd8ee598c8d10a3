/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proving engine: jobs of N partitions of one circuit, proved under a
 * byte budget by a pipeline of threads, the same for every proof kind (a
 * snarkjs zkey's witnesses, engine/kind_zkey.c; bellperson's parameters
 * and assignments, engine/kind_c2.c; engine/kinds.h says what differs):
 *
 *   synthesis workers (pw, "pl-synth-i"): admit the next partition in order
 *     (highest priority, oldest job, lowest partition), reserving its bytes
 *     from the budget first; the kind's synthesis makes its proof input
 *     (a, b, c and the sums' scalars: from a witness through the zkey's
 *     matrices, or from bellperson's assignment); push it into the
 *     hand-off.
 *   the hand-off: one bounded FIFO (handoff_slots), the only place a
 *     synthesized partition is handed on.
 *   prover workers ("pl-prove-w-i"): the skeleton's start (the G2 sum on
 *     its own thread; H and the G1 sums on the circuit's backend); a/b/c
 *     are freed inside start, and their share of the reservation is
 *     released right after (abc_freed); the pending state goes to the
 *     finisher.
 *   the finisher ("pl-finish"): the skeleton's finish, verification if
 *     asked, delivery, the rest freed and the rest of the reservation
 *     released.
 *   the sampler ("pl-rss"): a ledger sample (RSS, classes) every sample_ms.
 *
 * The engine calls the prover (src/groth16/) only; the backend it was
 * created with is chosen, planned and opened through the prover.  Its
 * decisions (defaults, admission order, a partition's bytes and when each
 * share comes back, whether they can ever fit, hand-off and finishing
 * room, when a synthesis worker is free) are the pure functions of
 * sched.c, which the planner (src/plan/) calls too.  Every engine
 * thread, and the caller inside an engine call, allocates in the engine's
 * accounting scope, so destroy checks this engine's buffers only.
 *
 * At every lifecycle event the ledger (src/ledger/) records the stages, the
 * classes, reserved bytes and RSS, and logs one line; see docs/ledger.md.
 * The prover's stages go to it as spans for the trace, through a stage
 * sink (util/clock.h) set on the threads that prove (stage_spans_of).
 *
 * A partition's reservation travels with it and is released only after the
 * memory it stands for is freed.  A partition that fails fails its job: the
 * job's partitions not yet admitted are skipped, those in flight are dropped
 * at their next stage, and every byte comes back.
 *
 * Lock order: admission_lock, then lock, then the budget's lock (and the
 * ledger's, which takes no other).  No lock is held while proving work
 * runs; the budget's give-up check reads only atomics.  admission_lock is
 * held across the stat() of the next witness file: the size is part of the
 * decision that lock orders, only synthesis workers take it, and `lock`
 * (which callers and provers need) is not held then.
 */
#define _GNU_SOURCE
#include "engine/budget.h"
#include "engine/engine.h"
#include "engine/sched.h"
#include "engine/kinds.h"
#include "field/field.h"
#include "formats/formats.h"
#include "groth16/prover.h"
#include "ledger/ledger.h"
#include "ledger/report.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/lock.h"
#include "util/pool.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SAMPLE_MS 100
/* ledger tracks: 0 the caller, then synthesis workers, prover workers, the
 * finisher */
#define TRACK_CALLER 0u

typedef struct {
    partition *head, *tail;
    size_t count, capacity;
    size_t claimed; /* slots claimed by a worker about to push */
} fifo;

typedef struct {
    pl_engine *engine;
    unsigned track;
    unsigned device; /* a prover worker's */
} thread_arg;

struct pl_engine {
    pl_engine_config cfg;
    /* the backend new circuits open on, and the one that replaces it when
     * its device faults (the CPU, for an engine created with "auto") */
    _Atomic(const pl__backend_ops *) backend;
    const pl__backend_ops *fallback;
    pl__budget budget;
    pl__ledger *ledger;
    pl__alloc_scope *scope;  /* counts this engine's buffers (destroy's check) */
    /* the open circuits' resident reservations: what no partition can use */
    _Atomic uint64_t resident_total;
    thread_arg *thread_args; /* one per engine thread */
    uint64_t trimmed_bytes;

    pthread_mutex_t admission_lock;
    pl__lock lock;  /* engine_lock(): the jobs, queues and counters */
    pthread_cond_t work_changed;   /* a job arrived or stopped */
    pthread_cond_t handoff_changed;
    pthread_cond_t finish_changed;
    pthread_cond_t job_done;
    pthread_cond_t sampler_wake;
    pthread_cond_t circuit_opened; /* a circuit's open finished */

    job *jobs; /* in submission order */
    uint64_t next_job_id;
    /* The priority of the partition admission is waiting on (INT_MIN when
     * none; written under `lock` with the pick), and whether a job of a
     * higher one arrived since: the wait then gives way (the partition goes
     * back, unadmitted), so no lower partition takes room a higher job
     * waits for. */
    int admitting_priority;
    atomic_bool admission_yield;
    pl_circuit *circuits;
    fifo handoff, finishing;
    atomic_bool stopping;
    unsigned provers_alive;

    uint64_t stage_now[PL_STAGE_COUNT], stage_peak[PL_STAGE_COUNT];
    uint64_t proofs, verified, failed, skipped;
    uint64_t device_starts[PL_MAX_DEVICES]; /* proofs started, per device */

    pthread_t *synth_threads, *prover_threads, finisher_thread, sampler_thread;
    unsigned n_synth_started, n_prover_started;
    bool finisher_started, sampler_started;
};

/* ---- the engine's lock ---------------------------------------------------- */

/* Every use of e->lock goes through these (util/lock.h), so that a
 * function named *_locked can assert that its caller holds the lock. */
static void engine_lock(pl_engine *e)
{
    pl__lock_acquire(&e->lock);
}

static void engine_unlock(pl_engine *e)
{
    pl__lock_release(&e->lock);
}

static void engine_wait(pl_engine *e, pthread_cond_t *cond)
{
    pl__lock_wait(&e->lock, cond);
}

static void engine_timedwait(pl_engine *e, pthread_cond_t *cond,
                             const struct timespec *until)
{
    (void)pl__lock_timedwait(&e->lock, cond, until);
}

static inline bool engine_lock_held(const pl_engine *e)
{
    return pl__lock_mine(&e->lock);
}

/* ---- small helpers ----------------------------------------------------- */

static _Thread_local unsigned current_track = TRACK_CALLER;

/* An engine thread's start: its ledger track, and the engine's accounting
 * scope for everything it allocates. */
static pl_engine *enter_thread(void *arg)
{
    thread_arg *ta = arg;
    current_track = ta->track;
    pl__alloc_scope_enter(ta->engine->scope);
    return ta->engine;
}

/* The engine's devices' memory as their drivers see it, summed (0: no
 * device); per_used, per_total (PL_MAX_DEVICES each, or NULL): each
 * device's, 0 for one not read. */
static void device_memory(pl_engine *e, uint64_t *used, uint64_t *total,
                          uint64_t *used_at_open, uint64_t *per_used,
                          uint64_t *per_total)
{
    const pl__backend_ops *backend = atomic_load(&e->backend);
    *used = *total = *used_at_open = 0;
    for (unsigned d = 0; d < e->cfg.devices && d < PL_MAX_DEVICES; d++) {
        uint64_t u, t, o;
        if (!pl__prover_device_memory(backend, (int)d, &u, &t, &o))
            u = t = o = 0;
        *used += u;
        *total += t;
        *used_at_open += o;
        if (per_used)
            per_used[d] = u;
        if (per_total)
            per_total[d] = t;
    }
}

/* A ledger record of `event` for partition `part` of job `job_id`
 * (PL_EV_COUNT: a timer sample), with the stages and reserved bytes as they
 * are now; note: what a failed or cancelled record says (NULL: nothing). */
static void emit_ids_note(pl_engine *e, pl_event event, uint64_t job_id,
                          size_t part, const pl__ledger_note *note)
{
    pl__ledger_state state;
    engine_lock(e);
    memcpy(state.stage_now, e->stage_now, sizeof(state.stage_now));
    engine_unlock(e);
    pl__budget_read(&e->budget, &state.reserved_bytes, NULL);
    state.budget_bytes = e->budget.limit;
    device_memory(e, &state.device_used_bytes, &state.device_total_bytes,
                  &state.device_used_at_open_bytes, NULL, NULL);
    pl__ledger_record(e->ledger, event, job_id, part, current_track, &state,
                      note);
}

static void emit_ids(pl_engine *e, pl_event event, uint64_t job_id,
                     size_t part)
{
    emit_ids_note(e, event, job_id, part, NULL);
}

/* The bytes a partition's buffers hold now, as far as the engine sees
 * them: what its kind says of its extra bytes (a witness file read into
 * memory), a/b/c until start takes them, the pending state after start.
 * Its reservation never falls below them (the buffers inside start and
 * finish, planned too, come and go within those calls). */
#ifndef NDEBUG
static uint64_t partition_live_bytes(const partition *p)
{
    const pl__prove_plan *plan = &p->job->plan;
    uint64_t live = p->extra_live;
    if (p->input && p->input->abc)
        live += plan->bytes[PL_BUF_ABC];
    if (p->pending)
        live += plan->bytes[PL_BUF_PENDING];
    return live;
}
#endif

/* For a partition in flight (its job cannot be done, so it is alive). */
static void emit(pl_engine *e, pl_event event, const partition *p)
{
    assert(p->reserved >= partition_live_bytes(p));
    emit_ids(e, event, p->job->id, p->index);
}

/* Until the next call, the stages the prover reports on this thread (and
 * on the G2 thread it starts meanwhile) are spans of partition p in the
 * ledger's timeline; NULL: of none. */
void pl__engine_stage_spans_of(pl_engine *e, const partition *p)
{
    pl__stage_sink sink;
    memset(&sink, 0, sizeof(sink));
    if (p)
        pl__ledger_stage_sink(e->ledger, &sink, p->job->id, p->index,
                              current_track);
    pl__stage_sink_set(&sink);
}

static void fifo_push(fifo *q, partition *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->count++;
}

static partition *fifo_pop(fifo *q)
{
    partition *p = q->head;
    if (p) {
        q->head = p->next;
        if (!q->head)
            q->tail = NULL;
        q->count--;
    }
    return p;
}

/* Moves a partition between stages; under e->lock.  PL_STAGE_COUNT = none. */
static void set_stage_locked(pl_engine *e, partition *p, pl_stage to)
{
    assert(engine_lock_held(e));
    if (p->stage < PL_STAGE_COUNT)
        e->stage_now[p->stage]--;
    p->stage = to;
    if (to < PL_STAGE_COUNT && ++e->stage_now[to] > e->stage_peak[to])
        e->stage_peak[to] = e->stage_now[to];
}

static void set_stage(pl_engine *e, partition *p, pl_stage to)
{
    engine_lock(e);
    set_stage_locked(e, p, to);
    engine_unlock(e);
}

static void release(pl_engine *e, partition *p, uint64_t bytes)
{
    if (bytes) {
        p->reserved -= bytes;
        pl__budget_release(&e->budget, bytes);
    }
}

/* Under e->lock: the job is complete when every partition is accounted. */
static void check_done_locked(pl_engine *e, job *j)
{
    assert(engine_lock_held(e));
    if (!j->done && j->retiring == 0 &&
        j->proved + j->failed + j->skipped == j->n_partitions) {
        j->done = true;
        pthread_cond_broadcast(&e->job_done);
    }
}

/* Under e->lock: stop a job with a first failure; skip what is not yet
 * admitted.  In-flight partitions see `stopped` at their next stage. */
static void stop_job_locked(pl_engine *e, job *j, pl_status st,
                            const pl_error *err)
{
    assert(engine_lock_held(e));
    if (!atomic_load(&j->stopped)) {
        atomic_store(&j->stopped, true);
        j->status = st;
        if (err)
            j->error = *err;
        j->error.code = st;
    }
    size_t unadmitted = j->n_partitions - j->next_to_admit;
    j->skipped += unadmitted;
    e->skipped += unadmitted;
    j->next_to_admit = j->n_partitions;
    check_done_locked(e, j);
    pthread_cond_broadcast(&e->work_changed);
    pl__budget_wake(&e->budget);
}

/* Frees whatever the partition still holds, releases its reservation and
 * removes it from the stages.  `outcome`: the counter it ends in. */
enum outcome { OUTCOME_PROVED, OUTCOME_FAILED, OUTCOME_SKIPPED };

static void retire(pl_engine *e, partition *p, enum outcome outcome,
                   pl_status st, const pl_error *err)
{
    job *j = p->job;
    pl__pending_abort(p->pending); /* the proof is not wanted */
    p->pending = NULL;
    j->circuit->kind->release(p); /* its input, witness or assignment */
    p->input = NULL;
    /* after every free above: everything it still holds */
    release(e, p, pl__sched_release_after(&p->res,
                                          outcome == OUTCOME_PROVED
                                              ? PL_EV_DEALLOC_DONE
                                              : PL_EV_FAILED,
                                          p->reserved));
    assert(p->reserved == 0);
    /* Once the job is done its owner may free it: keep what we log. */
    uint64_t job_id = j->id;
    size_t part = p->index;
    pl__ledger_note note;
    const char *why = NULL;
    pl_status why_status = st;

    engine_lock(e);
    set_stage_locked(e, p, PL_STAGE_COUNT);
    j->retiring++;
    switch (outcome) {
    case OUTCOME_PROVED:
        j->proved++;
        e->proofs++;
        break;
    case OUTCOME_FAILED:
        j->failed++;
        e->failed++;
        stop_job_locked(e, j, st, err);
        why = err && err->msg[0] ? err->msg : pl_strerror(st);
        break;
    case OUTCOME_SKIPPED: /* why its job stopped */
        j->skipped++;
        e->skipped++;
        why = j->error.msg[0] ? j->error.msg : pl_strerror(PL_ECANCELLED);
        why_status = j->status;
        break;
    }
    if (why) {
        /* A witness check's message goes on to quote the failing
         * constraint's A, B and C, witness values the log never shows. */
        const char *values =
            why_status == PL_EUNSAT ? strstr(why, ": A = ") : NULL;
        pl__ledger_note_set(&note, why, values ? (size_t)(values - why)
                                               : strlen(why),
                            j->paths ? j->paths[part] : NULL);
    }
    engine_unlock(e);
    emit_ids_note(e, outcome == OUTCOME_PROVED ? PL_EV_DEALLOC_DONE
                     : outcome == OUTCOME_FAILED ? PL_EV_FAILED
                                                 : PL_EV_CANCELLED,
                  job_id, part, why ? &note : NULL);
    engine_lock(e);
    j->retiring--;
    check_done_locked(e, j);
    engine_unlock(e);
    free(p);
}

/* ---- synthesis workers ------------------------------------------------- */

/* Under e->lock: the next partition in admission order, claimed. */
static job *pick_next_locked(pl_engine *e, size_t *index)
{
    assert(engine_lock_held(e));
    job *best = NULL;
    pl__sched_key best_key = {0, 0, 0};
    for (job *j = e->jobs; j; j = j->next) {
        if (j->done || atomic_load(&j->stopped) ||
            j->next_to_admit >= j->n_partitions)
            continue;
        pl__sched_key key = {j->priority, j->id, j->next_to_admit};
        if (!best || pl__sched_before(&key, &best_key)) {
            best = j;
            best_key = key;
        }
    }
    if (best) {
        *index = best->next_to_admit++;
        e->admitting_priority = best->priority;
        atomic_store(&e->admission_yield, false);
    }
    return best;
}

typedef struct {
    pl_engine *engine;
    job *job;
    uint64_t bytes;
} give_up_ctx;

/* A waiting admission gives up when the engine stops, its job stops, a
 * job of higher priority arrives (it goes first), or the reservation could
 * never be granted any more (a circuit opened meanwhile holds more of the
 * budget resident): nothing waits for what cannot come. */
static bool admission_give_up(void *arg)
{
    give_up_ctx *ctx = arg;
    pl_engine *e = ctx->engine;
    return atomic_load(&e->stopping) || atomic_load(&ctx->job->stopped) ||
           atomic_load(&e->admission_yield) ||
           !pl__sched_can_fit(e->budget.limit, atomic_load(&e->resident_total),
                              ctx->bytes);
}

/* Under e->lock: partition `index` of j, picked but not admitted, goes
 * back to be picked again (it was the last one picked: admission_lock
 * orders picks, so nothing of j was picked after it). */
static void unpick_locked(pl_engine *e, job *j, size_t index)
{
    assert(engine_lock_held(e));
    if (!atomic_load(&j->stopped) && j->next_to_admit == index + 1)
        j->next_to_admit = index;
    e->admitting_priority = INT_MIN;
    atomic_store(&e->admission_yield, false);
}

/* PL_EBUDGET for a partition that can never be admitted, with the three
 * numbers and the smallest budget that would do. */
pl_status pl__engine_never_fits(pl_engine *e, uint64_t job_id, size_t index,
                                uint64_t bytes, pl_error *err)
{
    uint64_t resident = atomic_load(&e->resident_total);
    char b1[24], b2[24], b3[24], b4[24], which[64] = "";
    if (job_id)
        snprintf(which, sizeof(which), " of job %llu",
                 (unsigned long long)job_id);
    return pl__error_set(
        err, PL_EBUDGET,
        "partition %zu%s needs %s (%llu bytes) but the budget is %s and open "
        "circuits hold %s of it resident: the smallest budget that works is "
        "%s (%llu bytes)",
        index, which, pl_format_bytes(b1, sizeof(b1), bytes),
        (unsigned long long)bytes,
        pl_format_bytes(b2, sizeof(b2), e->budget.limit),
        pl_format_bytes(b3, sizeof(b3), resident),
        pl_format_bytes(b4, sizeof(b4),
                        pl__sched_smallest_budget(resident, bytes)),
        (unsigned long long)pl__sched_smallest_budget(resident, bytes));
}

/* Admits one partition: returns it with its bytes reserved, or NULL when
 * the engine stops.  Failures at admission are retired here. */
static partition *admit_next(pl_engine *e)
{
    partition *p = NULL;
    pthread_mutex_lock(&e->admission_lock);
    for (;;) {
        size_t index = 0;
        engine_lock(e);
        job *j = NULL;
        while (!atomic_load(&e->stopping) && !(j = pick_next_locked(e, &index)))
            engine_wait(e, &e->work_changed);
        engine_unlock(e);
        if (atomic_load(&e->stopping))
            break;

        p = calloc(1, sizeof(*p));
        pl_error err = {0};
        if (!p) { /* a tiny allocation: fail the job rather than stall */
            engine_lock(e);
            j->failed++;
            e->failed++;
            pl__error_set(&err, PL_ENOMEM, "engine: out of memory");
            stop_job_locked(e, j, PL_ENOMEM, &err);
            engine_unlock(e);
            continue;
        }
        p->job = j;
        p->index = index;
        p->stage = PL_STAGE_COUNT;
        const pl__prove_plan *plan = &j->plan;
        uint64_t wb;
        pl_status st = j->circuit->kind->extra_bytes(j, index, &wb, &err);
        if (st != PL_OK) {
            retire(e, p, OUTCOME_FAILED, st, &err);
            p = NULL;
            continue;
        }
        pl__sched_reservation r;
        pl__sched_reservation_for(&r, plan, wb);
        p->res = r;
        p->extra_reserved = wb;
        uint64_t want = r.total;
        give_up_ctx ctx = {e, j, want};
        if (!pl__budget_reserve(&e->budget, want, admission_give_up, &ctx)) {
            /* stopped, a higher job arrived, or it can never fit (a witness
             * file that grew since the job was submitted, a circuit opened
             * meanwhile) */
            if (atomic_load(&e->admission_yield) &&
                !atomic_load(&e->stopping) && !atomic_load(&j->stopped) &&
                pl__sched_can_fit(e->budget.limit,
                                  atomic_load(&e->resident_total), want)) {
                engine_lock(e);
                unpick_locked(e, j, index);
                engine_unlock(e);
                free(p);
                p = NULL;
                continue;
            }
            if (atomic_load(&e->stopping) || atomic_load(&j->stopped)) {
                retire(e, p, OUTCOME_SKIPPED, PL_OK, NULL);
            } else {
                pl__engine_never_fits(e, j->id, index, want, &err);
                retire(e, p, OUTCOME_FAILED, PL_EBUDGET, &err);
            }
            p = NULL;
            continue;
        }
        p->reserved = want;
        engine_lock(e);
        e->admitting_priority = INT_MIN;
        j->admitted++;
        engine_unlock(e);
        set_stage(e, p, PL_STAGE_ADMITTED);
        emit(e, PL_EV_ADMITTED, p);
        break;
    }
    pthread_mutex_unlock(&e->admission_lock);
    return p;
}

static void *synth_main(void *arg)
{
    pl_engine *e = enter_thread(arg);
    partition *p;
    while ((p = admit_next(e))) {
        set_stage(e, p, PL_STAGE_SYNTH);
        emit(e, PL_EV_SYNTH_START, p);
        pl_error err = {0};
        pl_status st = atomic_load(&p->job->stopped)
                           ? PL_ECANCELLED
                           : p->job->circuit->kind->synthesize(e, p, &err);
        if (st != PL_OK) {
            retire(e, p, atomic_load(&p->job->stopped) ? OUTCOME_SKIPPED
                                                       : OUTCOME_FAILED,
                   st, &err);
            continue;
        }
        emit(e, PL_EV_SYNTH_DONE, p);
        /* Hand off; the reservation travels with the partition.  A slot
         * is claimed first, so handed_off is logged before any prover can
         * take the partition (and log prove_start). */
        engine_lock(e);
        set_stage_locked(e, p, PL_STAGE_WAITING);
        while (!atomic_load(&e->stopping) &&
               !pl__sched_handoff_has_room(e->handoff.count, e->handoff.claimed,
                                           e->handoff.capacity))
            engine_wait(e, &e->handoff_changed);
        if (atomic_load(&e->stopping)) {
            engine_unlock(e);
            retire(e, p, OUTCOME_SKIPPED, PL_OK, NULL);
            continue;
        }
        e->handoff.claimed++;
        engine_unlock(e);
        emit(e, PL_EV_HANDED_OFF, p);
        engine_lock(e);
        e->handoff.claimed--;
        fifo_push(&e->handoff, p);
        pthread_cond_broadcast(&e->handoff_changed);
        engine_unlock(e);
        /* the engine's policy: this worker is free now, not at synth_done
         * (the planner replays the other one) */
        assert(pl__sched_worker_free_after(PL__SCHED_OURS, PL_EV_HANDED_OFF));
    }
    return NULL;
}

/* ---- prover workers ---------------------------------------------------- */

typedef struct {
    pl_engine *engine;
    partition *partition;
} abc_freed_ctx;

/* The skeleton freed a/b/c: their share of the reservation goes back now,
 * as the event says, while the sums run. */
static void abc_freed(void *arg)
{
    abc_freed_ctx *ctx = arg;
    pl_engine *e = ctx->engine;
    partition *p = ctx->partition;
    release(e, p, pl__sched_release_after(&p->res, PL_EV_ABC_FREED,
                                          p->reserved));
    emit(e, PL_EV_ABC_FREED, p);
}

/* Starts partition p's proof on its circuit's skeleton for `device`: its
 * a/b/c consumed and their share of the reservation released (abc_freed),
 * the G2 sum on its way beside, the G1 sums done; p->pending holds the
 * rest for the finisher.  On failure the partition still holds what it
 * reserved but a/b/c's share. */
static pl_status start_proof(pl_engine *e, partition *p, unsigned device,
                             pl_error *err)
{
    abc_freed_ctx ctx = {e, p};
    pl__engine_stage_spans_of(e, p);
    pl_status st = pl__groth16_start(p->job->circuit->skeletons[device],
                                     &p->pending, p->input, abc_freed, &ctx,
                                     err);
    pl__engine_stage_spans_of(e, NULL);
    return st;
}

/* The most partitions one batch takes (pl_engine_config.batch is capped
 * here: the worker keeps them on its stack). */
#define PL__ENGINE_BATCH_MAX 16u

/* Starts the proofs of ps[0..k-1], partitions of one circuit, together on
 * its skeleton for `device` (groth16/prover.h's batch): each one's a/b/c
 * released at its own abc_freed, as start_proof does.  On failure every
 * partition still holds what it reserved but a/b/c's share. */
static pl_status start_batch(pl_engine *e, partition *const *ps, size_t k,
                             unsigned device, pl_error *err)
{
    abc_freed_ctx ctx[PL__ENGINE_BATCH_MAX];
    void *ctxp[PL__ENGINE_BATCH_MAX];
    pl__proof_input *in[PL__ENGINE_BATCH_MAX];
    pl_pending *pending[PL__ENGINE_BATCH_MAX];
    for (size_t j = 0; j < k; j++) {
        ctx[j] = (abc_freed_ctx){e, ps[j]};
        ctxp[j] = &ctx[j];
        in[j] = ps[j]->input;
    }
    /* the trace's spans go to the first partition of the batch */
    pl__engine_stage_spans_of(e, ps[0]);
    pl_status st = pl__groth16_start_batch(ps[0]->job->circuit->skeletons[device],
                                           pending, in, k, abc_freed, ctxp,
                                           err);
    pl__engine_stage_spans_of(e, NULL);
    for (size_t j = 0; j < k; j++)
        ps[j]->pending = pending[j];
    return st;
}

/* Whether the prover worker of `device` may take partition p: its
 * circuit is open there and its job allows it; any worker takes one that
 * is only to be dropped (its job stopped, the engine stopping). */
static bool worker_takes(pl_engine *e, const partition *p, unsigned device)
{
    const job *j = p->job;
    if (atomic_load(&j->stopped) || atomic_load(&e->stopping))
        return true;
    return j->circuit->skeletons[device] &&
           pl__sched_device_allowed(j->device_mask, device);
}

/* Under e->lock: the first partition of the hand-off the worker of
 * `device` may take, unlinked (NULL: none); with `same`, only one of that
 * circuit that is to be proved (a batch's: not one only to be dropped). */
static partition *handoff_take_locked(pl_engine *e, unsigned device,
                                      const pl_circuit *same)
{
    assert(engine_lock_held(e));
    fifo *q = &e->handoff;
    partition *prev = NULL;
    for (partition *p = q->head; p; prev = p, p = p->next) {
        if (!worker_takes(e, p, device) ||
            (same && (p->job->circuit != same ||
                      atomic_load(&p->job->stopped))))
            continue;
        if (prev)
            prev->next = p->next;
        else
            q->head = p->next;
        if (q->tail == p)
            q->tail = prev;
        q->count--;
        return p;
    }
    return NULL;
}

/* Hands a started partition to the finisher (waiting for room). */
static void to_finisher(pl_engine *e, partition *p)
{
    engine_lock(e);
    set_stage_locked(e, p, PL_STAGE_FINISHING);
    while (!pl__sched_queue_has_room(e->finishing.count,
                                     e->finishing.capacity))
        engine_wait(e, &e->finish_changed);
    fifo_push(&e->finishing, p);
    pthread_cond_broadcast(&e->finish_changed);
    engine_unlock(e);
}

static void *prover_main(void *arg)
{
    const unsigned device = ((const thread_arg *)arg)->device;
    pl_engine *e = enter_thread(arg);
    for (;;) {
        engine_lock(e);
        /* A claimed slot is a partition on its way in: wait for it even
         * when stopping, or it would be pushed into a queue nobody drains
         * (every worker takes any partition once the engine stops). */
        partition *p;
        while (!(p = handoff_take_locked(e, device, NULL)) &&
               !(atomic_load(&e->stopping) && e->handoff.claimed == 0 &&
                 e->handoff.count == 0))
            engine_wait(e, &e->handoff_changed);
        if (!p) { /* stopping, drained, nothing claimed */
            e->provers_alive--;
            pthread_cond_broadcast(&e->finish_changed);
            engine_unlock(e);
            return NULL;
        }
        set_stage_locked(e, p, PL_STAGE_PROVING);
        /* a batch: more of the same circuit that are ready now, up to the
         * configured size (never waiting for them) */
        partition *more[PL__ENGINE_BATCH_MAX];
        size_t k = 1;
        more[0] = p;
        if (e->cfg.batch > 1 && !atomic_load(&p->job->stopped) &&
            !atomic_load(&e->stopping) &&
            pl__groth16_batches(p->job->circuit->skeletons[device])) {
            unsigned most = e->cfg.batch < PL__ENGINE_BATCH_MAX
                                ? e->cfg.batch
                                : PL__ENGINE_BATCH_MAX;
            while (k < most &&
                   (more[k] = handoff_take_locked(e, device,
                                                  p->job->circuit)))
                set_stage_locked(e, more[k++], PL_STAGE_PROVING);
        }
        pthread_cond_broadcast(&e->handoff_changed);
        engine_unlock(e);

        if (atomic_load(&p->job->stopped) || atomic_load(&e->stopping)) {
            for (size_t j = 0; j < k; j++)
                retire(e, more[j], OUTCOME_SKIPPED, PL_OK, NULL);
            continue;
        }
        for (size_t j = 0; j < k; j++)
            emit(e, PL_EV_PROVE_START, more[j]);
        engine_lock(e);
        e->device_starts[device] += k;
        engine_unlock(e);
        pl_error err = {0};
        pl_status st = k == 1 ? start_proof(e, p, device, &err)
                              : start_batch(e, more, k, device, &err);
        if (st != PL_OK) {
            for (size_t j = 0; j < k; j++)
                retire(e, more[j], OUTCOME_FAILED, st, &err);
            continue;
        }
        for (size_t j = 0; j < k; j++)
            to_finisher(e, more[j]);
    }
}

/* ---- the finisher ------------------------------------------------------ */

/* The skeleton's finish, the proof verified when the job asks (an invalid
 * proof is never delivered: the kind says whom to blame), delivered with
 * its public inputs. */
static void finish_one(pl_engine *e, partition *p)
{
    job *j = p->job;
    pl_circuit *c = j->circuit;
    pl_error err = {0};
    pl_proof proof;
    pl_pending *pending = p->pending;
    p->pending = NULL; /* finish consumes it */
    pl__engine_stage_spans_of(e, p);
    pl_status st = pl_prove_finish(pending, &proof, &err);
    pl__engine_stage_spans_of(e, NULL);
    if (st != PL_OK) {
        retire(e, p, OUTCOME_FAILED, st, &err);
        return;
    }
    emit(e, PL_EV_PROVE_DONE, p);
    if (atomic_load(&j->stopped)) {
        retire(e, p, OUTCOME_SKIPPED, PL_OK, NULL);
        return;
    }
    if (j->verify) {
        st = pl_verify(c->vkey, &proof, p->publics, p->n_public, &err);
        if (st == PL_EINVALID)
            c->kind->blame(p, &st, &err);
        if (st != PL_OK) {
            retire(e, p, OUTCOME_FAILED, st, &err);
            return;
        }
        engine_lock(e);
        j->verified++;
        e->verified++;
        engine_unlock(e);
    }
    if (j->on_proof)
        j->on_proof(j->on_proof_user, j->id, p->index, &proof, p->publics,
                    p->n_public);
    emit(e, PL_EV_FINALIZE_DONE, p);
    retire(e, p, OUTCOME_PROVED, PL_OK, NULL);
}

static void *finisher_main(void *arg)
{
    pl_engine *e = enter_thread(arg);
    for (;;) {
        engine_lock(e);
        while (e->finishing.count == 0 &&
               !(atomic_load(&e->stopping) && e->provers_alive == 0))
            engine_wait(e, &e->finish_changed);
        partition *p = fifo_pop(&e->finishing);
        pthread_cond_broadcast(&e->finish_changed);
        engine_unlock(e);
        if (!p)
            return NULL;
        finish_one(e, p);
    }
}

/* ---- the sampler ------------------------------------------------------- */

static void *sampler_main(void *arg)
{
    pl_engine *e = arg;
    unsigned period_ms = e->cfg.sample_ms;
    engine_lock(e);
    while (!atomic_load(&e->stopping)) {
        engine_unlock(e);
        emit_ids(e, PL_EV_COUNT, 0, 0);
        engine_lock(e);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += period_ms / 1000;
        until.tv_nsec += (long)(period_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (!atomic_load(&e->stopping))
            engine_timedwait(e, &e->sampler_wake, &until);
    }
    engine_unlock(e);
    return NULL;
}

/* ---- create and destroy ------------------------------------------------ */

void pl_engine_config_init(pl_engine_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

static pl_status start_thread(pthread_t *t, void *(*fn)(void *), void *arg,
                              const char *name, pl_error *err)
{
    int rc = pthread_create(t, NULL, fn, arg);
    if (rc)
        return pl__error_errno(err, PL_EINTERNAL, rc,
                               "engine: cannot start thread %s", name);
    pthread_setname_np(*t, name);
    return PL_OK;
}

pl_status pl__engine_create_with_backend(pl_engine **out,
                                         const pl_engine_config *cfg,
                                         const pl__backend_ops *backend,
                                         const pl__backend_ops *fallback,
                                         pl_error *err)
{
    *out = NULL;
    const int have = pl__prover_device_count(backend);
    if (cfg && cfg->devices > (unsigned)(have > 0 ? have : 0))
        return pl__error_set(err, PL_EUSAGE, "engine: %u devices asked for, "
                             "but the %s backend has %d", cfg->devices,
                             pl__prover_backend_name(backend), have);
    pl_engine *e = calloc(1, sizeof(*e));
    if (!e)
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    if (cfg)
        e->cfg = *cfg;
    /* the budget's base: RAM, or the container's cgroup limit when it is
     * smaller; one prover worker per device by default */
    pl__sched_config_complete(&e->cfg,
                              e->cfg.budget_bytes ? 0 : pl_memory_limit(),
                              (unsigned)(have > 0 ? have : 1));
    e->cfg.threads = pl__pool_threads_for(e->cfg.threads);
    if (!e->cfg.sample_ms)
        e->cfg.sample_ms = DEFAULT_SAMPLE_MS;
    atomic_store(&e->backend, backend);
    e->fallback = fallback;
    pl__budget_init(&e->budget, e->cfg.budget_bytes);
    pthread_mutex_init(&e->admission_lock, NULL);
    e->admitting_priority = INT_MIN;
    pl__lock_init(&e->lock);
    pthread_cond_init(&e->work_changed, NULL);
    pthread_cond_init(&e->handoff_changed, NULL);
    pthread_cond_init(&e->finish_changed, NULL);
    pthread_cond_init(&e->job_done, NULL);
    pthread_cond_init(&e->circuit_opened, NULL);
    /* the sampler's period is measured on the monotonic clock, so a change
     * of the wall clock neither stalls nor floods it */
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&e->sampler_wake, &monotonic);
    pthread_condattr_destroy(&monotonic);
    e->handoff.capacity = e->cfg.handoff_slots;
    e->finishing.capacity = e->cfg.prover_workers;
    e->next_job_id = 1;

    pl_status st = pl__alloc_scope_create(&e->scope, err);
    if (st != PL_OK)
        goto fail;
    unsigned n_threads = e->cfg.synth_workers + e->cfg.prover_workers + 1;
    e->synth_threads = calloc(e->cfg.synth_workers, sizeof(pthread_t));
    e->prover_threads = calloc(e->cfg.prover_workers, sizeof(pthread_t));
    e->thread_args = calloc(n_threads + 1, sizeof(thread_arg));
    if (!e->synth_threads || !e->prover_threads || !e->thread_args) {
        st = pl__error_set(err, PL_ENOMEM, "engine: out of memory");
        goto fail;
    }
    pl__ledger_config lc = {e->cfg.log_level, e->cfg.log_stream,
                            e->cfg.on_event, e->cfg.on_event_user,
                            e->cfg.record_timeline};
    if ((st = pl__ledger_create(&e->ledger, &lc, err)))
        goto fail;
    pl__ledger_name_track(e->ledger, TRACK_CALLER, "caller");
    char name[32]; /* Linux keeps 15 characters of a thread's name */
    unsigned track = TRACK_CALLER + 1;
    for (unsigned i = 0; i < e->cfg.synth_workers; i++, track++) {
        snprintf(name, sizeof(name), "pl-synth-%u", i);
        e->thread_args[track] = (thread_arg){e, track, 0};
        pl__ledger_name_track(e->ledger, track, name);
        if ((st = start_thread(&e->synth_threads[i], synth_main,
                               &e->thread_args[track], name, err)))
            goto fail;
        e->n_synth_started++;
    }
    for (unsigned i = 0; i < e->cfg.prover_workers; i++, track++) {
        const unsigned device = pl__sched_worker_device(i, e->cfg.devices);
        snprintf(name, sizeof(name), "pl-prove-w%u", i);
        e->thread_args[track] = (thread_arg){e, track, device};
        pl__ledger_name_track(e->ledger, track, name);
        engine_lock(e);
        e->provers_alive++;
        engine_unlock(e);
        if ((st = start_thread(&e->prover_threads[i], prover_main,
                               &e->thread_args[track], name, err))) {
            e->provers_alive--;
            goto fail;
        }
        e->n_prover_started++;
    }
    e->thread_args[track] = (thread_arg){e, track, 0};
    pl__ledger_name_track(e->ledger, track, "pl-finish");
    if ((st = start_thread(&e->finisher_thread, finisher_main,
                           &e->thread_args[track], "pl-finish", err)))
        goto fail;
    e->finisher_started = true;
    if ((st = start_thread(&e->sampler_thread, sampler_main, e, "pl-rss", err)))
        goto fail;
    e->sampler_started = true;
    *out = e;
    return PL_OK;
fail:
    pl_engine_destroy(e, NULL);
    return st;
}

pl_status pl_engine_create(pl_engine **out, const pl_engine_config *cfg,
                           pl_error *err)
{
    char note[256];
    const pl__backend_ops *backend;
    pl_error why;
    *out = NULL;
    pl_status st = pl__prover_backend(&backend, cfg ? cfg->backend : NULL,
                                      note, sizeof(note), &why);
    if (st != PL_OK)
        return pl__error_set(err, st, "engine: %s", why.msg);
    /* auto without a device: one line to say so, then on with the CPU */
    if (note[0] && cfg->log_level >= PL_LOG_INFO)
        fprintf(cfg->log_stream ? cfg->log_stream : stderr, "engine: %s\n",
                note);
    /* auto with a device: the CPU stands by, should the device fault */
    const pl__backend_ops *fallback = NULL;
    if (cfg && cfg->backend && strcmp(cfg->backend, "auto") == 0 &&
        (st = pl__prover_backend(&fallback, "cpu", NULL, 0, err)) != PL_OK)
        return st;
    if (fallback == backend)
        fallback = NULL;
    return pl__engine_create_with_backend(out, cfg, backend, fallback, err);
}

/* What the kind built (after every free: its resident bytes back). */
static void circuit_free(pl_engine *e, pl_circuit *c)
{
    c->kind->close(c);
    if (c->resident_reserved) {
        atomic_fetch_sub(&e->resident_total, c->resident_reserved);
        pl__budget_release(&e->budget, c->resident_reserved);
    }
    free(c->name);
    free(c);
}

void pl__engine_job_free(job *j)
{
    if (j->paths)
        for (size_t i = 0; i < j->n_partitions; i++)
            free(j->paths[i]);
    free(j->paths);
    free(j);
}

pl_status pl_engine_destroy(pl_engine *e, pl_error *err)
{
    if (!e)
        return PL_OK;
    pl__alloc_scope *outer = pl__alloc_scope_enter(e->scope);
    engine_lock(e);
    for (job *j = e->jobs; j; j = j->next)
        if (!j->done) {
            pl_error why;
            pl__error_set(&why, PL_ECANCELLED, "engine destroyed");
            stop_job_locked(e, j, PL_ECANCELLED, &why);
        }
    atomic_store(&e->stopping, true);
    pthread_cond_broadcast(&e->work_changed);
    pthread_cond_broadcast(&e->handoff_changed);
    pthread_cond_broadcast(&e->finish_changed);
    pthread_cond_broadcast(&e->sampler_wake);
    engine_unlock(e);
    pl__budget_wake(&e->budget);

    for (unsigned i = 0; i < e->n_synth_started; i++)
        pthread_join(e->synth_threads[i], NULL);
    for (unsigned i = 0; i < e->n_prover_started; i++)
        pthread_join(e->prover_threads[i], NULL);
    if (e->finisher_started)
        pthread_join(e->finisher_thread, NULL);
    if (e->sampler_started)
        pthread_join(e->sampler_thread, NULL);

    while (e->jobs) {
        job *j = e->jobs;
        e->jobs = j->next;
        pl__engine_job_free(j);
    }
    while (e->circuits) {
        pl_circuit *c = e->circuits;
        e->circuits = c->next;
        circuit_free(e, c);
    }
    /* this engine's buffers only: another engine, or a prover used
     * directly, may hold buffers of its own */
    pl_status st = PL_OK;
    if (e->scope && !pl__alloc_scope_all_freed(e->scope, err))
        st = PL_EINTERNAL;
    pl__alloc_scope_enter(outer);
    /* a leaked buffer keeps the scope alive until it is freed */
    pl__alloc_scope_destroy(e->scope);
    pl__budget_destroy(&e->budget);
    pthread_cond_destroy(&e->sampler_wake);
    pthread_cond_destroy(&e->circuit_opened);
    pthread_cond_destroy(&e->job_done);
    pthread_cond_destroy(&e->finish_changed);
    pthread_cond_destroy(&e->handoff_changed);
    pthread_cond_destroy(&e->work_changed);
    pl__lock_destroy(&e->lock);
    pthread_mutex_destroy(&e->admission_lock);
    pl__ledger_destroy(e->ledger);
    free(e->thread_args);
    free(e->synth_threads);
    free(e->prover_threads);
    free(e);
    return st;
}

/* ---- circuits ---------------------------------------------------------- */

/* The backend a new circuit opens on: the engine's, unless its device
 * faulted and the engine has a fallback (it was created with "auto"): then
 * the fallback, for every circuit opened from now on, said once in the
 * log.  Circuits open on the faulted device fail their proofs at once
 * (naming the fault) and are no longer found by opens. */
static unsigned devices_of(pl_engine *e, const pl__backend_ops *backend)
{
    int have = pl__prover_device_count(backend);
    return have < 1 ? 1 : (unsigned)have < e->cfg.devices ? (unsigned)have
                                                          : e->cfg.devices;
}

/* Whether every one of the engine's devices of the backend faulted (why:
 * the last one's fault). */
static bool devices_faulted(pl_engine *e, const pl__backend_ops *backend,
                            char *why, size_t why_len)
{
    for (unsigned d = 0; d < devices_of(e, backend); d++)
        if (!pl__prover_backend_faulted(backend, (int)d, why, why_len))
            return false;
    return true;
}

static const pl__backend_ops *choose_backend(pl_engine *e)
{
    const pl__backend_ops *current = atomic_load(&e->backend);
    char why[320];
    if (!e->fallback || current == e->fallback ||
        !devices_faulted(e, current, why, sizeof(why)))
        return current;
    if (atomic_compare_exchange_strong(&e->backend, &current, e->fallback) &&
        e->cfg.log_level >= PL_LOG_INFO)
        fprintf(e->cfg.log_stream ? e->cfg.log_stream : stderr,
                "engine: backend %s: %s; circuits opened from now on use %s\n",
                pl__prover_backend_name(current), why,
                pl__prover_backend_name(e->fallback));
    return e->fallback;
}

/* Reserves bytes a circuit keeps resident (before they are allocated). */
pl_status pl__engine_reserve_resident(pl_engine *e, pl_circuit *c,
                                      uint64_t bytes, const char *what,
                                      pl_error *err)
{
    if (!pl__budget_try_reserve(&e->budget, bytes)) {
        uint64_t reserved;
        char b1[24], b2[24], b3[24];
        pl__budget_read(&e->budget, &reserved, NULL);
        return pl__error_set(err, PL_EBUDGET,
                             "%s: the circuit's %s needs %s but only %s of the "
                             "budget's %s are free", c->name, what,
                             pl_format_bytes(b1, sizeof(b1), bytes),
                             pl_format_bytes(b2, sizeof(b2),
                                             e->budget.limit - reserved),
                             pl_format_bytes(b3, sizeof(b3), e->budget.limit));
    }
    c->resident_reserved += bytes;
    atomic_fetch_add(&e->resident_total, bytes);
    pl__budget_wake(&e->budget); /* a waiting admission may never fit now */
    return PL_OK;
}

pl_status pl__engine_load_r1cs(pl_engine *e, pl_circuit *c, const char *path,
                               pl_error *err)
{
    struct stat sb;
    pl_status st;
    if (stat(path, &sb) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open", path);
    if ((st = pl__engine_reserve_resident(e, c, (uint64_t)sb.st_size, "r1cs",
                                          err)))
        return st;
    return pl__r1cs_load(&c->r1cs, path, (uint64_t)sb.st_size, err);
}

/* Gives back bytes reserve_resident took, once what they stood for is
 * freed. */
static void release_resident(pl_engine *e, pl_circuit *c, uint64_t bytes)
{
    c->resident_reserved -= bytes;
    atomic_fetch_sub(&e->resident_total, bytes);
    pl__budget_release(&e->budget, bytes);
}

const pl_engine_config *pl__engine_config(const pl_engine *e)
{
    return &e->cfg;
}

bool pl__engine_can_fit(pl_engine *e, uint64_t bytes)
{
    return pl__sched_can_fit(e->budget.limit, atomic_load(&e->resident_total),
                             bytes);
}

pl_status pl__engine_open_prover(
    pl_engine *e, pl_circuit *c,
    void (*plan)(const pl_circuit *c, const pl__backend_ops *backend,
                 unsigned threads, pl__prove_plan *out),
    pl_status (*create)(pl_circuit *c, const pl__backend_ops *backend,
                        const pl_prover_config *cfg, pl_error *err),
    pl_error *err)
{
    pl_prover_config pc;
    pl_prover_config_init(&pc);
    pc.threads = e->cfg.threads;
    pc.plain_msm = e->cfg.plain_msm;
    pc.on_stage = e->cfg.on_stage;
    pc.on_stage_user = e->cfg.on_stage_user;
    FILE *log = e->cfg.log_stream ? e->cfg.log_stream : stderr;
    const pl__backend_ops *backend = choose_backend(e);
    for (;;) {
        pl_error why = {0};
        pl_status st = PL_EUNSUPPORTED;
        unsigned opened = 0;
        plan(c, backend, e->cfg.threads, &c->plan);
        /* each device's own: the first the whole plan's resident bytes
         * (the kind's matrices too), each further one its backend's
         * tables; each device's memory is its own backend open's check */
        uint64_t bytes = c->plan.resident_bytes;
        for (unsigned d = 0; d < devices_of(e, backend); d++) {
            pl_error dev_why = {0};
            if (pl__prover_backend_faulted(backend, (int)d, dev_why.msg,
                                           sizeof(dev_why.msg))) {
                st = PL_EUNSUPPORTED;
                why = dev_why;
                continue;
            }
            if ((st = pl__engine_reserve_resident(e, c, bytes,
                                                  "prover's tables", err))) {
                if (!opened)
                    return st;
                break; /* the budget: the devices opened so far serve it */
            }
            pc.device = (int)d;
            if ((st = create(c, backend, &pc, &dev_why)) != PL_OK) {
                release_resident(e, c, bytes);
                why = dev_why;
                if (e->cfg.log_level >= PL_LOG_INFO && devices_of(e, backend) > 1)
                    fprintf(log, "engine: backend %s, device %u: %s: %s; this "
                            "circuit is proved on the others\n",
                            pl__prover_backend_name(backend), d, c->name,
                            dev_why.msg);
                continue;
            }
            if (!opened++) {
                c->skeleton = c->skeletons[d];
                pl__prove_plan device_plan;
                pl__prover_backend_plan(
                    backend, &pl__groth16_prover_key(c->skeleton)->shape,
                    e->cfg.threads, &device_plan);
                bytes = device_plan.resident_bytes;
            }
        }
        if (opened) {
            c->backend = backend;
            return PL_OK;
        }
        /* no device can take the key (its memory, a fault): an engine with
         * a fallback opens it there */
        if (!e->fallback || backend == e->fallback || st == PL_EBUDGET) {
            if (err)
                *err = why;
            return st;
        }
        if (e->cfg.log_level >= PL_LOG_INFO)
            fprintf(log,
                    "engine: backend %s: %s: %s; this circuit opens on %s\n",
                    pl__prover_backend_name(backend), c->name, why.msg,
                    pl__prover_backend_name(e->fallback));
        backend = e->fallback;
    }
}

static void unlink_circuit_locked(pl_engine *e, pl_circuit *c)
{
    assert(engine_lock_held(e));
    pl_circuit **link = &e->circuits;
    while (*link != c)
        link = &(*link)->next;
    *link = c->next;
}

/* Whether a device the circuit is open on faulted: its proofs there fail
 * (naming the fault), and a new open builds afresh on the others. */
static bool circuit_faulted(const pl_circuit *c)
{
    for (int d = 0; d < PL_MAX_DEVICES; d++)
        if (c->skeletons[d] &&
            pl__prover_backend_faulted(c->backend, d, NULL, 0))
            return true;
    return false;
}

/* The one open protocol, for every kind.  Opening is published before it
 * is done: a second open of the same circuit finds it and waits for the
 * first instead of building it again (and reserving its resident bytes
 * twice).  A circuit whose device faulted is left to its users: a new open
 * builds afresh. */
static pl_status open_circuit(pl_engine *e, pl_circuit **out,
                              const pl__kind_ops *kind, const void *args,
                              pl_error *err)
{
    *out = NULL;
    engine_lock(e);
    for (pl_circuit *c = e->circuits; c; c = c->next) {
        if (c->kind != kind || !kind->matches(c, args))
            continue;
        if (!c->opening && c->open_status == PL_OK && circuit_faulted(c))
            continue;
        c->refs++;
        while (c->opening)
            engine_wait(e, &e->circuit_opened);
        if (c->open_status == PL_OK) {
            engine_unlock(e);
            *out = c;
            return PL_OK;
        }
        /* the first open failed: so does this one, with its reason */
        pl_status st = c->open_status;
        if (err)
            *err = c->open_error;
        bool last = --c->refs == 0;
        engine_unlock(e);
        if (last)
            circuit_free(e, c);
        return st;
    }
    pl_circuit *c = calloc(1, sizeof(*c));
    if (!c) {
        engine_unlock(e);
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    }
    c->engine = e;
    c->kind = kind;
    pl_status id_st = kind->identify(c, args, err);
    if (id_st != PL_OK) {
        engine_unlock(e);
        c->kind->close(c);
        free(c->name);
        free(c);
        return id_st;
    }
    c->refs = 1;
    c->opening = true;
    c->next = e->circuits;
    e->circuits = c;
    engine_unlock(e);

    pl_error local = {0};
    pl_status st = kind->build(e, c, args, &local);

    engine_lock(e);
    c->opening = false;
    c->open_status = st;
    c->open_error = local;
    bool last = false;
    if (st != PL_OK) {
        unlink_circuit_locked(e, c);
        last = --c->refs == 0;
    }
    pthread_cond_broadcast(&e->circuit_opened);
    engine_unlock(e);
    if (err && st != PL_OK)
        *err = local;
    if (st == PL_OK)
        *out = c;
    else if (last)
        circuit_free(e, c);
    return st;
}

pl_status pl__engine_open(pl_engine *e, pl_circuit **out,
                          const pl__kind_ops *kind, const void *args,
                          pl_error *err)
{
    pl__alloc_scope *outer = pl__alloc_scope_enter(e->scope);
    pl_status st = open_circuit(e, out, kind, args, err);
    pl__alloc_scope_enter(outer);
    return st;
}

/* Drops a reference; the last one frees the circuit (in the engine's
 * scope, whichever thread lets go). */
static void circuit_release(pl_engine *e, pl_circuit *c)
{
    engine_lock(e);
    bool last = --c->refs == 0;
    if (last)
        unlink_circuit_locked(e, c);
    engine_unlock(e);
    if (last)
        circuit_free(e, c);
}

void pl_circuit_release(pl_circuit *c)
{
    if (!c)
        return;
    pl_engine *e = c->engine;
    pl__alloc_scope *outer = pl__alloc_scope_enter(e->scope);
    circuit_release(e, c);
    pl__alloc_scope_enter(outer);
}

void pl_circuit_plan(const pl_circuit *c, uint64_t witness_file_bytes,
                     uint64_t *partition_bytes, uint64_t *resident_bytes)
{
    pl__sched_reservation r;
    pl__sched_reservation_for(&r, &c->plan, witness_file_bytes);
    if (partition_bytes)
        *partition_bytes = r.total;
    if (resident_bytes)
        *resident_bytes = c->resident_reserved;
}

size_t pl_circuit_n_public(const pl_circuit *c)
{
    return pl__groth16_prover_key(c->skeleton)->n_public;
}

pl_curve pl_circuit_curve(const pl_circuit *c)
{
    return (pl_curve)pl__groth16_prover_key(c->skeleton)->shape.curve;
}

const pl_r1cs *pl_circuit_r1cs(const pl_circuit *c)
{
    return c->r1cs;
}

/* ---- jobs -------------------------------------------------------------- */

pl_status pl__engine_enqueue(pl_engine *e, job *j, uint64_t *job_id,
                             pl_error *err)
{
    bool provable = false;
    for (unsigned d = 0; d < PL_MAX_DEVICES && !provable; d++)
        provable = j->circuit->skeletons[d] &&
                   pl__sched_device_allowed(j->device_mask, d);
    if (!provable) {
        uint32_t mask = j->device_mask;
        pl__engine_job_free(j);
        return pl__error_set(err, PL_EUSAGE, "engine: the job's devices "
                             "(mask 0x%x) have none the circuit is open on",
                             (unsigned)mask);
    }
    engine_lock(e);
    if (atomic_load(&e->stopping)) {
        engine_unlock(e);
        pl__engine_job_free(j);
        return pl__error_set(err, PL_ECANCELLED, "engine: shutting down");
    }
    j->circuit->refs++;
    j->id = e->next_job_id++;
    job **link = &e->jobs;
    while (*link)
        link = &(*link)->next;
    *link = j;
    *job_id = j->id;
    bool yield = pl__sched_preempts(e->admitting_priority, j->priority);
    if (yield)
        atomic_store(&e->admission_yield, true);
    pthread_cond_broadcast(&e->work_changed);
    engine_unlock(e);
    if (yield)
        pl__budget_wake(&e->budget);
    return PL_OK;
}

static job *find_job_locked(pl_engine *e, uint64_t id)
{
    assert(engine_lock_held(e));
    for (job *j = e->jobs; j; j = j->next)
        if (j->id == id)
            return j;
    return NULL;
}

static void fill_status(pl_job_status *out, const job *j)
{
    memset(out, 0, sizeof(*out));
    out->done = j->done;
    out->status = j->status;
    out->error = j->error;
    out->n_partitions = j->n_partitions;
    out->proved = j->proved;
    out->verified = j->verified;
    out->failed = j->failed;
    out->skipped = j->skipped;
}

pl_status pl_engine_poll(pl_engine *e, uint64_t job_id, pl_job_status *out,
                         pl_error *err)
{
    engine_lock(e);
    job *j = find_job_locked(e, job_id);
    if (j)
        fill_status(out, j);
    engine_unlock(e);
    return j ? PL_OK : pl__error_set(err, PL_EUSAGE, "engine: no job %llu",
                                     (unsigned long long)job_id);
}

pl_status pl_engine_wait(pl_engine *e, uint64_t job_id, pl_job_status *out,
                         pl_error *err)
{
    engine_lock(e);
    job *j = find_job_locked(e, job_id);
    if (!j) {
        engine_unlock(e);
        return pl__error_set(err, PL_EUSAGE, "engine: no job %llu",
                             (unsigned long long)job_id);
    }
    while (!j->done)
        engine_wait(e, &e->job_done);
    fill_status(out, j);
    job **link = &e->jobs;
    while (*link != j)
        link = &(*link)->next;
    *link = j->next;
    engine_unlock(e);
    pl__alloc_scope *outer = pl__alloc_scope_enter(e->scope);
    circuit_release(e, j->circuit);
    pl__alloc_scope_enter(outer);
    pl__engine_job_free(j);
    return PL_OK;
}

pl_status pl_engine_cancel(pl_engine *e, uint64_t job_id, pl_error *err)
{
    engine_lock(e);
    job *j = find_job_locked(e, job_id);
    if (j && !j->done) {
        pl_error why;
        pl__error_set(&why, PL_ECANCELLED, "job %llu was cancelled",
                      (unsigned long long)job_id);
        stop_job_locked(e, j, PL_ECANCELLED, &why);
    }
    engine_unlock(e);
    return j ? PL_OK : pl__error_set(err, PL_EUSAGE, "engine: no job %llu",
                                     (unsigned long long)job_id);
}

void pl_engine_stats_read(pl_engine *e, pl_engine_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->backend = pl__prover_backend_name(atomic_load(&e->backend));
    emit_ids(e, PL_EV_COUNT, 0, 0); /* a fresh sample */
    pl_ledger_record now;
    pl__ledger_latest(e->ledger, &now);
    pl__ledger_peaks peaks;
    pl__ledger_read_peaks(e->ledger, &peaks);
    out->budget_bytes = e->budget.limit;
    pl__budget_read(&e->budget, &out->reserved_bytes, &out->peak_reserved_bytes);
    pl_alloc_total(&out->tracked_bytes, &out->peak_tracked_bytes);
    out->rss_anon_bytes = now.rss_anon_bytes;
    out->rss_file_bytes = now.rss_file_bytes;
    out->untracked_bytes = now.untracked_bytes;
    out->peak_rss_anon_bytes = peaks.rss_anon;
    out->peak_rss_file_bytes = peaks.rss_file;
    out->peak_rss_bytes = peaks.rss;
    out->peak_untracked_bytes = peaks.untracked;
    /* each device's read once: the sums are of the same reads */
    uint64_t used_at_open;
    device_memory(e, &out->device_used_bytes, &out->device_total_bytes,
                  &used_at_open, out->device_used, out->device_total);
    out->peak_device_untracked_bytes = peaks.device_untracked;
    out->baseline_rss_anon_bytes = peaks.baseline_rss_anon;
    out->events = peaks.events;
    engine_lock(e);
    /* the partitions of live jobs not admitted yet (a stopped job admits
     * nothing more) */
    uint64_t unadmitted = 0;
    for (const job *j = e->jobs; j; j = j->next)
        if (!j->done && !atomic_load(&j->stopped))
            unadmitted += (uint64_t)(j->n_partitions - j->admitted) *
                          j->planned;
    /* read under the lock (the budget's comes after it): a partition
     * admitted meanwhile is then counted twice for a moment, never not
     * at all */
    uint64_t reserved_now = 0;
    pl__budget_read(&e->budget, &reserved_now, NULL);
    out->committed_bytes = reserved_now + unadmitted;
    memcpy(out->stage_now, e->stage_now, sizeof(out->stage_now));
    memcpy(out->stage_peak, e->stage_peak, sizeof(out->stage_peak));
    out->proofs = e->proofs;
    out->verified = e->verified;
    out->failed = e->failed;
    out->skipped = e->skipped;
    out->trimmed_bytes = e->trimmed_bytes;
    out->devices = e->cfg.devices;
    memcpy(out->device_starts, e->device_starts, sizeof(out->device_starts));
    engine_unlock(e);
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        pl_alloc_stats_read(&out->classes[c], (pl_buffer_class)c, false);
}

uint64_t pl_engine_trim(pl_engine *e)
{
    uint64_t before = pl__ledger_read_rss(NULL);
    malloc_trim(0);
    uint64_t after = pl__ledger_read_rss(NULL);
    uint64_t given = before > after ? before - after : 0;
    engine_lock(e);
    e->trimmed_bytes = given;
    engine_unlock(e);
    emit_ids(e, PL_EV_COUNT, 0, 0);
    return given;
}

pl_status pl_engine_write_trace(pl_engine *e, const char *path, pl_error *err)
{
    if (!e->cfg.record_timeline)
        return pl__error_set(err, PL_EUSAGE, "%s: the engine was created "
                             "without record_timeline", path);
    return pl__ledger_write_trace(e->ledger, path, err);
}

pl_status pl_engine_write_plot(pl_engine *e, const char *path, pl_error *err)
{
    if (!e->cfg.record_timeline)
        return pl__error_set(err, PL_EUSAGE, "%s: the engine was created "
                             "without record_timeline", path);
    return pl__ledger_write_plot(e->ledger, path, err);
}

bool pl_engine_write_summary(pl_engine *e, FILE *stream)
{
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    return pl__report_write_summary(stream ? stream : stderr, &st);
}
