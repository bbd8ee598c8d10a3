/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline calibrate`: this machine's stage costs for `proofline plan`.
 * For each size (2^12, 2^14, 2^16 by default) it makes the PoRep-like demo
 * circuit and a development key (cached), proves a few partitions through
 * the engine one at a time (pw 1, one prover worker, a budget of one
 * partition: no stage shares the cores with another), takes each stage's
 * median from the ledger's events (synthesis: synth_start to synth_done;
 * the start: prove_start to abc_freed; the finish: abc_freed to
 * dealloc_done), fits fixed + per_row x domain rows by least squares, and
 * writes the costs file (docs/plan.md).
 *
 * With --validate it then runs each size again under three configurations
 * (pw 1 with a budget of one partition, pw 2 with three, pw 2 unlimited)
 * and plans the same job with the costs just measured, printing the table
 * of bench/plan_validate.sh: peak reserved (the plan's must equal the
 * run's), peak RssAnon and wall time, planned against measured.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cmd_circuit.h"
#include "options.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SIZES 8
#define MAX_EVENTS 4096

static const cli_command calibrate_cmd = {
    "calibrate",
    "Usage: proofline calibrate [--out FILE] [options]\n"
    "\n"
    "Measures this machine's stage costs for `proofline plan`: the demo\n"
    "circuit (made and cached on the first run) proved through the engine one\n"
    "partition at a time at a few sizes; each stage's seconds fitted as\n"
    "fixed + per_row x domain rows, written as a costs file (docs/plan.md).\n"
    "The demo circuit is BLS12-381's, so these are BLS12-381's stages (the\n"
    "file's lines without a `curve` line); BN254's go after `curve bn128`.\n",
    "\n"
    "--validate then runs each size under three configurations and plans the\n"
    "same jobs: peak reserved (must be equal), peak RssAnon and wall time,\n"
    "planned against measured (bench/plan_validate.sh prints it).\n",
    27};

typedef struct {
    const char *out, *cache, *sizes, *profile, *backend;
    unsigned partitions, threads, validate_partitions;
    bool validate;
} calibrate_options;

#define O(field) offsetof(calibrate_options, field)
static const cli_opt calibrate_opts[] = {
    {"--out", "FILE", CLI_STRING, O(out),
     .help = "the costs file (default proofline.costs)", .io = CLI_OUT},
    {"--sizes", "LIST", CLI_STRING, O(sizes),
     .help = "log2 of the constraints, comma-separated (default\n"
             "12,14,16)"},
    {"--partitions", "N", CLI_COUNT, O(partitions), .max = 64,
     .help = "partitions measured per size (default 3)"},
    {"--threads", "N", CLI_COUNT, O(threads),
     .help = "prover threads (default: one per core)"},
    {"--cache", "DIR", CLI_STRING, O(cache),
     .help = "where circuits and keys are kept (default\n"
             "./proofline-calibrate-cache)"},
    {"--profile", "NAME", CLI_STRING, O(profile),
     .help = "the profile's name (default cpu-<cores>core)"},
    {"--backend", "B", CLI_STRING, O(backend),
     .help = "cpu (default) or cuda: where the start runs (a cuda\n"
             "profile says device gpu)"},
    {"--validate", NULL, CLI_FLAG, O(validate),
     .help = "then plan against runs at each size (a table)"},
    {"--validate-partitions", "N", CLI_COUNT, O(validate_partitions),
     .max = 64, .help = "partitions per validation run (default 6)"},
    {NULL},
};

/* ---- the circuit of one size ------------------------------------------ */

typedef struct {
    unsigned log2;
    porep_params params;
    size_t n_constraints, n_public, n_wires;
    char dir[4096], r1cs[4200], zkey[4200];
    uint64_t rows;
} circuit;

static pl_status prepare(circuit *c, const char *cache, unsigned log2,
                         unsigned threads, pl_error *err)
{
    pl_status st;
    c->log2 = log2;
    if ((st = porep_params_for(&c->params, 1ull << log2, 0, err)) ||
        (st = porep_shape(&c->params, &c->n_constraints, &c->n_public,
                          &c->n_wires, err)))
        return st;
    c->rows = 1ull << cli_porep_log2(c->n_constraints, c->n_public);
    snprintf(c->dir, sizeof(c->dir), "%s/porep-2^%u", cache, log2);
    snprintf(c->r1cs, sizeof(c->r1cs), "%s/circuit.r1cs", c->dir);
    snprintf(c->zkey, sizeof(c->zkey), "%s/circuit.zkey", c->dir);
    if ((st = cli_make_dir(c->dir, true, err)))
        return st;
    struct stat sb;
    pl_r1cs *r = NULL;
    if (stat(c->zkey, &sb) == 0 && pl_r1cs_open(&r, c->r1cs, NULL) == PL_OK) {
        pl_r1cs_info i;
        pl_r1cs_get_info(r, &i);
        pl_r1cs_close(r);
        if (i.n_constraints == c->n_constraints && i.n_wires == c->n_wires)
            return PL_OK; /* made before */
    }
    printf("calibrate: making the demo circuit of 2^%u and its development "
           "key in %s...\n", log2, c->dir);
    fflush(stdout);
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    pl_setup_config scfg;
    pl_setup_config_init(&scfg);
    scfg.threads = threads;
    if (!(st = porep_inputs_create(&in, &c->params, CLI_POREP_SEED, 0, err)) &&
        !(st = pl_cs_create_recording(&cs, err)) &&
        !(st = pl_cs_run(cs, porep_circuit, in, err)) &&
        !(st = pl_cs_write_r1cs(cs, c->r1cs, err)))
        st = pl_setup_dev(c->r1cs, c->zkey, &scfg, err);
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st;
}

/* ---- one run through the engine --------------------------------------- */

typedef struct {
    const circuit *c;
    pthread_mutex_t lock;
    size_t n;
    struct {
        pl_event event;
        size_t partition;
        double t;
    } ev[MAX_EVENTS];
} run_log;

static void on_event(void *user, const pl_ledger_record *r)
{
    run_log *log = user;
    pthread_mutex_lock(&log->lock);
    if (log->n < MAX_EVENTS) {
        log->ev[log->n].event = r->event;
        log->ev[log->n].partition = r->partition;
        log->ev[log->n].t = r->t_seconds;
        log->n++;
    }
    pthread_mutex_unlock(&log->lock);
}

/* The backend every run uses (--backend). */
static const char *run_backend = "cpu";

/* The demo circuit, witness-only, into the engine's witness buffer. */
static pl_status generate(void *user, size_t partition, pl_scalar *out,
                          size_t n, pl_error *err)
{
    const run_log *log = user;
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    pl_status st = porep_inputs_create(&in, &log->c->params, CLI_POREP_SEED,
                                       partition, err);
    if (st == PL_OK)
        st = pl_cs_create_witness_only(&cs, log->c->n_public, n, out, err);
    if (st == PL_OK)
        st = pl_cs_run(cs, porep_circuit, in, err);
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st;
}

typedef struct {
    double stage[PL_PLAN_STAGE_COUNT]; /* medians */
    double wall;
    uint64_t budget, part_bytes, resident;
    pl_engine_stats stats;
} run_result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double event_time(const run_log *log, pl_event ev, size_t part)
{
    for (size_t i = 0; i < log->n; i++)
        if (log->ev[i].event == ev && log->ev[i].partition == part)
            return log->ev[i].t;
    return NAN;
}

/* n partitions of c through an engine of pw synthesis workers, one prover
 * worker and a budget of budget_parts partitions (0: no limit). */
static pl_status run_engine(run_result *out, const circuit *c, unsigned pw,
                            unsigned budget_parts, size_t n, unsigned threads,
                            pl_error *err)
{
    static run_log log; /* large: not on the stack */
    memset(out, 0, sizeof(*out));
    memset(&log, 0, sizeof(log));
    pthread_mutex_init(&log.lock, NULL);
    log.c = c;
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.threads = threads;
    cfg.backend = run_backend;
    cfg.synth_workers = 1;
    pl_engine *e = NULL;
    pl_circuit *circ = NULL;
    pl_status st;
    /* the bytes first, from an engine that only opens the circuit */
    if ((st = pl_engine_create(&e, &cfg, err)) ||
        (st = pl_engine_open_circuit(e, &circ, c->zkey, NULL, err)))
        goto done;
    pl_circuit_plan(circ, (uint64_t)c->n_wires * 32, &out->part_bytes,
                    &out->resident);
    pl_circuit_release(circ);
    circ = NULL;
    if ((st = pl_engine_destroy(e, err)))
        return st;
    e = NULL;
    out->budget = budget_parts ? out->resident + budget_parts * out->part_bytes
                               : 1ull << 50;
    cfg.budget_bytes = out->budget;
    cfg.synth_workers = pw;
    cfg.prover_workers = 1;
    cfg.on_event = on_event;
    cfg.on_event_user = &log;
    if ((st = pl_engine_create(&e, &cfg, err)) ||
        (st = pl_engine_open_circuit(e, &circ, c->zkey, NULL, err)))
        goto done;
    pl_job_spec spec = {.circuit = circ, .n_partitions = n,
                        .generate = generate, .generate_user = &log};
    uint64_t id;
    pl_job_status js;
    double t0 = cli_now();
    if ((st = pl_engine_submit(e, &id, &spec, err)) ||
        (st = pl_engine_wait(e, id, &js, err)))
        goto done;
    out->wall = cli_now() - t0;
    if ((st = js.status) != PL_OK) {
        *err = js.error;
        goto done;
    }
    pl_engine_stats_read(e, &out->stats);
    double v[PL_PLAN_STAGE_COUNT][64];
    static const pl_event from[] = {PL_EV_SYNTH_START, PL_EV_PROVE_START,
                                    PL_EV_ABC_FREED};
    static const pl_event to[] = {PL_EV_SYNTH_DONE, PL_EV_ABC_FREED,
                                  PL_EV_DEALLOC_DONE};
    size_t m = n < 64 ? n : 64;
    for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++) {
        for (size_t p = 0; p < m; p++)
            v[s][p] = event_time(&log, to[s], p) - event_time(&log, from[s], p);
        qsort(v[s], m, sizeof(double), cmp_double);
        out->stage[s] = v[s][m / 2];
    }
done:
    pl_circuit_release(circ);
    pl_status st2 = pl_engine_destroy(e, err);
    return st ? st : st2;
}

/* ---- the fit and the validation ---------------------------------------- */

/* y = fixed + per_row x, least squares; neither below 0. */
static void fit(const double *x, const double *y, size_t n, double *fixed,
                double *per_row)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i] / n;
        my += y[i] / n;
    }
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    *per_row = sxx > 0 ? sxy / sxx : 0;
    *fixed = my - *per_row * mx;
    if (*per_row < 0) {
        *per_row = 0;
        *fixed = my;
    }
    if (*fixed < 0) { /* through the origin */
        double xy = 0, xx = 0;
        for (size_t i = 0; i < n; i++) {
            xy += x[i] * y[i];
            xx += x[i] * x[i];
        }
        *fixed = 0;
        *per_row = xx > 0 ? xy / xx : 0;
    }
}

static pl_status validate(const circuit *cs, size_t n_sizes,
                          const pl_plan_costs *costs, unsigned threads,
                          size_t n, pl_error *err)
{
    static const struct {
        unsigned pw, budget_parts;
    } configs[] = {{1, 1}, {2, 3}, {2, 0}};
    printf("\n| size | pw | budget | peak reserved run | plan | equal | "
           "RssAnon run | plan | ratio | wall run | plan | ratio |\n"
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
           "--- | --- |\n");
    size_t exact = 0, rss_ok = 0, wall_ok = 0, rows = 0;
    for (size_t i = 0; i < n_sizes; i++) {
        /* The machine is shared and its speed drifts from minute to
         * minute: each size is planned with the stage costs of its own
         * first run (pw 1, a budget of one partition: calibrate's way),
         * so that the other two rows test the scheduling and the sharing
         * of the cores, not the drift since the fit. */
        pl_plan_costs local = *costs;
        for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++) {
            run_result r;
            pl_status st = run_engine(&r, &cs[i], configs[k].pw,
                                      configs[k].budget_parts, n, threads,
                                      err);
            if (st)
                return st;
            if (k == 0)
                for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++) {
                    local.fixed[s] = r.stage[s];
                    local.per_row[s] = 0;
                }
            pl_plan_config pc;
            pl_plan_config_init(&pc);
            pc.zkey_path = cs[i].zkey;
            pc.cores = threads;
            pc.memory_bytes = 1ull << 50;
            pc.baseline_bytes = r.stats.baseline_rss_anon_bytes;
            pc.synth_workers = configs[k].pw;
            pc.prover_workers = 1;
            pc.budget_bytes = r.budget;
            pc.jobs = 1;
            pc.partitions = n;
            pc.costs = &local;
            pl_plan *plan;
            if ((st = pl_plan_run(&plan, &pc, err)))
                return st;
            pl_plan_result pr;
            pl_plan_result_read(plan, &pr);
            pl_plan_destroy(plan);
            char b1[24], b2[24], b3[24], b4[24], budget[24];
            double rss_ratio = (double)pr.peak_memory_bytes /
                               (double)r.stats.peak_rss_anon_bytes;
            double wall_ratio = pr.wall_seconds / r.wall;
            bool equal = pr.peak_reserved_bytes == r.stats.peak_reserved_bytes;
            exact += equal;
            rss_ok += fabs(rss_ratio - 1) <= 0.10;
            wall_ok += fabs(wall_ratio - 1) <= 0.25;
            rows++;
            if (configs[k].budget_parts)
                snprintf(budget, sizeof(budget), "%u partition%s",
                         configs[k].budget_parts,
                         configs[k].budget_parts == 1 ? "" : "s");
            else
                snprintf(budget, sizeof(budget), "unlimited");
            printf("| 2^%u | %u | %s | %s | %s | %s | %s | %s | %.2f | "
                   "%.2f s | %.2f s | %.2f |\n", cs[i].log2, configs[k].pw,
                   budget,
                   pl_format_bytes(b1, sizeof(b1),
                                   r.stats.peak_reserved_bytes),
                   pl_format_bytes(b2, sizeof(b2), pr.peak_reserved_bytes),
                   equal ? "yes" : "NO",
                   pl_format_bytes(b3, sizeof(b3),
                                   r.stats.peak_rss_anon_bytes),
                   pl_format_bytes(b4, sizeof(b4), pr.peak_memory_bytes),
                   rss_ratio, r.wall, pr.wall_seconds, wall_ratio);
            fflush(stdout);
        }
    }
    printf("\nvalidate: peak reserved equal in %zu of %zu; RssAnon within "
           "10%% in %zu; wall within 25%% in %zu\n", exact, rows, rss_ok,
           wall_ok);
    return PL_OK;
}

static int calibrate_main(calibrate_options *o)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    unsigned logs[MAX_SIZES];
    size_t n_sizes = 0;
    const char *p = o->sizes;
    while (*p) {
        char *end;
        unsigned long k = strtoul(p, &end, 10);
        if (end == p || k < 8 || k > 24 || n_sizes == MAX_SIZES ||
            (*end && *end != ','))
            return cli_usage_error("calibrate", "--sizes: '%s' is not a list "
                                   "of 2 to %d exponents from 8 to 24 (12,14,"
                                   "16)", o->sizes, MAX_SIZES);
        logs[n_sizes++] = (unsigned)k;
        p = *end ? end + 1 : end;
    }
    if (n_sizes < 2 && !o->validate)
        return cli_usage_error("calibrate", "--sizes: two sizes at least, "
                               "to fit a line");
    unsigned threads = cli_threads(o->threads);
    if (o->backend && strcmp(o->backend, "cpu") != 0 &&
        strcmp(o->backend, "cuda") != 0)
        return cli_usage_error("calibrate", "--backend is cpu or cuda, not "
                               "'%s'", o->backend);
    if (o->backend)
        run_backend = o->backend;
    bool gpu = strcmp(run_backend, "cuda") == 0;
    static circuit cs[MAX_SIZES];
    double x[MAX_SIZES], y[PL_PLAN_STAGE_COUNT][MAX_SIZES];
    for (size_t i = 0; i < n_sizes; i++) {
        if ((st = prepare(&cs[i], o->cache, logs[i], threads, &err)))
            goto done;
        run_result r;
        if ((st = run_engine(&r, &cs[i], 1, 1, o->partitions, threads, &err)))
            goto done;
        x[i] = (double)cs[i].rows;
        for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++)
            y[s][i] = r.stage[s];
        printf("calibrate: 2^%u (domain %llu rows): synthesis %.4f s, start "
               "%.4f s, finish %.4f s (medians of %u)\n", logs[i],
               (unsigned long long)cs[i].rows, r.stage[0], r.stage[1],
               r.stage[2], o->partitions);
        fflush(stdout);
    }
    pl_plan_costs costs;
    memset(&costs, 0, sizeof(costs));
    if (o->profile)
        snprintf(costs.profile, sizeof(costs.profile), "%s", o->profile);
    else
        snprintf(costs.profile, sizeof(costs.profile), "%s-%ucore",
                 gpu ? "gpu" : "cpu", threads);
    snprintf(costs.source, sizeof(costs.source), "measured by proofline "
             "calibrate: the demo circuit at 2^%u..2^%u, medians of %u "
             "partitions, %s backend, %u threads", logs[0],
             logs[n_sizes - 1], o->partitions, gpu ? "CUDA" : "CPU", threads);
    costs.cores = threads;
    costs.gpu = gpu;
    for (int s = 0; s < PL_PLAN_STAGE_COUNT; s++)
        fit(x, y[s], n_sizes, &costs.fixed[s], &costs.per_row[s]);
    if ((st = pl_plan_costs_write(o->out, &costs, &err)))
        goto done;
    printf("calibrate: wrote %s (%s)\n", o->out, costs.profile);
    fflush(stdout);
    if (o->validate)
        st = validate(cs, n_sizes, &costs, threads, o->validate_partitions,
                      &err);
done:
    return cli_exit("calibrate", st, &err);
}

int cli_calibrate(int argc, char **argv)
{
    calibrate_options o = {.out = "proofline.costs",
                           .cache = "./proofline-calibrate-cache",
                           .sizes = "12,14,16", .partitions = 3,
                           .validate_partitions = 6};
    const cli_table tables[] = {{calibrate_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&calibrate_cmd, tables, 1, argc, argv, &npos);
    if (rc == CLI_RUN && npos > 0)
        rc = cli_usage_error("calibrate", "unexpected argument '%s'", argv[0]);
    if (rc == CLI_RUN)
        rc = calibrate_main(&o);
    return rc;
}
