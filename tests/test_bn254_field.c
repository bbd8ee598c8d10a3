/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's field arithmetic (src/field/bn254/fp.h, fp2.h, tower.h) against
 * GMP and between its two implementations (portable C and mulx/adx):
 * add, sub, neg, double, triple, mul, sqr on Montgomery limbs (a result
 * must be a b / 2^256 mod m, fully reduced), inverse, powers and square
 * roots, conversions to and from bytes (non-canonical input refused), for
 * Fp and Fr, on random values and on edges (0, 1, 2, m - 1, m - 2,
 * (m +- 1) / 2, values at and around the 64-bit limb boundaries, 2^253,
 * m - 2^k); Fp2's operations against GMP; and the tower: inverses,
 * Frobenius against a^p, and its constants against xi^(k (p-1) / 6).
 * GMP (libgmp-dev, scripts/deps.sh) is for the tests only: built without
 * it, the cases that need it are skipped with the reason.  The adx cases
 * are skipped on a CPU without BMI2 and ADX.
 */
#include "harness.h"
#include "bn254_test.h"
#include "field/bn254/serial.h"
#include "field/bn254/tower.h"

#ifdef PL_HAVE_GMP
#include <gmp.h>
#endif

static void need_adx(pl__bn254_arith v)
{
    if (v == PL__BN254_ADX && pl__bn254_arith_best() != PL__BN254_ADX)
        bn254_skip(
            "this CPU lacks BMI2 + ADX: the adx implementation cannot run");
}

#ifdef PL_HAVE_GMP

static void to_mpz(mpz_t z, const uint64_t l[4])
{
    mpz_import(z, 4, -1, sizeof(uint64_t), 0, 0, l);
}

/* z < 2^256 into limbs */
static void from_mpz(uint64_t l[4], const mpz_t z)
{
    size_t count = 0;
    memset(l, 0, 32);
    mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
    CHECK(count <= 4);
}

static void check_limbs(const uint64_t got[4], const mpz_t want,
                        const char *what, const uint64_t a[4],
                        const uint64_t b[4])
{
    uint64_t w[4];
    from_mpz(w, want);
    if (memcmp(got, w, 32) != 0)
        pl_test_fail(
            __FILE__, __LINE__,
            "%s: a = %016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64
            " b = %016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64
            ": got %016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64
            ", wanted %016" PRIx64 "%016" PRIx64 "%016" PRIx64 "%016" PRIx64,
            what, a[3], a[2], a[1], a[0], b[3], b[2], b[1], b[0], got[3],
            got[2], got[1], got[0], w[3], w[2], w[1], w[0]);
}

/* The edge values below m: 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, 2^(64k)
 * and 2^(64k) +- 1, 2^253 +- 1, m - 2^(64k), limbs of all ones. */
static size_t edges(mpz_t *out, const mpz_t m)
{
    size_t k = 0;
    mpz_set_ui(out[k++], 0);
    mpz_set_ui(out[k++], 1);
    mpz_set_ui(out[k++], 2);
    mpz_sub_ui(out[k++], m, 1);
    mpz_sub_ui(out[k++], m, 2);
    mpz_sub_ui(out[k], m, 1);
    mpz_fdiv_q_2exp(out[k], out[k], 1);
    k++;
    mpz_add_ui(out[k], m, 1);
    mpz_fdiv_q_2exp(out[k], out[k], 1);
    k++;
    for (unsigned s = 64; s <= 192; s += 64) {
        mpz_ui_pow_ui(out[k++], 2, s);
        mpz_ui_pow_ui(out[k], 2, s);
        mpz_sub_ui(out[k], out[k], 1);
        k++;
        mpz_ui_pow_ui(out[k], 2, s);
        mpz_add_ui(out[k], out[k], 1);
        k++;
        mpz_ui_pow_ui(out[k], 2, s);
        mpz_sub(out[k], m, out[k]);
        k++;
    }
    mpz_ui_pow_ui(out[k++], 2, 253);
    mpz_ui_pow_ui(out[k], 2, 253);
    mpz_sub_ui(out[k], out[k], 1);
    k++;
    mpz_ui_pow_ui(out[k], 2, 253);
    mpz_add_ui(out[k], out[k], 1);
    k++;
    /* 2^192 - 1 + 2^252: every low limb all ones */
    mpz_ui_pow_ui(out[k], 2, 192);
    mpz_sub_ui(out[k], out[k], 1);
    mpz_setbit(out[k], 252);
    k++;
    for (size_t i = 0; i < k; i++)
        CHECK(mpz_cmp(out[i], m) < 0);
    return k;
}

