/* SPDX-License-Identifier: Apache-2.0 */
/*
 * G1 of a curve y^2 = x^3 + b (a = 0) for the CUDA backend, in XYZZ
 * coordinates, written once for both curves: g1.h includes this file once
 * per curve with PL__CU_P(name) defined to the curve's prefix (pl__cu_##name
 * for BLS12-381, pl__cu_bn254_##name for BN254), which names its field
 * (PL__CU_P(fp), with field_impl.h's operations PL__CU_P(fp_mul), ...) and
 * the types and functions defined here (PL__CU_P(g1_xyzz),
 * PL__CU_P(g1_xyzz_add_affine), ...).  b appears in no formula below, so
 * the two instances differ only in their field.  No header guard on
 * purpose; nothing but g1.h includes it.
 *
 * (X, Y, ZZ, ZZZ) stands for x = X / ZZ, y = Y / ZZZ with ZZ^3 = ZZZ^2,
 * and ZZ = 0 is the point at infinity.  Formulas from the
 * Explicit-Formulas Database, "xyzz" for short Weierstrass curves with
 * a = 0 (madd-2008-s, add-2008-s, dbl-2008-s-1, mdbl-2008-s-1).  Affine
 * points at infinity are (0, 0), as in blst and in a zkey (not on either
 * curve: 0 != b).
 */

typedef struct {
    PL__CU_P(fp) x, y;
} PL__CU_P(g1_affine);

typedef struct {
    PL__CU_P(fp) x, y, zz, zzz;
} PL__CU_P(g1_xyzz);

/* Jacobian (x = X / Z^2, y = Y / Z^3): the coordinates of blst_p1 and
 * of pl__bn254_g1. */
typedef struct {
    PL__CU_P(fp) x, y, z;
} PL__CU_P(g1_jacobian);

PL_DEVICE_FN bool PL__CU_P(g1_affine_is_inf)(const PL__CU_P(g1_affine) *a)
{
    return PL__CU_P(fp_is_zero)(&a->x) && PL__CU_P(fp_is_zero)(&a->y);
}

/* -(x, y) = (x, -y); infinity stays (0, 0). */
PL_DEVICE_FN void PL__CU_P(g1_affine_neg)(PL__CU_P(g1_affine) *r,
                                       const PL__CU_P(g1_affine) *a)
{
    r->x = a->x;
    PL__CU_P(fp_neg)(&r->y, &a->y);
}

PL_DEVICE_FN bool PL__CU_P(g1_xyzz_is_inf)(const PL__CU_P(g1_xyzz) *p)
{
    return PL__CU_P(fp_is_zero)(&p->zz);
}

PL_DEVICE_FN void PL__CU_P(g1_xyzz_set_inf)(PL__CU_P(g1_xyzz) *r)
{
    PL__CU_P(fp_zero)(&r->x);
    PL__CU_P(fp_zero)(&r->y);
    PL__CU_P(fp_zero)(&r->zz);
    PL__CU_P(fp_zero)(&r->zzz);
}

