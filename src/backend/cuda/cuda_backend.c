/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend: the backend primitives (backend.h) on a GPU, for every
 * key format (the shape says the domain, its roots and H's form).  The
 * skeleton runs the G2 sum on its CPU threads beside it (as SupraSeal
 * does; the split prove gives it the time).
 *
 *   open:    per circuit, uploads the four G1 base sets (H, A, B1, C) and
 *            the NTT tables (to the odd coset and back), and allocates the
 *            device buffers one proof uses (a/b/c, the scalars, MSM
 *            scratch).  All of it is resident: a proof allocates nothing on
 *            the device, so device memory is bounded by construction and
 *            checked against the device's free memory up front.
 *   begin:   takes the device (its lock) until end.
 *   h:       uploads a, b, c through the pinned staging buffers (each
 *            transform overlaps the next upload) and the A sum's scalars,
 *            then a b - c on the odd coset, and for PL__H_COEFFICIENTS the
 *            way back to h's coefficients; h stays on the device.
 *   msm_g1:  the MSMs for H (over h where it stayed), A, B1 and C over the
 *            device's points; a sum's scalars are uploaded unless they lie
 *            inside the last upload (the zkey's A, B1 and C all read the
 *            witness: one upload serves them), and Montgomery-form ones
 *            are converted there by a kernel.
 *   end:     waits for the device's queued work and releases it.
 *
 * Per curve (the shape's): BLS12-381's keys and BN254's (snarkjs's bn128)
 * run the same schedules over their curve's kernels (gpu.h: each call
 * names the curve once, and the device takes that curve's kernel set);
 * the sizes that differ (a BN254 affine point is 64 bytes, BLS12-381's 96)
 * are read from the shape here.  B's G2 sum stays the skeleton's on the
 * CPU for both, in the curve's group (backend.h).
 *
 * One device object per GPU, shared by every circuit's instance (it holds
 * the streams, events and staging buffers); device 0 for now.  The same
 * code runs over the host emulation (pl__backend_cuda_emulated), which is
 * how make test checks it bit for bit against the CPU backend.
 */
#include "backend/backend.h"
#include "backend/cuda/gpu.h"
#include "backend/cuda/process_device.h"
#include "field/field.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/lock.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- the device objects, one per GPU of the process ----------------------- */

static pl__lock device_lock = PL__LOCK_INITIALIZER;
static struct {
    pl__gpu *gpu;
    unsigned users;
} devices[PL_GPU_MAX_DEVICES];

/* Every use of device_lock goes through these (util/lock.h), so that the
 * *_locked functions can assert that their caller holds it. */
static void lock_device(void)
{
    pl__lock_acquire(&device_lock);
}

static void unlock_device(void)
{
    pl__lock_release(&device_lock);
}

static inline bool device_lock_mine(void)
{
    return pl__lock_mine(&device_lock);
}

/* A device that met a sticky fault is not used again by this process (CUDA
 * documents those faults as unrecoverable in the process that met them):
 * its object refuses every call, is reset when its last user closes, and
 * the fault stays here, per implementation and device, so that the
 * backend reports that device faulted (auto and the engine's fallback take
 * the CPU, or the other devices) and no new object is opened on it.
 * Under device_lock. */
static struct {
    const pl__gpu_impl *impl;
    bool faulted[PL_GPU_MAX_DEVICES];
    pl_error fault[PL_GPU_MAX_DEVICES];
} faults[2];

static const pl_error *recorded_fault_locked(const pl__gpu_impl *impl,
                                             int ordinal)
{
    assert(device_lock_mine());
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        if (faults[i].impl == impl)
            return faults[i].faulted[ordinal] ? &faults[i].fault[ordinal]
                                              : NULL;
    return NULL;
}

/* Keeps device `ordinal`'s fault, if its object has one, for the
 * process. */
static void record_fault_locked(int ordinal)
{
    assert(device_lock_mine());
    pl__gpu *gpu = devices[ordinal].gpu;
    pl_error fault;
    if (!gpu || !pl__gpu_faulted(gpu, &fault))
        return;
    const pl__gpu_impl *impl = pl__gpu_impl_of(gpu);
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        if (faults[i].impl == impl || !faults[i].impl) {
            faults[i].impl = impl;
            if (!faults[i].faulted[ordinal]) {
                faults[i].faulted[ordinal] = true;
                faults[i].fault[ordinal] = fault;
            }
            return;
        }
}

/* Whether the implementation's device `ordinal` faulted in this process,
 * with why. */
static bool impl_faulted(const pl__gpu_impl *impl, int ordinal, char *why,
                         size_t why_len)
{
    if (ordinal < 0 || ordinal >= PL_GPU_MAX_DEVICES)
        return false;
    lock_device();
    if (devices[ordinal].gpu && pl__gpu_impl_of(devices[ordinal].gpu) == impl)
        record_fault_locked(ordinal);
    const pl_error *fault = recorded_fault_locked(impl, ordinal);
    if (fault && why_len)
        snprintf(why, why_len, "CUDA device %d faulted earlier in this "
                 "process (%s)", ordinal, fault->msg);
    unlock_device();
    return fault != NULL;
}

pl_status pl__cuda_device_acquire(const pl__gpu_impl *impl, int ordinal,
                                  pl__gpu **out, pl_error *err)
{
    pl_status st = PL_OK;
    if (ordinal < 0 || ordinal >= PL_GPU_MAX_DEVICES)
        return pl__error_set(err, PL_EUSAGE, "cuda backend: device %d: this "
                             "build drives devices 0 to %d", ordinal,
                             PL_GPU_MAX_DEVICES - 1);
    lock_device();
    const pl_error *fault = recorded_fault_locked(impl, ordinal);
    pl__gpu **gpu = &devices[ordinal].gpu;
    if (fault) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "cuda backend: device %d faulted earlier in this "
                           "process and is not used again: %s", ordinal,
                           fault->msg);
    } else if (!*gpu) {
        /* The device object is the process's, shared by every engine: its
         * pinned buffers belong to no engine's accounting scope. */
        pl__alloc_scope *outer = pl__alloc_scope_enter(NULL);
        st = pl__gpu_open(gpu, impl, ordinal, err);
        pl__alloc_scope_enter(outer);
    } else if (pl__gpu_impl_of(*gpu) != impl) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "cuda backend: device %d is open as %s, not %s",
                           ordinal, pl__gpu_impl_of(*gpu)->name, impl->name);
    }
    if (st == PL_OK) {
        devices[ordinal].users++;
        *out = *gpu;
    }
    unlock_device();
    return st;
}

