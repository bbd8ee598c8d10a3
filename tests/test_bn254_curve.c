/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's groups and pairing (src/field/bn254/curve.h, pairing.h,
 * serial.h), in both field implementations: the generators on their
 * curves and of order r; the group law (sums of multiples, doubling,
 * opposite points, infinity on either side, mixed and Jacobian additions
 * alike); G2's membership test by psi against multiplication by r on
 * points of the twist outside G2 (of full order, and of order dividing the
 * cofactor); the pairing's bilinearity e(aP, bQ) = e(P, Q)^(ab), its
 * order, non-degeneracy and the known value e(G1, G2) (computed from the
 * definition with Python's integers, as the Ethereum reference py_ecc
 * does); multi-pairings (products, inverse pairs, infinity, more pairs
 * than one chunk); @noble/curves' bn254 (tests/vectors/bn254_noble.mjs)
 * for multiples of both generators and for pairings; snarkjs's encodings
 * (bytes, JSON decimals, infinity, malformed text refused).
 */
#define _POSIX_C_SOURCE 200809L /* popen, strtok_r */
#include "harness.h"
#include "bn254_test.h"
#include "field/bn254/pairing.h"
#include "field/bn254/serial.h"

#include <unistd.h>

static void random_scalar(uint64_t *rng, uint64_t k[4])
{
    pl_test_random_bytes(rng, k, 32);
    k[3] &= 0x0fffffffffffffffull; /* < 2^252 < r */
}

/* r as limbs, and r - 1 */
static const uint64_t *r_limbs(void) { return PL__BN254_R; }

static void g1_of(pl__bn254_g1 *out, const uint64_t k[4], pl__bn254_arith v)
{
    pl__bn254_g1 g;
    pl__bn254_g1_from_affine(&g, &pl__bn254_g1_generator);
    pl__bn254_g1_mul(out, &g, k, v);
}

static void g2_of(pl__bn254_g2 *out, const uint64_t k[4], pl__bn254_arith v)
{
    pl__bn254_g2 g;
    pl__bn254_g2_from_affine(&g, &pl__bn254_g2_generator);
    pl__bn254_g2_mul(out, &g, k, v);
}

/* (a * b) mod r and (a + b) mod r as limbs, through Fr */
static void fr_of(pl__bn254_fr *out, const uint64_t k[4])
{
    uint8_t le[32];
    for (int i = 0; i < 32; i++)
        le[i] = (uint8_t)(k[i / 8] >> (8 * (i % 8)));
    CHECK(pl__bn254_fr_from_le(out, le));
}

static void limbs_of(uint64_t k[4], const pl__bn254_fr *a)
{
    uint8_t le[32];
    pl__bn254_fr_to_le(le, a);
    memset(k, 0, 32);
    for (int i = 0; i < 32; i++)
        k[i / 8] |= (uint64_t)le[i] << (8 * (i % 8));
}

static void scalar_mul(uint64_t out[4], const uint64_t a[4],
                       const uint64_t b[4])
{
    pl__bn254_fr x, y;
    fr_of(&x, a);
    fr_of(&y, b);
    pl__bn254_fr_mul(&x, &x, &y, PL__BN254_PORTABLE);
    limbs_of(out, &x);
}

static void scalar_add(uint64_t out[4], const uint64_t a[4],
                       const uint64_t b[4])
{
    pl__bn254_fr x, y;
    fr_of(&x, a);
    fr_of(&y, b);
    pl__bn254_fr_add(&x, &x, &y, PL__BN254_PORTABLE);
    limbs_of(out, &x);
}