PL_DEVICE_FN void PL__CU_P(g1_xyzz_from_affine)(PL__CU_P(g1_xyzz) *r,
                                             const PL__CU_P(g1_affine) *a)
{
    if (PL__CU_P(g1_affine_is_inf)(a)) {
        PL__CU_P(g1_xyzz_set_inf)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    PL__CU_P(fp_one)(&r->zz);
    PL__CU_P(fp_one)(&r->zzz);
}

/* r = 2p (dbl-2008-s-1, a = 0).  Infinity doubles to infinity by itself
 * (ZZ3 = V ZZ1 = 0), and so would a point with y = 0 (V = 0), of which G1
 * has none. */
PL_DEVICE_FN void PL__CU_P(g1_xyzz_dbl)(PL__CU_P(g1_xyzz) *r, const PL__CU_P(g1_xyzz) *p)
{
    PL__CU_P(fp) u, v, w, s, m, t;
    PL__CU_P(fp_add)(&u, &p->y, &p->y);   /* U = 2 Y1 */
    PL__CU_P(fp_sqr)(&v, &u);             /* V = U^2 */
    PL__CU_P(fp_mul)(&w, &u, &v);         /* W = U V */
    PL__CU_P(fp_mul)(&s, &p->x, &v);      /* S = X1 V */
    PL__CU_P(fp_sqr)(&t, &p->x);
    PL__CU_P(fp_add)(&m, &t, &t);
    PL__CU_P(fp_add)(&m, &m, &t);         /* M = 3 X1^2 */
    PL__CU_P(fp_mul)(&r->zz, &v, &p->zz); /* ZZ3 = V ZZ1 */
    PL__CU_P(fp_mul)(&r->zzz, &w, &p->zzz); /* ZZZ3 = W ZZZ1 */
    PL__CU_P(fp_mul)(&w, &w, &p->y);      /* W Y1, before r->y may overwrite it */
    PL__CU_P(fp_sqr)(&t, &m);
    PL__CU_P(fp_sub)(&t, &t, &s);
    PL__CU_P(fp_sub)(&t, &t, &s);         /* X3 = M^2 - 2 S */
    PL__CU_P(fp_sub)(&s, &s, &t);
    PL__CU_P(fp_mul)(&s, &m, &s);
    PL__CU_P(fp_sub)(&r->y, &s, &w);      /* Y3 = M (S - X3) - W Y1 */
    r->x = t;
}

/* r = 2a for an affine a that is not infinity (mdbl-2008-s-1): the doubling
 * case of the mixed addition, with ZZ1 = ZZZ1 = 1 folded in. */
PL_DEVICE_COLD_FN void PL__CU_P(g1_xyzz_dbl_affine)(PL__CU_P(g1_xyzz) *r,
                                                 const PL__CU_P(g1_affine) *a)
{
    PL__CU_P(fp) u, v, w, s, m, t;
    PL__CU_P(fp_add)(&u, &a->y, &a->y);
    PL__CU_P(fp_sqr)(&v, &u);
    PL__CU_P(fp_mul)(&w, &u, &v);
    PL__CU_P(fp_mul)(&s, &a->x, &v);
    PL__CU_P(fp_sqr)(&t, &a->x);
    PL__CU_P(fp_add)(&m, &t, &t);
    PL__CU_P(fp_add)(&m, &m, &t);
    PL__CU_P(fp_mul)(&u, &w, &a->y);      /* W Y1 */
    r->zz = v;
    r->zzz = w;
    PL__CU_P(fp_sqr)(&t, &m);
    PL__CU_P(fp_sub)(&t, &t, &s);
    PL__CU_P(fp_sub)(&t, &t, &s);
    PL__CU_P(fp_sub)(&s, &s, &t);
    PL__CU_P(fp_mul)(&s, &m, &s);
    PL__CU_P(fp_sub)(&r->y, &s, &u);
    r->x = t;
}

/* r = p + a, a affine (madd-2008-s): the bucket accumulation step.  Handles
 * either operand at infinity, p == a (doubling) and p == -a (infinity).
 * r may alias p. */
PL_DEVICE_FN void PL__CU_P(g1_xyzz_add_affine)(PL__CU_P(g1_xyzz) *r,
                                            const PL__CU_P(g1_xyzz) *p,
                                            const PL__CU_P(g1_affine) *a)
{
    if (PL__CU_P(g1_affine_is_inf)(a)) {
        *r = *p;
        return;
    }
    if (PL__CU_P(g1_xyzz_is_inf)(p)) {
        PL__CU_P(g1_xyzz_from_affine)(r, a);
        return;
    }
    PL__CU_P(fp) pp, rr, ppp, q, t, y1ppp;
    PL__CU_P(fp_mul)(&pp, &a->x, &p->zz);  /* U2 = X2 ZZ1 */
    PL__CU_P(fp_sub)(&pp, &pp, &p->x);     /* P = U2 - X1 */
    PL__CU_P(fp_mul)(&rr, &a->y, &p->zzz); /* S2 = Y2 ZZZ1 */
    PL__CU_P(fp_sub)(&rr, &rr, &p->y);     /* R = S2 - Y1 */
    if (PL__CU_P(fp_is_zero)(&pp)) {
        /* Same x: a = p doubles, a = -p cancels. */
        if (PL__CU_P(fp_is_zero)(&rr))
            PL__CU_P(g1_xyzz_dbl_affine)(r, a);
        else
            PL__CU_P(g1_xyzz_set_inf)(r);
        return;
    }
    PL__CU_P(fp_sqr)(&t, &pp);                /* PP = P^2 */
    PL__CU_P(fp_mul)(&ppp, &pp, &t);          /* PPP = P PP */
    PL__CU_P(fp_mul)(&q, &p->x, &t);          /* Q = X1 PP */
    PL__CU_P(fp_mul)(&y1ppp, &p->y, &ppp);    /* Y1 PPP */
    PL__CU_P(fp_mul)(&r->zz, &p->zz, &t);     /* ZZ3 = ZZ1 PP */
    PL__CU_P(fp_mul)(&r->zzz, &p->zzz, &ppp); /* ZZZ3 = ZZZ1 PPP */
    PL__CU_P(fp_sqr)(&t, &rr);
    PL__CU_P(fp_sub)(&t, &t, &ppp);
    PL__CU_P(fp_sub)(&t, &t, &q);
    PL__CU_P(fp_sub)(&t, &t, &q);             /* X3 = R^2 - PPP - 2 Q */
    PL__CU_P(fp_sub)(&q, &q, &t);
    PL__CU_P(fp_mul)(&q, &rr, &q);
    PL__CU_P(fp_sub)(&r->y, &q, &y1ppp);      /* Y3 = R (Q - X3) - Y1 PPP */
    r->x = t;
}

/* r = p + q (add-2008-s), both XYZZ: merging partial sums (bucket
 * reduction, window sums).  Handles infinity, p == q and p == -q.  r may
 * alias p or q. */
PL_DEVICE_FN void PL__CU_P(g1_xyzz_add)(PL__CU_P(g1_xyzz) *r, const PL__CU_P(g1_xyzz) *p,
                                     const PL__CU_P(g1_xyzz) *q)
{
    if (PL__CU_P(g1_xyzz_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (PL__CU_P(g1_xyzz_is_inf)(p)) {
        *r = *q;
        return;
    }
    PL__CU_P(fp) u1, s1, pp, rr, ppp, t, zz, zzz;
    PL__CU_P(fp_mul)(&u1, &p->x, &q->zz);  /* U1 = X1 ZZ2 */
    PL__CU_P(fp_mul)(&pp, &q->x, &p->zz);  /* U2 = X2 ZZ1 */
    PL__CU_P(fp_sub)(&pp, &pp, &u1);       /* P = U2 - U1 */
    PL__CU_P(fp_mul)(&s1, &p->y, &q->zzz); /* S1 = Y1 ZZZ2 */
    PL__CU_P(fp_mul)(&rr, &q->y, &p->zzz); /* S2 = Y2 ZZZ1 */
    PL__CU_P(fp_sub)(&rr, &rr, &s1);       /* R = S2 - S1 */
    if (PL__CU_P(fp_is_zero)(&pp)) {
        if (PL__CU_P(fp_is_zero)(&rr))
            PL__CU_P(g1_xyzz_dbl)(r, p);
        else
            PL__CU_P(g1_xyzz_set_inf)(r);
        return;
    }
    PL__CU_P(fp_sqr)(&t, &pp);            /* PP = P^2 */
    PL__CU_P(fp_mul)(&ppp, &pp, &t);      /* PPP = P PP */
    PL__CU_P(fp_mul)(&zz, &p->zz, &q->zz);
    PL__CU_P(fp_mul)(&zz, &zz, &t);       /* ZZ3 = ZZ1 ZZ2 PP */
    PL__CU_P(fp_mul)(&zzz, &p->zzz, &q->zzz);
    PL__CU_P(fp_mul)(&zzz, &zzz, &ppp);   /* ZZZ3 = ZZZ1 ZZZ2 PPP */
    PL__CU_P(fp_mul)(&u1, &u1, &t);       /* Q = U1 PP */
    PL__CU_P(fp_mul)(&s1, &s1, &ppp);     /* S1 PPP */
    PL__CU_P(fp_sqr)(&t, &rr);
    PL__CU_P(fp_sub)(&t, &t, &ppp);
    PL__CU_P(fp_sub)(&t, &t, &u1);
    PL__CU_P(fp_sub)(&t, &t, &u1);        /* X3 = R^2 - PPP - 2 Q */
    PL__CU_P(fp_sub)(&u1, &u1, &t);
    PL__CU_P(fp_mul)(&u1, &rr, &u1);
    PL__CU_P(fp_sub)(&r->y, &u1, &s1);    /* Y3 = R (Q - X3) - S1 PPP */
    r->x = t;
    r->zz = zz;
    r->zzz = zzz;
}

/* XYZZ -> Jacobian with Z = ZZ: X ZZ / ZZ^2 = X / ZZ and Y ZZZ / ZZ^3 =
 * Y / ZZZ, because ZZ^3 = ZZZ^2.  Infinity gets Z = 0, as on the CPU. */
PL_DEVICE_FN void PL__CU_P(g1_xyzz_to_jacobian)(PL__CU_P(g1_jacobian) *r,
                                             const PL__CU_P(g1_xyzz) *p)
{
    PL__CU_P(fp) x, y;
    PL__CU_P(fp_mul)(&x, &p->x, &p->zz);
    PL__CU_P(fp_mul)(&y, &p->y, &p->zzz);
    r->z = p->zz;
    r->x = x;
    r->y = y;
}
