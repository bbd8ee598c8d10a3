/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host emulation of the CUDA backend's device (gpu.h): "device" memory
 * is host memory (on a 4 GiB card whose context uses 32 MiB, for the
 * ledger's reconciliation), streams are the calling thread (so every
 * operation is complete when it returns and events are no-ops), and a
 * launch is a loop over the kernel's thread body from kernels/ntt.h or
 * kernels/msm.h (for the kernels over a curve's fields, the curve's
 * instance: gpu_emu_kernels.h, included once per curve).  gpu.c's
 * schedules call these launches in the order, and over the buffers, that
 * they call gpu_cuda.cu's.  The sort and the scan
 * keep CUB's contracts, including the one a schedule can get wrong: the
 * sort leaves its result in either buffer of the pair (alternately, so
 * both cases run) and poisons the other.  Slow (the portable 32-bit-limb
 * arithmetic, one thread): for tests at small sizes, where it checks the
 * kernels' index arithmetic, digit decomposition and bucket bookkeeping,
 * and the schedules' wiring, against the CPU backend.
 */
#include "backend/cuda/gpu.h"
#include "util/error.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many cards the emulation presents: the test hook's count, else
 * PL_GPU_EMULATED_DEVICES (1 to PL_GPU_MAX_DEVICES), else 1.  Each is its
 * own card: its own memory, its own "other process". */
static _Atomic unsigned emu_devices;

void pl__gpu_emu_set_devices(unsigned n)
{
    atomic_store(&emu_devices, n > PL_GPU_MAX_DEVICES ? PL_GPU_MAX_DEVICES
                                                      : n);
}

static int emu_device_count(char *why, size_t why_len)
{
    (void)why, (void)why_len;
    unsigned n = atomic_load(&emu_devices);
    if (n)
        return (int)n;
    const char *env = getenv("PL_GPU_EMULATED_DEVICES");
    long v = env ? strtol(env, NULL, 10) : 1;
    return v < 1 ? 1 : v > PL_GPU_MAX_DEVICES ? PL_GPU_MAX_DEVICES : (int)v;
}

/* The emulated card: a fixed size, and a share "used" before anything is
 * allocated (as a CUDA context takes), so that the ledger's reconciliation
 * of driver-used with class device has something to reconcile. */
#define EMU_CARD_BYTES ((uint64_t)4 << 30)
#define EMU_CONTEXT_BYTES ((uint64_t)32 << 20)
#define EMU_HEADER 64u

/* The emulated kernels' stack: a per-thread figure of the device's order
 * (ptxas: up to 1,584 bytes on sm_90) reserved, as the driver does, for
 * every thread the card holds at once (16 SMs of 2,048), so that the stack
 * accounting of gpu.c has something to account: 32 MiB. */
#define EMU_KERNEL_STACK_BYTES 1024u
#define EMU_RESIDENT_THREADS (16u * 2048u)

typedef struct {
    int ordinal;
    _Atomic uint64_t used; /* device allocations, headers excluded, and the
                            * stack reservation */
    uint64_t stack_limit;  /* per thread */
    unsigned sorts;        /* sorts so far: which buffer gets the next result */
    bool faulted;          /* a sticky fault: every later call fails */
} emu_device;

/* The test hook's request: the next kernel launch faults. */
static atomic_bool fault_next_launch;

void pl__gpu_emu_fault_next_launch(void)
{
    atomic_store(&fault_next_launch, true);
}

/* Work queued on each stream since that stream was last synchronized.  The
 * emulation runs every operation to its end at once, but a real stream
 * would still be running it: the count is what a device would still have
 * in flight, for the test hook below (issue 21.4: the device must not be
 * given back with work queued).  The process's, as the tests open one
 * device at a time. */
static _Atomic unsigned queued_on_stream[PL_GPU_STREAMS];

static void emu_enqueue(int stream)
{
    atomic_fetch_add(&queued_on_stream[stream], 1);
}

unsigned pl__gpu_emu_queued(int stream)
{
    return atomic_load(&queued_on_stream[stream]);
}

/* A sticky fault as the CUDA runtime reports one (an illegal address,
 * cudaErrorIllegalAddress): from the faulting launch on, every call on the
 * device fails with it, until the context is reset. */
