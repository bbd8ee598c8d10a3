/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Eight Fp multiplications at once with AVX-512 IFMA (x86-64), for the
 * measurement issue 18 asks for: how many field multiplications a core
 * does per second in 8 lanes of 52-bit limbs against blst's scalar
 * mulx code.  Nothing in the prover calls it yet: the batch-affine MSM
 * would have to run its additions 8 at a time first.
 *
 * A pl__fp8 holds 8 values in 8 limbs of 52 bits each, limb-major
 * (limb[k][lane]), so limb k of all lanes is one 512-bit register.
 * pl__fp8_mul is the Montgomery product with R = 2^416:
 * r = a b 2^-416 mod p, for a, b < p, fully reduced (< p).  It runs only
 * where pl__fp8_supported() says the CPU has avx512f and avx512ifma; the
 * caller checks (there is no scalar fallback of this layout: blst's
 * blst_fp_mul is the fallback).
 */
#ifndef PL_FIELD_FP8_H
#define PL_FIELD_FP8_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    _Alignas(64) uint64_t limb[8][8];
} pl__fp8;

bool pl__fp8_supported(void);
void pl__fp8_mul(pl__fp8 *r, const pl__fp8 *a, const pl__fp8 *b);
/* Lane `lane` from / to 6 little-endian 64-bit limbs (standard form). */
void pl__fp8_set(pl__fp8 *v, unsigned lane, const uint64_t in[6]);
void pl__fp8_get(uint64_t out[6], const pl__fp8 *v, unsigned lane);

#endif /* PL_FIELD_FP8_H */
