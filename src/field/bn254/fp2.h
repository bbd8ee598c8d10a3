/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's Fp2 = Fp[u] / (u^2 + 1), the field of G2's coordinates on the
 * sextic twist; c0 + c1 u, stored c0 then c1 as snarkjs stores them.  The
 * operations are always-inline over fp.h's, with the same implementation
 * argument (a constant in hot loops: the G2 MSM), but for the
 * multiplication and squaring, which are calls (see there); the inversion
 * is out of line (tower.c), per implementation as Fp's.
 */
#ifndef PL_FIELD_BN254_FP2_H
#define PL_FIELD_BN254_FP2_H

#include "field/bn254/fp.h"

#include <string.h>

typedef struct {
    pl__bn254_fp c0, c1;
} pl__bn254_fp2;

PL__BN254_INLINE void pl__bn254_fp2_add(pl__bn254_fp2 *r,
                                        const pl__bn254_fp2 *a,
                                        const pl__bn254_fp2 *b,
                                        pl__bn254_arith v)
{
    pl__bn254_fp_add(&r->c0, &a->c0, &b->c0, v);
    pl__bn254_fp_add(&r->c1, &a->c1, &b->c1, v);
}

PL__BN254_INLINE void pl__bn254_fp2_sub(pl__bn254_fp2 *r,
                                        const pl__bn254_fp2 *a,
                                        const pl__bn254_fp2 *b,
                                        pl__bn254_arith v)
{
    pl__bn254_fp_sub(&r->c0, &a->c0, &b->c0, v);
    pl__bn254_fp_sub(&r->c1, &a->c1, &b->c1, v);
}

PL__BN254_INLINE void
pl__bn254_fp2_dbl(pl__bn254_fp2 *r, const pl__bn254_fp2 *a, pl__bn254_arith v)
{
    pl__bn254_fp_add(&r->c0, &a->c0, &a->c0, v);
    pl__bn254_fp_add(&r->c1, &a->c1, &a->c1, v);
}

PL__BN254_INLINE void
pl__bn254_fp2_neg(pl__bn254_fp2 *r, const pl__bn254_fp2 *a, pl__bn254_arith v)
{
    pl__bn254_fp_neg(&r->c0, &a->c0, v);
    pl__bn254_fp_neg(&r->c1, &a->c1, v);
}

PL__BN254_INLINE void pl__bn254_fp2_cneg(pl__bn254_fp2 *r,
                                         const pl__bn254_fp2 *a, bool neg,
                                         pl__bn254_arith v)
{
    if (neg)
        pl__bn254_fp2_neg(r, a, v);
    else
        *r = *a;
}

/* the conjugate c0 - c1 u: the Frobenius map a -> a^p */
PL__BN254_INLINE void
pl__bn254_fp2_conj(pl__bn254_fp2 *r, const pl__bn254_fp2 *a, pl__bn254_arith v)
{
    r->c0 = a->c0;
    pl__bn254_fp_neg(&r->c1, &a->c1, v);
}

/* Karatsuba: 3 multiplications. */
PL__BN254_INLINE void pl__bn254_fp2_mul_inl(pl__bn254_fp2 *r,
                                            const pl__bn254_fp2 *a,
                                            const pl__bn254_fp2 *b,
                                            pl__bn254_arith v)
{
    pl__bn254_fp t0, t1, sa, sb;
    pl__bn254_fp_mul(&t0, &a->c0, &b->c0, v);
    pl__bn254_fp_mul(&t1, &a->c1, &b->c1, v);
    pl__bn254_fp_add(&sa, &a->c0, &a->c1, v);
    pl__bn254_fp_add(&sb, &b->c0, &b->c1, v);
    pl__bn254_fp_mul(&sa, &sa, &sb, v);
    pl__bn254_fp_sub(&r->c0, &t0, &t1, v);
    pl__bn254_fp_sub(&sa, &sa, &t0, v);
    pl__bn254_fp_sub(&r->c1, &sa, &t1, v);
}

/* (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 multiplications. */
PL__BN254_INLINE void pl__bn254_fp2_sqr_inl(pl__bn254_fp2 *r,
                                            const pl__bn254_fp2 *a,
                                            pl__bn254_arith v)
{
    pl__bn254_fp s, d, p;
    pl__bn254_fp_add(&s, &a->c0, &a->c1, v);
    pl__bn254_fp_sub(&d, &a->c0, &a->c1, v);
    pl__bn254_fp_mul(&p, &a->c0, &a->c1, v);
    pl__bn254_fp_mul(&r->c0, &s, &d, v);
    pl__bn254_fp_add(&r->c1, &p, &p, v);
}

/*
 * The multiplication and the squaring as calls, one per implementation
 * (each translation unit gets a copy of those it uses): three Fp
 * multiplications inlined at every Fp2 product of the twist's formulas made
 * functions too large for the compiler's register allocator (minutes and
 * gigabytes per file), for a call that costs a few percent of the work.
 */
