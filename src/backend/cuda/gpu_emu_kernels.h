/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The emulation's launches of one curve's kernel set (gpu.h's
 * pl__gpu_kernels), written once for both curves: gpu_emu.c includes this
 * file once per curve with PL__CU_P(name) (the curve's thread bodies and
 * types: pl__cu_##name or pl__cu_bn254_##name) and PL__EMU(name) (this
 * file's names: name or bn254_##name) defined, after its EMU_LAUNCH and
 * emu_enqueue.  A launch is a loop over the thread body, as for the
 * curve-free kernels in gpu_emu.c.  No header guard on purpose.
 */

static pl_status PL__EMU(emu_ntt_stage)(void *dev, int stream,
                                        uint32_t threads, void *data,
                                        const void *twiddles, unsigned log2n,
                                        unsigned s, bool inverse,
                                        pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    PL__CU_P(fr) *d = data;
    const PL__CU_P(fr) *tw = twiddles;
    for (uint32_t t = 0; t < threads; t++)
        if (inverse)
            PL__CU_P(ntt_dif_inverse_thread)(d, tw, log2n, s, t);
        else
            PL__CU_P(ntt_dit_thread)(d, tw, log2n, s, t);
    return PL_OK;
}

/* Block by block, each block's stages in turn (the device's
 * __syncthreads between them). */
static pl_status PL__EMU(emu_ntt_tiles)(void *dev, int stream,
                                        uint32_t threads, void *data,
                                        const void *twiddles, unsigned log2n,
                                        unsigned tile_log, bool inverse,
                                        pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    PL__CU_P(fr) *d = data;
    uint32_t per_block = ((uint32_t)1 << tile_log) / 2;
    for (uint32_t block = 0; block < threads / per_block; block++)
        for (unsigned k = 0; k < tile_log; k++)
            PL__EMU(emu_ntt_stage)(dev, stream, per_block,
                                   d + (size_t)block * 2 * per_block,
                                   twiddles, log2n,
                                   inverse ? tile_log - 1 - k : k, inverse,
                                   err);
    return PL_OK;
}

static pl_status PL__EMU(emu_ntt_shift)(void *dev, int stream,
                                        uint32_t threads, void *data,
                                        unsigned log2n, const void *n_inv,
                                        const void *g_lo, const void *g_hi,
                                        unsigned lo_log, pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t p = 0; p < threads; p++)
        PL__CU_P(ntt_shift_thread)(data, log2n, n_inv, g_lo, g_hi, lo_log, p);
    return PL_OK;
}

static pl_status PL__EMU(emu_ntt_unshift)(void *dev, int stream,
                                          uint32_t threads, void *out,
                                          const void *data, unsigned log2n,
                                          const void *scale, const void *g_lo,
                                          const void *g_hi, unsigned lo_log,
                                          pl_error *err)
{
    EMU_LAUNCH(dev);
    for (uint32_t p = 0; p < threads; p++)
        PL__CU_P(ntt_unshift_thread)(out, data, log2n, scale, g_lo, g_hi,
                                     lo_log, p);
    return PL_OK;
}

static pl_status PL__EMU(emu_coset_h)(void *dev, int stream, uint32_t threads,
                                      const void *a, const void *b, void *c,
                                      pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t i = 0; i < threads; i++)
        PL__CU_P(h_thread)(a, b, c, i);
    return PL_OK;
}

static pl_status PL__EMU(emu_from_montgomery)(void *dev, int stream,
                                              uint32_t threads, void *data,
                                              pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t i = 0; i < threads; i++)
        PL__CU_P(from_montgomery_thread)(data, i);
    return PL_OK;
}

static pl_status PL__EMU(emu_msm_digits)(void *dev, int stream,
                                         uint32_t threads,
                                         const pl__cu_msm_cfg *cfg,
                                         const uint32_t *scalars,
                                         uint32_t *keys, uint32_t *values,
                                         pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t i = 0; i < threads; i++)
        PL__CU_P(msm_digits_thread)(cfg, scalars, keys, values, i);
    return PL_OK;
}

static pl_status PL__EMU(emu_msm_accumulate_points)(
    void *dev, int stream, uint32_t threads, const pl__cu_msm_cfg *cfg,
    const void *points, const uint32_t *values, const uint32_t *start,
    const uint32_t *end, const uint32_t *offsets, void *partials,
    pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t t = 0; t < threads; t++)
        PL__CU_P(msm_accumulate_points_thread)(cfg, points, values, start,
                                               end, offsets, partials, t);
    return PL_OK;
}

static pl_status PL__EMU(emu_msm_accumulate_partials)(
    void *dev, int stream, uint32_t threads, const pl__cu_msm_cfg *cfg,
    const void *in, const uint32_t *prev, const uint32_t *offsets, void *out,
    pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t t = 0; t < threads; t++)
        PL__CU_P(msm_accumulate_partials_thread)(cfg, in, prev, offsets, out,
                                                 t);
    return PL_OK;
}

static pl_status PL__EMU(emu_msm_reduce)(void *dev, int stream,
                                         uint32_t threads,
                                         const pl__cu_msm_cfg *cfg,
                                         const void *partials,
                                         const uint32_t *offsets,
                                         void *chunk_sums, pl_error *err)
{
    EMU_LAUNCH(dev);
    emu_enqueue(stream);
    for (uint32_t j = 0; j < threads; j++)
        PL__CU_P(msm_reduce_thread)(cfg, partials, offsets, chunk_sums, j);
    return PL_OK;
}

static const pl__gpu_kernels PL__EMU(emu_kernels) = {
    .ntt_stage = PL__EMU(emu_ntt_stage),
    .ntt_tiles = PL__EMU(emu_ntt_tiles),
    .ntt_shift = PL__EMU(emu_ntt_shift),
    .ntt_unshift = PL__EMU(emu_ntt_unshift),
    .coset_h = PL__EMU(emu_coset_h),
    .from_montgomery = PL__EMU(emu_from_montgomery),
    .msm_digits = PL__EMU(emu_msm_digits),
    .msm_accumulate_points = PL__EMU(emu_msm_accumulate_points),
    .msm_accumulate_partials = PL__EMU(emu_msm_accumulate_partials),
    .msm_reduce = PL__EMU(emu_msm_reduce),
    .xyzz_bytes = sizeof(PL__CU_P(g1_xyzz)),
};
