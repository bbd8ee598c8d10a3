/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline batch`: many witnesses of one circuit as one job's partitions,
 * proved by the engine under a byte budget.  Writes DIR/<name>.proof.json
 * and DIR/<name>.public.json per witness (<name> = the witness file's name
 * without .wtns) as each proof is finished; shows progress on a terminal;
 * --report writes the run's figures as JSON (pl_engine_write_report).
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
    "Exit codes: 0 all proved, 2 bad usage or input (a failed partition fails\n"
    "the job), 3 internal error.\n",
    21};

typedef struct {
    const char *zkey, *out_dir, *r1cs, *report, *trace, *plot;
    bool verify, check, print_plan;
    cli_engine_options engine;
    const char *const *witnesses; /* n, in argv */
    size_t n;
} batch_options;

#define O(field) offsetof(batch_options, field)
static const cli_opt batch_opts[] = {
    {"--zkey", "FILE", CLI_STRING, O(zkey),
     .help = "the circuit's Groth16 zkey (required)"},
    {"--out", "DIR", CLI_STRING, O(out_dir),
     .help = "where the proofs go (required; created if missing)"},
    {"--verify", NULL, CLI_FLAG, O(verify),
     .help = "verify every proof before writing it"},
    {"--check-witness", NULL, CLI_FLAG, O(check),
     .help = "check every constraint first (needs --r1cs)"},
    {"--r1cs", "FILE", CLI_STRING, O(r1cs), .help = "the circuit's .r1cs"},
    {"--report", "FILE", CLI_STRING, O(report),
     .help = "write the run's figures as JSON"},
    {"--trace", "FILE", CLI_STRING, O(trace),
     .help = "write a Chrome trace (Perfetto, chrome://tracing)"},
    {"--plot", "FILE", CLI_STRING, O(plot),
     .help = "write an SVG of memory over time, by buffer class"},
    {"--print-plan", NULL, CLI_FLAG, O(print_plan),
     .help = "print the bytes one partition and the circuit reserve,\n"
             "as key=value lines, and exit"},
    {NULL},
};

/* "dir/x.wtns" -> "x" (malloc'd) */
static char *witness_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".wtns") == 0)
        len -= 5;
    char *name = malloc(len + 1);
    if (name) {
        memcpy(name, base, len);
        name[len] = '\0';
    }
    return name;
}

/* The output name of each witness (*names: n, each freed by the caller
 * even on failure); two witnesses that would write one file are refused. */
static pl_status output_names(char ***names, const char *const *witnesses,
                              size_t n, pl_error *err)
{
    if (!(*names = calloc(n, sizeof(char *))))
        return PL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!((*names)[i] = witness_name(witnesses[i])))
            return PL_ENOMEM;
        for (size_t k = 0; k < i; k++)
            if (strcmp((*names)[k], (*names)[i]) == 0) {
                snprintf(err->msg, sizeof(err->msg), "%.70s and %.70s would "
                         "both write %.40s.proof.json", witnesses[k],
                         witnesses[i], (*names)[i]);
                return PL_EUSAGE;
            }
    }
    return PL_OK;
}

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


/* After the job: the totals and the summary (unless --quiet), then the
 * trace, the plot and the report that were asked for. */
static pl_status batch_outputs(const batch_options *o, pl_engine *engine,
                               const pl_engine_stats *es,
                               const pl_job_status *js, double wall,
                               pl_error *err)
{
    const pl_engine_config *cfg = &o->engine.cfg;
    pl_run_facts run = {wall, cfg->synth_workers, cfg->prover_workers,
                        cli_threads(cfg->threads)};
    pl_status st = PL_OK;
    if (!o->engine.quiet) {
        fprintf(stderr, "batch: %zu proved, %zu verified, %zu failed, %zu "
                "skipped in %.2f s (%.1f proofs/hour)\n", js->proved,
                js->verified, js->failed, js->skipped, wall,
                cli_per_hour(js->proved, wall));
        pl_engine_write_summary(engine, stderr);
    }
    if (o->trace)
        st = pl_engine_write_trace(engine, o->trace, err);
    if (st == PL_OK && o->plot)
        st = pl_engine_write_plot(engine, o->plot, err);
    if (st == PL_OK && o->report)
        st = pl_engine_write_report_file(o->report, es, js, &run, err);
    return st;
}

static int batch_run(batch_options *o)
{
    pl_error err = {0};
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    char **names = NULL;
    cli_proof_writer out;
    pl_status st;
    if ((st = output_names(&names, o->witnesses, o->n, &err)) ||
        (st = cli_make_dir(o->out_dir, false, &err)))
        goto done;
    cli_proof_writer_init(&out, o->out_dir, names);
    double t0 = cli_now();
    if ((st = cli_engine_open(&engine, &circuit, &o->engine.cfg, o->zkey,
                              o->r1cs, &err)))
        goto done;
    if (o->print_plan) {
        print_plan(circuit, o->witnesses[0]);
        goto done;
    }
    pl_job_spec spec = {.circuit = circuit, .n_partitions = o->n,
                        .witness_paths = o->witnesses,
                        .check_witness = o->check, .verify = o->verify,
                        .on_proof = cli_write_proof, .on_proof_user = &out};
    pl_job_status js;
    pl_engine_stats es;
    /* the ledger lines are the progress when they are on */
    if ((st = cli_run_job(engine, &spec, "batch", !o->engine.quiet &&
                          o->engine.cfg.log_level == PL_LOG_QUIET, t0, &js,
                          &err)))
        goto done;
    double wall = cli_now() - t0;
    cli_job_end(engine, &circuit, &es);
    if ((st = batch_outputs(o, engine, &es, &js, wall, &err)) == PL_OK)
        st = cli_job_result(&js, &out, &err);
done:
    cli_engine_close(engine, circuit, &st, &err);
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
                                {cli_pipeline_opts, &o.engine},
                                {cli_engine_opts, &o.engine}};
    int npos = 0;
    int rc = cli_parse(&batch_cmd, tables, 3, argc, argv, &npos);
    if (rc == CLI_RUN && (!o.zkey || !o.out_dir || npos == 0))
        rc = cli_usage_error("batch", "needs --zkey, --out and at least one "
                             "witness");
    else if (rc == CLI_RUN && o.check && !o.r1cs)
        rc = cli_usage_error("batch", "--check-witness needs --r1cs FILE");
    if (rc == CLI_RUN) {
        o.witnesses = (const char *const *)argv;
        o.n = (size_t)npos;
        cli_engine_options_finish(&o.engine);
        o.engine.cfg.record_timeline = o.trace || o.plot;
        rc = batch_run(&o);
    }
    return rc;
}
