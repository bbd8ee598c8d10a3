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
 * The grid comes from a cost model (plan), the same code that reports the
 * scratch size, so pl__msm_gX_scratch_bytes is exact: one accounted
 * allocation per call (folded scalars, sign bits, tile sums, and one
 * workspace per worker), freed before return.
 */
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/error.h"

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

/* The signed digit of window [bit0, bit0 + c) of a folded scalar (4
 * little-endian limbs, < 2^254), in [-2^(c-1), 2^(c-1)]: Booth recoding
 * reads the c bits and the bit below them, so windows are independent. */
static inline int64_t booth_digit(const uint64_t *s, unsigned bit0,
                                      unsigned c)
{
    uint64_t raw;
    if (bit0 == 0) {
        raw = (s[0] << 1) & ((2ull << c) - 1);
    } else {
        unsigned p = bit0 - 1, limb = p / 64, sh = p % 64;
        raw = s[limb] >> sh;
        if (sh + c + 1 > 64 && limb < 3)
            raw |= s[limb + 1] << (64 - sh);
        raw &= (2ull << c) - 1;
    }
    return (int64_t)((raw + 1) >> 1) - (int64_t)((raw >> c) << c);
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
#define PL__JAC_ADD_AFF blst_p1_add_or_double_affine
#define PL__JAC_ADD blst_p1_add_or_double
#define PL__JAC_FROM_AFF blst_p1_from_affine
#define PL__JAC_DBL blst_p1_double
#include "msm/msm_affine_impl.h"
#undef PL__SFX
#undef PL__F
#undef PL__AFF
#undef PL__JAC
#undef PL__F_ONE
#undef PL__F_ADD
#undef PL__F_SUB
#undef PL__F_MUL
#undef PL__F_SQR
#undef PL__F_MUL3
#undef PL__F_CNEG
#undef PL__F_INV
#undef PL__JAC_ADD_AFF
#undef PL__JAC_ADD
#undef PL__JAC_FROM_AFF
#undef PL__JAC_DBL

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
#define PL__JAC_ADD_AFF blst_p2_add_or_double_affine
#define PL__JAC_ADD blst_p2_add_or_double
#define PL__JAC_FROM_AFF blst_p2_from_affine
#define PL__JAC_DBL blst_p2_double
#include "msm/msm_affine_impl.h"
#undef PL__SFX
#undef PL__F
#undef PL__AFF
#undef PL__JAC
#undef PL__F_ONE
#undef PL__F_ADD
#undef PL__F_SUB
#undef PL__F_MUL
#undef PL__F_SQR
#undef PL__F_MUL3
#undef PL__F_CNEG
#undef PL__F_INV
#undef PL__JAC_ADD_AFF
#undef PL__JAC_ADD
#undef PL__JAC_FROM_AFF
#undef PL__JAC_DBL

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
                 const uint64_t *fold, const uint64_t *neg, size_t lo,
                 size_t hi, unsigned bit0, unsigned c);
    void (*add)(void *acc, const void *p);
    void (*dbl)(void *acc);
    pl_status (*small)(void *out, const uint8_t *points, const uint8_t *scalars,
                       size_t n, pl__pool *pool, pl_error *err);
    uint64_t (*small_bytes)(size_t n, unsigned threads);
} group;

static uint64_t g1_worker_bytes(unsigned c) { return ws_carve_g1(NULL, NULL, c); }
static uint64_t g2_worker_bytes(unsigned c) { return ws_carve_g2(NULL, NULL, c); }

static void g1_tile(uint8_t *work, void *out, const uint8_t *points,
                    const uint64_t *fold, const uint64_t *neg, size_t lo,
                    size_t hi, unsigned bit0, unsigned c)
{
    ws_g1 ws = {0};
    ws_carve_g1(&ws, work, c);
    tile_g1(&ws, out, points, fold, neg, lo, hi, bit0, c);
}

static void g2_tile(uint8_t *work, void *out, const uint8_t *points,
                    const uint64_t *fold, const uint64_t *neg, size_t lo,
                    size_t hi, unsigned bit0, unsigned c)
{
    ws_g2 ws = {0};
    ws_carve_g2(&ws, work, c);
    tile_g2(&ws, out, points, fold, neg, lo, hi, bit0, c);
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
                                g1_tile, g1_add, g1_dbl, g1_small,
                                pl__msm_g1_blst_scratch_bytes};
static const group group_g2 = {192, 128, sizeof(blst_p2), 2.3, g2_worker_bytes,
                                g2_tile, g2_add, g2_dbl, g2_small,
                                pl__msm_g2_blst_scratch_bytes};

/* ---- the plan ------------------------------------------------------------- */

typedef struct {
    bool small;            /* handed to msm_blst.c */
    unsigned c;            /* window bits */
    size_t nwin, nx;       /* windows, point ranges */
    unsigned workers;
    uint64_t fold_bytes;   /* n folded scalars, 32 bytes each */
    uint64_t neg_bytes;    /* their sign bits */
    uint64_t sums_bytes;   /* nx * nwin tile sums */
    uint64_t worker_bytes; /* one worker's workspace */
    uint64_t total_bytes;  /* the one allocation */
} plan;

/*
 * Picks the window c and the number of point ranges nx that minimise the
 * work of the busiest worker.  A tile of m points costs m batched affine
 * additions (plus a share of the inversion, ~60 multiplications over the
 * batch) and 2^(c-1) buckets of the bucket sum (sum_cost additions each);
 * T workers take ceil(tiles / T) tiles each.
 */
