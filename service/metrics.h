/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger, live: what /metrics (Prometheus text), /v1/status (JSON) and
 * /v1/trace (a Chrome trace of a recent window) serve.  The engine feeds
 * it through its on_event and on_stage callbacks (any engine thread), the
 * worker through pl__metrics_proof_done; the server reads it.  The ring of
 * recent records is bounded (its record count set by --trace-records) and
 * its bytes are an accounted buffer, so the ledger shows them.  One lock,
 * taken by no other; never held while anything but a copy runs.
 */
#ifndef PL_SERVICE_METRICS_H
#define PL_SERVICE_METRICS_H

#include "service.h"
#include "util/file.h"

pl_status pl__metrics_create(pl__metrics **out, size_t ring_records,
                             pl_error *err);
void pl__metrics_destroy(pl__metrics *m);

/* The engine's callbacks (pl_engine_config.on_event / on_stage, user: the
 * metrics). */
void pl__metrics_on_event(void *user, const pl_ledger_record *record);
void pl__metrics_on_stage(void *user, const char *stage, double seconds);
/* The worker's note of which store partition an engine job proves, so
 * that the trace names store jobs (a bounded table: the newest kept). */
void pl__metrics_note_job(pl__metrics *m, uint64_t engine_job,
                          const char *job_id, uint32_t index);
/* The engine stage of a claimed partition, from the last event of the
 * engine job proving it: "queued" (in the engine, not admitted yet),
 * "admitted", "synth", "waiting", "proving", "finishing", "finished";
 * NULL when the table does not know it. */
const char *pl__metrics_stage(pl__metrics *m, const char *job_id,
                              uint32_t index);
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

/* GET /metrics: the exposition text. */
pl_status pl__metrics_prometheus(pl__service *svc, pl__strbuf *sb,
                                 pl_error *err);
/* GET /v1/status: the JSON object. */
pl_status pl__metrics_status_json(pl__service *svc, pl__strbuf *sb,
                                  pl_error *err);
/* GET /v1/cluster: every worker on the store (its row: host, pid,
 * backend, budget, reserved, status, last heartbeat and its age by the
 * store's clock), the queue by priority and the jobs by state. */
pl_status pl__metrics_cluster_json(pl__service *svc, pl__strbuf *sb,
                                   pl_error *err);
/* The parameter residency as JSON: one circuit's object when id is set,
 * else {"budget_bytes", "hot_bytes", "peak_hot_bytes", "circuits": [...]}
 * (each circuit: id, tier, resident_bytes, cached_bytes, refs,
 * promotions, demotions, last_promotion_s, idle_s). */
void pl__metrics_params_json(pl__service *svc, pl__strbuf *sb,
                             const char *id);
/* GET /v1/trace?since=S: the ring's records of the last S seconds (all
 * when S <= 0) as a Chrome trace, through the ledger's one trace writer
 * (the layout of --trace), with the store's job ids in each partition's
 * arguments and the parameter promotions on a track of their own. */
pl_status pl__metrics_trace_json(pl__metrics *m, pl__strbuf *sb,
                                 double since_s, pl_error *err);

#endif /* PL_SERVICE_METRICS_H */
