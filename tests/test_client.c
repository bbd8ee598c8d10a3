/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The client of `proofline serve` (service/client.c) against a canned
 * HTTP server on a loopback port (a thread that answers each connection
 * with the next reply of a script and keeps what it was sent): server
 * addresses accepted and refused, the token file and the header it makes,
 * bodies from memory and streamed from a file, every kind of error reply
 * (the URL and the server's message in it, the status it maps to), the
 * 429 retried after Retry-After, the members of a reply, a proof fetched
 * into the pair `proofline prove` writes, and a server that is not there;
 * then against a real service in this process, without its worker.  The
 * real server's round trip end to end is tests/cli_serve_client.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "proofline_client.h"
#include "proofline_service.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the canned server -------------------------------------------------- */

#define CANNED_MAX 4

typedef struct {
    int fd;
    int port;
    const char *replies[CANNED_MAX]; /* whole responses, head and body */
    int n;
    int served;
    char request[CANNED_MAX][8192];  /* head and the body's start */
    size_t body_bytes[CANNED_MAX];   /* the body's length as received */
    pthread_t thread;
} canned;

/* Reads a request: the head up to the blank line, then Content-Length
 * bytes of body; keeps the first cap - 1 bytes of both (NUL-terminated)
 * and counts the body's bytes. */
static void read_request(int c, char *keep, size_t cap, size_t *body)
{
    size_t kept = 0, total = 0, head = 0, want = 0;
    char buf[65536];
    for (;;) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0)
            return;
        size_t take = (size_t)n < cap - 1 - kept ? (size_t)n : cap - 1 - kept;
        memcpy(keep + kept, buf, take);
        kept += take;
        keep[kept] = '\0';
        total += (size_t)n;
        if (!head) {
            const char *end = strstr(keep, "\r\n\r\n");
            if (!end)
                continue; /* heads here are short: within cap */
            head = (size_t)(end + 4 - keep);
            const char *cl = strstr(keep, "Content-Length: ");
            want = cl && cl < end ? strtoull(cl + 16, NULL, 10) : 0;
        }
        *body = total - head;
        if (*body >= want)
            return;
    }
}

static void *canned_run(void *arg)
{
    canned *s = arg;
    for (int i = 0; i < s->n; i++) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            break;
        read_request(c, s->request[i], sizeof(s->request[i]),
                     &s->body_bytes[i]);
        size_t len = strlen(s->replies[i]);
        for (size_t off = 0; off < len;) {
            ssize_t w = write(c, s->replies[i] + off, len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        close(c);
        s->served = i + 1;
    }
    return NULL;
}

static void canned_start(canned *s)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t alen = sizeof(a);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK((s->fd = socket(AF_INET, SOCK_STREAM, 0)) >= 0);
    CHECK(bind(s->fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    CHECK(listen(s->fd, 8) == 0);
    CHECK(getsockname(s->fd, (struct sockaddr *)&a, &alen) == 0);
    s->port = ntohs(a.sin_port);
    CHECK(pthread_create(&s->thread, NULL, canned_run, s) == 0);
}

static void canned_stop(canned *s)
{
    pthread_join(s->thread, NULL);
    close(s->fd);
}

/* A response with a JSON (or any) body; extra: more header lines. */
static char *reply(int code, const char *reason, const char *extra,
                   const char *body)
{
    size_t cap = strlen(body) + 512;
    char *r = malloc(cap);
    CHECK(r != NULL);
    snprintf(r, cap, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\nConnection: close\r\n%s\r\n%s", code,
             reason, strlen(body), extra ? extra : "", body);
    return r;
}

static pl_client *open_client(const canned *s, const char *token_file,
                               long max_retry_s)
{
    char url[64];
    pl_client *c = NULL;
    pl_error err = {0};
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", s->port);
    pl_client_config cfg = {.server = url, .token_file = token_file,
                             .max_retry_s = max_retry_s};
    CHECK_OK(pl_client_open(&c, &cfg, &err), &err);
    return c;
}

static void check_contains(const char *text, const char *want)
{
    if (!strstr(text, want))
        pl_test_fail(__FILE__, __LINE__, "'%s' does not contain '%s'", text,
                     want);
}

/* ---- cases -------------------------------------------------------------- */

PL_TEST(server_addresses)
{
    static const char *const bad[] = {"ftp://host:21", "host:7878",
                                      "unix:relative.sock",
                                      "http://host:1/path", "http://",
                                      "http://h:1?x"};
    pl_error err = {0};
    pl_client *c = NULL;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pl_client_config cfg = {.server = bad[i]};
        CHECK_STATUS(pl_client_open(&c, &cfg, &err), PL_EUSAGE, &err);
        CHECK(c == NULL);
        check_contains(err.msg, "--server");
    }
    static const char *const good[][2] = {
        {"http://127.0.0.1:7878/", "http://127.0.0.1:7878"},
        {"https://prover.example:443", "https://prover.example:443"},
        {"unix:/run/proofline/sock", "unix:/run/proofline/sock"},
        {"", PL_CLIENT_DEFAULT_SERVER},
        {NULL, PL_CLIENT_DEFAULT_SERVER}};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        pl_client_config cfg = {.server = good[i][0]};
        CHECK_OK(pl_client_open(&c, &cfg, &err), &err);
        CHECK(strcmp(pl_client_server(c), good[i][1]) == 0);
        pl_client_close(c);
    }
    pl_client_close(NULL);
}

