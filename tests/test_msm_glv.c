/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GLV for the G1 and G2 MSMs (msm.h, msm_affine.c).  The constants
 * against blst: lambda = -z^2 mod r is a cube root of unity in Fr, z^2
 * satisfies r = z^4 - z^2 + 1, and the endomorphism's table
 * (pl__msm_g1_endo_table, the same beta the tiles use) gives
 * phi(P) = [lambda] P for the generator
 * and random points, with infinity kept.  Then every GLV mode (off, on
 * load, per call, the caller's table), on one worker and on four, plain
 * and witness-aware, against the naive sum of blst_p1_mult at n = 1, 2, 3,
 * 17, 2^10 + 3 and 2^14, with edge scalars: 0, 1, r - 1, lambda, -lambda,
 * z^2 (k_lo = 0), multiples of z^2, scalars below z^2 / 2 (k_hi = 0) and
 * just above it (k_lo negative after balancing), (r - 1) / 2 and
 * (r + 1) / 2 (the fold's edge), all 256 bits set (bit 255 dropped,
 * reduced mod r); points at infinity, repeated points and their
 * negatives.  Every call's scratch is what the plan says (plain: exactly;
 * witness: within the bound).  G2 the same: phi(Q) = [lambda] Q, and
 * every mode against the naive sum at n = 1, 2, 3, 17, 130, 1027 and
 * 4099 with the same scalars.  And whole proofs with r = s = 0 (the
 * prover's test hook) are the same bytes whichever mode is the default,
 * on 1 and 4 workers, plain and witness MSMs, with msm_scratch within
 * the prover's plan.
 */
#include "harness.h"
#include "field/field.h"
#include "groth16/zkey_prover.h"
#include "msm/msm.h"
#include "util/alloc.h"

/* z^2, little-endian: z = -0xd201000000010000, the curve's parameter */
static const uint8_t z2_le[32] = {
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0xa4, 0x01,
    0x00, 0x01, 0xa4, 0x45, 0xac};
/* lambda = r - z^2, little-endian */
static const uint8_t lambda_le[32] = {
    0x01, 0x00, 0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xfc, 0xb7, 0xfc,
    0xff, 0x01, 0x00, 0x78, 0xa7, 0x04, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
    0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

static void fr_of_u64(blst_fr *out, uint64_t v)
{
    const uint64_t l[4] = {v, 0, 0, 0};
    blst_fr_from_uint64(out, l);
}

PL_TEST(constants_against_blst)
{
    blst_fr x, lam, t, one, zero;
    pl__fr_from_le(&x, z2_le);
    pl__fr_from_le(&lam, lambda_le);
    fr_of_u64(&one, 1);
    fr_of_u64(&zero, 0);
    /* x^2 - x + 1 = 0 mod r, i.e. r = z^4 - z^2 + 1 (z^2 < r) */
    blst_fr_sqr(&t, &x);
    blst_fr_sub(&t, &t, &x);
    blst_fr_add(&t, &t, &one);
    CHECK_MEM(&t, &zero, sizeof(t));
    /* lambda = -x, and lambda^2 + lambda + 1 = 0 */
    blst_fr_add(&t, &lam, &x);
    CHECK_MEM(&t, &zero, sizeof(t));
    blst_fr_sqr(&t, &lam);
    blst_fr_add(&t, &t, &lam);
    blst_fr_add(&t, &t, &one);
    CHECK_MEM(&t, &zero, sizeof(t));
}

PL_TEST(endomorphism_is_lambda)
{
    uint64_t rng = 71;
    enum { N = 9 };
    blst_p1_affine pts[N], phi[N];
    blst_p1_to_affine(&pts[0], blst_p1_generator());
    for (size_t i = 1; i < N - 1; i++) {
        uint8_t k[32];
        pl_test_random_bytes(&rng, k, 32);
        blst_p1 p;
        blst_p1_mult(&p, blst_p1_generator(), k, 255);
        blst_p1_to_affine(&pts[i], &p);
    }
    memset(&pts[N - 1], 0, sizeof(pts[N - 1])); /* infinity */
    pl__pool *pool = NULL;
    pl__msm_g1_endo_table((uint8_t *)phi, (const uint8_t *)pts, N, pool);
    for (size_t i = 0; i < N - 1; i++) {
        blst_p1 p, want;
        blst_p1_from_affine(&p, &pts[i]);
        blst_p1_mult(&want, &p, lambda_le, 255);
        blst_p1_affine wa;
        blst_p1_to_affine(&wa, &want);
        CHECK_MEM(&phi[i], &wa, sizeof(wa));
        CHECK(blst_p1_affine_on_curve(&phi[i]));
        CHECK(blst_p1_affine_in_g1(&phi[i]));
    }
    blst_p1_affine inf;
    memset(&inf, 0, sizeof(inf));
    CHECK_MEM(&phi[N - 1], &inf, sizeof(inf));
}

/* ---- the MSM in every mode ----------------------------------------------- */

#define EDGES 16

/* Edge scalar e (0 <= e < EDGES) as 32 little-endian bytes. */
static void edge_scalar(uint8_t out[32], unsigned e, uint64_t *rng)
{
    blst_fr x, t, u;
    pl__fr_from_le(&x, z2_le);
    memset(out, 0, 32);
    switch (e) {
    case 0: /* 0 */
        return;
    case 1: /* 1 */
        out[0] = 1;
        return;
    case 2: /* r - 1 */
        fr_of_u64(&t, 1);
        blst_fr_cneg(&t, &t, true);
        break;
    case 3: /* lambda */
        memcpy(out, lambda_le, 32);
        return;
    case 4: /* -lambda = z^2: k_lo = 0, k_hi = 1 */
        memcpy(out, z2_le, 32);
        return;
    case 5: /* 12345 z^2: k_lo = 0 */
        fr_of_u64(&u, 12345);
        blst_fr_mul(&t, &x, &u);
        break;
    case 6: /* below z^2 / 2: k_hi = 0 */
        pl_test_random_bytes(rng, out, 15);
        return;
    case 7: /* 3 z^2 + z^2 / 2 + 5: k_lo = z^2 / 2 + 5, balanced to
             * -(z^2 / 2 - 5) with k_hi = 4 */
        fr_of_u64(&u, 2);
        blst_fr_inverse(&u, &u);
        blst_fr_mul(&u, &x, &u); /* z^2 / 2 (z^2 is even) */
        fr_of_u64(&t, 3);
        blst_fr_mul(&t, &t, &x);
        blst_fr_add(&t, &t, &u);
        fr_of_u64(&u, 5);
        blst_fr_add(&t, &t, &u);
        break;
    case 8: /* (r - 1) / 2: the largest scalar the fold keeps */
        fr_of_u64(&u, 2);
        blst_fr_inverse(&u, &u);
        fr_of_u64(&t, 1);
        blst_fr_cneg(&t, &t, true);
        blst_fr_mul(&t, &t, &u); /* -1 / 2 = (r - 1) / 2 */
        break;
    case 9: /* (r + 1) / 2: the smallest one folded to its negative */
        fr_of_u64(&u, 2);
        blst_fr_inverse(&t, &u);
        break;
    case 10: /* all 256 bits set */
        memset(out, 0xff, 32);
        return;
    case 11: /* z^2 - 1: the largest k_lo before balancing */
        fr_of_u64(&u, 1);
        blst_fr_sub(&t, &x, &u);
        break;
    case 12: /* -(7 lambda): folded, k_hi > 0 */
        fr_of_u64(&u, 7);
        pl__fr_from_le(&t, lambda_le);
        blst_fr_mul(&t, &t, &u);
        blst_fr_cneg(&t, &t, true);
        break;
    default: /* random below 2^255 (values >= r too) */
        pl_test_random_bytes(rng, out, 32);
        out[31] &= 0x7f;
        return;
    }
    pl__fr_to_le(out, &t);
}

/* n points: random multiples of the generator; every 11th at infinity,
 * every 5th a repeat of the point before it, every 13th its negative. */
static uint8_t *glv_points(uint64_t *rng, size_t n)
{
    blst_p1_affine *a = malloc(n * sizeof(*a) + 1);
    CHECK(a != NULL);
    uint8_t k[32];
    pl_test_random_bytes(rng, k, 32);
    blst_p1 p;
    blst_p1_mult(&p, blst_p1_generator(), k, 255);
    for (size_t i = 0; i < n; i++) {
        blst_p1_to_affine(&a[i], &p);
        if (i > 0 && i % 5 == 0)
            a[i] = a[i - 1];
        if (i > 0 && i % 13 == 0) {
            blst_p1 q;
            blst_p1_from_affine(&q, &a[i - 1]);
            blst_p1_cneg(&q, true);
            blst_p1_to_affine(&a[i], &q);
        }
        if (i % 11 == 10)
            memset(&a[i], 0, sizeof(a[i]));
        blst_p1_add_or_double_affine(&p, &p, blst_p1_affine_generator());
    }
    return (uint8_t *)a;
}

/* Scalars: the edges in turn (so every n >= EDGES has each), then random;
 * `ones` makes a third of the random ones 0 or 1 (the witness MSM's
 * classes). */
static uint8_t *glv_scalars(uint64_t *rng, size_t n, bool ones)
{
    uint8_t *s = calloc(n + 1, 32);
    CHECK(s != NULL);
    for (size_t i = 0; i < n; i++) {
        unsigned e = (unsigned)(i < 4 * EDGES ? i % EDGES : EDGES);
        edge_scalar(s + 32 * i, e, rng);
        if (ones && e == EDGES && i % 3 == 0) {
            memset(s + 32 * i, 0, 32);
            s[32 * i] = (uint8_t)(i % 2);
        }
    }
    return s;
}

static void naive(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                  size_t n)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        blst_p1_affine a;
        blst_p1 p, sp;
        memcpy(&a, points + 96 * i, sizeof(a));
        blst_p1_from_affine(&p, &a);
        blst_p1_mult(&sp, &p, scalars + 32 * i, 255);
        blst_p1_add_or_double(out, out, &sp);
    }
}

