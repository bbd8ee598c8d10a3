/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline demo`: the main job on built-in defaults.  The PoRep-like
 * circuit (porep_*) is recorded once and given a development key
 * (pl_setup_dev), both cached in a directory; then a job of N partitions
 * runs through the engine, each partition's witness computed by the
 * circuit in witness-only mode inside the engine's `generate` callback (on
 * the synthesis workers), a, b, c from the zkey's matrices, every proof
 * verified.  Prints throughput, the synthesis share (witness + a/b/c
 * against recording the constraints every time), the ledger summary, and
 * where the trace, the memory plot and the proofs went.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* 16 partitions of 2^16: measured on our 2-core machine, about 8 s of
 * proving (7,000-7,500 proofs/hour, pw 1 or 2) plus 3-10 s to make the key
 * on the first run, 100 MiB peak RSS; on a busy machine up to 3x longer. */
#define DEFAULT_CACHE "./proofline-demo-cache"
#define DEFAULT_SEED "proofline-demo"
#define DEFAULT_PARTITIONS 16u
#define DEFAULT_LOG2 16u
#define DEFAULT_BUDGET "1GiB"

static const char demo_help[] =
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
    "Options:\n"
    "  --partitions N     partitions in the job (default 16)\n"
    "  --constraints N    constraints per partition, 2^K or a number\n"
    "                     (default 2^16)\n"
    "  --depth D          tree depth (default: chosen for the size)\n"
    "  --pw P             synthesis workers (default 2)\n"
    "  --workers N        prover workers (default 1)\n"
    "  --threads N        threads per prover (default: one per core)\n"
    "  --budget SIZE      memory budget (default " DEFAULT_BUDGET ")\n"
    "  --backend B        auto (default: CUDA when a GPU is found, else the\n"
    "                     CPU), cpu or cuda\n"
    "  --cache DIR        where the r1cs and key are kept (default\n"
    "                     " DEFAULT_CACHE ")\n"
    "  --out DIR          trace, plot and proofs (default DIR/last-run under\n"
    "                     the cache)\n"
    "  --seed S           input seed (default \"" DEFAULT_SEED "\")\n"
    "  --log-level L      ledger lines on stderr: info (default) or quiet\n"
    "  --quiet            only the summary\n"
    "  -h, --help         this text\n";

typedef struct {
    porep_params params;
    const char *seed;
    size_t n_public, n_wires;
    char proof_dir[4096];
    pthread_mutex_t lock;
    double witness_seconds, abc_seconds;
    size_t witness_count, abc_count;
    size_t delivered;
    pl_status write_status;
    pl_error write_error;
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
    pl_status st = porep_inputs_create(&in, &d->params, d->seed,
                                          partition, err);
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

static void on_proof(void *user, uint64_t job, size_t partition,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public)
{
    demo_state *d = user;
    char pp[4200], pub[4200];
    snprintf(pp, sizeof(pp), "%s/p%zu.proof.json", d->proof_dir, partition);
    snprintf(pub, sizeof(pub), "%s/p%zu.public.json", d->proof_dir, partition);
    pl_error err = {0};
    pl_status st = pl_proof_write_json(proof, pp, publics, n_public, pub, &err);
    pthread_mutex_lock(&d->lock);
    d->delivered++;
    if (st != PL_OK && d->write_status == PL_OK) {
        d->write_status = st;
        d->write_error = err;
    }
    pthread_mutex_unlock(&d->lock);
}

static pl_status make_dir(const char *path, pl_error *err)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *p = tmp + 1; *p; p++) /* mkdir -p */
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                break;
            *p = '/';
        }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
        snprintf(err->msg, sizeof(err->msg), "%.200s: cannot create: %s", path,
                 strerror(errno));
        return PL_EIO;
    }
    return PL_OK;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The cached r1cs is for this shape (a stale or foreign one is rebuilt). */
static bool r1cs_matches(const char *path, size_t nc, size_t np, size_t nw)
{
    pl_r1cs *r;
    if (pl_r1cs_open(&r, path, NULL) != PL_OK)
        return false;
    pl_r1cs_info i;
    pl_r1cs_get_info(r, &i);
    pl_r1cs_close(r);
    return i.n_constraints == nc && i.n_wires == nw &&
           (size_t)i.n_pub_out + i.n_pub_in == np;
}

typedef struct {
    double record_seconds, setup_seconds;
} cache_meta;

static bool read_meta(const char *path, cache_meta *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    int n = fscanf(f, "record_seconds=%lf\nsetup_seconds=%lf\n",
                   &m->record_seconds, &m->setup_seconds);
    fclose(f);
    return n == 2;
}

/* Records the circuit (partition 0) into r1cs, makes the key and the
 * verification key, and notes the times. */
static pl_status build_cache(const char *dir, demo_state *d, unsigned threads,
                             cache_meta *meta, pl_error *err)
{
    char r1cs[4200], zkey[4200], vk[4200], mp[4200];
    snprintf(r1cs, sizeof(r1cs), "%s/circuit.r1cs", dir);
    snprintf(zkey, sizeof(zkey), "%s/circuit.zkey", dir);
    snprintf(vk, sizeof(vk), "%s/verification_key.json", dir);
    snprintf(mp, sizeof(mp), "%s/meta.txt", dir);
    porep_inputs *in = NULL;
    pl_cs *cs = NULL;
    pl_zkey *zk = NULL;
    pl_vkey *vkey = NULL;
    pl_status st;
    double t0 = cli_now();
    if ((st = porep_inputs_create(&in, &d->params, d->seed, 0, err)) ||
        (st = pl_cs_create_recording(&cs, err)) ||
        (st = pl_cs_run(cs, porep_circuit, in, err)))
        goto done;
    meta->record_seconds = cli_now() - t0;
    if ((st = pl_cs_write_r1cs(cs, r1cs, err)))
        goto done;
    pl_cs_destroy(cs);
    cs = NULL;
    pl_setup_config scfg;
    pl_setup_config_init(&scfg);
    scfg.threads = threads;
    t0 = cli_now();
    if ((st = pl_setup_dev(r1cs, zkey, &scfg, err)))
        goto done;
    meta->setup_seconds = cli_now() - t0;
    if ((st = pl_zkey_open(&zk, zkey, err)) ||
        (st = pl_vkey_from_zkey(&vkey, zk, err)) ||
        (st = pl_vkey_write_json(vkey, vk, err)))
        goto done;
    FILE *f = fopen(mp, "w");
    if (!f || fprintf(f, "record_seconds=%.6f\nsetup_seconds=%.6f\n",
                      meta->record_seconds, meta->setup_seconds) < 0 ||
        fclose(f) != 0) {
        st = PL_EIO;
        snprintf(err->msg, sizeof(err->msg), "%.200s: cannot write", mp);
    }
done:
    pl_vkey_destroy(vkey);
    pl_zkey_close(zk);
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st;
}

int cli_demo(int argc, char **argv)
{
    unsigned partitions = DEFAULT_PARTITIONS, depth = 0;
    uint64_t target = 1ull << DEFAULT_LOG2;
    const char *cache = DEFAULT_CACHE, *out_dir = NULL;
    const char *seed = DEFAULT_SEED, *log_level = "info";
    bool quiet = false;
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 2;
    cfg.prover_workers = 1;
    cfg.backend = "auto";
    pl_parse_size(DEFAULT_BUDGET, &cfg.budget_bytes);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned *count = NULL;
        const char **str = NULL;
        if (cli_is_help(a)) {
            fputs(demo_help, stdout);
            return 0;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = true;
            continue;
        } else if (strcmp(a, "--partitions") == 0) {
            count = &partitions;
        } else if (strcmp(a, "--pw") == 0) {
            count = &cfg.synth_workers;
        } else if (strcmp(a, "--workers") == 0) {
            count = &cfg.prover_workers;
        } else if (strcmp(a, "--threads") == 0) {
            count = &cfg.threads;
        } else if (strcmp(a, "--depth") == 0) {
            count = &depth;
        } else if (strcmp(a, "--cache") == 0) {
            str = &cache;
        } else if (strcmp(a, "--out") == 0) {
            str = &out_dir;
        } else if (strcmp(a, "--seed") == 0) {
            str = &seed;
        } else if (strcmp(a, "--log-level") == 0) {
            str = &log_level;
        } else if (strcmp(a, "--backend") == 0) {
            str = &cfg.backend;
        } else if (strcmp(a, "--constraints") == 0) {
            if (!val || !cli_parse_constraints(val, &target))
                return cli_usage_error("demo", "--constraints takes 2^K (K "
                                       "from 4 to 28) or a number, not '%s'",
                                       val ? val : "");
            i++;
            continue;
        } else if (strcmp(a, "--budget") == 0) {
            if (!val || !pl_parse_size(val, &cfg.budget_bytes))
                return cli_usage_error("demo", "--budget needs a size such as "
                                       "512MiB or 4GiB, not '%s'",
                                       val ? val : "");
            i++;
            continue;
        } else {
            return cli_usage_error("demo", "unknown option %s", a);
        }
        if (!val)
            return cli_usage_error("demo", "%s needs a value", a);
        i++;
        if (str) {
            *str = val;
        } else if (!cli_parse_count(val, count) ||
                   (count == &depth && depth > 32)) {
            return cli_usage_error("demo", "%s needs a count from 1 to 4096 "
                                   "(depth: to 32)", a);
        }
    }
    if (strcmp(log_level, "info") != 0 && strcmp(log_level, "quiet") != 0)
        return cli_usage_error("demo", "--log-level is info or quiet, not "
                               "'%s'", log_level);
    cfg.log_level = quiet || strcmp(log_level, "quiet") == 0 ? PL_LOG_QUIET
                                                             : PL_LOG_INFO;
    cfg.record_timeline = true;

    pl_error err = {0};
    pl_status st;
    demo_state d = {.seed = seed, .lock = PTHREAD_MUTEX_INITIALIZER};
    pl_engine *engine = NULL;
    pl_circuit *circuit = NULL;
    size_t nc;
    char dir[4096], run_dir[4000], r1cs[4200], zkey[4200], meta_path[4200];
    char trace[4200], plot[4200];
    if ((st = porep_params_for(&d.params, target, depth, &err)) ||
        (st = porep_shape(&d.params, &nc, &d.n_public, &d.n_wires, &err)))
        goto done;
    unsigned log2 = cli_log2_ceil((uint64_t)nc + d.n_public + 1);
    /* A directory per shape and seed; the seed's odd characters dropped. */
    char tag[40];
    size_t t = 0;
    for (const char *s = seed; *s && t + 1 < sizeof(tag); s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
            (*s >= '0' && *s <= '9') || *s == '-' || *s == '_')
            tag[t++] = *s;
    tag[t] = '\0';
    snprintf(dir, sizeof(dir), "%s/porep-k%u-d%u-r%u-%s", cache,
             d.params.openings, d.params.depth, d.params.rounds, tag);
    if (out_dir)
        snprintf(run_dir, sizeof(run_dir), "%s", out_dir);
    else
        snprintf(run_dir, sizeof(run_dir), "%s/last-run", cache);
    snprintf(d.proof_dir, sizeof(d.proof_dir), "%s/proofs", run_dir);
    snprintf(r1cs, sizeof(r1cs), "%s/circuit.r1cs", dir);
    snprintf(zkey, sizeof(zkey), "%s/circuit.zkey", dir);
    snprintf(meta_path, sizeof(meta_path), "%s/meta.txt", dir);
    snprintf(trace, sizeof(trace), "%s/trace.json", run_dir);
    snprintf(plot, sizeof(plot), "%s/memory.svg", run_dir);
    if ((st = make_dir(dir, &err)) || (st = make_dir(d.proof_dir, &err)))
        goto done;

    printf("== proofline demo: %u partitions of the PoRep-like circuit, "
           "2^%u domain ==\n", partitions, log2);
    cli_describe_porep(stdout, &d.params, nc, d.n_public, d.n_wires);
    cache_meta meta = {0};
    bool cached = exists(zkey) && read_meta(meta_path, &meta) &&
                  r1cs_matches(r1cs, nc, d.n_public, d.n_wires);
    if (cached) {
        printf("cache: %s (reused: recorded in %.2f s, key made in %.1f s "
               "on its first run)\n", dir, meta.record_seconds,
               meta.setup_seconds);
    } else {
        printf("cache: %s: recording the circuit and making a development "
               "key (known toxic waste: demo only)...\n", dir);
        fflush(stdout);
        if ((st = build_cache(dir, &d, cfg.threads, &meta, &err)))
            goto done;
        printf("cache: recorded in %.2f s, key made in %.1f s\n",
               meta.record_seconds, meta.setup_seconds);
    }
    fflush(stdout);

    cfg.on_stage = on_stage;
    cfg.on_stage_user = &d;
    double t0 = cli_now();
    if ((st = pl_engine_create(&engine, &cfg, &err)) ||
        (st = pl_engine_open_circuit(engine, &circuit, zkey, r1cs, &err)))
        goto done;
    uint64_t part_bytes, resident_bytes;
    pl_circuit_plan(circuit, 0, &part_bytes, &resident_bytes);
    char b1[32], b2[32], b3[32];
    unsigned threads = cfg.threads ? cfg.threads
                                   : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    pl_engine_stats es;
    pl_engine_stats_read(engine, &es);
    printf("engine: backend %s, pw=%u, %u prover worker%s, %u thread%s, "
           "budget %s; a partition reserves %s, the circuit %s\n",
           es.backend, cfg.synth_workers,
           cfg.prover_workers, cfg.prover_workers == 1 ? "" : "s", threads,
           threads == 1 ? "" : "s",
           pl_format_bytes(b1, sizeof(b1), cfg.budget_bytes),
           pl_format_bytes(b2, sizeof(b2), part_bytes + d.n_wires * 32ull),
           pl_format_bytes(b3, sizeof(b3), resident_bytes));
    fflush(stdout);
    pl_job_spec spec = {.circuit = circuit, .n_partitions = partitions,
                        .generate = generate, .generate_user = &d,
                        .verify = true, .on_proof = on_proof,
                        .on_proof_user = &d};
    pl_job_status js;
    if ((st = cli_run_job(engine, &spec, "demo",
                           !quiet && cfg.log_level == PL_LOG_QUIET, t0, &js,
                           &err)))
        goto done;
    double wall = cli_now() - t0;
    pl_circuit_release(circuit);
    circuit = NULL;
    pl_engine_trim(engine);
    pl_engine_stats_read(engine, &es);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);

    printf("demo: %zu proved, %zu verified, %zu failed in %.1f s: %.1f "
           "proofs/hour\n", js.proved, js.verified, js.failed, wall,
           wall > 0 ? (double)js.proved * 3600.0 / wall : 0.0);
    if (d.witness_count && d.abc_count) {
        double w = d.witness_seconds / (double)d.witness_count;
        double abc = d.abc_seconds / (double)d.abc_count;
        printf("synthesis per partition: witness %.1f ms + a/b/c from the "
               "key's matrices %.1f ms = %.1f ms; recording the constraints "
               "each time would take %.1f ms (measured when the cache was "
               "made) + a/b/c: %.1fx\n", w * 1e3,
               abc * 1e3, (w + abc) * 1e3, meta.record_seconds * 1e3,
               (meta.record_seconds + abc) / (w + abc));
    }
    printf("memory: peak RSS (anon) during the job %s, process peak RSS %s\n",
           pl_format_bytes(b1, sizeof(b1), es.peak_rss_anon_bytes),
           pl_format_bytes(b2, sizeof(b2), (uint64_t)ru.ru_maxrss * 1024));
    fflush(stdout);
    if (!quiet)
        pl_engine_write_summary(engine, stdout);
    if ((st = pl_engine_write_trace(engine, trace, &err)) ||
        (st = pl_engine_write_plot(engine, plot, &err)))
        goto done;
    printf("trace: %s\nplot: %s\nproofs: %s/p<i>.proof.json, "
           "p<i>.public.json (verification key: %s/verification_key.json)\n",
           trace, plot, d.proof_dir, dir);
    if ((st = js.status) != PL_OK)
        err = js.error;
    else if ((st = d.write_status) != PL_OK)
        err = d.write_error;
    else if (js.verified != partitions) {
        st = PL_EINVALID;
        snprintf(err.msg, sizeof(err.msg), "%zu of %u proofs verified",
                 js.verified, partitions);
    }
done:
    pl_circuit_release(circuit);
    if (engine) {
        pl_error leak = {0};
        if (pl_engine_destroy(engine, &leak) != PL_OK && st == PL_OK) {
            st = PL_EINTERNAL;
            err = leak;
        }
    }
    if (st == PL_ENOMEM && !err.msg[0])
        snprintf(err.msg, sizeof(err.msg), "out of memory");
    return st == PL_OK ? 0 : cli_fail("demo", st, &err);
}
