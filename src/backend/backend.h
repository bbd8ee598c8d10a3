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
    /* Before open, so admission can reserve first: the bytes one proof
     * takes per class and the bytes an instance keeps resident (host
     * memory: the budget's; device memory is the device's to bound). */
    void (*plan)(const pl_zkey *zkey, unsigned threads, pl__prove_plan *out);
    /* The instance for a circuit; `prover` is the circuit's CPU prover
     * (it owns the synthesis matrices), usable by any backend. */
    pl_status (*open)(void **instance, pl_prover *prover, pl_error *err);
    void (*close)(void *instance);
    /* Consumes abc (freed before return, also on failure). */
    pl_status (*start)(void *instance, void **pending, blst_fr *abc,
                       const pl_wtns *wtns, pl_error *err);
    /* Consumes pending in every case. */
    pl_status (*finish)(void *instance, void *pending, pl_proof *out,
                        pl_error *err);
    /* The device's memory as its driver sees it (used, total) and what was
     * used when the backend opened it, before any allocation of ours (the
     * CUDA context; other processes); false when the backend has no device
     * open.  NULL for host-only backends. */
    bool (*device_memory)(uint64_t *used_bytes, uint64_t *total_bytes,
                          uint64_t *used_at_open_bytes);
} pl__backend_ops;

extern const pl__backend_ops pl__backend_cpu;
/* The CUDA backend over the real device (NULL in builds without nvcc),
 * and over the host emulation of gpu_emu.c (for tests). */
extern const pl__backend_ops *const pl__backend_cuda;
extern const pl__backend_ops pl__backend_cuda_emulated;

/* The backend for a name: "cpu"; "cuda" (NULL with a reason in note when
 * this build has no CUDA or no device is found); "auto" (CUDA when a
 * device is found, else the CPU, with the reason in note).  NULL and a
 * note for unknown names.  note gets "" when there is nothing to say. */
const pl__backend_ops *pl__backend_find(const char *name, char *note,
                                        size_t note_len);

#endif /* PL_BACKEND_H */
