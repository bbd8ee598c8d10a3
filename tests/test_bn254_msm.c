/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's MSMs (pl__msm_sum / pl__msm_sum_witness with PL__MSM_BN254_G1
 * and _G2, src/msm/msm_bn254.c) against the naive sum, cheaply: the
 * points are known multiples P_i = [k_i] G (a random walk over a few
 * multiples of the generator, then one batched conversion to affine), so
 * sum s_i P_i = [sum s_i k_i mod r] G, one scalar multiplication.  At the
 * sizes the BLS12-381 tests use (n = 0, 1, 2, 3, 7, 8, 9, around the small
 * path's threshold, 100, 1000, 4097 and 2^14 + 3), with zero scalars, 1,
 * r - 1, (r -+ 1) / 2, lambda and -lambda (GLV's eigenvalue), scalars >= r
 * (taken mod r, all 256 bits), points at infinity, all points equal, P and
 * -P; in every GLV mode (off, on load, per call, from a table) and both
 * field implementations (the same sum); 1 and 4 workers; the scratch
 * reported in advance equals (plain) or bounds (witness) what a call
 * allocates; a failed allocation leaks nothing; 2^31 points are refused.
 * And GLV's endomorphism: phi(P) = [lambda] P on G1 and on G2.
 */
#include "harness.h"
#include "bn254_test.h"
#include "field/bn254/curve.h"
#include "msm/msm.h"
#include "util/alloc.h"

/* ---- the two groups, behind one set of operations ------------------------ */

typedef struct {
    pl__msm_group_id id;
    size_t point_bytes, jac_bytes;
    const void *gen; /* affine generator */
    void (*from_affine)(void *r, const void *a);
    void (*add_affine)(void *r, const void *p, const void *a);
    void (*neg)(void *r, const void *p);
    void (*mul)(void *r, const void *p, const uint64_t k[4]);
    void (*batch_to_affine)(void *out, const void *in, size_t n);
    bool (*eq)(const void *p, const void *q);
} grp;

static pl__bn254_arith A(void) { return pl__bn254_arith_best(); }

static void g1_from_affine(void *r, const void *a)
{
    pl__bn254_g1_from_affine(r, a);
}
static void g1_add_affine(void *r, const void *p, const void *a)
{
    pl__bn254_g1_add_affine(r, p, a, A());
}
static void g1_neg(void *r, const void *p) { pl__bn254_g1_neg(r, p, A()); }
static void g1_mul(void *r, const void *p, const uint64_t k[4])
{
    pl__bn254_g1_mul(r, p, k, A());
}
static void g1_batch(void *o, const void *i, size_t n)
{
    pl__bn254_g1_batch_to_affine(o, i, n, A());
}
static bool g1_eq(const void *p, const void *q)
{
    return pl__bn254_g1_eq(p, q, A());
}
static void g2_from_affine(void *r, const void *a)
{
    pl__bn254_g2_from_affine(r, a);
}
static void g2_add_affine(void *r, const void *p, const void *a)
{
    pl__bn254_g2_add_affine(r, p, a, A());
}
static void g2_neg(void *r, const void *p) { pl__bn254_g2_neg(r, p, A()); }
static void g2_mul(void *r, const void *p, const uint64_t k[4])
{
    pl__bn254_g2_mul(r, p, k, A());
}
static void g2_batch(void *o, const void *i, size_t n)
{
    pl__bn254_g2_batch_to_affine(o, i, n, A());
}
static bool g2_eq(const void *p, const void *q)
{
    return pl__bn254_g2_eq(p, q, A());
}

static const grp G1 = {PL__MSM_BN254_G1,
                       sizeof(pl__bn254_g1_affine),
                       sizeof(pl__bn254_g1),
                       &pl__bn254_g1_generator,
                       g1_from_affine,
                       g1_add_affine,
                       g1_neg,
                       g1_mul,
                       g1_batch,
                       g1_eq};
static const grp G2 = {PL__MSM_BN254_G2,
                       sizeof(pl__bn254_g2_affine),
                       sizeof(pl__bn254_g2),
                       &pl__bn254_g2_generator,
                       g2_from_affine,
                       g2_add_affine,
                       g2_neg,
                       g2_mul,
                       g2_batch,
                       g2_eq};

/* ---- scalars ---------------------------------------------------------------
 */

/* lambda = 36u^3 + 18u^2 + 6u + 1, GLV's eigenvalue, little-endian */
static const uint64_t lambda[4] = {0x8b17ea66b99c90dd, 0x5bfc41088d8daaa7,
                                   0xb3c4d79d41a91758, 0x0};

static void limbs_to_le(uint8_t le[32], const uint64_t l[4])
{
    for (int i = 0; i < 32; i++)
        le[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

static void le_to_limbs(uint64_t l[4], const uint8_t le[32])
{
    memset(l, 0, 32);
    for (int i = 0; i < 32; i++)
        l[i / 8] |= (uint64_t)le[i] << (8 * (i % 8));
}

/* 256-bit bytes mod r, into Fr (the test's own reduction) */
static void fr_of_bytes(pl__bn254_fr *out, const uint8_t b[32])
{
    uint64_t l[4];
    le_to_limbs(l, b);
    for (;;) {
        bool ge = true;
        for (int i = 3; i >= 0; i--)
            if (l[i] != PL__BN254_R[i]) {
                ge = l[i] > PL__BN254_R[i];
                break;
            }
        if (!ge)
            break;
        uint64_t borrow = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 d =
                (unsigned __int128)l[i] - PL__BN254_R[i] - borrow;
            l[i] = (uint64_t)d;
            borrow = (uint64_t)(d >> 127);
        }
    }
    uint8_t le[32];
    limbs_to_le(le, l);
    CHECK(pl__bn254_fr_from_le(out, le));
}

static void fr_to_limbs(uint64_t l[4], const pl__bn254_fr *a)
{
    uint8_t le[32];
    pl__bn254_fr_to_le(le, a);
    le_to_limbs(l, le);
}

typedef enum {
    SK_RANDOM,  /* below 2^256: most >= r */
    SK_EDGES,   /* every 3rd 0, 1, r - 1, (r-1)/2, (r+1)/2, lambda, -lambda,
                 * r, 2^256 - 1 in turn; the rest random below r */
    SK_WITNESS, /* 60% zeros, 30% ones, 10% random */
    SK_EQUAL,   /* one random scalar n times */
} scalar_kind;

static uint8_t *make_scalars(uint64_t *rng, size_t n, scalar_kind kind)
{
    uint8_t *s = malloc(n * 32 + 1);
    CHECK(s != NULL);
    uint8_t same[32];
    pl_test_random_bytes(rng, same, 32);
    for (size_t i = 0; i < n; i++) {
        uint8_t *b = s + 32 * i;
        pl_test_random_bytes(rng, b, 32);
        uint64_t l[4] = {0};
        if (kind == SK_EQUAL) {
            memcpy(b, same, 32);
        } else if (kind == SK_WITNESS) {
            unsigned roll = b[0] % 10;
            if (roll < 6) {
                memset(b, 0, 32);
            } else if (roll < 9) {
                memset(b, 0, 32);
                b[0] = 1;
            }
        } else if (kind == SK_EDGES && i % 3 == 0) {
            switch ((i / 3) % 9) {
            case 0:
                break;
            case 1:
                l[0] = 1;
                break;
            case 2:
                memcpy(l, PL__BN254_R, 32);
                l[0] -= 1;
                break;
            case 3:
            case 4:
                memcpy(l, PL__BN254_R, 32);
                l[0] -= 1;
                for (int j = 0; j < 4; j++) /* (r - 1) / 2 */
                    l[j] = (l[j] >> 1) | (j < 3 ? l[j + 1] << 63 : 0);
                l[0] += (i / 3) % 9 == 4;
                break;
            case 5:
                memcpy(l, lambda, 32);
                break;
            case 6: { /* r - lambda */
                uint64_t borrow = 0;
                for (int j = 0; j < 4; j++) {
                    unsigned __int128 d =
                        (unsigned __int128)PL__BN254_R[j] - lambda[j] - borrow;
                    l[j] = (uint64_t)d;
                    borrow = (uint64_t)(d >> 127);
                }
                break;
            }
            case 7:
                memcpy(l, PL__BN254_R, 32);
                break;
            case 8:
                memset(l, 0xff, 32);
                break;
            }
            limbs_to_le(b, l);
        } else if (kind == SK_EDGES) {
            b[31] &= 0x1f; /* < 2^253 < r */
        }
    }
    return s;
}

/* ---- points ----------------------------------------------------------------
 */

typedef enum {
    PT_RANDOM,   /* a random walk; every 7th at infinity */
    PT_EQUAL,    /* one point n times */
    PT_PLUSMINUS /* P, -P, P, -P, ... */
} point_mix;

/* n points of the group as zkey bytes, and k[i] with P_i = [k_i] G
 * (0 for infinity) */
static uint8_t *make_points(const grp *g, uint64_t *rng, size_t n,
                            point_mix mix, pl__bn254_fr *k)
{
    enum { STEPS = 8 };
    /* flat arrays of either group's points: g's sizes apart */
    uint8_t jac[STEPS * sizeof(pl__bn254_g2)];
    uint8_t step_aff[STEPS * sizeof(pl__bn254_g2_affine)];
    pl__bn254_fr step_k[STEPS], cur;
    uint8_t gen[sizeof(pl__bn254_g2)], p[sizeof(pl__bn254_g2)];
    g->from_affine(gen, g->gen);
    for (int j = 0; j < STEPS; j++) {
        uint8_t b[32];
        pl_test_random_bytes(rng, b, 32);
        fr_of_bytes(&step_k[j], b);
        uint64_t l[4];
        fr_to_limbs(l, &step_k[j]);
        g->mul(jac + j * g->jac_bytes, gen, l);
    }
    g->batch_to_affine(step_aff, jac, STEPS);
    cur = step_k[0];
    memcpy(p, jac, g->jac_bytes);
    uint8_t *all = malloc(n * g->jac_bytes + 1);
    uint8_t *out = malloc(n * g->point_bytes + 1);
    CHECK(all != NULL && out != NULL);
    for (size_t i = 0; i < n; i++) {
        memcpy(all + i * g->jac_bytes, p, g->jac_bytes);
        k[i] = cur;
        if (mix == PT_PLUSMINUS && i % 2) {
            g->neg(all + i * g->jac_bytes, p);
            pl__bn254_fr_neg(&k[i], &cur, A());
        }
        if (mix == PT_RANDOM) {
            uint8_t j;
            pl_test_random_bytes(rng, &j, 1);
            j %= STEPS;
            g->add_affine(p, p, step_aff + j * g->point_bytes);
            pl__bn254_fr_add(&cur, &cur, &step_k[j], A());
        }
    }
    g->batch_to_affine(out, all, n);
    if (mix == PT_RANDOM)
        for (size_t i = 2; i < n; i += 7) {
            memset(out + i * g->point_bytes, 0, g->point_bytes);
            memset(&k[i], 0, sizeof(k[i]));
        }
    free(all);
    return out;
}

/* [sum s_i k_i] G */
static void expected(const grp *g, void *out, const pl__bn254_fr *k,
                     const uint8_t *scalars, size_t n)
{
    pl__bn254_fr acc, s;
    memset(&acc, 0, sizeof(acc));
    for (size_t i = 0; i < n; i++) {
        fr_of_bytes(&s, scalars + 32 * i);
        pl__bn254_fr_mul(&s, &s, &k[i], A());
        pl__bn254_fr_add(&acc, &acc, &s, A());
    }
    uint64_t l[4];
    fr_to_limbs(l, &acc);
    uint8_t gen[sizeof(pl__bn254_g2)];
    g->from_affine(gen, g->gen);
    g->mul(out, gen, l);
}

static pl__pool *pool_of(unsigned threads)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, threads, "pl-test", &err), &err);
    return pool;
}

