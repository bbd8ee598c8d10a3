/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device object of gpu.h: accounting, staging, and the schedules of the
 * odd-coset transform and the way back (the C2 prover's quotient), H and the
 * G1 MSM (which kernel runs when, over which buffers, and the MSM's host
 * side), written once over an implementation table (real CUDA or the host
 * emulation), so that the emulation, which make test runs, executes the
 * launch order and buffer wiring of the GPU.  Every device allocation is
 * accounted in class device after it succeeded and unaccounted after it was
 * freed, and so is the stack the driver reserves for the kernels, from open
 * to close.  The two staging buffers and the buffer of window sums are class
 * pinned, from the accounted allocator (anonymous maps, so RssAnon counts
 * them like any other host class), page-locked with the driver for the
 * object's lifetime.  The phase timing of gpu.h (the GPU check's profile)
 * brackets the schedules' phases here.
 *
 * Per curve: each schedule takes the kernel set of its curve (the NTT
 * tables' or the call's) from the implementation once per call; the host's
 * part (the NTT constants, the MSM's last step) is blst's for BLS12-381 and
 * field/bn254's for BN254, chosen there once per call as well.
 */
#define _GNU_SOURCE
#include "backend/cuda/gpu.h"
#include "field/bn254/curve.h"
#include "field/field.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STAGE_BYTES (PL_GPU_STAGING_BYTES / 2u)

struct pl__gpu {
    const pl__gpu_impl *impl;
    void *dev;
    char description[160];
    /* pinned: the two staging buffers (STAGE_BYTES each), then one MSM's
     * chunk sums (PL_GPU_CHUNK_BYTES) */
    void *pinned[3];
    bool stage_busy[2];       /* a copy out of it may be in flight */
    uint64_t used_at_open;    /* device bytes used before ours */
    uint64_t stack_bytes;     /* the kernels' stacks, class device */
    bool stack_accounted;
    pthread_mutex_t lock;
    /* The first sticky fault (FAULT_NONE, being written, FAULT_SET): set
     * once, by whichever call meets it; read without a lock. */
    _Atomic int fault_state;
    pl_error fault;
};

enum { FAULT_NONE, FAULT_WRITING, FAULT_SET };

_Static_assert(PL_GPU_CHUNK_BYTES ==
                       PL_GPU_MAX_CHUNK_SUMS * sizeof(pl__cu_g1_xyzz) &&
                   sizeof(pl__cu_bn254_g1_xyzz) <= sizeof(pl__cu_g1_xyzz),
               "chunk sums of either curve");
_Static_assert(sizeof(pl__bn254_fr) == sizeof(blst_fr) &&
                   sizeof(pl__cu_bn254_fr) == sizeof(pl__bn254_fr) &&
                   sizeof(pl__cu_bn254_g1_jacobian) == sizeof(pl__bn254_g1) &&
                   sizeof(pl__cu_bn254_g1_affine) ==
                       sizeof(pl__bn254_g1_affine),
               "BN254's device and host types have the same bytes");

/* A curve's kernel set (gpu.h), once per call. */
static const pl__gpu_kernels *kernels_of(const pl__gpu *gpu, pl__curve curve)
{
    return gpu->impl->kernels[curve == PL__CURVE_BN254 ? PL__CURVE_BN254
                                                       : PL__CURVE_BLS12_381];
}

static unsigned coset_lo_log(unsigned log2n)
{
    return (log2n + 1) / 2;
}

uint64_t pl__gpu_ntt_constants_count(unsigned log2n)
{
    unsigned lo = coset_lo_log(log2n);
    return 1 + ((uint64_t)1 << lo) + (((uint64_t)1 << log2n) >> lo) + 1;
}

/* r = a b in the curve's Fr (32-byte elements in blst_fr's storage): blst
 * for BLS12-381, field/bn254 for BN254.  For the tables below, O(sqrt n)
 * multiplications per plan: no hot loop. */
static void fr_mul(pl__curve curve, blst_fr *r, const blst_fr *a,
                   const blst_fr *b)
{
    if (curve == PL__CURVE_BN254)
        pl__bn254_fr_mul((pl__bn254_fr *)r, (const pl__bn254_fr *)a,
                         (const pl__bn254_fr *)b, pl__bn254_arith_current());
    else
        blst_fr_mul(r, a, b);
}

/* The layout of gpu.h's constants: scale, then G^i for i < 2^lo, then
 * G^(k 2^lo) for k <= n / 2^lo, in the curve's Fr. */
static blst_fr *coset_constants(pl__curve curve, const blst_fr *scale,
                                const blst_fr *g, unsigned log2n,
                                pl_error *err)
{
    unsigned lo = coset_lo_log(log2n);
    uint64_t count = pl__gpu_ntt_constants_count(log2n);
    blst_fr *c = pl__alloc(PL_BUF_PARAMS, count * sizeof(blst_fr), err);
    if (!c)
        return NULL;
    blst_fr step;
    c[0] = *scale;
    blst_fr *g_lo = c + 1, *g_hi = g_lo + ((uint64_t)1 << lo);
    if (curve == PL__CURVE_BN254)
        memcpy(&g_lo[0], &PL__BN254_FR_ONE, sizeof(g_lo[0]));
    else
        pl__fr_pow(&g_lo[0], g, 0); /* 1 */
    for (uint64_t i = 1; i < ((uint64_t)1 << lo); i++)
        fr_mul(curve, &g_lo[i], &g_lo[i - 1], g);
    fr_mul(curve, &step, &g_lo[((uint64_t)1 << lo) - 1], g); /* G^(2^lo) */
    g_hi[0] = g_lo[0];
    for (uint64_t k = 1; k <= (((uint64_t)1 << log2n) >> lo); k++)
        fr_mul(curve, &g_hi[k], &g_hi[k - 1], &step);
    return c;
}

blst_fr *pl__gpu_ntt_constants(const pl__ntt_plan *plan, unsigned log2n,
                               pl_error *err)
{
    const void *twiddles;
    blst_fr n_inv, g;
    pl__ntt_plan_constants_elems(plan, &twiddles, &n_inv, &g);
    return coset_constants(pl__ntt_plan_curve(plan), &n_inv, &g, log2n, err);
}

/* BN254's quotient scale 1/(n t), t = g^n - 1 (-2 when g is a primitive
 * 2n-th root; not at 2^28, where the coset is 25's, as snarkjs's), and
 * g^-1. */
static void bn254_quotient_scale(unsigned log2n, const blst_fr *n_inv,
                                 const blst_fr *g, blst_fr *scale,
                                 blst_fr *g_inv)
{
    pl__bn254_arith v = pl__bn254_arith_current();
    const pl__bn254_fr *gb = (const pl__bn254_fr *)g;
    pl__bn254_fr t;
    pl__bn254_fr_pow_u64(&t, gb, (uint64_t)1 << log2n, v);
    pl__bn254_fr_sub(&t, &t, &PL__BN254_FR_ONE, v);
    pl__bn254_fr_inv(&t, &t, v);
    pl__bn254_fr_mul((pl__bn254_fr *)scale, &t, (const pl__bn254_fr *)n_inv,
                     v);
    pl__bn254_fr_inv((pl__bn254_fr *)g_inv, gb, v);
}

blst_fr *pl__gpu_ntt_quotient_constants(const pl__ntt_plan *plan,
                                        unsigned log2n, pl_error *err)
{
    const void *twiddles;
    blst_fr n_inv, g, g_inv, scale, two;
    const uint64_t two_limbs[4] = {2, 0, 0, 0};
    pl__curve curve = pl__ntt_plan_curve(plan);
    pl__ntt_plan_constants_elems(plan, &twiddles, &n_inv, &g);
    if (curve == PL__CURVE_BN254) {
        bn254_quotient_scale(log2n, &n_inv, &g, &scale, &g_inv);
        return coset_constants(curve, &scale, &g_inv, log2n, err);
    }
    blst_fr_inverse(&g_inv, &g);
    /* 1/(n t), t = g^n - 1 = -2 on the odd coset (g^n = -1) */
    blst_fr_from_uint64(&two, two_limbs);
    blst_fr_inverse(&scale, &two);
    blst_fr_cneg(&scale, &scale, true);
    blst_fr_mul(&scale, &scale, &n_inv);
    return coset_constants(curve, &scale, &g_inv, log2n, err);
}

void pl__gpu_ntt_tables_init(pl__gpu_ntt_tables *t, pl__curve curve,
                             unsigned log2n, const void *device_twiddles,
                             const void *device_constants)
{
    unsigned lo = coset_lo_log(log2n);
    const blst_fr *c = device_constants; /* 32-byte elements, either field */
    t->curve = curve;
    t->log2n = log2n;
    t->twiddles = device_twiddles;
    t->n_inv = c;
    t->g_lo = c + 1;
    t->g_hi = c + 1 + ((uint64_t)1 << lo);
    t->lo_log = lo;
}

/* Both streams idle: nothing queued still runs. */
static pl_status quiesce(pl__gpu *gpu, pl_error *err)
{
    pl_status st = gpu->impl->stream_sync(gpu->dev, PL_GPU_COPY, err);
    return st ? st : gpu->impl->stream_sync(gpu->dev, PL_GPU_COMPUTE, err);
}

/* Sets the stack limit (kernel_stack_bytes loads the kernels on the way)
 * and accounts what it took from the free memory read before. */
static pl_status reserve_stack(pl__gpu *gpu, uint64_t free_before,
                               pl_error *err)
{
    const pl__gpu_impl *im = gpu->impl;
    uint64_t per_thread = 0, free_after = 0, total = 0;
    pl_status st;
    if ((st = im->kernel_stack_bytes(gpu->dev, &per_thread, err)) ||
        (st = im->set_stack_limit(gpu->dev, per_thread, err)) ||
        (st = im->mem_info(gpu->dev, &free_after, &total, err)))
        return st;
    gpu->stack_bytes = free_before > free_after ? free_before - free_after : 0;
    if (!pl__alloc_account(PL_BUF_DEVICE, gpu->stack_bytes, err))
        return PL_ENOMEM;
    gpu->stack_accounted = true;
    return PL_OK;
}

pl_status pl__gpu_open(pl__gpu **out, const pl__gpu_impl *impl, int ordinal,
                       pl_error *err)
{
    *out = NULL;
    pl__gpu *gpu = calloc(1, sizeof(*gpu));
    if (!gpu)
        return pl__error_set(err, PL_ENOMEM, "gpu: out of memory");
    gpu->impl = impl;
    pthread_mutex_init(&gpu->lock, NULL);
    pl_status st = impl->open(&gpu->dev, ordinal, gpu->description,
                              sizeof(gpu->description), err);
    if (st != PL_OK) {
        pthread_mutex_destroy(&gpu->lock);
        free(gpu);
        return st;
    }
    uint64_t free_bytes = 0, total_bytes = 0;
    st = impl->mem_info(gpu->dev, &free_bytes, &total_bytes, err);
    gpu->used_at_open = total_bytes - free_bytes;
    if (st == PL_OK)
        st = reserve_stack(gpu, free_bytes, err);
    for (int i = 0; i < 3 && st == PL_OK; i++) {
        uint64_t bytes = i < 2 ? STAGE_BYTES : PL_GPU_CHUNK_BYTES;
        void *p = pl__alloc(PL_BUF_PINNED, bytes, err);
        if (!p)
            st = PL_ENOMEM;
        else if ((st = impl->host_register(gpu->dev, p, bytes, err)))
            pl__free(p);
        else
            gpu->pinned[i] = p;
    }
    if (st != PL_OK) {
        pl__gpu_close(gpu);
        return st;
    }
    *out = gpu;
    return PL_OK;
}

void pl__gpu_close(pl__gpu *gpu)
{
    if (!gpu)
        return;
    bool faulted = pl__gpu_faulted(gpu, NULL);
    pl_error ignored;
    if (!faulted)
        quiesce(gpu, &ignored);
    for (int i = 0; i < 3; i++)
        if (gpu->pinned[i]) {
            gpu->impl->host_unregister(gpu->dev, gpu->pinned[i]);
            pl__free(gpu->pinned[i]);
        }
    /* after a sticky fault the context is unusable: reset it, so the
     * process could open the device again */
    if (faulted)
        gpu->impl->reset(gpu->dev);
    else
        gpu->impl->close(gpu->dev);
    if (gpu->stack_accounted)
        pl__alloc_unaccount(PL_BUF_DEVICE, gpu->stack_bytes);
    pthread_mutex_destroy(&gpu->lock);
    free(gpu);
}

/* ---- faults ----------------------------------------------------------------- */

bool pl__gpu_faulted(pl__gpu *gpu, pl_error *fault)
{
    if (atomic_load(&gpu->fault_state) != FAULT_SET)
        return false;
    if (fault)
        *fault = gpu->fault;
    return true;
}

/* A faulted object refuses a call before it reaches the device (the
 * context would fail it anyway), naming the first fault. */
static bool refused(pl__gpu *gpu, pl_error *err, pl_status *st)
{
    if (atomic_load(&gpu->fault_state) != FAULT_SET)
        return false;
    *st = pl__error_set(err, PL_EINTERNAL, "%s faulted earlier and cannot be "
                        "used until it is reset: %s", gpu->description,
                        gpu->fault.msg);
    if (err)
        err->cuda_code = gpu->fault.cuda_code;
    return true;
}

/* Keeps the first sticky fault that a call met. */
static pl_status noted(pl__gpu *gpu, pl_status st, const pl_error *err)
{
    int none = FAULT_NONE;
    if (st != PL_OK && err && gpu->impl->error_is_fatal(err->cuda_code) &&
        atomic_compare_exchange_strong(&gpu->fault_state, &none,
                                       FAULT_WRITING)) {
        gpu->fault = *err;
        atomic_store(&gpu->fault_state, FAULT_SET);
    }
    return st;
}

/* The public calls that reach the device: refused on a faulted object,
 * a fault they meet noted. */
#define GUARDED(gpu, err, call)                                               \
    do {                                                                      \
        pl_status guarded_st_;                                                \
        if (refused(gpu, err, &guarded_st_))                                  \
            return guarded_st_;                                               \
        return noted(gpu, (call), err);                                       \
    } while (0)

/* ---- phase timing ------------------------------------------------------- */

static atomic_bool profiling;
static _Atomic uint64_t phase_ns[PL_GPU_PHASES], phase_entries[PL_GPU_PHASES];

static const char *const phase_names[PL_GPU_PHASES] = {
#define PL_GPU_PHASE_NAME(id, name) [id] = name,
    PL_GPU_PHASES_X(PL_GPU_PHASE_NAME)
#undef PL_GPU_PHASE_NAME
};

void pl__gpu_profile(bool on)
{
    atomic_store(&profiling, on);
}

const char *pl__gpu_phase_name(pl__gpu_phase phase)
{
    return (unsigned)phase < PL_GPU_PHASES ? phase_names[phase] : "?";
}

void pl__gpu_profile_read(double seconds[PL_GPU_PHASES],
                          uint64_t counts[PL_GPU_PHASES], bool reset)
{
    for (int i = 0; i < PL_GPU_PHASES; i++) {
        uint64_t ns = reset ? atomic_exchange(&phase_ns[i], 0)
                            : atomic_load(&phase_ns[i]);
        uint64_t k = reset ? atomic_exchange(&phase_entries[i], 0)
                           : atomic_load(&phase_entries[i]);
        if (seconds)
            seconds[i] = 1e-9 * (double)ns;
        if (counts)
            counts[i] = k;
    }
}

/* A phase being timed: since < 0 when it is not. */
typedef struct {
    double since;
} phase_clock;

/* Starts timing, when profiling, once the work queued before is done (so
 * that it is not counted as this phase's).  A wait that fails leaves the
 * phase untimed: the call that follows meets the failure itself. */
static phase_clock phase_start(pl__gpu *gpu)
{
    phase_clock pc = {-1};
    pl_error ignored;
    if (atomic_load_explicit(&profiling, memory_order_relaxed) &&
        !pl__gpu_faulted(gpu, NULL) && quiesce(gpu, &ignored) == PL_OK)
        pc.since = pl__now_seconds();
    return pc;
}

/* Ends the timed phase that started at pc once its work is done, adds it
 * to `phase`, and times the next one from now. */
static pl_status phase_lap(pl__gpu *gpu, phase_clock *pc, pl__gpu_phase phase,
                           pl_error *err)
{
    if (pc->since < 0)
        return PL_OK;
    pl_status st = quiesce(gpu, err);
    double now = pl__now_seconds();
    atomic_fetch_add(&phase_ns[phase], (uint64_t)(1e9 * (now - pc->since)));
    atomic_fetch_add(&phase_entries[phase], 1);
    pc->since = now;
    return st;
}

/* A call's status st, and its phase ended if it succeeded. */
static pl_status phase_end(pl__gpu *gpu, phase_clock *pc, pl__gpu_phase phase,
                           pl_status st, pl_error *err)
{
    return st ? st : phase_lap(gpu, pc, phase, err);
}

const char *pl__gpu_description(const pl__gpu *gpu)
{
    return gpu->description;
}

const pl__gpu_impl *pl__gpu_impl_of(const pl__gpu *gpu)
{
    return gpu->impl;
}

void *pl__gpu_alloc(pl__gpu *gpu, uint64_t bytes, pl_error *err)
{
    void *ptr = NULL;
    pl_status st;
    if (refused(gpu, err, &st) ||
        noted(gpu, gpu->impl->alloc(gpu->dev, &ptr, bytes, err), err) != PL_OK)
        return NULL;
    if (!pl__alloc_account(PL_BUF_DEVICE, bytes, err)) {
        gpu->impl->free(gpu->dev, ptr);
        return NULL;
    }
    return ptr;
}

void pl__gpu_free(pl__gpu *gpu, void *ptr, uint64_t bytes)
{
    if (!ptr)
        return;
    gpu->impl->free(gpu->dev, ptr);
    pl__alloc_unaccount(PL_BUF_DEVICE, bytes);
}

pl_status pl__gpu_mem_info(pl__gpu *gpu, uint64_t *free_bytes,
                           uint64_t *total_bytes, pl_error *err)
{
    GUARDED(gpu, err, gpu->impl->mem_info(gpu->dev, free_bytes, total_bytes,
                                          err));
}

uint64_t pl__gpu_stack_bytes(const pl__gpu *gpu)
{
    return gpu->stack_bytes;
}

uint64_t pl__gpu_used_at_open(const pl__gpu *gpu)
{
    return gpu->used_at_open;
}

static pl_status upload(pl__gpu *gpu, void *dst, const void *src,
                         uint64_t bytes, pl_error *err)
{
    const pl__gpu_impl *im = gpu->impl;
    pl_status st;
    unsigned which = 0;
    for (uint64_t done = 0; done < bytes; done += STAGE_BYTES, which ^= 1) {
        uint64_t len = bytes - done < STAGE_BYTES ? bytes - done : STAGE_BYTES;
        /* the staging buffer is free once its previous copy completed */
        if (gpu->stage_busy[which] &&
            (st = im->event_sync(gpu->dev, PL_GPU_EVENT_STAGE0 + (int)which, err)))
            return st;
        memcpy(gpu->pinned[which], (const char *)src + done, (size_t)len);
        if ((st = im->copy_to_device(gpu->dev, PL_GPU_COPY, (char *)dst + done,
                                     gpu->pinned[which], len, err)) ||
            (st = im->event_record(gpu->dev, PL_GPU_EVENT_STAGE0 + (int)which,
                                   PL_GPU_COPY, err)))
            return st;
        gpu->stage_busy[which] = true;
    }
    if ((st = im->event_record(gpu->dev, PL_GPU_EVENT_UPLOADED, PL_GPU_COPY,
                               err)))
        return st;
    return im->stream_wait(gpu->dev, PL_GPU_COMPUTE, PL_GPU_EVENT_UPLOADED, err);
}

pl_status pl__gpu_upload(pl__gpu *gpu, void *dst, const void *src,
                         uint64_t bytes, pl_error *err)
{
    phase_clock pc = phase_start(gpu);
    GUARDED(gpu, err, phase_end(gpu, &pc, PL_GPU_PHASE_UPLOAD,
                                upload(gpu, dst, src, bytes, err), err));
}

static pl_status download(pl__gpu *gpu, void *dst, const void *src,
                           uint64_t bytes, pl_error *err)
{
    const pl__gpu_impl *im = gpu->impl;
    pl_status st;
    for (unsigned i = 0; i < 2; i++) /* no upload still reads a stage */
        if (gpu->stage_busy[i] &&
            (st = im->event_sync(gpu->dev, PL_GPU_EVENT_STAGE0 + (int)i, err)))
            return st;
    for (uint64_t done = 0; done < bytes; done += STAGE_BYTES) {
        uint64_t len = bytes - done < STAGE_BYTES ? bytes - done : STAGE_BYTES;
        if ((st = im->copy_to_host(gpu->dev, PL_GPU_COMPUTE, gpu->pinned[0],
                                   (const char *)src + done, len, err)) ||
            (st = im->stream_sync(gpu->dev, PL_GPU_COMPUTE, err)))
            return st;
        memcpy((char *)dst + done, gpu->pinned[0], (size_t)len);
    }
    return PL_OK;
}

pl_status pl__gpu_download(pl__gpu *gpu, void *dst, const void *src,
                           uint64_t bytes, pl_error *err)
{
    phase_clock pc = phase_start(gpu);
    GUARDED(gpu, err, phase_end(gpu, &pc, PL_GPU_PHASE_DOWNLOAD,
                                download(gpu, dst, src, bytes, err), err));
}

pl_status pl__gpu_sync(pl__gpu *gpu, pl_error *err)
{
    GUARDED(gpu, err, gpu->impl->stream_sync(gpu->dev, PL_GPU_COMPUTE, err));
}

pl_status pl__gpu_quiesce(pl__gpu *gpu, pl_error *err)
{
    GUARDED(gpu, err, quiesce(gpu, err));
}

static pl_status order_uploads(pl__gpu *gpu, pl_error *err)
{
    const pl__gpu_impl *im = gpu->impl;
    pl_status st = im->event_record(gpu->dev, PL_GPU_EVENT_COMPUTED,
                                    PL_GPU_COMPUTE, err);
    return st ? st : im->stream_wait(gpu->dev, PL_GPU_COPY,
                                     PL_GPU_EVENT_COMPUTED, err);
}

pl_status pl__gpu_order_uploads(pl__gpu *gpu, pl_error *err)
{
    GUARDED(gpu, err, order_uploads(gpu, err));
}

/* ---- the odd-coset transform and H --------------------------------------- */

/* The inverse transform's stages, natural order in, bit-reversed out
 * (position p holds n times coefficient bitrev(p)): the wide spans over
 * the whole array, then the narrow ones (below the tile) tile by tile. */
static pl_status inverse_stages(pl__gpu *gpu, const pl__gpu_kernels *im,
                                void *d, const pl__gpu_ntt_tables *tb,
                                pl_error *err)
{
    const int s = PL_GPU_COMPUTE;
    const void *tw = tb->twiddles;
    unsigned log2n = tb->log2n, tile_log = pl__cu_ntt_tile_log(log2n);
    uint32_t n = (uint32_t)1 << log2n;
    pl_status st = PL_OK;
    for (unsigned k = log2n; k-- > tile_log && !st;)
        st = im->ntt_stage(gpu->dev, s, n / 2, d, tw, log2n, k, true, err);
    if (!st)
        st = im->ntt_tiles(gpu->dev, s, n / 2, d, tw, log2n, tile_log, true,
                           err);
    return st;
}

static pl_status to_odd_coset(pl__gpu *gpu, void *data,
                               const pl__gpu_ntt_tables *tb, pl_error *err)
{
    const pl__gpu_kernels *im = kernels_of(gpu, tb->curve);
    const int s = PL_GPU_COMPUTE;
    void *d = data;
    const void *tw = tb->twiddles;
    unsigned log2n = tb->log2n, tile_log = pl__cu_ntt_tile_log(log2n);
    uint32_t n = (uint32_t)1 << log2n;
    pl_status st = PL_OK;
    if (log2n == 0)
        return PL_OK; /* the CPU transform leaves n = 1 alone too */
    st = inverse_stages(gpu, im, d, tb, err);
    /* 1/n and g^i at bit-reversed positions */
    if (!st)
        st = im->ntt_shift(gpu->dev, s, n, d, log2n, tb->n_inv, tb->g_lo,
                           tb->g_hi, tb->lo_log, err);
    /* forward, bit-reversed in, natural out: narrow spans first */
    if (!st)
        st = im->ntt_tiles(gpu->dev, s, n / 2, d, tw, log2n, tile_log, false,
                           err);
    for (unsigned k = tile_log; k < log2n && !st; k++)
        st = im->ntt_stage(gpu->dev, s, n / 2, d, tw, log2n, k, false, err);
    return st;
}

/* The inverse stages in place, then the unshift out of place, which puts
 * the coefficients back in natural order (no permutation pass of its own)
 * and scales them by 1/(n t) and g^-j in the same multiplication. */
static pl_status odd_coset_quotient(pl__gpu *gpu, void *out, void *data,
                                    const pl__gpu_ntt_tables *tb,
                                    pl_error *err)
{
    const pl__gpu_kernels *im = kernels_of(gpu, tb->curve);
    uint32_t n = (uint32_t)1 << tb->log2n;
    /* n = 1: no stage (and no tile to cut) */
    pl_status st = tb->log2n ? inverse_stages(gpu, im, data, tb, err) : PL_OK;
    return st ? st : im->ntt_unshift(gpu->dev, PL_GPU_COMPUTE, n, out, data,
                                     tb->log2n, tb->n_inv, tb->g_lo,
                                     tb->g_hi, tb->lo_log, err);
}

pl_status pl__gpu_odd_coset_quotient(pl__gpu *gpu, void *out, void *data,
                                     const pl__gpu_ntt_tables *quotient,
                                     pl_error *err)
{
    phase_clock pc = phase_start(gpu);
    GUARDED(gpu, err,
            phase_end(gpu, &pc, PL_GPU_PHASE_NTT,
                      odd_coset_quotient(gpu, out, data, quotient, err), err));
}

pl_status pl__gpu_to_odd_coset(pl__gpu *gpu, void *data,
                               const pl__gpu_ntt_tables *tb, pl_error *err)
{
    phase_clock pc = phase_start(gpu);
    GUARDED(gpu, err, phase_end(gpu, &pc, PL_GPU_PHASE_NTT,
                                to_odd_coset(gpu, data, tb, err), err));
}

/* A set's one allocation: the twiddles, then the two constant arrays,
 * each at a 256-byte boundary; returns its bytes. */
static uint64_t set_layout(unsigned log2n, uint64_t *tw_bytes,
                           uint64_t *const_bytes, uint64_t *at,
                           uint64_t *at_quotient)
{
    uint64_t n = (uint64_t)1 << log2n;
    *tw_bytes = (n / 2 ? n / 2 : 1) * sizeof(blst_fr);
    *const_bytes = pl__gpu_ntt_constants_count(log2n) * sizeof(blst_fr);
    *at = (*tw_bytes + 255) & ~(uint64_t)255;
    *at_quotient = *at + ((*const_bytes + 255) & ~(uint64_t)255);
    return *at_quotient + *const_bytes;
}

pl_status pl__gpu_ntt_set_create(pl__gpu *gpu, pl__gpu_ntt_set *out,
                                 const pl__ntt_plan *plan, unsigned log2n,
                                 pl_error *err)
{
    memset(out, 0, sizeof(*out));
    uint64_t n = (uint64_t)1 << log2n, tw_bytes, const_bytes, at, at_quotient;
    uint64_t bytes = set_layout(log2n, &tw_bytes, &const_bytes, &at,
                                &at_quotient);
    const void *twiddles;
    blst_fr unused_n_inv, unused_g;
    pl__ntt_plan_constants_elems(plan, &twiddles, &unused_n_inv, &unused_g);
    blst_fr *constants = pl__gpu_ntt_constants(plan, log2n, err);
    blst_fr *quotient = constants
                            ? pl__gpu_ntt_quotient_constants(plan, log2n, err)
                            : NULL;
    pl_status st = PL_OK;
    char *block = NULL;
    if (!quotient)
        st = PL_ENOMEM;
    else if (!(block = pl__gpu_alloc(gpu, bytes, err)))
        st = PL_ENOMEM;
    if (!st && n >= 2)
        st = pl__gpu_upload(gpu, block, twiddles, tw_bytes, err);
    if (!st)
        st = pl__gpu_upload(gpu, block + at, constants, const_bytes, err);
    if (!st)
        st = pl__gpu_upload(gpu, block + at_quotient, quotient, const_bytes,
                            err);
    pl__free(quotient); /* the uploads staged them */
    pl__free(constants);
    if (st != PL_OK) {
        pl__gpu_free(gpu, block, bytes);
        return st;
    }
    out->device = block;
    out->bytes = bytes;
    pl__curve curve = pl__ntt_plan_curve(plan);
    pl__gpu_ntt_tables_init(&out->tables, curve, log2n, block, block + at);
    pl__gpu_ntt_tables_init(&out->quotient, curve, log2n, block,
                            block + at_quotient);
    return PL_OK;
}

uint64_t pl__gpu_ntt_set_bytes(unsigned log2n)
{
    uint64_t tw_bytes, const_bytes, at, at_quotient;
    return set_layout(log2n, &tw_bytes, &const_bytes, &at, &at_quotient);
}

void pl__gpu_ntt_set_destroy(pl__gpu *gpu, pl__gpu_ntt_set *set)
{
    pl__gpu_free(gpu, set->device, set->bytes);
    memset(set, 0, sizeof(*set));
}

pl_status pl__gpu_coset_h(pl__gpu *gpu, pl__curve curve, const void *a,
                          const void *b, void *c, uint32_t n, pl_error *err)
{
    const pl__gpu_kernels *k = kernels_of(gpu, curve);
    phase_clock pc = phase_start(gpu);
    GUARDED(gpu, err,
            phase_end(gpu, &pc, PL_GPU_PHASE_COSET_H,
                      k->coset_h(gpu->dev, PL_GPU_COMPUTE, n, a, b, c, err),
                      err));
}

pl_status pl__gpu_from_montgomery(pl__gpu *gpu, pl__curve curve, void *data,
                                  uint32_t n, pl_error *err)
{
    if (n == 0)
        return PL_OK;
    const pl__gpu_kernels *k = kernels_of(gpu, curve);
    phase_clock pc = phase_start(gpu);
    GUARDED(gpu, err,
            phase_end(gpu, &pc, PL_GPU_PHASE_COSET_H,
                      k->from_montgomery(gpu->dev, PL_GPU_COMPUTE, n, data,
                                         err),
                      err));
}

/* ---- the G1 MSM ---------------------------------------------------------- */

/* The shape of an MSM of n points and the bytes of the sort's and the
 * scan's storage (one region serves both: they run one after the other);
 * refuses n beyond what the kernels index in 32 bits. */
static pl_status msm_plan(pl__gpu *gpu, pl__cu_msm_cfg *cfg, uint64_t *temp,
                          uint32_t n, pl_error *err)
{
    uint64_t sort = 0, scan = 0;
    *temp = 0;
    if (n > PL_CU_MSM_MAX_POINTS)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "gpu: an MSM of %u points is more than the CUDA "
                             "backend takes (2^28 - 1: its sort entries, W "
                             "per point, are indexed in 32 bits)",
                             n);
    pl__cu_msm_config(cfg, n);
    pl_status st = gpu->impl->sort_temp_bytes(
        gpu->dev, (uint64_t)cfg->windows * cfg->n, cfg->key_bits, &sort, err);
    if (!st)
        st = gpu->impl->scan_temp_bytes(gpu->dev, (uint64_t)cfg->buckets + 1,
                                        &scan, err);
    *temp = sort > scan ? sort : scan;
    return st;
}

