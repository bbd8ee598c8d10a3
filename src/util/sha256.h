/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SHA-256 (FIPS 180-4) over a stream: the service names a circuit by the
 * digest of its zkey, computed while the upload is written to disk, so the
 * file is never held whole in memory.  Plain portable C; speed is not the
 * point (a zkey is hashed once, at registration).
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

void pl__sha256_init(pl__sha256 *h);
void pl__sha256_update(pl__sha256 *h, const void *data, size_t len);
void pl__sha256_final(pl__sha256 *h, uint8_t out[32]);
/* The digest as 64 lowercase hex characters and a NUL. */
void pl__sha256_hex(char out[65], const uint8_t digest[32]);

#endif /* PL_UTIL_SHA256_H */
