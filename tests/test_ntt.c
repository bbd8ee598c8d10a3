/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NTT tests: round trips at every size 2^0..2^20, the forward transform and
 * the odd-coset transform against naive O(n^2) evaluation (to 2^6), and
 * from 2^13 to 2^20 (the column-blocked outer stages, one chunk and two)
 * against Horner evaluation at sampled points; the roots' orders,
 * identical results for 1 and 4 workers, and the plan's byte count
 * against the allocator's counters.
 */
#include "harness.h"
#include "field/field.h"
#include "ntt/ntt.h"
#include "util/alloc.h"

static void random_fr(uint64_t *state, blst_fr *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b[32];
        pl_test_random_bytes(state, b, sizeof(b));
        b[31] &= 0x3f; /* < 2^254 < r */
        pl__fr_from_le(&out[i], b);
    }
}

static blst_fr *fr_array(size_t n)
{
    blst_fr *a = malloc(n * sizeof(blst_fr));
    CHECK(a != NULL);
    return a;
}

static bool fr_equal(const blst_fr *a, const blst_fr *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;
}

static void check_fr_arrays(const blst_fr *a, const blst_fr *b, size_t n,
                            const char *what, unsigned log2n)
{
    for (size_t i = 0; i < n; i++)
        if (!fr_equal(&a[i], &b[i]))
            pl_test_fail(__FILE__, __LINE__, "%s, n = 2^%u: differs at %zu",
                         what, log2n, i);
}

static void fr_one(blst_fr *out)
{
    static const uint64_t one[4] = {1, 0, 0, 0};
    blst_fr_from_uint64(out, one);
}

/* sum_j coef[j] * x^j */
static void horner(blst_fr *out, const blst_fr *coef, size_t n, const blst_fr *x)
{
    blst_fr acc;
    memset(&acc, 0, sizeof(acc));
    for (size_t j = n; j-- > 0;) {
        blst_fr_mul(&acc, &acc, x);
        blst_fr_add(&acc, &acc, &coef[j]);
    }
    *out = acc;
}

PL_TEST(roundtrip_all_sizes)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    uint64_t rng = 1;
    for (unsigned log2n = 0; log2n <= 12; log2n++) {
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan;
        CHECK_OK(pl__ntt_plan_create(&plan, log2n, pool, &err), &err);
        blst_fr *x = fr_array(n), *y = fr_array(n);
        random_fr(&rng, x, n);
        memcpy(y, x, n * sizeof(blst_fr));
        pl__ntt_forward(plan, y, pool);
        pl__ntt_inverse(plan, y, pool);
        check_fr_arrays(x, y, n, "inverse(forward(x))", log2n);
        pl__ntt_inverse(plan, y, NULL);
        pl__ntt_forward(plan, y, NULL);
        check_fr_arrays(x, y, n, "forward(inverse(x))", log2n);
        free(x);
        free(y);
        pl__ntt_plan_destroy(plan);
    }
    pl__pool_destroy(pool);
}

PL_TEST(forward_matches_naive_dft)
{
    pl_error err = {0};
    uint64_t rng = 2;
    for (unsigned log2n = 0; log2n <= 6; log2n++) {
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan;
        CHECK_OK(pl__ntt_plan_create(&plan, log2n, NULL, &err), &err);
        blst_fr *x = fr_array(n), *y = fr_array(n), *want = fr_array(n);
        random_fr(&rng, x, n);
        blst_fr omega, point;
        pl__fr_root_of_unity(&omega, log2n);
        fr_one(&point);
        for (size_t i = 0; i < n; i++) { /* want[i] = x(omega^i) */
            horner(&want[i], x, n, &point);
            blst_fr_mul(&point, &point, &omega);
        }
        memcpy(y, x, n * sizeof(blst_fr));
        pl__ntt_forward(plan, y, NULL);
        check_fr_arrays(want, y, n, "forward vs naive DFT", log2n);
        /* and the inverse takes the evaluations back to x */
        pl__ntt_inverse(plan, want, NULL);
        check_fr_arrays(x, want, n, "inverse of naive DFT", log2n);
        free(x);
        free(y);
        free(want);
        pl__ntt_plan_destroy(plan);
    }
}

PL_TEST(root_of_unity_exact_order)
{
    blst_fr one, minus_one, zero;
    fr_one(&one);
    memset(&zero, 0, sizeof(zero));
    blst_fr_sub(&minus_one, &zero, &one);
    blst_fr w;
    pl__fr_root_of_unity(&w, 0);
    CHECK(fr_equal(&w, &one));
    for (unsigned k = 1; k <= 32; k++) {
        pl__fr_root_of_unity(&w, k);
        /* w^(2^(k-1)) = -1 means the order is exactly 2^k */
        for (unsigned i = 0; i + 1 < k; i++)
            blst_fr_sqr(&w, &w);
        if (!fr_equal(&w, &minus_one))
            pl_test_fail(__FILE__, __LINE__, "w[%u]^(2^%u) != -1", k, k - 1);
        blst_fr_sqr(&w, &w);
        CHECK(fr_equal(&w, &one));
    }
}

