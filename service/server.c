/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP API of `proofline serve` over libmicrohttpd (see server.h and
 * docs/serve.md).  A request is handled in three steps, as the library
 * calls us: begin (route, authentication, method, limits; an upload's
 * temporary file is opened here), body (each piece written or kept, up to
 * its limit), end (the reply).  A request refused at begin is answered at
 * once when it carries no body, when the client waits for 100-continue,
 * or when the body is over DISCARD_MAX (the library then closes the
 * connection); any other body is read and dropped first, so the client
 * sees the reply and not a reset.
 *
 * A request that waits for its job (GET /v1/jobs/{id}?wait=, POST
 * /v1/prove) is suspended rather than answered: it holds its connection,
 * not a polling thread, and a thread of our own (wait_loop) resumes it
 * when the job ends, its time is up, or the service drains.  Submissions
 * may carry an idempotency key, from which the job's id is derived, so a
 * retry (after a restart too, or through another service on the same
 * database) finds the job the first try made.
 *
 * Errors are {"error": "..."} naming the field or the file; 4xx for the
 * client's mistakes, 5xx for ours, 503 + Retry-After while draining, 429 +
 * Retry-After beyond --max-queued.  Nothing a request does disturbs other
 * jobs: a refused upload removes its temporary file, and the store
 * records only files that are whole.
 */
#define _GNU_SOURCE
#include "server.h"
#include "metrics.h"
#include "residency.h"
#include "worker.h"
#include "formats/formats.h"
#include "formats/json.h"
#include "util/error.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/sha256.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define JSON_BODY_MAX (64u * 1024) /* a job or a path: far less */
#define DISCARD_MAX (64ull << 20) /* a refused body up to this is read */
#define MAX_PARTITIONS 4096        /* per job */
#define LIST_LIMIT_DEFAULT 100
#define RETRY_AFTER_S 5
/* Idempotency keys: printable, short, no separators a log or a header
 * could misread. */
#define KEY_MAX 128
#define KEY_CHARS "A-Z a-z 0-9 . _ : -"
/* ?wait=: at most this long (a waiter holds a connection, not a thread,
 * but it should not hold one for ever); POST /v1/prove waits the default
 * when it is not given. */
#define WAIT_MAX_MS (300 * 1000)
#define PROVE_WAIT_MS (120 * 1000)
/* How often the waiters' jobs are read from the store. */
#define WAIT_POLL_MS 50

typedef struct request request;

struct pl__server {
    pl__service *svc;
    struct MHD_Daemon *daemon;
    int fd;
    char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    /* Requests waiting for their job to end (?wait=, POST /v1/prove):
     * their connections are suspended (no thread held), and the waiter
     * thread reads their jobs every WAIT_POLL_MS, resuming each when its
     * job ends, its time is up, or the service drains or stops. */
    pthread_mutex_t wait_mu;
    pthread_cond_t wait_cv;
    pthread_t wait_thread;
    bool wait_started, wait_stop;
    request *waiters;
    unsigned n_waiters, max_waiters;
    unsigned n_resumed; /* resumed, not answered yet: stop waits for them */
};

typedef enum {
    R_NONE, R_HEALTHZ, R_READYZ, R_METRICS, R_STATUS, R_CLUSTER, R_TRACE,
    R_CIRCUITS, R_CIRCUIT, R_PRELOAD, R_EVICT, R_JOBS, R_JOB, R_WITNESS,
    R_PROOF, R_PROVE
} route_kind;

typedef enum {
    B_NONE, B_JSON, B_ZKEY, B_WITNESS, B_MULTIPART, B_DISCARD
} body_kind;

typedef enum { P_NONE, P_SPEC, P_WITNESS, P_SKIP } part_kind;

struct request {
    route_kind route;
    char id[PL__STORE_ID_LEN + 8];
    uint32_t index;
    /* a refusal decided before the end: answered at the end (or at once) */
    unsigned code;
    char msg[512];
    bool retry;
    bool replied;
    body_kind body;
    pl__strbuf json;
    pl__output out;
    bool out_open;
    uint64_t received, expected; /* expected: a witness's exact size */
    pl__sha256 sha;
    pl__store_circuit circuit;   /* a witness's circuit */
    /* multipart: the spec (in json), then the witness parts */
    pl__server *server;
    struct MHD_PostProcessor *pp;
    part_kind part;
    bool spec_seen, job_made, acked;
    pl__store_job job;
    uint32_t n_parts;            /* witness parts begun */
    char **paths;                /* [job.n_partitions]: renamed into place */
    /* idempotency: the key (header or "request_id"; "" without one), and
     * whether the job existed before this request */
    char key[KEY_MAX + 1];
    bool existing;
    /* waiting: how long (ms; -1: not asked), until when, and the state of
     * the suspension (the waiter thread sets resumed, under wait_mu) */
    long long wait_ms;
    int64_t wait_until_ms;
    struct MHD_Connection *conn;
    request *wait_next;
    bool suspended, resumed;
    bool wake; /* the waiter thread's own mark, between its two passes */
};

/* ---- replies -------------------------------------------------------------- */

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned code,
                                 const char *text, size_t len,
                                 const char *ctype, bool retry,
                                 const char *allow)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    if (retry) {
        char s[16];
        snprintf(s, sizeof(s), "%d", RETRY_AFTER_S);
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, s);
    }
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned code,
                                 pl__strbuf *sb)
{
    if (sb->failed)
        return send_text(c, 500, "{\"error\": \"out of memory\"}\n", 27,
                         "application/json", false, NULL);
    return send_text(c, code, sb->data ? sb->data : "", sb->len,
                     "application/json", false, NULL);
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned code,
                                  const char *msg, bool retry,
                                  const char *allow)
{
    pl__strbuf sb = {0};
    pl__strbuf_printf(&sb, "{\"error\": ");
    pl__json_put_string(&sb, msg);
    pl__strbuf_printf(&sb, "}\n");
    enum MHD_Result ret =
        sb.failed ? MHD_NO
                  : send_text(c, code, sb.data, sb.len, "application/json",
                              retry, allow);
    pl__strbuf_free(&sb);
    return ret;
}

static void refuse(request *rq, unsigned code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void refuse(request *rq, unsigned code, const char *fmt, ...)
{
    if (rq->code)
        return; /* the first reason stands */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rq->msg, sizeof(rq->msg), fmt, ap);
    va_end(ap);
    rq->code = code;
    if (rq->out_open) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
    }
    rq->body = B_DISCARD;
}

/* A store error: unknown ids are 404, other usage errors 409 (a state that
 * does not allow it), the rest 500. */
static unsigned store_code(pl_status st, const pl_error *err)
{
    if (pl__store_is_not_found(err))
        return 404;
    if (st == PL_EUSAGE)
        return 409;
    return 500;
}

/* ---- JSON of the store's records ------------------------------------------ */

static void circuit_json(pl__strbuf *sb, const pl__store_circuit *c)
{
    pl__strbuf_printf(sb,
                      "{\"id\": \"%s\", \"constraints\": %llu, \"vars\": %llu, "
                      "\"public\": %llu, \"witness_bytes\": %llu, "
                      "\"partition_bytes\": %llu, \"zkey_bytes\": %llu, "
                      "\"created_ms\": %lld}",
                      c->id, (unsigned long long)c->n_constraints,
                      (unsigned long long)c->n_vars,
                      (unsigned long long)c->n_public,
                      (unsigned long long)c->witness_bytes,
                      (unsigned long long)c->partition_bytes,
                      (unsigned long long)c->zkey_bytes,
                      (long long)c->created_unix_ms);
}

static pl_status job_json(pl__strbuf *sb, pl__service *svc,
                          const pl__store_job *j, pl_error *err)
{
    pl__store *store = svc->store;
    pl__strbuf_printf(sb, "{\"id\": \"%s\", \"circuit\": \"%s\", \"priority\": "
                      "\"%s\", \"state\": \"%s\", \"n_partitions\": %u, "
                      "\"created_ms\": %lld, \"updated_ms\": %lld, "
                      "\"finished_ms\": %lld, \"deadline_ms\": %lld, "
                      "\"deadline_missed\": %s, \"error\": ",
                      j->id, j->circuit_id, pl__priority_name(j->priority),
                      pl__job_state_name(j->state), j->n_partitions,
                      (long long)j->created_unix_ms,
                      (long long)j->updated_unix_ms,
                      (long long)j->finished_unix_ms,
                      (long long)j->deadline_unix_ms,
                      pl__store_job_deadline_missed(j, pl__service_now_ms())
                          ? "true" : "false");
    pl__json_put_string(sb, j->error);
    pl__strbuf_printf(sb, ", \"partitions\": [");
    size_t n = j->n_partitions, count = 0;
    /* 4096 partitions of a job are ~36 MiB of records: accounted */
    pl__store_partition *parts =
        pl__alloc(PL__SERVICE_BUF, (n ? n : 1) * sizeof(*parts), err);
    if (!parts)
        return PL_ENOMEM;
    pl_status st = pl__store_partitions(store, j->id, parts, n, &count, err);
    for (size_t i = 0; st == PL_OK && i < count && i < n; i++) {
        const pl__store_partition *p = &parts[i];
        pl__strbuf_printf(sb, "%s{\"index\": %u, \"state\": \"%s\", "
                          "\"witness_stored\": %s, "
                          "\"attempts\": %u, \"completions\": %u, "
                          "\"claimed_ms\": %lld, \"finished_ms\": %lld, "
                          "\"error\": ",
                          i ? ", " : "", p->index, pl__part_state_name(p->state),
                          p->witness_path[0] ? "true" : "false",
                          p->attempts, p->completions, (long long)p->claimed_unix_ms,
                          (long long)p->finished_unix_ms);
        pl__json_put_string(sb, p->error);
        /* queue wait: from the job's creation (its witnesses' upload
         * included: the store keeps no time of queueing) to the latest
         * claim; proving: from that claim to the end */
        pl__strbuf_printf(sb, ", \"timings\": {\"queue_wait_ms\": ");
        if (p->claimed_unix_ms > 0)
            pl__strbuf_printf(sb, "%lld", (long long)(p->claimed_unix_ms -
                                                      j->created_unix_ms));
        else
            pl__strbuf_printf(sb, "null");
        pl__strbuf_printf(sb, ", \"prove_ms\": ");
        if (p->claimed_unix_ms > 0 && p->finished_unix_ms >= p->claimed_unix_ms)
            pl__strbuf_printf(sb, "%lld}", (long long)(p->finished_unix_ms -
                                                       p->claimed_unix_ms));
        else
            pl__strbuf_printf(sb, "null}");
        /* where a claimed partition is in this service's engine */
        const char *stage =
            p->state == PL__PART_CLAIMED && svc->metrics
                ? pl__metrics_stage(svc->metrics, p->job_id, p->index)
                : NULL;
        if (stage)
            pl__strbuf_printf(sb, ", \"stage\": \"%s\"}", stage);
        else
            pl__strbuf_printf(sb, ", \"stage\": null}");
    }
    pl__free(parts);
    pl__strbuf_printf(sb, "], \"timings\": {\"total_ms\": ");
    if (j->finished_unix_ms > 0)
        pl__strbuf_printf(sb, "%lld}}", (long long)(j->finished_unix_ms -
                                                    j->created_unix_ms));
    else
        pl__strbuf_printf(sb, "null}}");
    return st;
}

