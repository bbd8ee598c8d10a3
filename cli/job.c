/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running the engine from a command (job.h): open and close, jobs with
 * their progress line and their stop on a signal, the end of a run, what
 * takes the proofs, and the run's figures.
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
                           const pl_job_status *js, size_t n, double t0)
{
    pl_engine_stats es;
    size_t ended = 0, parts = 0, proved = 0;
    for (size_t i = 0; i < n; i++) {
        ended += js[i].proved + js[i].failed + js[i].skipped;
        parts += js[i].n_partitions;
        proved += js[i].proved;
    }
    pl_engine_stats_read(engine, &es);
    char a[32], b[32];
    fprintf(stderr, "\r[%s] %zu/%zu partitions, %.1f proofs/hour, "
            "reserved %s / %s   ", label, ended, parts,
            cli_per_hour(proved, cli_now() - t0),
            pl_format_bytes(a, sizeof(a), es.reserved_bytes),
            pl_format_bytes(b, sizeof(b), es.budget_bytes));
}

/* Unfinished jobs polled per round: more than can be in flight at once
 * with any sensible number of workers. */
#define POLL_WINDOW 256

pl_status cli_run_jobs(pl_engine *engine, const pl_job_spec *specs, size_t n,
                       const char *label, bool progress, double t0,
                       pl_job_status *js, cli_job_done_fn on_done,
                       void *user, pl_error *err)
{
    pl_status st = PL_OK;
    size_t submitted = 0, left;
    bool stopping = false;
    uint64_t *ids = calloc(n ? n : 1, sizeof(*ids));
    bool *ended = calloc(n ? n : 1, sizeof(*ended));
    memset(js, 0, n * sizeof(*js));
    if (!ids || !ended) {
        st = PL_ENOMEM;
        pl__error_set(err, st, "out of memory for %zu jobs", n);
        goto fail;
    }
    /* A job the engine refuses for its input (a partition that can never
     * fit the budget) fails alone, as it would have once admitted; any
     * other refusal stops the run. */
    for (pl_error serr = {0}; submitted < n && st == PL_OK; submitted++) {
        pl_status sst = pl_engine_submit(engine, &ids[submitted],
                                         &specs[submitted], &serr);
        if (sst != PL_OK && (pl_status_exit_code(sst) != 2 ||
                             sst == PL_ECANCELLED)) {
            st = sst;
            *err = serr;
            break;
        }
        if (sst != PL_OK) {
            js[submitted] = (pl_job_status){
                .done = true, .status = sst, .error = serr, .failed = 1,
                .n_partitions = specs[submitted].n_partitions};
            ended[submitted] = true;
            if (on_done)
                on_done(user, submitted, &js[submitted]);
        }
    }
    for (size_t i = submitted; i < n; i++) /* never submitted */
        js[i] = (pl_job_status){.done = true, .status = PL_ECANCELLED,
                                .n_partitions = specs[i].n_partitions};
    progress = progress && isatty(STDERR_FILENO);
    left = 0;
    for (size_t i = 0; i < submitted; i++)
        left += !ended[i];
    for (unsigned round = 0; left; round++) {
        /* a signal, or a submit that failed: what is left is cancelled,
         * and waited for (the engine gives every byte back) */
        if (!stopping && (cli_signal_caught() || st != PL_OK)) {
            stopping = true;
            for (size_t i = 0; i < submitted; i++)
                if (!ended[i])
                    pl_engine_cancel(engine, ids[i], NULL);
        }
        /* The engine admits jobs in order, so beyond the first unfinished
         * ones nothing has started: a window of them is polled each round
         * (all of them once stopping), which keeps a batch of thousands
         * from polling every job ten times a second. */
        size_t open_seen = 0;
        for (size_t i = 0; i < submitted; i++) {
            if (ended[i])
                continue;
            if (!stopping && ++open_seen > POLL_WINDOW)
                break;
            if (pl_engine_poll(engine, ids[i], &js[i], NULL) || !js[i].done)
                continue;
            pl_error werr = {0};
            if (pl_engine_wait(engine, ids[i], &js[i], &werr) != PL_OK &&
                st == PL_OK) { /* cannot happen: the job is done */
                st = werr.code;
                *err = werr;
            }
            ended[i] = true;
            left--;
            if (on_done)
                on_done(user, i, &js[i]);
        }
        if (!left)
            break;
        if (progress && round % 5 == 0)
            print_progress(engine, label, js, submitted, t0);
        struct timespec tick = {0, 100 * 1000000L};
        nanosleep(&tick, NULL);
    }
    if (progress)
        fputc('\n', stderr);
fail:
    free(ended);
    free(ids);
    return st;
}

