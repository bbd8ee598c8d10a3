/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MSM the prover calls (msm.h): Pippenger with buckets in affine
 * coordinates and batched inversion, about 5M + 1S per bucket addition
 * against blst's 8M + 2S, so it beats blst's own Pippenger (msm_blst.c) on
 * the same windows.  Written once for every group of every curve: the
 * per-window work lives in msm_affine_impl.h, which each curve's file
 * (msm_bls12_381.c, msm_bn254.c) instantiates per group and describes in
 * a pl__msm_group (msm_core.h); this file plans the windows and the split
 * over the pool, runs the folding and the tiles through the descriptor and
 * combines the tiles.  Small sums (group.small_below) go to the group's
 * small() (BLS12-381: msm_blst.c).
 *
 * Steps of one call:
 *  1. fold (parallel over point ranges): each scalar s (reduced mod r; on
 *     BLS12-381 bit 255 dropped first, as blst does) becomes min(s, r - s)
 *     with the sign kept in a bitmap,
 *     so folded scalars are < 2^254 and ceil(255 / c) Booth windows of c
 *     bits cover them (the top window's carry never spills).  A point at
 *     infinity gets scalar 0, so the tiles never look at it again.  This
 *     costs 32 bytes of scratch a point, done once rather than per window.
 *  2. tiles (parallel): a grid of nx point ranges times nwin windows; each
 *     tile fills its worker's 2^(c-1) buckets and returns sum k * B_k.
 *  3. Horner over the windows on the caller.
 * With GLV (msm.h) step 1 also splits each folded scalar into
 * two signed halves below 2^127 (the curve's glv_split), kept with their
 * signs in the same 32 bytes, and in PL__GLV_CALL mode writes phi(P_i) to
 * the scratch; the tiles then run over 2n halves with ceil(128 / c)
 * windows: the same bucket additions per point as 254-bit scalars (twice
 * the points, half the windows), but half the bucket sums, and tiles that
 * share out more evenly.
 * The grid comes from a cost model (plan), the same code that reports the
 * scratch size, so the scratch sizes are exact: one accounted
 * allocation per call (folded scalars, sign bits, tile sums, and one
 * workspace per worker), freed before return.
 *
 * The witness MSM (for A, B1, B2 and C) runs the same
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
#include "msm/msm_core.h"
#include "field/bn254/fp.h"
#include "util/alloc.h"
#include "util/error.h"

#include <assert.h>
#include <string.h>

/* ---- the plan ------------------------------------------------------------- */

/* the plan: pl__msm_plan (msm_core.h) */
typedef pl__msm_plan plan;

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
static bool glv_on(const pl__msm_group *gr, pl__glv_mode mode)
{
    return gr->has_glv && mode != PL__GLV_OFF;
}

/*
 * Picks the window c <= c_max and the number of point ranges nx that
 * minimise the work of the busiest worker, for n >= 1 points (GLV halves
 * with glv).  A tile of m points costs m batched affine additions (plus a
 * share of the inversion, inv_cost additions over the batch; with
 * PL__GLV_LOAD half the loads also pay phi's multiplication, ~1/6 of an
 * addition) and 2^(c-1) buckets of the bucket sum (sum_cost additions
 * each); T workers take ceil(tiles / T) tiles each.  A batch of k sums
 * over the same points (msm_batch.c) has k times the tiles on the same
 * grid, so with many workers it can take fewer, longer ranges: fewer
 * bucket sums per vector for the same rounds.
 */
static void search(const pl__msm_group *gr, plan *best, size_t n, size_t k,
                   unsigned threads, unsigned c_max, size_t nx_cap,
                   pl__glv_mode mode)
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
        double add = 1.0 + gr->inv_cost / (double)batch_for(nb, PL__BATCH) +
                     (glv && mode == PL__GLV_LOAD ? 1.0 / 12 : 0);
        size_t max_nx = max_ranges(n, threads);
        if (nx_cap && max_nx > nx_cap)
            max_nx = nx_cap;
        for (size_t nx = 1; nx <= max_nx; nx++) {
            size_t tiles = k * nx * nwin;
            size_t rounds = (tiles + threads - 1) / threads;
            double tile = (double)((n + nx - 1) / nx) * add +
                          gr->sum_cost * (double)nb;
            double cost = (double)rounds * tile;
            if (best->nx == 0 || cost < best_cost) {
                best_cost = cost;
                best->c = c;
                best->nwin = nwin;
                best->nx = nx;
                best->cost = cost;
            }
        }
    }
}

