/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the CUDA backend's device arithmetic (src/backend/cuda/arith/),
 * compiled here as plain C for the host: the way that code is checked on
 * machines without a GPU.  Every result is compared with blst byte for byte
 * (the limbs share blst's Montgomery representation): the constants; the Fp
 * and Fr operations the kernels use (add, sub, neg, mul, sqr, the
 * conversion of Fr to canonical) on random values and on 0, 1 and p - 1,
 * the multiplication also in its PTX carry-chain form with the
 * instructions emulated; G1 XYZZ mixed addition, full addition and
 * doubling, including infinity, P + P and P + (-P), through the Jacobian
 * conversion; and a naive 16-point G1 MSM over XYZZ against blst_p1_mult.
 * BN254's fields and G1 (arith/bn254.h, g1.h's pl__cu_bn254_g1_*) the same
 * way against the CPU's BN254 arithmetic (field/bn254).
 * The nvcc compile of the same headers is the ctest cuda_arith.nvcc_smoke
 * (tests/cuda_arith_smoke.cu).
 */
#include "harness.h"
#include "blst.h"
#include "field/bn254/curve.h"
#include "field/field.h"
#include "backend/cuda/arith/bn254.h"
#include "backend/cuda/arith/fr.h"
#include "backend/cuda/arith/g1.h"

/* The limbs are compared with blst's 64-bit limbs as bytes. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "little-endian host");
_Static_assert(sizeof(pl__cu_fp) == sizeof(blst_fp), "fp layout");
_Static_assert(sizeof(pl__cu_fr) == sizeof(blst_fr), "fr layout");
_Static_assert(sizeof(pl__cu_g1_affine) == sizeof(blst_p1_affine), "g1 layout");
_Static_assert(sizeof(pl__cu_g1_jacobian) == sizeof(blst_p1), "p1 layout");

#define ROUNDS 2000

/* Fails with both values in hex (most significant byte first). */
static void check_bytes(int line, const char *what, const void *got,
                        const void *want, size_t n)
{
    if (memcmp(got, want, n) == 0)
        return;
    char g[2 * 192 + 1], w[2 * 192 + 1];
    const uint8_t *a = got, *b = want;
    for (size_t i = 0; i < n && i < 192; i++) {
        snprintf(g + 2 * i, 3, "%02x", a[n - 1 - i]);
        snprintf(w + 2 * i, 3, "%02x", b[n - 1 - i]);
    }
    pl_test_fail(__FILE__, line, "%s:\n  got  %s\n  want %s", what, g, w);
}
#define CHECK_BYTES(what, got, want, n) check_bytes(__LINE__, what, got, want, n)

/* ---- random and edge values --------------------------------------------- */

/* A uniform value < p: 381 random bits, rejected while >= p (about 1 in 5). */
static void rand_fp(uint64_t *rng, pl__cu_fp *r)
{
    const uint32_t p[PL_CU_FP_LIMBS] = PL_CU_FP_P;
    uint32_t d[PL_CU_FP_LIMBS];
    do {
        pl_test_random_bytes(rng, r->l, sizeof(r->l));
        r->l[PL_CU_FP_LIMBS - 1] &= 0x1fffffff;
    } while (!pl__cu_limbs_sub(d, r->l, p, PL_CU_FP_LIMBS));
}

static void rand_fr(uint64_t *rng, pl__cu_fr *r)
{
    const uint32_t m[PL_CU_FR_LIMBS] = PL_CU_FR_R;
    uint32_t d[PL_CU_FR_LIMBS];
    do {
        pl_test_random_bytes(rng, r->l, sizeof(r->l));
        r->l[PL_CU_FR_LIMBS - 1] &= 0x7fffffff;
    } while (!pl__cu_limbs_sub(d, r->l, m, PL_CU_FR_LIMBS));
}

/* Round i's operand: the first few are the edges 0, 1 (raw), R mod p (the
 * Montgomery 1) and p - 1, the rest random. */
