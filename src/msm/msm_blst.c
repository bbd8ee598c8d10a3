/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Multi-scalar multiplication on blst's Pippenger tiles, spread over a
 * pl__pool: the baseline that the batch-affine MSM (msm_affine.c, what the
 * prover calls) is tested and benchmarked against, and the path it takes
 * for small sums.
 *
 * The sum is cut into a grid as blst's Rust binding does: nx ranges of
 * points times ny windows of scalar bits.  Each tile is one task,
 * blst_pXs_tile_pippenger over its points and bits, into its own slot;
 * the caller then adds the slots of each window row and shifts the rows
 * into place (Horner over the windows).  The grid is chosen by a small cost
 * model (plan_grid) that counts bucket additions per worker, so two workers
 * get near-equal shares and sixteen still find enough tiles.  Below
 * PL__MSM_SMALL points the sum is computed point by point: blst's tile loop
 * reads one point ahead and is wrong for a single point, and a grid does
 * not pay for itself there.
 *
 * Scratch (each worker's buckets and the tiles' results) is one accounted
 * allocation (class msm_scratch) per call, freed before return; its size is
 * a function of n and the pool size only, so pl__msm_gX_blst_scratch_bytes
 * reports it exactly.  Points are read in place from the zkey (unaligned is
 * fine for blst on x86-64 and arm64); all-zero points are the point at
 * infinity, which blst's bucket code skips.  Scalars must be < r (255 bits).
 */
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/error.h"

#include <string.h>

/* Below this many points: blst_pX_mult per point.  Measured for G1 on a
 * 2-core AMD EPYC (Zen 5), one worker: point by point 333 / 677 / 2896 us
 * at n = 4 / 8 / 32, the grid 279 / 440 / 1080 us; at n = 2 the grid loses
 * (182 vs 167 us), and blst's tile needs two points anyway. */
#define PL__MSM_SMALL 8u
#define PL__MSM_NBITS 255u
/* Largest bucket array per worker.  Wider windows trade fewer additions
 * for buckets that grow 2x per bit, times the worker count; 8 MiB keeps G1
 * at windows <= 16 and G2 at <= 15 (16 workers: <= 100 MiB of scratch). */
#define PL__MSM_MAX_BUCKET_BYTES ((uint64_t)8 << 20)
/* blst's tile loop needs two points or more; keep ranges far above that. */
#define PL__MSM_MIN_RANGE 16u

/* ---- the two groups behind one interface -------------------------------- */

typedef struct {
    size_t point_bytes;  /* affine, as in the zkey */
    size_t sum_bytes;    /* blst_p1 / blst_p2 (Jacobian) */
    /* blst's scratch size for n points; for one point that is exactly one
     * of its (private) xyzz buckets */
    size_t (*scratch_sizeof)(size_t npoints);
    void (*tile)(void *ret, const uint8_t *points, size_t npoints,
                 const uint8_t *scalars, void *scratch, size_t bit0,
                 size_t window);
    void (*mult_add)(void *acc, const uint8_t *point, const uint8_t *scalar);
    void (*add)(void *acc, const void *p);
    void (*dbl)(void *acc);
} group;

/* blst walks points[0] and scalars[0] as contiguous arrays when the second
 * pointer is NULL, so no per-point pointer arrays are needed. */
static void g1_tile(void *ret, const uint8_t *points, size_t npoints,
                    const uint8_t *scalars, void *scratch, size_t bit0,
                    size_t window)
{
    const blst_p1_affine *pts[2] = {(const blst_p1_affine *)points, NULL};
    const byte *scs[2] = {scalars, NULL};
    blst_p1s_tile_pippenger(ret, pts, npoints, scs, PL__MSM_NBITS, scratch,
                            bit0, window);
}

static void g1_mult_add(void *acc, const uint8_t *point, const uint8_t *scalar)
{
    blst_p1_affine a;
    blst_p1 p, sp;
    memcpy(&a, point, sizeof(a)); /* the zkey's bytes may be unaligned */
    blst_p1_from_affine(&p, &a);  /* all-zero bytes give infinity */
    blst_p1_mult(&sp, &p, scalar, PL__MSM_NBITS);
    blst_p1_add_or_double(acc, acc, &sp);
}

