/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline demo`: the main job on built-in defaults.  The PoRep-like
 * circuit (examples/porep) is recorded once and given a development key
 * (pl_setup_dev), both cached in a directory; then a job of N partitions
 * runs through the engine, each partition's witness computed by the
 * circuit in witness-only mode inside the engine's `generate` callback (on
 * the synthesis workers), a, b, c from the zkey's matrices, every proof
 * verified.  Prints throughput, the synthesis share (witness + a/b/c
 * against recording the constraints every time), the ledger summary, and
 * where the trace, the memory plot and the proofs went.
 *
 * With --format bellperson the same partitions go through the SupraSeal-
 * C2-shaped interface instead (proofline_c2.h, docs/filecoin.md): a
 * bellperson parameter file and .vk from `setup --dev --format bellperson`
 * cached beside the r1cs, a C2 job on the engine whose synthesis workers
 * run the circuit in assignment mode (a, b, c and densities evaluated as
 * the constraints are enforced, as bellperson's synthesis does; no zkey),
 * under the budget, every proof verified, the batch written as 192-byte
 * proofs.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cmd_circuit.h"
#include "job.h"
#include "options.h"
#include "proofline_c2.h"
#include "util/file.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* 16 partitions of 2^16: measured on our 2-core machine, about 8 s of
 * proving (7,000-7,500 proofs/hour, pw 1 or 2) plus 3-10 s to make the key
 * on the first run, 100 MiB peak RSS; on a busy machine up to 3x longer. */
#define DEFAULT_CACHE "./proofline-demo-cache"
#define DEFAULT_PARTITIONS 16u
#define DEFAULT_LOG2 16u
#define DEFAULT_BUDGET "1GiB"

static const cli_command demo_cmd = {
    "demo",
    "Usage: proofline demo [options]\n"
    "\n"
    "Proves a job of N partitions of the PoRep-like demo circuit (K openings\n"
    "of a SHA-256 Merkle tree per partition; see `proofline circuit --help`)\n"
    "through the engine: witnesses are computed by the circuit itself on the\n"
    "synthesis workers (witness-only: the constraints were recorded once),\n"
    "a, b, c come from the key's matrices, and every proof is verified.\n"
    "The r1cs and the development key (known toxic waste: a demo only) are\n"
    "made on the first run and cached.\n"
    "\n"
    "--format bellperson proves the same partitions through the SupraSeal-\n"
    "C2-shaped interface (docs/filecoin.md): a bellperson parameter file\n"
    "instead of the zkey, and the synthesis workers run the circuit the way\n"
    "bellperson synthesizes (a, b, c and densities as the constraints are\n"
    "enforced), under the budget; 192-byte proofs.\n"
    "\n"
    "--log FILE keeps the engine's ledger lines and the ledger's summary in\n"
    "FILE, so the terminal shows only what the demo did (what it built,\n"
    "proved and verified, the figures, where the files went); `make demo`\n"
    "writes them to build/demo.log.\n",
    NULL, 21};

typedef struct {
    unsigned partitions, depth;
    uint64_t target;
    const char *cache, *out_dir, *seed, *log;
    unsigned format; /* index in demo_formats[] */
    cli_engine_options engine;
} demo_options;

static const char *const demo_formats[] = {"zkey", "bellperson", NULL};

#define O(field) offsetof(demo_options, field)
static const cli_opt demo_opts[] = {
    {"--partitions", "N", CLI_COUNT, O(partitions),
     .help = "partitions in the job (default 16)"},
    {"--constraints", "N", CLI_CONSTRAINTS, O(target),
     .help = "constraints per partition, 2^K or a number\n(default 2^16)"},
    {"--depth", "D", CLI_COUNT, O(depth),
     .help = "tree depth (default: chosen for the size)",
     .bad = "%s takes 1 to 32, not '%s'", .max = 32},
    /* the shared --budget, with the demo's own default */
    {"--budget", "SIZE", CLI_SIZE, O(engine.cfg.budget_bytes),
     .help = "memory budget (default " DEFAULT_BUDGET ")"},
    {"--cache", "DIR", CLI_STRING, O(cache),
     .help = "where the r1cs and key are kept (default\n" DEFAULT_CACHE ")"},
    {"--out", "DIR", CLI_STRING, O(out_dir),
     .help = "trace, plot and proofs (default DIR/last-run under\nthe cache)"},
    {"--seed", "S", CLI_STRING, O(seed),
     .help = "input seed (default \"" CLI_POREP_SEED "\")"},
    {"--log", "FILE", CLI_STRING, O(log),
     .help = "the ledger's lines and summary go to FILE (default:\n"
             "stderr and stdout)"},
    {"--format", "F", CLI_CHOICE, O(format),
     .help = "zkey (the engine, default) or bellperson (the\nC2-shaped API)",
     .choices = demo_formats},
    {NULL},
};

/* One run: the circuit's shape, its files, and the synthesis timings. */
typedef struct {
    porep_params params;
    const char *seed;
    size_t n_constraints, n_public, n_wires;
    char dir[4096]; /* the cache of this shape and seed */
    char r1cs[4200], zkey[4200], vk[4200], meta[4200];
    char bp_params[4200], bp_vk[4200];
    char run_dir[4000], proof_dir[4096], trace[4200], plot[4200];
    double record_seconds, setup_seconds; /* when the cache was made */
    pthread_mutex_t lock; /* the synthesis workers add to what follows */
    double witness_seconds, abc_seconds;
    size_t witness_count, abc_count;
} demo_state;

/* pl_witness_fn: the circuit, witness-only, straight into the engine's
 * accounted witness buffer. */
static pl_status generate(void *user, size_t partition, pl_scalar *out,
                          size_t n, pl_error *err)
{
    demo_state *d = user;
    double t0 = cli_now();
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    pl_status st = porep_inputs_create(&in, &d->params, d->seed, partition,
                                       err);
    if (st == PL_OK)
        st = pl_cs_create_witness_only(&cs, d->n_public, n, out, err);
    if (st == PL_OK)
        st = pl_cs_run(cs, porep_circuit, in, err);
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    double t = cli_now() - t0;
    pthread_mutex_lock(&d->lock);
    d->witness_seconds += t;
    d->witness_count++;
    pthread_mutex_unlock(&d->lock);
    return st;
}

static void on_stage(void *user, const char *stage, double seconds)
{
    demo_state *d = user;
    if (strcmp(stage, "synthesize") != 0)
        return;
    pthread_mutex_lock(&d->lock);
    d->abc_seconds += seconds;
    d->abc_count++;
    pthread_mutex_unlock(&d->lock);
}

/* A directory per shape and seed (the seed's odd characters dropped), the
 * run's outputs in --out or DIR/last-run under the cache. */
static void demo_paths(demo_state *d, const demo_options *o)
{
    char tag[40];
    size_t t = 0;
    for (const char *s = o->seed; *s && t + 1 < sizeof(tag); s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
            (*s >= '0' && *s <= '9') || *s == '-' || *s == '_')
            tag[t++] = *s;
    tag[t] = '\0';
    snprintf(d->dir, sizeof(d->dir), "%s/porep-k%u-d%u-r%u-%s", o->cache,
             d->params.openings, d->params.depth, d->params.rounds, tag);
    snprintf(d->r1cs, sizeof(d->r1cs), "%s/circuit.r1cs", d->dir);
    snprintf(d->zkey, sizeof(d->zkey), "%s/circuit.zkey", d->dir);
    snprintf(d->vk, sizeof(d->vk), "%s/verification_key.json", d->dir);
    snprintf(d->meta, sizeof(d->meta), "%s/meta.txt", d->dir);
    snprintf(d->bp_params, sizeof(d->bp_params), "%s/circuit.params", d->dir);
    snprintf(d->bp_vk, sizeof(d->bp_vk), "%s/circuit.vk", d->dir);
    if (o->out_dir)
        snprintf(d->run_dir, sizeof(d->run_dir), "%s", o->out_dir);
    else
        snprintf(d->run_dir, sizeof(d->run_dir), "%s/last-run", o->cache);
    snprintf(d->proof_dir, sizeof(d->proof_dir), "%s/proofs", d->run_dir);
    snprintf(d->trace, sizeof(d->trace), "%s/trace.json", d->run_dir);
    snprintf(d->plot, sizeof(d->plot), "%s/memory.svg", d->run_dir);
}

/* The cache holds a key, its times, and an r1cs of this shape (a stale or
 * foreign one is rebuilt). */
static bool cache_valid(demo_state *d)
{
    struct stat sb;
    if (stat(d->zkey, &sb) != 0 || !S_ISREG(sb.st_mode))
        return false;
    FILE *f = fopen(d->meta, "r");
    if (!f)
        return false;
    int n = fscanf(f, "record_seconds=%lf\nsetup_seconds=%lf\n",
                   &d->record_seconds, &d->setup_seconds);
    fclose(f);
    pl_r1cs *r;
    if (n != 2 || pl_r1cs_open(&r, d->r1cs, NULL) != PL_OK)
        return false;
    pl_r1cs_info i;
    pl_r1cs_get_info(r, &i);
    pl_r1cs_close(r);
    return i.n_constraints == d->n_constraints && i.n_wires == d->n_wires &&
           (size_t)i.n_pub_out + i.n_pub_in == d->n_public;
}

/* Records the circuit (partition 0) into the r1cs, makes the key and the
 * verification key, and notes the times. */
static pl_status build_cache(demo_state *d, unsigned threads, pl_error *err)
{
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    pl_zkey *zk = NULL;
    pl_vkey *vkey = NULL;
    pl_setup_config scfg;
    pl_setup_config_init(&scfg);
    scfg.threads = threads;
    pl_status st;
    double t0 = cli_now();
    if ((st = porep_inputs_create(&in, &d->params, d->seed, 0, err)) ||
        (st = pl_cs_create_recording(&cs, err)) ||
        (st = pl_cs_run(cs, porep_circuit, in, err)))
        goto done;
    d->record_seconds = cli_now() - t0;
    if ((st = pl_cs_write_r1cs(cs, d->r1cs, err)))
        goto done;
    pl_cs_destroy(cs);
    cs = NULL;
    t0 = cli_now();
    if ((st = pl_setup_dev(d->r1cs, d->zkey, &scfg, err)))
        goto done;
    d->setup_seconds = cli_now() - t0;
    if ((st = pl_zkey_open(&zk, d->zkey, err)) ||
        (st = pl_vkey_from_zkey(&vkey, zk, err)) ||
        (st = pl_vkey_write_json(vkey, d->vk, err)))
        goto done;
    /* Through the library's one output path, like every file proofline
     * writes: a crash leaves the old note or the whole new one, and a
     * symlink planted at the note's name is replaced, not followed. */
    char note[128];
    int len = snprintf(note, sizeof(note),
                       "record_seconds=%.6f\nsetup_seconds=%.6f\n",
                       d->record_seconds, d->setup_seconds);
    st = pl__file_write_atomic(d->meta, note, (size_t)len, err);
done:
    pl_vkey_destroy(vkey);
    pl_zkey_close(zk);
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st;
}

/* The cache reused, or made now; says which. */
static pl_status demo_cache(demo_state *d, unsigned threads, pl_error *err)
{
    pl_status st = PL_OK;
    if (cache_valid(d)) {
        printf("cache: %s (reused: recorded in %.2f s, key made in %.1f s "
               "on its first run)\n", d->dir, d->record_seconds,
               d->setup_seconds);
    } else {
        printf("cache: %s: recording the circuit and making a development "
               "key (known toxic waste: demo only)...\n", d->dir);
        fflush(stdout);
        if ((st = build_cache(d, threads, err)) == PL_OK)
            printf("cache: recorded in %.2f s, key made in %.1f s\n",
                   d->record_seconds, d->setup_seconds);
    }
    fflush(stdout);
    return st;
}

/* ---- --format bellperson: the C2-shaped API ------------------------------ */

/* The r1cs of this shape (recorded now if missing or stale) and its
 * bellperson files (made now if missing). */
static pl_status bp_cache(demo_state *d, unsigned threads, pl_error *err)
{
    pl_status st = PL_OK;
    pl_r1cs *r = NULL;
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    bool r1cs_ok = false;
    struct stat sb;
    if (pl_r1cs_open(&r, d->r1cs, NULL) == PL_OK) {
        pl_r1cs_info i;
        pl_r1cs_get_info(r, &i);
        r1cs_ok = i.n_constraints == d->n_constraints &&
                  i.n_wires == d->n_wires &&
                  (size_t)i.n_pub_out + i.n_pub_in == d->n_public;
        pl_r1cs_close(r);
    }
    if (r1cs_ok && stat(d->bp_params, &sb) == 0 && stat(d->bp_vk, &sb) == 0) {
        printf("cache: %s (reused: circuit.r1cs, circuit.params, "
               "circuit.vk)\n", d->dir);
        return PL_OK;
    }
    printf("cache: %s: making the bellperson parameter file (known toxic "
           "waste: demo only)...\n", d->dir);
    fflush(stdout);
    double t0 = cli_now();
    if (!r1cs_ok &&
        ((st = porep_inputs_create(&in, &d->params, d->seed, 0, err)) ||
         (st = pl_cs_create_recording(&cs, err)) ||
         (st = pl_cs_run(cs, porep_circuit, in, err)) ||
         (st = pl_cs_write_r1cs(cs, d->r1cs, err))))
        goto done;
    pl_setup_config scfg;
    pl_setup_config_init(&scfg);
    scfg.threads = threads;
    if ((st = pl_setup_dev_bellperson(d->r1cs, d->bp_params, d->bp_vk, &scfg,
                                      err)))
        goto done;
    printf("cache: made in %.1f s\n", cli_now() - t0);
done:
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    fflush(stdout);
    return st;
}

/* A bellperson-format run: each partition's assignment lives from its
 * synthesis (on a synthesis worker) to its release (after its proof), in
 * the slots below; proofs are verified as they come. */
typedef struct {
    demo_state *d;
    pthread_mutex_t lock;
    pl_cs **cs;
    pl_c2_assignment *as;
    pl_proof *proofs;
    pl_scalar *publics; /* n x n_public */
    const pl_vkey *vkey;
    size_t verified, released;
} bp_run;

/* The circuit in assignment mode: its witness, and a, b, c with their
 * densities evaluated as its constraints are enforced, as bellperson's
 * synthesis does; nothing of the constraints kept, no zkey. */
static pl_status bp_synthesize(void *user, size_t k, pl_c2_assignment *out,
                               pl_error *err)
{
    bp_run *r = user;
    demo_state *d = r->d;
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    double t0 = cli_now();
    pl_status st = porep_inputs_create(&in, &d->params, d->seed, k, err);
    if (st == PL_OK &&
        (st = pl_cs_create_assignment(&cs, d->n_public, d->n_wires,
                                      d->n_constraints, NULL, err)) ==
            PL_OK &&
        (st = pl_cs_run(cs, porep_circuit, in, err)) == PL_OK)
        st = pl_cs_take_assignment(cs, out, err);
    porep_inputs_destroy(in);
    if (st != PL_OK) {
        pl_cs_destroy(cs);
        return st;
    }
    pthread_mutex_lock(&r->lock);
    r->cs[k] = cs;
    r->as[k] = *out;
    d->abc_seconds += cli_now() - t0;
    d->abc_count++;
    pthread_mutex_unlock(&r->lock);
    return PL_OK;
}

/* a, b, c are read: gone at once, while the sums run. */
static void bp_abc_done(void *user, size_t k)
{
    bp_run *r = user;
    pthread_mutex_lock(&r->lock);
    pl_c2_assignment_release_abc(&r->as[k]);
    pthread_mutex_unlock(&r->lock);
}

static void bp_release(void *user, size_t k)
{
    bp_run *r = user;
    pthread_mutex_lock(&r->lock);
    pl_c2_assignment_release(&r->as[k]);
    pl_cs_destroy(r->cs[k]);
    r->cs[k] = NULL;
    r->released++;
    pthread_mutex_unlock(&r->lock);
}

static void bp_proof(void *user, uint64_t job, size_t k,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public)
{
    (void)job;
    bp_run *r = user;
    pl_error err = {0};
    bool ok = pl_verify(r->vkey, proof, publics, n_public, &err) == PL_OK;
    pthread_mutex_lock(&r->lock);
    r->proofs[k] = *proof;
    memcpy(r->publics + k * n_public, publics, n_public * sizeof(*publics));
    r->verified += ok;
    pthread_mutex_unlock(&r->lock);
}

static pl_status demo_bellperson(demo_state *d, const demo_options *o,
                                 pl_error *err)
{
    const size_t n = o->partitions;
    pl_engine_config ecfg = o->engine.cfg;
    pl_status st;
    pl_engine *engine = NULL;
    pl_bp_params *vkf = NULL;
    pl_vkey *vkey = NULL;
    bp_run r = {.d = d, .lock = PTHREAD_MUTEX_INITIALIZER,
                .cs = calloc(n, sizeof(pl_cs *)),
                .as = calloc(n, sizeof(pl_c2_assignment)),
                .proofs = calloc(n, sizeof(pl_proof)),
                .publics = calloc(n * d->n_public + 1, sizeof(pl_scalar))};
    /* verified by the engine before delivery (as every path is), and
     * again by bp_proof against the .vk file the setup wrote */
    pl_c2_job_spec spec = {.n_partitions = n, .synthesize = bp_synthesize,
                           .synthesize_user = &r, .abc_done = bp_abc_done,
                           .release = bp_release, .verify = true,
                           .on_proof = bp_proof, .on_proof_user = &r};
    char proofs_path[4200], inputs_path[4200];
    snprintf(proofs_path, sizeof(proofs_path), "%s/proofs.bin", d->run_dir);
    snprintf(inputs_path, sizeof(inputs_path), "%s/inputs.bin", d->run_dir);
    if (!r.cs || !r.as || !r.proofs || !r.publics) {
        st = PL_ENOMEM;
        goto done;
    }
    if ((st = bp_cache(d, ecfg.threads, err)) ||
        (st = pl_bp_params_open(&vkf, d->bp_vk, err)) ||
        (st = pl_vkey_from_bp_params(&vkey, vkf, err)))
        goto done;
    r.vkey = vkey;
    ecfg.on_stage = NULL;
    if ((st = pl_engine_create(&engine, &ecfg, err)))
        goto done;
    /* the parameters read whole into the budget, as a zkey is */
    double t0 = cli_now();
    if ((st = pl_engine_open_c2_params(engine, &spec.circuit, d->bp_params,
                                       false, err)))
        goto done;
    double t_srs = cli_now() - t0;
    /* each partition reserves its proof's bytes and its assignment's */
    spec.abc_bytes = pl_cs_assignment_abc_bytes(d->n_public,
                                                d->n_constraints);
    spec.other_bytes = pl_cs_assignment_other_bytes(d->n_public, d->n_wires);
    uint64_t job;
    pl_job_status js;
    double t1 = cli_now();
    if ((st = pl_engine_submit_c2(engine, &job, &spec, err)) ||
        (st = pl_engine_wait(engine, job, &js, err)))
        goto done;
    if ((st = js.status) != PL_OK) {
        *err = js.error;
        goto done;
    }
    double t_prove = cli_now() - t1;
    if ((st = pl_bp_proofs_write_with_inputs(proofs_path, r.proofs, n,
                                             inputs_path, r.publics,
                                             n * d->n_public, err)) ||
        (st = pl_engine_write_trace(engine, d->trace, err)) ||
        (st = pl_engine_write_plot(engine, d->plot, err)))
        goto done;
    pl_engine_stats es;
    pl_engine_stats_read(engine, &es);
    char b1[32], b2[32], b3[32];
    printf("demo (bellperson): %zu proved, %zu verified in %.1f s: %.1f "
           "proofs/hour\n", js.proved, r.verified, t_prove,
           cli_per_hour(js.proved, t_prove));
    printf("SRS read and decoded in %.2f s; synthesis (witness + a/b/c and "
           "densities, on %u synthesis workers) %.1f ms per partition\n",
           t_srs, ecfg.synth_workers ? ecfg.synth_workers : 2,
           d->abc_count ? d->abc_seconds * 1e3 / (double)d->abc_count : 0.0);
    printf("memory: budget %s, peak reserved %s, peak RSS %s\n",
           pl_format_bytes(b1, sizeof(b1), es.budget_bytes),
           pl_format_bytes(b2, sizeof(b2), es.peak_reserved_bytes),
           pl_format_bytes(b3, sizeof(b3), es.peak_rss_bytes));
    printf("trace: %s\nplot: %s\nproofs: %s (192 bytes each), inputs: %s "
           "(verification key: %s)\n", d->trace, d->plot, proofs_path,
           inputs_path, d->bp_vk);
    if (r.verified != n) {
        st = PL_EINVALID;
        pl__error_set(err, st, "%zu of %zu proofs verified", r.verified, n);
        goto done;
    }
done:
    pl_circuit_release(spec.circuit);
    if (engine) {
        pl_error derr;
        pl_status dst = pl_engine_destroy(engine, &derr);
        if (st == PL_OK && dst != PL_OK) {
            st = dst;
            *err = derr;
        }
    }
    pl_vkey_destroy(vkey);
    pl_bp_params_close(vkf);
    for (size_t k = 0; r.cs && k < n; k++) { /* after a failure */
        pl_c2_assignment_release(&r.as[k]);
        pl_cs_destroy(r.cs[k]);
    }
    free(r.publics);
    free(r.proofs);
    free(r.as);
    free(r.cs);
    return st;
}

static void print_engine(pl_engine *engine, const pl_circuit *circuit,
                         const demo_state *d, const pl_engine_config *cfg)
{
    uint64_t part_bytes, resident_bytes;
    pl_circuit_plan(circuit, 0, &part_bytes, &resident_bytes);
    char b1[32], b2[32], b3[32];
    unsigned threads = cli_threads(cfg->threads);
    pl_engine_stats es;
    pl_engine_stats_read(engine, &es);
    printf("engine: backend %s, pw=%u, %u prover worker%s, %u thread%s, "
           "budget %s; a partition reserves %s, the circuit %s\n",
           es.backend, cfg->synth_workers,
           cfg->prover_workers, cfg->prover_workers == 1 ? "" : "s", threads,
           threads == 1 ? "" : "s",
           pl_format_bytes(b1, sizeof(b1), cfg->budget_bytes),
           pl_format_bytes(b2, sizeof(b2), part_bytes + d->n_wires * 32ull),
           pl_format_bytes(b3, sizeof(b3), resident_bytes));
    fflush(stdout);
}

static void print_results(demo_state *d, pl_engine *engine,
                          const pl_job_status *js, const pl_engine_stats *es,
                          double wall, bool quiet, FILE *log)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("demo: %zu proved, %zu verified, %zu failed in %.1f s: %.1f "
           "proofs/hour\n", js->proved, js->verified, js->failed, wall,
           cli_per_hour(js->proved, wall));
    if (d->witness_count && d->abc_count) {
        double w = d->witness_seconds / (double)d->witness_count;
        double abc = d->abc_seconds / (double)d->abc_count;
        printf("synthesis per partition: witness %.1f ms + a/b/c from the "
               "key's matrices %.1f ms = %.1f ms; recording the constraints "
               "each time would take %.1f ms (measured when the cache was "
               "made) + a/b/c: %.1fx\n", w * 1e3,
               abc * 1e3, (w + abc) * 1e3, d->record_seconds * 1e3,
               (d->record_seconds + abc) / (w + abc));
    }
    char b1[32], b2[32];
    printf("memory: peak RSS (anon) during the job %s, process peak RSS %s\n",
           pl_format_bytes(b1, sizeof(b1), es->peak_rss_anon_bytes),
           pl_format_bytes(b2, sizeof(b2), (uint64_t)ru.ru_maxrss * 1024));
    fflush(stdout);
    if (!quiet)
        pl_engine_write_summary(engine, log ? log : stdout);
}

static int demo_run(demo_options *o)
{
    pl_error err = {0};
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    pl_engine_config *cfg = &o->engine.cfg;
    demo_state d = {.seed = o->seed, .lock = PTHREAD_MUTEX_INITIALIZER};
    cli_proof_out out = {0};
    FILE *log = NULL;
    pl_status st;
    /* the ledger's lines into --log: the engine writes them from its
     * threads, one whole line per write, unbuffered for a reader's tail */
    if (o->log) {
        if (!(log = fopen(o->log, "w"))) {
            st = pl__error_errno(&err, PL_EIO, errno, "--log %s", o->log);
            goto done;
        }
        setvbuf(log, NULL, _IOLBF, 0);
        cfg->log_stream = log;
    }
    if ((st = porep_params_for(&d.params, o->target, o->depth, &err)) ||
        (st = porep_shape(&d.params, &d.n_constraints, &d.n_public,
                          &d.n_wires, &err)))
        goto done;
    demo_paths(&d, o);
    if ((st = cli_make_dir(d.dir, true, &err)) ||
        (st = cli_make_dir(d.proof_dir, true, &err)))
        goto done;
    printf("== proofline demo: %u partitions of the PoRep-like circuit, "
           "2^%u domain ==\n", o->partitions,
           cli_porep_log2(d.n_constraints, d.n_public));
    cli_describe_porep(stdout, &d.params, d.n_constraints, d.n_public,
                       d.n_wires);
    if (o->format == 1) {
        st = demo_bellperson(&d, o, &err);
        goto done;
    }
    if ((st = demo_cache(&d, cfg->threads, &err)))
        goto done;
    out.dir = d.proof_dir;
    cfg->on_stage = on_stage;
    cfg->on_stage_user = &d;
    double t0 = cli_now();
    if ((st = cli_engine_open(&engine, &circuit, cfg, d.zkey, d.r1cs, &err)))
        goto done;
    print_engine(engine, circuit, &d, cfg);
    pl_job_spec spec = {.circuit = circuit, .n_partitions = o->partitions,
                        .generate = generate, .generate_user = &d,
                        .verify = true, .on_proof = cli_write_proof,
                        .on_proof_user = &out};
    pl_job_status js;
    pl_engine_stats es;
    /* the progress line when the ledger's lines are not on the terminal */
    if ((st = cli_run_jobs(engine, &spec, 1, "demo", !o->engine.quiet &&
                           (cfg->log_level == PL_LOG_QUIET || log), t0, &js,
                           NULL, NULL, &err)))
        goto done;
    double wall = cli_now() - t0;
    cli_job_end(engine, &circuit, &es);
    print_results(&d, engine, &js, &es, wall, o->engine.quiet, log);
    if ((st = pl_engine_write_trace(engine, d.trace, &err)) ||
        (st = pl_engine_write_plot(engine, d.plot, &err)))
        goto done;
    printf("trace: %s\nplot: %s\nproofs: %s/p<i>.proof.json, "
           "p<i>.public.json (verification key: %s)\n", d.trace, d.plot,
           d.proof_dir, d.vk);
    if ((st = cli_job_result(&js, &out, &err)) == PL_OK &&
        js.verified != o->partitions) {
        st = PL_EINVALID;
        pl__error_set(&err, st, "%zu of %u proofs verified", js.verified,
                      o->partitions);
    }
done:
    cli_engine_close(engine, circuit, &st, &err);
    if (log) {
        /* after the engine's close, which may log too */
        if (fclose(log) != 0 && st == PL_OK)
            st = pl__error_errno(&err, PL_EIO, errno, "--log %s", o->log);
        printf("log: %s (the ledger's lines and its summary)\n", o->log);
    }
    return cli_exit("demo", st, &err);
}

int cli_demo(int argc, char **argv)
{
    demo_options o = {.partitions = DEFAULT_PARTITIONS,
                      .target = 1ull << DEFAULT_LOG2,
                      .cache = DEFAULT_CACHE, .seed = CLI_POREP_SEED};
    cli_engine_options_init(&o.engine, 2, PL_LOG_INFO);
    pl_parse_size(DEFAULT_BUDGET, &o.engine.cfg.budget_bytes);
    const cli_table tables[] = {{demo_opts, &o},
                                {cli_pipeline_opts, &o.engine},
                                {cli_engine_opts, &o.engine}};
    int npos = 0;
    int rc = cli_parse(&demo_cmd, tables, 3, argc, argv, &npos);
    if (rc == CLI_RUN && npos > 0)
        rc = cli_usage_error("demo", "unknown option %s", argv[0]);
    if (rc == CLI_RUN) {
        cli_engine_options_finish(&o.engine, "demo");
        o.engine.cfg.record_timeline = true;
        cli_signals_install();
        rc = demo_run(&o);
    }
    return rc;
}
