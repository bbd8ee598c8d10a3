/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The planner's discrete-event simulation (see plan.h).  One clock, a heap
 * of timed events (a job arrives; a partition's synthesis, start or finish
 * ends), and after each event the pipeline is advanced the way the
 * engine's threads would advance it at that instant: the finisher takes
 * the next queued partition, provers blocked on the finisher's queue push
 * into it, idle provers take from the hand-off, synthesized partitions
 * claim hand-off slots, free synthesis workers admit the next partitions
 * in order while the budget lets them.  Each of those steps asks sched.c,
 * as engine.c does.  Events at the same instant are in an order the engine
 * may also take (its threads race there; the exactness test compares
 * same-instant events as sets).
 *
 * The state is small and plain (a few dozen bytes per partition, malloc'd
 * here): it is the simulation's bookkeeping, not a proof's buffer, and is
 * never in the budget it simulates.
 */
#include "plan/plan.h"
#include "formats/formats.h"
#include "groth16/vkey.h"
#include "groth16/zkey_prover.h"
#include "util/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shapes and bytes -------------------------------------------------- */

/* snarkjs zkeys stop at 2^28 (formats/zkey.c refuses more). */
#define MAX_LOG2_DOMAIN 28u

pl_status pl__plan_shape_of(pl__plan_shape *out, uint64_t constraints,
                            uint64_t publics, double density, pl_error *err)
{
    memset(out, 0, sizeof(*out));
    /* the domain holds the constraints and one row per public input and
     * ONE (snarkjs adds them as constraints) */
    uint64_t rows = constraints + publics + 1, domain = 1;
    while (domain < rows)
        domain <<= 1;
    if (domain > (1ull << MAX_LOG2_DOMAIN))
        return pl__error_set(err, PL_EUSAGE, "--constraints: %llu constraints "
                             "need a domain of 2^%u or more, beyond the 2^%u "
                             "of the zkey format",
                             (unsigned long long)constraints,
                             (unsigned)log2((double)domain), MAX_LOG2_DOMAIN);
    if (!(density > 0 && density <= 64))
        return pl__error_set(err, PL_EUSAGE, "--density: %g is not a number "
                             "of A and B terms per constraint (0 to 64)",
                             density);
    out->n_public = (uint32_t)publics;
    out->n_vars = (uint32_t)(constraints > publics + 1 ? constraints
                                                       : publics + 1);
    out->domain_size = (uint32_t)domain;
    double coefs = density * (double)rows;
    out->n_coefs = coefs > 4294967295.0 ? UINT32_MAX : (uint32_t)coefs;
    return PL_OK;
}

void pl__plan_shape_of_zkey(pl__plan_shape *out, const pl_zkey *zk)
{
    out->n_vars = zk->n_vars;
    out->n_public = zk->n_public;
    out->domain_size = zk->domain_size;
    out->n_coefs = zk->n_coefs;
    out->curve = zk->curve;
}

/* A zkey of a shape alone, for the plan functions that read the header
 * fields only (pl__prover_plan, pl__prover_csr_bytes). */
static void shape_zkey(pl_zkey *zk, const pl__plan_shape *shape)
{
    memset(zk, 0, sizeof(*zk));
    zk->n_vars = shape->n_vars;
    zk->n_public = shape->n_public;
    zk->domain_size = shape->domain_size;
    zk->n_coefs = shape->n_coefs;
    zk->curve = shape->curve;
    zk->g1_bytes = shape->curve == PL__CURVE_BN254 ? 64 : PL__G1_BYTES;
    zk->g2_bytes = 2 * zk->g1_bytes;
    unsigned log2 = 0;
    while ((1ull << log2) < shape->domain_size)
        log2++;
    zk->log2_domain = log2;
}

/* The container's header and sections 1, 2 and 10 (the header's points,
 * one contribution's hash): estimated, a kilobyte against gigabytes. */
