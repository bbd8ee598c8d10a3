/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ceremony's curves (curve.h): finding one by name or by the primes a
 * file declares, and the Fr helpers written once over the table.  A new
 * curve is one more entry in `curves`, with its own file beside
 * curve_bls12381.c and curve_bn254.c.
 */
#include "ceremony/curve.h"
#include "ntt/ntt.h"

#include <string.h>

static const pl__cer_curve *const curves[] = {&pl__cer_bls12381,
                                               &pl__cer_bn128};
#define N_CURVES (sizeof(curves) / sizeof(curves[0]))

/* The names snarkjs takes (ffjavascript's getCurveFromName), compared
 * as it compares them: upper case, letters and digits only, so "bn254",
 * "alt_bn128" and "BLS12-381" are all understood. */
static const struct {
    const char *name;
    const pl__cer_curve *curve;
} names[] = {{"BN128", &pl__cer_bn128},
             {"BN254", &pl__cer_bn128},
             {"ALTBN128", &pl__cer_bn128},
             {"BLS12381", &pl__cer_bls12381}};

const pl__cer_curve *pl__cer_curve_by_name(const char *name)
{
    char norm[32];
    size_t n = 0;
    for (const char *c = name; *c; c++) {
        char u = *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
        if ((u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9')) {
            if (n + 1 == sizeof(norm))
                return NULL;
            norm[n++] = u;
        }
    }
    norm[n] = 0;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(names[i].name, norm) == 0)
            return names[i].curve;
    return NULL;
}

const pl__cer_curve *pl__cer_curve_by_q(const uint8_t *q, size_t n8)
{
    for (size_t i = 0; i < N_CURVES; i++)
        if (curves[i]->n8q == n8 && memcmp(curves[i]->q_le, q, n8) == 0)
            return curves[i];
    return NULL;
}

const pl__cer_curve *pl__cer_curve_by_r(const uint8_t *r, size_t n8)
{
    for (size_t i = 0; i < N_CURVES; i++)
        if (curves[i]->n8r == n8 && memcmp(curves[i]->r_le, r, n8) == 0)
            return curves[i];
    return NULL;
}

const char *pl__cer_curve_names(void)
{
    return "bls12381, bn128";
}

void pl__cer_fr_pow(const pl__cer_curve *c, pl__cer_fr *out,
                    const pl__cer_fr *base, uint64_t e)
{
    pl__cer_fr acc, b = *base;
    c->fr_from_u64(&acc, 1);
    while (e) {
        if (e & 1)
            c->fr_mul(&acc, &acc, &b);
        c->fr_mul(&b, &b, &b);
        e >>= 1;
    }
    *out = acc;
}

void pl__cer_fr_from_rng(const pl__cer_curve *c, pl__cer_fr *out,
                         pl__chacha *rng)
{
    uint8_t digits[PL__CER_MAX_FR];
    pl__chacha_field_digits(digits, rng, c->r_le, c->n8r / 8, c->r_bits);
    c->fr_from_mont(out, digits);
    memset(digits, 0, sizeof(digits));
}

bool pl__cer_all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

void pl__cer_fr_limbs_from_le(pl__cer_fr *out, const uint8_t *v)
{
    for (unsigned i = 0; i < 4; i++) {
        uint64_t limb = 0;
        for (unsigned j = 0; j < 8; j++)
            limb |= (uint64_t)v[8 * i + j] << (8 * j);
        out->l[i] = limb;
    }
}

bool pl__cer_fr_limbs_zero(const pl__cer_fr *a)
{
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}

uint64_t pl__cer_fr_fft_bytes(unsigned log2n)
{
    return log2n ? pl__ntt_plan_bytes(log2n) : 0;
}

void pl__cer_encode(uint8_t *out, const uint8_t *aff, size_t coord_bytes,
                    bool compressed,
                    void (*coord_be)(uint8_t *out, const uint8_t *coord),
                    bool (*coord_negative)(const uint8_t *coord))
{
    if (pl__cer_all_zero(aff, 2 * coord_bytes)) {
        memset(out, 0, compressed ? coord_bytes : 2 * coord_bytes);
        if (compressed)
            out[0] = 0x40;
        return;
    }
    coord_be(out, aff);
    if (!compressed)
        coord_be(out + coord_bytes, aff + coord_bytes);
    else if (coord_negative(aff + coord_bytes))
        out[0] |= 0x80;
}
