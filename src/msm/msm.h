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
 *
 * The pl__msm_gX functions are BLS12-381's (blst's points).  The same sums
 * for any curve's group are at the end (pl__msm_sum, by pl__msm_group_id):
 * BLS12-381's G1 and G2 and BN254's G1 and G2.
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

/*
 * GLV.  BLS12-381's G1 has the endomorphism phi(x, y) = (beta x, y),
 * beta a cube root of unity in Fp, which acts on G1 as multiplication by
 * lambda = -z^2 mod r (z the curve's parameter; lambda^2 + lambda + 1 = 0
 * mod r); on G2 (x in Fp2) the same with the other cube root, beta^2,
 * multiplying both halves of x.  A folded scalar s < r / 2 splits as
 * s = k_hi z^2 + k_lo with 0 <= k_hi < 2^127 and |k_lo| <= z^2 / 2 < 2^127,
 * so
 *     s P = k_lo P + k_hi (-phi(P)),
 * and the batch-affine Pippenger runs over 2n points with 127-bit scalars.
 * phi(P) costs 1 Fp multiplication (2 on G2); the modes say where it is
 * computed:
 *   PL__GLV_OFF    no GLV: n points, 254-bit scalars;
 *   PL__GLV_LOAD   each time a tile loads phi(P) (once per window);
 *   PL__GLV_CALL   once per call, into the call's scratch (a point's bytes
 *                  a point);
 *   PL__GLV_TABLE  from the caller's table of phi(P_i)
 *                  (pl__msm_gX_endo_table, computed once per circuit;
 *                  class params is the caller's).
 * The sum is the same group element in every mode.
 */
typedef enum {
    PL__GLV_OFF,
    PL__GLV_LOAD,
    PL__GLV_CALL,
    PL__GLV_TABLE,
} pl__glv_mode;

typedef struct {
    pl__glv_mode glv;
    const uint8_t *endo; /* PL__GLV_TABLE: n affine points, phi(points[i]) */
} pl__msm_opts;

/* The mode pl__msm_g1 and pl__msm_g1_witness use (and so the prover):
 * PL__GLV_CALL for G1, PL__GLV_LOAD for G2 (msm_affine.c says why). */
pl__msm_opts pl__msm_g1_default_opts(void);

/* For tests: makes `mode` (not PL__GLV_TABLE) the default of this
 * process, so that whole proofs can be compared across modes.  Set it
 * while no MSM runs. */
void pl__msm_g1_set_default_glv(pl__glv_mode mode);

/* pl__msm_g1 / pl__msm_g1_witness with the mode given; their scratch
 * (exact for the plain sum, a bound for the witness sum, as above). */
pl_status pl__msm_g1_opts(blst_p1 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n,
                          const pl__msm_opts *opts, pl__pool *pool,
                          pl_error *err);
pl_status pl__msm_g1_witness_opts(blst_p1 *out, const uint8_t *points,
                                  const uint8_t *scalars, size_t n,
                                  const pl__msm_opts *opts, pl__pool *pool,
                                  pl_error *err);
uint64_t pl__msm_g1_opts_scratch_bytes(size_t n, unsigned threads,
                                       const pl__msm_opts *opts);
uint64_t pl__msm_g1_witness_opts_scratch_bytes(size_t n, unsigned threads,
                                               const pl__msm_opts *opts);
unsigned pl__msm_g1_opts_window(size_t n, unsigned threads,
                                const pl__msm_opts *opts);

/* out[i] = phi(points[i]) for n affine G1 points (zkey layout, 96 bytes
 * each; all-zero bytes, the point at infinity, stay all zero), over the
 * pool.  out holds 96 n bytes and must not overlap points. */
void pl__msm_g1_endo_table(uint8_t *out, const uint8_t *points, size_t n,
                           pl__pool *pool);

