/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend: the backend primitives (backend.h) on a GPU.  The
 * prover runs the G2 MSM on its CPU threads beside it (as SupraSeal does;
 * the split prove gives it the time).
 *
 *   open:    per circuit, uploads the zkey's G1 point sets (A, B1, C, H) and
 *            the NTT tables, and allocates the device buffers one proof
 *            uses (a/b/c, the witness, MSM scratch).  All of it is
 *            resident: a proof allocates nothing on the device, so device
 *            memory is bounded by construction and checked against the
 *            device's free memory up front.
 *   begin:   takes the device (its lock) until end.
 *   h:       uploads a, b, c and the witness through the pinned staging
 *            buffers (each transform overlaps the next upload), then
 *            h = a b - c on the device, where h stays.
 *   msm_g1:  the MSMs for H, A, B1 and C over the device's points.
 *   end:     waits for the device's queued work and releases it.
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
#include "formats/formats.h"
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


/* ---- the device object, one per process (per GPU) ----------------------- */

static pl__lock device_lock = PL__LOCK_INITIALIZER;
static pl__gpu *device;
static unsigned device_users;

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
 * the fault stays here, per implementation, so that the backend reports
 * itself faulted (auto and the engine's fallback take the CPU) and no new
 * object is opened.  Under device_lock. */
static struct {
    const pl__gpu_impl *impl;
    pl_error fault;
} faults[2];

static const pl_error *recorded_fault_locked(const pl__gpu_impl *impl)
{
    assert(device_lock_mine());
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        if (faults[i].impl == impl)
            return &faults[i].fault;
    return NULL;
}

/* Keeps the device object's fault, if it has one, for the process. */
static void record_fault_locked(pl__gpu *gpu)
{
    assert(device_lock_mine());
    pl_error fault;
    const pl__gpu_impl *impl = pl__gpu_impl_of(gpu);
    if (!pl__gpu_faulted(gpu, &fault) || recorded_fault_locked(impl))
        return;
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
        if (!faults[i].impl) {
            faults[i].impl = impl;
            faults[i].fault = fault;
            return;
        }
}

/* Whether the implementation's device faulted in this process, with why. */
static bool impl_faulted(const pl__gpu_impl *impl, char *why, size_t why_len)
{
    lock_device();
    if (device && pl__gpu_impl_of(device) == impl)
        record_fault_locked(device);
    const pl_error *fault = recorded_fault_locked(impl);
    if (fault && why_len)
        snprintf(why, why_len, "the CUDA device faulted earlier in this "
                 "process (%s)", fault->msg);
    unlock_device();
    return fault != NULL;
}

pl_status pl__cuda_device_acquire(const pl__gpu_impl *impl, pl__gpu **out,
                                  pl_error *err)
{
    pl_status st = PL_OK;
    lock_device();
    const pl_error *fault = recorded_fault_locked(impl);
    if (fault) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "cuda backend: the device faulted earlier in this "
                           "process and is not used again: %s", fault->msg);
    } else if (!device) {
        /* The device object is the process's, shared by every engine: its
         * pinned buffers belong to no engine's accounting scope. */
        pl__alloc_scope *outer = pl__alloc_scope_enter(NULL);
        st = pl__gpu_open(&device, impl, 0, err);
        pl__alloc_scope_enter(outer);
    } else if (pl__gpu_impl_of(device) != impl) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "cuda backend: device 0 is open as %s, not %s",
                           pl__gpu_impl_of(device)->name, impl->name);
    }
    if (st == PL_OK) {
        device_users++;
        *out = device;
    }
    unlock_device();
    return st;
}

void pl__cuda_device_release(void)
{
    lock_device();
    if (device_users && --device_users == 0) {
        record_fault_locked(device);
        /* the process's object, opened outside any engine's scope; a
         * faulted one is reset as it closes */
        pl__alloc_scope *outer = pl__alloc_scope_enter(NULL);
        pl__gpu_close(device);
        pl__alloc_scope_enter(outer);
        device = NULL;
    }
    unlock_device();
}

static bool cuda_device_memory(uint64_t *used, uint64_t *total,
                               uint64_t *used_at_open)
{
    bool ok = false;
    lock_device();
    if (device) {
        uint64_t free_bytes;
        pl_error ignored;
        ok = pl__gpu_mem_info(device, &free_bytes, total, &ignored) == PL_OK &&
             *total;
        *used = ok ? *total - free_bytes : 0;
        *used_at_open = ok ? pl__gpu_used_at_open(device) : 0;
    }
    unlock_device();
    return ok;
}

