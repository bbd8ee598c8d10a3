/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_msm: the batch-affine MSM (pl__msm_gX, all cores) against one call
 * of blst's own Pippenger (blst_pXs_mult_pippenger, one thread: the
 * baseline issue 3 names) and against our blst-tile MSM on the same pool
 * (pl__msm_gX_blst), on the same random input; the witness MSM
 * (pl__msm_gX_witness) against the plain one on witness-like scalars; plus
 * the cost per point in field multiplications and the NTT at 2^20 against
 * its butterfly bound.
 * Not part of `make test`; run it on a quiet machine, or at least read only
 * the ratios, which are measured side by side in one process: the
 * contenders alternate, and each figure is the median of BENCH_RUNS (3).
 *
 *   bench_msm                 G1 at 2^16, 2^18, 2^20; G2 at 2^16, 2^18;
 *                             the witness MSM against the plain one: G1 at
 *                             2^18 with 60% zeros, 30% ones, 10% large, and
 *                             dense; G2 at 2^16, 60/30/10
 *   BENCH_MAX_LOG=18          cap the sizes (2^20 takes minutes)
 *   BENCH_THREADS=k           pool size (default: one per core)
 *   BENCH_WITNESS_ONLY=1      only the witness MSM cases
 *   BENCH_FP8_ONLY=1          only Fp multiplications per second: blst
 *                             against 8 lanes of AVX-512 IFMA (field/fp8.h)
 *   BENCH_GLV_ONLY=1          only the GLV modes (G1; BENCH_GLV_G2=1: G2),
 *                             in process CPU time
 *
 * Output: key=value lines.  Every sum is checked against blst's (the same
 * group element, compared in affine form) and a mismatch exits 1.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "field/field.h"
#include "field/fp8.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/pool.h"
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double min3(const double t[3])
{
    double m = t[0] < t[1] ? t[0] : t[1];
    return m < t[2] ? m : t[2];
}

/* One dependent chain of multiplications (the latency an MSM sees), in ns
 * per multiplication: the best of 3, as contention only adds time. */
static double fp_mul_ns(void)
{
    blst_fp a = blst_p1_affine_generator()->x, b = blst_p1_affine_generator()->y;
    double t[3];
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        for (int i = 0; i < 1000000; i++)
            blst_fp_mul(&a, &a, &b);
        t[r] = (now() - t0) * 1e3;
    }
    volatile uint64_t sink = a.l[0];
    (void)sink;
    return min3(t);
}

/* fp_mul_ns in the process's CPU time (see cpu_now). */
static double fp_mul_cpu_ns(void)
{
    blst_fp a = blst_p1_affine_generator()->x, b = blst_p1_affine_generator()->y;
    double t[3];
    for (int r = 0; r < 3; r++) {
        double t0 = cpu_now();
        for (int i = 0; i < 1000000; i++)
            blst_fp_mul(&a, &a, &b);
        t[r] = (cpu_now() - t0) * 1e3;
    }
    volatile uint64_t sink = a.l[0];
    (void)sink;
    return min3(t);
}

/* The same for Fr, the unit of the NTT's butterfly bound. */
static double fr_mul_ns(void)
{
    blst_fr a, b;
    uint64_t v[4] = {12345, 678, 9, 10};
    blst_fr_from_uint64(&a, v);
    v[0] = 987;
    blst_fr_from_uint64(&b, v);
    double t[3];
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        for (int i = 0; i < 1000000; i++)
            blst_fr_mul(&a, &a, &b);
        t[r] = (now() - t0) * 1e3;
    }
    volatile uint64_t sink = a.l[0];
    (void)sink;
    return min3(t);
}

typedef struct {
    int g2;
    const uint8_t *points, *scalars;
    size_t n;
    pl__pool *pool;
} input;

/* which: 0 = blst_pXs_mult_pippenger (1 thread), 1 = ours on the pool,
 * 2 = blst tiles on the pool, 3 = ours on one thread.  out: affine bytes. */
