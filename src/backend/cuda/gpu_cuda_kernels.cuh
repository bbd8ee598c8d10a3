/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The real device's kernels over one curve's fields and their launches
 * (gpu.h's pl__gpu_kernels), written once for both curves: gpu_cuda.cu
 * includes this file once per curve with PL__CU_P(name) (the curve's
 * thread bodies and types: pl__cu_##name or pl__cu_bn254_##name) and
 * PL__CUK(name) (this file's names: name for BLS12-381, so its kernels
 * keep the names ptxas and the profilers report, k_msm_reduce, ...;
 * bn254_##name for BN254) defined, after its launch macros.  Each kernel
 * is the thin wrapper of gpu_cuda.cu: its thread's index, then the body.
 * No header guard on purpose.
 */

/* Stages [0, tile_log) of one direction in shared memory: the block's
 * tile of 2^tile_log elements is loaded once, and each of its tile/2
 * threads does one butterfly per stage; spans descending when inverse (the
 * inverse's last stages), else ascending (the forward's first). */
__global__ void __launch_bounds__(1u << (PL_CU_NTT_TILE_LOG - 1))
    PL__CUK(k_ntt_tiles)(PL__CU_P(fr) *data, const PL__CU_P(fr) *twiddles,
                         unsigned log2n, unsigned tile_log, bool inverse)
{
    /* named per curve: extern shared arrays of two types under one name
     * would be one declaration */
    extern __shared__ PL__CU_P(fr) PL__CUK(ntt_tile)[];
    PL__CU_P(fr) *tile = PL__CUK(ntt_tile);
    uint32_t size = (uint32_t)1 << tile_log;
    PL__CU_P(fr) *base = data + (size_t)blockIdx.x * size;
    for (uint32_t i = threadIdx.x; i < size; i += blockDim.x)
        tile[i] = base[i];
    __syncthreads();
    for (unsigned k = 0; k < tile_log; k++) {
        if (inverse)
            PL__CU_P(ntt_dif_inverse_thread)(tile, twiddles, log2n,
                                             tile_log - 1 - k, threadIdx.x);
        else
            PL__CU_P(ntt_dit_thread)(tile, twiddles, log2n, k, threadIdx.x);
        __syncthreads();
    }
    for (uint32_t i = threadIdx.x; i < size; i += blockDim.x)
        base[i] = tile[i];
}

__global__ void PL__CUK(k_ntt_stage)(uint32_t threads, PL__CU_P(fr) *data,
                                     const PL__CU_P(fr) *twiddles,
                                     unsigned log2n, unsigned s, bool inverse)
{
    uint32_t t = THREAD_INDEX;
    if (t >= threads)
        return;
    if (inverse)
        PL__CU_P(ntt_dif_inverse_thread)(data, twiddles, log2n, s, t);
    else
        PL__CU_P(ntt_dit_thread)(data, twiddles, log2n, s, t);
}

__global__ void PL__CUK(k_ntt_shift)(uint32_t threads, PL__CU_P(fr) *data,
                                     unsigned log2n, const PL__CU_P(fr) *n_inv,
                                     const PL__CU_P(fr) *g_lo,
                                     const PL__CU_P(fr) *g_hi, unsigned lo_log)
{
    uint32_t p = THREAD_INDEX;
    if (p < threads)
        PL__CU_P(ntt_shift_thread)(data, log2n, n_inv, g_lo, g_hi, lo_log, p);
}

__global__ void PL__CUK(k_ntt_unshift)(uint32_t threads, PL__CU_P(fr) *out,
                                       const PL__CU_P(fr) *data,
                                       unsigned log2n,
                                       const PL__CU_P(fr) *scale,
                                       const PL__CU_P(fr) *g_lo,
                                       const PL__CU_P(fr) *g_hi,
                                       unsigned lo_log)
{
    uint32_t p = THREAD_INDEX;
    if (p < threads)
        PL__CU_P(ntt_unshift_thread)(out, data, log2n, scale, g_lo, g_hi,
                                     lo_log, p);
}

__global__ void PL__CUK(k_coset_h)(uint32_t threads, const PL__CU_P(fr) *a,
                                   const PL__CU_P(fr) *b, PL__CU_P(fr) *c)
{
    uint32_t i = THREAD_INDEX;
    if (i < threads)
        PL__CU_P(h_thread)(a, b, c, i);
}

__global__ void PL__CUK(k_from_montgomery)(uint32_t threads,
                                           PL__CU_P(fr) *data)
{
    uint32_t i = THREAD_INDEX;
    if (i < threads)
        PL__CU_P(from_montgomery_thread)(data, i);
}

__global__ void PL__CUK(k_msm_digits)(uint32_t threads, pl__cu_msm_cfg cfg,
                                      const uint32_t *scalars, uint32_t *keys,
                                      uint32_t *values)
{
    uint32_t i = THREAD_INDEX;
    if (i < threads)
        PL__CU_P(msm_digits_thread)(&cfg, scalars, keys, values, i);
}

__global__ void PL__CUK(k_msm_accumulate_points)(
    uint32_t threads, pl__cu_msm_cfg cfg, const PL__CU_P(g1_affine) *points,
    const uint32_t *values, const uint32_t *start, const uint32_t *end,
    const uint32_t *offsets, PL__CU_P(g1_xyzz) *partials)
{
    uint32_t t = THREAD_INDEX;
    if (t < threads)
        PL__CU_P(msm_accumulate_points_thread)(&cfg, points, values, start,
                                               end, offsets, partials, t);
}

__global__ void PL__CUK(k_msm_accumulate_partials)(
    uint32_t threads, pl__cu_msm_cfg cfg, const PL__CU_P(g1_xyzz) *in,
    const uint32_t *prev, const uint32_t *offsets, PL__CU_P(g1_xyzz) *out)
{
    uint32_t t = THREAD_INDEX;
    if (t < threads)
        PL__CU_P(msm_accumulate_partials_thread)(&cfg, in, prev, offsets, out,
                                                 t);
}

__global__ void PL__CUK(k_msm_reduce)(uint32_t threads, pl__cu_msm_cfg cfg,
                                      const PL__CU_P(g1_xyzz) *partials,
                                      const uint32_t *offsets,
                                      PL__CU_P(g1_xyzz) *chunk_sums)
{
    uint32_t j = THREAD_INDEX;
    if (j < threads)
        PL__CU_P(msm_reduce_thread)(&cfg, partials, offsets, chunk_sums, j);
}

/* ---- the launches: the table's untyped elements to the curve's types ---- */

typedef PL__CU_P(fr) PL__CUK(cu_fr);
typedef PL__CU_P(g1_affine) PL__CUK(cu_affine);
typedef PL__CU_P(g1_xyzz) PL__CUK(cu_xyzz);

static pl_status PL__CUK(cu_ntt_stage)(void *dev, int stream,
                                       uint32_t threads, void *data,
                                       const void *twiddles, unsigned log2n,
                                       unsigned s, bool inverse,
                                       pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_ntt_stage), threads, BLOCK, 0, threads,
              (PL__CUK(cu_fr) *)data, (const PL__CUK(cu_fr) *)twiddles,
              log2n, s, inverse);
    return PL_OK;
}

/* One block per tile, a thread per butterfly of the tile. */
static pl_status PL__CUK(cu_ntt_tiles)(void *dev, int stream,
                                       uint32_t threads, void *data,
                                       const void *twiddles, unsigned log2n,
                                       unsigned tile_log, bool inverse,
                                       pl_error *err)
{
    uint32_t tile = (uint32_t)1 << tile_log;
    CU_LAUNCH(dev, stream, PL__CUK(k_ntt_tiles), threads, tile / 2,
              tile * sizeof(PL__CUK(cu_fr)), (PL__CUK(cu_fr) *)data,
              (const PL__CUK(cu_fr) *)twiddles, log2n, tile_log, inverse);
    return PL_OK;
}

static pl_status PL__CUK(cu_ntt_shift)(void *dev, int stream,
                                       uint32_t threads, void *data,
                                       unsigned log2n, const void *n_inv,
                                       const void *g_lo, const void *g_hi,
                                       unsigned lo_log, pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_ntt_shift), threads, BLOCK, 0, threads,
              (PL__CUK(cu_fr) *)data, log2n, (const PL__CUK(cu_fr) *)n_inv,
              (const PL__CUK(cu_fr) *)g_lo, (const PL__CUK(cu_fr) *)g_hi,
              lo_log);
    return PL_OK;
}

