/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's device layer: one pl__gpu per GPU, holding its streams
 * and events, its pinned staging buffers and the accounting of everything
 * it allocates (class device for GPU memory, class pinned for page-locked
 * host memory), and the schedules of the work (gpu.c): which kernels run in
 * which order over which buffers for the odd-coset transform and the way
 * back from it, H and the G1 MSM.  The schedules are written once, over an
 * implementation table that has only runtime operations, the two library
 * primitives the device takes from CUB (a radix sort of key/value pairs,
 * an exclusive scan) and one launch per kernel; the kernels that compute
 * in a curve's fields are one set per curve (pl__gpu_kernels: BLS12-381's
 * and BN254's, each compiled from the same bodies with that curve's
 * arithmetic), and a schedule takes its curve's set once per call:
 *
 *   pl__gpu_impl_cuda      the real one (gpu_cuda.cu: CUDA runtime calls,
 *                          CUB, the __global__ wrappers of the thread
 *                          bodies), present when the build found nvcc
 *                          (PL_HAVE_CUDA);
 *   pl__gpu_impl_emulated  the host emulation (gpu_emu.c), always built:
 *                          "device" memory is host memory and a launch is a
 *                          loop over the kernel's thread body (kernels/ntt.h,
 *                          kernels/msm.h).  make test runs the whole CUDA
 *                          backend on it, schedules and buffer wiring
 *                          included, so everything but the CUDA calls
 *                          themselves is tested on machines without a GPU.
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
#include "field/curve.h"
#include "backend/cuda/kernels/msm.h"
#include "backend/cuda/kernels/ntt.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PL_GPU_COPY = 0, PL_GPU_COMPUTE = 1, PL_GPU_STREAMS = 2 };
/* Events an implementation keeps per device (uploads alternate between
 * the staging buffers, one event each, plus one for "upload done"). */
enum { PL_GPU_EVENT_STAGE0 = 0, PL_GPU_EVENT_STAGE1 = 1,
       PL_GPU_EVENT_UPLOADED = 2, PL_GPU_EVENT_COMPUTED = 3,
       PL_GPU_EVENTS = 4 };

/* The curves with a kernel set (pl__curve's values index it). */
#define PL_GPU_CURVES 2

/* What the odd-coset transform needs on the device (see kernels/ntt.h);
 * the elements are the curve's Fr (32 bytes, Montgomery form, either). */
typedef struct {
    pl__curve curve;         /* the plan's: whose kernels run */
    unsigned log2n;
    const void *twiddles;    /* n/2 Fr: omega^j */
    const void *n_inv;       /* 1 Fr: the scale (1/n; 1/(n t) in the
                              * quotient's tables) */
    const void *g_lo, *g_hi; /* split powers of g */
    unsigned lo_log;
} pl__gpu_ntt_tables;

/* The NTT constants as one host array (class params, pl__free it): 1/n,
 * then g^i for i < 2^lo, then g^(k 2^lo) for k <= n / 2^lo, lo =
 * ceil(log2n / 2); upload it, and the plan's twiddles, and init the tables
 * over the two device copies.  The elements are the plan's field's
 * (BN254's pl__bn254_fr in blst_fr's storage, as backend.h puts them). */
struct pl__ntt_plan;
uint64_t pl__gpu_ntt_constants_count(unsigned log2n);
blst_fr *pl__gpu_ntt_constants(const struct pl__ntt_plan *plan, unsigned log2n,
                               pl_error *err);
/* The same array for the way back from the odd coset (the quotient's
 * tables): 1/(n t) with t = g^n - 1, the vanishing polynomial there (-2
 * where g is a primitive 2n-th root: always on BLS12-381), then the split
 * powers of g^-1. */
blst_fr *pl__gpu_ntt_quotient_constants(const struct pl__ntt_plan *plan,
                                        unsigned log2n, pl_error *err);
void pl__gpu_ntt_tables_init(pl__gpu_ntt_tables *tables, pl__curve curve,
                             unsigned log2n, const void *device_twiddles,
                             const void *device_constants);

/* One transform size's tables on the device, apart from any circuit (the
 * tests, the GPU check and the C2 prover's device state; the zkey backend
 * cuts its tables from its own layout): the plan's twiddles and both
 * constant arrays in one device allocation, class device, until destroy.
 * tables: to the odd coset; quotient: back from it, divided by t. */
