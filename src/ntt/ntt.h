/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Number-theoretic transforms over a curve's scalar field Fr: BLS12-381's
 * (blst_fr, Montgomery form) and BN254's (pl__bn254_fr, field/bn254/fp.h,
 * Montgomery form), multi-threaded on a pl__pool, natural order in and
 * out.  The domain's twiddles are computed once per size into a plan
 * (allocated through the accounted allocator, class params: they stay
 * with the circuit); a plan belongs to one curve.  The blst_fr functions
 * are BLS12-381's; the _elems ones take either field's elements (32 bytes
 * each), the plan's.
 */
#ifndef PL_NTT_H
#define PL_NTT_H

#include "proofline.h"
#include "blst.h"
#include "field/bn254/fp.h"
#include "field/curve.h"
#include "util/pool.h"

/* BN254's Fr has two-adicity 28 (r - 1 = 2^28 t, t odd): no domain above
 * 2^28.  Its roots are snarkjs's: from nqr = 5, w[28] = 5^t. */
#define PL__NTT_BN254_MAX_LOG 28u
#define PL__NTT_BN254_NQR 5u

typedef struct pl__ntt_plan pl__ntt_plan;

/* A BLS12-381 plan for size 2^log2n (log2n <= 28), roots as snarkjs
 * chooses them. */
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

/* ---- either curve --------------------------------------------------------- */

/* A plan for the curve's Fr at 2^log2n: BLS12-381 up to 2^28, BN254 up to
 * 2^28 (its two-adicity; a larger domain is PL_EUNSUPPORTED saying so). */
pl_status pl__ntt_plan_create_curve(pl__ntt_plan **out, pl__curve curve,
                                    unsigned log2n, pl__pool *pool,
                                    pl_error *err);
pl__curve pl__ntt_plan_curve(const pl__ntt_plan *plan);
unsigned pl__ntt_plan_log2n(const pl__ntt_plan *plan);
/* pl__ntt_plan_constants for either field: *twiddles points at the n/2
 * twiddles, n_inv and g receive 32 bytes each. */
void pl__ntt_plan_constants_elems(const pl__ntt_plan *plan,
                                  const void **twiddles, void *n_inv, void *g);

/* The transforms above over the plan's field: data holds n elements of it.
 * BN254's run in the field implementation of pl__bn254_arith_current(),
 * chosen once per call.  The odd coset is g omega^i with g = w[log2n + 1],
 * or for BN254 at 2^28 (no 2^29-th root) g = 25, as snarkjs does. */
void pl__ntt_forward_elems(const pl__ntt_plan *plan, void *data,
                           pl__pool *pool);
void pl__ntt_inverse_elems(const pl__ntt_plan *plan, void *data,
                           pl__pool *pool);
void pl__ntt_to_odd_coset_elems(const pl__ntt_plan *plan, void *data,
                                pl__pool *pool);

/* BN254's roots: the primitive 2^log2n-th root snarkjs uses
 * (log2n <= 28), and the odd coset's generator for a domain of 2^log2n. */
void pl__ntt_bn254_root_of_unity(pl__bn254_fr *out, unsigned log2n);
void pl__ntt_bn254_coset(pl__bn254_fr *out, unsigned log2n);

#endif /* PL_NTT_H */
