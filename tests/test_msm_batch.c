/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The batched MSM (pl__msm_sum_batch / _batch_witness, src/msm/
 * msm_batch.c): k sums over one base set equal the k separate sums
 * (pl__msm_sum, tested against naive sums in test_msm.c and
 * test_bn254_msm.c), for the four groups (BLS12-381's and BN254's G1 and
 * G2), k = 0, 1, 2, 5, at sizes on the small path (below small_below) and
 * on the batch-affine path, with zero, one and all-ones-bytes scalars and
 * points at infinity; in every GLV mode on BLS12-381's G1 (off, on load,
 * per call, from a table); the witness form on 0/1-heavy scalars and on
 * all-zero ones; 1 and 4 workers.  The plain batch's one allocation is
 * exactly what pl__msm_sum_batch_scratch_bytes reports, and the _of_witness
 * bound covers both forms; a failed allocation returns PL_ENOMEM and leaks
 * nothing (the harness checks every class is back to zero).
 */
#include "harness.h"
#include "bn254_test.h"
#include "field/bn254/curve.h"
#include "msm/msm.h"
#include "util/alloc.h"

#define KMAX 5

/* ---- the groups' points --------------------------------------------------- */

/* n points of group g: a walk P, P + G, P + 2G, ... from a random P,
 * every 7th at infinity (all-zero bytes). */
static uint8_t *points_of(pl__msm_group_id g, uint64_t *rng, size_t n)
{
    size_t pb = pl__msm_point_bytes(g);
    uint8_t *buf = calloc(n + 1, pb);
    CHECK(buf != NULL);
    uint8_t k[32];
    pl_test_random_bytes(rng, k, 32);
    k[31] &= 0x3f;
    if (g == PL__MSM_BLS12_381_G1) {
        blst_p1 p;
        blst_p1_mult(&p, blst_p1_generator(), k, 255);
        for (size_t i = 0; i < n; i++) {
            blst_p1_to_affine((blst_p1_affine *)(buf + i * pb), &p);
            blst_p1_add_or_double_affine(&p, &p, blst_p1_affine_generator());
        }
    } else if (g == PL__MSM_BLS12_381_G2) {
        blst_p2 p;
        blst_p2_mult(&p, blst_p2_generator(), k, 255);
        for (size_t i = 0; i < n; i++) {
            blst_p2_to_affine((blst_p2_affine *)(buf + i * pb), &p);
            blst_p2_add_or_double_affine(&p, &p, blst_p2_affine_generator());
        }
    } else {
        pl__bn254_arith a = pl__bn254_arith_best();
        uint64_t kl[4];
        memcpy(kl, k, 32);
        size_t jb = pl__msm_sum_bytes(g);
        uint8_t *jac = malloc((n + 1) * jb);
        CHECK(jac != NULL);
        if (g == PL__MSM_BN254_G1) {
            pl__bn254_g1 gen, p;
            pl__bn254_g1_from_affine(&gen, &pl__bn254_g1_generator);
            pl__bn254_g1_mul(&p, &gen, kl, a);
            for (size_t i = 0; i < n; i++) {
                memcpy(jac + i * jb, &p, jb);
                pl__bn254_g1_add_affine(&p, &p, &pl__bn254_g1_generator, a);
            }
            pl__bn254_g1_batch_to_affine((void *)buf, (void *)jac, n, a);
        } else {
            pl__bn254_g2 gen, p;
            pl__bn254_g2_from_affine(&gen, &pl__bn254_g2_generator);
            pl__bn254_g2_mul(&p, &gen, kl, a);
            for (size_t i = 0; i < n; i++) {
                memcpy(jac + i * jb, &p, jb);
                pl__bn254_g2_add_affine(&p, &p, &pl__bn254_g2_generator, a);
            }
            pl__bn254_g2_batch_to_affine((void *)buf, (void *)jac, n, a);
        }
        free(jac);
    }
    for (size_t i = 3; i < n; i += 7)
        memset(buf + i * pb, 0, pb);
    return buf;
}