static pl_status PL__CUK(cu_ntt_unshift)(void *dev, int stream,
                                         uint32_t threads, void *out,
                                         const void *data, unsigned log2n,
                                         const void *scale, const void *g_lo,
                                         const void *g_hi, unsigned lo_log,
                                         pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_ntt_unshift), threads, BLOCK, 0,
              threads, (PL__CUK(cu_fr) *)out, (const PL__CUK(cu_fr) *)data,
              log2n, (const PL__CUK(cu_fr) *)scale,
              (const PL__CUK(cu_fr) *)g_lo, (const PL__CUK(cu_fr) *)g_hi,
              lo_log);
    return PL_OK;
}

static pl_status PL__CUK(cu_coset_h)(void *dev, int stream, uint32_t threads,
                                     const void *a, const void *b, void *c,
                                     pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_coset_h), threads, BLOCK, 0, threads,
              (const PL__CUK(cu_fr) *)a, (const PL__CUK(cu_fr) *)b,
              (PL__CUK(cu_fr) *)c);
    return PL_OK;
}

static pl_status PL__CUK(cu_from_montgomery)(void *dev, int stream,
                                             uint32_t threads, void *data,
                                             pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_from_montgomery), threads, BLOCK, 0,
              threads, (PL__CUK(cu_fr) *)data);
    return PL_OK;
}

