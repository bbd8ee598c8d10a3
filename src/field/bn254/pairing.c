/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The optimal ate pairing of BN254 (pairing.h), from its definition
 * (Vercauteren, "Optimal pairings", 2010; the loop as the Ethereum
 * precompile's reference computes it):
 *     e(P, Q) = (f_(6u+2),Q(P) l_(T,pi(Q))(P) l_(T',-pi^2(Q))(P))^((p^12-1)/r)
 * with T = [6u+2] Q and T' = T + pi(Q).  Q runs on the twist in affine
 * coordinates (one Fp2 inversion a step: the verifier's few pairs do not
 * need more speed), and each line is evaluated at P through the untwist
 * (x, y) -> (x w^2, y w^3): the line through T with slope lambda is
 *     y_P - lambda x_P w + (lambda x_T - y_T) w^3,
 * an element of Fp12 with three Fp2 coefficients.  Vertical lines (and any
 * factor in a proper subfield) vanish in the final exponentiation: for
 * inputs of order r none is met anyway.
 *
 * The final exponentiation: the easy part f^((p^6 - 1)(p^2 + 1)) by a
 * conjugation, an inversion and two Frobenius maps; the hard part
 * (p^4 - p^2 + 1) / r by plain square-and-multiply over its 761 bits
 * (about a millisecond, the price of exactness without the addition chains
 * that compute a fixed power of the pairing instead).
 */
#include "field/bn254/pairing.h"

#include <string.h>

/* 6u + 2 = 0x19d797039be763ba8, 65 bits */
static const uint64_t ate_loop[2] = {0x9d797039be763ba8, 0x1};
#define PL__ATE_BITS 65

/* (p^4 - p^2 + 1) / r, little-endian limbs */
static const uint64_t hard_exp[12] = {
    0xe81bb482ccdf42b1, 0x5abf5cc4f49c36d4, 0xf1154e7e1da014fd,
    0xdcc7b44c87cdbacf, 0xaaa441e3954bcf8a, 0x6b887d56d5095f23,
    0x79581e16f3fd90c6, 0x3b1b1355d189227d, 0x4e529a5861876f6b,
    0x6c0eb522d5b12278, 0x331ec15183177faf, 0x01baaa710b0759ad};

/* pi on the twist: (conj(x) gamma_2, conj(y) gamma_3) */
static void twist_frobenius(pl__bn254_g2_affine *r,
                            const pl__bn254_g2_affine *q, pl__bn254_arith v)
{
    pl__bn254_fp2 t;
    pl__bn254_fp2_conj(&t, &q->x, v);
    pl__bn254_fp2_mul(&r->x, &t, &pl__bn254_frob_gamma[1], v);
    pl__bn254_fp2_conj(&t, &q->y, v);
    pl__bn254_fp2_mul(&r->y, &t, &pl__bn254_frob_gamma[2], v);
}

/*
 * f *= the line through T and Q at P (T = Q: the tangent), then T += Q.
 * T and Q are finite and T != -Q (points of order r in the loop never
 * meet that; see the top).
 */
static void line_step(pl__bn254_fp12 *f, pl__bn254_g2_affine *t,
                      const pl__bn254_g2_affine *q,
                      const pl__bn254_g1_affine *p, pl__bn254_arith v)
{
    pl__bn254_fp2 num, den, lambda, x3, y3, s;
    if (pl__bn254_fp2_eq(&t->x, &q->x)) {
        /* the tangent: 3 x^2 / 2 y */
        pl__bn254_fp2_sqr(&num, &t->x, v);
        pl__bn254_fp2_mul3(&num, &num, v);
        pl__bn254_fp2_dbl(&den, &t->y, v);
    } else {
        pl__bn254_fp2_sub(&num, &q->y, &t->y, v);
        pl__bn254_fp2_sub(&den, &q->x, &t->x, v);
    }
    pl__bn254_fp2_inv(&den, &den, v);
    pl__bn254_fp2_mul(&lambda, &num, &den, v);

    pl__bn254_fp12 l;
    memset(&l, 0, sizeof(l));
    l.c0.c0.c0 = p->y;
    pl__bn254_fp2_mul_fp(&s, &lambda, &p->x, v);
    pl__bn254_fp2_neg(&l.c1.c0, &s, v);
    pl__bn254_fp2_mul(&s, &lambda, &t->x, v);
    pl__bn254_fp2_sub(&l.c1.c1, &s, &t->y, v);
    pl__bn254_fp12_mul(f, f, &l, v);

    /* x3 = lambda^2 - xT - xQ, y3 = lambda (xT - x3) - yT */
    pl__bn254_fp2_sqr(&x3, &lambda, v);
    pl__bn254_fp2_sub(&x3, &x3, &t->x, v);
    pl__bn254_fp2_sub(&x3, &x3, &q->x, v);
    pl__bn254_fp2_sub(&s, &t->x, &x3, v);
    pl__bn254_fp2_mul(&y3, &lambda, &s, v);
    pl__bn254_fp2_sub(&y3, &y3, &t->y, v);
    t->x = x3;
    t->y = y3;
}

void pl__bn254_miller_loop(pl__bn254_fp12 *out, const pl__bn254_g1_affine *p,
                           const pl__bn254_g2_affine *q, size_t n,
                           pl__bn254_arith v)
{
    pl__bn254_fp12 f;
    pl__bn254_fp12_one(&f);
    /* one pass over the bits per pair would need n accumulators; one f
     * for all pairs shares the squarings, with each pair's T kept here */
    enum { PL__PAIRS_AT_ONCE = 8 };
    for (size_t i0 = 0; i0 < n; i0 += PL__PAIRS_AT_ONCE) {
        size_t k = n - i0 < PL__PAIRS_AT_ONCE ? n - i0 : PL__PAIRS_AT_ONCE;
        pl__bn254_g2_affine t[PL__PAIRS_AT_ONCE];
        bool live[PL__PAIRS_AT_ONCE];
        pl__bn254_fp12 g;
        pl__bn254_fp12_one(&g);
        for (size_t j = 0; j < k; j++) {
            live[j] = !pl__bn254_g1_affine_is_inf(&p[i0 + j]) &&
                      !pl__bn254_g2_affine_is_inf(&q[i0 + j]);
            t[j] = q[i0 + j];
        }
        for (int bit = PL__ATE_BITS - 2; bit >= 0; bit--) {
            pl__bn254_fp12_sqr(&g, &g, v);
            for (size_t j = 0; j < k; j++) {
                if (!live[j])
                    continue;
                pl__bn254_g2_affine tt = t[j];
                line_step(&g, &t[j], &tt, &p[i0 + j], v);
                if ((ate_loop[bit / 64] >> (bit % 64)) & 1)
                    line_step(&g, &t[j], &q[i0 + j], &p[i0 + j], v);
            }
        }
        for (size_t j = 0; j < k; j++) {
            if (!live[j])
                continue;
            pl__bn254_g2_affine q1, q2;
            twist_frobenius(&q1, &q[i0 + j], v);
            twist_frobenius(&q2, &q1, v);
            pl__bn254_fp2_neg(&q2.y, &q2.y, v);
            line_step(&g, &t[j], &q1, &p[i0 + j], v);
            line_step(&g, &t[j], &q2, &p[i0 + j], v);
        }
        pl__bn254_fp12_mul(&f, &f, &g, v);
    }
    *out = f;
}

void pl__bn254_final_exp(pl__bn254_fp12 *out, const pl__bn254_fp12 *f,
                         pl__bn254_arith v)
{
    pl__bn254_fp12 a, b;
    /* f^(p^6 - 1) = conj(f) / f */
    pl__bn254_fp12_inv(&a, f, v);
    pl__bn254_fp12_conj(&b, f, v);
    pl__bn254_fp12_mul(&a, &b, &a, v);
    /* ^(p^2 + 1) */
    pl__bn254_fp12_frobenius(&b, &a, v);
    pl__bn254_fp12_frobenius(&b, &b, v);
    pl__bn254_fp12_mul(&a, &a, &b, v);
    pl__bn254_fp12_pow(out, &a, hard_exp, 12, v);
}

void pl__bn254_pairing(pl__bn254_fp12 *out, const pl__bn254_g1_affine *p,
                       const pl__bn254_g2_affine *q, size_t n,
                       pl__bn254_arith v)
{
    pl__bn254_fp12 f;
    pl__bn254_miller_loop(&f, p, q, n, v);
    pl__bn254_final_exp(out, &f, v);
}

bool pl__bn254_pairing_is_one(const pl__bn254_g1_affine *p,
                              const pl__bn254_g2_affine *q, size_t n,
                              pl__bn254_arith v)
{
    pl__bn254_fp12 e;
    pl__bn254_pairing(&e, p, q, n, v);
    return pl__bn254_fp12_is_one(&e);
}