PL_TEST(generators_on_curve_of_order_r)
{
    pl__bn254_arith vs[2];
    size_t nv = bn254_arith_list(vs);
    for (size_t i = 0; i < nv; i++) {
        pl__bn254_arith v = vs[i];
        CHECK(pl__bn254_g1_affine_in_group(&pl__bn254_g1_generator, v));
        CHECK(pl__bn254_g2_affine_in_group(&pl__bn254_g2_generator, v));
        pl__bn254_g1 p;
        pl__bn254_g2 q;
        g1_of(&p, r_limbs(), v);
        g2_of(&q, r_limbs(), v);
        CHECK(pl__bn254_g1_is_inf(&p));
        CHECK(pl__bn254_g2_is_inf(&q));
        /* [r - 1] G = -G */
        uint64_t rm1[4];
        memcpy(rm1, PL__BN254_R, 32);
        rm1[0] -= 1;
        pl__bn254_g1 g, ng;
        pl__bn254_g1_from_affine(&g, &pl__bn254_g1_generator);
        pl__bn254_g1_neg(&ng, &g, v);
        g1_of(&p, rm1, v);
        CHECK(pl__bn254_g1_eq(&p, &ng, v));
        /* the twist's b is 3 / (9 + u) */
        pl__bn254_fp2 t, three;
        pl__bn254_fp2_mul_xi(&t, &pl__bn254_twist_b, v);
        memset(&three, 0, sizeof(three));
        pl__bn254_fp_from_u64(&three.c0, 3);
        CHECK(pl__bn254_fp2_eq(&t, &three));
    }
    /* the infinity is on both curves and in both groups */
    pl__bn254_g1_affine o1;
    pl__bn254_g2_affine o2;
    memset(&o1, 0, sizeof(o1));
    memset(&o2, 0, sizeof(o2));
    CHECK(pl__bn254_g1_affine_in_group(&o1, PL__BN254_PORTABLE));
    CHECK(pl__bn254_g2_affine_in_group(&o2, PL__BN254_PORTABLE));
}

/* [a]P + [b]P = [a + b]P by every addition form; doubling, P + (-P),
 * infinity on either side; the same bits from both implementations. */
