/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GPU timings for bench/gpu_check.sh, as key=value lines (exit 77 without a
 * CUDA device):
 *
 *   bench_gpu msm LOG...            G1 MSM of 2^LOG points on the device:
 *                                   points and scalars already there (as
 *                                   sppark's and ICICLE's published figures
 *                                   take them), median of 5 after a warm-up;
 *                                   the first size is also checked against
 *                                   the CPU MSM.
 *   bench_gpu prove ZKEY WTNS [N]   N proofs (default 3) on the CUDA
 *                                   backend: synthesis (CPU) and the rest
 *                                   (start + finish: H, the G1 MSMs on the
 *                                   GPU, G2 on the CPU beside it, assembly)
 *                                   timed apart, medians; each proof is
 *                                   verified.  With --cpu, once on the CPU
 *                                   backend too, for the ratio.
 *
 * --emulated before the command runs it on the host emulation instead
 * (small sizes only: a check of this program on machines without a GPU).
 *
 * Points for the MSM are 2^20 distinct multiples of the generator, tiled:
 * a repeated point costs the GPU the same as a fresh one.
 */
#define _GNU_SOURCE
#include "groth16/prover.h"
#include "backend/cuda/gpu.h"
#include "msm/msm.h"
#include "util/clock.h"
#include "util/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device and backend under test: CUDA's, or with --emulated (first
 * argument) the host emulation's, to check this program itself on a
 * machine without a GPU at small sizes. */
static const pl__gpu_impl *impl;
static const pl__backend_ops *backend;

static int median_index_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), median_index_cmp);
    return v[n / 2];
}

