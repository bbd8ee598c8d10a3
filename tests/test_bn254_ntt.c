/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NTT over BN254's Fr (pl__ntt_plan_create_curve with PL__CURVE_BN254,
 * the _elems transforms), in both field implementations: round trips at
 * every size 2^0..2^12 and at 2^16; the forward and odd-coset transforms
 * against naive O(n^2) evaluation (to 2^6) and, from 2^13 to 2^20 (the
 * column-blocked outer stages, one chunk and two), against Horner
 * evaluation at sampled points; the roots snarkjs uses (ffjavascript's Fr.w[28]
 * = 5^((r-1)/2^28), of exact order, and Fr.shift = 25 as the coset of 2^28); a
 * domain above 2^28 refused with the reason; 1 and 4 workers and both
 * implementations alike; the plan's bytes as the allocator counts them.
 */
#include "harness.h"
#include "bn254_test.h"
#include "field/bn254/serial.h"
#include "ntt/ntt.h"
#include "util/alloc.h"

typedef pl__bn254_fr fr;

static void random_fr(uint64_t *state, fr *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b[32];
        pl_test_random_bytes(state, b, sizeof(b));
        b[31] &= 0x1f; /* < 2^253 < r */
        CHECK(pl__bn254_fr_from_le(&out[i], b));
    }
}

static fr *fr_array(size_t n)
{
    fr *a = malloc((n + 1) * sizeof(fr));
    CHECK(a != NULL);
    return a;
}

static void check_arrays(const fr *a, const fr *b, size_t n, const char *what,
                         unsigned log2n)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(fr)) != 0)
            pl_test_fail(__FILE__, __LINE__, "%s, n = 2^%u: differs at %zu",
                         what, log2n, i);
}

static pl__bn254_arith V(void) { return pl__bn254_arith_best(); }

/* sum_j coef[j] x^j */
static void horner(fr *out, const fr *coef, size_t n, const fr *x)
{
    fr acc;
    memset(&acc, 0, sizeof(acc));
    for (size_t j = n; j-- > 0;) {
        pl__bn254_fr_mul(&acc, &acc, x, V());
        pl__bn254_fr_add(&acc, &acc, &coef[j], V());
    }
    *out = acc;
}

static pl__ntt_plan *plan_of(unsigned log2n, pl__pool *pool)
{
    pl_error err = {0};
    pl__ntt_plan *plan;
    CHECK_OK(
        pl__ntt_plan_create_curve(&plan, PL__CURVE_BN254, log2n, pool, &err),
        &err);
    CHECK_EQ(pl__ntt_plan_curve(plan), PL__CURVE_BN254);
    CHECK_EQ(pl__ntt_plan_log2n(plan), log2n);
    return plan;
}

PL_TEST(roundtrip_all_sizes)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    pl__bn254_arith vs[2];
    size_t nv = bn254_arith_list(vs);
    uint64_t rng = 1;
    for (unsigned log2n = 0; log2n <= 16; log2n++) {
        if (log2n > 12 && log2n < 16)
            continue;
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan = plan_of(log2n, pool);
        fr *x = fr_array(n), *y = fr_array(n), *keep = fr_array(n);
        random_fr(&rng, x, n);
        for (size_t vi = 0; vi < nv; vi++) {
            pl__bn254_set_arith(vs[vi]);
            memcpy(y, x, n * sizeof(fr));
            pl__ntt_forward_elems(plan, y, pool);
            if (vi == 0)
                memcpy(keep, y, n * sizeof(fr));
            else
                check_arrays(y, keep, n, "forward, adx vs portable", log2n);
            pl__ntt_inverse_elems(plan, y, pool);
            check_arrays(x, y, n, "inverse(forward(x))", log2n);
            pl__ntt_inverse_elems(plan, y, NULL);
            pl__ntt_forward_elems(plan, y, NULL);
            check_arrays(x, y, n, "forward(inverse(x)), no pool", log2n);
        }
        pl__bn254_set_arith(pl__bn254_arith_best());
        free(x);
        free(y);
        free(keep);
        pl__ntt_plan_destroy(plan);
    }
    pl__pool_destroy(pool);
}