static double run_one(const input *in, int which, uint8_t *out)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    double t0 = now();
    if (!in->g2) {
        blst_p1 r;
        if (which == 0) {
            void *scratch = malloc(blst_p1s_mult_pippenger_scratch_sizeof(in->n));
            const blst_p1_affine *pts[2] = {(const void *)in->points, NULL};
            const byte *scs[2] = {in->scalars, NULL};
            t0 = now(); /* the malloc is not blst's work */
            blst_p1s_mult_pippenger(&r, pts, in->n, scs, 255, scratch);
            free(scratch);
        } else if (which == 2) {
            st = pl__msm_g1_blst(&r, in->points, in->scalars, in->n, in->pool, &err);
        } else {
            st = pl__msm_g1(&r, in->points, in->scalars, in->n,
                            which == 1 ? in->pool : NULL, &err);
        }
        double t = now() - t0;
        blst_p1_affine a;
        blst_p1_to_affine(&a, &r);
        memcpy(out, &a, sizeof(a));
        if (st != PL_OK) {
            fprintf(stderr, "msm failed: %s\n", err.msg);
            exit(1);
        }
        return t;
    }
    blst_p2 r;
    if (which == 0) {
        void *scratch = malloc(blst_p2s_mult_pippenger_scratch_sizeof(in->n));
        const blst_p2_affine *pts[2] = {(const void *)in->points, NULL};
        const byte *scs[2] = {in->scalars, NULL};
        t0 = now();
        blst_p2s_mult_pippenger(&r, pts, in->n, scs, 255, scratch);
        free(scratch);
    } else if (which == 2) {
        st = pl__msm_g2_blst(&r, in->points, in->scalars, in->n, in->pool, &err);
    } else {
        st = pl__msm_g2(&r, in->points, in->scalars, in->n,
                        which == 1 ? in->pool : NULL, &err);
    }
    double t = now() - t0;
    blst_p2_affine a;
    blst_p2_to_affine(&a, &r);
    memcpy(out, &a, sizeof(a));
    if (st != PL_OK) {
        fprintf(stderr, "msm failed: %s\n", err.msg);
        exit(1);
    }
    return t;
}

static int runs = 3;

static void bench_msm(int g2, unsigned log2n, pl__pool *pool, bool one_thread)
{
    size_t n = (size_t)1 << log2n;
    unsigned threads = pl__pool_size(pool);
    input in = {g2, g2 ? g2_points(n) : g1_points(n), random_scalars_below_r(n), n, pool};
    int kinds = one_thread ? 4 : 3;
    double t[4][16], mul[16];
    uint8_t want[192], got[192];
    size_t bytes = g2 ? 192 : 96;
    for (int r = 0; r < runs; r++) {
        /* the unit of fm_per_point, taken between the sums it divides */
        mul[r] = fp_mul_ns();
        for (int k = 0; k < kinds; k++) {
            /* alternate the order, so no contender always runs warm; round
             * 0 runs blst first, so `want` is set before any comparison */
            int which = (r % 2) ? kinds - 1 - k : k;
            t[which][r] = run_one(&in, which, which == 0 ? want : got);
            if (which != 0 && memcmp(want, got, bytes) != 0) {
                printf("msm=%s log2n=%u kind=%d match=0\n", g2 ? "g2" : "g1",
                       log2n, which);
                exit(1);
            }
        }
    }
    double blst1 = median(t[0], runs), ours = median(t[1], runs),
           tiles = median(t[2], runs), mul_ns = median(mul, runs);
    const char *g = g2 ? "g2" : "g1";
    unsigned window = g2 ? pl__msm_g2_window(n, threads)
                         : pl__msm_g1_window(n, threads);
    printf("msm=%s log2n=%u threads=%u window=%u match=1 blst_1t_ms=%.1f "
           "blst_tiles_ms=%.1f ours_ms=%.1f speedup_vs_blst_1t=%.2f "
           "speedup_vs_blst_tiles=%.2f\n",
           g, log2n, threads, window, blst1 * 1e3, tiles * 1e3, ours * 1e3,
           blst1 / ours, tiles / ours);
    /* per point, in multiplications of the group's base field (Fp for G1,
     * also Fp for G2: an Fp2 multiplication is about 3 of them) */
    printf("msm=%s log2n=%u fp_mul_ns=%.1f fm_per_point_cpu=%.0f "
           "blst_1t_fm_per_point=%.0f",
           g, log2n, mul_ns, ours * threads / (double)n * 1e9 / mul_ns,
           blst1 / (double)n * 1e9 / mul_ns);
    if (one_thread) {
        double ours1 = median(t[3], runs);
        printf(" ours_1t_ms=%.1f fm_per_point_1t=%.0f speedup_1t_vs_blst_1t=%.2f",
               ours1 * 1e3, ours1 / (double)n * 1e9 / mul_ns, blst1 / ours1);
    }
    printf("\n");
    fflush(stdout);
    free((void *)in.points);
    free((void *)in.scalars);
}

