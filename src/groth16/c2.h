/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 prover's pieces below the public API (c2.c): one proof and the
 * checks, for engine/c2_job.c's pl_c2_prove; and a test hook, an SRS whose
 * domain is snarkjs's (setup/dev_setup.h writes such files), to compare its
 * proofs with the zkey path's point for point.
 */
#ifndef PL_GROTH16_C2_H
#define PL_GROTH16_C2_H

#include "proofline_c2.h"

pl_status pl__c2_srs_create_domain(pl_c2_srs **out, const char *params_path,
                                   bool check_points, unsigned threads,
                                   bool snarkjs_domain, pl_error *err);

/* Every assignment against the SRS, and r and s below r: what pl_c2_prove
 * refuses before any work (PL_EFORMAT naming the assignment and field). */
pl_status pl__c2_check(const pl_c2_srs *srs,
                       const pl_c2_assignment *assignments, size_t n,
                       const pl_scalar *r, const pl_scalar *s,
                       pl_error *err);

/* One proof of a checked assignment.  Allocates its buffers (the coset
 * vectors, class h; the gathered scalars, class msm_scratch; the MSMs'
 * scratch) within pl_c2_prove_bytes and frees them before it returns; the
 * coset vectors go as soon as h's coefficients are out.  abc_read(ctx) is
 * called once a, b and c have been read for good (NULL: none).  montgomery:
 * every scalar of as, r and s is blstrs's in-memory form (proofline_c2.h),
 * the input and auxiliary assignments converted once into msm_scratch. */
pl_status pl__c2_prove_one(const pl_c2_srs *srs, pl_proof *out,
                           const pl_c2_assignment *as, const pl_scalar *r,
                           const pl_scalar *s, bool montgomery,
                           void (*abc_read)(void *ctx), void *ctx,
                           pl_error *err);

#endif /* PL_GROTH16_C2_H */
