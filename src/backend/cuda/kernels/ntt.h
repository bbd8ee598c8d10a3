/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bodies of the CUDA backend's NTT and H kernels, one function per
 * thread with the thread's index as an argument.  gpu_cuda.cu wraps each
 * in a __global__ kernel that computes the index from blockIdx/threadIdx;
 * the host emulation (gpu_emu.c) calls the same functions in loops over the
 * index; gpu.c's schedule launches the stages in order on either.  So the
 * index arithmetic that the GPU runs is the arithmetic that make test
 * checks against the CPU NTT on machines without a GPU.
 *
 * The transform computes what the CPU's (src/ntt/ntt.c) does, over Fr in
 * Montgomery form, with both element orders so that no permutation pass is
 * needed (a bit-reversal is a full pass of scattered accesses on a GPU):
 *
 *   inverse:  decimation-in-frequency (Gentleman-Sande) stages from span
 *             n/2 down to 1 with omega^-k, natural order in, bit-reversed
 *             order out: position p holds n times coefficient bitrev(p);
 *   shift:    position p times (1/n) g^bitrev(p), one pointwise pass (the
 *             odd-coset shift and the 1/n scaling fused);
 *   forward:  decimation-in-time (Cooley-Tukey) stages from span 1 up to
 *             n/2 with omega^k, bit-reversed order in, natural order out;
 *   unshift:  the way back from a coset after the inverse stages: position
 *             p times a scale and g^-bitrev(p), written to bitrev(p) of
 *             another array (natural order, no permutation pass).
 *
 * Both read the table of the n/2 powers omega^k of the CPU's plan (stride
 * 2^(log2n - 1 - s) in stage s); omega^-k is -omega^(n/2 - k), so no
 * inverse table is needed.  The stages whose butterflies stay within
 * 2^PL_CU_NTT_TILE_LOG elements (the last ones of the inverse, the first
 * ones of the forward) run per thread block in shared memory on the GPU;
 * the bodies are the same as for a global stage, on the tile's base pointer.
 *
 * g^i comes from two small tables, g^(i mod 2^k) and g^(2^k floor(i / 2^k))
 * (k = ceil(log2n / 2)), so no thread needs an exponentiation.
 */
#ifndef PL_CUDA_KERNELS_NTT_H
#define PL_CUDA_KERNELS_NTT_H

#include "backend/cuda/arith/fr.h"

/* Elements per shared-memory tile: 2^10 x 32 B = 32 KiB of shared memory,
 * 512 threads each doing one butterfly per stage. */
#define PL_CU_NTT_TILE_LOG 10

/* The tile of a 2^log2n transform: its stages below this run in tiles. */
PL_DEVICE_FN unsigned pl__cu_ntt_tile_log(unsigned log2n)
{
    return log2n < PL_CU_NTT_TILE_LOG ? log2n : PL_CU_NTT_TILE_LOG;
}

PL_DEVICE_FN uint32_t pl__cu_bit_reverse(uint32_t x, unsigned bits)
{
#ifdef __CUDA_ARCH__
    return bits ? __brev(x) >> (32 - bits) : 0;
#else
    uint32_t r = 0;
    for (unsigned b = 0; b < bits; b++)
        r |= ((x >> b) & 1u) << (bits - 1 - b);
    return r;
#endif
}

/* The two elements of butterfly t of stage s (span 2^s) and its twiddle
 * index k (omega^k, k < n/2). */
PL_DEVICE_FN void pl__cu_ntt_pair(unsigned log2n, unsigned s, uint32_t t,
                                  uint32_t *i0, uint32_t *i1, uint32_t *k)
{
    uint32_t half = (uint32_t)1 << s;
    uint32_t j = t & (half - 1);
    *i0 = ((t >> s) << (s + 1)) + j;
    *i1 = *i0 + half;
    *k = j << (log2n - 1 - s);
}

/* Thread t of n/2 in forward stage s: (x, y) <- (x + w y, x - w y), w =
 * omega^k.  `data` is the whole array, or a tile whose stages all stay
 * inside it (then t counts butterflies within the tile). */
PL_DEVICE_FN void pl__cu_ntt_dit_thread(pl__cu_fr *data,
                                        const pl__cu_fr *twiddles,
                                        unsigned log2n, unsigned s, uint32_t t)
{
    uint32_t i0, i1, k;
    pl__cu_ntt_pair(log2n, s, t, &i0, &i1, &k);
    pl__cu_fr y;
    pl__cu_fr_mul(&y, &data[i1], &twiddles[k]);
    pl__cu_fr x = data[i0];
    pl__cu_fr_add(&data[i0], &x, &y);
    pl__cu_fr_sub(&data[i1], &x, &y);
}