typedef struct {
    pl__gpu_ntt_tables tables;
    pl__gpu_ntt_tables quotient;
    void *device;
    uint64_t bytes;
} pl__gpu_ntt_set;

/* The launches of the kernels that compute in a curve's fields: one
 * table per curve and implementation, each launch running thread t of
 * `threads` of the body named beside it, in the curve's instance (for
 * BLS12-381 the name as written, pl__cu_ntt_dit_thread; for BN254 with
 * the bn254 prefix, pl__cu_bn254_ntt_dit_thread).  The elements are
 * untyped here, as the table's type serves both curves: Fr elements,
 * affine points and XYZZ sums of the table's curve. */
typedef struct pl__gpu_kernels {
    /* pl__cu_ntt_dif_inverse_thread (inverse) or pl__cu_ntt_dit_thread,
     * stage s over the whole array (threads = n/2) */
    pl_status (*ntt_stage)(void *dev, int stream, uint32_t threads,
                           void *data, const void *twiddles, unsigned log2n,
                           unsigned s, bool inverse, pl_error *err);
    /* the same bodies for stages [0, tile_log), tile by tile: the
     * 2^tile_log elements at k 2^tile_log are one block's (in shared memory
     * on the GPU), which runs the stages one after another, its thread t
     * doing butterfly t of each; spans descending when inverse, else
     * ascending (threads = n/2) */
    pl_status (*ntt_tiles)(void *dev, int stream, uint32_t threads,
                           void *data, const void *twiddles, unsigned log2n,
                           unsigned tile_log, bool inverse, pl_error *err);
    /* pl__cu_ntt_shift_thread (threads = n) */
    pl_status (*ntt_shift)(void *dev, int stream, uint32_t threads,
                           void *data, unsigned log2n, const void *n_inv,
                           const void *g_lo, const void *g_hi,
                           unsigned lo_log, pl_error *err);
    /* pl__cu_ntt_unshift_thread (threads = n; out not aliasing data) */
    pl_status (*ntt_unshift)(void *dev, int stream, uint32_t threads,
                             void *out, const void *data, unsigned log2n,
                             const void *scale, const void *g_lo,
                             const void *g_hi, unsigned lo_log,
                             pl_error *err);
    /* pl__cu_h_thread */
    pl_status (*coset_h)(void *dev, int stream, uint32_t threads,
                         const void *a, const void *b, void *c,
                         pl_error *err);
    /* pl__cu_from_montgomery_thread */
    pl_status (*from_montgomery)(void *dev, int stream, uint32_t threads,
                                 void *data, pl_error *err);
    /* pl__cu_msm_digits_thread (reads scalars as the curve's CPU MSM) */
    pl_status (*msm_digits)(void *dev, int stream, uint32_t threads,
                            const pl__cu_msm_cfg *cfg, const uint32_t *scalars,
                            uint32_t *keys, uint32_t *values, pl_error *err);
    /* pl__cu_msm_accumulate_points_thread */
    pl_status (*msm_accumulate_points)(
        void *dev, int stream, uint32_t threads, const pl__cu_msm_cfg *cfg,
        const void *points, const uint32_t *values, const uint32_t *start,
        const uint32_t *end, const uint32_t *offsets, void *partials,
        pl_error *err);
    /* pl__cu_msm_accumulate_partials_thread */
    pl_status (*msm_accumulate_partials)(
        void *dev, int stream, uint32_t threads, const pl__cu_msm_cfg *cfg,
        const void *in, const uint32_t *prev, const uint32_t *offsets,
        void *out, pl_error *err);
    /* pl__cu_msm_reduce_thread */
    pl_status (*msm_reduce)(void *dev, int stream, uint32_t threads,
                            const pl__cu_msm_cfg *cfg, const void *partials,
                            const uint32_t *offsets, void *chunk_sums,
                            pl_error *err);
    /* bytes of the curve's XYZZ point (the partial and chunk sums) */
    uint32_t xyzz_bytes;
} pl__gpu_kernels;

/* The implementation table.  Every operation is asynchronous on its
 * stream unless it says otherwise (the emulation completes each before it
 * returns); a launch runs `threads` threads of the kernel, thread t calling
 * the body named beside it with index t. */
