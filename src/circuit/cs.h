/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The constraint-system builder's internals, shared by cs.c (variables,
 * coefficients, constraint storage, freeze), export.c (r1cs/wtns writers,
 * evaluation, the check) and the gadgets, which emit constraints through
 * the term interface below instead of building pl_lc objects: a gadget
 * knows its values natively, so in witness-only mode it allocates values
 * and counts constraints and never touches a term.
 *
 * Variable ids: 0 is ONE; public i is 1 + i; private j is
 * PL__VAR_PRIVATE | j.  Wire of a variable: public and ONE unchanged,
 * private j -> 1 + n_public + j (at freeze, or from the witness-only shape).
 *
 * Coefficients live in a table of distinct field elements (Montgomery);
 * a term is (var, coefficient index), 8 bytes.  Indices 1..256 are 2^i,
 * 257..512 are -2^i, prefilled, so bit packing needs no lookups.
 */
#ifndef PL_CIRCUIT_CS_H
#define PL_CIRCUIT_CS_H

#include "proofline_circuit.h"
#include "blst.h"

#define PL__VAR_ONE 0u
#define PL__VAR_PRIVATE 0x80000000u
#define PL__MAX_VARS 0x7fffffffu

#define PL__COEFF_ZERO 0u
#define PL__COEFF_POW2(i) (1u + (uint32_t)(i))       /* 2^i, i < 256 */
#define PL__COEFF_NEG_POW2(i) (257u + (uint32_t)(i)) /* -2^i, i < 256 */
#define PL__COEFF_ONE PL__COEFF_POW2(0)
#define PL__COEFF_MINUS_ONE PL__COEFF_NEG_POW2(0)
#define PL__COEFF_PREFILLED 513u

typedef enum {
    PL__CS_RECORDING,
    PL__CS_WITNESS,  /* values in wire order, constraints counted */
    PL__CS_COUNT     /* nothing kept: variables and constraints counted */
} pl__cs_mode;

typedef struct pl__term {
    uint32_t var;   /* a variable id; a wire after freeze */
    uint32_t coeff; /* index into coeffs */
} pl__term;

/* A term of the constraint being emitted: key = matrix << 32 | var. */
typedef struct pl__pending_term {
    uint64_t key;
    uint32_t coeff;
} pl__pending_term;

struct pl_cs {
    pl__cs_mode mode;
    bool frozen;
    bool check;
    pl_status status;  /* the first failure, sticky */
    pl_error error;
    uint64_t n_public, n_private, n_constraints;
    /* witness-only: the shape, and the values in wire order (after freeze
     * in recording mode too) */
    uint64_t shape_public, shape_wires;
    pl_scalar *values;
    bool own_values;
    /* recording, before freeze: values by index space */
    pl_scalar *pub_vals, *prv_vals;
    uint64_t pub_cap, prv_cap;
    /* recording: the constraints.  rows[3k .. 3k+3] bound constraint k's
     * A, B and C terms; rows[0] = 0. */
    pl__term *terms;
    uint64_t n_terms, terms_cap;
    uint64_t *rows;
    uint64_t rows_cap;
    pl__pending_term *cur; /* the constraint being emitted (malloc) */
    uint32_t n_cur, cur_cap;
    bool in_constraint;
    /* coefficients and their hash index (open addressing, idx + 1) */
    blst_fr *coeffs;
    uint32_t n_coeffs, coeffs_cap;
    uint32_t *hash;
    uint32_t hash_cap;
    /* assignment mode (witness-only, from pl_cs_create_assignment): each
     * constraint's A, B and C evaluated as it ends, into abc (standard
     * form: a, b, c of abc_rows each, the shape's constraints then one per
     * input), and each variable's occurrence in A and B set in density (a
     * over aux, b over the inputs, b over aux: density_words each), as
     * bellperson's synthesis leaves them; nothing of the terms is kept */
    bool assign;
    uint64_t shape_constraints, abc_rows;
    pl_scalar *abc;
    uint64_t *density;
    uint64_t density_words;
};

pl_status pl__cs_create_counting(pl_cs **out, pl_error *err);

/* Records the first failure (later ones are dropped); returns the
 * current status. */
pl_status pl__cs_fail(pl_cs *cs, pl_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A new variable.  value_le: 32 bytes, standard form, < r (checked).  On
 * failure the cs fails and the id returned is ONE. */
uint32_t pl__cs_alloc(pl_cs *cs, bool is_public, const uint8_t value_le[32]);
uint32_t pl__cs_alloc_u64(pl_cs *cs, bool is_public, uint64_t value);
/* A private 0/1 variable, no constraint (the fast path of gadgets). */
uint32_t pl__cs_alloc_bit(pl_cs *cs, unsigned bit);

/* The wire of a variable id (needs the public count: after freeze, or in
 * witness-only mode). */
static inline uint64_t pl__cs_wire(const pl_cs *cs, uint32_t var)
{
    uint64_t n_pub = cs->mode == PL__CS_WITNESS ? cs->shape_public
                                                : cs->n_public;
    return (var & PL__VAR_PRIVATE) ? 1 + n_pub + (var & ~PL__VAR_PRIVATE)
                                   : var;
}
void pl__cs_value_le(const pl_cs *cs, uint8_t out[32], uint32_t var);

/* Constraint emission.  pl__cs_begin counts a constraint and returns true
 * when its terms are wanted (recording); then pl__cs_term for each term of
 * A (matrix 0), B (1), C (2) in any order, duplicates allowed (they are
 * merged), and pl__cs_end. */
bool pl__cs_begin(pl_cs *cs);
void pl__cs_term(pl_cs *cs, unsigned matrix, uint32_t var, uint32_t coeff);
void pl__cs_end(pl_cs *cs);

/* The index of a coefficient (adds it to the table when new). */
uint32_t pl__cs_coeff(pl_cs *cs, const blst_fr *value);
/* k * 2^shift, for small |k|. */
uint32_t pl__cs_coeff_scaled(pl_cs *cs, int64_t k, unsigned shift);

/* Recording, frozen: a, b, c (n_constraints each, Montgomery) evaluated
 * from the recorded constraints and the witness: the reference for the
 * prover's CSR path.  Any output may be NULL. */
pl_status pl__cs_eval(const pl_cs *cs, blst_fr *a, blst_fr *b, blst_fr *c,
                      pl_error *err);

#endif /* PL_CIRCUIT_CS_H */