void pl__cuda_device_release(int ordinal)
{
    lock_device();
    if (devices[ordinal].users && --devices[ordinal].users == 0) {
        record_fault_locked(ordinal);
        /* the process's object, opened outside any engine's scope; a
         * faulted one is reset as it closes */
        pl__alloc_scope *outer = pl__alloc_scope_enter(NULL);
        pl__gpu_close(devices[ordinal].gpu);
        pl__alloc_scope_enter(outer);
        devices[ordinal].gpu = NULL;
    }
    unlock_device();
}

static bool cuda_device_memory(int ordinal, uint64_t *used, uint64_t *total,
                               uint64_t *used_at_open)
{
    bool ok = false;
    if (ordinal < 0 || ordinal >= PL_GPU_MAX_DEVICES)
        return false;
    lock_device();
    pl__gpu *gpu = devices[ordinal].gpu;
    if (gpu) {
        uint64_t free_bytes;
        pl_error ignored;
        ok = pl__gpu_mem_info(gpu, &free_bytes, total, &ignored) == PL_OK &&
             *total;
        *used = ok ? *total - free_bytes : 0;
        *used_at_open = ok ? pl__gpu_used_at_open(gpu) : 0;
    }
    unlock_device();
    return ok;
}

/* ---- plan ---------------------------------------------------------------- */

#define FR_BYTES ((uint64_t)sizeof(blst_fr)) /* either curve's Fr */

/* A G1 base point's bytes on the shape's curve (the zkey's layout). */
static uint64_t affine_bytes(const pl__backend_shape *shape)
{
    return shape->curve == PL__CURVE_BN254 ? sizeof(pl__bn254_g1_affine)
                                           : sizeof(blst_p1_affine);
}

/* The device buffers of an instance, in one table so that open, close and
 * the plan agree on them; the points' indices are the sums'. */
enum {
    BUF_POINTS = 0, /* + PL__SUM_H .. PL__SUM_C */
    BUF_ABC = PL__SUM_COUNT,
    BUF_SCALARS,
    BUF_MSM_SCRATCH,
    BUF_COUNT
};

