/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Radix-2 number-theoretic transforms over Fr for the prover's H step (the
 * snarkjs method: inverse NTT, multiply coefficient j by g^j, forward NTT;
 * see FORMATS.md).  The groth16 prover creates one plan per domain size and
 * runs the transforms on its pool; nothing here allocates after the plan.
 *
 * Forward: bit-reversal permutation, then decimation-in-time butterflies.
 * The first stages (butterfly spans up to PL__NTT_BLOCK elements) run block
 * by block, each block a task that stays in the core's L2; the remaining
 * stages go PL__NTT_COL_STAGES at a time: for those stages the elements
 * that meet differ only in the stages' bits, so the array splits into
 * independent columns (PL__NTT_COLS adjacent indices, 2^stages rows), and
 * each task runs all the chunk's stages on its columns in cache: one pass
 * over memory per chunk instead of one per stage.
 *
 * Inverse: the same forward transform, then index reversal and scaling,
 * since NTT_{omega^-1}(y)[i] = NTT_omega(y)[-i mod n]; the plan therefore
 * holds only the powers of omega.  The odd-coset shift by g^j is folded into
 * that final pass.
 *
 * The plan is one accounted allocation (class params): this header, then
 * the twiddles omega^j for j < n/2, then contiguous copies of the twiddles
 * of the outer stages (half span 2^s for PL__NTT_BLOCK_LOG <= s <= log2n - 2,
 * about n/2 more): a column block reads 16 adjacent butterflies' twiddles
 * from one run of cache lines instead of 16 lines a stride apart.  The
 * block stages read the first table with stride n/(2h).  It holds no
 * inverse twiddles.
 *
 * The bit reversal swaps 16 x 16 tiles (index = hi 4 bits | mid | lo 4
 * bits, reversed = rev(lo) | rev(mid) | rev(hi)), so both tiles of a swap
 * sit in cache.
 */
#include "ntt/ntt.h"
#include "field/field.h"
#include "util/alloc.h"
#include "util/error.h"

#include <string.h>

/* Butterfly spans up to this many elements (2^12 * 32 B = 128 KiB) run
 * block-wise, a block staying in one core's L2.  Forward 2^20 on 2 workers,
 * 2-core AMD EPYC (Zen 5, 1 MiB L2 per core), best of 7, repeated 3 times
 * on a shared (noisy) machine: blocks of 2^12 and 2^14 were within noise of
 * each other (0.28-0.34 s), 2^10 slower in every round (0.37-0.41 s), 2^16
 * no better. */
#define PL__NTT_BLOCK_LOG 12
/* Elements per task in the element-wise passes.  A butterfly costs ~28 ns
 * there (2^20 forward, 1 worker: 0.29 s for 20 * 2^19 butterflies), so a
 * task of 8192 elements is ~0.1 ms of work: far above the pool's wake-up
 * cost, and still 8+ tasks per worker at 2^20 to even out the load. */
#define PL__NTT_GRAIN 8192u
#define PL__NTT_MAX_LOG 28
/* The outer stages' column blocks: PL__NTT_COLS adjacent elements (16 x
 * 32 B = 512 B, 8 cache lines) in each of 2^PL__NTT_COL_STAGES rows, rows
 * a power of two apart.  Such rows fall into the same cache sets, so a
 * block keeps 16 rows (16 lines a set: within an L2's ways): 8 KiB. */
#define PL__NTT_COLS 16u
#define PL__NTT_COL_STAGES 4u

struct pl__ntt_plan {
    unsigned log2n;
    size_t n;
    blst_fr n_inv;    /* 1/n */
    blst_fr g, g_inv; /* primitive 2n-th root (odd coset) and its inverse */
    blst_fr *twiddle; /* omega^j, j < n/2, omega = root_of_unity(log2n) */
    /* stage s's twiddles omega^(j n / 2^(s+1)), j < 2^s, at
     * stage_tw + 2^s - 2^PL__NTT_BLOCK_LOG, for BLOCK_LOG <= s <= log2n - 2 */
    blst_fr *stage_tw;
};