/* ---- routing ---------------------------------------------------------------- */

/* Splits the path into at most 5 segments; false when there are more or a
 * segment is too long for an id. */
static size_t split_path(const char *url, char seg[5][PL__STORE_ID_LEN + 8])
{
    size_t n = 0;
    const char *p = url;
    while (*p == '/')
        p++;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n == 5 || len >= PL__STORE_ID_LEN + 8)
            return 6;
        memcpy(seg[n], p, len);
        seg[n][len] = '\0';
        n++;
        p += len;
        while (*p == '/')
            p++;
    }
    return n;
}

static bool parse_index(uint32_t *out, const char *s)
{
    if (!*s || strlen(s) > 9)
        return false;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    *out = (uint32_t)strtoul(s, NULL, 10);
    return true;
}

/* The route and the methods it allows ("GET", "GET, POST"). */
static route_kind route(const char *url, request *rq, const char **allow)
{
    char seg[5][PL__STORE_ID_LEN + 8];
    size_t n = split_path(url, seg);
    *allow = "GET";
    if (n == 1 && strcmp(seg[0], "healthz") == 0)
        return R_HEALTHZ;
    if (n == 1 && strcmp(seg[0], "readyz") == 0)
        return R_READYZ;
    if (n == 1 && strcmp(seg[0], "metrics") == 0)
        return R_METRICS;
    if (n < 2 || strcmp(seg[0], "v1") != 0)
        return R_NONE;
    if (n == 2 && strcmp(seg[1], "status") == 0)
        return R_STATUS;
    if (n == 2 && strcmp(seg[1], "trace") == 0)
        return R_TRACE;
    if (n == 2 && strcmp(seg[1], "cluster") == 0)
        return R_CLUSTER;
    if (n == 2 && strcmp(seg[1], "prove") == 0) {
        *allow = "POST";
        return R_PROVE;
    }
    if (strcmp(seg[1], "circuits") == 0) {
        if (n == 2) {
            *allow = "GET, POST";
            return R_CIRCUITS;
        }
        snprintf(rq->id, sizeof(rq->id), "%s", seg[2]);
        if (n == 3)
            return R_CIRCUIT;
        *allow = "POST";
        if (n == 4 && strcmp(seg[3], "preload") == 0)
            return R_PRELOAD;
        if (n == 4 && strcmp(seg[3], "evict") == 0)
            return R_EVICT;
        return R_NONE;
    }
    if (strcmp(seg[1], "jobs") != 0)
        return R_NONE;
    if (n == 2) {
        *allow = "GET, POST";
        return R_JOBS;
    }
    snprintf(rq->id, sizeof(rq->id), "%s", seg[2]);
    if (n == 3) {
        *allow = "GET, DELETE";
        return R_JOB;
    }
    if (n == 5 && strcmp(seg[3], "witness") == 0 &&
        parse_index(&rq->index, seg[4])) {
        *allow = "PUT";
        return R_WITNESS;
    }
    if (n == 5 && strcmp(seg[3], "proofs") == 0 &&
        parse_index(&rq->index, seg[4]))
        return R_PROOF;
    return R_NONE;
}

static bool method_allowed(const char *method, const char *allow)
{
    size_t len = strlen(method);
    for (const char *p = allow; (p = strstr(p, method)) != NULL; p += len)
        if ((p == allow || p[-1] == ' ') && (p[len] == ',' || !p[len]))
            return true;
    return false;
}

/* Compares the Authorization header with "Bearer <token>" in time that
 * depends on the token's length only, not on where they differ. */
static bool authorized(const pl__service *svc, struct MHD_Connection *c)
{
    if (!svc->token)
        return true;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncmp(h, "Bearer ", 7) != 0)
        return false;
    h += 7;
    size_t want = strlen(svc->token), got = strlen(h);
    unsigned diff = (unsigned)(want != got);
    for (size_t i = 0; i < want; i++)
        diff |= (unsigned char)svc->token[i] ^
                (unsigned char)(i < got ? h[i] : 0);
    return diff == 0;
}

static bool content_type_is(struct MHD_Connection *c, const char *type)
{
    const char *t = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_CONTENT_TYPE);
    size_t n = strlen(type);
    return t && strncasecmp(t, type, n) == 0 &&
           (t[n] == '\0' || t[n] == ';' || t[n] == ' ');
}

/* Content-Length, or -1 when absent (chunked) or unreadable. */
static long long content_length(struct MHD_Connection *c)
{
    const char *t = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!t || !*t)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    return errno || *end || v < 0 ? -1 : v;
}

static void random_tag(char out[17])
{
    uint8_t b[8] = {0};
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
        /* getrandom does not fail for 8 bytes once the pool is ready */
        uint64_t t = (uint64_t)pl__service_now_ms() ^ (uint64_t)getpid();
        memcpy(b, &t, sizeof(b));
    }
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* ---- idempotency keys and waits ------------------------------------------- */

/* Whether key is a valid idempotency key; when it is not, msg says why,
 * naming `what` (the header or the field). */
static bool key_valid(const char *key, const char *what, char *msg,
                      size_t cap)
{
    size_t n = strlen(key);
    bool ok = n >= 1 && n <= KEY_MAX;
    for (const char *p = key; ok && *p; p++)
        ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
             (*p >= '0' && *p <= '9') || strchr("._:-", *p);
    if (!ok)
        snprintf(msg, cap, "%s: 1 to %d characters of %s are allowed", what,
                 KEY_MAX, KEY_CHARS);
    return ok;
}

/* The job id a key stands for: the sha256 of a fixed prefix and the key,
 * cut to 16 bytes and shaped as a UUID (version 8: made by us, variant
 * RFC 4122).  Deterministic, so a retry after a restart, or through
 * another service on the same database, names the same row, and the
 * store's unique id makes it one job. */
static void key_job_id(char out[PL__STORE_JOB_ID_LEN + 1], const char *key)
{
    static const char prefix[] = "proofline idempotency key v1\n";
    pl__sha256 h;
    uint8_t d[32];
    pl__sha256_init(&h);
    pl__sha256_update(&h, prefix, sizeof(prefix) - 1);
    pl__sha256_update(&h, key, strlen(key));
    pl__sha256_final(&h, d);
    d[6] = (uint8_t)((d[6] & 0x0f) | 0x80);
    d[8] = (uint8_t)((d[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[d[i] >> 4];
        out[o++] = hex[d[i] & 15];
    }
    out[o] = 0;
}

/* ?wait=: "30", "30s", "500ms", "2m"; capped at WAIT_MAX_MS.  -1 when the
 * argument is absent; -2 when it does not parse. */
static long long parse_wait(struct MHD_Connection *c)
{
    const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                "wait");
    if (!w)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(w, &end);
    if (!*w || errno || end == w || !(v >= 0))
        return -2;
    double scale = 1000;
    if (strcmp(end, "ms") == 0)
        scale = 1;
    else if (strcmp(end, "m") == 0)
        scale = 60000;
    else if (*end && strcmp(end, "s") != 0)
        return -2;
    double ms = v * scale;
    return ms > WAIT_MAX_MS ? WAIT_MAX_MS : (long long)ms;
}

static bool job_ended(pl__job_state s)
{
    return s == PL__JOB_DONE || s == PL__JOB_FAILED || s == PL__JOB_CANCELLED;
}

/* ---- begin: what a request will do with its body ---------------------- */

static void begin_witness(pl__server *s, struct MHD_Connection *c,
                          request *rq)
{
    pl__service *svc = s->svc;
    pl_error err = {0};
    pl__store_job job;
    pl_status st = pl__store_job_get(svc->store, rq->id, &job, &err);
    if (st != PL_OK) {
        refuse(rq, store_code(st, &err), "job: %s", err.msg);
        return;
    }
    if (rq->index >= job.n_partitions) {
        refuse(rq, 404, "witness: job %s has %u partitions, no partition %u",
               job.id, job.n_partitions, rq->index);
        return;
    }
    if (job.state != PL__JOB_RECEIVING) {
        refuse(rq, 409, "witness: job %s is %s, not receiving", job.id,
               pl__job_state_name(job.state));
        return;
    }
    if ((st = pl__store_circuit_get(svc->store, job.circuit_id, &rq->circuit,
                                    &err)) != PL_OK) {
        refuse(rq, store_code(st, &err), "circuit: %s", err.msg);
        return;
    }
    rq->expected = rq->circuit.witness_bytes;
    long long len = content_length(c);
    if (len >= 0 && (uint64_t)len != rq->expected) {
        refuse(rq, 400, "witness %u: the body is %lld bytes, but a witness of "
               "circuit %.16s... is exactly %llu bytes", rq->index, len,
               rq->circuit.id, (unsigned long long)rq->expected);
        return;
    }
    char tag[17], path[PL__SERVICE_PATH_MAX + 128];
    random_tag(tag);
    snprintf(path, sizeof(path), "%s/witnesses/%s.%u.%s.wtns", svc->data_dir,
             job.id, rq->index, tag);
    if ((st = pl__output_open(&rq->out, path, &err)) != PL_OK) {
        refuse(rq, 500, "witness %u: %s", rq->index, err.msg);
        return;
    }
    rq->out_open = true;
    rq->body = B_WITNESS;
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind,
                               const char *key, const char *filename,
                               const char *content_type,
                               const char *transfer_encoding,
                               const char *data, uint64_t off, size_t size);
static enum MHD_Result prove_reply_or_wait(pl__server *s,
                                           struct MHD_Connection *conn,
                                           request *rq,
                                           const pl__store_job *job);

static void begin(pl__server *s, struct MHD_Connection *c, request *rq,
                  const char *url, const char *method)
{
    pl__service *svc = s->svc;
    const char *allow;
    rq->route = route(url, rq, &allow);
    rq->body = B_DISCARD; /* a body nobody asked for is dropped */
    if (rq->route == R_NONE) {
        refuse(rq, 404, "no such resource: %.200s", url);
        return;
    }
    if (rq->route != R_HEALTHZ && !authorized(svc, c)) {
        refuse(rq, 401, "Authorization: a valid bearer token is needed");
        return;
    }
    if (!method_allowed(method, allow)) {
        refuse(rq, 405, "%s: method %.16s not allowed (allowed: %s)", url,
               method, allow);
        return;
    }
    bool writes = strcmp(method, "GET") != 0;
    if (writes && atomic_load(&svc->draining)) {
        refuse(rq, 503, "the service is draining (shutting down): retry "
               "later");
        rq->retry = true;
        return;
    }
    if (rq->route == R_CIRCUITS && strcmp(method, "POST") == 0) {
        if (content_type_is(c, "application/json")) {
            rq->body = B_JSON;
            return;
        }
        long long len = content_length(c);
        if (svc->max_zkey_bytes && len > 0 &&
            (uint64_t)len > svc->max_zkey_bytes) {
            refuse(rq, 413, "body: a zkey of %lld bytes, more than the %llu "
                   "of --max-zkey", len,
                   (unsigned long long)svc->max_zkey_bytes);
            return;
        }
        char path[PL__SERVICE_PATH_MAX + 64];
        snprintf(path, sizeof(path), "%s/circuits/upload.zkey", svc->data_dir);
        pl_error err = {0};
        if (pl__output_open(&rq->out, path, &err) != PL_OK) {
            refuse(rq, 500, "zkey upload: %s", err.msg);
            return;
        }
        rq->out_open = true;
        pl__sha256_init(&rq->sha);
        rq->body = B_ZKEY;
        return;
    }
    bool submits = rq->route == R_PROVE ||
                   (rq->route == R_JOBS && strcmp(method, "POST") == 0);
    rq->wait_ms = -1;
    if (rq->route == R_JOB || rq->route == R_PROVE) {
        rq->wait_ms = parse_wait(c);
        if (rq->wait_ms == -2) {
            refuse(rq, 400, "wait: a duration such as 30, 30s, 500ms or 2m "
                   "is needed (at most %d s)", WAIT_MAX_MS / 1000);
            return;
        }
        if (rq->route == R_PROVE && rq->wait_ms < 0)
            rq->wait_ms = PROVE_WAIT_MS;
    }
    bool known = false; /* a retry of a job that exists: no 429 */
    if (submits) {
        const char *key = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                      "Idempotency-Key");
        if (key) {
            char msg[160];
            if (!key_valid(key, "Idempotency-Key", msg, sizeof(msg))) {
                refuse(rq, 400, "%s", msg);
                return;
            }
            snprintf(rq->key, sizeof(rq->key), "%s", key);
            char id[PL__STORE_JOB_ID_LEN + 1];
            pl__store_job job;
            pl_error err = {0};
            key_job_id(id, key);
            known = pl__store_job_get(svc->store, id, &job, &err) == PL_OK;
        }
    }
    if (rq->route == R_PROVE && !content_type_is(c, "multipart/form-data")) {
        refuse(rq, 415, "Content-Type: POST /v1/prove takes "
               "multipart/form-data (a part `spec`, then the `witness` "
               "parts)");
        return;
    }
    if (submits) {
        if (svc->max_queued && !known) {
            pl__store_counts counts;
            pl_error err = {0};
            if (pl__store_counts_read(svc->store, &counts, &err) != PL_OK) {
                refuse(rq, 500, "store: %s", err.msg);
                return;
            }
            uint64_t waiting = counts.jobs[PL__JOB_RECEIVING] +
                               counts.jobs[PL__JOB_QUEUED];
            if (waiting >= svc->max_queued) {
                refuse(rq, 429, "the queue is full: %llu jobs waiting "
                       "(--max-queued %llu); retry later",
                       (unsigned long long)waiting,
                       (unsigned long long)svc->max_queued);
                rq->retry = true;
                return;
            }
        }
        if (content_type_is(c, "multipart/form-data")) {
            rq->pp = MHD_create_post_processor(c, 64 * 1024, on_part, rq);
            if (!rq->pp) {
                refuse(rq, 400, "multipart: no boundary in Content-Type");
                return;
            }
            rq->body = B_MULTIPART;
            return;
        }
        rq->body = B_JSON;
        return;
    }
    if (rq->route == R_WITNESS) {
        begin_witness(s, c, rq);
        return;
    }
}