PL_TEST(group_law)
{
    pl__bn254_arith vs[2];
    size_t nv = bn254_arith_list(vs);
    uint64_t rng = 11;
    for (int k = 0; k < 40; k++) {
        uint64_t a[4], b[4], s[4];
        random_scalar(&rng, a);
        random_scalar(&rng, b);
        if (k == 0)
            memcpy(b, a, 32); /* the sum is a doubling */
        scalar_add(s, a, b);
        pl__bn254_g1_affine keep1;
        pl__bn254_g2_affine keep2;
        for (size_t i = 0; i < nv; i++) {
            pl__bn254_arith v = vs[i];
            pl__bn254_g1 pa, pb, ps, sum, t;
            pl__bn254_g1_affine aa, ab;
            g1_of(&pa, a, v);
            g1_of(&pb, b, v);
            g1_of(&ps, s, v);
            pl__bn254_g1_add(&sum, &pa, &pb, v);
            CHECK(pl__bn254_g1_eq(&sum, &ps, v));
            pl__bn254_g1_to_affine(&ab, &pb, v);
            pl__bn254_g1_to_affine(&aa, &pa, v);
            CHECK(pl__bn254_g1_affine_in_group(&aa, v));
            pl__bn254_g1_add_affine(&t, &pa, &ab, v);
            CHECK(pl__bn254_g1_eq(&t, &ps, v));
            /* in place, and the affine point on the left */
            t = pa;
            pl__bn254_g1_add(&t, &t, &pb, v);
            CHECK(pl__bn254_g1_eq(&t, &ps, v));
            pl__bn254_g1_from_affine(&t, &aa);
            pl__bn254_g1_add_affine(&t, &t, &aa, v);
            pl__bn254_g1 d;
            pl__bn254_g1_dbl(&d, &pa, v);
            CHECK(pl__bn254_g1_eq(&t, &d, v));
            pl__bn254_g1_add(&t, &pa, &pa, v);
            CHECK(pl__bn254_g1_eq(&t, &d, v));
            /* P + (-P) = O, O + P = P, P + O = P */
            pl__bn254_g1 np, o;
            pl__bn254_g1_affine ana, ao;
            pl__bn254_g1_neg(&np, &pa, v);
            pl__bn254_g1_add(&t, &pa, &np, v);
            CHECK(pl__bn254_g1_is_inf(&t));
            pl__bn254_g1_to_affine(&ana, &np, v);
            pl__bn254_g1_add_affine(&t, &pa, &ana, v);
            CHECK(pl__bn254_g1_is_inf(&t));
            memset(&o, 0, sizeof(o));
            memset(&ao, 0, sizeof(ao));
            pl__bn254_g1_add(&t, &o, &pa, v);
            CHECK(pl__bn254_g1_eq(&t, &pa, v));
            pl__bn254_g1_add(&t, &pa, &o, v);
            CHECK(pl__bn254_g1_eq(&t, &pa, v));
            pl__bn254_g1_add_affine(&t, &o, &aa, v);
            CHECK(pl__bn254_g1_eq(&t, &pa, v));
            pl__bn254_g1_add_affine(&t, &pa, &ao, v);
            CHECK(pl__bn254_g1_eq(&t, &pa, v));
            pl__bn254_g1_dbl(&t, &o, v);
            CHECK(pl__bn254_g1_is_inf(&t));

            pl__bn254_g2 qa, qb, qs, q2, u;
            pl__bn254_g2_affine ba, bb, bna;
            g2_of(&qa, a, v);
            g2_of(&qb, b, v);
            g2_of(&qs, s, v);
            pl__bn254_g2_add(&q2, &qa, &qb, v);
            CHECK(pl__bn254_g2_eq(&q2, &qs, v));
            pl__bn254_g2_to_affine(&bb, &qb, v);
            pl__bn254_g2_to_affine(&ba, &qa, v);
            CHECK(pl__bn254_g2_affine_in_group(&ba, v));
            pl__bn254_g2_add_affine(&u, &qa, &bb, v);
            CHECK(pl__bn254_g2_eq(&u, &qs, v));
            pl__bn254_g2_dbl(&q2, &qa, v);
            pl__bn254_g2_add_affine(&u, &qa, &ba, v);
            CHECK(pl__bn254_g2_eq(&u, &q2, v));
            pl__bn254_g2 nq;
            pl__bn254_g2_neg(&nq, &qa, v);
            pl__bn254_g2_to_affine(&bna, &nq, v);
            pl__bn254_g2_add_affine(&u, &qa, &bna, v);
            CHECK(pl__bn254_g2_is_inf(&u));
            pl__bn254_g2_add(&u, &qa, &nq, v);
            CHECK(pl__bn254_g2_is_inf(&u));
            if (i == 0) {
                keep1 = aa;
                keep2 = ba;
            } else {
                CHECK_MEM(&keep1, &aa, sizeof(aa));
                CHECK_MEM(&keep2, &ba, sizeof(ba));
            }
        }
    }
}

/* Points of the twist outside G2 (found with Python: a random x with
 * x^3 + b' a square; and that point times r, of order dividing the
 * cofactor), standard-form decimals x.c0 x.c1 y.c0 y.c1. */
static const char *const outside_g2[][4] = {
    {"3413513218498352040262653353725127729454431939539290118844322056224532443"
     "637",
     "6077776500692565155461894309070795882353485867345896979329447163197530625"
     "403",
     "1897204082705797627957867419348500681772036737521809408451442798233024142"
     "6754",
     "1400686791369657808728779000072902691633689812434021674138250392543547344"
     "4548"},
    {"1758412865005871954655166022792271580953504603027171267167826995155099813"
     "0316",
     "6461809631731577747175545793310950288088108739630359653614591901063006231"
     "53",
     "5766006691604968513402259101929974566637306799253801420475793936063367493"
     "747",
     "1826830069115471890464757867513330455621665713828044880322281869341648981"
     "2629"},
    {"1523776874400822914853675735316054945881956401697528936787865456756968831"
     "1399",
     "1960896638874952998603760618146681424308642044204151609707711176795857417"
     "9040",
     "8332486935162267153258706002229643957969702876515556278577247396378129980"
     "90",
     "6381495029447320716796286294792685713697245051950861097943815938550607718"
     "173"},
};

