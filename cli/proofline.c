/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `proofline` command: a thin layer over the public API.
 *
 *   proofline prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>
 *   proofline verify <verification_key.json> <public.json> <proof.json>
 *   proofline vkey <circuit.zkey> <verification_key.json>
 *   proofline inspect <file>
 *
 * The argument order of `prove` is rapidsnark's, so proofline is a drop-in,
 * called as rapidsnark's users call it: `proofline <zkey> <wtns> <proof>
 * <public>` with no subcommand (the same as `proofline prove`), or
 * `proofline prover` and the links named `prover` and `proofline-prover`
 * (the build makes both in build/; make install installs them), which
 * take exactly rapidsnark's arguments and exit as it does (0, else 1).
 * Exit codes: 0 success, 1 invalid proof, 2 bad usage or bad input,
 * 3 internal error.  Errors go to stderr as one line naming the file.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char main_help[] =
    "proofline " PL_VERSION_STRING
    ": a Groth16 prover for BLS12-381 and BN254 (snarkjs's files).\n"
    "\n"
    "Usage: proofline <command> [arguments]\n"
    "       proofline <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "       (rapidsnark's command line: the same as `proofline prove`; with\n"
    "       rapidsnark's exit codes: `proofline prover`, or a link to proofline\n"
    "       named `prover` or `proofline-prover`)\n"
    "\n"
    "Commands:\n"
    "  prove    <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "  prover   <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "           rapidsnark's prover: its arguments, its exit codes (0, else 1)\n"
    "  batch    --zkey <circuit.zkey> --out <dir> <w1.wtns> [w2.wtns ...]\n"
    "  verify   <verification_key.json> <public.json> <proof.json>\n"
    "  vkey     <circuit.zkey> <verification_key.json>\n"
    "  verify   --format bellperson <key.vk> <inputs.bin> <proofs.bin>\n"
    "  convert  <proof.json ...> <proofs.bin> | <proofs.bin> <proof.json>\n"
    "  inspect  <file>   (snarkjs files; bellperson .params, .vk, proofs)\n"
    "  c2       --params P --r1cs R --proofs OUT <w.wtns ...>   (through the\n"
    "           SupraSeal-C2-shaped API, proofs in bellperson's bytes)\n"
    "  ptau     new|contribute|beacon|prepare|verify ...   snarkjs's powers of\n"
    "           tau (phase 1 of a trusted setup), natively\n"
    "  zkey     new|contribute|beacon|verify|export ...   a circuit's phase 2:\n"
    "           its production key from a ptau (docs/circom.md)\n"
    "  setup    --dev <circuit.r1cs> <out.zkey>   (known toxic waste: tests only)\n"
    "  setup    --dev --format bellperson <circuit.r1cs> <out.params> <out.vk>\n"
    "  circuit  info|export --constraints 2^K [--out DIR]   (the demo circuit)\n"
    "  demo     [--partitions N --constraints 2^K --pw P --budget SIZE]\n"
    "           prove the demo circuit through the engine, with its ledger\n"
    "  plan     --preset filecoin-porep-32g | --zkey F --costs FILE [...]\n"
    "           what a configuration does to memory and throughput, before\n"
    "           it runs (the engine's scheduler on a simulated clock)\n"
    "  calibrate  [--out FILE] [--validate]\n"
    "           this machine's stage costs for plan (a costs file)\n"
    "  serve    [--listen 127.0.0.1:7878] [--data DIR] [--budget SIZE]\n"
    "           the proving service: an HTTP API over a durable job queue\n"
    "  submit   --server URL (--circuit ID | --zkey F) [--wait --out DIR] W.wtns ...\n"
    "           submit a job to a `proofline serve`\n"
    "  jobs     --server URL [--state S]   the service's jobs\n"
    "  status   --server URL   the service's ledger, live\n"
    "  fetch    --server URL [--wait] JOB --out DIR   a job's proofs\n"
    "\n"
    "`proofline <command> --help` describes each command.\n"
    "Exit codes: 0 success, 1 invalid proof, 2 bad usage or input, "
    "3 internal error.\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"prove", cli_prove},
    {"prover", cli_prover},
    {"batch", cli_batch},
    {"verify", cli_verify},
    {"vkey", cli_vkey},
    {"inspect", cli_inspect},
    {"setup", cli_setup},
    {"ptau", cli_ptau},
    {"zkey", cli_zkey},
    {"circuit", cli_circuit},
    {"demo", cli_demo},
    {"plan", cli_plan},
    {"calibrate", cli_calibrate},
    {"convert", cli_convert},
    {"c2", cli_c2},
    {"serve", cli_serve},
    {"submit", cli_submit},
    {"jobs", cli_jobs},
    {"status", cli_status},
    {"fetch", cli_fetch},
    {"store", cli_store},
};

/* The file name part of a path. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
    /* rapidsnark's binary is `prover`: a link by that name (or the less
     * generic proofline-prover) is rapidsnark's command line */
    if (argc >= 1 && (strcmp(base_name(argv[0]), "prover") == 0 ||
                      strcmp(base_name(argv[0]), "proofline-prover") == 0))
        return cli_prover(argc - 1, argv + 1);
    if (argc < 2) {
        fputs(main_help, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (cli_is_help(cmd) || strcmp(cmd, "help") == 0) {
        fputs(main_help, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        puts("proofline " PL_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    /* no command but files: rapidsnark's `<zkey> <wtns> <proof> <public>`
     * (fewer arguments is a mistyped command, said so below) */
    if (cmd[0] != '-' && argc >= 5)
        return cli_prove(argc - 1, argv + 1);
    fprintf(stderr, "%s: unknown command '%s'\n\n%s", CLI_PROG, cmd, main_help);
    return 2;
}
