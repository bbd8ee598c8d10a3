/* SPDX-License-Identifier: Apache-2.0 */
/*
 * BLS12-381's MSMs (msm.h's pl__msm_g1 / pl__msm_g2 and their variants):
 * msm_affine_impl.h instantiated for G1 and G2 over blst's field and point
 * operations, with this curve's scalars (reduced as blst reads them: bit
 * 255 dropped, then mod r) and GLV split; the two descriptors the sum of
 * msm_affine.c runs over, and the entry points over them.  Small sums go
 * to blst's tiles (msm_blst.c).
 */
#include "msm/msm_core.h"

#include <assert.h>
#include <string.h>

/* ---- scalars ------------------------------------------------------------ */

static const uint64_t r_limbs[4] = {0xffffffff00000001, 0x53bda402fffe5bfe,
                                  0x3339d80809a1d805, 0x73eda753299d7d48};
static const uint64_t r_half[4] = {0x7fffffff80000000, 0xa9ded2017fff2dff,
                                       0x199cec0404d0ec02, 0x39f6d3a994cebea4};

/* Loads a scalar as 4 limbs, bit 255 dropped and reduced mod r (< 2^255 <
 * 2r: one subtraction is enough), and returns its class. */
static inline unsigned scalar_load(uint64_t s[4], const uint8_t *bytes)
{
    memcpy(s, bytes, 32);
    s[3] &= ~(1ull << 63); /* blst reads 255 bits */
    if (!gt256(r_limbs, s))
        sub256(s, s, r_limbs);
    return scalar_class(s);
}

static inline bool scalar_fold(uint64_t s[4])
{
    return scalar_fold_mod(s, r_limbs, r_half);
}

/*
 * GLV (see msm.h).  z^2 = 0xac45a4010001a4020000000100000000 (z the
 * BLS12-381 parameter, |z| = 0xd201000000010000) satisfies
 * r = z^4 - z^2 + 1, so lambda = -z^2 mod r is a cube root of unity, and
 * beta below (standard form) is the cube root of unity in Fp with
 * (beta x, y) = [lambda] (x, y) on G1.  Derived with Python big integers;
 * tests/test_msm.c checks both against blst.
 */
#define PL__GLV_Z 0xd201000000010000ull
static const uint64_t glv_z2[2] = {0x0000000100000000, 0xac45a4010001a402};
static const uint64_t glv_z2_half[2] = {0x0000000080000000, 0x5622d2008000d201};
/* G2 (on the twist; x in Fp2): (beta^2 x, y) = [lambda] (x, y), beta^2
 * = p - 1 - beta being the other cube root (checked by tests too). */
static const uint64_t glv_beta_g2[6] = {0x8bfd00000000aaac, 0x409427eb4f49fffd,
                                        0x897d29650fb85f9b, 0xaa0d857d89759ad4,
                                        0xec02408663d4de85, 0x1a0111ea397fe699};
static const uint64_t glv_beta[6] = {0x2e01fffffffefffe, 0xde17d813620a0002,
                                     0xddb3a93be6f89688, 0xba69c6076a0f77ea,
                                     0x5f19672fdf76ce51, 0x0};

/* q = a / d for 4 limbs and a 64-bit d; returns a mod d.  (GCC and Clang
 * on 64-bit targets have the 128-bit type; the project builds on no
 * others.) */
