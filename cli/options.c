/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The option tables of the `proofline` subcommands (options.h): reading
 * argv against them, printing their help, the value parsers, and the
 * engine's shared fragments.
 */
#define _POSIX_C_SOURCE 200809L
#include "options.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The usage error of each kind, given the option's name and the value. */
static const char *const kind_bad[] = {
    [CLI_FLAG] = "%s takes no value",
    [CLI_STRING] = "%s needs a value",
    [CLI_COUNT] = "%s needs a count from 1 to 4096",
    [CLI_SIZE] = "%s needs a size such as 512MiB or 4GiB, not '%s'",
    [CLI_CONSTRAINTS] = "%s takes 2^K (K from 4 to 28) or a number, not '%s'",
    [CLI_CHOICE] = "%s does not take '%s'",
    [CLI_LONG] = "%s needs a number, not '%s'",
};

/* 1 to max; no sign, no trailing characters. */
static bool parse_count(const char *text, unsigned max, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || v == 0 || v > max || text[0] == '-')
        return false;
    *out = (unsigned)v;
    return true;
}

bool cli_parse_constraints(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (strncmp(text, "2^", 2) == 0) {
        unsigned long k = strtoul(text + 2, &end, 10);
        if (errno || end == text + 2 || *end || k < 4 || k > 28)
            return false;
        *out = 1ull << k;
        return true;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < 16 ||
        v > (1ull << 28))
        return false;
    *out = v;
    return true;
}