static void g2_from_text(pl__bn254_g2_affine *q, const char *const s[4])
{
    const char *const t[3][2] = {{s[0], s[1]}, {s[2], s[3]}, {"1", "0"}};
    CHECK(pl__bn254_g2_from_dec(q, t));
}

PL_TEST(g2_membership_by_psi)
{
    pl__bn254_arith vs[2];
    size_t nv = bn254_arith_list(vs);
    uint64_t rng = 3;
    for (size_t i = 0; i < nv; i++) {
        pl__bn254_arith v = vs[i];
        for (size_t j = 0; j < sizeof(outside_g2) / sizeof(outside_g2[0]);
             j++) {
            pl__bn254_g2_affine q;
            pl__bn254_g2 jq, rq;
            g2_from_text(&q, outside_g2[j]);
            CHECK(pl__bn254_g2_affine_on_curve(&q, v));
            CHECK(!pl__bn254_g2_affine_in_group(&q, v));
            pl__bn254_g2_from_affine(&jq, &q);
            pl__bn254_g2_mul(&rq, &jq, r_limbs(), v);
            CHECK(!pl__bn254_g2_is_inf(&rq)); /* the slow test agrees */
            /* a G2 point plus the outside one: still outside */
            pl__bn254_g2 g, s;
            pl__bn254_g2_affine sa;
            uint64_t k[4];
            random_scalar(&rng, k);
            g2_of(&g, k, v);
            pl__bn254_g2_add(&s, &g, &jq, v);
            pl__bn254_g2_to_affine(&sa, &s, v);
            CHECK(pl__bn254_g2_affine_on_curve(&sa, v));
            CHECK(!pl__bn254_g2_affine_in_group(&sa, v));
            /* off the curve */
            q.y.c0.l[0] ^= 1;
            CHECK(!pl__bn254_g2_affine_on_curve(&q, v));
            CHECK(!pl__bn254_g2_affine_in_group(&q, v));
        }
        /* multiples of the generator pass, and psi is [6u^2] on them */
        for (int t = 0; t < 10; t++) {
            uint64_t k[4];
            random_scalar(&rng, k);
            pl__bn254_g2 q, pq, lq;
            pl__bn254_g2_affine qa;
            g2_of(&q, k, v);
            pl__bn254_g2_to_affine(&qa, &q, v);
            CHECK(pl__bn254_g2_affine_in_group(&qa, v));
            pl__bn254_g2_psi(&pq, &q, v);
            /* [p] = [6u^2] on G2: p mod r below */
            static const uint64_t six_u2[4] = {0xf83e9682e87cfd46,
                                               0x6f4d8248eeb859fb, 0, 0};
            pl__bn254_g2_mul(&lq, &q, six_u2, v);
            CHECK(pl__bn254_g2_eq(&pq, &lq, v));
            pl__bn254_g2_mul(&lq, &q, PL__BN254_P, v);
            CHECK(pl__bn254_g2_eq(&pq, &lq, v));
        }
    }
}

/* e(G1, G2), standard-form decimals in the tower's order (c0.c0.c0,
 * c0.c0.c1, c0.c1.c0, ..., c1.c2.c1): Python's evaluation of the
 * definition (the Miller loop of 6u + 2 and the two Frobenius lines, then
 * f^((p^12 - 1) / r)). */
static const char *const e_g1_g2[12] = {
    "84933343707840169720050899135882113276882234997298979517162069683207265080"
    "21",
    "37584358177662881888045612538386700307629707643666725947842474470678680880"
    "68",
    "65657980943140913912012315042282245664959395415380947668813718629767270430"
    "38",
    "14656606573936501743457633041048024656612227301473084805627390748872617280"
    "984",
    "63499748763860933280358349174333585262087378890239036505508682071858972011"
    "8",
    "19455424343576886430889849773367397946457449073528455097210946839000147698"
    "372",
    "20049218015652006197026173611347504489508678646783216776320737476707192559"
    "881",
    "18059168546148152671857026372711724379319778306792011146784665080987064164"
    "612",
    "12145052038566888241256672223106590273978429515702193755778990643425246950"
    "730",
    "17918828665069491344039743589118342552553375221610735811112289083834142789"
    "347",
    "62236024272195973928927946648995495441713831374677622807682576804462831617"
    "05",
    "74845423547544246336216630801909369244815366153008152036925062768942070180"
    "07",
};

