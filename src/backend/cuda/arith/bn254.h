/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BN254's (snarkjs's bn128) base field Fp and scalar field Fr for the CUDA
 * backend: 8 x 32-bit limbs each, little-endian, Montgomery form with
 * R = 2^256 -- the bytes of the CPU's pl__bn254_fp / pl__bn254_fr (4 x 64-bit
 * limbs, field/bn254/fp.h) and of a zkey's points and scalars, so they go
 * to the device as they are, as BLS12-381's do (fp.h).  The operations are
 * field_impl.h's, as for BLS12-381's fields, over these constants; G1 over
 * Fp is g1.h's pl__cu_bn254_g1_*.  Compiles as device code under nvcc and
 * as C11 on the host; tested against field/bn254 in tests/test_cuda_arith.c.
 */
#ifndef PL_CUDA_ARITH_BN254_H
#define PL_CUDA_ARITH_BN254_H

#include "backend/cuda/arith/limbs.h"

#define PL_CU_BN254_LIMBS 8

/*
 * Derived in Python from
 *   p = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47
 *   r = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001
 * (both 254 bits) as fp.h's: ONE = 2^256 mod m, N0 = -m^-1 mod 2^32 (the
 * low halves of field/bn254/fp.h's 64-bit PL__BN254_P_INV and _R_INV).
 * tests/test_cuda_arith.c checks each against field/bn254.
 */
#define PL_CU_BN254_FP_P                                                      \
    {0xd87cfd47, 0x3c208c16, 0x6871ca8d, 0x97816a91, 0x8181585d, 0xb85045b6, \
     0xe131a029, 0x30644e72}
#define PL_CU_BN254_FP_ONE                                                    \
    {0xc58f0d9d, 0xd35d438d, 0xf5c70b3d, 0x0a78eb28, 0x7879462c, 0x666ea36f, \
     0x9a07df2f, 0x0e0a77c1}
#define PL_CU_BN254_FP_N0 0xe4866389u
#define PL_CU_BN254_FR_R                                                      \
    {0xf0000001, 0x43e1f593, 0x79b97091, 0x2833e848, 0x8181585d, 0xb85045b6, \
     0xe131a029, 0x30644e72}
#define PL_CU_BN254_FR_ONE                                                    \
    {0x4ffffffb, 0xac96341c, 0x9f60cd29, 0x36fc7695, 0x7879462e, 0x666ea36f, \
     0x9a07df2f, 0x0e0a77c1}
#define PL_CU_BN254_FR_N0 0xefffffffu

/* Fp: the multiplication a call on the device, as BLS12-381's (fp.h says
 * why: the G1 additions inlined into every kernel). */
#define PL__CU_F pl__cu_bn254_fp
#define PL__CU_FN(op) pl__cu_bn254_fp_##op
#define PL__CU_F_LIMBS PL_CU_BN254_LIMBS
#define PL__CU_F_MOD PL_CU_BN254_FP_P
#define PL__CU_F_ONE PL_CU_BN254_FP_ONE
#define PL__CU_F_N0 PL_CU_BN254_FP_N0
#define PL__CU_F_MUL_FN PL_DEVICE_COLD_FN
#include "backend/cuda/arith/field_impl.h"

/* Fr: inlined, as BLS12-381's (fr.h). */
#define PL__CU_F pl__cu_bn254_fr
#define PL__CU_FN(op) pl__cu_bn254_fr_##op
#define PL__CU_F_LIMBS PL_CU_BN254_LIMBS
#define PL__CU_F_MOD PL_CU_BN254_FR_R
#define PL__CU_F_ONE PL_CU_BN254_FR_ONE
#define PL__CU_F_N0 PL_CU_BN254_FR_N0
#define PL__CU_F_MUL_FN PL_DEVICE_FN
#include "backend/cuda/arith/field_impl.h"

#endif /* PL_CUDA_ARITH_BN254_H */