/*
 * One input against the expected sum: plain and witness, in every GLV mode
 * (all_modes) or the default one, each implementation, on `pool`; the
 * plain sum's scratch equal to the reported size, the witness sum's within
 * its bound.
 */
static void check_case(const grp *g, pl__pool *pool, const uint8_t *points,
                       const pl__bn254_fr *k, const uint8_t *scalars, size_t n,
                       bool all_modes, const char *what)
{
    pl_error err = {0};
    uint8_t want[sizeof(pl__bn254_g2)], got[sizeof(pl__bn254_g2)];
    expected(g, want, k, scalars, n);
    unsigned threads = pl__pool_size(pool);
    uint8_t *table = malloc(n * g->point_bytes + 1);
    CHECK(table != NULL);
    pl__msm_sum_endo_table(g->id, table, points, n, pool);
    pl__bn254_arith vs[2];
    size_t nv = bn254_arith_list(vs);
    for (size_t vi = 0; vi < nv; vi++) {
        pl__bn254_set_arith(vs[vi]);
        int dflt = (int)pl__msm_default_opts(g->id).glv;
        for (int mode = PL__GLV_OFF; mode <= PL__GLV_TABLE; mode++) {
            if (!all_modes && mode != dflt)
                continue;
            pl__msm_opts o = {(pl__glv_mode)mode,
                              mode == PL__GLV_TABLE ? table : NULL};
            for (int wit = 0; wit < 2; wit++) {
                pl_alloc_stats st;
                pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                if (wit)
                    CHECK_OK(pl__msm_sum_witness(g->id, got, points, scalars, n,
                                                 &o, pool, &err),
                             &err);
                else
                    CHECK_OK(pl__msm_sum(g->id, got, points, scalars, n, &o,
                                         pool, &err),
                             &err);
                pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                CHECK_EQ(st.live_bytes, 0);
                if (wit)
                    CHECK(st.high_water_bytes <=
                          pl__msm_sum_witness_scratch_bytes(g->id, n, threads,
                                                            &o));
                else
                    CHECK_EQ(st.high_water_bytes,
                             pl__msm_sum_scratch_bytes(g->id, n, threads, &o));
                if (!g->eq(got, want))
                    pl_test_fail(__FILE__, __LINE__,
                                 "%s: G%d, n = %zu, %s, GLV mode %d, %s, %u "
                                 "workers: not the expected sum",
                                 what, g->id == PL__MSM_BN254_G1 ? 1 : 2, n,
                                 pl__bn254_arith_name(vs[vi]), mode,
                                 wit ? "witness" : "plain", threads);
            }
        }
        /* the default options, through the of_witness form */
        CHECK_OK(pl__msm_sum_of_witness(g->id, got, points, scalars, n, false,
                                        pool, &err),
                 &err);
        CHECK(g->eq(got, want));
    }
    pl__bn254_set_arith(pl__bn254_arith_best());
    free(table);
}