static void fp12_from_text(pl__bn254_fp12 *out, const char *const s[12])
{
    const char *const t[2][3][2] = {
        {{s[0], s[1]}, {s[2], s[3]}, {s[4], s[5]}},
        {{s[6], s[7]}, {s[8], s[9]}, {s[10], s[11]}}};
    CHECK(pl__bn254_fp12_from_dec(out, t));
}

PL_TEST(pairing_known_value_and_bilinear)
{
    pl__bn254_arith vs[2];
    size_t nv = bn254_arith_list(vs);
    pl__bn254_fp12 want, e, keep;
    fp12_from_text(&want, e_g1_g2);
    for (size_t i = 0; i < nv; i++) {
        pl__bn254_arith v = vs[i];
        uint64_t rng = 17; /* the same scalars in each implementation */
        pl__bn254_pairing(&e, &pl__bn254_g1_generator, &pl__bn254_g2_generator,
                          1, v);
        CHECK(pl__bn254_fp12_eq(&e, &want));
        CHECK(!pl__bn254_fp12_is_one(&e));
        pl__bn254_fp12 t;
        pl__bn254_fp12_pow(&t, &e, PL__BN254_R, 4, v);
        CHECK(pl__bn254_fp12_is_one(&t)); /* in GT, of order r */
        for (int k = 0; k < 3; k++) {
            uint64_t a[4], b[4], ab[4];
            random_scalar(&rng, a);
            random_scalar(&rng, b);
            scalar_mul(ab, a, b);
            pl__bn254_g1 p;
            pl__bn254_g2 q;
            pl__bn254_g1_affine pa;
            pl__bn254_g2_affine qa;
            g1_of(&p, a, v);
            g2_of(&q, b, v);
            pl__bn254_g1_to_affine(&pa, &p, v);
            pl__bn254_g2_to_affine(&qa, &q, v);
            pl__bn254_fp12 lhs, rhs;
            pl__bn254_pairing(&lhs, &pa, &qa, 1, v);
            pl__bn254_fp12_pow(&rhs, &e, ab, 4, v);
            CHECK(pl__bn254_fp12_eq(&lhs, &rhs));
            /* e(bP', aQ') with P' = G1, Q' = G2 swapped: the same */
            g1_of(&p, b, v);
            g2_of(&q, a, v);
            pl__bn254_g1_to_affine(&pa, &p, v);
            pl__bn254_g2_to_affine(&qa, &q, v);
            pl__bn254_pairing(&rhs, &pa, &qa, 1, v);
            CHECK(pl__bn254_fp12_eq(&lhs, &rhs));
            if (k == 0 && i == 0)
                keep = lhs;
            if (k == 0 && i > 0)
                CHECK(pl__bn254_fp12_eq(&keep, &lhs));
        }
    }
}

