/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP side's glue to libmicrohttpd (see server.h and http.h): the
 * daemon and its socket, and a request's three steps as the library calls
 * us: begin (the decision of routes.c, then the route's begin: an
 * upload's temporary file is opened here), body (each piece to the
 * request's body, guard.c told of its progress), end (the route's
 * handler answers).  A request refused at begin is answered at once when
 * it carries no body, when the client waits for 100-continue, or when the
 * body is over DISCARD_MAX (the library then closes the connection); any
 * other body is read and dropped first, so the client sees the reply and
 * not a reset.  Replies name files relative to DATA, never a server path.
 */
#define _GNU_SOURCE
#include "http.h"
#include "util/error.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define DISCARD_MAX (64ull << 20) /* a refused body up to this is read */
/* The library's own cap on connections is above ours, so a new connection
 * reaches guard.c, which makes room by closing a slow one, rather than
 * being closed by the library before anyone decides: by our cap again (at
 * least 64), since the connections guard.c closed count in the library's
 * until its threads have seen them end, which a reconnecting attacker
 * keeps many of. */
#define LIBRARY_HEADROOM(limit) ((limit) > 64 ? (limit) : 64)

struct pl__server {
    pl__service *svc;
    struct MHD_Daemon *daemon;
    int fd;
    unsigned port; /* the bound TCP port; 0 for a Unix socket */
    char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    pl__waits *waits;
    pl__guard *guard;
};

pl__waits *pl__server_waits(pl__server *s) { return s->waits; }
pl__guard *pl__server_guard(pl__server *s) { return s->guard; }

/* ---- replies ------------------------------------------------------------------------ */

void pl__http_relative(const pl__service *svc, const char *s,
                       pl__strbuf *out)
{
    const char *prefixes[2] = {svc->data_dir, svc->data_dir_real};
    for (const char *p = s ? s : ""; *p;) {
        size_t skip = 0;
        for (int i = 0; i < 2 && !skip; i++) {
            size_t n = strlen(prefixes[i]);
            if (n && strncmp(p, prefixes[i], n) == 0 && p[n] == '/')
                skip = n + 1;
        }
        if (skip) {
            p += skip;
            continue;
        }
        /* a path starts at a '/' (or at the text's start) */
        const char *next = p + 1;
        while (*next && *next != '/')
            next++;
        pl__strbuf_printf(out, "%.*s", (int)(next - p), p);
        p = next;
    }
}

static enum MHD_Result queue(request *rq, unsigned code, const char *text,
                             size_t len, const char *type, bool retry,
                             const char *allow)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    /* an answer is never a page a browser should sniff; the one page
     * (GET /) may load nothing from anywhere, read only this service, and
     * be framed by no other site */
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (strncmp(type, "text/html", 9) == 0) {
        MHD_add_response_header(
            r, "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src "
            "'unsafe-inline'; connect-src 'self'; base-uri 'none'; "
            "form-action 'none'; frame-ancestors 'none'");
        MHD_add_response_header(r, "X-Frame-Options", "DENY");
        MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
        MHD_add_response_header(r, "Cache-Control", "no-store");
    }
    if (retry) {
        char s[16];
        snprintf(s, sizeof(s), "%d", PL__HTTP_RETRY_AFTER_S);
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, s);
    }
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    /* a retry with an idempotency key: the first answer's status, and
     * this header to tell it from the first */
    if (rq->existing && code < 300)
        MHD_add_response_header(r, "Idempotent-Replayed", "true");
    enum MHD_Result ret = MHD_queue_response(rq->conn, code, r);
    MHD_destroy_response(r);
    rq->replied = true;
    return ret;
}

enum MHD_Result pl__http_reply_text(request *rq, unsigned code,
                                    const char *text, const char *type,
                                    bool retry)
{
    return queue(rq, code, text, strlen(text), type, retry, NULL);
}

enum MHD_Result pl__http_reply_json(request *rq, unsigned code,
                                    pl__strbuf *body)
{
    if (body->failed)
        return pl__http_reply_error(rq, 500, "out of memory", false);
    return queue(rq, code, body->data ? body->data : "", body->len,
                 "application/json", false, NULL);
}

enum MHD_Result pl__http_reply_built(request *rq, unsigned code,
                                     pl_status st, const char *why,
                                     pl__strbuf *body)
{
    if (st == PL_OK)
        pl__strbuf_printf(body, "\n");
    enum MHD_Result r = st != PL_OK
                            ? pl__http_reply_error(rq, 503, why, true)
                            : pl__http_reply_json(rq, code, body);
    pl__strbuf_free(body);
    return r;
}

static enum MHD_Result reply_error_allow(request *rq, unsigned code,
                                         const char *msg, bool retry,
                                         const char *allow)
{
    pl__strbuf text = {0}, sb = {0};
    pl__http_relative(rq->svc, msg, &text);
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_object(&w);
    pl__jw_key_str(&w, "error", text.data ? text.data : "");
    pl__jw_end_object(&w);
    pl__strbuf_printf(&sb, "\n");
    enum MHD_Result ret =
        sb.failed || w.failed
            ? MHD_NO
            : queue(rq, code, sb.data, sb.len, "application/json", retry,
                    allow);
    pl__strbuf_free(&text);
    pl__strbuf_free(&sb);
    return ret;
}

