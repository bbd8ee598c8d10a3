/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One BN254 group in one field implementation for msm_affine_impl.h: the
 * parameters that file takes, in terms of field/bn254's always-inline
 * operations called with the constant implementation PL__BN_V, so each
 * instantiation is one implementation's code throughout.  msm_bn254.c
 * includes it four times, after defining PL__BN_GROUP (1 or 2), PL__BN_V
 * and PL__BN_SUF (the implementation, and the suffix of curve.h's
 * functions for it), PL__SFX and PL__G_NAME; it uses msm_bn254.c's scalar
 * functions, betas and defaults, and defines the group's sum point by
 * point (small).  No header guard on purpose.
 */

#if PL__BN_GROUP == 1
#define PL__F pl__bn254_fp
#define PL__AFF pl__bn254_g1_affine
#define PL__JAC pl__bn254_g1
#define PL__F_ONE(r) (*(r) = PL__BN254_FP_ONE)
#define PL__F_ADD(r, a, b) pl__bn254_fp_add(r, a, b, PL__BN_V)
#define PL__F_SUB(r, a, b) pl__bn254_fp_sub(r, a, b, PL__BN_V)
#define PL__F_MUL(r, a, b) pl__bn254_fp_mul(r, a, b, PL__BN_V)
#define PL__F_SQR(r, a) pl__bn254_fp_sqr(r, a, PL__BN_V)
#define PL__F_MUL3(r, a) pl__bn254_fp_mul3(r, a, PL__BN_V)
#define PL__F_CNEG(r, a, neg) pl__bn254_fp_cneg(r, a, neg, PL__BN_V)
#define PL__F_INV(r, a)                                                        \
    (PL__BN_V == PL__BN254_ADX ? pl__bn254_fp_inv_adx(r, a)                    \
                               : pl__bn254_fp_inv_portable(r, a))
#define PL__F_ENDO(x, beta) pl__bn254_fp_mul(x, x, beta, PL__BN_V)
#define PL__JAC_ADD_AFF(r, p, a) PL__BN_SUF(pl__bn254_g1_add_affine)(r, p, a)
#define PL__JAC_ADD(r, p, q) PL__BN_SUF(pl__bn254_g1_add)(r, p, q)
#define PL__JAC_FROM_AFF(r, a) pl__bn254_g1_from_affine(r, a)
#define PL__JAC_DBL(r, p) PL__BN_SUF(pl__bn254_g1_dbl)(r, p)
#define PL__BETA_INIT beta_g1
#define PL__G_SMALL_BELOW PL__BN_SMALL_G1
/* An inversion (Fermat: about 316 multiplications) against a batched
 * addition (about 6.5). */
#define PL__G_INV_COST 48.0
#define PL__G_DEFAULT_GLV &g1_default_mode
#define PL__BN_MUL PL__BN_SUF(pl__bn254_g1_mul)
#else
#define PL__F pl__bn254_fp2
#define PL__AFF pl__bn254_g2_affine
#define PL__JAC pl__bn254_g2
#define PL__F_ONE(r) pl__bn254_fp2_one(r)
#define PL__F_ADD(r, a, b) pl__bn254_fp2_add(r, a, b, PL__BN_V)
#define PL__F_SUB(r, a, b) pl__bn254_fp2_sub(r, a, b, PL__BN_V)
#define PL__F_MUL(r, a, b) pl__bn254_fp2_mul(r, a, b, PL__BN_V)
#define PL__F_SQR(r, a) pl__bn254_fp2_sqr(r, a, PL__BN_V)
#define PL__F_MUL3(r, a) pl__bn254_fp2_mul3(r, a, PL__BN_V)
#define PL__F_CNEG(r, a, neg) pl__bn254_fp2_cneg(r, a, neg, PL__BN_V)
#define PL__F_INV(r, a)                                                        \
    (PL__BN_V == PL__BN254_ADX ? pl__bn254_fp2_inv_adx(r, a)                   \
                               : pl__bn254_fp2_inv_portable(r, a))
#define PL__F_ENDO(x, beta) pl__bn254_fp2_mul_fp(x, x, beta, PL__BN_V)
#define PL__JAC_ADD_AFF(r, p, a) PL__BN_SUF(pl__bn254_g2_add_affine)(r, p, a)
#define PL__JAC_ADD(r, p, q) PL__BN_SUF(pl__bn254_g2_add)(r, p, q)
#define PL__JAC_FROM_AFF(r, a) pl__bn254_g2_from_affine(r, a)
#define PL__JAC_DBL(r, p) PL__BN_SUF(pl__bn254_g2_dbl)(r, p)
#define PL__BETA_INIT beta_g2
#define PL__G_SMALL_BELOW PL__BN_SMALL_G2
/* An Fp2 inversion (an Fp one and 6 multiplications) against a batched
 * addition (about 6 Fp2 multiplications, 20 of Fp). */
#define PL__G_INV_COST 16.0
#define PL__G_DEFAULT_GLV &g2_default_mode
#define PL__BN_MUL PL__BN_SUF(pl__bn254_g2_mul)
#endif
#define PL__BETA_T pl__bn254_fp
#define PL__S_LOAD scalar_load
#define PL__S_FOLD scalar_fold
#define PL__S_GLV_SPLIT glv_split
#define PL__G_SMALL_BYTES small_bytes

/* The sum point by point (see msm_bn254.c). */
static pl_status PL__SFX(small)(void *out, const uint8_t *points,
                                const uint8_t *scalars, size_t n,
                                pl__pool *pool, pl_error *err)
{
    if (n > PL__MAX_N)
        return too_many(n, err);
    PL__JAC acc, p, t;
    memset(&acc, 0, sizeof(acc));
    for (size_t i = 0; i < n; i++) {
        PL__AFF a;
        uint64_t s[4];
        memcpy(&a, points + i * sizeof(a), sizeof(a));
        scalar_load(s, scalars + 32 * i);
        PL__JAC_FROM_AFF(&p, &a);
        PL__BN_MUL(&t, &p, s);
        PL__JAC_ADD(&acc, &acc, &t);
    }
    memcpy(out, &acc, sizeof(acc));
    return PL_OK;
}
#define PL__G_SMALL PL__SFX(small)
#undef PL__BN_MUL

#include "msm/msm_affine_impl.h"

#undef PL__BN_GROUP
#undef PL__BN_V
#undef PL__BN_SUF
