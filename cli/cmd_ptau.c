/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline ptau`: snarkjs's powers-of-tau ceremony (phase 1) over
 * include/proofline_ceremony.h: new, contribute, beacon, prepare, verify,
 * reading and writing snarkjs's .ptau files.
 */
#define _POSIX_C_SOURCE 200809L
#include "ceremony.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ptau_help[] =
    "Usage: proofline ptau <subcommand> [arguments] [options]\n"
    "\n"
    "The powers of tau (phase 1 of a Groth16 trusted setup) as snarkjs runs\n"
    "it, in snarkjs's .ptau files: each file written here is accepted by\n"
    "`snarkjs powersoftau verify`, and snarkjs's files are accepted here.\n"
    "The curve is bls12381 or bn128 (BN254).\n"
    "\n"
    "Subcommands:\n"
    "  new CURVE POWER OUT.ptau   a fresh ceremony for circuits of up to\n"
    "                          2^POWER constraints (snarkjs powersoftau new)\n"
    "  contribute IN OUT       a contribution: secrets from the OS and\n"
    "                          --entropy (powersoftau contribute)\n"
    "  beacon IN OUT HASH EXP  the last contribution, from a public beacon:\n"
    "                          SHA-256 iterated 2^EXP times over HASH (hex)\n"
    "  prepare IN OUT          phase 2 preparation: the Lagrange bases\n"
    "                          (powersoftau prepare phase2)\n"
    "  verify FILE             every contribution and every point checked\n"
    "                          (powersoftau verify)\n"
    "\n"
    "`proofline ptau <subcommand> --help` describes each.  A ceremony: new,\n"
    "contributions by each participant (each verifies the file first), a\n"
    "beacon, prepare; then `proofline zkey new` for a circuit (docs/circom.md).\n"
    "beacon, prepare and new write the same bytes as snarkjs.  Outputs go\n"
    "through a temporary file renamed into place when complete, never over\n"
    "an input.  Exit codes: 0 success, 1 a verification failed, 2 bad usage or\n"
    "input, 3 internal error.\n";

static int run_new(const char *full, cli_cer_options *o, char **pos)
{
    char *end;
    errno = 0;
    long power = strtol(pos[1], &end, 10);
    if (errno || end == pos[1] || *end || power < 1 || power > 28)
        return cli_usage_error(full, "POWER must be between 1 and 28, not '%s'",
                               pos[1]);
    pl_ceremony_config cfg;
    uint64_t peak = 0;
    pl_error err = {0};
    double t0 = cli_now();
    cli_cer_config(&cfg, o, full, &peak);
    pl_status st = pl_ptau_new(pos[0], (unsigned)power, pos[2], &cfg, &err);
    return cli_cer_done(full, o, st, &err, t0, peak);
}

static int run_contribute(const char *full, cli_cer_options *o, char **pos)
{
    return cli_cer_contribute(full, o, pos, pl_ptau_contribute);
}

static int run_beacon(const char *full, cli_cer_options *o, char **pos)
{
    return cli_cer_beacon(full, o, pos, pl_ptau_beacon);
}

static int run_prepare(const char *full, cli_cer_options *o, char **pos)
{
    pl_ceremony_config cfg;
    uint64_t peak = 0;
    pl_error err = {0};
    double t0 = cli_now();
    cli_cer_config(&cfg, o, full, &peak);
    pl_status st = pl_ptau_prepare(pos[0], pos[1], &cfg, &err);
    return cli_cer_done(full, o, st, &err, t0, peak);
}

static int run_verify(const char *full, cli_cer_options *o, char **pos)
{
    pl_ceremony_config cfg;
    uint64_t peak = 0;
    pl_error err = {0};
    double t0 = cli_now();
    cli_cer_config(&cfg, o, full, &peak);
    pl_status st = pl_ptau_verify(pos[0], &cfg, &err);
    return cli_cer_done(full, o, st, &err, t0, peak);
}

#define COL 22
static const cli_cer_sub subs[] = {
    {"new",
     {"ptau new",
      "Usage: proofline ptau new <curve> <power> <out.ptau> [options]\n"
      "\n"
      "Starts a powers-of-tau ceremony on CURVE (bls12381, bn128; snarkjs's\n"
      "other names are taken too: bn254, alt_bn128, BLS12-381) for circuits\n"
      "of up to 2^POWER constraints (POWER 1 to 28): every point is the\n"
      "generator and there is no contribution yet.  The same bytes as `snarkjs\n"
      "powersoftau new`; prints the first challenge's hash.\n",
      NULL, COL},
     3, "--o", NULL, run_new},
    {"contribute",
     {"ptau contribute",
      "Usage: proofline ptau contribute <in.ptau> <out.ptau> [--name TEXT]\n"
      "       [--entropy TEXT] [options]\n"
      "\n"
      "Adds a contribution: secrets tau, alpha, beta drawn from 64 bytes of\n"
      "the OS's randomness and the entropy text (snarkjs's stream), each point\n"
      "multiplied by them, the record (public key, response hash, next\n"
      "challenge) as snarkjs writes it.  The secrets are never written; verify\n"
      "the input first (`proofline ptau verify`).\n",
      NULL, COL},
     2, "io", cli_cer_contrib_opts, run_contribute},
    {"beacon",
     {"ptau beacon",
      "Usage: proofline ptau beacon <in.ptau> <out.ptau> <beacon_hash> "
      "<num_iterations_exp>\n"
      "       [--name TEXT] [options]\n"
      "\n"
      "Adds the last contribution from a public random beacon: the secrets\n"
      "come from SHA-256 iterated 2^num_iterations_exp times (10 to 63) over\n"
      "beacon_hash (hexadecimal, 1 to 255 bytes), so anyone can check it.\n"
      "The same bytes as `snarkjs powersoftau beacon` with the same arguments.\n",
      NULL, COL},
     4, "io--", cli_cer_name_opts, run_beacon},
    {"prepare",
     {"ptau prepare",
      "Usage: proofline ptau prepare <in.ptau> <out.ptau> [options]\n"
      "\n"
      "Phase 2 preparation (`snarkjs powersoftau prepare phase2`): sections\n"
      "12-15, the Lagrange bases of every domain 2^p up to the file's power\n"
      "(one more for tauG1), by inverse FFTs over the group; the same bytes\n"
      "as snarkjs.  Memory: about 112 bytes per G1 point of the largest level\n"
      "(2^(power+1) points), whatever the file's size.\n",
      NULL, COL},
     2, "io", NULL, run_prepare},
    {"verify",
     {"ptau verify",
      "Usage: proofline ptau verify <file.ptau> [options]\n"
      "\n"
      "The checks of `snarkjs powersoftau verify`: every contribution's key and\n"
      "how it follows the one before (a beacon's key from its beacon), the\n"
      "powers of the last one (random linear combinations, a pairing each),\n"
      "the hash chain, and after prepare every level of the Lagrange bases;\n"
      "first every point is checked to be in its group.  Exit 1 naming the\n"
      "section and the contribution when a check fails.  A beacon is replayed\n"
      "(2^E SHA-256 iterations) only up to --max-beacon-exp.\n",
      NULL, COL},
     1, "i", cli_cer_verify_opts, run_verify},
};

int cli_ptau(int argc, char **argv)
{
    return cli_cer_dispatch("ptau", ptau_help, subs,
                            sizeof(subs) / sizeof(subs[0]), argc, argv);
}