/* ---- body ------------------------------------------------------------------ */

static void take_body(request *rq, const char *data, size_t size)
{
    pl_error err = {0};
    switch (rq->body) {
    case B_JSON:
        if (rq->json.len + size > JSON_BODY_MAX) {
            refuse(rq, 413, "body: more than %u bytes of JSON", JSON_BODY_MAX);
            return;
        }
        pl__strbuf_printf(&rq->json, "%.*s", (int)size, data);
        if (rq->json.failed)
            refuse(rq, 500, "body: out of memory");
        return;
    case B_ZKEY:
        if (rq->server->svc->max_zkey_bytes &&
            rq->received + size > rq->server->svc->max_zkey_bytes) {
            refuse(rq, 413, "body: a zkey of more than the %llu bytes of "
                   "--max-zkey",
                   (unsigned long long)rq->server->svc->max_zkey_bytes);
            return;
        }
        pl__sha256_update(&rq->sha, data, size);
        /* fallthrough */
    case B_WITNESS:
        if (rq->body == B_WITNESS && rq->received + size > rq->expected) {
            refuse(rq, 400, "witness %u: the body is more than the %llu bytes "
                   "of a witness of circuit %.16s...", rq->index,
                   (unsigned long long)rq->expected, rq->circuit.id);
            return;
        }
        if (pl__output_write(&rq->out, data, size, &err) != PL_OK) {
            refuse(rq, 500, "upload: %s", err.msg);
            return;
        }
        rq->received += size;
        return;
    case B_MULTIPART:
        if (MHD_post_process(rq->pp, data, size) != MHD_YES)
            refuse(rq, 400, "multipart: the body does not parse");
        return;
    case B_NONE:
    case B_DISCARD:
        return;
    }
}

/* ---- end: the replies -------------------------------------------------------- */

/* Opens the zkey at path, fills the circuit's shape and its planned bytes
 * per partition (the engine's plan; the circuit is opened and released, or
 * shared with the worker's open one).  *code: the HTTP status on failure. */
static pl_status describe_circuit(pl__service *svc, pl__store_circuit *c,
                                  const char *path, const char *name,
                                  unsigned *code, pl_error *err)
{
    pl_zkey *zkey = NULL;
    pl_status st = pl_zkey_open(&zkey, path, err);
    if (st != PL_OK) {
        *code = st == PL_EIO ? 500 : 400;
        /* the temporary file's name means nothing to the client */
        char msg[sizeof(err->msg)];
        const char *m = strstr(err->msg, ": ");
        snprintf(msg, sizeof(msg), "%s%s", name, m ? m : err->msg);
        memcpy(err->msg, msg, sizeof(msg));
        return st;
    }
    pl_zkey_info info;
    pl_zkey_get_info(zkey, &info);
    pl_zkey_close(zkey);
    snprintf(c->zkey_path, sizeof(c->zkey_path), "%s", path);
    c->n_constraints = info.n_constraints;
    c->n_vars = info.n_vars;
    c->n_public = info.n_public;
    c->witness_bytes = pl__wtns_file_bytes(info.n_vars);
    /* opened through the residency: it stays hot for its first proof (a
     * circuit larger than the parameter budget is refused here, with the
     * numbers, rather than waited for at every claim) */
    pl_circuit *circuit;
    bool busy = false;
    double took = 0;
    if ((st = pl__residency_acquire(svc->residency, c->id, path, 0, &circuit,
                                    &took, &busy, err)) != PL_OK) {
        *code = busy ? 503 : st == PL_EBUDGET ? 400 : st == PL_EIO ? 500 : 400;
        return st;
    }
    uint64_t resident;
    pl_circuit_plan(circuit, c->witness_bytes, &c->partition_bytes, &resident);
    pl__residency_release(svc->residency, c->id);
    if (took > 0)
        pl__metrics_promotion(svc->metrics, c->id, took);
    if (c->partition_bytes + resident > svc->budget_bytes) {
        *code = 400;
        return pl__error_set(err, PL_EBUDGET, "%s: one partition needs %llu "
                             "bytes and the circuit %llu resident, more than "
                             "the budget's %llu", name,
                             (unsigned long long)c->partition_bytes,
                             (unsigned long long)resident,
                             (unsigned long long)svc->budget_bytes);
    }
    c->created_unix_ms = pl__service_now_ms();
    return PL_OK;
}

static enum MHD_Result reply_circuit(struct MHD_Connection *conn,
                                     unsigned code, const pl__store_circuit *c)
{
    pl__strbuf sb = {0};
    circuit_json(&sb, c);
    pl__strbuf_printf(&sb, "\n");
    enum MHD_Result r = send_json(conn, code, &sb);
    pl__strbuf_free(&sb);
    return r;
}

/* POST /v1/circuits with the zkey in the body. */
static enum MHD_Result end_zkey_upload(pl__server *s,
                                       struct MHD_Connection *conn,
                                       request *rq)
{
    pl__service *svc = s->svc;
    pl_error err = {0};
    uint8_t digest[32];
    pl__store_circuit c = {0};
    pl__sha256_final(&rq->sha, digest);
    pl__sha256_hex(c.id, digest);
    c.zkey_bytes = rq->received;
    pl__store_circuit known;
    if (pl__store_circuit_get(svc->store, c.id, &known, &err) == PL_OK) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return reply_circuit(conn, 200, &known);
    }
    if (pl__output_finish(&rq->out, &err) != PL_OK) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return send_error(conn, 500, err.msg, false, NULL);
    }
    /* checked in its temporary file, then renamed to its id: a zkey that
     * does not open never appears under circuits/ */
    unsigned code = 400;
    pl_zkey *zkey;
    if (pl_zkey_open(&zkey, rq->out.tmp_path, &err) != PL_OK) {
        const char *m = strstr(err.msg, ": ");
        char msg[300];
        snprintf(msg, sizeof(msg), "body (zkey)%s", m ? m : err.msg);
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return send_error(conn, 400, msg, false, NULL);
    }
    pl_zkey_close(zkey);
    snprintf(rq->out.path, sizeof(rq->out.path), "%s/circuits/%s.zkey",
             svc->data_dir, c.id);
    pl_status st = pl__output_commit(&rq->out, &err);
    rq->out_open = false;
    if (st != PL_OK)
        return send_error(conn, 500, err.msg, false, NULL);
    char path[PL__STORE_PATH_MAX];
    snprintf(path, sizeof(path), "%s/circuits/%s.zkey", svc->data_dir, c.id);
    if ((st = describe_circuit(svc, &c, path, "body (zkey)", &code, &err)) !=
            PL_OK ||
        (code = 500, st = pl__store_circuit_put(svc->store, &c, &err)) !=
            PL_OK) {
        unlink(path);
        return send_error(conn, code, err.msg, code == 503, NULL);
    }
    return reply_circuit(conn, 201, &c);
}

