/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Boolean gadgets: allocation with its booleanity constraint, xor, and,
 * ch, maj, a two-way select, and packing bits into (or decomposing a
 * variable into) a field element.  Each folds constant and repeated inputs
 * before it spends a constraint (see gadgets.h for the costs).
 */
#include "circuit/gadgets/gadgets.h"

#include <string.h>

pl__bit pl__bit_var(uint32_t var, unsigned value)
{
    pl__bit b = {(uint8_t)(value & 1), 1, 0, {1}, {var}};
    return b;
}

pl__bit pl__bit_alloc(pl_cs *cs, unsigned value)
{
    pl__bit b = pl__bit_var(pl__cs_alloc_bit(cs, value), value);
    if (pl__cs_begin(cs)) { /* b * (b - 1) = 0 */
        pl__cs_term(cs, 0, b.var[0], PL__COEFF_ONE);
        pl__cs_term(cs, 1, b.var[0], PL__COEFF_ONE);
        pl__cs_term(cs, 1, PL__VAR_ONE, PL__COEFF_MINUS_ONE);
        pl__cs_end(cs);
    }
    return b;
}

pl__bit pl__bit_not(pl__bit b)
{
    b.value ^= 1;
    b.k = (int8_t)(1 - b.k);
    for (unsigned i = 0; i < b.n; i++)
        b.coef[i] = (int8_t)-b.coef[i];
    return b;
}

void pl__bit_emit(pl_cs *cs, unsigned m, const pl__bit *b, int64_t mul,
                  unsigned shift)
{
    for (unsigned i = 0; i < b->n; i++)
        pl__cs_term(cs, m, b->var[i],
                    pl__cs_coeff_scaled(cs, b->coef[i] * mul, shift));
    if (b->k)
        pl__cs_term(cs, m, PL__VAR_ONE,
                    pl__cs_coeff_scaled(cs, b->k * mul, shift));
}

static bool same(const pl__bit *a, const pl__bit *b)
{
    if (a->n != b->n || a->k != b->k)
        return false;
    for (unsigned i = 0; i < a->n; i++)
        if (a->var[i] != b->var[i] || a->coef[i] != b->coef[i])
            return false;
    return true;
}

static bool opposite(const pl__bit *a, const pl__bit *b)
{
    pl__bit nb = pl__bit_not(*b);
    return same(a, &nb);
}

/* s0*p0 + s1*p1 + s2*p2 as a bit of the given value, when it has at most
 * three variable terms; terms sorted by variable so equal sums compare
 * equal. */
static bool combine(pl__bit *out, const pl__bit *p[3], const int s[3],
                    unsigned value)
{
    pl__bit r = {(uint8_t)value, 0, 0, {0}, {0}};
    int k = 0;
    uint32_t vars[9];
    int coefs[9];
    unsigned n = 0;
    for (unsigned i = 0; i < 3; i++) {
        k += s[i] * p[i]->k;
        for (unsigned t = 0; t < p[i]->n; t++) {
            unsigned j = 0;
            while (j < n && vars[j] != p[i]->var[t])
                j++;
            if (j == n) {
                vars[n] = p[i]->var[t];
                coefs[n++] = 0;
            }
            coefs[j] += s[i] * p[i]->coef[t];
        }
    }
    for (unsigned j = 0; j < n; j++) {
        if (coefs[j] == 0)
            continue;
        if (r.n == 3 || coefs[j] < -100 || coefs[j] > 100)
            return false;
        /* insertion by variable */
        unsigned at = r.n;
        while (at > 0 && r.var[at - 1] > vars[j]) {
            r.var[at] = r.var[at - 1];
            r.coef[at] = r.coef[at - 1];
            at--;
        }
        r.var[at] = vars[j];
        r.coef[at] = (int8_t)coefs[j];
        r.n++;
    }
    if (k < -100 || k > 100)
        return false;
    r.k = (int8_t)k;
    *out = r;
    return true;
}

pl__bit pl__bit_xor(pl_cs *cs, pl__bit a, pl__bit b)
{
    if (pl__bit_is_const(&a))
        return a.value ? pl__bit_not(b) : b;
    if (pl__bit_is_const(&b))
        return b.value ? pl__bit_not(a) : a;
    if (same(&a, &b))
        return pl__bit_const(0);
    if (opposite(&a, &b))
        return pl__bit_const(1);
    unsigned v = a.value ^ b.value;
    pl__bit c = pl__bit_var(pl__cs_alloc_bit(cs, v), v);
    if (pl__cs_begin(cs)) { /* 2a * b = a + b - c */
        pl__bit_emit(cs, 0, &a, 2, 0);
        pl__bit_emit(cs, 1, &b, 1, 0);
        pl__bit_emit(cs, 2, &a, 1, 0);
        pl__bit_emit(cs, 2, &b, 1, 0);
        pl__bit_emit(cs, 2, &c, -1, 0);
        pl__cs_end(cs);
    }
    return c;
}

pl__bit pl__bit_xor3(pl_cs *cs, pl__bit a, pl__bit b, pl__bit c)
{
    /* Constants first, so that the first xor is the one that may fold. */
    if (pl__bit_is_const(&c))
        return pl__bit_xor(cs, pl__bit_xor(cs, a, c), b);
    return pl__bit_xor(cs, pl__bit_xor(cs, a, b), c);
}

