/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MSM the prover calls (pl__msm_g1 / pl__msm_g2): Pippenger with
 * buckets in affine coordinates and batched inversion, about 5M + 1S per
 * bucket addition against blst's 8M + 2S, so it beats blst's own
 * Pippenger (msm_blst.c) on the same windows.  The per-window work lives
 * in msm_affine_impl.h, included below once per group; this file plans the
 * windows and the split over the pool, folds the scalars and combines the
 * tiles.  Small sums (group.small_below) go to msm_blst.c.
 *
 * Steps of one call:
 *  1. fold (parallel over point ranges): each scalar s (bit 255 dropped,
 *     reduced mod r) becomes min(s, r - s) with the sign kept in a bitmap,
 *     so folded scalars are < 2^254 and ceil(255 / c) Booth windows of c
 *     bits cover them (the top window's carry never spills).  A point at
 *     infinity gets scalar 0, so the tiles never look at it again.  This
 *     costs 32 bytes of scratch a point, done once rather than per window.
 *  2. tiles (parallel): a grid of nx point ranges times nwin windows; each
 *     tile fills its worker's 2^(c-1) buckets and returns sum k * B_k.
 *  3. Horner over the windows on the caller.
 * With GLV (msm.h) step 1 also splits each folded scalar into
 * two signed halves below 2^127 (glv_split), kept with their signs in the
 * same 32 bytes, and in PL__GLV_CALL mode writes phi(P_i) to the scratch;
 * the tiles then run over 2n halves with ceil(128 / c) windows: the same
 * bucket additions per point as 254-bit scalars (twice the points, half
 * the windows), but half the bucket sums, and tiles that share out more
 * evenly.
 * The grid comes from a cost model (plan), the same code that reports the
 * scratch size, so pl__msm_gX_scratch_bytes is exact: one accounted
 * allocation per call (folded scalars, sign bits, tile sums, and one
 * workspace per worker), freed before return.
 *
 * The witness MSM (pl__msm_gX_witness, for A, B1, B2 and C) runs the same
 * tiles over the scalars that are neither 0 nor 1 only:
 *  1. classify (parallel over K ranges of the scalars): count each range's
 *     big scalars (finite points) on the caller's stack; prefix sums give
 *     each range its slots, and m, the number of big scalars;
 *  2. one accounted allocation, sized for m (wplan);
 *  3. gather (parallel over the ranges, wit_range in msm_affine_impl.h):
 *     each range writes its big scalars' point indices (sign in the top
 *     bit) and folded scalars to its slots, and sums its 1-points pairwise
 *     in the worker's batch arrays;
 *  4. the tiles over the m gathered scalars, their points read in place
 *     through the indices, with the window chosen for m; then Horner, plus
 *     the K sums of 1-points.
 * Zero scalars cost a 32-byte read; dense scalars the classification pass
 * and 4 bytes of index a point.
 */
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/error.h"

#include <assert.h>
#include <stdatomic.h>
#include <string.h>

/* Largest worker workspace; buckets dominate it and grow 2x per window
 * bit: 8 MiB keeps G1 at c <= 17 and G2 at c <= 16. */
#define PL__MSM_MAX_WORKER_BYTES ((uint64_t)8 << 20)
/* Most additions per inversion (see batch_for).  G1 at 2^18 on one
 * worker (c = 15) of a 2-core AMD EPYC (Zen 5, shared), best of 3, two
 * rounds: 512 / 1024 / 2048 took 1.17-1.27 / 1.16-1.31 / 1.28-1.32 s, so
 * nothing to gain past 512, and 2048's batch (288 KiB of addends and
 * prefix products for G1) no longer sits in L2. */
#define PL__BATCH 1024u
/* Points parked while their bucket waits in the open batch, and Jacobian
 * spill slots for points that collide twice (see msm_affine_impl.h).  With
 * random scalars under 0.5% of the additions spill (G1, 2^16 and 2^18). */
#define PL__QUEUE 256u
#define PL__SPILL 256u
/* Segments of the bucket sum that run side by side: 2 * PL__SEGS
 * additions per batch. */
#define PL__SEGS (PL__BATCH / 2)
/* Points per fold task: a multiple of 64 so tasks own whole bitmap words. */
#define PL__FOLD_CHUNK 4096u

/* bucket flags, and the kind of a batched addition in dst[]'s top bits */
#define PL__FULL 1u
#define PL__BUSY 2u
#define PL__DBL (1u << 31)
#define PL__CANCEL (1u << 30)
#define PL__BUCKET_MASK (PL__CANCEL - 1)
/* the sign bit of a witness MSM's point index (see wit_range) */
#define PL__IDX_NEG (1u << 31)
/* Gathered points the tile prefetches ahead of use. */
#define PL__AHEAD 8u

static uint64_t round64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

/*
 * Additions that share one inversion, for a tile with nb buckets.  A wider
 * batch amortises the inversion (about 60 multiplications) better, but the
 * more buckets an open batch holds, the more points collide with it and
 * take the slower spill path: an eighth of the buckets keeps collisions
 * near 6%.
 */
