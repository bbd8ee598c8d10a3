/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254 (alt_bn128, snarkjs's "bn128") base field Fp and scalar field Fr:
 * 4 x 64-bit limbs, little-endian, in Montgomery form with R = 2^256 (the
 * form snarkjs writes into zkeys and ptau files, so a point's bytes there
 * are these structs' bytes).  Every value is kept fully reduced (< the
 * modulus): the MSM compares coordinates with memcmp.
 *
 * Two implementations of the Montgomery multiplication, chosen once per
 * call by the caller (pl__bn254_arith):
 *   PL__BN254_PORTABLE  C over unsigned __int128;
 *   PL__BN254_ADX       x86-64 inline assembly with mulx (BMI2) and the two
 *                       carry chains of adcx / adox (ADX); only on CPUs
 *                       that have both (pl__bn254_arith_best asks CPUID).
 * The operations below are always-inline functions taking the choice as
 * an argument: a hot loop calls them with a constant, so the compiler
 * emits one implementation's code there and no branch (msm_bn254.c and the
 * BN254 NTT instantiate their loops once per choice and dispatch once per
 * call).  Code that is not hot (the pairing) passes the choice at run time
 * and pays one predictable branch per multiplication.
 *
 * Both moduli are below 2^254, so a + b < 2^255 never carries out of the
 * top limb and the Montgomery loop needs no fifth word beyond the one the
 * products spill into (both facts are used below).  Inversion, powers and
 * square roots are out of line (fp.c), one function per implementation.
 */
#ifndef PL_FIELD_BN254_FP_H
#define PL_FIELD_BN254_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t l[4];
} pl__bn254_fp;
typedef struct {
    uint64_t l[4];
} pl__bn254_fr;

typedef enum {
    PL__BN254_PORTABLE = 0,
    PL__BN254_ADX = 1,
} pl__bn254_arith;

/* PL__BN254_ADX when this CPU has BMI2 and ADX (CPUID leaf 7) and the
 * build targets x86-64, else PL__BN254_PORTABLE; asked once. */
pl__bn254_arith pl__bn254_arith_best(void);
/* The implementation the BN254 MSM, NTT and pairing use: the best unless a
 * test or benchmark chose another (pl__bn254_set_arith; ADX where the CPU
 * lacks it falls back to portable).  Set it while no BN254 work runs. */
pl__bn254_arith pl__bn254_arith_current(void);
void pl__bn254_set_arith(pl__bn254_arith a);
const char *pl__bn254_arith_name(pl__bn254_arith a);

#define PL__BN254_INLINE static inline __attribute__((always_inline))
/* A function of a header that each translation unit using it gets one
 * copy of, called rather than inlined (curve_impl.h says why) */
#define PL__BN254_OUTLINE static __attribute__((noinline, unused))

/* The moduli, -m^-1 mod 2^64, R mod m (one), R^2 mod m. */
static const uint64_t PL__BN254_P[4] = {0x3c208c16d87cfd47, 0x97816a916871ca8d,
                                        0xb85045b68181585d, 0x30644e72e131a029};
static const uint64_t PL__BN254_R[4] = {0x43e1f593f0000001, 0x2833e84879b97091,
                                        0xb85045b68181585d, 0x30644e72e131a029};
#define PL__BN254_P_INV 0x87d20782e4866389ull
#define PL__BN254_R_INV 0xc2e1f593efffffffull
static const pl__bn254_fp PL__BN254_FP_ONE = {
    {0xd35d438dc58f0d9d, 0x0a78eb28f5c70b3d, 0x666ea36f7879462c,
     0x0e0a77c19a07df2f}};
static const pl__bn254_fr PL__BN254_FR_ONE = {
    {0xac96341c4ffffffb, 0x36fc76959f60cd29, 0x666ea36f7879462e,
     0x0e0a77c19a07df2f}};

/* ---- 4-limb Montgomery kernels over a modulus m ------------------------- */

typedef unsigned __int128 pl__u128;

/* r = a + b mod m (a, b < m) */
PL__BN254_INLINE void pl__bn254_add_c(uint64_t r[4], const uint64_t a[4],
                                      const uint64_t b[4], const uint64_t m[4])
{
    uint64_t s[4], d[4];
    pl__u128 c = 0;
    for (int i = 0; i < 4; i++) {
        c += (pl__u128)a[i] + b[i];
        s[i] = (uint64_t)c;
        c >>= 64;
    }
    /* s < 2m < 2^255: no carry out; subtract m when s >= m */
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        pl__u128 t = (pl__u128)s[i] - m[i] - borrow;
        d[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 127);
    }
    uint64_t keep = 0 - borrow; /* all ones when s < m */
    for (int i = 0; i < 4; i++)
        r[i] = (s[i] & keep) | (d[i] & ~keep);
}