static void pick_fp(uint64_t *rng, int i, pl__cu_fp *r)
{
    const uint32_t p[PL_CU_FP_LIMBS] = PL_CU_FP_P;
    pl__cu_fp_zero(r);
    switch (i) {
    case 0: break;
    case 1: r->l[0] = 1; break;
    case 2: pl__cu_fp_one(r); break;
    case 3:
        memcpy(r->l, p, sizeof(p));
        r->l[0] -= 1;
        break;
    default: rand_fp(rng, r);
    }
}

static void pick_fr(uint64_t *rng, int i, pl__cu_fr *r)
{
    const uint32_t m[PL_CU_FR_LIMBS] = PL_CU_FR_R;
    pl__cu_fr_zero(r);
    switch (i) {
    case 0: break;
    case 1: r->l[0] = 1; break;
    case 2: { /* the Montgomery 1 */
        const uint64_t unit[4] = {1};
        blst_fr_from_uint64((blst_fr *)r->l, unit);
        break;
    }
    case 3:
        memcpy(r->l, m, sizeof(m));
        r->l[0] -= 1; /* r = ...00000001 */
        break;
    default: rand_fr(rng, r);
    }
}

/* ---- constants ------------------------------------------------------------ */

PL_TEST(fp_constants_match_blst)
{
    const pl__cu_fp p = {PL_CU_FP_P}, one = {PL_CU_FP_ONE};
    CHECK_BYTES("p", p.l, pl__fp_modulus_le, 48);
    uint32_t unit[12] = {1};
    blst_fp b;
    blst_fp_from_uint32(&b, unit); /* 1 * R mod p */
    CHECK_BYTES("ONE", one.l, &b, 48);
    CHECK_EQ((uint32_t)(p.l[0] * PL_CU_FP_N0), 0xffffffffu); /* p n0 = -1 */
}

PL_TEST(fr_constants_match_blst)
{
    const pl__cu_fr m = {PL_CU_FR_R};
    CHECK_BYTES("r", m.l, pl__fr_modulus_le, 32);
    CHECK_EQ((uint32_t)(m.l[0] * PL_CU_FR_N0), 0xffffffffu);
}

/* ---- Fp, Fr, Fp2 ---------------------------------------------------------- */

PL_TEST(fp_ops_match_blst)
{
    uint64_t rng = 0x6670;
    for (int i = 0; i < ROUNDS; i++) {
        /* the first 28 rounds pair every edge with every edge and with
         * random values */
        int ai = i < 28 && i % 7 < 4 ? i % 7 : 99;
        pl__cu_fp a, b, r;
        pick_fp(&rng, ai, &a);
        pick_fp(&rng, i < 28 ? i / 7 : 99, &b);
        blst_fp ba, bb, br;
        memcpy(&ba, &a, 48);
        memcpy(&bb, &b, 48);

        pl__cu_fp_add(&r, &a, &b);
        blst_fp_add(&br, &ba, &bb);
        CHECK_BYTES("fp add", &r, &br, 48);
        pl__cu_fp_sub(&r, &a, &b);
        blst_fp_sub(&br, &ba, &bb);
        CHECK_BYTES("fp sub", &r, &br, 48);
        pl__cu_fp_mul(&r, &a, &b);
        blst_fp_mul(&br, &ba, &bb);
        CHECK_BYTES("fp mul", &r, &br, 48);
        {
            const uint32_t p[PL_CU_FP_LIMBS] = PL_CU_FP_P;
            pl__cu_mont_mul_chains(r.l, a.l, b.l, p, PL_CU_FP_N0,
                                   PL_CU_FP_LIMBS);
            CHECK_BYTES("fp mul (PTX carry chains, emulated)", &r, &br, 48);
        }
        pl__cu_fp_sqr(&r, &a);
        blst_fp_sqr(&br, &ba);
        CHECK_BYTES("fp sqr", &r, &br, 48);
        pl__cu_fp_neg(&r, &a);
        blst_fp_cneg(&br, &ba, true);
        CHECK_BYTES("fp neg", &r, &br, 48);
        r = a;
        pl__cu_fp_mul(&r, &r, &r); /* aliased output */
        blst_fp_sqr(&br, &ba);
        CHECK_BYTES("fp mul aliased", &r, &br, 48);

        CHECK_EQ(pl__cu_fp_is_zero(&a), ai == 0);
    }
}

