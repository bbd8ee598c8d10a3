/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger's records, log lines and peaks (see ledger.h).  Records are
 * kept, when asked, in chunks well under 1 MiB each (so they are small
 * allocations outside the classes they report on).
 *
 * Lock order: lock (records, peaks, tracks), then log_lock (the log
 * stream).  Neither is held while calling the user's event callback, and
 * lock is not held while writing a line.
 */
#define _GNU_SOURCE
#include "ledger/ledger.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS_PER_CHUNK 1024
#define MAX_TRACKS 64

typedef struct chunk {
    struct chunk *next;
    size_t used;
    pl_ledger_record records[RECORDS_PER_CHUNK];
} chunk;

struct pl__ledger {
    pthread_mutex_t lock;
    pthread_mutex_t log_lock; /* taken while holding lock, held to write */
    pl_log_level level;
    FILE *log;
    pl_event_fn on_event;
    void *on_event_user;
    bool keep;
    double t0;
    uint64_t baseline;
    pl__ledger_peaks peaks;
    pl_ledger_record latest;
    chunk *first, *last;
    size_t n_kept;          /* records in the chunks */
    char *track_names[MAX_TRACKS];
    unsigned n_tracks;
};

static const char *const event_names[] = {
#define PL__EVENT_NAME(name, label) label,
    PL_EVENT_MAP(PL__EVENT_NAME)
#undef PL__EVENT_NAME
};

static const char *const stage_names[] = {
#define PL__STAGE_NAME(name, label) label,
    PL_STAGE_MAP(PL__STAGE_NAME)
#undef PL__STAGE_NAME
};

const char *pl_event_name(pl_event event)
{
    return (unsigned)event < PL_EV_COUNT ? event_names[event] : "sample";
}

const char *pl_stage_name(pl_stage stage)
{
    return (unsigned)stage < PL_STAGE_COUNT ? stage_names[stage] : "unknown";
}

uint64_t pl__ledger_read_rss(uint64_t *rss_file)
{
    FILE *f = fopen("/proc/self/status", "r");
    unsigned long long anon = 0, file = 0, v;
    if (f) {
        char line[256];
        while (fgets(line, sizeof(line), f)) {
            if (sscanf(line, "RssAnon: %llu kB", &v) == 1)
                anon = v;
            else if (sscanf(line, "RssFile: %llu kB", &v) == 1)
                file = v;
        }
        fclose(f);
    }
    if (rss_file)
        *rss_file = (uint64_t)file * 1024;
    return (uint64_t)anon * 1024;
}

pl_status pl__ledger_create(pl__ledger **out, const pl__ledger_config *cfg,
                            pl_error *err)
{
    *out = NULL;
    pl__ledger *l = calloc(1, sizeof(*l));
    if (!l)
        return pl__error_set(err, PL_ENOMEM, "ledger: out of memory");
    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->log_lock, NULL);
    l->level = cfg->level;
    l->log = cfg->log ? cfg->log : stderr;
    l->on_event = cfg->on_event;
    l->on_event_user = cfg->on_event_user;
    l->keep = cfg->keep_records;
    l->t0 = pl__now_seconds();
    l->baseline = pl__ledger_read_rss(NULL);
    l->peaks.baseline_rss_anon = l->baseline;
    *out = l;
    return PL_OK;
}

