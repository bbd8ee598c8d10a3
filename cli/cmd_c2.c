/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline c2`: proofs in bellperson's bytes through the SupraSeal-C2-
 * shaped API (proofline_c2.h), for circuits given as an r1cs and
 * witnesses: each witness becomes the assignment bellperson's synthesis
 * would leave (pl_c2_assignment_from_r1cs), all of them are proved in one
 * pl_c2_prove call against a bellperson parameter file, and the proofs
 * (192 bytes each, concatenated) and their public inputs (32-byte
 * little-endian values) are written for `verify --format bellperson`.
 * Each assignment's a, b, c are freed as soon as the prover has read them.
 */
#define _GNU_SOURCE
#include "cli.h"
#include "options.h"
#include "proofline_c2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static const cli_command c2_cmd = {
    "c2",
    "Usage: proofline c2 --params <circuit.params> --r1cs <circuit.r1cs>\n"
    "                    --proofs <out.proofs> [--inputs <out.inputs>]\n"
    "                    <w1.wtns> [w2.wtns ...]\n"
    "\n"
    "Proves witnesses of a circuit through the SupraSeal-C2-shaped C API\n"
    "(include/proofline_c2.h, docs/filecoin.md): each witness is turned into\n"
    "a bellperson proving assignment (a, b, c per constraint, densities),\n"
    "and all are proved in one call against a bellperson parameter file\n"
    "(from `setup --dev --format bellperson`).  Writes the proofs as 192-byte\n"
    "records, concatenated, and with --inputs their public inputs.\n",
    NULL, 24};

typedef struct {
    const char *params, *r1cs, *proofs, *inputs, *backend;
    bool check_params, timings, log;
    uint64_t budget;
    unsigned threads;
} c2_options;

#define O(field) offsetof(c2_options, field)
static const cli_opt c2_opts[] = {
    {"--params", "FILE", CLI_STRING, O(params),
     .help = "the bellperson parameter file (required)"},
    {"--r1cs", "FILE", CLI_STRING, O(r1cs),
     .help = "the circuit's constraints (required)"},
    {"--proofs", "FILE", CLI_STRING, O(proofs),
     .help = "where the proofs go (required)"},
    {"--inputs", "FILE", CLI_STRING, O(inputs),
     .help = "where their public inputs go"},
    {"--check-params", NULL, CLI_FLAG, O(check_params),
     .help = "check every point of the parameter file first"},
    {"--threads", "N", CLI_COUNT, O(threads),
     .help = "worker threads (default: one per core)"},
    {"--timings", NULL, CLI_FLAG, O(timings),
     .help = "print the stages' times to stderr"},
    {"--budget", "SIZE", CLI_SIZE, O(budget),
     .help = "the byte budget (default: the SRS and one proof)"},
    {"--log", NULL, CLI_FLAG, O(log),
     .help = "the ledger's line per event to stderr"},
    {"--backend", "B", CLI_STRING, O(backend),
     .help = "cpu (default), cuda, or auto: H and the G1 sums\non a GPU"},
    {NULL},
};

/* Uniform below r by rejection: 255 random bits, kept when < r. */
static pl_status random_below_r(pl_scalar *out, pl_error *err)
{
    static const uint8_t r_le[32] = {
        0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
        0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
        0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    for (;;) {
        if (getrandom(out->b, sizeof(out->b), 0) != (ssize_t)sizeof(out->b)) {
            snprintf(err->msg, sizeof(err->msg), "getrandom failed");
            return PL_EIO;
        }
        out->b[31] &= 0x7f;
        int i = 31;
        while (i >= 0 && out->b[i] == r_le[i])
            i--;
        if (i >= 0 && out->b[i] < r_le[i])
            return PL_OK;
    }
}

static void release_abc(void *user, size_t proof)
{
    pl_c2_assignment *as = user;
    pl_c2_assignment_release_abc(&as[proof]);
}

static int c2_run(const c2_options *o, char **wtns_paths, size_t n)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    pl_r1cs *r1cs = NULL;
    pl_c2_srs *srs = NULL;
    pl_wtns **w = calloc(n, sizeof(*w));
    pl_c2_assignment *as = calloc(n, sizeof(*as));
    pl_scalar *rs = calloc(2 * n, sizeof(*rs));
    pl_proof *proofs = calloc(n, sizeof(*proofs));
    pl_scalar *publics = NULL;
    size_t n_public = 0;
    double t0 = cli_now();
    if (!w || !as || !rs || !proofs) {
        st = PL_ENOMEM;
        goto done;
    }
    const char *outs[2] = {o->proofs, o->inputs};
    /* the witnesses are inputs too: --proofs naming one would replace it */
    const char **ins = calloc(n + 2, sizeof(*ins));
    if (!ins) {
        st = PL_ENOMEM;
        goto done;
    }
    ins[0] = o->params;
    ins[1] = o->r1cs;
    memcpy(ins + 2, wtns_paths, n * sizeof(*ins));
    st = pl_output_check(outs, 2, ins, n + 2, &err);
    free(ins);
    if (st ||
        (st = pl_r1cs_open(&r1cs, o->r1cs, &err)) ||
        (st = pl_c2_srs_create(&srs, o->params, o->check_params, o->threads,
                               &err)))
        goto done;
    double t1 = cli_now();
    for (size_t i = 0; i < n && st == PL_OK; i++)
        if ((st = pl_wtns_open(&w[i], wtns_paths[i], &err)) == PL_OK)
            st = pl_c2_assignment_from_r1cs(&as[i], r1cs, w[i], &err);
    for (size_t i = 0; i < 2 * n && st == PL_OK; i++)
        st = random_below_r(&rs[i], &err);
    if (st)
        goto done;
    double t2 = cli_now();
    pl_c2_stats stats = {0};
    pl_c2_config cfg = {.abc_done = release_abc, .abc_done_user = as,
                        .budget_bytes = o->budget, .stats = &stats,
                        .backend = o->backend,
                        .log_level = o->log ? PL_LOG_INFO : PL_LOG_QUIET};
    if ((st = pl_c2_prove(proofs, as, n, rs, rs + n, srs, &cfg, &err)))
        goto done;
    double t3 = cli_now();
    n_public = as[0].inp_assignment_size - 1;
    if (o->inputs) {
        if (!(publics = calloc(n * n_public + 1, sizeof(*publics)))) {
            st = PL_ENOMEM;
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            memcpy(publics + i * n_public, as[i].inp_assignment + 1,
                   n_public * sizeof(*publics));
    }
    if ((st = pl_bp_proofs_write(o->proofs, proofs, n, &err)) ||
        (o->inputs &&
         (st = pl_bp_inputs_write(o->inputs, publics, n * n_public, &err))))
        goto done;
    if (o->timings)
        fprintf(stderr, "  srs        %8.3f s\n  assign     %8.3f s\n"
                        "  prove      %8.3f s (%zu proofs)\n"
                        "  budget     %" PRIu64 " B, peak reserved %" PRIu64
                        " B\n",
                t1 - t0, t2 - t1, t3 - t2, n, stats.budget_bytes,
                stats.peak_reserved_bytes);
done:
    memset(rs, 0, rs ? 2 * n * sizeof(*rs) : 0);
    for (size_t i = 0; as && i < n; i++)
        pl_c2_assignment_release(&as[i]);
    for (size_t i = 0; w && i < n; i++)
        pl_wtns_close(w[i]);
    free(publics);
    free(proofs);
    free(rs);
    free(as);
    free(w);
    pl_c2_srs_destroy(srs);
    pl_r1cs_close(r1cs);
    return cli_exit("c2", st, &err);
}

int cli_c2(int argc, char **argv)
{
    c2_options o = {0};
    const cli_table tables[] = {{c2_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&c2_cmd, tables, 1, argc, argv, &npos);
    if (rc == CLI_RUN && (!o.params || !o.r1cs || !o.proofs))
        rc = cli_usage_error("c2", "needs --params, --r1cs and --proofs");
    else if (rc == CLI_RUN && npos < 1)
        rc = cli_usage_error("c2", "needs at least one witness");
    return rc == CLI_RUN ? c2_run(&o, argv, (size_t)npos) : rc;
}
