/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's extension tower above Fp2, for the pairing (pairing.c) only:
 *   Fp6  = Fp2[v] / (v^3 - xi), xi = 9 + u,
 *   Fp12 = Fp6[w] / (w^2 - v),  so w^6 = xi.
 * The usual tower of the Ethereum precompiles (EIP-197) and of snarkjs's
 * ffjavascript; the pairing's values compare with theirs only after the
 * final exponentiation, which is canonical.  Out of line and not hot: each
 * call takes the implementation at run time.
 */
#ifndef PL_FIELD_BN254_TOWER_H
#define PL_FIELD_BN254_TOWER_H

#include "field/bn254/fp2.h"

typedef struct {
    pl__bn254_fp2 c0, c1, c2;
} pl__bn254_fp6;

typedef struct {
    pl__bn254_fp6 c0, c1;
} pl__bn254_fp12;

void pl__bn254_fp6_add(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       const pl__bn254_fp6 *b, pl__bn254_arith v);
void pl__bn254_fp6_sub(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       const pl__bn254_fp6 *b, pl__bn254_arith v);
void pl__bn254_fp6_neg(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       pl__bn254_arith v);
void pl__bn254_fp6_mul(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       const pl__bn254_fp6 *b, pl__bn254_arith v);
void pl__bn254_fp6_sqr(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       pl__bn254_arith v);
/* r = a v */
void pl__bn254_fp6_mul_v(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                         pl__bn254_arith v);
void pl__bn254_fp6_inv(pl__bn254_fp6 *r, const pl__bn254_fp6 *a,
                       pl__bn254_arith v);

void pl__bn254_fp12_one(pl__bn254_fp12 *r);
bool pl__bn254_fp12_is_one(const pl__bn254_fp12 *a);
bool pl__bn254_fp12_eq(const pl__bn254_fp12 *a, const pl__bn254_fp12 *b);
void pl__bn254_fp12_mul(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        const pl__bn254_fp12 *b, pl__bn254_arith v);
void pl__bn254_fp12_sqr(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        pl__bn254_arith v);
void pl__bn254_fp12_inv(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        pl__bn254_arith v);
/* a^(p^6): c0 - c1 w */
void pl__bn254_fp12_conj(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                         pl__bn254_arith v);
/* a^p */
void pl__bn254_fp12_frobenius(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                              pl__bn254_arith v);
/* r = a^e, e little-endian 64-bit limbs (nlimbs of them) */
void pl__bn254_fp12_pow(pl__bn254_fp12 *r, const pl__bn254_fp12 *a,
                        const uint64_t *e, size_t nlimbs, pl__bn254_arith v);

/* gamma_k = xi^(k (p - 1) / 6), k = 1..5 (index k - 1): Frobenius on
 * w^k, and on the twist (k = 2: x, k = 3: y). */
extern const pl__bn254_fp2 pl__bn254_frob_gamma[5];

#endif /* PL_FIELD_BN254_TOWER_H */