/* ---- plan ---------------------------------------------------------------- */

/* The device buffers of an instance, in one table so that open, close and
 * the plan agree on them. */
enum {
    BUF_POINTS_A, BUF_POINTS_B1, BUF_POINTS_C, BUF_POINTS_H,
    BUF_TWIDDLES, BUF_CONSTANTS, BUF_ABC, BUF_WITNESS, BUF_MSM_SCRATCH,
    BUF_COUNT
};

typedef struct {
    uint64_t bytes[BUF_COUNT];
} device_layout;

/* Everything but the MSM's scratch, whose sort and scan buffers are sized
 * by the device's CUB (layout_for). */
static void layout_fixed(const pl_zkey *zk, device_layout *out)
{
    uint64_t n = zk->domain_size;
    out->bytes[BUF_POINTS_A] = (uint64_t)zk->n_vars * PL__G1_BYTES;
    out->bytes[BUF_POINTS_B1] = (uint64_t)zk->n_vars * PL__G1_BYTES;
    out->bytes[BUF_POINTS_C] = (uint64_t)pl__zkey_n_private(zk) * PL__G1_BYTES;
    out->bytes[BUF_POINTS_H] = n * PL__G1_BYTES;
    out->bytes[BUF_TWIDDLES] = (n / 2 ? n / 2 : 1) * sizeof(blst_fr);
    out->bytes[BUF_CONSTANTS] = pl__gpu_ntt_constants_count(zk->log2_domain) * sizeof(blst_fr);
    out->bytes[BUF_ABC] = 3 * n * sizeof(blst_fr);
    out->bytes[BUF_WITNESS] = ((uint64_t)zk->n_vars + 1) * PL__FR_BYTES;
    out->bytes[BUF_MSM_SCRATCH] = 0;
}

static pl_status layout_for(const pl_zkey *zk, pl__gpu *gpu,
                            device_layout *out, pl_error *err)
{
    uint32_t msm_max = zk->domain_size > zk->n_vars ? zk->domain_size
                                                     : zk->n_vars;
    layout_fixed(zk, out);
    return pl__gpu_msm_scratch_bytes(gpu, &out->bytes[BUF_MSM_SCRATCH],
                                     msm_max, err);
}

uint64_t pl__backend_cuda_device_bytes(const pl_zkey *zk)
{
    device_layout layout;
    layout_fixed(zk, &layout);
    uint64_t total = 0;
    for (int i = 0; i < BUF_COUNT; i++)
        total += layout.bytes[i];
    return total;
}

static void cuda_plan(const pl_zkey *zk, unsigned threads, pl__prove_plan *out)
{
    memset(out, 0, sizeof(*out));
    /* A proof's host bytes are the prover's (a/b/c until uploaded, the
     * pending state, the G2 MSM); h and the G1 sums live on the device.
     * Resident: the device object's pinned staging and chunk buffers, and
     * the NTT plan and constants that open builds, uploads and frees.  The
     * device buffers are not planned here: they are the device's, and open
     * checks them against its free memory before allocating. */
    out->resident_bytes =
        PL_GPU_STAGING_BYTES + PL_GPU_CHUNK_BYTES +
        pl__ntt_plan_bytes(zk->log2_domain) +
        pl__gpu_ntt_constants_count(zk->log2_domain) * sizeof(blst_fr);
}

/* ---- open and close ------------------------------------------------------ */

typedef struct {
    const pl_zkey *zk;
    pl__gpu *gpu;
    device_layout layout;
    void *buf[BUF_COUNT];
    pl__gpu_ntt_tables tables;
} cuda_instance;

static void cuda_close(void *instance)
{
    cuda_instance *ci = instance;
    if (!ci)
        return;
    for (int i = 0; i < BUF_COUNT; i++)
        pl__gpu_free(ci->gpu, ci->buf[i], ci->layout.bytes[i]);
    if (ci->gpu)
        pl__cuda_device_release();
    free(ci);
}

/* The NTT tables on the device: the CPU plan's twiddles and the coset
 * constants, computed on the host, uploaded, and freed again. */