enum MHD_Result pl__http_reply_error(request *rq, unsigned code,
                                     const char *msg, bool retry)
{
    return reply_error_allow(rq, code, msg, retry, NULL);
}

void pl__http_refuse(request *rq, unsigned code, const char *fmt, ...)
{
    if (rq->code)
        return; /* the first reason stands */
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = NULL;
    va_end(ap);
    pl__strbuf_printf(&rq->msg, "%s", text ? text : "out of memory");
    free(text);
    rq->code = code;
    if (rq->out_open) {
        pl__output_abort(&rq->out);
        rq->out_open = false;
    }
    rq->body = 0; /* the rest is read and dropped */
}

unsigned pl__http_store_code(pl_status st, const pl_error *err)
{
    if (pl__store_is_not_found(err))
        return 404;
    if (st == PL_EUSAGE)
        return 409;
    /* the store cannot answer now (a disk, a database): ours, and it may
     * pass: 503 with Retry-After; the rest is a bug */
    return st == PL_EIO || st == PL_ENOMEM ? 503 : 500;
}

const char *pl__http_arg(request *rq, const char *key)
{
    return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *pl__http_header(request *rq, const char *key)
{
    return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, key);
}

/* ---- a request's steps ------------------------------------------------------------- */

static long long content_length(request *rq)
{
    const char *t = pl__http_header(rq, MHD_HTTP_HEADER_CONTENT_LENGTH);
    uint64_t v;
    return t && pl__http_uint(t, (uint64_t)LLONG_MAX, &v) ? (long long)v : -1;
}

/* The decision (routes.c), then the route's set-up of its body. */
static void begin(pl__server *s, request *rq, const char *url,
                  const char *method)
{
    pl__service *svc = s->svc;
    pl__http_view v = {
        .method = method,
        .path = url,
        .host = pl__http_header(rq, MHD_HTTP_HEADER_HOST),
        .origin = pl__http_header(rq, "Origin"),
        .sec_fetch_site = pl__http_header(rq, "Sec-Fetch-Site"),
        .content_type = pl__http_header(rq, MHD_HTTP_HEADER_CONTENT_TYPE),
        .authorization = pl__http_header(rq, MHD_HTTP_HEADER_AUTHORIZATION),
        .transfer_encoding =
            pl__http_header(rq, MHD_HTTP_HEADER_TRANSFER_ENCODING),
        .content_length = content_length(rq),
    };
    char why[512] = "";
    pl__http_policy policy = {
        .token = svc->token,
        .tokenless_loopback = svc->tokenless_loopback,
        .port = s->port,
        .draining = atomic_load(&svc->draining),
        .unwritable = !pl__health_ok(svc, why, sizeof(why)),
        .unwritable_why = why,
    };
    pl__http_verdict vd;
    pl__http_decide(&policy, &v, &vd);
    rq->head = strcmp(method, "HEAD") == 0;
    if (vd.code) {
        pl__http_refuse(rq, vd.code, "%s", vd.msg);
        rq->retry = vd.retry;
        if (vd.code == 405)
            pl__strbuf_printf(&rq->json, "%s", vd.allow); /* its Allow */
        return;
    }
    rq->route = vd.route;
    rq->body = vd.body;
    snprintf(rq->id, sizeof(rq->id), "%s", vd.id);
    rq->index = vd.index;
    rq->wait_ms = -1;
    if (rq->route->begin)
        rq->route->begin(rq);
    else if (rq->body == PL__BODY_JSON)
        pl__http_begin_json(rq);
    else if (rq->body == PL__BODY_ZKEY)
        pl__http_begin_zkey(rq);
}

static enum MHD_Result answer_refusal(request *rq)
{
    return reply_error_allow(rq, rq->code, rq->msg.data ? rq->msg.data : "",
                             rq->retry,
                             rq->code == 405 && rq->json.data ? rq->json.data
                                                              : NULL);
}

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
        rq->svc = s->svc;
        rq->conn = conn;
        pl__guard_request(s->guard, conn);
        begin(s, rq, url, method);
        if (rq->code) {
            /* refused: at once when there is no body to read, when the
             * client waits for 100-continue before sending it, when it
             * is chunked (it would only be parsed to be dropped) or too
             * large to read for nothing (the library then closes the
             * connection); otherwise the body is read and dropped first,
             * since a client still sending would see its connection
             * reset instead of the reply */
            long long len = content_length(rq);
            const char *te = pl__http_header(
                rq, MHD_HTTP_HEADER_TRANSFER_ENCODING);
            const char *ex = pl__http_header(rq, MHD_HTTP_HEADER_EXPECT);
            bool waits = ex && strcasecmp(ex, "100-continue") == 0;
            if (len <= 0 || te || waits || len > (long long)DISCARD_MAX) {
                pl__guard_waiting(s->guard, conn, false); /* answering */
                return answer_refusal(rq);
            }
        }
        return MHD_YES;
    }
    if (*size) {
        pl__guard_body(s->guard, conn, *size);
        if (!rq->replied)
            pl__http_take_body(rq, data, *size);
        *size = 0;
        return MHD_YES;
    }
    if (rq->replied) {
        /* a waiting request is called again once resumed */
        if (!rq->suspended || !pl__waits_resumed(s->waits, rq))
            return MHD_YES;
        enum MHD_Result r = pl__api_wait_end(rq);
        pl__waits_answered(s->waits, rq);
        pl__guard_waiting(s->guard, conn, false);
        return r;
    }
    /* the body is in: what is left is ours to answer (or, suspended, to
     * wait), not the client's to send */
    enum MHD_Result r = rq->code ? answer_refusal(rq) : rq->route->end(rq);
    pl__guard_waiting(s->guard, conn, rq->suspended);
    return r;
}

