/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A monotonic clock in seconds, for stage timings and the ledger, the stage
 * timer the prover and its backends report their stages through, and the
 * stage sink: where a thread's stages go besides the public callback (the
 * engine points it at its ledger, for the trace's spans inside a proof).
 */
#ifndef PL_UTIL_CLOCK_H
#define PL_UTIL_CLOCK_H

#include "proofline.h"

double pl__now_seconds(void);

/* Times consecutive stages: each lap reports the stage that ends now to
 * fn (when set) and to this thread's stage sink (when set), and starts
 * timing the next. */
typedef struct pl__stage_timer {
    pl_stage_fn fn;
    void *user;
    double since;
} pl__stage_timer;

void pl__stage_timer_start(pl__stage_timer *timer, pl_stage_fn fn,
                           void *user);
void pl__stage_lap(pl__stage_timer *timer, const char *stage);

/* A thread's stage sink: fn gets every stage the thread reports, with its
 * start and end on pl__now_seconds's clock, and the tags of the work it
 * belongs to.  The tags are plain numbers to this layer (the engine's job,
 * partition and ledger track).  Thread-local and copied by value: a helper
 * thread (the prover's G2 MSM) runs with a copy of its starter's, marked
 * helper, so it keeps its proof's tags after the starter moves on. */
typedef struct pl__stage_sink pl__stage_sink;
struct pl__stage_sink {
    void (*fn)(const pl__stage_sink *sink, const char *stage, double start,
               double end);
    void *ctx;
    uint64_t job;
    size_t partition;
    unsigned track;
    bool helper; /* on a thread the track's thread started */
};

/* This thread's sink (fn NULL: none). */
void pl__stage_sink_get(pl__stage_sink *out);
/* Sets this thread's sink, copied; NULL: none. */
void pl__stage_sink_set(const pl__stage_sink *sink);
/* Reports a stage to this thread's sink only (nothing without one). */
void pl__stage_span(const char *stage, double start, double end);

#endif /* PL_UTIL_CLOCK_H */
