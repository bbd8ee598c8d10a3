/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The random streams of snarkjs's ceremony, reproduced exactly, since a
 * beacon's file and every contribution's g2_sp point follow from them:
 *  - ffjavascript's ChaCha: the ChaCha20 block (RFC 8439 section 2.3,
 *    10 double rounds) keyed by eight 32-bit seed words, zero nonce, a
 *    128-bit block counter; nextU32 hands out the block's words in order,
 *    nextU64 is hi * 2^32 + lo with hi drawn first, nextBool the low bit
 *    of a word;
 *  - the beacon's seed (misc.js rngFromBeaconParams): SHA-256 applied
 *    2^exp times to the beacon hash, the result's first 32 bytes as eight
 *    big-endian words;
 *  - a contribution's seed (misc.js getRandomRng): BLAKE2b-512 of 64
 *    bytes from the OS and the entropy text, first 32 bytes big-endian;
 *  - hashToG2's seed (keypair.js): the first 32 bytes of a hash, big-endian.
 * Field elements drawn from a stream (Fr.fromRng, F.fromRng) are in
 * curve.h, which knows the moduli.
 */
#ifndef PL_CEREMONY_RNG_H
#define PL_CEREMONY_RNG_H

#include "proofline.h"

#include <stddef.h>
#include <stdint.h>

typedef struct pl__chacha {
    uint32_t state[16];
    uint32_t block[16];
    unsigned idx;       /* next word of block; 16: a new block is due */
} pl__chacha;

void pl__chacha_init(pl__chacha *c, const uint32_t seed[8]);
uint32_t pl__chacha_u32(pl__chacha *c);
uint64_t pl__chacha_u64(pl__chacha *c);
bool pl__chacha_bool(pl__chacha *c);
/* Seeded from the first 32 bytes of a hash, as eight big-endian words. */
void pl__chacha_from_hash(pl__chacha *c, const uint8_t hash[32]);

/* ffjavascript's F.fromRng digits for a prime of n64 64-bit limbs and
 * `bits` bits (p little-endian, 8 n64 bytes): n64 draws of nextU64 as
 * limbs, masked to `bits`, drawn again while >= p.  The digits are what
 * the field takes as a Montgomery representation. */
void pl__chacha_field_digits(uint8_t *out, pl__chacha *c, const uint8_t *p_le,
                             unsigned n64, unsigned bits);

/* The beacon's stream: SHA-256 iterated 2^exp times over hash (len bytes;
 * exp 10..63 as snarkjs allows; the iterations are counted in 64 bits).
 * `progress` (may be NULL) is called every 2^24 iterations with the
 * iterations done and the total. */
void pl__chacha_from_beacon(pl__chacha *c, const uint8_t *hash, size_t len,
                            unsigned exp,
                            void (*progress)(void *user, uint64_t done,
                                             uint64_t total),
                            void *user);

/* A contribution's stream: 64 bytes from the OS (getrandom) and the
 * entropy text.  PL_EINTERNAL when the OS gives no randomness. */
pl_status pl__chacha_from_entropy(pl__chacha *c, const char *entropy,
                                  pl_error *err);

#endif /* PL_CEREMONY_RNG_H */