/* The same for G2 (192 bytes a point). */
pl__msm_opts pl__msm_g2_default_opts(void);
void pl__msm_g2_set_default_glv(pl__glv_mode mode);
pl_status pl__msm_g2_opts(blst_p2 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n,
                          const pl__msm_opts *opts, pl__pool *pool,
                          pl_error *err);
pl_status pl__msm_g2_witness_opts(blst_p2 *out, const uint8_t *points,
                                  const uint8_t *scalars, size_t n,
                                  const pl__msm_opts *opts, pl__pool *pool,
                                  pl_error *err);
uint64_t pl__msm_g2_opts_scratch_bytes(size_t n, unsigned threads,
                                       const pl__msm_opts *opts);
uint64_t pl__msm_g2_witness_opts_scratch_bytes(size_t n, unsigned threads,
                                               const pl__msm_opts *opts);
unsigned pl__msm_g2_opts_window(size_t n, unsigned threads,
                                const pl__msm_opts *opts);
void pl__msm_g2_endo_table(uint8_t *out, const uint8_t *points, size_t n,
                           pl__pool *pool);

/* The window (bits) the batch-affine MSM picks for n points and `threads`
 * workers; 0 when it hands the sum to the _blst path.  For tests and
 * benchmarks. */
unsigned pl__msm_g1_window(size_t n, unsigned threads);
unsigned pl__msm_g2_window(size_t n, unsigned threads);

/* ---- any curve ------------------------------------------------------------
 *
 * The same sums for a group named at run time, dispatched once per call to
 * code instantiated for that group (msm_core.h).  Points are that curve's
 * zkey bytes (affine, Montgomery limbs; all zero = infinity): 96 / 192
 * bytes for BLS12-381, 64 / 128 for BN254 (bn128: 32 bytes an Fp).  out is
 * the Jacobian sum: blst_p1 / blst_p2, or pl__bn254_g1 / pl__bn254_g2
 * (field/bn254/curve.h).  Scalars are 32-byte little-endian integers,
 * taken mod r: on BLS12-381 after dropping bit 255 (as blst does, above),
 * on BN254 the whole 256-bit value.  opts NULL means the group's default
 * (pl__msm_default_opts).  BN254's code runs in the field implementation
 * of pl__bn254_arith_current() (field/bn254/fp.h: mulx/adx or portable C),
 * chosen at each call.  GLV on BN254: phi(x, y) = (beta x, y) with beta a
 * cube root of unity in Fp acts on G1 and on G2 (the twist's x in Fp2) as
 * the same lambda (msm_bn254.c), and a scalar splits by a short lattice
 * basis into halves below 2^126.
 */
typedef enum {
    PL__MSM_BLS12_381_G1,
    PL__MSM_BLS12_381_G2,
    PL__MSM_BN254_G1,
    PL__MSM_BN254_G2,
} pl__msm_group_id;

size_t pl__msm_point_bytes(pl__msm_group_id g); /* affine, in the zkey */
size_t pl__msm_sum_bytes(pl__msm_group_id g);   /* the Jacobian sum */
pl__msm_opts pl__msm_default_opts(pl__msm_group_id g);
/* For tests, as pl__msm_g1_set_default_glv: not PL__GLV_TABLE. */
void pl__msm_set_default_glv(pl__msm_group_id g, pl__glv_mode mode);

pl_status pl__msm_sum(pl__msm_group_id g, void *out, const uint8_t *points,
                      const uint8_t *scalars, size_t n,
                      const pl__msm_opts *opts, pl__pool *pool, pl_error *err);
pl_status pl__msm_sum_witness(pl__msm_group_id g, void *out,
                              const uint8_t *points, const uint8_t *scalars,
                              size_t n, const pl__msm_opts *opts,
                              pl__pool *pool, pl_error *err);
/* plain ? pl__msm_sum : pl__msm_sum_witness, default options */
pl_status pl__msm_sum_of_witness(pl__msm_group_id g, void *out,
                                 const uint8_t *points, const uint8_t *scalars,
                                 size_t n, bool plain, pl__pool *pool,
                                 pl_error *err);
