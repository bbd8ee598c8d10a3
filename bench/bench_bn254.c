/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_bn254: BN254's arithmetic and sums against BLS12-381's on the same
 * machine in the same run: Fp multiplication (a dependent chain: the
 * latency a sum sees; BN254 in both implementations against blst's),
 * the mixed Jacobian addition of G1, and the batch-affine MSM
 * (pl__msm_sum: BN254's G1 in both implementations against BLS12-381's G1,
 * default GLV, the pool's workers; G2 against G2 at the smaller size) at
 * 2^16 and 2^18, and the NTT (forward, 2^16 and 2^18) over both scalar fields.
 * Contenders alternate within a round and each figure is the median of
 * BENCH_RUNS (3) rounds, in process CPU time (all threads: on a shared
 * machine it leaves out the waiting) and wall time.  Ratios are
 * BLS12-381 over BN254 (above 1: BN254 faster).
 * Not part of `make test`.
 *
 *   BENCH_MAX_LOG=16   only 2^16
 *   BENCH_THREADS=k    pool size (default: one per core)
 *   BENCH_RUNS=n       rounds (default 3)
 *
 * Output: key=value lines.  Every BN254 sum is checked against the
 * expected group element (points are known multiples of the generator)
 * and a mismatch exits 1.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "field/bn254/curve.h"
#include "field/field.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/pool.h"
#include "bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Scalars below 2^253 (below both curves' r). */
static uint8_t *random_scalars(size_t n)
{
    uint8_t *s = malloc(n * 32);
    if (!s)
        exit(2);
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 4; j++) {
            uint64_t w = rng();
            memcpy(s + 32 * i + 8 * j, &w, 8);
        }
        s[32 * i + 31] &= 0x1f;
    }
    return s;
}

static int runs = 3;

/* ---- field multiplication --------------------------------------------------
 */

#define PL__CHAIN 2000000

static double bn_mul_ns(pl__bn254_arith v)
{
    pl__bn254_fp a = pl__bn254_g1_generator.x, b = pl__bn254_g1_generator.y;
    double t0 = cpu_now();
    if (v == PL__BN254_ADX)
        for (int i = 0; i < PL__CHAIN; i++)
            pl__bn254_fp_mul(&a, &a, &b, PL__BN254_ADX);
    else
        for (int i = 0; i < PL__CHAIN; i++)
            pl__bn254_fp_mul(&a, &a, &b, PL__BN254_PORTABLE);
    double t = (cpu_now() - t0) * 1e9 / PL__CHAIN;
    volatile uint64_t sink = a.l[0];
    (void)sink;
    return t;
}

static double bls_mul_ns(void)
{
    blst_fp a = blst_p1_affine_generator()->x,
            b = blst_p1_affine_generator()->y;
    double t0 = cpu_now();
    for (int i = 0; i < PL__CHAIN; i++)
        blst_fp_mul(&a, &a, &b);
    double t = (cpu_now() - t0) * 1e9 / PL__CHAIN;
    volatile uint64_t sink = a.l[0];
    (void)sink;
    return t;
}

/* G1: a chain of mixed additions P += Q (Jacobian + affine). */
#define PL__ADDS 200000

static double bn_add_ns(pl__bn254_arith v)
{
    pl__bn254_g1 p;
    pl__bn254_g1_from_affine(&p, &pl__bn254_g1_generator);
    pl__bn254_g1_dbl(&p, &p, v);
    double t0 = cpu_now();
    for (int i = 0; i < PL__ADDS; i++)
        pl__bn254_g1_add_affine(&p, &p, &pl__bn254_g1_generator, v);
    double t = (cpu_now() - t0) * 1e9 / PL__ADDS;
    volatile uint64_t sink = p.x.l[0];
    (void)sink;
    return t;
}

static double bls_add_ns(void)
{
    blst_p1 p;
    blst_p1_double(&p, blst_p1_generator());
    double t0 = cpu_now();
    for (int i = 0; i < PL__ADDS; i++)
        blst_p1_add_or_double_affine(&p, &p, blst_p1_affine_generator());
    double t = (cpu_now() - t0) * 1e9 / PL__ADDS;
    volatile uint64_t sink = p.x.l[0];
    (void)sink;
    return t;
}

/* ---- points -----------------------------------------------------------------
 */

