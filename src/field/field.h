/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BLS12-381 field helpers on top of blst: the moduli as bytes, conversions
 * between the file encodings and blst_fr, the roots of unity snarkjs uses,
 * and decimal strings (the JSON encoding) for Fr and Fp elements.
 */
#ifndef PL_FIELD_H
#define PL_FIELD_H

#include "proofline.h"
#include "blst.h"

/* r (scalar field) and q (base field), little-endian. */
extern const uint8_t pl__fr_modulus_le[32];
extern const uint8_t pl__fp_modulus_le[48];

/* a < b for little-endian unsigned integers of n bytes. */
bool pl__le_less(const uint8_t *a, const uint8_t *b, size_t n);
bool pl__scalar_is_canonical(const uint8_t b[32]); /* < r */

/* Standard-form LE bytes <-> blst_fr (Montgomery).  Unaligned input is
 * fine.  The input must be < r. */
void pl__fr_from_le(blst_fr *out, const uint8_t in[32]);
void pl__fr_to_le(uint8_t out[32], const blst_fr *in);

/* A uniformly random non-zero scalar below r from the OS's CSPRNG
 * (getrandom): a proof's blinding.  PL_EINTERNAL when the OS fails. */
pl_status pl__fr_random_scalar(blst_scalar *out, pl_error *err);
void pl__fr_pow(blst_fr *out, const blst_fr *base, uint64_t exponent);
/* The primitive 2^log2n-th root of unity of snarkjs/ffjavascript:
 * w[32] = 5^((r-1)/2^32), w[k-1] = w[k]^2.  log2n <= 32. */
void pl__fr_root_of_unity(blst_fr *out, unsigned log2n);
/* The root bellperson's evaluation domains use (blstrs / bls12_381's
 * ROOT_OF_UNITY = 7^((r-1)/2^32), 0x16a2a19e...0d2b), squared down the
 * same way: another generator of the same subgroup, so row k of a
 * constraint system sits at another point than snarkjs puts it. */
void pl__fr_root_of_unity_blstrs(blst_fr *out, unsigned log2n);

/* Decimal text of an n-byte little-endian integer; returns the length, or
 * 0 if cap (which includes the NUL) is too small.  n <= 48. */
size_t pl__dec_from_le(char *out, size_t cap, const uint8_t *le, size_t n);
/* Parses len decimal digits into an n-byte little-endian integer; false on
 * an empty string, a non-digit, or a value that does not fit. */
bool pl__dec_to_le(uint8_t *out, size_t n, const char *s, size_t len);

/* Base-field element <-> decimal: the JSON files hold standard form, the
 * zkey and blst Montgomery form. */
size_t pl__fp_to_dec(char *out, size_t cap, const blst_fp *in);
/* false if the text is not a decimal integer < q */
bool pl__fp_from_dec(blst_fp *out, const char *s, size_t len);
size_t pl__fr_scalar_to_dec(char *out, size_t cap, const pl_scalar *in);
bool pl__fr_scalar_from_dec(pl_scalar *out, const char *s, size_t len);

#endif /* PL_FIELD_H */
