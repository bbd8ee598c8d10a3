/* SPDX-License-Identifier: Apache-2.0 */
/*
 * 32-bit words as 32 gadget bits: rotations and shifts (free: they only
 * rename bits), bitwise xor/and/not/ch/maj, and addition mod 2^32 of up to
 * eight words and a constant: the words' bits are packed into one linear
 * combination, which one constraint equates to a fresh decomposition into
 * 32 result bits and the carry bits (each with its booleanity constraint).
 */
#include "circuit/gadgets/gadgets.h"

#include <assert.h>

void pl__u32_const(pl__u32 *out, uint32_t v)
{
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = pl__bit_const((v >> i) & 1);
    out->value = v;
}

void pl__u32_alloc(pl_cs *cs, pl__u32 *out, uint32_t v)
{
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = pl__bit_alloc(cs, (v >> i) & 1);
    out->value = v;
}

void pl__u32_rotr(pl__u32 *out, const pl__u32 *x, unsigned n)
{
    assert(out != x);
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = x->b[(i + n) % 32];
    out->value = n % 32 ? (x->value >> (n % 32)) | (x->value << (32 - n % 32))
                        : x->value;
}

void pl__u32_shr(pl__u32 *out, const pl__u32 *x, unsigned n)
{
    assert(out != x);
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = i + n < 32 ? x->b[i + n] : pl__bit_const(0);
    out->value = n < 32 ? x->value >> n : 0;
}

void pl__u32_xor3(pl_cs *cs, pl__u32 *out, const pl__u32 *a,
                  const pl__u32 *b, const pl__u32 *c)
{
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = pl__bit_xor3(cs, a->b[i], b->b[i], c->b[i]);
    out->value = a->value ^ b->value ^ c->value;
}

void pl__u32_ch(pl_cs *cs, pl__u32 *out, const pl__u32 *e, const pl__u32 *f,
                const pl__u32 *g)
{
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = pl__bit_ch(cs, e->b[i], f->b[i], g->b[i]);
    out->value = (e->value & f->value) ^ (~e->value & g->value);
}

void pl__u32_maj(pl_cs *cs, pl__u32 *out, const pl__u32 *a, const pl__u32 *b,
                 const pl__u32 *c)
{
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = pl__bit_maj(cs, a->b[i], b->b[i], c->b[i]);
    out->value = (a->value & b->value) ^ (a->value & c->value) ^
                 (b->value & c->value);
}

void pl__u32_add(pl_cs *cs, pl__u32 *out, const pl__u32 *const *words,
                 size_t n, uint32_t constant)
{
    assert(n <= 8);
    uint64_t sum = constant, max = constant;
    size_t n_var = 0;
    const pl__u32 *only = NULL;
    for (size_t w = 0; w < n; w++) {
        sum += words[w]->value;
        bool var = false;
        for (unsigned i = 0; i < 32; i++) {
            if (pl__bit_is_const(&words[w]->b[i])) {
                max += (uint64_t)words[w]->b[i].value << i;
            } else {
                max += (uint64_t)1 << i;
                var = true;
            }
        }
        if (var) {
            n_var++;
            only = words[w];
        }
    }
    if (n_var == 0) {
        pl__u32_const(out, (uint32_t)sum);
        return;
    }
    if (n_var == 1 && sum == only->value) {
        /* one variable word and constants summing to 0: nothing to add */
        *out = *only;
        return;
    }
    unsigned width = 0;
    while (width < 64 && (max >> width) != 0)
        width++;
    pl__bit bits[64];
    for (unsigned j = 0; j < width; j++)
        bits[j] = pl__bit_alloc(cs, (unsigned)(sum >> j) & 1);
    if (pl__cs_begin(cs)) {
        for (size_t w = 0; w < n; w++)
            for (unsigned i = 0; i < 32; i++)
                pl__bit_emit(cs, 0, &words[w]->b[i], 1, i);
        if (constant)
            pl__cs_term(cs, 0, PL__VAR_ONE,
                        pl__cs_coeff_scaled(cs, (int64_t)constant, 0));
        pl__cs_term(cs, 1, PL__VAR_ONE, PL__COEFF_ONE);
        for (unsigned j = 0; j < width; j++)
            pl__bit_emit(cs, 2, &bits[j], 1, j);
        pl__cs_end(cs);
    }
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = i < width ? bits[i] : pl__bit_const(0);
    out->value = (uint32_t)sum;
}
