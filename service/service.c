/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline serve`'s composition root (proofline_service.h): the one place
 * that assembles the service and takes it apart.  open checks the
 * configuration (a non-loopback address without a token, a token file
 * others can read), prepares DATA (its folders 0700 and every file the
 * service writes 0600, one service per DATA through a lock, temporary
 * files a killed run left removed, the worker's stable owner id), then
 * opens the store, the metrics, the engine, the parameter residency, the
 * worker and the HTTP server, in that order; run waits for SIGTERM or
 * SIGINT and drains; close takes them down in the other order.  Also the
 * store commands' calls (`proofline store migrate|info`).
 */
#define _GNU_SOURCE
#include "proofline_service.h"
#include "service.h"
#include "metrics.h"
#include "residency.h"
#include "http/server.h"
#include "worker.h"
#include "util/error.h"
#include "util/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

struct pl_service {
    pl__service svc;      /* what the service's parts share */
    pl__server *server;
    pl_service_config cfg;
    char *token;
    int lock_fd;
    sigset_t signals;     /* SIGINT, SIGTERM: blocked, taken by run */
};

void pl_service_config_init(pl_service_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    pl_engine_config_init(&cfg->engine);
    cfg->lease_s = 30;
    cfg->drain_timeout_s = 30;
    cfg->trace_records = 4096;
    cfg->http_threads = 4;
    cfg->max_connections = 256;
    cfg->max_per_client = 64;
    cfg->header_timeout_s = 10;
    cfg->idle_timeout_s = 30;
    cfg->body_min_rate = 1024;
}

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

/* mkdir -p, each folder it creates 0700 (the umask is 077 by then, and
 * the mode says so too); the last one made 0700 if it was not. */
static pl_status make_private_dir(const char *path, pl_error *err)
{
    char tmp[PL__SERVICE_PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                break; /* the mkdir below says why */
            *p = '/';
        }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return pl__error_errno(err, PL_EIO, errno, "--data %s: cannot create "
                               "it", path);
    struct stat sb;
    if (stat(tmp, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return pl__error_set(err, PL_EUSAGE, "--data %s: not a folder", path);
    /* one made before (by hand, by a package) is made private too */
    if ((sb.st_mode & 077) && chmod(tmp, 0700) != 0)
        fprintf(stderr, "proofline serve: warning: %s is mode %03o and "
                "cannot be made 0700 (%s): others may read its witnesses\n",
                path, (unsigned)(sb.st_mode & 0777), strerror(errno));
    return PL_OK;
}

/* shared: DATA is shared with the services of other hosts on one store
 * (--store postgres://): the lock is this host's alone, and the temporary
 * files are left (another host may be writing them). */
static pl_status prepare_data(const char *data, bool shared, int *lock_fd,
                              pl_error *err)
{
    pl_status st = make_private_dir(data, err);
    static const char *const dirs[] = {"circuits", "witnesses", "proofs"};
    for (size_t i = 0; st == PL_OK && i < 3; i++) {
        char dir[PL__SERVICE_PATH_MAX + 32];
        snprintf(dir, sizeof(dir), "%s/%s", data, dirs[i]);
        st = make_private_dir(dir, err);
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
        return pl__error_errno(err, PL_EIO, errno, "%s", path);
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
            return pl__error_set(err, st, "--preload %s: %s", id, err->msg);
        }
        fprintf(stderr, "proofline serve: circuit %.16s... preloaded (hot)\n",
                id);
    }
    return PL_OK;
}

/* Circuits a store of schema 4 or older registered have no curve: it is
 * read from each one's zkey (its header's prime; a map, nothing loaded)
 * and stored, once, so that listings and the status show it.  A zkey that
 * cannot be read leaves its circuit's curve unknown (said on stderr); the
 * service starts all the same, as it would have before. */
typedef struct {
    pl__store_circuit *c;
    size_t n, cap;
    bool failed;
} curveless;

static bool collect_curveless(void *user, const pl__store_circuit *c)
{
    curveless *l = user;
    if (c->curve[0])
        return true;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pl__store_circuit *p = realloc(l->c, cap * sizeof(*p));
        if (!p) {
            l->failed = true;
            return false;
        }
        l->c = p;
        l->cap = cap;
    }
    l->c[l->n++] = *c;
    return true;
}

static void fill_curves(pl__service *svc)
{
    curveless l = {0};
    pl_error err = {0};
    pl_status st = pl__store_circuit_list(svc->store, collect_curveless, &l,
                                          &err);
    for (size_t i = 0; st == PL_OK && !l.failed && i < l.n; i++) {
        pl_zkey *z = NULL;
        pl_error zerr = {0};
        if (pl_zkey_open(&z, l.c[i].zkey_path, &zerr) != PL_OK) {
            fprintf(stderr, "proofline serve: circuit %.16s...: its curve "
                    "stays unknown: %s\n", l.c[i].id, zerr.msg);
            continue;
        }
        const char *curve = pl_curve_name(pl_zkey_curve(z));
        pl_zkey_close(z);
        st = pl__store_circuit_set_curve(svc->store, l.c[i].id, curve, &err);
    }
    if (st != PL_OK || l.failed)
        fprintf(stderr, "proofline serve: the circuits' curves: %s\n",
                l.failed ? "out of memory" : err.msg);
    free(l.c);
}

/* DATA as the kernel resolves it (replies name files relative to it). */
static pl_status resolve(pl__service *svc, pl_error *err)
{
    char real[PATH_MAX];
    if (!realpath(svc->data_dir, real))
        return pl__error_errno(err, PL_EIO, errno, "--data %s", svc->data_dir);
    if (strlen(real) >= sizeof(svc->data_dir_real))
        return pl__error_set(err, PL_EUSAGE, "--data: the path is too long");
    memcpy(svc->data_dir_real, real, strlen(real) + 1);
    return PL_OK;
}

static pl_status check_config(const pl_service_config *cfg, bool *loopback,
                              pl_error *err)
{
    const char *listen = cfg->listen ? cfg->listen : "127.0.0.1:7878";
    pl_status st = pl__server_listen_check(listen, loopback, err);
    if (st != PL_OK)
        return st;
    if (!*loopback && !cfg->token_file)
        return pl__error_set(err, PL_EUSAGE, "--listen %s is not a loopback "
                             "address: that needs --token-file", listen);
    struct stat sb;
    if (cfg->allow_path &&
        (stat(cfg->allow_path, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        return pl__error_set(err, PL_EUSAGE, "--allow-path %s is not a "
                             "folder", cfg->allow_path);
    const char *data = cfg->data_dir ? cfg->data_dir : "proofline-data";
    if (strlen(data) >= PL__SERVICE_PATH_MAX - 64)
        return pl__error_set(err, PL_EUSAGE, "--data: the path is too long");
    if (cfg->lease_s < 1)
        return pl__error_set(err, PL_EUSAGE, "--lease: 1s or more");
    if (cfg->http_threads > 64 || cfg->trace_records > 1000000)
        return pl__error_set(err, PL_EUSAGE, "--http-threads: up to 64; "
                             "--trace-records: up to 1000000");
    if (cfg->header_timeout_s < 0 || cfg->idle_timeout_s < 0 ||
        cfg->drain_timeout_s < 0 || cfg->retain_s < 0)
        return pl__error_set(err, PL_EUSAGE, "a negative time");
    return PL_OK;
}

pl_status pl_service_open(pl_service **out, const pl_service_config *given,
                          pl_error *err)
{
    *out = NULL;
    pl_service *s = calloc(1, sizeof(*s));
    if (!s)
        return pl__error_set(err, PL_ENOMEM, "serve: out of memory");
    s->lock_fd = -1;
    s->cfg = *given;
    pl_service_config *cfg = &s->cfg;
    pl__service *svc = &s->svc;
    bool loopback = false;
    pl_status st = check_config(cfg, &loopback, err);
    if (st == PL_OK && cfg->token_file)
        st = read_token(&s->token, cfg->token_file, err);
    if (st != PL_OK)
        goto fail;
    const char *data = cfg->data_dir ? cfg->data_dir : "proofline-data";
    const char *listen = cfg->listen ? cfg->listen : "127.0.0.1:7878";

    /* the signals are taken by run alone (sigwait): every thread started
     * from here on has them blocked */
    sigemptyset(&s->signals);
    sigaddset(&s->signals, SIGINT);
    sigaddset(&s->signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &s->signals, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* witnesses are private inputs: every folder and file the service
     * makes is its user's alone */
    umask(077);

    /* a store on a server (postgres://) may be shared by several hosts */
    bool shared = cfg->store && strstr(cfg->store, "://") != NULL;
    snprintf(svc->data_dir, sizeof(svc->data_dir), "%s", data);
    svc->token = s->token;
    svc->tokenless_loopback = !s->token;
    svc->allow_path = cfg->allow_path;
    svc->max_queued = cfg->max_queued;
    svc->max_zkey_bytes = cfg->max_zkey_bytes;
    svc->lease_ms = (int64_t)(cfg->lease_s * 1000);
    svc->retain_ms = (int64_t)(cfg->retain_s * 1000);
    svc->drain_timeout_s = cfg->drain_timeout_s;
    svc->params_idle_s = cfg->params_idle_s;
    svc->started_unix_ms = pl__service_now_ms();
    svc->log_claims = cfg->log_claims;
    atomic_init(&svc->draining, false);
    atomic_init(&svc->unwritable, false);
    pthread_mutex_init(&svc->health_lock, NULL);
    pthread_mutex_init(&svc->probe_lock, NULL);
    if ((st = prepare_data(data, shared, &s->lock_fd, err)) != PL_OK ||
        (st = owner_id(svc->owner, sizeof(svc->owner), data, err)) != PL_OK ||
        (st = resolve(svc, err)) != PL_OK ||
        (st = pl__store_open(&svc->store, cfg->store ? cfg->store : data,
                             err)) != PL_OK ||
        (st = pl__metrics_create(&svc->metrics, cfg->trace_records,
                                 err)) != PL_OK)
        goto fail;
    pl_engine_config ecfg = cfg->engine;
    ecfg.on_event = pl__worker_on_event;
    ecfg.on_event_user = svc;
    ecfg.on_stage = pl__metrics_on_stage;
    ecfg.on_stage_user = svc->metrics;
    if ((st = pl_engine_create(&svc->engine, &ecfg, err)) != PL_OK)
        goto fail;
    pl_engine_stats es;
    pl_engine_stats_read(svc->engine, &es);
    svc->budget_bytes = es.budget_bytes;
    if (cfg->params_budget_bytes > svc->budget_bytes) {
        char b1[32], b2[32];
        st = pl__error_set(err, PL_EUSAGE, "--params-budget %s is more than "
                           "the budget, %s",
                           pl_format_bytes(b1, sizeof(b1),
                                           cfg->params_budget_bytes),
                           pl_format_bytes(b2, sizeof(b2), svc->budget_bytes));
        goto fail;
    }
    svc->params_budget_bytes = cfg->params_budget_bytes
                                   ? cfg->params_budget_bytes
                                   : svc->budget_bytes;
    fill_curves(svc);
    if ((st = pl__residency_create(&svc->residency, svc->engine,
                                   svc->params_budget_bytes, err)) != PL_OK ||
        (st = preload(svc, cfg->preload, err)) != PL_OK ||
        (!cfg->no_worker &&
         (st = pl__worker_start(&svc->worker, svc, err)) != PL_OK))
        goto fail;
    pl__server_config scfg = {
        .listen = listen,
        .threads = cfg->http_threads,
        .connection_limit = cfg->max_connections,
        .per_client_limit = cfg->max_per_client,
        .header_timeout_s = cfg->header_timeout_s,
        .idle_timeout_s = cfg->idle_timeout_s,
        .body_min_rate = cfg->body_min_rate,
    };
    if ((st = pl__server_start(&s->server, svc, &scfg, err)) != PL_OK)
        goto fail;
    svc->server = s->server;
    char b[32];
    fprintf(stderr, "proofline serve: data %s, budget %s, owner %s\n", data,
            pl_format_bytes(b, sizeof(b), svc->budget_bytes), svc->owner);
    *out = s;
    return PL_OK;
fail:
    pl_service_close(s, NULL);
    return st;
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

pl_status pl_service_run(pl_service *s, pl_error *err)
{
    pl__service *svc = &s->svc;
    int sig = 0;
    sigwait(&s->signals, &sig);
    atomic_store(&svc->draining, true);
    /* a second signal during the drain ends the process at once, as kill
     * -9 would: the claims go back to the queue at the next start */
    pthread_t second;
    bool second_started =
        pthread_create(&second, NULL, second_signal, &s->signals) == 0;
    fprintf(stderr, "proofline serve: %s: draining (up to %.0fs)\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", svc->drain_timeout_s);
    size_t released = pl__worker_drain(svc->worker, svc->drain_timeout_s);
    fprintf(stderr, "proofline serve: drained; %zu partition(s) back in the "
            "queue\n", released);
    if (second_started) { /* sigwait is a cancellation point */
        pthread_cancel(second);
        pthread_join(second, NULL);
    }
    (void)err;
    return PL_OK;
}

pl_status pl_service_close(pl_service *s, pl_error *err)
{
    if (!s)
        return PL_OK;
    pl__service *svc = &s->svc;
    pl_status st = PL_OK;
    svc->server = NULL;
    pl__server_stop(s->server);
    /* the worker stops (a no-op after the drain) before the engine goes,
     * and is freed after it: the engine's last events still reach it */
    pl__worker_drain(svc->worker, 0);
    pl__residency_destroy(svc->residency); /* the hot circuits let go */
    if (svc->engine) {
        pl_error e2 = {0};
        if ((st = pl_engine_destroy(svc->engine, &e2)) != PL_OK && err)
            *err = e2;
    }
    pl__worker_destroy(svc->worker);
    pl__store_close(svc->store);
    pl__metrics_destroy(svc->metrics);
    if (s->lock_fd >= 0)
        close(s->lock_fd);
    pthread_mutex_destroy(&svc->health_lock);
    pthread_mutex_destroy(&svc->probe_lock);
    free(s->token);
    free(s);
    return st;
}

/* ---- the store commands ------------------------------------------------------- */

pl_status pl_service_store_migrate(const char *locator, int target_version,
                                   int *before, int *after, pl_error *err)
{
    return pl__store_migrate(locator, target_version, before, after, err);
}

static bool print_worker(void *user, const pl__store_worker *w)
{
    fprintf(user,
            "worker=%s host=%s pid=%" PRId64 " backend=%s gpus=%s "
            "budget=%" PRIu64 " reserved=%" PRIu64 " %s heard_ms_ago=%" PRId64
            "\n",
            w->id, w->host[0] ? w->host : "-", w->pid,
            w->backend[0] ? w->backend : "-", w->gpus[0] ? w->gpus : "-",
            w->budget_bytes, w->reserved_bytes, w->gone ? "gone" : "alive",
            w->age_ms);
    return true;
}

pl_status pl_service_store_info(const char *locator, FILE *out,
                                pl_error *err)
{
    pl__store *s = NULL;
    pl__store_counts n;
    pl_status st = pl__store_open(&s, locator, err);
    if (st == PL_OK)
        st = pl__store_counts_read(s, &n, err);
    if (st == PL_OK) {
        fprintf(out, "schema=%d\n", pl__store_schema_version(s));
        for (int i = 0; i < PL__JOB_STATE_COUNT; i++)
            fprintf(out, "jobs_%s=%" PRIu64 "\n",
                    pl__job_state_name((pl__job_state)i), n.jobs[i]);
        for (int p = PL__PRIORITY_COUNT - 1; p >= 0; p--)
            fprintf(out, "queued_%s=%" PRIu64 "\n",
                    pl__priority_name((pl__priority)p),
                    n.queued_partitions[p]);
        fprintf(out, "claimed=%" PRIu64 "\n", n.claimed_partitions);
        fflush(out);
        st = pl__store_worker_list(s, print_worker, out, err);
    }
    pl__store_close(s);
    return st;
}