/*
 * G1 (or G2) with each GLV mode (msm.h) against one call of blst's
 * Pippenger, on the same random input: off / load / call / table on the
 * pool, and blst_pXs_mult_pippenger on one thread; alternating, medians of
 * `runs`, every sum compared with blst's.  Times are the process's CPU
 * time (cpu_now), so the ratios hold on a loaded machine.  The table of
 * phi(P_i) (PL__GLV_TABLE) is made once before the rounds (its time
 * printed apart: a circuit pays it once).  fm_* are Fp multiplications per
 * point in CPU time, so the thread count cancels.
 */
static void bench_glv(int g2, unsigned log2n, pl__pool *pool)
{
    static const pl__glv_mode modes[4] = {PL__GLV_OFF, PL__GLV_LOAD,
                                          PL__GLV_CALL, PL__GLV_TABLE};
    static const char *const names[4] = {"off", "load", "call", "table"};
    size_t n = (size_t)1 << log2n, pb = g2 ? 192 : 96;
    unsigned threads = pl__pool_size(pool);
    const uint8_t *points = g2 ? g2_points(n) : g1_points(n);
    const uint8_t *scalars = random_scalars_below_r(n);
    uint8_t *table = malloc(n * pb);
    if (!table)
        exit(2);
    double t0 = cpu_now();
    if (g2)
        pl__msm_g2_endo_table(table, points, n, pool);
    else
        pl__msm_g1_endo_table(table, points, n, pool);
    double table_s = cpu_now() - t0;
    double t[5][16], mul[16];
    uint8_t want[192], got[192];
    for (int r = 0; r < runs; r++) {
        mul[r] = fp_mul_cpu_ns();
        for (int k = 0; k < 5; k++) {
            /* round 0 runs blst first, so `want` is set first */
            int which = (r % 2) ? 4 - k : k;
            pl_error err = {0};
            pl_status st = PL_OK;
            pl__msm_opts o = {modes[which ? which - 1 : 0], table};
            const byte *scs[2] = {scalars, NULL};
            uint8_t *res = which == 0 ? want : got;
            if (g2) {
                blst_p2 p;
                blst_p2_affine a;
                if (which == 0) {
                    void *scratch =
                        malloc(blst_p2s_mult_pippenger_scratch_sizeof(n));
                    const blst_p2_affine *pts[2] = {(const void *)points, NULL};
                    t0 = cpu_now();
                    blst_p2s_mult_pippenger(&p, pts, n, scs, 255, scratch);
                    t[0][r] = cpu_now() - t0;
                    free(scratch);
                } else {
                    t0 = cpu_now();
                    st = pl__msm_g2_opts(&p, points, scalars, n, &o, pool, &err);
                    t[which][r] = cpu_now() - t0;
                }
                blst_p2_to_affine(&a, &p);
                memcpy(res, &a, sizeof(a));
            } else {
                blst_p1 p;
                blst_p1_affine a;
                if (which == 0) {
                    void *scratch =
                        malloc(blst_p1s_mult_pippenger_scratch_sizeof(n));
                    const blst_p1_affine *pts[2] = {(const void *)points, NULL};
                    t0 = cpu_now();
                    blst_p1s_mult_pippenger(&p, pts, n, scs, 255, scratch);
                    t[0][r] = cpu_now() - t0;
                    free(scratch);
                } else {
                    t0 = cpu_now();
                    st = pl__msm_g1_opts(&p, points, scalars, n, &o, pool, &err);
                    t[which][r] = cpu_now() - t0;
                }
                blst_p1_to_affine(&a, &p);
                memcpy(res, &a, sizeof(a));
            }
            if (st != PL_OK) {
                fprintf(stderr, "msm failed: %s\n", err.msg);
                exit(1);
            }
            if (which != 0 && memcmp(want, got, pb) != 0) {
                printf("msm=%s_glv log2n=%u mode=%s match=0\n",
                       g2 ? "g2" : "g1", log2n, names[which - 1]);
                exit(1);
            }
        }
    }
    double mul_ns = median(mul, runs), off = median(t[1], runs);
    double blst1 = median(t[0], runs);
    printf("msm=%s_glv log2n=%u threads=%u fp_mul_ns=%.1f match=1 "
           "table_ms=%.1f table_bytes=%zu blst_1t_ms=%.1f "
           "blst_1t_fm_per_point=%.0f",
           g2 ? "g2" : "g1", log2n, threads, mul_ns, table_s * 1e3, n * pb,
           blst1 * 1e3, blst1 / (double)n * 1e9 / mul_ns);
    for (int k = 0; k < 4; k++) {
        pl__msm_opts o = {modes[k], table};
        double tk = median(t[k + 1], runs);
        unsigned w = g2 ? pl__msm_g2_opts_window(n, threads, &o)
                        : pl__msm_g1_opts_window(n, threads, &o);
        printf(" %s_window=%u %s_ms=%.1f %s_fm_per_point=%.0f "
               "%s_speedup_vs_off=%.3f",
               names[k], w, names[k], tk * 1e3, names[k],
               tk / (double)n * 1e9 / mul_ns, names[k], off / tk);
    }
    printf("\n");
    fflush(stdout);
    free((void *)points);
    free((void *)scalars);
    free(table);
}