PL_TEST(multi_pairing)
{
    pl__bn254_arith v = pl__bn254_arith_best();
    uint64_t rng = 23;
    enum { N = 11 }; /* more than one chunk of the Miller loop */
    pl__bn254_g1_affine ps[N];
    pl__bn254_g2_affine qs[N];
    pl__bn254_fp12 prod, each, t;
    pl__bn254_fp12_one(&prod);
    for (int i = 0; i < N; i++) {
        uint64_t a[4], b[4];
        random_scalar(&rng, a);
        random_scalar(&rng, b);
        pl__bn254_g1 p;
        pl__bn254_g2 q;
        g1_of(&p, a, v);
        g2_of(&q, b, v);
        pl__bn254_g1_to_affine(&ps[i], &p, v);
        pl__bn254_g2_to_affine(&qs[i], &q, v);
        if (i == 4)
            memset(&ps[i], 0, sizeof(ps[i])); /* contributes 1 */
        if (i == 7)
            memset(&qs[i], 0, sizeof(qs[i]));
        pl__bn254_pairing(&each, &ps[i], &qs[i], 1, v);
        if (i == 4 || i == 7)
            CHECK(pl__bn254_fp12_is_one(&each));
        pl__bn254_fp12_mul(&prod, &prod, &each, v);
    }
    pl__bn254_pairing(&t, ps, qs, N, v);
    CHECK(pl__bn254_fp12_eq(&t, &prod));
    pl__bn254_pairing(&t, ps, qs, 0, v);
    CHECK(pl__bn254_fp12_is_one(&t));
    /* e(aP, Q) e(-P, aQ) = 1: what a verifier checks */
    uint64_t a[4];
    random_scalar(&rng, a);
    pl__bn254_g1 p, ap, np;
    pl__bn254_g2 q, aq;
    pl__bn254_g1_from_affine(&p, &ps[0]);
    pl__bn254_g2_from_affine(&q, &qs[0]);
    pl__bn254_g1_mul(&ap, &p, a, v);
    pl__bn254_g2_mul(&aq, &q, a, v);
    pl__bn254_g1_neg(&np, &p, v);
    pl__bn254_g1_affine two_p[2];
    pl__bn254_g2_affine two_q[2];
    pl__bn254_g1_to_affine(&two_p[0], &ap, v);
    pl__bn254_g1_to_affine(&two_p[1], &np, v);
    two_q[0] = qs[0];
    pl__bn254_g2_to_affine(&two_q[1], &aq, v);
    CHECK(pl__bn254_pairing_is_one(two_p, two_q, 2, v));
    two_p[1] = ps[0]; /* e(aP, Q) e(P, aQ) = e(P, Q)^2a != 1 */
    CHECK(!pl__bn254_pairing_is_one(two_p, two_q, 2, v));
}

/* ---- @noble/curves ----------------------------------------------------------
 */

/* 2u(6u^2 + 3u + 1): noble's final exponentiation raises to this multiple
 * of (p^12 - 1) / r (Fuentes-Castaneda et al.'s hard part), so its GT
 * values are ours to this power. */
static const uint64_t noble_power[4] = {0x2e5d4e223ddedaf4, 0x1ea96b02d9d9e38d,
                                        0x3bec47df15e307c8, 0};

static const char *vectors_dir(void) { return PL_TEST_VECTORS; }

