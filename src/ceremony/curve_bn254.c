/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254 ("bn128" in snarkjs) for the ceremony (curve.h), over the
 * project's own BN254 arithmetic (src/field/bn254): the file and hashing
 * encodings, ffjavascript's fromRng for both groups (G1 has no cofactor in
 * ffjavascript's bn128; G2's is 2p - r), the hot loops of group_impl.h
 * instantiated per group and per field implementation
 * (curve_bn254_group.h; the implementation chosen once per call, as the
 * BN254 MSM and NTT do), Fr over pl__bn254_fr with the BN254 NTT for
 * Fr.fft, the MSMs of src/msm, and sameRatio by the optimal ate pairing.
 *
 * The files' points are the structs' own bytes (field/bn254/serial.h:
 * affine, Montgomery limbs little-endian, G2 c0 || c1, infinity all zero),
 * so points are used as read, as curve_bls12381.c does with blst's.
 */
#include "ceremony/curve.h"
#include "field/field.h"
#include "field/bn254/curve.h"
#include "field/bn254/pairing.h"
#include "field/bn254/serial.h"
#include "msm/msm.h"
#include "ntt/ntt.h"

#include <string.h>

/* (p - 1) / 2, LE: above it a coordinate is "negative" for ffjavascript */
static const uint8_t half_p_le[32] = {
    0xa3, 0x7e, 0x3e, 0x6c, 0x0b, 0x46, 0x10, 0x9e, 0x46, 0xe5, 0x38,
    0xb4, 0x48, 0xb5, 0xc0, 0xcb, 0x2e, 0xac, 0xc0, 0x40, 0xdb, 0x22,
    0x28, 0xdc, 0x14, 0xd0, 0x98, 0x70, 0x39, 0x27, 0x32, 0x18};