/* r = a - b mod m (a, b < m) */
PL__BN254_INLINE void pl__bn254_sub_c(uint64_t r[4], const uint64_t a[4],
                                      const uint64_t b[4], const uint64_t m[4])
{
    uint64_t d[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        pl__u128 t = (pl__u128)a[i] - b[i] - borrow;
        d[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 127);
    }
    uint64_t mask = 0 - borrow; /* add m back when a < b */
    pl__u128 c = 0;
    for (int i = 0; i < 4; i++) {
        c += (pl__u128)d[i] + (m[i] & mask);
        r[i] = (uint64_t)c;
        c >>= 64;
    }
}

/* a b + c + *carry: the low word returned, the high one in *carry (no
 * overflow: (2^64 - 1)^2 + 2 (2^64 - 1) < 2^128).  The additions are
 * 64-bit with their carries (__builtin_add_overflow): GCC 12 compiles the
 * same sums over zero-extended 128-bit values by way of the stack, at
 * half the speed. */
PL__BN254_INLINE uint64_t pl__bn254_mac(uint64_t a, uint64_t b, uint64_t c,
                                        uint64_t *carry)
{
    pl__u128 p = (pl__u128)a * b;
    uint64_t lo = (uint64_t)p, hi = (uint64_t)(p >> 64);
    hi += __builtin_add_overflow(lo, c, &lo);
    hi += __builtin_add_overflow(lo, *carry, &lo);
    *carry = hi;
    return lo;
}

/*
 * r = a b / 2^256 mod m (a, b < m), operand scanning interleaved with the
 * reduction (CIOS): per limb b_i, t += a b_i, then t += q m with
 * q = t_0 (-m^-1) mod 2^64, and t shifts down a limb.  t stays below
 * 2m < 2^255, so 5 words hold it and one conditional subtraction ends it.
 */
PL__BN254_INLINE void pl__bn254_mul_c(uint64_t r[4], const uint64_t a[4],
                                      const uint64_t b[4], const uint64_t m[4],
                                      uint64_t inv)
{
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4, c, q;
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
        c = 0;
        t0 = pl__bn254_mac(a[0], b[i], t0, &c);
        t1 = pl__bn254_mac(a[1], b[i], t1, &c);
        t2 = pl__bn254_mac(a[2], b[i], t2, &c);
        t3 = pl__bn254_mac(a[3], b[i], t3, &c);
        t4 = c;
        q = t0 * inv;
        c = 0;
        (void)pl__bn254_mac(q, m[0], t0, &c); /* zero by the choice of q */
        t0 = pl__bn254_mac(q, m[1], t1, &c);
        t1 = pl__bn254_mac(q, m[2], t2, &c);
        t2 = pl__bn254_mac(q, m[3], t3, &c);
        t3 = t4 + c; /* t < 2m < 2^255: no carry out */
    }
    uint64_t d[4], borrow = 0;
    const uint64_t t[4] = {t0, t1, t2, t3};
    for (int i = 0; i < 4; i++) {
        pl__u128 x = (pl__u128)t[i] - m[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 127);
    }
    uint64_t keep = 0 - borrow;
    for (int i = 0; i < 4; i++)
        r[i] = (t[i] & keep) | (d[i] & ~keep);
}

#if defined(__x86_64__)
/*
 * The same CIOS with mulx (flags untouched) and two carry chains: adcx
 * (CF) adds the low halves of a_j b_i into t_j while adox (OF) adds the
 * high halves into t_(j+1).  The five t registers rotate one place per
 * round instead of moving: after the reduction t_0 is zero and becomes the
 * next round's top word.  Outputs stay in registers (no stores from the
 * assembly, which sanitizers could not see).
 */