PL_TEST(noble_agrees)
{
    char script[4096], cmd[8192];
    snprintf(script, sizeof(script), "%s/bn254_noble.mjs", vectors_dir());
    char noble[4096];
    snprintf(noble, sizeof(noble), "%s/node_modules/@noble/curves/bn254.js",
             vectors_dir());
    if (access(noble, R_OK) != 0)
        bn254_skip("tests/vectors/node_modules has no @noble/curves (make test "
                   "runs npm ci there)");
    if (system("node --version >/dev/null 2>&1") != 0)
        bn254_skip("node is not on PATH");
    /* scalars: small, edges and random; pairs (a, b) for the pairings */
    uint64_t rng = 29;
    enum { NK = 10 };
    uint64_t ks[NK][4];
    memset(ks, 0, sizeof(ks));
    ks[0][0] = 1;
    ks[1][0] = 2;
    memcpy(ks[2], PL__BN254_R, 32);
    ks[2][0] -= 1; /* r - 1 */
    ks[3][0] = 0xffffffffffffffffull;
    for (int i = 4; i < NK; i++)
        random_scalar(&rng, ks[i]);
    size_t at = (size_t)snprintf(cmd, sizeof(cmd), "node '%s'", script);
    for (int i = 0; i < NK; i++) {
        pl__bn254_fr f;
        fr_of(&f, ks[i]);
        char dec[PL__BN254_DEC_CAP];
        pl__bn254_fr_to_dec(dec, &f);
        at += (size_t)snprintf(cmd + at, sizeof(cmd) - at, " %s", dec);
    }
    FILE *f = popen(cmd, "r");
    CHECK(f != NULL);
    char line[4096];
    int g1s = 0, g2s = 0, gts = 0;
    pl__bn254_arith v = pl__bn254_arith_best();
    while (fgets(line, sizeof(line), f)) {
        char *save = NULL, *tok[16];
        int nt = 0;
        for (char *t = strtok_r(line, " \n", &save); t && nt < 16;
             t = strtok_r(NULL, " \n", &save))
            tok[nt++] = t;
        if (nt < 2)
            continue;
        pl__bn254_fr kf;
        CHECK(pl__bn254_fr_from_dec(&kf, tok[1], strlen(tok[1])));
        uint64_t k[4];
        limbs_of(k, &kf);
        if (strcmp(tok[0], "g1") == 0) {
            CHECK_EQ(nt, 4);
            pl__bn254_g1 p;
            pl__bn254_g1_affine a;
            char out[3][PL__BN254_DEC_CAP];
            g1_of(&p, k, v);
            pl__bn254_g1_to_affine(&a, &p, v);
            pl__bn254_g1_to_dec(out, &a);
            CHECK(strcmp(out[0], tok[2]) == 0);
            CHECK(strcmp(out[1], tok[3]) == 0);
            g1s++;
        } else if (strcmp(tok[0], "g2") == 0) {
            CHECK_EQ(nt, 6);
            pl__bn254_g2 q;
            pl__bn254_g2_affine a;
            char out[3][2][PL__BN254_DEC_CAP];
            g2_of(&q, k, v);
            pl__bn254_g2_to_affine(&a, &q, v);
            pl__bn254_g2_to_dec(out, &a);
            CHECK(strcmp(out[0][0], tok[2]) == 0);
            CHECK(strcmp(out[0][1], tok[3]) == 0);
            CHECK(strcmp(out[1][0], tok[4]) == 0);
            CHECK(strcmp(out[1][1], tok[5]) == 0);
            g2s++;
        } else if (strcmp(tok[0], "gt") == 0) {
            CHECK_EQ(nt, 15);
            pl__bn254_fr bf;
            CHECK(pl__bn254_fr_from_dec(&bf, tok[2], strlen(tok[2])));
            uint64_t b[4];
            limbs_of(b, &bf);
            pl__bn254_g1 p;
            pl__bn254_g2 q;
            pl__bn254_g1_affine pa;
            pl__bn254_g2_affine qa;
            g1_of(&p, k, v);
            g2_of(&q, b, v);
            pl__bn254_g1_to_affine(&pa, &p, v);
            pl__bn254_g2_to_affine(&qa, &q, v);
            pl__bn254_fp12 e, theirs;
            pl__bn254_pairing(&e, &pa, &qa, 1, v);
            pl__bn254_fp12_pow(&e, &e, noble_power, 4, v);
            fp12_from_text(&theirs, (const char *const *)&tok[3]);
            CHECK(pl__bn254_fp12_eq(&e, &theirs));
            gts++;
        }
    }
    CHECK(pclose(f) == 0);
    CHECK_EQ(g1s, NK);
    CHECK_EQ(g2s, NK);
    CHECK_EQ(gts, NK / 2);
}

/* ---- encodings
 * ---------------------------------------------------------------- */

