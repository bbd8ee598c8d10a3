/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inside the HTTP side of `proofline serve` (service/http/): what its
 * files share.  The shape:
 *
 *   server.c     libmicrohttpd's glue: the daemon, a request's three steps
 *                (begin, body, end), replies, listening
 *   guard.c      connections: a deadline for headers, a minimum rate for
 *                bodies, caps per client address and in total
 *   routes.c     the one route table (method, path pattern, body kinds,
 *                size limit, authentication, handlers), and the decision
 *                every request passes (pl__http_decide): Host, token,
 *                route (404, 405 and Allow from the table), Origin,
 *                Content-Type, readiness
 *   parse.c      strict parsers of what a request carries: ids, indexes,
 *                numbers, durations, Host and Origin, escapes
 *   uploads.c    bodies: JSON, a zkey streamed to disk, a witness, the
 *                multipart form of a job
 *   waits.c      requests that wait for their job (suspended, resumed)
 *   api_system.c, api_circuits.c, api_jobs.c   the handlers, by resource
 *
 * Requests are answered with {"error": "..."} naming the field, 4xx for
 * the client's mistakes (never 500), 5xx for ours, with no server path in
 * them (pl__http_reply_error names files relative to DATA).
 *
 * The pure parts (parse.c, pl__http_decide) take plain values, not the
 * library's connection: a fuzzer calls them as they are (tests/fuzz).
 */
#ifndef PL_SERVICE_HTTP_H
#define PL_SERVICE_HTTP_H

#include "server.h"
#include "formats/json.h"
#include "util/file.h"
#include "util/sha256.h"

#include <microhttpd.h>
#include <pthread.h>

#define PL__HTTP_JSON_MAX (64u * 1024) /* a job's spec or a path: far less */
#define PL__HTTP_MAX_PARTITIONS 4096   /* per job */
#define PL__HTTP_RETRY_AFTER_S 5
/* ?wait=: at most this long (longer waits count as this); POST /v1/prove
 * waits the default when it is not given */
#define PL__HTTP_WAIT_MAX_MS (300 * 1000)
#define PL__HTTP_PROVE_WAIT_MS (120 * 1000)
/* Idempotency keys: printable, short, no separators a log or a header
 * could misread. */
#define PL__HTTP_KEY_MAX 128
#define PL__HTTP_KEY_CHARS "A-Z a-z 0-9 . _ : -"

/* ---- the pure parts: parse.c ---------------------------------------------- */

/* Unescapes %XX in place (the library's unescape callback), except %00
 * and malformed escapes, which stay as they are: no NUL can cut a path
 * or an argument short, and a strict check then refuses them.  Returns
 * the new length. */
size_t pl__http_unescape(char *s);
/* A job id as the store makes them: 36 characters of lowercase hex and
 * dashes at 8-4-4-4-12.  A circuit id: 64 characters of lowercase hex. */
bool pl__http_job_id(const char *s);
bool pl__http_circuit_id(const char *s);
/* A decimal whole number of 1 to 18 digits, at most max (no sign, no
 * space, no hex, no exponent). */
bool pl__http_uint(const char *s, uint64_t max, uint64_t *out);
/* A duration as ?wait= takes it: digits, an optional fraction of up to 3
 * digits, then nothing (seconds), "ms", "s" or "m"; at most 10^9 units.
 * *ms: the milliseconds (not capped here). */
bool pl__http_duration_ms(const char *s, uint64_t *ms);
/* Seconds as ?since= takes them: digits with an optional fraction of up
 * to 3 digits, at most 10^9. */
bool pl__http_seconds(const char *s, double *out);
/* An idempotency key (1 to 128 of PL__HTTP_KEY_CHARS). */
bool pl__http_key(const char *s);
/* Whether Host names this service on loopback: "localhost", an IPv4
 * address in 127/8, or "[::1]", then no port or `port` (0: a Unix socket,
 * any port). */
bool pl__http_loopback_host(const char *host, unsigned port);
/* Whether Origin is the service's own: http://, a loopback Host as above
 * (its port the service's), nothing after it. */