/* The header is padded to 64 bytes so the twiddles start cache-aligned. */
#define PL__NTT_HEADER_BYTES                                                  \
    ((sizeof(struct pl__ntt_plan) + 63u) & ~(uint64_t)63u)

/* Entries of the outer stages' copies (see stage_tw). */
static uint64_t stage_tw_count(unsigned log2n)
{
    if (log2n < PL__NTT_BLOCK_LOG + 2)
        return 0;
    return ((uint64_t)1 << (log2n - 1)) - ((uint64_t)1 << PL__NTT_BLOCK_LOG);
}

uint64_t pl__ntt_plan_bytes(unsigned log2n)
{
    uint64_t half = log2n ? (uint64_t)1 << (log2n - 1) : 0;
    return PL__NTT_HEADER_BYTES +
           (half + stage_tw_count(log2n)) * sizeof(blst_fr);
}

/* Task count for an element-wise pass over m items. */
static size_t pass_tasks(size_t m, const pl__pool *pool)
{
    unsigned threads = pl__pool_size(pool);
    if (threads == 1 || m <= PL__NTT_GRAIN)
        return 1;
    size_t t = m / PL__NTT_GRAIN;
    size_t cap = (size_t)threads * 8;
    return t < cap ? t : cap;
}

static size_t range_lo(size_t m, size_t ntasks, size_t task)
{
    /* m < 2^28, so m * task does not overflow */
    return m * task / ntasks;
}

/* ---- plan ----------------------------------------------------------------*/

typedef struct {
    blst_fr *table;
    blst_fr omega;
    size_t count, ntasks;
} twiddle_job;

typedef struct {
    const pl__ntt_plan *plan;
    size_t ntasks;
} copy_job;

/* stage_tw[e] for e in the task's range: entry e belongs to the stage s
 * with 2^s - 2^B <= e < 2^(s+1) - 2^B. */
static void stage_copy_task(void *ctx, size_t task, unsigned worker)
{
    copy_job *job = ctx;
    const pl__ntt_plan *plan = job->plan;
    size_t count = (size_t)stage_tw_count(plan->log2n);
    size_t lo = range_lo(count, job->ntasks, task);
    size_t hi = range_lo(count, job->ntasks, task + 1);
    size_t base = (size_t)1 << PL__NTT_BLOCK_LOG;
    for (size_t e = lo; e < hi; e++) {
        unsigned s = PL__NTT_BLOCK_LOG;
        while (((size_t)2 << s) - base <= e)
            s++;
        size_t j = e - (((size_t)1 << s) - base);
        plan->stage_tw[e] = plan->twiddle[j << (plan->log2n - 1 - s)];
    }
}

static void twiddle_task(void *ctx, size_t task, unsigned worker)
{
    twiddle_job *job = ctx;
    size_t lo = range_lo(job->count, job->ntasks, task);
    size_t hi = range_lo(job->count, job->ntasks, task + 1);
    if (lo == hi)
        return;
    blst_fr w;
    pl__fr_pow(&w, &job->omega, lo);
    for (size_t j = lo; j < hi; j++) {
        job->table[j] = w;
        blst_fr_mul(&w, &w, &job->omega);
    }
}

