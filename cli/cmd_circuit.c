/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline circuit`: the built-in PoRep-like demo circuit as snarkjs
 * files.  `info` prints the shape chosen for a constraint target; `export`
 * records the circuit once (DIR/circuit.r1cs) and writes each partition's
 * witness with the cached, witness-only path (DIR/p<i>.wtns), so that
 * `proofline setup --dev`, `proofline prove` and snarkjs can take it from
 * there.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char circuit_help[] =
    "Usage: proofline circuit info --constraints 2^K [--depth D]\n"
    "       proofline circuit export --constraints 2^K --out DIR [options]\n"
    "\n"
    "The PoRep-like demo circuit: one partition proves K openings of a\n"
    "SHA-256 Merkle tree (public: the root and the K leaf indices; private:\n"
    "the leaves and siblings).  A node is the SHA-256 compression of the IV\n"
    "over left || right, truncated to 254 bits (one field element).  Depth and\n"
    "K are chosen so that constraints + public inputs + 1 fit the target;\n"
    "below one compression (~26k) the rounds are cut instead (a toy hash for\n"
    "tests, reported as rounds < 64).  Inputs come from (seed, partition).\n"
    "\n"
    "export writes DIR/circuit.r1cs (recorded once) and DIR/p<i>.wtns for\n"
    "each partition (witness-only: the per-proof path).\n"
    "\n"
    "Options:\n"
    "  --constraints N    the target, 2^K or a number (required)\n"
    "  --depth D          tree depth (default: chosen)\n"
    "  --partitions N     witnesses to write (default 1)\n"
    "  --seed S           input seed (default \"proofline-demo\")\n"
    "  --out DIR          where the files go (export; created if missing)\n"
    "  -h, --help         this text\n";

#define DEFAULT_SEED "proofline-demo"

bool cli_parse_constraints(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (strncmp(text, "2^", 2) == 0) {
        unsigned long k = strtoul(text + 2, &end, 10);
        if (errno || end == text + 2 || *end || k < 4 || k > 28)
            return false;
        *out = 1ull << k;
        return true;
    }
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < 16 ||
        v > (1ull << 28))
        return false;
    *out = v;
    return true;
}

unsigned cli_log2_ceil(uint64_t n)
{
    unsigned k = 0;
    while ((1ull << k) < n)
        k++;
    return k;
}

void cli_describe_porep(FILE *f, const porep_params *p, size_t nc, size_t np,
                        size_t nw)
{
    fprintf(f, "circuit: %u opening%s of depth %u in a SHA-256 tree%s: %zu "
            "constraints, %zu public, %zu wires, domain 2^%u\n", p->openings,
            p->openings == 1 ? "" : "s", p->depth,
            p->rounds == 64 ? "" : " (TOY: compression cut to fewer rounds)",
            nc, np, nw, cli_log2_ceil((uint64_t)nc + np + 1));
}

int cli_circuit(int argc, char **argv)
{
    if (argc < 1 || cli_is_help(argv[0])) {
        fputs(circuit_help, argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    const char *sub = argv[0];
    bool do_export = strcmp(sub, "export") == 0;
    if (!do_export && strcmp(sub, "info") != 0)
        return cli_usage_error("circuit", "unknown subcommand '%s' (info or "
                               "export)", sub);
    uint64_t target = 0;
    unsigned depth = 0, partitions = 1;
    long corrupt = -1; /* hidden, for tests: partition whose path is broken */
    const char *seed = DEFAULT_SEED, *out_dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(a)) {
            fputs(circuit_help, stdout);
            return 0;
        }
        if (!val || a[0] != '-')
            return cli_usage_error("circuit", "%s: expected an option with a "
                                   "value", a);
        i++;
        if (strcmp(a, "--constraints") == 0) {
            if (!cli_parse_constraints(val, &target))
                return cli_usage_error("circuit", "--constraints takes 2^K "
                                       "(K from 4 to 28) or a number, not "
                                       "'%s'", val);
        } else if (strcmp(a, "--depth") == 0) {
            if (!cli_parse_count(val, &depth) || depth > 32)
                return cli_usage_error("circuit", "--depth takes 1 to 32, not "
                                       "'%s'", val);
        } else if (strcmp(a, "--partitions") == 0) {
            if (!cli_parse_count(val, &partitions))
                return cli_usage_error("circuit", "--partitions takes 1 to "
                                       "4096, not '%s'", val);
        } else if (strcmp(a, "--seed") == 0) {
            seed = val;
        } else if (strcmp(a, "--out") == 0) {
            out_dir = val;
        } else if (strcmp(a, "--x-corrupt-sibling") == 0) {
            corrupt = strtol(val, NULL, 10);
        } else {
            return cli_usage_error("circuit", "unknown option %s", a);
        }
    }
    if (!target)
        return cli_usage_error("circuit", "needs --constraints 2^K%s", "");
    if (do_export && !out_dir)
        return cli_usage_error("circuit", "export needs --out DIR%s", "");

    pl_error err = {0};
    pl_status st;
    porep_params params;
    size_t nc, np, nw;
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    if ((st = porep_params_for(&params, target, depth, &err)) ||
        (st = porep_shape(&params, &nc, &np, &nw, &err)))
        goto done;
    if (!do_export) {
        printf("openings=%u\ndepth=%u\nrounds=%u\nconstraints=%zu\npublic=%zu"
               "\nwires=%zu\ndomain=%llu\n", params.openings, params.depth,
               params.rounds, nc, np, nw,
               1ull << cli_log2_ceil((uint64_t)nc + np + 1));
        goto done;
    }
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        st = PL_EIO;
        snprintf(err.msg, sizeof(err.msg), "%s: cannot create: %s", out_dir,
                 strerror(errno));
        goto done;
    }
    cli_describe_porep(stderr, &params, nc, np, nw);
    char path[4096];
    double t0 = cli_now();
    snprintf(path, sizeof(path), "%s/circuit.r1cs", out_dir);
    if ((st = porep_inputs_create(&in, &params, seed, 0, &err)) ||
        (st = pl_cs_create_recording(&cs, &err)) ||
        (st = pl_cs_run(cs, porep_circuit, in, &err)) ||
        (st = pl_cs_write_r1cs(cs, path, &err)))
        goto done;
    double t_record = cli_now() - t0;
    pl_cs_destroy(cs);
    cs = NULL;
    porep_inputs_destroy(in);
    in = NULL;
    double t_witness = 0;
    for (unsigned p = 0; p < partitions; p++) {
        t0 = cli_now();
        if ((st = porep_inputs_create(&in, &params, seed, p, &err)))
            goto done;
        if ((long)p == corrupt)
            porep_inputs_corrupt_sibling(in, 0, 0);
        if ((st = pl_cs_create_witness_only(&cs, np, nw, NULL, &err)) ||
            (st = pl_cs_run(cs, porep_circuit, in, &err)))
            goto done;
        t_witness += cli_now() - t0;
        snprintf(path, sizeof(path), "%s/p%u.wtns", out_dir, p);
        if ((st = pl_cs_write_wtns(cs, path, &err)))
            goto done;
        pl_cs_destroy(cs);
        cs = NULL;
        porep_inputs_destroy(in);
        in = NULL;
    }
    printf("openings=%u\ndepth=%u\nrounds=%u\nconstraints=%zu\npublic=%zu\n"
           "wires=%zu\nr1cs=%s/circuit.r1cs\nwitnesses=%u\n"
           "record_seconds=%.3f\nwitness_seconds_per_partition=%.4f\n",
           params.openings, params.depth, params.rounds, nc, np, nw, out_dir,
           partitions, t_record, t_witness / partitions);
done:
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st == PL_OK ? 0 : cli_fail("circuit", st, &err);
}