pl__msm_opts pl__msm_group_default_opts(const pl__msm_group *gr)
{
    pl__msm_opts o = {(pl__glv_mode)atomic_load(gr->default_glv), NULL};
    return o;
}

plan pl__msm_plan_for(const pl__msm_group *gr, size_t n, size_t k,
                      unsigned threads, const pl__msm_opts *o)
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
    /* A batch searches within one sum's window and ranges, so that each of
     * its parts is at most one sum's and the whole at most k sums' (the
     * reservations of k proofs cover it). */
    size_t pts = glv ? 2 * n : n;
    search(gr, &best, pts, 1, threads, 20, 0, best.glv);
    if (k > 1)
        search(gr, &best, pts, k, threads, best.c, best.nx, best.glv);
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

uint64_t pl__msm_run_bytes(const pl__msm_group *gr, size_t n,
                           unsigned threads, const pl__msm_opts *o)
{
    return pl__msm_plan_for(gr, n, 1, threads, o).total_bytes;
}

unsigned pl__msm_run_window(const pl__msm_group *gr, size_t n,
                            unsigned threads, const pl__msm_opts *o)
{
    return pl__msm_plan_for(gr, n, 1, threads, o).c;
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
static unsigned wit_c_cap(const pl__msm_group *gr, size_t n, unsigned threads,
                          pl__glv_mode glv)
{
    plan p = {0};
    search(gr, &p, glv != PL__GLV_OFF ? 2 * n : n, 1, threads, 20, 0, glv);
    return p.c;
}

/* The plan for m big scalars out of n >= 1, with window cap c_cap; m = 0
 * means no Pippenger, and `ones` whether any 1-point needs a workspace.
 * glv is the mode the sum runs in. */
static wplan wplan_for(const pl__msm_group *gr, size_t n, size_t m, bool ones,
                       unsigned threads, unsigned c_cap, pl__glv_mode glv)
{
    wplan w = {0};
    w.p.workers = threads;
    w.p.glv = glv;
    w.ranges = wit_ranges(n, threads);
    w.range_sums_bytes = round64((uint64_t)w.ranges * gr->sum_bytes);
    if (m > 0) {
        search(gr, &w.p, glv != PL__GLV_OFF ? 2 * m : m, 1, threads, c_cap,
               0, glv);
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
static pl__glv_mode mode_of(const pl__msm_group *gr, const pl__msm_opts *o)
{
    return glv_on(gr, o->glv) ? o->glv : PL__GLV_OFF;
}

/*
 * The most any witness MSM of n points allocates: every term of wplan_for
 * at its largest for m <= n.  Indices and folded scalars grow with m; the
 * tile sums are at most max_ranges(n) * nwin(c) for some c <= c_cap; the
 * workspace grows with c, and c <= c_cap.
 */
static uint64_t wit_bound(const pl__msm_group *gr, size_t n, unsigned threads,
                          const pl__msm_opts *o)
{
    if (threads == 0)
        threads = 1;
    if (n == 0)
        return 0;
    if (n > PL__WIT_MAX_N)
        return pl__msm_plan_for(gr, n, 1, threads, o).total_bytes;
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


uint64_t pl__msm_run_witness_bytes(const pl__msm_group *gr, size_t n,
                                   unsigned threads, const pl__msm_opts *o)
{
    return wit_bound(gr, n, threads, o);
}

/* ---- the sum -------------------------------------------------------------- */

typedef struct {
    const pl__msm_group *gr;
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
    if (hi > job->n)
        hi = job->n;
    job->gr->fold(job->fold, job->neg, job->table, job->points, job->scalars,
                  lo, hi, job->p->glv != PL__GLV_OFF);
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
void pl__msm_combine_tiles(const pl__msm_group *gr, void *out,
                           const pl__msm_plan *p, const uint8_t *sums)
{
    for (size_t y = p->nwin; y-- > 0;) {
        if (y + 1 < p->nwin)
            for (size_t i = 0; i < p->c; i++)
                gr->dbl(out);
        for (size_t x = 0; x < p->nx; x++)
            gr->add(out, sums + (y * p->nx + x) * gr->sum_bytes);
    }
}

pl_status pl__msm_run(const pl__msm_group *gr, void *out, const uint8_t *points,
                      const uint8_t *scalars, size_t n, const pl__msm_opts *o,
                      pl__pool *pool, pl_error *err)
{
    plan p = pl__msm_plan_for(gr, n, 1, pl__pool_size(pool), o);
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
    pl__msm_combine_tiles(gr, out, &p, job.sums);
    pl__free(scratch);
    return PL_OK;
}

typedef struct {
    const pl__msm_group *gr;
    const uint8_t *points;
    uint8_t *out;
    size_t n;
} endo_job;

static void endo_task(void *ctx, size_t task, unsigned worker)
{
    endo_job *job = ctx;
    size_t lo = task * PL__FOLD_CHUNK, hi = lo + PL__FOLD_CHUNK;
    if (hi > job->n)
        hi = job->n;
    job->gr->endo(job->out, job->points, NULL, lo, hi);
}

void pl__msm_run_endo_table(const pl__msm_group *gr, uint8_t *out,
                            const uint8_t *points, size_t n, pl__pool *pool)
{
    endo_job job = {gr, points, out, n};
    pl__pool_run(pool, (n + PL__FOLD_CHUNK - 1) / PL__FOLD_CHUNK, endo_task,
                 &job);
}

/* ---- the witness MSM ------------------------------------------------------ */

typedef struct {
    const pl__msm_group *gr;
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

static void classify_task(void *ctx, size_t task, unsigned worker)
{
    wit_job *job = ctx;
    size_t lo, hi, big, ones;
    range_of(job, task, &lo, &hi);
    job->gr->classify(job->points, job->scalars, lo, hi, &big, &ones);
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
    if (job->table)
        job->gr->endo(job->table, job->points, job->idx, at, at + big);
}

pl_status pl__msm_run_witness(const pl__msm_group *gr, void *out,
                              const uint8_t *points, const uint8_t *scalars,
                              size_t n, const pl__msm_opts *o, pl__pool *pool,
                              pl_error *err)
{
    unsigned threads = pl__pool_size(pool);
    if (n > PL__WIT_MAX_N)
        return pl__msm_run(gr, out, points, scalars, n, o, pool, err);
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
        pl__msm_combine_tiles(gr, out, &w.p, sums);
    }
    for (size_t r = 0; r < job.ranges; r++)
        gr->add(out, job.range_sums + r * gr->sum_bytes);
    pl__free(scratch);
    return PL_OK;
}


/* ---- the groups by name -------------------------------------------------- */

/* BN254's groups in the field implementation of this call (fp.h): chosen
 * once here, so the tiles run one implementation's inlined code. */
static const pl__msm_group *group_of(pl__msm_group_id g)
{
    bool adx = pl__bn254_arith_current() == PL__BN254_ADX;
    switch (g) {
    case PL__MSM_BLS12_381_G1:
        return &pl__msm_group_bls12_381_g1;
    case PL__MSM_BLS12_381_G2:
        return &pl__msm_group_bls12_381_g2;
    case PL__MSM_BN254_G1:
        return adx ? &pl__msm_group_bn254_g1_adx
                   : &pl__msm_group_bn254_g1_portable;
    case PL__MSM_BN254_G2:
        return adx ? &pl__msm_group_bn254_g2_adx
                   : &pl__msm_group_bn254_g2_portable;
    }
    assert(!"unknown MSM group");
    return &pl__msm_group_bls12_381_g1;
}

static pl__msm_opts opts_or_default(const pl__msm_group *gr,
                                    const pl__msm_opts *o)
{
    return o ? *o : pl__msm_group_default_opts(gr);
}

size_t pl__msm_point_bytes(pl__msm_group_id g)
{
    return group_of(g)->point_bytes;
}

size_t pl__msm_sum_bytes(pl__msm_group_id g)
{
    return group_of(g)->sum_bytes;
}

pl__msm_opts pl__msm_default_opts(pl__msm_group_id g)
{
    return pl__msm_group_default_opts(group_of(g));
}

void pl__msm_set_default_glv(pl__msm_group_id g, pl__glv_mode mode)
{
    /* a table belongs to one point array: never a default */
    assert(mode != PL__GLV_TABLE);
    if (mode != PL__GLV_TABLE)
        atomic_store(group_of(g)->default_glv, (int)mode);
}

pl_status pl__msm_sum(pl__msm_group_id g, void *out, const uint8_t *points,
                      const uint8_t *scalars, size_t n,
                      const pl__msm_opts *opts, pl__pool *pool, pl_error *err)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run(gr, out, points, scalars, n, &o, pool, err);
}

pl_status pl__msm_sum_witness(pl__msm_group_id g, void *out,
                              const uint8_t *points, const uint8_t *scalars,
                              size_t n, const pl__msm_opts *opts,
                              pl__pool *pool, pl_error *err)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run_witness(gr, out, points, scalars, n, &o, pool, err);
}

pl_status pl__msm_sum_of_witness(pl__msm_group_id g, void *out,
                                 const uint8_t *points, const uint8_t *scalars,
                                 size_t n, bool plain, pl__pool *pool,
                                 pl_error *err)
{
    return plain ? pl__msm_sum(g, out, points, scalars, n, NULL, pool, err)
                 : pl__msm_sum_witness(g, out, points, scalars, n, NULL, pool,
                                       err);
}

uint64_t pl__msm_sum_scratch_bytes(pl__msm_group_id g, size_t n,
                                   unsigned threads, const pl__msm_opts *opts)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run_bytes(gr, n, threads, &o);
}

uint64_t pl__msm_sum_witness_scratch_bytes(pl__msm_group_id g, size_t n,
                                           unsigned threads,
                                           const pl__msm_opts *opts)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run_witness_bytes(gr, n, threads, &o);
}

uint64_t pl__msm_sum_of_witness_scratch_bytes(pl__msm_group_id g, size_t n,
                                              unsigned threads)
{
    uint64_t w = pl__msm_sum_witness_scratch_bytes(g, n, threads, NULL);
    uint64_t p = pl__msm_sum_scratch_bytes(g, n, threads, NULL);
    return w > p ? w : p;
}

unsigned pl__msm_sum_window(pl__msm_group_id g, size_t n, unsigned threads,
                            const pl__msm_opts *opts)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run_window(gr, n, threads, &o);
}