/* The bytes of the curve's XYZZ point, the partial sums' size. */
static uint64_t xyzz_bytes(pl__curve curve)
{
    return curve == PL__CURVE_BN254 ? sizeof(pl__cu_bn254_g1_xyzz)
                                    : sizeof(pl__cu_g1_xyzz);
}

pl_status pl__gpu_msm_scratch_bytes(pl__gpu *gpu, pl__curve curve,
                                    uint64_t *bytes, uint32_t n,
                                    pl_error *err)
{
    pl__cu_msm_cfg cfg;
    uint64_t temp;
    pl_status st = msm_plan(gpu, &cfg, &temp, n, err);
    *bytes = st == PL_OK ? pl__cu_msm_layout(&cfg, xyzz_bytes(curve), temp,
                                             NULL, NULL)
                         : 0;
    return st;
}

uint64_t pl__gpu_msm_layout_bytes(pl__curve curve, uint32_t n)
{
    pl__cu_msm_cfg cfg;
    pl__cu_msm_config(&cfg, n);
    return pl__cu_msm_layout(&cfg, xyzz_bytes(curve), 0, NULL, NULL);
}

/* Steps 1-5 of kernels/msm.h on the compute stream, then the W T chunk
 * sums (XYZZ) copied to `chunks` (pinned); returns after they arrived.
 * pc: the phase clock, lapped after the sort, the levels and the sums. */
