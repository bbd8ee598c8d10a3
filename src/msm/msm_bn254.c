/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's MSMs (msm.h's pl__msm_sum with PL__MSM_BN254_G1 / _G2):
 * msm_affine_impl.h instantiated four times, for G1 and G2 each in both
 * field implementations of field/bn254/fp.h (mulx/adx assembly and
 * portable C), so that every field operation in a tile is inlined code of
 * one implementation; msm_affine.c picks the descriptor once per call.
 * Also this curve's scalars (reduced mod r, all 256 bits) and its GLV
 * split, and the naive path for small sums.
 *
 * GLV.  beta = 0x59e26bcea0d48bacd4f263f1acdb5c4f5763473177fffffe (a cube
 * root of unity in Fp) gives phi(x, y) = (beta x, y) = [lambda] (x, y) on
 * G1 with lambda = 36u^3 + 18u^2 + 6u + 1 (u = 4965661367192848881, the
 * curve's parameter; lambda^2 + lambda + 1 = 0 mod r); on G2 the twist's
 * x in Fp2 times the other root beta^2 (both halves) is the same [lambda]
 * (the twist y^2 = x^3 + b' has the same automorphism, and G2 is one of
 * its eigenspaces).  Found and checked with Python big integers;
 * tests/test_bn254_msm.c checks both against scalar multiplication.
 * A scalar k < r splits as k = k1 + k2 lambda mod r by Babai's rounding
 * against the short basis of the lattice {(a, b): a + b lambda = 0 mod r}
 * from the extended Euclid on (r, lambda):
 *     v1 = (2u + 1, -(6u^2 + 2u)),   v2 = (6u^2 + 4u + 1, 2u + 1),
 * with c1 = round(k (2u + 1) / r), c2 = round(k (6u^2 + 2u) / r) computed
 * as (k g_i + 2^319) >> 320 from g_i = floor(2^320 (.) / r) (an error below
 * 2^-66 in each quotient, so each c_i is the nearest integer or, within
 * 2^-66 of a half, its neighbour), then
 *     k1 = k - c1 (2u + 1) - c2 (6u^2 + 4u + 1),
 *     k2 = c1 (6u^2 + 2u) - c2 (2u + 1),
 * both below (1/2 + 2^-66)(6u^2 + 6u + 2) < 2^126 in magnitude (tested on
 * random and edge scalars): the 127-bit halves msm_affine_impl.h takes.
 */
#include "msm/msm_core.h"
#include "field/bn254/curve.h"
#include "util/error.h"

#include <string.h>

/* ---- scalars ------------------------------------------------------------ */

static const uint64_t r_half[4] = {0xa1f0fac9f8000000, 0x9419f4243cdcb848,
                                   0xdc2822db40c0ac2e, 0x183227397098d014};

/* Loads a scalar as 4 limbs, reduced mod r (2^256 < 6r: at most five
 * subtractions), and returns its class. */
static inline unsigned scalar_load(uint64_t s[4], const uint8_t *bytes)
{
    memcpy(s, bytes, 32);
    while (!gt256(PL__BN254_R, s))
        sub256(s, s, PL__BN254_R);
    return scalar_class(s);
}

static inline bool scalar_fold(uint64_t s[4])
{
    return scalar_fold_mod(s, PL__BN254_R, r_half);
}

/* The lattice (see the top): 2u + 1, 6u^2 + 2u, 6u^2 + 4u + 1, and the
 * rounding multipliers floor(2^320 (2u + 1) / r), floor(2^320 (6u^2 + 2u)
 * / r). */
#define PL__GLV_A1 0x89d3256894d213e3ull
static const pl__u128 glv_b1 =
    ((pl__u128)0x6f4d8248eeb859fcull << 64) | 0x8211bbeb7d4f1128ull;
static const pl__u128 glv_a2 =
    ((pl__u128)0x6f4d8248eeb859fdull << 64) | 0x0be4e1541221250bull;
static const uint64_t glv_g1[3] = {0x6eb9c714773a6ef2, 0xd91d232ec7e0b3d7, 0x2};
static const uint64_t glv_g2[4] = {0xa5e38cfb5eaa26d9, 0x7a7bd9d4391eb18d,
                                   0x4ccef014a773d2cf, 0x2};

/* out[0 .. na + nb) = a b */
static void mul_limbs(uint64_t *out, const uint64_t *a, size_t na,
                      const uint64_t *b, size_t nb)
{
    memset(out, 0, (na + nb) * sizeof(uint64_t));
    for (size_t i = 0; i < na; i++) {
        pl__u128 c = 0;
        for (size_t j = 0; j < nb; j++) {
            c += (pl__u128)a[i] * b[j] + out[i + j];
            out[i + j] = (uint64_t)c;
            c >>= 64;
        }
        out[i + nb] = (uint64_t)c;
    }
}

/* (k g + 2^319) >> 320 for a 4-limb k and an ng-limb g: bits 320..447 */
static pl__u128 round_quotient(const uint64_t k[4], const uint64_t *g,
                               size_t ng)
{
    uint64_t t[8];
    mul_limbs(t, k, 4, g, ng);
    pl__u128 c = (pl__u128)t[4] + (1ull << 63);
    c = (c >> 64) + t[5];
    uint64_t lo = (uint64_t)c;
    uint64_t hi = (uint64_t)(c >> 64) + (ng == 4 ? t[6] : 0);
    return ((pl__u128)hi << 64) | lo;
}

/* |x| with the sign in bit 127, for |x| < 2^127 read from two's
 * complement mod 2^128 */
static void put_half(uint64_t out[2], pl__u128 x, bool flip)
{
    bool neg = x >> 127;
    if (neg)
        x = (pl__u128)0 - x;
    out[0] = (uint64_t)x;
    out[1] = (uint64_t)(x >> 64) | (uint64_t)(neg ^ flip) << 63;
}

/*
 * Splits a folded scalar s (sign neg: the term is -s P) into the GLV halves
 * of msm_affine_impl.h: out[0..1] |k1| with its sign, out[2..3] |k2| with
 * its sign, so the term is (+-)k1 P + (+-)k2 phi(P).  All arithmetic mod
 * 2^128, where k1 and k2 (below 2^126) are exact.
 */
static void glv_split(uint64_t out[4], const uint64_t s[4], bool neg)
{
    pl__u128 c1 = round_quotient(s, glv_g1, 3);
    pl__u128 c2 = round_quotient(s, glv_g2, 4);
    pl__u128 k = ((pl__u128)s[1] << 64) | s[0];
    pl__u128 k1 = k - c1 * PL__GLV_A1 - c2 * glv_a2;
    pl__u128 k2 = c1 * glv_b1 - c2 * PL__GLV_A1;
    put_half(out, k1, neg);
    put_half(out + 2, k2, neg);
}

void pl__msm_bn254_glv_split(uint64_t k1[2], uint64_t k2[2], bool neg[2],
                             const uint8_t le[32])
{
    uint64_t s[4], out[4];
    (void)scalar_load(s, le);
    glv_split(out, s, scalar_fold(s));
    k1[0] = out[0];
    k1[1] = out[1] & ~(1ull << 63);
    neg[0] = out[1] >> 63;
    k2[0] = out[2];
    k2[1] = out[3] & ~(1ull << 63);
    neg[1] = out[3] >> 63;
}

/* ---- the instantiations ---------------------------------------------------
 */

/* beta (G1) and beta^2 (G2), Montgomery form */
static const pl__bn254_fp glv_beta_g1 = {
    {0x71930c11d782e155, 0xa6bb947cffbe3323, 0xaa303344d4741444,
     0x2c3b3f0d26594943}};
static const pl__bn254_fp glv_beta_g2 = {
    {0x3350c88e13e80b9c, 0x7dce557cdb5e56b9, 0x6001b4b8b615564a,
     0x2682e617020217e0}};

static inline void beta_g1(pl__bn254_fp *b) { *b = glv_beta_g1; }
static inline void beta_g2(pl__bn254_fp *b) { *b = glv_beta_g2; }

/* GLV's defaults, as BLS12-381's (msm_bls12_381.c): G1 computes phi once
 * per call, G2 as it loads each point. */
static _Atomic int g1_default_mode = PL__GLV_CALL;
static _Atomic int g2_default_mode = PL__GLV_LOAD;

/*
 * Sums of fewer than small_below points go point by point (256 doublings
 * and additions each; msm_bn254_group.h), where the windows' bucket sums
 * and inversions cost more than the points; and sums of 2^31
 * points or more (the tiles' 31-bit references), refused: no BN254 key
 * comes near it (the domain stops at 2^28).
 */
#define PL__BN_SMALL_G1 32
#define PL__BN_SMALL_G2 16

static pl_status too_many(size_t n, pl_error *err)
{
    return pl__error_set(err, PL_EUNSUPPORTED,
                         "msm: %zu BN254 points: sums of 2^31 points or more "
                         "are not supported",
                         n);
}

static uint64_t small_bytes(size_t n, unsigned threads) { return 0; }

/* Each include instantiates one group in one field implementation
 * (msm_bn254_group.h). */
#define PL__BN_GROUP 1
#define PL__BN_V PL__BN254_PORTABLE
#define PL__BN_SUF(name) name##_portable
#define PL__SFX(name) name##_g1_portable
#define PL__G_NAME pl__msm_group_bn254_g1_portable
#include "msm/msm_bn254_group.h"

#define PL__BN_GROUP 1
#define PL__BN_V PL__BN254_ADX
#define PL__BN_SUF(name) name##_adx
#define PL__SFX(name) name##_g1_adx
#define PL__G_NAME pl__msm_group_bn254_g1_adx
#include "msm/msm_bn254_group.h"

#define PL__BN_GROUP 2
#define PL__BN_V PL__BN254_PORTABLE
#define PL__BN_SUF(name) name##_portable
#define PL__SFX(name) name##_g2_portable
#define PL__G_NAME pl__msm_group_bn254_g2_portable
#include "msm/msm_bn254_group.h"

#define PL__BN_GROUP 2
#define PL__BN_V PL__BN254_ADX
#define PL__BN_SUF(name) name##_adx
#define PL__SFX(name) name##_g2_adx
#define PL__G_NAME pl__msm_group_bn254_g2_adx
#include "msm/msm_bn254_group.h"