static uint64_t div_limb(uint64_t q[4], const uint64_t a[4], uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned __int128 cur = (rem << 64) | a[i];
        q[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

/*
 * Splits a folded scalar s < r / 2 (sign neg: the term is -s P) into two
 * GLV halves: s = k_hi z^2 + k_lo with 0 <= k_lo < z^2 (two divisions by
 * |z|), then k_lo > z^2 / 2 becomes k_lo - z^2 with k_hi + 1, so
 * |k_lo| <= z^2 / 2 < 2^127 and k_hi < (r / 2) / z^2 + 1 < 2^127.  As
 * z^2 P = -[lambda] P = -phi(P), the term is
 *     (+-)(k_lo P + k_hi (-phi(P))).
 * out[0..1] is |k_lo| with its sign in bit 127, out[2..3] k_hi with its
 * sign (always that of -phi: neg flipped).
 */
static void glv_split(uint64_t out[4], const uint64_t s[4], bool neg)
{
    uint64_t q1[4], q2[4];
    uint64_t r1 = div_limb(q1, s, PL__GLV_Z);
    uint64_t r2 = div_limb(q2, q1, PL__GLV_Z);
    assert(q2[2] == 0 && q2[3] == 0);
    unsigned __int128 lo = (unsigned __int128)r2 * PL__GLV_Z + r1;
    unsigned __int128 z2 = ((unsigned __int128)glv_z2[1] << 64) | glv_z2[0];
    unsigned __int128 half = ((unsigned __int128)glv_z2_half[1] << 64) |
                             glv_z2_half[0];
    unsigned __int128 hi = ((unsigned __int128)q2[1] << 64) | q2[0];
    bool lo_neg = false;
    if (lo > half) {
        lo = z2 - lo;
        lo_neg = true;
        hi += 1;
    }
    out[0] = (uint64_t)lo;
    out[1] = (uint64_t)(lo >> 64) | (uint64_t)(neg ^ lo_neg) << 63;
    out[2] = (uint64_t)hi;
    out[3] = (uint64_t)(hi >> 64) | (uint64_t)!neg << 63;
}

/* ---- the two instantiations ---------------------------------------------- */

static void fp_one(blst_fp *one)
{
    const uint64_t v[6] = {1, 0, 0, 0, 0, 0};
    blst_fp_from_uint64(one, v);
}

static void fp2_one(blst_fp2 *one)
{
    fp_one(&one->fp[0]);
    memset(&one->fp[1], 0, sizeof(one->fp[1]));
}

/* x of phi(P): times a cube root of unity in Fp (each half of an Fp2). */
static inline void g1_endo_x(blst_fp *x, const blst_fp *beta)
{
    blst_fp_mul(x, x, beta);
}

static inline void g2_endo_x(blst_fp2 *x, const blst_fp *beta)
{
    blst_fp_mul(&x->fp[0], &x->fp[0], beta);
    blst_fp_mul(&x->fp[1], &x->fp[1], beta);
}

/* GLV's default (see msm.h): PL__GLV_CALL, the mode that won in every
 * measurement.  G1 on 2 threads of a 2-core AMD EPYC (Zen 5, shared and
 * loaded; bench_msm BENCH_GLV_ONLY=1, process CPU time, medians of 5
 * alternating), speed against no GLV (its CPU time over the mode's):
 *              load    call    table (per circuit)
 *     2^16     0.99    1.03    1.05
 *     2^18     0.98    1.01    1.04
 *     2^20     0.96    1.05    1.05
 * (a second run: 2^16 1.00 / 1.02 / 1.03, 2^18 1.00 / 1.01 / 1.02).  The
 * gain is small because GLV keeps the bucket additions per point (twice
 * the points, half the windows) and halves only the bucket sums; phi on
 * every load costs more than that.  call takes 96 bytes a point of
 * scratch more; the table would take as much per circuit for ~1% more. */
#define PL__GLV_DEFAULT PL__GLV_CALL
/* G2's default: PL__GLV_LOAD.  Measured as G1's above (BENCH_GLV_G2=1),
 * speed against no GLV:
 *              load    call    table
 *     2^16     1.02    1.04    1.05
 *     2^18     1.03    1.07    1.07
 * On G2 phi costs 2 Fp multiplications against ~20 for an addition, so
 * even phi on every load wins, with no memory; call would win 3-4% more
 * for 192 bytes a point of scratch (48 MiB at 2^18) beside the G1 sums. */
#define PL__GLV_DEFAULT_G2 PL__GLV_LOAD
/* The default, which tests may change (pl__msm_g1_set_default_glv). */
static _Atomic int g1_default_mode = PL__GLV_DEFAULT;
static _Atomic int g2_default_mode = PL__GLV_DEFAULT_G2;

static void fp_beta_g1(blst_fp *beta)
{
    blst_fp_from_uint64(beta, glv_beta);
}

static void fp_beta_g2(blst_fp *beta)
{
    blst_fp_from_uint64(beta, glv_beta_g2);
}

static pl_status g1_small(void *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n, pl__pool *pool,
                          pl_error *err)
{
    return pl__msm_g1_blst(out, points, scalars, n, pool, err);
}

static pl_status g2_small(void *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n, pl__pool *pool,
                          pl_error *err)
{
    return pl__msm_g2_blst(out, points, scalars, n, pool, err);
}

#define PL__SFX(name) name##_g1
#define PL__F blst_fp
#define PL__AFF blst_p1_affine
#define PL__JAC blst_p1
#define PL__F_ONE fp_one
#define PL__F_ADD blst_fp_add
#define PL__F_SUB blst_fp_sub
#define PL__F_MUL blst_fp_mul
#define PL__F_SQR blst_fp_sqr
#define PL__F_MUL3 blst_fp_mul_by_3
#define PL__F_CNEG blst_fp_cneg
#define PL__F_INV blst_fp_inverse
#define PL__F_ENDO g1_endo_x
#define PL__JAC_ADD_AFF blst_p1_add_or_double_affine
#define PL__JAC_ADD blst_p1_add_or_double
#define PL__JAC_FROM_AFF blst_p1_from_affine
#define PL__JAC_DBL blst_p1_double
#define PL__BETA_T blst_fp
#define PL__BETA_INIT fp_beta_g1
#define PL__S_LOAD scalar_load
#define PL__S_FOLD scalar_fold
#define PL__S_GLV_SPLIT glv_split
/* Fewer points than small_below go to msm_blst.c.  Measured on one worker
 * of a 2-core AMD EPYC (Zen 5, shared; CPU time, best of many runs), the
 * speed of this MSM over blst's tiles: G1 0.95 / 1.04 / 1.18x at
 * n = 256 / 512 / 1024, G2 0.91 / 1.09 / 1.23x at n = 64 / 128 / 256.
 * An inversion (blst's) costs about 10 batched additions. */
#define PL__G_NAME pl__msm_group_bls12_381_g1
#define PL__G_SMALL_BELOW 512
#define PL__G_INV_COST 10.0
#define PL__G_DEFAULT_GLV &g1_default_mode
#define PL__G_SMALL g1_small
#define PL__G_SMALL_BYTES pl__msm_g1_blst_scratch_bytes
#include "msm/msm_affine_impl.h"

#define PL__SFX(name) name##_g2
#define PL__F blst_fp2
#define PL__AFF blst_p2_affine
#define PL__JAC blst_p2
#define PL__F_ONE fp2_one
#define PL__F_ADD blst_fp2_add
#define PL__F_SUB blst_fp2_sub
#define PL__F_MUL blst_fp2_mul
#define PL__F_SQR blst_fp2_sqr
#define PL__F_MUL3 blst_fp2_mul_by_3
#define PL__F_CNEG blst_fp2_cneg
#define PL__F_INV blst_fp2_inverse
#define PL__F_ENDO g2_endo_x
#define PL__JAC_ADD_AFF blst_p2_add_or_double_affine
#define PL__JAC_ADD blst_p2_add_or_double
#define PL__JAC_FROM_AFF blst_p2_from_affine
#define PL__JAC_DBL blst_p2_double
#define PL__BETA_T blst_fp
#define PL__BETA_INIT fp_beta_g2
#define PL__S_LOAD scalar_load
#define PL__S_FOLD scalar_fold
#define PL__S_GLV_SPLIT glv_split
#define PL__G_NAME pl__msm_group_bls12_381_g2
#define PL__G_SMALL_BELOW 128
#define PL__G_INV_COST 10.0
#define PL__G_DEFAULT_GLV &g2_default_mode
#define PL__G_SMALL g2_small
#define PL__G_SMALL_BYTES pl__msm_g2_blst_scratch_bytes
#include "msm/msm_affine_impl.h"

/* ---- entry points --------------------------------------------------------- */

#define G1 (&pl__msm_group_bls12_381_g1)
#define G2 (&pl__msm_group_bls12_381_g2)
pl__msm_opts pl__msm_g1_default_opts(void)
{
    pl__msm_opts o = {(pl__glv_mode)atomic_load(&g1_default_mode), NULL};
    return o;
}

void pl__msm_g1_set_default_glv(pl__glv_mode mode)
{
    assert(mode != PL__GLV_TABLE); /* a table belongs to one point array */
    atomic_store(&g1_default_mode, mode == PL__GLV_TABLE ? PL__GLV_DEFAULT
                                                          : (int)mode);
}

pl__msm_opts pl__msm_g2_default_opts(void)
{
    pl__msm_opts o = {(pl__glv_mode)atomic_load(&g2_default_mode), NULL};
    return o;
}

void pl__msm_g2_set_default_glv(pl__glv_mode mode)
{
    assert(mode != PL__GLV_TABLE);
    atomic_store(&g2_default_mode, mode == PL__GLV_TABLE ? PL__GLV_DEFAULT_G2
                                                          : (int)mode);
}

uint64_t pl__msm_g1_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return pl__msm_run_bytes(G1, n, threads, &d);
}

uint64_t pl__msm_g1_opts_scratch_bytes(size_t n, unsigned threads,
                                       const pl__msm_opts *opts)
{
    return pl__msm_run_bytes(G1, n, threads, opts);
}

uint64_t pl__msm_g2_opts_scratch_bytes(size_t n, unsigned threads,
                                       const pl__msm_opts *opts)
{
    return pl__msm_run_bytes(G2, n, threads, opts);
}

uint64_t pl__msm_g2_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return pl__msm_run_bytes(G2, n, threads, &d);
}

