/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Multi-scalar multiplication sum(s_i * P_i) for G1 and G2.  Points are the
 * zkey's affine points (all-zero bytes = infinity), read in place; scalars
 * are 32-byte little-endian values (< r; bit 255 is ignored and values up
 * to 2^255 are taken mod r, as blst does), also in place.  Work is split
 * over the pool's workers; scratch comes from the accounted allocator
 * (class msm_scratch).  n = 0 gives the point at infinity.
 *
 * pl__msm_gX is the batch-affine Pippenger of msm_affine.c; the _blst
 * variants (msm_blst.c, blst's own Pippenger tiles) are the baseline that
 * tests and benchmarks compare it with, and its path for small sums.  Both
 * give the same group element for the same input.
 */
#ifndef PL_MSM_H
#define PL_MSM_H

#include "proofline.h"
#include "blst.h"
#include "util/pool.h"

pl_status pl__msm_g1(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err);
pl_status pl__msm_g2(blst_p2 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err);

/* Scratch bytes the MSM of n points will take with `threads` workers: one
 * allocation, exactly this size (0: none). */
uint64_t pl__msm_g1_scratch_bytes(size_t n, unsigned threads);
uint64_t pl__msm_g2_scratch_bytes(size_t n, unsigned threads);

/*
 * The same sums for witness scalars, most of them 0 or 1 in circuits built
 * from bits (SHA-256, Merkle paths): zero scalars (and points at infinity)
 * are skipped, points whose scalar is 1 are summed with batched affine
 * additions (one inversion per PL__BATCH / 2 of them), and the batch-affine
 * Pippenger runs over the m remaining ("big") scalars only, its window
 * chosen for m (and never wider than the one for n).  Points and scalars
 * stay in place: the big scalars are gathered as 4-byte point indices and
 * folded scalars.  Dense scalars cost one extra classification pass.  The
 * sum is the same group element as pl__msm_gX's.  n must be below 2^31
 * for the fast path; larger sums take pl__msm_gX.
 */
pl_status pl__msm_g1_witness(blst_p1 *out, const uint8_t *points,
                             const uint8_t *scalars, size_t n, pl__pool *pool,
                             pl_error *err);
pl_status pl__msm_g2_witness(blst_p2 *out, const uint8_t *points,
                             const uint8_t *scalars, size_t n, pl__pool *pool,
                             pl_error *err);

/* An upper bound on the scratch a witness MSM of n points takes with
 * `threads` workers, whatever the scalars: a caller can reserve it before
 * it has the witness.  The call makes at most one allocation, sized for the
 * scalars it finds: often smaller than this bound, never larger (none when
 * every term is zero). */
uint64_t pl__msm_g1_witness_scratch_bytes(size_t n, unsigned threads);
uint64_t pl__msm_g2_witness_scratch_bytes(size_t n, unsigned threads);

/* A witness MSM in the form a prover is configured with: plain
 * (pl__msm_gX, for benchmarks) or witness-aware (pl__msm_gX_witness, the
 * default); the sum is the same.  The scratch bound covers either form, so
 * a plan made before the form is known holds. */
pl_status pl__msm_g1_of_witness(blst_p1 *out, const uint8_t *points,
                                const uint8_t *scalars, size_t n, bool plain,
                                pl__pool *pool, pl_error *err);
pl_status pl__msm_g2_of_witness(blst_p2 *out, const uint8_t *points,
                                const uint8_t *scalars, size_t n, bool plain,
                                pl__pool *pool, pl_error *err);
uint64_t pl__msm_g1_of_witness_scratch_bytes(size_t n, unsigned threads);
uint64_t pl__msm_g2_of_witness_scratch_bytes(size_t n, unsigned threads);

/* The same sums on blst's Pippenger tiles. */
pl_status pl__msm_g1_blst(blst_p1 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n, pl__pool *pool,
                          pl_error *err);
pl_status pl__msm_g2_blst(blst_p2 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n, pl__pool *pool,
                          pl_error *err);
uint64_t pl__msm_g1_blst_scratch_bytes(size_t n, unsigned threads);
uint64_t pl__msm_g2_blst_scratch_bytes(size_t n, unsigned threads);

/* The window (bits) the batch-affine MSM picks for n points and `threads`
 * workers; 0 when it hands the sum to the _blst path.  For tests and
 * benchmarks. */
unsigned pl__msm_g1_window(size_t n, unsigned threads);
unsigned pl__msm_g2_window(size_t n, unsigned threads);

#endif /* PL_MSM_H */