static void check_equal(const blst_p1 *got, const blst_p1 *want,
                        const char *what, size_t n, int mode, int witness)
{
    if (!blst_p1_is_equal(got, want)) {
        fprintf(stderr, "mismatch: %s n=%zu mode=%d witness=%d\n", what, n,
                mode, witness);
        CHECK(blst_p1_is_equal(got, want));
    }
}

/* Every mode, one worker and four, plain and witness, against `want`. */
static void all_modes(const uint8_t *points, const uint8_t *scalars, size_t n,
                      const blst_p1 *want, pl__pool *pool4, const char *what)
{
    static const pl__glv_mode modes[4] = {PL__GLV_OFF, PL__GLV_LOAD,
                                          PL__GLV_CALL, PL__GLV_TABLE};
    pl_error err = {0};
    uint8_t *table = pl__alloc(PL_BUF_PARAMS, (uint64_t)n * 96 + 1, &err);
    CHECK(table != NULL);
    pl__msm_g1_endo_table(table, points, n, pool4);
    for (int m = 0; m < 4; m++) {
        pl__msm_opts o = {modes[m], modes[m] == PL__GLV_TABLE ? table : NULL};
        for (int k = 0; k < 2; k++) {
            pl__pool *pool = k ? pool4 : NULL;
            unsigned threads = pl__pool_size(pool);
            pl_alloc_stats st;
            blst_p1 got;
            pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
            CHECK_OK(pl__msm_g1_opts(&got, points, scalars, n, &o, pool, &err),
                     &err);
            pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
            CHECK_EQ(st.high_water_bytes,
                     pl__msm_g1_opts_scratch_bytes(n, threads, &o));
            check_equal(&got, want, what, n, m, 0);
            CHECK_OK(pl__msm_g1_witness_opts(&got, points, scalars, n, &o, pool,
                                             &err),
                     &err);
            pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
            CHECK(st.high_water_bytes <=
                  pl__msm_g1_witness_opts_scratch_bytes(n, threads, &o));
            CHECK_EQ(st.live_bytes, 0);
            check_equal(&got, want, what, n, m, 1);
        }
    }
    pl__free(table);
}

