/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The real device of gpu.h: the CUDA runtime calls, CUB's radix sort and
 * scan, and the kernels.  Each kernel is a thin wrapper that computes its
 * thread's index and calls the thread body from kernels/ntt.h or
 * kernels/msm.h (those over a curve's fields once per curve, from
 * gpu_cuda_kernels.cuh), the code the host emulation (gpu_emu.c) runs in make
 * test; which kernels run in which order over which buffers is gpu.c's
 * business (the schedules both implementations run), so this file has no
 * loop over stages or MSM steps.  Compiled by nvcc when the build finds it
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

/* The failure of a runtime call: its expression, this file's line, CUDA's
 * error by name and text, and the code in err->cuda_code.  The runtime
 * keeps the error for cudaGetLastError too: it is read here, so that a
 * later launch's check cannot return it as the launch's own (a sticky
 * error, a device fault, stays and fails every later call, as it should). */
static pl_status cuda_fail(pl_error *err, const char *call, int line,
                           cudaError_t e)
{
    cudaGetLastError();
    pl_status st = pl__error_set(
        err, e == cudaErrorMemoryAllocation ? PL_ENOMEM : PL_EINTERNAL,
        "CUDA: %s failed (gpu_cuda.cu:%d): %s: %s", call, line,
        cudaGetErrorName(e), cudaGetErrorString(e));
    if (err)
        err->cuda_code = (int)e;
    return st;
}

