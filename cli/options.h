/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The options of the `proofline` subcommands, as data.  A command declares
 * its options in a table (name, value kind, where the value goes, help
 * line); cli_parse reads argv against its tables and cli_help prints the
 * options part of --help from the same tables, so a new option is one
 * entry.  The engine's options are shared fragments (cli_engine_opts,
 * cli_pipeline_opts) over one struct, cli_engine_options, that every
 * command running the engine embeds.  Used by cli/cmd_*.c only.
 *
 * The tables also say which values are files read and which are files
 * written (an option's `io`, the CLI_ARGUMENTS entry for the positional
 * arguments), so that the one rule "no output replaces an input or
 * another output" is checked in one place, by cli_parse, before any
 * command does any work (cli_check_files).
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

/* What a CLI_STRING option's value is, for cli_check_files. */
typedef enum {
    CLI_NOT_A_FILE = 0, /* a value, or a folder */
    CLI_IN,             /* a file the command reads */
    CLI_OUT,            /* a file the command writes */
} cli_io;

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
    cli_io io;                   /* CLI_STRING: a file read or written */
    /* CLI_ARGUMENTS entries only (below): */
    const char *files;
    bool derives_files;
} cli_opt;

/*
 * The entry of a table that is not an option but the command's positional
 * arguments as files (it is never matched: no argument is ""; it has no
 * help line).  `files` gives one letter per argument, 'i' read, 'o'
 * written; a letter followed by '+' stands for one or more ("i+o":
 * inputs, then one output; "io+": one input, then outputs).  A count that
 * does not fit is left to the command's usage error: nothing is checked.
 * derives_files: the command derives more files from its arguments (a
 * folder's outputs, an input found beside another), so cli_parse leaves
 * the check to it, and it calls cli_check_files with them before any
 * work.  The first such entry of the tables is the command's.
 *     {CLI_ARGUMENTS, .files = "io"},
 */
#define CLI_ARGUMENTS ""

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
 * Then, unless the command derives files, cli_check_files: an output that
 * would replace an input or another output, or cannot be written, prints
 * the error and answers its exit code (2).  Answers CLI_RUN when the
 * command should go on. */
int cli_parse(const cli_command *cmd, const cli_table *tables,
              size_t n_tables, int argc, char **argv, int *npos);

/* The one check of a command's files before it works (pl_output_check):
 * every output, the options marked CLI_OUT, the positionals marked 'o'
 * and `more_out`, is writable and replaces neither an input (CLI_IN, 'i',
 * `more_in`) nor another output, through any spelling or link; devices
 * such as /dev/stdout may take several.  cli_parse calls it for every
 * command that does not derive files (with none more); the others call
 * it themselves.  PL_EUSAGE names both paths. */
pl_status cli_check_files(const cli_table *tables, size_t n_tables,
                          char *const *pos, int npos,
                          const char *const *more_out, size_t n_more_out,
                          const char *const *more_in, size_t n_more_in,
                          pl_error *err);

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