/* Sizes from ns: below `full`, every GLV mode on 1 worker and the
 * default on 4; from there the default mode on 2 workers only. */
static void sizes_case(const grp *g, const size_t *ns, size_t count,
                       scalar_kind sk, size_t full)
{
    pl__pool *pool1 = pool_of(1), *pool2 = pool_of(2), *pool4 = pool_of(4);
    uint64_t rng = 41 + (uint64_t)sk;
    for (size_t i = 0; i < count; i++) {
        size_t n = ns[i];
        pl__bn254_fr *k = malloc((n + 1) * sizeof(*k));
        CHECK(k != NULL);
        uint8_t *points = make_points(g, &rng, n, PT_RANDOM, k);
        uint8_t *scalars = make_scalars(&rng, n, sk);
        if (n < full) {
            check_case(g, pool1, points, k, scalars, n, true, "1 worker");
            check_case(g, pool4, points, k, scalars, n, false, "4 workers");
        } else {
            check_case(g, pool2, points, k, scalars, n, false, "2 workers");
        }
        free(points);
        free(scalars);
        free(k);
    }
    pl__pool_destroy(pool1);
    pl__pool_destroy(pool2);
    pl__pool_destroy(pool4);
}

static const size_t small_sizes[] = {0,  1,  2,  3,  7,  8,   9,   15,
                                     16, 17, 31, 32, 33, 100, 257, 1000};

