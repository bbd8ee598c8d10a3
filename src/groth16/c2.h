/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 kind's pieces below the public API (c2.c): bellperson's
 * parameters decoded into a key for the one skeleton (groth16/key.h), the
 * assignment checks, the plan of one proof's bytes, and an assignment
 * prepared into the skeleton's proof input; for the engine, which runs
 * pl_c2_prove's proofs as a job (engine/kind_c2.c).  And a test hook, an
 * SRS whose domain is snarkjs's (setup/dev_setup.h writes such files), to
 * compare its proofs with the zkey path's point for point.
 */
#ifndef PL_GROTH16_C2_H
#define PL_GROTH16_C2_H

#include "proofline_c2.h"
#include "groth16/key.h"
#include "groth16/prover.h"

pl_status pl__c2_srs_create_domain(pl_c2_srs **out, const char *params_path,
                                   bool check_points, unsigned threads,
                                   bool snarkjs_domain, pl_error *err);
/* pl_c2_srs_create for an engine that reserved the file's bytes first: a
 * file larger than max_bytes (it grew since it was sized) is refused
 * before anything is allocated (0: no limit). */
pl_status pl__c2_srs_load(pl_c2_srs **out, const char *params_path,
                          bool check_points, unsigned threads,
                          uint64_t max_bytes, pl_error *err);

/* The SRS as a key for the skeleton (alive as long as the SRS), its
 * verifying key (the parameter file's: alpha, beta, gamma, delta, ic), its
 * file and the threads it was created with (what planning assumes). */
const pl__groth16_key *pl__c2_srs_key(const pl_c2_srs *srs);
const pl_vkey *pl__c2_srs_vkey(const pl_c2_srs *srs);
const char *pl__c2_srs_path(const pl_c2_srs *srs);
unsigned pl__c2_srs_threads(const pl_c2_srs *srs);
/* Whether the parameter file was written to, replaced or removed since it
 * was read (pl__file_unchanged): a proof that does not verify is then
 * blamed on the file (a torn copy), not on the assignment. */
bool pl__c2_srs_file_changed(const pl_c2_srs *srs);
/* The public inputs a proof has, ONE not counted. */
uint32_t pl__c2_srs_n_public(const pl_c2_srs *srs);

/* Every assignment against the SRS, and r and s below r: what pl_c2_prove
 * refuses before any work (PL_EFORMAT naming the assignment and field). */
pl_status pl__c2_check(const pl_c2_srs *srs,
                       const pl_c2_assignment *assignments, size_t n,
                       const pl_scalar *r, const pl_scalar *s,
                       pl_error *err);

/* One assignment (the index-th, for messages) and its r and s, as
 * pl__c2_check checks each: for one synthesized inside a job. */
pl_status pl__c2_check_one(const pl_c2_srs *srs, size_t index,
                           const pl_c2_assignment *as, const pl_scalar *r,
                           const pl_scalar *s, pl_error *err);

/* The bytes per class one proof takes at most on this backend: the
 * skeleton's (abc: a, b, c copied in, freed after h; the backend's h and
 * scratch; pending; the G2 sum's scratch) and the gathered scalars and
 * public inputs of pl__c2_input_prepare (msm_scratch); resident: the
 * backend's tables (the SRS's own bytes are pl_c2_srs_bytes).  What the
 * engine reserves, as pl__prover_plan for a zkey. */
void pl__c2_plan(const pl_c2_srs *srs, const pl__backend_ops *backend,
                 unsigned threads, pl__prove_plan *out);

/* One proof's input prepared from a checked assignment: a, b, c read into
 * the skeleton's abc (class abc; the caller's a, b and c are not read
 * after this returns: they may be freed), A's scalars (the inputs and the
 * auxiliary variables the a density selects) and B's (those the b
 * densities select) gathered into one buffer (class msm_scratch, standard
 * form), C's the auxiliary assignment itself (Montgomery-form when the
 * assignment is: the backend converts), the public inputs in standard
 * form, and r and s.  montgomery: the assignment's scalars are as
 * pl_c2_config's says; rs_montgomery: r and s are too (a caller's are,
 * fresh random ones are drawn in standard form).  The assignment's
 * auxiliary variables must stay valid until the proof's start returns.
 * Release with pl__c2_input_release (which frees abc too when start has
 * not taken it). */
typedef struct pl__c2_input {
    pl__proof_input in;
    pl_scalar *gathered;      /* A's, then B's, then the publics */
    const pl_scalar *publics; /* n_public, standard form */
    size_t n_public;
    blst_scalar r, s;
} pl__c2_input;

pl_status pl__c2_input_prepare(pl__c2_input *out, const pl_c2_srs *srs,
                               const pl_c2_assignment *as,
                               const pl_scalar *r, const pl_scalar *s,
                               bool montgomery, bool rs_montgomery,
                               pl_error *err);
void pl__c2_input_release(pl__c2_input *input);

#endif /* PL_GROTH16_C2_H */
