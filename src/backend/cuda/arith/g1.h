/* SPDX-License-Identifier: Apache-2.0 */
/*
 * G1 of BLS12-381 (y^2 = x^3 + 4 over Fp) for the CUDA backend, in XYZZ
 * coordinates: (X, Y, ZZ, ZZZ) stands for x = X / ZZ, y = Y / ZZZ with
 * ZZ^3 = ZZZ^2, and ZZ = 0 is the point at infinity.  XYZZ is what GPU MSMs
 * accumulate buckets in (sppark, ICICLE): a mixed addition costs 8M + 2S
 * against 7M + 4S in Jacobian, and needs no doubling check in the common
 * case.  Formulas from the Explicit-Formulas Database, "xyzz" for
 * short Weierstrass curves with a = 0 (madd-2008-s, add-2008-s,
 * dbl-2008-s-1, mdbl-2008-s-1).
 *
 * Affine points use blst's layout and blst's encoding of infinity, (0, 0)
 * (not on the curve, as 0 != 0 + 4), so zkey points go to the device as
 * they are.  Device code under nvcc, C11 on the host; tested against
 * blst_p1_* in tests/test_cuda_arith.c.  Not here: scalar multiplication
 * and MSM (the kernels'), conversion to affine (the host's, in blst).
 */
#ifndef PL_CUDA_ARITH_G1_H
#define PL_CUDA_ARITH_G1_H

#include "backend/cuda/arith/fp.h"

typedef struct {
    pl__cu_fp x, y;
} pl__cu_g1_affine;

typedef struct {
    pl__cu_fp x, y, zz, zzz;
} pl__cu_g1_xyzz;

/* Jacobian (x = X / Z^2, y = Y / Z^3), blst_p1's coordinates. */
typedef struct {
    pl__cu_fp x, y, z;
} pl__cu_g1_jacobian;

PL_DEVICE_FN bool pl__cu_g1_affine_is_inf(const pl__cu_g1_affine *a)
{
    return pl__cu_fp_is_zero(&a->x) && pl__cu_fp_is_zero(&a->y);
}

/* -(x, y) = (x, -y); infinity stays (0, 0). */
PL_DEVICE_FN void pl__cu_g1_affine_neg(pl__cu_g1_affine *r,
                                       const pl__cu_g1_affine *a)
{
    r->x = a->x;
    pl__cu_fp_neg(&r->y, &a->y);
}

PL_DEVICE_FN bool pl__cu_g1_xyzz_is_inf(const pl__cu_g1_xyzz *p)
{
    return pl__cu_fp_is_zero(&p->zz);
}

PL_DEVICE_FN void pl__cu_g1_xyzz_set_inf(pl__cu_g1_xyzz *r)
{
    pl__cu_fp_zero(&r->x);
    pl__cu_fp_zero(&r->y);
    pl__cu_fp_zero(&r->zz);
    pl__cu_fp_zero(&r->zzz);
}

