/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `proofline ptau` and `proofline zkey` (cmd_ptau.c, cmd_zkey.c)
 * share, implemented in ceremony.c: the options every ceremony step takes,
 * the progress and report lines, the entropy prompt, the subcommand
 * dispatch and the closing line with the step's time and peak memory.
 */
#ifndef PL_CLI_CEREMONY_H
#define PL_CLI_CEREMONY_H

#include "proofline_ceremony.h"
#include "options.h"

typedef struct cli_cer_options {
    unsigned threads;
    uint64_t budget;
    bool quiet;
    const char *name, *entropy;
    unsigned max_beacon_exp;
} cli_cer_options;

/* --threads, --budget, --quiet */
extern const cli_opt cli_cer_opts[];
/* --name, --entropy (contribute) */
extern const cli_opt cli_cer_contrib_opts[];
/* --name (beacon) */
extern const cli_opt cli_cer_name_opts[];
/* --max-beacon-exp (verify) */
extern const cli_opt cli_cer_verify_opts[];

/* One subcommand: its help and its run over the positional arguments. */
typedef struct cli_cer_sub {
    const char *name;
    cli_command cmd;
    int n_pos;                        /* positional arguments it takes */
    /* their roles for cli_check_files (options.h): 'i' read, 'o' written,
     * '-' not a file (a curve, a power, a beacon) */
    const char *files;
    const cli_opt *extra;             /* its own options, or NULL */
    int (*run)(const char *full, cli_cer_options *o, char **pos);
} cli_cer_sub;

/* `proofline <group> <sub> ...`: the subcommand by name, its options
 * parsed, its positional count checked; `<group> --help` prints `help`. */
int cli_cer_dispatch(const char *group, const char *help,
                     const cli_cer_sub *subs, size_t n_subs, int argc,
                     char **argv);

/* A step's configuration from the options: progress on stderr (a line at
 * most every second), report lines on stdout, unless --quiet. */
void cli_cer_config(pl_ceremony_config *cfg, const cli_cer_options *o,
                    const char *full, uint64_t *peak);
/* The end of a step: on success a line with the time and the peak
 * memory (stderr, unless --quiet), then cli_exit. */
int cli_cer_done(const char *full, const cli_cer_options *o, pl_status st,
                 pl_error *err, double started, uint64_t peak);
/* The entropy text: --entropy's, or typed on the terminal as snarkjs asks
 * for it; PL_EUSAGE with neither. */
pl_status cli_cer_entropy(const char *full, const cli_cer_options *o,
                          char *buf, size_t cap, const char **out,
                          pl_error *err);
/* A beacon's iteration exponent, 10..63. */
bool cli_cer_exponent(const char *text, unsigned *out);

/* The contribute and beacon subcommands of both groups (pl_ptau_* and
 * pl_zkey_* take the same arguments): pos is in, out (and the beacon's
 * hash and exponent). */
typedef pl_status (*cli_cer_contribute_fn)(const char *in, const char *out,
                                           const char *name,
                                           const char *entropy,
                                           const pl_ceremony_config *cfg,
                                           pl_error *err);
typedef pl_status (*cli_cer_beacon_fn)(const char *in, const char *out,
                                       const char *name, const char *hex,
                                       unsigned exp,
                                       const pl_ceremony_config *cfg,
                                       pl_error *err);
int cli_cer_contribute(const char *full, const cli_cer_options *o, char **pos,
                       cli_cer_contribute_fn fn);
int cli_cer_beacon(const char *full, const cli_cer_options *o, char **pos,
                   cli_cer_beacon_fn fn);

#endif /* PL_CLI_CEREMONY_H */
