/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The client of `proofline serve` over libcurl (client.h): one easy handle
 * per client, reset before every request so no option of one request
 * leaks into the next, kept so its connection is reused.  Replies are read
 * into a buffer bounded by PL_CLIENT_MAX_REPLY; request bodies come from
 * memory or are streamed from a file by curl's read callback.  What it
 * does not do: TLS configuration beyond libcurl's defaults, redirects
 * (the service never sends one; a proxy that does is an error), cookies.
 */
#define _POSIX_C_SOURCE 200809L
#include "proofline_client.h"

#include "util/error.h"
#include "util/file.h"
#include "util/sha256.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct pl_client {
    CURL *curl;
    char server[512];      /* as given, without a trailing '/' */
    char base[512];        /* the URL prefix: the server or http://localhost */
    char socket_path[256]; /* "unix:" servers: the socket; else "" */
    char *token;           /* NULL: none */
    long connect_timeout_s, stall_timeout_s, max_retry_s;
    bool (*should_stop)(void);
    bool stoppable;
    char *last_error; /* the whole text of the last failure, or NULL */
};

/* curl_global_init is not thread-safe: once per process. */
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;
static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Reads the token: the file's first line, trailing whitespace dropped. */
static pl_status read_token(char **out, const char *path, pl_error *err)
{
    char *text = NULL;
    size_t size = 0;
    pl_status st = pl__file_read_small(&text, &size, path,
                                       PL_CLIENT_MAX_TOKEN, err);
    if (st != PL_OK)
        return st;
    size_t len = strcspn(text, "\r\n");
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        len--;
    text[len] = '\0';
    if (len == 0) {
        free(text);
        return pl__error_set(err, PL_EUSAGE, "%s: the token file's first "
                             "line is empty", path);
    }
    /* a token goes into a header: no control characters */
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) {
            free(text);
            return pl__error_set(err, PL_EUSAGE, "%s: the token holds a "
                                 "control character", path);
        }
    *out = text;
    return PL_OK;
}

pl_status pl_client_open(pl_client **out, const pl_client_config *cfg,
                          pl_error *err)
{
    *out = NULL;
    const char *server = cfg->server && cfg->server[0]
                             ? cfg->server : PL_CLIENT_DEFAULT_SERVER;
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return pl__error_set(err, PL_EINTERNAL, "libcurl: cannot initialise: "
                             "%s", curl_easy_strerror(curl_init_rc));
    pl_client *c = calloc(1, sizeof(*c));
    if (!c)
        return pl__error_set(err, PL_ENOMEM, "out of memory for a client");
    pl_status st = PL_OK;
    size_t len = strlen(server);
    while (len > 1 && server[len - 1] == '/')
        len--;
    if (len >= sizeof(c->server)) {
        st = pl__error_set(err, PL_EUSAGE, "--server: longer than %zu "
                           "characters", sizeof(c->server) - 1);
        goto fail;
    }
    memcpy(c->server, server, len);
    if (strncmp(c->server, "unix:", 5) == 0) {
        const char *sock = c->server + 5;
        if (sock[0] != '/' || strlen(sock) >= sizeof(c->socket_path)) {
            st = pl__error_set(err, PL_EUSAGE, "--server %s: a Unix "
                               "socket is unix:/absolute/path (under %zu "
                               "characters)", server,
                               sizeof(c->socket_path));
            goto fail;
        }
        snprintf(c->socket_path, sizeof(c->socket_path), "%s", sock);
        /* the host part is only the Host header over a socket */
        snprintf(c->base, sizeof(c->base), "http://localhost");
    } else if (strncmp(c->server, "http://", 7) == 0 ||
               strncmp(c->server, "https://", 8) == 0) {
        const char *host = strchr(c->server, ':') + 3;
        if (!host[0] || strchr(host, '/') || strchr(host, '?')) {
            st = pl__error_set(err, PL_EUSAGE, "--server %s: give "
                               "http://host:port, without a path", server);
            goto fail;
        }
        memcpy(c->base, c->server, len + 1);
    } else {
        st = pl__error_set(err, PL_EUSAGE, "--server %s: give "
                           "http://host:port or unix:/path/to.sock", server);
        goto fail;
    }
    if (cfg->token_file && (st = read_token(&c->token, cfg->token_file, err)))
        goto fail;
    c->connect_timeout_s = cfg->connect_timeout_s > 0 ? cfg->connect_timeout_s
                                                      : 10;
    c->stall_timeout_s = cfg->stall_timeout_s > 0 ? cfg->stall_timeout_s : 60;
    c->max_retry_s = cfg->max_retry_s > 0 ? cfg->max_retry_s : 0;
    c->should_stop = cfg->should_stop;
    c->stoppable = true;
    if (!(c->curl = curl_easy_init())) {
        st = pl__error_set(err, PL_EINTERNAL, "libcurl: cannot create a "
                           "handle");
        goto fail;
    }
    *out = c;
    return PL_OK;
fail:
    pl_client_close(c);
    return st;
}

