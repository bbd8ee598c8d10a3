/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline prove`: a Groth16 proof from a zkey and a witness, with
 * rapidsnark's argument order.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char prove_help[] =
    "Usage: proofline prove <circuit.zkey> <witness.wtns> <proof.json> "
    "<public.json> [options]\n"
    "\n"
    "Makes a Groth16 proof (BLS12-381) from a snarkjs zkey and a witness, and\n"
    "writes proof.json and public.json as snarkjs does.  The argument order is\n"
    "rapidsnark's.  Nothing is written if anything fails.\n"
    "\n"
    "Options:\n"
    "  --threads N          worker threads (default: one per core)\n"
    "  --backend B          auto (default: CUDA when a GPU is found, else the\n"
    "                       CPU), cpu or cuda\n"
    "  --verify             verify the proof with the zkey's verification key\n"
    "                       before writing it\n"
    "  --check-witness      check every constraint first; on the first that\n"
    "                       fails, report it and do not prove.  Needs the\n"
    "                       circuit's .r1cs (the zkey has no C matrix): given\n"
    "                       with --r1cs, or found beside the zkey as <name>.r1cs\n"
    "  --r1cs FILE          the circuit's .r1cs, for --check-witness\n"
    "  --check-params       check every zkey point (on its curve, in its\n"
    "                       subgroup) first: about the cost of a proof\n"
    "  --timings            print each stage's time to stderr\n"
    "  --plain-msm          run every MSM over all scalars (no zero/one\n"
    "                       skipping): for benchmarks; same proof\n"
    "  -h, --help           this text\n";

typedef struct {
    bool print;
    double total;
} timings;

static void on_stage(void *user, const char *stage, double seconds)
{
    timings *t = user;
    t->total += seconds;
    if (t->print)
        fprintf(stderr, "  %-10s %8.3f s\n", stage, seconds);
}

int cli_prove(int argc, char **argv)
{
    const char *pos[4];
    int npos = 0;
    unsigned threads = 0;
    bool verify = false, check = false, print_timings = false, plain = false;
    bool check_params = false;
    const char *r1cs_path = NULL, *backend = "auto";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            fputs(prove_help, stdout);
            return 0;
        } else if (strcmp(a, "--threads") == 0) {
            if (i + 1 >= argc || !cli_parse_count(argv[i + 1], &threads))
                return cli_usage_error("prove", "--threads needs a count from 1 "
                                   "to 4096%s", "");
            i++;
        } else if (strcmp(a, "--r1cs") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("prove", "--r1cs needs a file%s", "");
            r1cs_path = argv[++i];
        } else if (strcmp(a, "--backend") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("prove", "--backend needs auto, cpu or "
                                       "cuda%s", "");
            backend = argv[++i];
        } else if (strcmp(a, "--verify") == 0) {
            verify = true;
        } else if (strcmp(a, "--check-witness") == 0) {
            check = true;
        } else if (strcmp(a, "--check-params") == 0) {
            check_params = true;
        } else if (strcmp(a, "--timings") == 0) {
            print_timings = true;
        } else if (strcmp(a, "--plain-msm") == 0) {
            plain = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("prove", "unknown option %s", a);
        } else if (npos < 4) {
            pos[npos++] = a;
        } else {
            return cli_usage_error("prove", "unexpected argument %s", a);
        }
    }
    if (npos != 4)
        return cli_usage_error("prove", "needs 4 files: <circuit.zkey> "
                           "<witness.wtns> <proof.json> <public.json>%s", "");

    pl_error err = {0};
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    char *derived_r1cs = NULL;
    pl_status st;
    timings t = {print_timings, 0};
    double t0 = cli_now();
    if (check && !r1cs_path && !(r1cs_path = derived_r1cs = cli_r1cs_beside(pos[0]))) {
        st = PL_EUSAGE;
        snprintf(err.msg, sizeof(err.msg),
                 "--check-witness needs the circuit's .r1cs: give --r1cs FILE");
        goto done;
    }

    if (check_params) {
        pl_zkey *z = NULL;
        st = pl_zkey_open(&z, pos[0], &err);
        if (st == PL_OK)
            st = pl_zkey_check_points(z, &err);
        pl_zkey_close(z);
        if (st != PL_OK)
            goto done;
    }

    /* One proof is a job of one partition: the same path as a batch. */
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 1;
    cfg.prover_workers = 1;
    cfg.threads = threads;
    cfg.backend = backend;
    cfg.plain_msm = plain;
    cfg.on_stage = on_stage;
    cfg.on_stage_user = &t;
    if ((st = pl_engine_create(&engine, &cfg, &err)) ||
        (st = pl_engine_open_circuit(engine, &circuit, pos[0],
                                     check ? r1cs_path : NULL, &err)))
        goto done;
    if (print_timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "load", cli_now() - t0);

    cli_proof_slot result = {0};
    const char *witness[1] = {pos[1]};
    pl_job_spec spec = {.circuit = circuit, .n_partitions = 1,
                        .witness_paths = witness, .check_witness = check,
                        .verify = verify, .on_proof = cli_keep_proof,
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
    if (print_timings && verify)
        fprintf(stderr, "  verified OK\n");
    st = pl_proof_write_json(&result.proof, pos[2], result.publics,
                             result.n_public, pos[3], &err);
    if (st == PL_OK && print_timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "total", cli_now() - t0);
    free(result.publics);
done:
    pl_circuit_release(circuit);
    cli_engine_close(engine, &st, &err);
    free(derived_r1cs);
    return st == PL_OK ? 0 : cli_fail("prove", st, &err);
}
