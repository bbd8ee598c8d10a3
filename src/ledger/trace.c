/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger's timeline as Chrome trace event JSON (opened by Perfetto and
 * chrome://tracing).  Per partition: spans synth and proving on the track of
 * the thread that ran them, deliver on the finisher's, and async spans
 * waiting (synthesized, in the hand-off) and finishing (started, waiting
 * for or in prove_finish), which cross threads; inside them the prover's
 * stages (synthesize; ntt, h and each MSM inside proving; g2_join and
 * assemble on the finisher), and the G2 MSM on a pl-g2msm track of its
 * own.  Failures are instants with their reason.  Counter tracks: bytes per
 * class, reserved and budget, RSS.  Written through pl__output (a
 * temporary file, fsynced, renamed), so the file is valid JSON whatever
 * happened to the run.
 */
#include "ledger/ledger.h"
#include "formats/json.h"
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
    bool failed;
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

static partition_times *times_for(times_table *tt, uint64_t job, size_t part)
{
    for (size_t i = tt->n; i-- > 0;)
        if (tt->items[i].job == job && tt->items[i].part == part)
            return &tt->items[i];
    partition_times *items = room_for(tt->items, tt->n, &tt->cap,
                                      sizeof(*items));
    if (!items) {
        tt->failed = true;
        return NULL;
    }
    tt->items = items;
    partition_times *p = &tt->items[tt->n++];
    memset(p, 0, sizeof(*p));
    p->job = job;
    p->part = part;
    return p;
}

/* The G2 MSMs: one per proof, on threads that come and go and may
 * overlap, shown on as few pl-g2msm tracks as keep each track's spans
 * apart. */
typedef struct {
    pl__ledger_span *items;
    size_t n, cap;
} span_list;

typedef struct {
    FILE *f;
    pl__ledger *ledger;
    times_table times;
    span_list helpers;
    bool first, failed;
} trace_ctx;

static void sep(trace_ctx *ctx)
{
    fputs(ctx->first ? "\n" : ",\n", ctx->f);
    ctx->first = false;
}

/* Microseconds at the trace's resolution (0.1 us).  Every time is rounded
 * before a span's duration is taken, so a span that ends inside another
 * still does in the file. */
static double to_us(double seconds)
{
    return round(seconds * 1e7) / 10.0;
}

static bool emit_record(void *arg, const pl_ledger_record *r)
{
    trace_ctx *ctx = arg;
    double us = to_us(r->t_seconds);
    /* counters at every record, events and samples alike */
    sep(ctx);
    fprintf(ctx->f, "{\"name\":\"bytes by class\",\"ph\":\"C\",\"ts\":%.1f,"
            "\"pid\":1,\"args\":{", us);
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        fprintf(ctx->f, "%s\"%s\":%llu", c ? "," : "",
                pl_buffer_class_name((pl_buffer_class)c),
                (unsigned long long)r->class_bytes[c]);
    fputs("}}", ctx->f);
    sep(ctx);
    fprintf(ctx->f, "{\"name\":\"reserved\",\"ph\":\"C\",\"ts\":%.1f,\"pid\":1,"
            "\"args\":{\"reserved\":%llu,\"budget\":%llu}}", us,
            (unsigned long long)r->reserved_bytes,
            (unsigned long long)r->budget_bytes);
    sep(ctx);
    fprintf(ctx->f, "{\"name\":\"rss\",\"ph\":\"C\",\"ts\":%.1f,\"pid\":1,"
            "\"args\":{\"rss_anon\":%llu,\"rss_file\":%llu,\"rss\":%llu,"
            "\"tracked\":%llu}}", us, (unsigned long long)r->rss_anon_bytes,
            (unsigned long long)r->rss_file_bytes,
            (unsigned long long)(r->rss_anon_bytes + r->rss_file_bytes),
            (unsigned long long)r->tracked_bytes);
    if (r->event >= PL_EV_COUNT)
        return true;
    partition_times *p = times_for(&ctx->times, r->job, r->partition);
    if (p) {
        p->seen[r->event] = true;
        p->t[r->event] = us;
        p->track[r->event] = r->track;
    }
    if (r->event == PL_EV_FAILED || r->event == PL_EV_CANCELLED) {
        sep(ctx);
        fprintf(ctx->f, "{\"name\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.1f,"
                "\"pid\":1,\"tid\":%u,\"args\":{\"job\":%llu,\"part\":%zu,"
                "\"reason\":", pl_event_name(r->event), us, r->track,
                (unsigned long long)r->job, r->partition);
        pl__json_fputs(ctx->f, r->reason);
        if (r->witness[0]) {
            fputs(",\"witness\":", ctx->f);
            pl__json_fputs(ctx->f, r->witness);
        }
        fputs("}}", ctx->f);
    }
    return true;
}

