/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline c2`: proofs in bellperson's bytes through the C2 proof kind
 * (proofline_c2.h), for circuits given as an r1cs and witnesses: one job of
 * an engine (its budget, its ledger, its backend) over the parameter
 * file's SRS, one partition per witness.  Each partition's assignment --
 * what bellperson's synthesis would leave: a, b, c per constraint,
 * densities -- is made on a synthesis worker once its bytes are reserved
 * (pl_c2_assignment_from_r1cs), so no more exist at once than the pipeline
 * holds, and its a, b, c are freed as soon as the prover has read them.
 * Every input is read whole into accounted memory before it is used (the
 * parameters, the r1cs, each witness), every proof is verified before it
 * is written (unless --no-verify), and the proofs (192 bytes each,
 * concatenated) and their public inputs (32-byte little-endian values)
 * are written as a pair, for `verify --format bellperson`.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "options.h"
#include "proofline_c2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const cli_command c2_cmd = {
    "c2",
    "Usage: proofline c2 --params <circuit.params> --r1cs <circuit.r1cs>\n"
    "                    --proofs <out.proofs> [--inputs <out.inputs>]\n"
    "                    <w1.wtns> [w2.wtns ...]\n"
    "\n"
    "Proves witnesses of a circuit as bellperson proofs (docs/filecoin.md):\n"
    "each witness is turned into a bellperson proving assignment (a, b, c\n"
    "per constraint, densities) and proved against a bellperson parameter\n"
    "file (from `setup --dev --format bellperson`), as one job of the\n"
    "engine under its budget.  Each proof is verified with the parameters'\n"
    "verifying key before it is written.  Writes the proofs as 192-byte\n"
    "records, concatenated, and with --inputs their public inputs; the two\n"
    "files are renamed into place together, only when both are complete.\n",
    NULL, 24};

typedef struct {
    const char *params, *r1cs, *proofs, *inputs;
    bool check_params, timings, log;
    cli_engine_options engine;
} c2_options;

#define O(field) offsetof(c2_options, field)
static const cli_opt c2_opts[] = {
    {"--params", "FILE", CLI_STRING, O(params),
     .help = "the bellperson parameter file (required)", .io = CLI_IN},
    {"--r1cs", "FILE", CLI_STRING, O(r1cs),
     .help = "the circuit's constraints (required)", .io = CLI_IN},
    {"--proofs", "FILE", CLI_STRING, O(proofs),
     .help = "where the proofs go (required)", .io = CLI_OUT},
    {"--inputs", "FILE", CLI_STRING, O(inputs),
     .help = "where their public inputs go", .io = CLI_OUT},
    {"--check-params", NULL, CLI_FLAG, O(check_params),
     .help = "check every point of the parameter file first"},
    {"--timings", NULL, CLI_FLAG, O(timings),
     .help = "print the stages' times to stderr"},
    {"--log", NULL, CLI_FLAG, O(log),
     .help = "the ledger's line per event to stderr\n"
             "(--log-level info)"},
    /* the witnesses, read (every output checked against them and the
     * files above before any work, by the parser) */
    {CLI_ARGUMENTS, .files = "i+"},
    {NULL},
};

/* The job's state, shared with the engine's threads: the witnesses a
 * partition's assignment is made from, the assignments alive, the proofs
 * and public inputs as they come. */
typedef struct {
    const pl_r1cs *r1cs;
    char **paths;
    size_t n, n_public;
    pl_wtns **w;
    bool *changed; /* witness i's file changed after it was read */
    pl_c2_assignment *as;
    pl_proof *proofs;
    pl_scalar *publics;
} c2_job;

/* Partition i's assignment: its witness read whole, then a, b, c and the
 * densities (on a synthesis worker, its bytes reserved). */
static pl_status synthesize(void *user, size_t i, pl_c2_assignment *out,
                            pl_error *err)
{
    c2_job *j = user;
    pl_status st = pl_wtns_open(&j->w[i], j->paths[i], err);
    if (st == PL_OK &&
        (st = pl_c2_assignment_from_r1cs(&j->as[i], j->r1cs, j->w[i],
                                         err)) == PL_OK) {
        *out = j->as[i];
        return PL_OK;
    }
    pl_wtns_close(j->w[i]); /* a synthesize that fails frees its own */
    j->w[i] = NULL;
    return st;
}

static void abc_done(void *user, size_t i)
{
    c2_job *j = user;
    pl_c2_assignment_release_abc(&j->as[i]);
}

static void release(void *user, size_t i)
{
    c2_job *j = user;
    /* asked now, while its bytes are kept: a proof that did not verify is
     * then blamed on the file, not the witness */
    j->changed[i] = pl_wtns_file_changed(j->w[i]);
    pl_c2_assignment_release(&j->as[i]);
    pl_wtns_close(j->w[i]);
    j->w[i] = NULL;
}

static void on_proof(void *user, uint64_t job, size_t i, const pl_proof *proof,
                     const pl_scalar *publics, size_t n_public)
{
    (void)job;
    c2_job *j = user;
    j->proofs[i] = *proof;
    if (n_public)
        memcpy(j->publics + i * j->n_public, publics,
               n_public * sizeof(*publics));
}

/* The bytes an assignment takes beside its proof's, for the reservation:
 * a, b, c (given back when they are read) and the rest (the witness file,
 * read whole; the densities). */
static void assignment_bytes(const pl_r1cs *r1cs, char **paths, size_t n,
                             uint64_t *abc, uint64_t *other)
{
    pl_r1cs_info info;
    pl_r1cs_get_info(r1cs, &info);
    const uint64_t n_inp = (uint64_t)info.n_pub_out + info.n_pub_in + 1;
    const uint64_t rows = (uint64_t)info.n_constraints + n_inp;
    const uint64_t words = (info.n_wires + 63) / 64 + 1;
    uint64_t largest = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) == 0 && (uint64_t)sb.st_size > largest)
            largest = (uint64_t)sb.st_size;
    }
    *abc = 3 * rows * sizeof(pl_scalar);
    *other = 3 * words * sizeof(uint64_t) + largest;
}

/* A proof that did not verify, from a witness whose file changed after it
 * was read (a copy read while a writer paused mid-file): the file's fault
 * (exit 2), not the witness's. */
static pl_status witness_changed(pl_error *err, const char *path)
{
    return pl__error_set(err, PL_EIO, "%s: the witness changed on disk after "
                         "it was read: its proof, made with the bytes read, "
                         "does not verify and is not written; run again "
                         "once the file is complete", path);
}

/* Waits for the job; SIGINT or SIGTERM cancel it (and the wait goes on:
 * the engine gives every byte back). */
static pl_status wait_job(pl_engine *engine, uint64_t id, pl_job_status *js,
                          pl_error *err)
{
    bool cancelled = false;
    for (;;) {
        if (!cancelled && cli_signal_caught()) {
            pl_engine_cancel(engine, id, NULL);
            cancelled = true;
        }
        pl_status st = pl_engine_poll(engine, id, js, err);
        if (st != PL_OK || js->done)
            return st != PL_OK ? st : pl_engine_wait(engine, id, js, err);
        struct timespec tick = {0, 50 * 1000000L};
        nanosleep(&tick, NULL);
    }
}

static int c2_run(c2_options *o, char **wtns_paths, size_t n)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    const pl_r1cs *r1cs = NULL; /* the circuit's */
    c2_job j = {.paths = wtns_paths, .n = n};
    double t0 = cli_now(), t1 = t0, t2 = t0;
    j.w = calloc(n, sizeof(*j.w));
    j.changed = calloc(n, sizeof(*j.changed));
    j.as = calloc(n, sizeof(*j.as));
    j.proofs = calloc(n, sizeof(*j.proofs));
    if (!j.w || !j.changed || !j.as || !j.proofs) {
        st = PL_ENOMEM;
        goto done;
    }
    /* the parameters and the r1cs read whole into the circuit, their
     * bytes reserved from the engine's budget first */
    if ((st = pl_engine_create(&engine, &o->engine.cfg, &err)) ||
        (st = pl_engine_open_c2_files(engine, &circuit, o->params, o->r1cs,
                                      o->check_params, &err)))
        goto done;
    r1cs = pl_circuit_r1cs(circuit);
    t1 = cli_now();
    j.r1cs = r1cs;
    j.n_public = pl_circuit_n_public(circuit);
    if (!(j.publics = calloc(n * j.n_public + 1, sizeof(*j.publics)))) {
        st = PL_ENOMEM;
        goto done;
    }
    pl_c2_job_spec spec = {
        .circuit = circuit, .n_partitions = n, .synthesize = synthesize,
        .synthesize_user = &j, .abc_done = abc_done, .release = release,
        .verify = !o->engine.no_verify, .on_proof = on_proof,
        .on_proof_user = &j};
    assignment_bytes(r1cs, wtns_paths, n, &spec.abc_bytes, &spec.other_bytes);
    uint64_t id;
    pl_job_status js;
    if ((st = pl_engine_submit_c2(engine, &id, &spec, &err)) ||
        (st = wait_job(engine, id, &js, &err)))
        goto done;
    if ((st = js.status) != PL_OK) {
        err = js.error;
        for (size_t i = 0; st == PL_EINVALID && i < n; i++)
            if (j.changed[i])
                st = witness_changed(&err, wtns_paths[i]);
        goto done;
    }
    t2 = cli_now();
    if ((st = pl_bp_proofs_write_with_inputs(o->proofs, j.proofs, n,
                                             o->inputs, j.publics,
                                             n * j.n_public, &err)))
        goto done;
    if (o->timings) {
        pl_engine_stats es;
        pl_engine_stats_read(engine, &es);
        fprintf(stderr, "  srs        %8.3f s\n"
                        "  prove      %8.3f s (%zu proofs, %zu verified)\n"
                        "  budget     %" PRIu64 " B, peak reserved %" PRIu64
                        " B\n",
                t1 - t0, t2 - t1, n, js.verified, es.budget_bytes,
                es.peak_reserved_bytes);
    }
done:
    pl_circuit_release(circuit);
    if (engine) {
        pl_error leak = {0};
        if (pl_engine_destroy(engine, &leak) != PL_OK && st == PL_OK) {
            st = PL_EINTERNAL;
            err = leak;
        }
    }
    for (size_t i = 0; j.as && i < n; i++) /* the engine released them */
        pl_c2_assignment_release(&j.as[i]);
    for (size_t i = 0; j.w && i < n; i++)
        pl_wtns_close(j.w[i]);
    free(j.publics);
    free(j.proofs);
    free(j.as);
    free(j.changed);
    free(j.w);
    return cli_exit("c2", st, &err);
}

int cli_c2(int argc, char **argv)
{
    c2_options o = {0};
    /* one worker of each kind by default: the proofs of one call share
     * the machine's threads */
    cli_engine_options_init(&o.engine, 1, PL_LOG_QUIET);
    const cli_table tables[] = {{c2_opts, &o},
                                {cli_engine_opts, &o.engine},
                                {cli_pipeline_opts, &o.engine},
                                {cli_verify_opts, &o.engine}};
    int npos = 0;
    int rc = cli_parse(&c2_cmd, tables, sizeof(tables) / sizeof(tables[0]),
                       argc, argv, &npos);
    if (rc == CLI_RUN && (!o.params || !o.r1cs || !o.proofs))
        rc = cli_usage_error("c2", "needs --params, --r1cs and --proofs");
    else if (rc == CLI_RUN && npos < 1)
        rc = cli_usage_error("c2", "needs at least one witness");
    if (rc != CLI_RUN)
        return rc;
    if (o.log)
        o.engine.log_level = PL_LOG_INFO;
    cli_engine_options_finish(&o.engine, "c2");
    cli_signals_install();
    return c2_run(&o, argv, (size_t)npos);
}