unsigned pl__msm_g1_window(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return pl__msm_run_window(G1, n, threads, &d);
}

unsigned pl__msm_g1_opts_window(size_t n, unsigned threads,
                                const pl__msm_opts *opts)
{
    return pl__msm_run_window(G1, n, threads, opts);
}

unsigned pl__msm_g2_opts_window(size_t n, unsigned threads,
                                const pl__msm_opts *opts)
{
    return pl__msm_run_window(G2, n, threads, opts);
}

unsigned pl__msm_g2_window(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return pl__msm_run_window(G2, n, threads, &d);
}
uint64_t pl__msm_g1_witness_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return pl__msm_run_witness_bytes(G1, n, threads, &d);
}

uint64_t pl__msm_g1_witness_opts_scratch_bytes(size_t n, unsigned threads,
                                               const pl__msm_opts *opts)
{
    return pl__msm_run_witness_bytes(G1, n, threads, opts);
}

uint64_t pl__msm_g2_witness_opts_scratch_bytes(size_t n, unsigned threads,
                                               const pl__msm_opts *opts)
{
    return pl__msm_run_witness_bytes(G2, n, threads, opts);
}

uint64_t pl__msm_g2_witness_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return pl__msm_run_witness_bytes(G2, n, threads, &d);
}

pl_status pl__msm_g1_of_witness(blst_p1 *out, const uint8_t *points,
                                const uint8_t *scalars, size_t n, bool plain,
                                pl__pool *pool, pl_error *err)
{
    return plain ? pl__msm_g1(out, points, scalars, n, pool, err)
                 : pl__msm_g1_witness(out, points, scalars, n, pool, err);
}

