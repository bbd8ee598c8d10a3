/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared pieces of the `proofline` command: one entry point per subcommand
 * (cmd_<name>.c) and the helpers they share for usage errors, failures,
 * exit codes and files.  Options are in options.h, running the engine in
 * job.h.  Exit codes: 0 success, 1 invalid proof, 2 bad usage or bad
 * input, 3 internal error.
 */
#ifndef PL_CLI_H
#define PL_CLI_H

#include "proofline.h"
#include "proofline_c2.h"
#include "util/error.h" /* pl__error_set: a message fitted to pl_error.msg */

#include <stdio.h>

#define CLI_PROG "proofline"

/* Prints "proofline <cmd>: <message>" and a pointer to --help; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints the error of a failed call; returns its exit code. */
int cli_fail(const char *cmd, pl_status st, const pl_error *err);
/* The one way a command ends: 0 for PL_OK, else cli_fail's code (an
 * out-of-memory error without a message gets one); after SIGINT or
 * SIGTERM, 128 + the signal, saying so. */
int cli_exit(const char *cmd, pl_status st, pl_error *err);
/* cli_exit, printing `whole` (when given) instead of err's message: a
 * message longer than pl_error's 255 characters (a server's), whole. */
int cli_exit_whole(const char *cmd, pl_status st, pl_error *err,
                   const char *whole);
bool cli_is_help(const char *arg);
/* "30s", "10m", "2h", "7d", "1.5h", "45" (seconds) -> seconds (>= 0). */
bool cli_parse_duration(const char *text, double *out);
double cli_now(void);
/* Proofs per hour over `seconds` (0 for no time). */
double cli_per_hour(size_t proofs, double seconds);
/* A thread count as the engine takes it: 0 is one per online core. */
unsigned cli_threads(unsigned threads);
/* mkdir, or mkdir -p with parents; an existing directory is fine. */
pl_status cli_make_dir(const char *path, bool parents, pl_error *err);

/* SIGINT and SIGTERM, for the commands that run the engine: the first
 * one is noted (cli_signal_caught) and the command stops its jobs, keeps
 * what is finished, removes nothing it has not written, writes its figures
 * and exits 128 + the signal's number (130, 143); a second one ends the
 * process at once, as the signal would. */
void cli_signals_install(void);
/* The signal caught (SIGINT, SIGTERM), or 0. */
int cli_signal_caught(void);

/* The point check of a bellperson file (--check-params), over one thread
 * per core, with its progress on stderr when the file is large enough for
 * it to take a while (over CLI_PROGRESS_BYTES): on a terminal one line
 * redrawn, else a line every 10%. */
#define CLI_PROGRESS_BYTES (256ull << 20)
pl_status cli_check_bp_points(const char *cmd, const pl_bp_params *params,
                              pl_error *err);
/* The same for a zkey (its file at path, for its size). */
pl_status cli_check_zkey_points(const char *cmd, const char *path,
                                const pl_zkey *zkey, pl_error *err);

/* circuit.zkey -> circuit.r1cs (malloc'd), or NULL without a .zkey suffix */
char *cli_r1cs_beside(const char *zkey_path);

int cli_prove(int argc, char **argv);
/* rapidsnark's `prover <zkey> <wtns> <proof> <public> [log_level]`:
 * cli_prove with its arguments and exit codes (0, else 1). */
int cli_prover(int argc, char **argv);
int cli_batch(int argc, char **argv);
int cli_verify(int argc, char **argv);
int cli_vkey(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_setup(int argc, char **argv);
int cli_circuit(int argc, char **argv);
int cli_demo(int argc, char **argv);
int cli_plan(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_c2(int argc, char **argv);
int cli_serve(int argc, char **argv);
/* the clients of `proofline serve` (cmd_client.c) */
int cli_submit(int argc, char **argv);
int cli_jobs(int argc, char **argv);
int cli_status(int argc, char **argv);
int cli_fetch(int argc, char **argv);
int cli_store(int argc, char **argv); /* cmd_store.c: migrate, info */
/* the trusted setup (cmd_ptau.c, cmd_zkey.c) */
int cli_ptau(int argc, char **argv);
int cli_zkey(int argc, char **argv);

#endif /* PL_CLI_H */
