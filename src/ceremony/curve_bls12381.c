/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BLS12-381 ("bls12381" in snarkjs) for the ceremony (curve.h), over blst:
 * the file and hashing encodings, ffjavascript's fromRng for both groups
 * (sqrt, sign and cofactor as ffjavascript 0.3.1 chooses them), the hot
 * loops of group_impl.h instantiated for G1 and G2, Fr over blst_fr with
 * the project's NTT for Fr.fft, the MSMs of src/msm, and the pairing check
 * of sameRatio.
 *
 * blst's points have the files' byte layout (blst_p1_affine is x || y,
 * each blst_fp six little-endian 64-bit Montgomery limbs; blst_fp2 is
 * c0 || c1), and its affine point at infinity is all zeros, as snarkjs's
 * is: points are used as read.
 */
#include "ceremony/curve.h"
#include "field/field.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "blst.h"

#include <string.h>

/* (q - 1) / 2: above it, a coordinate is "negative" for ffjavascript */
static const uint8_t half_q_le[48] = {
    0x55, 0xd5, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xdc, 0xff, 0xff, 0xa9, 0x58,
    0xff, 0xff, 0x55, 0x0f, 0x12, 0x7b, 0x58, 0x7b, 0x50, 0x69, 0x98, 0xb3,
    0x5f, 0x89, 0xc2, 0x79, 0xc2, 0xa5, 0x3b, 0xb2, 0x6b, 0xd6, 0xa5, 0x21,
    0xdb, 0xd3, 0x8d, 0x25, 0x4d, 0xf3, 0xbf, 0x1c, 0xf5, 0x88, 0x00, 0x0d};

/* ffjavascript's cofactors (bls12381.js cofactorG1, cofactorG2), LE: the
 * full cofactors of E and E', not the effective ones */
static const uint8_t cofactor_g1[16] = {
    0xab, 0xaa, 0x00, 0x00, 0xab, 0xaa, 0x00, 0x8c,
    0x56, 0xe1, 0x55, 0x55, 0x00, 0x8c, 0x6c, 0x39};
static const uint8_t cofactor_g2[64] = {
    0xe5, 0x38, 0x72, 0x1c, 0xe3, 0x38, 0x1c, 0xcf, 0x70, 0x0c, 0x6f, 0x78,
    0x6e, 0xec, 0x16, 0x16, 0xae, 0x91, 0x66, 0x3a, 0x29, 0x7e, 0x53, 0x21,
    0xef, 0x82, 0x9e, 0x4d, 0xcb, 0xf1, 0x28, 0xa6, 0xdf, 0x7d, 0x5a, 0x2e,
    0x5b, 0x20, 0x8a, 0xa6, 0xba, 0x5a, 0x08, 0x47, 0x45, 0xde, 0x91, 0xcd,
    0x02, 0xa2, 0x76, 0x28, 0x79, 0x50, 0x1d, 0x09, 0xf1, 0xe7, 0x14, 0x54,
    0xa9, 0x43, 0xd5, 0x05};

static const blst_fp fp_zero;

static bool fp_is_zero(const blst_fp *a)
{
    return memcmp(a, &fp_zero, sizeof(*a)) == 0;
}

static bool fp2_is_zero(const blst_fp2 *a)
{
    return fp_is_zero(&a->fp[0]) && fp_is_zero(&a->fp[1]);
}

/* ffjavascript's F1 isNegative / sign: the canonical value above (q-1)/2 */
static bool fp_negative(const blst_fp *a)
{
    uint8_t le[48];
    blst_lendian_from_fp(le, a);
    return pl__le_less(half_q_le, le, 48);
}

/* F2: the sign of c1, or of c0 when c1 is zero */
static bool fp2_negative(const blst_fp2 *a)
{
    return fp_is_zero(&a->fp[1]) ? fp_negative(&a->fp[0])
                                 : fp_negative(&a->fp[1]);
}

/* x = c0 + c1 u big-endian as c1 || c0 (ffjavascript reverses the bytes
 * of the whole LE pair) */
static void fp2_to_be(uint8_t *out, const blst_fp2 *a)
{
    blst_bendian_from_fp(out, &a->fp[1]);
    blst_bendian_from_fp(out + 48, &a->fp[0]);
}

