/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MSM tests: G1 and G2 sums against the naive sum of blst_pX_mult over
 * random multiples of the generator, with zero scalars, 1 and r - 1, points
 * at infinity (all-zero bytes), unaligned point arrays, n = 0, 1, 2, 3, 7, 8,
 * 9 (around the point-by-point threshold), 31, 32, 33, 1000, 4097 and a
 * 2^14-ish G1 case; 1 and 4 workers agree; the
 * scratch size reported in advance equals what the call allocates; a failed
 * allocation returns PL_ENOMEM and leaks nothing.
 */
#include "harness.h"
#include "field/field.h"
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
    CHECK_EQ(pl__msm_g1_scratch_bytes(0, 4), 0);
    CHECK_EQ(pl__msm_g1_scratch_bytes(7, 4), 0);
    CHECK_EQ(pl__msm_g2_scratch_bytes(7, 4), 0);
    CHECK(pl__msm_g1_scratch_bytes(8, 1) > 0);
    CHECK(pl__msm_g2_scratch_bytes(8, 4) > 0);
    CHECK(pl__msm_g1_scratch_bytes(1u << 16, 2) >
          pl__msm_g1_scratch_bytes(1u << 16, 1));
    CHECK(pl__msm_g2_scratch_bytes(1u << 16, 1) >
          pl__msm_g1_scratch_bytes(1u << 16, 1));
    CHECK_EQ(pl__msm_g1_scratch_bytes(1000, 0), pl__msm_g1_scratch_bytes(1000, 1));
    /* the per-worker bucket cap keeps big sums bounded */
    CHECK(pl__msm_g1_scratch_bytes((size_t)1 << 26, 16) < ((uint64_t)1 << 30));
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
