/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Multi-precision arithmetic on little-endian arrays of 32-bit limbs, the
 * bottom layer of the CUDA backend's device arithmetic (fp.h, fr.h and g1.h
 * build on it; it holds what the kernels use, nothing more).  The same source compiles as CUDA device code
 * under nvcc and as plain C11 on the host: the host build is how the device
 * arithmetic is tested against blst on machines without a GPU
 * (tests/test_cuda_arith.c).  Everything is header-only and, but for the
 * rare paths marked PL_DEVICE_COLD_FN, inlined; the limb count `n` is always a constant at the call site, so nvcc unrolls
 * the loops completely and keeps the limbs in registers.
 *
 * Not here: anything that allocates, any CUDA runtime call, any kernel.
 * Values are plain integers; the Montgomery layer is pl__cu_mont_mul.
 */
#ifndef PL_CUDA_ARITH_LIMBS_H
#define PL_CUDA_ARITH_LIMBS_H

#include <stdbool.h>
#include <stdint.h>

/* Device and host at once under nvcc; an ordinary inline function in the C
 * build.  nvcc's __forceinline__ makes the function inline (C++ linkage
 * rules), so the headers can be included from several .cu files. */
#ifdef __CUDACC__
#define PL_DEVICE_FN __host__ __device__ __forceinline__
#else
#define PL_DEVICE_FN static inline
#endif
/* For the field multiplication and rare paths (the doubling fallback of the
 * mixed addition): a real call on the device, so that every addition
 * inlined into a kernel does not carry a copy of them (see pl__cu_fp_mul
 * for what inlining costs in compile time). */
#ifdef __CUDACC__
#define PL_DEVICE_COLD_FN inline __host__ __device__ __noinline__
#else
#define PL_DEVICE_COLD_FN static inline
#endif
/* Only the device pass reads the pragma; the host compiler would warn. */
#ifdef __CUDA_ARCH__
#define PL_UNROLL _Pragma("unroll")
#else
#define PL_UNROLL
#endif

/* The largest limb count used (Fp, 12 x 32 = 384 bits); scratch arrays in
 * this file are sized by it so that no VLA is needed. */
#define PL_CU_MAX_LIMBS 12

/* r = a + b over n limbs; returns the carry out (0 or 1). */
PL_DEVICE_FN uint32_t pl__cu_limbs_add(uint32_t *r, const uint32_t *a,
                                       const uint32_t *b, int n)
{
    uint64_t c = 0;
    PL_UNROLL
    for (int i = 0; i < n; i++) {
        c += (uint64_t)a[i] + b[i];
        r[i] = (uint32_t)c;
        c >>= 32;
    }
    return (uint32_t)c;
}

/* r = a - b over n limbs; returns the borrow out (0 or 1). */
PL_DEVICE_FN uint32_t pl__cu_limbs_sub(uint32_t *r, const uint32_t *a,
                                       const uint32_t *b, int n)
{
    uint32_t borrow = 0;
    PL_UNROLL
    for (int i = 0; i < n; i++) {
        uint64_t d = (uint64_t)a[i] - b[i] - borrow;
        r[i] = (uint32_t)d;
        borrow = (uint32_t)(d >> 63); /* 1 iff it wrapped */
    }
    return borrow;
}

/* r = mask ? a : b, with mask all ones or zero.  A select rather than a
 * branch: on the GPU a data-dependent branch diverges the warp. */
PL_DEVICE_FN void pl__cu_limbs_select(uint32_t *r, uint32_t mask,
                                      const uint32_t *a, const uint32_t *b,
                                      int n)
{
    PL_UNROLL
    for (int i = 0; i < n; i++)
        r[i] = (a[i] & mask) | (b[i] & ~mask);
}