PL_TEST(fr_ops_match_blst)
{
    uint64_t rng = 0x6672;
    for (int i = 0; i < ROUNDS; i++) {
        /* the first 28 rounds pair every edge with every edge and with
         * random values */
        int ai = i < 28 && i % 7 < 4 ? i % 7 : 99;
        pl__cu_fr a, b, r;
        pick_fr(&rng, ai, &a);
        pick_fr(&rng, i < 28 ? i / 7 : 99, &b);
        blst_fr ba, bb, br;
        memcpy(&ba, &a, 32);
        memcpy(&bb, &b, 32);

        pl__cu_fr_add(&r, &a, &b);
        blst_fr_add(&br, &ba, &bb);
        CHECK_BYTES("fr add", &r, &br, 32);
        pl__cu_fr_sub(&r, &a, &b);
        blst_fr_sub(&br, &ba, &bb);
        CHECK_BYTES("fr sub", &r, &br, 32);
        pl__cu_fr_mul(&r, &a, &b);
        blst_fr_mul(&br, &ba, &bb);
        CHECK_BYTES("fr mul", &r, &br, 32);
        {
            const uint32_t m[PL_CU_FR_LIMBS] = PL_CU_FR_R;
            pl__cu_mont_mul_chains(r.l, a.l, b.l, m, PL_CU_FR_N0,
                                   PL_CU_FR_LIMBS);
            CHECK_BYTES("fr mul (PTX carry chains, emulated)", &r, &br, 32);
        }
        uint64_t v[4];
        blst_uint64_from_fr(v, &ba);
        pl__cu_fr_to_canonical(&r, &a);
        CHECK_BYTES("fr to canonical", r.l, v, 32);
    }
}

/* ---- G1 ------------------------------------------------------------------- */

static void rand_scalar(uint64_t *rng, uint8_t out[32])
{
    pl__cu_fr s;
    rand_fr(rng, &s);
    memcpy(out, s.l, 32); /* canonical, little-endian: blst's scalar bytes */
}

static void rand_g1(uint64_t *rng, pl__cu_g1_affine *out)
{
    uint8_t k[32];
    rand_scalar(rng, k);
    blst_p1 p;
    blst_p1_mult(&p, blst_p1_generator(), k, 255);
    blst_p1_to_affine((blst_p1_affine *)out, &p);
}

/* ours (XYZZ) as affine, through our Jacobian conversion (blst's layout)
 * and blst's normalisation: how the host reads the kernels' sums. */
static void g1_affine_of(pl__cu_g1_affine *out, const pl__cu_g1_xyzz *ours)
{
    pl__cu_g1_jacobian oj;
    pl__cu_g1_xyzz_to_jacobian(&oj, ours);
    CHECK(blst_p1_on_curve((const blst_p1 *)&oj));
    blst_p1_to_affine((blst_p1_affine *)out, (const blst_p1 *)&oj);
}

/* ours (XYZZ) == want (blst Jacobian), compared as affine points. */
static void check_g1(int line, const char *what, const pl__cu_g1_xyzz *ours,
                     const blst_p1 *want)
{
    blst_p1_affine wa;
    pl__cu_g1_affine oa;
    blst_p1_to_affine(&wa, want);
    g1_affine_of(&oa, ours);
    check_bytes(line, what, &oa, &wa, sizeof(wa));
}
#define CHECK_G1(what, ours, want) check_g1(__LINE__, what, ours, want)

static void g1_inf(blst_p1 *p)
{
    memset(p, 0, sizeof(*p));
}