void pl__ledger_destroy(pl__ledger *l)
{
    if (!l)
        return;
    while (l->first) {
        chunk *c = l->first;
        l->first = c->next;
        free(c);
    }
    for (unsigned i = 0; i < MAX_TRACKS; i++)
        free(l->track_names[i]);
    pthread_mutex_destroy(&l->log_lock);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

void pl__ledger_name_track(pl__ledger *l, unsigned track, const char *name)
{
    if (track >= MAX_TRACKS)
        return;
    pthread_mutex_lock(&l->lock);
    free(l->track_names[track]);
    l->track_names[track] = strdup(name);
    if (track + 1 > l->n_tracks)
        l->n_tracks = track + 1;
    pthread_mutex_unlock(&l->lock);
}

const char *pl__ledger_track_name(pl__ledger *l, unsigned track)
{
    return track < MAX_TRACKS && l->track_names[track] ? l->track_names[track]
                                                        : "engine";
}

unsigned pl__ledger_track_count(pl__ledger *l)
{
    return l->n_tracks;
}

/* A signed byte count as the log writes it: "-" and the magnitude. */
static const char *format_signed_bytes(char *buf, size_t len, int64_t bytes)
{
    uint64_t magnitude = bytes < 0 ? (uint64_t)0 - (uint64_t)bytes
                                   : (uint64_t)bytes;
    buf[0] = '-';
    pl_format_bytes(buf + (bytes < 0), len - 1, magnitude);
    return buf;
}

/* The one log line format; docs/ledger.md defines it. */
#define LINE_BYTES 1024
static void format_line(char line[LINE_BYTES], const pl_ledger_record *r)
{
    static const struct {
        pl_buffer_class cls;
        const char *label;
    } shown[] = {{PL_BUF_WITNESS, "witness"}, {PL_BUF_ABC, "abc"},
                 {PL_BUF_H, "h"},             {PL_BUF_MSM_SCRATCH, "msm"},
                 {PL_BUF_PENDING, "pending"}};
    char b1[24], b2[24], b3[24], b4[24], b5[24], b6[24];
    size_t n = (size_t)snprintf(line, LINE_BYTES,
                                "ledger event=%s job=%llu part=%zu | stages",
                                pl_event_name(r->event),
                                (unsigned long long)r->job, r->partition);
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        n += (size_t)snprintf(line + n, LINE_BYTES - n, " %s=%llu",
                              pl_stage_name((pl_stage)s),
                              (unsigned long long)r->stage_now[s]);
    n += (size_t)snprintf(line + n, LINE_BYTES - n, " |");
    for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
        n += (size_t)snprintf(line + n, LINE_BYTES - n, " %s %llu/%s",
                              shown[i].label,
                              (unsigned long long)r->class_count[shown[i].cls],
                              pl_format_bytes(b1, sizeof(b1),
                                               r->class_bytes[shown[i].cls]));
    uint64_t resident = r->class_bytes[PL_BUF_PARAMS] + r->class_bytes[PL_BUF_CSR];
    n += (size_t)snprintf(
        line + n, LINE_BYTES - n,
        " resident %s | reserved %s/%s rss_anon %s untracked %s",
        pl_format_bytes(b2, sizeof(b2), resident),
        pl_format_bytes(b3, sizeof(b3), r->reserved_bytes),
        pl_format_bytes(b4, sizeof(b4), r->budget_bytes),
        pl_format_bytes(b5, sizeof(b5), r->rss_anon_bytes),
        format_signed_bytes(b6, sizeof(b6), r->untracked_bytes));
    /* With a GPU: what we hold there and in pinned host memory, beside what
     * its driver says is used (the difference is the CUDA context and
     * anything else on the device). */
    if (r->class_count[PL_BUF_DEVICE] || r->class_count[PL_BUF_PINNED] ||
        r->device_total_bytes)
        snprintf(line + n, LINE_BYTES - n,
                 " | gpu0 device %llu/%s pinned %llu/%s used %s/%s "
                 "untracked %s",
                 (unsigned long long)r->class_count[PL_BUF_DEVICE],
                 pl_format_bytes(b1, sizeof(b1), r->class_bytes[PL_BUF_DEVICE]),
                 (unsigned long long)r->class_count[PL_BUF_PINNED],
                 pl_format_bytes(b2, sizeof(b2), r->class_bytes[PL_BUF_PINNED]),
                 pl_format_bytes(b3, sizeof(b3), r->device_used_bytes),
                 pl_format_bytes(b4, sizeof(b4), r->device_total_bytes),
                 format_signed_bytes(b5, sizeof(b5),
                                     r->device_untracked_bytes));
}

void pl__ledger_record(pl__ledger *l, pl_event event, uint64_t job,
                       size_t partition, unsigned track,
                       const pl__ledger_state *state)
{
    pl_ledger_record r;
    memset(&r, 0, sizeof(r));
    r.event = event;
    r.job = job;
    r.partition = partition;
    r.track = track;
    memcpy(r.stage_now, state->stage_now, sizeof(r.stage_now));
    r.reserved_bytes = state->reserved_bytes;
    r.budget_bytes = state->budget_bytes;
    r.device_used_bytes = state->device_used_bytes;
    r.device_total_bytes = state->device_total_bytes;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        pl_alloc_stats s;
        pl_alloc_stats_read(&s, (pl_buffer_class)c, false);
        r.class_count[c] = s.live_count;
        r.class_bytes[c] = s.live_bytes;
        if (pl__alloc_class_is_host((pl_buffer_class)c))
            r.tracked_bytes += s.live_bytes;
    }
    r.rss_anon_bytes = pl__ledger_read_rss(&r.rss_file_bytes);
    r.untracked_bytes = (int64_t)r.rss_anon_bytes - (int64_t)r.tracked_bytes -
                        (int64_t)l->baseline;

    pthread_mutex_lock(&l->lock);
    /* Stamped under the lock, so records are kept (and "latest" moves) in
     * time order whatever the threads' interleaving. */
    r.t_seconds = pl__now_seconds() - l->t0;
    if (r.device_total_bytes) {
        r.device_untracked_bytes = (int64_t)r.device_used_bytes -
                                   (int64_t)r.class_bytes[PL_BUF_DEVICE] -
                                   (int64_t)state->device_used_at_open_bytes;
        if (r.device_untracked_bytes > l->peaks.device_untracked)
            l->peaks.device_untracked = r.device_untracked_bytes;
    }
    if (event < PL_EV_COUNT)
        l->peaks.events++;
    if (r.rss_anon_bytes > l->peaks.rss_anon)
        l->peaks.rss_anon = r.rss_anon_bytes;
    if (r.rss_file_bytes > l->peaks.rss_file)
        l->peaks.rss_file = r.rss_file_bytes;
    if (r.untracked_bytes > l->peaks.untracked)
        l->peaks.untracked = r.untracked_bytes;
    l->latest = r;
    if (l->keep) {
        if (!l->last || l->last->used == RECORDS_PER_CHUNK) {
            chunk *c = malloc(sizeof(*c));
            if (c) { /* without memory the timeline has a gap, nothing worse */
                c->next = NULL;
                c->used = 0;
                if (l->last)
                    l->last->next = c;
                else
                    l->first = c;
                l->last = c;
            }
        }
        if (l->last && l->last->used < RECORDS_PER_CHUNK) {
            l->last->records[l->last->used++] = r;
            l->n_kept++;
        }
    }
    bool log = event < PL_EV_COUNT && l->level >= PL_LOG_INFO;
    char line[LINE_BYTES];
    if (log) {
        /* The write happens outside the ledger's lock (a stalled stderr must
         * not stall every thread that records); taking log_lock before
         * letting go of lock keeps the lines in record order. */
        format_line(line, &r);
        pthread_mutex_lock(&l->log_lock);
    }
    pthread_mutex_unlock(&l->lock);
    if (log) {
        fprintf(l->log, "%s\n", line);
        pthread_mutex_unlock(&l->log_lock);
    }
    if (event < PL_EV_COUNT && l->on_event)
        l->on_event(l->on_event_user, &r);
}