typedef struct {
    uint64_t bytes[BUF_COUNT];
    uint64_t ntt_bytes; /* the NTT set, allocated by gpu.c */
} device_layout;

static uint64_t align256(uint64_t x)
{
    return (x + 255) & ~(uint64_t)255;
}

static size_t largest_set(const pl__backend_shape *shape, int first)
{
    size_t most = 0;
    for (int k = first; k < PL__SUM_COUNT; k++)
        if (shape->counts[k] > most)
            most = shape->counts[k];
    return most;
}

/* The largest scratch of any MSM of at most max_n points.  The shape
 * changes with ceil(log2 n) (the window), and within one shape every
 * buffer grows with n, so the largest is at a power of two or at max_n.
 * With gpu NULL (planning without a device), less the sort's and scan's
 * storage, which the device's CUB sizes. */
static pl_status scratch_bound(pl__gpu *gpu, pl__curve curve, size_t max_n,
                               uint64_t *bytes, pl_error *err)
{
    *bytes = 0;
    for (uint64_t m = 1; max_n; m *= 2) {
        uint32_t size = (uint32_t)(m < max_n ? m : max_n);
        uint64_t b = 0;
        if (gpu) {
            pl_status st = pl__gpu_msm_scratch_bytes(gpu, curve, &b, size,
                                                     err);
            if (st != PL_OK)
                return st;
        } else {
            b = pl__gpu_msm_layout_bytes(curve, size);
        }
        if (b > *bytes)
            *bytes = b;
        if (size == max_n)
            break;
    }
    return PL_OK;
}

/* Everything but the MSM's scratch, which layout_for sizes. */
static void layout_fixed(const pl__backend_shape *shape, device_layout *out)
{
    uint64_t n = (uint64_t)1 << shape->log2n;
    memset(out, 0, sizeof(*out));
    for (int k = 0; k < PL__SUM_COUNT; k++)
        out->bytes[BUF_POINTS + k] = (uint64_t)shape->counts[k] *
                                     affine_bytes(shape);
    out->bytes[BUF_ABC] = 3 * n * FR_BYTES;
    out->bytes[BUF_SCALARS] = align256(largest_set(shape, PL__SUM_A) *
                                       FR_BYTES);
    out->ntt_bytes = pl__gpu_ntt_set_bytes(shape->log2n);
}

/* PL_EUNSUPPORTED for a set beyond the device MSM's 32-bit indices. */
static pl_status check_counts(const pl__backend_shape *shape,
                              const char *name, pl_error *err)
{
    for (int k = 0; k < PL__SUM_COUNT; k++)
        if (shape->counts[k] > PL_CU_MSM_MAX_POINTS)
            return pl__error_set(err, PL_EUNSUPPORTED,
                                 "%s: a base set of %zu points is more than "
                                 "the CUDA backend's MSM takes (2^28 - 1)",
                                 name, shape->counts[k]);
    return PL_OK;
}

/* The curves with kernels (gpu.h's sets) and their domains. */
static pl_status check_curve(const pl__backend_shape *shape, const char *name,
                             pl_error *err)
{
    if (shape->curve != PL__CURVE_BLS12_381 &&
        shape->curve != PL__CURVE_BN254)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: the cuda backend has "
                             "no kernels for curve %s: use --backend cpu",
                             name, pl__curve_name(shape->curve));
    if (shape->curve != PL__CURVE_BN254)
        return PL_OK;
    if (shape->log2n > PL__NTT_BN254_MAX_LOG)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "%s: domain 2^%u is larger than BN254 allows: "
                             "its scalar field has roots of unity of order "
                             "up to 2^%u only (two-adicity %u)",
                             name, shape->log2n, PL__NTT_BN254_MAX_LOG,
                             PL__NTT_BN254_MAX_LOG);
    /* the CPU backend's set of BN254 shapes (snarkjs's zkeys), so that the
     * two backends prove the same keys */
    if (shape->h_form != PL__H_ODD_COSET || shape->roots != PL__ROOTS_SNARKJS ||
        shape->montgomery_scalars)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: cuda backend: a %s "
                             "key in bellperson's form (only snarkjs's zkeys "
                             "are read on this curve)", name,
                             pl__curve_name(shape->curve));
    return PL_OK;
}