/* ffjavascript's cofactorG2 for bn128 (2p - r), LE */
static const uint8_t cofactor_g2[32] = {
    0x8d, 0xfa, 0xf9, 0xc0, 0x99, 0x22, 0x5f, 0x34, 0x89, 0x24, 0x2a,
    0x57, 0xda, 0xec, 0xce, 0x06, 0x5e, 0x58, 0x81, 0x81, 0xb6, 0x45,
    0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

/* (p - 3) / 4 and (p - 1) / 2, limbs: Fp2's square root */
static const uint64_t exp_p34[4] = {0x4f082305b61f3f51ull, 0x65e05aa45a1c72a3ull,
                                    0x6e14116da0605617ull, 0x0c19139cb84c680aull};
static const uint64_t exp_p12[4] = {0x9e10460b6c3e7ea3ull, 0xcbc0b548b438e546ull,
                                    0xdc2822db40c0ac2eull, 0x183227397098d014ull};

static const pl__bn254_fp2 bn_fp2_one = {
    {{0xd35d438dc58f0d9d, 0x0a78eb28f5c70b3d, 0x666ea36f7879462c,
      0x0e0a77c19a07df2f}},
    {{0, 0, 0, 0}}};

static pl__bn254_arith arith(void)
{
    return pl__bn254_arith_current();
}

/* canonical big-endian bytes of an Fp element */
static void fp_to_be(uint8_t out[32], const pl__bn254_fp *a)
{
    uint8_t le[32];
    pl__bn254_fp_to_le(le, a);
    for (unsigned i = 0; i < 32; i++)
        out[i] = le[31 - i];
}

static bool fp_negative(const pl__bn254_fp *a)
{
    uint8_t le[32];
    pl__bn254_fp_to_le(le, a);
    return pl__le_less(half_p_le, le, 32);
}

/* F2 (wasmcurves f2m isNegative): the sign of c1, or of c0 when c1 is 0 */
static bool fp2_negative(const pl__bn254_fp2 *a)
{
    return pl__bn254_fp_is_zero(&a->c1) ? fp_negative(&a->c0)
                                        : fp_negative(&a->c1);
}

/* x = c0 + c1 u big-endian as c1 || c0 */
static void fp2_to_be(uint8_t out[64], const pl__bn254_fp2 *a)
{
    fp_to_be(out, &a->c1);
    fp_to_be(out + 32, &a->c0);
}

static void fp2_pow(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                    const uint64_t e[4], pl__bn254_arith v)
{
    pl__bn254_fp2 acc = bn_fp2_one;
    for (int bit = 255; bit >= 0; bit--) {
        pl__bn254_fp2_sqr(&acc, &acc, v);
        if ((e[bit / 64] >> (bit % 64)) & 1)
            pl__bn254_fp2_mul(&acc, &acc, a, v);
    }
    *r = acc;
}

/* A square root in Fp2 for p = 3 mod 4 (Adj and Rodriguez-Henriquez,
 * "Square root computation over even extension fields", algorithm 9);
 * false when a is not a square.  The root found is checked. */
static bool fp2_sqrt(pl__bn254_fp2 *r, const pl__bn254_fp2 *a,
                     pl__bn254_arith v)
{
    pl__bn254_fp2 a1, alpha, x0, conj, norm, minus_one, x;
    pl__bn254_fp2_neg(&minus_one, &bn_fp2_one, v);
    fp2_pow(&a1, a, exp_p34, v);
    pl__bn254_fp2_sqr(&alpha, &a1, v);
    pl__bn254_fp2_mul(&alpha, &alpha, a, v);    /* a^((p-1)/2) */
    pl__bn254_fp2_mul(&x0, &a1, a, v);          /* a^((p+1)/4) */
    pl__bn254_fp2_conj(&conj, &alpha, v);       /* alpha^p */
    pl__bn254_fp2_mul(&norm, &conj, &alpha, v);
    if (pl__bn254_fp2_eq(&norm, &minus_one))
        return false;
    if (pl__bn254_fp2_eq(&alpha, &minus_one)) {
        /* u x0 */
        pl__bn254_fp_neg(&x.c0, &x0.c1, v);
        x.c1 = x0.c0;
    } else {
        pl__bn254_fp2 b;
        pl__bn254_fp2_add(&b, &bn_fp2_one, &alpha, v);
        fp2_pow(&b, &b, exp_p12, v);
        pl__bn254_fp2_mul(&x, &b, &x0, v);
    }
    pl__bn254_fp2 chk;
    pl__bn254_fp2_sqr(&chk, &x, v);
    if (!pl__bn254_fp2_eq(&chk, a))
        return false;
    *r = x;
    return true;
}

/* ---- the endomorphism and its split (group_impl.h's GLV) ----------------- */

/* beta, a cube root of unity in Fp, and beta^2 (Montgomery form): the
 * constants of msm_bn254.c, with which phi(x, y) = (beta x, y) on G1 and
 * (beta^2 x, y) on the twist both act as the lambda of
 * pl__msm_bn254_glv_split (test_ceremony checks both) */
static const pl__bn254_fp glv_beta_g1 = {
    {0x71930c11d782e155, 0xa6bb947cffbe3323, 0xaa303344d4741444,
     0x2c3b3f0d26594943}};
static const pl__bn254_fp glv_beta_g2 = {
    {0x3350c88e13e80b9c, 0x7dce557cdb5e56b9, 0x6001b4b8b615564a,
     0x2682e617020217e0}};

static void bn_split(unsigned __int128 k[2], uint8_t *neg,
                     const uint8_t le[32])
{
    uint64_t k1[2], k2[2];
    bool sg[2];
    pl__msm_bn254_glv_split(k1, k2, sg, le);
    k[0] = (unsigned __int128)k1[1] << 64 | k1[0];
    k[1] = (unsigned __int128)k2[1] << 64 | k2[0];
    *neg = (uint8_t)((sg[0] ? 1u : 0u) | (sg[1] ? 2u : 0u));
}

static inline void bn_endo_g1(pl__bn254_g1_affine *r,
                              const pl__bn254_g1_affine *a, pl__bn254_arith v)
{
    pl__bn254_fp_mul(&r->x, &a->x, &glv_beta_g1, v); /* infinity stays 0 */
    r->y = a->y;
}

static inline void bn_endo_g2(pl__bn254_g2_affine *r,
                              const pl__bn254_g2_affine *a, pl__bn254_arith v)
{
    pl__bn254_fp2_mul_fp(&r->x, &a->x, &glv_beta_g2, v);
    r->y = a->y;
}

/* ---- the hot loops, per group and implementation ------------------------- */

#define BN_CAT_(a, b) a##b
#define BN_CAT(a, b) BN_CAT_(a, b)

#define BN_G 1
#define BN_V PL__BN254_ADX
#define BN_VS adx
#define BN_SFX(name) name##_g1_adx
#include "ceremony/curve_bn254_group.h"
#undef BN_V
#undef BN_VS
#undef BN_SFX
#define BN_V PL__BN254_PORTABLE
#define BN_VS portable
#define BN_SFX(name) name##_g1_portable
#include "ceremony/curve_bn254_group.h"
#undef BN_G
#undef BN_V
#undef BN_VS
#undef BN_SFX

#define BN_G 2
#define BN_V PL__BN254_ADX
#define BN_VS adx
#define BN_SFX(name) name##_g2_adx
#include "ceremony/curve_bn254_group.h"
#undef BN_V
#undef BN_VS
#undef BN_SFX
#define BN_V PL__BN254_PORTABLE
#define BN_VS portable
#define BN_SFX(name) name##_g2_portable
#include "ceremony/curve_bn254_group.h"
#undef BN_G
#undef BN_V
#undef BN_VS
#undef BN_SFX

/*
 * The table's entries for one group, written once for both: G is g1 or
 * g2, AFF / JAC its types, MSMG its MSM group.  Each picks the field
 * implementation once per call.
 */
#define BN_GROUP_ENTRIES(G, AFF, JAC, MSMG)                                   \
    static void G##_from_aff(void *j, const uint8_t *aff)                   \
    {                                                                        \
        AFF a;                                                               \
        memcpy(&a, aff, sizeof(a));                                          \
        pl__bn254_##G##_from_affine(j, &a);                                  \
    }                                                                        \
    static void G##_from_jac_le(void *j, const uint8_t *xyz)                \
    {                                                                        \
        memcpy(j, xyz, sizeof(JAC));                                         \
    }                                                                        \
    static void G##_to_aff(uint8_t *aff, const void *j)                     \
    {                                                                        \
        AFF a;                                                               \
        pl__bn254_##G##_to_affine(&a, j, arith());                           \
        memcpy(aff, &a, sizeof(a));                                          \
    }                                                                        \
    static void G##_set_inf(void *j) { memset(j, 0, sizeof(JAC)); }         \
    static bool G##_is_inf(const void *j)                                    \
    {                                                                        \
        return pl__bn254_##G##_is_inf(j);                                    \
    }                                                                        \
    static bool G##_eq(const void *a, const void *b)                        \
    {                                                                        \
        return pl__bn254_##G##_eq(a, b, arith());                            \
    }                                                                        \
    static void G##_add(void *r, const void *a, const void *b)              \
    {                                                                        \
        pl__bn254_##G##_add(r, a, b, arith());                               \
    }                                                                        \
    static void G##_dbl(void *r, const void *a)                             \
    {                                                                        \
        pl__bn254_##G##_dbl(r, a, arith());                                  \
    }                                                                        \
    static void G##_add_aff(void *r, const void *a, const uint8_t *aff)     \
    {                                                                        \
        AFF b;                                                               \
        memcpy(&b, aff, sizeof(b));                                          \
        pl__bn254_##G##_add_affine(r, a, &b, arith());                       \
    }                                                                        \
    static void G##_neg(void *r, const void *a)                             \
    {                                                                        \
        pl__bn254_##G##_neg(r, a, arith());                                  \
    }                                                                        \
    /* a contribution's secrets: the constant-time schedule */              \
    static void G##_mul(void *r, const void *a, const pl__cer_fr *s)        \
    {                                                                        \
        uint8_t le[32];                                                      \
        pl__bn254_fr_to_le(le, (const pl__bn254_fr *)s);                     \
        if (arith() == PL__BN254_ADX)                                        \
            ct_mul_##G##_adx(r, a, le);                                      \
        else                                                                 \
            ct_mul_##G##_portable(r, a, le);                                 \
        memset(le, 0, sizeof(le));                                           \
    }                                                                        \
    /* public integers of any length (the cofactor): double and add */      \
    static void G##_mul_int(void *r, const void *a, const uint8_t *le,      \
                            size_t bytes)                                    \
    {                                                                        \
        const pl__bn254_arith v = arith();                                   \
        JAC acc, base;                                                       \
        memcpy(&base, a, sizeof(base));                                      \
        memset(&acc, 0, sizeof(acc));                                        \
        for (size_t bit = 8 * bytes; bit-- > 0;) {                           \
            pl__bn254_##G##_dbl(&acc, &acc, v);                              \
            if ((le[bit / 8] >> (bit % 8)) & 1)                              \
                pl__bn254_##G##_add(&acc, &acc, &base, v);                   \
        }                                                                    \
        memcpy(r, &acc, sizeof(acc));                                        \
    }                                                                        \
    static void to_aff_batch_##G(uint8_t *aff, const void *jac, size_t n,   \
                                 void *scratch)                              \
    {                                                                        \
        if (arith() == PL__BN254_ADX)                                        \
            to_aff_batch_##G##_adx(aff, jac, n, scratch);                    \
        else                                                                 \
            to_aff_batch_##G##_portable(aff, jac, n, scratch);               \
    }                                                                        \
    static void mul_batch_##G(uint8_t *out, const uint8_t *in,              \
                              const pl__cer_fr *s, size_t s_stride,          \
                              size_t n, bool secret, void *scratch)          \
    {                                                                        \
        if (arith() == PL__BN254_ADX)                                        \
            mul_batch_##G##_adx(out, in, s, s_stride, n, secret, scratch);   \
        else                                                                 \
            mul_batch_##G##_portable(out, in, s, s_stride, n, secret,        \
                                     scratch);                               \
    }                                                                        \
    static void fft_stage_##G(uint8_t *pts, size_t m, size_t b0, size_t b1, \
                              const pl__cer_fr *tw, size_t tw_stride,        \
                              const pl__cer_fr *scale, void *scratch)        \
    {                                                                        \
        if (arith() == PL__BN254_ADX)                                        \
            fft_stage_##G##_adx(pts, m, b0, b1, tw, tw_stride, scale,        \
                                scratch);                                    \
        else                                                                 \
            fft_stage_##G##_portable(pts, m, b0, b1, tw, tw_stride, scale,   \
                                     scratch);                               \
    }                                                                        \
    static void fft_stage2_##G(uint8_t *pts, size_t m, size_t q0,           \
                               size_t q1, const pl__cer_fr *tw,              \
                               size_t tw_stride, const pl__cer_fr *scale,    \
                               void *scratch)                                \
    {                                                                        \
        if (arith() == PL__BN254_ADX)                                        \
            fft_stage2_##G##_adx(pts, m, q0, q1, tw, tw_stride, scale,       \
                                 scratch);                                   \
        else                                                                 \
            fft_stage2_##G##_portable(pts, m, q0, q1, tw, tw_stride, scale,  \
                                      scratch);                              \
    }                                                                        \
    static pl_status G##_msm(void *out, const uint8_t *pts,                  \
                             const uint8_t *scalars, size_t n,               \
                             pl__pool *pool, pl_error *err)                  \
    {                                                                        \
        return pl__msm_sum(MSMG, out, pts, scalars, n, NULL, pool, err);     \
    }                                                                        \
    /* the two implementations' scratch is the same; asked of the one      \
     * that runs */                                                         \
    static size_t to_aff_scratch_bytes_##G(size_t n)                         \
    {                                                                        \
        return arith() == PL__BN254_ADX                                      \
                   ? to_aff_scratch_bytes_##G##_adx(n)                       \
                   : to_aff_scratch_bytes_##G##_portable(n);                 \
    }                                                                        \
    static size_t mul_scratch_bytes_##G(size_t n)                            \
    {                                                                        \
        return arith() == PL__BN254_ADX ? mul_scratch_bytes_##G##_adx(n)     \
                                        : mul_scratch_bytes_##G##_portable(n); \
    }                                                                        \
    static size_t stage_scratch_bytes_##G(size_t n)                          \
    {                                                                        \
        return arith() == PL__BN254_ADX                                      \
                   ? stage_scratch_bytes_##G##_adx(n)                        \
                   : stage_scratch_bytes_##G##_portable(n);                  \
    }                                                                        \
    static size_t stage2_scratch_bytes_##G(size_t n)                         \
    {                                                                        \
        return arith() == PL__BN254_ADX                                      \
                   ? stage2_scratch_bytes_##G##_adx(n)                       \
                   : stage2_scratch_bytes_##G##_portable(n);                 \
    }                                                                        \
    static uint64_t G##_msm_scratch_bytes(size_t n, unsigned threads)        \
    {                                                                        \
        return pl__msm_sum_scratch_bytes(MSMG, n, threads, NULL);            \
    }