/* A coordinate's limbs below q (the files hold reduced Montgomery forms). */
static bool fp_bytes_ok(const uint8_t *p)
{
    return pl__le_less(p, pl__fp_modulus_le, 48);
}

/* one coordinate of the files' bytes, for pl__cer_encode */
static void fp_be_bytes(uint8_t *out, const uint8_t *c)
{
    blst_fp a;
    memcpy(&a, c, sizeof(a));
    blst_bendian_from_fp(out, &a);
}

static bool fp_negative_bytes(const uint8_t *c)
{
    blst_fp a;
    memcpy(&a, c, sizeof(a));
    return fp_negative(&a);
}

static void fp2_be_bytes(uint8_t *out, const uint8_t *c)
{
    blst_fp2 a;
    memcpy(&a, c, sizeof(a));
    fp2_to_be(out, &a);
}

static bool fp2_negative_bytes(const uint8_t *c)
{
    blst_fp2 a;
    memcpy(&a, c, sizeof(a));
    return fp2_negative(&a);
}

static void g1_to_u(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 48, false, fp_be_bytes, fp_negative_bytes);
}

static void g1_to_c(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 48, true, fp_be_bytes, fp_negative_bytes);
}

static void g2_to_u(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 96, false, fp2_be_bytes, fp2_negative_bytes);
}

static void g2_to_c(uint8_t *out, const uint8_t *p)
{
    pl__cer_encode(out, p, 96, true, fp2_be_bytes, fp2_negative_bytes);
}

/* ---- G1 ------------------------------------------------------------------ */

static void g1_generator(uint8_t *aff)
{
    memcpy(aff, blst_p1_affine_generator(), sizeof(blst_p1_affine));
}

static const char *g1_check(const uint8_t *p)
{
    blst_p1_affine a;
    if (pl__cer_all_zero(p, 96))
        return NULL;
    if (!fp_bytes_ok(p) || !fp_bytes_ok(p + 48))
        return "has a coordinate that is not below q";
    memcpy(&a, p, sizeof(a));
    if (!blst_p1_affine_on_curve(&a))
        return "is not on the curve";
    if (!blst_p1_affine_in_g1(&a))
        return "is not in the G1 subgroup";
    return NULL;
}

static void g1_from_rng(uint8_t *aff, pl__chacha *rng)
{
    blst_fp x, y, x3b, four;
    static const uint64_t four_u[6] = {4, 0, 0, 0, 0, 0};
    bool greatest;
    blst_fp_from_uint64(&four, four_u);
    for (;;) {
        pl__chacha_field_digits((uint8_t *)&x, rng, pl__fp_modulus_le, 6, 381);
        greatest = pl__chacha_bool(rng);
        blst_fp_sqr(&x3b, &x);
        blst_fp_mul(&x3b, &x3b, &x);
        blst_fp_add(&x3b, &x3b, &four);
        if (blst_fp_sqrt(&y, &x3b))
            break;
    }
    if (greatest != fp_negative(&y))
        blst_fp_cneg(&y, &y, true);
    blst_p1_affine a = {x, y};
    blst_p1 p;
    blst_p1_from_affine(&p, &a);
    blst_p1_mult(&p, &p, cofactor_g1, 8 * sizeof(cofactor_g1));
    blst_p1_to_affine(&a, &p);
    memcpy(aff, &a, sizeof(a));
}

static void g1_from_aff(void *j, const uint8_t *aff)
{
    blst_p1_affine a;
    memcpy(&a, aff, sizeof(a));
    blst_p1_from_affine(j, &a);
}

/* blst_p1 is X, Y, Z in Jacobian coordinates, each blst_fp the
 * Montgomery representation's limbs: the bytes as given */
static void g1_from_jac_le(void *j, const uint8_t *xyz)
{
    memcpy(j, xyz, sizeof(blst_p1));
}

static void g1_to_aff(uint8_t *aff, const void *j)
{
    blst_p1_affine a;
    blst_p1_to_affine(&a, j);
    memcpy(aff, &a, sizeof(a));
}

static void g1_set_inf(void *j)
{
    memset(j, 0, sizeof(blst_p1));
}

static bool g1_is_inf(const void *j)
{
    return blst_p1_is_inf(j);
}

static bool g1_eq(const void *a, const void *b)
{
    return blst_p1_is_equal(a, b);
}

static void g1_add(void *r, const void *a, const void *b)
{
    blst_p1_add_or_double(r, a, b);
}