/* POST /v1/circuits {"path": "/abs/file.zkey"} under --allow-path. */
static enum MHD_Result end_circuit_path(pl__server *s,
                                        struct MHD_Connection *conn,
                                        const pl__json_doc *doc)
{
    pl__service *svc = s->svc;
    pl_error err = {0};
    const pl__json_value *root = pl__json_root(doc), *v;
    if (root->type != PL__JSON_OBJECT)
        return send_error(conn, 400, "body: a JSON object is needed", false,
                          NULL);
    if (pl__json_member(&v, doc, root, "path", true, "", &err) != PL_OK)
        return send_error(conn, 400, err.msg, false, NULL);
    if (v->type != PL__JSON_STRING)
        return send_error(conn, 400, "body: path: a string is needed", false,
                          NULL);
    if (!svc->allow_path)
        return send_error(conn, 403, "path: registering a zkey by path needs "
                          "the service started with --allow-path DIR", false,
                          NULL);
    char real[PATH_MAX], allow[PATH_MAX];
    if (!realpath(v->text, real))
        return send_error(conn, 400, "path: no such file", false, NULL);
    if (!realpath(svc->allow_path, allow))
        return send_error(conn, 500, "--allow-path: the folder is gone", false,
                          NULL);
    size_t n = strlen(allow);
    if (strncmp(real, allow, n) != 0 || (real[n] != '/' && n > 1))
        return send_error(conn, 403, "path: outside the folder --allow-path "
                          "allows", false, NULL);
    int fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0)
            close(fd);
        return send_error(conn, 400, "path: not a readable regular file",
                          false, NULL);
    }
    /* its id: the sha256 of its bytes, read in pieces */
    pl__store_circuit c = {0};
    pl__sha256 h;
    pl__sha256_init(&h);
    static const size_t piece = 256 * 1024;
    uint8_t *buf = malloc(piece);
    ssize_t got = 0;
    while (buf && (got = read(fd, buf, piece)) > 0) {
        pl__sha256_update(&h, buf, (size_t)got);
        c.zkey_bytes += (uint64_t)got;
    }
    free(buf);
    close(fd);
    if (!buf || got < 0)
        return send_error(conn, 500, "path: reading the file failed", false,
                          NULL);
    uint8_t digest[32];
    pl__sha256_final(&h, digest);
    pl__sha256_hex(c.id, digest);
    pl__store_circuit known;
    if (pl__store_circuit_get(svc->store, c.id, &known, &err) == PL_OK)
        return reply_circuit(conn, 200, &known);
    unsigned code = 400;
    pl_status st;
    if ((st = describe_circuit(svc, &c, real, "path", &code, &err)) != PL_OK ||
        (code = 500, st = pl__store_circuit_put(svc->store, &c, &err)) != PL_OK)
        return send_error(conn, code, err.msg, code == 503, NULL);
    return reply_circuit(conn, 201, &c);
}

static enum MHD_Result reply_job(pl__server *s, struct MHD_Connection *conn,
                                 unsigned code, const pl__store_job *job)
{
    pl__strbuf sb = {0};
    pl_error err = {0};
    if (job_json(&sb, s->svc, job, &err) != PL_OK) {
        pl__strbuf_free(&sb);
        return send_error(conn, 500, err.msg, false, NULL);
    }
    pl__strbuf_printf(&sb, "\n");
    enum MHD_Result r = send_json(conn, code, &sb);
    pl__strbuf_free(&sb);
    return r;
}

/* A job's deadline, "deadline_s" of a spec: seconds after submission. */
#define DEADLINE_S_MAX (30.0 * 24 * 3600) /* 30 days */

/* A job from its spec {"circuit": ID, "priority": P, "partitions": N,
 * "request_id": KEY, "deadline_s": S} (`name` names it in messages:
 * "body", "spec"): 0 and the job, or the HTTP status and msg.  With an
 * idempotency key (key: the header's, "" without one; the field's is
 * copied there) the job is the key's: *existing tells whether it was
 * there already, and one with another circuit, priority or partition
 * count is 409 naming them.  Another deadline is not a conflict: a retry
 * comes later than the first request, so its "S seconds from now" is
 * another instant for the same wish; the job keeps its first deadline. */
static unsigned job_from_spec(pl__server *s, pl__store_job *job,
                              pl__store_circuit *c, const char *text,
                              size_t len, const char *name, char *msg,
                              size_t cap, char key[KEY_MAX + 1],
                              bool *existing)
{
    *existing = false;
    pl__service *svc = s->svc;
    pl_error err = {0};
    pl__json_doc doc;
    unsigned code = 0;
    if (pl__json_parse(&doc, text ? text : "", len, name, &err) != PL_OK) {
        snprintf(msg, cap, "%s", err.msg);
        return 400;
    }
    const pl__json_value *root = pl__json_root(&doc), *vc, *vp, *vn, *vr,
                         *vd;
    pl__priority prio = PL__PRIORITY_NORMAL;
    unsigned long n = 1;
    int64_t deadline_ms = 0; /* after creation; 0: none */
    if (root->type != PL__JSON_OBJECT) {
        snprintf(msg, cap, "%s: a JSON object is needed", name);
        code = 400;
        goto done;
    }
    if (pl__json_member(&vc, &doc, root, "circuit", true, "", &err) != PL_OK ||
        pl__json_member(&vp, &doc, root, "priority", false, "", &err) !=
            PL_OK ||
        pl__json_member(&vn, &doc, root, "partitions", false, "", &err) !=
            PL_OK ||
        pl__json_member(&vr, &doc, root, "request_id", false, "", &err) !=
            PL_OK ||
        pl__json_member(&vd, &doc, root, "deadline_s", false, "", &err) !=
            PL_OK) {
        snprintf(msg, cap, "%s", err.msg);
        code = 400;
        goto done;
    }
    if (vc->type != PL__JSON_STRING) {
        snprintf(msg, cap, "%s: circuit: a string (the circuit's id) is "
                 "needed", name);
        code = 400;
        goto done;
    }
    if (vp && (vp->type != PL__JSON_STRING ||
               !pl__priority_parse(&prio, vp->text))) {
        snprintf(msg, cap,
                 "%s: priority: \"critical\", \"high\", \"normal\" or \"low\"",
                 name);
        code = 400;
        goto done;
    }
    if (vn) {
        char num[16] = {0};
        bool ok = vn->type == PL__JSON_NUMBER && vn->len < sizeof(num);
        if (ok) {
            memcpy(num, vn->text, vn->len);
            char *end;
            n = strtoul(num, &end, 10);
            ok = !*end && n >= 1 && n <= MAX_PARTITIONS;
        }
        if (!ok) {
            snprintf(msg, cap, "%s: partitions: a whole number from 1 to %d "
                     "is needed", name, MAX_PARTITIONS);
            code = 400;
            goto done;
        }
    }
    if (vd) {
        char num[40] = {0};
        bool ok = vd->type == PL__JSON_NUMBER && vd->len < sizeof(num);
        double secs = 0;
        if (ok) {
            memcpy(num, vd->text, vd->len);
            char *end;
            secs = strtod(num, &end);
            ok = !*end && secs > 0 && secs <= DEADLINE_S_MAX;
        }
        if (!ok) {
            snprintf(msg, cap, "%s: deadline_s: a number of seconds above 0 "
                     "and at most %.0f (30 days) is needed", name,
                     DEADLINE_S_MAX);
            code = 400;
            goto done;
        }
        /* whole milliseconds, at least one: 0 would mean none */
        deadline_ms = (int64_t)(secs * 1000.0 + 0.5);
        if (deadline_ms < 1)
            deadline_ms = 1;
    }
    if (vr) {
        char what[48];
        snprintf(what, sizeof(what), "%s: request_id", name);
        if (vr->type != PL__JSON_STRING) {
            snprintf(msg, cap, "%s: a string is needed", what);
            code = 400;
            goto done;
        }
        if (!key_valid(vr->text, what, msg, cap)) {
            code = 400;
            goto done;
        }
        if (key[0] && strcmp(key, vr->text) != 0) {
            snprintf(msg, cap, "%s: differs from the Idempotency-Key header "
                     "(give one, or the same in both)", what);
            code = 400;
            goto done;
        }
        snprintf(key, KEY_MAX + 1, "%s", vr->text);
    }
    pl_status st = pl__store_circuit_get(svc->store, vc->text, c, &err);
    if (st != PL_OK) {
        snprintf(msg, cap, "%s: circuit: %s", name, err.msg);
        code = store_code(st, &err);
        goto done;
    }
    if (!key[0]) {
        st = pl__store_job_create(svc->store, c->id, prio, (uint32_t)n, job,
                                  &err);
    } else {
        char id[PL__STORE_JOB_ID_LEN + 1];
        bool created = false;
        key_job_id(id, key);
        st = pl__store_job_create_with_id(svc->store, id, c->id, prio,
                                          (uint32_t)n, job, &created, &err);
        *existing = st == PL_OK && !created;
    }
    if (st != PL_OK) {
        snprintf(msg, cap, "%s", err.msg);
        code = store_code(st, &err);
        goto done;
    }
    if (*existing) {
        /* the same key with another body: which fields differ, so that a
         * client reusing a key by mistake sees it at once */
        char diff[300] = "";
        size_t o = 0;
        if (strcmp(job->circuit_id, c->id) != 0)
            o += (size_t)snprintf(diff + o, sizeof(diff) - o,
                                  "; circuit %.16s... (this request: "
                                  "%.16s...)", job->circuit_id, c->id);
        if (job->priority != prio && o < sizeof(diff))
            o += (size_t)snprintf(diff + o, sizeof(diff) - o,
                                  "; priority %s (this request: %s)",
                                  pl__priority_name(job->priority),
                                  pl__priority_name(prio));
        if (job->n_partitions != n && o < sizeof(diff))
            snprintf(diff + o, sizeof(diff) - o,
                     "; partitions %u (this request: %lu)",
                     job->n_partitions, n);
        if (diff[0]) {
            snprintf(msg, cap, "Idempotency-Key %.64s%s: job %s was submitted "
                     "with another body%s", key, strlen(key) > 64 ? "..." : "",
                     job->id, diff);
            code = 409;
        }
    }
    /* Recorded now, before any witness is stored, so before any worker
     * can claim the job.  A retry of a key finds its job with the first
     * deadline and leaves it; one whose first request stopped between
     * the two calls (no deadline yet, still receiving) gets this one. */
    if (code == 0 && deadline_ms > 0 &&
        (!*existing || (job->deadline_unix_ms == 0 &&
                        job->state == PL__JOB_RECEIVING))) {
        int64_t at = job->created_unix_ms + deadline_ms;
        st = pl__store_job_set_deadline(svc->store, job->id, at, &err);
        if (st != PL_OK) {
            snprintf(msg, cap, "%s: deadline_s: %s", name, err.msg);
            code = store_code(st, &err);
            /* a job without a key could never be found again: end it
             * rather than leave it receiving; a keyed one waits for the
             * client's retry */
            if (!key[0]) {
                bool changed = false;
                pl_error cerr = {0};
                pl__store_job_cancel(svc->store, job->id, &changed, &cerr);
            }
            goto done;
        }
        job->deadline_unix_ms = at;
    }
done:
    pl__json_free(&doc);
    return code;
}