static plan plan_for(const group *gr, size_t n, unsigned threads)
{
    plan best = {0};
    if (threads == 0)
        threads = 1;
    best.workers = threads;
    if (n < gr->small_below || n > UINT32_MAX) {
        best.small = true;
        best.total_bytes = gr->small_bytes(n, threads);
        return best;
    }
    double best_cost = 0;
    for (unsigned c = 4; c <= 20; c++) {
        uint64_t wb = gr->worker_bytes(c);
        if (wb > PL__MSM_MAX_WORKER_BYTES)
            break;
        size_t nb = (size_t)1 << (c - 1);
        size_t nwin = (255 + c - 1) / c;
        double add = 1.0 + 10.0 / (double)batch_for(nb, PL__BATCH);
        size_t max_nx = 4 * (size_t)threads;
        for (size_t nx = 1; nx <= max_nx && n / nx >= 64; nx++) {
            size_t tiles = nx * nwin;
            size_t rounds = (tiles + threads - 1) / threads;
            double tile = (double)((n + nx - 1) / nx) * add +
                          gr->sum_cost * (double)nb;
            double cost = (double)rounds * tile;
            if (best.nx == 0 || cost < best_cost) {
                best_cost = cost;
                best.c = c;
                best.nwin = nwin;
                best.nx = nx;
            }
        }
    }
    best.fold_bytes = round64((uint64_t)n * 32);
    best.neg_bytes = round64(((uint64_t)n + 63) / 64 * 8);
    best.sums_bytes = round64((uint64_t)best.nx * best.nwin * gr->sum_bytes);
    best.worker_bytes = gr->worker_bytes(best.c);
    best.total_bytes = best.fold_bytes + best.neg_bytes + best.sums_bytes +
                       best.worker_bytes * threads;
    return best;
}

uint64_t pl__msm_g1_scratch_bytes(size_t n, unsigned threads)
{
    return plan_for(&group_g1, n, threads).total_bytes;
}

uint64_t pl__msm_g2_scratch_bytes(size_t n, unsigned threads)
{
    return plan_for(&group_g2, n, threads).total_bytes;
}

unsigned pl__msm_g1_window(size_t n, unsigned threads)
{
    return plan_for(&group_g1, n, threads).c;
}

unsigned pl__msm_g2_window(size_t n, unsigned threads)
{
    return plan_for(&group_g2, n, threads).c;
}

/* ---- the sum -------------------------------------------------------------- */

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

typedef struct {
    const group *gr;
    const plan *p;
    const uint8_t *points, *scalars;
    size_t n;
    uint64_t *fold, *neg;
    uint8_t *sums, *work;
} msm_job;

static void fold_task(void *ctx, size_t task, unsigned worker)
{
    msm_job *job = ctx;
    size_t lo = task * PL__FOLD_CHUNK, hi = lo + PL__FOLD_CHUNK;
    if (hi > job->n)
        hi = job->n;
    uint64_t signs = 0;
    for (size_t i = lo; i < hi; i++) {
        uint64_t *s = job->fold + 4 * i;
        memcpy(s, job->scalars + 32 * i, 32);
        s[3] &= ~(1ull << 63); /* blst reads 255 bits */
        if (!gt256(r_limbs, s))
            sub256(s, s, r_limbs); /* < 2^255 < 2r: once is enough */
        bool neg = gt256(s, r_half);
        if (neg)
            sub256(s, r_limbs, s);
        const uint8_t *pt = job->points + i * job->gr->point_bytes;
        uint64_t any = 0, w;
        for (size_t o = 0; o < job->gr->point_bytes; o += 8) {
            memcpy(&w, pt + o, 8);
            any |= w;
        }
        if (any == 0) {
            memset(s, 0, 32);
            neg = false;
        }
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
    size_t x = task % p->nx, y = task / p->nx;
    size_t lo = job->n * x / p->nx, hi = job->n * (x + 1) / p->nx;
    job->gr->tile(job->work + worker * p->worker_bytes,
                  job->sums + task * job->gr->sum_bytes, job->points, job->fold,
                  job->neg, lo, hi, (unsigned)(y * p->c), p->c);
}

static pl_status msm(const group *gr, void *out, const uint8_t *points,
                     const uint8_t *scalars, size_t n, pl__pool *pool,
                     pl_error *err)
{
    plan p = plan_for(gr, n, pl__pool_size(pool));
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
    job.sums = scratch + p.fold_bytes + p.neg_bytes;
    job.work = job.sums + p.sums_bytes;
    pl__pool_run(pool, (n + PL__FOLD_CHUNK - 1) / PL__FOLD_CHUNK, fold_task, &job);
    pl__pool_run(pool, p.nx * p.nwin, tile_task, &job);

    /* Horner over the windows, top row first. */
    for (size_t y = p.nwin; y-- > 0;) {
        if (y + 1 < p.nwin)
            for (size_t i = 0; i < p.c; i++)
                gr->dbl(out);
        for (size_t x = 0; x < p.nx; x++)
            gr->add(out, job.sums + (y * p.nx + x) * gr->sum_bytes);
    }
    pl__free(scratch);
    return PL_OK;
}

pl_status pl__msm_g1(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err)
{
    return msm(&group_g1, out, points, scalars, n, pool, err);
}

pl_status pl__msm_g2(blst_p2 *out, const uint8_t *points, const uint8_t *scalars,
                     size_t n, pl__pool *pool, pl_error *err)
{
    return msm(&group_g2, out, points, scalars, n, pool, err);
}