static size_t batch_for(size_t nb, size_t max)
{
    size_t b = nb / 8;
    if (b < 8)
        b = 8;
    return b < max ? b : max;
}

/*
 * Segments of the bucket sum (see bucket_sum in msm_affine_impl.h) for
 * 2^(c-1) buckets.  S segments cost about 3S Jacobian additions and the
 * nb / S steps one inversion each, so the best S is near sqrt(nb): the
 * power of two just above it.
 */
static size_t segs_for(unsigned c, size_t max)
{
    size_t s = (size_t)1 << ((c - 1) / 2 + 1);
    if (s > ((size_t)1 << (c - 1)))
        s = (size_t)1 << (c - 1);
    return s < max ? s : max;
}

/* The signed digit of window [bit0, bit0 + c) of a folded scalar
 * (nlimbs little-endian limbs: 4, < 2^254; or a GLV half, 2, < 2^127), in
 * [-2^(c-1), 2^(c-1)]: Booth recoding reads the c bits and the bit below
 * them, so windows are independent. */
static inline int64_t booth_digit(const uint64_t *s, unsigned bit0,
                                  unsigned c, unsigned nlimbs)
{
    uint64_t raw;
    if (bit0 == 0) {
        raw = (s[0] << 1) & ((2ull << c) - 1);
    } else {
        unsigned p = bit0 - 1, limb = p / 64, sh = p % 64;
        raw = s[limb] >> sh;
        if (sh + c + 1 > 64 && limb + 1 < nlimbs)
            raw |= s[limb + 1] << (64 - sh);
        raw &= (2ull << c) - 1;
    }
    return (int64_t)((raw + 1) >> 1) - (int64_t)((raw >> c) << c);
}

/* ---- scalars ------------------------------------------------------------ */

static const uint64_t r_limbs[4] = {0xffffffff00000001, 0x53bda402fffe5bfe,
                                  0x3339d80809a1d805, 0x73eda753299d7d48};
static const uint64_t r_half[4] = {0x7fffffff80000000, 0xa9ded2017fff2dff,
                                       0x199cec0404d0ec02, 0x39f6d3a994cebea4};

/* a > b, 256-bit little-endian limbs */
static bool gt256(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] > b[i];
    return false;
}

/* out = a - b, for a >= b */
static void sub256(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t d = a[i] - b[i];
        uint64_t nb = (a[i] < b[i]) | (d < borrow);
        out[i] = d - borrow;
        borrow = nb;
    }
}

/* A scalar's class for the witness MSM, from scalar_load. */
#define PL__SCALAR_ZERO 0u
#define PL__SCALAR_ONE 1u
#define PL__SCALAR_BIG 2u

/* Loads a scalar as 4 limbs, bit 255 dropped and reduced mod r (< 2^255 <
 * 2r: one subtraction is enough), and returns its class. */
static inline unsigned scalar_load(uint64_t s[4], const uint8_t *bytes)
{
    memcpy(s, bytes, 32);
    s[3] &= ~(1ull << 63); /* blst reads 255 bits */
    if (!gt256(r_limbs, s))
        sub256(s, s, r_limbs);
    if ((s[1] | s[2] | s[3]) == 0 && s[0] <= 1)
        return (unsigned)s[0];
    return PL__SCALAR_BIG;
}

