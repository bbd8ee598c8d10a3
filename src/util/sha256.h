/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 (FIPS 180-4), native: the streaming digest (the service names a
 * circuit by the digest of its zkey, computed while the upload is written
 * to disk, so the file is never held whole in memory), the one-shot digest,
 * and the compression with its constants, which the circuit gadget shares.
 * Plain portable C; speed is not the point.
 */
#ifndef PL_UTIL_SHA256_H
#define PL_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct pl__sha256 {
    uint32_t state[8];
    uint64_t length;    /* bytes so far */
    uint8_t block[64];  /* the partial block */
    size_t used;        /* bytes in block */
} pl__sha256;

extern const uint32_t pl__sha256_iv[8];
extern const uint32_t pl__sha256_k[64];
/* One compression of a 64-byte block into st, big-endian words; rounds <
 * 64 only for the demo circuit's toy sizes (anything called SHA-256 uses
 * 64). */
void pl__sha256_compress(uint32_t st[8], const uint8_t block[64],
                         unsigned rounds);
/* The digest of len bytes at once. */
void pl__sha256_digest(uint8_t out[32], const void *msg, size_t len);

void pl__sha256_init(pl__sha256 *h);
void pl__sha256_update(pl__sha256 *h, const void *data, size_t len);
void pl__sha256_final(pl__sha256 *h, uint8_t out[32]);
/* The digest as 64 lowercase hex characters and a NUL. */
void pl__sha256_hex(char out[65], const uint8_t digest[32]);

#endif /* PL_UTIL_SHA256_H */