static bool parse_long(const char *text, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_choice(const char *text, const char *const *choices,
                         unsigned *out)
{
    for (unsigned i = 0; choices[i]; i++)
        if (strcmp(text, choices[i]) == 0) {
            *out = i;
            return true;
        }
    return false;
}

/* Parses val into the destination of o; false if it is not valid. */
static bool store(const cli_opt *o, void *dest, const char *val)
{
    switch (o->kind) {
    case CLI_STRING:
        *(const char **)dest = val;
        return true;
    case CLI_COUNT:
        return parse_count(val, o->max ? o->max : 4096, dest);
    case CLI_SIZE:
        return pl_parse_size(val, dest);
    case CLI_CONSTRAINTS:
        return cli_parse_constraints(val, dest);
    case CLI_CHOICE:
        return parse_choice(val, o->choices, dest);
    case CLI_LONG:
        return parse_long(val, dest);
    case CLI_FLAG:
        break;
    }
    return false;
}

/* The first entry named `name` in the tables, from table *at on. */
static const cli_opt *find(const cli_table *tables, size_t n_tables,
                           const char *name, size_t *at)
{
    for (size_t t = 0; t < n_tables; t++)
        for (const cli_opt *o = tables[t].opts; o->name; o++)
            if (strcmp(o->name, name) == 0) {
                *at = t;
                return o;
            }
    return NULL;
}

/* The roles of npos positionals under the pattern `files` (options.h),
 * into role[0..npos): false when the count does not fit it. */
static bool positional_roles(char *role, const char *files, int npos)
{
    int fixed = 0;
    const bool repeats = strchr(files, '+') != NULL;
    for (const char *f = files; *f; f++)
        if (*f != '+' && f[1] != '+')
            fixed++;
    if (repeats ? npos < fixed + 1 : npos != fixed)
        return false;
    int at = 0;
    for (const char *f = files; *f; f++)
        if (f[1] == '+') /* the repeated letter takes what the others leave */
            for (int k = 0; k < npos - fixed; k++)
                role[at++] = *f;
        else if (*f != '+')
            role[at++] = *f;
    return at == npos;
}

/* The tables' CLI_ARGUMENTS entry, or NULL. */
static const cli_opt *arguments_entry(const cli_table *tables,
                                      size_t n_tables)
{
    size_t t;
    return find(tables, n_tables, CLI_ARGUMENTS, &t);
}

pl_status cli_check_files(const cli_table *tables, size_t n_tables,
                          char *const *pos, int npos,
                          const char *const *more_out, size_t n_more_out,
                          const char *const *more_in, size_t n_more_in,
                          pl_error *err)
{
    const cli_opt *args = arguments_entry(tables, n_tables);
    const char *files = args ? args->files : NULL;
    size_t n_opts = 0;
    for (size_t t = 0; t < n_tables; t++)
        for (const cli_opt *o = tables[t].opts; o->name; o++)
            n_opts++;
    const size_t cap = n_opts + (size_t)npos + n_more_out + n_more_in + 1;
    const char **out = calloc(cap, sizeof(*out));
    const char **in = calloc(cap, sizeof(*in));
    char *role = calloc((size_t)npos + 1, 1);
    size_t n_out = 0, n_in = 0;
    pl_status st = PL_OK;
    if (!out || !in || !role) {
        st = PL_ENOMEM;
        pl__error_set(err, st, "out of memory checking %zu files", cap);
        goto done;
    }
    /* a positional count the pattern does not fit is the command's usage
     * error, said after this; its files are checked once it is right */
    if (files && !positional_roles(role, files, npos))
        goto done;
    for (size_t t = 0; t < n_tables; t++)
        for (const cli_opt *o = tables[t].opts; o->name; o++) {
            size_t first = t;
            find(tables, n_tables, o->name, &first);
            if (o->io == CLI_NOT_A_FILE || o->kind != CLI_STRING ||
                first != t) /* shadowed: its destination is not set */
                continue;
            const char *v =
                *(const char *const *)((const char *)tables[t].dest +
                                       o->offset);
            if (v && o->io == CLI_OUT)
                out[n_out++] = v;
            else if (v)
                in[n_in++] = v;
        }
    for (int i = 0; files && i < npos; i++)
        if (role[i] == 'o')
            out[n_out++] = pos[i];
        else
            in[n_in++] = pos[i];
    for (size_t i = 0; i < n_more_out; i++)
        out[n_out++] = more_out[i];
    for (size_t i = 0; i < n_more_in; i++)
        in[n_in++] = more_in[i];
    st = pl_output_check(out, n_out, in, n_in, err);
done:
    free(role);
    free(in);
    free(out);
    return st;
}

int cli_parse(const cli_command *cmd, const cli_table *tables,
              size_t n_tables, int argc, char **argv, int *npos)
{
    int n = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        size_t t;
        const cli_opt *o;
        if (cli_is_help(a)) {
            cli_help(stdout, cmd, tables, n_tables);
            return 0;
        }
        if (a[0] != '-' || !a[1]) {
            argv[n++] = argv[i]; /* n <= i: nothing unread is overwritten */
            continue;
        }
        if (!(o = find(tables, n_tables, a, &t)))
            return cli_usage_error(cmd->name, "unknown option %s", a);
        char *dest = (char *)tables[t].dest + o->offset;
        if (o->kind == CLI_FLAG) {
            *(bool *)dest = true;
            continue;
        }
        const char *val = i + 1 < argc ? argv[++i] : NULL;
        if (!val || !store(o, dest, val))
            return cli_usage_error(cmd->name,
                                   o->bad ? o->bad : kind_bad[o->kind], a,
                                   val ? val : "");
    }
    *npos = n;
    const cli_opt *args = arguments_entry(tables, n_tables);
    if (!(args && args->derives_files)) {
        pl_error err = {0};
        pl_status st = cli_check_files(tables, n_tables, argv, n, NULL, 0,
                                       NULL, 0, &err);
        if (st != PL_OK)
            return cli_fail(cmd->name, st, &err);
    }
    return CLI_RUN;
}

/* "  --name ARG", padded to the column, then the help, its later lines
 * indented to the column. */
static void help_line(FILE *f, int column, const char *name, const char *arg,
                      const char *help)
{
    int used = fprintf(f, "  %s%s%s", name, arg ? " " : "", arg ? arg : "");
    fprintf(f, "%*s", used < column ? column - used : 1, "");
    for (;;) {
        size_t len = strcspn(help, "\n");
        fprintf(f, "%.*s\n", (int)len, help);
        if (!help[len])
            break;
        help += len + 1;
        fprintf(f, "%*s", column, "");
    }
}

void cli_help(FILE *f, const cli_command *cmd, const cli_table *tables,
              size_t n_tables)
{
    fputs(cmd->usage, f);
    bool any = false;
    for (size_t t = 0; t < n_tables; t++)
        for (const cli_opt *o = tables[t].opts; o->name; o++) {
            size_t first = t;
            find(tables, n_tables, o->name, &first);
            if (!o->help || first != t) /* hidden, or shadowed */
                continue;
            if (!any)
                fputs("\nOptions:\n", f);
            any = true;
            help_line(f, cmd->column, o->name, o->arg, o->help);
        }
    if (any)
        help_line(f, cmd->column, "-h, --help", NULL, "this text");
    if (cmd->after)
        fputs(cmd->after, f);
}