static void sizes_case(bool ones, uint64_t seed)
{
    pl_error err = {0};
    pl__pool *pool4;
    CHECK_OK(pl__pool_create(&pool4, 4, "pl-test", &err), &err);
    uint64_t rng = seed;
    const size_t sizes[] = {1, 2, 3, 17, 1027, 16384};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        uint8_t *points = glv_points(&rng, n);
        uint8_t *scalars = glv_scalars(&rng, n, ones);
        blst_p1 want;
        naive(&want, points, scalars, n);
        all_modes(points, scalars, n, &want, pool4, ones ? "mixed" : "edges");
        free(points);
        free(scalars);
    }
    pl__pool_destroy(pool4);
}

PL_TEST(every_mode_vs_naive_edges)
{
    sizes_case(false, 72);
}

PL_TEST(every_mode_vs_naive_zeros_and_ones)
{
    sizes_case(true, 73);
}

/* One edge scalar on every point (all halves alike: the buckets of one
 * digit collide in every window), on 1500 points. */
PL_TEST(every_mode_one_edge_everywhere)
{
    pl_error err = {0};
    pl__pool *pool4;
    CHECK_OK(pl__pool_create(&pool4, 4, "pl-test", &err), &err);
    uint64_t rng = 74;
    const size_t n = 1500;
    uint8_t *points = glv_points(&rng, n);
    uint8_t *scalars = calloc(n, 32);
    CHECK(scalars != NULL);
    for (unsigned e = 0; e < EDGES; e++) {
        uint8_t s[32];
        edge_scalar(s, e, &rng);
        for (size_t i = 0; i < n; i++)
            memcpy(scalars + 32 * i, s, 32);
        blst_p1 want;
        /* sum s P_i = s (sum P_i) */
        blst_p1 sum;
        memset(&sum, 0, sizeof(sum));
        for (size_t i = 0; i < n; i++) {
            blst_p1_affine a;
            memcpy(&a, points + 96 * i, sizeof(a));
            blst_p1_add_or_double_affine(&sum, &sum, &a);
        }
        blst_p1_mult(&want, &sum, s, 255); /* bit 255 dropped, as the MSM */
        char what[32];
        snprintf(what, sizeof(what), "edge %u", e);
        all_modes(points, scalars, n, &want, pool4, what);
    }
    free(points);
    free(scalars);
    pl__pool_destroy(pool4);
}