/* forward(c)[i] = sum_j c_j omega^(ij); odd coset: the polynomial through
 * the evaluations, evaluated at g omega^i */
PL_TEST(forward_and_coset_match_naive)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    uint64_t rng = 2;
    for (unsigned log2n = 0; log2n <= 6; log2n++) {
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan = plan_of(log2n, pool);
        fr *c = fr_array(n), *y = fr_array(n), *want = fr_array(n);
        random_fr(&rng, c, n);
        fr omega, g, x;
        pl__ntt_bn254_root_of_unity(&omega, log2n);
        pl__ntt_bn254_coset(&g, log2n);
        x = PL__BN254_FR_ONE;
        for (size_t i = 0; i < n; i++) {
            horner(&want[i], c, n, &x);
            pl__bn254_fr_mul(&x, &x, &omega, V());
        }
        memcpy(y, c, n * sizeof(fr));
        pl__ntt_forward_elems(plan, y, pool);
        check_arrays(y, want, n, "forward vs naive", log2n);
        /* y holds c's evaluations: the coset transform gives c at g w^i */
        x = g;
        for (size_t i = 0; i < n; i++) {
            horner(&want[i], c, n, &x);
            pl__bn254_fr_mul(&x, &x, &omega, V());
        }
        pl__ntt_to_odd_coset_elems(plan, y, pool);
        check_arrays(y, want, n, "odd coset vs naive", log2n);
        free(c);
        free(y);
        free(want);
        pl__ntt_plan_destroy(plan);
    }
    pl__pool_destroy(pool);
}

/* 2^13 .. 2^20: the outer stages in column blocks, one chunk (to 2^16)
 * and more; sampled against Horner. */
PL_TEST(large_sizes_sampled)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    uint64_t rng = 3;
    static const unsigned sizes[] = {13, 14, 16, 17, 20};
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        unsigned log2n = sizes[si];
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan = plan_of(log2n, pool);
        fr *c = fr_array(n), *y = fr_array(n);
        random_fr(&rng, c, n);
        memcpy(y, c, n * sizeof(fr));
        pl__ntt_forward_elems(plan, y, pool);
        fr omega, g, x, want;
        pl__ntt_bn254_root_of_unity(&omega, log2n);
        pl__ntt_bn254_coset(&g, log2n);
        size_t idx[] = {0, 1, 2, n / 2, n / 2 + 1, n - 1, 12345 % n};
        for (size_t s = 0; s < sizeof(idx) / sizeof(idx[0]); s++) {
            pl__bn254_fr_pow_u64(&x, &omega, idx[s], V());
            horner(&want, c, n, &x);
            CHECK_MEM(&y[idx[s]], &want, sizeof(fr));
        }
        pl__ntt_to_odd_coset_elems(plan, y, pool);
        for (size_t s = 0; s < sizeof(idx) / sizeof(idx[0]); s++) {
            pl__bn254_fr_pow_u64(&x, &omega, idx[s], V());
            pl__bn254_fr_mul(&x, &x, &g, V());
            horner(&want, c, n, &x);
            CHECK_MEM(&y[idx[s]], &want, sizeof(fr));
        }
        free(c);
        free(y);
        pl__ntt_plan_destroy(plan);
    }
    pl__pool_destroy(pool);
}

/* ffjavascript's bn128 Fr.w[28] and Fr.w[27] (printed by node from
 * ffjavascript 0.3.1's buildBn128), and Fr.shift. */
