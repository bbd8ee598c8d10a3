/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 (FIPS 180-4): a native reference (compression with a round
 * count, whole messages) and the gadget.  The gadget keeps every word as
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

#include <string.h>

const uint32_t pl__sha256_iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                   0xa54ff53a, 0x510e527f, 0x9b05688c,
                                   0x1f83d9ab, 0x5be0cd19};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static inline uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

void pl__sha256_compress_native(uint32_t st[8], const uint8_t block[64],
                                unsigned rounds)
{
    uint32_t w[64];
    for (unsigned t = 0; t < 16; t++)
        w[t] = (uint32_t)block[4 * t] << 24 | (uint32_t)block[4 * t + 1] << 16 |
               (uint32_t)block[4 * t + 2] << 8 | block[4 * t + 3];
    for (unsigned t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
    uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
    uint32_t e = st[4], f = st[5], g = st[6], h = st[7];
    for (unsigned t = 0; t < rounds && t < 64; t++) {
        uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = h + s1 + ch + K[t] + w[t];
        uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = s0 + mj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    st[0] += a;
    st[1] += b;
    st[2] += c;
    st[3] += d;
    st[4] += e;
    st[5] += f;
    st[6] += g;
    st[7] += h;
}

void pl__sha256_native(uint8_t out[32], const uint8_t *msg, size_t len)
{
    uint32_t st[8];
    memcpy(st, pl__sha256_iv, sizeof(st));
    size_t full = len / 64;
    for (size_t i = 0; i < full; i++)
        pl__sha256_compress_native(st, msg + 64 * i, 64);
    uint8_t tail[128] = {0};
    size_t rest = len - 64 * full;
    memcpy(tail, msg + 64 * full, rest);
    tail[rest] = 0x80;
    size_t tail_len = rest + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (unsigned i = 0; i < 8; i++)
        tail[tail_len - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t off = 0; off < tail_len; off += 64)
        pl__sha256_compress_native(st, tail + off, 64);
    for (unsigned i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(st[i] >> 24);
        out[4 * i + 1] = (uint8_t)(st[i] >> 16);
        out[4 * i + 2] = (uint8_t)(st[i] >> 8);
        out[4 * i + 3] = (uint8_t)st[i];
    }
}

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
        pl__u32_add(cs, &new_e, te, 5, K[t]);
        const pl__u32 *ta[6] = {V(7), &S1, &ch, &W[t], &S0, &mj};
        pl__u32_add(cs, &new_a, ta, 6, K[t]);
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
