/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one Chrome-trace writer (trace event JSON, opened by Perfetto and
 * chrome://tracing): `--trace` writes an engine's whole timeline through
 * it (pl__ledger_write_trace), and `proofline serve`'s /v1/trace the
 * recent records the service keeps, so the two traces have one layout.
 * The records and spans come from a source (the ledger's, or any other
 * keeper of pl_ledger_record), through visitors; the writer keeps nothing
 * between calls.  What it writes, per partition: spans synth, proving and
 * deliver on the track of the thread that ran them, async spans waiting
 * and finishing (they cross threads); the prover's stages inside them
 * (when the source has spans), the G2 MSMs on pl-g2msm tracks of their
 * own; failures as instants with their reason; counter tracks of bytes
 * per class, reserved and budget, RSS; and the source's extra spans (the
 * service's parameter promotions) on named tracks.
 */
#ifndef PL_LEDGER_TRACE_H
#define PL_LEDGER_TRACE_H

#include "ledger/ledger.h"
#include "formats/json.h"

/* A span the ledger does not know: its name, its track's name (one track
 * per distinct name, after the engine's), its times (the records' clock)
 * and one string argument (arg_key NULL: none). */
typedef struct pl__trace_extra {
    const char *name, *track;
    double start_s, end_s;
    const char *arg_key, *arg_value;
} pl__trace_extra;
typedef bool (*pl__trace_extra_visit)(void *ctx, const pl__trace_extra *x);

typedef struct pl__trace_source {
    const char *process;   /* the process's name in the trace; NULL: none */
    /* the names of tracks 0 .. n_tracks - 1 (n_tracks 0: unnamed) */
    unsigned n_tracks;
    const char *(*track_name)(void *user, unsigned track);
    /* the records in time order (each visited once per call) */
    void (*each_record)(void *user, pl__record_visit fn, void *ctx);
    /* the prover's stages (NULL: none) and their names */
    void (*each_span)(void *user, pl__span_visit fn, void *ctx);
    const char *(*span_name)(void *user, unsigned name);
    void (*each_extra)(void *user, pl__trace_extra_visit fn, void *ctx);
    /* the arguments that name a partition (NULL: "job" and "part", the
     * engine's numbers; the service adds its store's ids) */
    void (*ids)(void *user, pl__jw *w, uint64_t job, size_t partition);
    /* only the last since_s seconds before the newest record (<= 0: all) */
    double since_s;
    void *user;
} pl__trace_source;

/* Writes the trace object {"displayTimeUnit": ..., "traceEvents": [...]}
 * as one value of w.  PL_ENOMEM when a table of it could not grow (w may
 * then hold part of it: the caller drops it); w->failed is the caller's to
 * check for the writing itself. */
pl_status pl__trace_write(pl__jw *w, const pl__trace_source *src,
                          pl_error *err);

#endif /* PL_LEDGER_TRACE_H */
