/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rows of bench/gpu_check.sh: every figure it times on the device is
 * also checked, and every row ends in ok=yes or ok=NO with why=<reason>
 * (key=value lines; exit 77 without a CUDA device, 1 when a row failed):
 *
 *   bench_gpu msm LOG [CASE...]     G1 MSMs of 2^LOG points already on the
 *                                   device (as sppark's and ICICLE's
 *                                   published figures take them), one row
 *                                   per case (default: all four):
 *       random    uniform scalars below r: the timed row (median of 5
 *                 after a warm-up, then one profiled run that splits it
 *                 into sort, accumulate, reduce and combine), checked
 *                 against the CPU MSM (pl__msm_g1, every core) and by
 *                 discrete logs (below);
 *       ones      every scalar 1: one bucket holds all n entries, so every
 *                 accumulate level folds a full-length run;
 *       mixed     40% zero, 30% one, 10% r - 1, 20% random, and every
 *                 1021st point at infinity in all cases on these points;
 *       repeated  one point n times, scalars 1 on the first half and
 *                 random on the second: equal points meet in every bucket
 *                 and at every level (the equal-point doubling);
 *                 the last three timed once and checked by discrete logs.
 *   bench_gpu ntt LOG...            the odd-coset NTT of 2^LOG random
 *                                   scalars: upload, transform and download
 *                                   timed apart (medians of 5), the result
 *                                   of the first and the last run equal to
 *                                   the CPU's (pl__ntt_to_odd_coset).
 *   bench_gpu prove ZKEY WTNS [N] [--cpu]
 *                                   N proofs (default 3) on the CUDA
 *                                   backend after a warm-up: synthesis
 *                                   (CPU) and the rest timed apart, the
 *                                   prover's stages (on_stage) as medians,
 *                                   then one profiled proof split into the
 *                                   device's phases (gpu.h); every proof
 *                                   verified.  With --cpu, a proof with
 *                                   r = s = 0 on each backend, equal bit
 *                                   for bit, the CPU's timed for the ratio.
 *
 * --emulated before the command runs it on the host emulation instead
 * (small sizes only: the rehearsal of the check on machines without a GPU).
 * BENCH_GPU_FAULT=msm:CASE|ntt|prove gets that row's result wrong on
 * purpose after the device computed it, so that the rehearsal can check
 * that the script reports a failed row and carries on.
 *
 * The discrete-log check: the points are P_i = l_i G with l_i known (the
 * multiples (i mod 2^20) + 1 of the generator, 0 for the points at
 * infinity, or 7 for the repeated point), so sum s_i P_i = (sum s_i l_i) G:
 * one sum over Fr and one scalar multiplication, which no MSM computes.
 * It costs 2^24 field multiplications at 2^24 points where a CPU MSM
 * costs seconds, and it is exact.  Making 2^24 points costs 2^20
 * additions and copies: a repeated point costs the GPU as much as a fresh
 * one, except where it meets itself in a bucket (the repeated case).
 */
#define _GNU_SOURCE
#include "groth16/zkey_prover.h"
#include "backend/cuda/gpu.h"
#include "field/field.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/pool.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device and backend under test: CUDA's, or with --emulated (first
 * argument) the host emulation's. */
static const pl__gpu_impl *impl;
static const pl__backend_ops *backend;
/* every core, for the CPU's side: inputs, references, synthesis */
static pl__pool *pool;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double s[16];
    memcpy(s, v, (size_t)n * sizeof(*v));
    qsort(s, (size_t)n, sizeof(*s), cmp_double);
    return s[n / 2];
}

/* Setting up failed (no memory, no device): nothing to measure. */
static void die(const char *what, const pl_error *err)
{
    fprintf(stderr, "bench_gpu: %s%s%s\n", what, err ? ": " : "",
            err ? err->msg : "");
    exit(1);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die("out of memory", NULL);
    return p;
}

/* A row's verdict: the first failure's reason (one line) wins. */
typedef struct {
    bool failed;
    char why[300];
} verdict;