static void g1_add(void *acc, const void *p) { blst_p1_add_or_double(acc, acc, p); }
static void g1_dbl(void *acc) { blst_p1_double(acc, acc); }

static void g2_tile(void *ret, const uint8_t *points, size_t npoints,
                    const uint8_t *scalars, void *scratch, size_t bit0,
                    size_t window)
{
    const blst_p2_affine *pts[2] = {(const blst_p2_affine *)points, NULL};
    const byte *scs[2] = {scalars, NULL};
    blst_p2s_tile_pippenger(ret, pts, npoints, scs, PL__MSM_NBITS, scratch,
                            bit0, window);
}

static void g2_mult_add(void *acc, const uint8_t *point, const uint8_t *scalar)
{
    blst_p2_affine a;
    blst_p2 p, sp;
    memcpy(&a, point, sizeof(a));
    blst_p2_from_affine(&p, &a);
    blst_p2_mult(&sp, &p, scalar, PL__MSM_NBITS);
    blst_p2_add_or_double(acc, acc, &sp);
}

static void g2_add(void *acc, const void *p) { blst_p2_add_or_double(acc, acc, p); }
static void g2_dbl(void *acc) { blst_p2_double(acc, acc); }

static const group group_g1 = {96, sizeof(blst_p1),
                                blst_p1s_mult_pippenger_scratch_sizeof,
                                g1_tile, g1_mult_add, g1_add, g1_dbl};
static const group group_g2 = {192, sizeof(blst_p2),
                                blst_p2s_mult_pippenger_scratch_sizeof,
                                g2_tile, g2_mult_add, g2_add, g2_dbl};

/* ---- the grid ------------------------------------------------------------ */

typedef struct {
    size_t nx, ny, window; /* point ranges, bit windows, bits per window */
    unsigned workers;
    uint64_t sums_bytes;   /* nx * ny tile results, 64-byte rounded */
    uint64_t worker_bytes; /* one worker's buckets, 64-byte rounded */
    uint64_t total_bytes;  /* the one scratch allocation; 0 when n is small */
} grid;

static uint64_t round64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

/*
 * Picks the grid that minimises the additions done by the busiest worker:
 * a tile of m points with a window of w bits costs m bucket additions
 * (mixed xyzz + affine, 8M + 2S in blst) plus 2 * 2^(w-1) bucket-sum
 * additions (xyzz + xyzz, 12M + 2S: weighed 1.4), and T workers take
 * ceil(tiles / T) tiles each.  Windows come as ny = 255 / w + 1 rows with
 * w = 255 / ny + 1 (as blst's Rust binding), so the top row always keeps
 * the bit that Booth recoding carries out of the window below it.
 * Single-threaded this picks blst's own window (13 bits at 2^16).
 * Checked against forced grids, G1 on 2 workers of a 2-core AMD EPYC
 * (Zen 5), shared machine: at 2^16 the model's 20 rows of 13 bits took
 * 0.252 s, rows of 12 / 14 / 16 bits 0.260 / 0.302 / 0.376 s, two point
 * ranges of 13 bits 0.273 s; at 2^20 its 16 rows of 16 bits took 7.5 s,
 * 14 / 13 bits 8.5 / 8.6 s, two point ranges 8.2 s.
 */
