/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One prime field of the CUDA backend's device arithmetic, written once for
 * every field it uses (BLS12-381's Fp and Fr, BN254's Fp and Fr): a field's
 * header (fp.h, fr.h, bn254.h) includes this file once per field with these
 * defined, and this file undefines them at its end:
 *   PL__CU_F            the type's name (pl__cu_fp, pl__cu_bn254_fr, ...)
 *   PL__CU_FN(op)       an operation's name (pl__cu_fp_##op, ...)
 *   PL__CU_F_LIMBS      its 32-bit limbs (a constant: the loops unroll)
 *   PL__CU_F_MOD, PL__CU_F_ONE   the modulus and 2^(32 limbs) mod it
 *                       (Montgomery's 1) as initializer lists
 *   PL__CU_F_N0         -modulus^-1 mod 2^32
 *   PL__CU_F_MUL_FN     PL_DEVICE_FN (inlined) or PL_DEVICE_COLD_FN (a call
 *                       on the device: fp.h says why Fp's is)
 * Values are little-endian 32-bit limbs in Montgomery form, fully reduced,
 * so the struct has the bytes of the CPU's representation of the field on
 * any little-endian machine.  The constants are local arrays in each
 * function (nvcc folds them into immediates once the loops unroll; no
 * __constant__ memory, which host code could not read).  No header guard
 * on purpose; nothing but the field headers includes it.
 */

typedef struct {
    uint32_t l[PL__CU_F_LIMBS];
} PL__CU_F;

PL_DEVICE_FN void PL__CU_FN(zero)(PL__CU_F *r)
{
    PL_UNROLL
    for (int i = 0; i < PL__CU_F_LIMBS; i++)
        r->l[i] = 0;
}

PL_DEVICE_FN void PL__CU_FN(one)(PL__CU_F *r)
{
    const uint32_t one[PL__CU_F_LIMBS] = PL__CU_F_ONE;
    PL_UNROLL
    for (int i = 0; i < PL__CU_F_LIMBS; i++)
        r->l[i] = one[i];
}

PL_DEVICE_FN bool PL__CU_FN(is_zero)(const PL__CU_F *a)
{
    return pl__cu_limbs_is_zero(a->l, PL__CU_F_LIMBS);
}

PL_DEVICE_FN void PL__CU_FN(add)(PL__CU_F *r, const PL__CU_F *a,
                                 const PL__CU_F *b)
{
    const uint32_t m[PL__CU_F_LIMBS] = PL__CU_F_MOD;
    pl__cu_mod_add(r->l, a->l, b->l, m, PL__CU_F_LIMBS);
}

PL_DEVICE_FN void PL__CU_FN(sub)(PL__CU_F *r, const PL__CU_F *a,
                                 const PL__CU_F *b)
{
    const uint32_t m[PL__CU_F_LIMBS] = PL__CU_F_MOD;
    pl__cu_mod_sub(r->l, a->l, b->l, m, PL__CU_F_LIMBS);
}

PL_DEVICE_FN void PL__CU_FN(neg)(PL__CU_F *r, const PL__CU_F *a)
{
    const uint32_t m[PL__CU_F_LIMBS] = PL__CU_F_MOD;
    pl__cu_mod_neg(r->l, a->l, m, PL__CU_F_LIMBS);
}

PL__CU_F_MUL_FN void PL__CU_FN(mul)(PL__CU_F *r, const PL__CU_F *a,
                                    const PL__CU_F *b)
{
    const uint32_t m[PL__CU_F_LIMBS] = PL__CU_F_MOD;
    PL__CU_MONT_MUL(r->l, a->l, b->l, m, PL__CU_F_N0, PL__CU_F_LIMBS);
}

/* A dedicated squaring (each cross product computed once) saves about a
 * quarter of the multiplications; it belongs with the PTX version. */
PL_DEVICE_FN void PL__CU_FN(sqr)(PL__CU_F *r, const PL__CU_F *a)
{
    PL__CU_FN(mul)(r, a, a);
}

/* Montgomery form -> canonical integer (a * R^-1): the MSM's scalars. */
PL_DEVICE_FN void PL__CU_FN(to_canonical)(PL__CU_F *r, const PL__CU_F *a)
{
    PL__CU_F unit;
    PL__CU_FN(zero)(&unit);
    unit.l[0] = 1;
    PL__CU_FN(mul)(r, a, &unit);
}

#undef PL__CU_F
#undef PL__CU_FN
#undef PL__CU_F_LIMBS
#undef PL__CU_F_MOD
#undef PL__CU_F_ONE
#undef PL__CU_F_N0
#undef PL__CU_F_MUL_FN