/* s = min(s, r - s) for a reduced s; true when it took r - s. */
static inline bool scalar_fold(uint64_t s[4])
{
    bool neg = gt256(s, r_half);
    if (neg)
        sub256(s, r_limbs, s);
    return neg;
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

/* All-zero bytes: the zkey's point at infinity. */
static inline bool point_is_inf(const uint8_t *pt, size_t bytes)
{
    uint64_t any = 0, w;
    for (size_t o = 0; o < bytes; o += 8) {
        memcpy(&w, pt + o, 8);
        any |= w;
    }
    return any == 0;
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
#include "msm/msm_affine_impl.h"

/* ---- the two groups behind one interface --------------------------------- */

typedef struct {
    size_t point_bytes; /* affine, as in the zkey */
    /* Fewer points than this go to msm_blst.c.  Measured on one worker of
     * a 2-core AMD EPYC (Zen 5, shared; CPU time, best of many runs), the
     * speed of this MSM over blst's tiles: G1 0.95 / 1.04 / 1.18x at
     * n = 256 / 512 / 1024, G2 0.91 / 1.09 / 1.23x at n = 64 / 128 / 256. */
    size_t small_below;
    size_t sum_bytes;   /* blst_p1 / blst_p2 (Jacobian) */
    /* one bucket of the bucket sum (two batched affine additions and a
     * share of Jacobian ones) in units of one batched affine addition */
    double sum_cost;
    uint64_t (*worker_bytes)(unsigned c);
    void (*tile)(uint8_t *work, void *out, const uint8_t *points,
                 const uint8_t *endo, bool glv, const uint64_t *fold,
                 const uint64_t *neg, const uint32_t *idx, size_t lo,
                 size_t hi, unsigned bit0, unsigned c);
    size_t (*wit_range)(uint8_t *work, void *out, const uint8_t *points,
                        const uint8_t *scalars, size_t lo, size_t hi,
                        uint32_t *idx, uint64_t *fold, bool glv, unsigned c);
    void (*add)(void *acc, const void *p);
    void (*dbl)(void *acc);
    pl_status (*small)(void *out, const uint8_t *points, const uint8_t *scalars,
                       size_t n, pl__pool *pool, pl_error *err);
    uint64_t (*small_bytes)(size_t n, unsigned threads);
    /* GLV (msm.h): the cube root of unity in Fp (standard form) with
     * phi(P) = [lambda] P, and phi of one affine point (zkey bytes in,
     * blst's layout out) */
    const uint64_t *beta;
    void (*endo)(uint8_t *out, const uint8_t *in, const blst_fp *beta);
} group;

static void g1_endo(uint8_t *out, const uint8_t *in, const blst_fp *beta)
{
    blst_p1_affine p;
    memcpy(&p, in, sizeof(p));
    g1_endo_x(&p.x, beta);
    memcpy(out, &p, sizeof(p));
}

static void g2_endo(uint8_t *out, const uint8_t *in, const blst_fp *beta)
{
    blst_p2_affine p;
    memcpy(&p, in, sizeof(p));
    g2_endo_x(&p.x, beta);
    memcpy(out, &p, sizeof(p));
}

static uint64_t g1_worker_bytes(unsigned c) { return ws_carve_g1(NULL, NULL, c); }
static uint64_t g2_worker_bytes(unsigned c) { return ws_carve_g2(NULL, NULL, c); }

static void g1_tile(uint8_t *work, void *out, const uint8_t *points,
                    const uint8_t *endo, bool glv, const uint64_t *fold,
                    const uint64_t *neg, const uint32_t *idx, size_t lo,
                    size_t hi, unsigned bit0, unsigned c)
{
    ws_g1 ws = {0};
    ws_carve_g1(&ws, work, c);
    ws.endo = endo;
    blst_fp_from_uint64(&ws.beta, glv_beta);
    tile_g1(&ws, out, points, fold, neg, idx, glv, lo, hi, bit0, c);
}

static void g2_tile(uint8_t *work, void *out, const uint8_t *points,
                    const uint8_t *endo, bool glv, const uint64_t *fold,
                    const uint64_t *neg, const uint32_t *idx, size_t lo,
                    size_t hi, unsigned bit0, unsigned c)
{
    ws_g2 ws = {0};
    ws_carve_g2(&ws, work, c);
    ws.endo = endo;
    blst_fp_from_uint64(&ws.beta, glv_beta_g2);
    tile_g2(&ws, out, points, fold, neg, idx, glv, lo, hi, bit0, c);
}

static size_t g1_wit_range(uint8_t *work, void *out, const uint8_t *points,
                           const uint8_t *scalars, size_t lo, size_t hi,
                           uint32_t *idx, uint64_t *fold, bool glv, unsigned c)
{
    ws_g1 ws = {0};
    ws_carve_g1(&ws, work, c);
    return wit_range_g1(&ws, out, points, scalars, lo, hi, idx, fold, glv);
}

static size_t g2_wit_range(uint8_t *work, void *out, const uint8_t *points,
                           const uint8_t *scalars, size_t lo, size_t hi,
                           uint32_t *idx, uint64_t *fold, bool glv, unsigned c)
{
    ws_g2 ws = {0};
    ws_carve_g2(&ws, work, c);
    return wit_range_g2(&ws, out, points, scalars, lo, hi, idx, fold, glv);
}

static void g1_add(void *acc, const void *p) { blst_p1_add_or_double(acc, acc, p); }
static void g1_dbl(void *acc) { blst_p1_double(acc, acc); }
static void g2_add(void *acc, const void *p) { blst_p2_add_or_double(acc, acc, p); }
static void g2_dbl(void *acc) { blst_p2_double(acc, acc); }

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

static const group group_g1 = {96, 512, sizeof(blst_p1), 2.3, g1_worker_bytes,
                                g1_tile, g1_wit_range, g1_add, g1_dbl,
                                g1_small, pl__msm_g1_blst_scratch_bytes,
                                glv_beta, g1_endo};
static const group group_g2 = {192, 128, sizeof(blst_p2), 2.3, g2_worker_bytes,
                                g2_tile, g2_wit_range, g2_add, g2_dbl,
                                g2_small, pl__msm_g2_blst_scratch_bytes,
                                glv_beta_g2, g2_endo};

/* ---- the plan ------------------------------------------------------------- */

typedef struct {
    bool small;            /* handed to msm_blst.c */
    pl__glv_mode glv;
    unsigned c;            /* window bits */
    size_t nwin, nx;       /* windows, point ranges */
    unsigned workers;
    uint64_t fold_bytes;   /* n folded scalars (or GLV halves), 32 bytes each */
    uint64_t neg_bytes;    /* their sign bits (none with GLV) */
    uint64_t endo_bytes;   /* PL__GLV_CALL: phi of every point */
    uint64_t sums_bytes;   /* nx * nwin tile sums */
    uint64_t worker_bytes; /* one worker's workspace */
    uint64_t total_bytes;  /* the one allocation */
} plan;

/* The most point ranges the search tries for n points: 4 per worker, each
 * of 64 points or more (one range whatever n). */
static size_t max_ranges(size_t n, unsigned threads)
{
    size_t nx = n / 64, cap = 4 * (size_t)threads;
    if (nx > cap)
        nx = cap;
    return nx ? nx : 1;
}

/* Windows of c bits for folded scalars (< 2^254: the Booth carry out of
 * the top window needs bit 254 covered) or GLV halves (< 2^127). */
static size_t nwin_for(unsigned c, bool glv)
{
    unsigned bits = glv ? 128 : 255;
    return (bits + c - 1) / c;
}

/* Whether a sum runs with GLV, and over how many points (halves). */
static bool glv_on(const group *gr, pl__glv_mode mode)
{
    return gr->beta && mode != PL__GLV_OFF;
}

/*
 * Picks the window c <= c_max and the number of point ranges nx that
 * minimise the work of the busiest worker, for n >= 1 points (GLV halves
 * with glv).  A tile of m points costs m batched affine additions (plus a
 * share of the inversion, ~60 multiplications over the batch; with
 * PL__GLV_LOAD half the loads also pay phi's multiplication, ~1/6 of an
 * addition) and 2^(c-1) buckets of the bucket sum (sum_cost additions
 * each); T workers take ceil(tiles / T) tiles each.
 */
static void search(const group *gr, plan *best, size_t n, unsigned threads,
                   unsigned c_max, pl__glv_mode mode)
{
    double best_cost = 0;
    bool glv = glv_on(gr, mode);
    best->nx = 0;
    for (unsigned c = 4; c <= c_max; c++) {
        uint64_t wb = gr->worker_bytes(c);
        if (wb > PL__MSM_MAX_WORKER_BYTES)
            break;
        size_t nb = (size_t)1 << (c - 1);
        size_t nwin = nwin_for(c, glv);
        double add = 1.0 + 10.0 / (double)batch_for(nb, PL__BATCH) +
                     (glv && mode == PL__GLV_LOAD ? 1.0 / 12 : 0);
        size_t max_nx = max_ranges(n, threads);
        for (size_t nx = 1; nx <= max_nx; nx++) {
            size_t tiles = nx * nwin;
            size_t rounds = (tiles + threads - 1) / threads;
            double tile = (double)((n + nx - 1) / nx) * add +
                          gr->sum_cost * (double)nb;
            double cost = (double)rounds * tile;
            if (best->nx == 0 || cost < best_cost) {
                best_cost = cost;
                best->c = c;
                best->nwin = nwin;
                best->nx = nx;
            }
        }
    }
}

/* Point references (tile.h's queue) are 2 i + (GLV half): sums of 2^31
 * points or more go to msm_blst.c. */
#define PL__MAX_N ((size_t)PL__IDX_NEG - 1)

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

static plan plan_for(const group *gr, size_t n, unsigned threads,
                     const pl__msm_opts *o)
{
    plan best = {0};
    if (threads == 0)
        threads = 1;
    best.workers = threads;
    if (n < gr->small_below || n > PL__MAX_N) {
        best.small = true;
        best.total_bytes = gr->small_bytes(n, threads);
        return best;
    }
    bool glv = glv_on(gr, o->glv);
    best.glv = glv ? o->glv : PL__GLV_OFF;
    search(gr, &best, glv ? 2 * n : n, threads, 20, best.glv);
    best.fold_bytes = round64((uint64_t)n * 32);
    best.neg_bytes = glv ? 0 : round64(((uint64_t)n + 63) / 64 * 8);
    best.endo_bytes = best.glv == PL__GLV_CALL
                          ? round64((uint64_t)n * gr->point_bytes)
                          : 0;
    best.sums_bytes = round64((uint64_t)best.nx * best.nwin * gr->sum_bytes);
    best.worker_bytes = gr->worker_bytes(best.c);
    best.total_bytes = best.fold_bytes + best.neg_bytes + best.endo_bytes +
                       best.sums_bytes + best.worker_bytes * threads;
    return best;
}

uint64_t pl__msm_g1_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return plan_for(&group_g1, n, threads, &d).total_bytes;
}

uint64_t pl__msm_g1_opts_scratch_bytes(size_t n, unsigned threads,
                                       const pl__msm_opts *opts)
{
    return plan_for(&group_g1, n, threads, opts).total_bytes;
}

uint64_t pl__msm_g2_opts_scratch_bytes(size_t n, unsigned threads,
                                       const pl__msm_opts *opts)
{
    return plan_for(&group_g2, n, threads, opts).total_bytes;
}

uint64_t pl__msm_g2_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return plan_for(&group_g2, n, threads, &d).total_bytes;
}

