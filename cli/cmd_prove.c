/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline prove`: a Groth16 proof from a zkey and a witness, with
 * rapidsnark's argument order.  One proof is a job of one partition
 * through the engine: the same path as a batch.
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
    "Makes a Groth16 proof (BLS12-381) from a snarkjs zkey and a witness, and\n"
    "writes proof.json and public.json as snarkjs does.  The argument order is\n"
    "rapidsnark's.  Nothing is written if anything fails.\n",
    NULL, 23};

typedef struct {
    const char *r1cs;
    bool verify, check, check_params, timings, plain_msm;
    cli_engine_options engine;
} prove_options;

#define O(field) offsetof(prove_options, field)
static const cli_opt prove_opts[] = {
    {"--verify", NULL, CLI_FLAG, O(verify),
     .help = "verify the proof with the zkey's verification key\n"
             "before writing it"},
    {"--check-witness", NULL, CLI_FLAG, O(check),
     .help = "check every constraint first; on the first that\n"
             "fails, report it and do not prove.  Needs the\n"
             "circuit's .r1cs (the zkey has no C matrix): given\n"
             "with --r1cs, or found beside the zkey as <name>.r1cs"},
    {"--r1cs", "FILE", CLI_STRING, O(r1cs),
     .help = "the circuit's .r1cs, for --check-witness",
     .bad = "%s needs a file"},
    {"--check-params", NULL, CLI_FLAG, O(check_params),
     .help = "check every zkey point (on its curve, in its\n"
             "subgroup) first: about the cost of a proof"},
    {"--timings", NULL, CLI_FLAG, O(timings),
     .help = "print each stage's time to stderr"},
    {"--plain-msm", NULL, CLI_FLAG, O(plain_msm),
     .help = "run every MSM over all scalars (no zero/one\n"
             "skipping): for benchmarks; same proof"},
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
        st = pl_zkey_check_points(z, err);
    pl_zkey_close(z);
    return st;
}

/* pos: the zkey, the witness, proof.json, public.json. */
static int prove_run(prove_options *o, char **pos)
{
    pl_error err = {0};
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    char *derived_r1cs = NULL;
    cli_proof_slot result = {0};
    pl_status st;
    double t0 = cli_now();
    if (o->check && !o->r1cs &&
        !(o->r1cs = derived_r1cs = cli_r1cs_beside(pos[0]))) {
        st = PL_EUSAGE;
        snprintf(err.msg, sizeof(err.msg),
                 "--check-witness needs the circuit's .r1cs: give --r1cs FILE");
        goto done;
    }
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
    const char *witness[1] = {pos[1]};
    pl_job_spec spec = {.circuit = circuit, .n_partitions = 1,
                        .witness_paths = witness, .check_witness = o->check,
                        .verify = o->verify, .on_proof = cli_keep_proof,
                        .on_proof_user = &result};
    pl_job_status js;
    if ((st = cli_run_job(engine, &spec, "prove", false, t0, &js, &err)))
        goto done;
    if ((st = js.status) != PL_OK) {
        err = js.error;
        goto done;
    }
    if (!result.have) {
        st = PL_ENOMEM;
        snprintf(err.msg, sizeof(err.msg), "out of memory keeping the proof");
        goto done;
    }
    if (o->timings && o->verify)
        fprintf(stderr, "  verified OK\n");
    st = pl_proof_write_json(&result.proof, pos[2], result.publics,
                             result.n_public, pos[3], &err);
    if (st == PL_OK && o->timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "total", cli_now() - t0);
done:
    free(result.publics);
    cli_engine_close(engine, circuit, &st, &err);
    free(derived_r1cs);
    return cli_exit("prove", st, &err);
}

int cli_prove(int argc, char **argv)
{
    prove_options o = {0};
    cli_engine_options_init(&o.engine, 1, PL_LOG_QUIET);
    const cli_table tables[] = {{cli_engine_opts, &o.engine},
                                {prove_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&prove_cmd, tables, 2, argc, argv, &npos);
    if (rc == CLI_RUN && npos > 4)
        rc = cli_usage_error("prove", "unexpected argument %s", argv[4]);
    else if (rc == CLI_RUN && npos < 4)
        rc = cli_usage_error("prove", "needs 4 files: <circuit.zkey> "
                             "<witness.wtns> <proof.json> <public.json>");
    if (rc == CLI_RUN) {
        cli_engine_options_finish(&o.engine);
        rc = prove_run(&o, argv);
    }
    return rc;
}