static pl_status plan_create(pl__ntt_plan **out, unsigned log2n, bool blstrs,
                             pl__pool *pool, pl_error *err)
{
    *out = NULL;
    if (log2n > PL__NTT_MAX_LOG)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "ntt: domain 2^%u is larger than 2^%u", log2n,
                             PL__NTT_MAX_LOG);
    uint8_t *block = pl__alloc(PL_BUF_PARAMS, pl__ntt_plan_bytes(log2n), err);
    if (!block)
        return PL_ENOMEM; /* err was filled by pl__alloc */
    pl__ntt_plan *plan = (pl__ntt_plan *)block;
    memset(plan, 0, sizeof(*plan));
    plan->log2n = log2n;
    plan->n = (size_t)1 << log2n;
    plan->twiddle = (blst_fr *)(block + PL__NTT_HEADER_BYTES);
    plan->stage_tw = plan->twiddle + plan->n / 2;

    blst_fr n_fr;
    uint64_t n_limbs[4] = {plan->n, 0, 0, 0};
    blst_fr_from_uint64(&n_fr, n_limbs);
    blst_fr_inverse(&plan->n_inv, &n_fr);
    pl__fr_root_of_unity(&plan->g, log2n + 1);
    /* g has order 2n, so g^-1 = g^(2n-1) */
    pl__fr_pow(&plan->g_inv, &plan->g, 2 * (uint64_t)plan->n - 1);

    twiddle_job job = {.table = plan->twiddle, .count = plan->n / 2};
    if (blstrs)
        pl__fr_root_of_unity_blstrs(&job.omega, log2n);
    else
        pl__fr_root_of_unity(&job.omega, log2n);
    job.ntasks = pass_tasks(job.count, pool);
    if (job.count)
        pl__pool_run(pool, job.ntasks, twiddle_task, &job);
    copy_job copy = {plan, pass_tasks(stage_tw_count(log2n), pool)};
    if (stage_tw_count(log2n))
        pl__pool_run(pool, copy.ntasks, stage_copy_task, &copy);
    *out = plan;
    return PL_OK;
}

pl_status pl__ntt_plan_create(pl__ntt_plan **out, unsigned log2n,
                              pl__pool *pool, pl_error *err)
{
    return plan_create(out, log2n, false, pool, err);
}

pl_status pl__ntt_plan_create_blstrs(pl__ntt_plan **out, unsigned log2n,
                                     pl__pool *pool, pl_error *err)
{
    return plan_create(out, log2n, true, pool, err);
}

void pl__ntt_plan_destroy(pl__ntt_plan *plan)
{
    pl__free(plan); /* the plan is the start of its one allocation */
}

/* ---- bit reversal ------------------------------------------------------- */

typedef struct {
    blst_fr *data;
    size_t n;
    unsigned log2n;
    size_t ntasks;
} bitrev_job;