bool pl__http_own_origin(const char *origin, unsigned port);
/* The media type of a Content-Type header, lowercased, without its
 * parameters, into out (cap bytes; "" when absent). */
void pl__http_media_type(const char *content_type, char *out, size_t cap);

/* ---- the route table and the decision: routes.c --------------------------- */

/* Body kinds a route takes (a set). */
enum {
    PL__BODY_NONE = 1,      /* no body (or an empty one) */
    PL__BODY_JSON = 2,      /* application/json, up to PL__HTTP_JSON_MAX */
    PL__BODY_ZKEY = 4,      /* application/octet-stream, up to --max-zkey */
    PL__BODY_MULTIPART = 8, /* multipart/form-data: a spec, then witnesses */
    PL__BODY_WITNESS = 16   /* a witness: exactly its circuit's size; any
                               type (a PUT is never a simple request) */
};

typedef enum {
    PL__R_PAGE, PL__R_HEALTHZ, PL__R_READYZ, PL__R_METRICS, PL__R_STATUS, PL__R_CLUSTER,
    PL__R_TRACE, PL__R_CIRCUITS_LIST, PL__R_CIRCUITS_ADD, PL__R_CIRCUIT,
    PL__R_PRELOAD, PL__R_EVICT, PL__R_JOBS_LIST, PL__R_JOBS_ADD, PL__R_JOB,
    PL__R_JOB_CANCEL, PL__R_WITNESS, PL__R_PROOF, PL__R_PROVE,
    PL__R_COUNT
} pl__route_id;

typedef struct request request;
typedef struct pl__route {
    pl__route_id id;
    const char *method;   /* GET (HEAD too), POST, PUT, DELETE */
    const char *pattern;  /* "/v1/jobs/{job}/witness/{index}" */
    unsigned bodies;      /* PL__BODY_* it takes */
    bool open;            /* no token needed (/healthz) */
    bool writes;          /* changes state: Origin checked, refused while
                             draining or while the store cannot write */
    /* after the decision: sets up the body (NULL: none), then answers */
    void (*begin)(request *rq);
    enum MHD_Result (*end)(request *rq);
} pl__route;

/* A request as the decision sees it: plain text, NULL when absent. */
typedef struct pl__http_view {
    const char *method, *path;
    const char *host, *origin, *sec_fetch_site, *content_type;
    const char *authorization, *transfer_encoding;
    long long content_length; /* -1: absent */
} pl__http_view;

/* The service's side of it. */
typedef struct pl__http_policy {
    const char *token;        /* NULL: none */
    bool tokenless_loopback;  /* Host and Origin checked */
    unsigned port;            /* the bound port; 0: a Unix socket */
    bool draining, unwritable;
    const char *unwritable_why;
} pl__http_policy;

typedef struct pl__http_verdict {
    unsigned code;            /* 0: go on; else the answer's status */
    char msg[512];
    bool retry;               /* Retry-After with the answer */
    char allow[64];           /* 405: the methods the path takes */
    const pl__route *route;
    unsigned body;            /* the PL__BODY_* of this request */
    char id[PL__STORE_ID_LEN + 1]; /* {job} or {circuit} */
    uint32_t index;           /* {index} */
} pl__http_verdict;

/* The decision every request passes, in this order: a Host that is not
 * this service's on loopback (tokenless mode) 403; /healthz open; the
 * token (401, before routing: an unknown path is 401 too); the route
 * (404; 405 with Allow); a state-changing request from another origin
 * (tokenless mode: Origin, Sec-Fetch-Site) 403; a chunked body 411; a
 * Content-Type the route does not take 415; draining or a store that
 * cannot write 503 with Retry-After.  Constant time in the token. */
void pl__http_decide(const pl__http_policy *policy, const pl__http_view *v,
                     pl__http_verdict *out);
const pl__route *pl__http_routes(size_t *n);

/* ---- a request: server.c ----------------------------------------------------- */

typedef enum { P_NONE, P_SPEC, P_WITNESS, P_SKIP } part_kind;

