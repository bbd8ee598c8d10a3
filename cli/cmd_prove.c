/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline prove`: a Groth16 proof from a zkey and a witness, with
 * rapidsnark's argument order.  One proof is a job of one partition
 * through the engine: the same path as a batch, with the same figures
 * (--report, --trace, --plot).  The proof is verified before it is
 * written (unless --no-verify), and one that does not verify is an invalid
 * proof (exit 1).
 *
 * `proofline prover` (and the links `prover`, `proofline-prover`) is
 * rapidsnark's command line on top of it: exactly its arguments (four
 * files, then rapidsnark's optional log level), no options, and its exit
 * behaviour (0 success, 1 anything else: wrong arguments, a bad file, a
 * proof that does not verify), so that scripts written for rapidsnark's
 * `prover` run unchanged.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "job.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_command prove_cmd = {
    "prove",
    "Usage: proofline prove <circuit.zkey> <witness.wtns> <proof.json> "
    "<public.json> [options]\n"
    "\n"
    "Makes a Groth16 proof (BLS12-381 or BN254, the zkey's curve) from a\n"
    "snarkjs zkey and a witness, and\n"
    "writes proof.json and public.json as snarkjs does.  The argument order is\n"
    "rapidsnark's (`proofline <zkey> <wtns> <proof> <public>` and a link named\n"
    "`proofline prover` do the same; `proofline prover` with rapidsnark's exit\n"
    "codes).  Both files are renamed into place together, only\n"
    "when both are complete: if anything fails, the previous ones stay.  A\n"
    "device or a pipe (/dev/stdout) is written in place, and may take both.\n",
    NULL, 23};

typedef struct {
    const char *r1cs;
    bool check, check_params, timings, plain_msm;
    cli_engine_options engine;
} prove_options;

#define O(field) offsetof(prove_options, field)
static const cli_opt prove_opts[] = {
    {"--check-witness", NULL, CLI_FLAG, O(check),
     .help = "check every constraint first; on the first that\n"
             "fails, report it and do not prove.  Needs the\n"
             "circuit's .r1cs (the zkey has no C matrix): given\n"
             "with --r1cs, or found beside the zkey as <name>.r1cs"},
    {"--r1cs", "FILE", CLI_STRING, O(r1cs),
     .help = "the circuit's .r1cs, for --check-witness",
     .bad = "%s needs a file", .io = CLI_IN},
    {"--check-params", NULL, CLI_FLAG, O(check_params),
     .help = "check every zkey point (on its curve, in its\n"
             "subgroup) first: about the cost of a proof"},
    {"--timings", NULL, CLI_FLAG, O(timings),
     .help = "print each stage's time to stderr"},
    {"--plain-msm", NULL, CLI_FLAG, O(plain_msm),
     .help = "run every MSM over all scalars (no zero/one\n"
             "skipping): for benchmarks; same proof"},
    /* the zkey and the witness read, the proof and its inputs written; the
     * r1cs of --check-witness may be found beside the zkey */
    {CLI_ARGUMENTS, .files = "iioo", .derives_files = true},
    {NULL},
};

static void on_stage(void *user, const char *stage, double seconds)
{
    const prove_options *o = user;
    if (o->timings)
        fprintf(stderr, "  %-10s %8.3f s\n", stage, seconds);
}

/* --check-params: every point of the zkey, before anything else. */
static pl_status check_points(const char *zkey_path, pl_error *err)
{
    pl_zkey *z = NULL;
    pl_status st = pl_zkey_open(&z, zkey_path, err);
    if (st == PL_OK)
        st = cli_check_zkey_points("prove", zkey_path, z, err);
    pl_zkey_close(z);
    return st;
}

/* The report, trace and plot asked for, after the job. */
static pl_status prove_figures(prove_options *o, pl_engine *engine,
                               pl_circuit **circuit, const pl_job_status *js,
                               const cli_proof_out *out, const char *witness,
                               double wall, pl_error *err)
{
    pl_engine_stats es;
    pl_job_status total;
    pl_run_item item;
    if (!o->engine.report && !o->engine.trace && !o->engine.plot)
        return PL_OK;
    cli_job_end(engine, circuit, &es);
    cli_run_tally(&total, &item, js, out, &witness, 1);
    return cli_write_figures(&o->engine, engine, &es, &total, &item, 1, wall,
                             err);
}

/* pos: the zkey, the witness, proof.json, public.json; tables: the
 * command's (its files are checked here, with the r1cs it may find
 * beside the zkey). */
static int prove_run(prove_options *o, const cli_table *tables,
                     size_t n_tables, char **pos)
{
    pl_error err = {0};
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    char *derived_r1cs = NULL;
    cli_proof_out out = {.proof_path = pos[2], .public_path = pos[3],
                         .witness = pos[1]};
    pl_status st;
    double t0 = cli_now();
    if (o->check && !o->r1cs &&
        !(o->r1cs = derived_r1cs = cli_r1cs_beside(pos[0]))) {
        st = pl__error_set(&err, PL_EUSAGE, "--check-witness needs the "
                           "circuit's .r1cs: give --r1cs FILE");
        goto done;
    }
    /* every output checked before any work: writable, not an input, not
     * named twice (a device such as /dev/stdout may take both proofs) */
    const char *beside[1] = {derived_r1cs};
    if ((st = cli_check_files(tables, n_tables, pos, 4, NULL, 0, beside,
                              derived_r1cs ? 1 : 0, &err)))
        goto done;
    if (o->check_params && (st = check_points(pos[0], &err)))
        goto done;
    pl_engine_config *cfg = &o->engine.cfg;
    cfg->plain_msm = o->plain_msm;
    cfg->on_stage = on_stage;
    cfg->on_stage_user = o;
    if ((st = cli_engine_open(&engine, &circuit, cfg, pos[0],
                              o->check ? o->r1cs : NULL, &err)))
        goto done;
    if (o->timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "load", cli_now() - t0);
    out.curve = pl_circuit_curve(circuit);
    const char *witness[1] = {pos[1]};
    /* the proof is verified (unless --no-verify) and written on the
     * finisher */
    pl_job_spec spec = {.circuit = circuit, .n_partitions = 1,
                        .witness_paths = witness, .check_witness = o->check,
                        .verify = !o->engine.no_verify,
                        .on_proof = cli_write_proof, .on_proof_user = &out};
    pl_job_status js;
    if ((st = cli_run_jobs(engine, &spec, 1, "prove", false, t0, &js, NULL,
                           NULL, &err)))
        goto done;
    double wall = cli_now() - t0;
    st = cli_job_result(&js, &out, &err);
    if (st == PL_OK && o->timings && js.verified)
        fprintf(stderr, "  verified OK\n");
    pl_error ferr = {0};
    pl_status fst = prove_figures(o, engine, &circuit, &js, &out, pos[1],
                                  wall, &ferr);
    if (st == PL_OK && fst != PL_OK) {
        st = fst;
        err = ferr;
    }
    if (st == PL_OK && o->timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "total", cli_now() - t0);
done:
    cli_engine_close(engine, circuit, &st, &err);
    free(derived_r1cs);
    return cli_exit("prove", st, &err);
}

int cli_prove(int argc, char **argv)
{
    prove_options o = {0};
    cli_engine_options_init(&o.engine, 1, PL_LOG_QUIET);
    const cli_table tables[] = {{cli_engine_opts, &o.engine},
                                {prove_opts, &o},
                                {cli_figure_opts, &o.engine},
                                {cli_verify_opts, &o.engine}};
    int npos = 0;
    int rc = cli_parse(&prove_cmd, tables, sizeof(tables) / sizeof(tables[0]),
                       argc, argv, &npos);
    if (rc == CLI_RUN && npos > 4)
        rc = cli_usage_error("prove", "unexpected argument %s", argv[4]);
    else if (rc == CLI_RUN && npos < 4)
        rc = cli_usage_error("prove", "needs 4 files: <circuit.zkey> "
                             "<witness.wtns> <proof.json> <public.json>");
    if (rc == CLI_RUN) {
        cli_engine_options_finish(&o.engine, "prove");
        cli_signals_install();
        rc = prove_run(&o, tables, sizeof(tables) / sizeof(tables[0]),
                       argv);
    }
    return rc;
}

/* ---- rapidsnark's `prover` ---------------------------------------------- */

static const char prover_usage[] =
    "Usage: prover <circuit.zkey> <witness.wtns> <proof.json> <public.json> "
    "[log_level=0-4: 0]\n";

static const char prover_help[] =
    "Usage: proofline prover <circuit.zkey> <witness.wtns> <proof.json> "
    "<public.json> [log_level]\n"
    "\n"
    "rapidsnark's prover, as its users call it (also through a link to\n"
    "proofline named `prover` or `proofline-prover`): proves as `proofline\n"
    "prove` does, with its defaults (all cores, the proof verified before it\n"
    "is written), and takes exactly rapidsnark's arguments: the four files,\n"
    "then an optional log level 0-4 (0-2: quiet, as rapidsnark's logs go to a\n"
    "file; 3-4: each stage's time on stderr).  No options.\n"
    "\n"
    "Exit codes are rapidsnark's: 0 success; 1 for anything else (a wrong\n"
    "number of arguments, a missing or bad file, files of two curves, a\n"
    "proof that does not verify), with the reason on stderr.\n";