static void on_completed(void *cls, struct MHD_Connection *conn,
                         void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    pl__server *s = cls;
    request *rq = *con_cls;
    pl__guard_idle(s->guard, conn);
    if (!rq)
        return;
    if (rq->suspended) /* resumed, closed before it answered */
        pl__waits_closed(s->waits, rq);
    if (rq->out_open)
        pl__output_abort(&rq->out); /* a broken upload leaves nothing */
    if (rq->pp)
        MHD_destroy_post_processor(rq->pp);
    pl__http_upload_undo(rq);
    free(rq->paths);
    pl__strbuf_free(&rq->json);
    pl__strbuf_free(&rq->msg);
    free(rq);
    *con_cls = NULL;
}

static size_t on_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return pl__http_unescape(s);
}

/* ---- listening ---------------------------------------------------------------------- */

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
    uint64_t port;
    if (!pl__http_uint(colon + 1, 65535, &port))
        return pl__error_set(err, PL_EUSAGE, "--listen %s: the port is not "
                             "a number from 0 to 65535", listen);
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
        s->port = (unsigned)atoi(port);
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
                           const pl__server_config *given, pl_error *err)
{
    *out = NULL;
    pl__server *s = calloc(1, sizeof(*s));
    if (!s)
        return pl__error_set(err, PL_ENOMEM, "server: out of memory");
    pl__server_config cfg = *given;
    if (!cfg.threads)
        cfg.threads = 4;
    if (!cfg.connection_limit)
        cfg.connection_limit = 256;
    if (!cfg.per_client_limit)
        cfg.per_client_limit = 64;
    if (cfg.header_timeout_s <= 0)
        cfg.header_timeout_s = 10;
    if (cfg.idle_timeout_s < 1)
        cfg.idle_timeout_s = 30;
    if (!cfg.body_min_rate)
        cfg.body_min_rate = 1024;
    s->svc = svc;
    s->fd = -1;
    char shown[PL__SERVICE_PATH_MAX];
    pl_status st;
    /* waiters hold connections: at most half of them, so that waiting
     * clients never lock the others out */
    unsigned waiters = cfg.connection_limit / 2 ? cfg.connection_limit / 2
                                                : 1;
    if ((st = open_socket(s, cfg.listen, shown, sizeof(shown), err)) ||
        (st = pl__waits_start(&s->waits, svc, waiters, err)) ||
        (st = pl__guard_start(&s->guard, &cfg, err)))
        goto fail;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
    s->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)s->fd,
        MHD_OPTION_THREAD_POOL_SIZE, cfg.threads,
        MHD_OPTION_CONNECTION_LIMIT,
        cfg.connection_limit + LIBRARY_HEADROOM(cfg.connection_limit),
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg.idle_timeout_s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, pl__guard_notify, s->guard,
        MHD_OPTION_UNESCAPE_CALLBACK, on_unescape, s, MHD_OPTION_END);
    if (!s->daemon) {
        st = pl__error_set(err, PL_EIO, "--listen %s: the HTTP daemon did "
                           "not start", cfg.listen);
        goto fail;
    }
    s->fd = -1; /* the daemon's now */
    char path[PL__SERVICE_PATH_MAX + 32], line[PL__SERVICE_PATH_MAX + 2];
    snprintf(path, sizeof(path), "%s/listen.addr", svc->data_dir);
    int n = snprintf(line, sizeof(line), "%s\n", shown);
    if ((st = pl__file_write_atomic(path, line, (size_t)n, err)) != PL_OK)
        goto fail;
    fprintf(stderr, "proofline serve: listening on %s\n", shown);
    *out = s;
    return PL_OK;
fail:
    pl__server_stop(s);
    return st;
}

void pl__server_stop(pl__server *s)
{
    if (!s)
        return;
    /* every waiter resumed (answered with its job as it is) before the
     * daemon stops: it must not stop with connections suspended */
    pl__waits_stop(s->waits);
    if (s->daemon)
        MHD_stop_daemon(s->daemon); /* closes the listening socket too */
    else if (s->fd >= 0)
        close(s->fd);
    pl__guard_stop(s->guard);
    if (s->unix_path[0])
        unlink(s->unix_path);
    free(s);
}
