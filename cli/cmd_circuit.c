/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline circuit`: the PoRep-like demo circuit (examples/porep) as
 * snarkjs files.  `info` prints the shape chosen for a constraint target;
 * `export` records the circuit once (DIR/circuit.r1cs) and writes each
 * partition's witness with the cached, witness-only path (DIR/p<i>.wtns),
 * so that `proofline setup --dev`, `proofline prove` and snarkjs can take
 * it from there.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cmd_circuit.h"
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_command circuit_cmd = {
    "circuit",
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
    "each partition (witness-only: the per-proof path).\n",
    NULL, 21};

typedef struct {
    uint64_t target;
    unsigned depth, partitions;
    const char *seed, *out_dir;
    long corrupt; /* hidden, for tests: the partition whose path is broken */
} circuit_options;

#define O(field) offsetof(circuit_options, field)
static const cli_opt circuit_opts[] = {
    {"--constraints", "N", CLI_CONSTRAINTS, O(target),
     .help = "the target, 2^K or a number (required)"},
    {"--depth", "D", CLI_COUNT, O(depth),
     .help = "tree depth (default: chosen)",
     .bad = "%s takes 1 to 32, not '%s'", .max = 32},
    {"--partitions", "N", CLI_COUNT, O(partitions),
     .help = "witnesses to write (default 1)",
     .bad = "%s takes 1 to 4096, not '%s'"},
    {"--seed", "S", CLI_STRING, O(seed),
     .help = "input seed (default \"" CLI_POREP_SEED "\")"},
    {"--out", "DIR", CLI_STRING, O(out_dir),
     .help = "where the files go (export; created if missing)"},
    /* hidden (no help): for tests */
    {"--x-corrupt-sibling", "P", CLI_LONG, O(corrupt), .help = NULL},
    /* export writes DIR/circuit.r1cs and DIR/p<i>.wtns */
    {CLI_ARGUMENTS, .derives_files = true},
    {NULL},
};

unsigned cli_porep_log2(size_t n_constraints, size_t n_public)
{
    uint64_t n = (uint64_t)n_constraints + n_public + 1;
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
            nc, np, nw, cli_porep_log2(nc, np));
}

/* Partition p's witness, written to DIR/p<p>.wtns; adds its time. */
static pl_status export_witness(const circuit_options *o,
                                const porep_params *params, size_t np,
                                size_t nw, unsigned p, double *seconds,
                                pl_error *err)
{
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    char path[4096];
    double t0 = cli_now();
    pl_status st = porep_inputs_create(&in, params, o->seed, p, err);
    if (st != PL_OK)
        goto done;
    if ((long)p == o->corrupt)
        porep_inputs_corrupt_sibling(in, 0, 0);
    if ((st = pl_cs_create_witness_only(&cs, np, nw, NULL, err)) ||
        (st = pl_cs_run(cs, porep_circuit, in, err)))
        goto done;
    *seconds += cli_now() - t0;
    snprintf(path, sizeof(path), "%s/p%u.wtns", o->out_dir, p);
    st = pl_cs_write_wtns(cs, path, err);
done:
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st;
}

/* DIR/circuit.r1cs, recorded from partition 0's inputs; its time. */
static pl_status export_r1cs(const circuit_options *o,
                             const porep_params *params, double *seconds,
                             pl_error *err)
{
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    char path[4096];
    double t0 = cli_now();
    snprintf(path, sizeof(path), "%s/circuit.r1cs", o->out_dir);
    pl_status st;
    if ((st = porep_inputs_create(&in, params, o->seed, 0, err)) ||
        (st = pl_cs_create_recording(&cs, err)) ||
        (st = pl_cs_run(cs, porep_circuit, in, err)) ||
        (st = pl_cs_write_r1cs(cs, path, err)))
        goto done;
    *seconds = cli_now() - t0;
done:
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st;
}

/* DIR/circuit.r1cs and each DIR/p<i>.wtns, checked before the first is
 * written (cli_check_files): writable, none a folder, no two the same
 * file. */
static pl_status check_outputs(const circuit_options *o, pl_error *err)
{
    const size_t n = (size_t)o->partitions + 1, len = strlen(o->out_dir) + 32;
    char **paths = calloc(n, sizeof(char *));
    pl_status st = PL_OK;
    for (size_t i = 0; paths && i < n && (paths[i] = malloc(len)); i++)
        if (i == 0)
            snprintf(paths[i], len, "%s/circuit.r1cs", o->out_dir);
        else
            snprintf(paths[i], len, "%s/p%zu.wtns", o->out_dir, i - 1);
    if (!paths || !paths[n - 1]) {
        st = PL_ENOMEM;
        pl__error_set(err, st, "out of memory for %zu paths", n);
    } else {
        st = cli_check_files(NULL, 0, NULL, 0,
                             (const char *const *)paths, n, NULL, 0, err);
    }
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    return st;
}

static int circuit_run(const circuit_options *o, bool do_export)
{
    pl_error err = {0};
    porep_params params;
    size_t nc, np, nw;
    double t_record = 0, t_witness = 0;
    pl_status st;
    if ((st = porep_params_for(&params, o->target, o->depth, &err)) ||
        (st = porep_shape(&params, &nc, &np, &nw, &err)))
        goto done;
    if (!do_export) {
        printf("openings=%u\ndepth=%u\nrounds=%u\nconstraints=%zu\npublic=%zu"
               "\nwires=%zu\ndomain=%llu\n", params.openings, params.depth,
               params.rounds, nc, np, nw, 1ull << cli_porep_log2(nc, np));
        goto done;
    }
    if ((st = cli_make_dir(o->out_dir, false, &err)) ||
        (st = check_outputs(o, &err)))
        goto done;
    cli_describe_porep(stderr, &params, nc, np, nw);
    if ((st = export_r1cs(o, &params, &t_record, &err)))
        goto done;
    for (unsigned p = 0; p < o->partitions; p++)
        if ((st = export_witness(o, &params, np, nw, p, &t_witness, &err)))
            goto done;
    printf("openings=%u\ndepth=%u\nrounds=%u\nconstraints=%zu\npublic=%zu\n"
           "wires=%zu\nr1cs=%s/circuit.r1cs\nwitnesses=%u\n"
           "record_seconds=%.3f\nwitness_seconds_per_partition=%.4f\n",
           params.openings, params.depth, params.rounds, nc, np, nw,
           o->out_dir, o->partitions, t_record, t_witness / o->partitions);
done:
    return cli_exit("circuit", st, &err);
}

int cli_circuit(int argc, char **argv)
{
    circuit_options o = {.partitions = 1, .seed = CLI_POREP_SEED,
                         .corrupt = -1};
    const cli_table tables[] = {{circuit_opts, &o}};
    int rc = CLI_RUN, npos = 0;
    bool do_export = argc >= 1 && strcmp(argv[0], "export") == 0;
    if (argc < 1 || cli_is_help(argv[0])) {
        cli_help(argc < 1 ? stderr : stdout, &circuit_cmd, tables, 1);
        rc = argc < 1 ? 2 : 0;
    } else if (!do_export && strcmp(argv[0], "info") != 0) {
        rc = cli_usage_error("circuit", "unknown subcommand '%s' (info or "
                             "export)", argv[0]);
    } else {
        rc = cli_parse(&circuit_cmd, tables, 1, argc - 1, argv + 1, &npos);
    }
    if (rc == CLI_RUN && npos > 0)
        rc = cli_usage_error("circuit", "%s: expected an option with a value",
                             argv[1]);
    else if (rc == CLI_RUN && !o.target)
        rc = cli_usage_error("circuit", "needs --constraints 2^K");
    else if (rc == CLI_RUN && do_export && !o.out_dir)
        rc = cli_usage_error("circuit", "export needs --out DIR");
    return rc == CLI_RUN ? circuit_run(&o, do_export) : rc;
}
