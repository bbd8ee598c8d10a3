/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one Chrome-trace writer (see trace.h), and the ledger's timeline
 * through it (pl__ledger_write_trace: --trace).  Per partition: spans
 * synth and proving on the track of the thread that ran them, deliver on
 * the finisher's, and async spans waiting (synthesized, in the hand-off)
 * and finishing (started, waiting for or in prove_finish), which cross
 * threads; inside them the prover's stages (synthesize; ntt, h and each
 * MSM inside proving; g2_join and assemble on the finisher), and the G2
 * MSM on a pl-g2msm track of its own.  Failures are instants with their
 * reason.  Counter tracks: bytes per class, reserved and budget, RSS.
 * Every value goes through the one JSON writer (formats/json.h).  The
 * ledger's file is written through pl__output (a temporary file, fsynced,
 * renamed), so it is valid JSON whatever happened to the run.
 */
#include "ledger/trace.h"
#include "util/error.h"
#include "util/file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t job;
    size_t part;
    bool seen[PL_EV_COUNT];
    double t[PL_EV_COUNT];
    unsigned track[PL_EV_COUNT];
    /* the end of the prover's last stage of the proof's start (its G1
     * sums), on the thread that started it: where proving ends (a/b/c are
     * freed, abc_freed, inside it) */
    double start_end;
} partition_times;

typedef struct {
    partition_times *items;
    size_t n, cap;
} times_table;

/* A growing array with room for item n: items as it is or reallocated
 * (the capacity doubling from 64), NULL without memory (items is then
 * still the caller's to free). */
static void *room_for(void *items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return items;
    size_t grown_cap = *cap ? *cap * 2 : 64;
    void *grown = realloc(items, grown_cap * size);
    if (grown)
        *cap = grown_cap;
    return grown;
}

/* The G2 MSMs: one per proof, on threads that come and go and may
 * overlap, shown on as few pl-g2msm tracks as keep each track's spans
 * apart. */
typedef struct {
    pl__ledger_span *items;
    size_t n, cap;
} span_list;

typedef struct {
    pl__jw *w;
    const pl__trace_source *src;
    times_table times;
    span_list helpers;
    double from_us;      /* records before this are left out */
    unsigned next_track; /* the first track number not used yet */
    const char **extra_tracks; /* names of the extra spans' tracks */
    size_t n_extra_tracks, cap_extra_tracks;
    bool failed;         /* a table could not grow */
} trace_ctx;

static partition_times *times_for(trace_ctx *ctx, uint64_t job, size_t part)
{
    times_table *tt = &ctx->times;
    for (size_t i = tt->n; i-- > 0;)
        if (tt->items[i].job == job && tt->items[i].part == part)
            return &tt->items[i];
    partition_times *items = room_for(tt->items, tt->n, &tt->cap,
                                      sizeof(*items));
    if (!items) {
        ctx->failed = true;
        return NULL;
    }
    tt->items = items;
    partition_times *p = &tt->items[tt->n++];
    memset(p, 0, sizeof(*p));
    p->job = job;
    p->part = part;
    return p;
}

/* Microseconds at the trace's resolution (0.1 us).  Every time is rounded
 * before a span's duration is taken, so a span that ends inside another
 * still does in the file. */
static double to_us(double seconds)
{
    return round(seconds * 1e7) / 10.0;
}

/* The start of an event object: its name, phase and time. */
static void event(trace_ctx *ctx, const char *name, const char *ph,
                  double ts)
{
    pl__jw *w = ctx->w;
    pl__jw_newline(w);
    pl__jw_object(w);
    pl__jw_key_str(w, "name", name);
    pl__jw_key_str(w, "ph", ph);
    pl__jw_key_f64(w, "ts", ts, 1);
    pl__jw_key_u64(w, "pid", 1);
}

