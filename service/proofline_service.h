/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public API of libproofline_service: `proofline serve` as a library
 * (open, run until a signal, close) and the job store seen without a
 * service (`proofline store migrate|info`).  The command line
 * (cli/cmd_serve.c, cli/cmd_store.c) is an option table over these calls;
 * docs/serve.md and docs/store.md describe what they do.  Nothing else of
 * service/ is meant to be included from outside it.
 */
#ifndef PROOFLINE_SERVICE_H
#define PROOFLINE_SERVICE_H

#include "proofline.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pl_service pl_service;

/* Every setting of a service; pl_service_config_init fills the defaults
 * that docs/serve.md gives (0 or NULL in a field means that default). */
typedef struct pl_service_config {
    const char *listen;       /* "HOST:PORT" (PORT 0: any) or "unix:PATH";
                                 NULL: 127.0.0.1:7878 */
    const char *data_dir;     /* NULL: ./proofline-data */
    const char *store;        /* a folder or postgres://...; NULL: data_dir */
    const char *token_file;   /* NULL: no token (loopback only) */
    const char *allow_path;   /* registration by path under it; NULL: none */
    const char *preload;      /* "ID,ID": circuits made hot at the start */
    uint64_t max_queued;      /* jobs receiving or queued; 0: no bound */
    uint64_t max_zkey_bytes;  /* a zkey upload; 0: no bound */
    uint64_t params_budget_bytes; /* hot circuits at most; 0: the budget */
    double params_idle_s;     /* demote a circuit unused so long; 0: only
                                 when its room is needed */
    double lease_s;           /* a claim's lease (30) */
    double retain_s;          /* ended jobs kept so long; 0: forever */
    double drain_timeout_s;   /* SIGTERM: in-flight work may finish (30) */
    size_t trace_records;     /* /v1/trace's ring (4096) */
    /* The HTTP side's limits (docs/serve.md, "Limits"). */
    unsigned http_threads;    /* polling threads (4) */
    unsigned max_connections; /* connections at once (256) */
    unsigned max_per_client;  /* connections from one address (64) */
    double header_timeout_s;  /* a request's headers must arrive within
                                 this (10) */
    double idle_timeout_s;    /* a connection idle this long is closed (30) */
    uint64_t body_min_rate;   /* bytes/s a body must keep up, averaged over
                                 header_timeout_s (1024) */
    bool log_claims;          /* a line per claim and promotion */
    /* No claim loop: jobs are taken and kept, never claimed or proved,
     * and readiness is not probed (the API alone, for its fuzzer:
     * tests/fuzz/fuzz_service_request.c opens a service so, sends it
     * requests on its socket, and closes it). */
    bool no_worker;
    pl_engine_config engine;  /* the one engine (its callbacks are the
                                 service's own) */
} pl_service_config;

void pl_service_config_init(pl_service_config *cfg);

/* Checks the configuration (a non-loopback address needs a token file; a
 * token file others can read is refused; the data folder is created
 * 0700, one service per data folder), opens the store, the engine and
 * the worker, and starts listening (the bound address in
 * DATA/listen.addr).  SIGINT and SIGTERM are blocked in the calling
 * thread (and so in every thread started from here on): call it from the
 * main thread before starting others.  PL_EUSAGE for a configuration
 * that cannot be used, naming the option. */
pl_status pl_service_open(pl_service **out, const pl_service_config *cfg,
                          pl_error *err);
/* Serves until SIGTERM or SIGINT, then drains: new work gets 503, the
 * partitions in flight may finish until drain_timeout_s, the rest go back
 * to the queue.  A second signal during the drain ends the process at
 * once (exit 128 + the signal). */
pl_status pl_service_run(pl_service *svc, pl_error *err);
/* Stops listening, stops the worker and the engine (checking that every
 * buffer came back), closes the store.  NULL is a no-op. */
pl_status pl_service_close(pl_service *svc, pl_error *err);

/* `proofline store migrate`: the store's schema created or upgraded to
 * target_version (0: this build's) and nothing else; the versions found
 * and left in *before and *after. */
pl_status pl_service_store_migrate(const char *locator, int target_version,
                                   int *before, int *after, pl_error *err);
/* `proofline store info`: the schema version, jobs by state, queued
 * partitions by priority, claimed partitions and every worker, as
 * key=value lines on out. */
pl_status pl_service_store_info(const char *locator, FILE *out,
                                pl_error *err);

#endif /* PROOFLINE_SERVICE_H */