/* POST /v1/jobs with a JSON spec: the job, receiving its witnesses. */
static enum MHD_Result end_job_create(pl__server *s,
                                      struct MHD_Connection *conn,
                                      request *rq)
{
    pl__store_job job;
    pl__store_circuit c;
    char msg[400];
    bool existing = false;
    unsigned code = job_from_spec(s, &job, &c, rq->json.data, rq->json.len,
                                  "body", msg, sizeof(msg), rq->key,
                                  &existing);
    if (code)
        return send_error(conn, code, msg, false, NULL);
    /* a retry: the same job, 200 (201 only the first time) */
    return reply_job(s, conn, existing ? 200 : 201, &job);
}

/* A witness upload that ended: its size, its header and its value count
 * checked in the temporary file, then renamed into place (rq->out.path).
 * 0, or the HTTP status and msg (the temporary file removed). */
static unsigned witness_commit(request *rq, const char *name, char *msg,
                               size_t cap, bool *misfit)
{
    pl_error err = {0};
    unsigned code = 0;
    *misfit = false;
    pl_wtns *w;
    if (rq->received != rq->expected) {
        snprintf(msg, cap, "%s: the body is %llu bytes, but a witness of "
                 "circuit %.16s... is exactly %llu bytes", name,
                 (unsigned long long)rq->received, rq->circuit.id,
                 (unsigned long long)rq->expected);
        code = 400;
    } else if (pl__output_finish(&rq->out, &err) != PL_OK) {
        snprintf(msg, cap, "%s", err.msg);
        code = 500;
    } else if (pl_wtns_open(&w, rq->out.tmp_path, &err) != PL_OK) {
        /* the witness's own header; the temporary name means nothing to
         * the client */
        const char *m = strstr(err.msg, ": ");
        snprintf(msg, cap, "%s%s", name, m ? m : err.msg);
        code = 400;
        *misfit = true;
    } else {
        size_t count = pl_wtns_count(w);
        pl_wtns_close(w);
        if (count != rq->circuit.n_vars) {
            snprintf(msg, cap, "%s: %zu values, the circuit has %llu", name,
                     count, (unsigned long long)rq->circuit.n_vars);
            code = 400;
            *misfit = true;
        }
    }
    if (code) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
        return code;
    }
    pl_status st = pl__output_commit(&rq->out, &err);
    rq->out_open = false;
    if (st != PL_OK) {
        snprintf(msg, cap, "%s", err.msg);
        return 500;
    }
    return 0;
}

static enum MHD_Result end_witness(pl__server *s, struct MHD_Connection *conn,
                                   request *rq)
{
    pl__service *svc = s->svc;
    pl_error err = {0};
    char name[128], msg[400];
    bool misfit;
    snprintf(name, sizeof(name), "job %.40s partition %u: witness", rq->id,
             rq->index);
    unsigned code = witness_commit(rq, name, msg, sizeof(msg), &misfit);
    if (code && misfit) {
        /* the right size, but not a witness of this circuit: its job
         * fails, naming the partition (nothing else is touched) */
        bool changed;
        pl__store_job_fail(svc->store, rq->id, msg, &changed, &err);
    }
    if (code)
        return send_error(conn, code, msg, false, NULL);
    pl__store_job job;
    pl_status st = pl__store_witness_stored(svc->store, rq->id, rq->index,
                                            rq->out.path, &job, &err);
    if (st != PL_OK) {
        unlink(rq->out.path); /* recorded nowhere: ours to remove */
        snprintf(msg, sizeof(msg), "witness %u: %.300s", rq->index, err.msg);
        return send_error(conn, store_code(st, &err), msg, false, NULL);
    }
    if (job.state == PL__JOB_QUEUED)
        pl__worker_kick(svc->worker);
    return reply_job(s, conn, 202, &job);
}

/* ---- multipart: POST /v1/jobs with a part `spec`, then N parts `witness` */

/* Removes what a multipart job that was not acknowledged left: its
 * witness files, and the job itself (cancelled: its record says why). */
static void multipart_undo(pl__server *s, request *rq)
{
    for (uint32_t k = 0; k < rq->n_parts; k++)
        if (rq->paths && rq->paths[k]) {
            unlink(rq->paths[k]);
            free(rq->paths[k]);
            rq->paths[k] = NULL;
        }
    /* a job with an idempotency key stays, receiving: the client's retry
     * with the same key resumes it (DELETE ends it otherwise) */
    if (rq->job_made && !rq->acked && !rq->key[0]) {
        bool changed;
        pl_error err = {0};
        pl__store_job_cancel(s->svc->store, rq->job.id, &changed, &err);
        rq->job_made = false;
    }
}

/* The witness part being received ends (another part starts, or the
 * body): checked and renamed into place; false after a refusal. */
static bool witness_part_end(request *rq)
{
    char name[40], msg[400];
    uint32_t k = rq->n_parts - 1;
    snprintf(name, sizeof(name), "witness part %u", k);
    rq->part = P_NONE;
    bool misfit; /* the job was never acknowledged: it is cancelled */
    unsigned code = witness_commit(rq, name, msg, sizeof(msg), &misfit);
    if (code) {
        refuse(rq, code, "%s", msg);
        return false;
    }
    if (!(rq->paths[k] = strdup(rq->out.path))) {
        unlink(rq->out.path);
        refuse(rq, 500, "%s: out of memory", name);
        return false;
    }
    return true;
}

/* A witness part starts: the job is made from the spec (the first
 * witness part needs it), then the part's temporary file is opened. */
static bool witness_part_begin(request *rq)
{
    pl__server *s = rq->server;
    if (!rq->job_made) {
        char msg[400];
        if (!rq->spec_seen) {
            refuse(rq, 400, "multipart: the part `spec` must come before the "
                   "`witness` parts");
            return false;
        }
        unsigned code = job_from_spec(s, &rq->job, &rq->circuit,
                                      rq->json.data, rq->json.len, "spec", msg,
                                      sizeof(msg), rq->key, &rq->existing);
        if (code) {
            refuse(rq, code, "%s", msg);
            return false;
        }
        rq->job_made = true;
        rq->expected = rq->circuit.witness_bytes;
        if (!(rq->paths = calloc(rq->job.n_partitions, sizeof(char *)))) {
            refuse(rq, 500, "multipart: out of memory");
            return false;
        }
    }
    if (rq->n_parts >= rq->job.n_partitions) {
        refuse(rq, 400, "multipart: more `witness` parts than the spec's %u "
               "partitions", rq->job.n_partitions);
        return false;
    }
    uint32_t k = rq->n_parts++;
    if (rq->existing && rq->job.state != PL__JOB_RECEIVING) {
        /* a retry of a job that has all its witnesses: read, not kept */
        rq->part = P_SKIP;
        return true;
    }
    char tag[17], path[PL__SERVICE_PATH_MAX + 128];
    pl_error err = {0};
    random_tag(tag);
    snprintf(path, sizeof(path), "%s/witnesses/%s.%u.%s.wtns",
             s->svc->data_dir, rq->job.id, k, tag);
    if (pl__output_open(&rq->out, path, &err) != PL_OK) {
        refuse(rq, 500, "witness part %u: %s", k, err.msg);
        return false;
    }
    rq->out_open = true;
    rq->received = 0;
    rq->part = P_WITNESS;
    return true;
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind,
                               const char *key, const char *filename,
                               const char *content_type,
                               const char *transfer_encoding,
                               const char *data, uint64_t off, size_t size)
{
    (void)kind;
    (void)filename;
    (void)content_type;
    (void)transfer_encoding;
    request *rq = cls;
    pl_error err = {0};
    if (rq->code)
        return MHD_YES; /* refused: the rest is read and dropped */
    if (off == 0) {      /* a part begins */
        if (rq->part == P_WITNESS && !witness_part_end(rq))
            return MHD_YES;
        rq->part = P_NONE;
        if (strcmp(key, "spec") == 0) {
            if (rq->spec_seen || rq->job_made) {
                refuse(rq, 400, "multipart: one part `spec`, first");
                return MHD_YES;
            }
            rq->spec_seen = true;
            rq->part = P_SPEC;
        } else if (strcmp(key, "witness") == 0) {
            if (!witness_part_begin(rq))
                return MHD_YES;
        } else {
            refuse(rq, 400, "multipart: unknown part `%.40s` (a `spec`, then "
                   "`witness` parts)", key);
            return MHD_YES;
        }
    }
    if (rq->part == P_SPEC) {
        if (rq->json.len + size > JSON_BODY_MAX)
            refuse(rq, 413, "spec: more than %u bytes of JSON", JSON_BODY_MAX);
        else
            pl__strbuf_printf(&rq->json, "%.*s", (int)size, data);
    } else if (rq->part == P_WITNESS && size) {
        if (rq->received + size > rq->expected)
            refuse(rq, 400, "witness part %u: more than the %llu bytes of a "
                   "witness of circuit %.16s...", rq->n_parts - 1,
                   (unsigned long long)rq->expected, rq->circuit.id);
        else if (pl__output_write(&rq->out, data, size, &err) != PL_OK)
            refuse(rq, 500, "upload: %s", err.msg);
        else
            rq->received += size;
    }
    return MHD_YES;
}

/* The body ended: every part checked; the witnesses are recorded (the
 * last one queues the job), then 202. */
static enum MHD_Result end_multipart(pl__server *s, struct MHD_Connection *conn,
                                     request *rq)
{
    pl__service *svc = s->svc;
    if (rq->pp) {
        MHD_destroy_post_processor(rq->pp); /* delivers what it still holds */
        rq->pp = NULL;
    }
    if (!rq->code && rq->part == P_WITNESS)
        witness_part_end(rq);
    if (!rq->code && !rq->job_made)
        refuse(rq, 400, "multipart: no `witness` part (a `spec`, then one "
               "`witness` part per partition)");
    if (!rq->code && rq->n_parts != rq->job.n_partitions)
        refuse(rq, 400, "multipart: %u `witness` parts, the spec says %u "
               "partitions", rq->n_parts, rq->job.n_partitions);
    pl__store_job job = rq->job;
    pl_error err = {0};
    /* a retry of a keyed job: the witnesses an earlier try stored stay,
     * this one's copies go */
    pl__store_partition *had = NULL;
    size_t n_had = 0;
    if (!rq->code && rq->existing && rq->job.state == PL__JOB_RECEIVING) {
        had = pl__alloc(PL__SERVICE_BUF, rq->n_parts * sizeof(*had), &err);
        pl_status st = had ? pl__store_partitions(svc->store, rq->job.id, had,
                                                  rq->n_parts, &n_had, &err)
                           : PL_ENOMEM;
        if (st != PL_OK)
            refuse(rq, 500, "store: %.300s", err.msg);
    }
    bool had_all = rq->existing && rq->job.state != PL__JOB_RECEIVING;
    for (uint32_t k = 0; !rq->code && !had_all && k < rq->n_parts; k++) {
        if (had && k < n_had && had[k].witness_path[0]) {
            unlink(rq->paths[k]);
            continue;
        }
        pl_status st = pl__store_witness_stored(svc->store, rq->job.id, k,
                                                rq->paths[k], &job, &err);
        if (st != PL_OK)
            refuse(rq, store_code(st, &err), "witness part %u: %.300s", k,
                   err.msg);
    }
    pl__free(had);
    if (!rq->code && rq->existing &&
        pl__store_job_get(svc->store, rq->job.id, &job, &err) != PL_OK)
        refuse(rq, 500, "store: %.300s", err.msg);
    if (rq->code) {
        multipart_undo(s, rq);
        return send_error(conn, rq->code, rq->msg, rq->retry, NULL);
    }
    rq->acked = true;
    for (uint32_t k = 0; rq->paths && k < rq->n_parts; k++) {
        free(rq->paths[k]); /* the store has them now */
        rq->paths[k] = NULL;
    }
    pl__worker_kick(svc->worker);
    if (rq->route == R_PROVE)
        return prove_reply_or_wait(s, conn, rq, &job);
    /* a retry: the same job, 200 */
    return reply_job(s, conn, rq->existing ? 200 : 202, &job);
}