PL_TEST(g1_add_affine_matches_blst)
{
    uint64_t rng = 0x9101;
    pl__cu_g1_xyzz acc;
    blst_p1 want;
    pl__cu_g1_xyzz_set_inf(&acc);
    g1_inf(&want);
    for (int i = 0; i < 64; i++) {
        pl__cu_g1_affine q;
        switch (i % 8) {
        case 3: /* infinity */
            memset(&q, 0, sizeof(q));
            break;
        case 5: /* the accumulator itself: doubling */
            g1_affine_of(&q, &acc);
            break;
        case 7: /* its negation: back to infinity, and on from there */
            g1_affine_of(&q, &acc);
            pl__cu_g1_affine_neg(&q, &q);
            break;
        default: rand_g1(&rng, &q);
        }
        pl__cu_g1_xyzz_add_affine(&acc, &acc, &q);
        blst_p1_add_or_double_affine(&want, &want, (const blst_p1_affine *)&q);
        CHECK_G1("g1 add affine", &acc, &want);
        if (i % 8 == 7)
            CHECK(pl__cu_g1_xyzz_is_inf(&acc));
    }
    /* infinity + infinity */
    pl__cu_g1_affine inf;
    memset(&inf, 0, sizeof(inf));
    pl__cu_g1_xyzz_set_inf(&acc);
    pl__cu_g1_xyzz_add_affine(&acc, &acc, &inf);
    CHECK(pl__cu_g1_xyzz_is_inf(&acc));
}

/* Two XYZZ sums with non-trivial ZZ, and the blst Jacobian twins. */
static void g1_rand_sum(uint64_t *rng, pl__cu_g1_xyzz *ours, blst_p1 *want)
{
    pl__cu_g1_affine a, b;
    rand_g1(rng, &a);
    rand_g1(rng, &b);
    pl__cu_g1_xyzz_from_affine(ours, &a);
    pl__cu_g1_xyzz_add_affine(ours, ours, &b);
    blst_p1_from_affine(want, (const blst_p1_affine *)&a);
    blst_p1_add_or_double_affine(want, want, (const blst_p1_affine *)&b);
}

PL_TEST(g1_add_and_double_match_blst)
{
    uint64_t rng = 0x9102;
    for (int i = 0; i < 16; i++) {
        pl__cu_g1_xyzz p, q, r, inf;
        blst_p1 bp, bq, br, binf;
        g1_rand_sum(&rng, &p, &bp);
        g1_rand_sum(&rng, &q, &bq);
        pl__cu_g1_xyzz_set_inf(&inf);
        g1_inf(&binf);

        pl__cu_g1_xyzz_add(&r, &p, &q);
        blst_p1_add_or_double(&br, &bp, &bq);
        CHECK_G1("g1 p + q", &r, &br);
        pl__cu_g1_xyzz_dbl(&r, &p);
        blst_p1_double(&br, &bp);
        CHECK_G1("g1 2p", &r, &br);

        /* p + p with p in a second representation (ZZ = 1), so the
         * doubling case is found from the coordinates, not the bytes; then
         * the same object on both sides */
        pl__cu_g1_affine pa;
        pl__cu_g1_xyzz p2;
        g1_affine_of(&pa, &p);
        pl__cu_g1_xyzz_from_affine(&p2, &pa);
        pl__cu_g1_xyzz_add(&r, &p, &p2);
        CHECK_G1("g1 p + p", &r, &br);
        pl__cu_g1_xyzz_add(&r, &r, &r);
        blst_p1_double(&br, &br);
        CHECK_G1("g1 2p + 2p", &r, &br);

        /* p + (-p) */
        pl__cu_g1_affine na;
        pl__cu_g1_xyzz np;
        pl__cu_g1_affine_neg(&na, &pa);
        pl__cu_g1_xyzz_from_affine(&np, &na);
        pl__cu_g1_xyzz_add(&r, &p, &np);
        CHECK(pl__cu_g1_xyzz_is_inf(&r));
        CHECK_G1("g1 p - p", &r, &binf);

        /* infinity on either side, and doubled */
        pl__cu_g1_xyzz_add(&r, &inf, &q);
        CHECK_G1("g1 inf + q", &r, &bq);
        pl__cu_g1_xyzz_add(&r, &q, &inf);
        CHECK_G1("g1 q + inf", &r, &bq);
        pl__cu_g1_xyzz_add(&r, &inf, &inf);
        CHECK_G1("g1 inf + inf", &r, &binf);
        pl__cu_g1_xyzz_dbl(&r, &inf);
        CHECK(pl__cu_g1_xyzz_is_inf(&r));
    }
}

