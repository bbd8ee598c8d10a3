/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one route table of the API (docs/serve.md) and the decision every
 * request passes before a handler sees it (http.h: pl__http_decide).  A
 * route says its method, its path pattern (literal segments and {job},
 * {circuit}, {index}, each checked strictly), the bodies it takes, whether
 * it needs the token and whether it changes state, and its handlers; the
 * 404s, the 405s and their Allow header come from the table, so there is
 * no second list to drift from it.  GET routes take HEAD too.
 */
#include "http.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const pl__route routes[] = {
    /* the live page: open, since a browser's navigation carries no token;
     * it holds no figure itself and reads them with the token it is given
     * (Host is checked before this, as for every route) */
    {PL__R_PAGE, "GET", "/", PL__BODY_NONE, true, false, NULL, pl__api_page},
    {PL__R_HEALTHZ, "GET", "/healthz", PL__BODY_NONE, true, false, NULL,
     pl__api_healthz},
    {PL__R_READYZ, "GET", "/readyz", PL__BODY_NONE, false, false, NULL,
     pl__api_readyz},
    {PL__R_METRICS, "GET", "/metrics", PL__BODY_NONE, false, false, NULL,
     pl__api_metrics},
    {PL__R_STATUS, "GET", "/v1/status", PL__BODY_NONE, false, false, NULL,
     pl__api_status},
    {PL__R_CLUSTER, "GET", "/v1/cluster", PL__BODY_NONE, false, false, NULL,
     pl__api_cluster},
    {PL__R_TRACE, "GET", "/v1/trace", PL__BODY_NONE, false, false, NULL,
     pl__api_trace},
    {PL__R_CIRCUITS_LIST, "GET", "/v1/circuits", PL__BODY_NONE, false, false,
     NULL, pl__api_circuits_list},
    {PL__R_CIRCUITS_ADD, "POST", "/v1/circuits",
     PL__BODY_JSON | PL__BODY_ZKEY, false, true, NULL, pl__api_circuits_add},
    {PL__R_CIRCUIT, "GET", "/v1/circuits/{circuit}", PL__BODY_NONE, false,
     false, NULL, pl__api_circuit},
    {PL__R_PRELOAD, "POST", "/v1/circuits/{circuit}/preload", PL__BODY_NONE,
     false, true, NULL, pl__api_preload},
    {PL__R_EVICT, "POST", "/v1/circuits/{circuit}/evict", PL__BODY_NONE,
     false, true, NULL, pl__api_evict},
    {PL__R_JOBS_LIST, "GET", "/v1/jobs", PL__BODY_NONE, false, false, NULL,
     pl__api_jobs_list},
    {PL__R_JOBS_ADD, "POST", "/v1/jobs", PL__BODY_JSON | PL__BODY_MULTIPART,
     false, true, pl__http_begin_submit, pl__api_jobs_add},
    {PL__R_JOB, "GET", "/v1/jobs/{job}", PL__BODY_NONE, false, false, NULL,
     pl__api_job},
    {PL__R_JOB_CANCEL, "DELETE", "/v1/jobs/{job}", PL__BODY_NONE, false, true,
     NULL, pl__api_job_cancel},
    {PL__R_WITNESS, "PUT", "/v1/jobs/{job}/witness/{index}",
     PL__BODY_WITNESS, false, true, pl__http_begin_witness, pl__api_witness},
    {PL__R_PROOF, "GET", "/v1/jobs/{job}/proofs/{index}", PL__BODY_NONE,
     false, false, NULL, pl__api_proof},
    {PL__R_PROVE, "POST", "/v1/prove", PL__BODY_MULTIPART, false, true,
     pl__http_begin_submit, pl__api_prove},
};

const pl__route *pl__http_routes(size_t *n)
{
    *n = sizeof(routes) / sizeof(routes[0]);
    return routes;
}

#define MAX_SEGMENTS 6

/* The path's segments (between slashes; empty ones, "//", are not
 * allowed), at most MAX_SEGMENTS; false for anything else. */
static bool split(const char *path, const char *seg[MAX_SEGMENTS],
                  size_t len[MAX_SEGMENTS], size_t *n)
{
    *n = 0;
    if (path[0] != '/')
        return false;
    const char *p = path + 1;
    if (!*p)
        return true;
    for (;;) {
        const char *e = strchr(p, '/');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 0 || *n == MAX_SEGMENTS)
            return false;
        seg[*n] = p;
        len[(*n)++] = l;
        if (!e)
            return true;
        p = e + 1;
    }
}

