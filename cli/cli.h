/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared pieces of the `proofline` command: one entry point per subcommand
 * (cmd_<name>.c) and the helpers they share for usage errors, failures and
 * option values.  Exit codes: 0 success, 1 invalid proof, 2 bad usage or bad
 * input, 3 internal error.
 */
#ifndef PL_CLI_H
#define PL_CLI_H

#include "proofline.h"
#include "porep.h"

#include <stdio.h>

#define CLI_PROG "proofline"

/* Prints "proofline <cmd>: <fmt % arg>" and a pointer to --help; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);
/* Prints the error of a failed call; returns its exit code. */
int cli_fail(const char *cmd, pl_status st, const pl_error *err);
bool cli_is_help(const char *arg);
double cli_now(void);
/* A count from 1 to 4096. */
bool cli_parse_count(const char *text, unsigned *out);

/* circuit.zkey -> circuit.r1cs (malloc'd), or NULL without a .zkey suffix */
char *cli_r1cs_beside(const char *zkey_path);

/* Keeps the one proof of a job (pl_proof_fn), with a copy of its publics. */
typedef struct cli_proof_slot {
    pl_proof proof;
    pl_scalar *publics; /* malloc'd */
    size_t n_public;
    bool have;
} cli_proof_slot;
void cli_keep_proof(void *slot, uint64_t job, size_t partition,
                    const pl_proof *proof, const pl_scalar *publics,
                    size_t n_public);

/* Destroys the engine (NULL: nothing); a ledger that does not balance
 * turns a success into PL_EINTERNAL naming the classes. */
void cli_engine_close(pl_engine *engine, pl_status *st, pl_error *err);

/* Submits a job and waits for it (pl_engine_wait); meanwhile, with
 * `progress` and a terminal on stderr, a line of partitions done,
 * proofs/hour and reserved/budget, twice a second. */
pl_status cli_run_job(pl_engine *engine, const pl_job_spec *spec,
                      const char *label, bool progress, double t0,
                      pl_job_status *js, pl_error *err);

int cli_prove(int argc, char **argv);
int cli_batch(int argc, char **argv);
int cli_verify(int argc, char **argv);
int cli_vkey(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_setup(int argc, char **argv);

/* ---- circuits built in C (cmd_circuit.c, cmd_demo.c) ---- */
int cli_circuit(int argc, char **argv);
int cli_demo(int argc, char **argv);
/* "2^K" (K 4..28) or a number: a constraint target. */
bool cli_parse_constraints(const char *text, uint64_t *out);
/* The smallest k with 2^k >= n. */
unsigned cli_log2_ceil(uint64_t n);
/* One line describing the demo circuit's shape. */
void cli_describe_porep(FILE *f, const porep_params *p, size_t nc, size_t np,
                        size_t nw);

#endif /* PL_CLI_H */