struct request {
    pl__server *server;
    pl__service *svc;
    struct MHD_Connection *conn;
    const pl__route *route;
    bool head;                   /* HEAD: answered as GET, no body sent */
    char id[PL__STORE_ID_LEN + 1];
    uint32_t index;
    /* a refusal decided before the end: answered at the end (or at once) */
    unsigned code;
    pl__strbuf msg;
    bool retry;
    bool replied;
    unsigned body;               /* PL__BODY_*, or 0: read and dropped */
    pl__strbuf json;
    pl__output out;
    bool out_open;
    uint64_t received, expected; /* expected: a witness's exact size */
    pl__sha256 sha;
    pl__store_circuit circuit;   /* a witness's circuit */
    /* multipart: the spec (in json), then the witness parts */
    struct MHD_PostProcessor *pp;
    part_kind part;
    bool spec_seen, job_made, acked;
    pl__store_job job;
    uint32_t n_parts;            /* witness parts begun */
    char **paths;                /* [job.n_partitions]: renamed into place */
    /* idempotency: the key (header or "request_id"; "" without one), and
     * whether the job existed before this request */
    char key[PL__HTTP_KEY_MAX + 1];
    bool existing;
    /* waiting (waits.c): how long (ms; -1: not asked), until when, and
     * the state of the suspension (set under the waiters' lock) */
    long long wait_ms;
    int64_t wait_until_ms;
    request *wait_next;
    bool suspended, resumed, wake;
};

/* The first reason stands; later calls change nothing.  A body being
 * written is abandoned (its temporary file removed). */
