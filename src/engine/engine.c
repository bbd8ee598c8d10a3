/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proving engine: jobs of N partitions of one circuit, proved under a
 * byte budget by a pipeline of threads.
 *
 *   synthesis workers (pw, "pl-synth-i"): admit the next partition in order
 *     (highest priority, oldest job, lowest partition), reserving its bytes
 *     from the budget first; load its witness; a, b, c from the circuit's
 *     CSR matrices; push it into the hand-off.
 *   the hand-off: one bounded FIFO (handoff_slots), the only place a
 *     synthesized partition is handed on.
 *   prover workers ("pl-prove-w-i"): the prover's start (the G2 MSM on its
 *     own thread; H and the G1 MSMs on the circuit's backend); a/b/c are
 *     freed inside start, and their share of the reservation is released
 *     right after; the pending state goes to the finisher.
 *   the finisher ("pl-finish"): the prover's finish, verification if asked,
 *     delivery, witness freed, the rest of the reservation released.
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
#include "field/field.h"
#include "formats/formats.h"
#include "groth16/prover.h"
#include "groth16/vkey.h"
#include "groth16/c2.h"
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

typedef struct job job;

struct pl_circuit {
    pl_engine *engine;
    char *zkey_path;
    pl_zkey *zkey;
    pl_r1cs *r1cs;
    const pl__backend_ops *backend; /* its prover's */
    pl_prover *prover;
    pl_vkey *vkey;
    /* a C2 circuit (pl_engine_open_c2_circuit): the caller's SRS, which
     * outlives it, in place of the zkey, prover and verification key */
    const pl_c2_srs *srs;
    pl__c2_device *c2_device; /* its G1 bases on the backend's device */
    pl__prove_plan plan;
    uint64_t resident_reserved;
    /* under engine->lock: */
    int refs;
    bool wants_r1cs;         /* opened with an r1cs (for witness checks) */
    bool opening;            /* being built by the thread that published it */
    pl_status open_status;   /* its outcome, for opens that waited on it */
    pl_error open_error;
    pl_circuit *next;
};

typedef struct partition {
    job *job;
    size_t index;
    uint64_t reserved;  /* bytes of the budget this partition still holds */
    pl__sched_reservation res; /* what it reserved, and the abc share */
    uint64_t witness_reserved; /* a witness file's share: its size then */
    pl_wtns *wtns;
    blst_fr *abc;
    pl_pending *pending;
    pl__c2_pending *c2_pending;
    /* a C2 partition's: its assignment when synthesized here (and whether
     * it was, so release is owed), its blinding */
    pl_c2_assignment c2_as;
    bool c2_synthesized;
    pl_scalar c2_r, c2_s;
    pl_stage stage;
    struct partition *next;
} partition;

struct job {
    uint64_t id;
    pl_job_spec spec;
    char **paths;          /* our copies of spec.witness_paths */
    pl_circuit *circuit;
    pl_c2_job_spec c2;     /* a C2 job's: c2.circuit set */
    /* what each partition reserves: its circuit's plan, plus for a C2 job
     * that synthesizes its assignments, their bytes */
    pl__prove_plan plan;
    size_t next_to_admit;  /* under engine->lock */
    atomic_bool stopped;   /* failed or cancelled: drop what is in flight */
    pl_status status;      /* first failure; under engine->lock */
    pl_error error;
    size_t proved, verified, failed, skipped;
    /* partitions counted above whose last event is not yet recorded: the
     * job is not done before they are, so that a waiter finds every event
     * of the job in the ledger */
    unsigned retiring;
    bool done;
    job *next;
};

typedef struct {
    partition *head, *tail;
    size_t count, capacity;
    size_t claimed; /* slots claimed by a worker about to push */
} fifo;

typedef struct {
    pl_engine *engine;
    unsigned track;
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
    pl__prover_device_memory(atomic_load(&e->backend), &state.device_used_bytes,
                             &state.device_total_bytes,
                             &state.device_used_at_open_bytes);
    pl__ledger_record(e->ledger, event, job_id, part, current_track, &state,
                      note);
}

static void emit_ids(pl_engine *e, pl_event event, uint64_t job_id,
                     size_t part)
{
    emit_ids_note(e, event, job_id, part, NULL);
}

/* The bytes a partition's buffers hold now, as far as the engine sees
 * them: its witness when this engine allocated it, a/b/c until start takes
 * them, the pending state after start.  Its reservation never falls below
 * them (the buffers inside start and finish, planned too, come and go
 * within those calls). */
