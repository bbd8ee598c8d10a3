/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the MSM benchmarks (bench_msm.c, bench_bn254.c) share: clocks, the
 * median, a fixed-seed generator, BLS12-381 scalars and G1 and G2 points.  Header-only,
 * static functions: each benchmark is one file.
 */
#ifndef PL_BENCH_COMMON_H
#define PL_BENCH_COMMON_H

#include "blst.h"
#include "field/field.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the whole process (every thread): on a shared, overloaded
 * machine it leaves out the time spent waiting for a core, which wall
 * time does not.  The pool's idle workers sleep (no spinning), so it is
 * the work done. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return v[n / 2];
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* n uniform-ish scalars < BLS12-381's r (the top bit cleared, then
 * rejection), malloc'd. */
static inline uint8_t *random_scalars_below_r(size_t n)
{
    uint8_t *s = malloc(n * 32);
    if (!s)
        exit(2);
    for (size_t i = 0; i < n; i++) {
        do {
            for (int j = 0; j < 4; j++) {
                uint64_t w = rng();
                memcpy(s + 32 * i + 8 * j, &w, 8);
            }
            s[32 * i + 31] &= 0x7f;
        } while (!pl__scalar_is_canonical(s + 32 * i));
    }
    return s;
}

/* k*G, (k+1)*G, ...: one mixed addition per point, then blst's batched
 * conversion to affine, a chunk at a time.  Fast enough for 2^20. */
static uint8_t *g1_points(size_t n)
{
    blst_p1_affine *pts = malloc(n * sizeof(*pts));
    blst_p1 *jac = malloc(4096 * sizeof(*jac));
    if (!pts || !jac)
        exit(2);
    uint8_t k[32];
    for (int j = 0; j < 32; j++)
        k[j] = (uint8_t)rng();
    blst_p1 p;
    blst_p1_mult(&p, blst_p1_generator(), k, 255);
    for (size_t lo = 0; lo < n; lo += 4096) {
        size_t m = n - lo < 4096 ? n - lo : 4096;
        for (size_t i = 0; i < m; i++) {
            jac[i] = p;
            blst_p1_add_or_double_affine(&p, &p, blst_p1_affine_generator());
        }
        const blst_p1 *ptrs[2] = {jac, NULL};
        blst_p1s_to_affine(pts + lo, ptrs, m);
    }
    free(jac);
    return (uint8_t *)pts;
}

static uint8_t *g2_points(size_t n)
{
    blst_p2_affine *pts = malloc(n * sizeof(*pts));
    blst_p2 *jac = malloc(4096 * sizeof(*jac));
    if (!pts || !jac)
        exit(2);
    uint8_t k[32];
    for (int j = 0; j < 32; j++)
        k[j] = (uint8_t)rng();
    blst_p2 p;
    blst_p2_mult(&p, blst_p2_generator(), k, 255);
    for (size_t lo = 0; lo < n; lo += 4096) {
        size_t m = n - lo < 4096 ? n - lo : 4096;
        for (size_t i = 0; i < m; i++) {
            jac[i] = p;
            blst_p2_add_or_double_affine(&p, &p, blst_p2_affine_generator());
        }
        const blst_p2 *ptrs[2] = {jac, NULL};
        blst_p2s_to_affine(pts + lo, ptrs, m);
    }
    free(jac);
    return (uint8_t *)pts;
}

#endif /* PL_BENCH_COMMON_H */