static pl_status layout_for(const pl__backend_shape *shape, pl__gpu *gpu,
                            device_layout *out, pl_error *err)
{
    layout_fixed(shape, out);
    return scratch_bound(gpu, shape->curve, largest_set(shape, PL__SUM_H),
                         &out->bytes[BUF_MSM_SCRATCH], err);
}

static uint64_t cuda_device_bytes(const pl__backend_shape *shape)
{
    device_layout layout;
    pl_error ignored;
    /* a set too large for the device MSM: open refuses it; plan the rest */
    layout_for(shape, NULL, &layout, &ignored);
    uint64_t total = layout.ntt_bytes;
    for (int i = 0; i < BUF_COUNT; i++)
        total += layout.bytes[i];
    return total;
}

static void cuda_plan(const pl__backend_shape *shape, unsigned threads,
                      pl__prove_plan *out)
{
    (void)threads;
    memset(out, 0, sizeof(*out));
    /* A proof's host bytes are the skeleton's (a/b/c until uploaded, the
     * pending state, the G2 sum); h and the G1 sums live on the device,
     * and Montgomery-form scalars are converted there.  Resident: the
     * device object's pinned staging and chunk buffers, and the NTT plan
     * and the two constant arrays that open builds, uploads and frees.
     * The device buffers are not planned here: they are the device's, and
     * open checks them against its free memory before allocating. */
    out->resident_bytes =
        PL_GPU_STAGING_BYTES + PL_GPU_CHUNK_BYTES +
        pl__ntt_plan_bytes(shape->log2n) +
        2 * pl__gpu_ntt_constants_count(shape->log2n) * FR_BYTES;
}

/* ---- open and close ------------------------------------------------------ */

typedef struct {
    pl__backend_shape shape;
    int ordinal;
    pl__gpu *gpu;
    device_layout layout;
    void *buf[BUF_COUNT];
    pl__gpu_ntt_set ntt;
} cuda_instance;

/* A proof's state: which host scalars BUF_SCALARS holds (the last
 * upload), so that a sum whose scalars lie inside it uploads nothing. */
typedef struct {
    const pl_scalar *v;
    size_t n;
    bool montgomery;
} resident_scalars;

static void cuda_close(void *instance)
{
    cuda_instance *ci = instance;
    if (!ci)
        return;
    for (int i = 0; i < BUF_COUNT; i++)
        pl__gpu_free(ci->gpu, ci->buf[i], ci->layout.bytes[i]);
    if (ci->ntt.device)
        pl__gpu_ntt_set_destroy(ci->gpu, &ci->ntt);
    if (ci->gpu)
        pl__cuda_device_release(ci->ordinal);
    free(ci);
}

/* The NTT tables on the device: the CPU plan of the shape's curve and
 * roots, its twiddles and both constant arrays computed on the host,
 * uploaded, and freed again. */
static pl_status upload_ntt_tables(cuda_instance *ci, pl__pool *pool,
                                   pl_error *err)
{
    pl__ntt_plan *plan = NULL;
    const unsigned log2n = ci->shape.log2n;
    pl_status st =
        ci->shape.roots == PL__ROOTS_BLSTRS
            ? pl__ntt_plan_create_blstrs(&plan, log2n, pool, err)
            : pl__ntt_plan_create_curve(&plan, ci->shape.curve, log2n, pool,
                                        err);
    if (st == PL_OK) {
        pl__gpu_lock(ci->gpu);
        st = pl__gpu_ntt_set_create(ci->gpu, &ci->ntt, plan, log2n, err);
        if (st == PL_OK) /* the host copies go next */
            st = pl__gpu_sync(ci->gpu, err);
        pl__gpu_unlock(ci->gpu);
    }
    pl__ntt_plan_destroy(plan);
    return st;
}