static grid plan_grid(const group *gr, size_t n, unsigned threads)
{
    grid best = {0};
    if (threads == 0)
        threads = 1;
    if (n < PL__MSM_SMALL)
        return best;
    uint64_t bucket_bytes = gr->scratch_sizeof(1);
    double best_cost = 0;
    for (size_t ny = 1; ny <= PL__MSM_NBITS; ny++) {
        size_t w = PL__MSM_NBITS / ny + 1;
        if ((ny - 1) * w >= PL__MSM_NBITS || w > 24)
            continue; /* the top row would be empty; or too wide for blst */
        uint64_t buckets = bucket_bytes << (w - 1);
        if (buckets > PL__MSM_MAX_BUCKET_BYTES)
            continue;
        size_t max_nx = n / PL__MSM_MIN_RANGE;
        if (max_nx == 0)
            max_nx = 1;
        if (max_nx > 4 * (size_t)threads)
            max_nx = 4 * (size_t)threads;
        for (size_t nx = 1; nx <= max_nx; nx++) {
            size_t tiles = nx * ny;
            size_t rounds = (tiles + threads - 1) / threads;
            double tile = (double)((n + nx - 1) / nx) +
                          2.8 * (double)((uint64_t)1 << (w - 1));
            double cost = (double)rounds * tile;
            if (best.nx == 0 || cost < best_cost) {
                best_cost = cost;
                best.nx = nx;
                best.ny = ny;
                best.window = w;
            }
        }
    }
    best.workers = threads;
    best.sums_bytes = round64((uint64_t)best.nx * best.ny * gr->sum_bytes);
    best.worker_bytes = round64(bucket_bytes << (best.window - 1));
    best.total_bytes = best.sums_bytes + best.worker_bytes * threads;
    return best;
}

uint64_t pl__msm_g1_blst_scratch_bytes(size_t n, unsigned threads)
{
    return plan_grid(&group_g1, n, threads).total_bytes;
}

uint64_t pl__msm_g2_blst_scratch_bytes(size_t n, unsigned threads)
{
    return plan_grid(&group_g2, n, threads).total_bytes;
}

/* ---- the sum ------------------------------------------------------------- */

typedef struct {
    const group *gr;
    const grid *g;
    const uint8_t *points, *scalars;
    size_t n;
    uint8_t *sums;    /* tile (x, y) at (y * nx + x) * sum_bytes */
    uint8_t *buckets; /* worker k at k * worker_bytes */
} msm_job;

static void tile_task(void *ctx, size_t task, unsigned worker)
{
    msm_job *job = ctx;
    const grid *g = job->g;
    size_t x = task % g->nx, y = task / g->nx;
    size_t lo = job->n * x / g->nx, hi = job->n * (x + 1) / g->nx;
    job->gr->tile(job->sums + task * job->gr->sum_bytes,
                  job->points + lo * job->gr->point_bytes, hi - lo,
                  job->scalars + lo * 32, job->buckets + worker * g->worker_bytes,
                  y * g->window, g->window);
}

static pl_status msm(const group *gr, void *out, const uint8_t *points,
                     const uint8_t *scalars, size_t n, pl__pool *pool,
                     pl_error *err)
{
    memset(out, 0, gr->sum_bytes); /* Z = 0: the point at infinity */
    if (n < PL__MSM_SMALL) {
        for (size_t i = 0; i < n; i++)
            gr->mult_add(out, points + i * gr->point_bytes, scalars + i * 32);
        return PL_OK;
    }
    grid g = plan_grid(gr, n, pl__pool_size(pool));
    /* Zeroed: blst's tile routine expects empty buckets and leaves them
     * empty (it clears each bucket as it sums them), so one clearing per
     * call serves every tile a worker runs. */
    uint8_t *scratch = pl__calloc(PL_BUF_MSM_SCRATCH, g.total_bytes, err);
    if (!scratch)
        return PL_ENOMEM; /* err was filled by pl__alloc */
    msm_job job = {gr, &g, points, scalars, n, scratch, scratch + g.sums_bytes};
    pl__pool_run(pool, g.nx * g.ny, tile_task, &job);

    /* Horner over the windows, top row first. */
    for (size_t y = g.ny; y-- > 0;) {
        if (y + 1 < g.ny)
            for (size_t i = 0; i < g.window; i++)
                gr->dbl(out);
        for (size_t x = 0; x < g.nx; x++)
            gr->add(out, job.sums + (y * g.nx + x) * gr->sum_bytes);
    }
    pl__free(scratch);
    return PL_OK;
}

pl_status pl__msm_g1_blst(blst_p1 *out, const uint8_t *points, const uint8_t *scalars,
                          size_t n, pl__pool *pool, pl_error *err)
{
    return msm(&group_g1, out, points, scalars, n, pool, err);
}

pl_status pl__msm_g2_blst(blst_p2 *out, const uint8_t *points, const uint8_t *scalars,
                          size_t n, pl__pool *pool, pl_error *err)
{
    return msm(&group_g2, out, points, scalars, n, pool, err);
}