static pl_status upload_ntt_tables(cuda_instance *ci, pl__pool *pool,
                                   pl_error *err)
{
    const pl_zkey *zk = ci->zk;
    pl__ntt_plan *plan = NULL;
    blst_fr *constants = NULL;
    pl_status st = pl__ntt_plan_create(&plan, zk->log2_domain, pool, err);
    if (st == PL_OK &&
        !(constants = pl__gpu_ntt_constants(plan, zk->log2_domain, err)))
        st = PL_ENOMEM;
    if (st == PL_OK) {
        const blst_fr *twiddles;
        blst_fr unused_n_inv, unused_g;
        pl__ntt_plan_constants(plan, &twiddles, &unused_n_inv, &unused_g);
        pl__gpu_lock(ci->gpu);
        if (zk->domain_size >= 2)
            st = pl__gpu_upload(ci->gpu, ci->buf[BUF_TWIDDLES], twiddles,
                                ci->layout.bytes[BUF_TWIDDLES], err);
        if (st == PL_OK)
            st = pl__gpu_upload(ci->gpu, ci->buf[BUF_CONSTANTS], constants,
                                ci->layout.bytes[BUF_CONSTANTS], err);
        if (st == PL_OK) /* the host copies go next */
            st = pl__gpu_sync(ci->gpu, err);
        pl__gpu_unlock(ci->gpu);
    }
    pl__free(constants);
    pl__ntt_plan_destroy(plan);
    if (st == PL_OK)
        pl__gpu_ntt_tables_init(&ci->tables, zk->log2_domain,
                                ci->buf[BUF_TWIDDLES], ci->buf[BUF_CONSTANTS]);
    return st;
}

static pl_status open_with(void **instance, const pl__backend_config *cfg,
                           const pl__gpu_impl *impl, pl_error *err)
{
    *instance = NULL;
    cuda_instance *ci = calloc(1, sizeof(*ci));
    if (!ci)
        return pl__error_set(err, PL_ENOMEM, "cuda backend: out of memory");
    ci->zk = cfg->zkey;
    const pl_zkey *zk = ci->zk;
    pl_status st = pl__cuda_device_acquire(impl, &ci->gpu, err);
    if (st != PL_OK) {
        free(ci);
        return st;
    }

    /* all of it or nothing, checked before the first byte */
    uint64_t need = 0, free_bytes = 0, total_bytes = 0;
    if ((st = layout_for(zk, ci->gpu, &ci->layout, err)))
        goto fail;
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
            "(and %s of headroom) but %s has %s free",
            zk->path, pl_format_bytes(b1, sizeof(b1), need),
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

    /* the zkey's points go up as they are (blst's layout, see arith/g1.h) */
    const uint8_t *sets[4] = {zk->a, zk->b1, zk->c, zk->h};
    pl__gpu_lock(ci->gpu);
    for (int i = 0; i < 4 && st == PL_OK; i++)
        if (ci->layout.bytes[BUF_POINTS_A + i])
            st = pl__gpu_upload(ci->gpu, ci->buf[BUF_POINTS_A + i], sets[i],
                                ci->layout.bytes[BUF_POINTS_A + i], err);
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
    pl__gpu_lock(ci->gpu);
    pl_status st = pl__gpu_order_uploads(ci->gpu, err);
    if (st != PL_OK)
        pl__gpu_unlock(ci->gpu);
    return st;
}

/* Also after a failure: both streams drained before the next proof may
 * take the device (a failed step can leave copies and kernels queued). */
static void cuda_end(pl__backend_proof *proof)
{
    cuda_instance *ci = proof->instance;
    pl_error ignored;
    pl__gpu_quiesce(ci->gpu, &ignored);
    pl__gpu_unlock(ci->gpu);
}

static pl_status cuda_h(pl__backend_proof *proof, blst_fr *abc, pl_error *err)
{
    cuda_instance *ci = proof->instance;
    const pl_zkey *zk = ci->zk;
    pl__gpu *gpu = ci->gpu;
    uint64_t n = zk->domain_size;
    blst_fr *d_abc = ci->buf[BUF_ABC];
    pl_status st;
    /* a, b, c: each transform queued behind its upload, so it runs while
     * the next vector is copied */
    for (int k = 0; k < 3; k++)
        if ((st = pl__gpu_upload(gpu, d_abc + k * n, abc + k * n,
                                 n * sizeof(blst_fr), err)) ||
            (st = pl__gpu_to_odd_coset(gpu, d_abc + k * n, &ci->tables, err)))
            return st;
    if ((st = pl__gpu_upload(gpu, ci->buf[BUF_WITNESS], proof->wtns->values,
                             (uint64_t)zk->n_vars * PL__FR_BYTES, err)))
        return st;
    /* the wait costs nothing (the MSMs need h) and makes the stage's time
     * the transforms' rather than their queueing's */
    if ((st = pl__gpu_coset_h(gpu, d_abc, d_abc + n, d_abc + 2 * n,
                              (uint32_t)n, err)))
        return st;
    return pl__gpu_sync(gpu, err);
}