static void ids(trace_ctx *ctx, uint64_t job, size_t part)
{
    if (ctx->src->ids) {
        ctx->src->ids(ctx->src->user, ctx->w, job, part);
        return;
    }
    pl__jw_key_u64(ctx->w, "job", job);
    pl__jw_key_u64(ctx->w, "part", part);
}

static void thread_name(trace_ctx *ctx, unsigned tid, const char *name)
{
    pl__jw *w = ctx->w;
    pl__jw_newline(w);
    pl__jw_object(w);
    pl__jw_key_str(w, "name", "thread_name");
    pl__jw_key_str(w, "ph", "M");
    pl__jw_key_u64(w, "pid", 1);
    pl__jw_key_u64(w, "tid", tid);
    pl__jw_key(w, "args");
    pl__jw_object(w);
    pl__jw_key_str(w, "name", name);
    pl__jw_end_object(w);
    pl__jw_end_object(w);
}

static bool newest_record(void *arg, const pl_ledger_record *r)
{
    double *newest = arg;
    if (r->t_seconds > *newest)
        *newest = r->t_seconds;
    return true;
}

static bool emit_record(void *arg, const pl_ledger_record *r)
{
    trace_ctx *ctx = arg;
    pl__jw *w = ctx->w;
    double us = to_us(r->t_seconds);
    if (us < ctx->from_us)
        return true;
    /* counters at every record, events and samples alike */
    event(ctx, "bytes by class", "C", us);
    pl__jw_key(w, "args");
    pl__jw_object(w);
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        pl__jw_key_u64(w, pl_buffer_class_name((pl_buffer_class)c),
                       r->class_bytes[c]);
    pl__jw_end_object(w);
    pl__jw_end_object(w);
    event(ctx, "reserved", "C", us);
    pl__jw_key(w, "args");
    pl__jw_object(w);
    pl__jw_key_u64(w, "reserved", r->reserved_bytes);
    pl__jw_key_u64(w, "budget", r->budget_bytes);
    pl__jw_end_object(w);
    pl__jw_end_object(w);
    event(ctx, "rss", "C", us);
    pl__jw_key(w, "args");
    pl__jw_object(w);
    pl__jw_key_u64(w, "rss_anon", r->rss_anon_bytes);
    pl__jw_key_u64(w, "rss_file", r->rss_file_bytes);
    pl__jw_key_u64(w, "rss", r->rss_anon_bytes + r->rss_file_bytes);
    pl__jw_key_u64(w, "tracked", r->tracked_bytes);
    pl__jw_end_object(w);
    pl__jw_end_object(w);
    if (r->event >= PL_EV_COUNT)
        return true;
    partition_times *p = times_for(ctx, r->job, r->partition);
    if (p) {
        p->seen[r->event] = true;
        p->t[r->event] = us;
        p->track[r->event] = r->track;
    }
    if (r->event == PL_EV_FAILED || r->event == PL_EV_CANCELLED) {
        event(ctx, pl_event_name(r->event), "i", us);
        pl__jw_key_str(w, "s", "t");
        pl__jw_key_u64(w, "tid", r->track);
        pl__jw_key(w, "args");
        pl__jw_object(w);
        ids(ctx, r->job, r->partition);
        pl__jw_key_str(w, "reason", r->reason);
        if (r->witness[0])
            pl__jw_key_str(w, "witness", r->witness);
        pl__jw_end_object(w);
        pl__jw_end_object(w);
    }
    return !ctx->failed;
}

/* A complete span from ts to end (both in rounded microseconds). */
static void complete(trace_ctx *ctx, const char *name, const char *cat,
                     double ts, double end, unsigned tid, uint64_t job,
                     size_t part)
{
    pl__jw *w = ctx->w;
    pl__jw_newline(w);
    pl__jw_object(w);
    pl__jw_key_str(w, "name", name);
    pl__jw_key_str(w, "cat", cat);
    pl__jw_key_str(w, "ph", "X");
    pl__jw_key_f64(w, "ts", ts, 1);
    pl__jw_key_f64(w, "dur", end - ts, 1);
    pl__jw_key_u64(w, "pid", 1);
    pl__jw_key_u64(w, "tid", tid);
    pl__jw_key(w, "args");
    pl__jw_object(w);
    ids(ctx, job, part);
    pl__jw_end_object(w);
    pl__jw_end_object(w);
}