#ifndef NDEBUG
static uint64_t partition_live_bytes(const partition *p)
{
    const pl__prove_plan *plan = &p->job->plan;
    uint64_t live = p->wtns && p->wtns->heap ? p->wtns->map.size : 0;
    if (p->abc)
        live += plan->bytes[PL_BUF_ABC];
    if (p->pending || p->c2_pending)
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
static void stage_spans_of(pl_engine *e, const partition *p)
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
        j->proved + j->failed + j->skipped == j->spec.n_partitions) {
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
    size_t unadmitted = j->spec.n_partitions - j->next_to_admit;
    j->skipped += unadmitted;
    e->skipped += unadmitted;
    j->next_to_admit = j->spec.n_partitions;
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
    pl__c2_pending_abort(p->c2_pending);
    p->c2_pending = NULL;
    if (p->c2_synthesized && j->c2.release) /* the assignment's owner */
        j->c2.release(j->c2.synthesize_user, p->index);
    p->c2_synthesized = false;
    memset(&p->c2_r, 0, sizeof(p->c2_r)); /* the blinding */
    memset(&p->c2_s, 0, sizeof(p->c2_s));
    pl__free(p->abc);
    p->abc = NULL;
    pl_wtns_close(p->wtns);
    p->wtns = NULL;
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
            j->next_to_admit >= j->spec.n_partitions)
            continue;
        pl__sched_key key = {j->spec.priority, j->id, j->next_to_admit};
        if (!best || pl__sched_before(&key, &best_key)) {
            best = j;
            best_key = key;
        }
    }
    if (best) {
        *index = best->next_to_admit++;
        e->admitting_priority = best->spec.priority;
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
static pl_status never_fits(pl_engine *e, uint64_t job_id, size_t index,
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

/* The bytes partition `index`'s witness takes: a generated one the
 * circuit's nVars scalars (an accounted buffer), a file its size now (it is
 * read whole), an in-memory one nothing (the caller's). */
static pl_status witness_bytes(const pl_job_spec *spec, size_t index,
                               uint64_t *out, pl_error *err)
{
    struct stat sb;
    *out = 0;
    if (spec->generate)
        *out = (uint64_t)spec->circuit->zkey->n_vars * PL__FR_BYTES;
    else if (spec->witness_paths) {
        if (stat(spec->witness_paths[index], &sb) != 0)
            return pl__error_errno(err, PL_EIO, errno, "%s: cannot stat",
                                   spec->witness_paths[index]);
        *out = (uint64_t)sb.st_size;
    }
    return PL_OK;
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
        pl_status st = witness_bytes(&j->spec, index, &wb, &err);
        if (st != PL_OK) {
            retire(e, p, OUTCOME_FAILED, st, &err);
            p = NULL;
            continue;
        }
        pl__sched_reservation r;
        pl__sched_reservation_for(&r, plan, wb);
        p->res = r;
        p->witness_reserved = j->paths ? wb : 0;
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
                never_fits(e, j->id, index, want, &err);
                retire(e, p, OUTCOME_FAILED, PL_EBUDGET, &err);
            }
            p = NULL;
            continue;
        }
        p->reserved = want;
        engine_lock(e);
        e->admitting_priority = INT_MIN;
        engine_unlock(e);
        set_stage(e, p, PL_STAGE_ADMITTED);
        emit(e, PL_EV_ADMITTED, p);
        break;
    }
    pthread_mutex_unlock(&e->admission_lock);
    return p;
}

/* A C2 partition's assignment (given, or made now by the job's
 * synthesize) and its blinding, checked against the SRS. */
static pl_status synthesize_c2(pl_engine *e, partition *p, pl_error *err)
{
    job *j = p->job;
    const pl_c2_job_spec *c2 = &j->c2;
    pl_status st;
    if (c2->r) {
        p->c2_r = c2->r[p->index];
        p->c2_s = c2->s[p->index];
    } else if ((st = pl__fr_random_scalar((blst_scalar *)&p->c2_r, err)) ||
               (st = pl__fr_random_scalar((blst_scalar *)&p->c2_s, err))) {
        return st;
    }
    if (!c2->synthesize) { /* bellperson synthesized it: checked at submit */
        p->c2_as = c2->assignments[p->index];
        return PL_OK;
    }
    pl__stage_timer timer;
    stage_spans_of(e, p);
    pl__stage_timer_start(&timer, e->cfg.on_stage, e->cfg.on_stage_user);
    st = c2->synthesize(c2->synthesize_user, p->index, &p->c2_as, err);
    if (st == PL_OK) {
        p->c2_synthesized = true;
        pl__stage_lap(&timer, "synthesize");
        st = pl__c2_check_one(j->circuit->srs, p->index, &p->c2_as,
                              &p->c2_r, &p->c2_s, err);
    }
    stage_spans_of(e, NULL);
    return st;
}