typedef struct list_ctx {
    pl__strbuf *sb;
    size_t n;
} list_ctx;

static bool list_circuit(void *user, const pl__store_circuit *c)
{
    list_ctx *l = user;
    pl__strbuf_printf(l->sb, "%s", l->n++ ? ", " : "");
    circuit_json(l->sb, c);
    return true;
}

/* Jobs are collected first and described after the listing ends: the
 * store is not called again from inside its own callback. */
typedef struct job_list {
    pl__store_job *jobs;
    size_t n, cap;
    bool failed;
} job_list;

static bool list_job(void *user, const pl__store_job *job)
{
    job_list *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pl__store_job *j = realloc(l->jobs, cap * sizeof(*j));
        if (!j) {
            l->failed = true;
            return false;
        }
        l->jobs = j;
        l->cap = cap;
    }
    l->jobs[l->n++] = *job;
    return true;
}

static enum MHD_Result end_job_list(pl__server *s, struct MHD_Connection *conn)
{
    pl__service *svc = s->svc;
    const char *state = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
                                                    "state");
    const char *limit = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND,
                                                    "limit");
    int want = -1;
    if (state && *state) {
        for (int k = 0; k < PL__JOB_STATE_COUNT; k++)
            if (strcmp(state, pl__job_state_name((pl__job_state)k)) == 0)
                want = k;
        if (want < 0)
            return send_error(conn, 400, "state: receiving, queued, running, "
                              "done, failed or cancelled", false, NULL);
    }
    size_t n = LIST_LIMIT_DEFAULT;
    if (limit) {
        char *end;
        unsigned long v = strtoul(limit, &end, 10);
        if (!*limit || *end || v < 1 || v > 10000)
            return send_error(conn, 400, "limit: a number from 1 to 10000",
                              false, NULL);
        n = v;
    }
    job_list l = {0};
    pl_error err = {0};
    pl_status st = pl__store_job_list(svc->store, want, n, list_job, &l, &err);
    pl__strbuf sb = {0};
    pl__strbuf_printf(&sb, "{\"jobs\": [");
    for (size_t i = 0; st == PL_OK && i < l.n; i++) {
        pl__strbuf_printf(&sb, "%s", i ? ",\n" : "");
        st = job_json(&sb, svc, &l.jobs[i], &err);
    }
    pl__strbuf_printf(&sb, "]}\n");
    free(l.jobs);
    enum MHD_Result r = st != PL_OK || l.failed
                            ? send_error(conn, 500, l.failed ? "out of memory"
                                                             : err.msg,
                                         false, NULL)
                            : send_json(conn, 200, &sb);
    pl__strbuf_free(&sb);
    return r;
}

/* Appends "index": K, "proof": {...}, "public": [...] of a done
 * partition (the files as the worker wrote them: whitespace at their ends
 * does not matter inside the object). */
/* A done partition's proof pair, from the paths the store recorded (in a
 * cluster another worker wrote them, under its own DATA). */
static pl_status proof_pair_json(pl__strbuf *sb, const pl__store_partition *p,
                                 pl_error *err)
{
    char public_path[PL__STORE_PATH_MAX + 8];
    if (!pl__worker_public_path(p->proof_path, public_path,
                                sizeof(public_path)))
        return pl__error_set(err, PL_EINTERNAL, "store: job %s partition %u: "
                             "a proof path that does not end in .proof.json",
                             p->job_id, p->index);
    char *proof = NULL, *pub = NULL;
    size_t proof_len = 0, pub_len = 0;
    pl_status st;
    if ((st = pl__file_read_small(&proof, &proof_len, p->proof_path, 16384,
                                  err)) != PL_OK ||
        (st = pl__file_read_small(&pub, &pub_len, public_path,
                                  (size_t)PL_VKEY_MAX_PUBLIC *
                                      PL_PUBLIC_JSON_BYTES,
                                  err)) != PL_OK) {
        free(proof);
        return st;
    }
    pl__strbuf_printf(sb, "\"index\": %u, \"proof\": %s, \"public\": %s",
                      p->index, proof, pub);
    free(proof);
    free(pub);
    return PL_OK;
}

static enum MHD_Result end_proof(pl__server *s, struct MHD_Connection *conn,
                                 request *rq)
{
    pl__service *svc = s->svc;
    pl_error err = {0};
    pl__store_job job;
    pl_status st = pl__store_job_get(svc->store, rq->id, &job, &err);
    if (st != PL_OK)
        return send_error(conn, store_code(st, &err), err.msg, false, NULL);
    if (rq->index >= job.n_partitions) {
        char msg[160];
        snprintf(msg, sizeof(msg), "job %s has %u partitions, no partition %u",
                 job.id, job.n_partitions, rq->index);
        return send_error(conn, 404, msg, false, NULL);
    }
    /* the partitions up to k (the store lists them from the first) */
    pl__store_partition *parts =
        pl__alloc(PL__SERVICE_BUF, (rq->index + 1) * sizeof(*parts), &err);
    size_t count = 0;
    if (!parts)
        return send_error(conn, 500, err.msg, false, NULL);
    st = pl__store_partitions(svc->store, job.id, parts, rq->index + 1,
                              &count, &err);
    pl__store_partition p = parts[rq->index];
    pl__free(parts);
    if (st != PL_OK || count <= rq->index)
        return send_error(conn, 500, st != PL_OK ? err.msg : "store: partition "
                          "missing", false, NULL);
    if (p.state != PL__PART_DONE) {
        char msg[200];
        snprintf(msg, sizeof(msg), "job %s partition %u is %s%s%.120s", job.id,
                 rq->index, pl__part_state_name(p.state),
                 p.error[0] ? ": " : "", p.error);
        return send_error(conn, 409, msg, false, NULL);
    }
    pl__strbuf sb = {0};
    pl__strbuf_printf(&sb, "{\"job\": \"%s\", ", job.id);
    if ((st = proof_pair_json(&sb, &p, &err)) != PL_OK) {
        pl__strbuf_free(&sb);
        return send_error(conn, 500, err.msg, false, NULL);
    }
    pl__strbuf_printf(&sb, "}\n");
    enum MHD_Result r = send_json(conn, 200, &sb);
    pl__strbuf_free(&sb);
    return r;
}

/* ---- waiting for a job to end ------------------------------------------------ */

/* POST /v1/prove's answer for a job: done, its proofs (200); failed (422)
 * or cancelled (409), the job and its error; otherwise (the wait ran out,
 * or the service drains) 202 and the job, to be read again with
 * GET /v1/jobs/{id}?wait=. */
static enum MHD_Result prove_reply(pl__server *s, struct MHD_Connection *conn,
                                   const pl__store_job *job)
{
    pl__service *svc = s->svc;
    pl_error err = {0};
    pl__strbuf sb = {0};
    unsigned code = job->state == PL__JOB_DONE       ? 200
                    : job->state == PL__JOB_FAILED   ? 422
                    : job->state == PL__JOB_CANCELLED ? 409
                                                      : 202;
    pl_status st = PL_OK;
    pl__strbuf_printf(&sb, "{");
    if (code == 422 || code == 409) {
        char msg[PL__STORE_MSG_MAX + 80];
        snprintf(msg, sizeof(msg), "job %s %s%s%s", job->id,
                 pl__job_state_name(job->state), job->error[0] ? ": " : "",
                 job->error);
        pl__strbuf_printf(&sb, "\"error\": ");
        pl__json_put_string(&sb, msg);
        pl__strbuf_printf(&sb, ", ");
    }
    pl__strbuf_printf(&sb, "\"job\": ");
    st = job_json(&sb, svc, job, &err);
    if (st == PL_OK && code == 200) {
        size_t n = job->n_partitions, count = 0;
        pl__store_partition *parts =
            pl__alloc(PL__SERVICE_BUF, n * sizeof(*parts), &err);
        st = parts ? pl__store_partitions(svc->store, job->id, parts, n,
                                          &count, &err)
                   : PL_ENOMEM;
        pl__strbuf_printf(&sb, ",\n\"proofs\": [");
        for (size_t k = 0; st == PL_OK && k < count && k < n; k++) {
            pl__strbuf_printf(&sb, "%s{", k ? ",\n" : "");
            st = proof_pair_json(&sb, &parts[k], &err);
            pl__strbuf_printf(&sb, "}");
        }
        pl__strbuf_printf(&sb, "]");
        pl__free(parts);
    }
    pl__strbuf_printf(&sb, "}\n");
    enum MHD_Result r = st != PL_OK ? send_error(conn, 500, err.msg, false,
                                                 NULL)
                                    : send_json(conn, code, &sb);
    pl__strbuf_free(&sb);
    return r;
}

/* Suspends the connection until the job ends or rq->wait_ms pass (the
 * waiter thread resumes it; on_request then answers).  False when as many
 * requests wait as allowed: the caller answers 503. */
static bool wait_begin(pl__server *s, struct MHD_Connection *conn,
                       request *rq, const pl__store_job *job)
{
    pthread_mutex_lock(&s->wait_mu);
    bool ok = s->wait_started && !s->wait_stop &&
              s->n_waiters < s->max_waiters;
    if (ok) {
        snprintf(rq->id, sizeof(rq->id), "%s", job->id);
        rq->conn = conn;
        rq->wait_until_ms = pl__service_now_ms() + rq->wait_ms;
        rq->suspended = true;
        rq->resumed = false;
        /* suspended before the waiter thread can see it, so it never
         * resumes a connection that is not suspended yet */
        MHD_suspend_connection(conn);
        rq->wait_next = s->waiters;
        s->waiters = rq;
        s->n_waiters++;
        pthread_cond_signal(&s->wait_cv);
    }
    pthread_mutex_unlock(&s->wait_mu);
    return ok;
}

static enum MHD_Result too_many_waiters(pl__server *s,
                                        struct MHD_Connection *conn)
{
    char msg[160];
    snprintf(msg, sizeof(msg), "wait: %u requests wait already, the most "
             "this service allows; retry later, or poll without wait",
             s->max_waiters);
    return send_error(conn, 503, msg, true, NULL);
}

