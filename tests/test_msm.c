/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MSM tests.  pl__msm_gX (batch-affine, msm_affine.c) and its baseline
 * pl__msm_gX_blst (blst's tiles, msm_blst.c): against the naive sum of
 * blst_pX_mult over random multiples of the generator, with zero scalars,
 * 1 and r - 1, points at infinity (all-zero bytes), unaligned point arrays,
 * n = 0, 1, 2, 3, 7, 8, 9, ..., 1000, 4097 and 2^14 + 3; and against one
 * call of blst's own Pippenger (blst_pXs_mult_pippenger) up to 2^16 points,
 * on random and structured inputs that make buckets collide (all points
 * equal, P and -P, equal scalars, small scalars), with scalars >= r and
 * bit 255 set.  1 and 4 workers agree; the scratch size reported in
 * advance equals what each call allocates; a failed allocation returns
 * PL_ENOMEM and leaks nothing.
 *
 * The witness MSM (pl__msm_gX_witness) against pl__msm_gX and blst on
 * mixes of 0, 1 and large scalars (also written as r, r + 1, with bit 255),
 * points at infinity among the 1-points, equal and opposite points, n = 0
 * up to 2^14 + 5; its scratch within the bound reported in advance; and in
 * the prover, the same proofs as with plain_msm and msm_scratch within
 * pl__prover_plan's.
 */
#include "harness.h"
#include "field/field.h"
#include "groth16/zkey_prover.h"
#include "msm/msm.h"
#include "util/alloc.h"

/* r - 1, little-endian */
static const uint8_t r_minus_1[32] = {
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
    0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
    0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

typedef enum { SC_RANDOM, SC_EDGES } scalar_mix;

/* Random scalars < r; with SC_EDGES, every 4th is 0, 1 or r - 1 in turn. */
static uint8_t *make_scalars(uint64_t *rng, size_t n, scalar_mix mix)
{
    uint8_t *s = malloc(n * 32 + 1);
    CHECK(s != NULL);
    for (size_t i = 0; i < n; i++) {
        uint8_t *b = s + i * 32;
        pl_test_random_bytes(rng, b, 32);
        b[31] &= 0x3f; /* < 2^254 < r */
        if (mix == SC_EDGES && i % 4 == 0) {
            memset(b, 0, 32);
            if (i % 12 == 4)
                b[0] = 1;
            else if (i % 12 == 8)
                memcpy(b, r_minus_1, 32);
        }
    }
    return s;
}

/* n random multiples of the generator as zkey bytes, at byte offset `skew`
 * into the returned buffer (to test unaligned input); with SC_EDGES every
 * 5th point is infinity. */
static uint8_t *make_g1_points(uint64_t *rng, size_t n, size_t skew,
                               scalar_mix mix)
{
    uint8_t *buf = malloc(n * 96 + skew + 1);
    CHECK(buf != NULL);
    for (size_t i = 0; i < n; i++) {
        uint8_t k[32];
        pl_test_random_bytes(rng, k, 32);
        k[31] &= 0x3f;
        blst_p1 p;
        blst_p1_affine a;
        blst_p1_mult(&p, blst_p1_generator(), k, 255);
        blst_p1_to_affine(&a, &p);
        memcpy(buf + skew + i * 96, &a, 96);
        if (mix == SC_EDGES && i % 5 == 2)
            memset(buf + skew + i * 96, 0, 96);
    }
    return buf;
}

static uint8_t *make_g2_points(uint64_t *rng, size_t n, size_t skew,
                               scalar_mix mix)
{
    uint8_t *buf = malloc(n * 192 + skew + 1);
    CHECK(buf != NULL);
    for (size_t i = 0; i < n; i++) {
        uint8_t k[32];
        pl_test_random_bytes(rng, k, 32);
        k[31] &= 0x3f;
        blst_p2 p;
        blst_p2_affine a;
        blst_p2_mult(&p, blst_p2_generator(), k, 255);
        blst_p2_to_affine(&a, &p);
        memcpy(buf + skew + i * 192, &a, 192);
        if (mix == SC_EDGES && i % 5 == 2)
            memset(buf + skew + i * 192, 0, 192);
    }
    return buf;
}

static void naive_g1(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        blst_p1_affine a;
        blst_p1 p, sp;
        memcpy(&a, points + i * 96, 96);
        blst_p1_from_affine(&p, &a);
        blst_p1_mult(&sp, &p, scalars + i * 32, 255);
        blst_p1_add_or_double(out, out, &sp);
    }
}

static void naive_g2(blst_p2 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        blst_p2_affine a;
        blst_p2 p, sp;
        memcpy(&a, points + i * 192, 192);
        blst_p2_from_affine(&p, &a);
        blst_p2_mult(&sp, &p, scalars + i * 32, 255);
        blst_p2_add_or_double(out, out, &sp);
    }
}

static void check_g1_equal(const blst_p1 *got, const blst_p1 *want, size_t n,
                           const char *what)
{
    blst_p1_affine a, b;
    blst_p1_to_affine(&a, got);
    blst_p1_to_affine(&b, want);
    if (memcmp(&a, &b, sizeof(a)) != 0)
        pl_test_fail(__FILE__, __LINE__, "G1 %s differs at n = %zu", what, n);
}