PL_DEVICE_FN bool pl__cu_limbs_is_zero(const uint32_t *a, int n)
{
    uint32_t acc = 0;
    PL_UNROLL
    for (int i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

/* r = a + b mod p, for a, b < p. */
PL_DEVICE_FN void pl__cu_mod_add(uint32_t *r, const uint32_t *a,
                                 const uint32_t *b, const uint32_t *p, int n)
{
    uint32_t s[PL_CU_MAX_LIMBS], d[PL_CU_MAX_LIMBS];
    uint32_t carry = pl__cu_limbs_add(s, a, b, n);
    uint32_t borrow = pl__cu_limbs_sub(d, s, p, n);
    /* s >= p exactly when the sum carried out or s - p did not borrow. */
    uint32_t use_d = carry | (borrow ^ 1);
    pl__cu_limbs_select(r, 0u - use_d, d, s, n);
}

/* r = a - b mod p, for a, b < p. */
PL_DEVICE_FN void pl__cu_mod_sub(uint32_t *r, const uint32_t *a,
                                 const uint32_t *b, const uint32_t *p, int n)
{
    uint32_t d[PL_CU_MAX_LIMBS], s[PL_CU_MAX_LIMBS];
    uint32_t borrow = pl__cu_limbs_sub(d, a, b, n);
    pl__cu_limbs_add(s, d, p, n); /* the carry out cancels the wrap */
    pl__cu_limbs_select(r, 0u - borrow, s, d, n);
}

/* r = -a mod p, for a < p: p - a, except 0 stays 0 (p itself is not a
 * reduced value). */
PL_DEVICE_FN void pl__cu_mod_neg(uint32_t *r, const uint32_t *a,
                                 const uint32_t *p, int n)
{
    uint32_t d[PL_CU_MAX_LIMBS];
    uint32_t nonzero = pl__cu_limbs_is_zero(a, n) ? 0u : 1u;
    pl__cu_limbs_sub(d, p, a, n);
    PL_UNROLL
    for (int i = 0; i < n; i++)
        r[i] = d[i] & (0u - nonzero);
}

/*
 * r = a * b * 2^(-32n) mod p (Montgomery multiplication), for a, b < p, p
 * odd, n0 = -p^-1 mod 2^32.  CIOS (Koc, Acar and Kaliski 1996, "Analyzing
 * and comparing Montgomery multiplication algorithms"): each of the n rounds
 * adds a * b[i] into the accumulator t, then adds m * p with m chosen so
 * that the low limb becomes zero and shifts t down one limb.  t stays below
 * 2p, so one conditional subtraction reduces it.  r may alias a or b.
 *
 * Each 32 x 32 + 32 + 32 step is done in 64-bit arithmetic, which is exact:
 * (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1.  This is the portable form; on the
 * device the carry-chain form below (pl__cu_mont_mul_chains) does the same
 * with about half the instructions; PL_CUDA_PTX selects it.
 */
PL_DEVICE_FN void pl__cu_mont_mul(uint32_t *r, const uint32_t *a,
                                  const uint32_t *b, const uint32_t *p,
                                  uint32_t n0, int n)
{
    uint32_t t[PL_CU_MAX_LIMBS + 2];
    PL_UNROLL
    for (int j = 0; j < n + 2; j++)
        t[j] = 0;

    PL_UNROLL
    for (int i = 0; i < n; i++) {
        /* t += a * b[i]   (PTX: one madc chain over the low and high halves) */
        uint64_t c = 0;
        PL_UNROLL
        for (int j = 0; j < n; j++) {
            c += (uint64_t)a[j] * b[i] + t[j];
            t[j] = (uint32_t)c;
            c >>= 32;
        }
        c += t[n];
        t[n] = (uint32_t)c;
        t[n + 1] = (uint32_t)(c >> 32);

        /* t = (t + m * p) / 2^32   (PTX: the second madc chain) */
        uint32_t m = t[0] * n0;
        /* the low limb of t + m p is zero by the choice of m */
        c = ((uint64_t)m * p[0] + t[0]) >> 32;
        PL_UNROLL
        for (int j = 1; j < n; j++) {
            c += (uint64_t)m * p[j] + t[j];
            t[j - 1] = (uint32_t)c;
            c >>= 32;
        }
        c += t[n];
        t[n - 1] = (uint32_t)c;
        t[n] = t[n + 1] + (uint32_t)(c >> 32);
    }

    uint32_t d[PL_CU_MAX_LIMBS];
    uint32_t borrow = pl__cu_limbs_sub(d, t, p, n);
    /* t < 2p < 2^(32n+1): t >= p iff the top limb is set or t - p did not
     * borrow. */
    uint32_t use_d = (t[n] != 0) | (borrow ^ 1);
    pl__cu_limbs_select(r, 0u - use_d, d, t, n);
}

/*
 * The same multiplication over PTX carry chains: what the device runs when
 * built with PL_CUDA_PTX (CMake option PL_CUDA_PTX).  Each primitive below
 * is one PTX instruction on the device (mad.lo.cc.u32 and friends, which
 * keep the carry in the condition-code register between instructions) and,
 * on the host, a C emulation of that instruction with the carry flag in
 * `cc`: the host tests run exactly the device's instruction sequence, so
 * only the one-line asm wrappers are left for the GPU check to confirm.
 *
 * A round of CIOS is four chains over the n + 2 limbs of t:
 *   lo(a_j b_i) into t_j,  hi(a_j b_i) into t_(j+1),
 *   lo(m p_j) into t_j,    hi(m p_j) into t_(j+1),
 * each ending in the carry into the top limbs, then t shifts down a limb
 * (t_0 is zero by the choice of m).  4n multiply-adds a round, against
 * about twice the instructions for the 64-bit products of pl__cu_mont_mul.
 * Bounds as there: t stays below 2p, every partial sum below 2^(32(n+2)).
 */
typedef struct {
    uint32_t cf; /* the emulated carry flag (unused on the device) */
} pl__cu_cc;

#ifdef __CUDA_ARCH__
#define PL__PTX3(op, r, a, b)                                                 \
    asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b))
#define PL__PTX4(op, r, a, b, c)                                              \
    asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c))
#endif