#define ZKEY_FIXED_BYTES 1200u

uint64_t pl__plan_zkey_file_bytes(const pl__plan_shape *shape)
{
    uint64_t total = ZKEY_FIXED_BYTES;
    for (unsigned id = 3; id <= 9; id++) {
        pl__section_shape s;
        pl__zkey_section_shape_curve(&s, shape->curve, id, shape->n_vars,
                                     shape->n_public, shape->domain_size,
                                     shape->n_coefs);
        total += 12 + s.fixed + s.count * s.unit; /* id, size, payload */
    }
    return total;
}

void pl__plan_bytes_for(pl__plan_bytes *out, const pl__plan_shape *shape,
                        const pl__backend_ops *backend, unsigned threads,
                        uint64_t key_bytes, uint64_t witness_bytes)
{
    pl_zkey zk;
    shape_zkey(&zk, shape);
    memset(out, 0, sizeof(*out));
    pl__groth16_key key;
    pl__zkey_key(&key, &zk);
    pl__prover_plan(&zk, backend, threads, &out->prove);
    pl__prove_plan backend_only;
    pl__prover_backend_plan(backend, &key.shape, threads, &backend_only);
    out->msm_g1_scratch = backend_only.bytes[PL_BUF_MSM_SCRATCH];
    out->device = pl__prover_device_bytes(backend, &key.shape);
    out->csr = pl__prover_csr_bytes(&zk);
    out->witness = witness_bytes ? witness_bytes
                                 : (uint64_t)shape->n_vars * PL__FR_BYTES;
    out->key = key_bytes ? key_bytes : pl__plan_zkey_file_bytes(shape);
    out->vkey = pl__vkey_bytes(shape->n_public);
}

uint64_t pl__plan_resident(const pl__plan_bytes *b)
{
    /* engine.c's circuit_build: the key, then the prover's tables and the
     * verification key */
    return b->key + b->prove.resident_bytes + b->vkey;
}

void pl__plan_reservation(pl__sched_reservation *out, const pl__plan_bytes *b)
{
    pl__sched_reservation_for(out, &b->prove, b->witness);
}

/* ---- the simulation's state -------------------------------------------- */

enum ev_kind { EV_ARRIVE, EV_SYNTH_DONE, EV_PROVE_DONE, EV_FINISH_DONE };

typedef struct {
    double t;
    uint64_t seq; /* ties: in the order they were scheduled */
    enum ev_kind kind;
    size_t id;    /* a job (arrive) or a partition */
} event;

typedef struct {
    uint32_t job;      /* 0-based index; its id is job + 1 */
    uint32_t index;
    uint32_t track;    /* the synthesis worker's, then the prover's ... */
    uint32_t worker;   /* the synthesis worker it holds (ours) */
    double ends;       /* when its running stage ends */
    pl__plan_stage running; /* which (while it is in `busy`) */
    pl_stage stage;
    uint64_t reserved;
    /* what it holds now, per class (witness, abc, h, msm_scratch, pending) */
    uint64_t live[PL_BUF_CLASS_COUNT];
} part;

typedef struct {
    size_t *items, head, count, cap;
} ring;

typedef struct {
    const pl__plan_config *cfg;
    pl_engine_config eng;
    pl__plan_result *res;
    pl__sched_reservation r;
    double now;
    uint64_t seq;
    event *heap;
    size_t n_heap, cap_heap;
    part *parts;          /* jobs x partitions */
    size_t *next_to_admit; /* per job */
    size_t arrived, first_open, n_parts;
    size_t *job_proved;
    ring waiting, handoff, finishing, blocked;
    unsigned *free_workers, n_free_workers; /* a stack of worker indices */
    unsigned idle_provers, *free_provers;
    bool finisher_busy;
    uint64_t reserved, budget;
    uint64_t stage_now[PL_STAGE_COUNT];
    uint64_t cls[PL_BUF_CLASS_COUNT], cls_count[PL_BUF_CLASS_COUNT];
    pl__plan_load load;
    size_t busy[PL__PLAN_MAX_RUNNING]; /* partitions in a running stage */
    size_t n_busy;
    bool stopped;
} sim;