static void check_g2_equal(const blst_p2 *got, const blst_p2 *want, size_t n,
                           const char *what)
{
    blst_p2_affine a, b;
    blst_p2_to_affine(&a, got);
    blst_p2_to_affine(&b, want);
    if (memcmp(&a, &b, sizeof(a)) != 0)
        pl_test_fail(__FILE__, __LINE__, "G2 %s differs at n = %zu", what, n);
}

/* One G1 case: naive vs no pool vs a 4-worker pool, and the scratch the
 * call takes (its high-water mark) vs what was reported in advance. */
static void g1_case(pl__pool *pool4, uint64_t *rng, size_t n, size_t skew,
                    scalar_mix mix)
{
    pl_error err = {0};
    uint8_t *buf = make_g1_points(rng, n, skew, mix);
    uint8_t *scalars = make_scalars(rng, n, mix);
    const uint8_t *points = buf + skew;
    blst_p1 want, got1, got4;
    naive_g1(&want, points, scalars, n);

    pl_alloc_stats st;
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    CHECK_OK(pl__msm_g1(&got1, points, scalars, n, NULL, &err), &err);
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    CHECK_EQ(st.high_water_bytes, pl__msm_g1_scratch_bytes(n, 1));
    CHECK_EQ(st.live_bytes, 0);
    check_g1_equal(&got1, &want, n, "1 worker vs naive");

    CHECK_OK(pl__msm_g1(&got4, points, scalars, n, pool4, &err), &err);
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    CHECK_EQ(st.high_water_bytes, pl__msm_g1_scratch_bytes(n, 4));
    check_g1_equal(&got4, &want, n, "4 workers vs naive");
    free(buf);
    free(scalars);
}

static void g2_case(pl__pool *pool4, uint64_t *rng, size_t n, size_t skew,
                    scalar_mix mix)
{
    pl_error err = {0};
    uint8_t *buf = make_g2_points(rng, n, skew, mix);
    uint8_t *scalars = make_scalars(rng, n, mix);
    const uint8_t *points = buf + skew;
    blst_p2 want, got1, got4;
    naive_g2(&want, points, scalars, n);

    pl_alloc_stats st;
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    CHECK_OK(pl__msm_g2(&got1, points, scalars, n, NULL, &err), &err);
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    CHECK_EQ(st.high_water_bytes, pl__msm_g2_scratch_bytes(n, 1));
    CHECK_EQ(st.live_bytes, 0);
    check_g2_equal(&got1, &want, n, "1 worker vs naive");

    CHECK_OK(pl__msm_g2(&got4, points, scalars, n, pool4, &err), &err);
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    CHECK_EQ(st.high_water_bytes, pl__msm_g2_scratch_bytes(n, 4));
    check_g2_equal(&got4, &want, n, "4 workers vs naive");
    free(buf);
    free(scalars);
}

static pl__pool *pool_of(unsigned threads)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, threads, "pl-test", &err), &err);
    return pool;
}

PL_TEST(g1_small_and_boundary_sizes)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 11;
    const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        g1_case(pool, &rng, sizes[i], 0, SC_RANDOM);
        g1_case(pool, &rng, sizes[i], 0, SC_EDGES);
    }
    pl__pool_destroy(pool);
}

PL_TEST(g1_not_powers_of_two)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 12;
    g1_case(pool, &rng, 1000, 0, SC_EDGES);
    g1_case(pool, &rng, 4097, 0, SC_RANDOM);
    pl__pool_destroy(pool);
}

PL_TEST(g1_unaligned_points)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 13;
    g1_case(pool, &rng, 3, 1, SC_EDGES);
    g1_case(pool, &rng, 333, 5, SC_EDGES);
    pl__pool_destroy(pool);
}

/* Large enough that the 4-worker grid cuts the points into ranges. */
PL_TEST(g1_large)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 14;
    g1_case(pool, &rng, (1u << 14) + 3, 0, SC_EDGES);
    pl__pool_destroy(pool);
}

PL_TEST(g1_all_zero_scalars_and_infinity)
{
    pl_error err = {0};
    uint64_t rng = 15;
    const size_t n = 100;
    uint8_t *points = make_g1_points(&rng, n, 0, SC_RANDOM);
    uint8_t *scalars = calloc(n, 32);
    CHECK(scalars != NULL);
    blst_p1 got;
    CHECK_OK(pl__msm_g1(&got, points, scalars, n, NULL, &err), &err);
    CHECK(blst_p1_is_inf(&got));
    /* all points at infinity, nonzero scalars */
    memset(points, 0, n * 96);
    free(scalars);
    scalars = make_scalars(&rng, n, SC_RANDOM);
    CHECK_OK(pl__msm_g1(&got, points, scalars, n, NULL, &err), &err);
    CHECK(blst_p1_is_inf(&got));
    /* P and -P with equal scalars cancel; the grid's buckets see P + (-P) */
    blst_p1 p;
    blst_p1_affine a;
    blst_p1_mult(&p, blst_p1_generator(), scalars, 255);
    blst_p1_to_affine(&a, &p);
    for (size_t i = 0; i < n; i++) {
        blst_p1_from_affine(&p, &a);
        blst_p1_cneg(&p, i % 2);
        blst_p1_affine ai;
        blst_p1_to_affine(&ai, &p);
        memcpy(points + i * 96, &ai, 96);
        memcpy(scalars + i * 32, scalars, 32);
    }
    CHECK_OK(pl__msm_g1(&got, points, scalars, n, NULL, &err), &err);
    CHECK(blst_p1_is_inf(&got));
    free(points);
    free(scalars);
}

