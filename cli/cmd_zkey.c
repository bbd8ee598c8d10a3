/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline zkey`: snarkjs's Groth16 phase 2 over
 * include/proofline_ceremony.h: new (groth16 setup), contribute, beacon,
 * verify; and `zkey export verificationkey`, which is `proofline vkey`.
 */
#define _POSIX_C_SOURCE 200809L
#include "ceremony.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char zkey_help[] =
    "Usage: proofline zkey <subcommand> [arguments] [options]\n"
    "\n"
    "The circuit's phase 2 of a Groth16 trusted setup as snarkjs runs it, in\n"
    "snarkjs's .zkey files: each key written here is accepted by `snarkjs\n"
    "zkey verify`, snarkjs's keys are accepted here, and `proofline prove`\n"
    "and snarkjs prove with them.\n"
    "\n"
    "Subcommands:\n"
    "  new R1CS PTAU OUT.zkey  the circuit's first key from a prepared ptau\n"
    "                          (snarkjs groth16 setup / zkey new)\n"
    "  contribute IN OUT       a contribution to delta (zkey contribute)\n"
    "  beacon IN OUT HASH EXP  the last contribution, from a public beacon\n"
    "                          (zkey beacon)\n"
    "  verify R1CS PTAU ZKEY   the key against the circuit and the ceremony\n"
    "                          (zkey verify)\n"
    "  export verificationkey ZKEY OUT.json   the verification key (as\n"
    "                          `proofline vkey`)\n"
    "\n"
    "`proofline zkey <subcommand> --help` describes each.  new and beacon\n"
    "write the same bytes as snarkjs for the same inputs.  Exit codes: 0\n"
    "success, 1 a verification failed, 2 bad usage or input, 3 internal\n"
    "error.\n";

static int run_new(const char *full, cli_cer_options *o, char **pos)
{
    pl_ceremony_config cfg;
    uint64_t peak = 0;
    pl_error err = {0};
    double t0 = cli_now();
    cli_cer_config(&cfg, o, full, &peak);
    pl_status st = pl_zkey_new(pos[0], pos[1], pos[2], &cfg, &err);
    return cli_cer_done(full, o, st, &err, t0, peak);
}

static int run_contribute(const char *full, cli_cer_options *o, char **pos)
{
    return cli_cer_contribute(full, o, pos, pl_zkey_contribute);
}

static int run_beacon(const char *full, cli_cer_options *o, char **pos)
{
    return cli_cer_beacon(full, o, pos, pl_zkey_beacon);
}

static int run_verify(const char *full, cli_cer_options *o, char **pos)
{
    pl_ceremony_config cfg;
    uint64_t peak = 0;
    pl_error err = {0};
    double t0 = cli_now();
    cli_cer_config(&cfg, o, full, &peak);
    pl_status st = pl_zkey_verify(pos[0], pos[1], pos[2], &cfg, &err);
    return cli_cer_done(full, o, st, &err, t0, peak);
}

#define COL 22
static const cli_cer_sub subs[] = {
    {"new",
     {"zkey new",
      "Usage: proofline zkey new <circuit.r1cs> <final.ptau> <circuit_0000.zkey>"
      "\n       [options]\n"
      "\n"
      "The circuit's first Groth16 key (`snarkjs groth16 setup`): its points\n"
      "from the Lagrange bases of a prepared ptau (`proofline ptau prepare`)\n"
      "whose power covers the circuit, delta = gamma = 1, and the circuit\n"
      "hash every later contribution builds on; the same bytes as snarkjs.\n"
      "The key is not for production until it has contributions and a\n"
      "beacon.\n",
      NULL, COL},
     3, "iio", NULL, run_new},
    {"contribute",
     {"zkey contribute",
      "Usage: proofline zkey contribute <in.zkey> <out.zkey> [--name TEXT]\n"
      "       [--entropy TEXT] [options]\n"
      "\n"
      "Adds a contribution to delta: a secret from 64 bytes of the OS's\n"
      "randomness and the entropy text (snarkjs's stream), delta1 and delta2\n"
      "multiplied by it, the C and H points divided by it, and the record\n"
      "(public key, transcript) as snarkjs writes it.\n",
      NULL, COL},
     2, "io", cli_cer_contrib_opts, run_contribute},
    {"beacon",
     {"zkey beacon",
      "Usage: proofline zkey beacon <in.zkey> <out.zkey> <beacon_hash> "
      "<num_iterations_exp>\n"
      "       [--name TEXT] [options]\n"
      "\n"
      "Adds the last contribution from a public random beacon: SHA-256\n"
      "iterated 2^num_iterations_exp times (10 to 63) over beacon_hash (hex).\n"
      "The same bytes as `snarkjs zkey beacon` with the same arguments.\n",
      NULL, COL},
     4, "io--", cli_cer_name_opts, run_beacon},
    {"verify",
     {"zkey verify",
      "Usage: proofline zkey verify <circuit.r1cs> <final.ptau> <circuit.zkey>"
      "\n       [options]\n"
      "\n"
      "The checks of `snarkjs zkey verify`: every contribution's transcript,\n"
      "key and delta; the key's sections against the ones the circuit and\n"
      "the ptau give (byte for byte, and C and H in the ratio of delta).  Exit\n"
      "1 naming the section and the contribution when a check fails.  A beacon\n"
      "is replayed (2^E SHA-256 iterations) only up to --max-beacon-exp.\n",
      NULL, COL},
     3, "iii", cli_cer_verify_opts, run_verify},
};

int cli_zkey(int argc, char **argv)
{
    /* `zkey export verificationkey` is `vkey`: one implementation */
    if (argc >= 1 && strcmp(argv[0], "export") == 0) {
        if (argc >= 2 && strcmp(argv[1], "verificationkey") == 0)
            return cli_vkey(argc - 2, argv + 2);
        return cli_usage_error("zkey", "export what? (zkey export "
                               "verificationkey <circuit.zkey> <out.json>)");
    }
    return cli_cer_dispatch("zkey", zkey_help, subs,
                            sizeof(subs) / sizeof(subs[0]), argc, argv);
}