void cli_job_end(pl_engine *engine, pl_circuit **circuit,
                 pl_engine_stats *stats)
{
    pl_circuit_release(*circuit);
    *circuit = NULL;
    pl_engine_trim(engine);
    pl_engine_stats_read(engine, stats);
}

void cli_write_proof(void *user, uint64_t job, size_t partition,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public)
{
    (void)job;
    cli_proof_out *out = user;
    char name[64], proof_path[4200], public_path[4200];
    pl_error err = {0};
    pl_status st = PL_OK;
    {
        if (!out->name)
            snprintf(name, sizeof(name), "p%zu", partition);
        const char *base = out->name ? out->name : name;
        snprintf(proof_path, sizeof(proof_path), "%s/%s.proof.json",
                 out->dir, base);
        snprintf(public_path, sizeof(public_path), "%s/%s.public.json",
                 out->dir, base);
        st = pl_proof_write_json_curve(
            proof, out->curve, out->proof_path ? out->proof_path : proof_path,
            publics, n_public, out->proof_path ? out->public_path : public_path,
            &err);
        if (st == PL_OK)
            out->written++;
    }
    if (st != PL_OK && out->status == PL_OK) {
        out->status = st;
        out->error = err;
    }
}

/* A job whose every partition was delivered succeeded, even when a cancel
 * came after its last partition's last check (its status then says
 * cancelled, though the proof was written). */
static pl_status job_status(const pl_job_status *js)
{
    return js->proved == js->n_partitions ? PL_OK : js->status;
}

pl_status cli_job_result(const pl_job_status *js, const cli_proof_out *out,
                         pl_error *err)
{
    pl_status st = job_status(js);
    if (st != PL_OK)
        *err = js->error;
    else if ((st = out->status) != PL_OK)
        *err = out->error;
    return st;
}

void cli_run_tally(pl_job_status *total, pl_run_item *items,
                   const pl_job_status *js, const cli_proof_out *outs,
                   const char *const *witnesses, size_t n)
{
    memset(total, 0, sizeof(*total));
    total->done = true;
    total->n_partitions = n;
    for (size_t i = 0; i < n; i++) {
        bool job_failed = job_status(&js[i]) != PL_OK;
        const pl_error *e = job_failed ? &js[i].error : &outs[i].error;
        pl_status st = job_failed ? js[i].status : outs[i].status;
        items[i] = (pl_run_item){witnesses[i], st, st ? e->msg : ""};
        total->verified += js[i].verified;
        if (st == PL_OK)
            total->proved++;
        else if (st == PL_ECANCELLED)
            total->skipped++;
        else
            total->failed++;
        /* a cancelled one stands for the run only when nothing failed */
        bool worse = st == PL_ECANCELLED
                         ? total->status == PL_OK
                         : total->status == PL_ECANCELLED ||
                               pl_status_exit_code(st) >
                                   pl_status_exit_code(total->status);
        if (st != PL_OK && worse) {
            total->status = st;
            total->error = *e;
        }
    }
}

pl_status cli_write_figures(const cli_engine_options *o, pl_engine *engine,
                            const pl_engine_stats *stats,
                            const pl_job_status *total,
                            const pl_run_item *items, size_t n_items,
                            double wall, pl_error *err)
{
    const pl_engine_config *cfg = &o->cfg;
    pl_run_facts run = {wall, cfg->synth_workers, cfg->prover_workers,
                        cli_threads(cfg->threads), items, n_items};
    pl_status st = PL_OK;
    if (o->trace)
        st = pl_engine_write_trace(engine, o->trace, err);
    if (st == PL_OK && o->plot)
        st = pl_engine_write_plot(engine, o->plot, err);
    if (st == PL_OK && o->report)
        st = pl_engine_write_report_file(o->report, stats, total, &run, err);
    return st;
}

/* "dir/x.wtns" -> "x" (malloc'd) */
static char *witness_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".wtns") == 0)
        len -= 5;
    char *name = malloc(len + 1);
    if (name) {
        memcpy(name, base, len);
        name[len] = '\0';
    }
    return name;
}

/* The output name of each witness (*names: n, each freed by the caller
 * even on failure); two witnesses that would write one file are refused. */
pl_status cli_output_names(char ***names, const char *const *witnesses,
                              size_t n, pl_error *err)
{
    if (!(*names = calloc(n, sizeof(char *))))
        return PL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!((*names)[i] = witness_name(witnesses[i])))
            return PL_ENOMEM;
        for (size_t k = 0; k < i; k++)
            if (strcmp((*names)[k], (*names)[i]) == 0) {
                return pl__error_set(err, PL_EUSAGE, "%s and %s would both "
                                     "write %s.proof.json", witnesses[k],
                                     witnesses[i], (*names)[i]);
            }
    }
    return PL_OK;
}
