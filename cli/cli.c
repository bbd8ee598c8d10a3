/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the subcommands of the `proofline` command.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int cli_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s %s: ", CLI_PROG, cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s %s --help'.\n", CLI_PROG, cmd);
    return 2;
}

int cli_fail(const char *cmd, pl_status st, const pl_error *err)
{
    fprintf(stderr, "%s %s: %s: %s\n", CLI_PROG, cmd, pl_strerror(st),
            err->msg[0] ? err->msg : "(no detail)");
    return pl_status_exit_code(st);
}

bool cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool cli_parse_count(const char *text, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || v == 0 || v > 4096 || text[0] == '-')
        return false;
    *out = (unsigned)v;
    return true;
}


char *cli_r1cs_beside(const char *zkey_path)
{
    size_t len = strlen(zkey_path);
    if (len < 5 || strcmp(zkey_path + len - 5, ".zkey") != 0)
        return NULL;
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, zkey_path, len - 5);
        strcpy(p + len - 5, ".r1cs");
    }
    return p;
}

void cli_keep_proof(void *user, uint64_t job, size_t partition,
                    const pl_proof *proof, const pl_scalar *publics,
                    size_t n_public)
{
    cli_proof_slot *slot = user;
    slot->proof = *proof;
    slot->publics = malloc((n_public ? n_public : 1) * sizeof(pl_scalar));
    if (slot->publics)
        memcpy(slot->publics, publics, n_public * sizeof(pl_scalar));
    slot->n_public = n_public;
    slot->have = slot->publics != NULL;
}

void cli_engine_close(pl_engine *engine, pl_status *st, pl_error *err)
{
    pl_error leak = {0};
    if (pl_engine_destroy(engine, &leak) != PL_OK && *st == PL_OK) {
        *st = PL_EINTERNAL;
        *err = leak;
    }
}

pl_status cli_run_job(pl_engine *engine, const pl_job_spec *spec,
                      const char *label, bool progress, double t0,
                      pl_job_status *js, pl_error *err)
{
    uint64_t job;
    pl_status st = pl_engine_submit(engine, &job, spec, err);
    if (st != PL_OK)
        return st;
    progress = progress && isatty(STDERR_FILENO);
    for (;;) { /* a progress line on a terminal, twice a second */
        if ((st = pl_engine_poll(engine, job, js, err)))
            return st;
        if (js->done)
            break;
        if (progress) {
            pl_engine_stats es;
            pl_engine_stats_read(engine, &es);
            double wall = cli_now() - t0;
            char a[32], b[32];
            fprintf(stderr, "\r[%s] %zu/%zu partitions, %.1f proofs/hour, "
                    "reserved %s / %s   ", label,
                    js->proved + js->failed + js->skipped, js->n_partitions,
                    wall > 0 ? (double)js->proved * 3600.0 / wall : 0.0,
                    pl_format_bytes(a, sizeof(a), es.reserved_bytes),
                    pl_format_bytes(b, sizeof(b), es.budget_bytes));
        }
        struct timespec ts = {0, 100 * 1000000L};
        for (int k = 0; k < 5 && !js->done; k++) {
            nanosleep(&ts, NULL);
            pl_engine_poll(engine, job, js, NULL);
        }
    }
    if (progress)
        fputc('\n', stderr);
    return pl_engine_wait(engine, job, js, err);
}