#define PL__BN254_MULX_ROUND(I, T0, T1, T2, T3, T4)                            \
    "movq " #I "*8(%[b]), %%rdx\n\t"                                           \
    "xorl %k[lo], %k[lo]\n\t"                                                  \
    "mulxq 0(%[a]), %[lo], %[hi]\n\t"                                          \
    "adcxq %[lo], %[" #T0 "]\n\t"                                              \
    "adoxq %[hi], %[" #T1 "]\n\t"                                              \
    "mulxq 8(%[a]), %[lo], %[hi]\n\t"                                          \
    "adcxq %[lo], %[" #T1 "]\n\t"                                              \
    "adoxq %[hi], %[" #T2 "]\n\t"                                              \
    "mulxq 16(%[a]), %[lo], %[hi]\n\t"                                         \
    "adcxq %[lo], %[" #T2 "]\n\t"                                              \
    "adoxq %[hi], %[" #T3 "]\n\t"                                              \
    "mulxq 24(%[a]), %[lo], %[hi]\n\t"                                         \
    "adcxq %[lo], %[" #T3 "]\n\t"                                              \
    "adoxq %[hi], %[" #T4 "]\n\t"                                              \
    "adcq $0, %[" #T4 "]\n\t"                                                  \
    "movq %[" #T0 "], %%rdx\n\t"                                               \
    "imulq %[inv], %%rdx\n\t"                                                  \
    "xorl %k[lo], %k[lo]\n\t"                                                  \
    "mulxq 0(%[m]), %[lo], %[hi]\n\t"                                          \
    "adcxq %[lo], %[" #T0 "]\n\t"                                              \
    "adoxq %[hi], %[" #T1 "]\n\t"                                              \
    "mulxq 8(%[m]), %[lo], %[hi]\n\t"                                          \
    "adcxq %[lo], %[" #T1 "]\n\t"                                              \
    "adoxq %[hi], %[" #T2 "]\n\t"                                              \
    "mulxq 16(%[m]), %[lo], %[hi]\n\t"                                         \
    "adcxq %[lo], %[" #T2 "]\n\t"                                              \
    "adoxq %[hi], %[" #T3 "]\n\t"                                              \
    "mulxq 24(%[m]), %[lo], %[hi]\n\t"                                         \
    "adcxq %[lo], %[" #T3 "]\n\t"                                              \
    "adoxq %[hi], %[" #T4 "]\n\t"                                              \
    "adcxq %[" #T0 "], %[" #T4 "]\n\t" /* T0 is 0 now: only the carry */

/* The multiplication's reads of a, b and m as memory operands tell the
 * compiler exactly what the assembly reads.  clang gives each memory
 * operand an address register of its own, and with eleven register
 * operands and rdx that is more than x86-64 has once a sanitizer's frame
 * pointer is kept (the fuzz build): there the reads are a "memory"
 * clobber instead, which costs only some reloads around the call. */
#if defined(__clang__)
#define PL__BN254_MUL_READS(a, b, m)
#define PL__BN254_MUL_CLOBBERS "rdx", "cc", "memory"
#else
#define PL__BN254_MUL_READS(a, b, m)                                          \
    , "m"(*(const uint64_t(*)[4])(a)), "m"(*(const uint64_t(*)[4])(b)),      \
        "m"(*(const uint64_t(*)[4])(m))
#define PL__BN254_MUL_CLOBBERS "rdx", "cc"
#endif

PL__BN254_INLINE void pl__bn254_mul_x(uint64_t r[4], const uint64_t a[4],
                                      const uint64_t b[4], const uint64_t m[4],
                                      uint64_t inv)
{
    uint64_t A, B, C, D, E, lo, hi;
    __asm__("xorl %k[A], %k[A]\n\t"
            "xorl %k[B], %k[B]\n\t"
            "xorl %k[C], %k[C]\n\t"
            "xorl %k[D], %k[D]\n\t"
            "xorl %k[E], %k[E]\n\t" PL__BN254_MULX_ROUND(0, A, B, C, D, E)
                PL__BN254_MULX_ROUND(1, B, C, D, E, A)
                    PL__BN254_MULX_ROUND(2, C, D, E, A, B)
                        PL__BN254_MULX_ROUND(3, D, E, A, B, C)
            /* t = (E, A, B, C) < 2m; D, lo, hi, rdx hold t - m */
            "movq %[E], %[lo]\n\t"
            "subq 0(%[m]), %[lo]\n\t"
            "movq %[A], %[hi]\n\t"
            "sbbq 8(%[m]), %[hi]\n\t"
            "movq %[B], %%rdx\n\t"
            "sbbq 16(%[m]), %%rdx\n\t"
            "movq %[C], %[D]\n\t"
            "sbbq 24(%[m]), %[D]\n\t"
            "cmovncq %[lo], %[E]\n\t"
            "cmovncq %[hi], %[A]\n\t"
            "cmovncq %%rdx, %[B]\n\t"
            "cmovncq %[D], %[C]\n\t"
            : [A] "=&r"(A), [B] "=&r"(B), [C] "=&r"(C), [D] "=&r"(D),
              [E] "=&r"(E), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), [m] "r"(m), [inv] "r"(inv)
                PL__BN254_MUL_READS(a, b, m)
            : PL__BN254_MUL_CLOBBERS);
    r[0] = E;
    r[1] = A;
    r[2] = B;
    r[3] = C;
}
#undef PL__BN254_MULX_ROUND
#undef PL__BN254_MUL_READS
#undef PL__BN254_MUL_CLOBBERS

