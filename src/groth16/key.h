/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Groth16 proving key in the skeleton's terms, whatever file it came
 * from: its shape (the domain, its roots, H's form, the base sets' counts),
 * its base sets, its fixed points and its public input count.  The two key
 * decoders fill it side by side:
 *
 *   groth16/zkey_prover.c   a snarkjs zkey: the sets are the zkey's
 *                           sections in place (A and B over every signal,
 *                           C over the private ones, H over the domain in
 *                           the odd coset's Lagrange basis), snarkjs's
 *                           roots;
 *   groth16/c2.c            a bellperson parameter file: its queries
 *                           decoded in place (a and b over the variables
 *                           their densities select, l over the auxiliary
 *                           ones, h over n - 1 monomial coefficients),
 *                           blstrs's roots.
 *
 * The key's curve is its shape's (shape.curve): a BLS12-381 key's fixed
 * points are blst's structs, a BN254 key's are in `bn254` (a zkey only:
 * bellperson's parameters are BLS12-381's), and its base sets the zkey's
 * 64- and 128-byte points.
 *
 * The skeleton (groth16/prover.h) proves over any such key; the engine
 * holds one per open circuit.  The key owns nothing: its pointers are into
 * memory its decoder keeps for as long as the key is used.
 */
#ifndef PL_GROTH16_KEY_H
#define PL_GROTH16_KEY_H

#include "backend/backend.h"
#include "blst.h"

/* BN254's fixed points (affine, field/bn254/curve.h). */
typedef struct pl__groth16_fixed_bn254 {
    pl__bn254_g1_affine alpha1, beta1, delta1;
    pl__bn254_g2_affine beta2, delta2;
} pl__groth16_fixed_bn254;

typedef struct pl__groth16_key {
    const char *path;            /* the key's file, for messages */
    pl__backend_shape shape;
    /* the G1 base sets, shape.counts[k] points each, blst_p1_affine's
     * bytes (any alignment); and B's G2 set, shape.counts[PL__SUM_B1]
     * blst_p2_affine's */
    const uint8_t *g1[PL__SUM_COUNT];
    const uint8_t *b2;
    blst_p1_affine alpha1, beta1, delta1;  /* BLS12-381's */
    blst_p2_affine beta2, delta2;
    pl__groth16_fixed_bn254 bn254;         /* BN254's */
    uint32_t n_public;           /* public inputs, ONE not counted */
} pl__groth16_key;

#endif /* PL_GROTH16_KEY_H */
