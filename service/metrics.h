/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger, live: what the engine and the worker tell the service as it
 * runs, kept for the figures (figures.c renders them) and for /v1/trace (a
 * Chrome trace of a recent window).  The engine feeds it through its
 * on_event and on_stage callbacks (any engine thread), the worker through
 * pl__metrics_proof_done and the rest.  The ring of recent records is
 * bounded (its record count set by --trace-records) and its bytes are an
 * accounted buffer, so the ledger shows them.  One lock, taken by no other;
 * never held while anything but a copy runs.
 */
#ifndef PL_SERVICE_METRICS_H
#define PL_SERVICE_METRICS_H

#include "service.h"
#include "util/file.h"

/* A histogram of seconds over fixed bounds (pl__histogram_bounds): counts
 * per bucket, the last for +Inf only. */
#define PL__HISTOGRAM_BUCKETS 14
typedef struct pl__histogram {
    uint64_t counts[PL__HISTOGRAM_BUCKETS + 1];
    uint64_t n;
    double sum;
} pl__histogram;
const double *pl__histogram_bounds(void);

#define PL__METRICS_MAX_STAGES 16

/* A copy of the counters, read at once. */
typedef struct pl__metrics_view {
    pl__histogram proof;              /* from a claim to its proof on disk */
    uint64_t proofs_ok, proofs_failed;
    uint64_t deadline_met[PL__PRIORITY_COUNT];
    uint64_t deadline_missed[PL__PRIORITY_COUNT];
    size_t n_stages;
    char stage_names[PL__METRICS_MAX_STAGES][32];
    pl__histogram stages[PL__METRICS_MAX_STAGES];
} pl__metrics_view;

pl_status pl__metrics_create(pl__metrics **out, size_t ring_records,
                             pl_error *err);
void pl__metrics_destroy(pl__metrics *m);
void pl__metrics_read(pl__metrics *m, pl__metrics_view *out);

/* The engine's callbacks (pl_engine_config.on_event / on_stage, user: the
 * metrics). */
void pl__metrics_on_event(void *user, const pl_ledger_record *record);
void pl__metrics_on_stage(void *user, const char *stage, double seconds);
/* The worker's note of which store partition an engine job proves, so
 * that the trace names store jobs (a bounded table: the newest kept). */
void pl__metrics_note_job(pl__metrics *m, uint64_t engine_job,
                          const char *job_id, uint32_t index);
/* A circuit was made hot (its parameters loaded) in `seconds`, just now:
 * a span on the trace's "parameters" track and an observation of the
 * stage "params_promotion". */
void pl__metrics_promotion(pl__metrics *m, const char *circuit_id,
                           double seconds);
/* A partition ended in the worker: seconds from its claim to its end. */
void pl__metrics_proof_done(pl__metrics *m, double seconds, bool ok);
/* A job with a deadline became done in this worker: met or missed, by
 * its class (priority). */
void pl__metrics_deadline(pl__metrics *m, pl__priority cls, bool missed);

/* GET /v1/trace?since=S: the ring's records of the last S seconds (all
 * when S <= 0) as a Chrome trace, through the ledger's one trace writer
 * (the layout of --trace), with the store's job ids in each partition's
 * arguments and the parameter promotions on a track of their own. */
pl_status pl__metrics_trace_json(pl__metrics *m, pl__strbuf *sb,
                                 double since_s, pl_error *err);

#endif /* PL_SERVICE_METRICS_H */
