/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libproofline_supraseal: SupraSeal C2's C ABI (include/proofline_supraseal.h)
 * over proofline's public API, so that bellperson and Curio's cuzk, through
 * the supraseal-c2 crate (contrib/rust/supraseal-c2 is ours), prove with
 * proofline unchanged.  Like service/, it sits over the library and uses
 * only its public headers.
 *
 * One engine per process, made on first use from pl_supraseal_configure's
 * settings or the environment; every call is one of its jobs:
 *  - an SRS (create_SRS) is a parameter file opened on the engine as a
 *    circuit (pl_engine_open_c2_params: its bytes reserved before it is
 *    read, shared by path), behind a reference-counted handle, and kept in
 *    a cache of the last four paths when asked;
 *  - a call's assignments are one C2 job (pl_engine_submit_c2), one
 *    partition per assignment, "synthesized" by handing the engine the
 *    caller's assignment when the partition's bytes are reserved: the
 *    caller's a, b and c are counted in that reservation while they are
 *    borrowed (abc_bytes, given back at abc_freed), and the engine's
 *    abc_done says when they are read;
 *  - start returns when every assignment's a, b and c are read (so
 *    bellperson may drop them, as it does), finalize waits for the job and
 *    hands back its proofs, each verified by the engine before delivery;
 *    destroy_pending_proof cancels the job and waits for it.
 * The GPU mutex is held around the part of a start that feeds the device
 * (from before the submit until start returns), by the caller's thread
 * only: the engine serializes each device inside and never waits for it.
 *
 * Built twice (supraseal/CMakeLists.txt): Curio's form (default) and, with
 * PL_SUPRASEAL_UPSTREAM, supra_seal's 6-argument generate_groth16_proofs_c
 * without the split calls and the mutex, whose symbols that form lacks.
 *
 * Lock order: a caller's GPU mutex, then g.lock (the engine, the SRS list
 * and cache, the mutex list, the settings), then the engine's own locks;
 * g.pending_lock (the list of pending proofs), then a pending proof's
 * lock, both leaves: taken on the engine's threads (its callbacks, the
 * ledger hook) and never held across an engine call, so a thread that
 * holds g.lock may wait for the engine (open, destroy) while its threads
 * report.  The engine's callbacks (on_event included) must not call back
 * into this library.
 */
#define _GNU_SOURCE
#include "proofline_supraseal.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The crate's Assignment<Scalar> (#[repr(C)]: seventeen pointer-sized
 * fields in this order) is pl_c2_assignment: the caller's array is handed
 * to the engine as it is. */