/* r = a + b mod m: add, subtract m, keep the difference unless it
 * borrowed. */
PL__BN254_INLINE void pl__bn254_add_x(uint64_t r[4], const uint64_t a[4],
                                      const uint64_t b[4], const uint64_t m[4])
{
    uint64_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], d0, d1, d2, d3;
    __asm__("addq 0(%[b]), %[s0]\n\t"
            "adcq 8(%[b]), %[s1]\n\t"
            "adcq 16(%[b]), %[s2]\n\t"
            "adcq 24(%[b]), %[s3]\n\t"
            "movq %[s0], %[d0]\n\t"
            "subq 0(%[m]), %[d0]\n\t"
            "movq %[s1], %[d1]\n\t"
            "sbbq 8(%[m]), %[d1]\n\t"
            "movq %[s2], %[d2]\n\t"
            "sbbq 16(%[m]), %[d2]\n\t"
            "movq %[s3], %[d3]\n\t"
            "sbbq 24(%[m]), %[d3]\n\t"
            "cmovncq %[d0], %[s0]\n\t"
            "cmovncq %[d1], %[s1]\n\t"
            "cmovncq %[d2], %[s2]\n\t"
            "cmovncq %[d3], %[s3]\n\t"
            : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3),
              [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3)
            : [b] "r"(b), [m] "r"(m), "m"(*(const uint64_t(*)[4])b),
              "m"(*(const uint64_t(*)[4])m)
            : "cc");
    r[0] = s0;
    r[1] = s1;
    r[2] = s2;
    r[3] = s3;
}

/* r = a - b mod m: subtract, then add m masked by the borrow. */
PL__BN254_INLINE void pl__bn254_sub_x(uint64_t r[4], const uint64_t a[4],
                                      const uint64_t b[4], const uint64_t m[4])
{
    uint64_t s0 = a[0], s1 = a[1], s2 = a[2], s3 = a[3], k0, k1, k2, k3;
    __asm__("subq 0(%[b]), %[s0]\n\t"
            "sbbq 8(%[b]), %[s1]\n\t"
            "sbbq 16(%[b]), %[s2]\n\t"
            "sbbq 24(%[b]), %[s3]\n\t"
            "sbbq %[k0], %[k0]\n\t" /* all ones on a borrow */
            "movq %[k0], %[k1]\n\t"
            "movq %[k0], %[k2]\n\t"
            "movq %[k0], %[k3]\n\t"
            "andq 0(%[m]), %[k0]\n\t"
            "andq 8(%[m]), %[k1]\n\t"
            "andq 16(%[m]), %[k2]\n\t"
            "andq 24(%[m]), %[k3]\n\t"
            "addq %[k0], %[s0]\n\t"
            "adcq %[k1], %[s1]\n\t"
            "adcq %[k2], %[s2]\n\t"
            "adcq %[k3], %[s3]\n\t"
            : [s0] "+&r"(s0), [s1] "+&r"(s1), [s2] "+&r"(s2), [s3] "+&r"(s3),
              [k0] "=&r"(k0), [k1] "=&r"(k1), [k2] "=&r"(k2), [k3] "=&r"(k3)
            : [b] "r"(b), [m] "r"(m), "m"(*(const uint64_t(*)[4])b),
              "m"(*(const uint64_t(*)[4])m)
            : "cc");
    r[0] = s0;
    r[1] = s1;
    r[2] = s2;
    r[3] = s3;
}
#define PL__BN254_HAVE_X 1
#else
#define PL__BN254_HAVE_X 0
#endif

PL__BN254_INLINE void pl__bn254_mont_mul(uint64_t r[4], const uint64_t a[4],
                                         const uint64_t b[4],
                                         const uint64_t m[4], uint64_t inv,
                                         pl__bn254_arith v)
{
#if PL__BN254_HAVE_X
    if (v == PL__BN254_ADX) {
        pl__bn254_mul_x(r, a, b, m, inv);
        return;
    }
#endif
    pl__bn254_mul_c(r, a, b, m, inv);
}