#define PL__NEDGE 24

typedef struct {
    const uint64_t *m;
    uint64_t inv;
    mpz_t M, R, Rinv;
} modulus;

static void modulus_init(modulus *md, const uint64_t *m, uint64_t inv)
{
    md->m = m;
    md->inv = inv;
    mpz_inits(md->M, md->R, md->Rinv, NULL);
    to_mpz(md->M, m);
    mpz_set_ui(md->R, 1);
    mpz_mul_2exp(md->R, md->R, 256);
    CHECK(mpz_invert(md->Rinv, md->R, md->M) != 0);
    /* -m^-1 mod 2^64 */
    mpz_t t, two64;
    mpz_inits(t, two64, NULL);
    mpz_set_ui(two64, 1);
    mpz_mul_2exp(two64, two64, 64);
    CHECK(mpz_invert(t, md->M, two64) != 0);
    mpz_sub(t, two64, t);
    CHECK_EQ(mpz_get_ui(t), inv);
    mpz_clears(t, two64, NULL);
}

static void modulus_clear(modulus *md)
{
    mpz_clears(md->M, md->R, md->Rinv, NULL);
}

/* Every kernel of fp.h on (a, b), as Montgomery limbs, against GMP. */
static void check_pair(const modulus *md, pl__bn254_arith v, const mpz_t A,
                       const mpz_t B)
{
    uint64_t a[4], b[4], r[4], other[4];
    pl__bn254_arith w = v == PL__BN254_ADX ? PL__BN254_PORTABLE : PL__BN254_ADX;
    bool both = pl__bn254_arith_best() == PL__BN254_ADX;
    mpz_t e;
    mpz_init(e);
    from_mpz(a, A);
    from_mpz(b, B);

    pl__bn254_mont_mul(r, a, b, md->m, md->inv, v);
    mpz_mul(e, A, B);
    mpz_mul(e, e, md->Rinv);
    mpz_mod(e, e, md->M);
    check_limbs(r, e, "mul", a, b);
    if (both) {
        pl__bn254_mont_mul(other, a, b, md->m, md->inv, w);
        CHECK_MEM(r, other, 32);
    }

    pl__bn254_mont_mul(r, a, a, md->m, md->inv, v);
    mpz_mul(e, A, A);
    mpz_mul(e, e, md->Rinv);
    mpz_mod(e, e, md->M);
    check_limbs(r, e, "sqr", a, a);

    pl__bn254_mod_add(r, a, b, md->m, v);
    mpz_add(e, A, B);
    mpz_mod(e, e, md->M);
    check_limbs(r, e, "add", a, b);
    if (both) {
        pl__bn254_mod_add(other, a, b, md->m, w);
        CHECK_MEM(r, other, 32);
    }

    pl__bn254_mod_sub(r, a, b, md->m, v);
    mpz_sub(e, A, B);
    mpz_mod(e, e, md->M);
    check_limbs(r, e, "sub", a, b);
    if (both) {
        pl__bn254_mod_sub(other, a, b, md->m, w);
        CHECK_MEM(r, other, 32);
    }

    static const uint64_t zero[4] = {0, 0, 0, 0};
    pl__bn254_mod_sub(r, zero, a, md->m, v);
    mpz_neg(e, A);
    mpz_mod(e, e, md->M);
    check_limbs(r, e, "neg", a, zero);

    /* aliasing: the output over an input */
    memcpy(r, a, 32);
    pl__bn254_mont_mul(r, r, b, md->m, md->inv, v);
    pl__bn254_mont_mul(other, a, b, md->m, md->inv, v);
    CHECK_MEM(r, other, 32);
    memcpy(r, b, 32);
    pl__bn254_mod_sub(r, a, r, md->m, v);
    pl__bn254_mod_sub(other, a, b, md->m, v);
    CHECK_MEM(r, other, 32);
    mpz_clear(e);
}