PL_TEST(token_file)
{
    pl_error err = {0};
    pl_client *c = NULL;
    const char *tok = pl_test_tmp("client_token");
    char path[4096];
    snprintf(path, sizeof(path), "%s", tok);

    static const char *const refused[] = {"\nsecond line\n", " \t\n",
                                          "to\x01ken\n"};
    for (size_t i = 0; i < 3; i++) {
        pl_test_write_file(path, refused[i], strlen(refused[i]));
        pl_client_config cfg = {.server = "http://127.0.0.1:1",
                                 .token_file = path};
        CHECK_STATUS(pl_client_open(&c, &cfg, &err), PL_EUSAGE, &err);
        check_contains(err.msg, path);
    }
    pl_client_config missing = {.server = "http://127.0.0.1:1",
                                 .token_file = "/nonexistent/token"};
    CHECK(pl_client_open(&c, &missing, &err) != PL_OK);
    check_contains(err.msg, "/nonexistent/token");

    /* the first line, trailing blanks dropped, in the header */
    pl_test_write_file(path, "s3cret-token \t\r\nignored\n", 24);
    canned s = {.n = 1};
    s.replies[0] = reply(200, "OK", NULL, "{\"status\": \"ok\"}");
    canned_start(&s);
    c = open_client(&s, path, 0);
    pl_client_reply r;
    CHECK_OK(pl_client_request(c, &r, "GET", "/v1/status", NULL, NULL, 0,
                                NULL, 0, &err), &err);
    canned_stop(&s);
    check_contains(s.request[0], "GET /v1/status HTTP/1.1\r\n");
    check_contains(s.request[0], "\r\nAuthorization: Bearer s3cret-token\r\n");
    pl_client_reply_free(&r);
    pl_client_close(c);
    free((void *)s.replies[0]);
    unlink(path);
}

PL_TEST(bodies)
{
    pl_error err = {0};
    const char *file = pl_test_tmp("client_body.bin");
    char path[4096];
    snprintf(path, sizeof(path), "%s", file);
    /* 300 KiB: more than one read of the callback */
    size_t n = 300 << 10;
    uint8_t *data = malloc(n);
    CHECK(data != NULL);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 7);
    pl_test_write_file(path, data, n);

    canned s = {.n = 2};
    s.replies[0] = reply(202, "Accepted", NULL, "{\"id\": \"j1\"}");
    s.replies[1] = reply(201, "Created", NULL, "{\"id\": \"j2\"}");
    canned_start(&s);
    pl_client *c = open_client(&s, NULL, 0);
    pl_client_reply r;
    CHECK_OK(pl_client_request(c, &r, "PUT", "/v1/jobs/j1/witness/0",
                                "application/octet-stream", NULL, 0, path, 0,
                                &err), &err);
    CHECK_EQ(r.code, 202);
    pl_client_reply_free(&r);
    const char *json = "{\"circuit\": \"abc\", \"partitions\": 2}";
    CHECK_OK(pl_client_request(c, &r, "POST", "/v1/jobs", "application/json",
                                json, strlen(json), NULL, 0, &err), &err);
    CHECK_EQ(r.code, 201);
    CHECK(strcmp(pl_client_str(&r, pl__json_root(&r.doc), "id"), "j2") == 0);
    pl_client_reply_free(&r);
    canned_stop(&s);

    check_contains(s.request[0], "PUT /v1/jobs/j1/witness/0 HTTP/1.1\r\n");
    check_contains(s.request[0], "Content-Length: 307200\r\n");
    check_contains(s.request[0], "Content-Type: application/octet-stream");
    CHECK(!strstr(s.request[0], "Expect:")); /* no 100-continue wait */
    CHECK(!strstr(s.request[0], "Authorization:"));
    CHECK_EQ(s.body_bytes[0], n);
    check_contains(s.request[1], "POST /v1/jobs HTTP/1.1\r\n");
    check_contains(s.request[1], "Content-Type: application/json\r\n");
    check_contains(s.request[1], json);
    CHECK_EQ(s.body_bytes[1], strlen(json));

    /* a body file that is not there: nothing is sent */
    CHECK_STATUS(pl_client_request(c, &r, "PUT", "/x", NULL, NULL, 0,
                                    "/nonexistent/w.wtns", 0, &err),
                 PL_EIO, &err);
    check_contains(err.msg, "/nonexistent/w.wtns");
    pl_client_reply_free(&r);
    pl_client_close(c);
    for (int i = 0; i < 2; i++)
        free((void *)s.replies[i]);
    free(data);
    unlink(path);
}