unsigned pl__msm_g1_window(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return plan_for(&group_g1, n, threads, &d).c;
}

unsigned pl__msm_g1_opts_window(size_t n, unsigned threads,
                                const pl__msm_opts *opts)
{
    return plan_for(&group_g1, n, threads, opts).c;
}

unsigned pl__msm_g2_opts_window(size_t n, unsigned threads,
                                const pl__msm_opts *opts)
{
    return plan_for(&group_g2, n, threads, opts).c;
}

unsigned pl__msm_g2_window(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return plan_for(&group_g2, n, threads, &d).c;
}

/*
 * The witness MSM's plan.  The scalars are classified in K ranges (one
 * task each): K = ceil(n / PL__WIT_RANGE), at most 16 per worker and
 * PL__WIT_MAX_RANGES, so the per-range counts live on the caller's stack.
 * The m "big" scalars (neither 0 nor 1, point finite) get the Pippenger of
 * plan_for, with its window capped at c_cap, the window the same search
 * picks for all n points: fewer points never want wider buckets, and the
 * cap makes the scratch for any m <= n fit the bound reported in advance.
 * The 1-points are summed in each worker's workspace (its batch arrays),
 * so a call with m = 0 still takes one workspace of window 4 per worker.
 */
#define PL__WIT_RANGE 2048u
#define PL__WIT_MAX_RANGES 1024u
/* Point indices keep the sign in their top bit: witness MSMs of 2^31
 * points or more take the plain path. */