static bool ring_init(ring *q, size_t cap)
{
    q->items = malloc((cap ? cap : 1) * sizeof(size_t));
    q->head = q->count = 0;
    q->cap = cap ? cap : 1;
    return q->items != NULL;
}

static void ring_push(ring *q, size_t v)
{
    q->items[(q->head + q->count++) % q->cap] = v;
}

static size_t ring_pop(ring *q)
{
    size_t v = q->items[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return v;
}

static bool ev_less(const event *a, const event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void schedule(sim *s, double at, enum ev_kind kind, size_t id)
{
    event e = {at, s->seq++, kind, id};
    size_t i = s->n_heap++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!ev_less(&e, &s->heap[up]))
            break;
        s->heap[i] = s->heap[up];
        i = up;
    }
    s->heap[i] = e;
}

static event unschedule(sim *s)
{
    event top = s->heap[0], last = s->heap[--s->n_heap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->n_heap)
            break;
        if (c + 1 < s->n_heap && ev_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!ev_less(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->n_heap)
        s->heap[i] = last;
    return top;
}

/* ---- memory, stages, records ------------------------------------------ */

static uint64_t host_memory(const sim *s)
{
    uint64_t total = s->cfg->baseline_bytes;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        if (c != PL_BUF_DEVICE)
            total += s->cls[c];
    return total;
}

static void note_memory_peak(sim *s)
{
    pl__plan_result *res = s->res;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        if (s->cls[c] > res->peak_class_bytes[c])
            res->peak_class_bytes[c] = s->cls[c];
    uint64_t mem = host_memory(s);
    if (mem <= res->peak_memory_bytes)
        return;
    res->peak_memory_bytes = mem;
    memset(res->peak_memory_by_stage, 0, sizeof(res->peak_memory_by_stage));
    for (size_t i = 0; i < s->n_parts; i++) {
        const part *p = &s->parts[i];
        if (p->stage >= PL_STAGE_COUNT)
            continue;
        for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
            if (c != PL_BUF_DEVICE)
                res->peak_memory_by_stage[p->stage] += p->live[c];
    }
}

/* The queues' history, in bins that double in width (two merged into
 * one, keeping the larger) whenever the clock runs past the last. */
static void note_queues(sim *s)
{
    pl__plan_result *res = s->res;
    if (res->queue_bin_seconds <= 0)
        res->queue_bin_seconds = 1e-3;
    while (s->now >= res->queue_bin_seconds * PL_PLAN_QUEUE_BINS) {
        for (size_t i = 0; i < PL_PLAN_QUEUE_BINS; i++) {
            uint64_t w = 0, f = 0;
            if (2 * i < PL_PLAN_QUEUE_BINS) {
                size_t a = 2 * i, b = 2 * i + 1;
                w = res->queue_waiting[a] > res->queue_waiting[b]
                        ? res->queue_waiting[a] : res->queue_waiting[b];
                f = res->queue_in_flight[a] > res->queue_in_flight[b]
                        ? res->queue_in_flight[a] : res->queue_in_flight[b];
            }
            res->queue_waiting[i] = w;
            res->queue_in_flight[i] = f;
        }
        res->queue_bin_seconds *= 2;
    }
    size_t bin = (size_t)(s->now / res->queue_bin_seconds);
    uint64_t flight = 0;
    for (int st = 0; st < PL_STAGE_COUNT; st++)
        flight += s->stage_now[st];
    if (s->stage_now[PL_STAGE_WAITING] > res->queue_waiting[bin])
        res->queue_waiting[bin] = s->stage_now[PL_STAGE_WAITING];
    if (flight > res->queue_in_flight[bin])
        res->queue_in_flight[bin] = flight;
}

static void set_stage(sim *s, part *p, pl_stage to)
{
    if (p->stage < PL_STAGE_COUNT)
        s->stage_now[p->stage]--;
    p->stage = to;
    if (to < PL_STAGE_COUNT && ++s->stage_now[to] > s->res->stage_peak[to])
        s->res->stage_peak[to] = s->stage_now[to];
    note_queues(s);
}

static void emit(sim *s, pl_event ev, const part *p, const char *reason)
{
    s->res->events++;
    pl__ledger *l = s->cfg->ledger;
    if (!l)
        return;
    pl_ledger_record r;
    memset(&r, 0, sizeof(r));
    r.event = ev;
    r.job = (uint64_t)p->job + 1;
    r.partition = p->index;
    r.track = p->track;
    r.t_seconds = s->now;
    memcpy(r.stage_now, s->stage_now, sizeof(r.stage_now));
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        r.class_count[c] = s->cls_count[c];
        r.class_bytes[c] = s->cls[c];
        if (c != PL_BUF_DEVICE)
            r.tracked_bytes += s->cls[c];
    }
    r.reserved_bytes = s->reserved;
    r.budget_bytes = s->budget;
    r.rss_anon_bytes = s->cfg->baseline_bytes + r.tracked_bytes;
    if (reason)
        snprintf(r.reason, sizeof(r.reason), "%s", reason);
    pl__ledger_record_given(l, &r);
}