typedef struct pl__gpu_impl {
    const char *name;

    /* ---- runtime operations ---- */
    /* Devices present; 0 when none or no driver, with the reason in why. */
    int (*device_count)(char *why, size_t why_len);
    pl_status (*open)(void **dev, int ordinal, char *description,
                      size_t description_len, pl_error *err);
    void (*close)(void *dev);
    /* After a sticky fault: drops the process's context on the device
     * (every allocation, stream and event on it goes; the driver's memory
     * comes back) and frees dev; close is not called after it. */
    void (*reset)(void *dev);
    /* Whether a failure's cuda_code is a sticky fault, after which the
     * context is unusable (an illegal address, a launch failure, ...): every
     * later call fails with it until the context is reset. */
    bool (*error_is_fatal)(int cuda_code);
    pl_status (*mem_info)(void *dev, uint64_t *free_bytes,
                          uint64_t *total_bytes, pl_error *err);
    pl_status (*alloc)(void *dev, void **ptr, uint64_t bytes, pl_error *err);
    /* free and host_unregister (and close) check what they call, but have
     * no caller that could act on a failure: a failure is cleared, so that
     * no later call reports it as its own. */
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
    /* The per-thread stack the kernels need: the most local memory any of
     * them uses (the out-of-line field multiplication's operands live
     * there).  Asking also loads the kernels, so their code is resident
     * before the free memory is read again. */
    pl_status (*kernel_stack_bytes)(void *dev, uint64_t *bytes,
                                    pl_error *err);
    /* Sets the per-thread stack limit to at least bytes; the driver
     * reserves that much for every thread the device can hold at once, at
     * this call rather than at the first launch that needs it. */
    pl_status (*set_stack_limit)(void *dev, uint64_t bytes, pl_error *err);

    /* ---- library primitives (CUB's on the device) ---- */
    /* Stable ascending sort of `count` (key, value) pairs by the low
     * key_bits of the key, with CUB's DoubleBuffer semantics: the input is
     * keys[*current], values[*current]; the other buffer of each pair is
     * the sort's to use; on return *current names the buffer that holds
     * the result, and the contents of the other are undefined.  temp is
     * the sort's storage, of at least sort_temp_bytes. */
    pl_status (*sort_temp_bytes)(void *dev, uint64_t count, unsigned key_bits,
                                 uint64_t *bytes, pl_error *err);
    pl_status (*sort_pairs)(void *dev, int stream, void *temp,
                            uint64_t temp_bytes, uint32_t *keys[2],
                            uint32_t *values[2], unsigned *current,
                            uint64_t count, unsigned key_bits, pl_error *err);
    /* out[i] = in[0] + ... + in[i - 1] (out[0] = 0), out not aliasing in;
     * temp of at least scan_temp_bytes. */
    pl_status (*scan_temp_bytes)(void *dev, uint64_t count, uint64_t *bytes,
                                 pl_error *err);
    pl_status (*exclusive_scan)(void *dev, int stream, void *temp,
                                uint64_t temp_bytes, const uint32_t *in,
                                uint32_t *out, uint64_t count, pl_error *err);

    /* ---- kernels: one launch each ---- */
    /* The curve-free ones (kernels/msm.h's bucket runs and segment
     * counts, the same for either curve): */
    /* pl__cu_msm_bounds_thread */
    pl_status (*msm_bounds)(void *dev, int stream, uint32_t threads,
                            const pl__cu_msm_cfg *cfg, const uint32_t *keys,
                            uint32_t *start, uint32_t *end, pl_error *err);
    /* pl__cu_msm_count_thread */
    pl_status (*msm_count)(void *dev, int stream, uint32_t threads,
                           const pl__cu_msm_cfg *cfg, const uint32_t *from,
                           const uint32_t *to, uint32_t *count, pl_error *err);
    /* The kernels over a curve's fields, by curve (pl__curve). */
    const struct pl__gpu_kernels *kernels[PL_GPU_CURVES];
} pl__gpu_impl;

extern const pl__gpu_impl pl__gpu_impl_emulated;
#ifdef PL_HAVE_CUDA
extern const pl__gpu_impl pl__gpu_impl_cuda;
#endif

/* ---- the device object (gpu.c) ----------------------------------------- */

typedef struct pl__gpu pl__gpu;

/* The most devices one process drives (one device object each). */
#define PL_GPU_MAX_DEVICES PL_MAX_DEVICES

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

/* Open sets the device's per-thread stack to what the kernels need and
 * reserves it then (the driver would otherwise grow it at the first MSM,
 * by ~144 MiB and up to ~408 MiB on an H200, after the backend compared its
 * plan with the free memory): the bytes that took, measured as the drop in
 * the device's free memory over the setting, are class device until close,
 * and this returns them.  The free memory read after open is net of them. */