/* The MSM the kernels will compute, done the slowest way over the same
 * XYZZ arithmetic: one shared double-and-add from the top scalar bit,
 * adding every point whose scalar has the bit set.  Points include
 * infinity, scalars 0, 1 and r - 1. */
PL_TEST(g1_msm_naive_matches_blst)
{
    enum { N = 16 };
    uint64_t rng = 0x9103;
    pl__cu_g1_affine pts[N];
    uint8_t k[N][32];
    for (int i = 0; i < N; i++) {
        rand_g1(&rng, &pts[i]);
        rand_scalar(&rng, k[i]);
    }
    memset(&pts[3], 0, sizeof(pts[3]));
    memset(k[5], 0, 32);
    memset(k[6], 0, 32);
    k[6][0] = 1;
    memcpy(k[7], pl__fr_modulus_le, 32);
    k[7][0] -= 1;

    blst_p1 want, t;
    g1_inf(&want);
    for (int i = 0; i < N; i++) {
        blst_p1 p;
        blst_p1_from_affine(&p, (const blst_p1_affine *)&pts[i]);
        blst_p1_mult(&t, &p, k[i], 255);
        blst_p1_add_or_double(&want, &want, &t);
    }

    pl__cu_g1_xyzz acc;
    pl__cu_g1_xyzz_set_inf(&acc);
    for (int bit = 254; bit >= 0; bit--) {
        pl__cu_g1_xyzz_dbl(&acc, &acc);
        for (int i = 0; i < N; i++)
            if ((k[i][bit / 8] >> (bit % 8)) & 1)
                pl__cu_g1_xyzz_add_affine(&acc, &acc, &pts[i]);
    }
    CHECK_G1("g1 msm", &acc, &want);
    CHECK(!pl__cu_g1_xyzz_is_inf(&acc));
}

/* ---- BN254 (arith/bn254.h, g1.h's pl__cu_bn254_g1_*) ---------------------- */

/* The same checks against the CPU's BN254 arithmetic (field/bn254, its
 * portable implementation), whose 4 x 64-bit limbs have our bytes. */
_Static_assert(sizeof(pl__cu_bn254_fp) == sizeof(pl__bn254_fp), "bn fp");
_Static_assert(sizeof(pl__cu_bn254_fr) == sizeof(pl__bn254_fr), "bn fr");
_Static_assert(sizeof(pl__cu_bn254_g1_affine) == sizeof(pl__bn254_g1_affine),
               "bn g1 affine");
_Static_assert(sizeof(pl__cu_bn254_g1_jacobian) == sizeof(pl__bn254_g1),
               "bn g1 jacobian");

PL_TEST(fr_one_matches_blst)
{
    const pl__cu_fr one = {PL_CU_FR_ONE};
    const uint64_t unit[4] = {1, 0, 0, 0};
    blst_fr b;
    blst_fr_from_uint64(&b, unit);
    CHECK_BYTES("Fr ONE", one.l, &b, 32);
}

PL_TEST(bn254_constants_match_cpu)
{
    const pl__cu_bn254_fp p = {PL_CU_BN254_FP_P}, one = {PL_CU_BN254_FP_ONE};
    const pl__cu_bn254_fr r = {PL_CU_BN254_FR_R}, rone = {PL_CU_BN254_FR_ONE};
    CHECK_BYTES("p", p.l, PL__BN254_P, 32);
    CHECK_BYTES("r", r.l, PL__BN254_R, 32);
    CHECK_BYTES("Fp ONE", one.l, &PL__BN254_FP_ONE, 32);
    CHECK_BYTES("Fr ONE", rone.l, &PL__BN254_FR_ONE, 32);
    CHECK_EQ((uint32_t)(p.l[0] * PL_CU_BN254_FP_N0), 0xffffffffu);
    CHECK_EQ((uint32_t)(r.l[0] * PL_CU_BN254_FR_N0), 0xffffffffu);
    CHECK_EQ(PL_CU_BN254_FP_N0, (uint32_t)PL__BN254_P_INV);
    CHECK_EQ(PL_CU_BN254_FR_N0, (uint32_t)PL__BN254_R_INV);
}