/* Allocates (bytes > 0) or frees a partition's buffer of class c. */
static void hold(sim *s, part *p, pl_buffer_class c, uint64_t bytes)
{
    if (!bytes)
        return;
    p->live[c] = bytes;
    s->cls[c] += bytes;
    s->cls_count[c]++;
}

static void drop(sim *s, part *p, pl_buffer_class c)
{
    if (!p->live[c])
        return;
    s->cls[c] -= p->live[c];
    s->cls_count[c]--;
    p->live[c] = 0;
}

/* After an allocation: out of memory stops the simulation, with the
 * numbers of that instant. */
static bool check_memory(sim *s, part *p, pl_event at)
{
    note_memory_peak(s);
    uint64_t mem = host_memory(s);
    if (!s->cfg->memory_bytes || mem <= s->cfg->memory_bytes)
        return true;
    pl__plan_result *res = s->res;
    res->out_of_memory = true;
    res->oom_seconds = s->now;
    res->oom_memory_bytes = mem;
    res->oom_event = at;
    memcpy(res->oom_stage_now, s->stage_now, sizeof(res->oom_stage_now));
    int most = 0;
    for (int c = 1; c < PL_BUF_CLASS_COUNT; c++)
        if (s->cls[c] > s->cls[most])
            most = c;
    res->oom_class = (pl_buffer_class)most;
    emit(s, PL_EV_FAILED, p, "out of memory: the machine's memory is "
         "exceeded");
    s->stopped = true;
    return false;
}

static void release(sim *s, part *p, pl_event after)
{
    uint64_t bytes = pl__sched_release_after(&s->r, after, p->reserved);
    p->reserved -= bytes;
    s->reserved -= bytes;
}

/* Starts `stage` of p now: its duration (from the caller's function,
 * told what else runs and for how long), its end scheduled. */
static void run_stage(sim *s, pl__plan_stage stage, part *p, enum ev_kind end)
{
    s->load.n_running = 0;
    for (size_t i = 0; i < s->n_busy; i++) {
        const part *q = &s->parts[s->busy[i]];
        s->load.running[i] = q->running;
        s->load.remaining[i] = q->ends - s->now;
        s->load.n_running++;
    }
    double d = s->cfg->duration(s->cfg->duration_user, stage,
                                (uint64_t)p->job + 1, p->index, &s->load);
    if (!(d > 0))
        d = 0;
    s->res->busy_seconds[stage] += d;
    s->res->runs[stage]++;
    p->ends = s->now + d;
    p->running = stage;
    if (s->n_busy < PL__PLAN_MAX_RUNNING)
        s->busy[s->n_busy++] = (size_t)(p - s->parts);
    schedule(s, p->ends, end, (size_t)(p - s->parts));
}