PL_TEST(roots_as_snarkjs)
{
    static const char *w28 = "191032190679217139442913928276920700361456519573"
                             "29286315305642004821462161904";
    static const char *w27 = "208294021852694423031171822507703592221468316981"
                             "4847712455127909555749686340";
    fr w, want, t;
    CHECK(pl__bn254_fr_from_dec(&want, w28, strlen(w28)));
    pl__ntt_bn254_root_of_unity(&w, 28);
    CHECK_MEM(&w, &want, sizeof(fr));
    CHECK(pl__bn254_fr_from_dec(&want, w27, strlen(w27)));
    pl__ntt_bn254_root_of_unity(&w, 27);
    CHECK_MEM(&w, &want, sizeof(fr));
    /* every root of exact order: w^(2^(k-1)) = -1 */
    for (unsigned k = 1; k <= 28; k++) {
        pl__ntt_bn254_root_of_unity(&w, k);
        for (unsigned i = 0; i + 1 < k; i++)
            pl__bn254_fr_sqr(&w, &w, V());
        pl__bn254_fr_neg(&t, &PL__BN254_FR_ONE, V());
        CHECK_MEM(&w, &t, sizeof(fr));
    }
    pl__ntt_bn254_root_of_unity(&w, 0);
    CHECK_MEM(&w, &PL__BN254_FR_ONE, sizeof(fr));
    /* the coset: w[log2n + 1], and at 2^28 snarkjs's Fr.shift = 25 */
    pl__ntt_bn254_coset(&w, 10);
    pl__ntt_bn254_root_of_unity(&t, 11);
    CHECK_MEM(&w, &t, sizeof(fr));
    pl__ntt_bn254_coset(&w, 28);
    pl__bn254_fr_from_u64(&t, 25);
    CHECK_MEM(&w, &t, sizeof(fr));
}

PL_TEST(domain_above_2_28_refused)
{
    pl_error err = {0};
    pl__ntt_plan *plan = (pl__ntt_plan *)1;
    CHECK_STATUS(
        pl__ntt_plan_create_curve(&plan, PL__CURVE_BN254, 29, NULL, &err),
        PL_EUNSUPPORTED, &err);
    CHECK(plan == NULL);
    CHECK(strstr(err.msg, "two-adicity 28") != NULL);
    CHECK(strstr(err.msg, "2^29") != NULL);
}

PL_TEST(one_and_four_workers_agree)
{
    pl_error err = {0};
    pl__pool *pool1, *pool4;
    CHECK_OK(pl__pool_create(&pool1, 1, "pl-test", &err), &err);
    CHECK_OK(pl__pool_create(&pool4, 4, "pl-test", &err), &err);
    uint64_t rng = 9;
    const unsigned log2n = 15;
    size_t n = (size_t)1 << log2n;
    pl__ntt_plan *p1 = plan_of(log2n, pool1), *p4 = plan_of(log2n, pool4);
    fr *a = fr_array(n), *b = fr_array(n);
    random_fr(&rng, a, n);
    memcpy(b, a, n * sizeof(fr));
    pl__ntt_to_odd_coset_elems(p1, a, pool1);
    pl__ntt_to_odd_coset_elems(p4, b, pool4);
    check_arrays(a, b, n, "odd coset, 1 vs 4 workers", log2n);
    free(a);
    free(b);
    pl__ntt_plan_destroy(p1);
    pl__ntt_plan_destroy(p4);
    pl__pool_destroy(pool1);
    pl__pool_destroy(pool4);
}

PL_TEST(plan_bytes_match_allocator)
{
    for (unsigned log2n = 0; log2n <= 16; log2n += 4) {
        pl_alloc_stats st;
        pl_alloc_stats_read(&st, PL_BUF_PARAMS, true);
        pl__ntt_plan *plan = plan_of(log2n, NULL);
        pl_alloc_stats_read(&st, PL_BUF_PARAMS, false);
        CHECK_EQ(st.live_bytes, pl__ntt_plan_bytes(log2n));
        pl__ntt_plan_destroy(plan);
    }
}
