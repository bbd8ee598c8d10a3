/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snarkjs's random streams (rng.h): ffjavascript's ChaCha, the beacon's
 * iterated SHA-256 seed, a contribution's entropy seed, and field digits
 * drawn from a stream.  Written from RFC 8439 and the behaviour of
 * ffjavascript 0.3.1 / snarkjs 0.7.6 (chacha.js, misc.js, wasm_field1.js
 * fromRng); tests/test_ceremony.c checks the keystream against the RFC's
 * block vector and the beacon files against snarkjs's.
 */
#include "ceremony/rng.h"
#include "ceremony/blake2b.h"
#include "util/error.h"
#include "util/sha256.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

#define QR(a, b, c, d)                                                        \
    do {                                                                      \
        x[a] += x[b];                                                         \
        x[d] = rotl32(x[d] ^ x[a], 16);                                       \
        x[c] += x[d];                                                         \
        x[b] = rotl32(x[b] ^ x[c], 12);                                       \
        x[a] += x[b];                                                         \
        x[d] = rotl32(x[d] ^ x[a], 8);                                        \
        x[c] += x[d];                                                         \
        x[b] = rotl32(x[b] ^ x[c], 7);                                        \
    } while (0)

static void next_block(pl__chacha *c)
{
    uint32_t *x = c->block;
    memcpy(x, c->state, sizeof(c->state));
    for (unsigned i = 0; i < 10; i++) {
        QR(0, 4, 8, 12);
        QR(1, 5, 9, 13);
        QR(2, 6, 10, 14);
        QR(3, 7, 11, 15);
        QR(0, 5, 10, 15);
        QR(1, 6, 11, 12);
        QR(2, 7, 8, 13);
        QR(3, 4, 9, 14);
    }
    for (unsigned i = 0; i < 16; i++)
        x[i] += c->state[i];
    c->idx = 0;
    /* the counter: words 12..15, carried */
    for (unsigned i = 12; i < 16; i++)
        if (++c->state[i] != 0)
            break;
}

void pl__chacha_init(pl__chacha *c, const uint32_t seed[8])
{
    static const uint32_t sigma[4] = {0x61707865, 0x3320646e, 0x79622d32,
                                      0x6b206574};
    memset(c, 0, sizeof(*c));
    memcpy(c->state, sigma, sizeof(sigma));
    memcpy(c->state + 4, seed, 8 * sizeof(uint32_t));
    c->idx = 16;
}

uint32_t pl__chacha_u32(pl__chacha *c)
{
    if (c->idx == 16)
        next_block(c);
    return c->block[c->idx++];
}

uint64_t pl__chacha_u64(pl__chacha *c)
{
    uint64_t hi = pl__chacha_u32(c);
    return hi << 32 | pl__chacha_u32(c);
}

bool pl__chacha_bool(pl__chacha *c)
{
    return (pl__chacha_u32(c) & 1) != 0;
}

void pl__chacha_from_hash(pl__chacha *c, const uint8_t hash[32])
{
    uint32_t seed[8];
    for (unsigned i = 0; i < 8; i++)
        seed[i] = (uint32_t)hash[4 * i] << 24 | (uint32_t)hash[4 * i + 1] << 16 |
                  (uint32_t)hash[4 * i + 2] << 8 | hash[4 * i + 3];
    pl__chacha_init(c, seed);
}

/* a < b, little-endian, n bytes */
static bool le_less(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return false;
}

void pl__chacha_field_digits(uint8_t *out, pl__chacha *c, const uint8_t *p_le,
                             unsigned n64, unsigned bits)
{
    const size_t n8 = 8u * n64;
    do {
        for (unsigned i = 0; i < n64; i++) {
            uint64_t limb = pl__chacha_u64(c);
            for (unsigned j = 0; j < 8; j++)
                out[8 * i + j] = (uint8_t)(limb >> (8 * j));
        }
        /* the mask 2^bits - 1 */
        for (size_t b = bits; b < 8 * n8; b++)
            out[b / 8] &= (uint8_t)~(1u << (b % 8));
    } while (!le_less(out, p_le, n8));
}

void pl__chacha_from_beacon(pl__chacha *c, const uint8_t *hash, size_t len,
                            unsigned exp,
                            void (*progress)(void *user, uint64_t done,
                                             uint64_t total),
                            void *user)
{
    uint8_t cur[32];
    const uint64_t total = exp >= 64 ? UINT64_MAX : (uint64_t)1 << exp;
    /* the first round hashes the beacon as given (any length) */
    pl__sha256_digest(cur, hash, len);
    for (uint64_t i = 1; i < total; i++) {
        pl__sha256_digest(cur, cur, sizeof(cur));
        if (progress && (i & ((1u << 24) - 1)) == 0)
            progress(user, i, total);
    }
    pl__chacha_from_hash(c, cur);
}

pl_status pl__chacha_from_entropy(pl__chacha *c, const char *entropy,
                                  pl_error *err)
{
    uint8_t random[64], hash[PL__BLAKE2B_BYTES];
    size_t got = 0;
    while (got < sizeof(random)) {
        ssize_t n = getrandom(random + got, sizeof(random) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return pl__error_errno(err, PL_EINTERNAL, errno,
                                   "getrandom: no randomness from the OS for "
                                   "the contribution's secrets");
        got += (size_t)n;
    }
    pl__blake2b h;
    pl__blake2b_init(&h);
    pl__blake2b_update(&h, random, sizeof(random));
    pl__blake2b_update(&h, entropy, strlen(entropy));
    pl__blake2b_final(&h, hash);
    pl__chacha_from_hash(c, hash);
    memset(random, 0, sizeof(random));
    memset(hash, 0, sizeof(hash));
    return PL_OK;
}