/* Thread t of n/2 in inverse stage s: (x, y) <- (x + y, (x - y) omega^-k),
 * with omega^-k = -omega^(n/2 - k) for k > 0, so (x - y) omega^-k =
 * (y - x) omega^(n/2 - k). */
PL_DEVICE_FN void pl__cu_ntt_dif_inverse_thread(pl__cu_fr *data,
                                                const pl__cu_fr *twiddles,
                                                unsigned log2n, unsigned s,
                                                uint32_t t)
{
    uint32_t i0, i1, k;
    pl__cu_ntt_pair(log2n, s, t, &i0, &i1, &k);
    pl__cu_fr x = data[i0], y = data[i1], d;
    pl__cu_fr_add(&data[i0], &x, &y);
    if (k == 0) {
        pl__cu_fr_sub(&data[i1], &x, &y);
    } else {
        pl__cu_fr_sub(&d, &y, &x);
        pl__cu_fr_mul(&data[i1], &d, &twiddles[((uint32_t)1 << (log2n - 1)) - k]);
    }
}

/* g^i from the split tables (see the top of the file). */
PL_DEVICE_FN void pl__cu_ntt_coset_power(pl__cu_fr *r, const pl__cu_fr *g_lo,
                                         const pl__cu_fr *g_hi,
                                         unsigned lo_log, uint32_t i)
{
    pl__cu_fr_mul(r, &g_lo[i & (((uint32_t)1 << lo_log) - 1)],
                  &g_hi[i >> lo_log]);
}

/* Thread p of n, between the inverse and the forward transform: position p
 * (coefficient bitrev(p), times n) times (1/n) g^bitrev(p). */
PL_DEVICE_FN void pl__cu_ntt_shift_thread(pl__cu_fr *data, unsigned log2n,
                                          const pl__cu_fr *n_inv,
                                          const pl__cu_fr *g_lo,
                                          const pl__cu_fr *g_hi,
                                          unsigned lo_log, uint32_t p)
{
    pl__cu_fr scale;
    pl__cu_ntt_coset_power(&scale, g_lo, g_hi, lo_log,
                           pl__cu_bit_reverse(p, log2n));
    pl__cu_fr_mul(&scale, &scale, n_inv);
    pl__cu_fr_mul(&data[p], &data[p], &scale);
}

/* Thread p of n, after an inverse transform (position p holds n times
 * coefficient bitrev(p)), out of place into natural order: out[q] =
 * data[p] scale G^q, q = bitrev(p), with G's split tables.  The way back
 * from a coset (G = g^-1; scale = 1/n, or 1/(n t) to divide by a
 * vanishing polynomial that is the constant t there).  Every step is a
 * multiplication by a Montgomery-form constant, which multiplies the
 * stored integer by the constant's value: the output has the input's form
 * (canonical integers in, canonical out; Montgomery in, Montgomery out). */
PL_DEVICE_FN void pl__cu_ntt_unshift_thread(pl__cu_fr *out,
                                            const pl__cu_fr *data,
                                            unsigned log2n,
                                            const pl__cu_fr *scale,
                                            const pl__cu_fr *g_lo,
                                            const pl__cu_fr *g_hi,
                                            unsigned lo_log, uint32_t p)
{
    uint32_t q = pl__cu_bit_reverse(p, log2n);
    pl__cu_fr factor;
    pl__cu_ntt_coset_power(&factor, g_lo, g_hi, lo_log, q);
    pl__cu_fr_mul(&factor, &factor, scale);
    pl__cu_fr_mul(&out[q], &data[p], &factor);
}

/* Thread i of n: h_i = a_i b_i - c_i on the coset, written as a canonical
 * integer (the MSM's scalar form) over c_i's slot. */
PL_DEVICE_FN void pl__cu_h_thread(const pl__cu_fr *a, const pl__cu_fr *b,
                                  pl__cu_fr *c_then_h, uint32_t i)
{
    pl__cu_fr t;
    pl__cu_fr_mul(&t, &a[i], &b[i]);
    pl__cu_fr_sub(&t, &t, &c_then_h[i]);
    pl__cu_fr_to_canonical(&c_then_h[i], &t);
}

/* data[i] from Montgomery form to the canonical integer (the MSM's
 * scalars): bellperson's in-memory scalars handed as they are. */
PL_DEVICE_FN void pl__cu_from_montgomery_thread(pl__cu_fr *data, uint32_t i)
{
    pl__cu_fr t = data[i];
    pl__cu_fr_to_canonical(&data[i], &t);
}

#endif /* PL_CUDA_KERNELS_NTT_H */