/* [k0 + i] G for BN254 (g2: G2), affine, a chunk at a time; *k0 out */
static uint8_t *bn_points(size_t n, bool g2, uint64_t k0[4])
{
    pl__bn254_arith v = pl__bn254_arith_best();
    size_t pb = g2 ? sizeof(pl__bn254_g2_affine) : sizeof(pl__bn254_g1_affine);
    uint8_t *pts = malloc(n * pb);
    size_t jb = g2 ? sizeof(pl__bn254_g2) : sizeof(pl__bn254_g1);
    uint8_t *jac = malloc(4096 * jb);
    if (!pts || !jac)
        exit(2);
    for (int j = 0; j < 4; j++)
        k0[j] = rng();
    k0[3] &= 0x0fffffffffffffffull;
    pl__bn254_g1 p1;
    pl__bn254_g2 p2;
    if (g2) {
        pl__bn254_g2_from_affine(&p2, &pl__bn254_g2_generator);
        pl__bn254_g2_mul(&p2, &p2, k0, v);
    } else {
        pl__bn254_g1_from_affine(&p1, &pl__bn254_g1_generator);
        pl__bn254_g1_mul(&p1, &p1, k0, v);
    }
    for (size_t lo = 0; lo < n; lo += 4096) {
        size_t m = n - lo < 4096 ? n - lo : 4096;
        for (size_t i = 0; i < m; i++) {
            if (g2) {
                memcpy(jac + i * jb, &p2, jb);
                pl__bn254_g2_add_affine(&p2, &p2, &pl__bn254_g2_generator, v);
            } else {
                memcpy(jac + i * jb, &p1, jb);
                pl__bn254_g1_add_affine(&p1, &p1, &pl__bn254_g1_generator, v);
            }
        }
        if (g2)
            pl__bn254_g2_batch_to_affine((pl__bn254_g2_affine *)(pts + lo * pb),
                                         (const pl__bn254_g2 *)jac, m, v);
        else
            pl__bn254_g1_batch_to_affine((pl__bn254_g1_affine *)(pts + lo * pb),
                                         (const pl__bn254_g1 *)jac, m, v);
    }
    free(jac);
    return pts;
}

/* sum s_i [k0 + i] G = [k0 sum s_i + sum i s_i] G, computed in Fr */
static bool bn_check(const void *got, bool g2, const uint64_t k0[4],
                     const uint8_t *scalars, size_t n)
{
    pl__bn254_arith v = pl__bn254_arith_best();
    pl__bn254_fr acc, s, t, k, one;
    uint8_t le[32];
    for (int i = 0; i < 32; i++)
        le[i] = (uint8_t)(k0[i / 8] >> (8 * (i % 8)));
    pl__bn254_fr_from_le(&k, le);
    pl__bn254_fr_from_u64(&one, 1);
    memset(&acc, 0, sizeof(acc));
    for (size_t i = 0; i < n; i++) {
        pl__bn254_fr_from_le(&s, scalars + 32 * i);
        pl__bn254_fr_mul(&t, &s, &k, v);
        pl__bn254_fr_add(&acc, &acc, &t, v);
        pl__bn254_fr_add(&k, &k, &one, v);
    }
    pl__bn254_fr_to_le(le, &acc);
    uint64_t e[4] = {0};
    for (int i = 0; i < 32; i++)
        e[i / 8] |= (uint64_t)le[i] << (8 * (i % 8));
    if (g2) {
        pl__bn254_g2 w;
        pl__bn254_g2_from_affine(&w, &pl__bn254_g2_generator);
        pl__bn254_g2_mul(&w, &w, e, v);
        return pl__bn254_g2_eq(got, &w, v);
    }
    pl__bn254_g1 w;
    pl__bn254_g1_from_affine(&w, &pl__bn254_g1_generator);
    pl__bn254_g1_mul(&w, &w, e, v);
    return pl__bn254_g1_eq(got, &w, v);
}

/* ---- the MSMs
 * ---------------------------------------------------------------- */

typedef struct {
    double cpu, wall;
} timing;

static timing run_msm(pl__msm_group_id g, const uint8_t *points,
                      const uint8_t *scalars, size_t n, pl__pool *pool,
                      void *out)
{
    pl_error err = {0};
    double c0 = cpu_now(), w0 = now();
    if (pl__msm_sum(g, out, points, scalars, n, NULL, pool, &err) != PL_OK) {
        fprintf(stderr, "msm: %s\n", err.msg);
        exit(1);
    }
    timing t = {cpu_now() - c0, now() - w0};
    return t;
}