static void g1_dbl(void *r, const void *a)
{
    blst_p1_double(r, a);
}

static void g1_add_aff(void *r, const void *a, const uint8_t *aff)
{
    blst_p1_affine b;
    memcpy(&b, aff, sizeof(b));
    blst_p1_add_or_double_affine(r, a, &b);
}

static void g1_neg(void *r, const void *a)
{
    if (r != a)
        memcpy(r, a, sizeof(blst_p1));
    blst_p1_cneg(r, true);
}

static void g1_mul(void *r, const void *a, const pl__cer_fr *s)
{
    blst_scalar k;
    blst_scalar_from_fr(&k, (const blst_fr *)s);
    blst_p1_mult(r, a, k.b, 255);
}

/* blst's multiplication with 176..256 bits uses the endomorphism, valid
 * on G1 only; the cofactor (128 bits) takes its generic path. */
static void g1_mul_int(void *r, const void *a, const uint8_t *le, size_t bytes)
{
    blst_p1_mult(r, a, le, 8 * bytes);
}

static pl_status g1_msm(void *out, const uint8_t *pts, const uint8_t *scalars,
                        size_t n, pl__pool *pool, pl_error *err)
{
    return pl__msm_g1(out, pts, scalars, n, pool, err);
}

static uint64_t g1_msm_scratch_bytes(size_t n, unsigned threads)
{
    return pl__msm_g1_scratch_bytes(n, threads);
}

/* ---- G2 ------------------------------------------------------------------ */

static void g2_generator(uint8_t *aff)
{
    memcpy(aff, blst_p2_affine_generator(), sizeof(blst_p2_affine));
}

static const char *g2_check(const uint8_t *p)
{
    blst_p2_affine a;
    if (pl__cer_all_zero(p, 192))
        return NULL;
    for (unsigned i = 0; i < 4; i++)
        if (!fp_bytes_ok(p + 48 * i))
            return "has a coordinate that is not below q";
    memcpy(&a, p, sizeof(a));
    if (!blst_p2_affine_on_curve(&a))
        return "is not on the curve";
    if (!blst_p2_affine_in_g2(&a))
        return "is not in the G2 subgroup";
    return NULL;
}

static void g2_from_rng(uint8_t *aff, pl__chacha *rng)
{
    blst_fp2 x, y, x3b, b;
    static const uint64_t four_u[6] = {4, 0, 0, 0, 0, 0};
    bool greatest;
    blst_fp_from_uint64(&b.fp[0], four_u);
    b.fp[1] = b.fp[0];
    for (;;) {
        pl__chacha_field_digits((uint8_t *)&x.fp[0], rng, pl__fp_modulus_le, 6,
                                381);
        pl__chacha_field_digits((uint8_t *)&x.fp[1], rng, pl__fp_modulus_le, 6,
                                381);
        greatest = pl__chacha_bool(rng);
        blst_fp2_sqr(&x3b, &x);
        blst_fp2_mul(&x3b, &x3b, &x);
        blst_fp2_add(&x3b, &x3b, &b);
        if (blst_fp2_sqrt(&y, &x3b))
            break;
    }
    if (greatest != fp2_negative(&y))
        blst_fp2_cneg(&y, &y, true);
    blst_p2_affine a = {x, y};
    blst_p2 p;
    blst_p2_from_affine(&p, &a);
    blst_p2_mult(&p, &p, cofactor_g2, 8 * sizeof(cofactor_g2));
    blst_p2_to_affine(&a, &p);
    memcpy(aff, &a, sizeof(a));
}

static void g2_from_aff(void *j, const uint8_t *aff)
{
    blst_p2_affine a;
    memcpy(&a, aff, sizeof(a));
    blst_p2_from_affine(j, &a);
}

static void g2_from_jac_le(void *j, const uint8_t *xyz)
{
    memcpy(j, xyz, sizeof(blst_p2));
}

static void g2_to_aff(uint8_t *aff, const void *j)
{
    blst_p2_affine a;
    blst_p2_to_affine(&a, j);
    memcpy(aff, &a, sizeof(a));
}

static void g2_set_inf(void *j)
{
    memset(j, 0, sizeof(blst_p2));
}

static bool g2_is_inf(const void *j)
{
    return blst_p2_is_inf(j);
}

