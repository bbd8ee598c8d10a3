/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The real device of gpu.h: the CUDA runtime calls and the kernels.  Each
 * kernel is a thin wrapper that computes its thread's index and calls the
 * thread body from kernels/ntt.h or kernels/msm.h, the code the host
 * emulation (gpu_emu.c) runs in make test; the launch order here is the
 * emulation's loop order.  Compiled by nvcc when the build finds it
 * (CMakeLists.txt: sm_90 code plus compute_90 PTX), linked with the static
 * CUDA runtime, so a machine without a driver or device runs the binary and
 * gets "no device" from cudaGetDeviceCount.
 *
 * Every runtime call and every launch is checked; a failure names the call,
 * this file's line and CUDA's error in the pl_error.
 */
#include "backend/cuda/gpu.h"
#include "backend/cuda/kernels/msm.h"
#include "backend/cuda/kernels/ntt.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" {
#include "util/error.h"
}

typedef struct {
    int ordinal;
    cudaStream_t stream[PL_GPU_STREAMS];
    cudaEvent_t event[PL_GPU_EVENTS];
} cuda_device;

static pl_status cuda_fail(pl_error *err, const char *call, int line,
                           cudaError_t e)
{
    return pl__error_set(err,
                         e == cudaErrorMemoryAllocation ? PL_ENOMEM
                                                        : PL_EINTERNAL,
                         "CUDA: %s failed (gpu_cuda.cu:%d): %s: %s", call, line,
                         cudaGetErrorName(e), cudaGetErrorString(e));
}

#define CU_TRY(call)                                                          \
    do {                                                                      \
        cudaError_t cu_status_ = (call);                                      \
        if (cu_status_ != cudaSuccess)                                        \
            return cuda_fail(err, #call, __LINE__, cu_status_);               \
    } while (0)

/* A launch of `threads` threads in blocks of `block`, checked. */
#define CU_LAUNCH(kernel, threads, block, shared, stream, ...)                \
    do {                                                                      \
        uint64_t cu_threads_ = (threads);                                     \
        if (cu_threads_) {                                                    \
            kernel<<<(unsigned)((cu_threads_ + (block) - 1) / (block)),       \
                     (block), (shared), (stream)>>>(__VA_ARGS__);             \
            CU_TRY(cudaGetLastError());                                       \
        }                                                                     \
    } while (0)

static cuda_device *as_dev(void *dev)
{
    return (cuda_device *)dev;
}

/* The worker threads that call in may never have chosen a device. */
#define CU_ENTER(dev) CU_TRY(cudaSetDevice(as_dev(dev)->ordinal))

/* ---- kernels -------------------------------------------------------------- */

/* Stages of one direction in shared memory: the tile of 2^tile_log
 * elements is loaded once, and each thread does one butterfly per stage;
 * descending: spans 2^(tile_log-1) down to 1 (the inverse's last stages),
 * else up (the forward's first). */
__global__ void __launch_bounds__(1u << (PL_CU_NTT_TILE_LOG - 1))
    k_ntt_tile(pl__cu_fr *data, const pl__cu_fr *twiddles, unsigned log2n,
               unsigned tile_log, bool inverse)
{
    extern __shared__ pl__cu_fr tile[];
    uint32_t size = (uint32_t)1 << tile_log;
    pl__cu_fr *base = data + (size_t)blockIdx.x * size;
    for (uint32_t i = threadIdx.x; i < size; i += blockDim.x)
        tile[i] = base[i];
    __syncthreads();
    for (unsigned k = 0; k < tile_log; k++) {
        if (inverse)
            pl__cu_ntt_dif_inverse_thread(tile, twiddles, log2n,
                                          tile_log - 1 - k, threadIdx.x);
        else
            pl__cu_ntt_dit_thread(tile, twiddles, log2n, k, threadIdx.x);
        __syncthreads();
    }
    for (uint32_t i = threadIdx.x; i < size; i += blockDim.x)
        base[i] = tile[i];
}

/* One stage over the whole array. */
__global__ void k_ntt_stage(pl__cu_fr *data, const pl__cu_fr *twiddles,
                            unsigned log2n, unsigned s, uint32_t half_n,
                            bool inverse)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= half_n)
        return;
    if (inverse)
        pl__cu_ntt_dif_inverse_thread(data, twiddles, log2n, s, t);
    else
        pl__cu_ntt_dit_thread(data, twiddles, log2n, s, t);
}