static bool same_sum(pl__msm_group_id g, const void *a, const void *b)
{
    pl__bn254_arith ar = pl__bn254_arith_best();
    switch (g) {
    case PL__MSM_BLS12_381_G1:
        return blst_p1_is_equal(a, b);
    case PL__MSM_BLS12_381_G2:
        return blst_p2_is_equal(a, b);
    case PL__MSM_BN254_G1:
        return pl__bn254_g1_eq(a, b, ar);
    case PL__MSM_BN254_G2:
        return pl__bn254_g2_eq(a, b, ar);
    }
    return false;
}

/* ---- scalars -------------------------------------------------------------- */

typedef enum { MIX_RANDOM, MIX_WITNESS, MIX_ZERO } mix;

/* Random scalars (every 11th 0, 1 or all-ones bytes, taken mod r as the
 * sums define), witness-like ones (60% zeros, 30% ones) or all zero. */
static uint8_t *scalars_of(uint64_t *rng, size_t n, mix m)
{
    uint8_t *s = calloc(n + 1, 32);
    CHECK(s != NULL);
    for (size_t i = 0; i < n && m != MIX_ZERO; i++) {
        uint8_t *b = s + 32 * i;
        uint64_t roll = *rng % 10;
        pl_test_random_bytes(rng, b, 32);
        b[31] &= 0x3f;
        if (m == MIX_WITNESS && roll < 9) {
            memset(b, 0, 32);
            b[0] = roll >= 6;
        } else if (m == MIX_RANDOM && i % 11 == 5) {
            memset(b, (i / 11) % 3 == 2 ? 0xff : 0, 32);
            b[0] |= (i / 11) % 3 == 1;
        }
    }
    return s;
}

static pl__pool *pool_of(unsigned threads)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, threads, "pl-test", &err), &err);
    return pool;
}

/* ---- the check ------------------------------------------------------------ */

/* The batch of k (plain or witness form, options o or the default) equals
 * the k separate sums; the plain batch allocates exactly what it reports,
 * the witness batch within its bound, both within the _of_witness bound. */
static void check_batch(pl__msm_group_id g, const uint8_t *points,
                        uint8_t *const *scalars, size_t k, size_t n,
                        bool witness, const pl__msm_opts *o, pl__pool *pool,
                        const char *what)
{
    pl_error err = {0};
    size_t sb = pl__msm_sum_bytes(g);
    uint8_t want[KMAX][288], got[KMAX * 288];
    const uint8_t *sc[KMAX];
    CHECK(sb <= 288 && k <= KMAX);
    for (size_t j = 0; j < k; j++) {
        sc[j] = scalars[j];
        CHECK_OK(pl__msm_sum(g, want[j], points, scalars[j], n, o, pool,
                             &err), &err);
    }
    pl_alloc_stats st;
    unsigned threads = pl__pool_size(pool);
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    if (witness)
        CHECK_OK(pl__msm_sum_batch_witness(g, got, points, sc, k, n, o, pool,
                                           &err), &err);
    else
        CHECK_OK(pl__msm_sum_batch(g, got, points, sc, k, n, o, pool, &err),
                 &err);
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
    CHECK_EQ(st.live_bytes, 0);
    if (witness)
        CHECK(st.high_water_bytes <=
              pl__msm_sum_witness_scratch_bytes(g, n, threads, o));
    else
        CHECK_EQ(st.high_water_bytes,
                 k ? pl__msm_sum_batch_scratch_bytes(g, n, k, threads, o) : 0);
    if (!o)
        CHECK(st.high_water_bytes <=
              pl__msm_sum_batch_of_witness_scratch_bytes(g, n, k, threads));
    for (size_t j = 0; j < k; j++)
        if (!same_sum(g, got + j * sb, want[j])) {
            fprintf(stderr, "%s: group %d, n = %zu, k = %zu, %s: sum %zu "
                    "differs from the separate one\n", what, (int)g, n, k,
                    witness ? "witness" : "plain", j);
            CHECK(false);
        }
}