void pl__http_refuse(request *rq, unsigned code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Replies.  An error's message is rewritten so it names files relative
 * to DATA (no server path in a body), whole. */
enum MHD_Result pl__http_reply_json(request *rq, unsigned code,
                                    pl__strbuf *body);
enum MHD_Result pl__http_reply_error(request *rq, unsigned code,
                                     const char *msg, bool retry);
enum MHD_Result pl__http_reply_text(request *rq, unsigned code,
                                    const char *text, const char *type,
                                    bool retry);
/* A reply built in body: with st PL_OK, body (a line end added) as JSON
 * with code; else 503 with Retry-After and why (the store or the memory
 * failed us, not the client).  Frees body. */
enum MHD_Result pl__http_reply_built(request *rq, unsigned code,
                                     pl_status st, const char *why,
                                     pl__strbuf *body);
/* A store's error as an HTTP status: not found 404, another usage error
 * 409 (a state that does not allow it), one of its disk or database 503,
 * the rest 500. */
unsigned pl__http_store_code(pl_status st, const pl_error *err);
/* A query argument, or NULL. */
const char *pl__http_arg(request *rq, const char *key);
const char *pl__http_header(request *rq, const char *key);
/* s with DATA's path (and the store's folder) taken out of it, appended
 * to out: "DATA/witnesses/x.wtns: ..." -> "witnesses/x.wtns: ...". */
void pl__http_relative(const pl__service *svc, const char *s,
                       pl__strbuf *out);

/* ---- uploads.c ----------------------------------------------------------------- */

void pl__http_begin_json(request *rq);
void pl__http_begin_zkey(request *rq);
void pl__http_begin_witness(request *rq);
/* POST /v1/jobs and /v1/prove: the key, the queue's room, the body. */
void pl__http_begin_submit(request *rq);
/* Each piece of a body, as it comes. */
void pl__http_take_body(request *rq, const char *data, size_t size);
/* A witness upload that ended: checked and renamed into place; 0, or the
 * HTTP status and msg (the temporary file removed); *misfit: the right
 * size but not a witness of its circuit. */
unsigned pl__http_witness_commit(request *rq, const char *name,
                                 pl__strbuf *msg, bool *misfit);
/* The end of a multipart body: its witnesses recorded, then the reply. */
enum MHD_Result pl__http_end_multipart(request *rq);
/* What a request that was not acknowledged leaves goes (its files, an
 * unkeyed job). */
void pl__http_upload_undo(request *rq);
/* A job from its spec (the JSON body, or the multipart part "spec"). */
unsigned pl__http_job_from_spec(request *rq, const char *name,
                                pl__strbuf *msg);

/* ---- waits.c -------------------------------------------------------------------- */

typedef struct pl__waits pl__waits;
pl_status pl__waits_start(pl__waits **out, pl__service *svc,
                          unsigned max_waiters, pl_error *err);
/* Every waiter answered (its job as it is) before the daemon stops. */
void pl__waits_stop(pl__waits *w);
/* Suspends the request until its job ends, rq->wait_ms pass, or the
 * service drains; false when as many wait as allowed (the caller answers
 * 503). */
bool pl__waits_add(pl__waits *w, request *rq, const pl__store_job *job);
/* Whether the request was resumed (then it is answered and counted
 * out). */
bool pl__waits_resumed(pl__waits *w, request *rq);
void pl__waits_answered(pl__waits *w, request *rq);
/* A resumed request closed before it answered. */
void pl__waits_closed(pl__waits *w, request *rq);
enum MHD_Result pl__http_too_many_waiters(request *rq);
bool pl__http_job_ended(pl__job_state s);

/* ---- guard.c -------------------------------------------------------------------- */

typedef struct pl__guard pl__guard;
pl_status pl__guard_start(pl__guard **out, const pl__server_config *cfg,
                          pl_error *err);
void pl__guard_stop(pl__guard *g);
/* The library's connection notices (MHD_OPTION_NOTIFY_CONNECTION). */
void pl__guard_notify(void *cls, struct MHD_Connection *c, void **socket_ctx,
                      enum MHD_ConnectionNotificationCode toe);
/* A request's headers arrived; its body moved; it ended (the connection
 * waits for the next one's headers); it waits for its job (suspended:
 * exempt from the deadlines). */
void pl__guard_request(pl__guard *g, struct MHD_Connection *c);
void pl__guard_body(pl__guard *g, struct MHD_Connection *c, size_t bytes);
void pl__guard_idle(pl__guard *g, struct MHD_Connection *c);
void pl__guard_waiting(pl__guard *g, struct MHD_Connection *c, bool on);
/* Connections closed so far by each limit, for the figures. */
typedef struct pl__guard_counts {
    uint64_t opened, header_timeouts, slow_bodies, evicted, refused;
} pl__guard_counts;
void pl__guard_counts_read(pl__guard *g, pl__guard_counts *out);

/* ---- the handlers, by resource ------------------------------------------------------ */

enum MHD_Result pl__api_page(request *rq);
enum MHD_Result pl__api_healthz(request *rq);
enum MHD_Result pl__api_readyz(request *rq);
enum MHD_Result pl__api_metrics(request *rq);
enum MHD_Result pl__api_status(request *rq);
enum MHD_Result pl__api_cluster(request *rq);
enum MHD_Result pl__api_trace(request *rq);
enum MHD_Result pl__api_circuits_list(request *rq);
enum MHD_Result pl__api_circuits_add(request *rq);
enum MHD_Result pl__api_circuit(request *rq);
enum MHD_Result pl__api_preload(request *rq);
enum MHD_Result pl__api_evict(request *rq);
enum MHD_Result pl__api_jobs_list(request *rq);
enum MHD_Result pl__api_jobs_add(request *rq);
enum MHD_Result pl__api_job(request *rq);
enum MHD_Result pl__api_job_cancel(request *rq);
enum MHD_Result pl__api_witness(request *rq);
enum MHD_Result pl__api_proof(request *rq);
enum MHD_Result pl__api_prove(request *rq);
/* POST /v1/prove's answer once its witnesses are stored: at once, or
 * after the wait. */
enum MHD_Result pl__api_prove_reply_or_wait(request *rq,
                                            const pl__store_job *job);
/* A resumed waiter's answer: its job as it is now. */
enum MHD_Result pl__api_wait_end(request *rq);
/* The JSON of a job (its partitions read from the store). */
pl_status pl__api_job_json(pl__strbuf *sb, pl__service *svc,
                           const pl__store_job *j, pl_error *err);

/* The server's parts a handler reaches. */
pl__waits *pl__server_waits(pl__server *s);
pl__guard *pl__server_guard(pl__server *s);

#endif /* PL_SERVICE_HTTP_H */