__global__ void k_ntt_shift(pl__cu_fr *data, unsigned log2n,
                            const pl__cu_fr *n_inv, const pl__cu_fr *g_lo,
                            const pl__cu_fr *g_hi, unsigned lo_log, uint32_t n)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n)
        pl__cu_ntt_shift_thread(data, log2n, n_inv, g_lo, g_hi, lo_log, p);
}

__global__ void k_coset_h(const pl__cu_fr *a, const pl__cu_fr *b,
                          pl__cu_fr *c, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pl__cu_h_thread(a, b, c, i);
}

__global__ void k_msm_digits(pl__cu_msm_cfg cfg, const uint32_t *scalars,
                             uint32_t *keys, uint32_t *values)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < cfg.n)
        pl__cu_msm_digits_thread(&cfg, scalars, keys, values, i);
}

__global__ void k_msm_bounds(pl__cu_msm_cfg cfg, const uint32_t *keys,
                             uint32_t *start, uint32_t *end)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < cfg.windows * cfg.n)
        pl__cu_msm_bounds_thread(&cfg, keys, start, end, p);
}

__global__ void k_msm_count(pl__cu_msm_cfg cfg, const uint32_t *from,
                            const uint32_t *to, uint32_t *count)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b <= cfg.buckets)
        pl__cu_msm_count_thread(&cfg, from, to, count, b);
}

__global__ void k_msm_accumulate_points(pl__cu_msm_cfg cfg,
                                        const pl__cu_g1_affine *points,
                                        const uint32_t *values,
                                        const uint32_t *start,
                                        const uint32_t *end,
                                        const uint32_t *offsets,
                                        pl__cu_g1_xyzz *partials)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < cfg.max_partials)
        pl__cu_msm_accumulate_points_thread(&cfg, points, values, start, end,
                                            offsets, partials, t);
}

__global__ void k_msm_accumulate_partials(pl__cu_msm_cfg cfg,
                                          const pl__cu_g1_xyzz *in,
                                          const uint32_t *prev,
                                          const uint32_t *offsets,
                                          pl__cu_g1_xyzz *out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < cfg.max_partials)
        pl__cu_msm_accumulate_partials_thread(&cfg, in, prev, offsets, out, t);
}

__global__ void k_msm_reduce(pl__cu_msm_cfg cfg, const pl__cu_g1_xyzz *partials,
                             const uint32_t *offsets,
                             pl__cu_g1_xyzz *chunk_sums)
{
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < cfg.windows * cfg.chunks)
        pl__cu_msm_reduce_thread(&cfg, partials, offsets, chunk_sums, j);
}

/* ---- the device ------------------------------------------------------------ */

static int cu_device_count(char *why, size_t why_len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        snprintf(why, why_len, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
        cudaGetLastError(); /* not sticky: clear it */
        return 0;
    }
    if (count == 0)
        snprintf(why, why_len, "cudaGetDeviceCount found none");
    return count;
}

static void cu_close(void *dev)
{
    cuda_device *d = as_dev(dev);
    if (!d)
        return;
    cudaSetDevice(d->ordinal);
    for (int i = 0; i < PL_GPU_EVENTS; i++)
        if (d->event[i])
            cudaEventDestroy(d->event[i]);
    for (int i = 0; i < PL_GPU_STREAMS; i++)
        if (d->stream[i])
            cudaStreamDestroy(d->stream[i]);
    free(d);
}

