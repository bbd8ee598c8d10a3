/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's Fp and Fr out of line (fp.h): the choice of implementation
 * (CPUID), inversion and powers by fixed 4-bit windows, the square root of
 * Fp, and conversions between Montgomery form and bytes.  None of it is on
 * a hot path except the inversion, which the MSM calls once per batch of
 * up to 1024 additions (its per-implementation entry points).
 */
#include "field/bn254/fp.h"

#include <stdatomic.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

const uint8_t pl__bn254_p_le[32] = {
    0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71,
    0x68, 0x91, 0x6a, 0x81, 0x97, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
    0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
const uint8_t pl__bn254_r_le[32] = {
    0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
    0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
    0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

/* R^2 mod m: Montgomery-multiplying x by it gives x's Montgomery form. */
static const uint64_t p_r2[4] = {0xf32cfc5b538afa89, 0xb5e71911d44501fb,
                                 0x47ab1eff0a417ff6, 0x06d89f71cab8351f};
static const uint64_t r_r2[4] = {0x1bb8e645ae216da7, 0x53fe3ab1e35c59e3,
                                 0x8c49833d53bb8085, 0x0216d0b17f4e44a5};
/* m - 2 (Fermat's inverse) and (p + 1) / 4 (the square root) */
static const uint64_t p_minus_2[4] = {0x3c208c16d87cfd45, 0x97816a916871ca8d,
                                      0xb85045b68181585d, 0x30644e72e131a029};
static const uint64_t r_minus_2[4] = {0x43e1f593efffffff, 0x2833e84879b97091,
                                      0xb85045b68181585d, 0x30644e72e131a029};
static const uint64_t p_sqrt_exp[4] = {0x4f082305b61f3f52, 0x65e05aa45a1c72a3,
                                       0x6e14116da0605617, 0x0c19139cb84c680a};

/* ---- the implementation -------------------------------------------------- */

pl__bn254_arith pl__bn254_arith_best(void)
{
    static _Atomic int cached = -1;
    int v = atomic_load(&cached);
    if (v >= 0)
        return (pl__bn254_arith)v;
    v = PL__BN254_PORTABLE;
#if PL__BN254_HAVE_X
    unsigned eax, ebx, ecx, edx;
    /* leaf 7, subleaf 0: EBX bit 8 is BMI2 (mulx), bit 19 ADX */
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & (1u << 8)) &&
        (ebx & (1u << 19)))
        v = PL__BN254_ADX;
#endif
    atomic_store(&cached, v);
    return (pl__bn254_arith)v;
}

static _Atomic int chosen = -1;

pl__bn254_arith pl__bn254_arith_current(void)
{
    int v = atomic_load(&chosen);
    pl__bn254_arith best = pl__bn254_arith_best();
    if (v < 0 || (v == PL__BN254_ADX && best != PL__BN254_ADX))
        return best;
    return (pl__bn254_arith)v;
}

void pl__bn254_set_arith(pl__bn254_arith a) { atomic_store(&chosen, (int)a); }

const char *pl__bn254_arith_name(pl__bn254_arith a)
{
    return a == PL__BN254_ADX ? "adx" : "portable";
}

/* ---- powers -------------------------------------------------------------- */

/* r = a^e over modulus m, 4-bit fixed windows from the top: 252 squarings
 * and at most 64 multiplications for a 254-bit exponent. */
PL__BN254_INLINE void mont_pow(uint64_t r[4], const uint64_t a[4],
                               const uint64_t e[4], const uint64_t m[4],
                               uint64_t inv, const uint64_t one[4],
                               pl__bn254_arith v)
{
    uint64_t table[16][4], acc[4];
    memcpy(table[0], one, 32);
    memcpy(table[1], a, 32);
    for (int i = 2; i < 16; i++)
        pl__bn254_mont_mul(table[i], table[i - 1], a, m, inv, v);
    memcpy(acc, one, 32);
    bool started = false;
    for (int nib = 63; nib >= 0; nib--) {
        unsigned d = (unsigned)(e[nib / 16] >> (4 * (nib % 16))) & 15;
        if (started)
            for (int k = 0; k < 4; k++)
                pl__bn254_mont_mul(acc, acc, acc, m, inv, v);
        if (d) {
            pl__bn254_mont_mul(acc, acc, table[d], m, inv, v);
            started = true;
        }
    }
    memcpy(r, acc, 32);
}

void pl__bn254_fp_inv_portable(pl__bn254_fp *r, const pl__bn254_fp *a)
{
    mont_pow(r->l, a->l, p_minus_2, PL__BN254_P, PL__BN254_P_INV,
             PL__BN254_FP_ONE.l, PL__BN254_PORTABLE);
}

void pl__bn254_fr_inv_portable(pl__bn254_fr *r, const pl__bn254_fr *a)
{
    mont_pow(r->l, a->l, r_minus_2, PL__BN254_R, PL__BN254_R_INV,
             PL__BN254_FR_ONE.l, PL__BN254_PORTABLE);
}

#if PL__BN254_HAVE_X
void pl__bn254_fp_inv_adx(pl__bn254_fp *r, const pl__bn254_fp *a)
{
    mont_pow(r->l, a->l, p_minus_2, PL__BN254_P, PL__BN254_P_INV,
             PL__BN254_FP_ONE.l, PL__BN254_ADX);
}

