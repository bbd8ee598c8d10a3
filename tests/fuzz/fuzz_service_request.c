/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: the requests of `proofline serve`.  The input is the raw
 * bytes of an HTTP request, used twice:
 *
 * 1. The pure parts, called as they are (service/http/http.h): the
 *    request line and headers are split here the way libmicrohttpd hands
 *    them over (path unescaped by pl__http_unescape, values trimmed), and
 *    pl__http_decide, the decision every request passes, is asked under
 *    three policies (a token; tokenless on loopback; a token while the
 *    service drains and cannot write).  Its verdict must keep the rules
 *    it is for: without the exact bearer token only an open route passes;
 *    tokenless, only a loopback Host passes, and a state-changing request
 *    only from the service's own Origin; while draining no state-changing
 *    request passes; a passed request has a route of its method, a body
 *    kind the route takes, and an id its pattern's parser accepts; a 405
 *    names what is allowed.  The strict parsers (ids, numbers, durations,
 *    seconds, idempotency keys, Host, Origin, media types) get every path
 *    segment, query value and header value, and what they accept must be
 *    what they promise (the digits, the length, the characters, in range).
 *
 * 2. The real service, opened in this process through its public call
 *    (pl_service_open with no_worker: SQLite store in a tmpfs folder, the
 *    engine, the residency, the metrics; jobs are kept, never proved),
 *    the input sent whole over its Unix socket: libmicrohttpd parses the
 *    request line, the headers, a chunked body's framing and a multipart
 *    body's parts and hands them to the route table's handlers as it would
 *    from any client: job specs (JSON bodies and multipart `spec` parts),
 *    witness parts and uploads, zkey uploads and registration by path,
 *    query parameters (wait, state, limit, since), the Idempotency-Key
 *    header and the request_id field.  Even epochs run with a token file
 *    (Authorization: Bearer fuzz-token, as the seeds in
 *    corpus/service_request/ carry), odd ones tokenless, where Host,
 *    Origin and Sec-Fetch-Site decide.
 *
 * State carries from one request to the next (jobs, keys, uploads), as in
 * a real service; every EPOCH_INPUTS inputs the service is closed (which
 * checks the engine's buffers), its folder removed, and the accounted
 * allocator must be back to zero (a request's leak shows there).  A
 * request that waits (?wait=, POST /v1/prove) is given REPLY_IDLE_MS,
 * then its connection is dropped.
 *
 * With PL_FUZZ_HTTP_STRICT=1 in the environment, a client's view of each
 * reply too: a status line, no 5xx but 503 for a client's bytes, a JSON
 * body that parses (the service's rule, http.h).  PL_FUZZ_HTTP_SHOW=1:
 * each reply's status line on stderr.
 *
 * The service calls it makes: pl_service_config_init, pl_service_open,
 * pl_service_close (public), and of service/http/: pl__http_decide,
 * pl__http_routes and the parsers of parse.c.
 */
#define _GNU_SOURCE
#include "fuzz.h"
#include "formats/json.h"
#include "http/http.h"
#include "proofline_service.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define TOKEN "fuzz-token"
#define EPOCH_INPUTS 500u
/* A reply is read until the server closes, REPLY_MS have passed, or
 * nothing came for REPLY_IDLE_MS: libmicrohttpd holds a connection whose
 * request it cannot finish (a body shorter than its length, bytes that
 * are no request line) until its timeout, even after the client's end is
 * shut, and the service answers everything else within milliseconds.
 * The circuit's registration, which every epoch needs, is given
 * SETUP_MS for both (it reads and hashes the zkey: on a loaded machine
 * that took more than 30 ms, and the target stopped at its first input). */
#define REPLY_MS 1000
#define REPLY_IDLE_MS 30
#define SETUP_MS 20000
#define REPLY_MAX (1u << 20)
/* What the pure part looks at: the request line and headers. */
#define HEAD_MAX 8192
#define HEADERS_MAX 64

static struct {
    bool up;
    unsigned epoch, inputs;
    char data[600];
    char sock[100];
    char token_file[600];
    pl_service *svc;
    char *reply;
    size_t reply_len;
} S;

/* ---- 1. the pure parts ------------------------------------------------------ */

typedef struct head {
    char buf[HEAD_MAX + 1];
    char *method, *target, *path, *query;
    char *name[HEADERS_MAX], *value[HEADERS_MAX];
    size_t n;
} head;

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* The request line and the headers of data, split in h->buf (a copy, NUL
 * bytes ending each piece): lines end at "\n" (a "\r" before it dropped),
 * the head at an empty line.  False when there is no request line. */
static bool split_head(head *h, const uint8_t *data, size_t size)
{
    memset(h, 0, sizeof(*h));
    size_t n = size < HEAD_MAX ? size : HEAD_MAX;
    memcpy(h->buf, data, n);
    h->buf[n] = '\0';
    char *line = h->buf, *next;
    bool first = true;
    for (; line && *line; line = next) {
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl) {
            *nl = '\0';
            if (nl > line && nl[-1] == '\r')
                nl[-1] = '\0';
        }
        if (first) {
            first = false;
            char *sp = strchr(line, ' ');
            if (!sp)
                return false;
            *sp = '\0';
            h->method = line;
            h->target = sp + 1;
            char *sp2 = strchr(h->target, ' ');
            if (sp2)
                *sp2 = '\0';
            continue;
        }
        if (!*line)
            break; /* the body follows */
        char *colon = strchr(line, ':');
        if (!colon || h->n == HEADERS_MAX)
            continue;
        *colon = '\0';
        h->name[h->n] = trim(line);
        h->value[h->n++] = trim(colon + 1);
    }
    if (!h->method)
        return false;
    h->path = h->target;
    char *q = strchr(h->target, '?');
    if (q) {
        *q = '\0';
        h->query = q + 1;
    }
    return true;
}

static const char *header(const head *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcasecmp(h->name[i], name) == 0)
            return h->value[i];
    return NULL;
}

static bool all_of(const char *s, size_t n, const char *set)
{
    for (size_t i = 0; i < n; i++)
        if (!s[i] || !strchr(set, s[i]))
            return false;
    return true;
}

/* Each strict parser on s, and what it accepted checked against its
 * promise. */
static void parsers(const char *given)
{
    char s[HEAD_MAX + 1];
    snprintf(s, sizeof(s), "%s", given);
    size_t len = strlen(s);

    /* an unescape keeps no NUL (a %00 stays), shortens, and reports the
     * length it left */
    char u[HEAD_MAX + 1];
    memcpy(u, s, len + 1);
    size_t ul = pl__http_unescape(u);
    PL_FUZZ_ASSERT(ul == strlen(u) && ul <= len, "unescape '%.80s': %zu",
                   s, ul);
    if (!strchr(s, '%'))
        PL_FUZZ_ASSERT(strcmp(u, s) == 0, "unescape changed '%.80s'", s);

    if (pl__http_job_id(s)) {
        PL_FUZZ_ASSERT(len == PL__STORE_JOB_ID_LEN &&
                           all_of(s, len, "0123456789abcdef-") &&
                           s[8] == '-' && s[13] == '-' && s[18] == '-' &&
                           s[23] == '-',
                       "job id '%.80s'", s);
        PL_FUZZ_ASSERT(!pl__http_circuit_id(s), "both ids: '%s'", s);
    }
    if (pl__http_circuit_id(s))
        PL_FUZZ_ASSERT(len == PL__STORE_ID_LEN &&
                           all_of(s, len, "0123456789abcdef"),
                       "circuit id '%.80s'", s);

    static const uint64_t maxes[] = {0, 1, 999999999, UINT64_MAX};
    for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
        uint64_t v;
        if (!pl__http_uint(s, maxes[i], &v))
            continue;
        PL_FUZZ_ASSERT(len >= 1 && len <= 18 && all_of(s, len, "0123456789") &&
                           v <= maxes[i] && v == strtoull(s, NULL, 10),
                       "uint '%.80s' (max %llu): %llu", s,
                       (unsigned long long)maxes[i], (unsigned long long)v);
    }

    uint64_t ms;
    if (pl__http_duration_ms(s, &ms)) {
        /* digits, a fraction, a unit: never more than 10^9 minutes */
        PL_FUZZ_ASSERT(isdigit((unsigned char)s[0]) &&
                           ms <= 60ull * 1000 * 1000000000ull,
                       "duration '%.80s': %llu ms", s,
                       (unsigned long long)ms);
        char *end;
        double d = strtod(s, &end);
        double unit = strcmp(end, "ms") == 0 ? 1 : strcmp(end, "m") == 0
                                                       ? 60000
                                                       : 1000;
        /* "ms" drops its fraction; "s" and "m" are exact in thousandths */
        double slack = unit == 1 ? 1 : 1e-3 + 1e-9 * d * unit;
        PL_FUZZ_ASSERT(fabs((double)ms - d * unit) <= slack,
                       "duration '%.80s': %llu ms, not %g", s,
                       (unsigned long long)ms, d * unit);
    }
    double sec;
    if (pl__http_seconds(s, &sec)) {
        char *end;
        double d = strtod(s, &end);
        PL_FUZZ_ASSERT(isdigit((unsigned char)s[0]) && *end == '\0' &&
                           isfinite(sec) && sec >= 0 && sec < 1e9 &&
                           fabs(sec - d) < 1e-6 * (d + 1),
                       "seconds '%.80s': %g", s, sec);
    }

    if (pl__http_key(s))
        PL_FUZZ_ASSERT(len >= 1 && len <= PL__HTTP_KEY_MAX &&
                           all_of(s, len,
                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
                                  "opqrstuvwxyz0123456789._:-"),
                       "key '%.80s'", s);

    static const unsigned ports[] = {0, 80, 7878};
    for (size_t i = 0; i < 3; i++) {
        if (pl__http_loopback_host(s, ports[i]))
            PL_FUZZ_ASSERT(strncmp(s, "localhost", 9) == 0 ||
                               strncmp(s, "127.", 4) == 0 ||
                               strncmp(s, "[::1]", 5) == 0,
                           "loopback host '%.80s'", s);
        if (pl__http_own_origin(s, ports[i]))
            PL_FUZZ_ASSERT(strncmp(s, "http://", 7) == 0 &&
                               !strchr(s + 7, '/') &&
                               pl__http_loopback_host(s + 7, ports[i]),
                           "own origin '%.80s' (port %u)", s, ports[i]);
    }

    char type[96];
    pl__http_media_type(s, type, sizeof(type));
    size_t tl = strlen(type);
    PL_FUZZ_ASSERT(tl < sizeof(type) && !strchr(type, ';') &&
                       !strchr(type, ' ') && tl <= len,
                   "media type of '%.80s': '%s'", s, type);
    for (size_t i = 0; i < tl; i++)
        PL_FUZZ_ASSERT(!isupper((unsigned char)type[i]), "media type '%s'",
                       type);
}