static void stage_ended(sim *s, const part *p)
{
    size_t id = (size_t)(p - s->parts);
    for (size_t i = 0; i < s->n_busy; i++)
        if (s->busy[i] == id) {
            s->busy[i] = s->busy[--s->n_busy];
            return;
        }
}

/* ---- the pipeline's steps ---------------------------------------------- */

/* The next partition in admission order among the jobs that arrived (the
 * engine's pick_next_locked), or SIZE_MAX. */
static size_t pick_next(sim *s)
{
    size_t best = SIZE_MAX;
    pl__sched_key best_key = {0, 0, 0};
    while (s->first_open < s->arrived &&
           s->next_to_admit[s->first_open] >= s->cfg->partitions)
        s->first_open++;
    for (size_t j = s->first_open; j < s->arrived; j++) {
        if (s->next_to_admit[j] >= s->cfg->partitions)
            continue;
        pl__sched_key key = {0, (uint64_t)j + 1, s->next_to_admit[j]};
        if (best == SIZE_MAX || pl__sched_before(&key, &best_key)) {
            best = j;
            best_key = key;
        }
        break; /* one priority: the oldest open job is first */
    }
    return best;
}

static bool admit(sim *s)
{
    size_t j = pick_next(s);
    if (j == SIZE_MAX || !pl__sched_can_fit(s->budget, s->reserved, s->r.total))
        return false;
    part *p = &s->parts[j * s->cfg->partitions + s->next_to_admit[j]++];
    unsigned w = s->free_workers[--s->n_free_workers];
    p->worker = w;
    p->track = 1 + w;
    p->reserved = s->r.total;
    s->reserved += s->r.total;
    if (s->reserved > s->res->peak_reserved_bytes)
        s->res->peak_reserved_bytes = s->reserved;
    set_stage(s, p, PL_STAGE_ADMITTED);
    emit(s, PL_EV_ADMITTED, p, NULL);
    set_stage(s, p, PL_STAGE_SYNTH);
    emit(s, PL_EV_SYNTH_START, p, NULL);
    /* the witness is loaded (or generated), then a/b/c are allocated */
    hold(s, p, PL_BUF_WITNESS, s->cfg->bytes.witness);
    hold(s, p, PL_BUF_ABC, s->cfg->bytes.prove.bytes[PL_BUF_ABC]);
    if (!check_memory(s, p, PL_EV_SYNTH_START))
        return false;
    s->load.synthesizing++;
    run_stage(s, PL__PLAN_SYNTH, p, EV_SYNTH_DONE);
    return true;
}

static void free_worker(sim *s, part *p)
{
    s->free_workers[s->n_free_workers++] = p->worker;
}