uint64_t pl__msm_sum_scratch_bytes(pl__msm_group_id g, size_t n,
                                   unsigned threads, const pl__msm_opts *opts);
uint64_t pl__msm_sum_witness_scratch_bytes(pl__msm_group_id g, size_t n,
                                           unsigned threads,
                                           const pl__msm_opts *opts);
uint64_t pl__msm_sum_of_witness_scratch_bytes(pl__msm_group_id g, size_t n,
                                              unsigned threads);
unsigned pl__msm_sum_window(pl__msm_group_id g, size_t n, unsigned threads,
                            const pl__msm_opts *opts);
/* out[i] = phi(points[i]), as pl__msm_g1_endo_table (n points of the
 * group's size; out must not overlap points). */
void pl__msm_sum_endo_table(pl__msm_group_id g, uint8_t *out,
                            const uint8_t *points, size_t n, pl__pool *pool);

/* BN254's GLV split for other users of phi (the ceremony's batched
 * multiplications): a 32-byte little-endian scalar (taken mod r) as
 * |k1|, |k2| below 2^127 (two limbs each) and their signs, with
 * s = (-1)^neg[0] k1 + (-1)^neg[1] k2 lambda mod r. */
void pl__msm_bn254_glv_split(uint64_t k1[2], uint64_t k2[2], bool neg[2],
                             const uint8_t le[32]);

/*
 * k sums over one base set (msm_batch.c): outs[j] = sum_i scalars[j][i]
 * points[i] for j < k, outs holding k sums of pl__msm_sum_bytes each, each
 * the same group element as pl__msm_sum's over scalars[j].  The plain form
 * runs the k vectors' tiles in one pass over the pool on a grid planned
 * for all k (msm_batch.c), phi's table made once; the witness form runs
 * the k witness sums in turn.  Scratch: one allocation of
 * exactly pl__msm_sum_batch_scratch_bytes (plain), or at most
 * pl__msm_sum_witness_scratch_bytes at a time (witness); the _of_witness
 * bound covers both.  k = 0 does nothing.
 */
pl_status pl__msm_sum_batch(pl__msm_group_id g, void *outs,
                            const uint8_t *points,
                            const uint8_t *const *scalars, size_t k, size_t n,
                            const pl__msm_opts *opts, pl__pool *pool,
                            pl_error *err);
pl_status pl__msm_sum_batch_witness(pl__msm_group_id g, void *outs,
                                    const uint8_t *points,
                                    const uint8_t *const *scalars, size_t k,
                                    size_t n, const pl__msm_opts *opts,
                                    pl__pool *pool, pl_error *err);
/* plain ? pl__msm_sum_batch : pl__msm_sum_batch_witness, default options */
pl_status pl__msm_sum_batch_of_witness(pl__msm_group_id g, void *outs,
                                       const uint8_t *points,
                                       const uint8_t *const *scalars, size_t k,
                                       size_t n, bool plain, pl__pool *pool,
                                       pl_error *err);
uint64_t pl__msm_sum_batch_scratch_bytes(pl__msm_group_id g, size_t n,
                                         size_t k, unsigned threads,
                                         const pl__msm_opts *opts);
uint64_t pl__msm_sum_batch_of_witness_scratch_bytes(pl__msm_group_id g,
                                                    size_t n, size_t k,
                                                    unsigned threads);
/* What the cost model expects a plain batch of k to gain over k separate
 * sums with `threads` workers (default options): k times one sum's
 * modelled time over the batch's, 1.0 for k < 2 or small sums.  Above 1
 * when one sum's grid cannot keep the workers busy: the batch has k times
 * the tiles, so its ranges can be longer (fewer bucket sums a vector). */
double pl__msm_sum_batch_gain(pl__msm_group_id g, size_t n, size_t k,
                              unsigned threads);

#endif /* PL_MSM_H */
