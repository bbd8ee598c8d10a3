/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger's records, spans, log lines and peaks (see ledger.h).  Records
 * and spans are kept, when asked, in chunks of CHUNK_BYTES (small
 * allocations, outside the classes they report on).
 *
 * Lock order: lock (records, spans, peaks, tracks, span names), then
 * log_lock (the log stream).  Neither is held while calling the user's
 * event callback, and lock is not held while writing a line.
 */
#define _GNU_SOURCE
#include "ledger/ledger.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/lock.h"

#include <assert.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK_BYTES (320u * 1024)
#define MAX_TRACKS 64
#define MAX_SPAN_NAMES 32 /* the prover's stages number 11 */
#define SPAN_NAME_BYTES 24

/* Items of one size, appended under the ledger's lock and never moved:
 * the first `count` can be read without the lock while appends go on. */
typedef struct chunk {
    struct chunk *next;
    size_t used;
    max_align_t items[];
} chunk;

typedef struct {
    chunk *first, *last;
    size_t count, item_size, per_chunk;
} chunk_list;

struct pl__ledger {
    pl__lock lock;
    pthread_mutex_t log_lock; /* taken while holding lock, held to write */
    pl_log_level level;
    FILE *log;
    pl_event_fn on_event;
    void *on_event_user;
    bool keep;
    double t0;     /* pl__now_seconds at creation: records' t = 0 */
    double wall0;  /* the wall clock then, for the lines' ts */
    uint64_t baseline;
    pl__ledger_peaks peaks;
    pl_ledger_record latest;
    chunk_list records, spans;
    char *track_names[MAX_TRACKS];
    unsigned n_tracks;
    char span_names[MAX_SPAN_NAMES][SPAN_NAME_BYTES]; /* [0]: "other" */
    unsigned n_span_names;
};

/* Every use of l->lock goes through these (util/lock.h), so that a
 * function that needs the lock can assert that its caller holds it. */
static void ledger_lock(pl__ledger *l)
{
    pl__lock_acquire(&l->lock);
}

static void ledger_unlock(pl__ledger *l)
{
    pl__lock_release(&l->lock);
}

static inline bool ledger_lock_held(const pl__ledger *l)
{
    return pl__lock_mine(&l->lock);
}

static void list_init(chunk_list *list, size_t item_size)
{
    memset(list, 0, sizeof(*list));
    list->item_size = item_size;
    list->per_chunk = CHUNK_BYTES / item_size;
}

/* Under the ledger's lock.  Without memory the timeline has a gap, nothing
 * worse. */
static void list_append_locked(pl__ledger *l, chunk_list *list,
                               const void *item)
{
    assert(ledger_lock_held(l));
    if (!list->last || list->last->used == list->per_chunk) {
        chunk *c = malloc(sizeof(*c) + list->per_chunk * list->item_size);
        if (!c)
            return;
        c->next = NULL;
        c->used = 0;
        if (list->last)
            list->last->next = c;
        else
            list->first = c;
        list->last = c;
    }
    memcpy((char *)list->last->items + list->last->used * list->item_size,
           item, list->item_size);
    list->last->used++;
    list->count++;
}

static void list_free(chunk_list *list)
{
    while (list->first) {
        chunk *c = list->first;
        list->first = c->next;
        free(c);
    }
}

/* Walks the first `left` items of a list; only the links are read under
 * the lock (a chunk's first `used` items never change). */
typedef struct {
    chunk *c;
    size_t i, left;
} cursor;

static void cursor_start(pl__ledger *l, const chunk_list *list, size_t count,
                         cursor *cur)
{
    ledger_lock(l);
    cur->c = list->first;
    ledger_unlock(l);
    cur->i = 0;
    cur->left = count;
}

static const void *cursor_next(pl__ledger *l, const chunk_list *list,
                               cursor *cur)
{
    if (!cur->left || !cur->c)
        return NULL;
    if (cur->i == list->per_chunk) {
        ledger_lock(l);
        cur->c = cur->c->next;
        ledger_unlock(l);
        cur->i = 0;
        if (!cur->c)
            return NULL;
    }
    cur->left--;
    return (const char *)cur->c->items + cur->i++ * list->item_size;
}

