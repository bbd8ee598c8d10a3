/* SPDX-License-Identifier: Apache-2.0 */
/* The proof's assembly from its sums and blinding (groth16/assemble.h). */
#include "groth16/assemble.h"

#include <string.h>

void pl__groth16_assemble(pl_proof *out, const pl__groth16_fixed *k,
                          const blst_p1 *a_sum, const blst_p1 *b1_sum,
                          const blst_p2 *b2_sum, const blst_p1 *c_sum,
                          const blst_scalar *r, const blst_scalar *s)
{
    blst_fr rf, sf, rsf;
    blst_scalar rs;
    blst_fr_from_scalar(&rf, r);
    blst_fr_from_scalar(&sf, s);
    blst_fr_mul(&rsf, &rf, &sf);
    blst_scalar_from_fr(&rs, &rsf);

    blst_p1 t1, a, b1, c;
    blst_p2 t2, b2;
    blst_p1_add_or_double(&a, &k->alpha1, a_sum);
    blst_p1_mult(&t1, &k->delta1, r->b, 255);
    blst_p1_add_or_double(&a, &a, &t1);
    blst_p2_add_or_double(&b2, &k->beta2, b2_sum);
    blst_p2_mult(&t2, &k->delta2, s->b, 255);
    blst_p2_add_or_double(&b2, &b2, &t2);
    blst_p1_add_or_double(&b1, &k->beta1, b1_sum);
    blst_p1_mult(&t1, &k->delta1, s->b, 255);
    blst_p1_add_or_double(&b1, &b1, &t1);
    blst_p1_mult(&t1, &a, s->b, 255);
    blst_p1_add_or_double(&c, c_sum, &t1);
    blst_p1_mult(&t1, &b1, r->b, 255);
    blst_p1_add_or_double(&c, &c, &t1);
    blst_p1_mult(&t1, &k->delta1, rs.b, 255);
    blst_p1_cneg(&t1, 1);
    blst_p1_add_or_double(&c, &c, &t1);

    blst_p1_affine a_aff, c_aff;
    blst_p2_affine b_aff;
    blst_p1_to_affine(&a_aff, &a);
    blst_p2_to_affine(&b_aff, &b2);
    blst_p1_to_affine(&c_aff, &c);
    memcpy(out->a.b, &a_aff, sizeof(out->a.b));
    memcpy(out->b.b, &b_aff, sizeof(out->b.b));
    memcpy(out->c.b, &c_aff, sizeof(out->c.b));

    /* the blinding and everything that would reveal it */
    memset(&rf, 0, sizeof(rf));
    memset(&sf, 0, sizeof(sf));
    memset(&rsf, 0, sizeof(rsf));
    memset(&rs, 0, sizeof(rs));
    memset(&b1, 0, sizeof(b1));
    memset(&t1, 0, sizeof(t1));
    memset(&t2, 0, sizeof(t2));
}
