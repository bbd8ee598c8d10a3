/* SPDX-License-Identifier: Apache-2.0 */
/*
 * G1 of BLS12-381 (y^2 = x^3 + 4 over fp.h's Fp) and of BN254
 * (y^2 = x^3 + 3 over bn254.h's Fp) for the CUDA backend, in XYZZ
 * coordinates: (X, Y, ZZ, ZZZ) stands for x = X / ZZ, y = Y / ZZZ with
 * ZZ^3 = ZZZ^2, and ZZ = 0 is the point at infinity.  XYZZ is what GPU MSMs
 * accumulate buckets in (sppark, ICICLE): a mixed addition costs 8M + 2S
 * against 7M + 4S in Jacobian, and needs no doubling check in the common
 * case.  The formulas are g1_impl.h's, instantiated here per curve at
 * compile time: pl__cu_g1_* over BLS12-381's Fp, pl__cu_bn254_g1_* over
 * BN254's, so a kernel of either curve has its field inlined, with no
 * branch or indirection on the curve.
 *
 * Affine points use the CPU's layout and encoding of infinity, (0, 0)
 * (blst's for BLS12-381, a zkey's for both), so zkey points go to the
 * device as they are.  Device code under nvcc, C11 on the host; tested
 * against blst_p1_* and field/bn254's curve in tests/test_cuda_arith.c.
 * Not here: scalar multiplication and MSM (the kernels'), conversion to
 * affine (the host's).
 */
#ifndef PL_CUDA_ARITH_G1_H
#define PL_CUDA_ARITH_G1_H

#include "backend/cuda/arith/bn254.h"
#include "backend/cuda/arith/fp.h"

#define PL__CU_P(name) pl__cu_##name
#include "backend/cuda/arith/g1_impl.h"
#undef PL__CU_P

#define PL__CU_P(name) pl__cu_bn254_##name
#include "backend/cuda/arith/g1_impl.h"
#undef PL__CU_P

#endif /* PL_CUDA_ARITH_G1_H */
