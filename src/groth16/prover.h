/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one proof skeleton (groth16/prover.c), for the two key decoders'
 * provers (the zkey's, groth16/zkey_prover.h; bellperson's, groth16/c2.h)
 * and the engine: a prover over a key (groth16/key.h) and a backend, the
 * plan of one proof's bytes, and one proof in two steps, start and finish,
 * from a proof input (a, b, c and the sums' scalars) that each kind
 * prepares its own way (the zkey's synthesis from a witness, bellperson's
 * assignment).
 *
 * The engine reaches the backends only through these calls: it chooses one
 * by name, plans with it, creates provers on it and reads its device
 * memory, and never names or calls a backend itself.
 */
#ifndef PL_GROTH16_PROVER_H
#define PL_GROTH16_PROVER_H

#include "proofline.h"
#include "backend/backend.h"
#include "groth16/key.h"
#include "blst.h"
#include "util/pool.h"

/* ---- backends, as the prover's callers see them ------------------------ */

/* The backend for a name ("cpu", "cuda", "auto", "cuda-emulated"; NULL:
 * "cpu"), as pl__backend_find chooses it: PL_EUSAGE for an unknown name,
 * PL_EUNSUPPORTED for "cuda" where it cannot run.  note gets why "auto"
 * took the CPU ("" when there is nothing to say). */
pl_status pl__prover_backend(const pl__backend_ops **out, const char *name,
                             char *note, size_t note_len, pl_error *err);
const char *pl__prover_backend_name(const pl__backend_ops *backend);
/* The devices the backend can open (1 for the host backends). */
int pl__prover_device_count(const pl__backend_ops *backend);
/* Whether the backend's device faulted in this process (see
 * pl__backend_ops.faulted), with why. */
bool pl__prover_backend_faulted(const pl__backend_ops *backend, int device,
                                char *why, size_t why_len);
/* The backend's device as its driver sees it; false without one. */
bool pl__prover_device_memory(const pl__backend_ops *backend, int device,
                              uint64_t *used_bytes, uint64_t *total_bytes,
                              uint64_t *used_at_open_bytes);
/* The device bytes the backend allocates when it opens a key of this
 * shape (0 for host backends): for planners without a device. */
uint64_t pl__prover_device_bytes(const pl__backend_ops *backend,
                                 const pl__backend_shape *shape);
/* The backend's own share of a proof's plan (its h and G1 scratch, its
 * tables), without the skeleton's. */
void pl__prover_backend_plan(const pl__backend_ops *backend,
                             const pl__backend_shape *shape, unsigned threads,
                             pl__prove_plan *out);
/* Whether the backend's G1 sums run on the host's threads. */
bool pl__prover_backend_on_host(const pl__backend_ops *backend);

/* ---- the skeleton ------------------------------------------------------- */

typedef struct pl__groth16_prover pl__groth16_prover;

/* The bytes per class one proof over a key of this shape allocates at
 * most on this backend (abc, the backend's h and msm_scratch, pending, the
 * G2 sum's scratch) and the bytes the prover keeps resident (the
 * backend's tables); threads as in pl_prover_config (0: one per core).
 * Reads the shape only. */
void pl__groth16_plan(const pl__backend_shape *shape,
                      const pl__backend_ops *backend, unsigned threads,
                      pl__prove_plan *out);

/* A prover over key (which must outlive it) on backend: its pool of
 * cfg->threads (cfg->backend is not read), the backend opened over the
 * key's shape and G1 sets on device cfg->device. */
pl_status pl__groth16_prover_create(pl__groth16_prover **out,
                                    const pl__groth16_key *key,
                                    const pl__backend_ops *backend,
                                    const pl_prover_config *cfg,
                                    pl_error *err);
void pl__groth16_prover_destroy(pl__groth16_prover *prover);
const pl__groth16_key *pl__groth16_prover_key(const pl__groth16_prover *p);
const pl__backend_ops *pl__groth16_prover_backend(const pl__groth16_prover *p);
int pl__groth16_prover_device(const pl__groth16_prover *p);
/* The prover's threads (for a kind's preparation of its input). */
pl__pool *pl__groth16_prover_pool(const pl__groth16_prover *p);

/* What one proof is made from, prepared by the kind:
 *   abc      a, b, c on the domain (3 x 2^log2n, Montgomery form, class
 *            abc), which start consumes: freed before it returns, on
 *            success (before the G1 sums) and on failure;
 *   scalars  the A, B1 and C sums' scalars ([PL__SUM_H] unused), host
 *            memory that must stay valid until finish (B's: the G2 sum,
 *            on the CPU, reads them until then, so they are standard
 *            form; A's and C's may be Montgomery-form);
 *   r, s     the blinding, standard form below r; NULL: fresh random ones
 *            drawn at finish. */
typedef struct pl__proof_input {
    blst_fr *abc;
    pl__scalars scalars[PL__SUM_COUNT];
    const blst_scalar *r, *s;
} pl__proof_input;

/* Starts a proof: B's G2 sum on its own thread (the pool's when the G1
 * work is on a device), the backend's h from abc (freed then, and
 * abc_freed(ctx) called, NULL: none), the backend's four G1 sums.  in's
 * blinding is copied: the caller may scrub its own after. */
pl_status pl__groth16_start(pl__groth16_prover *prover, pl_pending **out,
                            pl__proof_input *in, void (*abc_freed)(void *ctx),
                            void *ctx, pl_error *err);
/*
 * A batch: k proofs of the prover's key started together (their inputs
 * all prepared), each sum of the k taken in one batched call where the
 * backend has one (pl__backend_ops.msm_g1_batch: the CPU's), else one
 * proof after another (the CUDA backend).  Each proof is what
 * pl__groth16_start would make of its input: out[j] finishes with
 * pl_prove_finish as usual, and the same group elements come out.  Each
 * input's a/b/c is freed right after its h, with abc_freed(ctx[j]) (ctx
 * NULL: abc_freed(NULL)), while the G2 sums run beside.  On failure every
 * input is consumed, every out[j] is NULL and the status is the first
 * failure's.  pl__groth16_plan_batch: the bytes per class of such a batch
 * (pl__groth16_plan's for k < 2 or a backend without batches), at most k
 * times one proof's in every class; pl__groth16_batches: whether this
 * prover's backend batches.
 */
bool pl__groth16_batches(const pl__groth16_prover *prover);
void pl__groth16_plan_batch(const pl__backend_shape *shape,
                            const pl__backend_ops *backend, unsigned threads,
                            size_t k, pl__prove_plan *out);
pl_status pl__groth16_start_batch(pl__groth16_prover *prover, pl_pending **out,
                                  pl__proof_input *const *in, size_t k,
                                  void (*abc_freed)(void *ctx),
                                  void *const *ctx, pl_error *err);
/* pl_prove_finish (proofline.h) joins the G2 sum, blinds and assembles.
 * Drops a started proof that is not wanted: joins its G2 sum and frees it
 * (NULL is a no-op). */
void pl__pending_abort(pl_pending *pending);

/* Test-only: blind with r = s = 0 whatever the input says, so the proof is
 * deterministic and can be compared bit for bit with a reference.  Such
 * proofs are NOT zero-knowledge. */
void pl__groth16_set_zero_blinding(pl__groth16_prover *prover, bool zero);

#endif /* PL_GROTH16_PROVER_H */