/* A value below m (8 limbs): random below 2^254, rejected while >= m; or
 * an edge (0, 1 in Montgomery form, m - 1) for `pick` 0 to 2. */
static void bn_pick(uint64_t *rng, int pick, const uint32_t m[8],
                    const uint32_t one[8], uint32_t out[8])
{
    uint32_t d[8];
    switch (pick) {
    case 0: memset(out, 0, 32); return;
    case 1: memcpy(out, one, 32); return;
    case 2:
        memcpy(out, m, 32);
        out[0] -= 1; /* both moduli are odd */
        return;
    }
    do {
        pl_test_random_bytes(rng, out, 32);
        out[7] &= 0x3fffffff;
    } while (!pl__cu_limbs_sub(d, out, m, 8));
}

PL_TEST(bn254_field_ops_match_cpu)
{
    const uint32_t p[8] = PL_CU_BN254_FP_P, p_one[8] = PL_CU_BN254_FP_ONE;
    const uint32_t r[8] = PL_CU_BN254_FR_R, r_one[8] = PL_CU_BN254_FR_ONE;
    const pl__bn254_arith v = PL__BN254_PORTABLE;
    uint64_t rng = 0xb254;
    for (int i = 0; i < ROUNDS; i++) {
        int ai = i < 16 ? i % 4 : 99, bi = i < 16 ? i / 4 : 99;
        /* Fp */
        pl__cu_bn254_fp a, b, x;
        pl__bn254_fp ca, cb, cx;
        bn_pick(&rng, ai, p, p_one, a.l);
        bn_pick(&rng, bi, p, p_one, b.l);
        memcpy(&ca, &a, 32);
        memcpy(&cb, &b, 32);
        pl__cu_bn254_fp_add(&x, &a, &b);
        pl__bn254_fp_add(&cx, &ca, &cb, v);
        CHECK_BYTES("bn fp add", &x, &cx, 32);
        pl__cu_bn254_fp_sub(&x, &a, &b);
        pl__bn254_fp_sub(&cx, &ca, &cb, v);
        CHECK_BYTES("bn fp sub", &x, &cx, 32);
        pl__cu_bn254_fp_mul(&x, &a, &b);
        pl__bn254_fp_mul(&cx, &ca, &cb, v);
        CHECK_BYTES("bn fp mul", &x, &cx, 32);
        pl__cu_mont_mul_chains(x.l, a.l, b.l, p, PL_CU_BN254_FP_N0, 8);
        CHECK_BYTES("bn fp mul (PTX carry chains, emulated)", &x, &cx, 32);
        pl__cu_bn254_fp_sqr(&x, &a);
        pl__bn254_fp_sqr(&cx, &ca, v);
        CHECK_BYTES("bn fp sqr", &x, &cx, 32);
        pl__cu_bn254_fp_neg(&x, &a);
        pl__bn254_fp_neg(&cx, &ca, v);
        CHECK_BYTES("bn fp neg", &x, &cx, 32);
        CHECK_EQ(pl__cu_bn254_fp_is_zero(&a), ai == 0);
        /* Fr */
        pl__cu_bn254_fr s, t, y;
        pl__bn254_fr cs, ct, cy;
        bn_pick(&rng, ai, r, r_one, s.l);
        bn_pick(&rng, bi, r, r_one, t.l);
        memcpy(&cs, &s, 32);
        memcpy(&ct, &t, 32);
        pl__cu_bn254_fr_add(&y, &s, &t);
        pl__bn254_fr_add(&cy, &cs, &ct, v);
        CHECK_BYTES("bn fr add", &y, &cy, 32);
        pl__cu_bn254_fr_sub(&y, &s, &t);
        pl__bn254_fr_sub(&cy, &cs, &ct, v);
        CHECK_BYTES("bn fr sub", &y, &cy, 32);
        pl__cu_bn254_fr_mul(&y, &s, &t);
        pl__bn254_fr_mul(&cy, &cs, &ct, v);
        CHECK_BYTES("bn fr mul", &y, &cy, 32);
        pl__cu_mont_mul_chains(y.l, s.l, t.l, r, PL_CU_BN254_FR_N0, 8);
        CHECK_BYTES("bn fr mul (PTX carry chains, emulated)", &y, &cy, 32);
        uint8_t le[32];
        pl__bn254_fr_to_le(le, &cs);
        pl__cu_bn254_fr_to_canonical(&y, &s);
        CHECK_BYTES("bn fr to canonical", y.l, le, 32);
    }
}

