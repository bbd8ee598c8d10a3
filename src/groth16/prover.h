/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The prover's internal interface, for the engine's CPU backend: a proof in
 * three steps (synthesize, start, finish) with a plan of the bytes each
 * class will take, and a test-only hook for deterministic proofs.
 */
#ifndef PL_GROTH16_PROVER_H
#define PL_GROTH16_PROVER_H

#include "proofline.h"
#include "blst.h"
#include "util/pool.h"

/* Bytes per buffer class one proof allocates at most (abc, h, msm_scratch,
 * pending; the witness is the caller's), and the bytes the prover keeps
 * resident for its circuit (csr, NTT plan). */
typedef struct pl__prove_plan {
    uint64_t bytes[PL_BUF_CLASS_COUNT];
    uint64_t resident_bytes;
} pl__prove_plan;

/* threads as in pl_prover_config (0: one per core). */
void pl__prover_plan(const pl_zkey *zkey, unsigned threads,
                     pl__prove_plan *out);
const pl_zkey *pl__prover_zkey(const pl_prover *prover);
unsigned pl__prover_threads(const pl_prover *prover);

/* a, b, c on the domain from the witness (class abc, 3 x domain scalars,
 * Montgomery form), using `pool` (NULL: the calling thread alone). */
pl_status pl__prover_synthesize(pl_prover *prover, blst_fr **abc_out,
                                const pl_wtns *wtns, pl__pool *pool,
                                pl_error *err);
/* pl_prove_start from a synthesized abc, which it consumes: abc is freed
 * before it returns, on success and on failure. */
pl_status pl__prove_start_abc(pl_prover *prover, pl_pending **out,
                              blst_fr *abc, const pl_wtns *wtns,
                              pl_error *err);

/* Test-only: blind with r = s = 0, so the proof is deterministic and can be
 * compared bit for bit with a reference.  Such proofs are NOT zero-knowledge. */
void pl__prover_set_zero_blinding(pl_prover *prover, bool zero);

#endif /* PL_GROTH16_PROVER_H */