pl_status pl__msm_g2_of_witness(blst_p2 *out, const uint8_t *points,
                                const uint8_t *scalars, size_t n, bool plain,
                                pl__pool *pool, pl_error *err)
{
    return plain ? pl__msm_g2(out, points, scalars, n, pool, err)
                 : pl__msm_g2_witness(out, points, scalars, n, pool, err);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

uint64_t pl__msm_g1_of_witness_scratch_bytes(size_t n, unsigned threads)
{
    return max_u64(pl__msm_g1_witness_scratch_bytes(n, threads),
                   pl__msm_g1_scratch_bytes(n, threads));
}

uint64_t pl__msm_g2_of_witness_scratch_bytes(size_t n, unsigned threads)
{
    return max_u64(pl__msm_g2_witness_scratch_bytes(n, threads),
                   pl__msm_g2_scratch_bytes(n, threads));
}

pl_status pl__msm_g1(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return pl__msm_run(G1, out, points, scalars, n, &d, pool, err);
}

pl_status pl__msm_g1_opts(blst_p1 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n,
                          const pl__msm_opts *opts, pl__pool *pool,
                          pl_error *err)
{
    return pl__msm_run(G1, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2_opts(blst_p2 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n,
                          const pl__msm_opts *opts, pl__pool *pool,
                          pl_error *err)
{
    return pl__msm_run(G2, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2(blst_p2 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return pl__msm_run(G2, out, points, scalars, n, &d, pool, err);
}

void pl__msm_g1_endo_table(uint8_t *out, const uint8_t *points, size_t n,
                           pl__pool *pool)
{
    pl__msm_run_endo_table(G1, out, points, n, pool);
}

void pl__msm_g2_endo_table(uint8_t *out, const uint8_t *points, size_t n,
                           pl__pool *pool)
{
    pl__msm_run_endo_table(G2, out, points, n, pool);
}

pl_status pl__msm_g1_witness(blst_p1 *out, const uint8_t *points,
                             const uint8_t *scalars, size_t n, pl__pool *pool,
                             pl_error *err)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return pl__msm_run_witness(G1, out, points, scalars, n, &d, pool, err);
}

pl_status pl__msm_g1_witness_opts(blst_p1 *out, const uint8_t *points,
                                  const uint8_t *scalars, size_t n,
                                  const pl__msm_opts *opts, pl__pool *pool,
                                  pl_error *err)
{
    return pl__msm_run_witness(G1, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2_witness_opts(blst_p2 *out, const uint8_t *points,
                                  const uint8_t *scalars, size_t n,
                                  const pl__msm_opts *opts, pl__pool *pool,
                                  pl_error *err)
{
    return pl__msm_run_witness(G2, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2_witness(blst_p2 *out, const uint8_t *points,
                             const uint8_t *scalars, size_t n, pl__pool *pool,
                             pl_error *err)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return pl__msm_run_witness(G2, out, points, scalars, n, &d, pool, err);
}
