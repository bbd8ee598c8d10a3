/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The parsed, validated views of the snarkjs binary files.  Each holds the
 * file's bytes: a read-only memory map (a zkey opened for its header), or
 * an accounted copy read whole (every witness and r1cs, and the engine's
 * zkeys: what a proof is made from never changes under it); the pointers
 * below point into them (sections
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
#include "formats/container.h"
#include "field/curve.h"
#include "util/file.h"
#include "util/pool.h"

#define PL__G1_BYTES 96u
#define PL__G2_BYTES 192u
#define PL__FR_BYTES 32u
#define PL__FP_BYTES 48u
#define PL__COEF_RECORD_BYTES 44u /* u32 matrix, u32 constraint, u32 signal, 32 B */

struct pl_zkey {
    char *path;
    pl__mapped map;
    bool borrowed;  /* map is the caller's memory (pl__zkey_parse) */
    bool heap;      /* map is an accounted copy of the file (pl__zkey_load) */
    pl__curve curve;   /* from the primes of section 2 */
    uint32_t g1_bytes, g2_bytes; /* the curve's affine points: 96/192 on
                                  * BLS12-381, 64/128 on BN254 */
    uint32_t n_vars;
    uint32_t n_public;
    uint32_t domain_size;
    uint32_t log2_domain;
    uint32_t n_coefs;
    uint32_t n_constraints; /* from section 4: max constraint index + 1 - (n_public + 1) */
    /* section 2 */
    const uint8_t *alpha1, *beta1, *delta1;   /* G1, g1_bytes each */
    const uint8_t *beta2, *gamma2, *delta2;   /* G2, g2_bytes each */
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
    pl__mapped map; /* the file's bytes: (heap) an accounted copy */
    bool heap;
    bool borrowed;  /* values or map are the caller's memory (pl__wtns_wrap,
                       pl__wtns_parse) */
    pl__curve curve;   /* from its prime (wrapped values: BLS12-381) */
    uint64_t n_values;
    const uint8_t *values; /* n_values x 32 B, LE standard form, each < r */
};

struct pl_r1cs {
    char *path;
    pl__mapped map;
    bool borrowed;  /* map is the caller's memory (pl__r1cs_parse) */
    bool heap;      /* map is an accounted copy of the file (class csr) */
    pl__curve curve; /* from its prime */
    pl_r1cs_info info;
    const uint8_t *constraints; /* section 2 payload */
    uint64_t constraints_bytes;
};

/* Read whole into an accounted heap buffer (class witness, class params)
 * and validated as pl_wtns_open and pl_zkey_open do: for the engine, whose
 * budget covers that memory (a map would be file-backed pages outside the
 * budget, and would change under the prover if the file changed).  A file
 * larger than max_bytes (what was reserved for it; 0: no limit), or one that
 * changed while it was read, is refused (pl__file_load). */
pl_status pl__wtns_load(pl_wtns **out, const char *path, uint64_t max_bytes,
                        pl_error *err);
pl_status pl__zkey_load(pl_zkey **out, const char *path, uint64_t max_bytes,
                        pl_error *err);
/* The same for an r1cs (class csr): what pl_r1cs_open does with no limit. */
pl_status pl__r1cs_load(pl_r1cs **out, const char *path, uint64_t max_bytes,
                        pl_error *err);
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

/* pl_zkey_check_points_with over the caller's pool (NULL: one of cfg's
 * threads); alone: every point checked on its own, the old per-point
 * check (bench/bench_check.c's baseline). */
pl_status pl__zkey_check_points(const pl_zkey *zkey, pl__pool *pool,
                                const pl_check_config *cfg, bool alone,
                                pl_error *err);

/* A pl_wtns that owns `values`, an accounted buffer (pl__alloc) of n
 * values: closing it frees them.  Values are checked < r. */
pl_status pl__wtns_adopt(pl_wtns **out, pl_scalar *values, size_t n,
                         const char *name, pl_error *err);
/* wrap and adopt for a curve's witness (the two above: BLS12-381's):
 * values checked below its r, the witness then of that curve. */
pl_status pl__wtns_wrap_curve(pl_wtns **out, pl__curve curve,
                              const pl_scalar *values, size_t n,
                              const char *name, pl_error *err);
pl_status pl__wtns_adopt_curve(pl_wtns **out, pl__curve curve,
                               pl_scalar *values, size_t n, const char *name,
                               pl_error *err);

/* A malloc'd copy of a path, kept by an open file for its messages (NULL
 * when out of memory). */
char *pl__path_dup(const char *path);

/* ---- walking a validated file's records -------------------------------- */
/*
 * The one way to walk r1cs constraint terms and zkey coefficient records:
 * the witness check, the dev setup, the zkey reader's own checks and the
 * prover's matrices go through these, so the record layouts stay here.
 * They read in place and check nothing: the reader validated every record
 * when the file was opened (the zkey's record fields are in bounds, its
 * values below r; the r1cs's wires below nWires, coefficients below r, and
 * exactly nConstraints constraints filling section 2).
 */

/* One term of a linear combination. */
typedef struct pl__r1cs_term {
    uint32_t wire;
    const uint8_t *coef;  /* 32 B, little-endian standard form, < r */
} pl__r1cs_term;

/* One linear combination of a constraint: n_terms terms in place. */
typedef struct pl__r1cs_lc {
    uint32_t n_terms;
    const uint8_t *terms; /* n_terms x (u32 wire, 32-byte coefficient) */
} pl__r1cs_lc;

#define PL__R1CS_TERM_BYTES (4u + PL__FR_BYTES)

/* Term t < lc->n_terms of lc. */
static inline pl__r1cs_term pl__r1cs_lc_term(const pl__r1cs_lc *lc,
                                             uint32_t t)
{
    const uint8_t *p = lc->terms + (uint64_t)t * PL__R1CS_TERM_BYTES;
    pl__r1cs_term term = {pl__le32(p), p + 4};
    return term;
}

/* The constraints of an open r1cs in file order:
 *     pl__r1cs_iter it;
 *     pl__r1cs_lc lc[3];
 *     uint32_t k;
 *     for (pl__r1cs_iter_init(&it, r1cs); pl__r1cs_iter_next(&it, &k, lc);)
 *         for (unsigned m = 0; m < 3; m++)          (A, B, C)
 *             for (uint32_t t = 0; t < lc[m].n_terms; t++)
 *                 use(k, m, pl__r1cs_lc_term(&lc[m], t));
 */
typedef struct pl__r1cs_iter {
    const uint8_t *next;   /* the next constraint's first byte */
    uint32_t index, count; /* the next constraint's index; nConstraints */
} pl__r1cs_iter;

static inline void pl__r1cs_iter_init(pl__r1cs_iter *it, const pl_r1cs *r1cs)
{
    it->next = r1cs->constraints;
    it->index = 0;
    it->count = r1cs->info.n_constraints;
}

/* The next constraint's index and its A, B, C; false after the last. */
static inline bool pl__r1cs_iter_next(pl__r1cs_iter *it, uint32_t *constraint,
                                      pl__r1cs_lc lc[3])
{
    if (it->index == it->count)
        return false;
    const uint8_t *p = it->next;
    for (unsigned m = 0; m < 3; m++) {
        lc[m].n_terms = pl__le32(p);
        lc[m].terms = p + 4;
        p += 4 + (uint64_t)lc[m].n_terms * PL__R1CS_TERM_BYTES;
    }
    it->next = p;
    *constraint = it->index++;
    return true;
}

/* One record of a zkey's section 4. */
typedef struct pl__zkey_coef {
    uint32_t index;        /* the record's, from 0 */
    uint32_t matrix;       /* 0 = A, 1 = B */
    uint32_t constraint;   /* the row, < domainSize */
    uint32_t signal;       /* the witness index, < nVars */
    const uint8_t *value;  /* 32 B: coef * R^2 mod r, little-endian, < r:
                              one Montgomery multiplication by a standard-form
                              witness value gives Montgomery(coef * w) */
} pl__zkey_coef;

/* Record i < zk->n_coefs. */
static inline void pl__zkey_coef_at(pl__zkey_coef *out, const pl_zkey *zk,
                                    uint32_t i)
{
    const uint8_t *rec = zk->coefs + (uint64_t)i * PL__COEF_RECORD_BYTES;
    out->index = i;
    out->matrix = pl__le32(rec);
    out->constraint = pl__le32(rec + 4);
    out->signal = pl__le32(rec + 8);
    out->value = rec + 12;
}

/* The records in file order (snarkjs: per constraint its A terms, then its
 * B terms, then the input-consistency rows; readers must not rely on it):
 *     pl__zkey_coef_iter it;
 *     pl__zkey_coef c;
 *     for (pl__zkey_coef_iter_init(&it, zkey); pl__zkey_coef_next(&it, &c);)
 *         use(c.matrix, c.constraint, c.signal, c.value);
 * Also safe inside the reader once section 4's size matches nCoef (before
 * the fields are checked). */
typedef struct pl__zkey_coef_iter {
    const pl_zkey *zkey;
    uint32_t next;
} pl__zkey_coef_iter;

static inline void pl__zkey_coef_iter_init(pl__zkey_coef_iter *it,
                                           const pl_zkey *zk)
{
    it->zkey = zk;
    it->next = 0;
}

static inline bool pl__zkey_coef_next(pl__zkey_coef_iter *it,
                                      pl__zkey_coef *out)
{
    if (it->next == it->zkey->n_coefs)
        return false;
    pl__zkey_coef_at(out, it->zkey, it->next++);
    return true;
}

/* ---- the zkey's layout, for its writer (the dev setup) ----------------- */

#define PL__ZKEY_SECTIONS 10u
#define PL__ZKEY_HASH_BYTES 64u /* csHash, a contribution's transcript */
#define PL__ZKEY_NAME_MAX 64u   /* snarkjs keeps 64 bytes of a name */

/* Zkey sections 3..9 hold `fixed` bytes (section 4: the u32 nCoef), then
 * `count` items of `unit` bytes (`what` names them in messages): the
 * reader checks sizes and the writer declares them from this one table. */
typedef struct pl__section_shape {
    uint64_t fixed, count, unit;
    const char *what;
} pl__section_shape;
void pl__zkey_section_shape(pl__section_shape *out, unsigned id,
                            uint32_t n_vars, uint32_t n_public,
                            uint32_t domain_size, uint32_t n_coefs);
/* The same for a curve's point sizes (pl__zkey_section_shape: BLS12-381). */
void pl__zkey_section_shape_curve(pl__section_shape *out, pl__curve curve,
                                  unsigned id, uint32_t n_vars,
                                  uint32_t n_public, uint32_t domain_size,
                                  uint32_t n_coefs);

/* What the writer needs for sections 1-2 and the sizes of 3-9. */
typedef struct pl__zkey_header {
    pl__curve curve;   /* its primes and point sizes (0: BLS12-381) */
    uint32_t n_vars, n_public, domain_size;
    uint32_t n_coefs;                        /* section 4's count */
    const uint8_t *alpha1, *beta1, *delta1;  /* G1: 96 B each (BN254: 64) */
    const uint8_t *beta2, *gamma2, *delta2;  /* G2: 192 B each (BN254: 128) */
} pl__zkey_header;

/* Starts a Groth16 zkey (version 1, 10 sections) on an open output and
 * writes sections 1 (protocol) and 2 (the groth16 header).  Then, in
 * order: pl__zkey_section_begin for each of 3..9, its items put, the
 * section ended; section 10 last (pl__zkey_write_contributions). */
pl_status pl__zkey_write_header(pl__container_writer *w, pl__output *out,
                                const pl__zkey_header *h, pl_error *err);
/* Begins section id (3..9) with the size its shape gives (section 4: and
 * writes nCoef).  The caller puts the points or records, then calls
 * pl__container_section_end, which checks the size. */
pl_status pl__zkey_section_begin(pl__container_writer *w, unsigned id,
                                 const pl__zkey_header *h, pl_error *err);
/* One section 4 record: matrix (0 = A, 1 = B), constraint, signal, value
 * (32 bytes, coef * R^2 mod r little-endian; FORMATS.md). */
void pl__zkey_coef_encode(uint8_t rec[PL__COEF_RECORD_BYTES], uint32_t matrix,
                          uint32_t constraint, uint32_t signal,
                          const uint8_t value[PL__FR_BYTES]);

/* One contribution record in snarkjs 0.7.6's layout (zkey_utils.js
 * readContribution). */
typedef struct pl__zkey_contribution {
    pl__curve curve;             /* the points' sizes (0: BLS12-381) */
    const uint8_t *cs_hash;      /* 64 B; NULL: zeros (no circuit hash) */
    const uint8_t *delta_after;  /* G1 */
    const uint8_t *g1_s, *g1_sx; /* G1 */
    const uint8_t *g2_spx;       /* G2 */
    const uint8_t *transcript;   /* 64 B */
    uint32_t type;               /* 0: a contribution, 1: a beacon */
    const char *name;            /* at most PL__ZKEY_NAME_MAX bytes */
} pl__zkey_contribution;

/* Section 10: the csHash and the one contribution c. */
pl_status pl__zkey_write_contributions(pl__container_writer *w,
                                       const pl__zkey_contribution *c,
                                       pl_error *err);

/* ---- the r1cs and wtns writers (the circuit export) ------------------- */

/* Starts an r1cs (version 1, sections 1-3) on an open output: section 1
 * from info, then section 2 begun for info->n_constraints constraints of
 * n_terms terms in all.  The caller puts, per constraint, A, B and C: each
 * pl__r1cs_put_lc(its term count), then its terms; pl__r1cs_write_end ends
 * section 2 (checking the count) and writes section 3 (wire i labelled i). */
pl_status pl__r1cs_write_begin(pl__container_writer *w, pl__output *out,
                               const pl_r1cs_info *info, uint64_t n_terms,
                               pl_error *err);
pl_status pl__r1cs_put_lc(pl__container_writer *w, uint32_t n_terms,
                          pl_error *err);
/* coef: 32 bytes, little-endian standard form. */
pl_status pl__r1cs_put_term(pl__container_writer *w, uint32_t wire,
                            const uint8_t coef[PL__FR_BYTES], pl_error *err);
pl_status pl__r1cs_write_end(pl__container_writer *w,
                             const pl_r1cs_info *info, pl_error *err);

/* The exact size of a .wtns (version 2) of n values, as pl__wtns_write
 * writes it and snarkjs does: the service refuses an upload of any other
 * size before it stores a byte. */
uint64_t pl__wtns_file_bytes(uint64_t n);

/* A whole .wtns (version 2) of n values at path, through pl__output. */
pl_status pl__wtns_write(const char *path, const pl_scalar *values, size_t n,
                         pl_error *err);

/* ---- .ptau: what more than one reader needs (ptau.c) ------------------ */

#define PL__PTAU_SECTIONS 16
/* snarkjs's names of a .ptau's sections by id ("tauG1", ...; "" unused) */
extern const char *const pl__ptau_section_names[PL__PTAU_SECTIONS];
/* Section 1: n8q, q (n8q bytes, in the map), power, ceremonyPower. */
typedef struct {
    uint32_t n8q;
    const uint8_t *q;
    uint32_t power, ceremony_power;
    uint64_t at; /* the section's offset */
} pl__ptau_header;
/* The header of a parsed .ptau container, its size checked against n8q;
 * the curve and the powers' range are the caller's to check. */
pl_status pl__ptau_header_read(const pl__container *c, const pl__mapped *m,
                               const char *path, pl__ptau_header *out,
                               pl_error *err);

/* The curve of the prime field a file declares: n8 bytes at p (file offset
 * `at`, `avail` bytes left in its section) must be BLS12-381's or BN254's
 * r (scalar) or q; any other prime is PL_EUNSUPPORTED.  `field` names the
 * field in the message ("section 1 (header): prime"), `kind` the file
 * ("zkey", "witness", "r1cs"). */
pl_status pl__file_curve(const char *path, const char *field, const char *kind,
                         bool scalar, uint32_t n8, const uint8_t *p,
                         uint64_t avail, uint64_t at, pl__curve *curve,
                         pl_error *err);
/* pl__file_curve for readers of BLS12-381 files only: a BN254 prime is
 * PL_EUNSUPPORTED too, saying so. */
pl_status pl__check_prime(const char *path, const char *field, const char *kind,
                          bool scalar, uint32_t n8, const uint8_t *p,
                          uint64_t avail, uint64_t at, pl_error *err);
/* b (32 bytes, little-endian) below the curve's scalar field modulus r. */
bool pl__scalar_below_r(pl__curve curve, const uint8_t b[32]);
/* Two files used together must be of one curve: PL_EFORMAT naming both
 * files and both curves otherwise ("what: a is for curve bn128 but b is
 * for curve bls12381"). */
pl_status pl__curve_match(const char *what, const char *path_a, pl__curve a,
                          const char *path_b, pl__curve b, pl_error *err);

#endif /* PL_FORMATS_H */