PL_TEST(g1_sizes_edges)
{
    sizes_case(&G1, small_sizes, sizeof(small_sizes) / sizeof(small_sizes[0]),
               SK_EDGES, 1001);
}

PL_TEST(g1_sizes_wide_and_witness)
{
    sizes_case(&G1, small_sizes, sizeof(small_sizes) / sizeof(small_sizes[0]),
               SK_RANDOM, 300);
    sizes_case(&G1, small_sizes, sizeof(small_sizes) / sizeof(small_sizes[0]),
               SK_WITNESS, 300);
}

PL_TEST(g1_large)
{
    static const size_t ns[] = {4097, (1u << 14) + 3};
    sizes_case(&G1, ns, 2, SK_EDGES, 4098);
    sizes_case(&G1, ns + 1, 1, SK_WITNESS, 0);
}

PL_TEST(g2_sizes)
{
    static const size_t ns[] = {0, 1, 2, 3, 9, 15, 16, 17, 100, 1000, 4097};
    sizes_case(&G2, ns, sizeof(ns) / sizeof(ns[0]), SK_EDGES, 200);
    sizes_case(&G2, ns, sizeof(ns) / sizeof(ns[0]), SK_WITNESS, 20);
}

/* Inputs that pile onto a few buckets: equal points, P and -P, one
 * scalar for all. */
