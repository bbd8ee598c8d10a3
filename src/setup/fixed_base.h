/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fixed-base scalar multiplication: many scalars times ONE generator (of G1
 * or G2), the bulk of a trusted setup.  A table holds d * 2^(w*j) * G for
 * every window j and digit d in 1..2^w-1, as affine points, so one product
 * costs one mixed addition per non-zero w-bit digit and no doubling; the
 * products of a batch are made affine together (one inversion per task).
 * Work is split over a pl__pool.  The dev setup (dev_setup.c) is the only
 * caller; an MSM over many bases is msm/msm.h's job, not this one's.
 */
#ifndef PL_SETUP_FIXED_BASE_H
#define PL_SETUP_FIXED_BASE_H

#include "proofline.h"
#include "blst.h"
#include "field/curve.h"
#include "util/pool.h"

typedef struct pl__fixed_base pl__fixed_base;

/* The window bits for a table that will make `products` products: the
 * fewest additions, table included, with the table kept cache-sized. */
unsigned pl__fixed_base_window(uint64_t products);

/* A table for the generator of G1 (g2 false) or G2, with window bits w in
 * 1..16; per-worker scratch for a pool of `workers` (pl__pool_size). */
pl_status pl__fixed_base_create(pl__fixed_base **out, bool g2, unsigned w,
                                unsigned workers, pl_error *err);
/* The same for a curve's groups (pl__fixed_base_create: BLS12-381's). */
pl_status pl__fixed_base_create_curve(pl__fixed_base **out, pl__curve curve,
                                      bool g2, unsigned w, unsigned workers,
                                      pl_error *err);
void pl__fixed_base_destroy(pl__fixed_base *fb);
/* Bytes of one output point: 96 (G1) or 192 (G2); BN254: 64 or 128. */
size_t pl__fixed_base_point_bytes(const pl__fixed_base *fb);
/* Bytes the table and scratch of pl__fixed_base_create take. */
uint64_t pl__fixed_base_bytes(bool g2, unsigned w, unsigned workers);
uint64_t pl__fixed_base_bytes_curve(pl__curve curve, bool g2, unsigned w,
                                    unsigned workers);

/* out[i] = scalars[i] * G as affine points in the zkey encoding (x || y,
 * Montgomery limbs), all-zero bytes for a zero scalar (the point at
 * infinity); scalars are the table's curve's Fr (blst_fr or pl__bn254_fr,
 * 32 bytes each).  pool's size must not exceed the `workers` given at
 * create. */
void pl__fixed_base_mul(const pl__fixed_base *fb, uint8_t *out,
                        const void *scalars, size_t n, pl__pool *pool);

#endif /* PL_SETUP_FIXED_BASE_H */