static void sizes_for(pl__msm_group_id g, unsigned threads, mix m,
                      bool witness)
{
    static const size_t ns[] = {0, 1, 5, 100, 1000, 4097};
    static const size_t ks[] = {0, 1, 2, 5};
    pl__pool *pool = pool_of(threads);
    uint64_t rng = 1000 + (uint64_t)g * 10 + threads;
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
        size_t n = ns[a];
        uint8_t *points = points_of(g, &rng, n);
        uint8_t *scalars[KMAX];
        for (size_t j = 0; j < KMAX; j++)
            scalars[j] = scalars_of(&rng, n, m);
        for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++)
            check_batch(g, points, scalars, ks[b], n, witness, NULL, pool,
                        "sizes");
        for (size_t j = 0; j < KMAX; j++)
            free(scalars[j]);
        free(points);
    }
    pl__pool_destroy(pool);
}

PL_TEST(bls12_381_g1_plain)
{
    sizes_for(PL__MSM_BLS12_381_G1, 1, MIX_RANDOM, false);
    sizes_for(PL__MSM_BLS12_381_G1, 4, MIX_RANDOM, false);
}

PL_TEST(bls12_381_g2_plain)
{
    sizes_for(PL__MSM_BLS12_381_G2, 4, MIX_RANDOM, false);
}

PL_TEST(bn254_plain)
{
    sizes_for(PL__MSM_BN254_G1, 1, MIX_RANDOM, false);
    sizes_for(PL__MSM_BN254_G1, 4, MIX_RANDOM, false);
    sizes_for(PL__MSM_BN254_G2, 4, MIX_RANDOM, false);
}

PL_TEST(witness_form)
{
    sizes_for(PL__MSM_BLS12_381_G1, 4, MIX_WITNESS, true);
    sizes_for(PL__MSM_BLS12_381_G1, 1, MIX_ZERO, true);
    sizes_for(PL__MSM_BN254_G1, 4, MIX_WITNESS, true);
    sizes_for(PL__MSM_BLS12_381_G2, 4, MIX_WITNESS, true);
}

/* 0/1-heavy scalars through the plain batch too (its tiles skip zeros). */
PL_TEST(plain_batch_of_witness_scalars)
{
    sizes_for(PL__MSM_BLS12_381_G1, 4, MIX_WITNESS, false);
    sizes_for(PL__MSM_BN254_G2, 4, MIX_ZERO, false);
}

PL_TEST(glv_modes)
{
    const size_t n = 3000;
    pl__pool *pool = pool_of(4);
    uint64_t rng = 77;
    uint8_t *points = points_of(PL__MSM_BLS12_381_G1, &rng, n);
    uint8_t *table = malloc(n * 96);
    CHECK(table != NULL);
    pl__msm_sum_endo_table(PL__MSM_BLS12_381_G1, table, points, n, pool);
    uint8_t *scalars[KMAX];
    for (size_t j = 0; j < KMAX; j++)
        scalars[j] = scalars_of(&rng, n, MIX_RANDOM);
    static const pl__glv_mode modes[] = {PL__GLV_OFF, PL__GLV_LOAD,
                                         PL__GLV_CALL, PL__GLV_TABLE};
    for (size_t m = 0; m < 4; m++) {
        pl__msm_opts o = {modes[m], modes[m] == PL__GLV_TABLE ? table : NULL};
        check_batch(PL__MSM_BLS12_381_G1, points, scalars, 3, n, false, &o,
                    pool, "glv");
        check_batch(PL__MSM_BLS12_381_G1, points, scalars, 3, n, true, &o,
                    pool, "glv");
    }
    for (size_t j = 0; j < KMAX; j++)
        free(scalars[j]);
    free(table);
    free(points);
    pl__pool_destroy(pool);
}

