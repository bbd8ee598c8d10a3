/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decimal text for field elements: the encoding of every number in the
 * snarkjs JSON files (proof.json, public.json, verification_key.json).
 * Those files hold standard-form integers; blst keeps Fp in Montgomery form,
 * so the Fp helpers convert on the way in and out.  Used by the JSON readers
 * and writers in formats/ and groth16/vkey.c.
 *
 * The parser is strict: ASCII digits only, no sign, no leading zeros except
 * the single digit "0" (snarkjs never writes them, and accepting two texts
 * for one value would let files that differ byte-wise compare equal).  The
 * arithmetic is schoolbook on 32-bit limbs: the numbers are at most 48
 * bytes, and this runs a handful of times per file, so speed is irrelevant.
 */
#include "field/field.h"

#include <string.h>

#define PL__DEC_MAX_LIMBS 12 /* 48 bytes */

static void pl__limbs_from_le(uint32_t *limbs, const uint8_t *le, size_t n)
{
    memset(limbs, 0, PL__DEC_MAX_LIMBS * sizeof(uint32_t));
    for (size_t i = 0; i < n; i++)
        limbs[i / 4] |= (uint32_t)le[i] << (8 * (i % 4));
}

size_t pl__dec_from_le(char *out, size_t cap, const uint8_t *le, size_t n)
{
    uint32_t limbs[PL__DEC_MAX_LIMBS];
    /* 48 bytes < 10^116; chunks of 9 digits, least significant first */
    char digits[128];
    size_t nd = 0, len = 0;

    if (n > 4 * PL__DEC_MAX_LIMBS || cap == 0)
        goto fail;
    pl__limbs_from_le(limbs, le, n);

    size_t top = (n + 3) / 4;
    while (top > 0 && limbs[top - 1] == 0)
        top--;
    while (top > 0) {
        uint64_t rem = 0;
        for (size_t i = top; i-- > 0;) {
            uint64_t cur = (rem << 32) | limbs[i];
            limbs[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (top > 0 && limbs[top - 1] == 0)
            top--;
        /* a full 9-digit chunk unless it is the most significant one */
        for (int k = 0; k < 9 && (top > 0 || rem != 0); k++) {
            digits[nd++] = (char)('0' + rem % 10);
            rem /= 10;
        }
    }
    if (nd == 0)
        digits[nd++] = '0';
    if (nd + 1 > cap)
        goto fail;
    for (size_t i = 0; i < nd; i++)
        out[i] = digits[nd - 1 - i];
    out[nd] = '\0';
    len = nd;
fail:
    if (len == 0 && cap > 0)
        out[0] = '\0';
    return len;
}

bool pl__dec_to_le(uint8_t *out, size_t n, const char *s, size_t len)
{
    uint32_t limbs[PL__DEC_MAX_LIMBS + 1];
    bool ok = false;

    if (n == 0 || n > 4 * PL__DEC_MAX_LIMBS || len == 0)
        goto fail;
    /* leading zeros are rejected, so the length bounds the value: 48 bytes
     * hold at most 116 digits; longer text cannot fit (and is not scanned) */
    if (len > 117 || (len > 1 && s[0] == '0'))
        goto fail;
    memset(limbs, 0, sizeof(limbs));
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            goto fail;
        uint64_t carry = (uint64_t)(s[i] - '0');
        for (size_t j = 0; j < PL__DEC_MAX_LIMBS + 1; j++) {
            uint64_t cur = (uint64_t)limbs[j] * 10u + carry;
            limbs[j] = (uint32_t)cur;
            carry = cur >> 32;
        }
        if (carry != 0 || limbs[PL__DEC_MAX_LIMBS] != 0)
            goto fail;
    }
    /* the value must fit in n bytes */
    for (size_t i = n; i < 4 * (PL__DEC_MAX_LIMBS + 1); i++)
        if ((limbs[i / 4] >> (8 * (i % 4))) & 0xff)
            goto fail;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(limbs[i / 4] >> (8 * (i % 4)));
    ok = true;
fail:
    return ok;
}

size_t pl__fp_to_dec(char *out, size_t cap, const blst_fp *in)
{
    uint8_t le[48];
    blst_lendian_from_fp(le, in); /* leaves Montgomery form */
    return pl__dec_from_le(out, cap, le, sizeof(le));
}

bool pl__fp_from_dec(blst_fp *out, const char *s, size_t len)
{
    uint8_t le[48];
    if (!pl__dec_to_le(le, sizeof(le), s, len) ||
        !pl__le_less(le, pl__fp_modulus_le, sizeof(le)))
        return false;
    blst_fp_from_lendian(out, le); /* enters Montgomery form */
    return true;
}

size_t pl__fr_scalar_to_dec(char *out, size_t cap, const pl_scalar *in)
{
    return pl__dec_from_le(out, cap, in->b, sizeof(in->b));
}

bool pl__fr_scalar_from_dec(pl_scalar *out, const char *s, size_t len)
{
    pl_scalar v;
    if (!pl__dec_to_le(v.b, sizeof(v.b), s, len) ||
        !pl__scalar_is_canonical(v.b))
        return false;
    *out = v;
    return true;
}
