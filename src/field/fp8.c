/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pl__fp8_mul (see fp8.h): 8 Montgomery multiplications mod p in the 8
 * lanes of AVX-512 IFMA registers, limbs of 52 bits.  Operand scanning:
 * for each limb a_i, t += a_i b and t += m p with m = t_0 (-p^-1) mod
 * 2^52, then t shifts down a limb.  Limbs are not carried inside the loop:
 * each position takes at most 4 products of 52 bits per round and is live
 * for 8 rounds, so it stays below 2^57 in its 64-bit lane; vpmadd52luq
 * reads only the low 52 bits of t_0, which is all m needs, and t_0's top
 * bits go up as the carry.  The result (< 2p, as 4p < 2^416) is carried
 * and reduced once at the end.
 *
 * The constants were derived with Python big integers; test_fp8.c checks
 * the product against blst on random and edge values.
 */
#include "field/fp8.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PL__FP8_X86 1
#include <immintrin.h>
#endif

#define PL__M52 ((1ull << 52) - 1)

/* p in 52-bit limbs, and -p^-1 mod 2^52 */
static const uint64_t p52[8] = {0xeffffffffaaab, 0xfeb153ffffb9f,
                                0x6b0f6241eabff, 0x12bf6730d2a0f,
                                0x764774b84f385, 0x1ba7b6434bacd,
                                0x1ea397fe69a4b, 0x1a011};
static const uint64_t pinv52 = 0x3fffcfffcfffd;

void pl__fp8_set(pl__fp8 *v, unsigned lane, const uint64_t in[6])
{
    for (unsigned k = 0; k < 8; k++) {
        unsigned bit = 52 * k, w = bit / 64, sh = bit % 64;
        uint64_t x = w < 6 ? in[w] >> sh : 0;
        if (sh > 12 && w + 1 < 6)
            x |= in[w + 1] << (64 - sh);
        v->limb[k][lane] = x & PL__M52;
    }
}

void pl__fp8_get(uint64_t out[6], const pl__fp8 *v, unsigned lane)
{
    memset(out, 0, 6 * sizeof(uint64_t));
    for (unsigned k = 0; k < 8; k++) {
        uint64_t x = v->limb[k][lane];
        unsigned bit = 52 * k, w = bit / 64, sh = bit % 64;
        if (w < 6)
            out[w] |= x << sh;
        if (sh > 12 && w + 1 < 6)
            out[w + 1] |= x >> (64 - sh);
    }
}

#ifdef PL__FP8_X86

bool pl__fp8_supported(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512ifma");
}

__attribute__((target("avx512f,avx512ifma"))) void
pl__fp8_mul(pl__fp8 *r, const pl__fp8 *a, const pl__fp8 *b)
{
    const __m512i zero = _mm512_setzero_si512();
    const __m512i mask = _mm512_set1_epi64((long long)PL__M52);
    const __m512i pinv = _mm512_set1_epi64((long long)pinv52);
    __m512i bv[8], pv[8], t[9];
    for (int j = 0; j < 8; j++) {
        bv[j] = _mm512_load_si512((const void *)b->limb[j]);
        pv[j] = _mm512_set1_epi64((long long)p52[j]);
        t[j] = zero;
    }
    t[8] = zero;
    for (int i = 0; i < 8; i++) {
        __m512i ai = _mm512_load_si512((const void *)a->limb[i]);
        for (int j = 0; j < 8; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], ai, bv[j]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], ai, bv[j]);
        }
        __m512i m = _mm512_madd52lo_epu64(zero, t[0], pinv);
        m = _mm512_and_si512(m, mask);
        for (int j = 0; j < 8; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], m, pv[j]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, pv[j]);
        }
        /* t_0 is now 0 mod 2^52: its top bits carry into t_1 */
        __m512i carry = _mm512_srli_epi64(t[0], 52);
        for (int j = 0; j < 8; j++)
            t[j] = t[j + 1];
        t[0] = _mm512_add_epi64(t[0], carry);
        t[8] = zero;
    }
    /* carry into 52-bit limbs (t < 2p < 2^382 fits in 8 limbs) */
    for (int j = 0; j < 7; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
    /* s = t - p with borrows; keep t where that borrowed (t < p) */
    __m512i s[8], borrow = zero;
    for (int j = 0; j < 8; j++) {
        __m512i d = _mm512_sub_epi64(_mm512_sub_epi64(t[j], pv[j]), borrow);
        borrow = _mm512_srli_epi64(d, 63);
        s[j] = _mm512_and_si512(d, mask);
    }
    __mmask8 keep = _mm512_cmpneq_epi64_mask(borrow, zero);
    for (int j = 0; j < 8; j++)
        _mm512_store_si512((void *)r->limb[j],
                           _mm512_mask_blend_epi64(keep, s[j], t[j]));
}

#else

bool pl__fp8_supported(void) { return false; }

void pl__fp8_mul(pl__fp8 *r, const pl__fp8 *a, const pl__fp8 *b)
{
    (void)r;
    (void)a;
    (void)b; /* never called: pl__fp8_supported() is false */
}

#endif