/*
 * Fp multiplications per second on one core (CPU time): blst_fp_mul as a
 * dependent chain (the latency the MSM's fm unit uses) and as 8
 * independent chains (its throughput), against pl__fp8_mul (8 lanes of
 * AVX-512 IFMA) as 1 and as 4 independent chains of vectors.  Values stay
 * in each form; conversions are not counted.
 */
static void bench_fp8(void)
{
    enum { ITERS = 2000000 };
    blst_fp a[8], b = blst_p1_affine_generator()->y;
    for (int k = 0; k < 8; k++) {
        a[k] = blst_p1_affine_generator()->x;
        a[k].l[0] += (uint64_t)k;
    }
    double t0 = cpu_now();
    for (int i = 0; i < ITERS; i++)
        blst_fp_mul(&a[0], &a[0], &b);
    double chain = (cpu_now() - t0) / ITERS;
    t0 = cpu_now();
    for (int i = 0; i < ITERS / 8; i++)
        for (int k = 0; k < 8; k++)
            blst_fp_mul(&a[k], &a[k], &b);
    double thr = (cpu_now() - t0) / ITERS;
    volatile uint64_t sink = a[0].l[0] ^ a[7].l[0];
    (void)sink;
    printf("bench=fp_mul blst_chain_ns=%.2f blst_8chains_ns=%.2f", chain * 1e9,
           thr * 1e9);
    if (!pl__fp8_supported()) {
        printf(" ifma=0\n");
        return;
    }
    static pl__fp8 v[4], w;
    uint64_t x[6], y[6];
    blst_uint64_from_fp(x, &blst_p1_affine_generator()->x);
    blst_uint64_from_fp(y, &blst_p1_affine_generator()->y);
    for (unsigned l = 0; l < 8; l++) {
        for (int c = 0; c < 4; c++)
            pl__fp8_set(&v[c], l, x);
        pl__fp8_set(&w, l, y);
    }
    t0 = cpu_now();
    for (int i = 0; i < ITERS / 8; i++)
        pl__fp8_mul(&v[0], &v[0], &w);
    double vchain = (cpu_now() - t0) / ITERS;
    t0 = cpu_now();
    for (int i = 0; i < ITERS / 32; i++)
        for (int c = 0; c < 4; c++)
            pl__fp8_mul(&v[c], &v[c], &w);
    double v4 = (cpu_now() - t0) / ITERS;
    sink = v[0].limb[0][0] ^ v[3].limb[7][7];
    printf(" ifma=1 ifma_1chain_ns=%.2f ifma_4chains_ns=%.2f "
           "blst_mmul_per_s=%.1f ifma_mmul_per_s=%.1f ifma_vs_blst=%.2f\n",
           vchain * 1e9, v4 * 1e9, 1e-6 / thr, 1e-6 / v4, thr / v4);
    fflush(stdout);
}