/* A complete span from ts to end (both in rounded microseconds). */
static void complete(trace_ctx *ctx, const char *name, const char *cat,
                     double ts, double end, unsigned tid, uint64_t job,
                     size_t part)
{
    sep(ctx);
    fprintf(ctx->f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\","
            "\"ts\":%.1f,\"dur\":%.1f,\"pid\":1,\"tid\":%u,\"args\":{\"job\":"
            "%llu,\"part\":%zu}}", name, cat, ts, end - ts, tid,
            (unsigned long long)job, part);
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
    for (int end = 0; end < 2; end++) {
        sep(ctx);
        fprintf(ctx->f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\","
                "\"ts\":%.1f,\"pid\":1,\"tid\":%u,\"id\":\"%llu.%zu\","
                "\"args\":{\"job\":%llu,\"part\":%zu}}", name, name,
                end ? "e" : "b", end ? p->t[to] : p->t[from],
                end ? p->track[to] : p->track[from],
                (unsigned long long)p->job, p->part,
                (unsigned long long)p->job, p->part);
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

/* A stage on its engine thread's track; a helper thread's (the G2 MSM's)
 * is kept for the pl-g2msm tracks. */
static bool emit_stage(void *arg, const pl__ledger_span *s)
{
    trace_ctx *ctx = arg;
    if (!s->helper) {
        complete(ctx, pl__ledger_span_name(ctx->ledger, s->name), "stage",
                 to_us(s->start), to_us(s->end), s->track, s->job,
                 s->partition);
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
    unsigned base = pl__ledger_track_count(ctx->ledger), lanes = 0;
    for (size_t i = 0; i < h->n; i++) {
        const pl__ledger_span *s = &h->items[i];
        double start = to_us(s->start), end = to_us(s->end);
        unsigned lane = 0;
        while (lane < lanes && lane_end[lane] > start)
            lane++;
        if (lane == lanes)
            lanes++;
        lane_end[lane] = end;
        complete(ctx, pl__ledger_span_name(ctx->ledger, s->name), "stage",
                 start, end, base + lane, s->job, s->partition);
    }
    for (unsigned lane = 0; lane < lanes; lane++) {
        sep(ctx);
        fprintf(ctx->f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
                "\"tid\":%u,\"args\":{\"name\":\"pl-g2msm-%u\"}}", base + lane,
                lane);
    }
    free(lane_end);
}

pl_status pl__ledger_write_trace(pl__ledger *l, const char *path,
                                 pl_error *err)
{
    pl__output out;
    pl_status st = pl__output_open(&out, path, err);
    if (st != PL_OK)
        return st;
    FILE *f = out.f;
    trace_ctx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.f = f;
    ctx.ledger = l;
    ctx.first = true;
    /* one snapshot: a span kept after the records were counted may belong
     * to a partition whose events are not in them, which is harmless */
    size_t n_records = pl__ledger_count(l), n_spans = pl__ledger_span_count(l);
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
    for (unsigned t = 0; t < pl__ledger_track_count(l); t++) {
        sep(&ctx);
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                "\"args\":{\"name\":\"%s\"}}", t, pl__ledger_track_name(l, t));
    }
    pl__ledger_each(l, n_records, emit_record, &ctx);
    pl__ledger_each_span(l, n_spans, note_start_stage, &ctx);
    for (size_t i = 0; i < ctx.times.n; i++) {
        const partition_times *p = &ctx.times.items[i];
        span(&ctx, p, "synth", PL_EV_SYNTH_START, PL_EV_SYNTH_DONE);
        async_span(&ctx, p, "waiting", PL_EV_SYNTH_DONE, PL_EV_PROVE_START);
        proving_spans(&ctx, p);
        span(&ctx, p, "deliver", PL_EV_PROVE_DONE, PL_EV_DEALLOC_DONE);
    }
    pl__ledger_each_span(l, n_spans, emit_stage, &ctx);
    emit_helpers(&ctx);
    fputs("\n]}\n", f);
    free(ctx.times.items);
    free(ctx.helpers.items);
    if (ctx.times.failed || ctx.failed) {
        pl__output_abort(&out);
        return pl__error_errno(err, PL_EIO, ENOMEM,
                               "%s: cannot write the trace", path);
    }
    return pl__output_commit(&out, err);
}
