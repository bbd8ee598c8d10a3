/* SPDX-License-Identifier: Apache-2.0 */
/* The proof's assembly from its sums and blinding (groth16/assemble.h),
 * per curve, and the blinding factors' draw. */
#include "groth16/assemble.h"
#include "field/bn254/serial.h"
#include "field/field.h"

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

/* 32 little-endian bytes as 4 limbs, for pl__bn254_*_mul. */
static void limbs_of(uint64_t k[4], const uint8_t b[32])
{
    for (int i = 0; i < 4; i++) {
        k[i] = 0;
        for (int j = 7; j >= 0; j--)
            k[i] = k[i] << 8 | b[8 * i + j];
    }
}

void pl__groth16_assemble_bn254(pl_proof *out,
                                const pl__groth16_fixed_bn254 *k,
                                const blst_p1 *a_sum_s, const blst_p1 *b1_sum_s,
                                const blst_p2 *b2_sum_s, const blst_p1 *c_sum_s,
                                const blst_p1 *h_sum_s, const blst_scalar *r,
                                const blst_scalar *s)
{
    const pl__bn254_arith v = pl__bn254_arith_current();
    const pl__bn254_g1 *a_sum = (const pl__bn254_g1 *)a_sum_s;
    const pl__bn254_g1 *b1_sum = (const pl__bn254_g1 *)b1_sum_s;
    const pl__bn254_g2 *b2_sum = (const pl__bn254_g2 *)b2_sum_s;
    const pl__bn254_g1 *c_sum = (const pl__bn254_g1 *)c_sum_s;
    const pl__bn254_g1 *h_sum = (const pl__bn254_g1 *)h_sum_s;
    uint64_t rk[4], sk[4], rsk[4];
    uint8_t rs_b[32];
    pl__bn254_fr rf, sf, rsf;
    /* r, s < r: read as canonical (the draw and the callers ensure it) */
    (void)pl__bn254_fr_from_le(&rf, r->b);
    (void)pl__bn254_fr_from_le(&sf, s->b);
    pl__bn254_fr_mul(&rsf, &rf, &sf, v);
    pl__bn254_fr_to_le(rs_b, &rsf);
    limbs_of(rk, r->b);
    limbs_of(sk, s->b);
    limbs_of(rsk, rs_b);

    pl__bn254_g1 delta1, t1, a, b1, c;
    pl__bn254_g2 t2, b2;
    pl__bn254_g1_from_affine(&delta1, &k->delta1);
    /* A = alpha1 + sum_A + r delta1 */
    pl__bn254_g1_add_affine(&a, a_sum, &k->alpha1, v);
    pl__bn254_g1_mul(&t1, &delta1, rk, v);
    pl__bn254_g1_add(&a, &a, &t1, v);
    /* B = beta2 + sum_B2 + s delta2 (and B1 in G1 for C) */
    pl__bn254_g2_from_affine(&t2, &k->delta2);
    pl__bn254_g2_mul(&t2, &t2, sk, v);
    pl__bn254_g2_add_affine(&b2, b2_sum, &k->beta2, v);
    pl__bn254_g2_add(&b2, &b2, &t2, v);
    pl__bn254_g1_add_affine(&b1, b1_sum, &k->beta1, v);
    pl__bn254_g1_mul(&t1, &delta1, sk, v);
    pl__bn254_g1_add(&b1, &b1, &t1, v);
    /* C = sum_C + sum_H + s A + r B1 - r s delta1 */
    pl__bn254_g1_add(&c, c_sum, h_sum, v);
    pl__bn254_g1_mul(&t1, &a, sk, v);
    pl__bn254_g1_add(&c, &c, &t1, v);
    pl__bn254_g1_mul(&t1, &b1, rk, v);
    pl__bn254_g1_add(&c, &c, &t1, v);
    pl__bn254_g1_mul(&t1, &delta1, rsk, v);
    pl__bn254_g1_neg(&t1, &t1, v);
    pl__bn254_g1_add(&c, &c, &t1, v);

    pl__bn254_g1_affine a_aff, c_aff;
    pl__bn254_g2_affine b_aff;
    pl__bn254_g1_to_affine(&a_aff, &a, v);
    pl__bn254_g2_to_affine(&b_aff, &b2, v);
    pl__bn254_g1_to_affine(&c_aff, &c, v);
    memset(out, 0, sizeof(*out));
    pl__bn254_g1_to_bytes(out->a.b, &a_aff);
    pl__bn254_g2_to_bytes(out->b.b, &b_aff);
    pl__bn254_g1_to_bytes(out->c.b, &c_aff);

    /* the blinding and everything that would reveal it */
    memset(rk, 0, sizeof(rk));
    memset(sk, 0, sizeof(sk));
    memset(rsk, 0, sizeof(rsk));
    memset(rs_b, 0, sizeof(rs_b));
    memset(&rf, 0, sizeof(rf));
    memset(&sf, 0, sizeof(sf));
    memset(&rsf, 0, sizeof(rsf));
    memset(&b1, 0, sizeof(b1));
    memset(&t1, 0, sizeof(t1));
    memset(&t2, 0, sizeof(t2));
}

pl_status pl__groth16_random_scalar(pl__curve curve, blst_scalar *out,
                                    pl_error *err)
{
    /* BLS12-381's draw is uniform in [1, r_bls) (getrandom, rejection);
     * kept only below BN254's r (< r_bls), it is uniform in [1, r): about
     * 4 draws in 7 are dropped */
    pl__bn254_fr f;
    pl_status st;
    do
        st = pl__fr_random_scalar(out, err);
    while (st == PL_OK && curve == PL__CURVE_BN254 &&
           !pl__bn254_fr_from_le(&f, out->b));
    memset(&f, 0, sizeof(f));
    return st;
}