/* Witness-like scalars: zero_pct % zeros, one_pct % ones, the rest uniform
 * below r (large). */
static uint8_t *witness_scalars(size_t n, unsigned zero_pct, unsigned one_pct)
{
    uint8_t *s = random_scalars_below_r(n);
    for (size_t i = 0; i < n; i++) {
        unsigned pct = (unsigned)(rng() % 100);
        if (pct < zero_pct + one_pct) {
            memset(s + 32 * i, 0, 32);
            s[32 * i] = pct >= zero_pct;
        }
    }
    return s;
}

/* The witness MSM (pl__msm_gX_witness) against the plain one (pl__msm_gX),
 * both on the pool, on the same points and scalar mix: alternating, median
 * of `runs`, the results compared. */
static void bench_witness(int g2, unsigned log2n, unsigned zero_pct,
                          unsigned one_pct, pl__pool *pool)
{
    size_t n = (size_t)1 << log2n;
    unsigned threads = pl__pool_size(pool);
    const uint8_t *points = g2 ? g2_points(n) : g1_points(n);
    uint8_t *scalars = witness_scalars(n, zero_pct, one_pct);
    double t[2][16];
    uint8_t res[2][192];
    size_t bytes = g2 ? 192 : 96;
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < 2; k++) {
            int which = (r % 2) ? 1 - k : k; /* 0 = plain, 1 = witness */
            pl_error err = {0};
            pl_status st;
            double t0 = now();
            if (!g2) {
                blst_p1 p;
                blst_p1_affine a;
                st = which ? pl__msm_g1_witness(&p, points, scalars, n, pool, &err)
                           : pl__msm_g1(&p, points, scalars, n, pool, &err);
                t[which][r] = now() - t0;
                blst_p1_to_affine(&a, &p);
                memcpy(res[which], &a, sizeof(a));
            } else {
                blst_p2 p;
                blst_p2_affine a;
                st = which ? pl__msm_g2_witness(&p, points, scalars, n, pool, &err)
                           : pl__msm_g2(&p, points, scalars, n, pool, &err);
                t[which][r] = now() - t0;
                blst_p2_to_affine(&a, &p);
                memcpy(res[which], &a, sizeof(a));
            }
            if (st != PL_OK) {
                fprintf(stderr, "msm failed: %s\n", err.msg);
                exit(1);
            }
        }
    const char *g = g2 ? "g2" : "g1";
    if (memcmp(res[0], res[1], bytes) != 0) {
        printf("msm=%s_witness log2n=%u match=0\n", g, log2n);
        exit(1);
    }
    double plain = median(t[0], runs), wit = median(t[1], runs);
    uint64_t bound = g2 ? pl__msm_g2_witness_scratch_bytes(n, threads)
                        : pl__msm_g1_witness_scratch_bytes(n, threads);
    uint64_t plain_bytes = g2 ? pl__msm_g2_scratch_bytes(n, threads)
                              : pl__msm_g1_scratch_bytes(n, threads);
    printf("msm=%s_witness log2n=%u threads=%u zeros_pct=%u ones_pct=%u "
           "large_pct=%u match=1 plain_ms=%.1f witness_ms=%.1f "
           "speedup_vs_plain=%.2f scratch_bound_mib=%.1f "
           "plain_scratch_mib=%.1f\n",
           g, log2n, threads, zero_pct, one_pct, 100 - zero_pct - one_pct,
           plain * 1e3, wit * 1e3, plain / wit, (double)bound / (1 << 20),
           (double)plain_bytes / (1 << 20));
    fflush(stdout);
    free((void *)points);
    free(scalars);
}