PL_TEST(encodings)
{
    pl__bn254_arith v = pl__bn254_arith_best();
    uint64_t k[4] = {12345, 0, 0, 0};
    pl__bn254_g1 p;
    pl__bn254_g2 q;
    pl__bn254_g1_affine a, b;
    pl__bn254_g2_affine c, d;
    g1_of(&p, k, v);
    g2_of(&q, k, v);
    pl__bn254_g1_to_affine(&a, &p, v);
    pl__bn254_g2_to_affine(&c, &q, v);
    /* bytes: the structs' own, coordinates checked */
    uint8_t b1[PL__BN254_G1_BYTES], b2[PL__BN254_G2_BYTES];
    pl__bn254_g1_to_bytes(b1, &a);
    CHECK_MEM(b1, &a, sizeof(b1));
    CHECK(pl__bn254_g1_from_bytes(&b, b1));
    CHECK_MEM(&b, &a, sizeof(a));
    pl__bn254_g2_to_bytes(b2, &c);
    CHECK_MEM(b2, &c, sizeof(b2));
    CHECK(pl__bn254_g2_from_bytes(&d, b2));
    CHECK_MEM(&d, &c, sizeof(c));
    memcpy(b2 + 96, pl__bn254_p_le, 32); /* y.c1 = p */
    CHECK(!pl__bn254_g2_from_bytes(&d, b2));
    memset(b1 + 32, 0xff, 32);
    CHECK(!pl__bn254_g1_from_bytes(&b, b1));
    /* decimals */
    char t1[3][PL__BN254_DEC_CAP];
    char t2[3][2][PL__BN254_DEC_CAP];
    pl__bn254_g1_to_dec(t1, &a);
    CHECK(strcmp(t1[2], "1") == 0);
    const char *s1[3] = {t1[0], t1[1], t1[2]};
    CHECK(pl__bn254_g1_from_dec(&b, s1));
    CHECK_MEM(&b, &a, sizeof(a));
    pl__bn254_g2_to_dec(t2, &c);
    const char *s2[3][2] = {
        {t2[0][0], t2[0][1]}, {t2[1][0], t2[1][1]}, {t2[2][0], t2[2][1]}};
    CHECK(strcmp(t2[2][0], "1") == 0 && strcmp(t2[2][1], "0") == 0);
    CHECK(pl__bn254_g2_from_dec(&d, s2));
    CHECK_MEM(&d, &c, sizeof(c));
    /* infinity, as ffjavascript writes it */
    memset(&a, 0, sizeof(a));
    memset(&c, 0, sizeof(c));
    pl__bn254_g1_to_dec(t1, &a);
    CHECK(strcmp(t1[0], "0") == 0 && strcmp(t1[1], "1") == 0 &&
          strcmp(t1[2], "0") == 0);
    CHECK(pl__bn254_g1_from_dec(&b, s1));
    CHECK(pl__bn254_g1_affine_is_inf(&b));
    pl__bn254_g2_to_dec(t2, &c);
    CHECK(strcmp(t2[1][0], "1") == 0 && strcmp(t2[2][0], "0") == 0);
    CHECK(pl__bn254_g2_from_dec(&d, s2));
    CHECK(pl__bn254_g2_affine_is_inf(&d));
    /* refused: other z, malformed numbers, a wrong infinity */
    const char *bad_z[3] = {"1", "2", "2"};
    CHECK(!pl__bn254_g1_from_dec(&b, bad_z));
    const char *lead0[3] = {"01", "2", "1"};
    CHECK(!pl__bn254_g1_from_dec(&b, lead0));
    const char *sign[3] = {"-1", "2", "1"};
    CHECK(!pl__bn254_g1_from_dec(&b, sign));
    const char *bad_inf[3] = {"1", "1", "0"};
    CHECK(!pl__bn254_g1_from_dec(&b, bad_inf));
    const char *g2_bad_z[3][2] = {{"1", "0"}, {"2", "0"}, {"1", "1"}};
    CHECK(!pl__bn254_g2_from_dec(&d, g2_bad_z));
    /* GT */
    pl__bn254_fp12 e, back;
    char t12[2][3][2][PL__BN254_DEC_CAP];
    pl__bn254_pairing(&e, &pl__bn254_g1_generator, &pl__bn254_g2_generator, 1,
                      v);
    pl__bn254_fp12_to_dec(t12, &e);
    CHECK(strcmp(t12[0][0][0], e_g1_g2[0]) == 0);
    CHECK(strcmp(t12[1][2][1], e_g1_g2[11]) == 0);
    fp12_from_text(&back, e_g1_g2);
    CHECK(pl__bn254_fp12_eq(&back, &e));
}