static pl_status open_with(void **instance, const pl__backend_config *cfg,
                           const pl__gpu_impl *impl, pl_error *err)
{
    *instance = NULL;
    const char *name = cfg->name ? cfg->name : "the circuit";
    /* refused before anything is uploaded: a curve without kernels, a
     * BN254 domain beyond its two-adicity (the NTT plan, made after the
     * uploads, would refuse it too), bellperson's form on BN254 */
    pl_status st = check_curve(&cfg->shape, name, err);
    if (st == PL_OK)
        st = check_counts(&cfg->shape, name, err);
    if (st != PL_OK)
        return st;
    cuda_instance *ci = calloc(1, sizeof(*ci));
    if (!ci)
        return pl__error_set(err, PL_ENOMEM, "cuda backend: out of memory");
    ci->shape = cfg->shape;
    ci->ordinal = cfg->device;
    if ((st = pl__cuda_device_acquire(impl, cfg->device, &ci->gpu, err)) !=
        PL_OK) {
        free(ci);
        return st;
    }

    /* all of it or nothing, checked before the first byte */
    uint64_t need = 0, free_bytes = 0, total_bytes = 0;
    if ((st = layout_for(&ci->shape, ci->gpu, &ci->layout, err)))
        goto fail;
    need = ci->layout.ntt_bytes;
    for (int i = 0; i < BUF_COUNT; i++)
        need += ci->layout.bytes[i];
    if ((st = pl__gpu_mem_info(ci->gpu, &free_bytes, &total_bytes, err)))
        goto fail;
    /* the headroom is for what the driver takes after this check (CUB's
     * kernels loading, allocation rounding; see gpu.h) */
    if (total_bytes && need + PL_GPU_HEADROOM_BYTES > free_bytes) {
        char b1[24], b2[24], b3[24];
        st = pl__error_set(
            err, PL_ENOMEM,
            "%s: the CUDA backend needs %s of device memory for this circuit "
            "(and %s of headroom) but %s has %s free", name,
            pl_format_bytes(b1, sizeof(b1), need),
            pl_format_bytes(b3, sizeof(b3), PL_GPU_HEADROOM_BYTES),
            pl__gpu_description(ci->gpu),
            pl_format_bytes(b2, sizeof(b2), free_bytes));
        goto fail;
    }
    for (int i = 0; i < BUF_COUNT; i++)
        if (ci->layout.bytes[i] &&
            !(ci->buf[i] = pl__gpu_alloc(ci->gpu, ci->layout.bytes[i], err))) {
            st = PL_ENOMEM;
            goto fail;
        }

    /* the bases go up as they are (the CPU's layout, see arith/g1.h) */
    pl__gpu_lock(ci->gpu);
    for (int k = 0; k < PL__SUM_COUNT && st == PL_OK; k++)
        if (ci->layout.bytes[BUF_POINTS + k])
            st = pl__gpu_upload(ci->gpu, ci->buf[BUF_POINTS + k],
                                cfg->bases[k],
                                ci->layout.bytes[BUF_POINTS + k], err);
    pl__gpu_unlock(ci->gpu);
    if (st != PL_OK || (st = upload_ntt_tables(ci, cfg->pool, err)) != PL_OK)
        goto fail;
    *instance = ci;
    return PL_OK;
fail:
    cuda_close(ci);
    return st;
}

/* ---- a proof's steps ------------------------------------------------------ */

/* One proof at a time on the device (its buffers are shared); its
 * uploads wait for the previous proof's kernels on the device too, so a
 * copy can never overwrite a buffer a late kernel still reads.  A faulted
 * device refuses the proof at once, naming its fault. */
static pl_status cuda_begin(pl__backend_proof *proof, pl_error *err)
{
    cuda_instance *ci = proof->instance;
    resident_scalars *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return pl__error_set(err, PL_ENOMEM, "cuda backend: out of memory");
    pl__gpu_lock(ci->gpu);
    pl_status st = pl__gpu_order_uploads(ci->gpu, err);
    if (st != PL_OK) {
        pl__gpu_unlock(ci->gpu);
        free(rs);
        return st;
    }
    proof->state = rs;
    return PL_OK;
}

/* Also after a failure: both streams drained before the next proof may
 * take the device (a failed step can leave copies and kernels queued). */
static void cuda_end(pl__backend_proof *proof)
{
    cuda_instance *ci = proof->instance;
    pl_error ignored;
    pl__gpu_quiesce(ci->gpu, &ignored);
    pl__gpu_unlock(ci->gpu);
    free(proof->state);
    proof->state = NULL;
}

/* The device copy of a sum's scalars: inside the last upload, or
 * uploaded now (and converted from Montgomery form on the device). */