PL_TEST(odd_coset_matches_naive)
{
    pl_error err = {0};
    uint64_t rng = 3;
    for (unsigned log2n = 0; log2n <= 5; log2n++) {
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan;
        CHECK_OK(pl__ntt_plan_create(&plan, log2n, NULL, &err), &err);
        blst_fr *coef = fr_array(n), *evals = fr_array(n), *want = fr_array(n);
        random_fr(&rng, coef, n);
        blst_fr omega, g, point;
        pl__fr_root_of_unity(&omega, log2n);
        pl__fr_root_of_unity(&g, log2n + 1);
        fr_one(&point);
        for (size_t i = 0; i < n; i++) { /* on the domain */
            horner(&evals[i], coef, n, &point);
            blst_fr_mul(&point, &point, &omega);
        }
        point = g;
        for (size_t i = 0; i < n; i++) { /* on the odd coset g * omega^i */
            horner(&want[i], coef, n, &point);
            blst_fr_mul(&point, &point, &omega);
        }
        pl__ntt_to_odd_coset(plan, evals, NULL);
        check_fr_arrays(want, evals, n, "odd coset vs naive", log2n);
        free(coef);
        free(evals);
        free(want);
        pl__ntt_plan_destroy(plan);
    }
}

PL_TEST(one_and_four_workers_agree)
{
    pl_error err = {0};
    pl__pool *pool1, *pool4;
    CHECK_OK(pl__pool_create(&pool1, 1, "pl-test", &err), &err);
    CHECK_OK(pl__pool_create(&pool4, 4, "pl-test", &err), &err);
    uint64_t rng = 4;
    /* 2^15 crosses the block size and the per-task grain: several blocks,
     * several full-pass stages, several tasks per pass. */
    const unsigned sizes[] = {3, 13, 15};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        unsigned log2n = sizes[s];
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan1, *plan4;
        CHECK_OK(pl__ntt_plan_create(&plan1, log2n, pool1, &err), &err);
        CHECK_OK(pl__ntt_plan_create(&plan4, log2n, pool4, &err), &err);
        blst_fr *a = fr_array(n), *b = fr_array(n);
        random_fr(&rng, a, n);
        memcpy(b, a, n * sizeof(blst_fr));
        pl__ntt_forward(plan1, a, pool1);
        pl__ntt_forward(plan4, b, pool4);
        check_fr_arrays(a, b, n, "forward, 1 vs 4 workers", log2n);
        pl__ntt_to_odd_coset(plan1, a, pool1);
        pl__ntt_to_odd_coset(plan4, b, pool4);
        check_fr_arrays(a, b, n, "odd coset, 1 vs 4 workers", log2n);
        pl__ntt_inverse(plan1, a, pool1);
        pl__ntt_inverse(plan4, b, pool4);
        check_fr_arrays(a, b, n, "inverse, 1 vs 4 workers", log2n);
        free(a);
        free(b);
        pl__ntt_plan_destroy(plan1);
        pl__ntt_plan_destroy(plan4);
    }
    pl__pool_destroy(pool1);
    pl__pool_destroy(pool4);
}

PL_TEST(plan_bytes_match_allocator)
{
    pl_error err = {0};
    const unsigned sizes[] = {0, 1, 2, 7, 12, 16};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        pl_alloc_stats before, during, after;
        pl_alloc_stats_read(&before, PL_BUF_PARAMS, false);
        pl__ntt_plan *plan;
        CHECK_OK(pl__ntt_plan_create(&plan, sizes[s], NULL, &err), &err);
        pl_alloc_stats_read(&during, PL_BUF_PARAMS, false);
        CHECK_EQ(during.live_bytes - before.live_bytes,
                 pl__ntt_plan_bytes(sizes[s]));
        CHECK(pl__ntt_plan_bytes(sizes[s]) >=
              ((uint64_t)1 << sizes[s]) / 2 * sizeof(blst_fr));
        pl__ntt_plan_destroy(plan);
        pl_alloc_stats_read(&after, PL_BUF_PARAMS, false);
        CHECK_EQ(after.live_bytes, before.live_bytes);
    }
    pl__ntt_plan_destroy(NULL);
}

PL_TEST(plan_errors_leak_nothing)
{
    pl_error err = {0};
    pl__ntt_plan *plan = (pl__ntt_plan *)&err;
    CHECK_STATUS(pl__ntt_plan_create(&plan, 29, NULL, &err), PL_EUNSUPPORTED,
                 &err);
    CHECK(plan == NULL);
    pl__alloc_fail_at(1);
    CHECK_STATUS(pl__ntt_plan_create(&plan, 4, NULL, &err), PL_ENOMEM, &err);
    pl__alloc_fail_at(0);
    CHECK(plan == NULL);
}

/* The sizes whose outer stages run in column blocks (2^13 and up): the
 * forward transform against x(omega^i) at sampled i, and the round trip,
 * on two workers. */
PL_TEST(large_sizes_sampled_and_roundtrip)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    uint64_t rng = 5;
    for (unsigned log2n = 13; log2n <= 20; log2n++) {
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan;
        CHECK_OK(pl__ntt_plan_create(&plan, log2n, pool, &err), &err);
        blst_fr *x = fr_array(n), *y = fr_array(n);
        random_fr(&rng, x, n);
        memcpy(y, x, n * sizeof(blst_fr));
        pl__ntt_forward(plan, y, pool);
        blst_fr omega;
        pl__fr_root_of_unity(&omega, log2n);
        size_t picks[6] = {0, 1, n / 2, n - 1, 0, 0};
        pl_test_random_bytes(&rng, &picks[4], 2 * sizeof(size_t));
        for (size_t k = 0; k < 6; k++) {
            size_t i = picks[k] % n;
            blst_fr point, want;
            pl__fr_pow(&point, &omega, i);
            horner(&want, x, n, &point);
            if (!fr_equal(&want, &y[i]))
                pl_test_fail(__FILE__, __LINE__,
                             "forward, n = 2^%u: y[%zu] != x(omega^%zu)",
                             log2n, i, i);
        }
        pl__ntt_inverse(plan, y, pool);
        check_fr_arrays(x, y, n, "inverse(forward(x))", log2n);
        free(x);
        free(y);
        pl__ntt_plan_destroy(plan);
    }
    pl__pool_destroy(pool);
}