PL_TEST(scratch_by_mode)
{
    const size_t n = (size_t)1 << 16;
    pl__msm_opts off = {PL__GLV_OFF, NULL}, load = {PL__GLV_LOAD, NULL},
                 call = {PL__GLV_CALL, NULL};
    /* the per-call table is 96 bytes a point on top of the same fold */
    CHECK(pl__msm_g1_opts_scratch_bytes(n, 2, &call) >=
          pl__msm_g1_opts_scratch_bytes(n, 2, &load) + (uint64_t)n * 96);
    CHECK(pl__msm_g1_opts_scratch_bytes(n, 2, &off) > 0);
    /* the default is one of the modes, and pl__msm_g1 plans it */
    pl__msm_opts d = pl__msm_g1_default_opts();
    CHECK_EQ(pl__msm_g1_scratch_bytes(n, 2),
             pl__msm_g1_opts_scratch_bytes(n, 2, &d));
    CHECK_EQ(pl__msm_g1_witness_scratch_bytes(n, 2),
             pl__msm_g1_witness_opts_scratch_bytes(n, 2, &d));
}

/* ---- G2 ------------------------------------------------------------------ */

PL_TEST(g2_endomorphism_is_lambda)
{
    uint64_t rng = 81;
    enum { N = 6 };
    blst_p2_affine pts[N], phi[N];
    blst_p2_to_affine(&pts[0], blst_p2_generator());
    for (size_t i = 1; i < N - 1; i++) {
        uint8_t k[32];
        pl_test_random_bytes(&rng, k, 32);
        blst_p2 p;
        blst_p2_mult(&p, blst_p2_generator(), k, 255);
        blst_p2_to_affine(&pts[i], &p);
    }
    memset(&pts[N - 1], 0, sizeof(pts[N - 1]));
    pl__msm_g2_endo_table((uint8_t *)phi, (const uint8_t *)pts, N, NULL);
    for (size_t i = 0; i < N - 1; i++) {
        blst_p2 p, want;
        blst_p2_from_affine(&p, &pts[i]);
        blst_p2_mult(&want, &p, lambda_le, 255);
        blst_p2_affine wa;
        blst_p2_to_affine(&wa, &want);
        CHECK_MEM(&phi[i], &wa, sizeof(wa));
        CHECK(blst_p2_affine_in_g2(&phi[i]));
    }
    blst_p2_affine inf;
    memset(&inf, 0, sizeof(inf));
    CHECK_MEM(&phi[N - 1], &inf, sizeof(inf));
}

