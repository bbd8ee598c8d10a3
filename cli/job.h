/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running the engine from a command: `prove`, `batch` and `demo` each open
 * an engine with one circuit, run one job (with a progress line on a
 * terminal), take the proofs as they come, and close everything through
 * one path that turns a ledger that does not balance into an error.
 */
#ifndef PL_CLI_JOB_H
#define PL_CLI_JOB_H

#include "proofline.h"

#include <pthread.h>

/* pl_engine_create, then pl_engine_open_circuit (r1cs may be NULL). */
pl_status cli_engine_open(pl_engine **engine, pl_circuit **circuit,
                          const pl_engine_config *cfg, const char *zkey,
                          const char *r1cs, pl_error *err);
/* Releases the circuit and destroys the engine (NULL: nothing); a ledger
 * that does not balance turns a success into PL_EINTERNAL naming the
 * classes. */
void cli_engine_close(pl_engine *engine, pl_circuit *circuit, pl_status *st,
                      pl_error *err);

/* Submits a job and waits for it (pl_engine_wait); meanwhile, with
 * `progress` and a terminal on stderr, a line of partitions done,
 * proofs/hour and reserved/budget, twice a second. */
pl_status cli_run_job(pl_engine *engine, const pl_job_spec *spec,
                      const char *label, bool progress, double t0,
                      pl_job_status *js, pl_error *err);
/* After a job: releases the circuit (*circuit becomes NULL), gives freed
 * heap back to the OS (pl_engine_trim) and reads the stats. */
void cli_job_end(pl_engine *engine, pl_circuit **circuit,
                 pl_engine_stats *stats);

/* Keeps the one proof of a job (pl_proof_fn), with a copy of its publics;
 * free publics after. */
typedef struct cli_proof_slot {
    pl_proof proof;
    pl_scalar *publics; /* malloc'd */
    size_t n_public;
    bool have;
} cli_proof_slot;
void cli_keep_proof(void *slot, uint64_t job, size_t partition,
                    const pl_proof *proof, const pl_scalar *publics,
                    size_t n_public);

/* Writes each proof as it comes (pl_proof_fn, on the finisher thread) to
 * DIR/NAME.proof.json and DIR/NAME.public.json, NAME the partition's name,
 * or p<partition> without names; keeps the first failure. */
typedef struct cli_proof_writer {
    const char *dir;
    char **names; /* per partition, or NULL */
    pthread_mutex_t lock;
    pl_status status;
    pl_error error;
} cli_proof_writer;
void cli_proof_writer_init(cli_proof_writer *w, const char *dir,
                           char **names);
void cli_write_proof(void *writer, uint64_t job, size_t partition,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public);

/* The outcome of a job whose proofs a writer took: the job's failure,
 * else the writer's, else PL_OK. */
pl_status cli_job_result(const pl_job_status *js, cli_proof_writer *w,
                         pl_error *err);

#endif /* PL_CLI_JOB_H */