BN_GROUP_ENTRIES(g1, pl__bn254_g1_affine, pl__bn254_g1, PL__MSM_BN254_G1)
BN_GROUP_ENTRIES(g2, pl__bn254_g2_affine, pl__bn254_g2, PL__MSM_BN254_G2)

/* one coordinate of the files' bytes, for pl__cer_encode */
static void fp_be_bytes(uint8_t *out, const uint8_t *c)
{
    pl__bn254_fp a;
    memcpy(&a, c, sizeof(a));
    fp_to_be(out, &a);
}

static bool fp_negative_bytes(const uint8_t *c)
{
    pl__bn254_fp a;
    memcpy(&a, c, sizeof(a));
    return fp_negative(&a);
}

static void fp2_be_bytes(uint8_t *out, const uint8_t *c)
{
    pl__bn254_fp2 a;
    memcpy(&a, c, sizeof(a));
    fp2_to_be(out, &a);
}

static bool fp2_negative_bytes(const uint8_t *c)
{
    pl__bn254_fp2 a;
    memcpy(&a, c, sizeof(a));
    return fp2_negative(&a);
}

static void g1_to_u(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 32, false, fp_be_bytes, fp_negative_bytes);
}

static void g1_to_c(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 32, true, fp_be_bytes, fp_negative_bytes);
}

