/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's groups: G1 = E(Fp), E: y^2 = x^3 + 3 (prime order r, cofactor
 * 1), and G2, the order-r subgroup of the sextic twist
 * E'(Fp2): y^2 = x^3 + 3 / (9 + u), cofactor 2p - r.  Affine points are
 * the zkey's layout (x then y, Montgomery limbs; all zero = infinity);
 * Jacobian points (X, Y, Z) with Z = 0 at infinity are the sums.
 *
 * The point operations are curve_impl.h's, instantiated here for both
 * groups and both implementations of fp.h (pl__bn254_g1_add_affine_adx,
 * pl__bn254_g2_dbl_portable, ...), for hot loops that fix the
 * implementation at compile time (the MSM); the same without the suffix,
 * the checks, scalar multiplication and conversions are in curve.c and
 * take the implementation at run time.
 */
#ifndef PL_FIELD_BN254_CURVE_H
#define PL_FIELD_BN254_CURVE_H

#include "field/bn254/fp2.h"

#include <string.h>

typedef struct {
    pl__bn254_fp x, y;
} pl__bn254_g1_affine;
typedef struct {
    pl__bn254_fp x, y, z;
} pl__bn254_g1;
typedef struct {
    pl__bn254_fp2 x, y;
} pl__bn254_g2_affine;
typedef struct {
    pl__bn254_fp2 x, y, z;
} pl__bn254_g2;

PL__BN254_INLINE void pl__bn254_fp_one(pl__bn254_fp *r)
{
    *r = PL__BN254_FP_ONE;
}

/* curve_impl.h's operations, per group and implementation:
 * pl__bn254_g1_add_portable, pl__bn254_g2_dbl_adx, ...; with the group's
 * first (PL__C_GROUP_ONCE) its tests for infinity and from_affine:
 * pl__bn254_g1_is_inf, pl__bn254_g2_affine_is_inf, ... */
#define PL__C_SFX(name) pl__bn254_g1_##name##_portable
#define PL__C_G(name) pl__bn254_g1_##name
#define PL__C_V PL__BN254_PORTABLE
#define PL__C_GROUP_ONCE
#define PL__C_F pl__bn254_fp
#define PL__C_AFF pl__bn254_g1_affine
#define PL__C_JAC pl__bn254_g1
#define PL__C_ONE pl__bn254_fp_one
#define PL__C_IS_ZERO pl__bn254_fp_is_zero
#define PL__C_ADD pl__bn254_fp_add
#define PL__C_SUB pl__bn254_fp_sub
#define PL__C_NEG pl__bn254_fp_neg
#define PL__C_MUL pl__bn254_fp_mul
#define PL__C_SQR pl__bn254_fp_sqr
#define PL__C_MUL3 pl__bn254_fp_mul3
#define PL__C_INV pl__bn254_fp_inv
#define PL__C_EQ pl__bn254_fp_eq
#include "field/bn254/curve_impl.h"

#define PL__C_SFX(name) pl__bn254_g1_##name##_adx
#define PL__C_G(name) pl__bn254_g1_##name
#define PL__C_V PL__BN254_ADX
#define PL__C_F pl__bn254_fp
#define PL__C_AFF pl__bn254_g1_affine
#define PL__C_JAC pl__bn254_g1
#define PL__C_ONE pl__bn254_fp_one
#define PL__C_IS_ZERO pl__bn254_fp_is_zero
#define PL__C_ADD pl__bn254_fp_add
#define PL__C_SUB pl__bn254_fp_sub
#define PL__C_NEG pl__bn254_fp_neg
#define PL__C_MUL pl__bn254_fp_mul
#define PL__C_SQR pl__bn254_fp_sqr
#define PL__C_MUL3 pl__bn254_fp_mul3
#define PL__C_INV pl__bn254_fp_inv
#define PL__C_EQ pl__bn254_fp_eq
#include "field/bn254/curve_impl.h"

#define PL__C_SFX(name) pl__bn254_g2_##name##_portable
#define PL__C_G(name) pl__bn254_g2_##name
#define PL__C_V PL__BN254_PORTABLE
#define PL__C_GROUP_ONCE
#define PL__C_F pl__bn254_fp2
#define PL__C_AFF pl__bn254_g2_affine
#define PL__C_JAC pl__bn254_g2
#define PL__C_ONE pl__bn254_fp2_one
#define PL__C_IS_ZERO pl__bn254_fp2_is_zero
#define PL__C_ADD pl__bn254_fp2_add
#define PL__C_SUB pl__bn254_fp2_sub
#define PL__C_NEG pl__bn254_fp2_neg
#define PL__C_MUL pl__bn254_fp2_mul
#define PL__C_SQR pl__bn254_fp2_sqr
#define PL__C_MUL3 pl__bn254_fp2_mul3
#define PL__C_INV pl__bn254_fp2_inv
#define PL__C_EQ pl__bn254_fp2_eq
#include "field/bn254/curve_impl.h"