#define PL__WIT_MAX_N PL__MAX_N

typedef struct {
    plan p;                  /* the Pippenger over the big scalars */
    size_t ranges;           /* K */
    uint64_t range_sums_bytes;
    uint64_t idx_bytes;      /* m indices, 4 bytes each */
    uint64_t total_bytes;    /* the one allocation */
} wplan;

static size_t wit_ranges(size_t n, unsigned threads)
{
    size_t k = (n + PL__WIT_RANGE - 1) / PL__WIT_RANGE;
    if (k > 16 * (size_t)threads)
        k = 16 * (size_t)threads;
    if (k > PL__WIT_MAX_RANGES)
        k = PL__WIT_MAX_RANGES;
    return k ? k : 1;
}

/* The window cap for n >= 1 points. */
static unsigned wit_c_cap(const group *gr, size_t n, unsigned threads,
                          pl__glv_mode glv)
{
    plan p = {0};
    search(gr, &p, glv != PL__GLV_OFF ? 2 * n : n, threads, 20, glv);
    return p.c;
}

/* The plan for m big scalars out of n >= 1, with window cap c_cap; m = 0
 * means no Pippenger, and `ones` whether any 1-point needs a workspace.
 * glv is the mode the sum runs in. */
static wplan wplan_for(const group *gr, size_t n, size_t m, bool ones,
                       unsigned threads, unsigned c_cap, pl__glv_mode glv)
{
    wplan w = {0};
    w.p.workers = threads;
    w.p.glv = glv;
    w.ranges = wit_ranges(n, threads);
    w.range_sums_bytes = round64((uint64_t)w.ranges * gr->sum_bytes);
    if (m > 0) {
        search(gr, &w.p, glv != PL__GLV_OFF ? 2 * m : m, threads, c_cap, glv);
        w.idx_bytes = round64((uint64_t)m * 4);
        w.p.fold_bytes = round64((uint64_t)m * 32);
        w.p.endo_bytes = glv == PL__GLV_CALL
                             ? round64((uint64_t)n * gr->point_bytes)
                             : 0;
        w.p.sums_bytes =
            round64((uint64_t)w.p.nx * w.p.nwin * gr->sum_bytes);
    } else {
        w.p.c = 4; /* the smallest workspace has the batch arrays too */
    }
    if (m > 0 || ones)
        w.p.worker_bytes = gr->worker_bytes(w.p.c);
    w.total_bytes = w.range_sums_bytes + w.idx_bytes + w.p.fold_bytes +
                    w.p.endo_bytes + w.p.sums_bytes +
                    w.p.worker_bytes * threads;
    return w;
}

/* The mode a sum of group gr runs in under opts. */
static pl__glv_mode mode_of(const group *gr, const pl__msm_opts *o)
{
    return glv_on(gr, o->glv) ? o->glv : PL__GLV_OFF;
}

/*
 * The most any witness MSM of n points allocates: every term of wplan_for
 * at its largest for m <= n.  Indices and folded scalars grow with m; the
 * tile sums are at most max_ranges(n) * nwin(c) for some c <= c_cap; the
 * workspace grows with c, and c <= c_cap.
 */
