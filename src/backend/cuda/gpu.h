/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's device layer: one pl__gpu per GPU, holding its streams
 * and events, its pinned staging buffers and the accounting of everything
 * it allocates (class device for GPU memory, class pinned for page-locked
 * host memory), over an implementation table:
 *
 *   pl__gpu_impl_cuda      the real one (gpu_cuda.cu, kernels.cu), present
 *                          when the build found nvcc (PL_HAVE_CUDA);
 *   pl__gpu_impl_emulated  the host emulation (gpu_emu.c), always built:
 *                          "device" memory is host memory and each kernel is
 *                          a loop over its thread bodies (kernels/ (ntt.h, msm.h)), in
 *                          order.  make test runs the whole CUDA backend on
 *                          it, so everything but the CUDA calls themselves
 *                          is tested on machines without a GPU.
 *
 * Streams: PL_GPU_COPY carries host-to-device copies, PL_GPU_COMPUTE the
 * kernels; an upload records an event that the compute stream waits on, so
 * the transform of a overlaps the upload of b.  Every call that can fail
 * returns a pl_status with the CUDA call, its error and the source line in
 * err.
 */
#ifndef PL_BACKEND_CUDA_GPU_H
#define PL_BACKEND_CUDA_GPU_H

#include "proofline.h"
#include "blst.h"
#include "backend/cuda/kernels/msm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PL_GPU_COPY = 0, PL_GPU_COMPUTE = 1, PL_GPU_STREAMS = 2 };
/* Events an implementation keeps per device (uploads alternate between
 * the staging buffers, one event each, plus one for "upload done"). */
enum { PL_GPU_EVENT_STAGE0 = 0, PL_GPU_EVENT_STAGE1 = 1,
       PL_GPU_EVENT_UPLOADED = 2, PL_GPU_EVENTS = 3 };

/* What the odd-coset transform needs on the device (see kernels/ntt.h). */
typedef struct {
    unsigned log2n;
    const void *twiddles;    /* n/2 Fr: omega^j */
    const void *n_inv;       /* 1 Fr */
    const void *g_lo, *g_hi; /* split powers of g */
    unsigned lo_log;
} pl__gpu_ntt_tables;

/* The NTT constants as one host array (class params, pl__free it): 1/n,
 * then g^i for i < 2^lo, then g^(k 2^lo) for k <= n / 2^lo, lo =
 * ceil(log2n / 2); upload it, and the plan's twiddles, and init the tables
 * over the two device copies. */
struct pl__ntt_plan;
uint64_t pl__gpu_ntt_constants_count(unsigned log2n);
blst_fr *pl__gpu_ntt_constants(const struct pl__ntt_plan *plan, unsigned log2n,
                               pl_error *err);
void pl__gpu_ntt_tables_init(pl__gpu_ntt_tables *tables, unsigned log2n,
                             const void *device_twiddles,
                             const void *device_constants);

typedef struct pl__gpu_impl {
    const char *name;
    /* Devices present; 0 when none or no driver, with the reason in why. */
    int (*device_count)(char *why, size_t why_len);
    pl_status (*open)(void **dev, int ordinal, char *description,
                      size_t description_len, pl_error *err);
    void (*close)(void *dev);
    pl_status (*mem_info)(void *dev, uint64_t *free_bytes,
                          uint64_t *total_bytes, pl_error *err);
    pl_status (*alloc)(void *dev, void **ptr, uint64_t bytes, pl_error *err);
    void (*free)(void *dev, void *ptr);
    /* Page-locks host memory that the accounted allocator gave (class
     * pinned), so copies from it are DMA; and undoes it before the free. */
    pl_status (*host_register)(void *dev, void *ptr, uint64_t bytes,
                               pl_error *err);
    void (*host_unregister)(void *dev, void *ptr);
    pl_status (*memset_zero)(void *dev, int stream, void *ptr, uint64_t bytes,
                             pl_error *err);
    pl_status (*copy_to_device)(void *dev, int stream, void *dst,
                                const void *pinned_src, uint64_t bytes,
                                pl_error *err);
    pl_status (*copy_to_host)(void *dev, int stream, void *pinned_dst,
                              const void *src, uint64_t bytes, pl_error *err);
    pl_status (*event_record)(void *dev, int event, int stream, pl_error *err);
    pl_status (*event_sync)(void *dev, int event, pl_error *err);
    pl_status (*stream_wait)(void *dev, int stream, int event, pl_error *err);
    pl_status (*stream_sync)(void *dev, int stream, pl_error *err);
    /* In place on the compute stream: evaluations on the domain to
     * evaluations on the odd coset (inverse NTT, times g^i, NTT). */
    pl_status (*to_odd_coset)(void *dev, void *data,
                              const pl__gpu_ntt_tables *tables, pl_error *err);
    /* h = a b - c as canonical scalars, over c (compute stream). */
    pl_status (*coset_h)(void *dev, const void *a, const void *b, void *c,
                         uint32_t n, pl_error *err);
    /* Device scratch bytes an MSM of this shape needs (sort buffers, bucket
     * bounds, partial sums, the sort's own temporary storage). */
    uint64_t (*msm_scratch_bytes)(void *dev, const pl__cu_msm_cfg *cfg);
    /* Steps 1-5 of kernels/msm.h on the compute stream, the W T chunk sums
     * (XYZZ) copied to `pinned_chunks`; returns after they arrived. */
    pl_status (*msm_g1)(void *dev, const pl__cu_msm_cfg *cfg,
                        const void *points, const void *scalars, void *scratch,
                        uint64_t scratch_bytes, void *pinned_chunks,
                        pl_error *err);
} pl__gpu_impl;

