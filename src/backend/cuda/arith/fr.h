/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The BLS12-381 scalar field Fr for the CUDA backend (the NTT and the H
 * computation work in it): 8 x 32-bit limbs, little-endian, Montgomery form
 * with R = 2^256, the representation of blst_fr, so the two have the same
 * bytes on little-endian machines.  Scalars for the MSMs are canonical
 * integers instead (pl__cu_fr_to_canonical).  Compiles as device code under
 * nvcc and as C11 on the host (limbs.h); tested against blst_fr_* in
 * tests/test_cuda_arith.c.
 */
#ifndef PL_CUDA_ARITH_FR_H
#define PL_CUDA_ARITH_FR_H

#include "backend/cuda/arith/limbs.h"

#define PL_CU_FR_LIMBS 8

/*
 * Derived in Python from r = 0x73eda753299d7d483339d80809a1d805
 * 53bda402fffe5bfeffffffff00000001 (255 bits), as for Fp (see fp.h):
 *   ONE = 2^256 mod r (Montgomery form of 1)
 *   N0 = -r^-1 mod 2^32 (r = 1 mod 2^32, so N0 = 2^32 - 1).
 * Checked against blst in tests/test_cuda_arith.c.
 */
#define PL_CU_FR_R                                                            \
    {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, \
     0x299d7d48, 0x73eda753}
#define PL_CU_FR_ONE                                                          \
    {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef, \
     0xacc5056f, 0x1824b159}
#define PL_CU_FR_N0 0xffffffffu

/* The operations (field_impl.h's); the multiplication inlined, as the
 * NTT's butterflies make one each.  Montgomery form -> canonical integer
 * (the MSM's scalars) is pl__cu_fr_to_canonical. */
#define PL__CU_F pl__cu_fr
#define PL__CU_FN(op) pl__cu_fr_##op
#define PL__CU_F_LIMBS PL_CU_FR_LIMBS
#define PL__CU_F_MOD PL_CU_FR_R
#define PL__CU_F_ONE PL_CU_FR_ONE
#define PL__CU_F_N0 PL_CU_FR_N0
#define PL__CU_F_MUL_FN PL_DEVICE_FN
#include "backend/cuda/arith/field_impl.h"

#endif /* PL_CUDA_ARITH_FR_H */