/* All pairs of edges, then `rounds` random pairs, both below m. */
static void kernels_vs_gmp(const uint64_t *m, uint64_t inv, pl__bn254_arith v,
                           size_t rounds)
{
    need_adx(v);
    modulus md;
    modulus_init(&md, m, inv);
    mpz_t ed[PL__NEDGE], A, B;
    for (size_t i = 0; i < PL__NEDGE; i++)
        mpz_init(ed[i]);
    mpz_inits(A, B, NULL);
    size_t ne = edges(ed, md.M);
    CHECK(ne <= PL__NEDGE);
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++)
            check_pair(&md, v, ed[i], ed[j]);
    gmp_randstate_t rs;
    gmp_randinit_mt(rs);
    gmp_randseed_ui(rs, 20240613);
    for (size_t k = 0; k < rounds; k++) {
        mpz_urandomm(A, rs, md.M);
        mpz_urandomm(B, rs, md.M);
        /* a quarter of the pairs near the top: both close to m */
        if (k % 4 == 3) {
            mpz_urandomb(A, rs, 64);
            mpz_sub(A, md.M, A);
            mpz_sub_ui(A, A, 1);
        }
        check_pair(&md, v, A, B);
        check_pair(&md, v, A, ed[k % ne]);
    }
    gmp_randclear(rs);
    for (size_t i = 0; i < PL__NEDGE; i++)
        mpz_clear(ed[i]);
    mpz_clears(A, B, NULL);
    modulus_clear(&md);
}

/* Standard-form x into Montgomery limbs, by GMP */
static void mont_of(uint64_t l[4], const modulus *md, const mpz_t x)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, x, md->R);
    mpz_mod(t, t, md->M);
    from_mpz(l, t);
    mpz_clear(t);
}

static void inverse_pow_sqrt(pl__bn254_arith v)
{
    need_adx(v);
    modulus mp, mr;
    modulus_init(&mp, PL__BN254_P, PL__BN254_P_INV);
    modulus_init(&mr, PL__BN254_R, PL__BN254_R_INV);
    mpz_t ed[PL__NEDGE], A, e, E;
    for (size_t i = 0; i < PL__NEDGE; i++)
        mpz_init(ed[i]);
    mpz_inits(A, e, E, NULL);
    gmp_randstate_t rs;
    gmp_randinit_mt(rs);
    gmp_randseed_ui(rs, 7);
    size_t ne = edges(ed, mp.M);
    size_t squares = 0, non_squares = 0;
    for (size_t k = 0; k < ne + 300; k++) {
        if (k < ne)
            mpz_set(A, ed[k]);
        else
            mpz_urandomm(A, rs, mp.M);
        pl__bn254_fp a, r, s;
        mont_of(a.l, &mp, A);
        /* inverse: 0 for 0 */
        pl__bn254_fp_inv(&r, &a, v);
        if (mpz_sgn(A) == 0) {
            mpz_set_ui(e, 0);
        } else {
            CHECK(mpz_invert(e, A, mp.M) != 0);
        }
        mont_of(s.l, &mp, e);
        CHECK_MEM(&r, &s, 32);
        pl__bn254_fp_inv(&s, &a, v == PL__BN254_ADX ? PL__BN254_PORTABLE : v);
        CHECK_MEM(&r, &s, 32);
        /* a power with a random 4-limb exponent */
        uint64_t ex[4];
        mpz_urandomb(E, rs, 256);
        from_mpz(ex, E);
        pl__bn254_fp_pow(&r, &a, ex, v);
        mpz_powm(e, A, E, mp.M);
        mont_of(s.l, &mp, e);
        CHECK_MEM(&r, &s, 32);
        /* square roots: exactly for the squares (Legendre symbol) */
        bool is_square = mpz_legendre(A, mp.M) >= 0;
        CHECK_EQ(pl__bn254_fp_sqrt(&r, &a, v), is_square);
        if (is_square) {
            pl__bn254_fp_sqr(&s, &r, v);
            CHECK_MEM(&s, &a, 32);
            squares++;
        } else {
            non_squares++;
        }
        /* Fr's inverse and powers */
        mpz_mod(A, A, mr.M);
        pl__bn254_fr fa, fr, fs;
        mont_of(fa.l, &mr, A);
        pl__bn254_fr_inv(&fr, &fa, v);
        if (mpz_sgn(A) == 0)
            mpz_set_ui(e, 0);
        else
            CHECK(mpz_invert(e, A, mr.M) != 0);
        mont_of(fs.l, &mr, e);
        CHECK_MEM(&fr, &fs, 32);
        pl__bn254_fr_pow_u64(&fr, &fa, ex[0], v);
        mpz_powm_ui(e, A, ex[0], mr.M);
        mont_of(fs.l, &mr, e);
        CHECK_MEM(&fr, &fs, 32);
    }
    CHECK(squares > 50 && non_squares > 50);
    gmp_randclear(rs);
    for (size_t i = 0; i < PL__NEDGE; i++)
        mpz_clear(ed[i]);
    mpz_clears(A, e, E, NULL);
    modulus_clear(&mp);
    modulus_clear(&mr);
}