static pl_status device_scalars(cuda_instance *ci, resident_scalars *rs,
                                const pl__scalars *s, const void **out,
                                pl_error *err)
{
    if (s->n == 0) { /* an empty sum reads nothing */
        *out = ci->buf[BUF_SCALARS];
        return PL_OK;
    }
    if (rs->v && s->montgomery == rs->montgomery && s->v >= rs->v &&
        s->v + s->n <= rs->v + rs->n) {
        *out = (const pl_scalar *)ci->buf[BUF_SCALARS] + (s->v - rs->v);
        return PL_OK;
    }
    rs->v = NULL; /* whatever happens next, the buffer's old contents go */
    pl_status st = pl__gpu_upload(ci->gpu, ci->buf[BUF_SCALARS], s->v,
                                  (uint64_t)s->n * FR_BYTES, err);
    if (st == PL_OK && s->montgomery)
        st = pl__gpu_from_montgomery(ci->gpu, ci->shape.curve,
                                     ci->buf[BUF_SCALARS], (uint32_t)s->n,
                                     err);
    if (st != PL_OK)
        return st;
    rs->v = s->v;
    rs->n = s->n;
    rs->montgomery = s->montgomery;
    *out = ci->buf[BUF_SCALARS];
    return PL_OK;
}

/* Where h's scalars are after h: over c's slot (odd coset), or at a's
 * (coefficients, written there by the way back). */
static const blst_fr *h_slot(const cuda_instance *ci)
{
    const uint64_t n = (uint64_t)1 << ci->shape.log2n;
    const blst_fr *abc = ci->buf[BUF_ABC];
    return ci->shape.h_form == PL__H_ODD_COSET ? abc + 2 * n : abc;
}

static pl_status cuda_h(pl__backend_proof *proof, blst_fr *abc, pl_error *err)
{
    cuda_instance *ci = proof->instance;
    pl__gpu *gpu = ci->gpu;
    const uint64_t n = (uint64_t)1 << ci->shape.log2n;
    blst_fr *d_abc = ci->buf[BUF_ABC];
    const pl__scalars *first = &proof->scalars[PL__SUM_A];
    const void *unused;
    pl_status st;
    /* a, b, c: each transform queued behind its upload, so it runs while
     * the next vector is copied; then the A sum's scalars, the same way */
    for (int k = 0; k < 3; k++)
        if ((st = pl__gpu_upload(gpu, d_abc + k * n, abc + k * n,
                                 n * FR_BYTES, err)) ||
            (st = pl__gpu_to_odd_coset(gpu, d_abc + k * n, &ci->ntt.tables,
                                       err)))
            return st;
    if (first->n && first->n <= ci->shape.counts[PL__SUM_A] &&
        (st = device_scalars(ci, proof->state, first, &unused, err)))
        return st;
    if ((st = pl__gpu_coset_h(gpu, ci->shape.curve, d_abc, d_abc + n,
                              d_abc + 2 * n, (uint32_t)n, err)))
        return st;
    if (ci->shape.h_form == PL__H_COEFFICIENTS &&
        (st = pl__gpu_odd_coset_quotient(gpu, d_abc, d_abc + 2 * n,
                                         &ci->ntt.quotient, err)))
        return st;
    /* the wait costs nothing (the MSMs need h) and makes the stage's time
     * the transforms' rather than their queueing's */
    return pl__gpu_sync(gpu, err);
}

static pl_status cuda_msm_g1(pl__backend_proof *proof, pl__g1_sum sum,
                             blst_p1 *out, pl_error *err)
{
    cuda_instance *ci = proof->instance;
    const void *scalars;
    size_t n;
    pl_status st;
    if (sum < 0 || sum >= PL__SUM_COUNT)
        return pl__error_set(err, PL_EINTERNAL, "cuda backend: no sum %d",
                             (int)sum);
    if (sum == PL__SUM_H) {
        scalars = h_slot(ci);
        n = pl__shape_h_count(&ci->shape);
    } else {
        const pl__scalars *s = &proof->scalars[sum];
        if (s->n > ci->shape.counts[sum])
            return pl__error_set(err, PL_EINTERNAL, "cuda backend: %zu "
                                 "scalars for a set of %zu points", s->n,
                                 ci->shape.counts[sum]);
        if ((st = device_scalars(ci, proof->state, s, &scalars, err)))
            return st;
        n = s->n;
    }
    /* out: a blst_p1, or on BN254 a pl__bn254_g1 in its storage
     * (backend.h) */
    return pl__gpu_msm_g1(ci->gpu, ci->shape.curve, out,
                          ci->buf[BUF_POINTS + sum], scalars, (uint32_t)n,
                          ci->buf[BUF_MSM_SCRATCH],
                          ci->layout.bytes[BUF_MSM_SCRATCH], err);
}

