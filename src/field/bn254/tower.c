/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's Fp2 inversion and the Fp6 / Fp12 arithmetic of tower.h: the
 * textbook Karatsuba formulas of the cubic and quadratic extensions, the
 * Frobenius map from the constants gamma_k, and powers.  Used by the
 * pairing; the MSM needs Fp2's inversion only (its per-implementation
 * entry points).
 */
#include "field/bn254/tower.h"

#include <string.h>

const pl__bn254_fp2 pl__bn254_frob_gamma[5] = {
    {{{0xaf9ba69633144907, 0xca6b1d7387afb78a, 0x11bded5ef08a2087,
       0x02f34d751a1f3a7c}},
     {{0xa222ae234c492d72, 0xd00f02a4565de15b, 0xdc2ff3a253dfc926,
       0x10a75716b3899551}}},
    {{{0xb5773b104563ab30, 0x347f91c8a9aa6454, 0x7a007127242e0991,
       0x1956bcd8118214ec}},
     {{0x6e849f1ea0aa4757, 0xaa1c7b6d89f89141, 0xb6e713cdfae0ca3a,
       0x26694fbb4e82ebc3}}},
    {{{0xe4bbdd0c2936b629, 0xbb30f162e133bacb, 0x31a9d1b6f9645366,
       0x253570bea500f8dd}},
     {{0xa1d77ce45ffe77c7, 0x07affd117826d1db, 0x6d16bd27bb7edc6b,
       0x2c87200285defecc}}},
    {{{0x7361d77f843abe92, 0xa5bb2bd3273411fb, 0x9c941f314b3e2399,
       0x15df9cddbb9fd3ec}},
     {{0x5dddfd154bd8c949, 0x62cb29a5a4445b60, 0x37bc870a0c7dd2b9,
       0x24830a9d3171f0fd}}},
    {{{0xc970692f41690fe7, 0xe240342127694b0b, 0x32bee66b83c459e8,
       0x12aabced0ab08841}},
     {{0x0d485d2340aebfa9, 0x05193418ab2fcc57, 0xd3b0a40b8a4910f5,
       0x2f21ebb535d2925a}}},
};

/* ---- Fp2 inversion --------------------------------------------------------
 */

PL__BN254_INLINE void fp2_inv(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                              pl__bn254_arith v)
{
    pl__bn254_fp t0, t1;
    pl__bn254_fp_sqr(&t0, &a->c0, v);
    pl__bn254_fp_sqr(&t1, &a->c1, v);
    pl__bn254_fp_add(&t0, &t0, &t1, v);
    pl__bn254_fp_inv(&t0, &t0, v);
    pl__bn254_fp_mul(&r->c0, &a->c0, &t0, v);
    pl__bn254_fp_mul(&t1, &a->c1, &t0, v);
    pl__bn254_fp_neg(&r->c1, &t1, v);
}

void pl__bn254_fp2_inv_portable(pl__bn254_fp2 *r, const pl__bn254_fp2 *a)
{
    fp2_inv(r, a, PL__BN254_PORTABLE);
}

void pl__bn254_fp2_inv_adx(pl__bn254_fp2 *r, const pl__bn254_fp2 *a)
{
    fp2_inv(r, a, PL__BN254_ADX);
}

void pl__bn254_fp2_inv(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                       pl__bn254_arith v)
{
    if (v == PL__BN254_ADX)
        pl__bn254_fp2_inv_adx(r, a);
    else
        pl__bn254_fp2_inv_portable(r, a);
}

/* ---- Fp2, out of line for the tower -------------------------------------- */

/* The tower's Fp2 operations as calls: the inline forms would be expanded
 * for both implementations at every one of the many sites below. */
static void f2_add(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                   const pl__bn254_fp2 *b, pl__bn254_arith v)
{
    pl__bn254_fp2_add(r, a, b, v);
}

static void f2_sub(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                   const pl__bn254_fp2 *b, pl__bn254_arith v)
{
    pl__bn254_fp2_sub(r, a, b, v);
}

static void f2_mul_xi(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                      pl__bn254_arith v)
{
    pl__bn254_fp2_mul_xi(r, a, v);
}

/* ---- Fp6 ------------------------------------------------------------------
 */

void pl__bn254_fp6_add(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       const pl__bn254_fp6 *b, pl__bn254_arith v)
{
    f2_add(&r->c0, &a->c0, &b->c0, v);
    f2_add(&r->c1, &a->c1, &b->c1, v);
    f2_add(&r->c2, &a->c2, &b->c2, v);
}

void pl__bn254_fp6_sub(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       const pl__bn254_fp6 *b, pl__bn254_arith v)
{
    f2_sub(&r->c0, &a->c0, &b->c0, v);
    f2_sub(&r->c1, &a->c1, &b->c1, v);
    f2_sub(&r->c2, &a->c2, &b->c2, v);
}

