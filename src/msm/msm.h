/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Multi-scalar multiplication sum(s_i * P_i) for G1 and G2.  Points are the
 * zkey's affine points (all-zero bytes = infinity), read in place; scalars
 * are 32-byte little-endian standard-form values (< r), also in place.
 * Work is split over the pool's workers; scratch comes from the accounted
 * allocator (class msm_scratch).  n = 0 gives the point at infinity.
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

/* Scratch bytes the MSM of n points will take with `threads` workers. */
uint64_t pl__msm_g1_scratch_bytes(size_t n, unsigned threads);
uint64_t pl__msm_g2_scratch_bytes(size_t n, unsigned threads);

#endif /* PL_MSM_H */