/* Whether the path fits the route's pattern; its {parameters} into out. */
static bool match(const pl__route *r, const char *seg[], const size_t len[],
                  size_t n, pl__http_verdict *out)
{
    const char *pseg[MAX_SEGMENTS];
    size_t plen[MAX_SEGMENTS], pn;
    if (!split(r->pattern, pseg, plen, &pn) || pn != n)
        return false;
    char id[PL__STORE_ID_LEN + 1] = "";
    uint32_t index = 0;
    for (size_t i = 0; i < n; i++) {
        if (pseg[i][0] != '{') {
            if (plen[i] != len[i] || strncmp(pseg[i], seg[i], len[i]) != 0)
                return false;
            continue;
        }
        char text[PL__STORE_ID_LEN + 2];
        if (len[i] >= sizeof(text))
            return false;
        memcpy(text, seg[i], len[i]);
        text[len[i]] = '\0';
        if (strncmp(pseg[i], "{job}", plen[i]) == 0) {
            if (!pl__http_job_id(text))
                return false;
            memcpy(id, text, len[i] + 1);
        } else if (strncmp(pseg[i], "{circuit}", plen[i]) == 0) {
            if (!pl__http_circuit_id(text))
                return false;
            memcpy(id, text, len[i] + 1);
        } else {
            uint64_t k;
            if (!pl__http_uint(text, 999999999, &k))
                return false;
            index = (uint32_t)k;
        }
    }
    memcpy(out->id, id, sizeof(id));
    out->index = index;
    return true;
}

static void verdict(pl__http_verdict *out, unsigned code, const char *fmt,
                    ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void verdict(pl__http_verdict *out, unsigned code, const char *fmt,
                    ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->msg, sizeof(out->msg), fmt, ap);
    va_end(ap);
    out->code = code;
}

/* "Bearer <token>" against the token, in time that depends on the token's
 * length only, not on where they differ. */
static bool token_ok(const char *token, const char *header)
{
    if (!header || strncmp(header, "Bearer ", 7) != 0)
        return false;
    const char *h = header + 7;
    size_t want = strlen(token), got = strlen(h);
    unsigned diff = (unsigned)(want != got);
    for (size_t i = 0; i < want; i++)
        diff |= (unsigned char)token[i] ^ (unsigned char)(i < got ? h[i] : 0);
    return diff == 0;
}

/* The body kind of this request for this route, or 0 (415). */
static unsigned body_kind(const pl__route *r, const pl__http_view *v)
{
    char type[96];
    pl__http_media_type(v->content_type, type, sizeof(type));
    bool empty = v->content_length <= 0 && !v->transfer_encoding;
    if ((r->bodies & PL__BODY_WITNESS))
        return PL__BODY_WITNESS;
    if ((r->bodies & PL__BODY_JSON) && strcmp(type, "application/json") == 0)
        return PL__BODY_JSON;
    if ((r->bodies & PL__BODY_ZKEY) &&
        strcmp(type, "application/octet-stream") == 0)
        return PL__BODY_ZKEY;
    if ((r->bodies & PL__BODY_MULTIPART) &&
        strcmp(type, "multipart/form-data") == 0)
        return PL__BODY_MULTIPART;
    /* a route without a body: none, or an empty one of a type no form
     * of a web page sends */
    if ((r->bodies & PL__BODY_NONE) && empty &&
        (!type[0] || strcmp(type, "application/json") == 0))
        return PL__BODY_NONE;
    return 0;
}

static const char *body_types(unsigned bodies)
{
    if (bodies == (PL__BODY_JSON | PL__BODY_ZKEY))
        return "application/json (a path) or application/octet-stream (the "
               "zkey itself)";
    if (bodies == (PL__BODY_JSON | PL__BODY_MULTIPART))
        return "application/json (the spec) or multipart/form-data (a part "
               "`spec`, then the `witness` parts)";
    if (bodies == PL__BODY_MULTIPART)
        return "multipart/form-data (a part `spec`, then the `witness` "
               "parts)";
    return "no body";
}

