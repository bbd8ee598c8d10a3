/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The curves proofline proves on, as one value the layers above the field
 * pass down (the NTT's field, the MSM's groups): BLS12-381 over blst
 * (field.h) and BN254 over our own arithmetic (field/bn254/).  The names
 * are snarkjs's ("curve" in its JSON files).
 */
#ifndef PL_FIELD_CURVE_H
#define PL_FIELD_CURVE_H

typedef enum {
    PL__CURVE_BLS12_381,
    PL__CURVE_BN254,
} pl__curve;

static inline const char *pl__curve_name(pl__curve c)
{
    return c == PL__CURVE_BN254 ? "bn128" : "bls12381";
}

#endif /* PL_FIELD_CURVE_H */