static void fail(verdict *v, const char *fmt, ...)
{
    if (v->failed)
        return;
    v->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->why, sizeof(v->why), fmt, ap);
    va_end(ap);
    for (char *c = v->why; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

/* Ends a row's line: ok=yes, or ok=NO and the reason, last (it has
 * spaces; the script reads it as everything after "why="). */
static void end_row(const verdict *v, double row_start)
{
    printf(" row_s=%.1f ok=%s", pl__now_seconds() - row_start,
           v->failed ? "NO" : "yes");
    if (v->failed)
        printf(" why=%s", v->why);
    printf("\n");
    fflush(stdout);
}

/* Whether BENCH_GPU_FAULT names this row. */
static bool fault_in(const char *row)
{
    const char *f = getenv("BENCH_GPU_FAULT");
    return f && strcmp(f, row) == 0;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* A uniform scalar below r (rejection from 255 bits: about half pass). */
static void random_scalar(uint8_t out[32], uint64_t *state)
{
    do {
        for (int k = 0; k < 4; k++) {
            uint64_t w = next_random(state);
            memcpy(out + 8 * k, &w, 8);
        }
        out[31] &= 0x7f;
    } while (!pl__scalar_is_canonical(out));
}

/* ---- MSM inputs with known discrete logs ----------------------------------- */

typedef enum { POINTS_MULTIPLES, POINTS_ONE } point_set;
typedef enum {
    SCALARS_RANDOM,
    SCALARS_ONES,
    SCALARS_MIXED,
    SCALARS_HALF_ONES
} scalar_kind;

#define DISTINCT_MAX ((size_t)1 << 20)
#define INFINITY_EVERY 1021u
#define REPEATED_LOG 7u

/* l_i of point i of a set of n: P_i = l_i G (0: infinity). */
static uint64_t point_log(point_set set, size_t n, size_t i)
{
    if (set == POINTS_ONE)
        return REPEATED_LOG;
    size_t j = i % (n < DISTINCT_MAX ? n : DISTINCT_MAX);
    return j % INFINITY_EVERY == INFINITY_EVERY - 1 ? 0 : j + 1;
}

#define POINT_CHUNK 4096u

typedef struct {
    point_set set;
    size_t n, distinct;
    blst_p1 *proj;
    blst_p1_affine *aff;
} points_job;

/* Chunk t of the distinct points: l G for its first l by one
 * multiplication, the rest by additions, then to affine in one batch. */
static void points_task(void *ctx, size_t t, unsigned worker)
{
    points_job *job = ctx;
    size_t lo = t * POINT_CHUNK;
    size_t hi = lo + POINT_CHUNK < job->distinct ? lo + POINT_CHUNK
                                                 : job->distinct;
    uint8_t first[8];
    uint64_t l = lo + 1;
    memcpy(first, &l, 8);
    blst_p1 acc;
    blst_p1_mult(&acc, blst_p1_generator(), first, 64);
    for (size_t j = lo; j < hi; j++) {
        job->proj[j] = acc;
        blst_p1_add_or_double(&acc, &acc, blst_p1_generator());
    }
    const blst_p1 *list[2] = {job->proj + lo, NULL}; /* one contiguous run */
    blst_p1s_to_affine(job->aff + lo, list, hi - lo);
    for (size_t j = lo; j < hi; j++)
        if (point_log(job->set, job->n, j) == 0)
            memset(&job->aff[j], 0, sizeof(job->aff[j]));
}

/* n points of a set in blst's affine layout (what the device takes). */
static blst_p1_affine *make_points(point_set set, size_t n)
{
    blst_p1_affine *aff = xmalloc(n * sizeof(*aff));
    size_t distinct = set == POINTS_ONE ? 1
                      : n < DISTINCT_MAX ? n : DISTINCT_MAX;
    if (set == POINTS_ONE) {
        uint8_t k = REPEATED_LOG;
        blst_p1 p;
        blst_p1_mult(&p, blst_p1_generator(), &k, 8);
        blst_p1_to_affine(&aff[0], &p);
    } else {
        points_job job = {set, n, distinct, xmalloc(distinct * sizeof(blst_p1)),
                          aff};
        pl__pool_run(pool, (distinct + POINT_CHUNK - 1) / POINT_CHUNK,
                     points_task, &job);
        free(job.proj);
    }
    for (size_t done = distinct; done < n;) {
        size_t len = n - done < done ? n - done : done; /* doubling copies */
        memcpy(aff + done, aff, len * sizeof(*aff));
        done += len;
    }
    return aff;
}

#define SCALAR_CHUNK 65536u

typedef struct {
    scalar_kind kind;
    size_t n;
    uint64_t seed;
    uint8_t *s;
} scalars_job;

/* Chunk t of the scalars, from its own stream of the row's seed (2^24
 * random scalars take seconds on one core). */
static void scalars_task(void *ctx, size_t t, unsigned worker)
{
    static const uint8_t r_minus_1[32] = {
        0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
        0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
        0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    scalars_job *job = ctx;
    scalar_kind kind = job->kind;
    size_t n = job->n, lo = t * SCALAR_CHUNK;
    size_t hi = lo + SCALAR_CHUNK < n ? lo + SCALAR_CHUNK : n;
    uint64_t state = (job->seed ^ (0x9e3779b97f4a7c15ull * (t + 1))) | 1;
    for (size_t i = lo; i < hi; i++) {
        uint8_t *x = job->s + 32 * i;
        unsigned roll = (unsigned)(next_random(&state) % 10);
        if (kind == SCALARS_ONES || (kind == SCALARS_HALF_ONES && i < n / 2) ||
            (kind == SCALARS_MIXED && roll >= 4 && roll < 7))
            x[0] = 1;
        else if (kind == SCALARS_MIXED && roll == 7)
            memcpy(x, r_minus_1, 32);
        else if (kind != SCALARS_MIXED || roll >= 8)
            random_scalar(x, &state);
        /* else: zero */
    }
}

static uint8_t *make_scalars(scalar_kind kind, size_t n, uint64_t seed)
{
    scalars_job job = {kind, n, seed, calloc(n ? n : 1, 32)};
    if (!job.s)
        die("out of memory", NULL);
    pl__pool_run(pool, (n + SCALAR_CHUNK - 1) / SCALAR_CHUNK, scalars_task,
                 &job);
    return job.s;
}

#define LOG_TASKS 256u

typedef struct {
    point_set set;
    size_t n;
    const uint8_t *scalars;
    blst_fr part[LOG_TASKS];
} log_sum_job;

static void log_sum_task(void *ctx, size_t t, unsigned worker)
{
    log_sum_job *job = ctx;
    size_t lo = job->n * t / LOG_TASKS, hi = job->n * (t + 1) / LOG_TASKS;
    blst_fr acc, s, l, sl;
    memset(&acc, 0, sizeof(acc));
    for (size_t i = lo; i < hi; i++) {
        uint64_t li[4] = {point_log(job->set, job->n, i), 0, 0, 0};
        if (!li[0])
            continue;
        blst_fr_from_scalar(&s, (const blst_scalar *)(job->scalars + 32 * i));
        blst_fr_from_uint64(&l, li);
        blst_fr_mul(&sl, &s, &l);
        blst_fr_add(&acc, &acc, &sl);
    }
    job->part[t] = acc;
}

/* (sum s_i l_i) G: the MSM's value by the discrete logs. */
static void msm_by_logs(blst_p1 *out, point_set set, const uint8_t *scalars,
                        size_t n)
{
    log_sum_job *job = xmalloc(sizeof(*job));
    job->set = set;
    job->n = n;
    job->scalars = scalars;
    pl__pool_run(pool, LOG_TASKS, log_sum_task, job);
    blst_fr sum;
    memset(&sum, 0, sizeof(sum));
    for (unsigned t = 0; t < LOG_TASKS; t++)
        blst_fr_add(&sum, &sum, &job->part[t]);
    blst_scalar k;
    blst_scalar_from_fr(&k, &sum);
    blst_p1_mult(out, blst_p1_generator(), k.b, 255);
    free(job);
}

/* ---- the device's phases (gpu.h's profile) ------------------------------ */

static void profile_begin(void)
{
    pl__gpu_profile_read(NULL, NULL, true);
    pl__gpu_profile(true);
}

/* Prints prof_<phase>_ms for the phases that ran since profile_begin. */
static void profile_end_print(void)
{
    double s[PL_GPU_PHASES];
    uint64_t k[PL_GPU_PHASES];
    pl__gpu_profile(false);
    pl__gpu_profile_read(s, k, true);
    for (int i = 0; i < PL_GPU_PHASES; i++)
        if (k[i])
            printf(" prof_%s_ms=%.2f", pl__gpu_phase_name(i), 1e3 * s[i]);
}

/* ---- bench_gpu msm --------------------------------------------------------- */

typedef struct {
    const char *name;
    point_set points;
    scalar_kind scalars;
} msm_case;

static const msm_case msm_cases[] = {
    {"random", POINTS_MULTIPLES, SCALARS_RANDOM},
    {"ones", POINTS_MULTIPLES, SCALARS_ONES},
    {"mixed", POINTS_MULTIPLES, SCALARS_MIXED},
    {"repeated", POINTS_ONE, SCALARS_HALF_ONES},
};
#define N_MSM_CASES (sizeof(msm_cases) / sizeof(msm_cases[0]))

/* An MSM size's device buffers, and which point set is up there. */
typedef struct {
    pl__gpu *gpu;
    size_t n;
    void *d_points, *d_scalars, *scratch;
    uint64_t scratch_bytes;
    int points_up; /* a point_set, or -1 */
    bool warm;
} msm_device;

/* One case's row; returns whether it failed. */
static bool msm_case_row(msm_device *md, unsigned lg, const msm_case *mc)
{
    pl_error err = {0};
    verdict v = {0};
    size_t n = md->n;
    double row_start = pl__now_seconds(), t0;
    bool timed = mc->scalars == SCALARS_RANDOM;
    pl__cu_msm_cfg cfg;
    pl__cu_msm_config(&cfg, (uint32_t)n);
    printf("bench=msm_g1 log2=%u n=%zu case=%s c=%u windows=%u levels=%u", lg,
           n, mc->name, cfg.c, cfg.windows, cfg.levels);

    uint8_t *scalars = make_scalars(mc->scalars, n, 0x5eed0000u + lg * 16 +
                                                        (unsigned)mc->scalars);
    blst_p1_affine *points = NULL;
    if (md->points_up != (int)mc->points || timed) /* the CPU MSM needs them */
        points = make_points(mc->points, n);
    printf(" inputs_s=%.2f", pl__now_seconds() - row_start);
    if (md->points_up != (int)mc->points) {
        t0 = pl__now_seconds();
        md->points_up = -1;
        if (pl__gpu_upload(md->gpu, md->d_points, points, n * 96, &err) ||
            pl__gpu_sync(md->gpu, &err))
            fail(&v, "uploading the points: %s", err.msg);
        else {
            double s = pl__now_seconds() - t0;
            md->points_up = (int)mc->points;
            printf(" points_upload_ms=%.1f upload_gbps=%.1f", 1e3 * s,
                   n * 96 / s / 1e9);
        }
    }
    if (!v.failed && (pl__gpu_upload(md->gpu, md->d_scalars, scalars, n * 32,
                                     &err) ||
                      pl__gpu_sync(md->gpu, &err)))
        fail(&v, "uploading the scalars: %s", err.msg);

    /* the runs: a warm-up first in the process, 5 timed for the random
     * case, 1 for the others; every run's sum must be the first's */
    blst_p1 got, again;
    double t[5];
    int runs = timed ? 5 : 1;
    for (int r = md->warm ? 0 : -1; r < runs && !v.failed; r++) {
        t0 = pl__now_seconds();
        if (pl__gpu_msm_g1(md->gpu, PL__CURVE_BLS12_381,
                           r <= 0 ? &got : &again, md->d_points,
                           md->d_scalars, (uint32_t)n, md->scratch,
                           md->scratch_bytes, &err)) {
            fail(&v, "the device MSM failed: %s", err.msg);
            break;
        }
        if (r >= 0)
            t[r] = pl__now_seconds() - t0;
        if (r > 0 && !blst_p1_is_equal(&got, &again))
            fail(&v, "run %d gave another sum than run 0", r);
    }
    md->warm = true;
    char fault[64];
    snprintf(fault, sizeof(fault), "msm:%s", mc->name);
    if (fault_in(fault))
        blst_p1_add_or_double(&got, &got, blst_p1_generator());
    if (!v.failed)
        printf(" runs=%d gpu_ms=%.2f", runs, 1e3 * median(t, runs));
    if (!v.failed && timed) {
        double lo = t[0];
        for (int r = 1; r < runs; r++)
            lo = t[r] < lo ? t[r] : lo;
        printf(" gpu_best_ms=%.2f", 1e3 * lo);
        profile_begin();
        if (pl__gpu_msm_g1(md->gpu, PL__CURVE_BLS12_381, &again,
                           md->d_points, md->d_scalars, (uint32_t)n,
                           md->scratch, md->scratch_bytes, &err))
            fail(&v, "the profiled MSM failed: %s", err.msg);
        else if (!fault_in(fault) && !blst_p1_is_equal(&got, &again))
            fail(&v, "the profiled run gave another sum than run 0");
        profile_end_print();
    }

    /* the checks: discrete logs always, the CPU MSM on the timed case */
    if (!v.failed) {
        blst_p1 want;
        t0 = pl__now_seconds();
        msm_by_logs(&want, mc->points, scalars, n);
        printf(" check=%s dlog_s=%.2f", timed ? "cpu_msm+dlog" : "dlog",
               pl__now_seconds() - t0);
        if (!blst_p1_is_equal(&got, &want))
            fail(&v, "the device's sum differs from (sum s_i l_i) G");
        if (timed) {
            t0 = pl__now_seconds();
            if (pl__msm_g1(&want, (const uint8_t *)points, scalars, n, pool,
                           &err))
                fail(&v, "the CPU MSM failed: %s", err.msg);
            else if (!blst_p1_is_equal(&got, &want))
                fail(&v, "the device's sum differs from the CPU MSM's");
            printf(" cpu_msm_s=%.2f", pl__now_seconds() - t0);
        }
    }
    free(points);
    free(scalars);
    end_row(&v, row_start);
    return v.failed;
}

static int bench_msm(int argc, char **argv)
{
    if (argc < 1)
        die("usage: bench_gpu msm LOG [random|ones|mixed|repeated...]", NULL);
    unsigned lg = (unsigned)atoi(argv[0]);
    if (lg > 27)
        die("msm: LOG above 27", NULL);
    pl_error err = {0};
    msm_device md = {.n = (size_t)1 << lg, .points_up = -1};
    if (pl__gpu_open(&md.gpu, impl, 0, &err))
        die("open device 0", &err);
    printf("device=\"%s\"\n", pl__gpu_description(md.gpu));
    if (pl__gpu_msm_scratch_bytes(md.gpu, PL__CURVE_BLS12_381,
                                  &md.scratch_bytes, (uint32_t)md.n, &err))
        die("MSM scratch size", &err);
    if (!(md.d_points = pl__gpu_alloc(md.gpu, md.n * 96, &err)) ||
        !(md.d_scalars = pl__gpu_alloc(md.gpu, md.n * 32, &err)) ||
        !(md.scratch = pl__gpu_alloc(md.gpu, md.scratch_bytes, &err)))
        die("device memory", &err);
    printf("bench=msm_plan log2=%u scratch_mib=%.0f\n", lg,
           md.scratch_bytes / 1048576.0);
    int failed = 0;
    for (size_t k = 0; k < N_MSM_CASES; k++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strcmp(argv[a], msm_cases[k].name) == 0;
        if (wanted && msm_case_row(&md, lg, &msm_cases[k]))
            failed = 1;
    }
    pl__gpu_free(md.gpu, md.scratch, md.scratch_bytes);
    pl__gpu_free(md.gpu, md.d_scalars, md.n * 32);
    pl__gpu_free(md.gpu, md.d_points, md.n * 96);
    pl__gpu_close(md.gpu);
    return failed;
}

/* ---- bench_gpu ntt ---------------------------------------------------------- */

/* One size's row; returns whether it failed. */
static bool ntt_row(pl__gpu *gpu, unsigned lg)
{
    pl_error err = {0};
    verdict v = {0};
    double row_start = pl__now_seconds(), t0;
    size_t n = (size_t)1 << lg;
    uint64_t bytes = n * sizeof(blst_fr);
    printf("bench=ntt log2=%u n=%zu", lg, n);
    pl__ntt_plan *plan;
    if (pl__ntt_plan_create(&plan, lg, pool, &err))
        die("NTT plan", &err);
    blst_fr *input = xmalloc(bytes), *want = xmalloc(bytes);
    blst_fr *got = xmalloc(bytes);
    uint64_t state = 0xabcdef00u + lg;
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32];
        random_scalar(le, &state);
        pl__fr_from_le(&input[i], le);
    }
    memcpy(want, input, bytes);
    t0 = pl__now_seconds();
    pl__ntt_to_odd_coset(plan, want, pool);
    printf(" cpu_ntt_ms=%.1f", 1e3 * (pl__now_seconds() - t0));

    pl__gpu_ntt_set set = {0};
    void *d_data = pl__gpu_alloc(gpu, bytes, &err);
    if (!d_data)
        die("device memory", &err);
    if (pl__gpu_ntt_set_create(gpu, &set, plan, lg, &err))
        fail(&v, "the tables: %s", err.msg);

    /* a warm-up and 5 runs, each from a fresh upload of the input; the
     * first and the last run's results are downloaded and compared */
    double up[5], tr[5], down = 0;
    for (int r = -1; r < 5 && !v.failed; r++) {
        double t1, t2;
        t0 = pl__now_seconds();
        if (pl__gpu_upload(gpu, d_data, input, bytes, &err) ||
            pl__gpu_sync(gpu, &err) || (t1 = pl__now_seconds(), 0) ||
            pl__gpu_to_odd_coset(gpu, d_data, &set.tables, &err) ||
            pl__gpu_sync(gpu, &err)) {
            fail(&v, "run %d: %s", r, err.msg);
            break;
        }
        t2 = pl__now_seconds();
        if (r >= 0) {
            up[r] = t1 - t0;
            tr[r] = t2 - t1;
        }
        if (r == 0 || r == 4) {
            if (pl__gpu_download(gpu, got, d_data, bytes, &err)) {
                fail(&v, "download: %s", err.msg);
                break;
            }
            down = pl__now_seconds() - t2;
            if (fault_in("ntt"))
                got[n / 2].l[0] ^= 1;
            for (size_t i = 0; i < n; i++)
                if (memcmp(&got[i], &want[i], sizeof(blst_fr)) != 0) {
                    fail(&v, "run %d differs from the CPU's NTT at %zu of %zu",
                         r, i, n);
                    break;
                }
        }
    }
    if (!v.failed)
        printf(" runs=5 ntt_ms=%.3f upload_ms=%.3f upload_gbps=%.1f "
               "download_ms=%.3f download_gbps=%.1f check=cpu_ntt",
               1e3 * median(tr, 5), 1e3 * median(up, 5),
               bytes / median(up, 5) / 1e9, 1e3 * down, bytes / down / 1e9);
    pl__gpu_ntt_set_destroy(gpu, &set);
    pl__gpu_free(gpu, d_data, bytes);
    pl__ntt_plan_destroy(plan);
    free(input);
    free(want);
    free(got);
    end_row(&v, row_start);
    return v.failed;
}

static int bench_ntt(int argc, char **argv)
{
    pl_error err = {0};
    pl__gpu *gpu;
    if (pl__gpu_open(&gpu, impl, 0, &err))
        die("open device 0", &err);
    printf("device=\"%s\"\n", pl__gpu_description(gpu));
    int failed = 0;
    for (int a = 0; a < argc; a++) {
        unsigned lg = (unsigned)atoi(argv[a]);
        if (lg > 27)
            die("ntt: LOG above 27", NULL);
        if (ntt_row(gpu, lg))
            failed = 1;
    }
    pl__gpu_close(gpu);
    return failed;
}

/* ---- bench_gpu prove -------------------------------------------------------- */

/* The prover's stage timings of one proof (pl_stage_fn), and while
 * profiling, the device's phases within each stage (the profile is read
 * and reset as each stage ends, so that each MSM gets its own split). */
#define MAX_STAGES 16
typedef struct {
    const char *name[MAX_STAGES];
    double seconds[MAX_STAGES];
    int count;
    bool profiling;
    double phase_s[MAX_STAGES][PL_GPU_PHASES];
    uint64_t phase_k[MAX_STAGES][PL_GPU_PHASES];
} stage_times;

static void note_stage(void *user, const char *stage, double seconds)
{
    stage_times *t = user;
    if (t->count < MAX_STAGES) {
        if (t->profiling)
            pl__gpu_profile_read(t->phase_s[t->count], t->phase_k[t->count],
                                 true);
        t->name[t->count] = stage;
        t->seconds[t->count++] = seconds;
    }
}

/* prof_<stage>_ms and prof_<stage>_<phase>_ms for every phase that ran in
 * the stage; the upload's rate in GB/s over `upload_bytes`. */
static void print_stage_phases(const stage_times *t, double upload_bytes)
{
    double up = 0;
    for (int s = 0; s < t->count; s++) {
        printf(" prof_%s_ms=%.2f", t->name[s], 1e3 * t->seconds[s]);
        for (int i = 0; i < PL_GPU_PHASES; i++)
            if (t->phase_k[s][i])
                printf(" prof_%s_%s_ms=%.2f", t->name[s],
                       pl__gpu_phase_name(i), 1e3 * t->phase_s[s][i]);
        up += t->phase_s[s][PL_GPU_PHASE_UPLOAD];
    }
    printf(" prof_upload_gbps=%.1f", up > 0 ? upload_bytes / up / 1e9 : 0);
}

/* One proof's times. */
typedef struct {
    double synth, start, finish;
    stage_times stages;
} proof_times;

/* One proof: synthesis on the pool, then the prover's start and finish,
 * timed apart; the proof must verify. */
static void prove_once(pl_prover *prover, stage_times *sink, pl_wtns *wtns,
                       const pl_vkey *vkey, proof_times *t, pl_proof *proof,
                       verdict *v, const char *which)
{
    pl_error err = {0};
    blst_fr *abc;
    pl_pending *pending;
    double t0 = pl__now_seconds();
    if (pl__prover_synthesize(prover, &abc, wtns, pool, &err)) {
        fail(v, "%s: synthesis: %s", which, err.msg);
        return;
    }
    double t1 = pl__now_seconds();
    sink->count = 0;
    if (pl__prove_start_abc(prover, &pending, abc, wtns, NULL, NULL, &err)) {
        fail(v, "%s: start: %s", which, err.msg);
        return;
    }
    double t2 = pl__now_seconds();
    if (pl_prove_finish(pending, proof, &err)) {
        fail(v, "%s: finish: %s", which, err.msg);
        return;
    }
    double t3 = pl__now_seconds();
    t->synth = t1 - t0;
    t->start = t2 - t1;
    t->finish = t3 - t2;
    t->stages = *sink;
    if (fault_in("prove"))
        proof->c.b[95] ^= 1;
    pl_zkey_info info;
    pl_zkey_get_info(pl__prover_zkey(prover), &info);
    if (pl_verify(vkey, proof, pl_wtns_values(wtns) + 1, info.n_public, &err))
        fail(v, "%s: the proof does not verify: %s", which, err.msg);
}

static pl_prover *prover_on(const pl__backend_ops *ops, const pl_zkey *zk,
                            stage_times *sink, bool zero_blinding)
{
    pl_error err = {0};
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.on_stage = note_stage;
    cfg.on_stage_user = sink;
    pl_prover *prover;
    if (pl__prover_create_with_backend(&prover, zk, ops, &cfg, &err)) {
        printf(" ok=NO why=opening the %s backend: %s\n", ops->name, err.msg);
        exit(1);
    }
    pl__prover_set_zero_blinding(prover, zero_blinding);
    return prover;
}

/* stage_<name>_ms: the median over the runs, by the first run's names. */
static void print_stage_medians(const char *prefix, const proof_times *t,
                                int runs)
{
    for (int s = 0; s < t[0].stages.count; s++) {
        double v[16];
        for (int r = 0; r < runs; r++)
            v[r] = t[r].stages.seconds[s];
        printf(" %s_%s_ms=%.1f", prefix, t[0].stages.name[s],
               1e3 * median(v, runs));
    }
}

static double stage_seconds(const proof_times *t, const char *name)
{
    for (int s = 0; s < t->stages.count; s++)
        if (strcmp(t->stages.name[s], name) == 0)
            return t->stages.seconds[s];
    return 0;
}

static int bench_prove(int argc, char **argv)
{
    if (argc < 2)
        die("usage: bench_gpu prove ZKEY WTNS [N] [--cpu]", NULL);
    int reps = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 3;
    bool cpu_too = strcmp(argv[argc - 1], "--cpu") == 0;
    if (reps < 1 || reps > 15)
        reps = 3;
    pl_error err = {0};
    verdict v = {0};
    double row_start = pl__now_seconds();
    pl_zkey *zk;
    pl_wtns *wtns;
    pl_vkey *vkey;
    if (pl_zkey_open(&zk, argv[0], &err) || pl_wtns_open(&wtns, argv[1], &err) ||
        pl_vkey_from_zkey(&vkey, zk, &err))
        die("open", &err);
    pl_zkey_info info;
    pl_zkey_get_info(zk, &info);
    unsigned lg = 0;
    while ((1u << lg) < info.domain_size)
        lg++;
    printf("bench=prove domain=2^%u constraints=%u n_vars=%u", lg,
           info.n_constraints, info.n_vars);
    fflush(stdout);

    stage_times sink = {0};
    proof_times t[16], warm, prof;
    pl_proof proof, gpu_zero, cpu_zero;
    double t0 = pl__now_seconds();
    pl_prover *prover = prover_on(backend, zk, &sink, false);
    printf(" open_s=%.2f", pl__now_seconds() - t0);
    prove_once(prover, &sink, wtns, vkey, &warm, &proof, &v, "warm-up");
    for (int r = 0; r < reps && !v.failed; r++)
        prove_once(prover, &sink, wtns, vkey, &t[r], &proof, &v, "timed");
    if (!v.failed) {
        double synth[16], start[16], finish[16], total[16], g2[16];
        for (int r = 0; r < reps; r++) {
            synth[r] = t[r].synth;
            start[r] = t[r].start;
            finish[r] = t[r].finish;
            total[r] = t[r].start + t[r].finish;
            /* the G2 MSM starts with start and ends when finish's join
             * returns: its time, when the join waited at all */
            g2[r] = t[r].start + stage_seconds(&t[r], "g2_join");
        }
        printf(" reps=%d synth_ms=%.1f gpu_prove_ms=%.1f start_ms=%.1f "
               "finish_ms=%.1f",
               reps, 1e3 * median(synth, reps), 1e3 * median(total, reps),
               1e3 * median(start, reps), 1e3 * median(finish, reps));
        print_stage_medians("gpu", t, reps);
        printf(" g2_cpu_ms=%.1f", 1e3 * median(g2, reps));
    }
    /* one more, profiled: the device's phases within each stage */
    if (!v.failed) {
        sink.profiling = true;
        profile_begin();
        prove_once(prover, &sink, wtns, vkey, &prof, &proof, &v, "profiled");
        pl__gpu_profile(false);
        sink.profiling = false;
        /* a, b, c and the witness go up in a proof */
        print_stage_phases(&prof.stages,
                           3.0 * info.domain_size * 32 + info.n_vars * 32.0);
        printf(" prof_start_ms=%.1f", 1e3 * prof.start);
    }
    pl_prover_destroy(prover);
    if (cpu_too && !v.failed) {
        /* r = s = 0 on both backends: the same proof, bit for bit */
        pl_prover *zero = prover_on(backend, zk, &sink, true);
        prove_once(zero, &sink, wtns, vkey, &warm, &gpu_zero, &v, "r = s = 0");
        pl_prover_destroy(zero);
        pl_prover *cpu = prover_on(&pl__backend_cpu, zk, &sink, true);
        prove_once(cpu, &sink, wtns, vkey, &t[0], &cpu_zero, &v, "CPU");
        pl_prover_destroy(cpu);
        if (!v.failed) {
            printf(" cpu_prove_ms=%.1f", 1e3 * (t[0].start + t[0].finish));
            print_stage_medians("cpu", t, 1);
            bool same = memcmp(&gpu_zero, &cpu_zero, sizeof(gpu_zero)) == 0;
            printf(" equal_cpu=%s", same ? "yes" : "NO");
            if (!same)
                fail(&v, "with r = s = 0 the proof differs from the CPU "
                         "backend's");
        }
    }
    if (!v.failed)
        printf(" verified=yes");
    pl_vkey_destroy(vkey);
    pl_wtns_close(wtns);
    pl_zkey_close(zk);
    end_row(&v, row_start);
    return v.failed;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--emulated") == 0) {
        impl = &pl__gpu_impl_emulated;
        backend = &pl__backend_cuda_emulated;
        argc--;
        argv++;
    } else {
#ifdef PL_HAVE_CUDA
        char why[160] = "";
        if (pl__gpu_impl_cuda.device_count(why, sizeof(why)) <= 0) {
            printf("skipped: no CUDA device (%s)\n", why);
            return 77;
        }
        impl = &pl__gpu_impl_cuda;
        backend = pl__backend_cuda;
#else
        printf("skipped: this build has no CUDA backend\n");
        return 77;
#endif
    }
    pl_error err = {0};
    if (pl__pool_create(&pool, 0, "pl-bench", &err))
        die("pool", &err);
    int rc = 2;
    if (argc >= 2 && strcmp(argv[1], "msm") == 0)
        rc = bench_msm(argc - 2, argv + 2);
    else if (argc >= 2 && strcmp(argv[1], "ntt") == 0)
        rc = bench_ntt(argc - 2, argv + 2);
    else if (argc >= 2 && strcmp(argv[1], "prove") == 0)
        rc = bench_prove(argc - 2, argv + 2);
    else if (argc == 1)
        rc = 0; /* the probe: a device answers */
    else
        fprintf(stderr, "usage: bench_gpu [--emulated] msm LOG [CASE...] | "
                        "ntt LOG... | prove ZKEY WTNS [N] [--cpu]\n");
    pl__pool_destroy(pool);
    return rc;
}