static uint64_t wit_bound(const group *gr, size_t n, unsigned threads,
                          const pl__msm_opts *o)
{
    if (threads == 0)
        threads = 1;
    if (n == 0)
        return 0;
    if (n > PL__WIT_MAX_N)
        return plan_for(gr, n, threads, o).total_bytes;
    pl__glv_mode glv = mode_of(gr, o);
    unsigned c_cap = wit_c_cap(gr, n, threads, glv);
    size_t pts = glv != PL__GLV_OFF ? 2 * n : n;
    uint64_t sums = 0;
    for (unsigned c = 4; c <= c_cap; c++) {
        uint64_t b = round64((uint64_t)max_ranges(pts, threads) *
                             nwin_for(c, glv != PL__GLV_OFF) * gr->sum_bytes);
        if (b > sums)
            sums = b;
    }
    uint64_t endo = glv == PL__GLV_CALL
                        ? round64((uint64_t)n * gr->point_bytes)
                        : 0;
    return round64((uint64_t)wit_ranges(n, threads) * gr->sum_bytes) +
           round64((uint64_t)n * 4) + round64((uint64_t)n * 32) + endo +
           sums + gr->worker_bytes(c_cap) * threads;
}

uint64_t pl__msm_g1_witness_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return wit_bound(&group_g1, n, threads, &d);
}

uint64_t pl__msm_g1_witness_opts_scratch_bytes(size_t n, unsigned threads,
                                               const pl__msm_opts *opts)
{
    return wit_bound(&group_g1, n, threads, opts);
}

uint64_t pl__msm_g2_witness_opts_scratch_bytes(size_t n, unsigned threads,
                                               const pl__msm_opts *opts)
{
    return wit_bound(&group_g2, n, threads, opts);
}

uint64_t pl__msm_g2_witness_scratch_bytes(size_t n, unsigned threads)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return wit_bound(&group_g2, n, threads, &d);
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

/* ---- the sum -------------------------------------------------------------- */

typedef struct {
    const group *gr;
    const plan *p;
    const uint8_t *points, *scalars;
    size_t n;            /* points; the tiles take 2 n GLV halves */
    uint64_t *fold, *neg;
    const uint32_t *idx; /* witness MSM: the big scalars' points, else NULL */
    const uint8_t *endo; /* GLV: phi's table, NULL for PL__GLV_LOAD */
    uint8_t *table;      /* PL__GLV_CALL: endo, to fill in fold_task */
    uint8_t *sums, *work;
} msm_job;

static void fold_task(void *ctx, size_t task, unsigned worker)
{
    msm_job *job = ctx;
    size_t lo = task * PL__FOLD_CHUNK, hi = lo + PL__FOLD_CHUNK;
    bool glv = job->p->glv != PL__GLV_OFF;
    blst_fp beta;
    if (glv)
        blst_fp_from_uint64(&beta, job->gr->beta);
    if (hi > job->n)
        hi = job->n;
    uint64_t signs = 0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t *s = job->fold + 4 * i;
        const uint8_t *pt = job->points + i * job->gr->point_bytes;
        scalar_load(s, job->scalars + 32 * i);
        bool neg = scalar_fold(s);
        if (point_is_inf(pt, job->gr->point_bytes)) {
            memset(s, 0, 32);
            neg = false;
        } else if (glv) {
            glv_split(s, s, neg);
            if (job->table)
                job->gr->endo(job->table + i * job->gr->point_bytes, pt,
                              &beta);
        }
        if (glv)
            continue;
        signs |= (uint64_t)neg << (i % 64);
        if (i % 64 == 63 || i + 1 == hi) {
            job->neg[i / 64] = signs;
            signs = 0;
        }
    }
}

static void tile_task(void *ctx, size_t task, unsigned worker)
{
    msm_job *job = ctx;
    const plan *p = job->p;
    bool glv = p->glv != PL__GLV_OFF;
    size_t pts = glv ? 2 * job->n : job->n;
    size_t x = task % p->nx, y = task / p->nx;
    size_t lo = pts * x / p->nx, hi = pts * (x + 1) / p->nx;
    job->gr->tile(job->work + worker * p->worker_bytes,
                  job->sums + task * job->gr->sum_bytes, job->points,
                  job->endo, glv, job->fold, job->neg, job->idx, lo, hi,
                  (unsigned)(y * p->c), p->c);
}

/* out += the tiles' sums, Horner over the windows, top row first; out is
 * doubled c times per row, so it must start at infinity. */
static void combine_tiles(const group *gr, void *out, const plan *p,
                          const uint8_t *sums)
{
    for (size_t y = p->nwin; y-- > 0;) {
        if (y + 1 < p->nwin)
            for (size_t i = 0; i < p->c; i++)
                gr->dbl(out);
        for (size_t x = 0; x < p->nx; x++)
            gr->add(out, sums + (y * p->nx + x) * gr->sum_bytes);
    }
}