uint64_t pl__gpu_stack_bytes(const pl__gpu *gpu);

/* What a plan of device memory leaves free beyond its own buffers: what
 * the driver takes later and no class counts.  The kernels CUB launches
 * are loaded at their first use (a few MiB of code at most), and
 * cudaMalloc rounds each buffer up to its 2 MiB pages (~20 MiB over a
 * circuit's ten buffers); 256 MiB covers a dozen circuits open at once
 * with room to spare, and is ~0.2% of an H200, 3% of an 8 GiB card.  An
 * estimate, not yet measured on a GPU: the ledger's device untracked
 * figure after a proof is the number to compare it with. */
#define PL_GPU_HEADROOM_BYTES ((uint64_t)256 << 20)

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

/* In place on the compute stream: evaluations on the domain to
 * evaluations on the odd coset (inverse NTT, times g^i, NTT). */
pl_status pl__gpu_to_odd_coset(pl__gpu *gpu, void *data,
                               const pl__gpu_ntt_tables *tables,
                               pl_error *err);
/* On the compute stream, the way back: from the values on the odd coset
 * (data, n of them) of p = h t, t = x^n - 1 (the constant -2 there) and h
 * of degree below n, to h's n coefficients in natural order, into out
 * (which must not alias data; data is left overwritten): the inverse NTT,
 * then times 1/(n t) and g^-j.
 * quotient: a set's quotient tables.  The transform multiplies by
 * Montgomery constants only, so the output has the input's form: the
 * canonical integers of pl__gpu_coset_h in, h's coefficients as canonical
 * integers (the MSM's scalars) out. */
pl_status pl__gpu_odd_coset_quotient(pl__gpu *gpu, void *out, void *data,
                                     const pl__gpu_ntt_tables *quotient,
                                     pl_error *err);
/* Makes and uploads a pl__gpu_ntt_set for a CPU plan of 2^log2n; its
 * device bytes (for plans made without a device). */
pl_status pl__gpu_ntt_set_create(pl__gpu *gpu, pl__gpu_ntt_set *out,
                                 const struct pl__ntt_plan *plan,
                                 unsigned log2n, pl_error *err);
uint64_t pl__gpu_ntt_set_bytes(unsigned log2n);
void pl__gpu_ntt_set_destroy(pl__gpu *gpu, pl__gpu_ntt_set *set);

/* h = a b - c as canonical scalars, over c (compute stream), in the
 * curve's Fr. */
pl_status pl__gpu_coset_h(pl__gpu *gpu, pl__curve curve, const void *a,
                          const void *b, void *c, uint32_t n, pl_error *err);

/* n Montgomery-form scalars of the curve's Fr to canonical integers, in
 * place (compute stream). */
pl_status pl__gpu_from_montgomery(pl__gpu *gpu, pl__curve curve, void *data,
                                  uint32_t n, pl_error *err);

/* sum s_i P_i in the curve's G1 over n device-resident points (the CPU's
 * affine layout) and canonical scalars, with scratch of at least
 * pl__gpu_msm_scratch_bytes(curve, n) bytes (the buffers of kernels/msm.h
 * and the sort's and scan's storage): steps 1-5 on the compute stream, the
 * window's chunk sums copied to pinned memory, and step 6 on the host;
 * returns when the sum is in out: a blst_p1 for BLS12-381, a pl__bn254_g1
 * for BN254 (Jacobian, as the CPU's MSMs give).  The size query asks the
 * device (CUB's storage), and fails when it does. */
pl_status pl__gpu_msm_scratch_bytes(pl__gpu *gpu, pl__curve curve,
                                    uint64_t *bytes, uint32_t n,
                                    pl_error *err);
/* The bytes of the layout alone (less the sort's and scan's storage), for
 * planners without a device. */
uint64_t pl__gpu_msm_layout_bytes(pl__curve curve, uint32_t n);
pl_status pl__gpu_msm_g1(pl__gpu *gpu, pl__curve curve, void *out,
                         const void *points, const void *scalars, uint32_t n,
                         void *scratch, uint64_t scratch_bytes,
                         pl_error *err);

/* A sticky fault (impl->error_is_fatal) seen by any call of the object
 * marks it faulted: from then on every call fails at once, naming that
 * first fault, and close resets the device's context.  Returns whether the
 * object has faulted, with the fault in *fault (may be NULL). */
