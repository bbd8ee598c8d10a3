/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's own resources: /healthz (alive; no token), /readyz (ready
 * for work: not draining, and the store and DATA can be written), and the
 * ledger's views, /metrics (Prometheus text), /v1/status and /v1/cluster
 * (JSON) and /v1/trace (a Chrome trace), all rendered by figures.c and
 * metrics.c from one reading of the figures; and GET /, the live page
 * (page.html, compiled in), which reads those.
 */
#include "http.h"
#include "figures.h"
#include "metrics.h"

#include <stdio.h>
#include <string.h>

/* service/http/page.html, embedded by cmake/embed.cmake */
extern const unsigned char pl__page_html[];
extern const size_t pl__page_html_len;

enum MHD_Result pl__api_page(request *rq)
{
    return pl__http_reply_text(rq, 200, (const char *)pl__page_html,
                               "text/html; charset=utf-8", false);
}

enum MHD_Result pl__api_healthz(request *rq)
{
    return pl__http_reply_text(rq, 200, "{\"status\": \"ok\"}\n",
                               "application/json", false);
}

enum MHD_Result pl__api_readyz(request *rq)
{
    pl__service *svc = rq->svc;
    if (atomic_load(&svc->draining))
        return pl__http_reply_text(rq, 503, "{\"status\": \"draining\"}\n",
                                   "application/json", true);
    char why[512];
    if (!pl__health_ok(svc, why, sizeof(why))) {
        pl__strbuf msg = {0};
        pl__strbuf_printf(&msg, "not ready: %s", why);
        enum MHD_Result r = pl__http_reply_error(
            rq, 503, msg.data ? msg.data : "not ready", true);
        pl__strbuf_free(&msg);
        return r;
    }
    pl__store_counts c;
    pl_error err = {0};
    if (pl__store_counts_read(svc->store, &c, &err) != PL_OK)
        return pl__http_reply_error(rq, 503, err.msg, true);
    return pl__http_reply_text(rq, 200, "{\"status\": \"ready\"}\n",
                               "application/json", false);
}

enum MHD_Result pl__api_metrics(request *rq)
{
    pl__strbuf sb = {0};
    pl_error err = {0};
    enum MHD_Result r;
    if (pl__figures_prometheus(rq->svc, &sb, &err) != PL_OK)
        r = pl__http_reply_error(rq, 503, err.msg, true);
    else
        r = pl__http_reply_text(rq, 200, sb.data ? sb.data : "",
                                "text/plain; version=0.0.4; charset=utf-8",
                                false);
    pl__strbuf_free(&sb);
    return r;
}

enum MHD_Result pl__api_status(request *rq)
{
    pl__strbuf sb = {0};
    pl_error err = {0};
    pl_status st = pl__figures_status_json(rq->svc, &sb, &err);
    return pl__http_reply_built(rq, 200, st, err.msg, &sb);
}

enum MHD_Result pl__api_cluster(request *rq)
{
    pl__strbuf sb = {0};
    pl_error err = {0};
    pl_status st = pl__figures_cluster_json(rq->svc, &sb, &err);
    return pl__http_reply_built(rq, 200, st, err.msg, &sb);
}

enum MHD_Result pl__api_trace(request *rq)
{
    const char *since = pl__http_arg(rq, "since");
    double sec = 0;
    if (since && !pl__http_seconds(since, &sec))
        return pl__http_reply_error(rq, 400, "since: seconds, a decimal "
                                    "number of 0 or more (such as 60 or "
                                    "2.5)", false);
    pl__strbuf sb = {0};
    pl_error err = {0};
    pl_status st = pl__metrics_trace_json(rq->svc->metrics, &sb, sec, &err);
    return pl__http_reply_built(rq, 200, st, err.msg, &sb);
}
