/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PoRep-like demo circuit, an example of a circuit written in C over
 * the builder (proofline_circuit.h) and the library's SHA-256 and Merkle
 * gadgets.  Not part of libproofline: it is its own small library
 * (proofline_porep) that `proofline demo`, `proofline circuit` and the
 * tests link.
 *
 * One partition proves `openings` Merkle openings in one binary tree of
 * `depth` levels: the public inputs are the root, then each opening's leaf
 * index; the leaves and the siblings are private.  A node is the SHA-256
 * compression function of the standard IV over the 64-byte block
 * left || right (the input has a fixed length, so no padding block), its
 * 32 output bytes read as a little-endian integer with the top two bits
 * cleared: 254 bits, one field element (leaves likewise).  Partitions whose
 * constraint target is below one compression use fewer rounds (`rounds` <
 * 64): toy sizes for tests, not SHA-256.  Inputs (tree, indices, leaves)
 * are derived from (seed, partition) alone, so any process can regenerate a
 * partition's witness.  porep.c gives the details.
 */
#ifndef PL_EXAMPLES_POREP_H
#define PL_EXAMPLES_POREP_H

#include "proofline_circuit.h"

typedef struct porep_params {
    unsigned openings; /* K */
    unsigned depth;    /* levels per opening, 1..32 */
    unsigned rounds;   /* compression rounds per node: 64, or fewer (toy) */
} porep_params;

/* The largest circuit whose constraints + public inputs + 1 stay within
 * `constraints` (so its domain is at most the next power of two; pass one,
 * e.g. 1 << 16): depth as given, or (0) chosen with the openings to make
 * openings x depth largest (depth <= 32, fewer openings on ties).  Below
 * one full compression: one opening with as many rounds as fit.
 * PL_EUSAGE if not even one round of one node fits. */
pl_status porep_params_for(porep_params *out, uint64_t constraints,
                           unsigned depth, pl_error *err);
/* Counts of the circuit for these parameters (from a counting run). */
pl_status porep_shape(const porep_params *params, size_t *n_constraints,
                      size_t *n_public, size_t *n_wires, pl_error *err);

typedef struct porep_inputs porep_inputs;
pl_status porep_inputs_create(porep_inputs **out, const porep_params *params,
                              const char *seed, uint64_t partition,
                              pl_error *err);
void porep_inputs_destroy(porep_inputs *inputs);
/* Test hook: flips one bit of a sibling, so the path no longer leads to the
 * root and the witness does not satisfy the circuit. */
void porep_inputs_corrupt_sibling(porep_inputs *inputs, unsigned opening,
                                  unsigned level);
/* The circuit, as a pl_cs_fn: inputs is a const porep_inputs *. */
pl_status porep_circuit(pl_cs *cs, const void *inputs, pl_error *err);

#endif /* PL_EXAMPLES_POREP_H */
