/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline setup --dev`: a Groth16 zkey from an r1cs and seed-derived
 * secrets, for tests and benchmarks.  Only the development setup exists;
 * without --dev the command refuses, so nobody mistakes it for a ceremony.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"
#include "proofline_c2.h"

#include <stdio.h>

static const cli_command setup_cmd = {
    "setup",
    "Usage: proofline setup --dev <circuit.r1cs> <out.zkey> [options]\n"
    "       proofline setup --dev --format bellperson <circuit.r1cs> "
    "<out.params> <out.vk>\n"
    "\n"
    "Writes a Groth16 proving key (.zkey, snarkjs layout) for a circuit, on\n"
    "the r1cs's curve (BLS12-381, or BN254: circom --prime bn128), from\n"
    "secrets derived from a seed:\n"
    "  secret(label) = SHA-512(seed \":\" label) mod r, for tau, alpha, beta,\n"
    "  delta (gamma = 1).\n"
    "On BLS12-381, sections 1-9 equal those of the fast_zkey.mjs development\n"
    "tool for the same seed; snarkjs and proofline prove and verify with it\n"
    "on either curve (BN254: domains up to 2^27).\n"
    "\n"
    "WARNING: the toxic waste is known.  Anyone who knows the seed (the\n"
    "default one is public) can forge proofs that verify with this key.  Use\n"
    "it for tests and benchmarks only, never to protect anything.  The key's\n"
    "contribution section says so: it holds one contribution named\n"
    "'proofline setup --dev: TOXIC WASTE KNOWN; tests/benchmarks only'.\n"
    "\n"
    "With --format bellperson the same secrets are written as a bellperson\n"
    "parameter file and its verifying key (.vk), the files a Filecoin prover\n"
    "reads (docs/filecoin.md): the domain is bellperson's (blstrs's root of\n"
    "unity) and H its monomial-basis query, so the points differ from the\n"
    "zkey's; BLS12-381 only.\n"
    "\n"
    "Only this development setup exists: without --dev the command refuses.\n"
    "A key for production comes from a multi-party ceremony (snarkjs).\n",
    NULL, 23};

typedef struct {
    bool dev, timings;
    const char *seed;
    unsigned threads;
    unsigned format; /* index in formats[] */
} setup_options;

static const char *const formats[] = {"zkey", "bellperson", NULL};

#define O(field) offsetof(setup_options, field)
static const cli_opt setup_opts[] = {
    {"--dev", NULL, CLI_FLAG, O(dev),
     .help = "required: accept a key with known toxic waste"},
    {"--seed", "S", CLI_STRING, O(seed),
     .help = "the seed (default: " PL_SETUP_DEV_DEFAULT_SEED ")"},
    {"--threads", "N", CLI_COUNT, O(threads),
     .help = "worker threads (default: one per core)"},
    {"--timings", NULL, CLI_FLAG, O(timings),
     .help = "print each stage's time to stderr"},
    {"--format", "F", CLI_CHOICE, O(format),
     .help = "zkey (default) or bellperson (a .params and a .vk)",
     .choices = formats},
    /* the r1cs read; the key (or .params and .vk) written */
    {CLI_ARGUMENTS, .files = "io+"},
    {NULL},
};

static void on_stage(void *user, const char *stage, double seconds)
{
    const setup_options *o = user;
    if (o->timings)
        fprintf(stderr, "  %-10s %8.3f s\n", stage, seconds);
}

/* pos: the r1cs, the zkey to write. */
static int setup_run(const setup_options *o, char **pos)
{
    fprintf(stderr,
            "proofline setup: WARNING: development setup, the toxic waste is "
            "known (seed \"%s\"): anyone can forge proofs for this key; for "
            "tests and benchmarks only\n",
            o->seed ? o->seed : PL_SETUP_DEV_DEFAULT_SEED);
    pl_setup_config cfg;
    pl_setup_config_init(&cfg);
    cfg.seed = o->seed;
    cfg.threads = o->threads;
    cfg.on_stage = on_stage;
    cfg.on_stage_user = (void *)o;
    pl_error err = {0};
    double t0 = cli_now();
    pl_status st = o->format == 1
                       ? pl_setup_dev_bellperson(pos[0], pos[1], pos[2], &cfg,
                                                 &err)
                       : pl_setup_dev(pos[0], pos[1], &cfg, &err);
    if (st == PL_OK && o->timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "total", cli_now() - t0);
    return cli_exit("setup", st, &err);
}

int cli_setup(int argc, char **argv)
{
    setup_options o = {0};
    const cli_table tables[] = {{setup_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&setup_cmd, tables, 1, argc, argv, &npos);
    const int want = o.format == 1 ? 3 : 2;
    if (rc == CLI_RUN && npos > want)
        rc = cli_usage_error("setup", "unexpected argument %s", argv[want]);
    else if (rc == CLI_RUN && !o.dev)
        rc = cli_usage_error("setup", "only the development setup exists, "
                             "and its toxic waste is known: pass --dev to "
                             "accept that (tests and benchmarks only)");
    else if (rc == CLI_RUN && npos != want)
        rc = want == 3 ? cli_usage_error("setup", "--format bellperson needs "
                                         "3 files: <circuit.r1cs> "
                                         "<out.params> <out.vk>")
                       : cli_usage_error("setup", "needs 2 files: "
                                         "<circuit.r1cs> <out.zkey>");
    return rc == CLI_RUN ? setup_run(&o, argv) : rc;
}