/* The route's pattern has this parameter. */
static bool has(const pl__route *r, const char *param)
{
    return strstr(r->pattern, param) != NULL;
}

/* Whether method is one of an Allow header's "GET, HEAD, POST". */
static bool listed(const char *allow, const char *method)
{
    size_t n = strlen(method);
    for (const char *p = allow; *p;) {
        size_t l = strcspn(p, ",");
        if (l == n && strncmp(p, method, n) == 0)
            return true;
        p += l;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return false;
}

static void decide_checked(const pl__http_policy *p, const pl__http_view *v)
{
    pl__http_verdict vd, again;
    pl__http_decide(p, v, &vd);
    pl__http_decide(p, v, &again);
    PL_FUZZ_ASSERT(vd.code == again.code && vd.route == again.route &&
                       strcmp(vd.msg, again.msg) == 0,
                   "two decisions on one request: %u, %u", vd.code,
                   again.code);
    PL_FUZZ_ASSERT(memchr(vd.msg, '\0', sizeof(vd.msg)) &&
                       memchr(vd.id, '\0', sizeof(vd.id)) &&
                       memchr(vd.allow, '\0', sizeof(vd.allow)),
                   "a verdict's text not terminated");
    const char *method = v->method ? v->method : "";
    const char *as = strcmp(method, "HEAD") == 0 ? "GET" : method;
    switch (vd.code) {
    case 0: {
        const pl__route *r = vd.route;
        PL_FUZZ_ASSERT(r != NULL, "passed without a route");
        size_t n;
        const pl__route *all = pl__http_routes(&n);
        PL_FUZZ_ASSERT(r >= all && r < all + n, "a route not in the table");
        PL_FUZZ_ASSERT(strcmp(r->method, as) == 0, "%s passed to %s %s",
                       method, r->method, r->pattern);
        PL_FUZZ_ASSERT(vd.body && (r->bodies & vd.body) == vd.body,
                       "body kind %u for %s (takes %u)", vd.body, r->pattern,
                       r->bodies);
        PL_FUZZ_ASSERT(!v->transfer_encoding, "a chunked body passed");
        if (has(r, "{job}"))
            PL_FUZZ_ASSERT(pl__http_job_id(vd.id), "job id '%s'", vd.id);
        else if (has(r, "{circuit}"))
            PL_FUZZ_ASSERT(pl__http_circuit_id(vd.id), "circuit id '%s'",
                           vd.id);
        else
            PL_FUZZ_ASSERT(!vd.id[0], "an id '%s' for %s", vd.id, r->pattern);
        if (has(r, "{index}"))
            PL_FUZZ_ASSERT(vd.index <= 999999999, "index %u", vd.index);
        if (p->token && !r->open)
            PL_FUZZ_ASSERT(v->authorization &&
                               strcmp(v->authorization, "Bearer " TOKEN) == 0,
                           "passed without the token: '%.80s'",
                           v->authorization ? v->authorization : "(none)");
        if (p->tokenless_loopback) {
            PL_FUZZ_ASSERT(pl__http_loopback_host(v->host, p->port),
                           "tokenless, passed for Host '%.80s'",
                           v->host ? v->host : "(none)");
            if (r->writes && v->origin)
                PL_FUZZ_ASSERT(pl__http_own_origin(v->origin, p->port),
                               "tokenless, a write from Origin '%.80s'",
                               v->origin);
        }
        if (p->draining || p->unwritable)
            PL_FUZZ_ASSERT(!r->writes, "%s %s passed while draining", method,
                           r->pattern);
        PL_FUZZ_ASSERT(!vd.retry, "retry without a refusal");
        break;
    }
    case 405:
        PL_FUZZ_ASSERT(vd.allow[0] && !listed(vd.allow, as),
                       "405 for %s, allowed '%s'", method, vd.allow);
        break;
    case 503:
        PL_FUZZ_ASSERT(vd.retry && (p->draining || p->unwritable),
                       "503 (retry %d) of a service that can take it: %s",
                       vd.retry, vd.msg);
        break;
    case 401:
        PL_FUZZ_ASSERT(p->token, "401 without a token: %s", vd.msg);
        break;
    case 403:
    case 404:
    case 411:
    case 415:
        break;
    default:
        PL_FUZZ_ASSERT(false, "status %u from the decision: %s", vd.code,
                       vd.msg);
    }
    if (vd.code)
        PL_FUZZ_ASSERT(vd.msg[0], "status %u without a reason", vd.code);
    if (vd.code != 503)
        PL_FUZZ_ASSERT(!vd.retry, "retry with %u", vd.code);
}

static void pure(const uint8_t *data, size_t size)
{
    static head h; /* 8 KiB: off the stack */
    if (!split_head(&h, data, size))
        return;
    pl__http_unescape(h.path); /* as the library's callback does */
    pl__http_view v = {
        .method = h.method,
        .path = h.path,
        .host = header(&h, "Host"),
        .origin = header(&h, "Origin"),
        .sec_fetch_site = header(&h, "Sec-Fetch-Site"),
        .content_type = header(&h, "Content-Type"),
        .authorization = header(&h, "Authorization"),
        .transfer_encoding = header(&h, "Transfer-Encoding"),
        .content_length = -1,
    };
    const char *cl = header(&h, "Content-Length");
    uint64_t n;
    if (cl && pl__http_uint(cl, (uint64_t)1 << 62, &n))
        v.content_length = (long long)n;
    static const pl__http_policy policies[] = {
        {.token = TOKEN},
        {.tokenless_loopback = true, .port = 7878},
        {.tokenless_loopback = true, .port = 0},
        {.token = TOKEN, .draining = true},
        {.token = TOKEN, .unwritable = true, .unwritable_why = "disk full"},
    };
    for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
        decide_checked(&policies[i], &v);

    /* the parsers on every piece a request carries */
    char *save, *seg;
    char path[HEAD_MAX + 1];
    snprintf(path, sizeof(path), "%s", h.path);
    for (seg = strtok_r(path, "/", &save); seg; seg = strtok_r(NULL, "/", &save))
        parsers(seg);
    if (h.query) {
        for (char *kv = strtok_r(h.query, "&", &save); kv;
             kv = strtok_r(NULL, "&", &save)) {
            char *eq = strchr(kv, '=');
            parsers(eq ? eq + 1 : kv);
        }
    }
    for (size_t i = 0; i < h.n; i++)
        parsers(h.value[i]);
}

/* ---- 2. the real service ---------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sends len bytes as one connection's request and keeps the reply (up to
 * REPLY_MAX bytes, total_ms, until idle_ms pass without a byte) in
 * S.reply. */
static void exchange(const void *req, size_t len, int total_ms, int idle_ms)
{
    S.reply_len = 0;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    PL_FUZZ_ASSERT(fd >= 0, "socket: %s", strerror(errno));
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", S.sock);
    PL_FUZZ_ASSERT(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0,
                   "connect %s: %s", S.sock, strerror(errno));
    /* the server may answer and close before it has read it all */
    for (size_t done = 0; done < len;) {
        ssize_t n = send(fd, (const char *)req + done, len - done,
                         MSG_NOSIGNAL);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    shutdown(fd, SHUT_WR);
    int64_t until = now_ms() + total_ms;
    for (;;) {
        int64_t left = until - now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 ||
            poll(&p, 1, (int)(left < idle_ms ? left : idle_ms)) <= 0)
            break;
        if (S.reply_len == REPLY_MAX)
            break;
        ssize_t n = recv(fd, S.reply + S.reply_len, REPLY_MAX - S.reply_len,
                         0);
        if (n <= 0)
            break;
        S.reply_len += (size_t)n;
    }
    close(fd);
    S.reply[S.reply_len] = '\0';
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void down(void)
{
    if (!S.up)
        return;
    S.up = false;
    pl_error err = {0};
    PL_FUZZ_ASSERT(pl_service_close(S.svc, &err) == PL_OK, "close: %s",
                   err.msg);
    S.svc = NULL;
    nftw(S.data, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    unlink(S.sock);
    unlink(S.token_file);
    err = (pl_error){0};
    PL_FUZZ_ASSERT(pl_alloc_all_freed(&err), "after %u requests: %s",
                   S.inputs, err.msg);
}

static void up(void)
{
    pl_error err = {0};
    const char *dir = pl_fuzz_dir();
    bool tokened = S.epoch % 2 == 0;
    snprintf(S.data, sizeof(S.data), "%s/data-%u", dir, S.epoch);
    snprintf(S.sock, sizeof(S.sock), "%s/s-%u", dir, S.epoch);
    snprintf(S.token_file, sizeof(S.token_file), "%s/token-%u", dir, S.epoch);
    S.epoch++;
    S.inputs = 0;
    if (tokened) {
        int fd = open(S.token_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        PL_FUZZ_ASSERT(fd >= 0 && write(fd, TOKEN "\n", sizeof(TOKEN)) ==
                                      (ssize_t)sizeof(TOKEN),
                       "%s: %s", S.token_file, strerror(errno));
        close(fd);
    }
    char listen[128];
    snprintf(listen, sizeof(listen), "unix:%s", S.sock);
    pl_service_config cfg;
    pl_service_config_init(&cfg);
    cfg.listen = listen;
    cfg.data_dir = S.data;
    cfg.token_file = tokened ? S.token_file : NULL;
    cfg.allow_path = PL_FUZZ_VECTORS "/multiplier";
    cfg.no_worker = true;
    cfg.max_queued = 64;
    cfg.max_zkey_bytes = 1u << 20;
    cfg.drain_timeout_s = 1;
    cfg.http_threads = 2; /* libmicrohttpd takes one as no pool at all */
    cfg.engine.budget_bytes = 256u << 20;
    cfg.engine.threads = 1;
    cfg.engine.synth_workers = 1;
    PL_FUZZ_ASSERT(pl_service_open(&S.svc, &cfg, &err) == PL_OK, "open: %s",
                   err.msg);
    S.up = true;
    /* the circuit the seeds name (its id: the sha256 of the zkey) */
    char req[1024], body[512];
    int n = snprintf(body, sizeof(body), "{\"path\": \"%s/multiplier/"
                     "circuit.zkey\"}", PL_FUZZ_VECTORS);
    int m = snprintf(req, sizeof(req), "POST /v1/circuits HTTP/1.1\r\n"
                     "Host: localhost\r\nAuthorization: Bearer " TOKEN "\r\n"
                     "Content-Type: application/json\r\nContent-Length: %d\r\n"
                     "\r\n%s", n, body);
    exchange(req, (size_t)m, SETUP_MS, SETUP_MS);
    PL_FUZZ_ASSERT(strncmp(S.reply, "HTTP/1.1 201", 12) == 0,
                   "registering the circuit: %.300s", S.reply);
}

/* PL_FUZZ_HTTP_STRICT: the reply as a client may expect it. */
static void check_reply(void)
{
    if (S.reply_len == 0)
        return; /* dropped while waiting, or refused before a status line */
    unsigned code = 0;
    PL_FUZZ_ASSERT(sscanf(S.reply, "HTTP/1.%*[01] %u", &code) == 1,
                   "no status line: %.200s", S.reply);
    PL_FUZZ_ASSERT(code < 500 || code == 503, "status %u for a client's "
                   "bytes: %.400s", code, S.reply);
    const char *body = strstr(S.reply, "\r\n\r\n");
    if (body && strcasestr(S.reply, "Content-Type: application/json") &&
        strcasestr(S.reply, "Content-Type: application/json") < body) {
        body += 4;
        pl__json_doc doc;
        pl_error err = {0};
        pl_status st = pl__json_parse(&doc, body,
                                      S.reply_len - (size_t)(body - S.reply),
                                      "reply", &err);
        pl__json_free(&doc);
        PL_FUZZ_ASSERT(st == PL_OK, "a JSON reply that does not parse: %s",
                       err.msg);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool strict, show, started;
    if (!started) {
        started = true;
        signal(SIGPIPE, SIG_IGN);
        const char *e = getenv("PL_FUZZ_HTTP_STRICT");
        strict = e && strcmp(e, "1") == 0;
        show = getenv("PL_FUZZ_HTTP_SHOW") != NULL;
        PL_FUZZ_ASSERT((S.reply = malloc(REPLY_MAX + 1)) != NULL, "memory");
        pl_fuzz_dir();
        atexit(down);
    }
    pure(data, size);
    if (S.up && S.inputs == EPOCH_INPUTS)
        down();
    if (!S.up)
        up();
    S.inputs++;
    exchange(data, size, REPLY_MS, REPLY_IDLE_MS);
    if (show)
        fprintf(stderr, "reply: %.*s\n", (int)strcspn(S.reply, "\r\n"),
                S.reply);
    if (strict)
        check_reply();
    return 0;
}
