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
 * The transform computes what the CPU's (src/ntt/ntt.c) does, over the
 * curve's Fr in Montgomery form (BLS12-381's or BN254's: the bodies that
 * compute in the field are ntt_impl.h's, instantiated per curve), with
 * both element orders so that no permutation pass is
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

#include "backend/cuda/arith/bn254.h"
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

/* The bodies over Fr, per curve (ntt_impl.h): pl__cu_ntt_*_thread,
 * pl__cu_h_thread, ... for BLS12-381; pl__cu_bn254_ntt_*_thread, ... for
 * BN254. */
#define PL__CU_P(name) pl__cu_##name
#include "backend/cuda/kernels/ntt_impl.h"
#undef PL__CU_P

#define PL__CU_P(name) pl__cu_bn254_##name
#include "backend/cuda/kernels/ntt_impl.h"
#undef PL__CU_P

#endif /* PL_CUDA_KERNELS_NTT_H */