const char *pl_client_last_error(const pl_client *c)
{
    return c && c->last_error ? c->last_error : "";
}

void pl_client_close(pl_client *c)
{
    if (!c)
        return;
    free(c->last_error);
    if (c->curl)
        curl_easy_cleanup(c->curl);
    if (c->token) {
        /* the token is a secret: not left in freed memory */
        volatile char *p = c->token;
        while (*p)
            *p++ = 0;
        free(c->token);
    }
    free(c);
}

const char *pl_client_server(const pl_client *c)
{
    return c->server;
}

void pl_client_stoppable(pl_client *c, bool on)
{
    c->stoppable = on;
}

static bool stopped(const pl_client *c)
{
    return c->stoppable && c->should_stop && c->should_stop();
}

/* curl's progress callback: nonzero aborts the transfer. */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return stopped(user) ? 1 : 0;
}

/* ---- one request -------------------------------------------------------- */

/* The reply's body as it arrives, bounded. */
typedef struct {
    char *data;
    size_t len, cap;
    bool too_big;
} sink;

static size_t on_write(char *ptr, size_t size, size_t nmemb, void *user)
{
    sink *s = user;
    size_t n = size * nmemb;
    if (s->len + n + 1 > PL_CLIENT_MAX_REPLY) {
        s->too_big = true;
        return 0; /* curl stops with CURLE_WRITE_ERROR */
    }
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *p = realloc(s->data, cap);
        if (!p)
            return 0;
        s->data = p;
        s->cap = cap;
    }
    memcpy(s->data + s->len, ptr, n);
    s->len += n;
    s->data[s->len] = '\0';
    return n;
}

/* A request body: memory (data, len) or a file (f). */
typedef struct {
    const char *data;
    size_t len, at;
    FILE *f;
    int read_errno; /* a failed read's errno (curl may change errno) */
} source;

static size_t on_read(char *buf, size_t size, size_t nmemb, void *user)
{
    source *s = user;
    size_t room = size * nmemb;
    if (s->f) {
        size_t n = fread(buf, 1, room, s->f);
        if (n == 0 && ferror(s->f)) {
            s->read_errno = errno;
            return CURL_READFUNC_ABORT;
        }
        return n;
    }
    size_t n = s->len - s->at < room ? s->len - s->at : room;
    memcpy(buf, s->data + s->at, n);
    s->at += n;
    return n;
}

/* The server's {"error": "..."} of a failed reply, whole, else the body's
 * first line (at most 100 characters). */
static void server_message(pl__strbuf *out, pl_client_reply *r)
{
    if (r->json && pl__json_root(&r->doc)->type == PL__JSON_OBJECT) {
        const char *m = pl_client_str(r, pl__json_root(&r->doc), "error");
        if (m) {
            pl__strbuf_printf(out, "%s", m);
            return;
        }
    }
    if (r->len == 0) {
        pl__strbuf_printf(out, "(no message)");
        return;
    }
    int line = (int)strcspn(r->body, "\r\n");
    pl__strbuf_printf(out, "%.*s", line < 100 ? line : 100, r->body);
}

/* The last failure's whole text, kept for pl_client_last_error (err
 * holds it too, cut to pl_error's size). */
static void keep_error(pl_client *c, const char *text)
{
    free(c->last_error);
    c->last_error = text ? strdup(text) : NULL;
}