PL_TEST(structured_inputs)
{
    pl__pool *pool = pool_of(2);
    uint64_t rng = 77;
    const grp *gs[2] = {&G1, &G2};
    for (int gi = 0; gi < 2; gi++) {
        const grp *g = gs[gi];
        static const point_mix mixes[] = {PT_EQUAL, PT_PLUSMINUS};
        static const scalar_kind kinds[] = {SK_RANDOM, SK_EQUAL, SK_WITNESS};
        for (int m = 0; m < 2; m++)
            for (int s = 0; s < 3; s++) {
                size_t n = gi == 0 ? 2000 : 600;
                pl__bn254_fr *k = malloc(n * sizeof(*k));
                CHECK(k != NULL);
                uint8_t *points = make_points(g, &rng, n, mixes[m], k);
                uint8_t *scalars = make_scalars(&rng, n, kinds[s]);
                check_case(g, pool, points, k, scalars, n, s == 0,
                           "structured");
                free(points);
                free(scalars);
                free(k);
            }
    }
    pl__pool_destroy(pool);
}

/* phi(x, y) = (beta x, y) is [lambda] on both groups: the table of
 * pl__msm_sum_endo_table against scalar multiplication. */
PL_TEST(endomorphism_is_lambda)
{
    pl__pool *pool = pool_of(2);
    uint64_t rng = 5;
    const grp *gs[2] = {&G1, &G2};
    for (int gi = 0; gi < 2; gi++) {
        const grp *g = gs[gi];
        const size_t n = 20;
        pl__bn254_fr *k = malloc(n * sizeof(*k));
        CHECK(k != NULL);
        uint8_t *points = make_points(g, &rng, n, PT_RANDOM, k);
        uint8_t *table = malloc(n * g->point_bytes);
        CHECK(table != NULL);
        pl__msm_sum_endo_table(g->id, table, points, n, pool);
        for (size_t i = 0; i < n; i++) {
            uint8_t p[sizeof(pl__bn254_g2)], lp[sizeof(pl__bn254_g2)],
                phi[sizeof(pl__bn254_g2)];
            g->from_affine(p, points + i * g->point_bytes);
            g->mul(lp, p, lambda);
            g->from_affine(phi, table + i * g->point_bytes);
            CHECK(g->eq(phi, lp));
            /* the point at infinity stays all zero */
            if (k[i].l[0] == 0 && k[i].l[1] == 0 && k[i].l[2] == 0 &&
                k[i].l[3] == 0) {
                uint8_t zero[sizeof(pl__bn254_g2_affine)] = {0};
                CHECK_MEM(table + i * g->point_bytes, zero, g->point_bytes);
            }
        }
        free(table);
        free(points);
        free(k);
    }
    pl__pool_destroy(pool);
}