static size_t list_count(pl__ledger *l, const chunk_list *list)
{
    ledger_lock(l);
    size_t n = list->count;
    ledger_unlock(l);
    return n;
}

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
    pl__lock_init(&l->lock);
    pthread_mutex_init(&l->log_lock, NULL);
    l->level = cfg->level;
    l->log = cfg->log ? cfg->log : stderr;
    l->on_event = cfg->on_event;
    l->on_event_user = cfg->on_event_user;
    l->keep = cfg->keep_records;
    list_init(&l->records, sizeof(pl_ledger_record));
    list_init(&l->spans, sizeof(pl__ledger_span));
    strcpy(l->span_names[0], "other");
    l->n_span_names = 1;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    l->t0 = pl__now_seconds();
    l->wall0 = (double)wall.tv_sec + (double)wall.tv_nsec * 1e-9;
    l->baseline = pl__ledger_read_rss(NULL);
    l->peaks.baseline_rss_anon = l->baseline;
    *out = l;
    return PL_OK;
}

void pl__ledger_destroy(pl__ledger *l)
{
    if (!l)
        return;
    list_free(&l->records);
    list_free(&l->spans);
    for (unsigned i = 0; i < MAX_TRACKS; i++)
        free(l->track_names[i]);
    pthread_mutex_destroy(&l->log_lock);
    pl__lock_destroy(&l->lock);
    free(l);
}