static pl_status msm_device(pl__gpu *gpu, const pl__gpu_kernels *k,
                            phase_clock *pc, const pl__cu_msm_cfg *cfg,
                            const void *points, const uint32_t *scalars,
                            pl__cu_msm_scratch *m, void *chunks,
                            pl_error *err)
{
    const pl__gpu_impl *im = gpu->impl;
    void *dev = gpu->dev;
    const int s = PL_GPU_COMPUTE;
    /* below 2^32 each (msm_plan) */
    uint32_t entries = cfg->windows * cfg->n, nb = cfg->buckets;
    uint32_t partials = (uint32_t)cfg->max_partials;
    unsigned sorted = 0; /* which of keys/values holds the sorted entries */
    pl_status st;

    /* 1-3: digits into buffer 0, sorted (into either buffer), bucket runs
     * over the sorted keys */
    if ((st = k->msm_digits(dev, s, cfg->n, cfg, scalars, m->keys[0],
                             m->values[0], err)) ||
        (st = im->sort_pairs(dev, s, m->temp, m->temp_bytes, m->keys,
                             m->values, &sorted, entries, cfg->key_bits,
                             err)) ||
        (st = im->memset_zero(dev, s, m->start, (uint64_t)nb * 4, err)) ||
        (st = im->memset_zero(dev, s, m->end, (uint64_t)nb * 4, err)) ||
        (st = im->msm_bounds(dev, s, entries, cfg, m->keys[sorted], m->start,
                             m->end, err)) ||
        (st = phase_lap(gpu, pc, PL_GPU_PHASE_MSM_SORT, err)))
        return st;

    /* 4: level 0 over the sorted points, then each level over the last
     * one's partial sums, alternating between the two partial buffers */
    unsigned cur = 0;
    if ((st = im->msm_count(dev, s, nb + 1, cfg, m->start, m->end, m->count,
                            err)) ||
        (st = im->exclusive_scan(dev, s, m->temp, m->temp_bytes, m->count,
                                 m->offsets[cur], (uint64_t)nb + 1, err)) ||
        (st = k->msm_accumulate_points(dev, s, partials, cfg, points,
                                        m->values[sorted], m->start, m->end,
                                        m->offsets[cur], m->partials[cur],
                                        err)))
        return st;
    for (unsigned level = 1; level < cfg->levels; level++) {
        unsigned prev = cur;
        cur ^= 1;
        if ((st = im->msm_count(dev, s, nb + 1, cfg, m->offsets[prev],
                                m->offsets[prev] + 1, m->count, err)) ||
            (st = im->exclusive_scan(dev, s, m->temp, m->temp_bytes, m->count,
                                     m->offsets[cur], (uint64_t)nb + 1,
                                     err)) ||
            (st = k->msm_accumulate_partials(dev, s, partials, cfg,
                                              m->partials[prev],
                                              m->offsets[prev],
                                              m->offsets[cur],
                                              m->partials[cur], err)))
            return st;
    }
    if ((st = phase_lap(gpu, pc, PL_GPU_PHASE_MSM_ACCUMULATE, err)))
        return st;

    /* 5: the running sums per chunk, and their transfer */
    uint32_t sums = cfg->windows * cfg->chunks;
    if ((st = k->msm_reduce(dev, s, sums, cfg, m->partials[cur],
                            m->offsets[cur], m->chunks, err)) ||
        (st = im->copy_to_host(dev, s, chunks, m->chunks,
                               (uint64_t)sums * k->xyzz_bytes, err)) ||
        (st = im->stream_sync(dev, s, err)))
        return st;
    return phase_lap(gpu, pc, PL_GPU_PHASE_MSM_REDUCE, err);
}