static void g2_to_u(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 64, false, fp2_be_bytes, fp2_negative_bytes);
}

static void g2_to_c(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 64, true, fp2_be_bytes, fp2_negative_bytes);
}

/* ---- G1 ------------------------------------------------------------------ */

static void g1_generator(uint8_t *aff)
{
    memcpy(aff, &pl__bn254_g1_generator, sizeof(pl__bn254_g1_affine));
}

static const char *g1_check(const uint8_t *p)
{
    pl__bn254_g1_affine a;
    if (pl__cer_all_zero(p, 64))
        return NULL;
    if (!pl__bn254_g1_from_bytes(&a, p))
        return "has a coordinate that is not below q";
    if (!pl__bn254_g1_affine_on_curve(&a, arith()))
        return "is not on the curve";
    return NULL; /* cofactor 1: the curve is the group */
}

static void g1_from_rng(uint8_t *aff, pl__chacha *rng)
{
    const pl__bn254_arith v = arith();
    pl__bn254_fp x, y, x3b, b;
    bool greatest;
    pl__bn254_fp_from_u64(&b, 3);
    for (;;) {
        pl__chacha_field_digits((uint8_t *)&x, rng, pl__bn254_p_le, 4, 254);
        greatest = pl__chacha_bool(rng);
        pl__bn254_fp_sqr(&x3b, &x, v);
        pl__bn254_fp_mul(&x3b, &x3b, &x, v);
        pl__bn254_fp_add(&x3b, &x3b, &b, v);
        if (pl__bn254_fp_sqrt(&y, &x3b, v))
            break;
    }
    if (greatest != fp_negative(&y))
        pl__bn254_fp_neg(&y, &y, v);
    pl__bn254_g1_affine a = {x, y};
    memcpy(aff, &a, sizeof(a));
}

