/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The backend interface: the compute primitives in which the CPU and the
 * GPU differ, below the proof's skeleton (src/groth16/prover.c), which calls
 * them in one straight line and owns everything else (synthesis, the G2
 * MSM, blinding, assembly).
 *
 * A backend instance belongs to one circuit (one zkey).  Per proof, the
 * prover brackets the backend's steps with begin and end:
 *
 *   begin           the backend is this proof's until end (the GPU's lock);
 *   h               H's scalars from a, b, c: to the odd coset, a b - c;
 *                   the backend keeps them (host or device memory);
 *   msm_g1 x 4      the sums for H, A, B1 and C (see pl__g1_sum);
 *   end             always, after begin succeeded, also on failure: waits
 *                   for queued work and frees the proof's state.
 *
 * plan says, before open, how many bytes of each host buffer class one
 * proof's backend steps take and how many an instance keeps resident, so
 * admission can reserve them first; device memory is the device's to bound
 * (open checks it against the device's free memory).
 *
 * Nothing here knows about the prover or the engine above it.
 */
#ifndef PL_BACKEND_H
#define PL_BACKEND_H

#include "proofline.h"
#include "blst.h"
#include "util/clock.h"
#include "util/pool.h"

/* Bytes per buffer class one proof allocates at most, and the bytes kept
 * resident for the circuit while it is open. */
typedef struct pl__prove_plan {
    uint64_t bytes[PL_BUF_CLASS_COUNT];
    uint64_t resident_bytes;
} pl__prove_plan;

/* The four G1 sums of a proof, in the order the prover asks for them (H
 * first, so a backend can free H's scalars before the others). */
typedef enum {
    PL__SUM_H,  /* sum h_i H_i over the domain */
    PL__SUM_A,  /* sum w_i A_i over every signal */
    PL__SUM_B1, /* sum w_i B1_i over every signal */
    PL__SUM_C,  /* sum w_i C_i over the private signals */
    PL__SUM_COUNT
} pl__g1_sum;

/* What an instance is opened with; zkey and pool outlive it. */
typedef struct pl__backend_config {
    const pl_zkey *zkey;
    pl__pool *pool;  /* the prover's threads */
    bool plain_msm;  /* see pl_prover_config */
} pl__backend_config;

/* One proof's pass through a backend, filled by the prover. */
typedef struct pl__backend_proof {
    void *instance;
    const pl_wtns *wtns;     /* alive until end */
    pl__stage_timer *timer;  /* for stage timings inside a step */
    void *state;             /* the backend's own, from begin to end */
} pl__backend_proof;

typedef struct pl__backend_ops {
    const char *name;
    /* The G1 work keeps the prover's threads busy (the CPU backend); when
     * false (a GPU) the G2 MSM beside it gets them. */
    bool g1_on_host;
    /* The backend's own bytes: h, G1 MSM scratch, resident tables. */
    void (*plan)(const pl_zkey *zkey, unsigned threads, pl__prove_plan *out);
    pl_status (*open)(void **instance, const pl__backend_config *cfg,
                      pl_error *err);
    void (*close)(void *instance);
    pl_status (*begin)(pl__backend_proof *proof, pl_error *err);
    /* abc: a, b, c on the domain (3 x domain, Montgomery form), which the
     * backend may overwrite; the prover frees it when h returns. */
    pl_status (*h)(pl__backend_proof *proof, blst_fr *abc, pl_error *err);
    pl_status (*msm_g1)(pl__backend_proof *proof, pl__g1_sum sum,
                        blst_p1 *out, pl_error *err);
    void (*end)(pl__backend_proof *proof);
    /* The device's memory as its driver sees it (used, total) and what was
     * used when the backend opened it, before any allocation of ours (the
     * CUDA context; other processes); false when the backend has no device
     * open.  NULL for host-only backends. */
    bool (*device_memory)(uint64_t *used_bytes, uint64_t *total_bytes,
                          uint64_t *used_at_open_bytes);
    /* Whether the backend's device faulted (a sticky CUDA error) in this
     * process, so that nothing should be opened on it again; why says
     * what happened.  NULL for backends that cannot fault so. */
    bool (*faulted)(char *why, size_t why_len);
    /* Whether the backend can run here now (its device counted, not
     * faulted, and opening), else why not.  NULL: always. */
    bool (*usable)(char *why, size_t why_len);
} pl__backend_ops;

extern const pl__backend_ops pl__backend_cpu;
/* The CUDA backend over the real device (NULL in builds without nvcc),
 * and over the host emulation of gpu_emu.c (for tests). */
extern const pl__backend_ops *const pl__backend_cuda;
extern const pl__backend_ops pl__backend_cuda_emulated;

/* Whether the CUDA backend can run here: true when this build has it, a
 * device is counted, it has not faulted in this process and it opens;
 * else false with the reason in why. */
bool pl__backend_cuda_usable(char *why, size_t why_len);
/* The device bytes the CUDA backend allocates when it opens a circuit of
 * this zkey's shape (points, tables, one proof's a/b/c and witness), less
 * the MSM's sort and scan scratch, which the device's CUB sizes, and the
 * kernels' stack reservation: for the planner, which has no device.  Reads
 * the zkey's header fields only. */
uint64_t pl__backend_cuda_device_bytes(const pl_zkey *zkey);

/* The backend for a name: "cpu"; "cuda" (NULL with a reason in note when
 * this build has no CUDA or no device is found); "auto" (CUDA when a
 * device is found, else the CPU, with the reason in note).  NULL and a
 * note for unknown names.  note gets "" when there is nothing to say. */
const pl__backend_ops *pl__backend_find(const char *name, char *note,
                                        size_t note_len);

#endif /* PL_BACKEND_H */
