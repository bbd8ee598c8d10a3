/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline store migrate|info --store LOCATOR`: the job store of
 * `proofline serve` seen without a service.  migrate applies the schema's
 * migrations alone (an operator upgrades a cluster's database once,
 * before starting the new workers, rather than letting the first worker
 * do it); info prints the schema version and the counts of jobs,
 * partitions and workers.  LOCATOR is a folder (SQLite) or a postgres://
 * URI, as `proofline serve` takes.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"
#include "proofline_service.h"

#include <string.h>

static const cli_command store_cmd = {
    "store",
    "Usage: proofline store migrate --store LOCATOR [--to VERSION]\n"
    "       proofline store info --store LOCATOR\n"
    "\n"
    "migrate: creates the job store's schema, or upgrades it to this\n"
    "proofline's version, one step per version in one transaction (under\n"
    "an advisory lock on PostgreSQL: workers starting meanwhile wait),\n"
    "and prints the version before and after.  info: the schema version,\n"
    "jobs by state, partitions queued by priority and claimed, and the\n"
    "workers (alive or gone, and how long since each was heard from).\n"
    "\n"
    "LOCATOR: a folder (SQLite, FOLDER/store.sqlite: `serve --data`) or\n"
    "postgres://USER@HOST/DB (libpq's URI; a password belongs in\n"
    "~/.pgpass or PGPASSWORD, not on a command line).\n",
    NULL, 24};

typedef struct {
    const char *store;
    long to;
} store_options;

static const cli_opt store_opts[] = {
    {"--store", "LOCATOR", CLI_STRING, offsetof(store_options, store),
     .help = "the store: a folder or postgres://..."},
    {"--to", "VERSION", CLI_LONG, offsetof(store_options, to),
     .help = "migrate: stop at this version (default: this build's)"},
    {NULL},
};

static int store_migrate(const store_options *o)
{
    pl_error err = {0};
    int before = 0, after = 0;
    pl_status st = pl_service_store_migrate(o->store, (int)o->to, &before,
                                            &after, &err);
    if (st == PL_OK)
        printf("schema_before=%d\nschema_after=%d\n", before, after);
    return cli_exit("store migrate", st, &err);
}

static int store_info(const store_options *o)
{
    pl_error err = {0};
    pl_status st = pl_service_store_info(o->store, stdout, &err);
    return cli_exit("store info", st, &err);
}

int cli_store(int argc, char **argv)
{
    store_options o = {0};
    const cli_table tables[] = {{store_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&store_cmd, tables, 1, argc, argv, &npos);
    if (rc != CLI_RUN)
        return rc;
    if (npos != 1 ||
        (strcmp(argv[0], "migrate") != 0 && strcmp(argv[0], "info") != 0))
        return cli_usage_error("store", "needs one action: migrate or info");
    if (!o.store)
        return cli_usage_error("store", "needs --store LOCATOR (a folder or "
                                        "postgres://...)");
    if (strcmp(argv[0], "migrate") == 0)
        return store_migrate(&o);
    if (o.to)
        return cli_usage_error("store", "--to is for migrate");
    return store_info(&o);
}