PL_TEST(scratch_and_limits)
{
    pl_error err = {0};
    /* the point-by-point path allocates nothing */
    CHECK_EQ(pl__msm_sum_scratch_bytes(PL__MSM_BN254_G1, 0, 4, NULL), 0);
    CHECK_EQ(pl__msm_sum_scratch_bytes(PL__MSM_BN254_G1, 8, 4, NULL), 0);
    CHECK(pl__msm_sum_scratch_bytes(PL__MSM_BN254_G1, 1000, 1, NULL) > 0);
    CHECK(pl__msm_sum_scratch_bytes(PL__MSM_BN254_G1, 1u << 16, 2, NULL) >
          pl__msm_sum_scratch_bytes(PL__MSM_BN254_G1, 1u << 16, 1, NULL));
    /* G1's points take 64 bytes, G2's 128: smaller buckets than
     * BLS12-381's 96 and 192 */
    CHECK_EQ(pl__msm_point_bytes(PL__MSM_BN254_G1), 64);
    CHECK_EQ(pl__msm_point_bytes(PL__MSM_BN254_G2), 128);
    CHECK_EQ(pl__msm_sum_bytes(PL__MSM_BN254_G1), sizeof(pl__bn254_g1));
    pl__msm_opts off = {PL__GLV_OFF, NULL};
    CHECK(pl__msm_sum_scratch_bytes(PL__MSM_BN254_G1, 1u << 16, 1, &off) <
          pl__msm_g1_opts_scratch_bytes(1u << 16, 1, &off));
    CHECK(pl__msm_sum_window(PL__MSM_BN254_G1, 1u << 16, 1, NULL) >= 8);
    /* 2^31 points: refused before any byte is read */
    pl__bn254_g1 out;
    static const uint8_t dummy[64];
    CHECK_STATUS(pl__msm_sum(PL__MSM_BN254_G1, &out, dummy, dummy,
                             (size_t)1 << 31, NULL, NULL, &err),
                 PL_EUNSUPPORTED, &err);
    CHECK(strstr(err.msg, "2^31") != NULL);
}

PL_TEST(allocation_failure_leaks_nothing)
{
    pl_error err = {0};
    pl__pool *pool = pool_of(2);
    uint64_t rng = 31;
    const size_t n = 300;
    pl__bn254_fr *k = malloc(n * sizeof(*k));
    CHECK(k != NULL);
    uint8_t *p1 = make_points(&G1, &rng, n, PT_RANDOM, k);
    uint8_t *p2 = make_points(&G2, &rng, n, PT_RANDOM, k);
    uint8_t *scalars = make_scalars(&rng, n, SK_WITNESS);
    pl__bn254_g1 o1;
    pl__bn254_g2 o2;
    pl__alloc_fail_at(1);
    CHECK_STATUS(
        pl__msm_sum(PL__MSM_BN254_G1, &o1, p1, scalars, n, NULL, pool, &err),
        PL_ENOMEM, &err);
    pl__alloc_fail_at(1);
    CHECK_STATUS(pl__msm_sum_witness(PL__MSM_BN254_G2, &o2, p2, scalars, n,
                                     NULL, pool, &err),
                 PL_ENOMEM, &err);
    pl__alloc_fail_at(0);
    free(p1);
    free(p2);
    free(scalars);
    free(k);
    pl__pool_destroy(pool);
}
