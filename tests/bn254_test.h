/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the BN254 tests (tests/test_bn254_*.c) share: the field
 * implementations this CPU can run, and skipping a case with its reason.
 */
#ifndef PL_TEST_BN254_H
#define PL_TEST_BN254_H

#include "field/bn254/fp.h"

#include <stdio.h>
#include <stdlib.h>

/* Ends the case as skipped (ctest's 77), saying why. */
static inline _Noreturn void bn254_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    exit(77);
}

/* The implementations to run: portable, and adx where the CPU has it;
 * returns how many. */
static inline size_t bn254_arith_list(pl__bn254_arith out[2])
{
    out[0] = PL__BN254_PORTABLE;
    if (pl__bn254_arith_best() == PL__BN254_ADX) {
        out[1] = PL__BN254_ADX;
        return 2;
    }
    return 1;
}

#endif /* PL_TEST_BN254_H */
