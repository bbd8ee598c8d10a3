/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Number-theoretic transforms over BLS12-381's Fr (blst_fr, Montgomery
 * form), multi-threaded on a pl__pool, natural order in and out.  The
 * domain's twiddles are computed once per size into a plan (allocated
 * through the accounted allocator, class params: they stay with the circuit).
 */
#ifndef PL_NTT_H
#define PL_NTT_H

#include "proofline.h"
#include "blst.h"
#include "util/pool.h"

typedef struct pl__ntt_plan pl__ntt_plan;

/* A plan for size 2^log2n (log2n <= 28), roots as snarkjs chooses them. */
pl_status pl__ntt_plan_create(pl__ntt_plan **out, unsigned log2n,
                              pl__pool *pool, pl_error *err);
/* The same with bellperson's omega (blstrs's root of unity, field.h), for
 * its evaluation domain; the odd coset's g is the same (any primitive 2n-th
 * root puts the coset where the vanishing polynomial is -2). */
pl_status pl__ntt_plan_create_blstrs(pl__ntt_plan **out, unsigned log2n,
                                     pl__pool *pool, pl_error *err);
void pl__ntt_plan_destroy(pl__ntt_plan *plan);
/* Bytes the plan for 2^log2n allocates (for budget plans). */
uint64_t pl__ntt_plan_bytes(unsigned log2n);

/* The plan's constants, for a device that runs the same transforms
 * (src/backend/cuda): the n/2 twiddles omega^j, 1/n, and g, the odd
 * coset's generator. */
void pl__ntt_plan_constants(const pl__ntt_plan *plan, const blst_fr **twiddles,
                            blst_fr *n_inv, blst_fr *g);

/* In place, natural order: forward evaluates the polynomial with
 * coefficients data[j] at omega^i; inverse undoes it (scaled by 1/n). */
void pl__ntt_forward(const pl__ntt_plan *plan, blst_fr *data, pl__pool *pool);
void pl__ntt_inverse(const pl__ntt_plan *plan, blst_fr *data, pl__pool *pool);

/* From evaluations on the domain to evaluations on the odd coset
 * g * omega^i, g a primitive 2n-th root: inverse NTT, multiply coefficient j
 * by g^j, forward NTT (the snarkjs H method). */
void pl__ntt_to_odd_coset(const pl__ntt_plan *plan, blst_fr *data,
                          pl__pool *pool);

#endif /* PL_NTT_H */