#define PL__C_SFX(name) pl__bn254_g2_##name##_adx
#define PL__C_G(name) pl__bn254_g2_##name
#define PL__C_V PL__BN254_ADX
#define PL__C_F pl__bn254_fp2
#define PL__C_AFF pl__bn254_g2_affine
#define PL__C_JAC pl__bn254_g2
#define PL__C_ONE pl__bn254_fp2_one
#define PL__C_IS_ZERO pl__bn254_fp2_is_zero
#define PL__C_ADD pl__bn254_fp2_add
#define PL__C_SUB pl__bn254_fp2_sub
#define PL__C_NEG pl__bn254_fp2_neg
#define PL__C_MUL pl__bn254_fp2_mul
#define PL__C_SQR pl__bn254_fp2_sqr
#define PL__C_MUL3 pl__bn254_fp2_mul3
#define PL__C_INV pl__bn254_fp2_inv
#define PL__C_EQ pl__bn254_fp2_eq
#include "field/bn254/curve_impl.h"

/* The group operations out of line (r may be an operand). */
void pl__bn254_g1_dbl(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                      pl__bn254_arith v);
void pl__bn254_g1_add(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                      const pl__bn254_g1 *q, pl__bn254_arith v);
void pl__bn254_g1_add_affine(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                             const pl__bn254_g1_affine *a, pl__bn254_arith v);
void pl__bn254_g1_neg(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                      pl__bn254_arith v);
void pl__bn254_g2_dbl(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                      pl__bn254_arith v);
void pl__bn254_g2_add(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                      const pl__bn254_g2 *q, pl__bn254_arith v);
void pl__bn254_g2_add_affine(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                             const pl__bn254_g2_affine *a, pl__bn254_arith v);
void pl__bn254_g2_neg(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                      pl__bn254_arith v);

/* The generators: G1 = (1, 2); G2 as EIP-197 and snarkjs define it. */
extern const pl__bn254_g1_affine pl__bn254_g1_generator;
extern const pl__bn254_g2_affine pl__bn254_g2_generator;
/* 3 / (9 + u), the twist's b */
extern const pl__bn254_fp2 pl__bn254_twist_b;

/* On the curve (the point at infinity is). */
bool pl__bn254_g1_affine_on_curve(const pl__bn254_g1_affine *p,
                                  pl__bn254_arith v);
bool pl__bn254_g2_affine_on_curve(const pl__bn254_g2_affine *p,
                                  pl__bn254_arith v);
/* On the curve and in the order-r subgroup: for G1 the curve check (the
 * cofactor is 1); for G2 the test psi(Q) = [6 u^2] Q (curve.c says why it
 * is sound). */
bool pl__bn254_g1_affine_in_group(const pl__bn254_g1_affine *p,
                                  pl__bn254_arith v);
bool pl__bn254_g2_affine_in_group(const pl__bn254_g2_affine *p,
                                  pl__bn254_arith v);

/* Jacobian -> affine (infinity -> all zero). */
void pl__bn254_g1_to_affine(pl__bn254_g1_affine *r, const pl__bn254_g1 *p,
                            pl__bn254_arith v);
void pl__bn254_g2_to_affine(pl__bn254_g2_affine *r, const pl__bn254_g2 *p,
                            pl__bn254_arith v);
/* n of them for one inversion; out and in must not overlap. */
void pl__bn254_g1_batch_to_affine(pl__bn254_g1_affine *out,
                                  const pl__bn254_g1 *in, size_t n,
                                  pl__bn254_arith v);
void pl__bn254_g2_batch_to_affine(pl__bn254_g2_affine *out,
                                  const pl__bn254_g2 *in, size_t n,
                                  pl__bn254_arith v);
/* The same group element (any Z). */
bool pl__bn254_g1_eq(const pl__bn254_g1 *p, const pl__bn254_g1 *q,
                     pl__bn254_arith v);
bool pl__bn254_g2_eq(const pl__bn254_g2 *p, const pl__bn254_g2 *q,
                     pl__bn254_arith v);

/* r = [k] p for a 4-limb little-endian k (any 256-bit value; the group
 * has order r, so k acts mod r), double-and-add: for tests, the verifier
 * and small sums, not the MSM. */
void pl__bn254_g1_mul(pl__bn254_g1 *r, const pl__bn254_g1 *p,
                      const uint64_t k[4], pl__bn254_arith v);
void pl__bn254_g2_mul(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                      const uint64_t k[4], pl__bn254_arith v);

/* G2's endomorphism psi (untwist, Frobenius, twist): (conj(x) gamma_2,
 * conj(y) gamma_3); it acts on G2 as [p] = [6 u^2]. */
void pl__bn254_g2_psi(pl__bn254_g2 *r, const pl__bn254_g2 *p,
                      pl__bn254_arith v);

#endif /* PL_FIELD_BN254_CURVE_H */