static size_t bit_reverse(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

/* Tiles of 2^PL__BITREV_B x 2^PL__BITREV_B elements (see the top). */
#define PL__BITREV_B 4u

static void swap_fr(blst_fr *a, blst_fr *b)
{
    blst_fr t = *a;
    *a = *b;
    *b = t;
}

static void bitrev_task(void *ctx, size_t task, unsigned worker)
{
    bitrev_job *job = ctx;
    unsigned L = job->log2n, b = PL__BITREV_B;
    if (L < 2 * b + 1) {
        /* small: each pair {i, rev(i)} swapped by its smaller index (one
         * task) */
        size_t lo = range_lo(job->n, job->ntasks, task);
        size_t hi = range_lo(job->n, job->ntasks, task + 1);
        for (size_t i = lo; i < hi; i++) {
            size_t j = bit_reverse(i, L);
            if (i < j)
                swap_fr(&job->data[i], &job->data[j]);
        }
        return;
    }
    /* The tasks share out the middles; tile mid swaps with tile rev(mid),
     * done by the task owning the smaller of the two. */
    unsigned mb = L - 2 * b;
    size_t mids = (size_t)1 << mb, side = (size_t)1 << b;
    size_t lo = range_lo(mids, job->ntasks, task);
    size_t hi = range_lo(mids, job->ntasks, task + 1);
    for (size_t mid = lo; mid < hi; mid++) {
        size_t rm = bit_reverse(mid, mb);
        if (rm < mid)
            continue;
        for (size_t h = 0; h < side; h++) {
            size_t rh = bit_reverse(h, b);
            for (size_t l = 0; l < side; l++) {
                size_t i = (h << (L - b)) | (mid << b) | l;
                size_t j = (bit_reverse(l, b) << (L - b)) | (rm << b) | rh;
                if (rm != mid || i < j)
                    swap_fr(&job->data[i], &job->data[j]);
            }
        }
    }
}

/* ---- butterflies -------------------------------------------------------- */

typedef struct {
    const pl__ntt_plan *plan;
    blst_fr *data;
    /* block_task: spans below 2^block_log run inside blocks; column_task:
     * the chunk's first stage (stage_log) and its stage count (block_log) */
    unsigned block_log;
    unsigned stage_log;
} stage_job;

static void butterfly(blst_fr *a, blst_fr *b, const blst_fr *w)
{
    blst_fr v;
    blst_fr_mul(&v, b, w);
    blst_fr_sub(b, a, &v);
    blst_fr_add(a, a, &v);
}

/* All stages with half span h < 2^block_log on one block of 2^block_log
 * elements. */
static void block_task(void *ctx, size_t task, unsigned worker)
{
    stage_job *job = ctx;
    const pl__ntt_plan *plan = job->plan;
    size_t size = (size_t)1 << job->block_log;
    blst_fr *a = job->data + task * size;
    /* h = 1: the twiddle is 1 */
    for (size_t k = 0; k + 1 < size; k += 2) {
        blst_fr u = a[k];
        blst_fr_add(&a[k], &u, &a[k + 1]);
        blst_fr_sub(&a[k + 1], &u, &a[k + 1]);
    }
    for (unsigned s = 1; s < job->block_log; s++) {
        size_t h = (size_t)1 << s;
        size_t stride = plan->n >> (s + 1);
        for (size_t k = 0; k < size; k += 2 * h)
            for (size_t j = 0; j < h; j++)
                butterfly(&a[k + j], &a[k + j + h], &plan->twiddle[j * stride]);
    }
}

/* Stages [s0, s0 + r) (s0 >= log2(PL__NTT_COLS)) on one column block:
 * elements high 2^(s0+r) + kk + m 2^s0 for kk in the task's PL__NTT_COLS
 * and m < 2^r.  At stage s = s0 + t a butterfly pairs m and m + 2^t (bit
 * t clear) with twiddle omega_2h^(i mod h), i mod h = kk + (m mod 2^t) 2^s0. */
static void column_task(void *ctx, size_t task, unsigned worker)
{
    stage_job *job = ctx;
    const pl__ntt_plan *plan = job->plan;
    unsigned s0 = job->stage_log, r = job->block_log;
    size_t kblocks = ((size_t)1 << s0) / PL__NTT_COLS;
    size_t high = task / kblocks, k0 = (task % kblocks) * PL__NTT_COLS;
    blst_fr *base = job->data + (high << (s0 + r)) + k0;
    size_t rows = (size_t)1 << r;
    for (unsigned t = 0; t < r; t++) {
        unsigned s = s0 + t;
        size_t half = (size_t)1 << t;
        /* the last stage's twiddles are the first table itself */
        const blst_fr *tw = s + 1 == plan->log2n
                                ? plan->twiddle
                                : plan->stage_tw + ((size_t)1 << s) -
                                      ((size_t)1 << PL__NTT_BLOCK_LOG);
        for (size_t m = 0; m < rows; m++) {
            if (m & half)
                continue;
            blst_fr *a = base + (m << s0), *b = base + ((m + half) << s0);
            const blst_fr *w = tw + k0 + ((m & (half - 1)) << s0);
            for (size_t k = 0; k < PL__NTT_COLS; k++)
                butterfly(&a[k], &b[k], &w[k]);
        }
    }
}

void pl__ntt_plan_constants(const pl__ntt_plan *plan, const blst_fr **twiddles,
                            blst_fr *n_inv, blst_fr *g)
{
    *twiddles = plan->twiddle;
    *n_inv = plan->n_inv;
    *g = plan->g;
}

void pl__ntt_forward(const pl__ntt_plan *plan, blst_fr *data, pl__pool *pool)
{
    if (plan->log2n == 0)
        return;
    bitrev_job br = {data, plan->n, plan->log2n, 1};
    if (plan->log2n >= 2 * PL__BITREV_B + 1) {
        /* a tile pair is 16 KiB of work: 8 tasks a worker even it out */
        size_t mids = (size_t)1 << (plan->log2n - 2 * PL__BITREV_B);
        br.ntasks = 8 * (size_t)pl__pool_size(pool);
        if (br.ntasks > mids)
            br.ntasks = mids;
    }
    pl__pool_run(pool, br.ntasks, bitrev_task, &br);

    stage_job job = {.plan = plan, .data = data};
    job.block_log = plan->log2n < PL__NTT_BLOCK_LOG ? plan->log2n
                                                     : PL__NTT_BLOCK_LOG;
    pl__pool_run(pool, plan->n >> job.block_log, block_task, &job);

    /* the outer stages in column blocks, PL__NTT_COL_STAGES at a time
     * (block_log is the chunk's stage count from here on) */
    for (unsigned s = job.block_log; s < plan->log2n; s += job.block_log) {
        unsigned r = plan->log2n - s;
        job.block_log = r < PL__NTT_COL_STAGES ? r : PL__NTT_COL_STAGES;
        job.stage_log = s;
        size_t tasks = (plan->n >> (s + job.block_log)) *
                       (((size_t)1 << s) / PL__NTT_COLS);
        pl__pool_run(pool, tasks, column_task, &job);
    }
}

/* ---- inverse and odd coset: reversal, scaling, shift -------------------- */

typedef struct {
    const pl__ntt_plan *plan;
    blst_fr *data;
    bool coset;
    size_t ntasks;
} finish_job;

/* After a forward transform y = NTT(x): data[i] = x[-i mod n] / n, times
 * g^i when coset.  The pair (i, n - i) is handled together, i <= n/2. */
static void finish_task(void *ctx, size_t task, unsigned worker)
{
    finish_job *job = ctx;
    const pl__ntt_plan *plan = job->plan;
    blst_fr *d = job->data;
    size_t n = plan->n;
    size_t count = n / 2 + 1;
    size_t lo = range_lo(count, job->ntasks, task);
    size_t hi = range_lo(count, job->ntasks, task + 1);
    if (lo == hi)
        return;
    blst_fr p = plan->n_inv, q = plan->n_inv; /* scale of i and of n - i */
    if (job->coset) {
        blst_fr t;
        pl__fr_pow(&t, &plan->g, lo);
        blst_fr_mul(&p, &p, &t);
        pl__fr_pow(&t, &plan->g, n - lo);
        blst_fr_mul(&q, &q, &t);
    }
    for (size_t i = lo; i < hi; i++) {
        if (i == 0 || 2 * i == n) {
            blst_fr_mul(&d[i], &d[i], &p);
        } else {
            blst_fr a = d[i];
            blst_fr_mul(&d[i], &d[n - i], &p);
            blst_fr_mul(&d[n - i], &a, &q);
        }
        if (job->coset) {
            blst_fr_mul(&p, &p, &plan->g);
            blst_fr_mul(&q, &q, &plan->g_inv);
        }
    }
}

static void inverse_then(const pl__ntt_plan *plan, blst_fr *data,
                         pl__pool *pool, bool coset)
{
    pl__ntt_forward(plan, data, pool);
    finish_job job = {plan, data, coset, pass_tasks(plan->n / 2 + 1, pool)};
    pl__pool_run(pool, job.ntasks, finish_task, &job);
}

void pl__ntt_inverse(const pl__ntt_plan *plan, blst_fr *data, pl__pool *pool)
{
    inverse_then(plan, data, pool, false);
}

void pl__ntt_to_odd_coset(const pl__ntt_plan *plan, blst_fr *data,
                          pl__pool *pool)
{
    inverse_then(plan, data, pool, true);
    pl__ntt_forward(plan, data, pool);
}
