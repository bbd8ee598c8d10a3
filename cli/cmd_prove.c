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
    "  --verify             verify the proof with the zkey's verification key\n"
    "                       before writing it\n"
    "  --check-witness      check every constraint first; on the first that\n"
    "                       fails, report it and do not prove.  Needs the\n"
    "                       circuit's .r1cs (the zkey has no C matrix): given\n"
    "                       with --r1cs, or found beside the zkey as <name>.r1cs\n"
    "  --r1cs FILE          the circuit's .r1cs, for --check-witness\n"
    "  --timings            print each stage's time to stderr\n"
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

/* circuit.zkey -> circuit.r1cs, or NULL when the name has no .zkey suffix */
static char *r1cs_beside(const char *zkey_path)
{
    size_t len = strlen(zkey_path);
    if (len < 5 || strcmp(zkey_path + len - 5, ".zkey") != 0)
        return NULL;
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, zkey_path, len - 5);
        strcpy(p + len - 5, ".r1cs");
    }
    return p;
}

int cli_prove(int argc, char **argv)
{
    const char *pos[4];
    int npos = 0;
    unsigned threads = 0;
    bool verify = false, check = false, print_timings = false;
    const char *r1cs_path = NULL;
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
        } else if (strcmp(a, "--verify") == 0) {
            verify = true;
        } else if (strcmp(a, "--check-witness") == 0) {
            check = true;
        } else if (strcmp(a, "--timings") == 0) {
            print_timings = true;
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
    pl_zkey *zkey = NULL;
    pl_wtns *wtns = NULL;
    pl_r1cs *r1cs = NULL;
    pl_prover *prover = NULL;
    pl_vkey *vkey = NULL;
    char *derived_r1cs = NULL;
    pl_status st;
    timings t = {print_timings, 0};
    double t0 = cli_now();

    if ((st = pl_zkey_open(&zkey, pos[0], &err)) ||
        (st = pl_wtns_open(&wtns, pos[1], &err)))
        goto done;
    if (check) {
        if (!r1cs_path)
            r1cs_path = derived_r1cs = r1cs_beside(pos[0]);
        if (!r1cs_path) {
            st = PL_EUSAGE;
            snprintf(err.msg, sizeof(err.msg),
                     "--check-witness needs the circuit's .r1cs: give --r1cs "
                     "FILE");
            goto done;
        }
        if ((st = pl_r1cs_open(&r1cs, r1cs_path, &err)) ||
            (st = pl_r1cs_matches_zkey(r1cs, zkey, &err)) ||
            (st = pl_witness_check(r1cs, wtns, &err)))
            goto done;
        if (print_timings)
            fprintf(stderr, "  witness satisfies all constraints\n");
    }
    if (print_timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "load", cli_now() - t0);

    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = threads;
    cfg.on_stage = on_stage;
    cfg.on_stage_user = &t;
    if ((st = pl_prover_create(&prover, zkey, &cfg, &err)))
        goto done;
    pl_proof proof;
    if ((st = pl_prove(prover, &proof, wtns, &err)))
        goto done;

    pl_zkey_info info;
    pl_zkey_get_info(zkey, &info);
    const pl_scalar *publics = pl_wtns_values(wtns) + 1;
    if (verify) {
        double tv = cli_now();
        if ((st = pl_vkey_from_zkey(&vkey, zkey, &err)))
            goto done;
        st = pl_verify(vkey, &proof, publics, info.n_public, &err);
        if (st != PL_OK) {
            /* A proof that does not verify is our bug, not the user's. */
            if (st == PL_EINVALID) {
                st = PL_EINTERNAL;
                snprintf(err.msg, sizeof(err.msg),
                         "the proof did not verify; nothing was written");
            }
            goto done;
        }
        if (print_timings)
            fprintf(stderr, "  %-10s %8.3f s (OK)\n", "verify",
                    cli_now() - tv);
    }
    st = pl_proof_write_json(&proof, pos[2], publics, info.n_public, pos[3],
                             &err);
    if (st == PL_OK && print_timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "total", cli_now() - t0);
done:
    pl_vkey_destroy(vkey);
    pl_prover_destroy(prover);
    pl_r1cs_close(r1cs);
    pl_wtns_close(wtns);
    pl_zkey_close(zkey);
    free(derived_r1cs);
    return st == PL_OK ? 0 : cli_fail("prove", st, &err);
}