/* XYZZ -> blst's Jacobian: the same coordinates, byte for byte. */
static void xyzz_to_blst(blst_p1 *out, const pl__cu_g1_xyzz *p)
{
    pl__cu_g1_jacobian j;
    pl__cu_g1_xyzz_to_jacobian(&j, p);
    memcpy(out, &j, sizeof(*out));
}

/* ... and to field/bn254's. */
static void xyzz_to_bn254(pl__bn254_g1 *out, const pl__cu_bn254_g1_xyzz *p)
{
    pl__cu_bn254_g1_jacobian j;
    pl__cu_bn254_g1_xyzz_to_jacobian(&j, p);
    memcpy(out, &j, sizeof(*out));
}

/* Step 6 of kernels/msm.h: windows from the top, each the sum of its
 * chunks, in blst (BLS12-381) ... */
static void combine_bls12_381(blst_p1 *out, const pl__cu_msm_cfg *cfg,
                              const pl__cu_g1_xyzz *chunks)
{
    memset(out, 0, sizeof(*out)); /* Z = 0: infinity */
    for (unsigned w = cfg->windows; w-- > 0;) {
        for (unsigned d = 0; d < cfg->c; d++)
            blst_p1_double(out, out);
        for (uint32_t k = 0; k < cfg->chunks; k++) {
            blst_p1 part;
            xyzz_to_blst(&part, &chunks[(size_t)w * cfg->chunks + k]);
            blst_p1_add_or_double(out, out, &part);
        }
    }
}