static void span(trace_ctx *ctx, const partition_times *p, const char *name,
                 pl_event from, pl_event to)
{
    if (!p->seen[from] || !p->seen[to])
        return;
    complete(ctx, name, "partition", p->t[from], p->t[to], p->track[from],
             p->job, p->part);
}

static void async_span(trace_ctx *ctx, const partition_times *p,
                       const char *name, pl_event from, pl_event to)
{
    if (!p->seen[from] || !p->seen[to])
        return;
    pl__jw *w = ctx->w;
    char id[48];
    snprintf(id, sizeof(id), "%llu.%zu", (unsigned long long)p->job,
             p->part);
    for (int end = 0; end < 2; end++) {
        pl__jw_newline(w);
        pl__jw_object(w);
        pl__jw_key_str(w, "name", name);
        pl__jw_key_str(w, "cat", name);
        pl__jw_key_str(w, "ph", end ? "e" : "b");
        pl__jw_key_f64(w, "ts", end ? p->t[to] : p->t[from], 1);
        pl__jw_key_u64(w, "pid", 1);
        pl__jw_key_u64(w, "tid", end ? p->track[to] : p->track[from]);
        pl__jw_key_str(w, "id", id);
        pl__jw_key(w, "args");
        pl__jw_object(w);
        ids(ctx, p->job, p->part);
        pl__jw_end_object(w);
        pl__jw_end_object(w);
    }
}

/* The start's stages end where the proof's proving ends: a stage on the
 * track of its prove_start, after it, before prove_done. */
static bool note_start_stage(void *arg, const pl__ledger_span *s)
{
    trace_ctx *ctx = arg;
    if (s->helper)
        return true;
    for (size_t i = ctx->times.n; i-- > 0;) {
        partition_times *p = &ctx->times.items[i];
        if (p->job != s->job || p->part != s->partition)
            continue;
        double start = to_us(s->start), end = to_us(s->end);
        if (p->seen[PL_EV_PROVE_START] &&
            s->track == p->track[PL_EV_PROVE_START] &&
            start >= p->t[PL_EV_PROVE_START] &&
            (!p->seen[PL_EV_PROVE_DONE] || end <= p->t[PL_EV_PROVE_DONE]) &&
            end > p->start_end)
            p->start_end = end;
        break;
    }
    return true;
}

/* Proving: from prove_start to the end of the start's stages (or its
 * abc_freed, if later); then finishing, to prove_done. */
static void proving_spans(trace_ctx *ctx, const partition_times *p)
{
    if (!p->seen[PL_EV_PROVE_START] || !p->seen[PL_EV_ABC_FREED])
        return;
    partition_times q = *p;
    if (q.start_end > q.t[PL_EV_ABC_FREED])
        q.t[PL_EV_ABC_FREED] = q.start_end;
    q.track[PL_EV_ABC_FREED] = q.track[PL_EV_PROVE_START];
    span(ctx, &q, "proving", PL_EV_PROVE_START, PL_EV_ABC_FREED);
    async_span(ctx, &q, "finishing", PL_EV_ABC_FREED, PL_EV_PROVE_DONE);
}

static const char *stage_name(trace_ctx *ctx, unsigned name)
{
    const char *s = ctx->src->span_name
                        ? ctx->src->span_name(ctx->src->user, name) : NULL;
    return s ? s : "stage";
}

/* A stage on its engine thread's track; a helper thread's (the G2 MSM's)
 * is kept for the pl-g2msm tracks. */
