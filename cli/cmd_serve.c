/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline serve`: the proving service.  This file is its option table:
 * it reads the options into a pl_service_config and makes three calls,
 * pl_service_open, pl_service_run (until SIGTERM or SIGINT, then the
 * drain) and pl_service_close (service/proofline_service.h: the service
 * is assembled and taken apart there, not here).
 */
#include "cli.h"
#include "options.h"
#include "proofline_service.h"

#include <stdio.h>
#include <string.h>

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
    const char *header_timeout, *params_idle, *preload;
    uint64_t params_budget, body_min_rate;
    long max_queued, trace_records, http_threads, max_connections;
    long max_per_client;
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
             "not be readable by others)", .io = CLI_IN},
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
    {"--max-connections-per-client", "N", CLI_LONG, O(max_per_client),
     .help = "connections from one client address (default 64);\n"
             "beyond it, or beyond --max-connections, the oldest one\n"
             "still sending its headers is closed to make room"},
    {"--header-timeout", "TIME", CLI_STRING, O(header_timeout),
     .help = "a request's headers must arrive within this (default\n"
             "10s; a connection that trickles them is closed)"},
    {"--body-min-rate", "SIZE", CLI_SIZE, O(body_min_rate),
     .help = "bytes per second a request's body must keep up,\n"
             "averaged over --header-timeout (default 1KiB)"},
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

/* A duration option into *out (left as it was when absent). */
static bool duration(const char *text, const char *name, double min,
                     double *out)
{
    if (!text)
        return true;
    if (!cli_parse_duration(text, out) || *out < min) {
        cli_usage_error("serve", "%s takes a duration%s (30s, 2m), not '%s'",
                        name, min > 0 ? " of 1s or more" : "", text);
        return false;
    }
    return true;
}

static int serve_run(serve_options *o)
{
    pl_service_config cfg;
    pl_service_config_init(&cfg);
    if (!duration(o->drain_timeout, "--drain-timeout", 0,
                  &cfg.drain_timeout_s) ||
        !duration(o->lease, "--lease", 1, &cfg.lease_s) ||
        !duration(o->retain, "--retain", 0, &cfg.retain_s) ||
        !duration(o->params_idle, "--params-idle", 0, &cfg.params_idle_s) ||
        !duration(o->request_timeout, "--request-timeout", 1,
                  &cfg.idle_timeout_s) ||
        !duration(o->header_timeout, "--header-timeout", 1,
                  &cfg.header_timeout_s))
        return 2;
    if (o->max_queued < 0 || o->trace_records < 0 || o->http_threads < 0 ||
        o->http_threads > 64 || o->max_connections < 0 ||
        o->max_per_client < 0 || o->trace_records > 1000000)
        return cli_usage_error("serve", "--max-queued, --trace-records, "
                               "--http-threads (up to 64), "
                               "--max-connections and "
                               "--max-connections-per-client take positive "
                               "numbers");
    cfg.listen = o->listen;
    cfg.data_dir = o->data;
    cfg.store = o->store;
    cfg.token_file = o->token_file;
    cfg.allow_path = o->allow_path;
    cfg.preload = o->preload;
    cfg.max_queued = (uint64_t)o->max_queued;
    cfg.max_zkey_bytes = o->max_zkey;
    cfg.params_budget_bytes = o->params_budget;
    if (o->trace_records)
        cfg.trace_records = (size_t)o->trace_records;
    if (o->http_threads)
        cfg.http_threads = (unsigned)o->http_threads;
    if (o->max_connections)
        cfg.max_connections = (unsigned)o->max_connections;
    if (o->max_per_client)
        cfg.max_per_client = (unsigned)o->max_per_client;
    if (o->body_min_rate)
        cfg.body_min_rate = o->body_min_rate;
    cfg.log_claims = o->engine.cfg.log_level != PL_LOG_QUIET;
    cfg.engine = o->engine.cfg;

    pl_error err = {0};
    pl_service *svc = NULL;
    pl_status st = pl_service_open(&svc, &cfg, &err);
    if (st == PL_OK)
        st = pl_service_run(svc, &err);
    pl_error close_err = {0};
    pl_status closed = pl_service_close(svc, &close_err);
    if (st == PL_OK && closed != PL_OK) {
        st = closed;
        err = close_err;
    }
    return st == PL_OK ? 0 : cli_fail("serve", st, &err);
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
