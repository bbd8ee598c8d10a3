/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal engine entry points: for tests, an engine over a given backend
 * (a slow fake one, say) instead of one chosen by name, with the backend
 * that takes over when its device faults (NULL: none; pl_engine_create
 * gives "auto" the CPU); for pl_c2_prove, a job of bellperson's
 * assignments.
 */
#ifndef PL_ENGINE_ENGINE_H
#define PL_ENGINE_ENGINE_H

#include "proofline.h"
#include "groth16/prover.h"
#include "proofline_c2.h"

pl_status pl__engine_create_with_backend(pl_engine **out,
                                         const pl_engine_config *cfg,
                                         const pl__backend_ops *backend,
                                         const pl__backend_ops *fallback,
                                         pl_error *err);

/* A job of pl_c2_prove's (engine/c2_job.c): one partition per assignment,
 * proved over its circuit's SRS (pl_engine_open_c2_circuit).  Everything
 * it points to is the caller's and stays alive until the job is done.
 * Partition i's proof goes to proofs[i]; abc_done(user, i) is called on a
 * prover worker once its a, b, c are read for good. */
typedef struct pl__c2_job {
    const pl_c2_assignment *assignments;
    const pl_scalar *r, *s;
    bool montgomery;
    pl_proof *proofs;
    pl_c2_abc_done_fn abc_done;
    void *abc_done_user;
} pl__c2_job;

/* Submits n partitions of a C2 job: PL_EBUDGET (the numbers, the smallest
 * budget) when one can never be admitted, as pl_engine_submit. */
pl_status pl__engine_submit_c2(pl_engine *e, uint64_t *job_id,
                               pl_circuit *circuit, size_t n, int priority,
                               const pl__c2_job *c2, pl_error *err);

#endif /* PL_ENGINE_ENGINE_H */