void pl__msm_sum_endo_table(pl__msm_group_id g, uint8_t *out,
                            const uint8_t *points, size_t n, pl__pool *pool)
{
    pl__msm_run_endo_table(group_of(g), out, points, n, pool);
}

pl_status pl__msm_sum_batch(pl__msm_group_id g, void *outs,
                            const uint8_t *points,
                            const uint8_t *const *scalars, size_t k, size_t n,
                            const pl__msm_opts *opts, pl__pool *pool,
                            pl_error *err)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run_batch(gr, outs, points, scalars, k, n, &o, pool, err);
}

pl_status pl__msm_sum_batch_witness(pl__msm_group_id g, void *outs,
                                    const uint8_t *points,
                                    const uint8_t *const *scalars, size_t k,
                                    size_t n, const pl__msm_opts *opts,
                                    pl__pool *pool, pl_error *err)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run_batch_witness(gr, outs, points, scalars, k, n, &o, pool,
                                     err);
}

pl_status pl__msm_sum_batch_of_witness(pl__msm_group_id g, void *outs,
                                       const uint8_t *points,
                                       const uint8_t *const *scalars, size_t k,
                                       size_t n, bool plain, pl__pool *pool,
                                       pl_error *err)
{
    return plain ? pl__msm_sum_batch(g, outs, points, scalars, k, n, NULL, pool,
                                     err)
                 : pl__msm_sum_batch_witness(g, outs, points, scalars, k, n,
                                             NULL, pool, err);
}

uint64_t pl__msm_sum_batch_scratch_bytes(pl__msm_group_id g, size_t n,
                                         size_t k, unsigned threads,
                                         const pl__msm_opts *opts)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = opts_or_default(gr, opts);
    return pl__msm_run_batch_bytes(gr, n, k, threads, &o);
}

uint64_t pl__msm_sum_batch_of_witness_scratch_bytes(pl__msm_group_id g,
                                                    size_t n, size_t k,
                                                    unsigned threads)
{
    uint64_t w = pl__msm_sum_witness_scratch_bytes(g, n, threads, NULL);
    uint64_t p = pl__msm_sum_batch_scratch_bytes(g, n, k, threads, NULL);
    return w > p ? w : p;
}

double pl__msm_sum_batch_gain(pl__msm_group_id g, size_t n, size_t k,
                              unsigned threads)
{
    const pl__msm_group *gr = group_of(g);
    pl__msm_opts o = pl__msm_group_default_opts(gr);
    return pl__msm_run_batch_gain(gr, n, k, threads, &o);
}
