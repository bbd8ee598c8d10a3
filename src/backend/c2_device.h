/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 prover's device part (src/backend/cuda/c2_device.c): the work of
 * a bellperson-style proof that runs on the CUDA backend, over state kept
 * resident on the device between proofs: the SRS's G1 bases and the NTT
 * tables of bellperson's domain.  The prover (src/groth16/c2.c) keeps
 * everything else: the assignments, the G2 MSM, blinding and assembly.
 *
 *   h     a, b, c (evaluations on the domain) to h's coefficients: to the
 *         odd coset, (a b - c) / t there (t = -2), and back; exactly what
 *         the CPU prover computes, as canonical scalars;
 *   msm   sum s_i P_i over one of the four G1 base sets, for standard-form
 *         (canonical) scalars from the host, or over h's coefficients
 *         where the last h left them on the device.
 *
 * Opened on the real device (when the CUDA backend is usable) or on the
 * host emulation of gpu_emu.c (tests).  Every device byte is class device,
 * allocated at open, checked first against the device's free memory with
 * the device layer's headroom: a proof allocates nothing on the device.
 *
 * Threads: every call takes the device's lock (pl__gpu_lock, the one the
 * zkey backend's proofs take) for its duration and returns with the device
 * idle, so calls on one or several objects from several threads are
 * serialized, never interleaved on the device.  What a caller must order
 * itself: h's coefficients stay on the device only until the object's next
 * MSM of host scalars or next h (see pl__c2_device_msm).
 *
 * Nothing here knows about the prover above it (no groth16/ types).
 */
#ifndef PL_BACKEND_C2_DEVICE_H
#define PL_BACKEND_C2_DEVICE_H

#include "proofline.h"
#include "blst.h"

#include <stdbool.h>

struct pl__ntt_plan;

/* The base sets, in the order of the arrays open takes. */
enum {
    PL__C2_BASES_H = 0,  /* n - 1 points: h's coefficients */
    PL__C2_BASES_L = 1,  /* the aux assignment's */
    PL__C2_BASES_A = 2,  /* the a query's (density-gathered scalars) */
    PL__C2_BASES_B_G1 = 3,
    PL__C2_BASES_COUNT = 4
};

typedef struct pl__c2_device pl__c2_device;

/* Opens the state for a domain of 2^log2n (plan: the CPU plan of that
 * size with bellperson's root and coset generator, read here only) and
 * the four G1 base sets bases[k] of counts[k] affine points each (blst's
 * layout, Montgomery form, all-zero bytes for infinity, as c2.c decodes
 * them; read here only, NULL where counts[k] is 0).  emulated: on the host
 * emulation, else on the real device, failing with PL_EUNSUPPORTED and
 * the reason where the CUDA backend is not usable (no nvcc in the build,
 * no device, a fault earlier in this process); PL_ENOMEM with the bytes
 * when the device's free memory cannot hold it; PL_EUNSUPPORTED for sets
 * beyond the device MSM's 2^28 - 1 points. */
pl_status pl__c2_device_open(pl__c2_device **out, bool emulated,
                             const struct pl__ntt_plan *plan, unsigned log2n,
                             const blst_p1_affine *const bases[4],
                             const size_t counts[4], pl_error *err);
/* h's n - 1 coefficients from a, b, c (n = 2^log2n values each,
 * Montgomery form, zero past the assignment's abc_size), as c2.c's
 * h_coefficients computes them, into h_out (standard-form scalars, n - 1
 * of them), or only kept on the device when h_out is NULL. */
pl_status pl__c2_device_h(pl__c2_device *d, const blst_fr *a,
                          const blst_fr *b, const blst_fr *c,
                          pl_scalar *h_out, pl_error *err);
/* out = sum scalars[i] bases[which][i] for i < n (n <= counts[which]),
 * scalars in standard form (below r; bit 255 is ignored, as the CPU MSM
 * does).  scalars NULL, for which = PL__C2_BASES_H only (and n below
 * 2^log2n): h's coefficients from this object's last pl__c2_device_h,
 * still on the device (no upload), valid until its next MSM of host
 * scalars or next h; PL_EUSAGE when they are not there.  Returns when the
 * sum is in out (the device idle again). */
pl_status pl__c2_device_msm(pl__c2_device *d, unsigned which,
                            const pl_scalar *scalars, size_t n, blst_p1 *out,
                            pl_error *err);
/* Frees the device state (NULL: nothing). */
void pl__c2_device_close(pl__c2_device *d);
/* The device bytes open allocates, for planning without a device: the
 * bases, the tables and the work buffer, less the MSM sort's and scan's
 * own storage (CUB's, sized by the device at open: small beside the rest)
 * and the kernels' stack reservation of the process's device object. */
uint64_t pl__c2_device_bytes(unsigned log2n, const size_t counts[4]);

#endif /* PL_BACKEND_C2_DEVICE_H */
