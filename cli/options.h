/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The options of the `proofline` subcommands, as data.  A command declares
 * its options in a table (name, value kind, where the value goes, help
 * line); cli_parse reads argv against its tables and cli_help prints the
 * options part of --help from the same tables, so a new option is one
 * entry.  The engine's options are shared fragments (cli_engine_opts,
 * cli_pipeline_opts) over one struct, cli_engine_options, that every
 * command running the engine embeds.  Used by cli/cmd_*.c only.
 */
#ifndef PL_CLI_OPTIONS_H
#define PL_CLI_OPTIONS_H

#include "proofline.h"

#include <stddef.h>
#include <stdio.h>

typedef enum {
    CLI_FLAG,        /* bool, set to true; takes no value */
    CLI_STRING,      /* const char *: the value as given */
    CLI_COUNT,       /* unsigned, 1 to max (4096 when max is 0) */
    CLI_SIZE,        /* uint64_t bytes (pl_parse_size: "512MiB", "4GiB") */
    CLI_CONSTRAINTS, /* uint64_t: "2^K" (K 4..28) or a number (16..2^28) */
    CLI_CHOICE,      /* unsigned: the value's index in choices */
    CLI_LONG,        /* long, decimal */
} cli_opt_kind;

typedef struct cli_opt {
    const char *name; /* "--pw" */
    const char *arg;  /* the value's name in the help ("N"); NULL: none */
    cli_opt_kind kind;
    size_t offset;    /* of the destination in the table's struct */
    /* the help text, its lines after the first indented to the column;
     * NULL: a hidden option (test hooks) */
    const char *help;
    /* the usage error for a missing or bad value: a printf format given
     * the option's name and the value ("" when missing), in that order;
     * NULL: the kind's ("%s needs a value", "%s needs a count from 1 to
     * 4096", ...) */
    const char *bad;
    unsigned max;                /* CLI_COUNT: the largest (0: 4096) */
    const char *const *choices;  /* CLI_CHOICE: NULL-terminated */
} cli_opt;

/* A table (ended by an entry whose name is NULL) and the struct its
 * offsets are into.  A command passes its own table first, then shared
 * fragments: the first table naming an option wins, so a command can
 * shadow a shared entry (another default in its help, say). */
typedef struct cli_table {
    const cli_opt *opts;
    void *dest;
} cli_table;

typedef struct cli_command {
    const char *name;  /* "batch", for messages */
    const char *usage; /* the help before "Options:" */
    const char *after; /* the help after the options, or NULL */
    int column;        /* where the options' help text starts */
} cli_command;

/* cli_parse's answer when the command should run. */
#define CLI_RUN (-1)

/* Reads argv[0..argc) against the tables, in order: -h or --help anywhere
 * prints the help (stdout) and answers 0; an unknown option, or an option
 * whose value is missing or bad, prints a usage error and answers 2.
 * Arguments that do not start with '-' (and "-" itself) are positional:
 * they are moved, in order, to the front of argv, and *npos is their
 * count (values stay in place, so option values may point into argv).
 * Answers CLI_RUN when the command should go on. */
int cli_parse(const cli_command *cmd, const cli_table *tables,
              size_t n_tables, int argc, char **argv, int *npos);

/* The whole help: usage, then (with options) "Options:", one line per
 * listed option, "-h, --help", then `after`. */
void cli_help(FILE *f, const cli_command *cmd, const cli_table *tables,
              size_t n_tables);

/* "2^K" (K 4..28) or a number (16..2^28): a constraint target. */
bool cli_parse_constraints(const char *text, uint64_t *out);

/* ---- the engine's options, shared by prove, batch and demo ---------- */

typedef struct cli_engine_options {
    pl_engine_config cfg; /* workers, threads, budget, backend go here */
    unsigned log_level;   /* a pl_log_level, from --log-level */
    bool quiet;
    const char *report, *trace, *plot; /* the run's figures, or NULL */
    bool no_verify;       /* --no-verify: deliver proofs unverified */
    bool verify;          /* --verify: the default's name, for scripts */
} cli_engine_options;

/* --threads and --backend: every command that proves. */
extern const cli_opt cli_engine_opts[];
/* --report, --trace, --plot: the run's figures, for prove and batch. */
extern const cli_opt cli_figure_opts[];
/* --no-verify (and --verify, the default): prove and batch. */
extern const cli_opt cli_verify_opts[];
/* --pw, --workers, --budget, --log-level, --quiet: the commands that run
 * jobs of many partitions (batch, demo). */
extern const cli_opt cli_pipeline_opts[];

/* The defaults of the commands: backend auto, one prover worker, the
 * given synthesis workers and log level. */
void cli_engine_options_init(cli_engine_options *o, unsigned synth_workers,
                             pl_log_level level);
/* Completes cfg once the options are read: the log level from --log-level,
 * silenced by --quiet; the timeline kept for --trace and --plot.  Warns
 * (on stderr, naming cmd) when the budget is more than the memory this
 * process can use (pl_memory_limit), and says that proofs go unverified
 * under --no-verify. */
void cli_engine_options_finish(cli_engine_options *o, const char *cmd);

#endif /* PL_CLI_OPTIONS_H */
