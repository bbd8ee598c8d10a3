/* SPDX-License-Identifier: Apache-2.0 */
/*
 * k sums over one base set (msm.h, pl__msm_sum_batch): the scalars of k
 * proofs of one circuit against the same points, as SupraSeal C2 proves
 * the partitions of a sector.  Written once over the group descriptor
 * (msm_core.h), so every group of every curve has it.
 *
 * What the k sums share.  The per-window tile of msm_affine_impl.h is the
 * unit: a tile reads a range of points for one window of one scalar
 * vector, adding each into its bucket.  The batch runs the grid of tiles
 * for the k vectors in one pass over the pool, the k tiles of one point
 * range and window handed out together (task t * k + j), so the range's
 * points are fetched once while the k tiles run; phi's table
 * (PL__GLV_CALL) is made once rather than k times; the workers'
 * workspaces (buckets) serve vector after vector.  And the grid: one sum
 * of n points on T workers must cut the points into enough ranges to keep
 * T busy, and every range pays a bucket sum (2^(c-1) buckets) per window;
 * the batch has k times the tiles, so the plan (pl__msm_plan_for with k)
 * may take fewer, longer ranges.  It searches within one sum's window and
 * ranges, so every part of the scratch is at most one sum's:
 *     table + k (folded scalars + signs + tile sums) + workers x workspace
 * is at most k sums' scratch, and the reservations of k proofs cover it.
 * On the CPU a bucket addition (about 6 field multiplications) costs far
 * more than its point's read, so what the batch saves is the grid's
 * slack, not memory traffic: with 2 workers one sum's grid is already
 * tight and the batch gains nothing (bench/README.md measures it;
 * pl__msm_sum_batch_gain is the model's figure for any worker count).
 * Accumulating k bucket sets from one read of each point was the other
 * shape: it needs k workspaces per worker (k x up to 8 MiB), which push
 * each other out of the caches the reads were to be saved in.
 *
 * The witness form (scalars mostly 0 and 1) gathers each vector's big
 * scalars separately (their points differ), so it shares no reads; its
 * batch runs each vector's witness sum in turn (pl__msm_run_witness, the
 * same scratch as one), and exists so that a caller batches both forms
 * through one call.  bench/README.md has the measurements that decide
 * where the batch is used.
 */
#include "msm/msm_core.h"
#include "util/alloc.h"
#include "util/error.h"

#include <string.h>

typedef struct {
    const pl__msm_group *gr;
    const pl__msm_plan *p;
    const uint8_t *points;
    const uint8_t *const *scalars; /* k vectors of n scalars */
    size_t n, k, chunks;           /* chunks: fold tasks per vector */
    uint8_t *per;                  /* k blocks: fold, neg, sums */
    uint64_t per_bytes;
    const uint8_t *endo;           /* GLV: phi's table, NULL for LOAD */
    uint8_t *table;                /* PL__GLV_CALL: endo, to fill */
    uint8_t *work;
} batch_job;

static uint64_t *fold_of(const batch_job *job, size_t j)
{
    return (uint64_t *)(job->per + j * job->per_bytes);
}

static uint64_t *neg_of(const batch_job *job, size_t j)
{
    return (uint64_t *)(job->per + j * job->per_bytes + job->p->fold_bytes);
}

static uint8_t *sums_of(const batch_job *job, size_t j)
{
    return job->per + j * job->per_bytes + job->p->fold_bytes +
           job->p->neg_bytes;
}

/* Task j * chunks + c folds chunk c of vector j; vector 0's folds also
 * write phi's table (PL__GLV_CALL), which the others then read. */
static void batch_fold_task(void *ctx, size_t task, unsigned worker)
{
    batch_job *job = ctx;
    size_t j = task / job->chunks, c = task % job->chunks;
    size_t lo = c * PL__FOLD_CHUNK, hi = lo + PL__FOLD_CHUNK;
    (void)worker;
    if (hi > job->n)
        hi = job->n;
    job->gr->fold(fold_of(job, j), neg_of(job, j), j == 0 ? job->table : NULL,
                  job->points, job->scalars[j], lo, hi,
                  job->p->glv != PL__GLV_OFF);
}

/* Task t * k + j: tile t of the grid for vector j, so that the k tiles of
 * one point range and window are handed out together. */