void pl__bn254_fp6_neg(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       pl__bn254_arith v)
{
    pl__bn254_fp2_neg(&r->c0, &a->c0, v);
    pl__bn254_fp2_neg(&r->c1, &a->c1, v);
    pl__bn254_fp2_neg(&r->c2, &a->c2, v);
}

/* Karatsuba over the cubic extension: 6 Fp2 multiplications. */
void pl__bn254_fp6_mul(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       const pl__bn254_fp6 *b, pl__bn254_arith v)
{
    pl__bn254_fp2 t0, t1, t2, s, u, c0, c1, c2;
    pl__bn254_fp2_mul(&t0, &a->c0, &b->c0, v);
    pl__bn254_fp2_mul(&t1, &a->c1, &b->c1, v);
    pl__bn254_fp2_mul(&t2, &a->c2, &b->c2, v);
    /* c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2) */
    f2_add(&s, &a->c1, &a->c2, v);
    f2_add(&u, &b->c1, &b->c2, v);
    pl__bn254_fp2_mul(&s, &s, &u, v);
    f2_sub(&s, &s, &t1, v);
    f2_sub(&s, &s, &t2, v);
    f2_mul_xi(&s, &s, v);
    f2_add(&c0, &s, &t0, v);
    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2 */
    f2_add(&s, &a->c0, &a->c1, v);
    f2_add(&u, &b->c0, &b->c1, v);
    pl__bn254_fp2_mul(&s, &s, &u, v);
    f2_sub(&s, &s, &t0, v);
    f2_sub(&s, &s, &t1, v);
    f2_mul_xi(&u, &t2, v);
    f2_add(&c1, &s, &u, v);
    /* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    f2_add(&s, &a->c0, &a->c2, v);
    f2_add(&u, &b->c0, &b->c2, v);
    pl__bn254_fp2_mul(&s, &s, &u, v);
    f2_sub(&s, &s, &t0, v);
    f2_sub(&s, &s, &t2, v);
    f2_add(&c2, &s, &t1, v);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void pl__bn254_fp6_sqr(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       pl__bn254_arith v)
{
    pl__bn254_fp6_mul(r, a, a, v);
}

void pl__bn254_fp6_mul_v(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                         pl__bn254_arith v)
{
    pl__bn254_fp2 t;
    f2_mul_xi(&t, &a->c2, v);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* (a0 + a1 v + a2 v^2)^-1 = (A + B v + C v^2) / N with A = a0^2 - xi a1 a2,
 * B = xi a2^2 - a0 a1, C = a1^2 - a0 a2, N = a0 A + xi (a2 B + a1 C). */
void pl__bn254_fp6_inv(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       pl__bn254_arith v)
{
    pl__bn254_fp2 A, B, C, t, n;
    pl__bn254_fp2_sqr(&A, &a->c0, v);
    pl__bn254_fp2_mul(&t, &a->c1, &a->c2, v);
    f2_mul_xi(&t, &t, v);
    f2_sub(&A, &A, &t, v);
    pl__bn254_fp2_sqr(&B, &a->c2, v);
    f2_mul_xi(&B, &B, v);
    pl__bn254_fp2_mul(&t, &a->c0, &a->c1, v);
    f2_sub(&B, &B, &t, v);
    pl__bn254_fp2_sqr(&C, &a->c1, v);
    pl__bn254_fp2_mul(&t, &a->c0, &a->c2, v);
    f2_sub(&C, &C, &t, v);
    pl__bn254_fp2_mul(&n, &a->c2, &B, v);
    pl__bn254_fp2_mul(&t, &a->c1, &C, v);
    f2_add(&n, &n, &t, v);
    f2_mul_xi(&n, &n, v);
    pl__bn254_fp2_mul(&t, &a->c0, &A, v);
    f2_add(&n, &n, &t, v);
    pl__bn254_fp2_inv(&n, &n, v);
    pl__bn254_fp2_mul(&r->c0, &A, &n, v);
    pl__bn254_fp2_mul(&r->c1, &B, &n, v);
    pl__bn254_fp2_mul(&r->c2, &C, &n, v);
}

/* ---- Fp12 -----------------------------------------------------------------
 */

void pl__bn254_fp12_one(pl__bn254_fp12 *r)
{
    memset(r, 0, sizeof(*r));
    r->c0.c0.c0 = PL__BN254_FP_ONE;
}

bool pl__bn254_fp12_eq(const pl__bn254_fp12 *a, const pl__bn254_fp12 *b)
{
    return memcmp(a, b, sizeof(*a)) == 0; /* values are fully reduced */
}

bool pl__bn254_fp12_is_one(const pl__bn254_fp12 *a)
{
    pl__bn254_fp12 one;
    pl__bn254_fp12_one(&one);
    return pl__bn254_fp12_eq(a, &one);
}

/* (a0 + a1 w)(b0 + b1 w) = a0 b0 + v a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0
 * - a1 b1) w: 3 Fp6 multiplications. */
void pl__bn254_fp12_mul(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        const pl__bn254_fp12 *b, pl__bn254_arith v)
{
    pl__bn254_fp6 t0, t1, s, u;
    pl__bn254_fp6_mul(&t0, &a->c0, &b->c0, v);
    pl__bn254_fp6_mul(&t1, &a->c1, &b->c1, v);
    pl__bn254_fp6_add(&s, &a->c0, &a->c1, v);
    pl__bn254_fp6_add(&u, &b->c0, &b->c1, v);
    pl__bn254_fp6_mul(&s, &s, &u, v);
    pl__bn254_fp6_sub(&s, &s, &t0, v);
    pl__bn254_fp6_sub(&r->c1, &s, &t1, v);
    pl__bn254_fp6_mul_v(&t1, &t1, v);
    pl__bn254_fp6_add(&r->c0, &t0, &t1, v);
}

/* (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - (1 + v) a0 a1 + 2 a0 a1 w: 2 Fp6
 * multiplications. */
void pl__bn254_fp12_sqr(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        pl__bn254_arith v)
{
    pl__bn254_fp6 p, s, t, pv;
    pl__bn254_fp6_mul(&p, &a->c0, &a->c1, v);
    pl__bn254_fp6_add(&s, &a->c0, &a->c1, v);
    pl__bn254_fp6_mul_v(&t, &a->c1, v);
    pl__bn254_fp6_add(&t, &t, &a->c0, v);
    pl__bn254_fp6_mul(&s, &s, &t, v);
    pl__bn254_fp6_mul_v(&pv, &p, v);
    pl__bn254_fp6_sub(&s, &s, &p, v);
    pl__bn254_fp6_sub(&r->c0, &s, &pv, v);
    pl__bn254_fp6_add(&r->c1, &p, &p, v);
}

/* (a0 - a1 w) / (a0^2 - v a1^2) */
void pl__bn254_fp12_inv(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        pl__bn254_arith v)
{
    pl__bn254_fp6 t0, t1;
    pl__bn254_fp6_sqr(&t0, &a->c0, v);
    pl__bn254_fp6_sqr(&t1, &a->c1, v);
    pl__bn254_fp6_mul_v(&t1, &t1, v);
    pl__bn254_fp6_sub(&t0, &t0, &t1, v);
    pl__bn254_fp6_inv(&t0, &t0, v);
    pl__bn254_fp6_mul(&r->c0, &a->c0, &t0, v);
    pl__bn254_fp6_mul(&t1, &a->c1, &t0, v);
    pl__bn254_fp6_neg(&r->c1, &t1, v);
}

void pl__bn254_fp12_conj(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                         pl__bn254_arith v)
{
    r->c0 = a->c0;
    pl__bn254_fp6_neg(&r->c1, &a->c1, v);
}

/*
 * Over Fp2, a = sum_k a_k w^k with (a_0, a_2, a_4) = c0's coefficients and
 * (a_1, a_3, a_5) = c1's (v = w^2).  (a_k w^k)^p = conj(a_k) w^(k p) and
 * w^(k p) = w^k (w^6)^(k (p - 1) / 6) = w^k gamma_k, as p = 1 mod 6.
 */
void pl__bn254_fp12_frobenius(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                              pl__bn254_arith v)
{
    pl__bn254_fp2 *out[6] = {&r->c0.c0, &r->c1.c0, &r->c0.c1,
                             &r->c1.c1, &r->c0.c2, &r->c1.c2};
    const pl__bn254_fp2 *in[6] = {&a->c0.c0, &a->c1.c0, &a->c0.c1,
                                  &a->c1.c1, &a->c0.c2, &a->c1.c2};
    for (int k = 0; k < 6; k++) {
        pl__bn254_fp2 c;
        pl__bn254_fp2_conj(&c, in[k], v);
        if (k > 0)
            pl__bn254_fp2_mul(&c, &c, &pl__bn254_frob_gamma[k - 1], v);
        *out[k] = c;
    }
}

void pl__bn254_fp12_pow(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        const uint64_t *e, size_t nlimbs, pl__bn254_arith v)
{
    pl__bn254_fp12 acc, base = *a;
    pl__bn254_fp12_one(&acc);
    bool started = false;
    for (size_t bit = 64 * nlimbs; bit-- > 0;) {
        if (started)
            pl__bn254_fp12_sqr(&acc, &acc, v);
        if ((e[bit / 64] >> (bit % 64)) & 1) {
            pl__bn254_fp12_mul(&acc, &acc, &base, v);
            started = true;
        }
    }
    *r = acc;
}