static pl_status emu_fault(pl_error *err)
{
    pl_status st = pl__error_set(err, PL_EINTERNAL,
                                 "emulated device: an illegal memory access "
                                 "was encountered (code %d)",
                                 PL_GPU_EMU_FAULT_CODE);
    if (err)
        err->cuda_code = PL_GPU_EMU_FAULT_CODE;
    return st;
}

/* Whether a call may run: false (the fault reported) on a faulted device;
 * a launch (is_launch) takes a requested fault first. */
static bool emu_usable(void *dev, bool is_launch, pl_error *err)
{
    emu_device *d = dev;
    if (is_launch && atomic_exchange(&fault_next_launch, false))
        d->faulted = true;
    if (d->faulted)
        emu_fault(err);
    return !d->faulted;
}

#define EMU_CALL(dev)                                                         \
    do {                                                                      \
        if (!emu_usable(dev, false, err))                                     \
            return PL_EINTERNAL;                                              \
    } while (0)
#define EMU_LAUNCH(dev)                                                       \
    do {                                                                      \
        if (!emu_usable(dev, true, err))                                      \
            return PL_EINTERNAL;                                              \
    } while (0)

static bool emu_error_is_fatal(int cuda_code)
{
    return cuda_code == PL_GPU_EMU_FAULT_CODE;
}

static pl_status emu_open(void **dev, int ordinal, char *description,
                          size_t description_len, pl_error *err)
{
    snprintf(description, description_len,
             "emulated device %d (host memory, one thread)", ordinal);
    if (ordinal < 0 || ordinal >= emu_device_count(NULL, 0))
        return pl__error_set(err, PL_EUNSUPPORTED, "emulated device %d: the "
                             "emulation presents %d", ordinal,
                             emu_device_count(NULL, 0));
    emu_device *d = calloc(1, sizeof(*d));
    if (!d)
        return pl__error_set(err, PL_ENOMEM, "emulated device: out of memory");
    d->ordinal = ordinal;
    *dev = d;
    return PL_OK;
}

static void emu_close(void *dev)
{
    free(dev);
}

/* The context goes with everything on it: here, the device struct (the
 * buffers still allocated were freed by their owners before). */
static void emu_reset(void *dev)
{
    free(dev);
}

/* Another process on a card (the test hook's): bytes it holds now, and
 * bytes it takes at our next allocation (as if it won a race between our
 * check of free memory and our cudaMalloc). */
static _Atomic uint64_t foreign_bytes[PL_GPU_MAX_DEVICES];
static _Atomic uint64_t foreign_at_next_alloc[PL_GPU_MAX_DEVICES];

void pl__gpu_emu_foreign_on(int ordinal, uint64_t bytes_now,
                            uint64_t bytes_at_next_alloc)
{
    atomic_store(&foreign_bytes[ordinal], bytes_now);
    atomic_store(&foreign_at_next_alloc[ordinal], bytes_at_next_alloc);
}

void pl__gpu_emu_foreign(uint64_t bytes_now, uint64_t bytes_at_next_alloc)
{
    pl__gpu_emu_foreign_on(0, bytes_now, bytes_at_next_alloc);
}

static uint64_t emu_used(void *dev)
{
    const emu_device *d = dev;
    return EMU_CONTEXT_BYTES + atomic_load(&d->used) +
           atomic_load(&foreign_bytes[d->ordinal]);
}

static pl_status emu_mem_info(void *dev, uint64_t *free_bytes,
                              uint64_t *total_bytes, pl_error *err)
{
    uint64_t used = emu_used(dev);
    *total_bytes = EMU_CARD_BYTES;
    *free_bytes = used < EMU_CARD_BYTES ? EMU_CARD_BYTES - used : 0;
    return PL_OK;
}

/* Pinning brings every page in: the emulation touches them, so RssAnon
 * sees the pinned class as it would on a real device. */
static pl_status emu_host_register(void *dev, void *ptr, uint64_t bytes,
                                   pl_error *err)
{
    memset(ptr, 0, (size_t)bytes);
    return PL_OK;
}

static void emu_host_unregister(void *dev, void *ptr)
{
}

