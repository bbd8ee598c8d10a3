/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parsed, validated views of the snarkjs binary files.  Each holds the
 * file's read-only memory map; the pointers below point into it (sections
 * may start at any byte offset, so they are byte pointers: read fields with
 * memcpy, pass point arrays to blst, which tolerates unaligned limbs on the
 * platforms we build for).
 *
 * Opening validates everything the prover relies on before any work: magic,
 * version, sections present, sizes against the declared counts, the primes,
 * the protocol.  After a successful open the counts below can be trusted.
 */
#ifndef PL_FORMATS_H
#define PL_FORMATS_H

#include "proofline.h"
#include "util/file.h"

#define PL__G1_BYTES 96u
#define PL__G2_BYTES 192u
#define PL__FR_BYTES 32u
#define PL__FP_BYTES 48u
#define PL__COEF_RECORD_BYTES 44u /* u32 matrix, u32 constraint, u32 signal, 32 B */

struct pl_zkey {
    char *path;
    pl__mapped map;
    bool borrowed;  /* map is the caller's memory (pl__zkey_parse) */
    uint32_t n_vars;
    uint32_t n_public;
    uint32_t domain_size;
    uint32_t log2_domain;
    uint32_t n_coefs;
    uint32_t n_constraints; /* from section 4: max constraint index + 1 - (n_public + 1) */
    /* section 2 */
    const uint8_t *alpha1, *beta1, *delta1;   /* G1, 96 B each */
    const uint8_t *beta2, *gamma2, *delta2;   /* G2, 192 B each */
    const uint8_t *ic;      /* n_public + 1 G1 points */
    const uint8_t *coefs;   /* n_coefs records of 44 B */
    const uint8_t *a;       /* n_vars G1 */
    const uint8_t *b1;      /* n_vars G1 */
    const uint8_t *b2;      /* n_vars G2 */
    const uint8_t *c;       /* n_vars - n_public - 1 G1 */
    const uint8_t *h;       /* domain_size G1 */
};

/* The private signals (wires after ONE and the publics): section 8's C
 * points and the C MSM's scalars. */
static inline uint32_t pl__zkey_n_private(const pl_zkey *zk)
{
    uint32_t first_private = zk->n_public + 1;
    return zk->n_vars > first_private ? zk->n_vars - first_private : 0;
}

struct pl_wtns {
    char *path;
    pl__mapped map; /* the file's bytes: mapped, or (heap) an accounted copy */
    bool heap;
    bool borrowed;  /* values or map are the caller's memory (pl__wtns_wrap,
                       pl__wtns_parse) */
    uint64_t n_values;
    const uint8_t *values; /* n_values x 32 B, LE standard form, each < r */
};

struct pl_r1cs {
    char *path;
    pl__mapped map;
    bool borrowed;  /* map is the caller's memory (pl__r1cs_parse) */
    pl_r1cs_info info;
    const uint8_t *constraints; /* section 2 payload */
    uint64_t constraints_bytes;
};

/* Reads a witness file into an accounted heap buffer (class witness) and
 * validates it as pl_wtns_open does: for the engine, whose budget covers
 * witness memory (a map would be file-backed pages outside the budget). */
pl_status pl__wtns_load(pl_wtns **out, const char *path, pl_error *err);

/* A pl_wtns over n caller-owned values (32-byte LE scalars, each < r,
 * checked), not copied: they must outlive it. */
pl_status pl__wtns_wrap(pl_wtns **out, const pl_scalar *values, size_t n,
                        const char *name, pl_error *err);

/* The readers on len bytes in memory instead of a mapped file (for the
 * fuzzers and tests): the same validation as the *_open calls, `name`
 * standing for the path in messages.  The handle borrows data, which must
 * outlive it; *_close frees only the handle. */
pl_status pl__zkey_parse(pl_zkey **out, const uint8_t *data, size_t len,
                         const char *name, pl_error *err);
pl_status pl__wtns_parse(pl_wtns **out, const uint8_t *data, size_t len,
                         const char *name, pl_error *err);
pl_status pl__r1cs_parse(pl_r1cs **out, const uint8_t *data, size_t len,
                         const char *name, pl_error *err);

/* A pl_wtns that owns `values`, an accounted buffer (pl__alloc) of n
 * values: closing it frees them.  Values are checked < r. */
pl_status pl__wtns_adopt(pl_wtns **out, pl_scalar *values, size_t n,
                         const char *name, pl_error *err);

/* The container (.zkey .wtns .r1cs .ptau): a section table filled once. */
#define PL__MAX_SECTION_ID 16
typedef struct pl__container {
    char magic[5];
    uint32_t version;
    uint32_t n_sections;
    /* by id (1..PL__MAX_SECTION_ID): payload offset and size; offset 0 = absent */
    uint64_t offset[PL__MAX_SECTION_ID + 1];
    uint64_t size[PL__MAX_SECTION_ID + 1];
} pl__container;

/* Parses the header and section table of a mapped file; `magic` is the
 * expected 4-byte magic. Every section must lie inside the file; duplicate
 * ids are an error. */
pl_status pl__container_parse(pl__container *out, const pl__mapped *m,
                              const char *path, const char *magic,
                              pl_error *err);

/* The 4 bytes at p as text for messages, non-printables as \xNN. */
void pl__magic_text(char out[17], const uint8_t *p);

/* A malloc'd copy of a path, kept by an open file for its messages (NULL
 * when out of memory). */
char *pl__path_dup(const char *path);

/* Little-endian loads from a mapped file (any alignment, any host order);
 * the caller has checked that the bytes lie inside the file. */
static inline uint32_t pl__le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static inline uint64_t pl__le64(const uint8_t *p)
{
    return (uint64_t)pl__le32(p) | (uint64_t)pl__le32(p + 4) << 32;
}

/* Checks the prime field a file declares: n8 bytes at p (file offset `at`,
 * `avail` bytes left in its section) must be BLS12-381's r (scalar) or q.
 * Another curve's prime is PL_EUNSUPPORTED naming it when known (BN254);
 * `field` names the field in the message ("section 1 (header): prime"),
 * `kind` the file ("zkey", "witness", "r1cs"). */
pl_status pl__check_prime(const char *path, const char *field, const char *kind,
                          bool scalar, uint32_t n8, const uint8_t *p,
                          uint64_t avail, uint64_t at, pl_error *err);

#endif /* PL_FORMATS_H */