/* ... or in field/bn254 (BN254), in the implementation the CPU's MSMs use
 * (its point operations handle infinity and equal points). */
static void combine_bn254(pl__bn254_g1 *out, const pl__cu_msm_cfg *cfg,
                          const pl__cu_bn254_g1_xyzz *chunks)
{
    pl__bn254_arith v = pl__bn254_arith_current();
    memset(out, 0, sizeof(*out)); /* Z = 0: infinity */
    for (unsigned w = cfg->windows; w-- > 0;) {
        for (unsigned d = 0; d < cfg->c; d++)
            pl__bn254_g1_dbl(out, out, v);
        for (uint32_t k = 0; k < cfg->chunks; k++) {
            pl__bn254_g1 part;
            xyzz_to_bn254(&part, &chunks[(size_t)w * cfg->chunks + k]);
            pl__bn254_g1_add(out, out, &part, v);
        }
    }
}

static pl_status msm_g1(pl__gpu *gpu, pl__curve curve, void *out,
                        const void *points, const void *scalars, uint32_t n,
                        void *scratch, uint64_t scratch_bytes, pl_error *err)
{
    _Static_assert(sizeof(pl__cu_g1_jacobian) == sizeof(blst_p1), "p1 layout");
    const bool bn = curve == PL__CURVE_BN254;
    const pl__gpu_kernels *k = kernels_of(gpu, curve);
    /* Z = 0: infinity */
    memset(out, 0, bn ? sizeof(pl__bn254_g1) : sizeof(blst_p1));
    if (n == 0)
        return PL_OK;
    pl__cu_msm_cfg cfg;
    pl__cu_msm_scratch m;
    uint64_t temp;
    pl_status st = msm_plan(gpu, &cfg, &temp, n, err);
    if (st != PL_OK)
        return st;
    if (scratch_bytes < pl__cu_msm_layout(&cfg, k->xyzz_bytes, temp, NULL,
                                          NULL))
        return pl__error_set(err, PL_EINTERNAL,
                             "gpu: MSM of %u points given %llu scratch bytes",
                             n, (unsigned long long)scratch_bytes);
    pl__cu_msm_layout(&cfg, k->xyzz_bytes, temp, scratch, &m);
    phase_clock pc = phase_start(gpu);
    if ((st = msm_device(gpu, k, &pc, &cfg, points, scalars, &m,
                         gpu->pinned[2], err)))
        return st;
    if (bn)
        combine_bn254(out, &cfg, gpu->pinned[2]);
    else
        combine_bls12_381(out, &cfg, gpu->pinned[2]);
    return phase_lap(gpu, &pc, PL_GPU_PHASE_MSM_COMBINE, err);
}

pl_status pl__gpu_msm_g1(pl__gpu *gpu, pl__curve curve, void *out,
                         const void *points, const void *scalars, uint32_t n,
                         void *scratch, uint64_t scratch_bytes, pl_error *err)
{
    GUARDED(gpu, err, msm_g1(gpu, curve, out, points, scalars, n, scratch,
                             scratch_bytes, err));
}

void pl__gpu_lock(pl__gpu *gpu)
{
    pthread_mutex_lock(&gpu->lock);
}

void pl__gpu_unlock(pl__gpu *gpu)
{
    pthread_mutex_unlock(&gpu->lock);
}