static bool emulated_faulted(int ordinal, char *why, size_t why_len)
{
    return impl_faulted(&pl__gpu_impl_emulated, ordinal, why, why_len);
}

static int impl_device_count(const pl__gpu_impl *impl)
{
    char reason[200];
    int n = impl->device_count(reason, sizeof(reason));
    return n < 0 ? 0 : n > PL_GPU_MAX_DEVICES ? PL_GPU_MAX_DEVICES : n;
}

static int emulated_device_count(void)
{
    return impl_device_count(&pl__gpu_impl_emulated);
}

/* A backend is usable when a device is counted, has not faulted in this
 * process, and opens: the probe opens the process's device object (a
 * context, the kernels loaded, the stack reserved) and lets it go again
 * unless someone holds it, so a device that is counted but cannot be
 * opened is not chosen.  Any one device that does is enough. */
static bool impl_usable(const pl__gpu_impl *impl, char *why, size_t why_len)
{
    char reason[200] = "";
    int n = impl->device_count(reason, sizeof(reason));
    if (n <= 0) {
        snprintf(why, why_len, "no CUDA device found (%s)",
                 reason[0] ? reason : "none present");
        return false;
    }
    if (n > PL_GPU_MAX_DEVICES)
        n = PL_GPU_MAX_DEVICES;
    for (int d = 0; d < n; d++) {
        if (impl_faulted(impl, d, why, why_len))
            continue;
        pl__gpu *gpu;
        pl_error err = {0};
        if (pl__cuda_device_acquire(impl, d, &gpu, &err) != PL_OK) {
            snprintf(why, why_len, "CUDA device %d does not open (%s)", d,
                     err.msg);
            continue;
        }
        pl__cuda_device_release(d);
        return true;
    }
    return false;
}

static bool emulated_usable(char *why, size_t why_len)
{
    return impl_usable(&pl__gpu_impl_emulated, why, why_len);
}

/* ---- the two backends ---------------------------------------------------- */

/* They differ only in their name and in the devices they open. */
#define CUDA_BACKEND_OPS(label, open_fn, count_fn, faulted_fn, usable_fn)    \
    {                                                                         \
        .name = label, .g1_on_host = false, .plan = cuda_plan,                \
        .device_bytes = cuda_device_bytes, .open = open_fn,                   \
        .close = cuda_close, .begin = cuda_begin, .h = cuda_h,                \
        .msm_g1 = cuda_msm_g1, .end = cuda_end,                               \
        .device_count = count_fn, .device_memory = cuda_device_memory,        \
        .faulted = faulted_fn, .usable = usable_fn,                           \
    }

static pl_status emulated_open(void **instance, const pl__backend_config *cfg,
                               pl_error *err)
{
    return open_with(instance, cfg, &pl__gpu_impl_emulated, err);
}

const pl__backend_ops pl__backend_cuda_emulated =
    CUDA_BACKEND_OPS("cuda-emulated", emulated_open, emulated_device_count,
                     emulated_faulted, emulated_usable);

#ifdef PL_HAVE_CUDA
static pl_status real_open(void **instance, const pl__backend_config *cfg,
                           pl_error *err)
{
    return open_with(instance, cfg, &pl__gpu_impl_cuda, err);
}

static bool real_faulted(int ordinal, char *why, size_t why_len)
{
    return impl_faulted(&pl__gpu_impl_cuda, ordinal, why, why_len);
}

static int real_device_count(void)
{
    return impl_device_count(&pl__gpu_impl_cuda);
}

static bool real_usable(char *why, size_t why_len)
{
    return impl_usable(&pl__gpu_impl_cuda, why, why_len);
}

static const pl__backend_ops backend_cuda =
    CUDA_BACKEND_OPS("cuda", real_open, real_device_count, real_faulted,
                     real_usable);
const pl__backend_ops *const pl__backend_cuda = &backend_cuda;

bool pl__backend_cuda_usable(char *why, size_t why_len)
{
    return backend_cuda.usable(why, why_len);
}
#else
const pl__backend_ops *const pl__backend_cuda = NULL;

bool pl__backend_cuda_usable(char *why, size_t why_len)
{
    snprintf(why, why_len, "this build has no CUDA backend (nvcc was not "
             "found when it was built)");
    return false;
}
#endif
