/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The prover's internal interface, for the engine (and tests, benchmarks):
 * a prover over a chosen backend, a proof in three steps (synthesize,
 * start, finish) with a plan of the bytes each class will take first, and
 * a test-only hook for deterministic proofs.
 *
 * The engine reaches the backends only through these calls: it chooses one
 * by name, plans with it, creates provers on it and reads its device
 * memory, and never calls a backend itself.
 */
#ifndef PL_GROTH16_PROVER_H
#define PL_GROTH16_PROVER_H

#include "proofline.h"
#include "backend/backend.h"
#include "blst.h"
#include "util/pool.h"

/* ---- backends, as the prover's callers see them ------------------------ */

/* The backend for a name ("cpu", "cuda", "auto"; NULL: "cpu"), as
 * pl__backend_find chooses it: PL_EUSAGE for an unknown name,
 * PL_EUNSUPPORTED for "cuda" where it cannot run.  note gets why "auto"
 * took the CPU ("" when there is nothing to say). */
pl_status pl__prover_backend(const pl__backend_ops **out, const char *name,
                             char *note, size_t note_len, pl_error *err);
const char *pl__prover_backend_name(const pl__backend_ops *backend);
/* Whether the backend's device faulted in this process (see
 * pl__backend_ops.faulted), with why. */
bool pl__prover_backend_faulted(const pl__backend_ops *backend, char *why,
                                size_t why_len);
/* The backend's device as its driver sees it; false without one. */
bool pl__prover_device_memory(const pl__backend_ops *backend,
                              uint64_t *used_bytes, uint64_t *total_bytes,
                              uint64_t *used_at_open_bytes);

/* ---- plan, create, prove ----------------------------------------------- */

/* The bytes per class one proof of this zkey allocates at most on this
 * backend (abc, h, msm_scratch, pending; the witness is the caller's) and
 * the bytes a prover keeps resident for its circuit (csr and the
 * backend's tables); threads as in pl_prover_config (0: one per core). */
void pl__prover_plan(const pl_zkey *zkey, const pl__backend_ops *backend,
                     unsigned threads, pl__prove_plan *out);
/* The part of the plan's resident bytes that is the constraint matrices
 * (class csr; the rest is the backend's tables, class params).  Both read
 * only the zkey's shape (n_vars, n_public, domain, n_coefs), so a planner
 * can call them on a zkey of a header alone. */
uint64_t pl__prover_csr_bytes(const pl_zkey *zkey);

/* pl_prover_create on a given backend (cfg->backend is not read). */
pl_status pl__prover_create_with_backend(pl_prover **out, const pl_zkey *zkey,
                                         const pl__backend_ops *backend,
                                         const pl_prover_config *cfg,
                                         pl_error *err);
const pl_zkey *pl__prover_zkey(const pl_prover *prover);

/* a, b, c on the domain from the witness (class abc, 3 x domain scalars,
 * Montgomery form), using `pool` (NULL: the calling thread alone). */
pl_status pl__prover_synthesize(pl_prover *prover, blst_fr **abc_out,
                                const pl_wtns *wtns, pl__pool *pool,
                                pl_error *err);
/* pl_prove_start from a synthesized abc, which it consumes: abc is freed
 * before it returns, on success and on failure (before the G1 MSMs on
 * success).  The witness must outlive the pending proof. */
pl_status pl__prove_start_abc(pl_prover *prover, pl_pending **out,
                              blst_fr *abc, const pl_wtns *wtns,
                              pl_error *err);
/* Drops a started proof that is not wanted: joins its G2 MSM and frees it
 * (NULL is a no-op). */
void pl__pending_abort(pl_pending *pending);

/* Test-only: blind with r = s = 0, so the proof is deterministic and can be
 * compared bit for bit with a reference.  Such proofs are NOT zero-knowledge. */
void pl__prover_set_zero_blinding(pl_prover *prover, bool zero);

#endif /* PL_GROTH16_PROVER_H */