static bool g2_eq(const void *a, const void *b)
{
    return blst_p2_is_equal(a, b);
}

static void g2_add(void *r, const void *a, const void *b)
{
    blst_p2_add_or_double(r, a, b);
}

static void g2_dbl(void *r, const void *a)
{
    blst_p2_double(r, a);
}

static void g2_add_aff(void *r, const void *a, const uint8_t *aff)
{
    blst_p2_affine b;
    memcpy(&b, aff, sizeof(b));
    blst_p2_add_or_double_affine(r, a, &b);
}

static void g2_neg(void *r, const void *a)
{
    if (r != a)
        memcpy(r, a, sizeof(blst_p2));
    blst_p2_cneg(r, true);
}

static void g2_mul(void *r, const void *a, const pl__cer_fr *s)
{
    blst_scalar k;
    blst_scalar_from_fr(&k, (const blst_fr *)s);
    blst_p2_mult(r, a, k.b, 255);
}

/* as g1_mul_int: 176..256 bits use the G2 endomorphism; the cofactor
 * (507 bits) takes the generic path */
static void g2_mul_int(void *r, const void *a, const uint8_t *le, size_t bytes)
{
    blst_p2_mult(r, a, le, 8 * bytes);
}

static pl_status g2_msm(void *out, const uint8_t *pts, const uint8_t *scalars,
                        size_t n, pl__pool *pool, pl_error *err)
{
    return pl__msm_g2(out, pts, scalars, n, pool, err);
}

static uint64_t g2_msm_scratch_bytes(size_t n, unsigned threads)
{
    return pl__msm_g2_scratch_bytes(n, threads);
}

/* ---- the hot loops, once per group ---------------------------------------- */

/* one in Montgomery form, R = 2^384 mod q (blst's BLS12_381_Rx.p;
 * test_ceremony checks it against blst_fp_from_uint64) */
static const blst_fp fp_one_c = {{0x760900000002fffdull, 0xebf4000bc40c0002ull,
                                  0x5f48985753c758baull, 0x77ce585370525745ull,
                                  0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}};
static const blst_fp2 fp2_one_c = {{{{0x760900000002fffdull,
                                      0xebf4000bc40c0002ull,
                                      0x5f48985753c758baull,
                                      0x77ce585370525745ull,
                                      0x5c071a97a256ec6dull,
                                      0x15f65ec3fa80e493ull}},
                                    {{0}}}};

static void fr_to_le32(uint8_t le[32], const blst_fr *a)
{
    blst_scalar s;
    blst_scalar_from_fr(&s, a);
    memcpy(le, s.b, 32);
}

/*
 * The endomorphisms (group_impl.h's E), with z = -0xd201000000010000 the
 * curve's parameter (r = z^4 - z^2 + 1).  Checked numerically against
 * double and add (tests/test_ceremony.c batch_products_agree):
 *  - G1: E(x, y) = (beta x, -y) = [z^2] (x, y), beta a cube root of unity
 *    in Fp (Montgomery form below); a scalar splits as s = k0 + k1 z^2,
 *    0 <= k0 < z^2, k1 < 2^128;
 *  - G2: E(x, y) = -psi(x, y) = (conj(x) c1, -conj(y) c2) = [|z|] (x, y),
 *    with psi the untwist-Frobenius-twist map, c1 = (1 + u)^(-(q-1)/3),
 *    c2 = (1 + u)^(-(q-1)/2) (RFC 9380's psi constants, Montgomery form);
 *    a scalar splits into four base-|z| digits, each below 2^64.
 */
#define Z_ABS 0xd201000000010000ull
static const blst_fp glv_beta = {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull,
                                  0x16a8ca3ac61577f7ull, 0xc26a2ff874fd029bull,
                                  0x3636b76660701c6eull, 0x051ba4ab241b6160ull}};
static const blst_fp2 psi_c1 = {
    {{{0, 0, 0, 0, 0, 0}},
     {{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
       0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}}}};
static const blst_fp2 psi_c2 = {
    {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
       0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
     {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
       0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}}};