/* A tenth of a second, so a wait notices should_stop soon. */
static void sleep_tenth(void)
{
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 100000000L};
    nanosleep(&ts, NULL);
}

/* One exchange; the reply is filled in whatever its status. */
static pl_status exchange(pl_client *c, pl_client_reply *out,
                          const char *method, const char *url,
                          const char *content_type, source *src,
                          uint64_t body_len, bool has_body, pl_error *err)
{
    CURL *h = c->curl;
    char errbuf[CURL_ERROR_SIZE] = "";
    char auth[PL_CLIENT_MAX_TOKEN + 32], ctype[128];
    struct curl_slist *headers = NULL, *tmp;
    sink s = {0};
    pl_status st = PL_OK;

    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    if (c->socket_path[0])
        curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->socket_path);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, c->connect_timeout_s);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    /* after a file's last byte the server may work on it for a while
     * before it answers (a large zkey is hashed, fsync'd and opened), so
     * an upload gets ten times the quiet time */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                     src->f ? 10 * c->stall_timeout_s : c->stall_timeout_s);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (c->should_stop) {
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, c);
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    }
    /* curl waits up to a second for "100 Continue" before a large body;
     * the service reads bodies as they come, so no waiting */
    if (!(tmp = curl_slist_append(headers, "Expect:")))
        goto nomem;
    headers = tmp;
    if (!(tmp = curl_slist_append(headers, "Accept: application/json")))
        goto nomem;
    headers = tmp;
    if (c->token) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->token);
        tmp = curl_slist_append(headers, auth);
        memset(auth, 0, sizeof(auth));
        if (!tmp)
            goto nomem;
        headers = tmp;
    }
    if (has_body) {
        snprintf(ctype, sizeof(ctype), "Content-Type: %s",
                 content_type ? content_type : "application/octet-stream");
        if (!(tmp = curl_slist_append(headers, ctype)))
            goto nomem;
        headers = tmp;
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);

    if (strcmp(method, "GET") == 0) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, src);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                         (curl_off_t)(has_body ? body_len : 0));
    } else if (strcmp(method, "PUT") == 0) {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, src);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE,
                         (curl_off_t)(has_body ? body_len : 0));
    } else {
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    }

    CURLcode rc = curl_easy_perform(h);
    if (rc != CURLE_OK) {
        if (s.too_big)
            st = pl__error_set(err, PL_EFORMAT, "%s: the reply is larger "
                               "than %zu MiB", out->url,
                               PL_CLIENT_MAX_REPLY >> 20);
        else if (rc == CURLE_ABORTED_BY_CALLBACK && stopped(c))
            st = pl__error_set(err, PL_ECANCELLED, "%s: interrupted",
                               out->url);
        else if (src->f && rc == CURLE_ABORTED_BY_CALLBACK)
            st = pl__error_errno(err, PL_EIO, src->read_errno, "%s: "
                                 "reading the body's file", out->url);
        else if (rc == CURLE_COULDNT_CONNECT) {
            long oserr = 0;
            curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
            st = pl__error_set(err, PL_EIO, "%s: cannot reach the "
                               "server: %s", out->url,
                               oserr ? strerror((int)oserr)
                                     : curl_easy_strerror(rc));
        } else
            st = pl__error_set(err, PL_EIO, "%s: %s", out->url,
                               errbuf[0] ? errbuf : curl_easy_strerror(rc));
        goto done;
    }
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->code);
    curl_off_t ra = -1;
    if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) != CURLE_OK || ra < 0)
        ra = -1;
    out->retry_after_s = ra > 0 && ra < 3600 ? (long)ra : ra == 0 ? 0 : -1;
    out->body = s.data ? s.data : calloc(1, 1);
    s.data = NULL;
    out->len = s.len;
    if (!out->body)
        goto nomem;
    if (out->len > 0) {
        pl_error perr = {0};
        out->json = pl__json_parse(&out->doc, out->body, out->len, out->url,
                                   &perr) == PL_OK;
    }
    goto done;
nomem:
    st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", out->url);
done:
    curl_slist_free_all(headers);
    free(s.data);
    return st;
}

/* "http://host:port/v1/jobs", or "unix:/run/p.sock /v1/jobs" (a socket's
 * path and the request's apart). */