static void msm_case(unsigned log2n, pl__pool *pool, bool with_g2)
{
    size_t n = (size_t)1 << log2n;
    uint64_t k1[4], k2[4];
    uint8_t *bn1 = bn_points(n, false, k1);
    uint8_t *bls1 = g1_points(n);
    uint8_t *bn2 = with_g2 ? bn_points(n, true, k2) : NULL;
    uint8_t *bls2 = with_g2 ? g2_points(n) : NULL;
    uint8_t *scalars = random_scalars(n);
    enum { BLS, BN_ADX, BN_PORT, BLS_G2, BN_G2, NC };
    static const char *names[NC] = {"bls12_381_g1", "bn254_g1_adx",
                                    "bn254_g1_portable", "bls12_381_g2",
                                    "bn254_g2"};
    double cpu[NC][16], wall[NC][16];
    bool have_adx = pl__bn254_arith_best() == PL__BN254_ADX;
    for (int r = 0; r < runs; r++) {
        uint8_t out[sizeof(pl__bn254_g2) > sizeof(blst_p1)
                        ? sizeof(pl__bn254_g2)
                        : sizeof(blst_p1)];
        timing t = run_msm(PL__MSM_BLS12_381_G1, bls1, scalars, n, pool, out);
        cpu[BLS][r] = t.cpu;
        wall[BLS][r] = t.wall;
        for (int c = BN_ADX; c <= BN_PORT; c++) {
            if (c == BN_ADX && !have_adx) {
                cpu[c][r] = wall[c][r] = 0;
                continue;
            }
            pl__bn254_set_arith(c == BN_ADX ? PL__BN254_ADX
                                            : PL__BN254_PORTABLE);
            t = run_msm(PL__MSM_BN254_G1, bn1, scalars, n, pool, out);
            cpu[c][r] = t.cpu;
            wall[c][r] = t.wall;
            if (r == 0 && !bn_check(out, false, k1, scalars, n)) {
                fprintf(stderr, "bn254 G1 MSM 2^%u: wrong sum\n", log2n);
                exit(1);
            }
        }
        pl__bn254_set_arith(pl__bn254_arith_best());
        if (with_g2) {
            uint8_t out2[sizeof(blst_p2)];
            t = run_msm(PL__MSM_BLS12_381_G2, bls2, scalars, n, pool, out2);
            cpu[BLS_G2][r] = t.cpu;
            wall[BLS_G2][r] = t.wall;
            t = run_msm(PL__MSM_BN254_G2, bn2, scalars, n, pool, out);
            cpu[BN_G2][r] = t.cpu;
            wall[BN_G2][r] = t.wall;
            if (r == 0 && !bn_check(out, true, k2, scalars, n)) {
                fprintf(stderr, "bn254 G2 MSM 2^%u: wrong sum\n", log2n);
                exit(1);
            }
        }
    }
    double mc[NC], mw[NC];
    for (int c = 0; c < NC; c++) {
        if (((c == BN_G2 || c == BLS_G2) && !with_g2) ||
            (c == BN_ADX && !have_adx))
            continue;
        mc[c] = median(cpu[c], runs);
        mw[c] = median(wall[c], runs);
        printf("msm_%s_2^%u_cpu_s=%.4f\nmsm_%s_2^%u_wall_s=%.4f\n"
               "msm_%s_2^%u_cpu_ns_per_point=%.1f\n",
               names[c], log2n, mc[c], names[c], log2n, mw[c], names[c], log2n,
               mc[c] * 1e9 / (double)n);
    }
    int best = have_adx ? BN_ADX : BN_PORT;
    printf("msm_2^%u_ratio_bls_over_bn254_cpu=%.2f\n", log2n,
           mc[BLS] / mc[best]);
    printf("msm_2^%u_ratio_bls_over_bn254_wall=%.2f\n", log2n,
           mw[BLS] / mw[best]);
    if (have_adx)
        printf("msm_2^%u_ratio_portable_over_adx_cpu=%.2f\n", log2n,
               mc[BN_PORT] / mc[BN_ADX]);
    if (with_g2)
        printf("msm_g2_2^%u_ratio_bls_over_bn254_cpu=%.2f\n", log2n,
               mc[BLS_G2] / mc[BN_G2]);
    free(bn1);
    free(bls1);
    free(bn2);
    free(bls2);
    free(scalars);
}