void pl__ledger_read_peaks(pl__ledger *l, pl__ledger_peaks *out)
{
    pthread_mutex_lock(&l->lock);
    *out = l->peaks;
    pthread_mutex_unlock(&l->lock);
}

void pl__ledger_latest(pl__ledger *l, pl_ledger_record *out)
{
    pthread_mutex_lock(&l->lock);
    *out = l->latest;
    pthread_mutex_unlock(&l->lock);
}

size_t pl__ledger_count(pl__ledger *l)
{
    pthread_mutex_lock(&l->lock);
    size_t n = l->n_kept;
    pthread_mutex_unlock(&l->lock);
    return n;
}

void pl__ledger_each(pl__ledger *l, size_t count, pl__record_visit fn,
                     void *ctx)
{
    /* Records are only appended, and a chunk's first `used` records never
     * change: the first `count` can be read without the lock, chunk by
     * chunk, while the sampler keeps appending behind them. */
    pthread_mutex_lock(&l->lock);
    chunk *c = l->first;
    pthread_mutex_unlock(&l->lock);
    for (size_t seen = 0; c && seen < count;) {
        size_t n = count - seen < RECORDS_PER_CHUNK ? count - seen
                                                    : RECORDS_PER_CHUNK;
        for (size_t i = 0; i < n; i++)
            if (!fn(ctx, &c->records[i]))
                return;
        seen += n;
        pthread_mutex_lock(&l->lock);
        c = c->next;
        pthread_mutex_unlock(&l->lock);
    }
}
