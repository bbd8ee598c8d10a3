/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline setup --dev`: a Groth16 zkey from an r1cs and seed-derived
 * secrets, for tests and benchmarks.  Only the development setup exists;
 * without --dev the command refuses, so nobody mistakes it for a ceremony.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char setup_help[] =
    "Usage: proofline setup --dev <circuit.r1cs> <out.zkey> [options]\n"
    "\n"
    "Writes a Groth16 proving key (.zkey, BLS12-381, snarkjs layout) for a\n"
    "circuit, from secrets derived from a seed:\n"
    "  secret(label) = SHA-512(seed \":\" label) mod r, for tau, alpha, beta,\n"
    "  delta (gamma = 1).\n"
    "Sections 1-9 equal those of the fast_zkey.mjs development tool for the\n"
    "same seed; snarkjs and proofline prove and verify with it.\n"
    "\n"
    "WARNING: the toxic waste is known.  Anyone who knows the seed (the\n"
    "default one is public) can forge proofs that verify with this key.  Use\n"
    "it for tests and benchmarks only, never to protect anything.  The key's\n"
    "contribution section says so: it holds one contribution named\n"
    "'proofline setup --dev: TOXIC WASTE KNOWN; tests/benchmarks only'.\n"
    "\n"
    "Only this development setup exists: without --dev the command refuses.\n"
    "A key for production comes from a multi-party ceremony (snarkjs).\n"
    "\n"
    "Options:\n"
    "  --dev                required: accept a key with known toxic waste\n"
    "  --seed S             the seed (default: " PL_SETUP_DEV_DEFAULT_SEED ")\n"
    "  --threads N          worker threads (default: one per core)\n"
    "  --timings            print each stage's time to stderr\n"
    "  -h, --help           this text\n";

typedef struct {
    bool print;
} timings;

static void on_stage(void *user, const char *stage, double seconds)
{
    timings *t = user;
    if (t->print)
        fprintf(stderr, "  %-10s %8.3f s\n", stage, seconds);
}

int cli_setup(int argc, char **argv)
{
    const char *pos[2];
    int npos = 0;
    unsigned threads = 0;
    bool dev = false, print_timings = false;
    const char *seed = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cli_is_help(a)) {
            fputs(setup_help, stdout);
            return 0;
        } else if (strcmp(a, "--dev") == 0) {
            dev = true;
        } else if (strcmp(a, "--seed") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("setup", "--seed needs a value%s", "");
            seed = argv[++i];
        } else if (strcmp(a, "--threads") == 0) {
            if (i + 1 >= argc || !cli_parse_count(argv[i + 1], &threads))
                return cli_usage_error("setup", "--threads needs a count from "
                                   "1 to 4096%s", "");
            i++;
        } else if (strcmp(a, "--timings") == 0) {
            print_timings = true;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("setup", "unknown option %s", a);
        } else if (npos < 2) {
            pos[npos++] = a;
        } else {
            return cli_usage_error("setup", "unexpected argument %s", a);
        }
    }
    if (!dev)
        return cli_usage_error("setup", "only the development setup exists, "
                           "and its toxic waste is known: pass --dev to accept "
                           "that (tests and benchmarks only)%s", "");
    if (npos != 2)
        return cli_usage_error("setup", "needs 2 files: <circuit.r1cs> "
                           "<out.zkey>%s", "");

    fprintf(stderr,
            "proofline setup: WARNING: development setup, the toxic waste is "
            "known (seed \"%s\"): anyone can forge proofs for this key; for "
            "tests and benchmarks only\n",
            seed ? seed : PL_SETUP_DEV_DEFAULT_SEED);
    timings t = {print_timings};
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.seed = seed;
    cfg.threads = threads;
    cfg.on_stage = on_stage;
    cfg.on_stage_user = &t;
    pl_error err = {0};
    double t0 = cli_now();
    pl_status st = pl_setup_dev(pos[0], pos[1], &cfg, &err);
    if (st == PL_OK && print_timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "total", cli_now() - t0);
    return st == PL_OK ? 0 : cli_fail("setup", st, &err);
}
