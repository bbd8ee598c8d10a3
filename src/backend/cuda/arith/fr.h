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

typedef struct {
    uint32_t l[PL_CU_FR_LIMBS];
} pl__cu_fr;

/*
 * Derived in Python from r = 0x73eda753299d7d483339d80809a1d805
 * 53bda402fffe5bfeffffffff00000001 (255 bits), as for Fp (see fp.h):
 *   N0 = -r^-1 mod 2^32 (r = 1 mod 2^32, so N0 = 2^32 - 1).  Checked against blst in
 * tests/test_cuda_arith.c.
 */
#define PL_CU_FR_R                                                            \
    {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, \
     0x299d7d48, 0x73eda753}
#define PL_CU_FR_N0 0xffffffffu

PL_DEVICE_FN void pl__cu_fr_zero(pl__cu_fr *r)
{
    PL_UNROLL
    for (int i = 0; i < PL_CU_FR_LIMBS; i++)
        r->l[i] = 0;
}

PL_DEVICE_FN void pl__cu_fr_add(pl__cu_fr *r, const pl__cu_fr *a,
                                const pl__cu_fr *b)
{
    const uint32_t m[PL_CU_FR_LIMBS] = PL_CU_FR_R;
    pl__cu_mod_add(r->l, a->l, b->l, m, PL_CU_FR_LIMBS);
}

PL_DEVICE_FN void pl__cu_fr_sub(pl__cu_fr *r, const pl__cu_fr *a,
                                const pl__cu_fr *b)
{
    const uint32_t m[PL_CU_FR_LIMBS] = PL_CU_FR_R;
    pl__cu_mod_sub(r->l, a->l, b->l, m, PL_CU_FR_LIMBS);
}

PL_DEVICE_FN void pl__cu_fr_mul(pl__cu_fr *r, const pl__cu_fr *a,
                                const pl__cu_fr *b)
{
    const uint32_t m[PL_CU_FR_LIMBS] = PL_CU_FR_R;
    PL__CU_MONT_MUL(r->l, a->l, b->l, m, PL_CU_FR_N0, PL_CU_FR_LIMBS);
}

/* Montgomery form -> canonical integer (a * R^-1): the MSM's scalars. */
PL_DEVICE_FN void pl__cu_fr_to_canonical(pl__cu_fr *r, const pl__cu_fr *a)
{
    pl__cu_fr unit;
    pl__cu_fr_zero(&unit);
    unit.l[0] = 1;
    pl__cu_fr_mul(r, a, &unit);
}

#endif /* PL_CUDA_ARITH_FR_H */
