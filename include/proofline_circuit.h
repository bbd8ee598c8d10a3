/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proofline_circuit.h: the constraint-system builder, for circuits written
 * in C (pl_cs_*, pl_lc_*, pl_var), beside proofline.h and built on its
 * values (pl_scalar, pl_status, pl_error).  Include it where a circuit is
 * written or run; the prover, the verifier and the engine do not need it
 * (a job's `generate` callback, pl_witness_fn in proofline.h, is where a
 * circuit meets the engine).  The conventions are proofline.h's.
 */
#ifndef PROOFLINE_CIRCUIT_H
#define PROOFLINE_CIRCUIT_H

#include "proofline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- circuits built in C: the constraint-system builder --------------- */
/*
 * A circuit is a C function (pl_cs_fn) that, given its inputs, allocates
 * variables, builds linear combinations and enforces A * B = C, computing
 * every variable's value as it goes.  The same function runs in two modes:
 *
 *  - recording (pl_cs_create_recording): every constraint is kept.  After
 *    the run, pl_cs_freeze fixes the wire order, and the system can be
 *    written as an .r1cs (for pl_setup_dev, snarkjs) with its .wtns, or
 *    checked.  Do this once per circuit shape.
 *  - witness-only (pl_cs_create_witness_only): only values are kept, in
 *    wire order, straight into the caller's buffer; constraints are
 *    counted, not stored.  This is the per-proof path: the engine already
 *    evaluates A, B, C from the zkey's matrices, so a job's `generate`
 *    callback (pl_witness_fn) runs the circuit in this mode.
 *
 * Wire order is circom's: wire 0 is the constant ONE, then the public
 * variables in the order they were allocated, then the private ones in
 * theirs.  Public and private variables have separate index spaces, so a
 * circuit may allocate its publics at any point; the mapping is fixed at
 * freeze (recording) or known from the shape (witness-only).  The r1cs
 * declares every public variable a public input (nPubOut = 0, nPrvIn = 0).
 * A circuit must allocate the same variables and constraints, in the same
 * order, for every input of one shape.
 *
 * Values cross the API as pl_scalar (little-endian, standard form, < r).
 * Errors are sticky: after the first failure (out of memory, a value not
 * below r, allocating past the shape) every later call does nothing and
 * pl_cs_enforce, pl_cs_alloc_*, pl_cs_freeze and pl_cs_status return that
 * first error, so a circuit may check only where convenient.  Storage
 * (values: class witness; constraints: class csr) is accounted.
 * A pl_cs is used by one thread at a time.
 */

typedef struct pl_cs pl_cs;
typedef struct pl_lc pl_lc;
/* A variable of one pl_cs.  The constant ONE is pl_cs_one(). */
typedef struct pl_var { uint32_t id; } pl_var;

/* The circuit: records or fills `cs` from `inputs`. */
typedef pl_status (*pl_cs_fn)(pl_cs *cs, const void *inputs, pl_error *err);

PL_API pl_status pl_cs_create_recording(pl_cs **out, pl_error *err);
/* n_public (without ONE) and n_wires (with it) give the shape, as in the
 * r1cs (1 + nPubOut + nPubIn + private wires = nWires).  `values` is the
 * caller's buffer of n_wires scalars, written as the circuit runs (NULL:
 * the cs keeps its own); read it after pl_cs_freeze succeeds. */
PL_API pl_status pl_cs_create_witness_only(pl_cs **out, size_t n_public,
                                           size_t n_wires, pl_scalar *values,
                                           pl_error *err);
PL_API void pl_cs_destroy(pl_cs *cs);

/* Runs circuit(cs, inputs, err), then pl_cs_freeze. */
PL_API pl_status pl_cs_run(pl_cs *cs, pl_cs_fn circuit, const void *inputs,
                           pl_error *err);
/* Ends the run.  Recording: fixes the wire order; no more variables or
 * constraints.  Witness-only: checks that the circuit allocated exactly the
 * shape's variables (PL_EFORMAT naming the counts if not). */
PL_API pl_status pl_cs_freeze(pl_cs *cs, pl_error *err);
/* The first error so far (PL_OK if none), copied into err. */
PL_API pl_status pl_cs_status(const pl_cs *cs, pl_error *err);
PL_API bool pl_cs_is_recording(const pl_cs *cs);
/* With check on, each enforce also evaluates its constraint and fails with
 * PL_EUNSAT naming it when the values do not satisfy it (for debugging a
 * circuit; off by default, so an unsatisfied witness can still be
 * exported and checked elsewhere). */
PL_API void pl_cs_set_check(pl_cs *cs, bool check);

PL_API pl_var pl_cs_one(void);
PL_API pl_status pl_cs_alloc_public(pl_cs *cs, pl_var *out,
                                    const pl_scalar *value, pl_error *err);
PL_API pl_status pl_cs_alloc_private(pl_cs *cs, pl_var *out,
                                     const pl_scalar *value, pl_error *err);
/* The value of a variable of this cs. */
PL_API void pl_cs_value(const pl_cs *cs, pl_scalar *out, pl_var var);

/* Linear combinations sum_i coeff_i * var_i; a constant c is c * ONE.
 * An lc belongs to its cs and must not outlive it.  In witness-only mode it
 * keeps only its value. */
PL_API pl_status pl_lc_create(pl_cs *cs, pl_lc **out, pl_error *err);
PL_API void pl_lc_destroy(pl_lc *lc);
PL_API void pl_lc_clear(pl_lc *lc);
/* coeff NULL means 1. */
PL_API void pl_lc_add(pl_lc *lc, pl_var var, const pl_scalar *coeff);
PL_API void pl_lc_add_i64(pl_lc *lc, pl_var var, int64_t coeff);
PL_API void pl_lc_add_constant(pl_lc *lc, const pl_scalar *constant);
PL_API void pl_lc_value(const pl_lc *lc, pl_scalar *out);

/* Enforces a * b = c (the lcs are read, not consumed). */
PL_API pl_status pl_cs_enforce(pl_cs *cs, const pl_lc *a, const pl_lc *b,
                               const pl_lc *c, pl_error *err);

PL_API size_t pl_cs_n_constraints(const pl_cs *cs); /* witness-only: counted */
PL_API size_t pl_cs_n_public(const pl_cs *cs);
PL_API size_t pl_cs_n_private(const pl_cs *cs);
PL_API size_t pl_cs_n_wires(const pl_cs *cs);       /* 1 + public + private */

/* After freeze: the witness in wire order (n must be pl_cs_n_wires). */
PL_API pl_status pl_cs_witness(const pl_cs *cs, pl_scalar *out, size_t n,
                               pl_error *err);
/* Recording, after freeze: every constraint holds for the witness, else
 * PL_EUNSAT naming the first that does not, with its A, B, C values. */
PL_API pl_status pl_cs_check(const pl_cs *cs, pl_error *err);
/* Recording, after freeze: a snarkjs-readable .r1cs, version 1, sections
 * 1-3 (labels are the wire indices).  Written to a temporary file, renamed
 * into place. */
PL_API pl_status pl_cs_write_r1cs(const pl_cs *cs, const char *path,
                                  pl_error *err);
/* After freeze: the witness as a .wtns, version 2. */
PL_API pl_status pl_cs_write_wtns(const pl_cs *cs, const char *path,
                                  pl_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PROOFLINE_CIRCUIT_H */