/* a (4 limbs) divided by d in place; returns the remainder */
static uint64_t div_small(uint64_t a[4], uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned __int128 cur = (rem << 64) | a[i];
        a[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

static void limbs_of(uint64_t a[4], const uint8_t le[32])
{
    for (unsigned i = 0; i < 4; i++) {
        a[i] = 0;
        for (unsigned j = 0; j < 8; j++)
            a[i] |= (uint64_t)le[8 * i + j] << (8 * j);
    }
}

static void g1_split(unsigned __int128 k[2], uint8_t *neg,
                     const uint8_t le[32])
{
    *neg = 0;
    uint64_t a[4];
    limbs_of(a, le);
    uint64_t r1 = div_small(a, Z_ABS);
    uint64_t r2 = div_small(a, Z_ABS);
    k[0] = (unsigned __int128)r2 * Z_ABS + r1;
    k[1] = (unsigned __int128)a[1] << 64 | a[0];
}

static void g1_endo(blst_p1_affine *r, const blst_p1_affine *a)
{
    if (fp_is_zero(&a->x) && fp_is_zero(&a->y)) {
        *r = *a;
        return;
    }
    blst_fp_mul(&r->x, &a->x, &glv_beta);
    blst_fp_cneg(&r->y, &a->y, true);
}

static void g2_split(unsigned __int128 k[4], uint8_t *neg,
                     const uint8_t le[32])
{
    *neg = 0;
    uint64_t a[4];
    limbs_of(a, le);
    for (unsigned d = 0; d < 4; d++)
        k[d] = div_small(a, Z_ABS);
}

static void g2_endo(blst_p2_affine *r, const blst_p2_affine *a)
{
    if (fp2_is_zero(&a->x) && fp2_is_zero(&a->y)) {
        *r = *a;
        return;
    }
    blst_fp2 t = a->x;
    blst_fp_cneg(&t.fp[1], &t.fp[1], true);
    blst_fp2_mul(&r->x, &t, &psi_c1);
    t = a->y;
    blst_fp_cneg(&t.fp[1], &t.fp[1], true);
    blst_fp2_mul(&r->y, &t, &psi_c2);
    blst_fp2_cneg(&r->y, &r->y, true);
}

#define PL__G(name) name##_g1
#define PL__AFF blst_p1_affine
#define PL__JAC blst_p1
#define PL__F blst_fp
#define PL__F_ONE (&fp_one_c)
#define PL__F_MUL blst_fp_mul
#define PL__F_SQR blst_fp_sqr
#define PL__F_INV blst_fp_inverse
#define PL__F_IS_ZERO fp_is_zero
#define PL__F_CNEG blst_fp_cneg
#define PL__F_ADD blst_fp_add
#define PL__F_SUB blst_fp_sub
#define PL__F_MUL3 blst_fp_mul_by_3
#define PL__JAC_IS_INF blst_p1_is_inf
#define PL__JAC_ADD blst_p1_add_or_double
#define PL__JAC_ADD_AFF blst_p1_add_or_double_affine
#define PL__JAC_DBL blst_p1_double
#define PL__JAC_FROM_AFF blst_p1_from_affine
#define PL__JAC_CNEG blst_p1_cneg
#define PL__JAC_MUL(r, a, le) blst_p1_mult((r), (a), (le), 255)
#define PL__FR blst_fr
#define PL__FR_MUL blst_fr_mul
#define PL__FR_TO_LE fr_to_le32
#define PL__GLV_DIM 2u
#define PL__GLV_BITS 128u
#define PL__GLV_SPLIT g1_split
#define PL__GLV_ENDO g1_endo
#include "ceremony/group_impl.h"

#define PL__G(name) name##_g2
#define PL__AFF blst_p2_affine
#define PL__JAC blst_p2
#define PL__F blst_fp2
#define PL__F_ONE (&fp2_one_c)
#define PL__F_MUL blst_fp2_mul
#define PL__F_SQR blst_fp2_sqr
#define PL__F_INV blst_fp2_inverse
#define PL__F_IS_ZERO fp2_is_zero
#define PL__F_CNEG blst_fp2_cneg
#define PL__F_ADD blst_fp2_add
#define PL__F_SUB blst_fp2_sub
#define PL__F_MUL3 blst_fp2_mul_by_3
#define PL__JAC_IS_INF blst_p2_is_inf
#define PL__JAC_ADD blst_p2_add_or_double
#define PL__JAC_ADD_AFF blst_p2_add_or_double_affine
#define PL__JAC_DBL blst_p2_double
#define PL__JAC_FROM_AFF blst_p2_from_affine
#define PL__JAC_CNEG blst_p2_cneg
#define PL__JAC_MUL(r, a, le) blst_p2_mult((r), (a), (le), 255)
#define PL__FR blst_fr
#define PL__FR_MUL blst_fr_mul
#define PL__FR_TO_LE fr_to_le32
#define PL__GLV_DIM 4u
#define PL__GLV_BITS 64u
#define PL__GLV_SPLIT g2_split
#define PL__GLV_ENDO g2_endo
#include "ceremony/group_impl.h"

/* ---- Fr -------------------------------------------------------------------- */

static void fr_from_le(pl__cer_fr *out, const uint8_t *le)
{
    pl__fr_from_le((blst_fr *)out, le);
}

static void fr_to_le(uint8_t *le, const pl__cer_fr *a)
{
    pl__fr_to_le(le, (const blst_fr *)a);
}

static void fr_from_u64(pl__cer_fr *out, uint64_t v)
{
    const uint64_t limbs[4] = {v, 0, 0, 0};
    blst_fr_from_uint64((blst_fr *)out, limbs);
}

static void fr_add(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b)
{
    blst_fr_add((blst_fr *)r, (const blst_fr *)a, (const blst_fr *)b);
}

static void fr_sub(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b)
{
    blst_fr_sub((blst_fr *)r, (const blst_fr *)a, (const blst_fr *)b);
}

static void fr_mul(pl__cer_fr *r, const pl__cer_fr *a, const pl__cer_fr *b)
{
    blst_fr_mul((blst_fr *)r, (const blst_fr *)a, (const blst_fr *)b);
}

static void fr_inv(pl__cer_fr *r, const pl__cer_fr *a)
{
    blst_fr_inverse((blst_fr *)r, (const blst_fr *)a);
}

static void fr_root(pl__cer_fr *out, unsigned k)
{
    pl__fr_root_of_unity((blst_fr *)out, k);
}

static pl_status fr_fft(pl__cer_fr *data, unsigned log2n, pl__pool *pool,
                        pl_error *err)
{
    if (log2n == 0)
        return PL_OK; /* one point: the transform is the identity */
    pl__ntt_plan *plan = NULL;
    pl_status st = pl__ntt_plan_create(&plan, log2n, pool, err);
    if (st == PL_OK)
        pl__ntt_forward(plan, (blst_fr *)data, pool);
    pl__ntt_plan_destroy(plan);
    return st;
}

/* e(a1, b2) = e(b1, a2): the Miller loops of (b2, a1) and (a2, -b1) and one
 * final exponentiation */
static bool same_ratio(const uint8_t *a1, const uint8_t *b1,
                       const uint8_t *a2, const uint8_t *b2)
{
    if (pl__cer_all_zero(a1, 96) || pl__cer_all_zero(b1, 96) || pl__cer_all_zero(a2, 192) ||
        pl__cer_all_zero(b2, 192))
        return false;
    blst_p1_affine p, q;
    blst_p2_affine r, s;
    blst_fp12 acc, f;
    memcpy(&p, a1, sizeof(p));
    memcpy(&q, b1, sizeof(q));
    memcpy(&r, a2, sizeof(r));
    memcpy(&s, b2, sizeof(s));
    blst_fp_cneg(&q.y, &q.y, true);
    blst_miller_loop(&acc, &s, &p);
    blst_miller_loop(&f, &r, &q);
    blst_fp12_mul(&acc, &acc, &f);
    blst_final_exp(&acc, &acc);
    return blst_fp12_is_one(&acc);
}

/* ---- the table ------------------------------------------------------------- */

const pl__cer_curve pl__cer_bls12381 = {
    .name = "bls12381",
    .n8q = 48,
    .n8r = 32,
    .r_bits = 255,
    .fr_s = 32,
    .q_le = pl__fp_modulus_le,
    .r_le = pl__fr_modulus_le,
    .g = {
        {.name = "G1", .index = 0, .coord_bytes = 48, .aff_bytes = 96,
         .jac_bytes = sizeof(blst_p1), PL__CER_GROUP_OPS(g1)},
        {.name = "G2", .index = 1, .coord_bytes = 96, .aff_bytes = 192,
         .jac_bytes = sizeof(blst_p2), PL__CER_GROUP_OPS(g2)},
    },
    PL__CER_FR_OPS,
};
