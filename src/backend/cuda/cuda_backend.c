/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend: the engine's backend interface with the odd-coset H
 * computation and the four G1 MSMs on a GPU, and the G2 MSM on a CPU thread
 * beside it on the prover's threads (as SupraSeal does; the split prove
 * gives it the time).
 *
 *   open:   per circuit, uploads the zkey's G1 point sets (A, B1, C, H), the
 *           NTT tables, and allocates the device buffers one proof uses
 *           (a/b/c, the witness, MSM scratch).  All of it is resident: a
 *           proof allocates nothing on the device, so device memory is
 *           bounded by construction and checked against the device's free
 *           memory up front.
 *   start:  begins the pending proof (G2 MSM thread), then under the
 *           device's lock: uploads a, b, c and the witness through the
 *           pinned staging buffers (each transform overlaps the next
 *           upload), frees the host a/b/c, h = a b - c on the device (h stays
 *           there), and the MSMs for H, A, B1 and C.
 *   finish: the CPU prover's (join G2, blind, assemble), unchanged.
 *
 * One device object per GPU, shared by every circuit's instance (it holds
 * the streams, events and staging buffers); device 0 for now.  The same
 * code runs over the host emulation (pl__backend_cuda_emulated), which is
 * how make test checks it bit for bit against the CPU backend.
 */
#include "backend/backend.h"
#include "backend/cuda/gpu.h"
#include "field/field.h"
#include "formats/formats.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G1_AFFINE_BYTES 96u

/* ---- the device object, one per process (per GPU) ----------------------- */

static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;
static pl__gpu *device;
static unsigned device_users;

static pl_status device_acquire(const pl__gpu_impl *impl, pl__gpu **out,
                                pl_error *err)
{
    pl_status st = PL_OK;
    pthread_mutex_lock(&device_lock);
    if (!device)
        st = pl__gpu_open(&device, impl, 0, err);
    else if (pl__gpu_impl_of(device) != impl)
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "cuda backend: device 0 is open as %s, not %s",
                           pl__gpu_impl_of(device)->name, impl->name);
    if (st == PL_OK) {
        device_users++;
        *out = device;
    }
    pthread_mutex_unlock(&device_lock);
    return st;
}

static void device_release(void)
{
    pthread_mutex_lock(&device_lock);
    if (device_users && --device_users == 0) {
        pl__gpu_close(device);
        device = NULL;
    }
    pthread_mutex_unlock(&device_lock);
}

