/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 prover's device part (backend/c2_device.h) on the CUDA backend's
 * device layer: its schedules (gpu.c) for the odd-coset transforms, H and
 * the G1 MSM, over buffers allocated once at open on the process's device
 * object (process_device.h), which it shares with the zkey backend.
 *
 * Device memory, all class device, all allocated at open:
 *
 *   bases    the four G1 sets as c2.c holds them (blst's affine layout is
 *            the kernels', see arith/g1.h), one allocation each;
 *   tables   an NTT set: the twiddles, the constants to the odd coset and
 *            those of the way back (gpu.h's quotient);
 *   work     one buffer serving both kinds of call, which never overlap:
 *              h:   a, b, c (n Fr each) at 0, n, 2n; h's coefficients land
 *                   at 0;
 *              msm: the scalars at 0, the MSM's scratch after them,
 *            so the h MSM reads h's coefficients where h left them.
 *
 * Each call takes the device's lock, orders its uploads after the compute
 * already queued (another user's), and leaves the device idle before it
 * unlocks, as the zkey backend's begin and end do around a proof.
 */
#include "backend/c2_device.h"
#include "backend/backend.h"
#include "backend/cuda/gpu.h"
#include "backend/cuda/process_device.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(pl__cu_g1_affine) == sizeof(blst_p1_affine),
               "the device's affine points are blst's");
_Static_assert(sizeof(pl__cu_fr) == sizeof(blst_fr) &&
                   sizeof(pl_scalar) == sizeof(blst_fr),
               "Fr and scalars are 32 bytes");

#define FR_BYTES ((uint64_t)sizeof(blst_fr))
#define MAX_LOG2N 28u

struct pl__c2_device {
    pl__gpu *gpu;
    unsigned log2n;
    size_t counts[PL__C2_BASES_COUNT];
    void *bases[PL__C2_BASES_COUNT];
    pl__gpu_ntt_set set;
    char *work;
    uint64_t work_bytes;
    uint64_t scalars_bytes; /* the MSM's scalars at the work's start */
    uint64_t scratch_bytes; /* the MSM's scratch after them */
    /* h's coefficients are at the work's start (under the device lock) */
    bool h_on_device;
};

static uint64_t align256(uint64_t x)
{
    return (x + 255) & ~(uint64_t)255;
}

/* The largest scratch of any MSM of at most max_n points.  The shape
 * changes with ceil(log2 n) (the window), and within one shape every
 * buffer grows with n, so the largest is at a power of two or at max_n.
 * With gpu NULL (planning without a device), less the sort's and scan's
 * storage, which the device's CUB sizes. */
static pl_status scratch_bound(pl__gpu *gpu, size_t max_n, uint64_t *bytes,
                               pl_error *err)
{
    *bytes = 0;
    if (max_n > PL_CU_MSM_MAX_POINTS)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "c2 on the CUDA backend: a base set of %zu points "
                             "is more than the device MSM takes (2^28 - 1)",
                             max_n);
    for (uint64_t m = 1; max_n; m *= 2) {
        uint32_t size = (uint32_t)(m < max_n ? m : max_n);
        uint64_t b = 0;
        if (gpu) {
            pl_status st = pl__gpu_msm_scratch_bytes(gpu, &b, size, err);
            if (st != PL_OK)
                return st;
        } else {
            pl__cu_msm_cfg cfg;
            pl__cu_msm_config(&cfg, size);
            b = pl__cu_msm_layout(&cfg, 0, NULL, NULL);
        }
        if (b > *bytes)
            *bytes = b;
        if (size == max_n)
            break;
    }
    return PL_OK;
}

static size_t largest_set(const size_t counts[4])
{
    size_t most = 0;
    for (int k = 0; k < PL__C2_BASES_COUNT; k++)
        if (counts[k] > most)
            most = counts[k];
    return most;
}

/* The work buffer's parts: the scalars region (room for the largest set
 * and for h's n coefficients) and the scratch after it. */
static void work_layout(unsigned log2n, const size_t counts[4],
                        uint64_t scratch, uint64_t *scalars_bytes,
                        uint64_t *work_bytes)
{
    uint64_t n = (uint64_t)1 << log2n, most = largest_set(counts);
    *scalars_bytes = align256((most > n ? most : n) * FR_BYTES);
    uint64_t msm = *scalars_bytes + scratch, h = 3 * n * FR_BYTES;
    *work_bytes = msm > h ? msm : h;
}

uint64_t pl__c2_device_bytes(unsigned log2n, const size_t counts[4])
{
    uint64_t scratch = 0, scalars, work, total = 0;
    pl_error ignored;
    /* a set too large for the device MSM: open refuses it; plan its
     * points and the rest */
    scratch_bound(NULL, largest_set(counts), &scratch, &ignored);
    work_layout(log2n, counts, scratch, &scalars, &work);
    for (int k = 0; k < PL__C2_BASES_COUNT; k++)
        total += (uint64_t)counts[k] * sizeof(blst_p1_affine);
    return total + pl__gpu_ntt_set_bytes(log2n) + work;
}

/* ---- a call's bracket ---------------------------------------------------- */

/* The device is this call's until call_drain and the unlock; its uploads
 * wait for any compute queued before it, as the zkey backend's begin
 * makes a proof's (every user drains before it unlocks, so this is the
 * guard, not the rule). */
static pl_status call_begin(pl__c2_device *d, pl_error *err)
{
    pl__gpu_lock(d->gpu);
    pl_status st = pl__gpu_order_uploads(d->gpu, err);
    if (st != PL_OK)
        pl__gpu_unlock(d->gpu);
    return st;
}

/* Also after a failure: nothing of the call still queued when the next
 * one may take the device.  The caller unlocks after it. */
static pl_status call_drain(pl__c2_device *d, pl_status st, pl_error *err)
{
    pl_error drained;
    pl_status q = pl__gpu_quiesce(d->gpu, st == PL_OK ? err : &drained);
    return st != PL_OK ? st : q;
}

/* ---- open and close ------------------------------------------------------ */

void pl__c2_device_close(pl__c2_device *d)
{
    if (!d)
        return;
    if (d->gpu) {
        pl__gpu_free(d->gpu, d->work, d->work_bytes);
        if (d->set.device)
            pl__gpu_ntt_set_destroy(d->gpu, &d->set);
        for (int k = 0; k < PL__C2_BASES_COUNT; k++)
            pl__gpu_free(d->gpu, d->bases[k],
                         (uint64_t)d->counts[k] * sizeof(blst_p1_affine));
        pl__cuda_device_release();
    }
    free(d);
}

static const pl__gpu_impl *real_impl(void)
{
#ifdef PL_HAVE_CUDA
    return &pl__gpu_impl_cuda;
#else
    return NULL;
#endif
}

/* Checks the whole plan against the device's free memory, then allocates
 * the buffers. */
static pl_status allocate(pl__c2_device *d, pl_error *err)
{
    uint64_t scratch, need = 0, free_bytes = 0, total_bytes = 0;
    pl_status st = scratch_bound(d->gpu, largest_set(d->counts), &scratch,
                                 err);
    if (st != PL_OK)
        return st;
    work_layout(d->log2n, d->counts, scratch, &d->scalars_bytes,
                &d->work_bytes);
    d->scratch_bytes = d->work_bytes - d->scalars_bytes;
    for (int k = 0; k < PL__C2_BASES_COUNT; k++)
        need += (uint64_t)d->counts[k] * sizeof(blst_p1_affine);
    need += pl__gpu_ntt_set_bytes(d->log2n) + d->work_bytes;
    if ((st = pl__gpu_mem_info(d->gpu, &free_bytes, &total_bytes, err)))
        return st;
    /* the headroom is for what the driver takes after this check (see
     * gpu.h), as the zkey backend leaves it */
    if (total_bytes && need + PL_GPU_HEADROOM_BYTES > free_bytes) {
        char b1[24], b2[24], b3[24];
        return pl__error_set(
            err, PL_ENOMEM,
            "c2 on the CUDA backend: a domain of 2^%u and its bases need %s "
            "of device memory (and %s of headroom) but %s has %s free",
            d->log2n, pl_format_bytes(b1, sizeof(b1), need),
            pl_format_bytes(b3, sizeof(b3), PL_GPU_HEADROOM_BYTES),
            pl__gpu_description(d->gpu),
            pl_format_bytes(b2, sizeof(b2), free_bytes));
    }
    for (int k = 0; k < PL__C2_BASES_COUNT; k++)
        if (d->counts[k] &&
            !(d->bases[k] = pl__gpu_alloc(
                  d->gpu, (uint64_t)d->counts[k] * sizeof(blst_p1_affine),
                  err)))
            return PL_ENOMEM;
    if (!(d->work = pl__gpu_alloc(d->gpu, d->work_bytes, err)))
        return PL_ENOMEM;
    return PL_OK;
}

pl_status pl__c2_device_open(pl__c2_device **out, bool emulated,
                             const struct pl__ntt_plan *plan, unsigned log2n,
                             const blst_p1_affine *const bases[4],
                             const size_t counts[4], pl_error *err)
{
    *out = NULL;
    if (!plan || !bases || !counts || log2n > MAX_LOG2N)
        return pl__error_set(err, PL_EUSAGE, "pl__c2_device_open: missing "
                             "plan, bases or counts, or a domain of 2^%u "
                             "(at most 2^%u)", log2n, MAX_LOG2N);
    for (int k = 0; k < PL__C2_BASES_COUNT; k++)
        if (counts[k] && !bases[k])
            return pl__error_set(err, PL_EUSAGE, "pl__c2_device_open: base "
                                 "set %d of %zu points is missing", k,
                                 counts[k]);
    const pl__gpu_impl *impl = &pl__gpu_impl_emulated;
    if (!emulated) {
        char why[256] = "";
        if (!pl__backend_cuda_usable(why, sizeof(why)) || !real_impl())
            return pl__error_set(err, PL_EUNSUPPORTED,
                                 "c2 on the CUDA backend: %s", why);
        impl = real_impl();
    }
    pl__c2_device *d = calloc(1, sizeof(*d));
    if (!d)
        return pl__error_set(err, PL_ENOMEM, "c2 on the CUDA backend: out of "
                             "memory");
    d->log2n = log2n;
    memcpy(d->counts, counts, sizeof(d->counts));
    pl_status st = pl__cuda_device_acquire(impl, &d->gpu, err);
    if (st != PL_OK) {
        free(d);
        return st;
    }
    if ((st = allocate(d, err)) || (st = call_begin(d, err)))
        goto fail;
    /* the points go up as they are, and the tables */
    for (int k = 0; k < PL__C2_BASES_COUNT && st == PL_OK; k++)
        if (counts[k])
            st = pl__gpu_upload(d->gpu, d->bases[k], bases[k],
                                (uint64_t)counts[k] * sizeof(blst_p1_affine),
                                err);
    if (st == PL_OK)
        st = pl__gpu_ntt_set_create(d->gpu, &d->set, plan, log2n, err);
    st = call_drain(d, st, err);
    pl__gpu_unlock(d->gpu);
    if (st != PL_OK)
        goto fail;
    *out = d;
    return PL_OK;
fail:
    pl__c2_device_close(d);
    return st;
}

/* ---- h and the MSMs ----------------------------------------------------- */

/* a, b, c up and to the odd coset, each transform queued behind its
 * upload so that it runs while the next vector is copied; a b - c there,
 * as canonical integers over c; back to coefficients, divided by t, into
 * a's place. */
static pl_status h_on_device(pl__c2_device *d, const blst_fr *const abc[3],
                             pl_error *err)
{
    uint64_t n = (uint64_t)1 << d->log2n;
    char *slot[3] = {d->work, d->work + n * FR_BYTES,
                     d->work + 2 * n * FR_BYTES};
    pl_status st;
    for (int k = 0; k < 3; k++)
        if ((st = pl__gpu_upload(d->gpu, slot[k], abc[k], n * FR_BYTES,
                                 err)) ||
            (st = pl__gpu_to_odd_coset(d->gpu, slot[k], &d->set.tables, err)))
            return st;
    if ((st = pl__gpu_coset_h(d->gpu, slot[0], slot[1], slot[2], (uint32_t)n,
                              err)))
        return st;
    return pl__gpu_odd_coset_quotient(d->gpu, slot[0], slot[2],
                                      &d->set.quotient, err);
}

pl_status pl__c2_device_h(pl__c2_device *d, const blst_fr *a,
                          const blst_fr *b, const blst_fr *c,
                          pl_scalar *h_out, pl_error *err)
{
    if (!d || !a || !b || !c)
        return pl__error_set(err, PL_EUSAGE, "pl__c2_device_h: missing "
                             "state or a, b, c");
    const blst_fr *const abc[3] = {a, b, c};
    uint64_t n = (uint64_t)1 << d->log2n;
    pl_status st = call_begin(d, err);
    if (st != PL_OK)
        return st;
    d->h_on_device = false;
    st = h_on_device(d, abc, err);
    if (st == PL_OK && h_out && n > 1)
        st = pl__gpu_download(d->gpu, h_out, d->work, (n - 1) * FR_BYTES,
                              err);
    st = call_drain(d, st, err);
    d->h_on_device = st == PL_OK;
    pl__gpu_unlock(d->gpu);
    return st;
}

pl_status pl__c2_device_msm(pl__c2_device *d, unsigned which,
                            const pl_scalar *scalars, size_t n, blst_p1 *out,
                            pl_error *err)
{
    /* h's coefficients on the device are n - 1 (the last slot is
     * x^(n-1)'s, which the prover drops) */
    if (!d || !out || which >= PL__C2_BASES_COUNT || n > d->counts[which] ||
        (!scalars && (which != PL__C2_BASES_H ||
                      n >= ((size_t)1 << d->log2n))))
        return pl__error_set(err, PL_EUSAGE, "pl__c2_device_msm: set %u, %zu "
                             "points (the set has %zu), %s scalars", which, n,
                             d && which < PL__C2_BASES_COUNT
                                 ? d->counts[which] : (size_t)0,
                             scalars ? "host" : "device-resident");
    pl_status st = call_begin(d, err);
    if (st != PL_OK)
        return st;
    if (!scalars && !d->h_on_device) {
        st = pl__error_set(err, PL_EUSAGE, "pl__c2_device_msm: h's "
                           "coefficients are not on the device (no h since "
                           "the last MSM of host scalars)");
    } else if (scalars) {
        d->h_on_device = false;
        st = pl__gpu_upload(d->gpu, d->work, scalars, (uint64_t)n * FR_BYTES,
                            err);
    }
    if (st == PL_OK)
        st = pl__gpu_msm_g1(d->gpu, out, d->bases[which], d->work,
                            (uint32_t)n, d->work + d->scalars_bytes,
                            d->scratch_bytes, err);
    st = call_drain(d, st, err);
    pl__gpu_unlock(d->gpu);
    return st;
}