/* A random point k G of BN254's G1 (the CPU's), affine. */
static void bn_rand_g1(uint64_t *rng, pl__cu_bn254_g1_affine *out)
{
    const pl__bn254_arith v = PL__BN254_PORTABLE;
    uint64_t k[4];
    pl_test_random_bytes(rng, k, sizeof(k));
    k[3] &= 0x0fffffffffffffffull;
    pl__bn254_g1 g, p;
    pl__bn254_g1_from_affine(&g, &pl__bn254_g1_generator);
    pl__bn254_g1_mul(&p, &g, k, v);
    pl__bn254_g1_to_affine((pl__bn254_g1_affine *)out, &p, v);
}

/* ours (XYZZ) == want (the CPU's Jacobian), through our conversion. */
static void bn_check_g1(int line, const char *what,
                        const pl__cu_bn254_g1_xyzz *ours,
                        const pl__bn254_g1 *want)
{
    pl__cu_bn254_g1_jacobian j;
    pl__cu_bn254_g1_xyzz_to_jacobian(&j, ours);
    if (!pl__bn254_g1_eq((const pl__bn254_g1 *)&j, want, PL__BN254_PORTABLE))
        pl_test_fail(__FILE__, line, "%s: a different point", what);
}

/* Mixed and full additions and doublings, with infinity, P + P and
 * P + (-P) in the mix, against the CPU's Jacobian arithmetic. */
PL_TEST(bn254_g1_ops_match_cpu)
{
    const pl__bn254_arith v = PL__BN254_PORTABLE;
    uint64_t rng = 0xb2541;
    pl__cu_bn254_g1_xyzz acc, other;
    pl__bn254_g1 want, want_other, t;
    pl__cu_bn254_g1_xyzz_set_inf(&acc);
    memset(&want, 0, sizeof(want));
    pl__cu_bn254_g1_affine last;
    memset(&last, 0, sizeof(last));
    for (int i = 0; i < 200; i++) {
        pl__cu_bn254_g1_affine a;
        switch (i % 8) {
        case 3: memset(&a, 0, sizeof(a)); break;        /* infinity */
        case 5: a = last; break;                         /* P + P maybe */
        case 6: pl__cu_bn254_g1_affine_neg(&a, &last); break;
        default: bn_rand_g1(&rng, &a);
        }
        last = a;
        pl__cu_bn254_g1_xyzz_add_affine(&acc, &acc, &a);
        pl__bn254_g1_from_affine(&t, (const pl__bn254_g1_affine *)&a);
        pl__bn254_g1_add(&want, &want, &t, v);
        bn_check_g1(__LINE__, "bn g1 add affine", &acc, &want);
        /* acc + acc, as XYZZ addition and as doubling */
        pl__cu_bn254_g1_xyzz_add(&other, &acc, &acc);
        pl__bn254_g1_dbl(&want_other, &want, v);
        bn_check_g1(__LINE__, "bn g1 add (P + P)", &other, &want_other);
        pl__cu_bn254_g1_xyzz_dbl(&other, &acc);
        bn_check_g1(__LINE__, "bn g1 dbl", &other, &want_other);
        /* acc + (-acc) = infinity, acc + infinity = acc */
        pl__cu_bn254_g1_xyzz neg = acc;
        pl__cu_bn254_fp_neg(&neg.y, &acc.y);
        pl__cu_bn254_g1_xyzz_add(&other, &acc, &neg);
        CHECK(pl__cu_bn254_g1_xyzz_is_inf(&other));
        pl__cu_bn254_g1_xyzz_set_inf(&other);
        pl__cu_bn254_g1_xyzz_add(&other, &acc, &other);
        bn_check_g1(__LINE__, "bn g1 add infinity", &other, &want);
    }
    CHECK(!pl__cu_bn254_g1_xyzz_is_inf(&acc));
}
