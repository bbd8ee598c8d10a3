/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One subtraction of points exactly as snarkjs's WebAssembly computes it
 * (wasmcurves build_curve_jacobian_a0.js g1m_subAffine, over build_f1m.js
 * add, sub, mul, square), for the one place where snarkjs computes with
 * bytes that are not a point: zkey new's circuit hash, when the domain is
 * the ptau's whole power and past 2^14 points, reads its last "point"
 * tau^(2n-1) from past the end of section 2 (zkey_new.c says why).  Those
 * bytes' coordinates need not be below q, and wasmcurves's field
 * operations are then not arithmetic mod q: a subtraction that borrows
 * adds q once modulo 2^(8 n8) (off by 2^(8 n8) when that is not enough),
 * an addition that carries subtracts q once modulo 2^(8 n8), a
 * multiplication is the exact Montgomery reduction (a b + m q) / R with
 * one conditional subtraction of q.  Reproduced here on plain limbs, for
 * any curve of the table (q and n8q from it).  The result's coordinates
 * are Montgomery representations reduced below q, the Jacobian point
 * snarkjs then makes affine; tests/test_ceremony.c holds a vector computed
 * by snarkjs's own g1m_subAffine.
 */
#include "ceremony/ceremony.h"

#include <string.h>

#define MAXN 8 /* 64-bit limbs of the largest q (BLS12-381: 6) */

typedef struct {
    unsigned n;          /* limbs */
    uint64_t q[MAXN];
    uint64_t qinv;       /* -q^-1 mod 2^64 */
} field;

static void load(uint64_t *r, const uint8_t *le, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        r[i] = 0;
        for (unsigned j = 0; j < 8; j++)
            r[i] |= (uint64_t)le[8 * i + j] << (8 * j);
    }
}

static void store(uint8_t *le, const uint64_t *a, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < 8; j++)
            le[8 * i + j] = (uint8_t)(a[i] >> (8 * j));
}

static uint64_t add_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                      unsigned n)
{
    unsigned __int128 c = 0;
    for (unsigned i = 0; i < n; i++) {
        c += (unsigned __int128)a[i] + b[i];
        r[i] = (uint64_t)c;
        c >>= 64;
    }
    return (uint64_t)c;
}

