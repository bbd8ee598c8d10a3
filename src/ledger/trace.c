/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger's timeline as Chrome trace event JSON (opened by Perfetto and
 * chrome://tracing).  Per partition: spans synth and proving on the track of
 * the thread that ran them, deliver on the finisher's, and async spans
 * waiting (synthesized, in the hand-off) and finishing (started, waiting
 * for or in prove_finish), which cross threads.  Counter tracks: bytes per
 * class, reserved and budget, RSS.  Written through pl__output (a
 * temporary file, fsynced, renamed), so the file is valid JSON whatever
 * happened to the run.
 */
#include "ledger/ledger.h"
#include "util/error.h"
#include "util/file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t job;
    size_t part;
    bool seen[PL_EV_COUNT];
    double t[PL_EV_COUNT];
    unsigned track[PL_EV_COUNT];
} partition_times;

typedef struct {
    partition_times *items;
    size_t n, cap;
    bool failed;
} times_table;

static partition_times *times_for(times_table *tt, uint64_t job, size_t part)
{
    for (size_t i = tt->n; i-- > 0;)
        if (tt->items[i].job == job && tt->items[i].part == part)
            return &tt->items[i];
    if (tt->n == tt->cap) {
        size_t cap = tt->cap ? tt->cap * 2 : 64;
        partition_times *grown = realloc(tt->items, cap * sizeof(*grown));
        if (!grown) {
            tt->failed = true;
            return NULL;
        }
        tt->items = grown;
        tt->cap = cap;
    }
    partition_times *p = &tt->items[tt->n++];
    memset(p, 0, sizeof(*p));
    p->job = job;
    p->part = part;
    return p;
}

typedef struct {
    FILE *f;
    times_table times;
    bool first;
} trace_ctx;

static void sep(trace_ctx *ctx)
{
    fputs(ctx->first ? "\n" : ",\n", ctx->f);
    ctx->first = false;
}

static bool emit_record(void *arg, const pl_ledger_record *r)
{
    trace_ctx *ctx = arg;
    double us = r->t_seconds * 1e6;
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
            "\"args\":{\"rss_anon\":%llu,\"rss_file\":%llu,\"tracked\":%llu}}",
            us, (unsigned long long)r->rss_anon_bytes,
            (unsigned long long)r->rss_file_bytes,
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
                "\"pid\":1,\"tid\":%u,\"args\":{\"job\":%llu,\"part\":%zu}}",
                pl_event_name(r->event), us, r->track,
                (unsigned long long)r->job, r->partition);
    }
    return true;
}

static void span(trace_ctx *ctx, const partition_times *p, const char *name,
                 pl_event from, pl_event to)
{
    if (!p->seen[from] || !p->seen[to])
        return;
    sep(ctx);
    fprintf(ctx->f, "{\"name\":\"%s\",\"cat\":\"partition\",\"ph\":\"X\","
            "\"ts\":%.1f,\"dur\":%.1f,\"pid\":1,\"tid\":%u,\"args\":{\"job\":"
            "%llu,\"part\":%zu}}", name, p->t[from], p->t[to] - p->t[from],
            p->track[from], (unsigned long long)p->job, p->part);
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

pl_status pl__ledger_write_trace(pl__ledger *l, const char *path,
                                 pl_error *err)
{
    pl__output out;
    pl_status st = pl__output_open(&out, path, err);
    if (st != PL_OK)
        return st;
    FILE *f = out.f;
    trace_ctx ctx = {f, {NULL, 0, 0, false}, true};
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
    for (unsigned t = 0; t < pl__ledger_track_count(l); t++) {
        sep(&ctx);
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
                "\"args\":{\"name\":\"%s\"}}", t, pl__ledger_track_name(l, t));
    }
    pl__ledger_each(l, pl__ledger_count(l), emit_record, &ctx);
    for (size_t i = 0; i < ctx.times.n; i++) {
        const partition_times *p = &ctx.times.items[i];
        span(&ctx, p, "synth", PL_EV_SYNTH_START, PL_EV_SYNTH_DONE);
        async_span(&ctx, p, "waiting", PL_EV_SYNTH_DONE, PL_EV_PROVE_START);
        span(&ctx, p, "proving", PL_EV_PROVE_START, PL_EV_ABC_FREED);
        async_span(&ctx, p, "finishing", PL_EV_ABC_FREED, PL_EV_PROVE_DONE);
        span(&ctx, p, "deliver", PL_EV_PROVE_DONE, PL_EV_DEALLOC_DONE);
    }
    fputs("\n]}\n", f);
    free(ctx.times.items);
    if (ctx.times.failed) {
        pl__output_abort(&out);
        return pl__error_errno(err, PL_EIO, ENOMEM,
                               "%s: cannot write the trace", path);
    }
    return pl__output_commit(&out, err);
}