static pl_status synthesize(pl_engine *e, partition *p, pl_error *err)
{
    job *j = p->job;
    pl_circuit *c = j->circuit;
    pl_status st;
    if (j->c2.circuit)
        return synthesize_c2(e, p, err);
    char name[64];
    snprintf(name, sizeof(name), "witness %zu of job %llu", p->index,
             (unsigned long long)j->id);
    if (j->paths) {
        st = pl__wtns_load(&p->wtns, j->paths[p->index], p->witness_reserved,
                           err);
    } else if (j->spec.generate) {
        size_t n = c->zkey->n_vars;
        pl_scalar *values = pl__alloc(PL_BUF_WITNESS, (uint64_t)n * PL__FR_BYTES,
                                      err);
        if (!values)
            return PL_ENOMEM;
        st = j->spec.generate(j->spec.generate_user, p->index, values, n, err);
        if (st == PL_OK)
            st = pl__wtns_adopt(&p->wtns, values, n, name, err);
        if (st != PL_OK) {
            pl__free(values);
            return st;
        }
    } else {
        st = pl__wtns_wrap(&p->wtns, j->spec.witnesses[p->index],
                           c->zkey->n_vars, name, err);
    }
    if (st != PL_OK)
        return st;
    if (j->spec.check_witness &&
        (st = pl_witness_check(c->r1cs, p->wtns, err)) != PL_OK)
        return st;
    pl__stage_timer timer;
    stage_spans_of(e, p);
    pl__stage_timer_start(&timer, e->cfg.on_stage, e->cfg.on_stage_user);
    st = pl__prover_synthesize(c->prover, &p->abc, p->wtns, NULL, err);
    if (st == PL_OK)
        pl__stage_lap(&timer, "synthesize");
    stage_spans_of(e, NULL);
    return st;
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
                           : synthesize(e, p, &err);
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
} abc_read_ctx;

/* A C2 proof has read the caller's a, b, c and freed its coset copies:
 * the caller may free theirs (abc_done), and the a/b/c share of the
 * reservation goes back now, as the event says, while the sums run. */
static void c2_abc_read(void *arg)
{
    abc_read_ctx *ctx = arg;
    pl_engine *e = ctx->engine;
    partition *p = ctx->partition;
    const pl_c2_job_spec *c2 = &p->job->c2;
    if (c2->abc_done)
        c2->abc_done(c2->synthesize_user, p->index);
    release(e, p, pl__sched_release_after(&p->res, PL_EV_ABC_FREED,
                                          p->reserved));
    emit(e, PL_EV_ABC_FREED, p);
}

/* Starts partition p's proof: its a/b/c consumed and their share of the
 * reservation released (abc_freed), the G2 sum on its way beside, the G1
 * sums done; p->pending (or p->c2_pending) holds the rest for the
 * finisher.  On failure the partition still holds what it reserved. */
static pl_status start_proof(pl_engine *e, partition *p, pl_error *err)
{
    job *j = p->job;
    pl_status st;
    stage_spans_of(e, p);
    if (j->c2.circuit) {
        abc_read_ctx ctx = {e, p};
        st = pl__c2_prove_start(j->circuit->srs, j->circuit->c2_device,
                                &p->c2_pending, &p->c2_as,
                                &p->c2_r, &p->c2_s, j->c2.montgomery,
                                c2_abc_read, &ctx, err);
        stage_spans_of(e, NULL);
        return st;
    }
    blst_fr *abc = p->abc;
    p->abc = NULL; /* start consumes it */
    st = pl__prove_start_abc(j->circuit->prover, &p->pending, abc, p->wtns,
                             err);
    stage_spans_of(e, NULL);
    /* a/b/c are freed by now */
    release(e, p, pl__sched_release_after(&p->res, PL_EV_ABC_FREED,
                                          p->reserved));
    if (st == PL_OK)
        emit(e, PL_EV_ABC_FREED, p);
    return st;
}