/* Device memory carries its size in a header, for mem_info's "used". */
static pl_status emu_alloc(void *dev, void **ptr, uint64_t bytes,
                           pl_error *err)
{
    char *block = NULL;
    *ptr = NULL;
    EMU_CALL(dev);
    const int o = ((emu_device *)dev)->ordinal;
    atomic_fetch_add(&foreign_bytes[o],
                     atomic_exchange(&foreign_at_next_alloc[o], 0));
    if (emu_used(dev) + bytes > EMU_CARD_BYTES) /* cudaErrorMemoryAllocation */
        return pl__error_set(err, PL_ENOMEM, "emulated device: out of memory "
                             "allocating %llu bytes (the card is full)",
                             (unsigned long long)bytes);
    if (bytes > SIZE_MAX - 2 * EMU_HEADER ||
        !(block = aligned_alloc(EMU_HEADER,
                                ((size_t)bytes + 2 * EMU_HEADER - 1) &
                                    ~(size_t)(EMU_HEADER - 1))))
        return pl__error_set(err, PL_ENOMEM,
                             "emulated device: out of memory allocating %llu "
                             "bytes",
                             (unsigned long long)bytes);
    memcpy(block, &bytes, sizeof(bytes));
    atomic_fetch_add(&((emu_device *)dev)->used, bytes);
    *ptr = block + EMU_HEADER;
    return PL_OK;
}

static void emu_free(void *dev, void *ptr)
{
    if (!ptr)
        return;
    char *block = (char *)ptr - EMU_HEADER;
    uint64_t bytes;
    memcpy(&bytes, block, sizeof(bytes));
    atomic_fetch_sub(&((emu_device *)dev)->used, bytes);
    free(block);
}

static pl_status emu_memset_zero(void *dev, int stream, void *ptr,
                                 uint64_t bytes, pl_error *err)
{
    EMU_CALL(dev);
    emu_enqueue(stream);
    memset(ptr, 0, (size_t)bytes);
    return PL_OK;
}

static pl_status emu_copy(void *dev, int stream, void *dst, const void *src,
                          uint64_t bytes, pl_error *err)
{
    EMU_CALL(dev);
    emu_enqueue(stream);
    memcpy(dst, src, (size_t)bytes);
    return PL_OK;
}

static pl_status emu_event(void *dev, int event, int stream, pl_error *err)
{
    EMU_CALL(dev);
    return PL_OK;
}

static pl_status emu_event_sync(void *dev, int event, pl_error *err)
{
    EMU_CALL(dev);
    return PL_OK;
}

static pl_status emu_stream_sync(void *dev, int stream, pl_error *err)
{
    EMU_CALL(dev);
    atomic_store(&queued_on_stream[stream], 0);
    return PL_OK;
}

static pl_status emu_kernel_stack_bytes(void *dev, uint64_t *bytes,
                                        pl_error *err)
{
    *bytes = EMU_KERNEL_STACK_BYTES;
    return PL_OK;
}

static pl_status emu_set_stack_limit(void *dev, uint64_t bytes, pl_error *err)
{
    emu_device *d = dev;
    if (bytes > d->stack_limit) {
        atomic_fetch_add(&d->used,
                         (bytes - d->stack_limit) * EMU_RESIDENT_THREADS);
        d->stack_limit = bytes;
    }
    return PL_OK;
}

/* ---- the library primitives ---------------------------------------------- */

/* The sort is a counting sort by key, stable as CUB's radix sort is, from
 * the current buffers into the other ones; its temporary storage is the
 * histogram of the 2^key_bits keys, taken from the caller's temp as CUB's
 * is. */
static pl_status emu_sort_temp_bytes(void *dev, uint64_t count,
                                     unsigned key_bits, uint64_t *bytes,
                                     pl_error *err)
{
    *bytes = ((uint64_t)1 << key_bits) * sizeof(uint32_t);
    return PL_OK;
}

/* Every other sort copies the result back into the input buffers, so a
 * schedule that reads the wrong buffer fails one case or the other; the
 * buffer not holding the result is overwritten, as CUB may leave it in any
 * state. */
