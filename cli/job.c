/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running the engine from a command (job.h): open and close, one job with
 * its progress line, the end of a job, and what takes the proofs.
 */
#define _POSIX_C_SOURCE 200809L
#include "job.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pl_status cli_engine_open(pl_engine **engine, pl_circuit **circuit,
                          const pl_engine_config *cfg, const char *zkey,
                          const char *r1cs, pl_error *err)
{
    pl_status st = pl_engine_create(engine, cfg, err);
    if (st == PL_OK)
        st = pl_engine_open_circuit(*engine, circuit, zkey, r1cs, err);
    return st;
}

void cli_engine_close(pl_engine *engine, pl_circuit *circuit, pl_status *st,
                      pl_error *err)
{
    pl_error leak = {0};
    pl_circuit_release(circuit);
    if (pl_engine_destroy(engine, &leak) != PL_OK && *st == PL_OK) {
        *st = PL_EINTERNAL;
        *err = leak;
    }
}

static void print_progress(pl_engine *engine, const char *label,
                           const pl_job_status *js, double t0)
{
    pl_engine_stats es;
    pl_engine_stats_read(engine, &es);
    char a[32], b[32];
    fprintf(stderr, "\r[%s] %zu/%zu partitions, %.1f proofs/hour, "
            "reserved %s / %s   ", label,
            js->proved + js->failed + js->skipped, js->n_partitions,
            cli_per_hour(js->proved, cli_now() - t0),
            pl_format_bytes(a, sizeof(a), es.reserved_bytes),
            pl_format_bytes(b, sizeof(b), es.budget_bytes));
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
        if (progress)
            print_progress(engine, label, js, t0);
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

void cli_job_end(pl_engine *engine, pl_circuit **circuit,
                 pl_engine_stats *stats)
{
    pl_circuit_release(*circuit);
    *circuit = NULL;
    pl_engine_trim(engine);
    pl_engine_stats_read(engine, stats);
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

void cli_proof_writer_init(cli_proof_writer *w, const char *dir,
                           char **names)
{
    memset(w, 0, sizeof(*w));
    w->dir = dir;
    w->names = names;
    pthread_mutex_init(&w->lock, NULL);
}

void cli_write_proof(void *user, uint64_t job, size_t partition,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public)
{
    cli_proof_writer *w = user;
    char name[64], proof_path[4200], public_path[4200];
    if (!w->names)
        snprintf(name, sizeof(name), "p%zu", partition);
    const char *base = w->names ? w->names[partition] : name;
    snprintf(proof_path, sizeof(proof_path), "%s/%s.proof.json", w->dir, base);
    snprintf(public_path, sizeof(public_path), "%s/%s.public.json", w->dir,
             base);
    pl_error err = {0};
    pl_status st = pl_proof_write_json(proof, proof_path, publics, n_public,
                                       public_path, &err);
    pthread_mutex_lock(&w->lock);
    if (st != PL_OK && w->status == PL_OK) {
        w->status = st;
        w->error = err;
    }
    pthread_mutex_unlock(&w->lock);
}

pl_status cli_job_result(const pl_job_status *js, cli_proof_writer *w,
                         pl_error *err)
{
    pl_status st = js->status;
    if (st != PL_OK) {
        *err = js->error;
        return st;
    }
    pthread_mutex_lock(&w->lock); /* the finisher is done: for the reader */
    if ((st = w->status) != PL_OK)
        *err = w->error;
    pthread_mutex_unlock(&w->lock);
    return st;
}