static void url_for_messages(const pl_client *c, pl_client_reply *out,
                             const char *path)
{
    snprintf(out->url, sizeof(out->url), "%.300s%s%.200s", c->server,
             c->socket_path[0] ? " " : "", path);
}

pl_status pl_client_request(pl_client *c, pl_client_reply *out,
                             const char *method, const char *path,
                             const char *content_type, const void *body,
                             size_t len, const char *body_file,
                             long allow_code, pl_error *err)
{
    char url[1024];
    source src = {.data = body, .len = body ? len : 0};
    uint64_t body_len = body ? len : 0;
    bool has_body = body || body_file;
    pl_status st = PL_OK;

    memset(out, 0, sizeof(*out));
    out->retry_after_s = -1;
    keep_error(c, NULL);
    url_for_messages(c, out, path);
    if ((size_t)snprintf(url, sizeof(url), "%s%s", c->base, path) >=
        sizeof(url))
        return pl__error_set(err, PL_EUSAGE, "%s: the URL is too long",
                             out->url);
    if (body_file) {
        struct stat sb;
        if (!(src.f = fopen(body_file, "rb")))
            return pl__error_errno(err, PL_EIO, errno, "%s: cannot open",
                                   body_file);
        if (fstat(fileno(src.f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
            fclose(src.f);
            return pl__error_set(err, PL_EUSAGE, "%s: not a regular file",
                                 body_file);
        }
        body_len = (uint64_t)sb.st_size;
    }
    for (long waited = 0;;) {
        if ((st = exchange(c, out, method, url, content_type, &src, body_len,
                           has_body, err)))
            goto done;
        bool busy = out->code == 429 || out->code == 503;
        long delay = out->retry_after_s > 0 ? out->retry_after_s : 1;
        if (!busy || out->retry_after_s < 0 ||
            waited + delay > c->max_retry_s)
            break;
        /* a full queue or a draining server: again after the delay */
        for (long t = 0; t < delay * 10 && !stopped(c); t++)
            sleep_tenth();
        if (stopped(c)) {
            st = pl__error_set(err, PL_ECANCELLED, "%s: interrupted "
                               "while waiting to retry", out->url);
            goto done;
        }
        waited += delay;
        pl_client_reply_free(out);
        url_for_messages(c, out, path);
        out->retry_after_s = -1;
        src.at = 0;
        if (src.f && fseek(src.f, 0, SEEK_SET) != 0) {
            st = pl__error_errno(err, PL_EIO, errno, "%s: cannot rewind",
                                 body_file);
            goto done;
        }
    }
    if (out->code >= 200 && out->code < 300) {
        if (!out->json)
            st = pl__error_set(err, PL_EFORMAT, "%s: HTTP %ld: the reply "
                               "is not JSON", out->url, out->code);
    } else if (out->code != allow_code || allow_code == 0) {
        pl__strbuf text = {0};
        pl__strbuf_printf(&text, "%s: HTTP %ld: ", out->url, out->code);
        server_message(&text, out);
        if (out->code == 401)
            pl__strbuf_printf(&text, " (check --token-file)");
        pl_status code = out->code == 500 ? PL_EINTERNAL
                         : out->code >= 400 && out->code < 500 ? PL_EUSAGE
                                                               : PL_EIO;
        st = pl__error_set(err, code, "%s",
                           text.data ? text.data : "out of memory");
        keep_error(c, text.data);
        pl__strbuf_free(&text);
        goto kept;
    }
done:
    keep_error(c, st == PL_OK ? NULL : err->msg);
kept:
    if (src.f)
        fclose(src.f);
    return st;
}

void pl_client_reply_free(pl_client_reply *r)
{
    if (!r)
        return;
    if (r->json)
        pl__json_free(&r->doc);
    free(r->body);
    r->body = NULL;
    r->len = 0;
    r->json = false;
}

/* ---- reading replies ---------------------------------------------------- */

const pl__json_value *pl_client_get(const pl_client_reply *r,
                                     const pl__json_value *obj,
                                     const char *key)
{
    if (!r->json || !obj || obj->type != PL__JSON_OBJECT)
        return NULL;
    for (const pl__json_value *m = pl__json_first(obj);
         m != pl__json_end(obj); m = pl__json_next(m))
        if (m->key && strcmp(m->key, key) == 0)
            return m;
    return NULL;
}

const char *pl_client_str(const pl_client_reply *r,
                           const pl__json_value *obj, const char *key)
{
    const pl__json_value *v = pl_client_get(r, obj, key);
    return v && v->type == PL__JSON_STRING ? v->text : NULL;
}

int64_t pl_client_int(const pl_client_reply *r, const pl__json_value *obj,
                       const char *key, int64_t fallback)
{
    const pl__json_value *v = pl_client_get(r, obj, key);
    if (!v || v->type != PL__JSON_NUMBER || v->len >= 32)
        return fallback;
    char buf[32];
    memcpy(buf, v->text, v->len);
    buf[v->len] = '\0';
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (errno || *end) { /* a fraction or an exponent: as a double */
        double d = strtod(buf, &end);
        if (*end || d != d || d < -9.2e18 || d > 9.2e18)
            return fallback;
        return (int64_t)d;
    }
    return (int64_t)x;
}

uint64_t pl_client_num(const pl_client_reply *r, const pl__json_value *obj,
                        const char *key, uint64_t fallback)
{
    const pl__json_value *v = pl_client_get(r, obj, key);
    if (!v || v->type != PL__JSON_NUMBER || v->len >= 32 || v->text[0] == '-')
        return fallback;
    char buf[32];
    memcpy(buf, v->text, v->len);
    buf[v->len] = '\0';
    char *end;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || *end) {
        double d = strtod(buf, &end);
        if (*end || !(d >= 0) || d > 1.8e19)
            return fallback;
        return (uint64_t)d;
    }
    return (uint64_t)x;
}

/* ---- circuits ----------------------------------------------------------- */

/* The sha256 of a file, in hex, read in pieces. */
static pl_status file_sha256(char hex[65], const char *path, pl_error *err)
{
    enum { PIECE = 256 << 10 };
    pl__sha256 h;
    pl_status st = PL_OK;
    struct stat sb;
    FILE *f = fopen(path, "rb");
    uint8_t *buf = malloc(PIECE), digest[32];
    if (!f || !buf) {
        st = !f ? pl__error_errno(err, PL_EIO, errno, "%s: cannot open",
                                  path)
                : pl__error_set(err, PL_ENOMEM, "out of memory");
        goto done;
    }
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = pl__error_set(err, PL_EUSAGE, "%s: not a regular file", path);
        goto done;
    }
    pl__sha256_init(&h);
    for (size_t n; (n = fread(buf, 1, PIECE, f)) > 0;)
        pl__sha256_update(&h, buf, n);
    if (ferror(f)) {
        st = pl__error_errno(err, PL_EIO, errno, "%s: cannot read", path);
        goto done;
    }
    pl__sha256_final(&h, digest);
    pl__sha256_hex(hex, digest);
done:
    if (f)
        fclose(f);
    free(buf);
    return st;
}