/* ---- G2 ------------------------------------------------------------------ */

static void g2_generator(uint8_t *aff)
{
    memcpy(aff, &pl__bn254_g2_generator, sizeof(pl__bn254_g2_affine));
}

static const char *g2_check(const uint8_t *p)
{
    pl__bn254_g2_affine a;
    if (pl__cer_all_zero(p, 128))
        return NULL;
    if (!pl__bn254_g2_from_bytes(&a, p))
        return "has a coordinate that is not below q";
    if (!pl__bn254_g2_affine_on_curve(&a, arith()))
        return "is not on the curve";
    if (!pl__bn254_g2_affine_in_group(&a, arith()))
        return "is not in the G2 subgroup";
    return NULL;
}

static void g2_from_rng(uint8_t *aff, pl__chacha *rng)
{
    const pl__bn254_arith v = arith();
    pl__bn254_fp2 x, y, x3b;
    bool greatest;
    for (;;) {
        pl__chacha_field_digits((uint8_t *)&x.c0, rng, pl__bn254_p_le, 4, 254);
        pl__chacha_field_digits((uint8_t *)&x.c1, rng, pl__bn254_p_le, 4, 254);
        greatest = pl__chacha_bool(rng);
        pl__bn254_fp2_sqr(&x3b, &x, v);
        pl__bn254_fp2_mul(&x3b, &x3b, &x, v);
        pl__bn254_fp2_add(&x3b, &x3b, &pl__bn254_twist_b, v);
        if (fp2_sqrt(&y, &x3b, v))
            break;
    }
    if (greatest != fp2_negative(&y))
        pl__bn254_fp2_neg(&y, &y, v);
    pl__bn254_g2_affine a = {x, y};
    pl__bn254_g2 p;
    pl__bn254_g2_from_affine(&p, &a);
    g2_mul_int(&p, &p, cofactor_g2, sizeof(cofactor_g2));
    pl__bn254_g2_to_affine(&a, &p, v);
    memcpy(aff, &a, sizeof(a));
}