static pl_status emu_sort_pairs(void *dev, int stream, void *temp,
                                uint64_t temp_bytes, uint32_t *keys[2],
                                uint32_t *values[2], unsigned *current,
                                uint64_t count, unsigned key_bits,
                                pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    emu_device *d = dev;
    uint64_t nkeys = (uint64_t)1 << key_bits;
    uint32_t *start = temp, *kin = keys[*current], *vin = values[*current];
    uint32_t *kout = keys[*current ^ 1], *vout = values[*current ^ 1];
    if (temp_bytes < nkeys * sizeof(uint32_t))
        return pl__error_set(err, PL_EINTERNAL,
                             "emulated device: sort given %llu temp bytes",
                             (unsigned long long)temp_bytes);
    memset(start, 0, (size_t)nkeys * sizeof(uint32_t));
    for (uint64_t i = 0; i < count; i++)
        start[kin[i] & (nkeys - 1)]++;
    uint32_t sum = 0;
    for (uint64_t k = 0; k < nkeys; k++) {
        uint32_t c = start[k];
        start[k] = sum;
        sum += c;
    }
    for (uint64_t i = 0; i < count; i++) {
        uint32_t at = start[kin[i] & (nkeys - 1)]++;
        kout[at] = kin[i];
        vout[at] = vin[i];
    }
    if (d->sorts++ & 1) {
        memcpy(kin, kout, (size_t)count * sizeof(uint32_t));
        memcpy(vin, vout, (size_t)count * sizeof(uint32_t));
    } else {
        *current ^= 1;
    }
    memset(keys[*current ^ 1], 0xa5, (size_t)count * sizeof(uint32_t));
    memset(values[*current ^ 1], 0xa5, (size_t)count * sizeof(uint32_t));
    return PL_OK;
}

static pl_status emu_scan_temp_bytes(void *dev, uint64_t count,
                                     uint64_t *bytes, pl_error *err)
{
    *bytes = 0;
    return PL_OK;
}

static pl_status emu_exclusive_scan(void *dev, int stream, void *temp,
                                    uint64_t temp_bytes, const uint32_t *in,
                                    uint32_t *out, uint64_t count,
                                    pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    uint32_t sum = 0;
    for (uint64_t i = 0; i < count; i++) {
        out[i] = sum;
        sum += in[i];
    }
    return PL_OK;
}

/* ---- the kernels: thread t of `threads` in turn --------------------------- */

static pl_status emu_msm_bounds(void *dev, int stream, uint32_t threads,
                                const pl__cu_msm_cfg *cfg,
                                const uint32_t *keys, uint32_t *start,
                                uint32_t *end, pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t p = 0; p < threads; p++)
        pl__cu_msm_bounds_thread(cfg, keys, start, end, p);
    return PL_OK;
}

static pl_status emu_msm_count(void *dev, int stream, uint32_t threads,
                               const pl__cu_msm_cfg *cfg, const uint32_t *from,
                               const uint32_t *to, uint32_t *count,
                               pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t b = 0; b < threads; b++)
        pl__cu_msm_count_thread(cfg, from, to, count, b);
    return PL_OK;
}

/* The kernels over a curve's fields, per curve (gpu_emu_kernels.h):
 * emu_kernels for BLS12-381, bn254_emu_kernels for BN254. */
#define PL__CU_P(name) pl__cu_##name
#define PL__EMU(name) name
#include "backend/cuda/gpu_emu_kernels.h"
#undef PL__CU_P
#undef PL__EMU
#define PL__CU_P(name) pl__cu_bn254_##name
#define PL__EMU(name) bn254_##name
#include "backend/cuda/gpu_emu_kernels.h"
#undef PL__CU_P
#undef PL__EMU

const pl__gpu_impl pl__gpu_impl_emulated = {
    .name = "emulated",
    .device_count = emu_device_count,
    .open = emu_open,
    .close = emu_close,
    .reset = emu_reset,
    .error_is_fatal = emu_error_is_fatal,
    .mem_info = emu_mem_info,
    .alloc = emu_alloc,
    .free = emu_free,
    .host_register = emu_host_register,
    .host_unregister = emu_host_unregister,
    .memset_zero = emu_memset_zero,
    .copy_to_device = emu_copy,
    .copy_to_host = emu_copy,
    .event_record = emu_event,
    .event_sync = emu_event_sync,
    .stream_wait = emu_event,
    .stream_sync = emu_stream_sync,
    .kernel_stack_bytes = emu_kernel_stack_bytes,
    .set_stack_limit = emu_set_stack_limit,
    .sort_temp_bytes = emu_sort_temp_bytes,
    .sort_pairs = emu_sort_pairs,
    .scan_temp_bytes = emu_scan_temp_bytes,
    .exclusive_scan = emu_exclusive_scan,
    .msm_bounds = emu_msm_bounds,
    .msm_count = emu_msm_count,
    .kernels = {[PL__CURVE_BLS12_381] = &emu_kernels,
                [PL__CURVE_BN254] = &bn254_emu_kernels},
};
