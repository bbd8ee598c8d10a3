/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zkey's prover (groth16/zkey_prover.c), below the public pl_prover_*
 * calls: the zkey decoded into a key for the one skeleton (groth16/key.h),
 * the constraint matrices it synthesizes a, b, c with, and the proof input
 * of a witness; for the engine (and tests, benchmarks).
 */
#ifndef PL_GROTH16_ZKEY_PROVER_H
#define PL_GROTH16_ZKEY_PROVER_H

#include "proofline.h"
#include "groth16/prover.h"

/* The zkey as a key for the skeleton: its shape (snarkjs's roots, H on the
 * odd coset, A and B1 over n_vars signals, C over the private ones, H over
 * the domain) and its sections in place, which must outlive *out.  Reads
 * the header fields only for the shape, so a planner can call it on a zkey
 * of a header alone. */
void pl__zkey_key(pl__groth16_key *out, const pl_zkey *zkey);

/* The bytes per class one proof of this zkey allocates at most on this
 * backend (the skeleton's plan; the witness is the caller's) and the bytes
 * a prover keeps resident for its circuit (csr and the backend's tables);
 * threads as in pl_prover_config (0: one per core). */
void pl__prover_plan(const pl_zkey *zkey, const pl__backend_ops *backend,
                     unsigned threads, pl__prove_plan *out);
/* The part of the plan's resident bytes that is the constraint matrices
 * (class csr; the rest is the backend's tables, class params).  Both read
 * only the zkey's shape (n_vars, n_public, domain, n_coefs). */
uint64_t pl__prover_csr_bytes(const pl_zkey *zkey);

/* pl_prover_create on a given backend (cfg->backend is not read). */
pl_status pl__prover_create_with_backend(pl_prover **out, const pl_zkey *zkey,
                                         const pl__backend_ops *backend,
                                         const pl_prover_config *cfg,
                                         pl_error *err);
const pl_zkey *pl__prover_zkey(const pl_prover *prover);
/* The skeleton's prover inside it (the engine starts proofs on it), and
 * the zkey decoded as its key (for provers of it on further devices). */
pl__groth16_prover *pl__prover_skeleton(const pl_prover *prover);
const pl__groth16_key *pl__prover_key(const pl_prover *prover);
/* The prover's backend (what it was created with). */
const pl__backend_ops *pl__prover_backend_of(const pl_prover *prover);

/* a, b, c on the domain from the witness (class abc, 3 x domain scalars,
 * Montgomery form), using `pool` (NULL: the calling thread alone). */
pl_status pl__prover_synthesize(pl_prover *prover, blst_fr **abc_out,
                                const pl_wtns *wtns, pl__pool *pool,
                                pl_error *err);
/* A synthesized abc and its witness as the skeleton's input: A's and B's
 * scalars every signal's value, C's the private ones'; blinding drawn at
 * finish. */
void pl__prover_input(const pl_prover *prover, pl__proof_input *out,
                      blst_fr *abc, const pl_wtns *wtns);
/* pl_prove_start from a synthesized abc, which it consumes (see
 * pl__groth16_start); abc_freed(ctx) when it is freed.  The witness must
 * outlive the pending proof. */
pl_status pl__prove_start_abc(pl_prover *prover, pl_pending **out,
                              blst_fr *abc, const pl_wtns *wtns,
                              void (*abc_freed)(void *ctx), void *ctx,
                              pl_error *err);

/* Test-only: blind with r = s = 0 (see pl__groth16_set_zero_blinding). */
void pl__prover_set_zero_blinding(pl_prover *prover, bool zero);

#endif /* PL_GROTH16_ZKEY_PROVER_H */