static pl_status cu_open_into(cuda_device *d, char *description,
                              size_t description_len, pl_error *err)
{
    CU_TRY(cudaSetDevice(d->ordinal));
    cudaDeviceProp prop;
    CU_TRY(cudaGetDeviceProperties(&prop, d->ordinal));
    snprintf(description, description_len,
             "CUDA device %d: %s (sm_%d%d, %d SMs, %.1f GiB)", d->ordinal,
             prop.name, prop.major, prop.minor, prop.multiProcessorCount,
             (double)prop.totalGlobalMem / (1u << 30));
    for (int i = 0; i < PL_GPU_STREAMS; i++)
        CU_TRY(cudaStreamCreateWithFlags(&d->stream[i], cudaStreamNonBlocking));
    for (int i = 0; i < PL_GPU_EVENTS; i++)
        CU_TRY(cudaEventCreateWithFlags(&d->event[i], cudaEventDisableTiming));
    return PL_OK;
}

static pl_status cu_open(void **dev, int ordinal, char *description,
                         size_t description_len, pl_error *err)
{
    *dev = NULL;
    cuda_device *d = (cuda_device *)calloc(1, sizeof(*d));
    if (!d)
        return pl__error_set(err, PL_ENOMEM, "gpu: out of memory");
    d->ordinal = ordinal;
    pl_status st = cu_open_into(d, description, description_len, err);
    if (st != PL_OK) {
        cu_close(d);
        return st;
    }
    *dev = d;
    return PL_OK;
}

static pl_status cu_mem_info(void *dev, uint64_t *free_bytes,
                             uint64_t *total_bytes, pl_error *err)
{
    CU_ENTER(dev);
    size_t f = 0, t = 0;
    CU_TRY(cudaMemGetInfo(&f, &t));
    *free_bytes = f;
    *total_bytes = t;
    return PL_OK;
}

static pl_status cu_alloc(void *dev, void **ptr, uint64_t bytes, pl_error *err)
{
    *ptr = NULL;
    CU_ENTER(dev);
    CU_TRY(cudaMalloc(ptr, (size_t)bytes));
    return PL_OK;
}

static void cu_free(void *dev, void *ptr)
{
    cudaSetDevice(as_dev(dev)->ordinal);
    cudaFree(ptr);
}

static pl_status cu_host_register(void *dev, void *ptr, uint64_t bytes,
                                  pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaHostRegister(ptr, (size_t)bytes, cudaHostRegisterDefault));
    return PL_OK;
}

static void cu_host_unregister(void *dev, void *ptr)
{
    cudaSetDevice(as_dev(dev)->ordinal);
    cudaHostUnregister(ptr);
}

static pl_status cu_memset_zero(void *dev, int stream, void *ptr,
                                uint64_t bytes, pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaMemsetAsync(ptr, 0, (size_t)bytes, as_dev(dev)->stream[stream]));
    return PL_OK;
}

static pl_status cu_copy_to_device(void *dev, int stream, void *dst,
                                   const void *src, uint64_t bytes,
                                   pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaMemcpyAsync(dst, src, (size_t)bytes, cudaMemcpyHostToDevice,
                           as_dev(dev)->stream[stream]));
    return PL_OK;
}

static pl_status cu_copy_to_host(void *dev, int stream, void *dst,
                                 const void *src, uint64_t bytes,
                                 pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaMemcpyAsync(dst, src, (size_t)bytes, cudaMemcpyDeviceToHost,
                           as_dev(dev)->stream[stream]));
    return PL_OK;
}

static pl_status cu_event_record(void *dev, int event, int stream,
                                 pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaEventRecord(as_dev(dev)->event[event],
                           as_dev(dev)->stream[stream]));
    return PL_OK;
}

static pl_status cu_event_sync(void *dev, int event, pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaEventSynchronize(as_dev(dev)->event[event]));
    return PL_OK;
}

static pl_status cu_stream_wait(void *dev, int stream, int event, pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaStreamWaitEvent(as_dev(dev)->stream[stream],
                               as_dev(dev)->event[event], 0));
    return PL_OK;
}

