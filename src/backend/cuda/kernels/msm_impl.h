/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The curve's half of the MSM kernels of msm.h (steps 4 and 5: the bucket
 * sums and the window reduction, the only steps that add points), written
 * once for both curves: msm.h includes this file once per curve with
 * PL__CU_P(name) defined to the curve's prefix, as g1.h does for
 * g1_impl.h, so that pl__cu_msm_reduce_thread is BLS12-381's and
 * pl__cu_bn254_msm_reduce_thread BN254's, each with its curve's field
 * inlined.  The partial sums are the curve's XYZZ points; the scratch
 * holds them untyped (pl__cu_msm_scratch) and the kernels take them typed.
 * No header guard on purpose; nothing but msm.h includes it.
 */

/* Thread i of n: the W entries of scalar i, at w n + i. */
PL_DEVICE_FN void PL__CU_P(msm_digits_thread)(const pl__cu_msm_cfg *cfg,
                                              const uint32_t *scalars,
                                              uint32_t *keys,
                                              uint32_t *values, uint32_t i)
{
    uint32_t s[8];
    PL_UNROLL
    for (int k = 0; k < 8; k++)
        s[k] = scalars[8 * (size_t)i + k];
    PL__CU_P(msm_scalar)(s);
    pl__cu_msm_digits_of(cfg, s, keys, values, i);
}

/* Thread t of max_partials at level 0: the sum of (at most S) entries of
 * segment t of its bucket, each point negated when its sign bit is set.
 * Threads past the total (offsets[NB]) do nothing. */
PL_DEVICE_FN void PL__CU_P(msm_accumulate_points_thread)(
    const pl__cu_msm_cfg *cfg, const PL__CU_P(g1_affine) *points,
    const uint32_t *values, const uint32_t *start, const uint32_t *end,
    const uint32_t *offsets, PL__CU_P(g1_xyzz) *partials, uint32_t t)
{
    if (t >= offsets[cfg->buckets])
        return;
    uint32_t b = pl__cu_msm_bucket_of(offsets, cfg->buckets, t);
    uint32_t lo = start[b] + (t - offsets[b]) * cfg->segment;
    uint32_t hi = lo + cfg->segment < end[b] ? lo + cfg->segment : end[b];
    PL__CU_P(g1_xyzz) acc;
    PL__CU_P(g1_xyzz_set_inf)(&acc);
    for (uint32_t e = lo; e < hi; e++) {
        uint32_t v = values[e];
        PL__CU_P(g1_affine) p = points[v >> 1];
        if (v & 1)
            PL__CU_P(g1_affine_neg)(&p, &p);
        PL__CU_P(g1_xyzz_add_affine)(&acc, &acc, &p);
    }
    partials[t] = acc;
}

/* Thread t at level k > 0: the same over level k-1's partials, bucket b's
 * being [prev[b], prev[b + 1]). */
PL_DEVICE_FN void PL__CU_P(msm_accumulate_partials_thread)(
    const pl__cu_msm_cfg *cfg, const PL__CU_P(g1_xyzz) *in, const uint32_t *prev,
    const uint32_t *offsets, PL__CU_P(g1_xyzz) *out, uint32_t t)
{
    if (t >= offsets[cfg->buckets])
        return;
    uint32_t b = pl__cu_msm_bucket_of(offsets, cfg->buckets, t);
    uint32_t lo = prev[b] + (t - offsets[b]) * cfg->segment;
    uint32_t hi = lo + cfg->segment < prev[b + 1] ? lo + cfg->segment
                                                   : prev[b + 1];
    PL__CU_P(g1_xyzz) acc = in[lo];
    for (uint32_t e = lo + 1; e < hi; e++)
        PL__CU_P(g1_xyzz_add)(&acc, &acc, &in[e]);
    out[t] = acc;
}

/* r = k p for a small k (k < 2^16), double and add from the top bit. */
PL_DEVICE_FN void PL__CU_P(g1_xyzz_mul_small)(PL__CU_P(g1_xyzz) *r,
                                           const PL__CU_P(g1_xyzz) *p, uint32_t k)
{
    PL__CU_P(g1_xyzz) acc;
    PL__CU_P(g1_xyzz_set_inf)(&acc);
    for (int bit = 15; bit >= 0; bit--) {
        PL__CU_P(g1_xyzz_dbl)(&acc, &acc);
        if ((k >> bit) & 1)
            PL__CU_P(g1_xyzz_add)(&acc, &acc, p);
    }
    *r = acc;
}

/* Thread j = w T + k of W T: sum over the L = 2^(c-1) / T buckets of chunk
 * k of window w of (bucket number) x (bucket sum), the buckets read from
 * the final level (bucket b's sum is partials[offsets[b]] when
 * offsets[b + 1] > offsets[b], else empty). */
PL_DEVICE_FN void PL__CU_P(msm_reduce_thread)(const pl__cu_msm_cfg *cfg,
                                           const PL__CU_P(g1_xyzz) *partials,
                                           const uint32_t *offsets,
                                           PL__CU_P(g1_xyzz) *chunk_sums,
                                           uint32_t j)
{
    uint32_t per_window = (uint32_t)1 << (cfg->c - 1);
    uint32_t len = per_window / cfg->chunks;
    uint32_t w = j / cfg->chunks, k = j % cfg->chunks;
    uint32_t first = w * per_window + k * len; /* bucket number k len + 1 */
    PL__CU_P(g1_xyzz) running, sum, lo_times;
    PL__CU_P(g1_xyzz_set_inf)(&running);
    PL__CU_P(g1_xyzz_set_inf)(&sum);
    for (uint32_t q = len; q-- > 0;) {
        uint32_t b = first + q;
        if (offsets[b + 1] > offsets[b])
            PL__CU_P(g1_xyzz_add)(&running, &running, &partials[offsets[b]]);
        PL__CU_P(g1_xyzz_add)(&sum, &sum, &running); /* weight q + 1 */
    }
    /* bucket numbers run from k len + 1: add k len times the plain sum */
    PL__CU_P(g1_xyzz_mul_small)(&lo_times, &running, k * len);
    PL__CU_P(g1_xyzz_add)(&chunk_sums[j], &sum, &lo_times);
}