PL_TEST(g2_sizes)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 21;
    const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 31, 32, 33};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        g2_case(pool, &rng, sizes[i], i % 2, SC_EDGES);
    g2_case(pool, &rng, 1000, 3, SC_EDGES);
    pl__pool_destroy(pool);
}

PL_TEST(g2_not_power_of_two)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 22;
    g2_case(pool, &rng, 4097, 0, SC_RANDOM);
    pl__pool_destroy(pool);
}

PL_TEST(scratch_bytes_shape)
{
    /* nothing for the point-by-point sizes; grows with the workers */
    CHECK_EQ(pl__msm_g1_window(100, 1), 0); /* the blst path */
    CHECK(pl__msm_g1_window(1u << 16, 1) >= 10);
    CHECK_EQ(pl__msm_g1_scratch_bytes(0, 4), 0);
    CHECK_EQ(pl__msm_g1_scratch_bytes(7, 4), 0);
    CHECK_EQ(pl__msm_g2_scratch_bytes(7, 4), 0);
    CHECK(pl__msm_g1_scratch_bytes(8, 1) > 0);
    CHECK(pl__msm_g2_scratch_bytes(8, 4) > 0);
    CHECK(pl__msm_g1_scratch_bytes(1u << 16, 2) >
          pl__msm_g1_scratch_bytes(1u << 16, 1));
    /* G2's points are twice G1's, so are its buckets (G1 without GLV:
     * with it, G1 keeps a table of phi of its points) */
    pl__msm_opts off = {PL__GLV_OFF, NULL};
    CHECK(pl__msm_g2_scratch_bytes(1u << 16, 1) >
          pl__msm_g1_opts_scratch_bytes(1u << 16, 1, &off));
    CHECK_EQ(pl__msm_g1_scratch_bytes(1000, 0), pl__msm_g1_scratch_bytes(1000, 1));
    /* the folded scalars (32 bytes a point), GLV's table of phi (96 bytes a
     * point, G1's default mode) and a bounded workspace per worker (8 MiB) */
    const size_t big = (size_t)1 << 26;
    pl__msm_opts dflt = pl__msm_g1_default_opts();
    uint64_t table = dflt.glv == PL__GLV_CALL ? 96 : 0;
    CHECK(pl__msm_g1_scratch_bytes(big, 16) >= (uint64_t)big * (32 + table));
    CHECK(pl__msm_g1_scratch_bytes(big, 16) <
          (uint64_t)big * (33 + table) + 16 * ((uint64_t)9 << 20));
    CHECK(pl__msm_g2_scratch_bytes(big, 16) <
          (uint64_t)big * 33 + 16 * ((uint64_t)9 << 20));
}

/* blst's buckets must start empty: leave a dirty block of exactly the
 * scratch size in the heap (the allocator will likely hand it back) and
 * check the sums still come out right. */
PL_TEST(dirty_heap_scratch)
{
    pl_error err = {0};
    uint64_t rng = 32;
    const size_t n = 200;
    uint8_t *points = make_g1_points(&rng, n, 0, SC_RANDOM);
    uint8_t *scalars = make_scalars(&rng, n, SC_RANDOM);
    blst_p1 want, got;
    naive_g1(&want, points, scalars, n);
    for (int round = 0; round < 2; round++) {
        uint64_t bytes = pl__msm_g1_scratch_bytes(n, 1) * (round + 1) * 2;
        uint8_t *dirty = pl__alloc(PL_BUF_MSM_SCRATCH, bytes, &err);
        CHECK(dirty != NULL);
        memset(dirty, 0xa5, (size_t)bytes);
        pl__free(dirty);
        CHECK_OK(pl__msm_g1(&got, points, scalars, n, NULL, &err), &err);
        check_g1_equal(&got, &want, n, "after a dirty free");
    }
    free(points);
    free(scalars);
}

PL_TEST(allocation_failure_leaks_nothing)
{
    pl_error err = {0};
    pl__pool *pool = pool_of(2);
    uint64_t rng = 31;
    const size_t n = 64;
    uint8_t *points = make_g1_points(&rng, n, 0, SC_RANDOM);
    uint8_t *scalars = make_scalars(&rng, n, SC_RANDOM);
    uint8_t *points2 = make_g2_points(&rng, n, 0, SC_RANDOM);
    blst_p1 p1;
    blst_p2 p2;
    pl__alloc_fail_at(1);
    CHECK_STATUS(pl__msm_g1(&p1, points, scalars, n, pool, &err), PL_ENOMEM,
                 &err);
    pl__alloc_fail_at(1);
    CHECK_STATUS(pl__msm_g2(&p2, points2, scalars, n, pool, &err), PL_ENOMEM,
                 &err);
    pl__alloc_fail_at(0);
    free(points);
    free(points2);
    free(scalars);
    pl__pool_destroy(pool);
}

/* ---- against blst's own Pippenger, on inputs that make buckets collide --- */

typedef enum {
    PT_RANDOM,  /* k*G, (k+1)*G, ...; every 7th at infinity */
    PT_EQUAL,   /* one point n times */
    PT_PLUSMINUS /* P, -P, P, -P, ... */
} point_mix;

