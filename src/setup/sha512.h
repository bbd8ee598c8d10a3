/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-512 (FIPS 180-4), for the dev setup's seed-derived secrets only: the
 * reference tool derives them as SHA-512(seed ":" label), and a hash this
 * small is cheaper to carry than a dependency on a crypto library.  Not
 * constant-time with respect to anything but the data length; it never
 * hashes anything secret that a real setup would keep.
 */
#ifndef PL_SETUP_SHA512_H
#define PL_SETUP_SHA512_H

#include <stddef.h>
#include <stdint.h>

#define PL__SHA512_BYTES 64u

typedef struct pl__sha512_ctx {
    uint64_t h[8];
    uint64_t total_lo, total_hi; /* message length in bytes, 128 bits */
    uint8_t block[128];
    size_t fill;                 /* bytes waiting in block */
} pl__sha512_ctx;

void pl__sha512_init(pl__sha512_ctx *ctx);
void pl__sha512_update(pl__sha512_ctx *ctx, const void *data, size_t len);
void pl__sha512_final(pl__sha512_ctx *ctx, uint8_t out[PL__SHA512_BYTES]);
/* One call: init, update, final. */
void pl__sha512(uint8_t out[PL__SHA512_BYTES], const void *data, size_t len);

#endif /* PL_SETUP_SHA512_H */