extern const pl__gpu_impl pl__gpu_impl_emulated;
#ifdef PL_HAVE_CUDA
extern const pl__gpu_impl pl__gpu_impl_cuda;
#endif

/* ---- the device object (gpu.c) ----------------------------------------- */

typedef struct pl__gpu pl__gpu;

/* Bytes of pinned staging memory a device object holds (the budget covers
 * them as resident bytes). */
#define PL_GPU_STAGING_BYTES (2u * 16u * 1024u * 1024u)
/* ... and of pinned memory for one MSM's chunk sums: W T XYZZ points with
 * c >= 8 (W <= 32 windows) and T <= 256 chunks. */
#define PL_GPU_MAX_CHUNK_SUMS (32u * 256u)
#define PL_GPU_CHUNK_BYTES (PL_GPU_MAX_CHUNK_SUMS * 192u)

pl_status pl__gpu_open(pl__gpu **out, const pl__gpu_impl *impl, int ordinal,
                       pl_error *err);
void pl__gpu_close(pl__gpu *gpu);
const char *pl__gpu_description(const pl__gpu *gpu);
const pl__gpu_impl *pl__gpu_impl_of(const pl__gpu *gpu);

/* Device memory, accounted in class device (NULL frees nothing). */
void *pl__gpu_alloc(pl__gpu *gpu, uint64_t bytes, pl_error *err);
void pl__gpu_free(pl__gpu *gpu, void *ptr, uint64_t bytes);
/* The driver's view: the device's free and total bytes (cudaMemGetInfo). */
pl_status pl__gpu_mem_info(pl__gpu *gpu, uint64_t *free_bytes,
                           uint64_t *total_bytes, pl_error *err);
/* The device's used bytes when the object was opened, before it allocated
 * anything (the CUDA context, other processes): the ledger's baseline. */
uint64_t pl__gpu_used_at_open(const pl__gpu *gpu);

/* Copies bytes from any host memory to the device through the pinned
 * staging buffers, chunk by chunk on the copy stream (the host copy into
 * one staging buffer overlaps the DMA out of the other), then makes the
 * compute stream wait for it.  When it returns, src may be freed. */
pl_status pl__gpu_upload(pl__gpu *gpu, void *dst, const void *src,
                         uint64_t bytes, pl_error *err);

/* Copies bytes from the device back to host memory after the compute
 * stream's work so far (tests, and the GPU check's comparisons). */
pl_status pl__gpu_download(pl__gpu *gpu, void *dst, const void *src,
                           uint64_t bytes, pl_error *err);

/* Waits for the compute stream's work so far (stage timings). */
pl_status pl__gpu_sync(pl__gpu *gpu, pl_error *err);

pl_status pl__gpu_to_odd_coset(pl__gpu *gpu, void *data,
                               const pl__gpu_ntt_tables *tables,
                               pl_error *err);
pl_status pl__gpu_coset_h(pl__gpu *gpu, const void *a, const void *b, void *c,
                          uint32_t n, pl_error *err);

/* sum s_i P_i over n device-resident points and canonical scalars, with
 * scratch of at least pl__gpu_msm_scratch_bytes(n) bytes; the window sums
 * are combined on the host (kernels/msm.h step 6). */
uint64_t pl__gpu_msm_scratch_bytes(pl__gpu *gpu, uint32_t n);
pl_status pl__gpu_msm_g1(pl__gpu *gpu, blst_p1 *out, const void *points,
                         const void *scalars, uint32_t n, void *scratch,
                         uint64_t scratch_bytes, pl_error *err);

/* Serializes whole proofs on one device (its scratch is shared). */
void pl__gpu_lock(pl__gpu *gpu);
void pl__gpu_unlock(pl__gpu *gpu);

#ifdef __cplusplus
}
#endif

#endif /* PL_BACKEND_CUDA_GPU_H */