typedef enum {
    SK_RANDOM,  /* uniform below 2^254 */
    SK_ZERO,
    SK_ONE,
    SK_R_MINUS_1,
    SK_POW2,    /* 2^(i mod 255): one nonzero digit, in every window */
    SK_EQUAL,   /* one random scalar n times: every window's buckets collide */
    SK_SMALL,   /* 0..15: all of window 0 in 16 buckets */
    SK_WIDE     /* random 256-bit: bit 255 (ignored) and values >= r */
} scalar_kind;

/* n points as zkey bytes; cheap enough for 2^16 (one addition a point and
 * blst's batched conversion to affine). */
static uint8_t *g1_points_mix(uint64_t *rng, size_t n, point_mix mix)
{
    blst_p1_affine *a = malloc(n * sizeof(*a) + 1);
    blst_p1 *jac = malloc(n * sizeof(*jac) + 1);
    CHECK(a != NULL && jac != NULL);
    uint8_t k[32];
    pl_test_random_bytes(rng, k, 32);
    blst_p1 p;
    blst_p1_mult(&p, blst_p1_generator(), k, 255);
    for (size_t i = 0; i < n; i++) {
        jac[i] = p;
        if (mix == PT_PLUSMINUS)
            blst_p1_cneg(&jac[i], i % 2);
        if (mix == PT_RANDOM)
            blst_p1_add_or_double_affine(&p, &p, blst_p1_affine_generator());
    }
    const blst_p1 *ptrs[2] = {jac, NULL};
    if (n > 0)
        blst_p1s_to_affine(a, ptrs, n);
    for (size_t i = 0; mix == PT_RANDOM && i < n; i += 7)
        memset(&a[i], 0, sizeof(a[i]));
    free(jac);
    return (uint8_t *)a;
}

static uint8_t *g2_points_mix(uint64_t *rng, size_t n, point_mix mix)
{
    blst_p2_affine *a = malloc(n * sizeof(*a) + 1);
    blst_p2 *jac = malloc(n * sizeof(*jac) + 1);
    CHECK(a != NULL && jac != NULL);
    uint8_t k[32];
    pl_test_random_bytes(rng, k, 32);
    blst_p2 p;
    blst_p2_mult(&p, blst_p2_generator(), k, 255);
    for (size_t i = 0; i < n; i++) {
        jac[i] = p;
        if (mix == PT_PLUSMINUS)
            blst_p2_cneg(&jac[i], i % 2);
        if (mix == PT_RANDOM)
            blst_p2_add_or_double_affine(&p, &p, blst_p2_affine_generator());
    }
    const blst_p2 *ptrs[2] = {jac, NULL};
    if (n > 0)
        blst_p2s_to_affine(a, ptrs, n);
    for (size_t i = 0; mix == PT_RANDOM && i < n; i += 7)
        memset(&a[i], 0, sizeof(a[i]));
    free(jac);
    return (uint8_t *)a;
}

static uint8_t *scalars_of(uint64_t *rng, size_t n, scalar_kind kind)
{
    uint8_t *s = calloc(n + 1, 32);
    CHECK(s != NULL);
    uint8_t same[32];
    pl_test_random_bytes(rng, same, 32);
    same[31] &= 0x3f;
    for (size_t i = 0; i < n; i++) {
        uint8_t *b = s + 32 * i;
        switch (kind) {
        case SK_RANDOM:
            pl_test_random_bytes(rng, b, 32);
            b[31] &= 0x3f;
            break;
        case SK_ZERO:
            break;
        case SK_ONE:
            b[0] = 1;
            break;
        case SK_R_MINUS_1:
            memcpy(b, r_minus_1, 32);
            break;
        case SK_POW2:
            b[(i % 255) / 8] = (uint8_t)(1u << ((i % 255) % 8));
            break;
        case SK_EQUAL:
            memcpy(b, same, 32);
            break;
        case SK_SMALL:
            b[0] = (uint8_t)(i % 16);
            break;
        case SK_WIDE:
            pl_test_random_bytes(rng, b, 32);
            break;
        }
    }
    return s;
}

/* The sum by one call of blst's Pippenger, which needs two points or more. */
static void blst_g1(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                    size_t n)
{
    if (n < 2) {
        naive_g1(out, points, scalars, n);
        return;
    }
    void *scratch = malloc(blst_p1s_mult_pippenger_scratch_sizeof(n));
    CHECK(scratch != NULL);
    const blst_p1_affine *pts[2] = {(const blst_p1_affine *)points, NULL};
    const byte *scs[2] = {scalars, NULL};
    blst_p1s_mult_pippenger(out, pts, n, scs, 255, scratch);
    free(scratch);
}

static void blst_g2(blst_p2 *out, const uint8_t *points, const uint8_t *scalars,
                    size_t n)
{
    if (n < 2) {
        naive_g2(out, points, scalars, n);
        return;
    }
    void *scratch = malloc(blst_p2s_mult_pippenger_scratch_sizeof(n));
    CHECK(scratch != NULL);
    const blst_p2_affine *pts[2] = {(const blst_p2_affine *)points, NULL};
    const byte *scs[2] = {scalars, NULL};
    blst_p2s_mult_pippenger(out, pts, n, scs, 255, scratch);
    free(scratch);
}

/* One input, both pools, each call's scratch high-water against the
 * prediction; with `tiles` also our blst-tile baseline. */