static void die(const char *what, const pl_error *err)
{
    fprintf(stderr, "bench_gpu: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint8_t *tiled_points(size_t n)
{
    size_t distinct = n < ((size_t)1 << 20) ? n : (size_t)1 << 20;
    blst_p1 *proj = malloc(distinct * sizeof(*proj));
    uint8_t *aff = malloc(n * sizeof(blst_p1_affine));
    if (!proj || !aff)
        die("out of memory", NULL);
    blst_p1 acc = *blst_p1_generator();
    for (size_t i = 0; i < distinct; i++) {
        proj[i] = acc;
        blst_p1_add_or_double(&acc, &acc, blst_p1_generator());
    }
    const blst_p1 *list[2] = {proj, NULL};
    blst_p1s_to_affine((blst_p1_affine *)aff, list, distinct);
    for (size_t done = distinct; done < n; done += distinct)
        memcpy(aff + done * sizeof(blst_p1_affine), aff,
               (n - done < distinct ? n - done : distinct) *
                   sizeof(blst_p1_affine));
    free(proj);
    return aff;
}

static int bench_msm(int argc, char **argv)
{
    pl_error err = {0};
    pl__gpu *gpu;
    if (pl__gpu_open(&gpu, impl, 0, &err))
        die("open device 0", &err);
    printf("device=\"%s\"\n", pl__gpu_description(gpu));
    for (int a = 0; a < argc; a++) {
        unsigned lg = (unsigned)atoi(argv[a]);
        size_t n = (size_t)1 << lg;
        uint8_t *points = tiled_points(n);
        uint8_t *scalars = malloc(n * 32);
        if (!scalars)
            die("out of memory", NULL);
        for (size_t i = 0; i < n * 4; i++)
            ((uint64_t *)scalars)[i] = next_random();
        for (size_t i = 0; i < n; i++)
            scalars[32 * i + 31] &= 0x3f; /* < 2^254 < r */
        uint64_t scratch_bytes;
        if (pl__gpu_msm_scratch_bytes(gpu, &scratch_bytes, (uint32_t)n, &err))
            die("MSM scratch size", &err);
        void *d_points = pl__gpu_alloc(gpu, n * 96, &err);
        void *d_scalars = d_points ? pl__gpu_alloc(gpu, n * 32, &err) : NULL;
        void *scratch = d_scalars ? pl__gpu_alloc(gpu, scratch_bytes, &err) : NULL;
        if (!scratch)
            die("device memory", &err);
        if (pl__gpu_upload(gpu, d_points, points, n * 96, &err) ||
            pl__gpu_upload(gpu, d_scalars, scalars, n * 32, &err))
            die("upload", &err);
        blst_p1 got;
        double t[5];
        for (int r = -1; r < 5; r++) { /* r = -1: warm-up */
            double t0 = pl__now_seconds();
            if (pl__gpu_msm_g1(gpu, &got, d_points, d_scalars, (uint32_t)n,
                               scratch, scratch_bytes, &err))
                die("msm", &err);
            if (r >= 0)
                t[r] = pl__now_seconds() - t0;
        }
        const char *match = "unchecked";
        if (a == 0) {
            pl__pool *pool;
            blst_p1 want;
            if (pl__pool_create(&pool, 0, "pl-bench", &err) ||
                pl__msm_g1(&want, points, scalars, n, pool, &err))
                die("cpu msm", &err);
            pl__pool_destroy(pool);
            match = blst_p1_is_equal(&got, &want) ? "yes" : "NO";
        }
        printf("bench=msm_g1 log2=%u n=%zu gpu_ms=%.2f scratch_mib=%.0f "
               "matches_cpu=%s\n",
               lg, n, 1e3 * median(t, 5), scratch_bytes / 1048576.0, match);
        fflush(stdout);
        pl__gpu_free(gpu, scratch, scratch_bytes);
        pl__gpu_free(gpu, d_scalars, n * 32);
        pl__gpu_free(gpu, d_points, n * 96);
        free(points);
        free(scalars);
    }
    pl__gpu_close(gpu);
    return 0;
}

/* The prover's stage timings of the last proof (pl_stage_fn), printed
 * with the proof row so a slow row says which phase was slow. */
typedef struct {
    const char *name[24];
    double seconds[24];
    int count;
} stage_times;

static void note_stage(void *user, const char *stage, double seconds)
{
    stage_times *t = user;
    if (t->count < 24) {
        t->name[t->count] = stage;
        t->seconds[t->count++] = seconds;
    }
}

static void print_stages(const char *prefix, const stage_times *t)
{
    for (int i = 0; i < t->count; i++)
        printf(" %s_%s_ms=%.1f", prefix, t->name[i], 1e3 * t->seconds[i]);
}

/* One proof: synthesis on the synthesis pool, then the prover's start and
 * finish, timed apart; the proof must verify. */
static void prove_once(pl_prover *prover, stage_times *stages,
                       pl__pool *synth_pool, pl_wtns *wtns,
                       const pl_vkey *vkey, double *synth_s, double *prove_s)
{
    pl_error err = {0};
    blst_fr *abc;
    pl_pending *pending;
    pl_proof proof;
    double t0 = pl__now_seconds();
    if (pl__prover_synthesize(prover, &abc, wtns, synth_pool, &err))
        die("synthesize", &err);
    double t1 = pl__now_seconds();
    stages->count = 0;
    if (pl__prove_start_abc(prover, &pending, abc, wtns, &err) ||
        pl_prove_finish(pending, &proof, &err))
        die("prove", &err);
    double t2 = pl__now_seconds();
    pl_zkey_info info;
    pl_zkey_get_info(pl__prover_zkey(prover), &info);
    if (pl_verify(vkey, &proof, pl_wtns_values(wtns) + 1, info.n_public, &err))
        die("the proof does not verify", &err);
    *synth_s = t1 - t0;
    *prove_s = t2 - t1;
}

static pl_prover *prover_on(const pl__backend_ops *ops, const pl_zkey *zk,
                            stage_times *stages)
{
    pl_error err = {0};
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.on_stage = note_stage;
    cfg.on_stage_user = stages;
    pl_prover *prover;
    if (pl__prover_create_with_backend(&prover, zk, ops, &cfg, &err))
        die("open the backend", &err);
    return prover;
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
    pl_zkey *zk;
    pl_wtns *wtns;
    pl_vkey *vkey;
    if (pl_zkey_open(&zk, argv[0], &err) || pl_wtns_open(&wtns, argv[1], &err) ||
        pl_vkey_from_zkey(&vkey, zk, &err))
        die("open", &err);
    pl_zkey_info info;
    pl_zkey_get_info(zk, &info);
    pl__pool *synth_pool; /* synthesis on every core, as the engine's pw */
    if (pl__pool_create(&synth_pool, 0, "pl-synth", &err))
        die("pool", &err);
    stage_times gpu_stages = {0}, cpu_stages = {0};
    double t0 = pl__now_seconds();
    pl_prover *prover = prover_on(backend, zk, &gpu_stages);
    double open_s = pl__now_seconds() - t0;
    double synth[16], gpu[16], s_cpu = 0, p_cpu = 0;
    prove_once(prover, &gpu_stages, synth_pool, wtns, vkey, &synth[0],
               &gpu[0]); /* warm-up */
    for (int r = 0; r < reps; r++)
        prove_once(prover, &gpu_stages, synth_pool, wtns, vkey, &synth[r],
                   &gpu[r]);
    pl_prover_destroy(prover);
    if (cpu_too) {
        pl_prover *cpu = prover_on(&pl__backend_cpu, zk, &cpu_stages);
        prove_once(cpu, &cpu_stages, synth_pool, wtns, vkey, &s_cpu, &p_cpu);
        pl_prover_destroy(cpu);
    }
    unsigned log2_domain = 0;
    while ((1u << log2_domain) < info.domain_size)
        log2_domain++;
    printf("bench=prove domain=2^%u constraints=%u open_s=%.2f synth_ms=%.1f "
           "gpu_prove_ms=%.1f",
           log2_domain, info.n_constraints, open_s,
           1e3 * median(synth, reps), 1e3 * median(gpu, reps));
    print_stages("gpu", &gpu_stages);
    if (cpu_too) {
        printf(" cpu_prove_ms=%.1f", 1e3 * p_cpu);
        print_stages("cpu", &cpu_stages);
    }
    printf(" verified=yes\n");
    pl__pool_destroy(synth_pool);
    pl_vkey_destroy(vkey);
    pl_wtns_close(wtns);
    pl_zkey_close(zk);
    return 0;
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
    if (argc >= 2 && strcmp(argv[1], "msm") == 0)
        return bench_msm(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "prove") == 0)
        return bench_prove(argc - 2, argv + 2);
    fprintf(stderr, "usage: bench_gpu [--emulated] msm LOG... | prove ZKEY "
                    "WTNS [N] [--cpu]\n");
    return 2;
}
