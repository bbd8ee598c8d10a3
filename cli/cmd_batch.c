/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline batch`: many witnesses of one circuit, each its own job of
 * one partition, proved by the engine under a byte budget (the engine
 * admits the jobs in the order given).  A witness that fails fails alone:
 * its file and the reason on stderr, its status in the report, the exit
 * code the worst of the failures'.  Writes DIR/<name>.proof.json and
 * DIR/<name>.public.json per witness (<name> = the witness file's name
 * without .wtns) as each proof is finished, nothing for a witness that
 * failed; every output path is checked before proving starts.  SIGINT and
 * SIGTERM cancel what is not finished, keep what is, and still write the
 * figures; shows progress on a terminal; --report writes the run's figures
 * as JSON (pl_engine_write_report) with a status per witness.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "job.h"
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const cli_command batch_cmd = {
    "batch",
    "Usage: proofline batch --zkey C.zkey --out DIR [options] W1.wtns "
    "[W2.wtns ...]\n"
    "\n"
    "Proves every witness of one circuit as the partitions of one job, with\n"
    "synthesis overlapping proving and every large buffer reserved from a\n"
    "byte budget before it is allocated.  For each witness NAME.wtns it writes\n"
    "DIR/NAME.proof.json and DIR/NAME.public.json.\n",
    "\n"
    "Each witness is its own job: one that fails (bad input, a proof that does\n"
    "not verify) is reported with its file and the reason, and the others are\n"
    "still proved and written; nothing is written for a failed witness.\n"
    "Exit codes: 0 all proved, 1 a proof did not verify, 2 bad\n"
    "usage or input, 3 internal error (the worst over the witnesses); 130 or\n"
    "143 after SIGINT or SIGTERM (the finished proofs and the figures are\n"
    "written).\n",
    21};

typedef struct {
    const char *zkey, *out_dir, *r1cs;
    bool check, print_plan;
    cli_engine_options engine;
    const char *const *witnesses; /* n, in argv */
    size_t n;
    const cli_table *tables; /* the command's, for cli_check_files */
    size_t n_tables;
} batch_options;

#define O(field) offsetof(batch_options, field)
static const cli_opt batch_opts[] = {
    {"--zkey", "FILE", CLI_STRING, O(zkey),
     .help = "the circuit's Groth16 zkey (required)", .io = CLI_IN},
    {"--out", "DIR", CLI_STRING, O(out_dir),
     .help = "where the proofs go (required; created if missing)"},
    {"--check-witness", NULL, CLI_FLAG, O(check),
     .help = "check every constraint first (needs --r1cs)"},
    {"--r1cs", "FILE", CLI_STRING, O(r1cs), .help = "the circuit's .r1cs",
     .io = CLI_IN},
    {"--print-plan", NULL, CLI_FLAG, O(print_plan),
     .help = "print the bytes one partition and the circuit reserve,\n"
             "as key=value lines, and exit"},
    /* the witnesses; the proofs go into --out, named after them */
    {CLI_ARGUMENTS, .files = "i+", .derives_files = true},
    {NULL},
};

/* --print-plan: the bytes one partition (with the first witness's file
 * size) and the circuit reserve. */
static void print_plan(const pl_circuit *circuit, const char *witness)
{
    struct stat sb;
    uint64_t part, resident;
    pl_circuit_plan(circuit, stat(witness, &sb) == 0 ? (uint64_t)sb.st_size : 0,
                    &part, &resident);
    printf("partition_bytes=%llu\nresident_bytes=%llu\n",
           (unsigned long long)part, (unsigned long long)resident);
}


/* The files batch will write, checked before any proving with the
 * command's others (cli_check_files): each proof pair in DIR; none may be
 * an input or another output. */
static pl_status check_outputs(const batch_options *o, char **names,
                               pl_error *err)
{
    char **paths = calloc(2 * o->n, sizeof(char *));
    pl_status st = PL_OK;
    if (!paths) {
        st = PL_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < 2 * o->n; i++) {
        size_t len = strlen(o->out_dir) + strlen(names[i / 2]) + 16;
        if (!(paths[i] = malloc(len))) {
            st = PL_ENOMEM;
            goto fail;
        }
        snprintf(paths[i], len, "%s/%s.%s.json", o->out_dir, names[i / 2],
                 i % 2 ? "public" : "proof");
    }
    st = cli_check_files(o->tables, o->n_tables,
                         (char *const *)o->witnesses, (int)o->n,
                         (const char *const *)paths, 2 * o->n, NULL, 0, err);
fail:
    for (size_t i = 0; paths && i < 2 * o->n; i++)
        free(paths[i]);
    free(paths);
    return st;
}

/* The state of a run: one job and one proof writer per witness. */
typedef struct {
    const batch_options *o;
    pl_job_spec *specs;
    cli_proof_out *outs;
    pl_job_status *js;
    pl_run_item *items;
} batch_run_state;

/* A witness that failed, as it ends: its file and the reason (always
 * shown, --quiet or not: it is an error). */
static void on_witness_done(void *user, size_t i, const pl_job_status *js)
{
    const batch_run_state *b = user;
    pl_error err = {0};
    pl_status st = cli_job_result(js, &b->outs[i], &err);
    if (st != PL_OK && !(st == PL_ECANCELLED && cli_signal_caught()))
        fprintf(stderr, "%s batch: %s: failed: %s: %s\n", CLI_PROG,
                b->o->witnesses[i], pl_strerror(st),
                err.msg[0] ? err.msg : "(no detail)");
}

static pl_status batch_state_init(batch_run_state *b, const batch_options *o,
                                  pl_circuit *circuit, char **names)
{
    memset(b, 0, sizeof(*b));
    b->o = o;
    b->specs = calloc(o->n, sizeof(*b->specs));
    b->outs = calloc(o->n, sizeof(*b->outs));
    b->js = calloc(o->n, sizeof(*b->js));
    b->items = calloc(o->n, sizeof(*b->items));
    if (!b->specs || !b->outs || !b->js || !b->items)
        return PL_ENOMEM;
    for (size_t i = 0; i < o->n; i++) {
        b->outs[i] = (cli_proof_out){.dir = o->out_dir, .name = names[i],
                                     .witness = o->witnesses[i],
                                     .curve = pl_circuit_curve(circuit)};
        b->specs[i] = (pl_job_spec){.circuit = circuit, .n_partitions = 1,
                                    .witness_paths = &o->witnesses[i],
                                    .check_witness = o->check,
                                    .verify = !o->engine.no_verify,
                                    .on_proof = cli_write_proof,
                                    .on_proof_user = &b->outs[i]};
    }
    return PL_OK;
}

static void batch_state_free(batch_run_state *b)
{
    free(b->specs);
    free(b->outs);
    free(b->js);
    free(b->items);
}

/* After the jobs: the totals and the summary (unless --quiet), then the
 * trace, the plot and the report that were asked for; the run's status is
 * the worst witness's. */
static pl_status batch_end(batch_run_state *b, pl_engine *engine,
                           pl_circuit **circuit, double wall, pl_error *err)
{
    const batch_options *o = b->o;
    pl_engine_stats es;
    pl_job_status total;
    cli_job_end(engine, circuit, &es);
    cli_run_tally(&total, b->items, b->js, b->outs, o->witnesses, o->n);
    if (!o->engine.quiet) {
        fprintf(stderr, "batch: %zu proved, %zu verified, %zu failed, %zu "
                "skipped in %.2f s (%.1f proofs/hour)\n", total.proved,
                total.verified, total.failed, total.skipped, wall,
                cli_per_hour(total.proved, wall));
        pl_engine_write_summary(engine, stderr);
    }
    pl_status st = cli_write_figures(&o->engine, engine, &es, &total,
                                     b->items, o->n, wall, err);
    if (st == PL_OK && (st = total.status) != PL_OK) {
        size_t bad = total.failed ? total.failed : total.skipped;
        pl__error_set(err, st, "%zu of %zu witnesses %s; the worst: %s", bad,
                      o->n, total.failed ? "failed" : "were cancelled",
                      total.error.msg);
    }
    return st;
}

static int batch_run(batch_options *o)
{
    pl_error err = {0};
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    char **names = NULL;
    batch_run_state b = {0};
    pl_status st;
    if ((st = cli_output_names(&names, o->witnesses, o->n, &err)) ||
        (st = cli_make_dir(o->out_dir, false, &err)) ||
        (st = check_outputs(o, names, &err)))
        goto done;
    double t0 = cli_now();
    if ((st = cli_engine_open(&engine, &circuit, &o->engine.cfg, o->zkey,
                              o->r1cs, &err)))
        goto done;
    if (o->print_plan) {
        print_plan(circuit, o->witnesses[0]);
        goto done;
    }
    if ((st = batch_state_init(&b, o, circuit, names))) {
        pl__error_set(&err, st, "out of memory for %zu jobs", o->n);
        goto done;
    }
    /* the ledger lines are the progress when they are on */
    if ((st = cli_run_jobs(engine, b.specs, o->n, "batch",
                           !o->engine.quiet &&
                               o->engine.cfg.log_level == PL_LOG_QUIET,
                           t0, b.js, on_witness_done, &b, &err)))
        goto done;
    st = batch_end(&b, engine, &circuit, cli_now() - t0, &err);
done:
    cli_engine_close(engine, circuit, &st, &err);
    batch_state_free(&b);
    for (size_t i = 0; names && i < o->n; i++)
        free(names[i]);
    free(names);
    return cli_exit("batch", st, &err);
}

int cli_batch(int argc, char **argv)
{
    batch_options o = {0};
    cli_engine_options_init(&o.engine, 2, PL_LOG_INFO);
    const cli_table tables[] = {{batch_opts, &o},
                                {cli_figure_opts, &o.engine},
                                {cli_verify_opts, &o.engine},
                                {cli_pipeline_opts, &o.engine},
                                {cli_engine_opts, &o.engine}};
    int npos = 0;
    int rc = cli_parse(&batch_cmd, tables, sizeof(tables) / sizeof(tables[0]),
                       argc, argv, &npos);
    if (rc == CLI_RUN && (!o.zkey || !o.out_dir || npos == 0))
        rc = cli_usage_error("batch", "needs --zkey, --out and at least one "
                             "witness");
    else if (rc == CLI_RUN && o.check && !o.r1cs)
        rc = cli_usage_error("batch", "--check-witness needs --r1cs FILE");
    if (rc == CLI_RUN) {
        o.witnesses = (const char *const *)argv;
        o.n = (size_t)npos;
        o.tables = tables;
        o.n_tables = sizeof(tables) / sizeof(tables[0]);
        cli_engine_options_finish(&o.engine, "batch");
        cli_signals_install();
        rc = batch_run(&o);
    }
    return rc;
}