pl_status pl_client_create_job(pl_client *c, const char *circuit,
                               const char *priority, size_t n_partitions,
                               double deadline_s, char id[37], pl_error *err)
{
    pl__strbuf body = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &body, false);
    pl__jw_object(&w);
    pl__jw_key_str(&w, "circuit", circuit);
    pl__jw_key_str(&w, "priority", priority);
    pl__jw_key_u64(&w, "partitions", n_partitions);
    if (deadline_s > 0) /* milliseconds are what the server keeps */
        pl__jw_key_f64(&w, "deadline_s", deadline_s, 3);
    pl__jw_end_object(&w);
    if (w.failed || body.failed) {
        pl__strbuf_free(&body);
        return pl__error_set(err, PL_ENOMEM, "a job's spec: out of memory");
    }
    pl_client_reply r;
    pl_status st = pl_client_request(c, &r, "POST", "/v1/jobs",
                                      "application/json", body.data, body.len,
                                      NULL, 0, err);
    pl__strbuf_free(&body);
    const char *got = st == PL_OK ? pl_client_str(&r, pl__json_root(&r.doc),
                                                  "id")
                                  : NULL;
    /* it goes into paths next: the store's form only */
    if (st == PL_OK && (!got || strlen(got) != 36 ||
                        strspn(got, "0123456789abcdef-") != 36))
        st = pl__error_set(err, PL_EFORMAT, "%s: the reply has no valid "
                           "\"id\"", r.url);
    if (st == PL_OK)
        memcpy(id, got, 37);
    pl_client_reply_free(&r);
    return st;
}

