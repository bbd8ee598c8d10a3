/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The BLS12-381 base field Fp for the CUDA backend: 12 x 32-bit limbs,
 * little-endian, in Montgomery form with R = 2^384 -- the representation
 * blst uses, so a pl__cu_fp and a blst_fp holding the same value have the
 * same bytes on any little-endian machine (x86, Arm, every NVIDIA GPU).
 * zkey points mapped from disk can therefore be uploaded as they are.
 * Compiles as device code under nvcc and as C11 on the host (limbs.h);
 * tested against blst_fp_* in tests/test_cuda_arith.c.  Not constant time:
 * the prover only handles public points in this field.
 */
#ifndef PL_CUDA_ARITH_FP_H
#define PL_CUDA_ARITH_FP_H

#include "backend/cuda/arith/limbs.h"

#define PL_CU_FP_LIMBS 12

/*
 * Constants as initializer lists, so that each function declares them as
 * local arrays: nvcc folds those into immediates once the loops unroll,
 * with no __constant__ memory (which host code could not read) involved.
 * Derived in Python from p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84
 * f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab (381 bits):
 *   ONE = 2^384 mod p        (Montgomery form of 1; blst's BLS12_381_ONE)
 *   N0  = -p^-1 mod 2^32     (low half of blst's 64-bit p0 = 0x89f3fffcfffcfffd)
 * written as limbs: ", ".join("0x%08x" % ((x >> 32*i) & 0xffffffff) for i
 * in range(12)).  tests/test_cuda_arith.c checks each against blst.
 */
#define PL_CU_FP_P                                                            \
    {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0, \
     0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea}
#define PL_CU_FP_ONE                                                          \
    {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857, \
     0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3}
#define PL_CU_FP_N0 0xfffcfffdu

/* The multiplication is a real call on the device (PL_DEVICE_COLD_FN),
 * not inlined: a G1 addition makes 11 of them, and with each inlined the
 * kernels grow to hundreds of thousands of PTX lines that ptxas takes
 * minutes over (the arithmetic smoke test, then with G2 as well: 3 min
 * 26 s inlined, 28 s called, on 2 cores).  The call costs a few
 * instructions against the ~300 of the multiplication, and a per-thread
 * stack, as the operands go through local memory (ptxas -v, sm_90: 1,584
 * bytes in k_msm_reduce, 864 in the accumulate kernels), which the device
 * object reserves at open (gpu.h).  The operations: field_impl.h's. */
#define PL__CU_F pl__cu_fp
#define PL__CU_FN(op) pl__cu_fp_##op
#define PL__CU_F_LIMBS PL_CU_FP_LIMBS
#define PL__CU_F_MOD PL_CU_FP_P
#define PL__CU_F_ONE PL_CU_FP_ONE
#define PL__CU_F_N0 PL_CU_FP_N0
#define PL__CU_F_MUL_FN PL_DEVICE_COLD_FN
#include "backend/cuda/arith/field_impl.h"

#endif /* PL_CUDA_ARITH_FP_H */