/* The answer to POST /v1/prove once its witnesses are stored: at once
 * when the job has ended, or no wait was asked for, or the service
 * drains; after the wait otherwise. */
static enum MHD_Result prove_reply_or_wait(pl__server *s,
                                           struct MHD_Connection *conn,
                                           request *rq,
                                           const pl__store_job *job)
{
    if (job_ended(job->state) || rq->wait_ms <= 0 ||
        atomic_load(&s->svc->draining))
        return prove_reply(s, conn, job);
    if (!wait_begin(s, conn, rq, job))
        return too_many_waiters(s, conn);
    return MHD_YES;
}

/* A waiting request was resumed: its job as it is now. */
static enum MHD_Result wait_end(pl__server *s, struct MHD_Connection *conn,
                                request *rq)
{
    pl_error err = {0};
    pl__store_job job;
    pl_status st = pl__store_job_get(s->svc->store, rq->id, &job, &err);
    if (st != PL_OK)
        return send_error(conn, store_code(st, &err), err.msg, false, NULL);
    if (rq->route == R_PROVE)
        return prove_reply(s, conn, &job);
    return reply_job(s, conn, 200, &job);
}

/* The waiter thread: every WAIT_POLL_MS (while anyone waits) reads each
 * waiter's job, and resumes those whose job ended or whose time is up;
 * all of them when the service drains or the server stops.
 *
 * The store is read without wait_mu held, so that a slow store never
 * stalls the daemon's threads (they take wait_mu to add a waiter or to
 * answer a resumed one).  That is safe because only this thread removes
 * waiters or changes wait_next of a listed one; others only push new
 * ones at the head, which the next pass sees. */
static void *wait_loop(void *arg)
{
    pl__server *s = arg;
    pthread_mutex_lock(&s->wait_mu);
    for (;;) {
        if (!s->waiters && !s->wait_stop) {
            pthread_cond_wait(&s->wait_cv, &s->wait_mu);
        } else if (!s->wait_stop) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += WAIT_POLL_MS * 1000000L;
            ts.tv_sec += ts.tv_nsec / 1000000000L;
            ts.tv_nsec %= 1000000000L;
            pthread_cond_timedwait(&s->wait_cv, &s->wait_mu, &ts);
        }
        bool all = s->wait_stop || atomic_load(&s->svc->draining);
        request *head = s->waiters;
        pthread_mutex_unlock(&s->wait_mu);
        int64_t now = pl__service_now_ms();
        for (request *rq = head; rq; rq = rq->wait_next) {
            rq->wake = all || now >= rq->wait_until_ms;
            if (!rq->wake) {
                pl__store_job job;
                pl_error err = {0};
                /* a store that fails to answer: the request answers
                 * with the error itself */
                rq->wake = pl__store_job_get(s->svc->store, rq->id, &job,
                                             &err) != PL_OK ||
                           job_ended(job.state);
            }
        }
        pthread_mutex_lock(&s->wait_mu);
        /* the waiters pushed since are before head, unmarked: kept */
        bool seen = false;
        for (request **pp = &s->waiters; *pp;) {
            request *rq = *pp;
            seen = seen || rq == head;
            if (!seen || !rq->wake) {
                pp = &rq->wait_next;
                continue;
            }
            *pp = rq->wait_next;
            s->n_waiters--;
            rq->wait_next = NULL;
            rq->wake = false;
            rq->resumed = true;
            s->n_resumed++;
            MHD_resume_connection(rq->conn);
        }
        if (s->wait_stop && !s->waiters)
            break;
    }
    pthread_mutex_unlock(&s->wait_mu);
    return NULL;
}

static enum MHD_Result end_request(pl__server *s, struct MHD_Connection *conn,
                                   request *rq, const char *method)
{
    pl__service *svc = s->svc;
    if (rq->code)
        return send_error(conn, rq->code, rq->msg, rq->retry, NULL);
    pl_error err = {0};
    pl__strbuf sb = {0};
    enum MHD_Result r = MHD_NO;
    bool post = strcmp(method, "POST") == 0;
    switch (rq->route) {
    case R_HEALTHZ:
        return send_text(conn, 200, "{\"status\": \"ok\"}\n", 17,
                         "application/json", false, NULL);
    case R_READYZ: {
        pl__store_counts c;
        if (atomic_load(&svc->draining))
            return send_text(conn, 503, "{\"status\": \"draining\"}\n", 23,
                             "application/json", true, NULL);
        if (pl__store_counts_read(svc->store, &c, &err) != PL_OK)
            return send_error(conn, 503, err.msg, true, NULL);
        return send_text(conn, 200, "{\"status\": \"ready\"}\n", 20,
                         "application/json", false, NULL);
    }
    case R_METRICS:
        if (pl__metrics_prometheus(svc, &sb, &err) != PL_OK)
            r = send_error(conn, 500, err.msg, false, NULL);
        else
            r = send_text(conn, 200, sb.data, sb.len,
                          "text/plain; version=0.0.4; charset=utf-8", false,
                          NULL);
        break;
    case R_STATUS:
        r = pl__metrics_status_json(svc, &sb, &err) != PL_OK
                ? send_error(conn, 500, err.msg, false, NULL)
                : send_json(conn, 200, &sb);
        break;
    case R_CLUSTER:
        r = pl__metrics_cluster_json(svc, &sb, &err) != PL_OK
                ? send_error(conn, 500, err.msg, false, NULL)
                : send_json(conn, 200, &sb);
        break;
    case R_TRACE: {
        const char *since = MHD_lookup_connection_value(
            conn, MHD_GET_ARGUMENT_KIND, "since");
        double sec = 0;
        if (since) {
            char *end;
            sec = strtod(since, &end);
            if (!*since || *end || sec < 0)
                return send_error(conn, 400, "since: seconds, a number of 0 "
                                  "or more", false, NULL);
        }
        r = pl__metrics_trace_json(svc->metrics, &sb, sec, &err) != PL_OK
                ? send_error(conn, 500, err.msg, false, NULL)
                : send_json(conn, 200, &sb);
        break;
    }
    case R_CIRCUITS:
        if (post && rq->body == B_ZKEY)
            return end_zkey_upload(s, conn, rq);
        if (post) {
            pl__json_doc doc;
            if (pl__json_parse(&doc, rq->json.data ? rq->json.data : "",
                               rq->json.len, "body", &err) != PL_OK)
                return send_error(conn, 400, err.msg, false, NULL);
            r = end_circuit_path(s, conn, &doc);
            pl__json_free(&doc);
            return r;
        } else {
            list_ctx l = {&sb, 0};
            pl__strbuf_printf(&sb, "{\"circuits\": [");
            pl_status st = pl__store_circuit_list(svc->store, list_circuit, &l,
                                                  &err);
            pl__strbuf_printf(&sb, "]}\n");
            r = st != PL_OK ? send_error(conn, 500, err.msg, false, NULL)
                            : send_json(conn, 200, &sb);
        }
        break;
    case R_CIRCUIT: {
        pl__store_circuit c;
        pl_status st = pl__store_circuit_get(svc->store, rq->id, &c, &err);
        r = st != PL_OK ? send_error(conn, store_code(st, &err), err.msg,
                                     false, NULL)
                        : reply_circuit(conn, 200, &c);
        break;
    }
    case R_PRELOAD:
    case R_EVICT: {
        pl__store_circuit c;
        pl_status st = pl__store_circuit_get(svc->store, rq->id, &c, &err);
        if (st != PL_OK)
            return send_error(conn, store_code(st, &err), err.msg, false,
                              NULL);
        bool busy = false, changed = false;
        double took = 0;
        pl_circuit *hot;
        if (rq->route == R_PRELOAD) {
            st = pl__residency_acquire(svc->residency, c.id, c.zkey_path, 0,
                                       &hot, &took, &busy, &err);
            if (st == PL_OK) {
                pl__residency_release(svc->residency, c.id);
                if (took > 0)
                    pl__metrics_promotion(svc->metrics, c.id, took);
            }
        } else {
            st = pl__residency_evict(svc->residency, c.id, &changed, &err);
        }
        if (st != PL_OK) {
            /* in use: 409; busy (circuits in use hold the room): 503 and
             * retry; larger than the parameter budget: 400 */
            unsigned code = rq->route == R_EVICT ? 409 : busy ? 503 : 400;
            return send_error(conn, code, err.msg, busy, NULL);
        }
        pl__metrics_params_json(svc, &sb, c.id);
        pl__strbuf_printf(&sb, "\n");
        r = send_json(conn, 200, &sb);
        break;
    }
    case R_JOBS:
        if (post && rq->body == B_MULTIPART)
            return end_multipart(s, conn, rq);
        if (post)
            return end_job_create(s, conn, rq);
        return end_job_list(s, conn);
    case R_JOB: {
        pl__store_job job;
        pl_status st = pl__store_job_get(svc->store, rq->id, &job, &err);
        if (st != PL_OK)
            return send_error(conn, store_code(st, &err), err.msg, false,
                              NULL);
        if (strcmp(method, "DELETE") == 0) {
            bool changed = false;
            if ((st = pl__store_job_cancel(svc->store, job.id, &changed,
                                           &err)) != PL_OK)
                return send_error(conn, store_code(st, &err), err.msg, false,
                                  NULL);
            if (!changed) {
                char msg[160];
                snprintf(msg, sizeof(msg), "job %s already ended (%s)", job.id,
                         pl__job_state_name(job.state));
                return send_error(conn, 409, msg, false, NULL);
            }
            pl__worker_cancel_job(svc->worker, job.id);
            if ((st = pl__store_job_get(svc->store, rq->id, &job, &err)) !=
                PL_OK)
                return send_error(conn, 500, err.msg, false, NULL);
        } else if (rq->wait_ms > 0 && !job_ended(job.state) &&
                   !atomic_load(&svc->draining)) {
            /* ?wait=: the reply when the job ends or the time is up */
            if (!wait_begin(s, conn, rq, &job))
                return too_many_waiters(s, conn);
            return MHD_YES;
        }
        return reply_job(s, conn, 200, &job);
    }
    case R_WITNESS:
        return end_witness(s, conn, rq);
    case R_PROOF:
        return end_proof(s, conn, rq);
    case R_PROVE:
        return end_multipart(s, conn, rq);
    case R_NONE:
        break;
    }
    pl__strbuf_free(&sb);
    return r;
}