PL_DEVICE_FN void pl__cu_g1_xyzz_from_affine(pl__cu_g1_xyzz *r,
                                             const pl__cu_g1_affine *a)
{
    if (pl__cu_g1_affine_is_inf(a)) {
        pl__cu_g1_xyzz_set_inf(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    pl__cu_fp_one(&r->zz);
    pl__cu_fp_one(&r->zzz);
}

/* r = 2p (dbl-2008-s-1, a = 0).  Infinity doubles to infinity by itself
 * (ZZ3 = V ZZ1 = 0), and so would a point with y = 0 (V = 0), of which G1
 * has none. */
PL_DEVICE_FN void pl__cu_g1_xyzz_dbl(pl__cu_g1_xyzz *r, const pl__cu_g1_xyzz *p)
{
    pl__cu_fp u, v, w, s, m, t;
    pl__cu_fp_add(&u, &p->y, &p->y);   /* U = 2 Y1 */
    pl__cu_fp_sqr(&v, &u);             /* V = U^2 */
    pl__cu_fp_mul(&w, &u, &v);         /* W = U V */
    pl__cu_fp_mul(&s, &p->x, &v);      /* S = X1 V */
    pl__cu_fp_sqr(&t, &p->x);
    pl__cu_fp_add(&m, &t, &t);
    pl__cu_fp_add(&m, &m, &t);         /* M = 3 X1^2 */
    pl__cu_fp_mul(&r->zz, &v, &p->zz); /* ZZ3 = V ZZ1 */
    pl__cu_fp_mul(&r->zzz, &w, &p->zzz); /* ZZZ3 = W ZZZ1 */
    pl__cu_fp_mul(&w, &w, &p->y);      /* W Y1, before r->y may overwrite it */
    pl__cu_fp_sqr(&t, &m);
    pl__cu_fp_sub(&t, &t, &s);
    pl__cu_fp_sub(&t, &t, &s);         /* X3 = M^2 - 2 S */
    pl__cu_fp_sub(&s, &s, &t);
    pl__cu_fp_mul(&s, &m, &s);
    pl__cu_fp_sub(&r->y, &s, &w);      /* Y3 = M (S - X3) - W Y1 */
    r->x = t;
}

/* r = 2a for an affine a that is not infinity (mdbl-2008-s-1): the doubling
 * case of the mixed addition, with ZZ1 = ZZZ1 = 1 folded in. */
PL_DEVICE_COLD_FN void pl__cu_g1_xyzz_dbl_affine(pl__cu_g1_xyzz *r,
                                                 const pl__cu_g1_affine *a)
{
    pl__cu_fp u, v, w, s, m, t;
    pl__cu_fp_add(&u, &a->y, &a->y);
    pl__cu_fp_sqr(&v, &u);
    pl__cu_fp_mul(&w, &u, &v);
    pl__cu_fp_mul(&s, &a->x, &v);
    pl__cu_fp_sqr(&t, &a->x);
    pl__cu_fp_add(&m, &t, &t);
    pl__cu_fp_add(&m, &m, &t);
    pl__cu_fp_mul(&u, &w, &a->y);      /* W Y1 */
    r->zz = v;
    r->zzz = w;
    pl__cu_fp_sqr(&t, &m);
    pl__cu_fp_sub(&t, &t, &s);
    pl__cu_fp_sub(&t, &t, &s);
    pl__cu_fp_sub(&s, &s, &t);
    pl__cu_fp_mul(&s, &m, &s);
    pl__cu_fp_sub(&r->y, &s, &u);
    r->x = t;
}

/* r = p + a, a affine (madd-2008-s): the bucket accumulation step.  Handles
 * either operand at infinity, p == a (doubling) and p == -a (infinity).
 * r may alias p. */
PL_DEVICE_FN void pl__cu_g1_xyzz_add_affine(pl__cu_g1_xyzz *r,
                                            const pl__cu_g1_xyzz *p,
                                            const pl__cu_g1_affine *a)
{
    if (pl__cu_g1_affine_is_inf(a)) {
        *r = *p;
        return;
    }
    if (pl__cu_g1_xyzz_is_inf(p)) {
        pl__cu_g1_xyzz_from_affine(r, a);
        return;
    }
    pl__cu_fp pp, rr, ppp, q, t, y1ppp;
    pl__cu_fp_mul(&pp, &a->x, &p->zz);  /* U2 = X2 ZZ1 */
    pl__cu_fp_sub(&pp, &pp, &p->x);     /* P = U2 - X1 */
    pl__cu_fp_mul(&rr, &a->y, &p->zzz); /* S2 = Y2 ZZZ1 */
    pl__cu_fp_sub(&rr, &rr, &p->y);     /* R = S2 - Y1 */
    if (pl__cu_fp_is_zero(&pp)) {
        /* Same x: a = p doubles, a = -p cancels. */
        if (pl__cu_fp_is_zero(&rr))
            pl__cu_g1_xyzz_dbl_affine(r, a);
        else
            pl__cu_g1_xyzz_set_inf(r);
        return;
    }
    pl__cu_fp_sqr(&t, &pp);                /* PP = P^2 */
    pl__cu_fp_mul(&ppp, &pp, &t);          /* PPP = P PP */
    pl__cu_fp_mul(&q, &p->x, &t);          /* Q = X1 PP */
    pl__cu_fp_mul(&y1ppp, &p->y, &ppp);    /* Y1 PPP */
    pl__cu_fp_mul(&r->zz, &p->zz, &t);     /* ZZ3 = ZZ1 PP */
    pl__cu_fp_mul(&r->zzz, &p->zzz, &ppp); /* ZZZ3 = ZZZ1 PPP */
    pl__cu_fp_sqr(&t, &rr);
    pl__cu_fp_sub(&t, &t, &ppp);
    pl__cu_fp_sub(&t, &t, &q);
    pl__cu_fp_sub(&t, &t, &q);             /* X3 = R^2 - PPP - 2 Q */
    pl__cu_fp_sub(&q, &q, &t);
    pl__cu_fp_mul(&q, &rr, &q);
    pl__cu_fp_sub(&r->y, &q, &y1ppp);      /* Y3 = R (Q - X3) - Y1 PPP */
    r->x = t;
}

/* r = p + q (add-2008-s), both XYZZ: merging partial sums (bucket
 * reduction, window sums).  Handles infinity, p == q and p == -q.  r may
 * alias p or q. */
PL_DEVICE_FN void pl__cu_g1_xyzz_add(pl__cu_g1_xyzz *r, const pl__cu_g1_xyzz *p,
                                     const pl__cu_g1_xyzz *q)
{
    if (pl__cu_g1_xyzz_is_inf(q)) {
        *r = *p;
        return;
    }
    if (pl__cu_g1_xyzz_is_inf(p)) {
        *r = *q;
        return;
    }
    pl__cu_fp u1, s1, pp, rr, ppp, t, zz, zzz;
    pl__cu_fp_mul(&u1, &p->x, &q->zz);  /* U1 = X1 ZZ2 */
    pl__cu_fp_mul(&pp, &q->x, &p->zz);  /* U2 = X2 ZZ1 */
    pl__cu_fp_sub(&pp, &pp, &u1);       /* P = U2 - U1 */
    pl__cu_fp_mul(&s1, &p->y, &q->zzz); /* S1 = Y1 ZZZ2 */
    pl__cu_fp_mul(&rr, &q->y, &p->zzz); /* S2 = Y2 ZZZ1 */
    pl__cu_fp_sub(&rr, &rr, &s1);       /* R = S2 - S1 */
    if (pl__cu_fp_is_zero(&pp)) {
        if (pl__cu_fp_is_zero(&rr))
            pl__cu_g1_xyzz_dbl(r, p);
        else
            pl__cu_g1_xyzz_set_inf(r);
        return;
    }
    pl__cu_fp_sqr(&t, &pp);            /* PP = P^2 */
    pl__cu_fp_mul(&ppp, &pp, &t);      /* PPP = P PP */
    pl__cu_fp_mul(&zz, &p->zz, &q->zz);
    pl__cu_fp_mul(&zz, &zz, &t);       /* ZZ3 = ZZ1 ZZ2 PP */
    pl__cu_fp_mul(&zzz, &p->zzz, &q->zzz);
    pl__cu_fp_mul(&zzz, &zzz, &ppp);   /* ZZZ3 = ZZZ1 ZZZ2 PPP */
    pl__cu_fp_mul(&u1, &u1, &t);       /* Q = U1 PP */
    pl__cu_fp_mul(&s1, &s1, &ppp);     /* S1 PPP */
    pl__cu_fp_sqr(&t, &rr);
    pl__cu_fp_sub(&t, &t, &ppp);
    pl__cu_fp_sub(&t, &t, &u1);
    pl__cu_fp_sub(&t, &t, &u1);        /* X3 = R^2 - PPP - 2 Q */
    pl__cu_fp_sub(&u1, &u1, &t);
    pl__cu_fp_mul(&u1, &rr, &u1);
    pl__cu_fp_sub(&r->y, &u1, &s1);    /* Y3 = R (Q - X3) - S1 PPP */
    r->x = t;
    r->zz = zz;
    r->zzz = zzz;
}

/* XYZZ -> Jacobian with Z = ZZ: X ZZ / ZZ^2 = X / ZZ and Y ZZZ / ZZ^3 =
 * Y / ZZZ, because ZZ^3 = ZZZ^2.  Infinity gets Z = 0, as in blst. */
PL_DEVICE_FN void pl__cu_g1_xyzz_to_jacobian(pl__cu_g1_jacobian *r,
                                             const pl__cu_g1_xyzz *p)
{
    pl__cu_fp x, y;
    pl__cu_fp_mul(&x, &p->x, &p->zz);
    pl__cu_fp_mul(&y, &p->y, &p->zzz);
    r->z = p->zz;
    r->x = x;
    r->y = y;
}

#endif /* PL_CUDA_ARITH_G1_H */
