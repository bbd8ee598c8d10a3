/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Merkle paths over SHA-256 with field-packed digests (gadgets.h describes
 * the node value): the native node hash, digests as circuit words, the
 * node gadget and the path verifier.  A level costs the sibling's 254
 * booleans, 254 selects (the direction bit swaps current and sibling: one
 * constraint gives the left bit, the right bit is the linear rest) and the
 * node hash: one compression (~26k) or two (~45k, full mode).
 */
#include "circuit/gadgets/gadgets.h"

#include <string.h>

/* Bits 6 and 7 of word 7 hold the top two bits of byte 31. */
#define TRUNC_WORD 7u
#define TRUNC_MASK 0xc0u

void pl__node_native(uint8_t out[32], const uint8_t left[32],
                     const uint8_t right[32], pl__node_hash hash,
                     unsigned rounds)
{
    uint8_t block[64];
    memcpy(block, left, 32);
    memcpy(block + 32, right, 32);
    if (hash == PL__NODE_FULL) {
        pl__sha256_digest(out, block, 64);
    } else {
        uint32_t st[8];
        memcpy(st, pl__sha256_iv, sizeof(st));
        pl__sha256_compress(st, block, rounds);
        for (unsigned i = 0; i < 8; i++) {
            out[4 * i] = (uint8_t)(st[i] >> 24);
            out[4 * i + 1] = (uint8_t)(st[i] >> 16);
            out[4 * i + 2] = (uint8_t)(st[i] >> 8);
            out[4 * i + 3] = (uint8_t)st[i];
        }
    }
    out[31] &= 0x3f;
}

static void truncate_digest(pl__u32 d[8])
{
    d[TRUNC_WORD].b[6] = pl__bit_const(0);
    d[TRUNC_WORD].b[7] = pl__bit_const(0);
    d[TRUNC_WORD].value &= ~TRUNC_MASK;
}

void pl__digest_alloc(pl_cs *cs, pl__u32 out[8], const uint8_t bytes[32])
{
    for (unsigned m = 0; m < 8; m++) {
        uint32_t v = (uint32_t)bytes[4 * m] << 24 |
                     (uint32_t)bytes[4 * m + 1] << 16 |
                     (uint32_t)bytes[4 * m + 2] << 8 | bytes[4 * m + 3];
        if (m == TRUNC_WORD)
            v &= ~TRUNC_MASK;
        for (unsigned b = 0; b < 32; b++)
            out[m].b[b] = (m == TRUNC_WORD && (b == 6 || b == 7))
                              ? pl__bit_const(0)
                              : pl__bit_alloc(cs, (v >> b) & 1);
        out[m].value = v;
    }
}

void pl__digest_bits(pl__bit out[256], const pl__u32 d[8])
{
    /* integer bit 8j + k is bit k of byte j, the byte (3 - j % 4) of word
     * j / 4 counted from its least significant end */
    for (unsigned j = 0; j < 32; j++)
        for (unsigned k = 0; k < 8; k++)
            out[8 * j + k] = d[j / 4].b[8 * (3 - j % 4) + k];
}

void pl__node_gadget(pl_cs *cs, pl__u32 out[8], const pl__u32 left[8],
                     const pl__u32 right[8], pl__node_hash hash,
                     unsigned rounds)
{
    pl__u32 w[16];
    for (unsigned m = 0; m < 8; m++) {
        w[m] = left[m];
        w[8 + m] = right[m];
    }
    for (unsigned i = 0; i < 8; i++)
        pl__u32_const(&out[i], pl__sha256_iv[i]);
    if (hash == PL__NODE_FULL) {
        pl__sha256_compress_gadget(cs, out, w, 64);
        /* the padding block of a 64-byte message: constant */
        for (unsigned m = 0; m < 16; m++)
            pl__u32_const(&w[m], m == 0 ? 0x80000000u : m == 15 ? 512u : 0);
        pl__sha256_compress_gadget(cs, out, w, 64);
    } else {
        pl__sha256_compress_gadget(cs, out, w, rounds);
    }
    truncate_digest(out);
}

void pl__merkle_path(pl_cs *cs, pl__u32 root[8], const pl__u32 leaf[8],
                     const pl__u32 (*siblings)[8], const pl__bit *dirs,
                     unsigned depth, pl__node_hash hash, unsigned rounds)
{
    pl__u32 cur[8], l[8], r[8];
    memcpy(cur, leaf, sizeof(cur));
    for (unsigned i = 0; i < depth; i++) {
        unsigned d = dirs[i].value;
        for (unsigned m = 0; m < 8; m++) {
            for (unsigned b = 0; b < 32; b++)
                pl__bit_select(cs, &l[m].b[b], &r[m].b[b], dirs[i],
                               cur[m].b[b], siblings[i][m].b[b]);
            l[m].value = d ? siblings[i][m].value : cur[m].value;
            r[m].value = d ? cur[m].value : siblings[i][m].value;
        }
        pl__node_gadget(cs, cur, l, r, hash, rounds);
    }
    memcpy(root, cur, sizeof(cur));
}