/* ---- the daemon's callbacks ---------------------------------------------- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    (void)version;
    pl__server *s = cls;
    request *rq = *con_cls;
    if (!rq) {
        if (!(rq = calloc(1, sizeof(*rq))))
            return MHD_NO;
        *con_cls = rq;
        rq->server = s;
        begin(s, conn, rq, url, method);
        if (rq->code) {
            /* refused: at once when there is no body to read, when the
             * client waits for 100-continue before sending it, or when it
             * is too large to read for nothing (the library then closes
             * the connection); otherwise the body is read and dropped
             * first, since a client still sending would see its
             * connection reset instead of the reply */
            long long len = content_length(conn);
            const char *te = MHD_lookup_connection_value(
                conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
            const char *ex = MHD_lookup_connection_value(
                conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
            bool body = len > 0 || (len < 0 && te);
            bool waits = ex && strcasecmp(ex, "100-continue") == 0;
            if (!body || waits || len > (long long)DISCARD_MAX) {
                rq->replied = true;
                const char *allow = NULL;
                if (rq->code == 405) {
                    request tmp = {0};
                    route(url, &tmp, &allow);
                }
                return send_error(conn, rq->code, rq->msg, rq->retry, allow);
            }
        }
        return MHD_YES;
    }
    if (*size) {
        if (!rq->replied)
            take_body(rq, data, *size);
        *size = 0;
        return MHD_YES;
    }
    if (rq->replied) {
        /* a waiting request is called again once resumed */
        bool resumed = false;
        if (rq->suspended) {
            pthread_mutex_lock(&s->wait_mu);
            resumed = rq->resumed;
            pthread_mutex_unlock(&s->wait_mu);
        }
        if (!resumed)
            return MHD_YES;
        enum MHD_Result r = wait_end(s, conn, rq);
        pthread_mutex_lock(&s->wait_mu);
        rq->suspended = rq->resumed = false;
        s->n_resumed--;
        pthread_cond_broadcast(&s->wait_cv);
        pthread_mutex_unlock(&s->wait_mu);
        return r;
    }
    rq->replied = true;
    if (rq->code == 405) {
        const char *allow = NULL;
        request tmp = {0};
        route(url, &tmp, &allow);
        return send_error(conn, 405, rq->msg, false, allow);
    }
    return end_request(s, conn, rq, method);
}

static void on_completed(void *cls, struct MHD_Connection *conn,
                         void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    (void)toe;
    request *rq = *con_cls;
    if (!rq)
        return;
    if (rq->suspended) { /* resumed, closed before it answered */
        pl__server *s = cls;
        pthread_mutex_lock(&s->wait_mu);
        if (rq->resumed) {
            s->n_resumed--;
            pthread_cond_broadcast(&s->wait_cv);
        }
        pthread_mutex_unlock(&s->wait_mu);
    }
    if (rq->out_open)
        pl__output_abort(&rq->out); /* a broken upload leaves nothing */
    if (rq->pp)
        MHD_destroy_post_processor(rq->pp);
    if (rq->paths) {
        multipart_undo(rq->server, rq);
        free(rq->paths);
    }
    pl__strbuf_free(&rq->json);
    free(rq);
    *con_cls = NULL;
}

/* ---- listening ------------------------------------------------------------- */

typedef struct listen_addr {
    bool is_unix;
    char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    struct sockaddr_storage sa;
    socklen_t sa_len;
} listen_addr;

static pl_status parse_listen(listen_addr *out, const char *listen,
                              pl_error *err)
{
    memset(out, 0, sizeof(*out));
    if (strncmp(listen, "unix:", 5) == 0) {
        const char *path = listen + 5;
        if (!*path || strlen(path) >= sizeof(out->unix_path))
            return pl__error_set(err, PL_EUSAGE, "--listen %s: a socket path "
                                 "of 1 to %zu bytes is needed", listen,
                                 sizeof(out->unix_path) - 1);
        out->is_unix = true;
        snprintf(out->unix_path, sizeof(out->unix_path), "%s", path);
        return PL_OK;
    }
    char host[256];
    const char *colon = strrchr(listen, ':');
    if (!colon || colon == listen || !colon[1] ||
        (size_t)(colon - listen) >= sizeof(host))
        return pl__error_set(err, PL_EUSAGE, "--listen %s: HOST:PORT or "
                             "unix:PATH is needed", listen);
    size_t hl = (size_t)(colon - listen);
    memcpy(host, listen, hl);
    host[hl] = '\0';
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return pl__error_set(err, PL_EUSAGE, "--listen %s: the port is "
                                 "not a number", listen);
    if (atol(colon + 1) > 65535)
        return pl__error_set(err, PL_EUSAGE, "--listen %s: the port is above "
                             "65535", listen);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc != 0 || !res)
        return pl__error_set(err, PL_EUSAGE, "--listen %s: %s", listen,
                             gai_strerror(rc));
    memcpy(&out->sa, res->ai_addr, res->ai_addrlen);
    out->sa_len = res->ai_addrlen;
    freeaddrinfo(res);
    return PL_OK;
}

static bool addr_is_loopback(const listen_addr *a)
{
    if (a->is_unix)
        return true;
    if (a->sa.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&a->sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (a->sa.ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->sa;
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return false;
}

pl_status pl__server_listen_check(const char *listen, bool *loopback,
                                  pl_error *err)
{
    listen_addr a;
    pl_status st = parse_listen(&a, listen, err);
    if (st == PL_OK)
        *loopback = addr_is_loopback(&a);
    return st;
}

/* Binds and listens; the bound address ("HOST:PORT" or "unix:PATH") in
 * shown. */
static pl_status open_socket(pl__server *s, const char *where, char *shown,
                             size_t cap, pl_error *err)
{
    listen_addr a;
    pl_status st = parse_listen(&a, where, err);
    if (st != PL_OK)
        return st;
    int fd;
    if (a.is_unix) {
        struct sockaddr_un un = {0};
        un.sun_family = AF_UNIX;
        snprintf(un.sun_path, sizeof(un.sun_path), "%s", a.unix_path);
        struct stat sb;
        /* a socket left by a run that was killed; anything else stays */
        if (lstat(a.unix_path, &sb) == 0 && S_ISSOCK(sb.st_mode))
            unlink(a.unix_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&un, sizeof(un)) != 0 ||
            listen(fd, 128) != 0) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            errno = e;
            return pl__error_set(err, PL_EIO, "--listen %s: %s", where,
                                 strerror(e));
        }
        snprintf(s->unix_path, sizeof(s->unix_path), "%s", a.unix_path);
        snprintf(shown, cap, "unix:%s", a.unix_path);
    } else {
        fd = socket(a.sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd >= 0)
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (fd < 0 || bind(fd, (struct sockaddr *)&a.sa, a.sa_len) != 0 ||
            listen(fd, 128) != 0) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return pl__error_set(err, PL_EIO, "--listen %s: %s", where,
                                 strerror(e));
        }
        struct sockaddr_storage bound;
        socklen_t len = sizeof(bound);
        char host[INET6_ADDRSTRLEN + 2], port[16];
        getsockname(fd, (struct sockaddr *)&bound, &len);
        getnameinfo((struct sockaddr *)&bound, len, host, sizeof(host), port,
                    sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
        if (bound.ss_family == AF_INET6)
            snprintf(shown, cap, "[%s]:%s", host, port);
        else
            snprintf(shown, cap, "%s:%s", host, port);
    }
    /* the polling threads share the socket: accept must not block */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    s->fd = fd;
    return PL_OK;
}

pl_status pl__server_start(pl__server **out, pl__service *svc,
                           const pl__server_config *cfg, pl_error *err)
{
    *out = NULL;
    pl__server *s = calloc(1, sizeof(*s));
    if (!s)
        return pl__error_set(err, PL_ENOMEM, "server: out of memory");
    s->svc = svc;
    s->fd = -1;
    pthread_mutex_init(&s->wait_mu, NULL);
    pthread_cond_init(&s->wait_cv, NULL);
    /* waiters hold connections: at most half of them, so that waiting
     * clients never lock the others out */
    unsigned limit = cfg->connection_limit ? cfg->connection_limit : 256u;
    s->max_waiters = limit / 2 ? limit / 2 : 1;
    char shown[PL__SERVICE_PATH_MAX];
    pl_status st = open_socket(s, cfg->listen, shown, sizeof(shown), err);
    if (st != PL_OK) {
        pthread_mutex_destroy(&s->wait_mu);
        pthread_cond_destroy(&s->wait_cv);
        free(s);
        return st;
    }
    if (pthread_create(&s->wait_thread, NULL, wait_loop, s) != 0) {
        close(s->fd);
        if (s->unix_path[0])
            unlink(s->unix_path);
        pthread_mutex_destroy(&s->wait_mu);
        pthread_cond_destroy(&s->wait_cv);
        free(s);
        return pl__error_set(err, PL_EIO, "--listen %s: the waiter thread "
                             "did not start", cfg->listen);
    }
    s->wait_started = true;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
    s->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->fd,
        MHD_OPTION_THREAD_POOL_SIZE, cfg->threads ? cfg->threads : 4u,
        MHD_OPTION_CONNECTION_LIMIT,
        cfg->connection_limit ? cfg->connection_limit : 256u,
        MHD_OPTION_CONNECTION_TIMEOUT,
        cfg->idle_timeout_s >= 1 ? (unsigned)cfg->idle_timeout_s : 30u,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    if (!s->daemon) {
        close(s->fd);
        s->fd = -1;
        pl__server_stop(s); /* the waiter thread */
        return pl__error_set(err, PL_EIO, "--listen %s: the HTTP daemon did "
                             "not start", cfg->listen);
    }
    char path[PL__SERVICE_PATH_MAX + 32], line[PL__SERVICE_PATH_MAX + 2];
    snprintf(path, sizeof(path), "%s/listen.addr", svc->data_dir);
    int n = snprintf(line, sizeof(line), "%s\n", shown);
    if ((st = pl__file_write_atomic(path, line, (size_t)n, err)) != PL_OK) {
        pl__server_stop(s);
        return st;
    }
    fprintf(stderr, "proofline serve: listening on %s\n", shown);
    *out = s;
    return PL_OK;
}

void pl__server_stop(pl__server *s)
{
    if (!s)
        return;
    if (s->wait_started) {
        /* every waiter resumed (answered with its job as it is) before
         * the daemon stops: it must not stop with connections suspended */
        pthread_mutex_lock(&s->wait_mu);
        s->wait_stop = true;
        pthread_cond_signal(&s->wait_cv);
        pthread_mutex_unlock(&s->wait_mu);
        pthread_join(s->wait_thread, NULL);
        /* and answered: the daemon's threads do that (a few ms), unless
         * a client is gone; 2 s at most */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 2;
        pthread_mutex_lock(&s->wait_mu);
        while (s->n_resumed > 0 &&
               pthread_cond_timedwait(&s->wait_cv, &s->wait_mu, &ts) == 0)
            ;
        pthread_mutex_unlock(&s->wait_mu);
    }
    if (s->daemon)
        MHD_stop_daemon(s->daemon); /* closes the listening socket too */
    else if (s->fd >= 0)
        close(s->fd);
    if (s->unix_path[0])
        unlink(s->unix_path);
    pthread_mutex_destroy(&s->wait_mu);
    pthread_cond_destroy(&s->wait_cv);
    free(s);
}
