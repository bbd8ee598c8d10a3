/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running the engine from a command: `prove`, `batch` and `demo` each open
 * an engine with one circuit, run their jobs (with a progress line on a
 * terminal), take the proofs as they come, write the run's figures, and
 * close everything through one path that turns a ledger that does not
 * balance into an error.  SIGINT and SIGTERM stop the jobs (cli.h,
 * cli_signal_caught): what is not finished is cancelled, what is finished
 * is kept.
 */
#ifndef PL_CLI_JOB_H
#define PL_CLI_JOB_H

#include "options.h"
#include "proofline.h"

/* pl_engine_create, then pl_engine_open_circuit (r1cs may be NULL). */
pl_status cli_engine_open(pl_engine **engine, pl_circuit **circuit,
                          const pl_engine_config *cfg, const char *zkey,
                          const char *r1cs, pl_error *err);
/* Releases the circuit and destroys the engine (NULL: nothing); a ledger
 * that does not balance turns a success into PL_EINTERNAL naming the
 * classes. */
void cli_engine_close(pl_engine *engine, pl_circuit *circuit, pl_status *st,
                      pl_error *err);

/* Called on the caller's thread as each job ends, with its final status. */
typedef void (*cli_job_done_fn)(void *user, size_t index,
                                const pl_job_status *js);

/* Submits specs[0..n) in order (the engine admits them in that order),
 * then waits for all of them; js[i] is job i's final status and on_done
 * (optional) hears of each as it ends.  Meanwhile, with `progress` and a
 * terminal on stderr, a line of partitions done, proofs/hour and
 * reserved/budget, twice a second.  On SIGINT or SIGTERM every job not
 * done is cancelled (its status PL_ECANCELLED) and the rest still waited
 * for.  A job the engine refuses at submission for its input (one that can
 * never fit the budget) fails alone, its status that refusal.  Fails only
 * when the engine does (another refusal, a wait). */
pl_status cli_run_jobs(pl_engine *engine, const pl_job_spec *specs, size_t n,
                       const char *label, bool progress, double t0,
                       pl_job_status *js, cli_job_done_fn on_done,
                       void *user, pl_error *err);
/* After the jobs: releases the circuit (*circuit becomes NULL), gives freed
 * heap back to the OS (pl_engine_trim) and reads the stats. */
void cli_job_end(pl_engine *engine, pl_circuit **circuit,
                 pl_engine_stats *stats);

/* Where one job's proofs go (pl_proof_fn, on the finisher thread):
 * proof_path and public_path when given, else DIR/NAME.proof.json and
 * DIR/NAME.public.json, NAME the given name or p<partition>.  (The engine
 * verifies each proof before it delivers it, when the job asks: one that
 * does not verify never reaches here.)  Keeps the first
 * failure.  Read it once the job is done (the engine's wait orders the
 * finisher's writes before the reader). */
typedef struct cli_proof_out {
    const char *proof_path, *public_path;
    const char *dir, *name;
    const char *witness;  /* for messages */
    pl_curve curve;       /* the circuit's: the proofs' JSON */
    size_t written;
    pl_status status;
    pl_error error;
} cli_proof_out;
void cli_write_proof(void *out, uint64_t job, size_t partition,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public);

/* The outcome of a job whose proofs `out` took: the job's failure, else
 * the writer's, else PL_OK. */
pl_status cli_job_result(const pl_job_status *js, const cli_proof_out *out,
                         pl_error *err);

/* The run's totals over n jobs of one witness each (total: counts, and
 * the status and error of the first failure with the highest exit code)
 * and each witness's item for the report (its message points into js or
 * outs, which must outlive it). */
void cli_run_tally(pl_job_status *total, pl_run_item *items,
                   const pl_job_status *js, const cli_proof_out *outs,
                   const char *const *witnesses, size_t n);

/* The figures that were asked for (--report, --trace, --plot), from the
 * stats after the jobs; items: a status per witness for the report. */
pl_status cli_write_figures(const cli_engine_options *o, pl_engine *engine,
                            const pl_engine_stats *stats,
                            const pl_job_status *total,
                            const pl_run_item *items, size_t n_items,
                            double wall, pl_error *err);

/* The output name of each witness ("dir/x.wtns" -> "x": x.proof.json and
 * x.public.json, as batch and submit --wait write them; *names: n, each
 * freed by the caller even on failure); two witnesses that would write one
 * file are refused (PL_EUSAGE). */
pl_status cli_output_names(char ***names, const char *const *witnesses,
                           size_t n, pl_error *err);

#endif /* PL_CLI_JOB_H */