static pl_status cuda_msm_g1(pl__backend_proof *proof, pl__g1_sum sum,
                             blst_p1 *out, pl_error *err)
{
    cuda_instance *ci = proof->instance;
    const pl_zkey *zk = ci->zk;
    const uint8_t *w = ci->buf[BUF_WITNESS];
    const blst_fr *d_abc = ci->buf[BUF_ABC];
    const void *points, *scalars;
    uint32_t n;
    switch (sum) {
    case PL__SUM_H: /* h is over c's slot */
        points = ci->buf[BUF_POINTS_H];
        scalars = d_abc + 2 * (uint64_t)zk->domain_size;
        n = zk->domain_size;
        break;
    case PL__SUM_A:
        points = ci->buf[BUF_POINTS_A];
        scalars = w;
        n = zk->n_vars;
        break;
    case PL__SUM_B1:
        points = ci->buf[BUF_POINTS_B1];
        scalars = w;
        n = zk->n_vars;
        break;
    case PL__SUM_C:
        points = ci->buf[BUF_POINTS_C];
        scalars = w + ((uint64_t)zk->n_public + 1) * PL__FR_BYTES;
        n = pl__zkey_n_private(zk);
        break;
    default:
        return pl__error_set(err, PL_EINTERNAL, "cuda backend: no sum %d",
                             (int)sum);
    }
    return pl__gpu_msm_g1(ci->gpu, out, points, scalars, n,
                          ci->buf[BUF_MSM_SCRATCH],
                          ci->layout.bytes[BUF_MSM_SCRATCH], err);
}

static bool emulated_faulted(char *why, size_t why_len)
{
    return impl_faulted(&pl__gpu_impl_emulated, why, why_len);
}

/* A device is usable when it is counted, has not faulted in this process,
 * and opens: the probe opens the process's device object (a context, the
 * kernels loaded, the stack reserved) and lets it go again unless someone
 * holds it, so a device that is counted but cannot be opened is not
 * chosen. */
static bool impl_usable(const pl__gpu_impl *impl, char *why, size_t why_len)
{
    char reason[200] = "";
    if (impl->device_count(reason, sizeof(reason)) <= 0) {
        snprintf(why, why_len, "no CUDA device found (%s)",
                 reason[0] ? reason : "none present");
        return false;
    }
    if (impl_faulted(impl, why, why_len))
        return false;
    pl__gpu *gpu;
    pl_error err = {0};
    if (pl__cuda_device_acquire(impl, &gpu, &err) != PL_OK) {
        snprintf(why, why_len, "the CUDA device does not open (%s)", err.msg);
        return false;
    }
    pl__cuda_device_release();
    return true;
}

static bool emulated_usable(char *why, size_t why_len)
{
    return impl_usable(&pl__gpu_impl_emulated, why, why_len);
}

/* ---- the two backends ---------------------------------------------------- */

/* They differ only in their name and in the device they open. */
#define CUDA_BACKEND_OPS(label, open_fn, faulted_fn, usable_fn)                                      \
    {                                                                         \
        .name = label, .g1_on_host = false, .plan = cuda_plan,                \
        .open = open_fn, .close = cuda_close, .begin = cuda_begin,            \
        .h = cuda_h, .msm_g1 = cuda_msm_g1, .end = cuda_end,                  \
        .device_memory = cuda_device_memory, .faulted = faulted_fn,           \
        .usable = usable_fn,                                                  \
    }

static pl_status emulated_open(void **instance, const pl__backend_config *cfg,
                               pl_error *err)
{
    return open_with(instance, cfg, &pl__gpu_impl_emulated, err);
}

const pl__backend_ops pl__backend_cuda_emulated =
    CUDA_BACKEND_OPS("cuda-emulated", emulated_open, emulated_faulted,
                     emulated_usable);

#ifdef PL_HAVE_CUDA
static pl_status real_open(void **instance, const pl__backend_config *cfg,
                           pl_error *err)
{
    return open_with(instance, cfg, &pl__gpu_impl_cuda, err);
}

static bool real_faulted(char *why, size_t why_len)
{
    return impl_faulted(&pl__gpu_impl_cuda, why, why_len);
}

static bool real_usable(char *why, size_t why_len)
{
    return impl_usable(&pl__gpu_impl_cuda, why, why_len);
}

static const pl__backend_ops backend_cuda =
    CUDA_BACKEND_OPS("cuda", real_open, real_faulted, real_usable);
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