PL_TEST(error_replies)
{
    static const struct {
        int code;
        const char *reason, *body;
        pl_status want;
        const char *says;
    } cases[] = {
        {404, "Not Found", "{\"error\": \"unknown job j9\"}", PL_EUSAGE,
         "/v1/jobs/j9: HTTP 404: unknown job j9"},
        {401, "Unauthorized", "{\"error\": \"a valid bearer token\"}",
         PL_EUSAGE, "HTTP 401: a valid bearer token (check --token-file)"},
        {500, "Internal Server Error", "{\"error\": \"store: disk full\"}",
         PL_EINTERNAL, "HTTP 500: store: disk full"},
        {502, "Bad Gateway", "<html>proxy</html>", PL_EIO,
         "HTTP 502: <html>proxy</html>"},
        {200, "OK", "not json", PL_EFORMAT, "HTTP 200: the reply is not JSON"},
    };
    size_t n = sizeof(cases) / sizeof(cases[0]);
    /* four at a time: the canned server holds CANNED_MAX replies */
    for (size_t base = 0; base < n; base += CANNED_MAX) {
        canned t = {.n = (int)(n - base < CANNED_MAX ? n - base
                                                     : CANNED_MAX)};
        for (int i = 0; i < t.n; i++)
            t.replies[i] = reply(cases[base + i].code, cases[base + i].reason,
                                 NULL, cases[base + i].body);
        canned_start(&t);
        pl_client *c = open_client(&t, NULL, 0);
        for (int i = 0; i < t.n; i++) {
            pl_error err = {0};
            pl_client_reply r;
            CHECK_STATUS(pl_client_request(c, &r, "GET", "/v1/jobs/j9", NULL,
                                            NULL, 0, NULL, 0, &err),
                         cases[base + i].want, &err);
            check_contains(err.msg, cases[base + i].says);
            char url[64];
            snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/jobs/j9",
                     t.port);
            check_contains(err.msg, url);
            pl_client_reply_free(&r);
        }
        pl_client_close(c);
        canned_stop(&t);
        for (int i = 0; i < t.n; i++)
            free((void *)t.replies[i]);
    }
}

PL_TEST(retry_after)
{
    pl_error err = {0};
    pl_client_reply r;
    /* max_retry_s 0: the 429 is the caller's, with the server's message */
    canned s = {.n = 3};
    s.replies[0] = reply(429, "Too Many Requests", "Retry-After: 1\r\n",
                         "{\"error\": \"the queue is full\"}");
    s.replies[1] = reply(429, "Too Many Requests", "Retry-After: 1\r\n",
                         "{\"error\": \"the queue is full\"}");
    s.replies[2] = reply(201, "Created", NULL, "{\"id\": \"j3\"}");
    canned_start(&s);
    pl_client *c = open_client(&s, NULL, 0);
    CHECK_STATUS(pl_client_request(c, &r, "POST", "/v1/jobs",
                                    "application/json", "{}", 2, NULL, 0,
                                    &err), PL_EUSAGE, &err);
    check_contains(err.msg, "HTTP 429: the queue is full");
    CHECK_EQ(r.retry_after_s, 1);
    pl_client_reply_free(&r);
    pl_client_close(c);
    /* with room to wait: again after Retry-After, the body sent again */
    c = open_client(&s, NULL, 30);
    CHECK_OK(pl_client_request(c, &r, "POST", "/v1/jobs", "application/json",
                                "{}", 2, NULL, 0, &err), &err);
    CHECK_EQ(r.code, 201);
    pl_client_reply_free(&r);
    pl_client_close(c);
    canned_stop(&s);
    CHECK_EQ(s.served, 3);
    CHECK_EQ(s.body_bytes[2], 2);
    for (int i = 0; i < 3; i++)
        free((void *)s.replies[i]);
}

