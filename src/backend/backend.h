/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The backend interface: what the engine needs from a prover, so the CPU
 * prover and (later) the CUDA one plug in without touching the engine.
 *
 * A backend instance belongs to one circuit.  Synthesis (witness -> a, b, c)
 * is CPU work shared by every backend and is not part of this interface; a
 * backend starts from the synthesized a/b/c (which start consumes) and ends
 * with a proof.  plan says, before any work, how many bytes of each buffer
 * class one proof takes and how many the instance keeps resident, so
 * admission can reserve them first.
 */
#ifndef PL_BACKEND_H
#define PL_BACKEND_H

#include "proofline.h"
#include "blst.h"
#include "groth16/prover.h"

typedef struct pl__backend_ops {
    const char *name;
    /* The instance for a circuit; `prover` is the circuit's CPU prover
     * (it owns the synthesis matrices), usable by any backend. */
    pl_status (*open)(void **instance, pl_prover *prover, pl_error *err);
    void (*close)(void *instance);
    void (*plan)(void *instance, pl__prove_plan *out);
    /* Consumes abc (freed before return, also on failure). */
    pl_status (*start)(void *instance, void **pending, blst_fr *abc,
                       const pl_wtns *wtns, pl_error *err);
    /* Consumes pending in every case. */
    pl_status (*finish)(void *instance, void *pending, pl_proof *out,
                        pl_error *err);
} pl__backend_ops;

extern const pl__backend_ops pl__backend_cpu;

/* The backend for a name ("cpu", "auto"); NULL if unknown. */
const pl__backend_ops *pl__backend_find(const char *name);

#endif /* PL_BACKEND_H */
