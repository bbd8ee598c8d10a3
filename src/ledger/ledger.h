/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The buffer ledger: at every lifecycle event of a partition (and on a
 * timer) a record of the stages, every buffer class's live count and bytes,
 * reserved/budget, RssAnon and RssFile, and untracked = RssAnon - tracked -
 * baseline; failed and cancelled records carry why, and the witness file.
 * It logs one line per event (logfmt, docs/ledger.md), keeps peaks, and
 * optionally keeps the records for the timeline outputs (trace.c, plot.c),
 * with the prover's stages as spans beside them (from a stage sink the
 * engine sets on the threads that prove).  It owns the ledger's vocabulary
 * too: the names of the stages and events (pl_stage_name, pl_event_name).
 * The engine owns one ledger; the ledger never calls back into the engine,
 * and knows nothing of jobs beyond the numbers in a record.
 */
#ifndef PL_LEDGER_H
#define PL_LEDGER_H

#include "proofline.h"
#include "util/clock.h"

#include <stdio.h>

typedef struct pl__ledger pl__ledger;

/* What only the engine knows, snapshotted under its lock. */
typedef struct pl__ledger_state {
    uint64_t stage_now[PL_STAGE_COUNT];
    uint64_t reserved_bytes, budget_bytes;
    uint64_t device_used_bytes, device_total_bytes; /* 0: no device */
    uint64_t device_used_at_open_bytes; /* before the backend allocated */
} pl__ledger_state;

/* What a failed or cancelled record says beyond the numbers, copied
 * before the job it describes may be freed; bounded, so that no failure
 * path allocates. */
typedef struct pl__ledger_note {
    char reason[sizeof(((pl_ledger_record *)0)->reason)];
    char witness[sizeof(((pl_ledger_record *)0)->witness)];
} pl__ledger_note;

/* reason: its first reason_len bytes, cut at the end to fit; witness: a
 * path or NULL, cut at the start to fit (the file's name is at the end). */
void pl__ledger_note_set(pl__ledger_note *out, const char *reason,
                         size_t reason_len, const char *witness);

typedef struct pl__ledger_peaks {
    uint64_t rss_anon, rss_file, baseline_rss_anon;
    uint64_t rss; /* RssAnon + RssFile, at one record */
    int64_t untracked;
    int64_t device_untracked; /* GPU bytes used beyond class device and
                                 what was used before the backend's */
    uint64_t events;
} pl__ledger_peaks;

/* Where the lines go and what is kept. */
typedef struct pl__ledger_config {
    pl_log_level level;
    FILE *log;             /* NULL: stderr */
    pl_event_fn on_event;  /* called for every event record, no lock held */
    void *on_event_user;
    bool keep_records;     /* for the timeline outputs (trace, plot) */
} pl__ledger_config;

pl_status pl__ledger_create(pl__ledger **out, const pl__ledger_config *cfg,
                            pl_error *err);
void pl__ledger_destroy(pl__ledger *ledger);
void pl__ledger_name_track(pl__ledger *ledger, unsigned track,
                           const char *name);

/* event = PL_EV_COUNT records a timer sample (no log line, no callback).
 * note: NULL, or what a failed or cancelled record carries. */
void pl__ledger_record(pl__ledger *ledger, pl_event event, uint64_t job,
                       size_t partition, unsigned track,
                       const pl__ledger_state *state,
                       const pl__ledger_note *note);
/* A record whose numbers the caller filled, its time included: the
 * planner's, on a simulated clock (src/plan/).  Kept, logged and counted
 * in the peaks as pl__ledger_record's are; the ledger reads nothing of its
 * own (no clock, no RSS, no classes). */
void pl__ledger_record_given(pl__ledger *ledger, const pl_ledger_record *r);
/* The RssAnon before the work (a simulation's model of it, say), which
 * untracked bytes are counted from. */
void pl__ledger_set_baseline(pl__ledger *ledger, uint64_t rss_anon);
void pl__ledger_read_peaks(pl__ledger *ledger, pl__ledger_peaks *out);
/* The latest record (RSS now, untracked now). */
void pl__ledger_latest(pl__ledger *ledger, pl_ledger_record *out);

/* The records kept so far.  Writers read it once and walk that many in
 * every pass: the sampler may append meanwhile, and a snapshot keeps the
 * passes (and the arrays sized from the first) consistent. */
size_t pl__ledger_count(pl__ledger *ledger);
/* Iterates the first `count` kept records in time order; fn returns false
 * to stop. */
typedef bool (*pl__record_visit)(void *ctx, const pl_ledger_record *record);
void pl__ledger_each(pl__ledger *ledger, size_t count, pl__record_visit fn,
                     void *ctx);
const char *pl__ledger_track_name(pl__ledger *ledger, unsigned track);
unsigned pl__ledger_track_count(pl__ledger *ledger);

/* A stage of a proof (the prover's laps: "ntt", "msm_a", ...) as the
 * trace draws it: a span on a track, kept beside the records when they
 * are kept. */
typedef struct pl__ledger_span {
    double start, end;   /* seconds since the ledger was created */
    uint64_t job;
    size_t partition;
    unsigned track;      /* the engine thread it ran on, or started it */
    unsigned name;       /* pl__ledger_span_name */
    bool helper;         /* on a thread the track's thread started (G2) */
} pl__ledger_span;

/* A sink that keeps the stages a thread reports as spans of partition
 * `partition` of job `job` on `track` (fn NULL when records are not
 * kept); the engine sets it on the threads that prove (pl__stage_sink_set). */
void pl__ledger_stage_sink(pl__ledger *ledger, pl__stage_sink *out,
                           uint64_t job, size_t partition, unsigned track);
/* As pl__ledger_count and pl__ledger_each, for the spans. */
size_t pl__ledger_span_count(pl__ledger *ledger);
typedef bool (*pl__span_visit)(void *ctx, const pl__ledger_span *span);
void pl__ledger_each_span(pl__ledger *ledger, size_t count, pl__span_visit fn,
                          void *ctx);
const char *pl__ledger_span_name(pl__ledger *ledger, unsigned name);

uint64_t pl__ledger_read_rss(uint64_t *rss_file);

pl_status pl__ledger_write_trace(pl__ledger *ledger, const char *path,
                                 pl_error *err);
pl_status pl__ledger_write_plot(pl__ledger *ledger, const char *path,
                                pl_error *err);
/* What a plan knows that its records do not: the machine's memory (a
 * line, or a notice when far above the data) and when it ran out (a
 * mark across both panels). */
typedef struct pl__plot_marks {
    uint64_t memory_bytes; /* 0: none drawn */
    bool out_of_memory;
    double oom_seconds;
} pl__plot_marks;
pl_status pl__ledger_write_plot_marked(pl__ledger *ledger, const char *path,
                                       const pl__plot_marks *marks,
                                       pl_error *err);

#endif /* PL_LEDGER_H */