static void *prover_main(void *arg)
{
    pl_engine *e = enter_thread(arg);
    for (;;) {
        engine_lock(e);
        /* A claimed slot is a partition on its way in: wait for it even
         * when stopping, or it would be pushed into a queue nobody drains. */
        while (e->handoff.count == 0 &&
               !(atomic_load(&e->stopping) && e->handoff.claimed == 0))
            engine_wait(e, &e->handoff_changed);
        partition *p = fifo_pop(&e->handoff);
        if (!p) { /* stopping, drained, nothing claimed */
            e->provers_alive--;
            pthread_cond_broadcast(&e->finish_changed);
            engine_unlock(e);
            return NULL;
        }
        set_stage_locked(e, p, PL_STAGE_PROVING);
        pthread_cond_broadcast(&e->handoff_changed);
        engine_unlock(e);

        if (atomic_load(&p->job->stopped) || atomic_load(&e->stopping)) {
            retire(e, p, OUTCOME_SKIPPED, PL_OK, NULL);
            continue;
        }
        emit(e, PL_EV_PROVE_START, p);
        pl_error err = {0};
        pl_status st = start_proof(e, p, &err);
        if (st != PL_OK) {
            retire(e, p, OUTCOME_FAILED, st, &err);
            continue;
        }
        engine_lock(e);
        set_stage_locked(e, p, PL_STAGE_FINISHING);
        while (!pl__sched_queue_has_room(e->finishing.count,
                                         e->finishing.capacity))
            engine_wait(e, &e->finish_changed);
        fifo_push(&e->finishing, p);
        pthread_cond_broadcast(&e->finish_changed);
        engine_unlock(e);
    }
}

/* ---- the finisher ------------------------------------------------------ */

/* A C2 proof is out: to the job's on_proof with its public inputs, in
 * standard form (converted when the assignment's are Montgomery). */
static void finish_c2(pl_engine *e, partition *p, const pl_proof *proof)
{
    const pl_c2_job_spec *c2 = &p->job->c2;
    const pl_c2_assignment *as = &p->c2_as;
    const size_t n_public = as->inp_assignment_size - 1;
    if (c2->on_proof) {
        pl_scalar *converted = NULL;
        const pl_scalar *publics = as->inp_assignment + 1;
        if (c2->montgomery && n_public) {
            if (!(converted = malloc(n_public * sizeof(pl_scalar)))) {
                pl_error err;
                pl__error_set(&err, PL_ENOMEM, "engine: out of memory");
                retire(e, p, OUTCOME_FAILED, PL_ENOMEM, &err);
                return;
            }
            for (size_t i = 0; i < n_public; i++) {
                blst_fr f;
                memcpy(&f, publics[i].b, sizeof(f));
                pl__fr_to_le(converted[i].b, &f);
            }
            publics = converted;
        }
        c2->on_proof(c2->on_proof_user, p->job->id, p->index, proof,
                     publics, n_public);
        free(converted);
    }
    emit(e, PL_EV_FINALIZE_DONE, p);
    retire(e, p, OUTCOME_PROVED, PL_OK, NULL);
}