static void g1_vs_blst(pl__pool *pool4, const uint8_t *points,
                       const uint8_t *scalars, size_t n, bool tiles,
                       const char *what)
{
    pl_error err = {0};
    blst_p1 want, got;
    pl_alloc_stats st;
    blst_g1(&want, points, scalars, n);
    for (int k = 0; k < 2; k++) {
        pl__pool *pool = k ? pool4 : NULL;
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        CHECK_OK(pl__msm_g1(&got, points, scalars, n, pool, &err), &err);
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        CHECK_EQ(st.high_water_bytes,
                 pl__msm_g1_scratch_bytes(n, pl__pool_size(pool)));
        CHECK_EQ(st.live_bytes, 0);
        check_g1_equal(&got, &want, n, what);
        if (tiles) {
            CHECK_OK(pl__msm_g1_blst(&got, points, scalars, n, pool, &err), &err);
            check_g1_equal(&got, &want, n, what);
        }
    }
}

static void g2_vs_blst(pl__pool *pool4, const uint8_t *points,
                       const uint8_t *scalars, size_t n, const char *what)
{
    pl_error err = {0};
    blst_p2 want, got;
    pl_alloc_stats st;
    blst_g2(&want, points, scalars, n);
    for (int k = 0; k < 2; k++) {
        pl__pool *pool = k ? pool4 : NULL;
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        CHECK_OK(pl__msm_g2(&got, points, scalars, n, pool, &err), &err);
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        CHECK_EQ(st.high_water_bytes,
                 pl__msm_g2_scratch_bytes(n, pl__pool_size(pool)));
        CHECK_EQ(st.live_bytes, 0);
        check_g2_equal(&got, &want, n, what);
    }
}

/* Sizes around the batch-affine threshold and window changes, not powers
 * of two, on random input. */
PL_TEST(g1_affine_sizes_vs_blst)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 41;
    const size_t sizes[] = {1, 2, 3, 511, 512, 513, 777, 2047, 3000, 8191};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint8_t *points = g1_points_mix(&rng, sizes[i], PT_RANDOM);
        uint8_t *scalars = scalars_of(&rng, sizes[i], SK_RANDOM);
        g1_vs_blst(pool, points, scalars, sizes[i], i % 3 == 0, "random");
        free(points);
        free(scalars);
    }
    pl__pool_destroy(pool);
}

/* 2^16 points: the windows (13 bits on one worker and on four) and the
 * top window's grouped buckets of a prover-sized sum. */
PL_TEST(g1_affine_large_vs_blst)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 42;
    const size_t n = (size_t)1 << 16;
    uint8_t *points = g1_points_mix(&rng, n, PT_RANDOM);
    uint8_t *scalars = scalars_of(&rng, n, SK_WIDE);
    g1_vs_blst(pool, points, scalars, n, false, "2^16 random");
    free(points);
    free(scalars);
    pl__pool_destroy(pool);
}

/* Inputs where batched additions meet doublings (equal points, equal
 * scalars), cancellations (P and -P), hot buckets (small scalars, 1) and
 * empty windows (0, powers of two). */
PL_TEST(g1_affine_structured_vs_blst)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 43;
    const size_t n = 3001;
    const point_mix pmix[] = {PT_RANDOM, PT_EQUAL, PT_PLUSMINUS};
    const scalar_kind kinds[] = {SK_ZERO, SK_ONE, SK_R_MINUS_1, SK_POW2,
                                 SK_EQUAL, SK_SMALL, SK_WIDE};
    for (size_t p = 0; p < 3; p++) {
        uint8_t *points = g1_points_mix(&rng, n, pmix[p]);
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
            uint8_t *scalars = scalars_of(&rng, n, kinds[k]);
            char what[64];
            snprintf(what, sizeof(what), "points %zu scalars %zu", p, k);
            g1_vs_blst(pool, points, scalars, n, false, what);
            free(scalars);
        }
        free(points);
    }
    pl__pool_destroy(pool);
}

PL_TEST(g2_affine_vs_blst)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 44;
    const size_t sizes[] = {127, 128, 129, 1000, 5000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint8_t *points = g2_points_mix(&rng, sizes[i], PT_RANDOM);
        uint8_t *scalars = scalars_of(&rng, sizes[i], SK_WIDE);
        g2_vs_blst(pool, points, scalars, sizes[i], "random");
        free(points);
        free(scalars);
    }
    const point_mix pmix[] = {PT_EQUAL, PT_PLUSMINUS};
    const scalar_kind kinds[] = {SK_ONE, SK_EQUAL, SK_SMALL, SK_R_MINUS_1};
    for (size_t p = 0; p < 2; p++) {
        uint8_t *points = g2_points_mix(&rng, 700, pmix[p]);
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
            uint8_t *scalars = scalars_of(&rng, 700, kinds[k]);
            g2_vs_blst(pool, points, scalars, 700, "structured");
            free(scalars);
        }
        free(points);
    }
    pl__pool_destroy(pool);
}

/* Each call makes one accounted allocation; failing it must leak nothing
 * (the harness checks every class is back to zero). */