static void bytes_round_trip(void)
{
    modulus mp, mr;
    modulus_init(&mp, PL__BN254_P, PL__BN254_P_INV);
    modulus_init(&mr, PL__BN254_R, PL__BN254_R_INV);
    mpz_t ed[PL__NEDGE], x;
    for (size_t i = 0; i < PL__NEDGE; i++)
        mpz_init(ed[i]);
    mpz_init(x);
    size_t ne = edges(ed, mr.M); /* below r < p: valid for both */
    for (size_t k = 0; k < ne; k++) {
        uint8_t le[32], back[32];
        uint64_t l[4], want[4];
        from_mpz(l, ed[k]);
        for (int i = 0; i < 32; i++)
            le[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
        pl__bn254_fp f;
        pl__bn254_fr r;
        CHECK(pl__bn254_fp_from_le(&f, le));
        mont_of(want, &mp, ed[k]);
        CHECK_MEM(f.l, want, 32);
        pl__bn254_fp_to_le(back, &f);
        CHECK_MEM(back, le, 32);
        CHECK(pl__bn254_fr_from_le(&r, le));
        mont_of(want, &mr, ed[k]);
        CHECK_MEM(r.l, want, 32);
        pl__bn254_fr_to_le(back, &r);
        CHECK_MEM(back, le, 32);
        /* Montgomery bytes are the limbs themselves */
        pl__bn254_fp_to_mont_le(back, &f);
        pl__bn254_fp g;
        CHECK(pl__bn254_fp_from_mont_le(&g, back));
        CHECK_MEM(&g, &f, 32);
        /* decimal text */
        char dec[PL__BN254_DEC_CAP], want_dec[PL__BN254_DEC_CAP];
        pl__bn254_fp_to_dec(dec, &f);
        gmp_snprintf(want_dec, sizeof(want_dec), "%Zd", ed[k]);
        CHECK(strcmp(dec, want_dec) == 0);
        CHECK(pl__bn254_fp_from_dec(&g, dec, strlen(dec)));
        CHECK_MEM(&g, &f, 32);
        pl__bn254_fr_to_dec(dec, &r);
        CHECK(strcmp(dec, want_dec) == 0);
    }
    /* refused: m, m + 1, 2^256 - 1 */
    const modulus *mods[2] = {&mp, &mr};
    for (int which = 0; which < 2; which++) {
        for (int c = 0; c < 3; c++) {
            if (c == 2) {
                mpz_ui_pow_ui(x, 2, 256);
                mpz_sub_ui(x, x, 1);
            } else {
                mpz_add_ui(x, mods[which]->M, (unsigned long)c);
            }
            uint8_t le[32];
            uint64_t l[4];
            from_mpz(l, x);
            for (int i = 0; i < 32; i++)
                le[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
            char dec[100];
            gmp_snprintf(dec, sizeof(dec), "%Zd", x);
            if (which == 0) {
                pl__bn254_fp f;
                CHECK(!pl__bn254_fp_from_le(&f, le));
                CHECK(!pl__bn254_fp_from_mont_le(&f, le));
                CHECK(!pl__bn254_fp_from_dec(&f, dec, strlen(dec)));
            } else {
                pl__bn254_fr r;
                CHECK(!pl__bn254_fr_from_le(&r, le));
                CHECK(!pl__bn254_fr_from_dec(&r, dec, strlen(dec)));
            }
        }
    }
    /* the moduli's byte constants are the limbs' */
    uint8_t le[32];
    pl__bn254_fp_to_mont_le(le, (const pl__bn254_fp *)PL__BN254_P);
    CHECK_MEM(le, pl__bn254_p_le, 32);
    pl__bn254_fp_to_mont_le(le, (const pl__bn254_fp *)PL__BN254_R);
    CHECK_MEM(le, pl__bn254_r_le, 32);
    /* constants: one is R mod m */
    uint64_t want[4];
    mpz_mod(x, mp.R, mp.M);
    from_mpz(want, x);
    CHECK_MEM(PL__BN254_FP_ONE.l, want, 32);
    mpz_mod(x, mr.R, mr.M);
    from_mpz(want, x);
    CHECK_MEM(PL__BN254_FR_ONE.l, want, 32);
    for (size_t i = 0; i < PL__NEDGE; i++)
        mpz_clear(ed[i]);
    mpz_clear(x);
    modulus_clear(&mp);
    modulus_clear(&mr);
}

static void fp2_vs_gmp(pl__bn254_arith v)
{
    need_adx(v);
    modulus mp;
    modulus_init(&mp, PL__BN254_P, PL__BN254_P_INV);
    gmp_randstate_t rs;
    gmp_randinit_mt(rs);
    gmp_randseed_ui(rs, 99);
    mpz_t a0, a1, b0, b1, e0, e1, t, n;
    mpz_inits(a0, a1, b0, b1, e0, e1, t, n, NULL);
    for (int k = 0; k < 2000; k++) {
        mpz_urandomm(a0, rs, mp.M);
        mpz_urandomm(a1, rs, mp.M);
        mpz_urandomm(b0, rs, mp.M);
        mpz_urandomm(b1, rs, mp.M);
        if (k == 0)
            mpz_set_ui(a1, 0);
        if (k == 1)
            mpz_set_ui(a0, 0);
        pl__bn254_fp2 a, b, r, want;
        mont_of(a.c0.l, &mp, a0);
        mont_of(a.c1.l, &mp, a1);
        mont_of(b.c0.l, &mp, b0);
        mont_of(b.c1.l, &mp, b1);
        /* mul: (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u */
        pl__bn254_fp2_mul(&r, &a, &b, v);
        mpz_mul(e0, a0, b0);
        mpz_submul(e0, a1, b1);
        mpz_mod(e0, e0, mp.M);
        mpz_mul(e1, a0, b1);
        mpz_addmul(e1, a1, b0);
        mpz_mod(e1, e1, mp.M);
        mont_of(want.c0.l, &mp, e0);
        mont_of(want.c1.l, &mp, e1);
        CHECK_MEM(&r, &want, sizeof(r));
        /* in place */
        r = a;
        pl__bn254_fp2_mul(&r, &r, &b, v);
        CHECK_MEM(&r, &want, sizeof(r));
        /* sqr */
        pl__bn254_fp2_sqr(&r, &a, v);
        mpz_mul(e0, a0, a0);
        mpz_submul(e0, a1, a1);
        mpz_mod(e0, e0, mp.M);
        mpz_mul(e1, a0, a1);
        mpz_mul_2exp(e1, e1, 1);
        mpz_mod(e1, e1, mp.M);
        mont_of(want.c0.l, &mp, e0);
        mont_of(want.c1.l, &mp, e1);
        CHECK_MEM(&r, &want, sizeof(r));
        /* times xi = 9 + u: (9 a0 - a1) + (a0 + 9 a1) u, in place */
        r = a;
        pl__bn254_fp2_mul_xi(&r, &r, v);
        mpz_mul_ui(e0, a0, 9);
        mpz_sub(e0, e0, a1);
        mpz_mod(e0, e0, mp.M);
        mpz_mul_ui(e1, a1, 9);
        mpz_add(e1, e1, a0);
        mpz_mod(e1, e1, mp.M);
        mont_of(want.c0.l, &mp, e0);
        mont_of(want.c1.l, &mp, e1);
        CHECK_MEM(&r, &want, sizeof(r));
        /* inverse: (a0 - a1 u) / (a0^2 + a1^2) */
        pl__bn254_fp2_inv(&r, &a, v);
        mpz_mul(n, a0, a0);
        mpz_addmul(n, a1, a1);
        mpz_mod(n, n, mp.M);
        CHECK(mpz_invert(n, n, mp.M) != 0);
        mpz_mul(e0, a0, n);
        mpz_mod(e0, e0, mp.M);
        mpz_neg(e1, a1);
        mpz_mul(e1, e1, n);
        mpz_mod(e1, e1, mp.M);
        mont_of(want.c0.l, &mp, e0);
        mont_of(want.c1.l, &mp, e1);
        CHECK_MEM(&r, &want, sizeof(r));
        /* conjugate and the rest */
        pl__bn254_fp2_conj(&r, &a, v);
        mpz_neg(e1, a1);
        mpz_mod(e1, e1, mp.M);
        mont_of(want.c1.l, &mp, e1);
        CHECK_MEM(&r.c0, &a.c0, 32);
        CHECK_MEM(&r.c1, &want.c1, 32);
        pl__bn254_fp2 s, d;
        pl__bn254_fp2_add(&s, &a, &b, v);
        pl__bn254_fp2_sub(&d, &s, &b, v);
        CHECK_MEM(&d, &a, sizeof(d));
        pl__bn254_fp2_mul3(&s, &a, v);
        pl__bn254_fp2_dbl(&d, &a, v);
        pl__bn254_fp2_add(&d, &d, &a, v);
        CHECK_MEM(&s, &d, sizeof(d));
    }
    mpz_clears(a0, a1, b0, b1, e0, e1, t, n, NULL);
    gmp_randclear(rs);
    modulus_clear(&mp);
}

static void frobenius_constants(void)
{
    modulus mp;
    modulus_init(&mp, PL__BN254_P, PL__BN254_P_INV);
    pl__bn254_arith v = pl__bn254_arith_best();
    pl__bn254_fp12 xi, g;
    memset(&xi, 0, sizeof(xi));
    pl__bn254_fp_from_u64(&xi.c0.c0.c0, 9);
    xi.c0.c0.c1 = PL__BN254_FP_ONE;
    mpz_t e;
    mpz_init(e);
    for (unsigned k = 1; k <= 5; k++) {
        mpz_sub_ui(e, mp.M, 1);
        mpz_mul_ui(e, e, k);
        CHECK(mpz_divisible_ui_p(e, 6));
        mpz_divexact_ui(e, e, 6);
        uint64_t ex[8] = {0};
        size_t count = 0;
        mpz_export(ex, &count, -1, sizeof(uint64_t), 0, 0, e);
        CHECK(count <= 8);
        pl__bn254_fp12_pow(&g, &xi, ex, 8, v);
        CHECK_MEM(&g.c0.c0, &pl__bn254_frob_gamma[k - 1], sizeof(g.c0.c0));
    }
    mpz_clear(e);
    modulus_clear(&mp);
}

#else /* no GMP */

static void no_gmp(void)
{
    bn254_skip("built without GMP (libgmp-dev; scripts/deps.sh installs it as "
               "root): the comparisons against it cannot run");
}

static void kernels_vs_gmp(const uint64_t *m, uint64_t inv, pl__bn254_arith v,
                           size_t rounds)
{
    no_gmp();
}

static void inverse_pow_sqrt(pl__bn254_arith v) { no_gmp(); }
static void bytes_round_trip(void) { no_gmp(); }
static void fp2_vs_gmp(pl__bn254_arith v) { no_gmp(); }
static void frobenius_constants(void) { no_gmp(); }

#endif

PL_TEST(fp_kernels_vs_gmp_portable)
{
    kernels_vs_gmp(PL__BN254_P, PL__BN254_P_INV, PL__BN254_PORTABLE, 20000);
}

PL_TEST(fp_kernels_vs_gmp_adx)
{
    kernels_vs_gmp(PL__BN254_P, PL__BN254_P_INV, PL__BN254_ADX, 20000);
}

PL_TEST(fr_kernels_vs_gmp_portable)
{
    kernels_vs_gmp(PL__BN254_R, PL__BN254_R_INV, PL__BN254_PORTABLE, 20000);
}

PL_TEST(fr_kernels_vs_gmp_adx)
{
    kernels_vs_gmp(PL__BN254_R, PL__BN254_R_INV, PL__BN254_ADX, 20000);
}

PL_TEST(inverse_pow_sqrt_vs_gmp_portable)
{
    inverse_pow_sqrt(PL__BN254_PORTABLE);
}

PL_TEST(inverse_pow_sqrt_vs_gmp_adx) { inverse_pow_sqrt(PL__BN254_ADX); }

/* Bytes: canonical values round-trip through standard and Montgomery
 * form; m, m + 1 and 2^256 - 1 are refused. */
PL_TEST(bytes_round_trip_and_canonical) { bytes_round_trip(); }

/* Fp2 = Fp[u]/(u^2 + 1) against GMP, both implementations */
PL_TEST(fp2_vs_gmp_portable) { fp2_vs_gmp(PL__BN254_PORTABLE); }

PL_TEST(fp2_vs_gmp_adx) { fp2_vs_gmp(PL__BN254_ADX); }

/* gamma_k = xi^(k (p - 1) / 6), computed here with Fp12 powers of xi */
PL_TEST(tower_frobenius_constants) { frobenius_constants(); }

/* ---- without GMP ----------------------------------------------------------
 */

static void random_fp12(uint64_t *rng, pl__bn254_fp12 *a)
{
    pl__bn254_fp *f = (pl__bn254_fp *)a;
    for (int i = 0; i < 12; i++) {
        uint8_t b[32];
        pl_test_random_bytes(rng, b, 32);
        b[31] &= 0x1f; /* < 2^253 < p */
        CHECK(pl__bn254_fp_from_le(&f[i], b));
    }
}

/* Fp6 and Fp12: a a^-1 = 1, (a b) c = a (b c), sqr = mul, frobenius = a^p,
 * frobenius^6 = conjugation, both implementations alike. */
PL_TEST(tower_identities)
{
    uint64_t rng = 5;
    pl__bn254_arith best = pl__bn254_arith_best();
    for (int k = 0; k < 20; k++) {
        pl__bn254_fp12 a, b, c, x, y, one;
        random_fp12(&rng, &a);
        random_fp12(&rng, &b);
        random_fp12(&rng, &c);
        pl__bn254_fp12_one(&one);
        for (int vi = 0; vi < 2; vi++) {
            pl__bn254_arith v = vi ? best : PL__BN254_PORTABLE;
            pl__bn254_fp12_inv(&x, &a, v);
            pl__bn254_fp12_mul(&x, &x, &a, v);
            CHECK(pl__bn254_fp12_is_one(&x));
            pl__bn254_fp6 s, t;
            pl__bn254_fp6_inv(&s, &a.c0, v);
            pl__bn254_fp6_mul(&t, &s, &a.c0, v);
            pl__bn254_fp12 t12;
            memset(&t12, 0, sizeof(t12));
            t12.c0 = t;
            CHECK(pl__bn254_fp12_is_one(&t12));
            pl__bn254_fp12_mul(&x, &a, &b, v);
            pl__bn254_fp12_mul(&x, &x, &c, v);
            pl__bn254_fp12_mul(&y, &b, &c, v);
            pl__bn254_fp12_mul(&y, &a, &y, v);
            CHECK(pl__bn254_fp12_eq(&x, &y));
            pl__bn254_fp12_sqr(&x, &a, v);
            pl__bn254_fp12_mul(&y, &a, &a, v);
            CHECK(pl__bn254_fp12_eq(&x, &y));
            pl__bn254_fp12_frobenius(&x, &a, v);
            pl__bn254_fp12_pow(&y, &a, PL__BN254_P, 4, v);
            CHECK(pl__bn254_fp12_eq(&x, &y));
            for (int i = 1; i < 6; i++)
                pl__bn254_fp12_frobenius(&x, &x, v);
            pl__bn254_fp12_conj(&y, &a, v);
            CHECK(pl__bn254_fp12_eq(&x, &y));
        }
    }
}

/* The implementation in use: the best the CPU has unless one is chosen,
 * and adx never where the CPU lacks it. */
PL_TEST(arith_choice)
{
    CHECK_EQ(pl__bn254_arith_current(), pl__bn254_arith_best());
    pl__bn254_set_arith(PL__BN254_PORTABLE);
    CHECK_EQ(pl__bn254_arith_current(), PL__BN254_PORTABLE);
    pl__bn254_set_arith(PL__BN254_ADX);
    CHECK_EQ(pl__bn254_arith_current(), pl__bn254_arith_best());
    printf("implementation: %s\n",
           pl__bn254_arith_name(pl__bn254_arith_best()));
}
