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

#endif /* PL_GROTH16_ASSEMBLE_H */