static pl_status msm(const group *gr, void *out, const uint8_t *points,
                     const uint8_t *scalars, size_t n, const pl__msm_opts *o,
                     pl__pool *pool, pl_error *err)
{
    plan p = plan_for(gr, n, pl__pool_size(pool), o);
    if (p.small)
        return gr->small(out, points, scalars, n, pool, err);
    memset(out, 0, gr->sum_bytes); /* Z = 0: the point at infinity */
    uint8_t *scratch = pl__alloc(PL_BUF_MSM_SCRATCH, p.total_bytes, err);
    if (!scratch)
        return PL_ENOMEM; /* err was filled by pl__alloc */
    msm_job job = {.gr = gr, .p = &p, .points = points, .scalars = scalars,
                   .n = n};
    job.fold = (uint64_t *)scratch;
    job.neg = (uint64_t *)(scratch + p.fold_bytes);
    if (p.glv == PL__GLV_CALL)
        job.endo = job.table = scratch + p.fold_bytes + p.neg_bytes;
    else if (p.glv == PL__GLV_TABLE)
        job.endo = o->endo;
    job.sums = scratch + p.fold_bytes + p.neg_bytes + p.endo_bytes;
    job.work = job.sums + p.sums_bytes;
    pl__pool_run(pool, (n + PL__FOLD_CHUNK - 1) / PL__FOLD_CHUNK, fold_task, &job);
    pl__pool_run(pool, p.nx * p.nwin, tile_task, &job);
    combine_tiles(gr, out, &p, job.sums);
    pl__free(scratch);
    return PL_OK;
}

pl_status pl__msm_g1(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return msm(&group_g1, out, points, scalars, n, &d, pool, err);
}