void pl__ledger_name_track(pl__ledger *l, unsigned track, const char *name)
{
    if (track >= MAX_TRACKS)
        return;
    ledger_lock(l);
    free(l->track_names[track]);
    l->track_names[track] = strdup(name);
    if (track + 1 > l->n_tracks)
        l->n_tracks = track + 1;
    ledger_unlock(l);
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

void pl__ledger_note_set(pl__ledger_note *out, const char *reason,
                         size_t reason_len, const char *witness)
{
    memset(out, 0, sizeof(*out));
    if (reason) {
        size_t room = sizeof(out->reason) - 1;
        if (reason_len <= room) {
            memcpy(out->reason, reason, reason_len);
        } else { /* the start says what failed: keep it */
            memcpy(out->reason, reason, room - 3);
            memcpy(out->reason + room - 3, "...", 3);
        }
    }
    if (witness) {
        size_t len = strlen(witness), room = sizeof(out->witness) - 1;
        if (len <= room) {
            memcpy(out->witness, witness, len);
        } else { /* the file's name is at the end: keep it */
            memcpy(out->witness, "...", 3);
            memcpy(out->witness + 3, witness + len - (room - 3), room - 3);
        }
    }
}

/* ---- the log line ---------------------------------------------------- */

/* A line being written: appends stop at the end of buf (a line cut short
 * rather than a write past it). */
#define LINE_BYTES 2048
typedef struct {
    char *buf;
    size_t len;
} line_buf;

static void put(line_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(line_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->buf + b->len, LINE_BYTES - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len = b->len + (size_t)n < LINE_BYTES ? b->len + (size_t)n
                                                  : LINE_BYTES - 1;
}

/* key=value, the value quoted as logfmt does when it is empty or holds a
 * space, '=', a quote, a backslash or a control character. */
static void put_text(line_buf *b, const char *key, const char *value)
{
    bool quote = !*value;
    for (const char *c = value; *c && !quote; c++)
        quote = (unsigned char)*c <= ' ' || *c == '=' || *c == '"' ||
                *c == '\\' || *c == 0x7f;
    if (!quote) {
        put(b, " %s=%s", key, value);
        return;
    }
    put(b, " %s=\"", key);
    for (const unsigned char *c = (const unsigned char *)value; *c; c++) {
        if (*c == '"' || *c == '\\')
            put(b, "\\%c", *c);
        else if (*c == '\n')
            put(b, "\\n");
        else if (*c == '\t')
            put(b, "\\t");
        else if (*c < ' ' || *c == 0x7f)
            put(b, "\\u%04x", *c);
        else
            put(b, "%c", *c);
    }
    put(b, "\"");
}

static void put_bytes(line_buf *b, const char *key, uint64_t bytes)
{
    char h[24];
    put(b, " %s=%s", key, pl_format_bytes(h, sizeof(h), bytes));
}

/* A signed byte count: "-" and the magnitude. */
static void put_signed_bytes(line_buf *b, const char *key, int64_t bytes)
{
    char h[24];
    uint64_t magnitude = bytes < 0 ? (uint64_t)0 - (uint64_t)bytes
                                   : (uint64_t)bytes;
    put(b, " %s=%s%s", key, bytes < 0 ? "-" : "",
        pl_format_bytes(h, sizeof(h), magnitude));
}

static void put_class(line_buf *b, const pl_ledger_record *r,
                      pl_buffer_class cls)
{
    char h[24];
    put(b, " buf.%s=%llu/%s", pl_buffer_class_name(cls),
        (unsigned long long)r->class_count[cls],
        pl_format_bytes(h, sizeof(h), r->class_bytes[cls]));
}

/* The one log line format; docs/ledger.md defines it. */
static void format_line(char line[LINE_BYTES], const pl__ledger *l,
                        const pl_ledger_record *r)
{
    line_buf b = {line, 0};
    line[0] = '\0';
    /* ts: the wall clock at creation plus t, so that ts and t agree and
     * the lines' times never run backwards with the wall clock */
    double wall = l->wall0 + r->t_seconds;
    time_t secs = (time_t)wall;
    int ms = (int)((wall - (double)secs) * 1000.0);
    struct tm tm;
    char stamp[32];
    gmtime_r(&secs, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    put(&b, "ts=%s.%03dZ t=%.3f log=ledger event=%s job=%llu part=%zu", stamp,
        ms > 999 ? 999 : ms, r->t_seconds, pl_event_name(r->event),
        (unsigned long long)r->job, r->partition);
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        put(&b, " stage.%s=%llu", pl_stage_name((pl_stage)s),
            (unsigned long long)r->stage_now[s]);
    /* pinned and device belong to the GPU's group below */
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        if (c != PL_BUF_PINNED && c != PL_BUF_DEVICE)
            put_class(&b, r, (pl_buffer_class)c);
    put_bytes(&b, "tracked", r->tracked_bytes);
    put_bytes(&b, "reserved", r->reserved_bytes);
    put_bytes(&b, "budget", r->budget_bytes);
    put_bytes(&b, "rss_anon", r->rss_anon_bytes);
    put_bytes(&b, "rss_file", r->rss_file_bytes);
    put_bytes(&b, "rss", r->rss_anon_bytes + r->rss_file_bytes);
    put_signed_bytes(&b, "untracked", r->untracked_bytes);
    /* With a GPU: what we hold there and in pinned host memory, beside what
     * its driver says is used (the difference is the CUDA context and
     * anything else on the device). */
    if (r->class_count[PL_BUF_DEVICE] || r->class_count[PL_BUF_PINNED] ||
        r->device_total_bytes) {
        put_class(&b, r, PL_BUF_PINNED);
        put_class(&b, r, PL_BUF_DEVICE);
        put_bytes(&b, "gpu.used", r->device_used_bytes);
        put_bytes(&b, "gpu.total", r->device_total_bytes);
        put_signed_bytes(&b, "gpu.untracked", r->device_untracked_bytes);
    }
    if (r->reason[0])
        put_text(&b, "reason", r->reason);
    if (r->witness[0])
        put_text(&b, "witness", r->witness);
}

/* ---- records ----------------------------------------------------------- */

static void keep_record(pl__ledger *l, pl_ledger_record *r, bool stamp);

void pl__ledger_record(pl__ledger *l, pl_event event, uint64_t job,
                       size_t partition, unsigned track,
                       const pl__ledger_state *state,
                       const pl__ledger_note *note)
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
    if (note) {
        memcpy(r.reason, note->reason, sizeof(r.reason));
        memcpy(r.witness, note->witness, sizeof(r.witness));
    }
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
    if (r.device_total_bytes)
        r.device_untracked_bytes = (int64_t)r.device_used_bytes -
                                   (int64_t)r.class_bytes[PL_BUF_DEVICE] -
                                   (int64_t)state->device_used_at_open_bytes;
    keep_record(l, &r, true);
}

void pl__ledger_record_given(pl__ledger *l, const pl_ledger_record *given)
{
    pl_ledger_record r = *given;
    keep_record(l, &r, false);
}

void pl__ledger_set_baseline(pl__ledger *l, uint64_t rss_anon)
{
    ledger_lock(l);
    l->baseline = rss_anon;
    l->peaks.baseline_rss_anon = rss_anon;
    ledger_unlock(l);
}

/* Peaks, the latest record, the kept list, the log line and the callback,
 * for a record whose numbers are filled; stamp: its time is now (else the
 * caller's, a simulated clock). */
static void keep_record(pl__ledger *l, pl_ledger_record *rp, bool stamp)
{
    pl_ledger_record r = *rp;
    pl_event event = r.event;
    ledger_lock(l);
    /* Stamped under the lock, so records are kept (and "latest" moves) in
     * time order whatever the threads' interleaving. */
    if (stamp)
        r.t_seconds = pl__now_seconds() - l->t0;
    if (r.device_total_bytes &&
        r.device_untracked_bytes > l->peaks.device_untracked)
        l->peaks.device_untracked = r.device_untracked_bytes;
    if (event < PL_EV_COUNT)
        l->peaks.events++;
    if (r.rss_anon_bytes > l->peaks.rss_anon)
        l->peaks.rss_anon = r.rss_anon_bytes;
    if (r.rss_file_bytes > l->peaks.rss_file)
        l->peaks.rss_file = r.rss_file_bytes;
    if (r.rss_anon_bytes + r.rss_file_bytes > l->peaks.rss)
        l->peaks.rss = r.rss_anon_bytes + r.rss_file_bytes;
    if (r.untracked_bytes > l->peaks.untracked)
        l->peaks.untracked = r.untracked_bytes;
    l->latest = r;
    if (l->keep)
        list_append_locked(l, &l->records, &r);
    bool log = event < PL_EV_COUNT && l->level >= PL_LOG_INFO;
    char line[LINE_BYTES];
    if (log) {
        /* The write happens outside the ledger's lock (a stalled stderr must
         * not stall every thread that records); taking log_lock before
         * letting go of lock keeps the lines in record order. */
        format_line(line, l, &r);
        pthread_mutex_lock(&l->log_lock);
    }
    ledger_unlock(l);
    if (log) {
        fprintf(l->log, "%s\n", line);
        pthread_mutex_unlock(&l->log_lock);
    }
    if (event < PL_EV_COUNT && l->on_event)
        l->on_event(l->on_event_user, &r);
}

void pl__ledger_read_peaks(pl__ledger *l, pl__ledger_peaks *out)
{
    ledger_lock(l);
    *out = l->peaks;
    ledger_unlock(l);
}

void pl__ledger_latest(pl__ledger *l, pl_ledger_record *out)
{
    ledger_lock(l);
    *out = l->latest;
    ledger_unlock(l);
}

size_t pl__ledger_count(pl__ledger *l)
{
    return list_count(l, &l->records);
}

void pl__ledger_each(pl__ledger *l, size_t count, pl__record_visit fn,
                     void *ctx)
{
    cursor cur;
    cursor_start(l, &l->records, count, &cur);
    for (const pl_ledger_record *r; (r = cursor_next(l, &l->records, &cur));)
        if (!fn(ctx, r))
            return;
}

/* ---- spans ------------------------------------------------------------- */

/* Under the lock: the index of a stage's name, added when new ("other"
 * once the table is full). */
static unsigned span_name_locked(pl__ledger *l, const char *stage)
{
    assert(ledger_lock_held(l));
    for (unsigned i = 0; i < l->n_span_names; i++)
        if (strncmp(l->span_names[i], stage, SPAN_NAME_BYTES - 1) == 0)
            return i;
    if (l->n_span_names == MAX_SPAN_NAMES)
        return 0;
    snprintf(l->span_names[l->n_span_names], SPAN_NAME_BYTES, "%s", stage);
    return l->n_span_names++;
}

static void keep_span(const pl__stage_sink *sink, const char *stage,
                      double start, double end)
{
    pl__ledger *l = sink->ctx;
    pl__ledger_span span = {start - l->t0, end - l->t0, sink->job,
                            sink->partition, sink->track, 0, sink->helper};
    ledger_lock(l);
    span.name = span_name_locked(l, stage);
    list_append_locked(l, &l->spans, &span);
    ledger_unlock(l);
}

void pl__ledger_stage_sink(pl__ledger *l, pl__stage_sink *out, uint64_t job,
                           size_t partition, unsigned track)
{
    memset(out, 0, sizeof(*out));
    if (!l->keep)
        return; /* nothing would read them */
    out->fn = keep_span;
    out->ctx = l;
    out->job = job;
    out->partition = partition;
    out->track = track;
}

size_t pl__ledger_span_count(pl__ledger *l)
{
    return list_count(l, &l->spans);
}

void pl__ledger_each_span(pl__ledger *l, size_t count, pl__span_visit fn,
                          void *ctx)
{
    cursor cur;
    cursor_start(l, &l->spans, count, &cur);
    for (const pl__ledger_span *s; (s = cursor_next(l, &l->spans, &cur));)
        if (!fn(ctx, s))
            return;
}

/* A name is written once, under the lock, before any span that uses it is
 * kept; a span read from a snapshot therefore finds its name in place. */
const char *pl__ledger_span_name(pl__ledger *l, unsigned name)
{
    return name < MAX_SPAN_NAMES ? l->span_names[name] : "other";
}