PL_TEST(members)
{
    pl_error err = {0};
    pl_client_reply r;
    canned s = {.n = 1};
    s.replies[0] = reply(200, "OK", NULL,
                         "{\"s\": \"text\", \"n\": 12, \"neg\": -5, "
                         "\"f\": 2.5, \"e\": 1e3, \"big\": 18446744073709551615, "
                         "\"o\": {\"k\": 1}, \"a\": [1, 2], \"null\": null}");
    canned_start(&s);
    pl_client *c = open_client(&s, NULL, 0);
    CHECK_OK(pl_client_request(c, &r, "GET", "/v1/status", NULL, NULL, 0,
                                NULL, 0, &err), &err);
    canned_stop(&s);
    const pl__json_value *root = pl__json_root(&r.doc);
    CHECK(strcmp(pl_client_str(&r, root, "s"), "text") == 0);
    CHECK(pl_client_str(&r, root, "n") == NULL);
    CHECK(pl_client_str(&r, root, "absent") == NULL);
    CHECK_EQ(pl_client_num(&r, root, "n", 7), 12);
    CHECK_EQ(pl_client_num(&r, root, "neg", 7), 7);
    CHECK(pl_client_int(&r, root, "neg", 7) == -5);
    CHECK_EQ(pl_client_num(&r, root, "f", 7), 2);
    CHECK_EQ(pl_client_num(&r, root, "e", 7), 1000);
    CHECK_EQ(pl_client_num(&r, root, "big", 7), UINT64_MAX);
    CHECK_EQ(pl_client_num(&r, root, "s", 7), 7);
    CHECK_EQ(pl_client_num(&r, root, "null", 7), 7);
    const pl__json_value *o = pl_client_get(&r, root, "o");
    CHECK(o && o->type == PL__JSON_OBJECT);
    CHECK_EQ(pl_client_num(&r, o, "k", 0), 1);
    CHECK(pl_client_get(&r, pl_client_get(&r, root, "a"), "k") == NULL);
    pl_client_reply_free(&r);
    pl_client_close(c);
    free((void *)s.replies[0]);
}

PL_TEST(fetch_proof)
{
    pl_error err = {0};
    size_t plen, ulen;
    char *proof = (char *)pl_test_read_file(
        pl_test_vector("multiplier/proof_ref.json"), &plen);
    char *pub = (char *)pl_test_read_file(
        pl_test_vector("multiplier/public.json"), &ulen);
    /* the reply as the server sends it: both in one object, re-indented */
    size_t cap = plen + ulen + 64;
    char *body = malloc(cap);
    CHECK(body != NULL);
    snprintf(body, cap, "{\"proof\": %s, \"public\": %s}", proof, pub);

    canned s = {.n = 2};
    s.replies[0] = reply(409, "Conflict", NULL,
                         "{\"error\": \"partition 0 is not done\"}");
    s.replies[1] = reply(200, "OK", NULL, body);
    canned_start(&s);
    pl_client *c = open_client(&s, NULL, 0);
    char got_proof[4096], got_pub[4096], want_proof[4096], want_pub[4096];
    snprintf(got_proof, sizeof(got_proof), "%s",
             pl_test_tmp("client_fetch.proof.json"));
    snprintf(got_pub, sizeof(got_pub), "%s",
             pl_test_tmp("client_fetch.public.json"));
    snprintf(want_proof, sizeof(want_proof), "%s",
             pl_test_tmp("client_want.proof.json"));
    snprintf(want_pub, sizeof(want_pub), "%s",
             pl_test_tmp("client_want.public.json"));
    unlink(got_proof);
    unlink(got_pub);
    bool ready = true;
    CHECK_OK(pl_client_fetch_proof(c, "j1", 0, got_proof, got_pub, &ready,
                                    &err), &err);
    CHECK(!ready);
    struct stat sb;
    CHECK(stat(got_proof, &sb) != 0 && stat(got_pub, &sb) != 0);
    CHECK_OK(pl_client_fetch_proof(c, "j1", 0, got_proof, got_pub, &ready,
                                    &err), &err);
    CHECK(ready);
    canned_stop(&s);
    check_contains(s.request[1], "GET /v1/jobs/j1/proofs/0 HTTP/1.1\r\n");

    /* what `proofline prove` writes for that proof: the same bytes */
    pl_proof p;
    pl_scalar *publics = NULL;
    size_t count = 0;
    CHECK_OK(pl_proof_read_json(&p, pl_test_vector("multiplier/proof_ref.json"),
                                &err), &err);
    CHECK_OK(pl_public_read_json(&publics, &count,
                                 pl_test_vector("multiplier/public.json"), 16,
                                 &err), &err);
    CHECK_OK(pl_proof_write_json(&p, want_proof, publics, count, want_pub,
                                 &err), &err);
    size_t a_len, b_len;
    uint8_t *a = pl_test_read_file(got_proof, &a_len);
    uint8_t *b = pl_test_read_file(want_proof, &b_len);
    CHECK_EQ(a_len, b_len);
    CHECK_MEM(a, b, a_len);
    free(a);
    free(b);
    a = pl_test_read_file(got_pub, &a_len);
    b = pl_test_read_file(want_pub, &b_len);
    CHECK_EQ(a_len, b_len);
    CHECK_MEM(a, b, a_len);
    free(a);
    free(b);
    pl_public_free(publics);
    pl_client_close(c);
    for (int i = 0; i < 2; i++)
        free((void *)s.replies[i]);
    free(body);
    free(proof);
    free(pub);
    unlink(got_proof);
    unlink(got_pub);
    unlink(want_proof);
    unlink(want_pub);
}

