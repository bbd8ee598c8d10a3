/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's optimal ate pairing e: G1 x G2 -> GT (the r-th roots of unity of
 * Fp12), for the verifier: a multi-pairing shares one Miller loop's
 * squarings and one final exponentiation among its pairs, so a Groth16
 * check (four pairs) costs little more than one pairing.  The value is the
 * canonical one (the final exponentiation raises to (p^12 - 1) / r
 * exactly), the same as the Ethereum precompile's reference (py_ecc),
 * snarkjs's and @noble/curves'.  Inputs must be group elements (curve.h's
 * checks); a pair with a point at infinity contributes 1.
 */
#ifndef PL_FIELD_BN254_PAIRING_H
#define PL_FIELD_BN254_PAIRING_H

#include "field/bn254/curve.h"
#include "field/bn254/tower.h"

/* out = prod_i e(p[i], q[i]); n = 0 gives 1. */
void pl__bn254_pairing(pl__bn254_fp12 *out, const pl__bn254_g1_affine *p,
                       const pl__bn254_g2_affine *q, size_t n,
                       pl__bn254_arith v);
/* prod_i e(p[i], q[i]) == 1 */
bool pl__bn254_pairing_is_one(const pl__bn254_g1_affine *p,
                              const pl__bn254_g2_affine *q, size_t n,
                              pl__bn254_arith v);

/* The two halves, for tests: the Miller loop f_(6u+2) times the two
 * Frobenius lines, and the final exponentiation. */
void pl__bn254_miller_loop(pl__bn254_fp12 *out, const pl__bn254_g1_affine *p,
                           const pl__bn254_g2_affine *q, size_t n,
                           pl__bn254_arith v);
void pl__bn254_final_exp(pl__bn254_fp12 *out, const pl__bn254_fp12 *f,
                         pl__bn254_arith v);

#endif /* PL_FIELD_BN254_PAIRING_H */
