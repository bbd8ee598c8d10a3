/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BLAKE2b-512 (RFC 7693), the hash of snarkjs's ceremony files: challenge
 * and response hashes of a powers-of-tau contribution, a zkey's circuit
 * hash and contribution transcripts.  Plain portable C written from the
 * RFC; tests/test_ceremony.c checks it against the RFC's vector and
 * against node's crypto 'blake2b512'.
 *
 * One quirk is part of the file format: a .ptau contribution record keeps
 * the hasher's state after the response's points ("partialHash", 216
 * bytes), in the layout of the JavaScript hasher snarkjs uses (noble's:
 * the 128-byte block buffer, the eight state words as 32-bit halves, then
 * the counters).  A block buffer holds stale bytes past its fill, and
 * those are in the record too, so update() follows noble's schedule
 * exactly: a full buffer is compressed only when more input arrives, and
 * an input that meets an empty buffer has its whole blocks but the last
 * compressed straight from the input, never copied through the buffer
 * (noble does so for input at a 4-byte aligned address; snarkjs's buffers
 * are).  pl__blake2b_export / _import write and read that record.
 */
#ifndef PL_CEREMONY_BLAKE2B_H
#define PL_CEREMONY_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define PL__BLAKE2B_BYTES 64u
#define PL__BLAKE2B_BLOCK 128u
#define PL__BLAKE2B_PARTIAL_BYTES 216u

typedef struct pl__blake2b {
    uint64_t h[8];
    uint64_t length;                  /* bytes taken so far */
    uint8_t buf[PL__BLAKE2B_BLOCK];   /* the pending block (and stale bytes) */
    size_t pos;                       /* bytes of buf that are pending */
} pl__blake2b;

void pl__blake2b_init(pl__blake2b *s);
void pl__blake2b_update(pl__blake2b *s, const void *data, size_t len);
/* The 64-byte digest; s is spent. */
void pl__blake2b_final(pl__blake2b *s, uint8_t out[PL__BLAKE2B_BYTES]);
/* The digest of len bytes at once. */
void pl__blake2b_digest(uint8_t out[PL__BLAKE2B_BYTES], const void *data, size_t len);

/* snarkjs's partialHash record of s (misc.js toPartialHash), and s from
 * one (fromPartialHash): as there, the byte counter is kept in 32 bits. */
void pl__blake2b_export(uint8_t out[PL__BLAKE2B_PARTIAL_BYTES],
                        const pl__blake2b *s);
void pl__blake2b_import(pl__blake2b *s,
                        const uint8_t in[PL__BLAKE2B_PARTIAL_BYTES]);

#endif /* PL_CEREMONY_BLAKE2B_H */