/* A file name that the option parser would take for an option is given
 * as ./name, which names the same file. */
static char *as_file(const char *arg)
{
    size_t n = strlen(arg) + 3;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s", arg[0] == '-' ? "./" : "", arg);
    return p;
}

int cli_prover(int argc, char **argv)
{
    if (argc == 1 && cli_is_help(argv[0])) {
        fputs(prover_help, stdout);
        return 0;
    }
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "Invalid number of parameters\n%s", prover_usage);
        return 1;
    }
    unsigned level = 0;
    if (argc == 5) {
        const char *l = argv[4];
        if (!(l[0] >= '0' && l[0] <= '4' && l[1] == '\0')) {
            fprintf(stderr, "Invalid log level '%s' (0-4)\n%s", l,
                    prover_usage);
            return 1;
        }
        level = (unsigned)(l[0] - '0');
    }
    char *args[6] = {0};
    int n = 0, rc = 1;
    for (; n < 4; n++)
        if (!(args[n] = as_file(argv[n]))) {
            fprintf(stderr, "Error: out of memory\n");
            goto done;
        }
    if (level >= 3)
        args[n++] = "--timings";
    rc = cli_prove(n, args) == 0 ? 0 : 1;
done:
    for (int i = 0; i < 4; i++)
        free(args[i]);
    return rc;
}