/* ---- the NTT
 * ------------------------------------------------------------------ */

static void ntt_case(unsigned log2n, pl__pool *pool)
{
    pl_error err = {0};
    size_t n = (size_t)1 << log2n;
    pl__ntt_plan *pbls, *pbn;
    if (pl__ntt_plan_create_curve(&pbls, PL__CURVE_BLS12_381, log2n, pool,
                                  &err) != PL_OK ||
        pl__ntt_plan_create_curve(&pbn, PL__CURVE_BN254, log2n, pool, &err) !=
            PL_OK) {
        fprintf(stderr, "ntt plan: %s\n", err.msg);
        exit(1);
    }
    uint8_t *data = random_scalars(n);
    /* the bytes as Montgomery limbs below 2^253: valid in both fields */
    double cb[16], cn[16];
    for (int r = 0; r < runs; r++) {
        double t0 = cpu_now();
        pl__ntt_forward_elems(pbls, data, pool);
        cb[r] = cpu_now() - t0;
        for (size_t i = 0; i < n; i++)
            data[32 * i + 31] &= 0x1f;
        t0 = cpu_now();
        pl__ntt_forward_elems(pbn, data, pool);
        cn[r] = cpu_now() - t0;
        for (size_t i = 0; i < n; i++)
            data[32 * i + 31] &= 0x1f;
    }
    double b = median(cb, runs), m = median(cn, runs);
    printf("ntt_bls12_381_2^%u_cpu_s=%.4f\nntt_bn254_2^%u_cpu_s=%.4f\n"
           "ntt_2^%u_ratio_bls_over_bn254_cpu=%.2f\n",
           log2n, b, log2n, m, log2n, b / m);
    free(data);
    pl__ntt_plan_destroy(pbls);
    pl__ntt_plan_destroy(pbn);
}

int main(void)
{
    pl_error err = {0};
    unsigned max_log = 18, threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    const char *e;
    if ((e = getenv("BENCH_MAX_LOG")) && *e)
        max_log = (unsigned)atoi(e);
    if ((e = getenv("BENCH_THREADS")) && *e)
        threads = (unsigned)atoi(e);
    if ((e = getenv("BENCH_RUNS")) && *e)
        runs = atoi(e);
    if (runs < 1 || runs > 15)
        runs = 3;
    if (threads < 1)
        threads = 1;
    pl__pool *pool;
    if (pl__pool_create(&pool, threads, "pl-bench", &err) != PL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    bool have_adx = pl__bn254_arith_best() == PL__BN254_ADX;
    printf("threads=%u\nbn254_best=%s\n", threads,
           pl__bn254_arith_name(pl__bn254_arith_best()));

    double mb[16], mx[16], mp[16], ab[16], ax[16], ap[16];
    for (int r = 0; r < runs; r++) {
        mb[r] = bls_mul_ns();
        mx[r] = have_adx ? bn_mul_ns(PL__BN254_ADX) : 0;
        mp[r] = bn_mul_ns(PL__BN254_PORTABLE);
        ab[r] = bls_add_ns();
        ax[r] = have_adx ? bn_add_ns(PL__BN254_ADX) : 0;
        ap[r] = bn_add_ns(PL__BN254_PORTABLE);
    }
    double b = median(mb, runs), x = median(mx, runs), p = median(mp, runs);
    printf("fp_mul_bls12_381_ns=%.2f\nfp_mul_bn254_adx_ns=%.2f\n"
           "fp_mul_bn254_portable_ns=%.2f\n",
           b, x, p);
    printf("fp_mul_ratio_bls_over_bn254=%.2f\n", b / (have_adx ? x : p));
    b = median(ab, runs);
    x = median(ax, runs);
    p = median(ap, runs);
    printf("g1_add_affine_bls12_381_ns=%.1f\ng1_add_affine_bn254_adx_ns=%.1f\n"
           "g1_add_affine_bn254_portable_ns=%.1f\n",
           b, x, p);
    printf("g1_add_ratio_bls_over_bn254=%.2f\n", b / (have_adx ? x : p));

    for (unsigned log2n = 16; log2n <= max_log; log2n += 2) {
        msm_case(log2n, pool, log2n == 16);
        ntt_case(log2n, pool);
    }
    pl__pool_destroy(pool);
    return 0;
}