#define EIGHTBYTE(field, index)                                               \
    _Static_assert(offsetof(pl_c2_assignment, field) == 8 * (index) &&        \
                       sizeof(((pl_c2_assignment *)0)->field) == 8,           \
                   "Assignment's field " #index " is not " #field)
EIGHTBYTE(a_aux_density, 0);
EIGHTBYTE(a_aux_bit_len, 1);
EIGHTBYTE(a_aux_popcount, 2);
EIGHTBYTE(b_inp_density, 3);
EIGHTBYTE(b_inp_bit_len, 4);
EIGHTBYTE(b_inp_popcount, 5);
EIGHTBYTE(b_aux_density, 6);
EIGHTBYTE(b_aux_bit_len, 7);
EIGHTBYTE(b_aux_popcount, 8);
EIGHTBYTE(a, 9);
EIGHTBYTE(b, 10);
EIGHTBYTE(c, 11);
EIGHTBYTE(abc_size, 12);
EIGHTBYTE(inp_assignment, 13);     /* the crate's inp_assignment_data */
EIGHTBYTE(inp_assignment_size, 14);
EIGHTBYTE(aux_assignment, 15);     /* the crate's aux_assignment_data */
EIGHTBYTE(aux_assignment_size, 16);
_Static_assert(sizeof(pl_c2_assignment) == 17 * 8, "Assignment's size");
/* Proof<Bls12>: G1Affine (96), G2Affine (192), G1Affine, no padding */
_Static_assert(sizeof(pl_proof) == 384 && offsetof(pl_proof, b) == 96 &&
                   offsetof(pl_proof, c) == 288,
               "Proof<Bls12>'s layout");
_Static_assert(sizeof(pl_scalar) == 32, "blstrs's Scalar is 32 bytes");

#define CACHE_MAX 4 /* SupraSeal's cache: the four paths used last */
#define SRS_MAGIC 0x53525321u
#define PENDING_MAGIC 0x50454e44u
#define MUTEX_MAGIC 0x4d555458u
/* A start that waits for its a, b and c reading also polls its job this
 * often: a failure the ledger reports wakes it at once; this is the
 * backstop for one that ends the job with no record (a failed tiny
 * allocation at admission). */
#define POLL_MS 500

typedef struct ss_srs {
    uint32_t magic;
    size_t refs;          /* under g.lock */
    pl_circuit *circuit;  /* one open of the path on the engine */
    char *path;
    uint64_t domain;      /* rows of its domain: h's points + 1 */
    struct ss_srs *next;  /* g.srs */
} ss_srs;

typedef struct ss_mutex {
    uint32_t magic;
    pthread_mutex_t m;
    atomic_uint_fast64_t acquired, waited, max_holders;
    atomic_int holders;
    struct ss_mutex *next; /* g.mutexes */
} ss_mutex;

typedef struct ss_pending {
    uint32_t magic;
    pthread_mutex_t lock;  /* n_abc, poked, failed */
    pthread_cond_t cond;
    uint64_t job;          /* 0: none (no proofs, or not yet submitted) */
    size_t n, n_abc;
    bool poked;
    /* the caller's structs, r and s, copied (they may go once start
     * returns), and the room on_proof delivers into: one allocation */
    pl_c2_assignment *as;
    pl_scalar *r, *s;
    pl_proof *proofs;
    struct ss_pending *next; /* g.pending */
} ss_pending;

static struct {
    pthread_mutex_t lock;
    pl_engine *engine;
    pl_supraseal_config cfg;   /* as configured (0: from the environment) */
    char cfg_backend[32];      /* cfg.backend's copy: the caller's may go */
    pl_supraseal_config used;  /* the engine's, resolved */
    char backend[32];
    unsigned devices;          /* the engine's (fixed while it lives) */
    size_t busy;               /* calls using the engine outside the lock */
    ss_srs *srs;               /* every SRS alive */
    ss_srs *cache[CACHE_MAX];  /* most recently used first */
    size_t n_cached;
    uint64_t srs_opens;
    ss_mutex *mutexes;
    bool at_exit;
    pthread_mutex_t pending_lock;
    ss_pending *pending;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER,
       .pending_lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- errors ----------------------------------------------------------------- */

static pl_supraseal_error ok(void)
{
    return (pl_supraseal_error){0, NULL};
}

/* The crate's error: the code, and a message of malloc's that the Rust
 * side frees (NULL only when even that allocation fails). */
static pl_supraseal_error failure(pl_status st, const char *msg)
{
    pl_supraseal_error e = {st == PL_OK ? (int)PL_EINTERNAL : (int)st, NULL};
    const char *what = msg && msg[0] ? msg : pl_strerror(st);
    if (asprintf(&e.message, "proofline: %s", what) < 0)
        e.message = NULL;
    return e;
}

static pl_supraseal_error failure_pl(const pl_error *err)
{
    return failure(err->code, err->msg);
}

static pl_status set_error(pl_error *err, pl_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static pl_status set_error(pl_error *err, pl_status st, const char *fmt, ...)
{
    if (err) {
        memset(err, 0, sizeof(*err));
        err->code = st;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return st;
}

static pl_supraseal_error usage(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static pl_supraseal_error usage(const char *fmt, ...)
{
    pl_error err = {.code = PL_EUSAGE};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.msg, sizeof(err.msg), fmt, ap);
    va_end(ap);
    return failure_pl(&err);
}

/* ---- the engine ------------------------------------------------------------ */

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
    if (g.used.log_level < PL_LOG_INFO)
        return;
    FILE *f = g.used.log_stream ? g.used.log_stream : stderr;
    va_list ap;
    va_start(ap, fmt);
    flockfile(f);
    fputs("supraseal: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    funlockfile(f);
    va_end(ap);
}

/* Wakes every start waiting for its a, b and c: a partition failed or was
 * cancelled somewhere, and each looks at its own job.  On the engine's
 * threads, through the ledger's hook. */
static void poke_pending(void)
{
    pthread_mutex_lock(&g.pending_lock);
    for (ss_pending *p = g.pending; p; p = p->next) {
        pthread_mutex_lock(&p->lock);
        p->poked = true;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&g.pending_lock);
}

/* The ledger's hook: the caller's, after ours.  g.used is fixed while the
 * engine lives. */
static void on_record(void *user, const pl_ledger_record *rec)
{
    (void)user;
    if (rec->event == PL_EV_FAILED || rec->event == PL_EV_CANCELLED)
        poke_pending();
    if (g.used.on_event)
        g.used.on_event(g.used.on_event_user, rec);
}

static void at_exit_summary(void)
{
    /* a thread stopped inside the library at exit keeps the lock: then
     * no summary rather than a hang */
    if (pthread_mutex_trylock(&g.lock) != 0)
        return;
    if (g.engine && g.used.log_level >= PL_LOG_INFO)
        pl_engine_write_summary(g.engine, g.used.log_stream);
    pthread_mutex_unlock(&g.lock);
}

/* The settings: the configured ones, then the environment's, then the
 * defaults.  PL_EUSAGE naming a variable that does not parse. */
static pl_status resolve_settings(pl_error *err)
{
    g.used = g.cfg;
    const char *v;
    if (!g.used.budget_bytes && (v = getenv("PROOFLINE_SUPRASEAL_BUDGET")) &&
        v[0] && !pl_parse_size(v, &g.used.budget_bytes))
        return set_error(err, PL_EUSAGE, "PROOFLINE_SUPRASEAL_BUDGET: '%s' is "
                         "not a size (4GiB, 512MiB, a number of bytes)", v);
    if (!g.used.backend && (v = getenv("PROOFLINE_SUPRASEAL_BACKEND")) && v[0])
        g.used.backend = v;
    if (!g.used.backend)
        g.used.backend = "auto";
    snprintf(g.backend, sizeof(g.backend), "%s", g.used.backend);
    g.used.backend = g.backend; /* the environment may change under us */
    if (!g.used.threads && (v = getenv("PROOFLINE_SUPRASEAL_THREADS")) &&
        v[0]) {
        char *end;
        unsigned long t = strtoul(v, &end, 10);
        if (*end || t > 4096)
            return set_error(err, PL_EUSAGE, "PROOFLINE_SUPRASEAL_THREADS: "
                             "'%s' is not a count of 0 to 4096", v);
        g.used.threads = (unsigned)t;
    }
    if (!g.used.batch && (v = getenv("PROOFLINE_SUPRASEAL_BATCH")) && v[0]) {
        char *end;
        unsigned long b = strtoul(v, &end, 10);
        if (*end || b > 16)
            return set_error(err, PL_EUSAGE, "PROOFLINE_SUPRASEAL_BATCH: "
                             "'%s' is not a count of 0 to 16", v);
        g.used.batch = (unsigned)b;
    }
    if (g.used.log_level == PL_LOG_QUIET &&
        (v = getenv("PROOFLINE_SUPRASEAL_LOG")) && v[0]) {
        if (strcmp(v, "info") == 0)
            g.used.log_level = PL_LOG_INFO;
        else if (strcmp(v, "quiet") != 0)
            return set_error(err, PL_EUSAGE, "PROOFLINE_SUPRASEAL_LOG: '%s': "
                             "info or quiet", v);
    }
    if (!g.used.check_params && (v = getenv("PROOFLINE_SUPRASEAL_CHECK_PARAMS")))
        g.used.check_params = strcmp(v, "1") == 0;
    return PL_OK;
}

/* Under g.lock: the engine, made now if there is none. */
static pl_status engine_locked(pl_engine **out, pl_error *err)
{
    pl_status st;
    if (!g.engine) {
        if ((st = resolve_settings(err)))
            return st;
        pl_engine_config ec;
        pl_engine_config_init(&ec);
        ec.budget_bytes = g.used.budget_bytes;
        ec.backend = g.used.backend;
        ec.threads = g.used.threads;
        ec.synth_workers = g.used.synth_workers;
        ec.prover_workers = g.used.prover_workers;
        ec.batch = g.used.batch;
        if (g.used.batch > 1) /* the hand-off holds a batch per worker */
            ec.handoff_slots = g.used.batch * (g.used.prover_workers
                                                   ? g.used.prover_workers
                                                   : 1);
        ec.log_level = g.used.log_level;
        ec.log_stream = g.used.log_stream;
        ec.on_event = on_record;
        if ((st = pl_engine_create(&g.engine, &ec, err)))
            return st;
        pl_engine_stats es;
        pl_engine_stats_read(g.engine, &es);
        g.devices = es.devices;
        char budget[32];
        log_line("engine made: backend %s (asked %s), %u device%s, budget %s",
                 es.backend, g.used.backend, es.devices,
                 es.devices == 1 ? "" : "s",
                 pl_format_bytes(budget, sizeof(budget), es.budget_bytes));
        if (g.used.log_level >= PL_LOG_INFO && !g.at_exit)
            g.at_exit = atexit(at_exit_summary) == 0;
    }
    *out = g.engine;
    return PL_OK;
}

/* ---- gpu_index: the one place where a call's device is chosen --------------
 * SupraSeal proves on device gpu_index (-1: any).  The engine proves on
 * every device its backend has (g.devices: the CPU is one), one prover
 * worker each, and a job may be limited to some of them (device_mask):
 * an index picks device index % devices, as the engine's worker i takes
 * device i % devices, so cuzk's GPU ordinals map onto the devices there
 * are; a negative one leaves the job free to spread over all. */
static uint32_t choose_device(int gpu_index)
{
    if (gpu_index < 0 || g.devices == 0)
        return 0;
    return 1u << ((unsigned)gpu_index % g.devices);
}

/* ---- configuration and figures -------------------------------------------- */

void pl_supraseal_config_init(pl_supraseal_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

pl_status pl_supraseal_configure(const pl_supraseal_config *cfg,
                                 pl_error *err)
{
    pl_status st = PL_OK;
    pthread_mutex_lock(&g.lock);
    if (g.engine)
        st = set_error(err, PL_EUSAGE, "pl_supraseal_configure: the engine "
                       "exists already (pl_supraseal_shutdown first)");
    else if (cfg && cfg->backend && strlen(cfg->backend) >= sizeof(g.cfg_backend))
        st = set_error(err, PL_EUSAGE, "pl_supraseal_configure: backend '%s' "
                       "is not a backend's name", cfg->backend);
    else if (cfg) {
        g.cfg = *cfg;
        if (cfg->backend) {
            snprintf(g.cfg_backend, sizeof(g.cfg_backend), "%s", cfg->backend);
            g.cfg.backend = g.cfg_backend;
        }
    } else
        pl_supraseal_config_init(&g.cfg);
    pthread_mutex_unlock(&g.lock);
    return st;
}

static size_t list_length(void *head, size_t next_offset)
{
    size_t n = 0;
    for (char *p = head; p; p = *(char **)(p + next_offset))
        n++;
    return n;
}

void pl_supraseal_stats_read(pl_supraseal_stats *out)
{
    memset(out, 0, sizeof(*out));
    pl_alloc_stats params;
    pl_alloc_stats_read(&params, PL_BUF_PARAMS, false);
    out->params_allocs = params.total_allocs;
    out->params_live_bytes = params.live_bytes;
    pthread_mutex_lock(&g.lock);
    if (g.engine) {
        pl_engine_stats es;
        pl_engine_stats_read(g.engine, &es);
        out->engine = 1;
        out->budget_bytes = es.budget_bytes;
        out->reserved_bytes = es.reserved_bytes;
        out->peak_reserved_bytes = es.peak_reserved_bytes;
        out->tracked_bytes = es.tracked_bytes;
        out->peak_tracked_bytes = es.peak_tracked_bytes;
        out->events = es.events;
        out->proofs = es.proofs;
        out->failed = es.failed;
        out->devices = es.devices;
    }
    out->srs_objects = list_length(g.srs, offsetof(ss_srs, next));
    out->srs_cached = g.n_cached;
    out->srs_opens = g.srs_opens;
    pthread_mutex_unlock(&g.lock);
    pthread_mutex_lock(&g.pending_lock);
    out->pending = list_length(g.pending, offsetof(ss_pending, next));
    pthread_mutex_unlock(&g.pending_lock);
}

pl_engine *pl_supraseal_engine(void)
{
    pthread_mutex_lock(&g.lock);
    pl_engine *e = g.engine;
    pthread_mutex_unlock(&g.lock);
    return e;
}

/* ---- the SRS ----------------------------------------------------------------- */

/* Under g.lock: the live SRS a handle names, or NULL (a null, freed or
 * foreign pointer is looked up, never read). */
static ss_srs *srs_find_locked(const pl_supraseal_srs *h)
{
    if (!h || !h->ptr)
        return NULL;
    for (ss_srs *s = g.srs; s; s = s->next)
        if (s == h->ptr)
            return s->magic == SRS_MAGIC ? s : NULL;
    return NULL;
}

/* Under g.lock: one reference given back; true when it was the last (the
 * SRS is then unlinked, and srs_free's to the caller, outside the lock:
 * releasing the circuit may free device memory). */
static bool srs_unref_locked(ss_srs *s)
{
    if (--s->refs > 0)
        return false;
    for (ss_srs **l = &g.srs; *l; l = &(*l)->next)
        if (*l == s) {
            *l = s->next;
            break;
        }
    return true;
}

static void srs_free(ss_srs *s)
{
    if (!s)
        return;
    pl_circuit_release(s->circuit);
    s->magic = 0;
    free(s->path);
    free(s);
}

/* Under g.lock: the cache's entry for path, removed from the cache (its
 * reference still counted: the caller gives it back), or NULL. */
static ss_srs *cache_take_locked(const char *path)
{
    for (size_t i = 0; i < g.n_cached; i++)
        if (strcmp(g.cache[i]->path, path) == 0) {
            ss_srs *s = g.cache[i];
            memmove(&g.cache[i], &g.cache[i + 1],
                    (g.n_cached - i - 1) * sizeof(g.cache[0]));
            g.n_cached--;
            return s;
        }
    return NULL;
}

/* Under g.lock: s first in the cache, holding the reference the cache
 * already counts (one cache_take_locked returned); the least recently
 * used one pushed out when full (returned, its reference still to give
 * back). */
static ss_srs *cache_front_locked(ss_srs *s)
{
    ss_srs *out = NULL;
    if (g.n_cached == CACHE_MAX)
        out = g.cache[--g.n_cached];
    memmove(&g.cache[1], &g.cache[0], g.n_cached * sizeof(g.cache[0]));
    g.cache[0] = s;
    g.n_cached++;
    return out;
}

/* The rows of a parameter file's domain (h holds tau^i t(tau)/delta for
 * i < n - 1), read from its counts: what a proof's a, b and c can hold at
 * most, so a borrowed assignment's reservation never exceeds what its
 * check allows. */
static pl_status domain_rows(uint64_t *out, const char *path, pl_error *err)
{
    pl_bp_params *p = NULL;
    pl_status st = pl_bp_params_open(&p, path, err);
    if (st == PL_OK) {
        pl_bp_info info;
        pl_bp_params_get_info(p, &info);
        *out = (uint64_t)info.n_h + 1;
        pl_bp_params_close(p);
    }
    return st;
}

pl_supraseal_error create_SRS(pl_supraseal_srs *ret, const char *srs_path,
                              bool cache)
{
    pl_error err = {0};
    pl_engine *engine = NULL;
    ss_srs *s = NULL, *dropped = NULL;
    pl_status st;
    if (!ret)
        return usage("create_SRS: no room for the SRS (ret is NULL)");
    ret->ptr = NULL;
    if (!srs_path || !srs_path[0])
        return usage("create_SRS: no parameter file path");

    pthread_mutex_lock(&g.lock);
    if (cache && (s = cache_take_locked(srs_path))) {
        cache_front_locked(s); /* first again (nothing pushed out) */
        s->refs++;             /* the caller's */
        ret->ptr = s;
        pthread_mutex_unlock(&g.lock);
        return ok();
    }
    if ((st = engine_locked(&engine, &err))) {
        pthread_mutex_unlock(&g.lock);
        return failure_pl(&err);
    }
    g.busy++;
    pthread_mutex_unlock(&g.lock);

    /* the file read whole into the budget: not under g.lock */
    pl_circuit *circuit = NULL;
    uint64_t domain = 0;
    st = pl_engine_open_c2_params(engine, &circuit, srs_path,
                                  g.used.check_params, &err);
    if (st == PL_OK && (st = domain_rows(&domain, srs_path, &err)))
        pl_circuit_release(circuit);
    if (st == PL_OK &&
        (!(s = calloc(1, sizeof(*s))) || !(s->path = strdup(srs_path)))) {
        free(s);
        s = NULL;
        pl_circuit_release(circuit);
        st = set_error(&err, PL_ENOMEM, "create_SRS: out of memory");
    }

    pthread_mutex_lock(&g.lock);
    g.busy--;
    if (st == PL_OK) {
        s->magic = SRS_MAGIC;
        s->refs = 1; /* the caller's */
        s->circuit = circuit;
        s->domain = domain;
        s->next = g.srs;
        g.srs = s;
        g.srs_opens++;
        ss_srs *other = cache ? cache_take_locked(srs_path) : NULL;
        if (other) {
            /* another thread cached the path meanwhile: share its SRS */
            cache_front_locked(other);
            other->refs++;
            if (srs_unref_locked(s))
                dropped = s;
            s = other;
        } else if (cache) {
            s->refs++; /* the cache's */
            if ((dropped = cache_front_locked(s)) &&
                !srs_unref_locked(dropped))
                dropped = NULL;
        }
        ret->ptr = s;
        log_line("SRS %s: %s (%zu cached)", srs_path,
                 other ? "shared with the cache's" : "opened", g.n_cached);
    }
    pthread_mutex_unlock(&g.lock);
    srs_free(dropped);
    return st == PL_OK ? ok() : failure_pl(&err);
}

void evict_SRS(const pl_supraseal_srs *by_ref)
{
    ss_srs *dropped = NULL;
    pthread_mutex_lock(&g.lock);
    ss_srs *s = srs_find_locked(by_ref);
    ss_srs *cached = s ? cache_take_locked(s->path) : NULL;
    if (cached && srs_unref_locked(cached))
        dropped = cached;
    pthread_mutex_unlock(&g.lock);
    srs_free(dropped);
}

void drop_SRS(const pl_supraseal_srs *by_ref)
{
    ss_srs *dropped = NULL;
    pthread_mutex_lock(&g.lock);
    ss_srs *s = srs_find_locked(by_ref);
    if (s && srs_unref_locked(s))
        dropped = s;
    pthread_mutex_unlock(&g.lock);
    srs_free(dropped);
}

pl_supraseal_srs clone_SRS(const pl_supraseal_srs *by_ref)
{
    pl_supraseal_srs out = {NULL};
    pthread_mutex_lock(&g.lock);
    ss_srs *s = srs_find_locked(by_ref);
    if (s) {
        s->refs++;
        out.ptr = s;
    }
    pthread_mutex_unlock(&g.lock);
    return out;
}

/* ---- the GPU mutex ------------------------------------------------------------ */

/* Under g.lock: the live mutex a pointer names, or NULL. */
static ss_mutex *mutex_find_locked(void *mtx)
{
    for (ss_mutex *m = g.mutexes; m; m = m->next)
        if (m == mtx)
            return m->magic == MUTEX_MAGIC ? m : NULL;
    return NULL;
}

static void mutex_take(ss_mutex *m)
{
    if (pthread_mutex_trylock(&m->m) != 0) {
        atomic_fetch_add(&m->waited, 1);
        pthread_mutex_lock(&m->m);
    }
    atomic_fetch_add(&m->acquired, 1);
    uint_fast64_t now = (uint_fast64_t)atomic_fetch_add(&m->holders, 1) + 1;
    uint_fast64_t max = atomic_load(&m->max_holders);
    while (now > max && !atomic_compare_exchange_weak(&m->max_holders, &max,
                                                      now))
        ;
}

static void mutex_give(ss_mutex *m)
{
    atomic_fetch_sub(&m->holders, 1);
    pthread_mutex_unlock(&m->m);
}

#ifndef PL_SUPRASEAL_UPSTREAM
void *create_gpu_mutex(void)
{
    ss_mutex *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->magic = MUTEX_MAGIC;
    pthread_mutex_init(&m->m, NULL);
    pthread_mutex_lock(&g.lock);
    m->next = g.mutexes;
    g.mutexes = m;
    pthread_mutex_unlock(&g.lock);
    return m;
}

void destroy_gpu_mutex(void *mtx)
{
    pthread_mutex_lock(&g.lock);
    ss_mutex *m = mtx ? mutex_find_locked(mtx) : NULL;
    /* a mutex still held stays allocated: its holder unlocks it later */
    if (m && pthread_mutex_trylock(&m->m) == 0) {
        for (ss_mutex **l = &g.mutexes; *l; l = &(*l)->next)
            if (*l == m) {
                *l = m->next;
                break;
            }
        pthread_mutex_unlock(&m->m);
        pthread_mutex_destroy(&m->m);
        m->magic = 0;
        free(m);
    }
    pthread_mutex_unlock(&g.lock);
}
#endif

void pl_supraseal_gpu_mutex_stats(void *mtx, uint64_t *acquired,
                                  uint64_t *waited, uint64_t *max_holders)
{
    uint64_t a = 0, w = 0, h = 0;
    pthread_mutex_lock(&g.lock);
    ss_mutex *m = mtx ? mutex_find_locked(mtx) : NULL;
    if (m) {
        a = atomic_load(&m->acquired);
        w = atomic_load(&m->waited);
        h = atomic_load(&m->max_holders);
    }
    pthread_mutex_unlock(&g.lock);
    if (acquired)
        *acquired = a;
    if (waited)
        *waited = w;
    if (max_holders)
        *max_holders = h;
}

/* ---- pending proofs ---------------------------------------------------------- */

static void pending_free(ss_pending *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&g.pending_lock);
    for (ss_pending **l = &g.pending; *l; l = &(*l)->next)
        if (*l == p) {
            *l = p->next;
            break;
        }
    pthread_mutex_unlock(&g.pending_lock);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->lock);
    p->magic = 0;
    free(p->as); /* r, s and proofs are in its allocation */
    free(p);
}

#ifndef PL_SUPRASEAL_UPSTREAM /* (the split calls use it) */
/* The pending proof a handle names, or NULL. */
static ss_pending *pending_find(void *handle)
{
    ss_pending *found = NULL;
    pthread_mutex_lock(&g.pending_lock);
    for (ss_pending *p = g.pending; p && handle; p = p->next)
        if (p == handle && p->magic == PENDING_MAGIC)
            found = p;
    pthread_mutex_unlock(&g.pending_lock);
    return found;
}
#endif

/* The engine's synthesis of partition i: the caller's assignment, borrowed
 * as it is (its bytes are reserved already; the engine checks it against
 * the SRS now). */
static pl_status lend_assignment(void *user, size_t i, pl_c2_assignment *out,
                                 pl_error *err)
{
    (void)err;
    const ss_pending *p = user;
    *out = p->as[i];
    return PL_OK;
}

/* Partition i's a, b and c are read (copied into the engine's own): one
 * fewer for start to wait for. */
static void abc_read(void *user, size_t i)
{
    (void)i;
    ss_pending *p = user;
    pthread_mutex_lock(&p->lock);
    p->n_abc++;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

/* On the finisher, before the partition is retired: finalize reads the
 * room after pl_engine_wait, which orders it after this write. */
static void deliver(void *user, uint64_t job, size_t i, const pl_proof *proof,
                    const pl_scalar *publics, size_t n_public)
{
    (void)job, (void)publics, (void)n_public;
    ss_pending *p = user;
    p->proofs[i] = *proof;
}

/* The handle, with the caller's structs, r and s copied in. */
static pl_status pending_make(ss_pending **out,
                              const pl_supraseal_assignment *provers, size_t n,
                              const pl_scalar *r_s, const pl_scalar *s_s,
                              pl_error *err)
{
    *out = NULL;
    const size_t each = sizeof(pl_c2_assignment) + 2 * sizeof(pl_scalar) +
                        sizeof(pl_proof);
    if (n > SIZE_MAX / each / 2)
        return set_error(err, PL_EUSAGE, "generate_groth16_proofs: %zu "
                         "circuits is more than a call can hold", n);
    ss_pending *p = calloc(1, sizeof(*p));
    char *room = n ? calloc(n, each) : NULL;
    if (!p || (n && !room)) {
        free(p);
        free(room);
        return set_error(err, PL_ENOMEM, "generate_groth16_proofs: out of "
                         "memory for %zu circuits", n);
    }
    p->magic = PENDING_MAGIC;
    p->n = n;
    if (n) { /* none: the pointers stay NULL (no offset from NULL) */
        p->as = (pl_c2_assignment *)room;
        p->r = (pl_scalar *)(room + n * sizeof(pl_c2_assignment));
        p->s = p->r + n;
        p->proofs = (pl_proof *)(p->s + n);
        memcpy(p->as, provers, n * sizeof(*provers));
        memcpy(p->r, r_s, n * sizeof(pl_scalar));
        memcpy(p->s, s_s, n * sizeof(pl_scalar));
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_lock(&g.pending_lock);
    p->next = g.pending;
    g.pending = p;
    pthread_mutex_unlock(&g.pending_lock);
    *out = p;
    return PL_OK;
}

/* Whether p's job has stopped with a failure (polled: the engine's lock). */
static bool job_failed(pl_engine *engine, const ss_pending *p)
{
    pl_job_status js;
    pl_error err;
    if (pl_engine_poll(engine, p->job, &js, &err) != PL_OK)
        return true;
    return js.status != PL_OK || js.failed > 0 ||
           (js.done && js.proved < js.n_partitions);
}

/* Waits until every partition of p has had its a, b and c read, or its
 * job failed.  Returns whether all were read. */
static bool wait_abc_read(pl_engine *engine, ss_pending *p)
{
    bool failed = false;
    pthread_mutex_lock(&p->lock);
    while (p->n_abc < p->n && !failed) {
        if (p->poked) {
            p->poked = false;
            pthread_mutex_unlock(&p->lock);
            failed = job_failed(engine, p);
            pthread_mutex_lock(&p->lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)POLL_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        if (pthread_cond_timedwait(&p->cond, &p->lock, &until) != 0)
            p->poked = true; /* the backstop: look at the job */
    }
    bool all = p->n_abc == p->n;
    pthread_mutex_unlock(&p->lock);
    return all && !failed;
}

/* The job's end: its status into *err (PL_OK when every proof was made and
 * verified), the job forgotten by the engine. */
static pl_status job_end(pl_engine *engine, ss_pending *p, pl_error *err)
{
    pl_job_status js;
    pl_status st = pl_engine_wait(engine, p->job, &js, err);
    p->job = 0;
    if (st != PL_OK)
        return st;
    if (js.status != PL_OK) {
        if (err)
            *err = js.error;
        return js.status;
    }
    if (js.proved != js.n_partitions)
        return set_error(err, PL_EINTERNAL, "generate_groth16_proofs: %zu of "
                         "%zu proofs made", js.proved, js.n_partitions);
    return PL_OK;
}

static pl_supraseal_error start(const pl_supraseal_assignment *provers,
                                size_t n, const pl_scalar *r_s,
                                const pl_scalar *s_s,
                                const pl_supraseal_srs *srs, void *gpu_mtx,
                                int gpu_index, ss_pending **out)
{
    pl_error err = {0};
    pl_status st;
    *out = NULL;
    if (n && (!provers || !r_s || !s_s))
        return usage("generate_groth16_proofs: %s is NULL for %zu circuits",
                     !provers ? "provers" : !r_s ? "r_s" : "s_s", n);

    /* the SRS and the mutex looked up, the SRS held for the submit */
    pthread_mutex_lock(&g.lock);
    ss_srs *s = srs_find_locked(srs);
    ss_mutex *m = gpu_mtx ? mutex_find_locked(gpu_mtx) : NULL;
    pl_engine *engine = g.engine; /* there is one while an SRS lives */
    if (s && (!gpu_mtx || m))
        s->refs++;
    pthread_mutex_unlock(&g.lock);
    if (!s)
        return usage("generate_groth16_proofs: the SRS is %s",
                     !srs ? "NULL" : !srs->ptr ? "empty (no create_SRS)"
                                               : "not a live SRS of this "
                                                 "library");
    if (gpu_mtx && !m)
        return usage("generate_groth16_proofs: gpu_mtx %p is not a mutex of "
                     "create_gpu_mutex", gpu_mtx);
    const uint32_t device_mask = choose_device(gpu_index);

    ss_pending *p = NULL;
    uint64_t abc_bytes = 0;
    if ((st = pending_make(&p, provers, n, r_s, s_s, &err)))
        goto unref;
    for (size_t i = 0; i < n; i++) {
        /* the caller's a, b and c, borrowed: never more than the domain's
         * rows (a longer one fails its check, which names it) */
        uint64_t rows = provers[i].abc_size < s->domain ? provers[i].abc_size
                                                        : s->domain;
        if (3 * sizeof(pl_scalar) * rows > abc_bytes)
            abc_bytes = 3 * sizeof(pl_scalar) * rows;
    }
    if (m)
        mutex_take(m);
    if (n) {
        pl_c2_job_spec spec = {
            .circuit = s->circuit,
            .n_partitions = n,
            .synthesize = lend_assignment,
            .synthesize_user = p,
            .abc_bytes = abc_bytes,
            .abc_done = abc_read,
            .r = p->r,
            .s = p->s,
            .montgomery = true,
            .verify = true,
            .priority = PL_PRIORITY_NORMAL,
            .device_mask = device_mask,
            .on_proof = deliver,
            .on_proof_user = p,
        };
        uint64_t job = 0;
        if ((st = pl_engine_submit_c2(engine, &job, &spec, &err)) == PL_OK) {
            pthread_mutex_lock(&p->lock);
            p->job = job;
            pthread_mutex_unlock(&p->lock);
            log_line("job %" PRIu64 ": %zu proof%s submitted (gpu_index %d: "
                     "device mask 0x%x%s)", job, n, n == 1 ? "" : "s",
                     gpu_index, (unsigned)device_mask,
                     m ? ", GPU mutex held" : "");
            if (!wait_abc_read(engine, p)) {
                st = job_end(engine, p, &err);
                if (st == PL_OK) /* a failure the job does not report */
                    st = set_error(&err, PL_EINTERNAL, "generate_groth16_"
                                   "proofs: the job stopped before every "
                                   "assignment was read");
            }
        }
    }
    if (m)
        mutex_give(m);
unref:
    pthread_mutex_lock(&g.lock);
    bool last = srs_unref_locked(s);
    pthread_mutex_unlock(&g.lock);
    if (last)
        srs_free(s);
    if (st != PL_OK) {
        pending_free(p);
        return failure_pl(&err);
    }
    *out = p;
    return ok();
}

static pl_supraseal_error finalize(ss_pending *p, pl_proof *proofs)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    pl_engine *engine = pl_supraseal_engine();
    if (p->n && !proofs) {
        pl_engine_cancel(engine, p->job, NULL);
        st = set_error(&err, PL_EUSAGE, "finalize_groth16_proof: no room for "
                       "the proofs (proofs is NULL); the job is cancelled");
    }
    if (p->job) {
        pl_error jerr = {0};
        pl_status jst = job_end(engine, p, &jerr);
        if (st == PL_OK && (st = jst) != PL_OK)
            err = jerr;
    }
    if (st == PL_OK && p->n)
        memcpy(proofs, p->proofs, p->n * sizeof(pl_proof));
    pending_free(p);
    return st == PL_OK ? ok() : failure_pl(&err);
}

#ifndef PL_SUPRASEAL_UPSTREAM
static void destroy(ss_pending *p)
{
    if (p->job) {
        pl_engine *engine = pl_supraseal_engine();
        pl_engine_cancel(engine, p->job, NULL);
        pl_error err;
        (void)job_end(engine, p, &err); /* cancelled: not an error here */
        log_line("a pending proof of %zu destroyed: its job cancelled", p->n);
    }
    pending_free(p);
}

pl_supraseal_error generate_groth16_proofs_start_c(
    const pl_supraseal_assignment provers[], size_t num_circuits,
    const pl_scalar r_s[], const pl_scalar s_s[],
    const pl_supraseal_srs *srs, void *gpu_mtx, int gpu_index,
    void **pending_out)
{
    if (!pending_out)
        return usage("generate_groth16_proofs_start_c: pending_out is NULL");
    *pending_out = NULL;
    ss_pending *p;
    pl_supraseal_error e = start(provers, num_circuits, r_s, s_s, srs, gpu_mtx,
                                 gpu_index, &p);
    if (e.code == 0)
        *pending_out = p;
    return e;
}

pl_supraseal_error finalize_groth16_proof_c(void *handle,
                                            pl_supraseal_proof proofs[])
{
    ss_pending *p = pending_find(handle);
    if (!p)
        return usage("finalize_groth16_proof_c: %p is not a pending proof "
                     "(NULL, finalized or destroyed already)", handle);
    return finalize(p, proofs);
}

void destroy_pending_proof(void *handle)
{
    ss_pending *p = pending_find(handle);
    if (p)
        destroy(p);
}

pl_supraseal_error generate_groth16_proofs_c(
    const pl_supraseal_assignment provers[], size_t num_circuits,
    const pl_scalar r_s[], const pl_scalar s_s[],
    pl_supraseal_proof proofs[], const pl_supraseal_srs *srs, void *gpu_mtx,
    int gpu_index)
{
    if (num_circuits && !proofs)
        return usage("generate_groth16_proofs_c: proofs is NULL");
    ss_pending *p;
    pl_supraseal_error e = start(provers, num_circuits, r_s, s_s, srs, gpu_mtx,
                                 gpu_index, &p);
    return e.code == 0 ? finalize(p, proofs) : e;
}
#else
pl_supraseal_error generate_groth16_proofs_c(
    const pl_supraseal_assignment provers[], size_t num_circuits,
    const pl_scalar r_s[], const pl_scalar s_s[],
    pl_supraseal_proof proofs[], const pl_supraseal_srs *srs)
{
    if (num_circuits && !proofs)
        return usage("generate_groth16_proofs_c: proofs is NULL");
    ss_pending *p;
    pl_supraseal_error e = start(provers, num_circuits, r_s, s_s, srs, NULL,
                                 -1, &p);
    return e.code == 0 ? finalize(p, proofs) : e;
}
#endif

/* ---- shutdown ---------------------------------------------------------------- */

pl_status pl_supraseal_shutdown(pl_error *err)
{
    ss_srs *dropped[CACHE_MAX];
    size_t n_dropped = 0;
    pl_status st = PL_OK;
    pthread_mutex_lock(&g.lock);
    while (g.n_cached) {
        ss_srs *s = g.cache[--g.n_cached];
        if (srs_unref_locked(s))
            dropped[n_dropped++] = s;
    }
    pthread_mutex_unlock(&g.lock);
    for (size_t i = 0; i < n_dropped; i++)
        srs_free(dropped[i]);

    pthread_mutex_lock(&g.lock);
    pthread_mutex_lock(&g.pending_lock);
    size_t pending = list_length(g.pending, offsetof(ss_pending, next));
    pthread_mutex_unlock(&g.pending_lock);
    size_t srs = list_length(g.srs, offsetof(ss_srs, next));
    if (srs || pending || g.busy) {
        st = set_error(err, PL_EUSAGE, "pl_supraseal_shutdown: %zu SRS, %zu "
                       "pending proof%s and %zu call%s still use the engine",
                       srs, pending, pending == 1 ? "" : "s", g.busy,
                       g.busy == 1 ? "" : "s");
    } else if (g.engine) {
        if (g.used.log_level >= PL_LOG_INFO)
            pl_engine_write_summary(g.engine, g.used.log_stream);
        st = pl_engine_destroy(g.engine, err);
        g.engine = NULL;
    }
    pthread_mutex_unlock(&g.lock);
    return st;
}