static void bench_ntt(unsigned log2n, pl__pool *pool)
{
    pl_error err = {0};
    size_t n = (size_t)1 << log2n;
    pl__ntt_plan *plan;
    if (pl__ntt_plan_create(&plan, log2n, pool, &err) != PL_OK) {
        fprintf(stderr, "ntt plan: %s\n", err.msg);
        exit(1);
    }
    blst_fr *data = malloc(n * sizeof(*data));
    if (!data)
        exit(2);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4] = {rng(), rng(), rng(), rng() >> 4};
        blst_fr_from_uint64(&data[i], v);
    }
    double t[16];
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        pl__ntt_forward(plan, data, pool);
        t[r] = now() - t0;
    }
    double ntt = median(t, runs), mul = fr_mul_ns();
    unsigned threads = pl__pool_size(pool);
    double bound = (double)n / 2 * log2n * mul * 1e-9; /* one core */
    printf("ntt log2n=%u threads=%u fr_mul_ns=%.1f ntt_ms=%.1f "
           "butterfly_bound_1core_ms=%.1f butterfly_bound_ms=%.1f "
           "ratio_to_bound=%.2f\n",
           log2n, threads, mul, ntt * 1e3, bound * 1e3, bound / threads * 1e3,
           ntt / (bound / threads));
    free(data);
    pl__ntt_plan_destroy(plan);
}

int main(void)
{
    unsigned max_log = 20, threads = 0;
    const char *e = getenv("BENCH_MAX_LOG");
    if (e && *e)
        max_log = (unsigned)atoi(e);
    if ((e = getenv("BENCH_THREADS")) && *e)
        threads = (unsigned)atoi(e);
    if ((e = getenv("BENCH_RUNS")) && *e)
        runs = atoi(e) < 1 ? 1 : (atoi(e) > 15 ? 15 : atoi(e));
    pl_error err = {0};
    pl__pool *pool;
    if (pl__pool_create(&pool, threads, "pl-bench", &err) != PL_OK) {
        fprintf(stderr, "pool: %s\n", err.msg);
        return 1;
    }
    double mul_ns = fp_mul_ns();
    printf("bench=msm threads=%u runs=%d fp_mul_ns=%.1f\n", pl__pool_size(pool),
           runs, mul_ns);
    const unsigned g1_logs[] = {16, 18, 20}, g2_logs[] = {16, 18};
    bool witness_only = (e = getenv("BENCH_WITNESS_ONLY")) && *e && *e != '0';
    if ((e = getenv("BENCH_FP8_ONLY")) && *e && *e != '0') {
        for (int r = 0; r < runs; r++)
            bench_fp8();
        pl__pool_destroy(pool);
        return 0;
    }
    if ((e = getenv("BENCH_GLV_ONLY")) && *e && *e != '0') {
        bool g2 = (e = getenv("BENCH_GLV_G2")) && *e && *e != '0';
        for (unsigned l = 16; l <= max_log && l <= 20; l += 2)
            bench_glv(g2, l, pool);
        pl__pool_destroy(pool);
        return 0;
    }
    for (size_t i = 0; i < 3 && !witness_only; i++)
        if (g1_logs[i] <= max_log)
            bench_msm(0, g1_logs[i], pool, g1_logs[i] <= 18);
    for (size_t i = 0; i < 2 && !witness_only; i++)
        if (g2_logs[i] <= max_log)
            bench_msm(1, g2_logs[i], pool, false);
    /* witness-aware against plain: Filecoin-like (SHA-256 bits, Merkle
     * paths: mostly 0 and 1), then dense (its classification pass only) */
    unsigned wlog = max_log < 18 ? max_log : 18;
    bench_witness(0, wlog, 60, 30, pool);
    bench_witness(0, wlog, 0, 0, pool);
    bench_witness(1, wlog < 16 ? wlog : 16, 60, 30, pool);
    if (!witness_only)
        bench_ntt(max_log < 20 ? max_log : 20, pool);
    pl__pool_destroy(pool);
    return 0;
}
