/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline serve`: the proving service (service/: the store, the worker,
 * the HTTP server, the metrics).  This file reads the options, refuses
 * unsafe ones (a non-loopback address without a token, a token file others
 * can read), prepares DATA (its folders, one server per DATA through a
 * lock, temporary files a killed run left removed, the worker's stable
 * owner id), starts the pieces and waits for SIGTERM or SIGINT; then it
 * drains: new work is refused with 503, the partitions in flight may
 * finish until --drain-timeout, the rest go back to the queue, and the
 * process exits 0.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "options.h"
#include "metrics.h"
#include "residency.h"
#include "server.h"
#include "service.h"
#include "store/store.h"
#include "worker.h"
#include "util/error.h"
#include "util/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static const cli_command serve_cmd = {
    "serve",
    "Usage: proofline serve [--listen 127.0.0.1:7878 | --listen unix:PATH]\n"
    "                       [--data DIR] [--budget SIZE] [options]\n"
    "\n"
    "Runs the proving service: an HTTP API (docs/serve.md) to register\n"
    "circuits, submit jobs of N witnesses with a priority, follow them and\n"
    "fetch their proofs; a durable job store under DATA (SQLite), so that\n"
    "an acknowledged job survives a crash; one engine proving the queue\n"
    "under the memory budget; the ledger live at /v1/status and /metrics.\n",
    "\n"
    "Listens on loopback unless told otherwise; any other address needs\n"
    "--token-file (then every endpoint but /healthz needs\n"
    "`Authorization: Bearer TOKEN`).  The bound address is written to\n"
    "DATA/listen.addr (with port 0 the system picks one).  SIGTERM or SIGINT\n"
    "drains: new work gets 503, partitions in flight may finish until\n"
    "--drain-timeout, the rest stay queued for the next start; exit 0.\n"
    "TIME: a number with s, m, h or d (30s, 7d).\n"
    "Exit codes: 0 after a drain, 2 bad usage or a DATA that cannot be\n"
    "used, 3 internal error.\n",
    26};

typedef struct serve_options {
    const char *listen, *data, *store, *token_file, *allow_path;
    const char *retain, *drain_timeout, *lease, *request_timeout;
    const char *params_idle, *preload;
    uint64_t params_budget;
    long max_queued, trace_records, http_threads, max_connections;
    uint64_t max_zkey;
    cli_engine_options engine;
} serve_options;

#define O(field) offsetof(serve_options, field)
static const cli_opt serve_opts[] = {
    {"--listen", "ADDR", CLI_STRING, O(listen),
     .help = "HOST:PORT or unix:PATH (default 127.0.0.1:7878)"},
    {"--data", "DIR", CLI_STRING, O(data),
     .help = "the store, circuits, witnesses and proofs (default\n"
             "./proofline-data; created if missing)"},
    {"--store", "LOCATOR", CLI_STRING, O(store),
     .help = "the job store: a folder (SQLite; default DATA) or\n"
             "postgres://... shared by several services (their DATA\n"
             "then on storage they all reach at the same path)"},
    {"--token-file", "F", CLI_STRING, O(token_file),
     .help = "a bearer token every request needs (the file must\n"
             "not be readable by others)"},
    {"--allow-path", "DIR", CLI_STRING, O(allow_path),
     .help = "allow registering zkeys by a path under DIR"},
    {"--max-queued", "N", CLI_LONG, O(max_queued),
     .help = "refuse new jobs (429) while N are waiting (default:\nno bound)"},
    {"--max-zkey", "SIZE", CLI_SIZE, O(max_zkey),
     .help = "refuse zkey uploads larger than this (413; default:\n"
             "no bound)"},
    {"--retain", "TIME", CLI_STRING, O(retain),
     .help = "forget ended jobs and their files after this long\n"
             "(default: keep them)"},
    {"--drain-timeout", "TIME", CLI_STRING, O(drain_timeout),
     .help = "how long partitions in flight may finish after\n"
             "SIGTERM (default 30s)"},
    {"--lease", "TIME", CLI_STRING, O(lease),
     .help = "a claim's lease, renewed while it is proved\n(default 30s)"},
    {"--trace-records", "N", CLI_LONG, O(trace_records),
     .help = "the ledger records /v1/trace keeps (default 4096)"},
    {"--http-threads", "N", CLI_LONG, O(http_threads),
     .help = "threads polling the connections (default 4)"},
    {"--max-connections", "N", CLI_LONG, O(max_connections),
     .help = "connections at once (default 256)"},
    {"--request-timeout", "TIME", CLI_STRING, O(request_timeout),
     .help = "an idle connection is closed after this (default 30s)"},
    {"--params-budget", "SIZE", CLI_SIZE, O(params_budget),
     .help = "the most bytes of circuits held hot (keys loaded,\n"
             "matrices built), inside --budget; least recently used\n"
             "ones are demoted first (default: the budget)"},
    {"--params-idle", "TIME", CLI_STRING, O(params_idle),
     .help = "demote a hot circuit unused for this long (default:\n"
             "only when its bytes are needed)"},
    {"--preload", "ID,...", CLI_STRING, O(preload),
     .help = "circuits (ids of registered ones) made hot at start"},
    {NULL},
};

/* The token: the file's first line, not readable by others. */
static pl_status read_token(char **out, const char *path, pl_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return pl__error_set(err, PL_EUSAGE, "--token-file %s: %s", path,
                             strerror(errno));
    if (sb.st_mode & (S_IROTH | S_IWOTH))
        return pl__error_set(err, PL_EUSAGE, "--token-file %s: readable or "
                             "writable by others (mode %03o): chmod 600 it",
                             path, (unsigned)(sb.st_mode & 0777));
    char *text = NULL;
    size_t len = 0;
    pl_status st = pl__file_read_small(&text, &len, path, 4096, err);
    if (st != PL_OK)
        return st;
    text[strcspn(text, "\r\n")] = '\0';
    len = strlen(text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
        text[--len] = '\0';
    if (len == 0) {
        free(text);
        return pl__error_set(err, PL_EUSAGE, "--token-file %s: no token on "
                             "its first line", path);
    }
    if (len < 16)
        fprintf(stderr, "proofline serve: warning: --token-file %s: a token "
                "of %zu characters is easy to guess; 32 random ones are "
                "better\n", path, len);
    *out = text;
    return PL_OK;
}

/* Removes what a killed run left half-written: pl__output's temporary
 * files ("<target>.tmp" and six characters) in DATA's folders. */
static void sweep_temporaries(const char *data)
{
    static const char *const dirs[] = {"circuits", "witnesses", "proofs", ""};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        char dir[PL__SERVICE_PATH_MAX + 32];
        snprintf(dir, sizeof(dir), "%s/%s", data, dirs[i]);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            const char *t = strstr(e->d_name, ".tmp");
            if (t && strlen(t) == 10) {
                char path[PL__SERVICE_PATH_MAX + 300];
                snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                unlink(path);
            }
        }
        closedir(d);
    }
}

/* The worker's owner id: "host:" and an id kept in DATA/owner.id. */
static pl_status owner_id(char *out, size_t cap, const char *data,
                          pl_error *err)
{
    char path[PL__SERVICE_PATH_MAX + 32], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/owner.id", data);
    char id[33] = {0};
    if (access(path, F_OK) == 0) {
        pl_status st = pl__file_read_small(&text, &len, path, 64, err);
        if (st != PL_OK)
            return st;
        snprintf(id, sizeof(id), "%.*s", (int)strcspn(text, "\r\n"), text);
        free(text);
    }
    if (!id[0]) {
        uint8_t b[8] = {0};
        if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
            return pl__error_set(err, PL_EIO, "getrandom failed");
        for (int i = 0; i < 8; i++)
            snprintf(id + 2 * i, 3, "%02x", b[i]);
        char line[40];
        int n = snprintf(line, sizeof(line), "%s\n", id);
        pl_status st = pl__file_write_atomic(path, line, (size_t)n, err);
        if (st != PL_OK)
            return st;
    }
    char host[64] = "localhost";
    gethostname(host, sizeof(host) - 1);
    snprintf(out, cap, "%s:%s", host, id);
    return PL_OK;
}

/* shared: DATA is shared with the services of other hosts on one store
 * (--store): the lock is this host's alone, and the temporary files are
 * left (another host may be writing them). */
static pl_status prepare_data(const char *data, bool shared, int *lock_fd,
                              pl_error *err)
{
    pl_status st = cli_make_dir(data, true, err);
    static const char *const dirs[] = {"circuits", "witnesses", "proofs"};
    for (size_t i = 0; st == PL_OK && i < 3; i++) {
        char dir[PL__SERVICE_PATH_MAX + 32];
        snprintf(dir, sizeof(dir), "%s/%s", data, dirs[i]);
        st = cli_make_dir(dir, false, err);
    }
    if (st != PL_OK)
        return st;
    char path[PL__SERVICE_PATH_MAX + 96], host[64] = "localhost";
    gethostname(host, sizeof(host) - 1);
    if (shared)
        snprintf(path, sizeof(path), "%s/serve.%s.lock", data, host);
    else
        snprintf(path, sizeof(path), "%s/serve.lock", data);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return pl__error_set(err, PL_EIO, "%s: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return pl__error_set(err, PL_EUSAGE, "--data %s: another proofline "
                             "serve is using it (%s is locked)", data, path);
    }
    *lock_fd = fd;
    if (!shared)
        sweep_temporaries(data);
    return PL_OK;
}

/* Waits for a second SIGINT or SIGTERM and exits at once. */
static void *second_signal(void *arg)
{
    int sig = 0;
    sigwait((const sigset_t *)arg, &sig);
    static const char msg[] = "proofline serve: second signal: exiting "
                              "without draining\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(128 + sig);
}

/* --preload ID,...: each a registered circuit, made hot before the first
 * claim (so its first proof does not wait for its parameters). */
static pl_status preload(pl__service *svc, const char *ids, pl_error *err)
{
    char id[PL__STORE_ID_LEN + 2];
    while (ids && *ids) {
        size_t n = strcspn(ids, ",");
        if (n == 0 || n > PL__STORE_ID_LEN)
            return pl__error_set(err, PL_EUSAGE, "--preload: '%.*s' is not "
                                 "a circuit id", (int)(n > 80 ? 80 : n), ids);
        memcpy(id, ids, n);
        id[n] = '\0';
        ids += n + (ids[n] == ',');
        pl__store_circuit c;
        pl_status st = pl__store_circuit_get(svc->store, id, &c, err);
        bool busy = false;
        if (st == PL_OK)
            st = pl__residency_preload(svc->residency, c.id, c.zkey_path, 0,
                                       &busy, err);
        if (st != PL_OK) {
            char msg[sizeof(err->msg)];
            snprintf(msg, sizeof(msg), "--preload %.64s: %.170s", id,
                     err->msg);
            memcpy(err->msg, msg, sizeof(msg));
            return st;
        }
        fprintf(stderr, "proofline serve: circuit %.16s... preloaded (hot)\n",
                id);
    }
    return PL_OK;
}

static int serve_run(serve_options *o)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    pl__service svc = {0};
    pl__server *server = NULL;
    char *token = NULL;
    int lock_fd = -1;
    double drain_s = 30, lease_s = 30, retain_s = 0, timeout_s = 30;
    double params_idle_s = 0;

    if (o->drain_timeout && !cli_parse_duration(o->drain_timeout, &drain_s))
        return cli_usage_error("serve", "--drain-timeout takes a duration "
                               "(30s, 2m), not '%s'", o->drain_timeout);
    if (o->lease && (!cli_parse_duration(o->lease, &lease_s) || lease_s < 1))
        return cli_usage_error("serve", "--lease takes a duration of 1s or "
                               "more, not '%s'", o->lease);
    if (o->retain && !cli_parse_duration(o->retain, &retain_s))
        return cli_usage_error("serve", "--retain takes a duration (7d), not "
                               "'%s'", o->retain);
    if (o->params_idle && !cli_parse_duration(o->params_idle, &params_idle_s))
        return cli_usage_error("serve", "--params-idle takes a duration "
                               "(10m), not '%s'", o->params_idle);
    if (o->request_timeout &&
        (!cli_parse_duration(o->request_timeout, &timeout_s) || timeout_s < 1))
        return cli_usage_error("serve", "--request-timeout takes a duration "
                               "of 1s or more, not '%s'", o->request_timeout);
    if (o->max_queued < 0 || o->trace_records < 0 || o->http_threads < 0 ||
        o->http_threads > 64 || o->max_connections < 0 ||
        o->trace_records > 1000000)
        return cli_usage_error("serve", "--max-queued, --trace-records, "
                               "--http-threads (up to 64) and "
                               "--max-connections take positive numbers");
    const char *listen = o->listen ? o->listen : "127.0.0.1:7878";
    bool loopback = false;
    if ((st = pl__server_listen_check(listen, &loopback, &err)) != PL_OK)
        return cli_fail("serve", st, &err);
    if (!loopback && !o->token_file)
        return cli_usage_error("serve", "--listen %s is not a loopback "
                               "address: that needs --token-file", listen);
    if (o->token_file && (st = read_token(&token, o->token_file, &err)))
        return cli_fail("serve", st, &err);
    struct stat sb;
    if (o->allow_path &&
        (stat(o->allow_path, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
        free(token);
        return cli_usage_error("serve", "--allow-path %s is not a folder",
                               o->allow_path);
    }
    const char *data = o->data ? o->data : "proofline-data";
    if (strlen(data) >= sizeof(svc.data_dir) - 64) {
        free(token);
        return cli_usage_error("serve", "--data: the path is too long");
    }

    /* the signals are taken by this thread alone (sigwait below): every
     * thread started from here on has them blocked */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* a store on a server (postgres://) may be shared by several hosts */
    bool shared = o->store && strstr(o->store, "://") != NULL;
    snprintf(svc.data_dir, sizeof(svc.data_dir), "%s", data);
    svc.token = token;
    svc.allow_path = o->allow_path;
    svc.max_queued = (uint64_t)o->max_queued;
    svc.max_zkey_bytes = o->max_zkey;
    svc.lease_ms = (int64_t)(lease_s * 1000);
    svc.retain_ms = (int64_t)(retain_s * 1000);
    svc.drain_timeout_s = drain_s;
    svc.started_unix_ms = pl__service_now_ms();
    svc.log_claims = o->engine.cfg.log_level != PL_LOG_QUIET;
    atomic_init(&svc.draining, false);
    if ((st = prepare_data(data, shared, &lock_fd, &err)) != PL_OK ||
        (st = owner_id(svc.owner, sizeof(svc.owner), data, &err)) != PL_OK ||
        (st = pl__store_open(&svc.store, o->store ? o->store : data,
                             &err)) != PL_OK ||
        (st = pl__metrics_create(&svc.metrics,
                                 o->trace_records ? (size_t)o->trace_records
                                                  : 4096,
                                 &err)) != PL_OK)
        goto done;
    o->engine.cfg.on_event = pl__worker_on_event;
    o->engine.cfg.on_event_user = &svc;
    o->engine.cfg.on_stage = pl__metrics_on_stage;
    o->engine.cfg.on_stage_user = svc.metrics;
    if ((st = pl_engine_create(&svc.engine, &o->engine.cfg, &err)) != PL_OK)
        goto done;
    pl_engine_stats es;
    pl_engine_stats_read(svc.engine, &es);
    svc.budget_bytes = es.budget_bytes;
    if (o->params_budget > svc.budget_bytes) {
        char b1[32], b2[32];
        st = pl__error_set(&err, PL_EUSAGE, "--params-budget %s is more "
                           "than the budget, %s",
                           pl_format_bytes(b1, sizeof(b1), o->params_budget),
                           pl_format_bytes(b2, sizeof(b2), svc.budget_bytes));
        goto done;
    }
    svc.params_budget_bytes =
        o->params_budget ? o->params_budget : svc.budget_bytes;
    svc.params_idle_s = params_idle_s;
    if ((st = pl__residency_create(&svc.residency, svc.engine,
                                   svc.params_budget_bytes, &err)) != PL_OK ||
        (st = preload(&svc, o->preload, &err)) != PL_OK ||
        (st = pl__worker_start(&svc.worker, &svc, &err)) != PL_OK)
        goto done;
    pl__server_config scfg = {listen, (unsigned)o->http_threads,
                              (unsigned)o->max_connections,
                              (unsigned)timeout_s};
    if ((st = pl__server_start(&server, &svc, &scfg, &err)) != PL_OK)
        goto done;
    char b[32];
    fprintf(stderr, "proofline serve: data %s, budget %s, owner %s\n", data,
            pl_format_bytes(b, sizeof(b), svc.budget_bytes), svc.owner);

    int sig = 0;
    sigwait(&sigs, &sig);
    atomic_store(&svc.draining, true);
    /* a second signal during the drain ends the process at once, as kill
     * -9 would: the claims go back to the queue at the next start */
    pthread_t second;
    bool second_started =
        pthread_create(&second, NULL, second_signal, &sigs) == 0;
    fprintf(stderr, "proofline serve: %s: draining (up to %.0fs)\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", drain_s);
    size_t released = pl__worker_drain(svc.worker, drain_s);
    fprintf(stderr, "proofline serve: drained; %zu partition(s) back in the "
            "queue\n", released);
    if (second_started) { /* sigwait is a cancellation point */
        pthread_cancel(second);
        pthread_join(second, NULL);
    }
done:
    pl__server_stop(server);
    /* the worker stops (a no-op after the drain) before the engine goes,
     * and is freed after it: the engine's last events still reach it */
    pl__worker_drain(svc.worker, 0);
    pl__residency_destroy(svc.residency); /* the hot circuits let go */
    if (svc.engine) {
        pl_error e2 = {0};
        pl_status s2 = pl_engine_destroy(svc.engine, &e2);
        if (st == PL_OK && s2 != PL_OK) {
            st = s2;
            err = e2;
        }
    }
    pl__worker_destroy(svc.worker);
    pl__store_close(svc.store);
    pl__metrics_destroy(svc.metrics);
    if (lock_fd >= 0)
        close(lock_fd);
    free(token);
    if (st != PL_OK)
        return cli_fail("serve", st, &err);
    return 0;
}

int cli_serve(int argc, char **argv)
{
    serve_options o = {0};
    cli_engine_options_init(&o.engine, 2, PL_LOG_INFO);
    const cli_table tables[] = {{serve_opts, &o},
                                {cli_pipeline_opts, &o.engine},
                                {cli_engine_opts, &o.engine}};
    int npos = 0;
    int rc = cli_parse(&serve_cmd, tables, sizeof(tables) / sizeof(tables[0]),
                       argc, argv, &npos);
    if (rc == CLI_RUN && npos > 0)
        rc = cli_usage_error("serve", "takes no arguments, only options "
                             "('%s')", argv[0]);
    if (rc == CLI_RUN) {
        cli_engine_options_finish(&o.engine, "serve");
        rc = serve_run(&o);
    }
    return rc;
}
