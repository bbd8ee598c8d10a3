/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared half of `proofline ptau` and `proofline zkey` (ceremony.h):
 * the subcommand dispatch over the option tables, progress and report
 * lines, the entropy prompt, the closing line.
 */
#define _POSIX_C_SOURCE 200809L
#include "ceremony.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define O(field) offsetof(cli_cer_options, field)
const cli_opt cli_cer_opts[] = {
    {"--threads", "N", CLI_COUNT, O(threads),
     .help = "worker threads (default: one per core)"},
    {"--budget", "SIZE", CLI_SIZE, O(budget),
     .help = "memory budget for the step's buffers, e.g. 512MiB (default:\n"
             "80% of RAM, or of the container's memory limit if smaller)"},
    {"--quiet", NULL, CLI_FLAG, O(quiet),
     .help = "no progress, hashes or closing line"},
    {NULL},
};
const cli_opt cli_cer_contrib_opts[] = {
    {"--name", "TEXT", CLI_STRING, O(name),
     .help = "the contribution's name (snarkjs keeps 64 characters)"},
    {"--entropy", "TEXT", CLI_STRING, O(entropy),
     .help = "random text mixed with 64 bytes from the OS (asked for on\n"
             "the terminal when not given)"},
    {NULL},
};
const cli_opt cli_cer_name_opts[] = {
    {"--name", "TEXT", CLI_STRING, O(name),
     .help = "the beacon's name (snarkjs keeps 64 characters)"},
    {NULL},
};
const cli_opt cli_cer_verify_opts[] = {
    {"--max-beacon-exp", "E", CLI_COUNT, O(max_beacon_exp),
     .max = PL_CEREMONY_BEACON_EXP_MAX,
     .help = "replay a beacon of up to 2^E SHA-256 iterations (default 32,\n"
             "minutes; each one more doubles it); a file's larger beacon is\n"
             "refused (exit 2) naming the contribution"},
    {NULL},
};
#undef O

int cli_cer_dispatch(const char *group, const char *help,
                     const cli_cer_sub *subs, size_t n_subs, int argc,
                     char **argv)
{
    if (argc < 1 || cli_is_help(argv[0])) {
        fputs(help, argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    const cli_cer_sub *sub = NULL;
    for (size_t i = 0; i < n_subs; i++)
        if (strcmp(argv[0], subs[i].name) == 0)
            sub = &subs[i];
    if (!sub) {
        fprintf(stderr, "%s %s: unknown subcommand '%s'\n\n%s", CLI_PROG,
                group, argv[0], help);
        return 2;
    }
    cli_cer_options o = {0};
    const cli_opt args[] = {{CLI_ARGUMENTS, .files = sub->files}, {NULL}};
    cli_table tables[3] = {{args, &o}, {cli_cer_opts, &o}, {sub->extra, &o}};
    int npos = 0;
    int rc = cli_parse(&sub->cmd, tables, sub->extra ? 3 : 2, argc - 1,
                       argv + 1, &npos);
    if (rc == CLI_RUN && npos != sub->n_pos)
        rc = cli_usage_error(sub->cmd.name, "needs %d argument%s, %d given",
                             sub->n_pos, sub->n_pos == 1 ? "" : "s", npos);
    return rc == CLI_RUN ? sub->run(sub->cmd.name, &o, argv + 1) : rc;
}

typedef struct {
    const char *full;
    double last;
} progress_state;

static progress_state progress;

static void on_progress(void *user, const char *what, uint64_t done,
                        uint64_t total)
{
    progress_state *p = user;
    double now = cli_now();
    if (now - p->last < 1.0)
        return;
    p->last = now;
    fprintf(stderr, "%s %s: %s: %llu of %llu\n", CLI_PROG, p->full, what,
            (unsigned long long)done, (unsigned long long)total);
}

static void on_line(void *user, const char *line)
{
    (void)user;
    printf("%s\n", line);
}

void cli_cer_config(pl_ceremony_config *cfg, const cli_cer_options *o,
                    const char *full, uint64_t *peak)
{
    pl_ceremony_config_init(cfg);
    cfg->threads = o->threads;
    cfg->budget_bytes = o->budget;
    cfg->max_beacon_exp = o->max_beacon_exp;
    cfg->peak_bytes = peak;
    if (!o->quiet) {
        progress.full = full;
        progress.last = cli_now();
        cfg->on_progress = on_progress;
        cfg->on_progress_user = &progress;
        cfg->on_line = on_line;
    }
}

int cli_cer_done(const char *full, const cli_cer_options *o, pl_status st,
                 pl_error *err, double started, uint64_t peak)
{
    fflush(stdout);
    if (st == PL_OK && !o->quiet) {
        char b[32];
        fprintf(stderr, "%s %s: done in %.2f s, peak memory %s\n", CLI_PROG,
                full, cli_now() - started, pl_format_bytes(b, sizeof(b), peak));
    }
    return cli_exit(full, st, err);
}

pl_status cli_cer_entropy(const char *full, const cli_cer_options *o,
                          char *buf, size_t cap, const char **out,
                          pl_error *err)
{
    if (o->entropy) {
        *out = o->entropy;
        return PL_OK;
    }
    if (!isatty(STDIN_FILENO)) {
        return pl__error_set(err, PL_EUSAGE, "%s: needs --entropy TEXT (or a "
                             "terminal to type it on)", full);
    }
    for (;;) {
        fprintf(stderr, "Enter a random text. (Entropy): ");
        fflush(stderr);
        if (!fgets(buf, (int)cap, stdin)) {
            return pl__error_set(err, PL_EUSAGE, "%s: no entropy text was "
                                 "typed", full);
        }
        buf[strcspn(buf, "\r\n")] = '\0';
        if (buf[0]) {
            *out = buf;
            return PL_OK;
        }
    }
}

bool cli_cer_exponent(const char *text, unsigned *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < PL_CEREMONY_BEACON_EXP_MIN ||
        v > PL_CEREMONY_BEACON_EXP_MAX)
        return false;
    *out = (unsigned)v;
    return true;
}

int cli_cer_contribute(const char *full, const cli_cer_options *o, char **pos,
                       cli_cer_contribute_fn fn)
{
    pl_ceremony_config cfg;
    uint64_t peak = 0;
    pl_error err = {0};
    char typed[1024];
    const char *entropy = NULL;
    double t0 = cli_now();
    cli_cer_config(&cfg, o, full, &peak);
    pl_status st = cli_cer_entropy(full, o, typed, sizeof(typed), &entropy,
                                   &err);
    if (st == PL_OK)
        st = fn(pos[0], pos[1], o->name, entropy, &cfg, &err);
    memset(typed, 0, sizeof(typed));
    return cli_cer_done(full, o, st, &err, t0, peak);
}

int cli_cer_beacon(const char *full, const cli_cer_options *o, char **pos,
                   cli_cer_beacon_fn fn)
{
    unsigned exp;
    if (!cli_cer_exponent(pos[3], &exp))
        return cli_usage_error(full, "NUM_ITERATIONS_EXP must be between 10 "
                               "and 63, not '%s'", pos[3]);
    pl_ceremony_config cfg;
    uint64_t peak = 0;
    pl_error err = {0};
    double t0 = cli_now();
    cli_cer_config(&cfg, o, full, &peak);
    pl_status st = fn(pos[0], pos[1], o->name, pos[2], exp, &cfg, &err);
    return cli_cer_done(full, o, st, &err, t0, peak);
}
