/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Gadgets over the builder's term interface (circuit/cs.h): booleans, bit
 * decomposition and packing, 32-bit words, SHA-256 (compression and whole
 * messages, FIPS 180-4) and Merkle paths with field-packed digests.  Each
 * gadget computes its outputs' values natively alongside the constraints,
 * so in witness-only mode it only writes values and counts constraints.
 *
 * A pl__bit is an affine combination of at most three variables whose
 * value is known to be 0 or 1: a constant, a variable, NOT a variable
 * (1 - x), or a small sum such as x + y - z.  Constants and negations cost
 * nothing, and the gadgets fold them away (xor with a constant, ch or maj
 * with constant inputs), which is what makes SHA-256 rounds on the
 * constant IV cheap.
 *
 * Costs (constraints): bit_alloc 1; xor, and, ch 1; maj 2; xor3 2;
 * select 1; u32 add of n words 33..35 + 1; pack_equal 1.
 */
#ifndef PL_CIRCUIT_GADGETS_H
#define PL_CIRCUIT_GADGETS_H

#include "circuit/cs.h"
#include "util/sha256.h"

typedef struct pl__bit {
    uint8_t value;   /* 0 or 1 */
    uint8_t n;       /* variable terms, 0..3 */
    int8_t k;        /* constant term */
    int8_t coef[3];
    uint32_t var[3];
} pl__bit;

static inline pl__bit pl__bit_const(unsigned v)
{
    pl__bit b = {(uint8_t)(v & 1), 0, (int8_t)(v & 1), {0}, {0}};
    return b;
}
static inline bool pl__bit_is_const(const pl__bit *b) { return b->n == 0; }

/* A bit around a variable the caller has constrained to 0/1. */
pl__bit pl__bit_var(uint32_t var, unsigned value);
/* A new private variable and its booleanity constraint. */
pl__bit pl__bit_alloc(pl_cs *cs, unsigned value);
pl__bit pl__bit_not(pl__bit b);

/* Adds mul * 2^shift * b to matrix m of the constraint being emitted. */
void pl__bit_emit(pl_cs *cs, unsigned m, const pl__bit *b, int64_t mul,
                  unsigned shift);

pl__bit pl__bit_xor(pl_cs *cs, pl__bit a, pl__bit b);
pl__bit pl__bit_xor3(pl_cs *cs, pl__bit a, pl__bit b, pl__bit c);
pl__bit pl__bit_and(pl_cs *cs, pl__bit a, pl__bit b);
/* e ? f : g */
pl__bit pl__bit_ch(pl_cs *cs, pl__bit e, pl__bit f, pl__bit g);
/* majority of a, b, c */
pl__bit pl__bit_maj(pl_cs *cs, pl__bit a, pl__bit b, pl__bit c);
/* (left, right) = d ? (y, x) : (x, y), one constraint. */
void pl__bit_select(pl_cs *cs, pl__bit *left, pl__bit *right, pl__bit d,
                    pl__bit x, pl__bit y);

/* Enforces sum_i 2^i bits[i] = var (n <= 256). */
void pl__bits_pack_equal(pl_cs *cs, const pl__bit *bits, size_t n,
                         uint32_t var);
/* n booleans of var's value (value_le: 32 bytes, LE) and the packing
 * constraint: n + 1 constraints.  The value must fit in n bits. */
void pl__bits_decompose(pl_cs *cs, pl__bit *out, uint32_t var,
                        const uint8_t value_le[32], size_t n);

/* ---- 32-bit words ------------------------------------------------------ */

typedef struct pl__u32 {
    pl__bit b[32]; /* b[0] is the least significant bit */
    uint32_t value;
} pl__u32;

void pl__u32_const(pl__u32 *out, uint32_t v);
void pl__u32_alloc(pl_cs *cs, pl__u32 *out, uint32_t v);
void pl__u32_rotr(pl__u32 *out, const pl__u32 *x, unsigned n);
void pl__u32_shr(pl__u32 *out, const pl__u32 *x, unsigned n);
void pl__u32_xor3(pl_cs *cs, pl__u32 *out, const pl__u32 *a,
                  const pl__u32 *b, const pl__u32 *c);
void pl__u32_ch(pl_cs *cs, pl__u32 *out, const pl__u32 *e, const pl__u32 *f,
                const pl__u32 *g);
void pl__u32_maj(pl_cs *cs, pl__u32 *out, const pl__u32 *a, const pl__u32 *b,
                 const pl__u32 *c);
/* out = (constant + sum of the n words) mod 2^32: one packing of the sum,
 * then its range decomposition (32 bits and the carries), n <= 8. */
void pl__u32_add(pl_cs *cs, pl__u32 *out, const pl__u32 *const *words,
                 size_t n, uint32_t constant);

/* ---- SHA-256 ----------------------------------------------------------- */

/* The native SHA-256 the gadgets are checked against, and its constants
 * (pl__sha256_iv, pl__sha256_compress, pl__sha256_digest): util/sha256.h. */

/* state (in and out) and the block's 16 words, as the native one. */
void pl__sha256_compress_gadget(pl_cs *cs, pl__u32 state[8],
                                const pl__u32 w[16], unsigned rounds);
/* SHA-256 of a byte string given as bits, most significant bit of each
 * byte first (msg[8i + j] is bit 7 - j of byte i); out likewise (256). */
void pl__sha256_gadget(pl_cs *cs, pl__bit out[256], const pl__bit *msg,
                       size_t n_bytes);

/* ---- Merkle paths over SHA-256 with field-packed digests ---------------
 *
 * A node value is 32 bytes read as a little-endian integer whose top two
 * bits are zero (254 bits, below r): one field element.  In a circuit it
 * is 8 words holding those bytes big-endian (as SHA-256 reads a block),
 * so byte 31's top bits, cleared, are bits 6 and 7 of word 7: constants.
 * node(L, R) = truncate(SHA-256 compression of the IV over L || R) in
 * compression mode (one compression, no padding: the input length is
 * fixed), or truncate(SHA-256(L || R)) in full mode (two compressions, the
 * second on the constant padding block), as Filecoin's SHA-256 trees.
 */
typedef enum { PL__NODE_COMPRESS, PL__NODE_FULL } pl__node_hash;

void pl__node_native(uint8_t out[32], const uint8_t left[32],
                     const uint8_t right[32], pl__node_hash hash,
                     unsigned rounds);
/* 254 private booleans (254 constraints). */
void pl__digest_alloc(pl_cs *cs, pl__u32 out[8], const uint8_t bytes[32]);
/* The bits of a digest as the field element's bits, LSB first (256). */
void pl__digest_bits(pl__bit out[256], const pl__u32 d[8]);
void pl__node_gadget(pl_cs *cs, pl__u32 out[8], const pl__u32 left[8],
                     const pl__u32 right[8], pl__node_hash hash,
                     unsigned rounds);
/* From a leaf up `depth` levels: at level i the current node is the right
 * child when dirs[i] is 1.  siblings[i] is the sibling at level i. */
void pl__merkle_path(pl_cs *cs, pl__u32 root[8], const pl__u32 leaf[8],
                     const pl__u32 (*siblings)[8], const pl__bit *dirs,
                     unsigned depth, pl__node_hash hash, unsigned rounds);

#endif /* PL_CIRCUIT_GADGETS_H */