/* ---- Fr -------------------------------------------------------------------- */

static void fr_from_le(pl__cer_fr *out, const uint8_t *le)
{
    (void)pl__bn254_fr_from_le((pl__bn254_fr *)out, le); /* < r: given */
}

static void fr_to_le(uint8_t *le, const pl__cer_fr *a)
{
    pl__bn254_fr_to_le(le, (const pl__bn254_fr *)a);
}

static void fr_from_u64(pl__cer_fr *out, uint64_t v)
{
    pl__bn254_fr_from_u64((pl__bn254_fr *)out, v);
}

static void fr_add(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b)
{
    pl__bn254_fr_add((pl__bn254_fr *)r, (const pl__bn254_fr *)a,
                     (const pl__bn254_fr *)b, arith());
}

static void fr_sub(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b)
{
    pl__bn254_fr_sub((pl__bn254_fr *)r, (const pl__bn254_fr *)a,
                     (const pl__bn254_fr *)b, arith());
}

static void fr_mul(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b)
{
    pl__bn254_fr_mul((pl__bn254_fr *)r, (const pl__bn254_fr *)a,
                     (const pl__bn254_fr *)b, arith());
}

static void fr_inv(pl__cer_fr *r, const pl__cer_fr *a)
{
    pl__bn254_fr_inv((pl__bn254_fr *)r, (const pl__bn254_fr *)a, arith());
}

static void fr_root(pl__cer_fr *out, unsigned k)
{
    pl__ntt_bn254_root_of_unity((pl__bn254_fr *)out, k);
}

static pl_status fr_fft(pl__cer_fr *data, unsigned log2n, pl__pool *pool,
                        pl_error *err)
{
    if (log2n == 0)
        return PL_OK;
    pl__ntt_plan *plan = NULL;
    pl_status st =
        pl__ntt_plan_create_curve(&plan, PL__CURVE_BN254, log2n, pool, err);
    if (st == PL_OK)
        pl__ntt_forward_elems(plan, data, pool);
    pl__ntt_plan_destroy(plan);
    return st;
}

/* e(a1, b2) = e(b1, a2): e(a1, b2) e(-b1, a2) = 1, one multi-pairing */
static bool same_ratio(const uint8_t *a1, const uint8_t *b1,
                       const uint8_t *a2, const uint8_t *b2)
{
    if (pl__cer_all_zero(a1, 64) || pl__cer_all_zero(b1, 64) || pl__cer_all_zero(a2, 128) ||
        pl__cer_all_zero(b2, 128))
        return false;
    const pl__bn254_arith v = arith();
    pl__bn254_g1_affine p[2];
    pl__bn254_g2_affine q[2];
    memcpy(&p[0], a1, sizeof(p[0]));
    memcpy(&p[1], b1, sizeof(p[1]));
    memcpy(&q[0], b2, sizeof(q[0]));
    memcpy(&q[1], a2, sizeof(q[1]));
    pl__bn254_fp_neg(&p[1].y, &p[1].y, v);
    return pl__bn254_pairing_is_one(p, q, 2, v);
}

/* ---- the table ------------------------------------------------------------- */

const pl__cer_curve pl__cer_bn128 = {
    .name = "bn128",
    .n8q = 32,
    .n8r = 32,
    .r_bits = 254,
    .fr_s = 28,
    .q_le = pl__bn254_p_le,
    .r_le = pl__bn254_r_le,
    .g = {
        {.name = "G1", .index = 0, .coord_bytes = 32, .aff_bytes = 64,
         .jac_bytes = sizeof(pl__bn254_g1), PL__CER_GROUP_OPS(g1)},
        {.name = "G2", .index = 1, .coord_bytes = 64, .aff_bytes = 128,
         .jac_bytes = sizeof(pl__bn254_g2), PL__CER_GROUP_OPS(g2)},
    },
    PL__CER_FR_OPS,
};
