/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bodies of the CUDA backend's NTT and H kernels, one function per
 * thread with the thread's index as an argument.  kernels.cu wraps each in
 * a __global__ kernel that computes the index from blockIdx/threadIdx; the
 * host emulation (gpu_emu.c) calls the same functions in loops over the
 * index, one stage after another.  So the index arithmetic that the GPU
 * runs is the arithmetic that make test checks against the CPU NTT on
 * machines without a GPU.
 *
 * The transform is the CPU's (src/ntt/ntt.c), over Fr in Montgomery form:
 *   forward:  bit-reversal permutation, then radix-2 decimation-in-time
 *             stages s = 0 .. log2n - 1 (butterfly span 2^s), reading
 *             omega^j from a table of the n/2 powers of omega with stride
 *             2^(log2n - 1 - s);
 *   inverse:  the forward transform, then element i <- element -i mod n,
 *             scaled by 1/n (and, for the odd coset, by g^i: the shift is
 *             fused into this pass).
 * The first stages, whose butterflies stay within 2^PL_CU_NTT_TILE_LOG
 * elements, run per thread block in shared memory on the GPU; the body is
 * the same as for a global stage, on the tile's base pointer.
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

PL_DEVICE_FN uint32_t pl__cu_bit_reverse(uint32_t x, unsigned bits)
{
#ifdef __CUDA_ARCH__
    return __brev(x) >> (32 - bits);
#else
    uint32_t r = 0;
    for (unsigned b = 0; b < bits; b++)
        r |= ((x >> b) & 1u) << (bits - 1 - b);
    return r;
#endif
}

/* Thread i of n: swaps element i with element bitrev(i) (the lower index
 * of the pair does it). */
PL_DEVICE_FN void pl__cu_ntt_bitrev_thread(pl__cu_fr *data, unsigned log2n,
                                           uint32_t i)
{
    uint32_t j = pl__cu_bit_reverse(i, log2n);
    if (i < j) {
        pl__cu_fr t = data[i];
        data[i] = data[j];
        data[j] = t;
    }
}

/* Thread t of n/2 in stage s: the butterfly (x, y) <- (x + w y, x - w y)
 * on elements base + j and base + j + 2^s of group t >> s, w = omega^j
 * scaled to this stage.  `data` is the whole array, or a tile whose stages
 * all stay inside it (then t counts butterflies within the tile). */
PL_DEVICE_FN void pl__cu_ntt_butterfly_thread(pl__cu_fr *data,
                                              const pl__cu_fr *twiddles,
                                              unsigned log2n, unsigned s,
                                              uint32_t t)
{
    uint32_t half = (uint32_t)1 << s;
    uint32_t j = t & (half - 1);
    uint32_t i0 = ((t >> s) << (s + 1)) + j;
    pl__cu_fr y;
    pl__cu_fr_mul(&y, &data[i0 + half], &twiddles[j << (log2n - 1 - s)]);
    pl__cu_fr x = data[i0];
    pl__cu_fr_add(&data[i0], &x, &y);
    pl__cu_fr_sub(&data[i0 + half], &x, &y);
}

/* g^i from the split tables (see the top of the file). */
PL_DEVICE_FN void pl__cu_ntt_coset_power(pl__cu_fr *r, const pl__cu_fr *g_lo,
                                         const pl__cu_fr *g_hi,
                                         unsigned lo_log, uint32_t i)
{
    pl__cu_fr_mul(r, &g_lo[i & (((uint32_t)1 << lo_log) - 1)],
                  &g_hi[i >> lo_log]);
}

/* Thread i of n/2 + 1, after a forward transform: element i <- element
 * n - i and the other way round (0 and n/2 stay), each times 1/n and, when
 * g_lo is not NULL, times g^(its new index). */
PL_DEVICE_FN void pl__cu_ntt_finish_thread(pl__cu_fr *data, unsigned log2n,
                                           const pl__cu_fr *n_inv,
                                           const pl__cu_fr *g_lo,
                                           const pl__cu_fr *g_hi,
                                           unsigned lo_log, uint32_t i)
{
    uint32_t n = (uint32_t)1 << log2n;
    pl__cu_fr p = *n_inv, q = *n_inv, t;
    if (g_lo) {
        pl__cu_ntt_coset_power(&t, g_lo, g_hi, lo_log, i);
        pl__cu_fr_mul(&p, &p, &t);
        if (i != 0) {
            pl__cu_ntt_coset_power(&t, g_lo, g_hi, lo_log, n - i);
            pl__cu_fr_mul(&q, &q, &t);
        }
    }
    if (i == 0 || 2 * i == n) {
        pl__cu_fr_mul(&data[i], &data[i], &p);
    } else {
        pl__cu_fr a = data[i];
        pl__cu_fr_mul(&data[i], &data[n - i], &p);
        pl__cu_fr_mul(&data[n - i], &a, &q);
    }
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

#endif /* PL_CUDA_KERNELS_NTT_H */