PL__BN254_INLINE void pl__bn254_mod_add(uint64_t r[4], const uint64_t a[4],
                                        const uint64_t b[4],
                                        const uint64_t m[4], pl__bn254_arith v)
{
#if PL__BN254_HAVE_X
    if (v == PL__BN254_ADX) {
        pl__bn254_add_x(r, a, b, m);
        return;
    }
#endif
    pl__bn254_add_c(r, a, b, m);
}

PL__BN254_INLINE void pl__bn254_mod_sub(uint64_t r[4], const uint64_t a[4],
                                        const uint64_t b[4],
                                        const uint64_t m[4], pl__bn254_arith v)
{
#if PL__BN254_HAVE_X
    if (v == PL__BN254_ADX) {
        pl__bn254_sub_x(r, a, b, m);
        return;
    }
#endif
    pl__bn254_sub_c(r, a, b, m);
}

PL__BN254_INLINE bool pl__bn254_limbs_zero(const uint64_t a[4])
{
    return (a[0] | a[1] | a[2] | a[3]) == 0;
}

/* ---- Fp ------------------------------------------------------------------ */

PL__BN254_INLINE void pl__bn254_fp_mul(pl__bn254_fp *r, const pl__bn254_fp *a,
                                       const pl__bn254_fp *b, pl__bn254_arith v)
{
    pl__bn254_mont_mul(r->l, a->l, b->l, PL__BN254_P, PL__BN254_P_INV, v);
}

PL__BN254_INLINE void pl__bn254_fp_sqr(pl__bn254_fp *r, const pl__bn254_fp *a,
                                       pl__bn254_arith v)
{
    pl__bn254_mont_mul(r->l, a->l, a->l, PL__BN254_P, PL__BN254_P_INV, v);
}

PL__BN254_INLINE void pl__bn254_fp_add(pl__bn254_fp *r, const pl__bn254_fp *a,
                                       const pl__bn254_fp *b, pl__bn254_arith v)
{
    pl__bn254_mod_add(r->l, a->l, b->l, PL__BN254_P, v);
}

PL__BN254_INLINE void pl__bn254_fp_sub(pl__bn254_fp *r, const pl__bn254_fp *a,
                                       const pl__bn254_fp *b, pl__bn254_arith v)
{
    pl__bn254_mod_sub(r->l, a->l, b->l, PL__BN254_P, v);
}

PL__BN254_INLINE bool pl__bn254_fp_is_zero(const pl__bn254_fp *a)
{
    return pl__bn254_limbs_zero(a->l);
}

PL__BN254_INLINE bool pl__bn254_fp_eq(const pl__bn254_fp *a,
                                      const pl__bn254_fp *b)
{
    return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) |
            (a->l[3] ^ b->l[3])) == 0;
}

PL__BN254_INLINE void pl__bn254_fp_neg(pl__bn254_fp *r, const pl__bn254_fp *a,
                                       pl__bn254_arith v)
{
    static const uint64_t zero[4] = {0, 0, 0, 0};
    pl__bn254_mod_sub(r->l, zero, a->l, PL__BN254_P, v);
}

/* r = -a when neg, else a */
PL__BN254_INLINE void pl__bn254_fp_cneg(pl__bn254_fp *r, const pl__bn254_fp *a,
                                        bool neg, pl__bn254_arith v)
{
    if (neg)
        pl__bn254_fp_neg(r, a, v);
    else
        *r = *a;
}

PL__BN254_INLINE void pl__bn254_fp_dbl(pl__bn254_fp *r, const pl__bn254_fp *a,
                                       pl__bn254_arith v)
{
    pl__bn254_fp_add(r, a, a, v);
}

PL__BN254_INLINE void pl__bn254_fp_mul3(pl__bn254_fp *r, const pl__bn254_fp *a,
                                        pl__bn254_arith v)
{
    pl__bn254_fp t;
    pl__bn254_fp_add(&t, a, a, v);
    pl__bn254_fp_add(r, &t, a, v);
}

/* ---- Fr ------------------------------------------------------------------ */

PL__BN254_INLINE void pl__bn254_fr_mul(pl__bn254_fr *r, const pl__bn254_fr *a,
                                       const pl__bn254_fr *b, pl__bn254_arith v)
{
    pl__bn254_mont_mul(r->l, a->l, b->l, PL__BN254_R, PL__BN254_R_INV, v);
}

