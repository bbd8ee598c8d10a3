/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Jacobian point operations of y^2 = x^3 + b, written once for G1 (over
 * Fp) and G2 (over Fp2, on the twist) and each field implementation:
 * curve.h includes this file four times, with PL__C_SFX (the name suffix:
 * pl__bn254_g1_add_adx, ...), PL__C_G (the group's own names: is_inf,
 * from_affine), PL__C_V (the implementation, a constant), PL__C_F (the
 * field), PL__C_AFF / PL__C_JAC (the point types) and the field operations
 * PL__C_* defined; with PL__C_GROUP_ONCE (the group's first) also the
 * group's tests for infinity and from_affine.  No header guard on
 * purpose; nothing else includes it.
 *
 * The formulas are the Explicit-Formulas Database's for a = 0: doubling
 * dbl-2009-l (2M + 5S), mixed addition madd-2007-bl (7M + 4S) and
 * addition add-2007-bl (11M + 5S), with the cases they exclude (an
 * operand at infinity, equal or opposite points) handled first.  A
 * Jacobian point (X, Y, Z) is (X / Z^2, Y / Z^3), Z = 0 the point at
 * infinity; an affine point at infinity is all zero, as in a zkey.  Then
 * the bodies of curve.c's conversions, equality and scalar multiplication.
 *
 * Each function has its implementation's field operations inlined but is
 * itself a call (PL__BN254_OUTLINE): a point operation is some 10-20
 * multiplications, so the call costs nothing, and inlining them into every
 * caller (the MSM's tiles have a dozen call sites) multiplied the compile
 * time and memory many times over.  A translation unit gets a copy of the
 * ones it uses.
 */

#define PL__C_FN(name) PL__C_SFX(name)

#ifdef PL__C_GROUP_ONCE
/* The point at infinity: Z = 0 (Jacobian), all zero (affine). */
PL__BN254_INLINE bool PL__C_G(is_inf)(const PL__C_JAC *p)
{
    return PL__C_IS_ZERO(&p->z);
}

PL__BN254_INLINE bool PL__C_G(affine_is_inf)(const PL__C_AFF *p)
{
    return PL__C_IS_ZERO(&p->x) && PL__C_IS_ZERO(&p->y);
}

PL__BN254_INLINE void PL__C_G(from_affine)(PL__C_JAC *r, const PL__C_AFF *a)
{
    if (PL__C_G(affine_is_inf)(a)) {
        memset(r, 0, sizeof(*r));
        return;
    }
    r->x = a->x;
    r->y = a->y;
    PL__C_ONE(&r->z);
}
#endif

PL__BN254_OUTLINE void PL__C_FN(dbl)(PL__C_JAC *r, const PL__C_JAC *p)
{
    if (PL__C_G(is_inf)(p)) {
        *r = *p;
        return;
    }
    PL__C_F A, B, C, D, E, F, t;
    PL__C_SQR(&A, &p->x, PL__C_V);
    PL__C_SQR(&B, &p->y, PL__C_V);
    PL__C_SQR(&C, &B, PL__C_V);
    PL__C_ADD(&D, &p->x, &B, PL__C_V);
    PL__C_SQR(&D, &D, PL__C_V);
    PL__C_SUB(&D, &D, &A, PL__C_V);
    PL__C_SUB(&D, &D, &C, PL__C_V);
    PL__C_ADD(&D, &D, &D, PL__C_V);
    PL__C_MUL3(&E, &A, PL__C_V);
    PL__C_SQR(&F, &E, PL__C_V);
    PL__C_MUL(&r->z, &p->y, &p->z, PL__C_V); /* before r->y: r may be p */
    PL__C_ADD(&r->z, &r->z, &r->z, PL__C_V);
    PL__C_SUB(&t, &F, &D, PL__C_V);
    PL__C_SUB(&r->x, &t, &D, PL__C_V);
    PL__C_SUB(&t, &D, &r->x, PL__C_V);
    PL__C_MUL(&t, &E, &t, PL__C_V);
    PL__C_ADD(&C, &C, &C, PL__C_V);
    PL__C_ADD(&C, &C, &C, PL__C_V);
    PL__C_ADD(&C, &C, &C, PL__C_V); /* 8C */
    PL__C_SUB(&r->y, &t, &C, PL__C_V);
}

/* r = p + a, a affine; r may be p. */
PL__BN254_OUTLINE void PL__C_FN(add_affine)(PL__C_JAC *r, const PL__C_JAC *p,
                                            const PL__C_AFF *a)
{
    if (PL__C_G(affine_is_inf)(a)) {
        *r = *p;
        return;
    }
    if (PL__C_G(is_inf)(p)) {
        PL__C_G(from_affine)(r, a);
        return;
    }
    PL__C_F z1z1, u2, s2, h, hh, i, j, rr, vv, t;
    PL__C_SQR(&z1z1, &p->z, PL__C_V);
    PL__C_MUL(&u2, &a->x, &z1z1, PL__C_V);
    PL__C_MUL(&s2, &a->y, &p->z, PL__C_V);
    PL__C_MUL(&s2, &s2, &z1z1, PL__C_V);
    PL__C_SUB(&h, &u2, &p->x, PL__C_V);
    PL__C_SUB(&rr, &s2, &p->y, PL__C_V);
    if (PL__C_IS_ZERO(&h)) {
        if (PL__C_IS_ZERO(&rr)) {
            PL__C_JAC q;
            PL__C_G(from_affine)(&q, a);
            PL__C_FN(dbl)(r, &q);
        } else {
            memset(r, 0, sizeof(*r));
        }
        return;
    }
    PL__C_ADD(&rr, &rr, &rr, PL__C_V);
    PL__C_SQR(&hh, &h, PL__C_V);
    PL__C_ADD(&i, &hh, &hh, PL__C_V);
    PL__C_ADD(&i, &i, &i, PL__C_V);
    PL__C_MUL(&j, &h, &i, PL__C_V);
    PL__C_MUL(&vv, &p->x, &i, PL__C_V);
    /* Z3 = (Z1 + H)^2 - Z1Z1 - HH, before Z1 is overwritten */
    PL__C_ADD(&t, &p->z, &h, PL__C_V);
    PL__C_SQR(&t, &t, PL__C_V);
    PL__C_SUB(&t, &t, &z1z1, PL__C_V);
    PL__C_SUB(&r->z, &t, &hh, PL__C_V);
    /* Y1 J, before Y1 is overwritten */
    PL__C_MUL(&j, &j, &p->y, PL__C_V); /* j now holds Y1 J; J itself: */
    PL__C_MUL(&i, &h, &i, PL__C_V);    /* i = J */
    PL__C_SQR(&t, &rr, PL__C_V);
    PL__C_SUB(&t, &t, &i, PL__C_V);
    PL__C_SUB(&t, &t, &vv, PL__C_V);
    PL__C_SUB(&r->x, &t, &vv, PL__C_V);
    PL__C_SUB(&t, &vv, &r->x, PL__C_V);
    PL__C_MUL(&t, &rr, &t, PL__C_V);
    PL__C_ADD(&j, &j, &j, PL__C_V);
    PL__C_SUB(&r->y, &t, &j, PL__C_V);
}

/* r = p + q; r may be either. */
PL__BN254_OUTLINE void PL__C_FN(add)(PL__C_JAC *r, const PL__C_JAC *p,
                                     const PL__C_JAC *q)
{
    if (PL__C_G(is_inf)(q)) {
        *r = *p;
        return;
    }
    if (PL__C_G(is_inf)(p)) {
        *r = *q;
        return;
    }
    PL__C_F z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, vv, t;
    PL__C_SQR(&z1z1, &p->z, PL__C_V);
    PL__C_SQR(&z2z2, &q->z, PL__C_V);
    PL__C_MUL(&u1, &p->x, &z2z2, PL__C_V);
    PL__C_MUL(&u2, &q->x, &z1z1, PL__C_V);
    PL__C_MUL(&s1, &p->y, &q->z, PL__C_V);
    PL__C_MUL(&s1, &s1, &z2z2, PL__C_V);
    PL__C_MUL(&s2, &q->y, &p->z, PL__C_V);
    PL__C_MUL(&s2, &s2, &z1z1, PL__C_V);
    PL__C_SUB(&h, &u2, &u1, PL__C_V);
    PL__C_SUB(&rr, &s2, &s1, PL__C_V);
    if (PL__C_IS_ZERO(&h)) {
        if (PL__C_IS_ZERO(&rr))
            PL__C_FN(dbl)(r, p);
        else
            memset(r, 0, sizeof(*r));
        return;
    }
    PL__C_ADD(&rr, &rr, &rr, PL__C_V);
    PL__C_ADD(&i, &h, &h, PL__C_V);
    PL__C_SQR(&i, &i, PL__C_V);
    PL__C_MUL(&j, &h, &i, PL__C_V);
    PL__C_MUL(&vv, &u1, &i, PL__C_V);
    PL__C_ADD(&t, &p->z, &q->z, PL__C_V);
    PL__C_SQR(&t, &t, PL__C_V);
    PL__C_SUB(&t, &t, &z1z1, PL__C_V);
    PL__C_SUB(&t, &t, &z2z2, PL__C_V);
    PL__C_MUL(&r->z, &t, &h, PL__C_V);
    PL__C_SQR(&t, &rr, PL__C_V);
    PL__C_SUB(&t, &t, &j, PL__C_V);
    PL__C_SUB(&t, &t, &vv, PL__C_V);
    PL__C_SUB(&r->x, &t, &vv, PL__C_V);
    PL__C_MUL(&j, &s1, &j, PL__C_V);
    PL__C_ADD(&j, &j, &j, PL__C_V);
    PL__C_SUB(&t, &vv, &r->x, PL__C_V);
    PL__C_MUL(&t, &rr, &t, PL__C_V);
    PL__C_SUB(&r->y, &t, &j, PL__C_V);
}

PL__BN254_OUTLINE void PL__C_FN(neg)(PL__C_JAC *r, const PL__C_JAC *p)
{
    r->x = p->x;
    PL__C_NEG(&r->y, &p->y, PL__C_V);
    r->z = p->z;
}

/* ---- the out-of-line operations' bodies (curve.c) ------------------------ */

PL__BN254_OUTLINE void PL__C_FN(to_affine)(PL__C_AFF *r, const PL__C_JAC *p)
{
    if (PL__C_G(is_inf)(p)) {
        memset(r, 0, sizeof(*r));
        return;
    }
    PL__C_F zi, zi2;
    PL__C_INV(&zi, &p->z, PL__C_V);
    PL__C_SQR(&zi2, &zi, PL__C_V);
    PL__C_MUL(&r->x, &p->x, &zi2, PL__C_V);
    PL__C_MUL(&zi2, &zi2, &zi, PL__C_V);
    PL__C_MUL(&r->y, &p->y, &zi2, PL__C_V);
}

/* out[i] = in[i] in affine form, one inversion for all (Montgomery's
 * trick): the prefix products of the Z's wait in out[i].x. */
PL__BN254_OUTLINE void PL__C_FN(batch_to_affine)(PL__C_AFF *out,
                                                 const PL__C_JAC *in, size_t n)
{
    PL__C_F run, inv, zi, zi2;
    PL__C_ONE(&run);
    for (size_t i = 0; i < n; i++) {
        out[i].x = run;
        if (!PL__C_G(is_inf)(&in[i]))
            PL__C_MUL(&run, &run, &in[i].z, PL__C_V);
    }
    PL__C_INV(&inv, &run, PL__C_V);
    for (size_t i = n; i-- > 0;) {
        if (PL__C_G(is_inf)(&in[i])) {
            memset(&out[i], 0, sizeof(out[i]));
            continue;
        }
        PL__C_MUL(&zi, &inv, &out[i].x, PL__C_V);
        PL__C_MUL(&inv, &inv, &in[i].z, PL__C_V);
        PL__C_SQR(&zi2, &zi, PL__C_V);
        PL__C_MUL(&out[i].x, &in[i].x, &zi2, PL__C_V);
        PL__C_MUL(&zi2, &zi2, &zi, PL__C_V);
        PL__C_MUL(&out[i].y, &in[i].y, &zi2, PL__C_V);
    }
}

/* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3, or both at infinity */
PL__BN254_OUTLINE bool PL__C_FN(eq)(const PL__C_JAC *p, const PL__C_JAC *q)
{
    bool pi = PL__C_G(is_inf)(p), qi = PL__C_G(is_inf)(q);
    if (pi || qi)
        return pi == qi;
    PL__C_F z1, z2, a, b;
    PL__C_SQR(&z1, &p->z, PL__C_V);
    PL__C_SQR(&z2, &q->z, PL__C_V);
    PL__C_MUL(&a, &p->x, &z2, PL__C_V);
    PL__C_MUL(&b, &q->x, &z1, PL__C_V);
    if (!PL__C_EQ(&a, &b))
        return false;
    PL__C_MUL(&z1, &z1, &p->z, PL__C_V);
    PL__C_MUL(&z2, &z2, &q->z, PL__C_V);
    PL__C_MUL(&a, &p->y, &z2, PL__C_V);
    PL__C_MUL(&b, &q->y, &z1, PL__C_V);
    return PL__C_EQ(&a, &b);
}

/* [k] p, double-and-add over all 256 bits of k */
PL__BN254_OUTLINE void PL__C_FN(mul)(PL__C_JAC *r, const PL__C_JAC *p,
                                     const uint64_t k[4])
{
    PL__C_JAC acc, base = *p;
    memset(&acc, 0, sizeof(acc));
    for (int bit = 255; bit >= 0; bit--) {
        PL__C_FN(dbl)(&acc, &acc);
        if ((k[bit / 64] >> (bit % 64)) & 1)
            PL__C_FN(add)(&acc, &acc, &base);
    }
    *r = acc;
}

#undef PL__C_FN
#undef PL__C_SFX
#undef PL__C_G
#undef PL__C_GROUP_ONCE
#undef PL__C_V
#undef PL__C_F
#undef PL__C_AFF
#undef PL__C_JAC
#undef PL__C_ONE
#undef PL__C_IS_ZERO
#undef PL__C_ADD
#undef PL__C_SUB
#undef PL__C_NEG
#undef PL__C_MUL
#undef PL__C_SQR
#undef PL__C_MUL3
#undef PL__C_INV
#undef PL__C_EQ