static pl_status cu_stream_sync(void *dev, int stream, pl_error *err)
{
    CU_ENTER(dev);
    CU_TRY(cudaStreamSynchronize(as_dev(dev)->stream[stream]));
    return PL_OK;
}

/* ---- NTT and H ---------------------------------------------------------------- */

#define BLOCK 256u

/* The tiled stages of one direction (see k_ntt_tile). */
static pl_status ntt_tiles(cudaStream_t s, pl__cu_fr *data,
                           const pl__cu_fr *twiddles, unsigned log2n,
                           bool inverse, pl_error *err)
{
    uint32_t n = (uint32_t)1 << log2n;
    unsigned tile_log = pl__cu_ntt_tile_log(log2n);
    uint32_t tile = (uint32_t)1 << tile_log;
    CU_LAUNCH(k_ntt_tile, (uint64_t)(n / tile) * (tile / 2), tile / 2,
              tile * sizeof(pl__cu_fr), s, data, twiddles, log2n, tile_log,
              inverse);
    return PL_OK;
}

/* The launch order of gpu_emu.c's emu_to_odd_coset. */
static pl_status cu_to_odd_coset(void *dev, void *data,
                                 const pl__gpu_ntt_tables *tb, pl_error *err)
{
    unsigned log2n = tb->log2n;
    if (log2n == 0)
        return PL_OK;
    CU_ENTER(dev);
    cudaStream_t s = as_dev(dev)->stream[PL_GPU_COMPUTE];
    pl__cu_fr *d = (pl__cu_fr *)data;
    const pl__cu_fr *tw = (const pl__cu_fr *)tb->twiddles;
    uint32_t n = (uint32_t)1 << log2n;
    unsigned tile_log = pl__cu_ntt_tile_log(log2n);
    pl_status st;
    for (unsigned k = log2n; k-- > tile_log;)
        CU_LAUNCH(k_ntt_stage, n / 2, BLOCK, 0, s, d, tw, log2n, k, n / 2, true);
    if ((st = ntt_tiles(s, d, tw, log2n, true, err)))
        return st;
    CU_LAUNCH(k_ntt_shift, n, BLOCK, 0, s, d, log2n,
              (const pl__cu_fr *)tb->n_inv, (const pl__cu_fr *)tb->g_lo,
              (const pl__cu_fr *)tb->g_hi, tb->lo_log, n);
    if ((st = ntt_tiles(s, d, tw, log2n, false, err)))
        return st;
    for (unsigned k = tile_log; k < log2n; k++)
        CU_LAUNCH(k_ntt_stage, n / 2, BLOCK, 0, s, d, tw, log2n, k, n / 2, false);
    return PL_OK;
}

static pl_status cu_coset_h(void *dev, const void *a, const void *b, void *c,
                            uint32_t n, pl_error *err)
{
    CU_ENTER(dev);
    CU_LAUNCH(k_coset_h, n, BLOCK, 0, as_dev(dev)->stream[PL_GPU_COMPUTE],
              (const pl__cu_fr *)a, (const pl__cu_fr *)b, (pl__cu_fr *)c, n);
    return PL_OK;
}

/* ---- MSM ------------------------------------------------------------------------ */

static size_t cub_temp_bytes(const pl__cu_msm_cfg *cfg)
{
    size_t sort = 0, scan = 0;
    int entries = (int)(cfg->windows * cfg->n);
    cub::DeviceRadixSort::SortPairs(NULL, sort, (const uint32_t *)NULL,
                                    (uint32_t *)NULL, (const uint32_t *)NULL,
                                    (uint32_t *)NULL, entries, 0,
                                    (int)cfg->key_bits);
    cub::DeviceScan::ExclusiveSum(NULL, scan, (const uint32_t *)NULL,
                                  (uint32_t *)NULL, (int)cfg->buckets + 1);
    return sort > scan ? sort : scan;
}

static uint64_t cu_msm_scratch_bytes(void *dev, const pl__cu_msm_cfg *cfg)
{
    return pl__cu_msm_layout(cfg, cub_temp_bytes(cfg), NULL, NULL);
}

