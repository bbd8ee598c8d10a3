/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The field's half of ntt.h's kernels (every body that computes in Fr),
 * written once for both curves: ntt.h includes this file once per curve
 * with PL__CU_P(name) defined to the curve's prefix, as g1.h does, so that
 * pl__cu_ntt_dit_thread is BLS12-381's (over pl__cu_fr) and
 * pl__cu_bn254_ntt_dit_thread BN254's (over pl__cu_bn254_fr), each with
 * its field inlined.  Both fields have 8 limbs; the index arithmetic is
 * ntt.h's, shared.  No header guard on purpose; nothing but ntt.h
 * includes it.
 */

/* Thread t of n/2 in forward stage s: (x, y) <- (x + w y, x - w y), w =
 * omega^k.  `data` is the whole array, or a tile whose stages all stay
 * inside it (then t counts butterflies within the tile). */
PL_DEVICE_FN void PL__CU_P(ntt_dit_thread)(PL__CU_P(fr) *data,
                                        const PL__CU_P(fr) *twiddles,
                                        unsigned log2n, unsigned s, uint32_t t)
{
    uint32_t i0, i1, k;
    pl__cu_ntt_pair(log2n, s, t, &i0, &i1, &k);
    PL__CU_P(fr) y;
    PL__CU_P(fr_mul)(&y, &data[i1], &twiddles[k]);
    PL__CU_P(fr) x = data[i0];
    PL__CU_P(fr_add)(&data[i0], &x, &y);
    PL__CU_P(fr_sub)(&data[i1], &x, &y);
}

/* Thread t of n/2 in inverse stage s: (x, y) <- (x + y, (x - y) omega^-k),
 * with omega^-k = -omega^(n/2 - k) for k > 0, so (x - y) omega^-k =
 * (y - x) omega^(n/2 - k). */
PL_DEVICE_FN void PL__CU_P(ntt_dif_inverse_thread)(PL__CU_P(fr) *data,
                                                const PL__CU_P(fr) *twiddles,
                                                unsigned log2n, unsigned s,
                                                uint32_t t)
{
    uint32_t i0, i1, k;
    pl__cu_ntt_pair(log2n, s, t, &i0, &i1, &k);
    PL__CU_P(fr) x = data[i0], y = data[i1], d;
    PL__CU_P(fr_add)(&data[i0], &x, &y);
    if (k == 0) {
        PL__CU_P(fr_sub)(&data[i1], &x, &y);
    } else {
        PL__CU_P(fr_sub)(&d, &y, &x);
        PL__CU_P(fr_mul)(&data[i1], &d, &twiddles[((uint32_t)1 << (log2n - 1)) - k]);
    }
}

/* g^i from the split tables (see the top of the file). */
PL_DEVICE_FN void PL__CU_P(ntt_coset_power)(PL__CU_P(fr) *r, const PL__CU_P(fr) *g_lo,
                                         const PL__CU_P(fr) *g_hi,
                                         unsigned lo_log, uint32_t i)
{
    PL__CU_P(fr_mul)(r, &g_lo[i & (((uint32_t)1 << lo_log) - 1)],
                  &g_hi[i >> lo_log]);
}

/* Thread p of n, between the inverse and the forward transform: position p
 * (coefficient bitrev(p), times n) times (1/n) g^bitrev(p). */
PL_DEVICE_FN void PL__CU_P(ntt_shift_thread)(PL__CU_P(fr) *data, unsigned log2n,
                                          const PL__CU_P(fr) *n_inv,
                                          const PL__CU_P(fr) *g_lo,
                                          const PL__CU_P(fr) *g_hi,
                                          unsigned lo_log, uint32_t p)
{
    PL__CU_P(fr) scale;
    PL__CU_P(ntt_coset_power)(&scale, g_lo, g_hi, lo_log,
                           pl__cu_bit_reverse(p, log2n));
    PL__CU_P(fr_mul)(&scale, &scale, n_inv);
    PL__CU_P(fr_mul)(&data[p], &data[p], &scale);
}

/* Thread p of n, after an inverse transform (position p holds n times
 * coefficient bitrev(p)), out of place into natural order: out[q] =
 * data[p] scale G^q, q = bitrev(p), with G's split tables.  The way back
 * from a coset (G = g^-1; scale = 1/n, or 1/(n t) to divide by a
 * vanishing polynomial that is the constant t there).  Every step is a
 * multiplication by a Montgomery-form constant, which multiplies the
 * stored integer by the constant's value: the output has the input's form
 * (canonical integers in, canonical out; Montgomery in, Montgomery out). */
PL_DEVICE_FN void PL__CU_P(ntt_unshift_thread)(PL__CU_P(fr) *out,
                                            const PL__CU_P(fr) *data,
                                            unsigned log2n,
                                            const PL__CU_P(fr) *scale,
                                            const PL__CU_P(fr) *g_lo,
                                            const PL__CU_P(fr) *g_hi,
                                            unsigned lo_log, uint32_t p)
{
    uint32_t q = pl__cu_bit_reverse(p, log2n);
    PL__CU_P(fr) factor;
    PL__CU_P(ntt_coset_power)(&factor, g_lo, g_hi, lo_log, q);
    PL__CU_P(fr_mul)(&factor, &factor, scale);
    PL__CU_P(fr_mul)(&out[q], &data[p], &factor);
}

/* Thread i of n: h_i = a_i b_i - c_i on the coset, written as a canonical
 * integer (the MSM's scalar form) over c_i's slot. */
PL_DEVICE_FN void PL__CU_P(h_thread)(const PL__CU_P(fr) *a, const PL__CU_P(fr) *b,
                                  PL__CU_P(fr) *c_then_h, uint32_t i)
{
    PL__CU_P(fr) t;
    PL__CU_P(fr_mul)(&t, &a[i], &b[i]);
    PL__CU_P(fr_sub)(&t, &t, &c_then_h[i]);
    PL__CU_P(fr_to_canonical)(&c_then_h[i], &t);
}

/* data[i] from Montgomery form to the canonical integer (the MSM's
 * scalars): bellperson's in-memory scalars handed as they are. */
PL_DEVICE_FN void PL__CU_P(from_montgomery_thread)(PL__CU_P(fr) *data, uint32_t i)
{
    PL__CU_P(fr) t = data[i];
    PL__CU_P(fr_to_canonical)(&data[i], &t);
}