static void batch_tile_task(void *ctx, size_t task, unsigned worker)
{
    batch_job *job = ctx;
    const pl__msm_plan *p = job->p;
    bool glv = p->glv != PL__GLV_OFF;
    size_t pts = glv ? 2 * job->n : job->n;
    size_t j = task % job->k, t = task / job->k;
    size_t x = t % p->nx, y = t / p->nx;
    size_t lo = pts * x / p->nx, hi = pts * (x + 1) / p->nx;
    job->gr->tile(job->work + worker * p->worker_bytes,
                  sums_of(job, j) + t * job->gr->sum_bytes, job->points,
                  job->endo, glv, fold_of(job, j), neg_of(job, j), NULL, lo,
                  hi, (unsigned)(y * p->c), p->c);
}

/* The parts of the one allocation (see the top). */
static uint64_t per_vector_bytes(const pl__msm_plan *p)
{
    return p->fold_bytes + p->neg_bytes + p->sums_bytes;
}

uint64_t pl__msm_run_batch_bytes(const pl__msm_group *gr, size_t n, size_t k,
                                 unsigned threads, const pl__msm_opts *o)
{
    if (threads == 0)
        threads = 1;
    pl__msm_plan p = pl__msm_plan_for(gr, n, k, threads, o);
    if (k == 0)
        return 0;
    if (p.small)
        return p.total_bytes; /* k small sums, one after another */
    return p.endo_bytes + (uint64_t)k * per_vector_bytes(&p) +
           p.worker_bytes * p.workers;
}

double pl__msm_run_batch_gain(const pl__msm_group *gr, size_t n, size_t k,
                              unsigned threads, const pl__msm_opts *o)
{
    if (threads == 0)
        threads = 1;
    pl__msm_plan one = pl__msm_plan_for(gr, n, 1, threads, o);
    pl__msm_plan all = pl__msm_plan_for(gr, n, k, threads, o);
    if (k < 2 || one.small || all.cost <= 0)
        return 1.0;
    /* never below 1: the batch's search includes one sum's grid (the
     * clamp takes the rounding of k x cost against cost of k) */
    double gain = (double)k * one.cost / all.cost;
    return gain < 1.0 ? 1.0 : gain;
}

pl_status pl__msm_run_batch(const pl__msm_group *gr, void *outs,
                            const uint8_t *points,
                            const uint8_t *const *scalars, size_t k, size_t n,
                            const pl__msm_opts *o, pl__pool *pool,
                            pl_error *err)
{
    pl__msm_plan p = pl__msm_plan_for(gr, n, k, pl__pool_size(pool), o);
    uint8_t *out = outs;
    pl_status st = PL_OK;
    if (k == 0)
        return PL_OK;
    if (p.small) {
        for (size_t j = 0; j < k && st == PL_OK; j++)
            st = gr->small(out + j * gr->sum_bytes, points, scalars[j], n,
                           pool, err);
        return st;
    }
    uint64_t total = pl__msm_run_batch_bytes(gr, n, k, pl__pool_size(pool), o);
    uint8_t *scratch = pl__alloc(PL_BUF_MSM_SCRATCH, total, err);
    if (!scratch)
        return PL_ENOMEM; /* err was filled by pl__alloc */
    batch_job job = {.gr = gr, .p = &p, .points = points, .scalars = scalars,
                     .n = n, .k = k,
                     .chunks = (n + PL__FOLD_CHUNK - 1) / PL__FOLD_CHUNK,
                     .per_bytes = per_vector_bytes(&p)};
    if (p.glv == PL__GLV_CALL)
        job.endo = job.table = scratch;
    else if (p.glv == PL__GLV_TABLE)
        job.endo = o->endo;
    job.per = scratch + p.endo_bytes;
    job.work = job.per + k * job.per_bytes;
    pl__pool_run(pool, k * job.chunks, batch_fold_task, &job);
    pl__pool_run(pool, k * p.nx * p.nwin, batch_tile_task, &job);
    for (size_t j = 0; j < k; j++) {
        memset(out + j * gr->sum_bytes, 0, gr->sum_bytes); /* infinity */
        pl__msm_combine_tiles(gr, out + j * gr->sum_bytes, &p,
                              sums_of(&job, j));
    }
    pl__free(scratch);
    return PL_OK;
}

pl_status pl__msm_run_batch_witness(const pl__msm_group *gr, void *outs,
                                    const uint8_t *points,
                                    const uint8_t *const *scalars, size_t k,
                                    size_t n, const pl__msm_opts *o,
                                    pl__pool *pool, pl_error *err)
{
    uint8_t *out = outs;
    pl_status st = PL_OK;
    for (size_t j = 0; j < k && st == PL_OK; j++)
        st = pl__msm_run_witness(gr, out + j * gr->sum_bytes, points,
                                 scalars[j], n, o, pool, err);
    return st;
}