bool pl__gpu_faulted(pl__gpu *gpu, pl_error *fault);

/* Makes every copy queued from now on wait for the compute queued so far
 * (an event), so a proof's uploads never overwrite buffers the previous
 * proof's kernels still read. */
pl_status pl__gpu_order_uploads(pl__gpu *gpu, pl_error *err);
/* Waits for both streams: nothing queued is still running. */
pl_status pl__gpu_quiesce(pl__gpu *gpu, pl_error *err);

/* Test hook of the emulation: the next emulated kernel launch faults with
 * a sticky error (cuda_code PL_GPU_EMU_FAULT_CODE, the value of CUDA's
 * cudaErrorIllegalAddress). */
#define PL_GPU_EMU_FAULT_CODE 700
void pl__gpu_emu_fault_next_launch(void);
/* Test hook of the emulation: another process holds bytes_now of the card,
 * and takes bytes_at_next_alloc more at our next allocation (it won the
 * race between our check of free memory and the allocation). */
void pl__gpu_emu_foreign(uint64_t bytes_now, uint64_t bytes_at_next_alloc);
/* The same on the emulated card `ordinal` (the one above is card 0's). */
void pl__gpu_emu_foreign_on(int ordinal, uint64_t bytes_now,
                            uint64_t bytes_at_next_alloc);
/* Test hook of the emulation: it presents n cards (1 to
 * PL_GPU_MAX_DEVICES; 0: PL_GPU_EMULATED_DEVICES from the environment,
 * else 1), each with its own memory.  Set before any is opened. */
void pl__gpu_emu_set_devices(unsigned n);
/* Test hook of the emulation: operations queued on `stream` (PL_GPU_COPY or
 * PL_GPU_COMPUTE) since it was last synchronized, which a device could
 * still be running. */
unsigned pl__gpu_emu_queued(int stream);

/* ---- phase timing (bench/gpu_check.sh) ---------------------------------- */

/* Where the device's time goes, so that the GPU check can say why a row is
 * slow.  While profiling is on, each phase below waits for both streams
 * before it starts and after it ends and adds its wall time to its total.
 * The switch and the totals are the process's, not a device object's: the
 * CUDA backend's object is private to it, and one process drives one GPU.
 * The waits serialize what would overlap (an upload with the previous
 * transform), so a profiled run is slower than a plain one: time plain
 * runs, and profile one more to split it.  Off by default, and then a
 * phase costs one atomic load. */
#define PL_GPU_PHASES_X(X)                                                    \
    X(PL_GPU_PHASE_UPLOAD, "upload")          /* pl__gpu_upload */            \
    X(PL_GPU_PHASE_DOWNLOAD, "download")      /* pl__gpu_download */          \
    X(PL_GPU_PHASE_NTT, "ntt")      /* pl__gpu_to_odd_coset, _quotient */    \
    X(PL_GPU_PHASE_COSET_H, "coset_h") /* pl__gpu_coset_h, _from_montgomery */\
    X(PL_GPU_PHASE_MSM_SORT, "msm_sort")      /* digits, sort, bounds */      \
    X(PL_GPU_PHASE_MSM_ACCUMULATE, "msm_accumulate") /* the levels */         \
    X(PL_GPU_PHASE_MSM_REDUCE, "msm_reduce")  /* running sums, their copy */  \
    X(PL_GPU_PHASE_MSM_COMBINE, "msm_combine") /* step 6, on the host */
typedef enum {
#define PL_GPU_PHASE_ENUM(id, name) id,
    PL_GPU_PHASES_X(PL_GPU_PHASE_ENUM)
#undef PL_GPU_PHASE_ENUM
    PL_GPU_PHASES
} pl__gpu_phase;

void pl__gpu_profile(bool on);
const char *pl__gpu_phase_name(pl__gpu_phase phase);
/* The totals since the last reset: seconds and times entered per phase
 * (either may be NULL); reset zeroes them after reading. */
void pl__gpu_profile_read(double seconds[PL_GPU_PHASES],
                          uint64_t counts[PL_GPU_PHASES], bool reset);

/* Serializes whole proofs on one device (its scratch is shared). */
void pl__gpu_lock(pl__gpu *gpu);
void pl__gpu_unlock(pl__gpu *gpu);

#ifdef __cplusplus
}
#endif

#endif /* PL_BACKEND_CUDA_GPU_H */