/* d = lo(a b) + c, carry out */
PL_DEVICE_FN uint32_t pl__cu_mad_lo_cc(pl__cu_cc *cc, uint32_t a, uint32_t b,
                                       uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    PL__PTX4("mad.lo.cc.u32", r, a, b, c);
    return r;
#else
    uint64_t s = (uint64_t)(uint32_t)(a * b) + c;
    cc->cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

/* d = lo(a b) + c + carry, carry out */
PL_DEVICE_FN uint32_t pl__cu_madc_lo_cc(pl__cu_cc *cc, uint32_t a, uint32_t b,
                                        uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    PL__PTX4("madc.lo.cc.u32", r, a, b, c);
    return r;
#else
    uint64_t s = (uint64_t)(uint32_t)(a * b) + c + cc->cf;
    cc->cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

/* d = hi(a b) + c, carry out */
PL_DEVICE_FN uint32_t pl__cu_mad_hi_cc(pl__cu_cc *cc, uint32_t a, uint32_t b,
                                       uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    PL__PTX4("mad.hi.cc.u32", r, a, b, c);
    return r;
#else
    uint64_t s = (((uint64_t)a * b) >> 32) + c;
    cc->cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

/* d = hi(a b) + c + carry, carry out */
PL_DEVICE_FN uint32_t pl__cu_madc_hi_cc(pl__cu_cc *cc, uint32_t a, uint32_t b,
                                        uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    PL__PTX4("madc.hi.cc.u32", r, a, b, c);
    return r;
#else
    uint64_t s = (((uint64_t)a * b) >> 32) + c + cc->cf;
    cc->cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

/* d = a + b + carry, carry out */
PL_DEVICE_FN uint32_t pl__cu_addc_cc(pl__cu_cc *cc, uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    PL__PTX3("addc.cc.u32", r, a, b);
    return r;
#else
    uint64_t s = (uint64_t)a + b + cc->cf;
    cc->cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

/* d = a + b + carry; the carry flag is left as it is */
PL_DEVICE_FN uint32_t pl__cu_addc(pl__cu_cc *cc, uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    PL__PTX3("addc.u32", r, a, b);
    return r;
#else
    return a + b + cc->cf;
#endif
}

PL_DEVICE_FN void pl__cu_mont_mul_chains(uint32_t *r, const uint32_t *a,
                                         const uint32_t *b, const uint32_t *p,
                                         uint32_t n0, int n)
{
    uint32_t t[PL_CU_MAX_LIMBS + 2];
    pl__cu_cc cc = {0};
    PL_UNROLL
    for (int j = 0; j < n + 2; j++)
        t[j] = 0;
    PL_UNROLL
    for (int i = 0; i < n; i++) {
        uint32_t bi = b[i];
        /* t += a bi: the low halves, then the high halves a limb up */
        t[0] = pl__cu_mad_lo_cc(&cc, a[0], bi, t[0]);
        PL_UNROLL
        for (int j = 1; j < n; j++)
            t[j] = pl__cu_madc_lo_cc(&cc, a[j], bi, t[j]);
        t[n] = pl__cu_addc_cc(&cc, t[n], 0);
        t[n + 1] = pl__cu_addc(&cc, t[n + 1], 0);
        t[1] = pl__cu_mad_hi_cc(&cc, a[0], bi, t[1]);
        PL_UNROLL
        for (int j = 1; j < n; j++)
            t[j + 1] = pl__cu_madc_hi_cc(&cc, a[j], bi, t[j + 1]);
        t[n + 1] = pl__cu_addc(&cc, t[n + 1], 0);
        /* t += m p, making t_0 zero */
        uint32_t m = t[0] * n0;
        t[0] = pl__cu_mad_lo_cc(&cc, m, p[0], t[0]);
        PL_UNROLL
        for (int j = 1; j < n; j++)
            t[j] = pl__cu_madc_lo_cc(&cc, m, p[j], t[j]);
        t[n] = pl__cu_addc_cc(&cc, t[n], 0);
        t[n + 1] = pl__cu_addc(&cc, t[n + 1], 0);
        t[1] = pl__cu_mad_hi_cc(&cc, m, p[0], t[1]);
        PL_UNROLL
        for (int j = 1; j < n; j++)
            t[j + 1] = pl__cu_madc_hi_cc(&cc, m, p[j], t[j + 1]);
        t[n + 1] = pl__cu_addc(&cc, t[n + 1], 0);
        /* t /= 2^32 */
        PL_UNROLL
        for (int j = 0; j <= n; j++)
            t[j] = t[j + 1];
        t[n + 1] = 0;
    }
    uint32_t d[PL_CU_MAX_LIMBS];
    uint32_t borrow = pl__cu_limbs_sub(d, t, p, n);
    uint32_t use_d = (t[n] != 0) | (borrow ^ 1);
    pl__cu_limbs_select(r, 0u - use_d, d, t, n);
}

/* The device's Montgomery multiplication: the carry chains when built with
 * PL_CUDA_PTX, else the portable form (the host always runs the portable
 * one as the library's, and tests both). */
#if defined(__CUDA_ARCH__) && defined(PL_CUDA_PTX)
#define PL__CU_MONT_MUL pl__cu_mont_mul_chains
#else
#define PL__CU_MONT_MUL pl__cu_mont_mul
#endif

#endif /* PL_CUDA_ARITH_LIMBS_H */