static bool start_proving(sim *s)
{
    part *p = &s->parts[ring_pop(&s->handoff)];
    unsigned w = s->free_provers[--s->idle_provers];
    p->worker = w;
    p->track = 1 + s->eng.synth_workers + w;
    set_stage(s, p, PL_STAGE_PROVING);
    emit(s, PL_EV_PROVE_START, p, NULL);
    /* start, in two phases: the G2 sum's scratch, H's buffer and the
     * pending state beside a/b/c (H from them); then a/b/c freed and the
     * G1 sums' scratch instead.  Held from here to abc_freed as the first
     * phase; the second's total counts for the peak (and the machine). */
    const pl__plan_bytes *b = &s->cfg->bytes;
    uint64_t g1 = b->msm_g1_scratch;
    hold(s, p, PL_BUF_H, b->prove.bytes[PL_BUF_H]);
    hold(s, p, PL_BUF_MSM_SCRATCH, b->prove.bytes[PL_BUF_MSM_SCRATCH] - g1);
    hold(s, p, PL_BUF_PENDING, b->prove.bytes[PL_BUF_PENDING]);
    hold(s, p, PL_BUF_PINNED, b->prove.bytes[PL_BUF_PINNED]);
    if (!check_memory(s, p, PL_EV_PROVE_START))
        return false;
    uint64_t abc = p->live[PL_BUF_ABC];
    s->cls[PL_BUF_ABC] -= abc;
    s->cls[PL_BUF_MSM_SCRATCH] += g1;
    p->live[PL_BUF_ABC] = 0;
    p->live[PL_BUF_MSM_SCRATCH] += g1;
    bool fits = check_memory(s, p, PL_EV_PROVE_START);
    s->cls[PL_BUF_ABC] += abc;
    s->cls[PL_BUF_MSM_SCRATCH] -= g1;
    p->live[PL_BUF_ABC] = abc;
    p->live[PL_BUF_MSM_SCRATCH] -= g1;
    if (!fits)
        return false;
    s->load.proving++;
    run_stage(s, PL__PLAN_PROVE, p, EV_PROVE_DONE);
    return true;
}

static void start_finishing(sim *s)
{
    part *p = &s->parts[ring_pop(&s->finishing)];
    s->finisher_busy = true;
    p->track = 1 + s->eng.synth_workers + s->eng.prover_workers;
    s->load.finishing++;
    run_stage(s, PL__PLAN_FINISH, p, EV_FINISH_DONE);
}

/* What the engine's threads do at this instant, until none can move. */
static void advance(sim *s)
{
    bool moved = true;
    while (moved && !s->stopped) {
        moved = false;
        if (!s->finisher_busy && s->finishing.count) {
            start_finishing(s);
            moved = true;
        }
        while (s->blocked.count &&
               pl__sched_queue_has_room(s->finishing.count,
                                        s->eng.prover_workers)) {
            part *p = &s->parts[ring_pop(&s->blocked)];
            ring_push(&s->finishing, (size_t)(p - s->parts));
            s->free_provers[s->idle_provers++] = p->worker;
            moved = true;
        }
        while (s->idle_provers && s->handoff.count && !s->stopped) {
            if (!start_proving(s))
                return;
            moved = true;
        }
        while (s->waiting.count &&
               pl__sched_handoff_has_room(s->handoff.count, 0,
                                          s->eng.handoff_slots)) {
            part *p = &s->parts[ring_pop(&s->waiting)];
            emit(s, PL_EV_HANDED_OFF, p, NULL);
            ring_push(&s->handoff, (size_t)(p - s->parts));
            if (pl__sched_worker_free_after(s->cfg->policy, PL_EV_HANDED_OFF))
                free_worker(s, p);
            moved = true;
        }
        while (s->n_free_workers && !s->stopped && admit(s))
            moved = true;
    }
}

