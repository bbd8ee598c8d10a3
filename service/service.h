/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline serve` as one value, inside the service: what the HTTP server
 * (http/), the claim loop (worker.c) and the ledger's live views
 * (metrics.c) share.  service.c, the composition root, fills it, opens the
 * store and the engine, starts the worker and then the server, and on
 * SIGTERM or SIGINT drains them in the other order.  Everything here is
 * set before the threads start and read-only after, except the atomics.
 */
#ifndef PL_SERVICE_SERVICE_H
#define PL_SERVICE_SERVICE_H

#include "proofline.h"
#include "store/store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct pl__worker pl__worker;
typedef struct pl__metrics pl__metrics;
typedef struct pl__server pl__server;
typedef struct pl__residency pl__residency;

#define PL__SERVICE_PATH_MAX 3072

/* The class of the service's own buffers (the trace ring, the partition
 * lists a reply is written from): counted with the circuits' resident
 * state, as they live beside it, until the classes have one of their own
 * (a change to the public header's class list). */
#define PL__SERVICE_BUF PL_BUF_PARAMS

typedef struct pl__service {
    pl__store *store;
    pl_engine *engine;
    pl__worker *worker;
    pl__metrics *metrics;
    pl__residency *residency; /* the circuits held hot, under params_budget */
    pl__server *server;       /* the HTTP side, once it listens */
    /* DATA and its folders: circuits/, witnesses/, proofs/ */
    char data_dir[PL__SERVICE_PATH_MAX];
    char data_dir_real[PL__SERVICE_PATH_MAX]; /* as the kernel resolves it */
    /* the worker's claim owner: "host:" and a random id kept in
     * DATA/owner.id, so a restart after a crash recovers its own claims at
     * once instead of waiting for their leases to lapse */
    char owner[PL__STORE_OWNER_MAX];
    uint64_t budget_bytes;        /* the engine's, as it resolved it */
    uint64_t params_budget_bytes; /* hot parameters at most (<= budget) */
    double params_idle_s;         /* demote a circuit unused this long; 0:
                                     only when its room is needed */
    const char *token;            /* NULL: no authentication */
    /* no token, on loopback: requests must name a loopback Host, and
     * state-changing ones may not come from another origin */
    bool tokenless_loopback;
    const char *allow_path;       /* NULL: no registration by path */
    uint64_t max_queued;          /* jobs receiving or queued; 0: no bound */
    uint64_t max_zkey_bytes;      /* a zkey upload; 0: no bound */
    int64_t lease_ms;             /* a claim's lease */
    int64_t retain_ms;            /* ended jobs kept this long; 0: forever */
    double drain_timeout_s;
    bool log_claims;              /* a line per claim: store job -> engine job */
    int64_t started_unix_ms;
    atomic_bool draining;         /* stop accepting: 503 */
    /* Readiness (health.c): whether the store and DATA can be written,
     * probed every second; while they cannot, /readyz and new work are
     * 503 and nothing is claimed.  Why not: under health_lock. */
    atomic_bool unwritable;
    pthread_mutex_t health_lock;  /* unwritable_why */
    pthread_mutex_t probe_lock;   /* one probe at a time */
    char unwritable_why[512];
} pl__service;

/* The last probe's verdict: false while the store or DATA cannot be
 * written, why (cap bytes) then. */
bool pl__health_ok(pl__service *svc, char *why, size_t cap);
/* Probes now (the worker's loop calls it every second, and at once after
 * a write that failed): the store's files still its own and a write
 * committed, and a small file written, fsync'd and removed in DATA.
 * Returns whether both went through. */
bool pl__health_probe(pl__service *svc);

/* Wall-clock milliseconds (the store's timestamps). */
int64_t pl__service_now_ms(void);

#endif /* PL_SERVICE_SERVICE_H */
