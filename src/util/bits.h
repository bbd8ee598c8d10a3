/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bit vectors as bellperson keeps its densities (bitvec's Lsb0 order: bit
 * i is word i / 64, bit i % 64).
 */
#ifndef PL_UTIL_BITS_H
#define PL_UTIL_BITS_H

#include <stddef.h>
#include <stdint.h>

/* The set bits among the first `bits` of words. */
static inline size_t pl__popcount_bits(const uint64_t *words, uint64_t bits)
{
    size_t n = 0;
    for (uint64_t w = 0; w < bits / 64; w++)
        n += (size_t)__builtin_popcountll(words[w]);
    if (bits % 64)
        n += (size_t)__builtin_popcountll(words[bits / 64] &
                                          ((UINT64_C(1) << (bits % 64)) - 1));
    return n;
}

#endif /* PL_UTIL_BITS_H */