static void finish_one(pl_engine *e, partition *p)
{
    job *j = p->job;
    pl_circuit *c = j->circuit;
    pl_error err = {0};
    pl_proof proof;
    pl_status st;
    stage_spans_of(e, p);
    if (j->c2.circuit) {
        pl__c2_pending *pending = p->c2_pending;
        p->c2_pending = NULL; /* finish consumes it */
        st = pl__c2_prove_finish(pending, &proof, &err);
    } else {
        pl_pending *pending = p->pending;
        p->pending = NULL;
        st = pl_prove_finish(pending, &proof, &err);
    }
    stage_spans_of(e, NULL);
    if (st != PL_OK) {
        retire(e, p, OUTCOME_FAILED, st, &err);
        return;
    }
    emit(e, PL_EV_PROVE_DONE, p);
    if (atomic_load(&j->stopped)) {
        retire(e, p, OUTCOME_SKIPPED, PL_OK, NULL);
        return;
    }
    if (j->c2.circuit) {
        finish_c2(e, p, &proof);
        return;
    }
    const pl_scalar *publics = pl_wtns_values(p->wtns) + 1;
    size_t n_public = c->zkey->n_public;
    if (j->spec.verify) {
        /* an invalid proof is never delivered: the witness does not
         * satisfy the circuit, or the key is damaged */
        st = pl_verify(c->vkey, &proof, publics, n_public, &err);
        if (st == PL_EINVALID && c->zkey->heap &&
            !pl__file_still_holds(c->zkey_path, &c->zkey->map)) {
            /* not the witness: the key was read while it was being
             * rewritten (a mix of two keys), or changed since */
            st = pl__error_set(&err, PL_EIO, "%s: the key changed on disk "
                               "after it was read: the proof of partition "
                               "%zu of job %llu, made with the bytes read, "
                               "does not verify and is not written; run "
                               "again once the file is complete",
                               c->zkey_path, p->index,
                               (unsigned long long)j->id);
        } else if (st == PL_EINVALID) {
            pl__error_set(&err, PL_EINVALID,
                          "%s%sthe proof does not verify with the key's "
                          "verification key (partition %zu of job %llu): "
                          "the witness does not satisfy the circuit "
                          "(--check-witness names the constraint) or the "
                          "key is damaged (--check-params)",
                          j->paths ? j->paths[p->index] : "",
                          j->paths ? ": " : "", p->index,
                          (unsigned long long)j->id);
        }
        if (st != PL_OK) {
            retire(e, p, OUTCOME_FAILED, st, &err);
            return;
        }
        engine_lock(e);
        j->verified++;
        e->verified++;
        engine_unlock(e);
    }
    if (j->spec.on_proof)
        j->spec.on_proof(j->spec.on_proof_user, j->id, p->index, &proof,
                         publics, n_public);
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
    pl_engine *e = calloc(1, sizeof(*e));
    if (!e)
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    if (cfg)
        e->cfg = *cfg;
    /* the budget's base: RAM, or the container's cgroup limit when it is
     * smaller */
    pl__sched_config_complete(&e->cfg, e->cfg.budget_bytes
                                           ? 0 : pl_memory_limit());
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
        e->thread_args[track] = (thread_arg){e, track};
        pl__ledger_name_track(e->ledger, track, name);
        if ((st = start_thread(&e->synth_threads[i], synth_main,
                               &e->thread_args[track], name, err)))
            goto fail;
        e->n_synth_started++;
    }
    for (unsigned i = 0; i < e->cfg.prover_workers; i++, track++) {
        snprintf(name, sizeof(name), "pl-prove-w%u", i);
        e->thread_args[track] = (thread_arg){e, track};
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
    e->thread_args[track] = (thread_arg){e, track};
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

static void circuit_free(pl_engine *e, pl_circuit *c)
{
    /* a C2 circuit's SRS is its caller's; its device state ours */
    pl__c2_device_close(c->c2_device);
    pl_vkey_destroy(c->vkey);
    pl_prover_destroy(c->prover);
    pl_r1cs_close(c->r1cs);
    pl_zkey_close(c->zkey);
    if (c->resident_reserved) {
        atomic_fetch_sub(&e->resident_total, c->resident_reserved);
        pl__budget_release(&e->budget, c->resident_reserved);
    }
    free(c->zkey_path);
    free(c);
}

static void job_free(job *j)
{
    if (j->paths)
        for (size_t i = 0; i < j->spec.n_partitions; i++)
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
        job_free(j);
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
static const pl__backend_ops *choose_backend(pl_engine *e)
{
    const pl__backend_ops *current = atomic_load(&e->backend);
    char why[320];
    if (!e->fallback || current == e->fallback ||
        !pl__prover_backend_faulted(current, why, sizeof(why)))
        return current;
    if (atomic_compare_exchange_strong(&e->backend, &current, e->fallback) &&
        e->cfg.log_level >= PL_LOG_INFO)
        fprintf(e->cfg.log_stream ? e->cfg.log_stream : stderr,
                "engine: backend %s: %s; circuits opened from now on use %s\n",
                pl__prover_backend_name(current), why,
                pl__prover_backend_name(e->fallback));
    return e->fallback;
}

/* Opens what a circuit holds: the zkey (and r1cs), its resident bytes
 * reserved first, the prover, the verification key.  No lock held. */
/* Reserves bytes a circuit keeps resident (before they are allocated). */
static pl_status reserve_resident(pl_engine *e, pl_circuit *c, uint64_t bytes,
                                  const char *what, pl_error *err)
{
    if (!pl__budget_try_reserve(&e->budget, bytes)) {
        uint64_t reserved;
        char b1[24], b2[24], b3[24];
        pl__budget_read(&e->budget, &reserved, NULL);
        return pl__error_set(err, PL_EBUDGET,
                             "%s: the circuit's %s needs %s but only %s of the "
                             "budget's %s are free", c->zkey_path, what,
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

/* Opens what a circuit holds, each part's resident bytes reserved before
 * it is allocated: the key, read whole into memory (class params: in the
 * budget and the ledger, and immune to later changes of the file), the
 * r1cs when witnesses are checked, the prover (its matrices and its
 * backend's tables), the verification key.  No lock held. */
static pl_status circuit_build(pl_engine *e, pl_circuit *c,
                               const char *r1cs_path, pl_error *err)
{
    pl_status st;
    struct stat sb;
    if (stat(c->zkey_path, &sb) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s: cannot open",
                               c->zkey_path);
    uint64_t key_bytes = (uint64_t)sb.st_size;
    if ((st = reserve_resident(e, c, key_bytes, "key", err)) ||
        (st = pl__zkey_load(&c->zkey, c->zkey_path, key_bytes, err)))
        return st;
    if (r1cs_path && ((st = pl_r1cs_open(&c->r1cs, r1cs_path, err)) ||
                      (st = pl_r1cs_matches_zkey(c->r1cs, c->zkey, err))))
        return st;
    c->backend = choose_backend(e);
    pl__prover_plan(c->zkey, c->backend, e->cfg.threads, &c->plan);
    if ((st = reserve_resident(e, c,
                               c->plan.resident_bytes +
                                   pl__vkey_bytes(c->zkey->n_public),
                               "prover's tables", err)))
        return st;
    pl_prover_config pc;
    pl_prover_config_init(&pc);
    pc.threads = e->cfg.threads;
    pc.plain_msm = e->cfg.plain_msm;
    pc.on_stage = e->cfg.on_stage;
    pc.on_stage_user = e->cfg.on_stage_user;
    if ((st = pl__prover_create_with_backend(&c->prover, c->zkey, c->backend,
                                             &pc, err)))
        return st;
    return pl_vkey_from_zkey(&c->vkey, c->zkey, err);
}

static void unlink_circuit_locked(pl_engine *e, pl_circuit *c)
{
    assert(engine_lock_held(e));
    pl_circuit **link = &e->circuits;
    while (*link != c)
        link = &(*link)->next;
    *link = c->next;
}

/* Opening is published before it is done: a second open of the same
 * circuit finds it and waits for the first instead of building it again
 * (and reserving its resident bytes twice). */
static pl_status open_circuit(pl_engine *e, pl_circuit **out,
                              const char *zkey_path, const char *r1cs_path,
                              pl_error *err)
{
    *out = NULL;
    engine_lock(e);
    for (pl_circuit *c = e->circuits; c; c = c->next) {
        if (c->srs || strcmp(c->zkey_path, zkey_path) != 0 ||
            (r1cs_path && !c->wants_r1cs))
            continue;
        /* one whose device faulted is left to its users: open afresh */
        if (!c->opening && c->open_status == PL_OK &&
            pl__prover_backend_faulted(c->backend, NULL, 0))
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
    if (!c || !(c->zkey_path = strdup(zkey_path))) {
        engine_unlock(e);
        free(c);
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    }
    c->engine = e;
    c->refs = 1;
    c->opening = true;
    c->wants_r1cs = r1cs_path != NULL;
    c->next = e->circuits;
    e->circuits = c;
    engine_unlock(e);

    pl_error local = {0};
    pl_status st = circuit_build(e, c, r1cs_path, &local);

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

pl_status pl_engine_open_circuit(pl_engine *e, pl_circuit **out,
                                 const char *zkey_path, const char *r1cs_path,
                                 pl_error *err)
{
    pl__alloc_scope *outer = pl__alloc_scope_enter(e->scope);
    pl_status st = open_circuit(e, out, zkey_path, r1cs_path, err);
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
    return c->srs ? pl__c2_srs_n_public(c->srs) : c->zkey->n_public;
}

static pl_circuit *find_c2_circuit_locked(pl_engine *e, const pl_c2_srs *srs)
{
    assert(engine_lock_held(e));
    for (pl_circuit *c = e->circuits; c; c = c->next)
        if (c->srs == srs)
            return c;
    return NULL;
}

/* Nothing to build: the SRS is open.  Its bytes are reserved outside the
 * lock (the budget's waits take the engine's lock); a second open that
 * raced this one keeps the first circuit and gives its bytes back. */
pl_status pl_engine_open_c2_circuit(pl_engine *e, pl_circuit **out,
                                    const pl_c2_srs *srs, pl_error *err)
{
    *out = NULL;
    engine_lock(e);
    pl_circuit *c = find_c2_circuit_locked(e, srs);
    if (c)
        c->refs++;
    engine_unlock(e);
    if (c) {
        *out = c;
        return PL_OK;
    }
    if (!(c = calloc(1, sizeof(*c))) ||
        !(c->zkey_path = strdup("the C2 parameters"))) {
        free(c);
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    }
    c->engine = e;
    c->srs = srs;
    pl__alloc_scope *outer = pl__alloc_scope_enter(e->scope);
    /* the backend's device takes the SRS's G1 bases; one that cannot (its
     * memory, a fault) leaves an engine with a fallback on the CPU */
    c->backend = choose_backend(e);
    pl_error dev_err = {0};
    pl_status st = pl__c2_srs_open_device(srs, c->backend, &c->c2_device,
                                          &dev_err);
    if (st != PL_OK && e->fallback) {
        if (e->cfg.log_level >= PL_LOG_INFO)
            fprintf(e->cfg.log_stream ? e->cfg.log_stream : stderr,
                    "engine: backend %s: the C2 parameters stay on the "
                    "CPU: %s\n", pl__prover_backend_name(c->backend),
                    dev_err.msg);
        c->backend = e->fallback;
        st = PL_OK;
    } else if (st != PL_OK) {
        if (err)
            *err = dev_err;
    }
    if (st == PL_OK) {
        if (!c->c2_device)
            c->backend = &pl__backend_cpu;
        pl__c2_plan(srs, c->c2_device != NULL, &c->plan);
        st = reserve_resident(e, c, c->plan.resident_bytes, "SRS", err);
    }
    if (st != PL_OK) {
        circuit_free(e, c);
        pl__alloc_scope_enter(outer);
        return st;
    }
    engine_lock(e);
    pl_circuit *raced = find_c2_circuit_locked(e, srs);
    if (raced) {
        raced->refs++;
    } else {
        c->refs = 1;
        c->next = e->circuits;
        e->circuits = c;
    }
    engine_unlock(e);
    if (raced) {
        circuit_free(e, c);
        c = raced;
    }
    pl__alloc_scope_enter(outer);
    *out = c;
    return PL_OK;
}

/* ---- jobs -------------------------------------------------------------- */

/* Queues job j (its spec filled, its circuit's reference not yet taken)
 * and wakes admission; frees j when the engine is shutting down. */
static pl_status enqueue(pl_engine *e, job *j, uint64_t *job_id,
                         pl_error *err)
{
    engine_lock(e);
    if (atomic_load(&e->stopping)) {
        engine_unlock(e);
        job_free(j);
        return pl__error_set(err, PL_ECANCELLED, "engine: shutting down");
    }
    j->circuit->refs++;
    j->id = e->next_job_id++;
    job **link = &e->jobs;
    while (*link)
        link = &(*link)->next;
    *link = j;
    *job_id = j->id;
    bool yield = pl__sched_preempts(e->admitting_priority, j->spec.priority);
    if (yield)
        atomic_store(&e->admission_yield, true);
    pthread_cond_broadcast(&e->work_changed);
    engine_unlock(e);
    if (yield)
        pl__budget_wake(&e->budget);
    return PL_OK;
}

pl_status pl_engine_submit_c2(pl_engine *e, uint64_t *job_id,
                              const pl_c2_job_spec *spec, pl_error *err)
{
    *job_id = 0;
    pl_status st;
    if (!spec->circuit || !spec->circuit->srs || spec->n_partitions == 0 ||
        !spec->assignments == !spec->synthesize || !spec->r != !spec->s)
        return pl__error_set(err, PL_EUSAGE, "engine: a C2 job needs a "
                             "circuit of C2 parameters, its assignments "
                             "(given or synthesized: exactly one), and r "
                             "and s both or neither");
    if (spec->assignments && spec->r &&
        (st = pl__c2_check(spec->circuit->srs, spec->assignments,
                           spec->n_partitions, spec->r, spec->s, err)))
        return st;
    if (spec->assignments && !spec->r)
        for (size_t i = 0; i < spec->n_partitions; i++)
            if ((st = pl__c2_check_one(spec->circuit->srs, i,
                                       &spec->assignments[i],
                                       &(pl_scalar){{0}}, &(pl_scalar){{0}},
                                       err)))
                return st;
    pl__prove_plan plan = spec->circuit->plan;
    if (spec->synthesize) {
        plan.bytes[PL_BUF_ABC] += spec->abc_bytes;
        plan.bytes[PL_BUF_WITNESS] += spec->other_bytes;
    }
    pl__sched_reservation r;
    pl__sched_reservation_for(&r, &plan, 0);
    if (!pl__sched_can_fit(e->budget.limit, atomic_load(&e->resident_total),
                           r.total))
        return never_fits(e, 0, 0, r.total, err);
    job *j = calloc(1, sizeof(*j));
    if (!j)
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    j->spec.circuit = spec->circuit;
    j->spec.n_partitions = spec->n_partitions;
    j->spec.priority = spec->priority;
    j->circuit = spec->circuit;
    j->c2 = *spec;
    j->plan = plan;
    return enqueue(e, j, job_id, err);
}

pl_status pl_engine_submit(pl_engine *e, uint64_t *job_id,
                           const pl_job_spec *spec, pl_error *err)
{
    *job_id = 0;
    int sources = !!spec->witness_paths + !!spec->witnesses + !!spec->generate;
    if (!spec->circuit || spec->n_partitions == 0 || sources != 1)
        return pl__error_set(err, PL_EUSAGE, "engine: a job needs a circuit "
                             "and its witnesses: as files, in memory or "
                             "generated (exactly one of them)");
    if (spec->circuit->srs)
        return pl__error_set(err, PL_EUSAGE, "engine: a circuit of C2 "
                             "parameters proves bellperson's assignments: "
                             "submit them with pl_engine_submit_c2");
    if (spec->check_witness && !spec->circuit->r1cs)
        return pl__error_set(err, PL_EUSAGE, "engine: checking witnesses "
                             "needs the circuit opened with its .r1cs");
    /* A partition that can never be admitted fails the job here, not in a
     * wait: each one's reservation against the budget less what the open
     * circuits hold (a witness file that cannot be read fails its
     * partition at admission, as before). */
    for (size_t i = 0; i < spec->n_partitions; i++) {
        pl__sched_reservation r;
        uint64_t wb;
        if (witness_bytes(spec, i, &wb, NULL) != PL_OK)
            continue;
        pl__sched_reservation_for(&r, &spec->circuit->plan, wb);
        if (!pl__sched_can_fit(e->budget.limit, atomic_load(&e->resident_total),
                               r.total))
            return never_fits(e, 0, i, r.total, err);
        if (!spec->witness_paths)
            break; /* the others are the same size */
    }
    job *j = calloc(1, sizeof(*j));
    if (!j)
        return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
    j->spec = *spec;
    j->circuit = spec->circuit;
    j->plan = spec->circuit->plan;
    if (spec->witness_paths) {
        j->paths = calloc(spec->n_partitions, sizeof(char *));
        for (size_t i = 0; j->paths && i < spec->n_partitions; i++)
            if (!(j->paths[i] = strdup(spec->witness_paths[i]))) {
                job_free(j);
                return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
            }
        if (!j->paths) {
            job_free(j);
            return pl__error_set(err, PL_ENOMEM, "engine: out of memory");
        }
        j->spec.witness_paths = (const char *const *)j->paths;
    }
    return enqueue(e, j, job_id, err);
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
    out->n_partitions = j->spec.n_partitions;
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
    job_free(j);
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
    out->device_used_bytes = now.device_used_bytes;
    out->device_total_bytes = now.device_total_bytes;
    out->peak_device_untracked_bytes = peaks.device_untracked;
    out->baseline_rss_anon_bytes = peaks.baseline_rss_anon;
    out->events = peaks.events;
    engine_lock(e);
    memcpy(out->stage_now, e->stage_now, sizeof(out->stage_now));
    memcpy(out->stage_peak, e->stage_peak, sizeof(out->stage_peak));
    out->proofs = e->proofs;
    out->verified = e->verified;
    out->failed = e->failed;
    out->skipped = e->skipped;
    out->trimmed_bytes = e->trimmed_bytes;
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