PL__BN254_INLINE void pl__bn254_fr_sqr(pl__bn254_fr *r, const pl__bn254_fr *a,
                                       pl__bn254_arith v)
{
    pl__bn254_mont_mul(r->l, a->l, a->l, PL__BN254_R, PL__BN254_R_INV, v);
}

PL__BN254_INLINE void pl__bn254_fr_add(pl__bn254_fr *r, const pl__bn254_fr *a,
                                       const pl__bn254_fr *b, pl__bn254_arith v)
{
    pl__bn254_mod_add(r->l, a->l, b->l, PL__BN254_R, v);
}

PL__BN254_INLINE void pl__bn254_fr_sub(pl__bn254_fr *r, const pl__bn254_fr *a,
                                       const pl__bn254_fr *b, pl__bn254_arith v)
{
    pl__bn254_mod_sub(r->l, a->l, b->l, PL__BN254_R, v);
}

PL__BN254_INLINE void pl__bn254_fr_neg(pl__bn254_fr *r, const pl__bn254_fr *a,
                                       pl__bn254_arith v)
{
    static const uint64_t zero[4] = {0, 0, 0, 0};
    pl__bn254_mod_sub(r->l, zero, a->l, PL__BN254_R, v);
}

PL__BN254_INLINE bool pl__bn254_fr_is_zero(const pl__bn254_fr *a)
{
    return pl__bn254_limbs_zero(a->l);
}

/* ---- out of line (fp.c) -------------------------------------------------- */

/* r = a^-1 (0 for a = 0), by Fermat: a^(m-2). */
void pl__bn254_fp_inv(pl__bn254_fp *r, const pl__bn254_fp *a,
                      pl__bn254_arith v);
void pl__bn254_fr_inv(pl__bn254_fr *r, const pl__bn254_fr *a,
                      pl__bn254_arith v);
/* The same with the implementation fixed at compile time, for hot loops. */
void pl__bn254_fp_inv_portable(pl__bn254_fp *r, const pl__bn254_fp *a);
void pl__bn254_fp_inv_adx(pl__bn254_fp *r, const pl__bn254_fp *a);
void pl__bn254_fr_inv_portable(pl__bn254_fr *r, const pl__bn254_fr *a);
void pl__bn254_fr_inv_adx(pl__bn254_fr *r, const pl__bn254_fr *a);

/* r = a^e for a 4-limb exponent e (little-endian limbs). */
void pl__bn254_fp_pow(pl__bn254_fp *r, const pl__bn254_fp *a,
                      const uint64_t e[4], pl__bn254_arith v);
void pl__bn254_fr_pow(pl__bn254_fr *r, const pl__bn254_fr *a,
                      const uint64_t e[4], pl__bn254_arith v);
/* r = a^e for a 64-bit exponent. */
void pl__bn254_fr_pow_u64(pl__bn254_fr *r, const pl__bn254_fr *a, uint64_t e,
                          pl__bn254_arith v);

/* A square root of a (p = 3 mod 4: a^((p+1)/4)); false when a is not a
 * square (r is then unspecified). */
bool pl__bn254_fp_sqrt(pl__bn254_fp *r, const pl__bn254_fp *a,
                       pl__bn254_arith v);

/* Standard-form (canonical) little-endian bytes <-> Montgomery form.
 * from_le is false (and leaves r unspecified) when the value is not below
 * the modulus. */
bool pl__bn254_fp_from_le(pl__bn254_fp *r, const uint8_t in[32]);
void pl__bn254_fp_to_le(uint8_t out[32], const pl__bn254_fp *a);
bool pl__bn254_fr_from_le(pl__bn254_fr *r, const uint8_t in[32]);
void pl__bn254_fr_to_le(uint8_t out[32], const pl__bn254_fr *a);
/* Small integers into Montgomery form. */
void pl__bn254_fp_from_u64(pl__bn254_fp *r, uint64_t x);
void pl__bn254_fr_from_u64(pl__bn254_fr *r, uint64_t x);

/* Montgomery-form bytes as snarkjs stores them (zkey, ptau: the limbs
 * little-endian): false when the value is not below the modulus. */
bool pl__bn254_fp_from_mont_le(pl__bn254_fp *r, const uint8_t in[32]);
void pl__bn254_fp_to_mont_le(uint8_t out[32], const pl__bn254_fp *a);

/* The moduli as little-endian bytes, as files' headers hold them. */
extern const uint8_t pl__bn254_p_le[32];
extern const uint8_t pl__bn254_r_le[32];

#endif /* PL_FIELD_BN254_FP_H */
