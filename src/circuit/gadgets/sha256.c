/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 (FIPS 180-4) as a gadget; the native function it is checked
 * against, and its constants, are util/sha256.c's.  The gadget keeps every word as
 * bits: the Sigma and sigma functions are bitwise 3-input xors of renamed
 * bits (2 constraints a bit, fewer where a shift brings in constant zeros),
 * Ch costs 1 and Maj 2 constraints a bit, and each sum mod 2^32 is one
 * packing constraint plus the booleanity of its 33-35 result bits.  New
 * e and a are each one addition of all their terms, so a round is about
 * 296 constraints and the message schedule about 150 a word: ~26.4k per
 * compression, less when inputs are constants (the IV's first rounds fold
 * away, and a constant block's schedule costs nothing).
 *
 * Round counts below 64 exist only for the toy sizes of the demo circuit;
 * anything called SHA-256 uses 64.
 */
#include "circuit/gadgets/gadgets.h"
#include "util/sha256.h"

#include <string.h>

/* out = rotr(x, r0) ^ rotr(x, r1) ^ (shift ? x >> r2 : rotr(x, r2)) */
static void sigma(pl_cs *cs, pl__u32 *out, const pl__u32 *x, unsigned r0,
                  unsigned r1, unsigned r2, bool shift)
{
    pl__u32 a, b, c;
    pl__u32_rotr(&a, x, r0);
    pl__u32_rotr(&b, x, r1);
    if (shift)
        pl__u32_shr(&c, x, r2);
    else
        pl__u32_rotr(&c, x, r2);
    /* The shifted word last: its constant zeros fold the second xor. */
    pl__u32_xor3(cs, out, &a, &b, &c);
}

void pl__sha256_compress_gadget(pl_cs *cs, pl__u32 state[8],
                                const pl__u32 w[16], unsigned rounds)
{
    if (rounds > 64)
        rounds = 64;
    pl__u32 W[64];
    for (unsigned t = 0; t < 16; t++)
        W[t] = w[t];
    for (unsigned t = 16; t < rounds; t++) {
        pl__u32 s0, s1;
        sigma(cs, &s0, &W[t - 15], 7, 18, 3, true);
        sigma(cs, &s1, &W[t - 2], 17, 19, 10, true);
        const pl__u32 *terms[4] = {&s1, &W[t - 7], &s0, &W[t - 16]};
        pl__u32_add(cs, &W[t], terms, 4, 0);
    }
    /* v[0..7] = a..h, rotated by moving the base index */
    pl__u32 v[8];
    for (unsigned i = 0; i < 8; i++)
        v[i] = state[i];
    unsigned base = 0; /* v[(base + i) % 8] is the i-th of a..h */
#define V(i) (&v[(base + (i)) % 8])
    for (unsigned t = 0; t < rounds; t++) {
        pl__u32 S1, ch, S0, mj, new_e, new_a;
        sigma(cs, &S1, V(4), 6, 11, 25, false);
        pl__u32_ch(cs, &ch, V(4), V(5), V(6));
        sigma(cs, &S0, V(0), 2, 13, 22, false);
        pl__u32_maj(cs, &mj, V(0), V(1), V(2));
        const pl__u32 *te[5] = {V(3), V(7), &S1, &ch, &W[t]};
        pl__u32_add(cs, &new_e, te, 5, pl__sha256_k[t]);
        const pl__u32 *ta[6] = {V(7), &S1, &ch, &W[t], &S0, &mj};
        pl__u32_add(cs, &new_a, ta, 6, pl__sha256_k[t]);
        /* h <- g ... b <- a: the old h's slot becomes the new a */
        base = (base + 7) % 8;
        *V(0) = new_a;
        *V(4) = new_e;
    }
    for (unsigned i = 0; i < 8; i++) {
        const pl__u32 *terms[2] = {&state[i], V(i)};
        pl__u32 sum;
        pl__u32_add(cs, &sum, terms, 2, 0);
        state[i] = sum;
    }
#undef V
}

void pl__sha256_gadget(pl_cs *cs, pl__bit out[256], const pl__bit *msg,
                       size_t n_bytes)
{
    uint64_t n_bits = (uint64_t)n_bytes * 8;
    uint64_t total = (n_bits + 64) / 512 * 512 + 512;
    pl__u32 state[8];
    for (unsigned i = 0; i < 8; i++)
        pl__u32_const(&state[i], pl__sha256_iv[i]);
    for (uint64_t blk = 0; blk < total; blk += 512) {
        pl__u32 w[16];
        for (unsigned m = 0; m < 16; m++) {
            w[m].value = 0;
            for (unsigned b = 0; b < 32; b++) {
                uint64_t p = blk + 32 * m + 31 - b;
                pl__bit bit;
                if (p < n_bits)
                    bit = msg[p];
                else if (p == n_bits)
                    bit = pl__bit_const(1);
                else if (p >= total - 64)
                    bit = pl__bit_const((unsigned)(n_bits >> (total - 1 - p)) & 1);
                else
                    bit = pl__bit_const(0);
                w[m].b[b] = bit;
                w[m].value |= (uint32_t)bit.value << b;
            }
        }
        pl__sha256_compress_gadget(cs, state, w, 64);
    }
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 32; j++)
            out[32 * i + j] = state[i].b[31 - j];
}