/* The G2 points of glv_points' pattern: infinity, repeats, negatives. */
static uint8_t *glv_points_g2(uint64_t *rng, size_t n)
{
    blst_p2_affine *a = malloc(n * sizeof(*a) + 1);
    CHECK(a != NULL);
    uint8_t k[32];
    pl_test_random_bytes(rng, k, 32);
    blst_p2 p;
    blst_p2_mult(&p, blst_p2_generator(), k, 255);
    for (size_t i = 0; i < n; i++) {
        blst_p2_to_affine(&a[i], &p);
        if (i > 0 && i % 5 == 0)
            a[i] = a[i - 1];
        if (i > 0 && i % 13 == 0) {
            blst_p2 q;
            blst_p2_from_affine(&q, &a[i - 1]);
            blst_p2_cneg(&q, true);
            blst_p2_to_affine(&a[i], &q);
        }
        if (i % 11 == 10)
            memset(&a[i], 0, sizeof(a[i]));
        blst_p2_add_or_double_affine(&p, &p, blst_p2_affine_generator());
    }
    return (uint8_t *)a;
}

PL_TEST(g2_every_mode_vs_naive)
{
    static const pl__glv_mode modes[4] = {PL__GLV_OFF, PL__GLV_LOAD,
                                          PL__GLV_CALL, PL__GLV_TABLE};
    pl_error err = {0};
    pl__pool *pool4;
    CHECK_OK(pl__pool_create(&pool4, 4, "pl-test", &err), &err);
    uint64_t rng = 82;
    const size_t sizes[] = {1, 2, 3, 17, 130, 1027, 4099};
    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
        size_t n = sizes[z];
        uint8_t *points = glv_points_g2(&rng, n);
        uint8_t *scalars = glv_scalars(&rng, n, z % 2 == 1);
        blst_p2 want;
        memset(&want, 0, sizeof(want));
        for (size_t i = 0; i < n; i++) {
            blst_p2_affine a;
            blst_p2 p, sp;
            memcpy(&a, points + 192 * i, sizeof(a));
            blst_p2_from_affine(&p, &a);
            blst_p2_mult(&sp, &p, scalars + 32 * i, 255);
            blst_p2_add_or_double(&want, &want, &sp);
        }
        uint8_t *table = pl__alloc(PL_BUF_PARAMS, (uint64_t)n * 192, &err);
        CHECK(table != NULL);
        pl__msm_g2_endo_table(table, points, n, pool4);
        for (int m = 0; m < 4; m++) {
            pl__msm_opts o = {modes[m],
                              modes[m] == PL__GLV_TABLE ? table : NULL};
            for (int k = 0; k < 2; k++) {
                pl__pool *pool = k ? pool4 : NULL;
                unsigned threads = pl__pool_size(pool);
                pl_alloc_stats st;
                blst_p2 got;
                pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                CHECK_OK(pl__msm_g2_opts(&got, points, scalars, n, &o, pool,
                                         &err),
                         &err);
                pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                CHECK_EQ(st.high_water_bytes,
                         pl__msm_g2_opts_scratch_bytes(n, threads, &o));
                if (!blst_p2_is_equal(&got, &want))
                    pl_test_fail(__FILE__, __LINE__, "g2 n=%zu mode=%d", n, m);
                CHECK_OK(pl__msm_g2_witness_opts(&got, points, scalars, n, &o,
                                                 pool, &err),
                         &err);
                pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                CHECK(st.high_water_bytes <=
                      pl__msm_g2_witness_opts_scratch_bytes(n, threads, &o));
                if (!blst_p2_is_equal(&got, &want))
                    pl_test_fail(__FILE__, __LINE__, "g2 witness n=%zu mode=%d",
                                 n, m);
            }
        }
        pl__free(table);
        free(points);
        free(scalars);
    }
    pl__pool_destroy(pool4);
}

