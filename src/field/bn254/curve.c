/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's G1 and G2 out of line (curve.h): the generators, curve and
 * subgroup checks, conversion to affine, equality, scalar multiplication
 * and G2's endomorphism psi.  Not hot: the implementation comes at run
 * time, and each call runs one of the two inline expansions of its body.
 */
#include "field/bn254/curve.h"
#include "field/bn254/tower.h"

const pl__bn254_g1_affine pl__bn254_g1_generator = {
    {{0xd35d438dc58f0d9d, 0x0a78eb28f5c70b3d, 0x666ea36f7879462c,
      0x0e0a77c19a07df2f}},
    {{0xa6ba871b8b1e1b3a, 0x14f1d651eb8e167b, 0xccdd46def0f28c58,
      0x1c14ef83340fbe5e}}};

const pl__bn254_g2_affine pl__bn254_g2_generator = {
    {{{0x8e83b5d102bc2026, 0xdceb1935497b0172, 0xfbb8264797811adf,
       0x19573841af96503b}},
     {{0xafb4737da84c6140, 0x6043dd5a5802d8c4, 0x09e950fc52a02f86,
       0x14fef0833aea7b6b}}},
    {{{0x619dfa9d886be9f6, 0xfe7fd297f59e9b78, 0xff9e1a62231b7dfe,
       0x28fd7eebae9e4206}},
     {{0x64095b56c71856ee, 0xdc57f922327d3cbb, 0x55f935be33351076,
       0x0da4a0e693fd6482}}}};

const pl__bn254_fp2 pl__bn254_twist_b = {
    {{0x3bf938e377b802a8, 0x020b1b273633535d, 0x26b7edf049755260,
      0x2514c6324384a86d}},
    {{0x38e7ecccd1dcff67, 0x65f0b37d93ce0d3e, 0xd749d0dd22ac00aa,
      0x0141b9ce4a688d4d}}};

/* 3 in Montgomery form, G1's b */
static const pl__bn254_fp g1_b = {{0x7a17caa950ad28d7, 0x1f6ac17ae15521b9,
                                   0x334bea4e696bd284, 0x2a1f6744ce179d8e}};

/* 6 u^2, u = 4965661367192848881 the curve's parameter: p mod r, psi's
 * eigenvalue on G2 */
static const uint64_t six_u2[4] = {0xf83e9682e87cfd46, 0x6f4d8248eeb859fb, 0,
                                   0};

/* ---- checks ---------------------------------------------------------------
 */

bool pl__bn254_g1_affine_on_curve(const pl__bn254_g1_affine *p,
                                  pl__bn254_arith v)
{
    if (pl__bn254_g1_affine_is_inf(p))
        return true;
    pl__bn254_fp l, rhs;
    pl__bn254_fp_sqr(&l, &p->y, v);
    pl__bn254_fp_sqr(&rhs, &p->x, v);
    pl__bn254_fp_mul(&rhs, &rhs, &p->x, v);
    pl__bn254_fp_add(&rhs, &rhs, &g1_b, v);
    return pl__bn254_fp_eq(&l, &rhs);
}

bool pl__bn254_g2_affine_on_curve(const pl__bn254_g2_affine *p,
                                  pl__bn254_arith v)
{
    if (pl__bn254_g2_affine_is_inf(p))
        return true;
    pl__bn254_fp2 l, rhs;
    pl__bn254_fp2_sqr(&l, &p->y, v);
    pl__bn254_fp2_sqr(&rhs, &p->x, v);
    pl__bn254_fp2_mul(&rhs, &rhs, &p->x, v);
    pl__bn254_fp2_add(&rhs, &rhs, &pl__bn254_twist_b, v);
    return pl__bn254_fp2_eq(&l, &rhs);
}

bool pl__bn254_g1_affine_in_group(const pl__bn254_g1_affine *p,
                                  pl__bn254_arith v)
{
    return pl__bn254_g1_affine_on_curve(p, v);
}

/*
 * G2 membership without multiplying by r.  E'(Fp2) has order r h with
 * h = 2p - r prime to r, so a point is Q = Q_r + Q_h, its parts in G2 and
 * in the h-torsion.  psi is an endomorphism of E' with
 * psi^2 - t psi + p = 0 (t = 6u^2 + 1, the trace of E), and on G2 it is
 * [p mod r] = [6u^2].  If psi(Q) = [6u^2] Q, then psi(Q_h) = [6u^2] Q_h
 * (psi and multiplication keep the two parts apart), so
 * (36u^4 - 6u^2 t + p) Q_h = 0: the order of Q_h divides
 * gcd(36u^4 - 6u^2 t + p, h), which is 1 (computed with Python's integers;
 * tests/test_bn254_curve.c checks the test on points of the twist outside
 * G2 against [r] Q).  So the test passes exactly on G2, for a 127-bit
 * multiplication instead of a 254-bit one.
 */