static bool emit_stage(void *arg, const pl__ledger_span *s)
{
    trace_ctx *ctx = arg;
    if (to_us(s->end) < ctx->from_us)
        return true;
    if (!s->helper) {
        complete(ctx, stage_name(ctx, s->name), "stage", to_us(s->start),
                 to_us(s->end), s->track, s->job, s->partition);
        return true;
    }
    span_list *h = &ctx->helpers;
    pl__ledger_span *items = room_for(h->items, h->n, &h->cap, sizeof(*items));
    if (!items) {
        ctx->failed = true;
        return false;
    }
    h->items = items;
    h->items[h->n++] = *s;
    return true;
}

static int by_start(const void *a, const void *b)
{
    const pl__ledger_span *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* The G2 MSMs in order of start, each on the first pl-g2msm track free by
 * then (tracks numbered after the engine's). */
static void emit_helpers(trace_ctx *ctx)
{
    span_list *h = &ctx->helpers;
    if (!h->n)
        return;
    double *lane_end = calloc(h->n, sizeof(double));
    if (!lane_end) {
        ctx->failed = true;
        return;
    }
    qsort(h->items, h->n, sizeof(*h->items), by_start);
    unsigned base = ctx->next_track, lanes = 0;
    for (size_t i = 0; i < h->n; i++) {
        const pl__ledger_span *s = &h->items[i];
        double start = to_us(s->start), end = to_us(s->end);
        unsigned lane = 0;
        while (lane < lanes && lane_end[lane] > start)
            lane++;
        if (lane == lanes)
            lanes++;
        lane_end[lane] = end;
        complete(ctx, stage_name(ctx, s->name), "stage", start, end,
                 base + lane, s->job, s->partition);
    }
    for (unsigned lane = 0; lane < lanes; lane++) {
        char name[32];
        snprintf(name, sizeof(name), "pl-g2msm-%u", lane);
        thread_name(ctx, base + lane, name);
    }
    ctx->next_track = base + lanes;
    free(lane_end);
}

/* An extra span on the track of its name (numbered at its first span). */
static bool emit_extra(void *arg, const pl__trace_extra *x)
{
    trace_ctx *ctx = arg;
    double start = to_us(x->start_s), end = to_us(x->end_s);
    if (end < ctx->from_us)
        return true;
    size_t t = 0;
    while (t < ctx->n_extra_tracks &&
           strcmp(ctx->extra_tracks[t], x->track) != 0)
        t++;
    if (t == ctx->n_extra_tracks) {
        const char **grown = room_for(ctx->extra_tracks, t,
                                      &ctx->cap_extra_tracks,
                                      sizeof(*grown));
        if (!grown) {
            ctx->failed = true;
            return false;
        }
        ctx->extra_tracks = grown;
        ctx->extra_tracks[ctx->n_extra_tracks++] = x->track;
        thread_name(ctx, ctx->next_track + (unsigned)t, x->track);
    }
    pl__jw *w = ctx->w;
    pl__jw_newline(w);
    pl__jw_object(w);
    pl__jw_key_str(w, "name", x->name);
    pl__jw_key_str(w, "cat", x->track);
    pl__jw_key_str(w, "ph", "X");
    pl__jw_key_f64(w, "ts", start, 1);
    pl__jw_key_f64(w, "dur", end - start, 1);
    pl__jw_key_u64(w, "pid", 1);
    pl__jw_key_u64(w, "tid", ctx->next_track + (unsigned)t);
    pl__jw_key(w, "args");
    pl__jw_object(w);
    if (x->arg_key)
        pl__jw_key_str(w, x->arg_key, x->arg_value);
    pl__jw_end_object(w);
    pl__jw_end_object(w);
    return true;
}

pl_status pl__trace_write(pl__jw *w, const pl__trace_source *src,
                          pl_error *err)
{
    trace_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.w = w;
    ctx.src = src;
    ctx.next_track = src->n_tracks;
    ctx.from_us = -INFINITY;
    if (src->since_s > 0) {
        double newest = 0;
        src->each_record(src->user, newest_record, &newest);
        ctx.from_us = to_us(newest - src->since_s);
    }
    pl__jw_object(w);
    pl__jw_key_str(w, "displayTimeUnit", "ms");
    pl__jw_key(w, "traceEvents");
    pl__jw_array(w);
    if (src->process) {
        pl__jw_newline(w);
        pl__jw_object(w);
        pl__jw_key_str(w, "name", "process_name");
        pl__jw_key_str(w, "ph", "M");
        pl__jw_key_u64(w, "pid", 1);
        pl__jw_key(w, "args");
        pl__jw_object(w);
        pl__jw_key_str(w, "name", src->process);
        pl__jw_end_object(w);
        pl__jw_end_object(w);
    }
    for (unsigned t = 0; t < src->n_tracks; t++)
        thread_name(&ctx, t, src->track_name(src->user, t));
    src->each_record(src->user, emit_record, &ctx);
    if (src->each_span)
        src->each_span(src->user, note_start_stage, &ctx);
    for (size_t i = 0; i < ctx.times.n; i++) {
        const partition_times *p = &ctx.times.items[i];
        span(&ctx, p, "synth", PL_EV_SYNTH_START, PL_EV_SYNTH_DONE);
        async_span(&ctx, p, "waiting", PL_EV_SYNTH_DONE, PL_EV_PROVE_START);
        proving_spans(&ctx, p);
        span(&ctx, p, "deliver", PL_EV_PROVE_DONE, PL_EV_DEALLOC_DONE);
    }
    if (src->each_span)
        src->each_span(src->user, emit_stage, &ctx);
    emit_helpers(&ctx);
    if (src->each_extra)
        src->each_extra(src->user, emit_extra, &ctx);
    pl__jw_newline(w);
    pl__jw_end_array(w);
    pl__jw_end_object(w);
    free(ctx.times.items);
    free(ctx.helpers.items);
    free(ctx.extra_tracks);
    if (ctx.failed)
        return pl__error_errno(err, PL_ENOMEM, ENOMEM,
                               "the trace: out of memory");
    return PL_OK;
}

/* ---- the ledger's timeline ------------------------------------------------ */

/* One snapshot of the ledger: a span kept after the records were counted
 * may belong to a partition whose events are not in them, which is
 * harmless. */
typedef struct {
    pl__ledger *ledger;
    size_t n_records, n_spans;
} ledger_view;

static const char *ledger_track(void *user, unsigned t)
{
    return pl__ledger_track_name(((ledger_view *)user)->ledger, t);
}

static void ledger_records(void *user, pl__record_visit fn, void *ctx)
{
    ledger_view *v = user;
    pl__ledger_each(v->ledger, v->n_records, fn, ctx);
}

static void ledger_spans(void *user, pl__span_visit fn, void *ctx)
{
    ledger_view *v = user;
    pl__ledger_each_span(v->ledger, v->n_spans, fn, ctx);
}

static const char *ledger_span_name(void *user, unsigned name)
{
    return pl__ledger_span_name(((ledger_view *)user)->ledger, name);
}

pl_status pl__ledger_write_trace(pl__ledger *l, const char *path,
                                 pl_error *err)
{
    pl__output out;
    pl_status st = pl__output_open(&out, path, err);
    if (st != PL_OK)
        return st;
    ledger_view view = {l, pl__ledger_count(l), pl__ledger_span_count(l)};
    pl__trace_source src = {
        .n_tracks = pl__ledger_track_count(l),
        .track_name = ledger_track,
        .each_record = ledger_records,
        .each_span = ledger_spans,
        .span_name = ledger_span_name,
        .user = &view,
    };
    pl__jw w;
    pl__jw_to_stream(&w, out.f, true);
    st = pl__trace_write(&w, &src, err);
    fputc('\n', out.f);
    if (st == PL_OK && w.failed)
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot write the "
                             "trace", path);
    if (st != PL_OK) {
        pl__output_abort(&out);
        return st;
    }
    return pl__output_commit(&out, err);
}
