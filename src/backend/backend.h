/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The backend interface: the compute primitives in which the CPU and the
 * GPU differ, below the one proof skeleton (src/groth16/prover.c), which
 * calls them in one straight line and owns everything else (the G2 sum,
 * blinding, assembly).  It knows nothing of key files: the two key decoders
 * (groth16/zkey_prover.c for snarkjs's zkey, groth16/c2.c for bellperson's
 * parameters) turn a key into the shape and base sets below, in the spirit
 * of sppark's msm_t (supranational/sppark msm/pippenger.cuh): resident
 * bases opened once per circuit, scalars given per call on the host or
 * already on the device (h), a Montgomery flag.
 *
 * A backend instance belongs to one circuit: it is opened over the key's
 * shape (the domain, which root generates it, the form H's scalars take)
 * and its four G1 base sets (H, A, B1, C: any counts), which it may copy to
 * a device and keeps resident until close.  Per proof, the skeleton
 * brackets the backend's steps with begin and end:
 *
 *   begin           the backend is this proof's until end (the GPU's lock);
 *                   the proof's A, B1 and C scalars are named then (host
 *                   memory, valid until end), so a backend may upload them
 *                   early;
 *   h               H's scalars from a, b, c (evaluations on the domain,
 *                   Montgomery form): to the odd coset, a b - c, and for
 *                   PL__H_COEFFICIENTS back to h = (a b - c) / t's monomial
 *                   coefficients; the backend keeps them (host or device);
 *   msm_g1 x 4      the sums for H (over h, where h left them), A, B1 and C
 *                   (over the scalars named at begin);
 *   end             always, after begin succeeded, also on failure: waits
 *                   for queued work and frees the proof's state.
 *
 * plan says, before open, how many bytes of each host buffer class one
 * proof's backend steps take and how many an instance keeps resident, so
 * admission can reserve them first; device memory is the device's to bound
 * (open checks it against the device's free memory), and device_bytes
 * says how much for planners without a device.
 *
 * The shape carries the key's curve (BLS12-381, BN254).  The element and
 * point types below are BLS12-381's by name and the storage of either
 * curve: on BN254 abc holds pl__bn254_fr (32 bytes, Montgomery form, as
 * blst_fr), the bases are the zkey's 64-byte G1 points, and msm_g1's out
 * receives a pl__bn254_g1 (Jacobian, smaller than blst_p1) -- one
 * interface, the curve read once per call.  A backend that has no code
 * for a curve refuses it at open (PL_EUNSUPPORTED naming it).
 *
 * Nothing here knows about the prover, the key formats or the engine.
 */
#ifndef PL_BACKEND_H
#define PL_BACKEND_H

#include "proofline.h"
#include "blst.h"
#include "field/bn254/curve.h"
#include "field/curve.h"
#include "msm/msm.h"
#include "util/clock.h"
#include "util/pool.h"

/* Bytes per buffer class one proof allocates at most, and the bytes kept
 * resident for the circuit while it is open. */
typedef struct pl__prove_plan {
    uint64_t bytes[PL_BUF_CLASS_COUNT];
    uint64_t resident_bytes;
} pl__prove_plan;

/* The four G1 sums of a proof, in the order the skeleton asks for them (H
 * first, so a backend can free H's scalars before the others), and the
 * index of their base sets. */
typedef enum {
    PL__SUM_H,  /* sum h_i H_i */
    PL__SUM_A,  /* sum a_i A_i */
    PL__SUM_B1, /* sum b_i B1_i (the G2 sum, the skeleton's, reads b too) */
    PL__SUM_C,  /* sum c_i C_i: the private query (snarkjs's C, bellperson's l) */
    PL__SUM_COUNT
} pl__g1_sum;

/* Which root of unity generates a key's domain: snarkjs's (from 5) or
 * blstrs's (from 7, bellperson's); the coset generator is the field's
 * multiplicative generator for both. */
typedef enum { PL__ROOTS_SNARKJS, PL__ROOTS_BLSTRS } pl__domain_roots;

/* The form H's scalars take, as the key's H points expect them. */
typedef enum {
    /* a b - c on the odd coset, n of them (snarkjs: its H points are in
     * the Lagrange basis of the coset and absorb the division by t) */
    PL__H_ODD_COSET,
    /* (a b - c) / t back in the monomial basis, n - 1 coefficients
     * (bellperson: its h query holds tau^i t(tau) / delta) */
    PL__H_COEFFICIENTS
} pl__h_form;

/* What an instance is planned and opened for: a key's shape. */
typedef struct pl__backend_shape {
    unsigned log2n;                 /* the domain: n = 2^log2n */
    pl__domain_roots roots;
    pl__h_form h_form;
    size_t counts[PL__SUM_COUNT];   /* each G1 base set's points; H's is n
                                     * (odd coset) or n - 1 (coefficients) */
    /* proofs may name Montgomery-form scalars (bellperson's in-memory
     * Scalar): the backend converts them (a buffer planned for it) */
    bool montgomery_scalars;
    pl__curve curve;                /* the key's (zero: BLS12-381) */
} pl__backend_shape;

/* The storage rule above, checked once. */
_Static_assert(sizeof(pl__bn254_g1) <= sizeof(blst_p1) &&
                   sizeof(pl__bn254_fr) == sizeof(blst_fr),
               "BN254's sums and scalars fit BLS12-381's storage");

/* The shape's MSM groups. */
static inline pl__msm_group_id pl__shape_g1(const pl__backend_shape *shape)
{
    return shape->curve == PL__CURVE_BN254 ? PL__MSM_BN254_G1
                                           : PL__MSM_BLS12_381_G1;
}

static inline pl__msm_group_id pl__shape_g2(const pl__backend_shape *shape)
{
    return shape->curve == PL__CURVE_BN254 ? PL__MSM_BN254_G2
                                           : PL__MSM_BLS12_381_G2;
}

/* H's scalars for a shape: n on the odd coset, n - 1 coefficients. */
static inline size_t pl__shape_h_count(const pl__backend_shape *shape)
{
    size_t n = (size_t)1 << shape->log2n;
    return shape->h_form == PL__H_ODD_COSET ? n : n - 1;
}

/* What an instance is opened with; bases and pool outlive it. */
typedef struct pl__backend_config {
    pl__backend_shape shape;
    /* the G1 base sets, counts[k] affine points each (blst_p1_affine's
     * bytes, Montgomery form, all-zero bytes for infinity; byte pointers,
     * as a zkey's sections may start at any offset); NULL where 0 */
    const uint8_t *bases[PL__SUM_COUNT];
    const char *name;  /* the key's file, for messages */
    pl__pool *pool;    /* the prover's threads */
    bool plain_msm;    /* see pl_prover_config */
    int device;        /* which of the backend's devices (0 on the host) */
} pl__backend_config;

/* One sum's scalars: n values of 32 bytes in host memory, standard form
 * (little-endian, below r; a value that is not is taken as its MSMs take
 * it: BLS12-381's ignore bit 255, BN254's read all 256 bits mod r), or with
 * montgomery blstrs's in-memory form (Montgomery limbs), which the backend
 * converts. */
typedef struct pl__scalars {
    const pl_scalar *v;
    size_t n;
    bool montgomery;
} pl__scalars;

/* One proof's pass through a backend, filled by the skeleton. */
typedef struct pl__backend_proof {
    void *instance;
    /* the A, B1 and C sums' scalars (scalars[PL__SUM_H] unused: H's are
     * the backend's own, from h), alive until end; n at most the set's */
    pl__scalars scalars[PL__SUM_COUNT];
    pl__stage_timer *timer;  /* for stage timings inside a step */
    void *state;             /* the backend's own, from begin to end */
} pl__backend_proof;

typedef struct pl__backend_ops {
    const char *name;
    /* The G1 work keeps the prover's threads busy (the CPU backend); when
     * false (a GPU) the G2 sum beside it gets them. */
    bool g1_on_host;
    /* The backend's own host bytes: h, G1 MSM scratch, resident tables. */
    void (*plan)(const pl__backend_shape *shape, unsigned threads,
                 pl__prove_plan *out);
    /* The device bytes open allocates for the shape, less what the device
     * alone can size (its sort's scratch, the kernels' stack): for
     * planners without a device.  NULL for host-only backends. */
    uint64_t (*device_bytes)(const pl__backend_shape *shape);
    pl_status (*open)(void **instance, const pl__backend_config *cfg,
                      pl_error *err);
    void (*close)(void *instance);
    pl_status (*begin)(pl__backend_proof *proof, pl_error *err);
    /* abc: a, b, c on the domain (3 x n, Montgomery form), which the
     * backend may overwrite; the skeleton frees it when h returns. */
    pl_status (*h)(pl__backend_proof *proof, blst_fr *abc, pl_error *err);
    pl_status (*msm_g1)(pl__backend_proof *proof, pl__g1_sum sum,
                        blst_p1 *out, pl_error *err);
    void (*end)(pl__backend_proof *proof);
    /* The devices an instance may open (their ordinals 0 to count - 1);
     * NULL for host-only backends, which have one: the host. */
    int (*device_count)(void);
    /* Device `device`'s memory as its driver sees it (used, total) and
     * what was used when the backend opened it, before any allocation of
     * ours (the CUDA context; other processes); false when the backend has
     * that device not open.  NULL for host-only backends. */
    bool (*device_memory)(int device, uint64_t *used_bytes,
                          uint64_t *total_bytes,
                          uint64_t *used_at_open_bytes);
    /* Whether device `device` faulted (a sticky CUDA error) in this
     * process, so that nothing should be opened on it again; why says
     * what happened.  NULL for backends that cannot fault so. */
    bool (*faulted)(int device, char *why, size_t why_len);
    /* Whether the backend can run here now (a device counted, not
     * faulted, and opening), else why not.  NULL: always. */
    bool (*usable)(char *why, size_t why_len);
    /* Batches: k proofs of one instance begun together (each with its own
     * begin, h and end), their G1 sums taken together.  NULL where the
     * backend has none (the CUDA backend: a batch is then proved one
     * proof after another).  plan_batch: the backend's bytes for k such
     * proofs, at most k times plan's in every class (so k proofs'
     * reservations cover a batch of them); msm_g1_batch: sum `sum` of
     * proofs[0..k-1] into outs[0..k-1], each the group element msm_g1
     * gives, H's scalars freed as msm_g1 frees them. */
    void (*plan_batch)(const pl__backend_shape *shape, unsigned threads,
                       size_t k, pl__prove_plan *out);
    pl_status (*msm_g1_batch)(pl__backend_proof *const *proofs, size_t k,
                              pl__g1_sum sum, blst_p1 *outs, pl_error *err);
} pl__backend_ops;

/* The backends, by name: "cpu"; "cuda" (NULL with a reason in note when
 * this build has no CUDA or no device is found); "auto" (CUDA when a
 * device is found, else the CPU, with the reason in note); and
 * "cuda-emulated", the CUDA backend over the host emulation of
 * cuda/gpu_emu.c (tests, and planners that want the CUDA backend's plan
 * without a device).  NULL and a note for unknown names.  note gets ""
 * when there is nothing to say. */
const pl__backend_ops *pl__backend_find(const char *name, char *note,
                                        size_t note_len);

/* The backends themselves, for backend.c's lookup and for tests, which
 * wrap them; the layers above choose by name. */
extern const pl__backend_ops pl__backend_cpu;
/* The CUDA backend over the real device (NULL in builds without nvcc),
 * and over the host emulation of gpu_emu.c. */
extern const pl__backend_ops *const pl__backend_cuda;
extern const pl__backend_ops pl__backend_cuda_emulated;

/* Whether the CUDA backend can run here: true when this build has it, a
 * device is counted, it has not faulted in this process and it opens;
 * else false with the reason in why. */
bool pl__backend_cuda_usable(char *why, size_t why_len);

#endif /* PL_BACKEND_H */