PL_TEST(affine_allocation_failure_leaks_nothing)
{
    pl_error err = {0};
    pl__pool *pool = pool_of(2);
    uint64_t rng = 45;
    const size_t n = 1500;
    uint8_t *p1 = g1_points_mix(&rng, n, PT_RANDOM);
    uint8_t *p2 = g2_points_mix(&rng, n, PT_RANDOM);
    uint8_t *scalars = scalars_of(&rng, n, SK_RANDOM);
    blst_p1 r1;
    blst_p2 r2;
    for (int k = 0; k < 2; k++) {
        pl__pool *pl = k ? pool : NULL;
        pl__alloc_fail_at(0);
        CHECK_OK(pl__msm_g1(&r1, p1, scalars, n, pl, &err), &err);
        CHECK_EQ(pl__alloc_fail_at(1), 1); /* one allocation a call */
        CHECK_STATUS(pl__msm_g1(&r1, p1, scalars, n, pl, &err), PL_ENOMEM,
                     &err);
        pl__alloc_fail_at(1);
        CHECK_STATUS(pl__msm_g2(&r2, p2, scalars, n, pl, &err), PL_ENOMEM,
                     &err);
    }
    pl__alloc_fail_at(0);
    free(p1);
    free(p2);
    free(scalars);
    pl__pool_destroy(pool);
}

/* ---- the witness MSM: zeros skipped, ones added, Pippenger on the rest --- */

/* r and r + 1, little-endian: 0 and 1 mod r, as a scalar may hold them */
static const uint8_t r_plus_0[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
    0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
    0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
static const uint8_t r_plus_1[32] = {
    0x02, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
    0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
    0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

/* Witness-like scalars: zero_pct % zeros, one_pct % ones, the rest random
 * below 2^254; with `odd`, some zeros and ones are written as r and r + 1
 * (bit 255 set on a few too), and some of the rest are r - 1 or small. */
static uint8_t *witness_scalars(uint64_t *rng, size_t n, unsigned zero_pct,
                                unsigned one_pct, bool odd)
{
    uint8_t *s = calloc(n + 1, 32);
    CHECK(s != NULL);
    for (size_t i = 0; i < n; i++) {
        uint8_t *b = s + 32 * i;
        uint64_t roll;
        pl_test_random_bytes(rng, &roll, sizeof(roll));
        unsigned pct = (unsigned)(roll % 100), twist = (unsigned)(roll >> 32) % 8;
        if (pct < zero_pct) {
            if (odd && twist == 0)
                memcpy(b, r_plus_0, 32);
            else if (odd && twist == 1)
                b[31] = 0x80; /* bit 255 only: zero to blst */
        } else if (pct < zero_pct + one_pct) {
            if (odd && twist == 0)
                memcpy(b, r_plus_1, 32);
            else
                b[0] = 1;
            if (odd && twist == 1)
                b[31] |= 0x80;
        } else {
            pl_test_random_bytes(rng, b, 32);
            b[31] &= 0x3f;
            if (odd && twist == 0)
                memcpy(b, r_minus_1, 32);
            else if (odd && twist == 1) {
                memset(b, 0, 32);
                b[0] = 2 + (uint8_t)(roll >> 40);
            }
        }
    }
    return s;
}

/* The witness MSM against pl__msm_g1 and blst's Pippenger, on no pool and
 * on pool4; each call's scratch high-water within the bound and back to 0. */
static void g1_witness_vs(pl__pool *pool4, const uint8_t *points,
                          const uint8_t *scalars, size_t n, const char *what)
{
    pl_error err = {0};
    blst_p1 want, plain, got;
    pl_alloc_stats st;
    blst_g1(&want, points, scalars, n);
    for (int k = 0; k < 2; k++) {
        pl__pool *pool = k ? pool4 : NULL;
        unsigned threads = pl__pool_size(pool);
        CHECK_OK(pl__msm_g1(&plain, points, scalars, n, pool, &err), &err);
        check_g1_equal(&plain, &want, n, what);
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        CHECK_OK(pl__msm_g1_witness(&got, points, scalars, n, pool, &err), &err);
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        if (st.high_water_bytes > pl__msm_g1_witness_scratch_bytes(n, threads))
            pl_test_fail(__FILE__, __LINE__,
                         "G1 %s n = %zu: scratch %" PRIu64 " > bound %" PRIu64,
                         what, n, st.high_water_bytes,
                         pl__msm_g1_witness_scratch_bytes(n, threads));
        CHECK_EQ(st.live_bytes, 0);
        check_g1_equal(&got, &want, n, what);
    }
}

static void g2_witness_vs(pl__pool *pool4, const uint8_t *points,
                          const uint8_t *scalars, size_t n, const char *what)
{
    pl_error err = {0};
    blst_p2 want, plain, got;
    pl_alloc_stats st;
    blst_g2(&want, points, scalars, n);
    for (int k = 0; k < 2; k++) {
        pl__pool *pool = k ? pool4 : NULL;
        unsigned threads = pl__pool_size(pool);
        CHECK_OK(pl__msm_g2(&plain, points, scalars, n, pool, &err), &err);
        check_g2_equal(&plain, &want, n, what);
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        CHECK_OK(pl__msm_g2_witness(&got, points, scalars, n, pool, &err), &err);
        pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
        if (st.high_water_bytes > pl__msm_g2_witness_scratch_bytes(n, threads))
            pl_test_fail(__FILE__, __LINE__,
                         "G2 %s n = %zu: scratch %" PRIu64 " > bound %" PRIu64,
                         what, n, st.high_water_bytes,
                         pl__msm_g2_witness_scratch_bytes(n, threads));
        CHECK_EQ(st.live_bytes, 0);
        check_g2_equal(&got, &want, n, what);
    }
}

/* The mixes: all 0, all 1, no 0 or 1, Filecoin-like 60/30/10, mostly big,
 * mostly ones; the last three also with r, r + 1, bit 255 and r - 1. */
static const struct {
    unsigned zero_pct, one_pct;
    bool odd;
    const char *name;
} witness_mixes[] = {
    {100, 0, false, "all 0"},   {0, 100, false, "all 1"},
    {0, 0, false, "no 0 or 1"}, {60, 30, false, "60/30/10"},
    {60, 30, true, "60/30/10 odd"}, {10, 20, true, "10/20/70 odd"},
    {5, 90, true, "5/90/5 odd"},
};
#define N_WITNESS_MIXES (sizeof(witness_mixes) / sizeof(witness_mixes[0]))

PL_TEST(g1_witness_sizes)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 51;
    const size_t sizes[] = {0, 1, 2, 3, 7, 8, 33, 100, 511, 1000, 2049, 5000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        /* every 7th point at infinity: among the 1-points too */
        uint8_t *points = g1_points_mix(&rng, sizes[i], PT_RANDOM);
        for (size_t k = 0; k < N_WITNESS_MIXES; k++) {
            uint8_t *scalars =
                witness_scalars(&rng, sizes[i], witness_mixes[k].zero_pct,
                                witness_mixes[k].one_pct, witness_mixes[k].odd);
            g1_witness_vs(pool, points, scalars, sizes[i], witness_mixes[k].name);
            free(scalars);
        }
        free(points);
    }
    pl__pool_destroy(pool);
}

/* The pairwise sum of the 1-points meets doublings (equal points) and
 * cancellations (P, -P), in every level of its tree. */
PL_TEST(g1_witness_structured)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 52;
    const size_t sizes[] = {2, 3, 31, 32, 33, 1023, 1024, 1025, 3001};
    const point_mix pmix[] = {PT_EQUAL, PT_PLUSMINUS};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t p = 0; p < 2; p++) {
            uint8_t *points = g1_points_mix(&rng, sizes[i], pmix[p]);
            for (size_t k = 0; k < N_WITNESS_MIXES; k++) {
                uint8_t *scalars = witness_scalars(
                    &rng, sizes[i], witness_mixes[k].zero_pct,
                    witness_mixes[k].one_pct, witness_mixes[k].odd);
                g1_witness_vs(pool, points, scalars, sizes[i],
                              witness_mixes[k].name);
                free(scalars);
            }
            free(points);
        }
    pl__pool_destroy(pool);
}