static pl_status cu_msm_g1(void *dev, const pl__cu_msm_cfg *cfg,
                           const void *points, const void *scalars,
                           void *scratch, uint64_t scratch_bytes,
                           void *pinned_chunks, pl_error *err)
{
    CU_ENTER(dev);
    cudaStream_t s = as_dev(dev)->stream[PL_GPU_COMPUTE];
    pl__cu_msm_scratch m;
    pl__cu_msm_layout(cfg, cub_temp_bytes(cfg), scratch, &m);
    size_t temp_bytes = (size_t)m.temp_bytes;
    uint32_t entries = cfg->windows * cfg->n, nb = cfg->buckets;
    const pl__cu_g1_affine *pts = (const pl__cu_g1_affine *)points;

    CU_LAUNCH(k_msm_digits, cfg->n, BLOCK, 0, s, *cfg,
              (const uint32_t *)scalars, m.keys[0], m.values[0]);
    CU_TRY(cub::DeviceRadixSort::SortPairs(
        m.temp, temp_bytes, m.keys[0], m.keys[1], m.values[0], m.values[1],
        (int)entries, 0, (int)cfg->key_bits, s));
    CU_TRY(cudaMemsetAsync(m.start, 0, (size_t)nb * 4, s));
    CU_TRY(cudaMemsetAsync(m.end, 0, (size_t)nb * 4, s));
    CU_LAUNCH(k_msm_bounds, entries, BLOCK, 0, s, *cfg, m.keys[1], m.start,
              m.end);

    int cur = 0;
    CU_LAUNCH(k_msm_count, nb + 1, BLOCK, 0, s, *cfg, m.start, m.end, m.count);
    CU_TRY(cub::DeviceScan::ExclusiveSum(m.temp, temp_bytes, m.count,
                                         m.offsets[cur], (int)nb + 1, s));
    /* point additions are register-heavy: smaller blocks */
    CU_LAUNCH(k_msm_accumulate_points, cfg->max_partials, 128u, 0, s, *cfg,
              pts, m.values[1], m.start, m.end, m.offsets[cur],
              m.partials[cur]);
    for (unsigned level = 1; level < cfg->levels; level++) {
        int prev = cur;
        cur ^= 1;
        CU_LAUNCH(k_msm_count, nb + 1, BLOCK, 0, s, *cfg, m.offsets[prev],
                  m.offsets[prev] + 1, m.count);
        CU_TRY(cub::DeviceScan::ExclusiveSum(m.temp, temp_bytes, m.count,
                                             m.offsets[cur], (int)nb + 1, s));
        CU_LAUNCH(k_msm_accumulate_partials, cfg->max_partials, 128u, 0, s,
                  *cfg, m.partials[prev], m.offsets[prev], m.offsets[cur],
                  m.partials[cur]);
    }
    CU_LAUNCH(k_msm_reduce, (uint64_t)cfg->windows * cfg->chunks, 64u, 0, s,
              *cfg, m.partials[cur], m.offsets[cur], m.chunks);
    CU_TRY(cudaMemcpyAsync(pinned_chunks, m.chunks,
                           (size_t)cfg->windows * cfg->chunks *
                               sizeof(pl__cu_g1_xyzz),
                           cudaMemcpyDeviceToHost, s));
    CU_TRY(cudaStreamSynchronize(s));
    return PL_OK;
}

extern "C" const pl__gpu_impl pl__gpu_impl_cuda = {
    "cuda",
    cu_device_count,
    cu_open,
    cu_close,
    cu_mem_info,
    cu_alloc,
    cu_free,
    cu_host_register,
    cu_host_unregister,
    cu_memset_zero,
    cu_copy_to_device,
    cu_copy_to_host,
    cu_event_record,
    cu_event_sync,
    cu_stream_wait,
    cu_stream_sync,
    cu_to_odd_coset,
    cu_coset_h,
    cu_msm_scratch_bytes,
    cu_msm_g1,
};
