/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's figures, in one table (figures.c): each figure's
 * Prometheus name, type and help, its key (and the object it sits in) in
 * /v1/status's JSON, its label, and how it is read from one snapshot of
 * the engine, the store, the worker, the metrics, the parameter
 * residency and the connections' guard.  /metrics and /v1/status are both
 * rendered from that table and that snapshot, so the two can never say
 * different things, and a new figure is one row.  Also the JSON of the
 * cluster (/v1/cluster) and of the parameters (a circuit's tier).
 */
#ifndef PL_SERVICE_FIGURES_H
#define PL_SERVICE_FIGURES_H

#include "service.h"
#include "formats/json.h"

/* GET /metrics: the exposition text (`promtool check metrics` clean). */
pl_status pl__figures_prometheus(pl__service *svc, pl__strbuf *sb,
                                 pl_error *err);
/* GET /v1/status: the JSON object (docs/serve.md). */
pl_status pl__figures_status_json(pl__service *svc, pl__strbuf *sb,
                                  pl_error *err);
/* GET /v1/cluster: every worker on the store (its row: host, pid,
 * backend, budget, reserved, status, last heartbeat and its age by the
 * store's clock), the queue by priority and the jobs by state. */
pl_status pl__figures_cluster_json(pl__service *svc, pl__strbuf *sb,
                                   pl_error *err);
/* The parameter residency: one circuit's object when id is set, else
 * {"budget_bytes", "hot_bytes", "peak_hot_bytes", "circuits": [...]}. */
void pl__figures_params_json(pl__service *svc, pl__jw *w, const char *id);

#endif /* PL_SERVICE_FIGURES_H */