static bool cuda_device_memory(uint64_t *used, uint64_t *total,
                               uint64_t *used_at_open)
{
    bool ok = false;
    pthread_mutex_lock(&device_lock);
    if (device) {
        uint64_t free_bytes;
        pl_error ignored;
        ok = pl__gpu_mem_info(device, &free_bytes, total, &ignored) == PL_OK &&
             *total;
        *used = ok ? *total - free_bytes : 0;
        *used_at_open = ok ? pl__gpu_used_at_open(device) : 0;
    }
    pthread_mutex_unlock(&device_lock);
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

static uint32_t private_count(const pl_zkey *zk)
{
    uint32_t first_private = zk->n_public + 1;
    return zk->n_vars > first_private ? zk->n_vars - first_private : 0;
}

static pl_status layout_for(const pl_zkey *zk, pl__gpu *gpu,
                            device_layout *out, pl_error *err)
{
    uint64_t n = zk->domain_size;
    uint32_t msm_max = zk->domain_size > zk->n_vars ? zk->domain_size
                                                     : zk->n_vars;
    out->bytes[BUF_POINTS_A] = (uint64_t)zk->n_vars * G1_AFFINE_BYTES;
    out->bytes[BUF_POINTS_B1] = (uint64_t)zk->n_vars * G1_AFFINE_BYTES;
    out->bytes[BUF_POINTS_C] = (uint64_t)private_count(zk) * G1_AFFINE_BYTES;
    out->bytes[BUF_POINTS_H] = n * G1_AFFINE_BYTES;
    out->bytes[BUF_TWIDDLES] = (n / 2 ? n / 2 : 1) * sizeof(blst_fr);
    out->bytes[BUF_CONSTANTS] = pl__gpu_ntt_constants_count(zk->log2_domain) * sizeof(blst_fr);
    out->bytes[BUF_ABC] = 3 * n * sizeof(blst_fr);
    out->bytes[BUF_WITNESS] = ((uint64_t)zk->n_vars + 1) * PL__FR_BYTES;
    return pl__gpu_msm_scratch_bytes(gpu, &out->bytes[BUF_MSM_SCRATCH],
                                     msm_max, err);
}

static void cuda_plan(const pl_zkey *zk, unsigned threads, pl__prove_plan *out)
{
    pl__prove_plan cpu;
    pl__prover_plan(zk, threads, &cpu);
    memset(out, 0, sizeof(*out));
    /* host: a/b/c from synthesis until uploaded, the pending state, and
     * the G2 MSM's scratch; the H vector lives on the device */
    out->bytes[PL_BUF_ABC] = cpu.bytes[PL_BUF_ABC];
    out->bytes[PL_BUF_PENDING] = cpu.bytes[PL_BUF_PENDING];
    out->bytes[PL_BUF_MSM_SCRATCH] = pl__prover_g2_scratch_bytes(zk, threads);
    /* resident: the CPU prover's (matrices, NTT plan) and the pinned
     * staging and chunk buffers of the device object */
    out->resident_bytes = cpu.resident_bytes + PL_GPU_STAGING_BYTES +
                          PL_GPU_CHUNK_BYTES;
    /* the device buffers are not planned here: they are the device's, and
     * open checks them against its free memory before allocating */
}

/* ---- open and close ------------------------------------------------------ */

typedef struct {
    pl_prover *prover;
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
        device_release();
    free(ci);
}

static pl_status open_with(void **instance, pl_prover *prover,
                           const pl__gpu_impl *impl, pl_error *err)
{
    *instance = NULL;
    cuda_instance *ci = calloc(1, sizeof(*ci));
    if (!ci)
        return pl__error_set(err, PL_ENOMEM, "cuda backend: out of memory");
    ci->prover = prover;
    ci->zk = pl__prover_zkey(prover);
    const pl_zkey *zk = ci->zk;
    pl_status st = device_acquire(impl, &ci->gpu, err);
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
    if (total_bytes && need > free_bytes) {
        char b1[24], b2[24];
        st = pl__error_set(
            err, PL_ENOMEM,
            "%s: the CUDA backend needs %s of device memory for this circuit "
            "but %s has %s free",
            zk->path, pl_format_bytes(b1, sizeof(b1), need),
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
    const pl__ntt_plan *plan = pl__prover_ntt(prover);
    const blst_fr *twiddles;
    blst_fr unused_n_inv, unused_g;
    pl__ntt_plan_constants(plan, &twiddles, &unused_n_inv, &unused_g);
    blst_fr *constants = pl__gpu_ntt_constants(plan, zk->log2_domain, err);
    if (!constants) {
        st = PL_ENOMEM;
        goto fail;
    }
    pl__gpu_lock(ci->gpu);
    st = PL_OK;
    if (zk->domain_size >= 2)
        st = pl__gpu_upload(ci->gpu, ci->buf[BUF_TWIDDLES], twiddles,
                            ci->layout.bytes[BUF_TWIDDLES], err);
    if (!st)
        st = pl__gpu_upload(ci->gpu, ci->buf[BUF_CONSTANTS], constants,
                            ci->layout.bytes[BUF_CONSTANTS], err);
    const uint8_t *sets[4] = {zk->a, zk->b1, zk->c, zk->h};
    for (int i = 0; i < 4 && !st; i++)
        if (ci->layout.bytes[BUF_POINTS_A + i])
            st = pl__gpu_upload(ci->gpu, ci->buf[BUF_POINTS_A + i], sets[i],
                                ci->layout.bytes[BUF_POINTS_A + i], err);
    pl__gpu_unlock(ci->gpu);
    pl__free(constants);
    if (st != PL_OK)
        goto fail;

    pl__gpu_ntt_tables_init(&ci->tables, zk->log2_domain,
                            ci->buf[BUF_TWIDDLES], ci->buf[BUF_CONSTANTS]);
    *instance = ci;
    return PL_OK;
fail:
    cuda_close(ci);
    return st;
}

/* ---- start and finish ---------------------------------------------------- */

/* The device part of a start, under the device's lock. */
static pl_status device_prove(cuda_instance *ci, blst_fr **abc,
                              const pl_wtns *wtns, blst_p1 out[4],
                              double *since, pl_error *err)
{
    const pl_zkey *zk = ci->zk;
    pl__gpu *gpu = ci->gpu;
    uint64_t n = zk->domain_size;
    blst_fr *d_abc = ci->buf[BUF_ABC];
    pl_status st;
    /* a, b, c: each transform queued behind its upload, so it runs while
     * the next vector is copied */
    for (int k = 0; k < 3; k++)
        if ((st = pl__gpu_upload(gpu, d_abc + k * n, *abc + k * n,
                                 n * sizeof(blst_fr), err)) ||
            (st = pl__gpu_to_odd_coset(gpu, d_abc + k * n, &ci->tables, err)))
            return st;
    if ((st = pl__gpu_upload(gpu, ci->buf[BUF_WITNESS], wtns->values,
                             (uint64_t)zk->n_vars * PL__FR_BYTES, err)))
        return st;
    pl__free(*abc); /* uploaded: the host copy goes now */
    *abc = NULL;
    /* the wait costs nothing (the MSMs need h) and makes the stage's time
     * the transforms' rather than their queueing's */
    if ((st = pl__gpu_coset_h(gpu, d_abc, d_abc + n, d_abc + 2 * n,
                              (uint32_t)n, err)) ||
        (st = pl__gpu_sync(gpu, err)))
        return st;
    pl__prover_stage_done(ci->prover, since, "gpu_h");

    const uint8_t *w = ci->buf[BUF_WITNESS];
    uint32_t first_private = zk->n_public + 1;
    void *scratch = ci->buf[BUF_MSM_SCRATCH];
    uint64_t scratch_bytes = ci->layout.bytes[BUF_MSM_SCRATCH];
    /* out: A, B1, C, H */
    if ((st = pl__gpu_msm_g1(gpu, &out[3], ci->buf[BUF_POINTS_H],
                             d_abc + 2 * n, (uint32_t)n, scratch,
                             scratch_bytes, err)) ||
        (st = pl__gpu_msm_g1(gpu, &out[0], ci->buf[BUF_POINTS_A], w,
                             zk->n_vars, scratch, scratch_bytes, err)) ||
        (st = pl__gpu_msm_g1(gpu, &out[1], ci->buf[BUF_POINTS_B1], w,
                             zk->n_vars, scratch, scratch_bytes, err)) ||
        (st = pl__gpu_msm_g1(gpu, &out[2], ci->buf[BUF_POINTS_C],
                             w + (uint64_t)first_private * PL__FR_BYTES,
                             private_count(zk), scratch, scratch_bytes, err)))
        return st;
    pl__prover_stage_done(ci->prover, since, "gpu_msm_g1");
    return PL_OK;
}

static pl_status cuda_start(void *instance, void **pending, blst_fr *abc,
                            const pl_wtns *wtns, pl_error *err)
{
    cuda_instance *ci = instance;
    pl_pending *pd = NULL;
    double since = pl__now_seconds();
    *pending = NULL;
    /* the CPU is free while the GPU works: the G2 MSM gets the pool */
    pl_status st = pl__pending_begin(ci->prover, &pd, wtns, true, err);
    if (st == PL_OK) {
        blst_p1 sums[4];
        pl__gpu_lock(ci->gpu);
        st = device_prove(ci, &abc, wtns, sums, &since, err);
        pl__gpu_unlock(ci->gpu);
        if (st == PL_OK) {
            pl__pending_set_g1(pd, &sums[0], &sums[1], &sums[2], &sums[3]);
            *pending = pd;
            pd = NULL;
        }
    }
    pl__free(abc);
    pl__pending_abort(pd);
    return st;
}

static pl_status cuda_finish(void *instance, void *pending, pl_proof *out,
                             pl_error *err)
{
    return pl_prove_finish(pending, out, err);
}

/* ---- the two backends ---------------------------------------------------- */

static pl_status emulated_open(void **instance, pl_prover *prover,
                               pl_error *err)
{
    return open_with(instance, prover, &pl__gpu_impl_emulated, err);
}

const pl__backend_ops pl__backend_cuda_emulated = {
    .name = "cuda-emulated",
    .plan = cuda_plan,
    .open = emulated_open,
    .close = cuda_close,
    .start = cuda_start,
    .finish = cuda_finish,
    .device_memory = cuda_device_memory,
};

#ifdef PL_HAVE_CUDA
static pl_status real_open(void **instance, pl_prover *prover, pl_error *err)
{
    return open_with(instance, prover, &pl__gpu_impl_cuda, err);
}

static const pl__backend_ops backend_cuda = {
    .name = "cuda",
    .plan = cuda_plan,
    .open = real_open,
    .close = cuda_close,
    .start = cuda_start,
    .finish = cuda_finish,
    .device_memory = cuda_device_memory,
};
const pl__backend_ops *const pl__backend_cuda = &backend_cuda;
#else
const pl__backend_ops *const pl__backend_cuda = NULL;
#endif