PL_TEST(unreachable)
{
    pl_error err = {0};
    pl_client *c = NULL;
    pl_client_reply r;
    char sock[4200];
    snprintf(sock, sizeof(sock), "unix:%s", pl_test_tmp("client_none.sock"));
    unlink(sock + 5);
    pl_client_config cfg = {.server = sock};
    CHECK_OK(pl_client_open(&c, &cfg, &err), &err);
    CHECK_STATUS(pl_client_request(c, &r, "GET", "/healthz", NULL, NULL, 0,
                                    NULL, 0, &err), PL_EIO, &err);
    check_contains(err.msg, sock);
    check_contains(err.msg, "/healthz: cannot reach the server");
    CHECK_EQ(r.code, 0);
    pl_client_reply_free(&r);
    pl_client_close(c);
}

/* The client against a real service in this process, opened as the API's
 * fuzzer opens one (no_worker: jobs kept, never proved) on a Unix socket:
 * a zkey registered, a job made and its witness sent, the job queued and
 * left so; the service then closes with every buffer back. */
PL_TEST(real_service_without_worker)
{
    char dir[256], listen[300], server[300];
    snprintf(dir, sizeof(dir), "%s/client_service.XXXXXX", PL_TEST_TMP);
    CHECK(mkdtemp(dir) != NULL);
    snprintf(listen, sizeof(listen), "unix:%s/sock", dir);
    snprintf(server, sizeof(server), "unix:%s/sock", dir);
    pl_service_config cfg;
    pl_service_config_init(&cfg);
    cfg.listen = listen;
    cfg.data_dir = dir;
    cfg.no_worker = true;
    cfg.engine.threads = 1;
    pl_service *svc = NULL;
    pl_error err = {0};
    CHECK_OK(pl_service_open(&svc, &cfg, &err), &err);

    pl_client *c = NULL;
    pl_client_config ccfg = {.server = server};
    CHECK_OK(pl_client_open(&c, &ccfg, &err), &err);
    char id[65], job[37], path[160];
    bool uploaded = false;
    CHECK_OK(pl_client_register(c, PL_TEST_VECTORS "/multiplier/circuit.zkey",
                                id, &uploaded, &err), &err);
    CHECK(uploaded);
    CHECK_OK(pl_client_create_job(c, id, "high", 1, 0, job, &err), &err);
    snprintf(path, sizeof(path), "/v1/jobs/%s/witness/0", job);
    pl_client_reply r;
    CHECK_OK(pl_client_request(c, &r, "PUT", path, "application/octet-stream",
                               NULL, 0,
                               PL_TEST_VECTORS "/multiplier/witness.wtns", 0,
                               &err), &err);
    pl_client_reply_free(&r);
    snprintf(path, sizeof(path), "/v1/jobs/%s", job);
    CHECK_OK(pl_client_request(c, &r, "GET", path, NULL, NULL, 0, NULL, 0,
                               &err), &err);
    const char *state = pl_client_str(&r, pl__json_root(&r.doc), "state");
    CHECK(state && strcmp(state, "queued") == 0);
    const char *prio = pl_client_str(&r, pl__json_root(&r.doc), "priority");
    CHECK(prio && strcmp(prio, "high") == 0);
    pl_client_reply_free(&r);
    pl_client_close(c);
    CHECK_OK(pl_service_close(svc, &err), &err);
}