pl_status pl__msm_g1_opts(blst_p1 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n,
                          const pl__msm_opts *opts, pl__pool *pool,
                          pl_error *err)
{
    return msm(&group_g1, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2_opts(blst_p2 *out, const uint8_t *points,
                          const uint8_t *scalars, size_t n,
                          const pl__msm_opts *opts, pl__pool *pool,
                          pl_error *err)
{
    return msm(&group_g2, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2(blst_p2 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return msm(&group_g2, out, points, scalars, n, &d, pool, err);
}

typedef struct {
    const group *gr;
    const uint8_t *points;
    uint8_t *out;
    size_t n;
} endo_job;

static void endo_task(void *ctx, size_t task, unsigned worker)
{
    endo_job *job = ctx;
    size_t lo = task * PL__FOLD_CHUNK, hi = lo + PL__FOLD_CHUNK;
    size_t pb = job->gr->point_bytes;
    blst_fp beta;
    blst_fp_from_uint64(&beta, job->gr->beta);
    if (hi > job->n)
        hi = job->n;
    for (size_t i = lo; i < hi; i++)
        job->gr->endo(job->out + pb * i, job->points + pb * i, &beta);
}

static void endo_table(const group *gr, uint8_t *out, const uint8_t *points,
                       size_t n, pl__pool *pool)
{
    endo_job job = {gr, points, out, n};
    pl__pool_run(pool, (n + PL__FOLD_CHUNK - 1) / PL__FOLD_CHUNK, endo_task,
                 &job);
}

void pl__msm_g1_endo_table(uint8_t *out, const uint8_t *points, size_t n,
                           pl__pool *pool)
{
    endo_table(&group_g1, out, points, n, pool);
}

void pl__msm_g2_endo_table(uint8_t *out, const uint8_t *points, size_t n,
                           pl__pool *pool)
{
    endo_table(&group_g2, out, points, n, pool);
}

/* ---- the witness MSM ------------------------------------------------------ */

typedef struct {
    const group *gr;
    const uint8_t *points, *scalars;
    size_t n, ranges;
    uint32_t *big, *ones;   /* per range: big scalars, 1-scalars */
    uint32_t *offset;       /* per range: its first slot in idx / fold */
    uint32_t *idx;
    uint64_t *fold;
    uint8_t *range_sums, *work;
    uint64_t worker_bytes;
    unsigned c;             /* the workspace's window */
    pl__glv_mode glv;
    uint8_t *table;         /* PL__GLV_CALL: phi of the big scalars' points */
} wit_job;

static void range_of(const wit_job *job, size_t task, size_t *lo, size_t *hi)
{
    *lo = job->n * task / job->ranges;
    *hi = job->n * (task + 1) / job->ranges;
}

/* Counts a range's big scalars (finite points only, as wit_range keeps
 * them) and its 1-scalars; reads the points of big scalars only. */
static void classify_task(void *ctx, size_t task, unsigned worker)
{
    wit_job *job = ctx;
    size_t lo, hi, big = 0, ones = 0;
    range_of(job, task, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        uint64_t s[4];
        unsigned kind = scalar_load(s, job->scalars + 32 * i);
        if (kind == PL__SCALAR_ONE)
            ones++;
        else if (kind == PL__SCALAR_BIG &&
                 !point_is_inf(job->points + i * job->gr->point_bytes,
                               job->gr->point_bytes))
            big++;
    }
    job->big[task] = (uint32_t)big;
    job->ones[task] = (uint32_t)ones;
}

static void gather_task(void *ctx, size_t task, unsigned worker)
{
    wit_job *job = ctx;
    size_t lo, hi, at = job->offset[task];
    range_of(job, task, &lo, &hi);
    size_t big = job->gr->wit_range(
        job->work + worker * job->worker_bytes,
        job->range_sums + task * job->gr->sum_bytes, job->points, job->scalars,
        lo, hi, job->idx + at, job->fold + 4 * at, job->glv != PL__GLV_OFF,
        job->c);
    assert(big == job->big[task]);
    if (job->table) {
        size_t pb = job->gr->point_bytes;
        blst_fp beta;
        blst_fp_from_uint64(&beta, job->gr->beta);
        for (size_t j = at; j < at + big; j++) {
            size_t i = job->idx[j];
            job->gr->endo(job->table + i * pb, job->points + i * pb, &beta);
        }
    }
}

static pl_status msm_witness(const group *gr, void *out, const uint8_t *points,
                             const uint8_t *scalars, size_t n,
                             const pl__msm_opts *o, pl__pool *pool,
                             pl_error *err)
{
    unsigned threads = pl__pool_size(pool);
    if (n > PL__WIT_MAX_N)
        return msm(gr, out, points, scalars, n, o, pool, err);
    memset(out, 0, gr->sum_bytes); /* Z = 0: the point at infinity */
    if (n == 0)
        return PL_OK;
    uint32_t big[PL__WIT_MAX_RANGES], ones[PL__WIT_MAX_RANGES];
    wit_job job = {.gr = gr, .points = points, .scalars = scalars, .n = n,
                   .ranges = wit_ranges(n, threads), .big = big, .ones = ones};
    pl__pool_run(pool, job.ranges, classify_task, &job);
    /* the counts become offsets in place: big[] is still needed by the
     * assertion in gather_task, so offsets go into ones[] */
    size_t m = 0, any_ones = 0;
    for (size_t r = 0; r < job.ranges; r++) {
        any_ones |= ones[r];
        ones[r] = (uint32_t)m;
        m += big[r];
    }
    job.offset = ones;
    if (m == 0 && !any_ones)
        return PL_OK;
    pl__glv_mode glv = mode_of(gr, o);
    wplan w = wplan_for(gr, n, m, any_ones != 0, threads,
                        wit_c_cap(gr, n, threads, glv), glv);
    uint8_t *scratch = pl__alloc(PL_BUF_MSM_SCRATCH, w.total_bytes, err);
    if (!scratch)
        return PL_ENOMEM; /* err was filled by pl__alloc */
    job.range_sums = scratch;
    job.idx = (uint32_t *)(scratch + w.range_sums_bytes);
    job.fold = (uint64_t *)((uint8_t *)job.idx + w.idx_bytes);
    uint8_t *table = (uint8_t *)job.fold + w.p.fold_bytes;
    uint8_t *sums = table + w.p.endo_bytes;
    job.work = sums + w.p.sums_bytes;
    job.worker_bytes = w.p.worker_bytes;
    job.c = w.p.c;
    job.glv = m > 0 ? glv : PL__GLV_OFF;
    if (w.p.endo_bytes)
        job.table = table;
    pl__pool_run(pool, job.ranges, gather_task, &job);
    if (m > 0) {
        msm_job tiles = {.gr = gr, .p = &w.p, .points = points, .n = m,
                         .fold = job.fold, .idx = job.idx, .sums = sums,
                         .work = job.work};
        if (glv == PL__GLV_CALL)
            tiles.endo = table;
        else if (glv == PL__GLV_TABLE)
            tiles.endo = o->endo;
        pl__pool_run(pool, w.p.nx * w.p.nwin, tile_task, &tiles);
        combine_tiles(gr, out, &w.p, sums);
    }
    for (size_t r = 0; r < job.ranges; r++)
        gr->add(out, job.range_sums + r * gr->sum_bytes);
    pl__free(scratch);
    return PL_OK;
}

pl_status pl__msm_g1_witness(blst_p1 *out, const uint8_t *points,
                             const uint8_t *scalars, size_t n, pl__pool *pool,
                             pl_error *err)
{
    pl__msm_opts d = pl__msm_g1_default_opts();
    return msm_witness(&group_g1, out, points, scalars, n, &d, pool, err);
}

pl_status pl__msm_g1_witness_opts(blst_p1 *out, const uint8_t *points,
                                  const uint8_t *scalars, size_t n,
                                  const pl__msm_opts *opts, pl__pool *pool,
                                  pl_error *err)
{
    return msm_witness(&group_g1, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2_witness_opts(blst_p2 *out, const uint8_t *points,
                                  const uint8_t *scalars, size_t n,
                                  const pl__msm_opts *opts, pl__pool *pool,
                                  pl_error *err)
{
    return msm_witness(&group_g2, out, points, scalars, n, opts, pool, err);
}

pl_status pl__msm_g2_witness(blst_p2 *out, const uint8_t *points,
                             const uint8_t *scalars, size_t n, pl__pool *pool,
                             pl_error *err)
{
    pl__msm_opts d = pl__msm_g2_default_opts();
    return msm_witness(&group_g2, out, points, scalars, n, &d, pool, err);
}