static void on_event(sim *s, const event *e)
{
    if (e->kind == EV_ARRIVE) {
        s->arrived = e->id + 1;
        return;
    }
    part *p = &s->parts[e->id];
    stage_ended(s, p);
    switch (e->kind) {
    case EV_SYNTH_DONE:
        s->load.synthesizing--;
        emit(s, PL_EV_SYNTH_DONE, p, NULL);
        set_stage(s, p, PL_STAGE_WAITING);
        if (pl__sched_worker_free_after(s->cfg->policy, PL_EV_SYNTH_DONE))
            free_worker(s, p);
        ring_push(&s->waiting, e->id);
        break;
    case EV_PROVE_DONE:
        s->load.proving--;
        /* start freed a/b/c and its own buffers; pending and the pinned
         * staging stay to the finish */
        drop(s, p, PL_BUF_ABC);
        drop(s, p, PL_BUF_H);
        drop(s, p, PL_BUF_MSM_SCRATCH);
        release(s, p, PL_EV_ABC_FREED);
        emit(s, PL_EV_ABC_FREED, p, NULL);
        set_stage(s, p, PL_STAGE_FINISHING);
        if (pl__sched_queue_has_room(s->finishing.count,
                                     s->eng.prover_workers)) {
            ring_push(&s->finishing, e->id);
            s->free_provers[s->idle_provers++] = p->worker;
        } else {
            ring_push(&s->blocked, e->id);
        }
        break;
    case EV_FINISH_DONE:
        s->load.finishing--;
        s->finisher_busy = false;
        drop(s, p, PL_BUF_PENDING);
        drop(s, p, PL_BUF_PINNED);
        emit(s, PL_EV_PROVE_DONE, p, NULL);
        emit(s, PL_EV_FINALIZE_DONE, p, NULL);
        drop(s, p, PL_BUF_WITNESS);
        release(s, p, PL_EV_DEALLOC_DONE);
        set_stage(s, p, PL_STAGE_COUNT);
        emit(s, PL_EV_DEALLOC_DONE, p, NULL);
        s->res->proved++;
        if (++s->job_proved[p->job] == s->cfg->partitions)
            s->res->jobs_done++;
        break;
    default:
        break;
    }
}

static void sim_free(sim *s)
{
    free(s->heap);
    free(s->parts);
    free(s->next_to_admit);
    free(s->job_proved);
    free(s->waiting.items);
    free(s->handoff.items);
    free(s->finishing.items);
    free(s->blocked.items);
    free(s->free_workers);
    free(s->free_provers);
}

