/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's snarkjs encodings (serial.h): zkey/ptau bytes and JSON decimal
 * strings, over field/decimal.c's decimal conversions.
 */
#include "field/bn254/serial.h"
#include "field/field.h"

#include <string.h>

bool pl__bn254_g1_from_bytes(pl__bn254_g1_affine *r,
                             const uint8_t in[PL__BN254_G1_BYTES])
{
    return pl__bn254_fp_from_mont_le(&r->x, in) &&
           pl__bn254_fp_from_mont_le(&r->y, in + 32);
}

void pl__bn254_g1_to_bytes(uint8_t out[PL__BN254_G1_BYTES],
                           const pl__bn254_g1_affine *p)
{
    pl__bn254_fp_to_mont_le(out, &p->x);
    pl__bn254_fp_to_mont_le(out + 32, &p->y);
}

bool pl__bn254_g2_from_bytes(pl__bn254_g2_affine *r,
                             const uint8_t in[PL__BN254_G2_BYTES])
{
    return pl__bn254_fp_from_mont_le(&r->x.c0, in) &&
           pl__bn254_fp_from_mont_le(&r->x.c1, in + 32) &&
           pl__bn254_fp_from_mont_le(&r->y.c0, in + 64) &&
           pl__bn254_fp_from_mont_le(&r->y.c1, in + 96);
}

void pl__bn254_g2_to_bytes(uint8_t out[PL__BN254_G2_BYTES],
                           const pl__bn254_g2_affine *p)
{
    pl__bn254_fp_to_mont_le(out, &p->x.c0);
    pl__bn254_fp_to_mont_le(out + 32, &p->x.c1);
    pl__bn254_fp_to_mont_le(out + 64, &p->y.c0);
    pl__bn254_fp_to_mont_le(out + 96, &p->y.c1);
}

/* ---- decimals ---------------------------------------------------------------
 */

void pl__bn254_fp_to_dec(char out[PL__BN254_DEC_CAP], const pl__bn254_fp *a)
{
    uint8_t le[32];
    pl__bn254_fp_to_le(le, a);
    pl__dec_from_le(out, PL__BN254_DEC_CAP, le, sizeof(le));
}

bool pl__bn254_fp_from_dec(pl__bn254_fp *r, const char *s, size_t len)
{
    uint8_t le[32];
    return pl__dec_to_le(le, sizeof(le), s, len) && pl__bn254_fp_from_le(r, le);
}

void pl__bn254_fr_to_dec(char out[PL__BN254_DEC_CAP], const pl__bn254_fr *a)
{
    uint8_t le[32];
    pl__bn254_fr_to_le(le, a);
    pl__dec_from_le(out, PL__BN254_DEC_CAP, le, sizeof(le));
}

bool pl__bn254_fr_from_dec(pl__bn254_fr *r, const char *s, size_t len)
{
    uint8_t le[32];
    return pl__dec_to_le(le, sizeof(le), s, len) && pl__bn254_fr_from_le(r, le);
}

static bool fp_from_str(pl__bn254_fp *r, const char *s)
{
    return pl__bn254_fp_from_dec(r, s, strlen(s));
}

void pl__bn254_g1_to_dec(char out[3][PL__BN254_DEC_CAP],
                         const pl__bn254_g1_affine *p)
{
    if (pl__bn254_g1_affine_is_inf(p)) {
        strcpy(out[0], "0");
        strcpy(out[1], "1");
        strcpy(out[2], "0");
        return;
    }
    pl__bn254_fp_to_dec(out[0], &p->x);
    pl__bn254_fp_to_dec(out[1], &p->y);
    strcpy(out[2], "1");
}

bool pl__bn254_g1_from_dec(pl__bn254_g1_affine *r, const char *const s[3])
{
    if (strcmp(s[2], "0") == 0) {
        memset(r, 0, sizeof(*r));
        return strcmp(s[0], "0") == 0 && strcmp(s[1], "1") == 0;
    }
    /* (0, 0) with z = 1 is no point of the curve, and read so it would be
     * the point at infinity, a second spelling that snarkjs refuses */
    return strcmp(s[2], "1") == 0 && fp_from_str(&r->x, s[0]) &&
           fp_from_str(&r->y, s[1]) && !pl__bn254_g1_affine_is_inf(r);
}

static void fp2_to_dec(char out[2][PL__BN254_DEC_CAP], const pl__bn254_fp2 *a)
{
    pl__bn254_fp_to_dec(out[0], &a->c0);
    pl__bn254_fp_to_dec(out[1], &a->c1);
}

static bool fp2_from_dec(pl__bn254_fp2 *r, const char *const s[2])
{
    return fp_from_str(&r->c0, s[0]) && fp_from_str(&r->c1, s[1]);
}

static bool is_text(const char *const s[2], const char *c0, const char *c1)
{
    return strcmp(s[0], c0) == 0 && strcmp(s[1], c1) == 0;
}

void pl__bn254_g2_to_dec(char out[3][2][PL__BN254_DEC_CAP],
                         const pl__bn254_g2_affine *p)
{
    if (pl__bn254_g2_affine_is_inf(p)) {
        const char *text[3][2] = {{"0", "0"}, {"1", "0"}, {"0", "0"}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                strcpy(out[i][j], text[i][j]);
        return;
    }
    fp2_to_dec(out[0], &p->x);
    fp2_to_dec(out[1], &p->y);
    strcpy(out[2][0], "1");
    strcpy(out[2][1], "0");
}

bool pl__bn254_g2_from_dec(pl__bn254_g2_affine *r, const char *const s[3][2])
{
    if (is_text(s[2], "0", "0")) {
        memset(r, 0, sizeof(*r));
        return is_text(s[0], "0", "0") && is_text(s[1], "1", "0");
    }
    return is_text(s[2], "1", "0") && fp2_from_dec(&r->x, s[0]) &&
           fp2_from_dec(&r->y, s[1]) && !pl__bn254_g2_affine_is_inf(r);
}

void pl__bn254_fp12_to_dec(char out[2][3][2][PL__BN254_DEC_CAP],
                           const pl__bn254_fp12 *a)
{
    const pl__bn254_fp6 *c[2] = {&a->c0, &a->c1};
    for (int i = 0; i < 2; i++) {
        fp2_to_dec(out[i][0], &c[i]->c0);
        fp2_to_dec(out[i][1], &c[i]->c1);
        fp2_to_dec(out[i][2], &c[i]->c2);
    }
}

bool pl__bn254_fp12_from_dec(pl__bn254_fp12 *r, const char *const s[2][3][2])
{
    pl__bn254_fp6 *c[2] = {&r->c0, &r->c1};
    for (int i = 0; i < 2; i++)
        if (!fp2_from_dec(&c[i]->c0, s[i][0]) ||
            !fp2_from_dec(&c[i]->c1, s[i][1]) ||
            !fp2_from_dec(&c[i]->c2, s[i][2]))
            return false;
    return true;
}