void pl__bn254_fr_inv_adx(pl__bn254_fr *r, const pl__bn254_fr *a)
{
    mont_pow(r->l, a->l, r_minus_2, PL__BN254_R, PL__BN254_R_INV,
             PL__BN254_FR_ONE.l, PL__BN254_ADX);
}
#else
/* no x86-64: the portable code under the other name (never selected) */
void pl__bn254_fp_inv_adx(pl__bn254_fp *r, const pl__bn254_fp *a)
{
    pl__bn254_fp_inv_portable(r, a);
}

void pl__bn254_fr_inv_adx(pl__bn254_fr *r, const pl__bn254_fr *a)
{
    pl__bn254_fr_inv_portable(r, a);
}
#endif

void pl__bn254_fp_inv(pl__bn254_fp *r, const pl__bn254_fp *a, pl__bn254_arith v)
{
    if (v == PL__BN254_ADX)
        pl__bn254_fp_inv_adx(r, a);
    else
        pl__bn254_fp_inv_portable(r, a);
}

void pl__bn254_fr_inv(pl__bn254_fr *r, const pl__bn254_fr *a, pl__bn254_arith v)
{
    if (v == PL__BN254_ADX)
        pl__bn254_fr_inv_adx(r, a);
    else
        pl__bn254_fr_inv_portable(r, a);
}

void pl__bn254_fp_pow(pl__bn254_fp *r, const pl__bn254_fp *a,
                      const uint64_t e[4], pl__bn254_arith v)
{
    mont_pow(r->l, a->l, e, PL__BN254_P, PL__BN254_P_INV, PL__BN254_FP_ONE.l,
             v);
}

void pl__bn254_fr_pow(pl__bn254_fr *r, const pl__bn254_fr *a,
                      const uint64_t e[4], pl__bn254_arith v)
{
    mont_pow(r->l, a->l, e, PL__BN254_R, PL__BN254_R_INV, PL__BN254_FR_ONE.l,
             v);
}

void pl__bn254_fr_pow_u64(pl__bn254_fr *r, const pl__bn254_fr *a, uint64_t e,
                          pl__bn254_arith v)
{
    const uint64_t ex[4] = {e, 0, 0, 0};
    pl__bn254_fr_pow(r, a, ex, v);
}

bool pl__bn254_fp_sqrt(pl__bn254_fp *r, const pl__bn254_fp *a,
                       pl__bn254_arith v)
{
    pl__bn254_fp s, check;
    pl__bn254_fp_pow(&s, a, p_sqrt_exp, v);
    pl__bn254_fp_sqr(&check, &s, v);
    *r = s;
    return pl__bn254_fp_eq(&check, a);
}

/* ---- bytes --------------------------------------------------------------- */

static void load_le(uint64_t l[4], const uint8_t in[32])
{
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int b = 7; b >= 0; b--)
            w = (w << 8) | in[8 * i + b];
        l[i] = w;
    }
}

static void store_le(uint8_t out[32], const uint64_t l[4])
{
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++)
            out[8 * i + b] = (uint8_t)(l[i] >> (8 * b));
}

/* a < m */
static bool below(const uint64_t a[4], const uint64_t m[4])
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != m[i])
            return a[i] < m[i];
    return false;
}

/* A field: its modulus, -m^-1 mod 2^64 and R^2 mod m */
typedef struct {
    const uint64_t *m, *r2;
    uint64_t inv;
} field;

static const field fp = {PL__BN254_P, p_r2, PL__BN254_P_INV};
static const field fr = {PL__BN254_R, r_r2, PL__BN254_R_INV};

/* x < m, standard form, into Montgomery form: x R^2 / R */
static void to_mont(const field *f, uint64_t r[4], const uint64_t x[4])
{
    pl__bn254_mont_mul(r, x, f->r2, f->m, f->inv, pl__bn254_arith_current());
}

static bool from_le(const field *f, uint64_t r[4], const uint8_t in[32])
{
    uint64_t x[4];
    load_le(x, in);
    if (!below(x, f->m))
        return false;
    to_mont(f, r, x);
    return true;
}

/* Montgomery form out: a 1 / R */
static void to_le(const field *f, uint8_t out[32], const uint64_t a[4])
{
    static const uint64_t one[4] = {1, 0, 0, 0};
    uint64_t x[4];
    pl__bn254_mont_mul(x, a, one, f->m, f->inv, pl__bn254_arith_current());
    store_le(out, x);
}

bool pl__bn254_fp_from_le(pl__bn254_fp *r, const uint8_t in[32])
{
    return from_le(&fp, r->l, in);
}

void pl__bn254_fp_to_le(uint8_t out[32], const pl__bn254_fp *a)
{
    to_le(&fp, out, a->l);
}

bool pl__bn254_fr_from_le(pl__bn254_fr *r, const uint8_t in[32])
{
    return from_le(&fr, r->l, in);
}

void pl__bn254_fr_to_le(uint8_t out[32], const pl__bn254_fr *a)
{
    to_le(&fr, out, a->l);
}

void pl__bn254_fp_from_u64(pl__bn254_fp *r, uint64_t x)
{
    const uint64_t v[4] = {x, 0, 0, 0};
    to_mont(&fp, r->l, v);
}

void pl__bn254_fr_from_u64(pl__bn254_fr *r, uint64_t x)
{
    const uint64_t v[4] = {x, 0, 0, 0};
    to_mont(&fr, r->l, v);
}

bool pl__bn254_fp_from_mont_le(pl__bn254_fp *r, const uint8_t in[32])
{
    load_le(r->l, in);
    return below(r->l, PL__BN254_P);
}

void pl__bn254_fp_to_mont_le(uint8_t out[32], const pl__bn254_fp *a)
{
    store_le(out, a->l);
}