/* ~2^14 points: several ranges per worker, windows of a real window size,
 * the ones' tree at full batches. */
PL_TEST(g1_witness_large)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 53;
    const size_t n = ((size_t)1 << 14) + 5;
    uint8_t *points = g1_points_mix(&rng, n, PT_RANDOM);
    const size_t mixes[] = {1, 2, 4, 6};
    for (size_t k = 0; k < sizeof(mixes) / sizeof(mixes[0]); k++) {
        size_t m = mixes[k];
        uint8_t *scalars =
            witness_scalars(&rng, n, witness_mixes[m].zero_pct,
                            witness_mixes[m].one_pct, witness_mixes[m].odd);
        g1_witness_vs(pool, points, scalars, n, witness_mixes[m].name);
        free(scalars);
    }
    free(points);
    pl__pool_destroy(pool);
}

PL_TEST(g2_witness)
{
    pl__pool *pool = pool_of(4);
    uint64_t rng = 54;
    const size_t sizes[] = {0, 1, 2, 5, 127, 128, 700, 3000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        uint8_t *points = g2_points_mix(&rng, sizes[i], PT_RANDOM);
        for (size_t k = 0; k < N_WITNESS_MIXES; k++) {
            uint8_t *scalars =
                witness_scalars(&rng, sizes[i], witness_mixes[k].zero_pct,
                                witness_mixes[k].one_pct, witness_mixes[k].odd);
            g2_witness_vs(pool, points, scalars, sizes[i], witness_mixes[k].name);
            free(scalars);
        }
        free(points);
    }
    const point_mix pmix[] = {PT_EQUAL, PT_PLUSMINUS};
    for (size_t p = 0; p < 2; p++) {
        uint8_t *points = g2_points_mix(&rng, 1500, pmix[p]);
        for (size_t k = 1; k < N_WITNESS_MIXES; k += 3) {
            uint8_t *scalars =
                witness_scalars(&rng, 1500, witness_mixes[k].zero_pct,
                                witness_mixes[k].one_pct, witness_mixes[k].odd);
            g2_witness_vs(pool, points, scalars, 1500, witness_mixes[k].name);
            free(scalars);
        }
        free(points);
    }
    pl__pool_destroy(pool);
}

/* The bound is 0 for n = 0, covers the plain MSM's scratch at prover sizes
 * (the same window, plus the indices), and is reached by none of the
 * mixes above (checked per call there). */