bool pl__bn254_g2_affine_in_group(const pl__bn254_g2_affine *p,
                                  pl__bn254_arith v)
{
    if (!pl__bn254_g2_affine_on_curve(p, v))
        return false;
    if (pl__bn254_g2_affine_is_inf(p))
        return true;
    pl__bn254_g2 q, lhs, rhs;
    pl__bn254_g2_from_affine(&q, p);
    pl__bn254_g2_psi(&lhs, &q, v);
    pl__bn254_g2_mul(&rhs, &q, six_u2, v);
    return pl__bn254_g2_eq(&lhs, &rhs, v);
}

/* ---- the operations, the implementation chosen at run time -----------------
 */

/* The implementation's instantiation of curve_impl.h's op. */
#define PL__BN254_PICK(op) (v == PL__BN254_ADX ? op##_adx : op##_portable)

void pl__bn254_g1_dbl(pl__bn254_g1 *r, const pl__bn254_g1 *p, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g1_dbl)(r, p);
}

void pl__bn254_g1_add(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                      const pl__bn254_g1 *q, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g1_add)(r, p, q);
}

void pl__bn254_g1_add_affine(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                             const pl__bn254_g1_affine *a, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g1_add_affine)(r, p, a);
}

void pl__bn254_g1_neg(pl__bn254_g1 *r, const pl__bn254_g1 *p, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g1_neg)(r, p);
}

void pl__bn254_g2_dbl(pl__bn254_g2 *r, const pl__bn254_g2 *p, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g2_dbl)(r, p);
}

void pl__bn254_g2_add(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                      const pl__bn254_g2 *q, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g2_add)(r, p, q);
}

void pl__bn254_g2_add_affine(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                             const pl__bn254_g2_affine *a, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g2_add_affine)(r, p, a);
}

void pl__bn254_g2_neg(pl__bn254_g2 *r, const pl__bn254_g2 *p, pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g2_neg)(r, p);
}

void pl__bn254_g1_to_affine(pl__bn254_g1_affine *r, const pl__bn254_g1 *p,
                            pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g1_to_affine)(r, p);
}

void pl__bn254_g2_to_affine(pl__bn254_g2_affine *r, const pl__bn254_g2 *p,
                            pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g2_to_affine)(r, p);
}

void pl__bn254_g1_batch_to_affine(pl__bn254_g1_affine *out,
                                  const pl__bn254_g1 *in, size_t n,
                                  pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g1_batch_to_affine)(out, in, n);
}

void pl__bn254_g2_batch_to_affine(pl__bn254_g2_affine *out,
                                  const pl__bn254_g2 *in, size_t n,
                                  pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g2_batch_to_affine)(out, in, n);
}

bool pl__bn254_g1_eq(const pl__bn254_g1 *p, const pl__bn254_g1 *q,
                     pl__bn254_arith v)
{
    return PL__BN254_PICK(pl__bn254_g1_eq)(p, q);
}

bool pl__bn254_g2_eq(const pl__bn254_g2 *p, const pl__bn254_g2 *q,
                     pl__bn254_arith v)
{
    return PL__BN254_PICK(pl__bn254_g2_eq)(p, q);
}

void pl__bn254_g1_mul(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                      const uint64_t k[4], pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g1_mul)(r, p, k);
}

void pl__bn254_g2_mul(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                      const uint64_t k[4], pl__bn254_arith v)
{
    PL__BN254_PICK(pl__bn254_g2_mul)(r, p, k);
}

/* Jacobian: conj commutes with the division by Z^2 and Z^3, so X and Y take
 * the constants and Z only the conjugation. */
void pl__bn254_g2_psi(pl__bn254_g2 *r, const pl__bn254_g2 *p, pl__bn254_arith v)
{
    pl__bn254_fp2 t;
    pl__bn254_fp2_conj(&t, &p->x, v);
    pl__bn254_fp2_mul(&r->x, &t, &pl__bn254_frob_gamma[1], v);
    pl__bn254_fp2_conj(&t, &p->y, v);
    pl__bn254_fp2_mul(&r->y, &t, &pl__bn254_frob_gamma[2], v);
    pl__bn254_fp2_conj(&r->z, &p->z, v);
}