pl__bit pl__bit_and(pl_cs *cs, pl__bit a, pl__bit b)
{
    if (pl__bit_is_const(&a))
        return a.value ? b : pl__bit_const(0);
    if (pl__bit_is_const(&b))
        return b.value ? a : pl__bit_const(0);
    if (same(&a, &b))
        return a;
    if (opposite(&a, &b))
        return pl__bit_const(0);
    unsigned v = a.value & b.value;
    pl__bit c = pl__bit_var(pl__cs_alloc_bit(cs, v), v);
    if (pl__cs_begin(cs)) { /* a * b = c */
        pl__bit_emit(cs, 0, &a, 1, 0);
        pl__bit_emit(cs, 1, &b, 1, 0);
        pl__bit_emit(cs, 2, &c, 1, 0);
        pl__cs_end(cs);
    }
    return c;
}

pl__bit pl__bit_ch(pl_cs *cs, pl__bit e, pl__bit f, pl__bit g)
{
    if (pl__bit_is_const(&e))
        return e.value ? f : g;
    if (same(&f, &g))
        return f;
    if (pl__bit_is_const(&f) && pl__bit_is_const(&g))
        return f.value ? e : pl__bit_not(e); /* f != g here */
    unsigned v = e.value ? f.value : g.value;
    pl__bit r = pl__bit_var(pl__cs_alloc_bit(cs, v), v);
    if (pl__cs_begin(cs)) { /* e * (f - g) = r - g */
        pl__bit_emit(cs, 0, &e, 1, 0);
        pl__bit_emit(cs, 1, &f, 1, 0);
        pl__bit_emit(cs, 1, &g, -1, 0);
        pl__bit_emit(cs, 2, &r, 1, 0);
        pl__bit_emit(cs, 2, &g, -1, 0);
        pl__cs_end(cs);
    }
    return r;
}

pl__bit pl__bit_maj(pl_cs *cs, pl__bit a, pl__bit b, pl__bit c)
{
    if (same(&a, &b) || same(&a, &c))
        return a;
    if (same(&b, &c))
        return b;
    if (opposite(&a, &b))
        return c;
    if (opposite(&a, &c))
        return b;
    if (opposite(&b, &c))
        return a;
    /* Constants last. */
    pl__bit x[3] = {a, b, c};
    for (unsigned i = 0; i < 2; i++)
        for (unsigned j = 0; j + 1 < 3 - i; j++)
            if (pl__bit_is_const(&x[j]) && !pl__bit_is_const(&x[j + 1])) {
                pl__bit t = x[j];
                x[j] = x[j + 1];
                x[j + 1] = t;
            }
    unsigned v = (a.value + b.value + c.value) >= 2;
    if (pl__bit_is_const(&x[1])) /* two constants, which differ here */
        return x[0];
    if (pl__bit_is_const(&x[2])) {
        if (!x[2].value)
            return pl__bit_and(cs, x[0], x[1]);
        /* or: a * b = a + b - r */
        pl__bit r = pl__bit_var(pl__cs_alloc_bit(cs, v), v);
        if (pl__cs_begin(cs)) {
            pl__bit_emit(cs, 0, &x[0], 1, 0);
            pl__bit_emit(cs, 1, &x[1], 1, 0);
            pl__bit_emit(cs, 2, &x[0], 1, 0);
            pl__bit_emit(cs, 2, &x[1], 1, 0);
            pl__bit_emit(cs, 2, &r, -1, 0);
            pl__cs_end(cs);
        }
        return r;
    }
    /* bc = b * c; a * (b + c - 2bc) = r - bc */
    pl__bit bc = pl__bit_and(cs, b, c);
    pl__bit r = pl__bit_var(pl__cs_alloc_bit(cs, v), v);
    if (pl__cs_begin(cs)) {
        pl__bit_emit(cs, 0, &a, 1, 0);
        pl__bit_emit(cs, 1, &b, 1, 0);
        pl__bit_emit(cs, 1, &c, 1, 0);
        pl__bit_emit(cs, 1, &bc, -2, 0);
        pl__bit_emit(cs, 2, &r, 1, 0);
        pl__bit_emit(cs, 2, &bc, -1, 0);
        pl__cs_end(cs);
    }
    return r;
}

void pl__bit_select(pl_cs *cs, pl__bit *left, pl__bit *right, pl__bit d,
                    pl__bit x, pl__bit y)
{
    if (pl__bit_is_const(&d)) {
        *left = d.value ? y : x;
        *right = d.value ? x : y;
        return;
    }
    pl__bit l = pl__bit_ch(cs, d, y, x);
    const pl__bit *parts[3] = {&x, &y, &l};
    const int signs[3] = {1, 1, -1};
    unsigned rv = d.value ? x.value : y.value;
    if (!combine(right, parts, signs, rv))
        *right = pl__bit_ch(cs, d, x, y);
    *left = l;
}

void pl__bits_pack_equal(pl_cs *cs, const pl__bit *bits, size_t n,
                         uint32_t var)
{
    if (!pl__cs_begin(cs))
        return;
    for (size_t i = 0; i < n; i++)
        pl__bit_emit(cs, 0, &bits[i], 1, (unsigned)i);
    pl__cs_term(cs, 1, PL__VAR_ONE, PL__COEFF_ONE);
    pl__cs_term(cs, 2, var, PL__COEFF_ONE);
    pl__cs_end(cs);
}

void pl__bits_decompose(pl_cs *cs, pl__bit *out, uint32_t var,
                        const uint8_t value_le[32], size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = pl__bit_alloc(cs, (value_le[i / 8] >> (i % 8)) & 1);
    pl__bits_pack_equal(cs, out, n, var);
}