PL_TEST(witness_scratch_bound_shape)
{
    CHECK_EQ(pl__msm_g1_witness_scratch_bytes(0, 4), 0);
    CHECK_EQ(pl__msm_g2_witness_scratch_bytes(0, 1), 0);
    CHECK(pl__msm_g1_witness_scratch_bytes(1, 1) > 0);
    const size_t sizes[] = {512, 4096, (size_t)1 << 16, (size_t)1 << 20};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (unsigned t = 1; t <= 16; t *= 4) {
            uint64_t n = sizes[i];
            CHECK(pl__msm_g1_witness_scratch_bytes(sizes[i], t) >=
                  pl__msm_g1_scratch_bytes(sizes[i], t));
            CHECK(pl__msm_g2_witness_scratch_bytes(sizes[i], t) >=
                  pl__msm_g2_scratch_bytes(sizes[i], t));
            /* 36 bytes a point (index, folded scalar) over the plain
             * MSM's 32 + 1/8, and a little for the range and tile sums */
            CHECK(pl__msm_g1_witness_scratch_bytes(sizes[i], t) <=
                  pl__msm_g1_scratch_bytes(sizes[i], t) + 4 * n +
                      ((uint64_t)1 << 20) * t);
        }
}

/* One allocation a call (none when every term vanishes); failing it
 * returns PL_ENOMEM and leaks nothing. */
PL_TEST(witness_allocation_failure_leaks_nothing)
{
    pl_error err = {0};
    pl__pool *pool = pool_of(2);
    uint64_t rng = 55;
    const size_t n = 3000;
    uint8_t *p1 = g1_points_mix(&rng, n, PT_RANDOM);
    uint8_t *p2 = g2_points_mix(&rng, n, PT_RANDOM);
    uint8_t *mixed = witness_scalars(&rng, n, 60, 30, false);
    uint8_t *ones = witness_scalars(&rng, n, 0, 100, false);
    uint8_t *zeros = witness_scalars(&rng, n, 100, 0, true);
    blst_p1 r1;
    blst_p2 r2;
    for (int k = 0; k < 2; k++) {
        pl__pool *pl = k ? pool : NULL;
        pl__alloc_fail_at(0);
        CHECK_OK(pl__msm_g1_witness(&r1, p1, mixed, n, pl, &err), &err);
        CHECK_EQ(pl__alloc_fail_at(0), 1);
        CHECK_OK(pl__msm_g1_witness(&r1, p1, zeros, n, pl, &err), &err);
        CHECK(blst_p1_is_inf(&r1));
        CHECK_EQ(pl__alloc_fail_at(1), 0);
        CHECK_STATUS(pl__msm_g1_witness(&r1, p1, mixed, n, pl, &err),
                     PL_ENOMEM, &err);
        pl__alloc_fail_at(1);
        CHECK_STATUS(pl__msm_g1_witness(&r1, p1, ones, n, pl, &err),
                     PL_ENOMEM, &err);
        pl__alloc_fail_at(1);
        CHECK_STATUS(pl__msm_g2_witness(&r2, p2, mixed, n, pl, &err),
                     PL_ENOMEM, &err);
    }
    pl__alloc_fail_at(0);
    free(p1);
    free(p2);
    free(mixed);
    free(ones);
    free(zeros);
    pl__pool_destroy(pool);
}

/* The prover with witness MSMs gives the proof it gives with plain_msm,
 * on 1 and 4 workers, and its msm_scratch high-water stays within the
 * plan (the G1 MSMs' largest plus the G2 MSM's). */
PL_TEST(prover_witness_msm_matches_plain_within_plan)
{
    static const char *const names[] = {"multiplier", "chain10", "nopublic",
                                        "pow2plus1", "noB", "manypublic",
                                        "edgevalues"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        pl_error err = {0};
        char path[512];
        pl_zkey *zkey;
        pl_wtns *wtns;
        snprintf(path, sizeof(path), "%s/circuit.zkey", names[i]);
        CHECK_OK(pl_zkey_open(&zkey, pl_test_vector(path), &err), &err);
        snprintf(path, sizeof(path), "%s/witness.wtns", names[i]);
        CHECK_OK(pl_wtns_open(&wtns, pl_test_vector(path), &err), &err);
        pl_proof proofs[2];
        for (unsigned threads = 1; threads <= 4; threads += 3)
            for (int plain = 0; plain < 2; plain++) {
                pl_prover_config cfg;
                pl_prover_config_init(&cfg);
                CHECK(!cfg.plain_msm); /* the default */
                cfg.threads = threads;
                cfg.plain_msm = plain;
                pl_prover *prover;
                CHECK_OK(pl_prover_create(&prover, zkey, &cfg, &err), &err);
                pl__prover_set_zero_blinding(prover, true);
                pl__prove_plan plan;
                pl__prover_plan(zkey, &pl__backend_cpu, threads, &plan);
                pl_alloc_stats st;
                pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                CHECK_OK(pl_prove(prover, &proofs[plain], wtns, &err), &err);
                pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                if (st.high_water_bytes > plan.bytes[PL_BUF_MSM_SCRATCH])
                    pl_test_fail(__FILE__, __LINE__,
                                 "%s, %u threads, plain %d: msm_scratch "
                                 "%" PRIu64 " > plan %" PRIu64, names[i],
                                 threads, plain, st.high_water_bytes,
                                 plan.bytes[PL_BUF_MSM_SCRATCH]);
                pl_prover_destroy(prover);
                if (plain &&
                    memcmp(&proofs[0], &proofs[1], sizeof(proofs[0])) != 0)
                    pl_test_fail(__FILE__, __LINE__,
                                 "%s, %u threads: witness and plain MSMs "
                                 "give different proofs", names[i], threads);
            }
        pl_wtns_close(wtns);
        pl_zkey_close(zkey);
    }
}
