/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254 points and field elements in snarkjs's two encodings:
 *  - binary, as zkeys and ptau files store bn128 points: affine, each Fp
 *    coordinate 32 bytes of Montgomery-form limbs, little-endian; G1 is
 *    x || y (64 bytes), G2 x.c0 || x.c1 || y.c0 || y.c1 (128 bytes); all
 *    zero bytes is the point at infinity.  These are the structs' own
 *    bytes (curve.h), checked here for coordinates below p;
 *  - JSON decimal strings in standard form, affine points padded to
 *    projective with z = 1: G1 [x, y, "1"], G2 [[x0, x1], [y0, y1],
 *    ["1", "0"]], infinity ["0", "1", "0"] (["0","0"], ["1","0"],
 *    ["0","0"] on G2), as ffjavascript's toObject writes them; GT
 *    elements (vk_alphabeta_12) as [c0, c1] of Fp6 = [c0, c1, c2] of Fp2.
 * Neither checks that a point is on its curve: curve.h does.  The decimal
 * parser is field/decimal.c's (strict: no signs, no leading zeros).
 */
#ifndef PL_FIELD_BN254_SERIAL_H
#define PL_FIELD_BN254_SERIAL_H

#include "field/bn254/tower.h"
#include "field/bn254/curve.h"

#define PL__BN254_G1_BYTES 64u
#define PL__BN254_G2_BYTES 128u
/* A decimal string of an Fp element with its NUL (p < 10^77) */
#define PL__BN254_DEC_CAP 80u

/* false when a coordinate is not below p */
bool pl__bn254_g1_from_bytes(pl__bn254_g1_affine *r,
                             const uint8_t in[PL__BN254_G1_BYTES]);
void pl__bn254_g1_to_bytes(uint8_t out[PL__BN254_G1_BYTES],
                           const pl__bn254_g1_affine *p);
bool pl__bn254_g2_from_bytes(pl__bn254_g2_affine *r,
                             const uint8_t in[PL__BN254_G2_BYTES]);
void pl__bn254_g2_to_bytes(uint8_t out[PL__BN254_G2_BYTES],
                           const pl__bn254_g2_affine *p);

/* Standard-form decimal text; from_dec is false unless s is a decimal
 * integer below p (resp. r) with no sign or leading zero. */
void pl__bn254_fp_to_dec(char out[PL__BN254_DEC_CAP], const pl__bn254_fp *a);
bool pl__bn254_fp_from_dec(pl__bn254_fp *r, const char *s, size_t len);
void pl__bn254_fr_to_dec(char out[PL__BN254_DEC_CAP], const pl__bn254_fr *a);
bool pl__bn254_fr_from_dec(pl__bn254_fr *r, const char *s, size_t len);

/* Points as snarkjs's JSON strings (NUL-terminated). from_dec accepts
 * z = "1" (G2: ["1", "0"]) and the point at infinity as toObject writes
 * it, nothing else: not (0, 0) with z = 1, which is no point and would
 * read as infinity. */
void pl__bn254_g1_to_dec(char out[3][PL__BN254_DEC_CAP],
                         const pl__bn254_g1_affine *p);
bool pl__bn254_g1_from_dec(pl__bn254_g1_affine *r, const char *const s[3]);
void pl__bn254_g2_to_dec(char out[3][2][PL__BN254_DEC_CAP],
                         const pl__bn254_g2_affine *p);
bool pl__bn254_g2_from_dec(pl__bn254_g2_affine *r, const char *const s[3][2]);
void pl__bn254_fp12_to_dec(char out[2][3][2][PL__BN254_DEC_CAP],
                           const pl__bn254_fp12 *a);
bool pl__bn254_fp12_from_dec(pl__bn254_fp12 *r, const char *const s[2][3][2]);

#endif /* PL_FIELD_BN254_SERIAL_H */