pl_status pl__plan_run(pl__plan_result *out, const pl__plan_config *cfg,
                       pl_error *err)
{
    memset(out, 0, sizeof(*out));
    sim s;
    memset(&s, 0, sizeof(s));
    s.cfg = cfg;
    s.res = out;
    s.eng = cfg->engine;
    pl__sched_config_complete(&s.eng, cfg->memory_bytes,
                              s.eng.devices ? s.eng.devices : 1);
    s.budget = s.eng.budget_bytes;
    out->budget_bytes = s.budget;
    out->servers[PL__PLAN_SYNTH] = s.eng.synth_workers;
    out->servers[PL__PLAN_PROVE] = s.eng.prover_workers;
    out->servers[PL__PLAN_FINISH] = 1;
    pl__plan_reservation(&s.r, &cfg->bytes);
    uint64_t resident = pl__plan_resident(&cfg->bytes);
    out->resident_bytes = resident;
    out->partition_bytes = s.r.total;
    char b1[24], b2[24], b3[24], b4[24];
    uint64_t smallest = pl__sched_smallest_budget(resident, s.r.total);
    /* the engine's open (reserve_resident) and submission (never_fits) */
    if (!pl__sched_can_fit(s.budget, 0, resident))
        return pl__error_set(err, PL_EBUDGET, "the circuit's resident bytes "
                             "(%s) do not fit the budget of %s: the smallest "
                             "budget that works is %s",
                             pl_format_bytes(b1, sizeof(b1), resident),
                             pl_format_bytes(b2, sizeof(b2), s.budget),
                             pl_format_bytes(b3, sizeof(b3), smallest));
    if (!pl__sched_can_fit(s.budget, resident, s.r.total))
        return pl__error_set(err, PL_EBUDGET, "a partition needs %s but the "
                             "budget is %s and the circuit holds %s of it "
                             "resident: the smallest budget that works is %s",
                             pl_format_bytes(b1, sizeof(b1), s.r.total),
                             pl_format_bytes(b2, sizeof(b2), s.budget),
                             pl_format_bytes(b3, sizeof(b3), resident),
                             pl_format_bytes(b4, sizeof(b4), smallest));
    if (!cfg->jobs || !cfg->partitions || !cfg->duration)
        return pl__error_set(err, PL_EUSAGE, "plan: no jobs, no partitions "
                             "or no stage costs");
    s.n_parts = cfg->jobs * cfg->partitions;
    s.cap_heap = cfg->jobs + s.eng.synth_workers + s.eng.prover_workers + 8;
    s.heap = malloc(s.cap_heap * sizeof(event));
    s.parts = calloc(s.n_parts, sizeof(part));
    s.next_to_admit = calloc(cfg->jobs, sizeof(size_t));
    s.job_proved = calloc(cfg->jobs, sizeof(size_t));
    s.free_workers = calloc(s.eng.synth_workers, sizeof(unsigned));
    s.free_provers = calloc(s.eng.prover_workers, sizeof(unsigned));
    if (!s.heap || !s.parts || !s.next_to_admit || !s.job_proved ||
        !s.free_workers || !s.free_provers ||
        /* the story's policy can leave every partition waiting; the
         * queues behind it hold their capacities at most */
        !ring_init(&s.waiting, s.n_parts) ||
        !ring_init(&s.handoff, s.eng.handoff_slots) ||
        !ring_init(&s.finishing, s.eng.prover_workers) ||
        !ring_init(&s.blocked, s.eng.prover_workers)) {
        sim_free(&s);
        return pl__error_set(err, PL_ENOMEM, "plan: out of memory for %zu "
                             "partitions", s.n_parts);
    }
    for (size_t i = 0; i < s.n_parts; i++) {
        s.parts[i].job = (uint32_t)(i / cfg->partitions);
        s.parts[i].index = (uint32_t)(i % cfg->partitions);
        s.parts[i].stage = PL_STAGE_COUNT;
    }
    /* workers are taken from the top of the stack: worker 0 first */
    for (unsigned w = 0; w < s.eng.synth_workers; w++)
        s.free_workers[w] = s.eng.synth_workers - 1 - w;
    s.n_free_workers = s.eng.synth_workers;
    for (unsigned w = 0; w < s.eng.prover_workers; w++)
        s.free_provers[w] = s.eng.prover_workers - 1 - w;
    s.idle_provers = s.eng.prover_workers;

    if (cfg->ledger) { /* the engine's thread names, track for track */
        char name[32];
        pl__ledger_name_track(cfg->ledger, 0, "caller");
        for (unsigned w = 0; w < s.eng.synth_workers; w++) {
            snprintf(name, sizeof(name), "pl-synth-%u", w);
            pl__ledger_name_track(cfg->ledger, 1 + w, name);
        }
        for (unsigned w = 0; w < s.eng.prover_workers; w++) {
            snprintf(name, sizeof(name), "pl-prove-w%u", w);
            pl__ledger_name_track(cfg->ledger, 1 + s.eng.synth_workers + w,
                                  name);
        }
        pl__ledger_name_track(cfg->ledger,
                              1 + s.eng.synth_workers + s.eng.prover_workers,
                              "pl-finish");
        pl__ledger_set_baseline(cfg->ledger, cfg->baseline_bytes);
    }
    /* the circuit opens first: its resident bytes, reserved and held */
    s.reserved = resident;
    out->peak_reserved_bytes = resident;
    s.cls[PL_BUF_PARAMS] = cfg->bytes.key + cfg->bytes.vkey +
                           (cfg->bytes.prove.resident_bytes - cfg->bytes.csr);
    s.cls[PL_BUF_CSR] = cfg->bytes.csr;
    s.cls_count[PL_BUF_PARAMS] = 3;
    s.cls_count[PL_BUF_CSR] = 1;
    note_memory_peak(&s);

    for (size_t j = 0; j < cfg->jobs; j++)
        schedule(&s, (double)j * cfg->arrival_seconds, EV_ARRIVE, j);
    while (s.n_heap && !s.stopped) {
        event e = unschedule(&s);
        s.now = e.t;
        on_event(&s, &e);
        advance(&s);
    }
    out->wall_seconds = s.now;
    sim_free(&s);
    return PL_OK;
}
