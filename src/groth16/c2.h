/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 prover's pieces below the public API (c2.c): the checks, the
 * plan of one proof's bytes and one proof in two steps, for the engine,
 * which runs pl_c2_prove's proofs as a job (engine/c2_job.c); and a test
 * hook, an SRS whose domain is snarkjs's (setup/dev_setup.h writes such
 * files), to compare its proofs with the zkey path's point for point.
 */
#ifndef PL_GROTH16_C2_H
#define PL_GROTH16_C2_H

#include "proofline_c2.h"
#include "backend/backend.h" /* pl__prove_plan */
#include "backend/c2_device.h"

pl_status pl__c2_srs_create_domain(pl_c2_srs **out, const char *params_path,
                                   bool check_points, unsigned threads,
                                   bool snarkjs_domain, pl_error *err);

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

/* The bytes per class one proof takes at most (abc: a, b, c on the odd
 * coset, freed before the sums; msm_scratch: gathered scalars and the
 * sums' scratch; pending: the state between start and finish) and the
 * SRS's resident bytes: what the engine reserves, as pl__prover_plan for a
 * zkey.  on_device: the G1 sums' scratch is a device's (class device, not
 * host memory) and the G2 sum has the pool.  pl_c2_prove_bytes is their
 * sum on the CPU. */
void pl__c2_plan(const pl_c2_srs *srs, bool on_device, pl__prove_plan *out);
/* The public inputs a proof has, ONE not counted. */
uint32_t pl__c2_srs_n_public(const pl_c2_srs *srs);

/* One proof of a checked assignment, in two steps, as the zkey prover's:
 * start computes h's coefficients (the coset vectors, class abc, freed
 * before the sums), calls abc_read(ctx) once the caller's a, b and c have
 * been read for good (NULL: none), starts the G2 sum on its own thread and
 * runs the G1 sums over the SRS's pool, or on device (NULL: the CPU's;
 * pl__c2_srs_open_device), H's transforms with them; finish joins the G2
 * sum, assembles
 * with r and s and frees the pending state.  montgomery: every scalar of as,
 * r and s is blstrs's in-memory form (proofline_c2.h), the input and
 * auxiliary assignments converted once into msm_scratch.  The assignment's
 * densities and variables must outlive start; nothing of it is read after.
 * Within pl__c2_plan's bytes. */
typedef struct pl__c2_pending pl__c2_pending;
pl_status pl__c2_prove_start(const pl_c2_srs *srs, pl__c2_device *device,
                             pl__c2_pending **out,
                             const pl_c2_assignment *as, const pl_scalar *r,
                             const pl_scalar *s, bool montgomery,
                             void (*abc_read)(void *ctx), void *ctx,
                             pl_error *err);
pl_status pl__c2_prove_finish(pl__c2_pending *pending, pl_proof *out,
                              pl_error *err);
/* The SRS's G1 bases and domain on backend's device, for its proofs (NULL
 * and PL_OK for the CPU backend): the CUDA backend's real device, or its
 * emulation (pl__backend_cuda_emulated).  Close with pl__c2_device_close
 * before the SRS is destroyed. */
pl_status pl__c2_srs_open_device(const pl_c2_srs *srs,
                                 const pl__backend_ops *backend,
                                 pl__c2_device **out, pl_error *err);

/* Drops a started proof: joins its G2 sum and frees it (NULL: no-op). */
void pl__c2_pending_abort(pl__c2_pending *pending);

#endif /* PL_GROTH16_C2_H */