#define CU_TRY(call)                                                          \
    do {                                                                      \
        cudaError_t cu_status_ = (call);                                      \
        if (cu_status_ != cudaSuccess)                                        \
            return cuda_fail(err, #call, __LINE__, cu_status_);               \
    } while (0)

/* A release (free, unregister, destroy) where nobody can act on a
 * failure: its status is checked and a failure cleared like cuda_fail's,
 * so that it is not read later as another call's. */
#define CU_RELEASE(call)                                                      \
    do {                                                                      \
        if ((call) != cudaSuccess)                                            \
            cudaGetLastError();                                               \
    } while (0)

/* A launch of `threads` threads in blocks of `block` on one of dev's
 * streams, checked: every earlier call's failure was read where it
 * happened, so an error here is this launch's (or a device fault's). */
#define CU_LAUNCH(dev, stream, kernel, threads, block, shared, ...)           \
    do {                                                                      \
        uint64_t cu_threads_ = (threads);                                     \
        if (cu_threads_) {                                                    \
            CU_ENTER(dev);                                                    \
            kernel<<<(unsigned)((cu_threads_ + (block) - 1) / (block)),       \
                     (block), (shared), as_dev(dev)->stream[stream]>>>(       \
                __VA_ARGS__);                                                 \
            CU_TRY(cudaGetLastError());                                       \
        }                                                                     \
    } while (0)

static cuda_device *as_dev(void *dev)
{
    return (cuda_device *)dev;
}

/* The worker threads that call in may never have chosen a device. */
#define CU_ENTER(dev) CU_TRY(cudaSetDevice(as_dev(dev)->ordinal))

/* ---- kernels ----------------------------------------------------------------- */

/* Thread t of a launch; threads past the count return at once. */
#define THREAD_INDEX (blockIdx.x * blockDim.x + threadIdx.x)

/* The curve-free kernels (the MSM's bucket bookkeeping); those over a
 * curve's fields are gpu_cuda_kernels.cuh's, included with the launches
 * below. */
__global__ void k_msm_bounds(uint32_t threads, pl__cu_msm_cfg cfg,
                             const uint32_t *keys, uint32_t *start,
                             uint32_t *end)
{
    uint32_t p = THREAD_INDEX;
    if (p < threads)
        pl__cu_msm_bounds_thread(&cfg, keys, start, end, p);
}

__global__ void k_msm_count(uint32_t threads, pl__cu_msm_cfg cfg,
                            const uint32_t *from, const uint32_t *to,
                            uint32_t *count)
{
    uint32_t b = THREAD_INDEX;
    if (b < threads)
        pl__cu_msm_count_thread(&cfg, from, to, count, b);
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
    CU_RELEASE(cudaSetDevice(d->ordinal));
    for (int i = 0; i < PL_GPU_EVENTS; i++)
        if (d->event[i])
            CU_RELEASE(cudaEventDestroy(d->event[i]));
    for (int i = 0; i < PL_GPU_STREAMS; i++)
        if (d->stream[i])
            CU_RELEASE(cudaStreamDestroy(d->stream[i]));
    free(d);
}

/* After a sticky fault: cudaDeviceReset drops the process's context on the
 * device (its allocations, streams and events with it); the handles are not
 * destroyed one by one, since they died with the context.  CUDA documents
 * these faults as leaving the process unable to use the device again, so
 * the backend does not try to (it marks the process's CUDA use faulted);
 * the reset returns what the driver can. */
static void cu_reset(void *dev)
{
    cuda_device *d = as_dev(dev);
    if (!d)
        return;
    CU_RELEASE(cudaSetDevice(d->ordinal));
    CU_RELEASE(cudaDeviceReset());
    free(d);
}

/* The errors after which every later call fails with the same error (the
 * runtime's "sticky" errors: the context is corrupt). */
static_assert(PL_GPU_EMU_FAULT_CODE == cudaErrorIllegalAddress,
              "the emulation's fault is CUDA's illegal address");
static bool cu_error_is_fatal(int code)
{
    switch ((cudaError_t)code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

static pl_status cu_open_into(cuda_device *d, char *description,
                              size_t description_len, pl_error *err)
{
    CU_TRY(cudaSetDevice(d->ordinal));
    /* A thread waiting for the device blocks instead of spinning: while the
     * GPU does a proof's G1 work, the prover's CPU threads run its G2 MSM,
     * and a spinning waiter would take one of their cores (the default
     * spins when contexts are fewer than cores).  The cost is a wake-up's
     * latency per wait, a few per proof. */
    CU_TRY(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
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
    CU_RELEASE(cudaSetDevice(as_dev(dev)->ordinal));
    CU_RELEASE(cudaFree(ptr));
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
    CU_RELEASE(cudaSetDevice(as_dev(dev)->ordinal));
    CU_RELEASE(cudaHostUnregister(ptr));
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

/* Never below the current limit (CUB's kernels get the default). */
static pl_status cu_set_stack_limit(void *dev, uint64_t bytes, pl_error *err)
{
    size_t now = 0;
    CU_ENTER(dev);
    CU_TRY(cudaDeviceGetLimit(&now, cudaLimitStackSize));
    if (bytes > now)
        CU_TRY(cudaDeviceSetLimit(cudaLimitStackSize, (size_t)bytes));
    return PL_OK;
}

/* ---- CUB: the radix sort and the scan ------------------------------------------ */

/* The counts go to CUB as 32-bit unsigned (CUB then uses 32-bit offsets,
 * its fast path); larger ones are refused here. */
#define CU_COUNT32(count, what)                                               \
    do {                                                                      \
        if ((count) > UINT32_MAX)                                             \
            return pl__error_set(err, PL_EUNSUPPORTED,                        \
                                 "CUDA: %s of %llu items: more than 2^32 - 1", \
                                 what, (unsigned long long)(count));          \
    } while (0)

static pl_status cu_sort_temp_bytes(void *dev, uint64_t count,
                                    unsigned key_bits, uint64_t *bytes,
                                    pl_error *err)
{
    CU_COUNT32(count, "sort");
    CU_ENTER(dev);
    size_t temp = 0;
    cub::DoubleBuffer<uint32_t> keys(NULL, NULL), values(NULL, NULL);
    CU_TRY(cub::DeviceRadixSort::SortPairs(NULL, temp, keys, values,
                                           (uint32_t)count, 0, (int)key_bits));
    *bytes = temp;
    return PL_OK;
}

/* DoubleBuffer: CUB sorts between the two buffers of each pair and says
 * which holds the result, instead of allocating a copy of the input inside
 * its temporary storage as the out-of-place form does (2 GiB at 2^24). */
static pl_status cu_sort_pairs(void *dev, int stream, void *temp,
                               uint64_t temp_bytes, uint32_t *keys[2],
                               uint32_t *values[2], unsigned *current,
                               uint64_t count, unsigned key_bits,
                               pl_error *err)
{
    CU_COUNT32(count, "sort");
    CU_ENTER(dev);
    size_t temp_size = (size_t)temp_bytes;
    cub::DoubleBuffer<uint32_t> k(keys[*current], keys[*current ^ 1]);
    cub::DoubleBuffer<uint32_t> v(values[*current], values[*current ^ 1]);
    CU_TRY(cub::DeviceRadixSort::SortPairs(temp, temp_size, k, v,
                                           (uint32_t)count, 0, (int)key_bits,
                                           as_dev(dev)->stream[stream]));
    *current = k.Current() == keys[1];
    if (v.Current() != values[*current])
        return pl__error_set(err, PL_EINTERNAL,
                             "CUDA: the sort left keys and values in "
                             "different buffers");
    return PL_OK;
}

static pl_status cu_scan_temp_bytes(void *dev, uint64_t count,
                                    uint64_t *bytes, pl_error *err)
{
    CU_COUNT32(count, "scan");
    CU_ENTER(dev);
    size_t temp = 0;
    CU_TRY(cub::DeviceScan::ExclusiveSum(NULL, temp, (const uint32_t *)NULL,
                                         (uint32_t *)NULL, (uint32_t)count));
    *bytes = temp;
    return PL_OK;
}

static pl_status cu_exclusive_scan(void *dev, int stream, void *temp,
                                   uint64_t temp_bytes, const uint32_t *in,
                                   uint32_t *out, uint64_t count,
                                   pl_error *err)
{
    CU_COUNT32(count, "scan");
    CU_ENTER(dev);
    size_t temp_size = (size_t)temp_bytes;
    CU_TRY(cub::DeviceScan::ExclusiveSum(temp, temp_size, in, out,
                                         (uint32_t)count,
                                         as_dev(dev)->stream[stream]));
    return PL_OK;
}

/* ---- the launches ------------------------------------------------------------- */

/* Threads per block: 256 for the light kernels; the point additions are
 * register-heavy (100-160 registers a thread), so they run in smaller
 * blocks. */
#define BLOCK 256u
#define BLOCK_EC 128u
#define BLOCK_REDUCE 64u

static pl_status cu_msm_bounds(void *dev, int stream, uint32_t threads,
                               const pl__cu_msm_cfg *cfg, const uint32_t *keys,
                               uint32_t *start, uint32_t *end, pl_error *err)
{
    CU_LAUNCH(dev, stream, k_msm_bounds, threads, BLOCK, 0, threads, *cfg,
              keys, start, end);
    return PL_OK;
}

static pl_status cu_msm_count(void *dev, int stream, uint32_t threads,
                              const pl__cu_msm_cfg *cfg, const uint32_t *from,
                              const uint32_t *to, uint32_t *count,
                              pl_error *err)
{
    CU_LAUNCH(dev, stream, k_msm_count, threads, BLOCK, 0, threads, *cfg,
              from, to, count);
    return PL_OK;
}

/* The kernels over a curve's fields and their launches, per curve
 * (gpu_cuda_kernels.cuh): cu_kernels for BLS12-381, bn254_cu_kernels for
 * BN254. */
#define PL__CU_P(name) pl__cu_##name
#define PL__CUK(name) name
#include "backend/cuda/gpu_cuda_kernels.cuh"
#undef PL__CU_P
#undef PL__CUK
#define PL__CU_P(name) pl__cu_bn254_##name
#define PL__CUK(name) bn254_##name
#include "backend/cuda/gpu_cuda_kernels.cuh"
#undef PL__CU_P
#undef PL__CUK

/* The most local memory a thread of any kernel uses: its stack, as the
 * out-of-line field multiplication's operands live there (ptxas -v on
 * sm_90: 1,584 bytes for k_msm_reduce, 864 for the accumulate kernels),
 * over both curves' kernels (one figure: the stack is the device's).
 * Under lazy module loading (the default since CUDA 12.2) the query also
 * loads each kernel, so its code is resident when this returns. */
static pl_status cu_kernel_stack_bytes(void *dev, uint64_t *bytes,
                                       pl_error *err)
{
    const void *const curve_free[] = {
        (const void *)k_msm_bounds,
        (const void *)k_msm_count,
    };
    const struct {
        const void *const *list;
        size_t count;
    } sets[] = {
        {curve_free, sizeof(curve_free) / sizeof(curve_free[0])},
        {cu_kernel_list, sizeof(cu_kernel_list) / sizeof(cu_kernel_list[0])},
        {bn254_cu_kernel_list,
         sizeof(bn254_cu_kernel_list) / sizeof(bn254_cu_kernel_list[0])},
    };
    *bytes = 0;
    CU_ENTER(dev);
    for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++)
        for (size_t i = 0; i < sets[k].count; i++) {
            cudaFuncAttributes a;
            CU_TRY(cudaFuncGetAttributes(&a, sets[k].list[i]));
            if (a.localSizeBytes > *bytes)
                *bytes = a.localSizeBytes;
        }
    return PL_OK;
}

extern "C" const pl__gpu_impl pl__gpu_impl_cuda = {
    "cuda",
    cu_device_count,
    cu_open,
    cu_close,
    cu_reset,
    cu_error_is_fatal,
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
    cu_kernel_stack_bytes,
    cu_set_stack_limit,
    cu_sort_temp_bytes,
    cu_sort_pairs,
    cu_scan_temp_bytes,
    cu_exclusive_scan,
    cu_msm_bounds,
    cu_msm_count,
    /* kernels: by pl__curve, BLS12-381 then BN254 */
    {&cu_kernels, &bn254_cu_kernels},
};
