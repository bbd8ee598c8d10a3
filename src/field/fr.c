/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fr and Fp basics on top of blst: the moduli, conversions between the file
 * encodings and blst's Montgomery form, powers and the roots of unity that
 * snarkjs's FFT uses (so our H matches snarkjs's bit for bit).
 */
#include "field/field.h"
#include "util/error.h"

#include <errno.h>
#include <sys/random.h>

#include <string.h>

/* r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 */
const uint8_t pl__fr_modulus_le[32] = {
    0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
    0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
    0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};

/* q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624
 *       1eabfffeb153ffffb9feffffffffaaab */
const uint8_t pl__fp_modulus_le[48] = {
    0xab, 0xaa, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xb9, 0xff, 0xff, 0x53, 0xb1,
    0xfe, 0xff, 0xab, 0x1e, 0x24, 0xf6, 0xb0, 0xf6, 0xa0, 0xd2, 0x30, 0x67,
    0xbf, 0x12, 0x85, 0xf3, 0x84, 0x4b, 0x77, 0x64, 0xd7, 0xac, 0x4b, 0x43,
    0xb6, 0xa7, 0x1b, 0x4b, 0x9a, 0xe6, 0x7f, 0x39, 0xea, 0x11, 0x01, 0x1a};

bool pl__le_less(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return false;
}

bool pl__scalar_is_canonical(const uint8_t b[32])
{
    return pl__le_less(b, pl__fr_modulus_le, 32);
}

void pl__fr_from_le(blst_fr *out, const uint8_t in[32])
{
    blst_scalar s;
    memcpy(s.b, in, 32);
    blst_fr_from_scalar(out, &s);
}

void pl__fr_to_le(uint8_t out[32], const blst_fr *in)
{
    blst_scalar s;
    blst_scalar_from_fr(&s, in);
    memcpy(out, s.b, 32);
}

void pl__fr_pow(blst_fr *out, const blst_fr *base, uint64_t exponent)
{
    blst_fr result, b = *base;
    static const uint64_t one[4] = {1, 0, 0, 0};
    blst_fr_from_uint64(&result, one);
    while (exponent) {
        if (exponent & 1)
            blst_fr_mul(&result, &result, &b);
        blst_fr_sqr(&b, &b);
        exponent >>= 1;
    }
    *out = result;
}

/* g^((r-1)/2^32) squared down to a 2^log2n-th root. */
static void root_from(blst_fr *out, uint64_t g, unsigned log2n)
{
    /* (r - 1) / 2^32, a 224-bit exponent, little-endian limbs. */
    static const uint64_t exp_limbs[4] = {0xfffe5bfeffffffffull,
                                          0x09a1d80553bda402ull,
                                          0x299d7d483339d808ull,
                                          0x0000000073eda753ull};
    const uint64_t base_limbs[4] = {g, 0, 0, 0};
    blst_fr base, result;
    blst_fr_from_uint64(&base, base_limbs);
    static const uint64_t one[4] = {1, 0, 0, 0};
    blst_fr_from_uint64(&result, one);
    for (int limb = 3; limb >= 0; limb--)
        for (int bit = 63; bit >= 0; bit--) {
            blst_fr_sqr(&result, &result);
            if ((exp_limbs[limb] >> bit) & 1)
                blst_fr_mul(&result, &result, &base);
        }
    for (unsigned k = 32; k > log2n; k--)
        blst_fr_sqr(&result, &result);
    *out = result;
}

void pl__fr_root_of_unity(blst_fr *out, unsigned log2n)
{
    root_from(out, 5, log2n);
}

void pl__fr_root_of_unity_blstrs(blst_fr *out, unsigned log2n)
{
    root_from(out, 7, log2n);
}

pl_status pl__fr_random_scalar(blst_scalar *out, pl_error *err)
{
    for (;;) {
        size_t got = 0;
        while (got < sizeof(out->b)) {
            ssize_t n = getrandom(out->b + got, sizeof(out->b) - got, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return pl__error_errno(err, PL_EINTERNAL, errno,
                                       "getrandom failed");
            got += (size_t)n;
        }
        out->b[31] &= 0x7f; /* r < 2^255: rejection rate about 1/2 */
        if (pl__scalar_is_canonical(out->b) && blst_sk_check(out))
            return PL_OK;
    }
}