/* chain10's sums (1024 signals, domain 1024) take the batch-affine path,
 * so GLV runs in every G1 sum of its proof and in its G2 sum (the modes
 * set for both groups). */
PL_TEST(proofs_identical_in_every_mode)
{
    static const char *const names[] = {"chain10", "pow2plus1", "multiplier"};
    static const pl__glv_mode modes[3] = {PL__GLV_OFF, PL__GLV_LOAD,
                                          PL__GLV_CALL};
    pl__glv_mode was = pl__msm_g1_default_opts().glv;
    pl__glv_mode was2 = pl__msm_g2_default_opts().glv;
    for (size_t v = 0; v < sizeof(names) / sizeof(names[0]); v++) {
        pl_error err = {0};
        char path[512];
        pl_zkey *zkey;
        pl_wtns *wtns;
        snprintf(path, sizeof(path), "%s/circuit.zkey", names[v]);
        CHECK_OK(pl_zkey_open(&zkey, pl_test_vector(path), &err), &err);
        snprintf(path, sizeof(path), "%s/witness.wtns", names[v]);
        CHECK_OK(pl_wtns_open(&wtns, pl_test_vector(path), &err), &err);
        pl_proof first, proof;
        bool have = false;
        for (int m = 0; m < 3; m++)
            for (unsigned threads = 1; threads <= 4; threads += 3)
                for (int plain = 0; plain < 2; plain++) {
                    pl__msm_g1_set_default_glv(modes[m]);
                    pl__msm_g2_set_default_glv(modes[m]);
                    pl_prover_config cfg;
                    pl_prover_config_init(&cfg);
                    cfg.threads = threads;
                    cfg.plain_msm = plain;
                    pl_prover *prover;
                    CHECK_OK(pl_prover_create(&prover, zkey, &cfg, &err), &err);
                    pl__prover_set_zero_blinding(prover, true);
                    pl__prove_plan plan;
                    pl__prover_plan(zkey, &pl__backend_cpu, threads, &plan);
                    pl_alloc_stats st;
                    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                    CHECK_OK(pl_prove(prover, &proof, wtns, &err), &err);
                    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
                    CHECK(st.high_water_bytes <=
                          plan.bytes[PL_BUF_MSM_SCRATCH]);
                    pl_prover_destroy(prover);
                    if (!have) {
                        first = proof;
                        have = true;
                    } else if (memcmp(&first, &proof, sizeof(proof)) != 0) {
                        pl_test_fail(__FILE__, __LINE__,
                                     "%s: mode %d, %u threads, plain %d: "
                                     "another proof", names[v], (int)modes[m],
                                     threads, plain);
                    }
                }
        pl_wtns_close(wtns);
        pl_zkey_close(zkey);
    }
    pl__msm_g1_set_default_glv(was);
    pl__msm_g2_set_default_glv(was2);
}
