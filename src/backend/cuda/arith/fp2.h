/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fp2 = Fp[u] / (u^2 + 1), the field of G2's coordinates, for the CUDA
 * backend: c0 + c1 u, laid out as blst_fp2 (c0 first), so the bytes match.
 * Device code under nvcc, C11 on the host; tested against blst_fp2_* in
 * tests/test_cuda_arith.c.
 */
#ifndef PL_CUDA_ARITH_FP2_H
#define PL_CUDA_ARITH_FP2_H

#include "backend/cuda/arith/fp.h"

typedef struct {
    pl__cu_fp c0, c1;
} pl__cu_fp2;

PL_DEVICE_FN void pl__cu_fp2_zero(pl__cu_fp2 *r)
{
    pl__cu_fp_zero(&r->c0);
    pl__cu_fp_zero(&r->c1);
}

PL_DEVICE_FN void pl__cu_fp2_one(pl__cu_fp2 *r)
{
    pl__cu_fp_one(&r->c0);
    pl__cu_fp_zero(&r->c1);
}

PL_DEVICE_FN bool pl__cu_fp2_is_zero(const pl__cu_fp2 *a)
{
    return pl__cu_fp_is_zero(&a->c0) && pl__cu_fp_is_zero(&a->c1);
}

PL_DEVICE_FN bool pl__cu_fp2_eq(const pl__cu_fp2 *a, const pl__cu_fp2 *b)
{
    return pl__cu_fp_eq(&a->c0, &b->c0) && pl__cu_fp_eq(&a->c1, &b->c1);
}

PL_DEVICE_FN void pl__cu_fp2_add(pl__cu_fp2 *r, const pl__cu_fp2 *a,
                                 const pl__cu_fp2 *b)
{
    pl__cu_fp_add(&r->c0, &a->c0, &b->c0);
    pl__cu_fp_add(&r->c1, &a->c1, &b->c1);
}

PL_DEVICE_FN void pl__cu_fp2_sub(pl__cu_fp2 *r, const pl__cu_fp2 *a,
                                 const pl__cu_fp2 *b)
{
    pl__cu_fp_sub(&r->c0, &a->c0, &b->c0);
    pl__cu_fp_sub(&r->c1, &a->c1, &b->c1);
}

PL_DEVICE_FN void pl__cu_fp2_neg(pl__cu_fp2 *r, const pl__cu_fp2 *a)
{
    pl__cu_fp_neg(&r->c0, &a->c0);
    pl__cu_fp_neg(&r->c1, &a->c1);
}

/* Karatsuba, 3 Fp multiplications instead of 4:
 *   (a0 + a1 u)(b0 + b1 u)
 *     = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
 * r may alias a or b. */
PL_DEVICE_FN void pl__cu_fp2_mul(pl__cu_fp2 *r, const pl__cu_fp2 *a,
                                 const pl__cu_fp2 *b)
{
    pl__cu_fp t0, t1, sa, sb;
    pl__cu_fp_mul(&t0, &a->c0, &b->c0);
    pl__cu_fp_mul(&t1, &a->c1, &b->c1);
    pl__cu_fp_add(&sa, &a->c0, &a->c1);
    pl__cu_fp_add(&sb, &b->c0, &b->c1);
    pl__cu_fp_mul(&sa, &sa, &sb);
    pl__cu_fp_sub(&r->c0, &t0, &t1);
    pl__cu_fp_sub(&sa, &sa, &t0);
    pl__cu_fp_sub(&r->c1, &sa, &t1);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: 2 multiplications. */
PL_DEVICE_FN void pl__cu_fp2_sqr(pl__cu_fp2 *r, const pl__cu_fp2 *a)
{
    pl__cu_fp s, d, m;
    pl__cu_fp_add(&s, &a->c0, &a->c1);
    pl__cu_fp_sub(&d, &a->c0, &a->c1);
    pl__cu_fp_mul(&m, &a->c0, &a->c1);
    pl__cu_fp_mul(&r->c0, &s, &d);
    pl__cu_fp_add(&r->c1, &m, &m);
}

/* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2); 0 maps to 0.  One Fp
 * inversion (Fermat, slow). */
PL_DEVICE_FN void pl__cu_fp2_inverse(pl__cu_fp2 *r, const pl__cu_fp2 *a)
{
    pl__cu_fp n, t;
    pl__cu_fp_sqr(&n, &a->c0);
    pl__cu_fp_sqr(&t, &a->c1);
    pl__cu_fp_add(&n, &n, &t);
    pl__cu_fp_inverse(&n, &n);
    pl__cu_fp_mul(&r->c0, &a->c0, &n);
    pl__cu_fp_mul(&t, &a->c1, &n);
    pl__cu_fp_neg(&r->c1, &t);
}

#endif /* PL_CUDA_ARITH_FP2_H */