/* ---- the engine's shared options -------------------------------------- */

#define E(field) offsetof(cli_engine_options, field)

/* Indexed by pl_log_level. */
static const char *const log_levels[] = {"quiet", "info", NULL};
_Static_assert(PL_LOG_QUIET == 0 && PL_LOG_INFO == 1,
               "log_levels is indexed by pl_log_level");

const cli_opt cli_engine_opts[] = {
    {"--threads", "N", CLI_COUNT, E(cfg.threads),
     .help = "threads per prover (default: one per core)"},
    {"--backend", "B", CLI_STRING, E(cfg.backend),
     .help = "auto (default: CUDA when a GPU is found, else the\n"
             "CPU), cpu or cuda",
     .bad = "%s needs auto, cpu or cuda"},
    {"--devices", "N", CLI_COUNT, E(cfg.devices),
     .help = "GPUs to prove on, the first N (default: every one\n"
             "found; one prover worker each)"},
    {NULL},
};

const cli_opt cli_pipeline_opts[] = {
    {"--pw", "N", CLI_COUNT, E(cfg.synth_workers),
     .help = "synthesis workers (default 2)"},
    {"--workers", "N", CLI_COUNT, E(cfg.prover_workers),
     .help = "prover workers (default 1)"},
    {"--budget", "SIZE", CLI_SIZE, E(cfg.budget_bytes),
     .help = "memory budget, e.g. 512MiB, 4GiB (default: 80% of RAM,\n"
             "or of the container's memory limit if smaller)"},
    {"--log-level", "L", CLI_CHOICE, E(log_level),
     .help = "ledger lines on stderr: info (default) or quiet",
     .bad = "%s is info or quiet, not '%s'", .choices = log_levels},
    {"--quiet", NULL, CLI_FLAG, E(quiet),
     .help = "no progress line, no ledger lines, no summary"},
    {NULL},
};

const cli_opt cli_figure_opts[] = {
    {"--report", "FILE", CLI_STRING, E(report),
     .help = "write the run's figures as JSON, with a status per\nwitness",
     .io = CLI_OUT},
    {"--trace", "FILE", CLI_STRING, E(trace),
     .help = "write a Chrome trace (Perfetto, chrome://tracing)",
     .io = CLI_OUT},
    {"--plot", "FILE", CLI_STRING, E(plot),
     .help = "write an SVG of memory over time, by buffer class",
     .io = CLI_OUT},
    {NULL},
};

const cli_opt cli_verify_opts[] = {
    {"--no-verify", NULL, CLI_FLAG, E(no_verify),
     .help = "write proofs without verifying them first (by\n"
             "default each is verified with the key's verification\n"
             "key, and one that does not verify is not written)"},
    {"--verify", NULL, CLI_FLAG, E(verify),
     .help = "the default, kept for scripts that ask for it"},
    {NULL},
};

void cli_engine_options_init(cli_engine_options *o, unsigned synth_workers,
                             pl_log_level level)
{
    pl_engine_config_init(&o->cfg);
    o->cfg.synth_workers = synth_workers;
    o->cfg.prover_workers = 1;
    o->cfg.backend = "auto";
    o->log_level = (unsigned)level;
    o->quiet = false;
}

void cli_engine_options_finish(cli_engine_options *o, const char *cmd)
{
    o->cfg.log_level = o->quiet ? PL_LOG_QUIET : (pl_log_level)o->log_level;
    o->cfg.record_timeline = o->cfg.record_timeline || o->trace || o->plot;
    uint64_t limit = pl_memory_limit();
    char a[32], b[32];
    if (limit && o->cfg.budget_bytes > limit)
        fprintf(stderr, "%s %s: warning: the budget %s is more than the %s "
                "this process can use (RAM, or its container's memory "
                "limit): the budget will not stop it running out\n",
                CLI_PROG, cmd, pl_format_bytes(a, sizeof(a),
                                               o->cfg.budget_bytes),
                pl_format_bytes(b, sizeof(b), limit));
    /* said on every run that asks, --quiet or not: a proof written
     * unverified is the one thing the default would have stopped */
    if (o->no_verify)
        fprintf(stderr, "%s %s: --no-verify: proofs are written without "
                "being verified, so one that does not verify is written "
                "too\n", CLI_PROG, cmd);
}