static pl_status PL__CUK(cu_msm_digits)(void *dev, int stream,
                                        uint32_t threads,
                                        const pl__cu_msm_cfg *cfg,
                                        const uint32_t *scalars,
                                        uint32_t *keys, uint32_t *values,
                                        pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_msm_digits), threads, BLOCK, 0, threads,
              *cfg, scalars, keys, values);
    return PL_OK;
}

static pl_status PL__CUK(cu_msm_accumulate_points)(
    void *dev, int stream, uint32_t threads, const pl__cu_msm_cfg *cfg,
    const void *points, const uint32_t *values, const uint32_t *start,
    const uint32_t *end, const uint32_t *offsets, void *partials,
    pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_msm_accumulate_points), threads,
              BLOCK_EC, 0, threads, *cfg, (const PL__CUK(cu_affine) *)points,
              values, start, end, offsets, (PL__CUK(cu_xyzz) *)partials);
    return PL_OK;
}

static pl_status PL__CUK(cu_msm_accumulate_partials)(
    void *dev, int stream, uint32_t threads, const pl__cu_msm_cfg *cfg,
    const void *in, const uint32_t *prev, const uint32_t *offsets, void *out,
    pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_msm_accumulate_partials), threads,
              BLOCK_EC, 0, threads, *cfg, (const PL__CUK(cu_xyzz) *)in, prev,
              offsets, (PL__CUK(cu_xyzz) *)out);
    return PL_OK;
}

static pl_status PL__CUK(cu_msm_reduce)(void *dev, int stream,
                                        uint32_t threads,
                                        const pl__cu_msm_cfg *cfg,
                                        const void *partials,
                                        const uint32_t *offsets,
                                        void *chunk_sums, pl_error *err)
{
    CU_LAUNCH(dev, stream, PL__CUK(k_msm_reduce), threads, BLOCK_REDUCE, 0,
              threads, *cfg, (const PL__CUK(cu_xyzz) *)partials, offsets,
              (PL__CUK(cu_xyzz) *)chunk_sums);
    return PL_OK;
}

static const pl__gpu_kernels PL__CUK(cu_kernels) = {
    PL__CUK(cu_ntt_stage),
    PL__CUK(cu_ntt_tiles),
    PL__CUK(cu_ntt_shift),
    PL__CUK(cu_ntt_unshift),
    PL__CUK(cu_coset_h),
    PL__CUK(cu_from_montgomery),
    PL__CUK(cu_msm_digits),
    PL__CUK(cu_msm_accumulate_points),
    PL__CUK(cu_msm_accumulate_partials),
    PL__CUK(cu_msm_reduce),
    (uint32_t)sizeof(PL__CUK(cu_xyzz)),
};

/* For the stack query (cu_kernel_stack_bytes): every kernel of the set. */
static const void *const PL__CUK(cu_kernel_list)[] = {
    (const void *)PL__CUK(k_ntt_tiles),
    (const void *)PL__CUK(k_ntt_stage),
    (const void *)PL__CUK(k_ntt_shift),
    (const void *)PL__CUK(k_ntt_unshift),
    (const void *)PL__CUK(k_coset_h),
    (const void *)PL__CUK(k_from_montgomery),
    (const void *)PL__CUK(k_msm_digits),
    (const void *)PL__CUK(k_msm_accumulate_points),
    (const void *)PL__CUK(k_msm_accumulate_partials),
    (const void *)PL__CUK(k_msm_reduce),
};
