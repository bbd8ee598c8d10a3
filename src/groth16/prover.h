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

/* The pieces of a start, for backends that do the transforms and the G1
 * MSMs themselves (the CUDA backend): begin allocates the pending state
 * (class pending) and starts the G2 MSM over the witness on its own
 * thread, alone or (g2_on_pool, when the G1 work is not on the CPU) with
 * the prover's pool; set_g1 stores the four G1 sums; pl_prove_finish then
 * assembles the proof as for the CPU.  abort joins the G2 thread and frees
 * (NULL is a no-op).  wtns must stay valid until finish or abort. */
pl_status pl__pending_begin(pl_prover *prover, pl_pending **out,
                            const pl_wtns *wtns, bool g2_on_pool,
                            pl_error *err);
void pl__pending_set_g1(pl_pending *pending, const blst_p1 *a,
                        const blst_p1 *b1, const blst_p1 *c, const blst_p1 *h);
void pl__pending_abort(pl_pending *pending);
/* The scratch of the G2 MSM that begin starts on the pool (class
 * msm_scratch), for `threads` as in pl_prover_config. */
uint64_t pl__prover_g2_scratch_bytes(const pl_zkey *zkey, unsigned threads);
/* The circuit's NTT plan (twiddles and coset constants to upload), and the
 * prover's per-stage timing callback. */
struct pl__ntt_plan;
const struct pl__ntt_plan *pl__prover_ntt(const pl_prover *prover);
void pl__prover_stage_done(const pl_prover *prover, double *since,
                           const char *stage);

/* Test-only: blind with r = s = 0, so the proof is deterministic and can be
 * compared bit for bit with a reference.  Such proofs are NOT zero-knowledge. */
void pl__prover_set_zero_blinding(pl_prover *prover, bool zero);

#endif /* PL_GROTH16_PROVER_H */