void pl__http_decide(const pl__http_policy *policy, const pl__http_view *v,
                     pl__http_verdict *out)
{
    memset(out, 0, sizeof(*out));
    const char *method = v->method ? v->method : "";
    bool head = strcmp(method, "HEAD") == 0;
    const char *as = head ? "GET" : method;
    const char *path = v->path ? v->path : "";

    /* a page on another name that resolves here (DNS rebinding) never
     * reaches the API: a tokenless service answers its own names only */
    if (policy->tokenless_loopback &&
        !pl__http_loopback_host(v->host, policy->port)) {
        char on[32] = "";
        if (policy->port)
            snprintf(on, sizeof(on), " on port %u", policy->port);
        verdict(out, 403, "Host: '%.100s' does not name this service: it "
                "takes requests for localhost, 127.0.0.1 or [::1]%s only",
                v->host ? v->host : "(none)", on);
        return;
    }
    const char *seg[MAX_SEGMENTS];
    size_t len[MAX_SEGMENTS], n = 0;
    bool parts = split(path, seg, len, &n);
    size_t n_routes = sizeof(routes) / sizeof(routes[0]);
    const pl__route *open = NULL;
    for (size_t i = 0; parts && i < n_routes && !open; i++)
        if (routes[i].open && strcmp(routes[i].method, as) == 0 &&
            match(&routes[i], seg, len, n, out))
            open = &routes[i];
    /* authentication before routing: without the token, a path that
     * exists and one that does not look the same */
    if (!open && policy->token && !token_ok(policy->token, v->authorization)) {
        verdict(out, 401, "Authorization: a valid bearer token is needed");
        return;
    }
    const pl__route *r = open;
    size_t o = 0;
    for (size_t i = 0; parts && i < n_routes && !r; i++) {
        pl__http_verdict tmp;
        if (!match(&routes[i], seg, len, n, &tmp))
            continue;
        if (strcmp(routes[i].method, as) == 0) {
            r = &routes[i];
            memcpy(out->id, tmp.id, sizeof(out->id));
            out->index = tmp.index;
            break;
        }
        o += (size_t)snprintf(out->allow + o, sizeof(out->allow) - o,
                              "%s%s%s", o ? ", " : "", routes[i].method,
                              strcmp(routes[i].method, "GET") == 0 ? ", HEAD"
                                                                   : "");
    }
    if (!r && o) {
        verdict(out, 405, "%.16s %.200s: the method is not allowed (allowed: "
                "%s)", method, path, out->allow);
        return;
    }
    if (!r) {
        verdict(out, 404, "no such resource: %.200s", path);
        return;
    }
    out->route = r;
    memset(out->allow, 0, sizeof(out->allow));
    if (r->writes && policy->tokenless_loopback) {
        /* a web page's request carries its Origin (every browser's POST,
         * PUT and DELETE do) and Sec-Fetch-Site: only the service's own,
         * or none (a program), is taken */
        if (v->origin && !pl__http_own_origin(v->origin, policy->port)) {
            verdict(out, 403, "Origin: %.100s is not this service: a "
                    "request from another site is refused", v->origin);
            return;
        }
        if (v->sec_fetch_site && strcmp(v->sec_fetch_site, "same-origin") &&
            strcmp(v->sec_fetch_site, "none")) {
            verdict(out, 403, "Sec-Fetch-Site: %.40s: a request from another "
                    "site is refused", v->sec_fetch_site);
            return;
        }
    }
    if (v->transfer_encoding) {
        verdict(out, 411, "Transfer-Encoding: a body is sent with its "
                "Content-Length (chunked bodies are not taken)");
        return;
    }
    if (!(out->body = body_kind(r, v))) {
        verdict(out, 415, "Content-Type: %.60s %.200s takes %s, not '%.80s'",
                method, r->pattern, body_types(r->bodies),
                v->content_type ? v->content_type : "(none)");
        return;
    }
    if (r->writes && policy->draining) {
        verdict(out, 503, "the service is draining (shutting down): retry "
                "later");
        out->retry = true;
        return;
    }
    if (r->writes && policy->unwritable) {
        verdict(out, 503, "the service cannot write its store or its data "
                "folder now (%.300s): retry later",
                policy->unwritable_why ? policy->unwritable_why : "");
        out->retry = true;
        return;
    }
}