/* The plain batch makes one allocation, the witness batch one per vector
 * at most: failing any of them returns PL_ENOMEM and leaks nothing. */
PL_TEST(allocation_failure_leaks_nothing)
{
    pl_error err = {0};
    const size_t n = 1500, k = 3;
    pl__pool *pool = pool_of(2);
    uint64_t rng = 5;
    uint8_t got[3 * 288];
    static const pl__msm_group_id groups[] = {PL__MSM_BLS12_381_G1,
                                              PL__MSM_BN254_G2};
    for (size_t gi = 0; gi < 2; gi++) {
        pl__msm_group_id g = groups[gi];
        uint8_t *points = points_of(g, &rng, n);
        uint8_t *scalars[3];
        for (size_t j = 0; j < k; j++)
            scalars[j] = scalars_of(&rng, n, MIX_WITNESS);
        const uint8_t *sc[3] = {scalars[0], scalars[1], scalars[2]};
        pl__alloc_fail_at(0);
        CHECK_OK(pl__msm_sum_batch(g, got, points, sc, k, n, NULL, pool,
                                   &err), &err);
        CHECK_EQ(pl__alloc_fail_at(1), 1); /* one allocation a batch */
        CHECK_STATUS(pl__msm_sum_batch(g, got, points, sc, k, n, NULL, pool,
                                       &err), PL_ENOMEM, &err);
        pl__alloc_fail_at(0);
        CHECK_OK(pl__msm_sum_batch_witness(g, got, points, sc, k, n, NULL,
                                           pool, &err), &err);
        uint64_t calls = pl__alloc_fail_at(0);
        CHECK(calls >= 1 && calls <= k);
        for (uint64_t f = 1; f <= calls; f++) {
            pl__alloc_fail_at(f);
            CHECK_STATUS(pl__msm_sum_batch_witness(g, got, points, sc, k, n,
                                                   NULL, pool, &err),
                         PL_ENOMEM, &err);
        }
        pl__alloc_fail_at(0);
        for (size_t j = 0; j < k; j++)
            free(scalars[j]);
        free(points);
    }
    pl__pool_destroy(pool);
}

/* A batch's scratch is at most k separate sums' (its window and ranges
 * are within one sum's), whatever the workers, so the reservations of k
 * proofs cover it; and the model never expects it to lose. */
PL_TEST(scratch_within_k_sums_and_gain_at_least_one)
{
    static const pl__msm_group_id groups[] = {
        PL__MSM_BLS12_381_G1, PL__MSM_BLS12_381_G2, PL__MSM_BN254_G1,
        PL__MSM_BN254_G2};
    static const unsigned threads[] = {1, 2, 16, 96};
    static const size_t ks[] = {1, 2, 3, 5, 10};
    for (size_t g = 0; g < 4; g++)
        for (unsigned lg = 6; lg <= 22; lg += 4)
            for (size_t t = 0; t < 4; t++)
                for (size_t i = 0; i < 5; i++) {
                    size_t n = ((size_t)1 << lg) + 3;
                    uint64_t one = pl__msm_sum_scratch_bytes(groups[g], n,
                                                             threads[t], NULL);
                    uint64_t all = pl__msm_sum_batch_scratch_bytes(
                        groups[g], n, ks[i], threads[t], NULL);
                    CHECK(all <= ks[i] * one);
                    if (ks[i] == 1)
                        CHECK_EQ(all, one);
                    double gain = pl__msm_sum_batch_gain(groups[g], n, ks[i],
                                                         threads[t]);
                    if (gain < 1.0)
                        fprintf(stderr, "g %zu n %zu t %u k %zu: %.6f\n", g,
                                n, threads[t], ks[i], gain);
                    CHECK(gain >= 1.0);
                }
}