static uint64_t sub_n(uint64_t *r, const uint64_t *a, const uint64_t *b,
                      unsigned n)
{
    uint64_t borrow = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

static bool gte_n(const uint64_t *a, const uint64_t *b, unsigned n)
{
    for (unsigned i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] > b[i];
    return true;
}

/* f1m_add: a carry subtracts q once (mod 2^64n), else r >= q does */
static void f_add(const field *f, uint64_t *r, const uint64_t *a,
                  const uint64_t *b)
{
    if (add_n(r, a, b, f->n) || gte_n(r, f->q, f->n))
        sub_n(r, r, f->q, f->n);
}

/* f1m_sub: a borrow adds q once (mod 2^64n) */
static void f_sub(const field *f, uint64_t *r, const uint64_t *a,
                  const uint64_t *b)
{
    if (sub_n(r, a, b, f->n))
        add_n(r, r, f->q, f->n);
}

/* f1m_mul: V = (a b + m q) / R exactly (CIOS, word by word: the same m
 * and V as wasmcurves's 32-bit digits), then one subtraction of q when V
 * carries past R or is not below q */
static void f_mul(const field *f, uint64_t *r, const uint64_t *a,
                  const uint64_t *b)
{
    const unsigned n = f->n;
    uint64_t t[MAXN + 2] = {0};
    for (unsigned i = 0; i < n; i++) {
        unsigned __int128 c = 0;
        for (unsigned j = 0; j < n; j++) {
            c += (unsigned __int128)a[j] * b[i] + t[j];
            t[j] = (uint64_t)c;
            c >>= 64;
        }
        c += t[n];
        t[n] = (uint64_t)c;
        t[n + 1] = (uint64_t)(c >> 64);
        const uint64_t m = t[0] * f->qinv;
        c = (unsigned __int128)m * f->q[0] + t[0];
        c >>= 64;
        for (unsigned j = 1; j < n; j++) {
            c += (unsigned __int128)m * f->q[j] + t[j];
            t[j - 1] = (uint64_t)c;
            c >>= 64;
        }
        c += t[n];
        t[n - 1] = (uint64_t)c;
        t[n] = t[n + 1] + (uint64_t)(c >> 64);
    }
    memcpy(r, t, n * sizeof(uint64_t));
    if (t[n] || gte_n(r, f->q, n))
        sub_n(r, r, f->q, n);
}

static bool is_zero_n(const uint64_t *a, unsigned n)
{
    uint64_t acc = 0;
    for (unsigned i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

/* r = a mod q for any n-limb a */
static void reduce(const field *f, uint64_t *a)
{
    while (gte_n(a, f->q, f->n))
        sub_n(a, a, f->q, f->n);
}

void pl__cer_wasm_sub_affine(const pl__cer_curve *c, uint8_t *xyz,
                             const uint8_t *a, const uint8_t *b)
{
    field f;
    f.n = c->n8q / 8;
    load(f.q, c->q_le, f.n);
    uint64_t inv = 1;     /* q^-1 mod 2^64, Newton's iteration */
    for (unsigned i = 0; i < 6; i++)
        inv *= 2 - f.q[0] * inv;
    f.qinv = (uint64_t)0 - inv;
    const unsigned n = f.n;
    uint64_t x1[MAXN] = {0}, y1[MAXN] = {0}, x2[MAXN] = {0}, y2[MAXN] = {0};
    uint64_t zero[MAXN] = {0};
    load(x1, a, n);
    load(y1, a + c->n8q, n);
    load(x2, b, n);
    load(y2, b + c->n8q, n);
    /* negAffine(b): y -> 0 - y */
    f_sub(&f, y2, zero, y2);
    uint64_t X3[MAXN], Y3[MAXN], Z3[MAXN];
    if (is_zero_n(x1, n) && is_zero_n(y1, n)) {
        /* addAffine with p1 zero: p2, z = 1 (R mod q) */
        memcpy(X3, x2, sizeof(X3));
        memcpy(Y3, y2, sizeof(Y3));
        /* one is R mod q: 2^64n - q, reduced */
        memset(Z3, 0, sizeof(Z3));
        sub_n(Z3, Z3, f.q, n);
        reduce(&f, Z3);
    } else {
        uint64_t H[MAXN], yd[MAXN], HH[MAXN], I[MAXN], J[MAXN], r[MAXN];
        uint64_t V[MAXN], r2[MAXN], V2[MAXN], yJ[MAXN];
        f_sub(&f, H, x2, x1);
        f_sub(&f, yd, y2, y1);
        f_mul(&f, HH, H, H);
        f_add(&f, I, HH, HH);
        f_add(&f, I, I, I);
        f_mul(&f, J, H, I);
        f_add(&f, r, yd, yd);
        f_mul(&f, V, x1, I);
        f_mul(&f, r2, r, r);
        f_add(&f, V2, V, V);
        f_sub(&f, X3, r2, J);
        f_sub(&f, X3, X3, V2);
        f_mul(&f, yJ, y1, J);
        f_add(&f, yJ, yJ, yJ);
        f_sub(&f, Y3, V, X3);
        f_mul(&f, Y3, Y3, r);
        f_sub(&f, Y3, Y3, yJ);
        f_add(&f, Z3, H, H);
    }
    reduce(&f, X3);
    reduce(&f, Y3);
    reduce(&f, Z3);
    store(xyz, X3, n);
    store(xyz + c->n8q, Y3, n);
    store(xyz + 2 * c->n8q, Z3, n);
}
