/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BLAKE2b-512 from RFC 7693 (section 3: G, the compression, the
 * parameter block for an unkeyed 64-byte digest), with update() following
 * the buffering of snarkjs's JavaScript hasher so that the partialHash
 * record of a .ptau contribution comes out byte for byte (blake2b.h says
 * why).  The ceremony steps (ptau.c, zkey_ceremony.c) are its callers.
 */
#include "ceremony/blake2b.h"

#include <string.h>

static const uint64_t iv[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull,
    0xa54ff53a5f1d36f1ull, 0x510e527fade682d1ull, 0x9b05688c2b3e6c1full,
    0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull};

static const uint8_t sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static inline uint64_t rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void store32(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

#define G(a, b, c, d, x, y)                                                   \
    do {                                                                      \
        v[a] = v[a] + v[b] + (x);                                             \
        v[d] = rotr64(v[d] ^ v[a], 32);                                       \
        v[c] = v[c] + v[d];                                                   \
        v[b] = rotr64(v[b] ^ v[c], 24);                                       \
        v[a] = v[a] + v[b] + (y);                                             \
        v[d] = rotr64(v[d] ^ v[a], 16);                                       \
        v[c] = v[c] + v[d];                                                   \
        v[b] = rotr64(v[b] ^ v[c], 63);                                       \
    } while (0)

/* F of RFC 7693 3.2: t is the byte count up to the end of this block. */
static void compress(uint64_t h[8], const uint8_t block[PL__BLAKE2B_BLOCK],
                     uint64_t t, int last)
{
    uint64_t m[16], v[16];
    for (unsigned i = 0; i < 16; i++)
        m[i] = load64(block + 8 * i);
    for (unsigned i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = iv[i];
    }
    v[12] ^= t;
    if (last)
        v[14] = ~v[14];
    for (unsigned r = 0; r < 12; r++) {
        const uint8_t *s = sigma[r];
        G(0, 4, 8, 12, m[s[0]], m[s[1]]);
        G(1, 5, 9, 13, m[s[2]], m[s[3]]);
        G(2, 6, 10, 14, m[s[4]], m[s[5]]);
        G(3, 7, 11, 15, m[s[6]], m[s[7]]);
        G(0, 5, 10, 15, m[s[8]], m[s[9]]);
        G(1, 6, 11, 12, m[s[10]], m[s[11]]);
        G(2, 7, 8, 13, m[s[12]], m[s[13]]);
        G(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (unsigned i = 0; i < 8; i++)
        h[i] ^= v[i] ^ v[i + 8];
}

void pl__blake2b_init(pl__blake2b *s)
{
    memset(s, 0, sizeof(*s));
    memcpy(s->h, iv, sizeof(iv));
    /* the parameter block: digest length 64, no key, fanout 1, depth 1 */
    s->h[0] ^= 0x01010000ull ^ PL__BLAKE2B_BYTES;
}

void pl__blake2b_update(pl__blake2b *s, const void *data, size_t len)
{
    const uint8_t *in = data;
    size_t p = 0;
    while (p < len) {
        /* a full buffer waits until more input shows it is not the last */
        if (s->pos == PL__BLAKE2B_BLOCK) {
            compress(s->h, s->buf, s->length, 0);
            s->pos = 0;
        }
        size_t take = PL__BLAKE2B_BLOCK - s->pos;
        if (take > len - p)
            take = len - p;
        if (take == PL__BLAKE2B_BLOCK && p + take < len) {
            /* whole blocks straight from the input, the last one kept */
            while (p + PL__BLAKE2B_BLOCK < len) {
                s->length += PL__BLAKE2B_BLOCK;
                compress(s->h, in + p, s->length, 0);
                p += PL__BLAKE2B_BLOCK;
            }
            continue;
        }
        memcpy(s->buf + s->pos, in + p, take);
        s->pos += take;
        s->length += take;
        p += take;
    }
}

void pl__blake2b_final(pl__blake2b *s, uint8_t out[PL__BLAKE2B_BYTES])
{
    memset(s->buf + s->pos, 0, PL__BLAKE2B_BLOCK - s->pos);
    compress(s->h, s->buf, s->length, 1);
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 8; j++)
            out[8 * i + j] = (uint8_t)(s->h[i] >> (8 * j));
    memset(s, 0, sizeof(*s));
}

void pl__blake2b_digest(uint8_t out[PL__BLAKE2B_BYTES], const void *data, size_t len)
{
    pl__blake2b s;
    pl__blake2b_init(&s);
    pl__blake2b_update(&s, data, len);
    pl__blake2b_final(&s, out);
}

/* The record: buf[128], then 32-bit little-endian words: h as (low, high)
 * pairs (16 words), the bytes before the buffer (length - pos, kept in one
 * word as snarkjs's Uint32Array keeps it), 0, pos, 0, and two unused. */
void pl__blake2b_export(uint8_t out[PL__BLAKE2B_PARTIAL_BYTES],
                        const pl__blake2b *s)
{
    memset(out, 0, PL__BLAKE2B_PARTIAL_BYTES);
    memcpy(out, s->buf, PL__BLAKE2B_BLOCK);
    uint8_t *w = out + PL__BLAKE2B_BLOCK;
    for (unsigned i = 0; i < 8; i++) {
        store32(w + 8 * i, (uint32_t)s->h[i]);
        store32(w + 8 * i + 4, (uint32_t)(s->h[i] >> 32));
    }
    store32(w + 64, (uint32_t)(s->length - s->pos));
    store32(w + 72, (uint32_t)s->pos);
}

void pl__blake2b_import(pl__blake2b *s,
                        const uint8_t in[PL__BLAKE2B_PARTIAL_BYTES])
{
    memset(s, 0, sizeof(*s));
    memcpy(s->buf, in, PL__BLAKE2B_BLOCK);
    const uint8_t *w = in + PL__BLAKE2B_BLOCK;
    for (unsigned i = 0; i < 8; i++)
        s->h[i] = (uint64_t)load32(w + 8 * i) |
                  (uint64_t)load32(w + 8 * i + 4) << 32;
    uint64_t before = (uint64_t)load32(w + 64) | (uint64_t)load32(w + 68) << 32;
    uint64_t pos = (uint64_t)load32(w + 72) | (uint64_t)load32(w + 76) << 32;
    /* a record cannot say more than a full buffer is pending */
    if (pos > PL__BLAKE2B_BLOCK)
        pos = PL__BLAKE2B_BLOCK;
    s->pos = (size_t)pos;
    s->length = before + pos;
}
