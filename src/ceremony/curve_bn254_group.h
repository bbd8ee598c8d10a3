/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One BN254 group in one field implementation for the ceremony
 * (curve_bn254.c includes it four times: G1 and G2, mulx/adx and
 * portable): group_impl.h's hot loops over src/field/bn254's operations
 * with the implementation fixed at compile time (a constant argument of
 * the always-inline field operations, so each copy is one
 * implementation's code and no branch), and the constant-time
 * multiplication a contribution's secrets take.
 *
 * Defined by the includer: BN_G (1 or 2), BN_V (PL__BN254_ADX or
 * PL__BN254_PORTABLE) and BN_VS its suffix (adx, portable), BN_SFX(name)
 * (name##_g1_adx, ...), BN_CAT(a, b) (a##b after expansion).  No header
 * guard on purpose; it undefines what it defines.
 */

#if BN_G == 1
#define BN_AFF pl__bn254_g1_affine
#define BN_JAC pl__bn254_g1
#define BN_F pl__bn254_fp
#define BN_F_ONE (&PL__BN254_FP_ONE)
#define BN_F_MUL(r, a, b) pl__bn254_fp_mul((r), (a), (b), BN_V)
#define BN_F_SQR(r, a) pl__bn254_fp_sqr((r), (a), BN_V)
#define BN_F_ADD(r, a, b) pl__bn254_fp_add((r), (a), (b), BN_V)
#define BN_F_SUB(r, a, b) pl__bn254_fp_sub((r), (a), (b), BN_V)
#define BN_F_MUL3(r, a) pl__bn254_fp_mul3((r), (a), BN_V)
#define BN_F_CNEG(r, a, f) pl__bn254_fp_cneg((r), (a), (f), BN_V)
#define BN_F_IS_ZERO pl__bn254_fp_is_zero
#define BN_JAC_IS_INF pl__bn254_g1_is_inf
#define BN_JAC_FROM_AFF pl__bn254_g1_from_affine
#define BN_OP(name) BN_CAT(BN_CAT(pl__bn254_g1_, name), BN_CAT(_, BN_VS))
#define BN_F_INV BN_CAT(pl__bn254_fp_inv_, BN_VS)
#define BN_ENDO bn_endo_g1
#else
#define BN_AFF pl__bn254_g2_affine
#define BN_JAC pl__bn254_g2
#define BN_F pl__bn254_fp2
#define BN_F_ONE (&bn_fp2_one)
#define BN_F_MUL(r, a, b) pl__bn254_fp2_mul((r), (a), (b), BN_V)
#define BN_F_SQR(r, a) pl__bn254_fp2_sqr((r), (a), BN_V)
#define BN_F_ADD(r, a, b) pl__bn254_fp2_add((r), (a), (b), BN_V)
#define BN_F_SUB(r, a, b) pl__bn254_fp2_sub((r), (a), (b), BN_V)
#define BN_F_MUL3(r, a) pl__bn254_fp2_mul3((r), (a), BN_V)
#define BN_F_CNEG(r, a, f) pl__bn254_fp2_cneg((r), (a), (f), BN_V)
#define BN_F_IS_ZERO pl__bn254_fp2_is_zero
#define BN_JAC_IS_INF pl__bn254_g2_is_inf
#define BN_JAC_FROM_AFF pl__bn254_g2_from_affine
#define BN_OP(name) BN_CAT(BN_CAT(pl__bn254_g2_, name), BN_CAT(_, BN_VS))
#define BN_F_INV BN_CAT(pl__bn254_fp2_inv_, BN_VS)
#define BN_ENDO bn_endo_g2
#endif

/* [k] a for a canonical 32-byte scalar k < r with a schedule that does
 * not depend on k: k + 4r (exactly 256 bits: 2^255 <= 4r <= k + 4r < 5r <
 * 2^256, and the same multiple of a point of order r) in 64 base-16
 * digits recoded into 1..16 (a zero digit borrows from the next, done
 * with masks), so every step is four doublings and one addition of a
 * table entry chosen by a scan of the whole table.  The Jacobian
 * addition's own special cases (equal or opposite operands) need a
 * partial sum equal to +-a table entry, which a secret scalar meets with
 * negligible probability. */
static void BN_SFX(ct_mul)(BN_JAC *r, const BN_JAC *a, const uint8_t le[32])
{
    static const uint64_t four_r[4] = {0x0f87d64fc0000004ull,
                                       0xa0cfa121e6e5c245ull,
                                       0xe14116da06056174ull,
                                       0xc19139cb84c680a6ull};
    uint64_t k[4];
    unsigned __int128 c = 0;
    for (unsigned i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (unsigned j = 0; j < 8; j++)
            w |= (uint64_t)le[8 * i + j] << (8 * j);
        c += (unsigned __int128)w + four_r[i];
        k[i] = (uint64_t)c;
        c >>= 64;
    }
    uint8_t dig[64];
    unsigned borrow = 0;
    for (unsigned i = 0; i < 64; i++) {
        int v = (int)((k[i / 16] >> (4 * (i % 16))) & 15u) - (int)borrow;
        unsigned low = (unsigned)((v - 1) >> 31) & 1u;  /* v <= 0 */
        v += (int)(16u & (0u - low));
        borrow = low;
        dig[i] = (uint8_t)(v - 1);   /* the table index, 0..15 */
    }
    BN_JAC t[16], acc, s;
    t[0] = *a;
    BN_OP(dbl)(&t[1], a);
    for (unsigned j = 2; j < 16; j++)
        BN_OP(add)(&t[j], &t[j - 1], a);
    for (int i = 63; i >= 0; i--) {
        uint64_t *sw = (uint64_t *)&s;
        memset(&s, 0, sizeof(s));
        for (unsigned j = 0; j < 16; j++) {
            const uint64_t m =
                (uint64_t)0 - (uint64_t)((((unsigned)(j ^ dig[i])) - 1u) >> 31);
            const uint64_t *tw = (const uint64_t *)&t[j];
            for (size_t w = 0; w < sizeof(s) / 8; w++)
                sw[w] |= tw[w] & m;
        }
        if (i == 63) {
            acc = s;
            continue;
        }
        for (unsigned d = 0; d < 4; d++)
            BN_OP(dbl)(&acc, &acc);
        BN_OP(add)(&acc, &acc, &s);
    }
    *r = acc;
    memset(dig, 0, sizeof(dig));
    memset(k, 0, sizeof(k));
}

static void BN_SFX(fr_to_le)(uint8_t le[32], const pl__bn254_fr *a)
{
    pl__bn254_fr_to_le(le, a);
}

#define PL__G(name) BN_SFX(name)
#define PL__AFF BN_AFF
#define PL__JAC BN_JAC
#define PL__F BN_F
#define PL__F_ONE BN_F_ONE
#define PL__F_MUL BN_F_MUL
#define PL__F_SQR BN_F_SQR
#define PL__F_INV BN_F_INV
#define PL__F_IS_ZERO BN_F_IS_ZERO
#define PL__F_CNEG BN_F_CNEG
#define PL__F_ADD BN_F_ADD
#define PL__F_SUB BN_F_SUB
#define PL__F_MUL3 BN_F_MUL3
#define PL__JAC_IS_INF BN_JAC_IS_INF
#define PL__JAC_ADD BN_OP(add)
#define PL__JAC_ADD_AFF BN_OP(add_affine)
#define PL__JAC_DBL BN_OP(dbl)
#define PL__JAC_FROM_AFF BN_JAC_FROM_AFF
#define PL__JAC_MUL(r, a, le) BN_SFX(ct_mul)((r), (a), (le))
#define PL__FR pl__bn254_fr
#define PL__FR_MUL(r, a, b) pl__bn254_fr_mul((r), (a), (b), BN_V)
#define PL__FR_TO_LE BN_SFX(fr_to_le)
#define PL__GLV_DIM 2u
#define PL__GLV_BITS 128u
#define PL__GLV_SPLIT bn_split
#define PL__GLV_ENDO(r, a) BN_ENDO((r), (a), BN_V)
#include "ceremony/group_impl.h"

#undef BN_AFF
#undef BN_JAC
#undef BN_F
#undef BN_F_ONE
#undef BN_F_MUL
#undef BN_F_SQR
#undef BN_F_ADD
#undef BN_F_SUB
#undef BN_F_MUL3
#undef BN_F_CNEG
#undef BN_F_IS_ZERO
#undef BN_JAC_IS_INF
#undef BN_JAC_FROM_AFF
#undef BN_OP
#undef BN_F_INV
#undef BN_ENDO