pl_status pl_client_register(pl_client *c, const char *zkey_path,
                              char id[65], bool *uploaded, pl_error *err)
{
    char path[96];
    pl_client_reply r;
    *uploaded = false;
    pl_status st = file_sha256(id, zkey_path, err);
    if (st != PL_OK)
        return st;
    snprintf(path, sizeof(path), "/v1/circuits/%s", id);
    st = pl_client_request(c, &r, "GET", path, NULL, NULL, 0, NULL, 404,
                            err);
    bool known = st == PL_OK && r.code == 200;
    pl_client_reply_free(&r);
    if (st != PL_OK || known)
        return st;
    st = pl_client_request(c, &r, "POST", "/v1/circuits",
                            "application/octet-stream", NULL, 0, zkey_path, 0,
                            err);
    if (st == PL_OK) {
        /* the server hashed what it received: the same id, or the file
         * changed while it was sent */
        const char *got = pl_client_str(&r, pl__json_root(&r.doc), "id");
        if (!got || strcmp(got, id) != 0)
            st = pl__error_set(err, PL_EIO, "%s: the server registered "
                               "it as %.64s, not %s (did the file change "
                               "while it was sent?)", zkey_path,
                               got ? got : "(no id)", id);
        else
            *uploaded = true;
    }
    pl_client_reply_free(&r);
    return st;
}

/* ---- proofs ------------------------------------------------------------- */

/* The end of the value whose text starts at src[at] (a parsed, valid
 * document: brackets balance outside strings), one past its last byte. */
static size_t value_end(const char *src, size_t len, size_t at)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = at; i < len; i++) {
        char ch = src[i];
        if (in_string) {
            if (ch == '\\')
                i++;
            else if (ch == '"')
                in_string = false;
            continue;
        }
        if (ch == '"')
            in_string = true;
        else if (ch == '{' || ch == '[')
            depth++;
        else if ((ch == '}' || ch == ']') && --depth == 0)
            return i + 1;
    }
    return len;
}

pl_status pl_client_fetch_proof(pl_client *c, const char *job,
                                 uint32_t index, const char *proof_path,
                                 const char *public_path, bool *ready,
                                 pl_error *err)
{
    char path[256];
    pl_client_reply r;
    pl_proof proof;
    pl_scalar *publics = NULL;
    size_t count = 0;
    *ready = false;
    snprintf(path, sizeof(path), "/v1/jobs/%.64s/proofs/%u", job, index);
    pl_status st = pl_client_request(c, &r, "GET", path, NULL, NULL, 0, NULL,
                                      409, err);
    if (st != PL_OK || r.code == 409)
        goto done;
    const pl__json_value *root = pl__json_root(&r.doc);
    const pl__json_value *pv = pl_client_get(&r, root, "proof");
    const pl__json_value *uv = pl_client_get(&r, root, "public");
    if (!pv || pv->type != PL__JSON_OBJECT || !uv ||
        uv->type != PL__JSON_ARRAY) {
        st = pl__error_set(err, PL_EFORMAT, "%s: the reply has no "
                           "\"proof\" object and \"public\" array", r.url);
        goto done;
    }
    /* each part re-read by the proof files' own readers, then written by
     * their writer: the files are those `proofline prove` writes */
    size_t p0 = pv->offset, p1 = value_end(r.body, r.len, p0);
    size_t u0 = uv->offset, u1 = value_end(r.body, r.len, u0);
    if ((st = pl__proof_parse_json(&proof, r.body + p0, p1 - p0, r.url,
                                   err)) ||
        (st = pl__public_parse_json(&publics, &count, r.body + u0, u1 - u0,
                                    r.url, err)))
        goto done;
    if ((st = pl_proof_write_json(&proof, proof_path, publics, count,
                                  public_path, err)))
        goto done;
    *ready = true;
done:
    pl_public_free(publics);
    pl_client_reply_free(&r);
    return st;
}