PL__BN254_OUTLINE void pl__bn254_fp2_mul_portable(pl__bn254_fp2 *r,
                                                  const pl__bn254_fp2 *a,
                                                  const pl__bn254_fp2 *b)
{
    pl__bn254_fp2_mul_inl(r, a, b, PL__BN254_PORTABLE);
}

PL__BN254_OUTLINE void pl__bn254_fp2_mul_adx(pl__bn254_fp2 *r,
                                             const pl__bn254_fp2 *a,
                                             const pl__bn254_fp2 *b)
{
    pl__bn254_fp2_mul_inl(r, a, b, PL__BN254_ADX);
}

PL__BN254_OUTLINE void pl__bn254_fp2_sqr_portable(pl__bn254_fp2 *r,
                                                  const pl__bn254_fp2 *a)
{
    pl__bn254_fp2_sqr_inl(r, a, PL__BN254_PORTABLE);
}

PL__BN254_OUTLINE void pl__bn254_fp2_sqr_adx(pl__bn254_fp2 *r,
                                             const pl__bn254_fp2 *a)
{
    pl__bn254_fp2_sqr_inl(r, a, PL__BN254_ADX);
}

PL__BN254_INLINE void pl__bn254_fp2_mul(pl__bn254_fp2 *r,
                                        const pl__bn254_fp2 *a,
                                        const pl__bn254_fp2 *b,
                                        pl__bn254_arith v)
{
    if (v == PL__BN254_ADX)
        pl__bn254_fp2_mul_adx(r, a, b);
    else
        pl__bn254_fp2_mul_portable(r, a, b);
}

PL__BN254_INLINE void
pl__bn254_fp2_sqr(pl__bn254_fp2 *r, const pl__bn254_fp2 *a, pl__bn254_arith v)
{
    if (v == PL__BN254_ADX)
        pl__bn254_fp2_sqr_adx(r, a);
    else
        pl__bn254_fp2_sqr_portable(r, a);
}

PL__BN254_INLINE void
pl__bn254_fp2_mul3(pl__bn254_fp2 *r, const pl__bn254_fp2 *a, pl__bn254_arith v)
{
    pl__bn254_fp_mul3(&r->c0, &a->c0, v);
    pl__bn254_fp_mul3(&r->c1, &a->c1, v);
}

PL__BN254_INLINE void pl__bn254_fp2_mul_fp(pl__bn254_fp2 *r,
                                           const pl__bn254_fp2 *a,
                                           const pl__bn254_fp *b,
                                           pl__bn254_arith v)
{
    pl__bn254_fp_mul(&r->c0, &a->c0, b, v);
    pl__bn254_fp_mul(&r->c1, &a->c1, b, v);
}

/* r = a (9 + u), the non-residue xi of the towers above: (9 c0 - c1) +
 * (c0 + 9 c1) u, by additions. */
PL__BN254_INLINE void pl__bn254_fp2_mul_xi(pl__bn254_fp2 *r,
                                           const pl__bn254_fp2 *a,
                                           pl__bn254_arith v)
{
    pl__bn254_fp n0, n1, t;
    pl__bn254_fp_dbl(&t, &a->c0, v);
    pl__bn254_fp_dbl(&t, &t, v);
    pl__bn254_fp_dbl(&t, &t, v);
    pl__bn254_fp_add(&n0, &t, &a->c0, v); /* 9 c0 */
    pl__bn254_fp_dbl(&t, &a->c1, v);
    pl__bn254_fp_dbl(&t, &t, v);
    pl__bn254_fp_dbl(&t, &t, v);
    pl__bn254_fp_add(&n1, &t, &a->c1, v); /* 9 c1 */
    pl__bn254_fp_sub(&n0, &n0, &a->c1, v);
    pl__bn254_fp_add(&r->c1, &n1, &a->c0, v); /* r may be a */
    r->c0 = n0;
}

PL__BN254_INLINE bool pl__bn254_fp2_is_zero(const pl__bn254_fp2 *a)
{
    return pl__bn254_fp_is_zero(&a->c0) && pl__bn254_fp_is_zero(&a->c1);
}

PL__BN254_INLINE bool pl__bn254_fp2_eq(const pl__bn254_fp2 *a,
                                       const pl__bn254_fp2 *b)
{
    return pl__bn254_fp_eq(&a->c0, &b->c0) && pl__bn254_fp_eq(&a->c1, &b->c1);
}

PL__BN254_INLINE void pl__bn254_fp2_one(pl__bn254_fp2 *r)
{
    r->c0 = PL__BN254_FP_ONE;
    memset(&r->c1, 0, sizeof(r->c1));
}

/* r = a^-1 (0 for 0): (c0 - c1 u) / (c0^2 + c1^2). */
void pl__bn254_fp2_inv(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                       pl__bn254_arith v);
void pl__bn254_fp2_inv_portable(pl__bn254_fp2 *r, const pl__bn254_fp2 *a);
void pl__bn254_fp2_inv_adx(pl__bn254_fp2 *r, const pl__bn254_fp2 *a);

#endif /* PL_FIELD_BN254_FP2_H */
