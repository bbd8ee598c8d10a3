/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The last step of every Groth16 proof, written once for both provers (the
 * zkey's, groth16/prover.c, and the C2 one, groth16/c2.c): the key's fixed
 * points, the sums and the blinding in, the proof's three points out.
 *
 *   A  = alpha1 + a_sum + r delta1
 *   B  = beta2 + b2_sum + s delta2       (B1 = beta1 + b1_sum + s delta1)
 *   C  = c_sum + s A + r B1 - r s delta1
 *
 * c_sum is what the key's private query and H give together: the zkey's C
 * and H sums, or bellperson's l and h sums.  r = s = 0 gives the unblinded
 * proof.
 */
#ifndef PL_GROTH16_ASSEMBLE_H
#define PL_GROTH16_ASSEMBLE_H

#include "proofline.h"
#include "blst.h"
#include "groth16/key.h"

typedef struct pl__groth16_fixed {
    blst_p1 alpha1, beta1, delta1;
    blst_p2 beta2, delta2;
} pl__groth16_fixed;

/* r and s: standard-form scalars below the group order.  Every
 * intermediate that depends on them is scrubbed before it returns. */
void pl__groth16_assemble(pl_proof *out, const pl__groth16_fixed *key,
                          const blst_p1 *a_sum, const blst_p1 *b1_sum,
                          const blst_p2 *b2_sum, const blst_p1 *c_sum,
                          const blst_scalar *r, const blst_scalar *s);

/* The same on BN254: the sums are pl__bn254_g1 / pl__bn254_g2 (Jacobian)
 * in blst_p1 / blst_p2 storage (backend.h), r and s standard form below
 * BN254's r; the proof's points are the zkey's 64- and 128-byte affine
 * layout at the start of pl_proof's a, b, c (the rest zero). */
void pl__groth16_assemble_bn254(pl_proof *out,
                                const pl__groth16_fixed_bn254 *key,
                                const blst_p1 *a_sum, const blst_p1 *b1_sum,
                                const blst_p2 *b2_sum, const blst_p1 *c_sum,
                                const blst_p1 *h_sum, const blst_scalar *r,
                                const blst_scalar *s);

/* A blinding factor for the curve: uniform in [1, r) from getrandom, by
 * rejection (pl__fr_random_scalar's, then below BN254's r for BN254). */
pl_status pl__groth16_random_scalar(pl__curve curve, blst_scalar *out,
                                    pl_error *err);

#endif /* PL_GROTH16_ASSEMBLE_H */
