/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NTT's field-typed passes (ntt.c says what each does), written once
 * for every scalar field: ntt.c includes this file once per field and
 * implementation (BLS12-381's Fr over blst; BN254's Fr over
 * field/bn254/fp.h, portable and mulx/adx), with
 *   PL__NTT_SFX(name)   the name suffix
 *   PL__NTT_FR          the element type (32 bytes, Montgomery form)
 *   PL__NTT_M           the plan's union member of that type (ntt.c)
 *   PL__NTT_MUL(r, a, b), PL__NTT_ADD, PL__NTT_SUB, PL__NTT_POW(r, a, e)
 *                       the field operations (e a uint64_t)
 * defined, so the butterflies inline one field's code.  The passes that
 * only move elements (the bit reversal, the twiddle copies) are ntt.c's,
 * shared.  No header guard on purpose; nothing else includes it.
 */

#define PL__NTT_FN(name) PL__NTT_SFX(name)

static void PL__NTT_FN(twiddle_task)(void *ctx, size_t task, unsigned worker)
{
    twiddle_job *job = ctx;
    size_t lo = range_lo(job->count, job->ntasks, task);
    size_t hi = range_lo(job->count, job->ntasks, task + 1);
    if (lo == hi)
        return;
    PL__NTT_FR *table = (PL__NTT_FR *)job->table, w;
    const PL__NTT_FR *omega = &job->omega.PL__NTT_M;
    PL__NTT_POW(&w, omega, lo);
    for (size_t j = lo; j < hi; j++) {
        table[j] = w;
        PL__NTT_MUL(&w, &w, omega);
    }
}

static inline void PL__NTT_FN(butterfly)(PL__NTT_FR *a, PL__NTT_FR *b,
                                         const PL__NTT_FR *w)
{
    PL__NTT_FR v;
    PL__NTT_MUL(&v, b, w);
    PL__NTT_SUB(b, a, &v);
    PL__NTT_ADD(a, a, &v);
}

/* All stages with half span h < 2^block_log on one block of 2^block_log
 * elements. */
static void PL__NTT_FN(block_task)(void *ctx, size_t task, unsigned worker)
{
    stage_job *job = ctx;
    const pl__ntt_plan *plan = job->plan;
    const PL__NTT_FR *twiddle = (const PL__NTT_FR *)plan->twiddle;
    size_t size = (size_t)1 << job->block_log;
    PL__NTT_FR *a = (PL__NTT_FR *)job->data + task * size;
    /* h = 1: the twiddle is 1 */
    for (size_t k = 0; k + 1 < size; k += 2) {
        PL__NTT_FR u = a[k];
        PL__NTT_ADD(&a[k], &u, &a[k + 1]);
        PL__NTT_SUB(&a[k + 1], &u, &a[k + 1]);
    }
    for (unsigned s = 1; s < job->block_log; s++) {
        size_t h = (size_t)1 << s;
        size_t stride = plan->n >> (s + 1);
        for (size_t k = 0; k < size; k += 2 * h)
            for (size_t j = 0; j < h; j++)
                PL__NTT_FN(butterfly)(&a[k + j], &a[k + j + h],
                                      &twiddle[j * stride]);
    }
}

/* Stages [s0, s0 + r) (s0 >= log2(PL__NTT_COLS)) on one column block:
 * elements high 2^(s0+r) + kk + m 2^s0 for kk in the task's PL__NTT_COLS
 * and m < 2^r.  At stage s = s0 + t a butterfly pairs m and m + 2^t (bit
 * t clear) with twiddle omega_2h^(i mod h), i mod h = kk + (m mod 2^t) 2^s0. */
static void PL__NTT_FN(column_task)(void *ctx, size_t task, unsigned worker)
{
    stage_job *job = ctx;
    const pl__ntt_plan *plan = job->plan;
    unsigned s0 = job->stage_log, r = job->block_log;
    size_t kblocks = ((size_t)1 << s0) / PL__NTT_COLS;
    size_t high = task / kblocks, k0 = (task % kblocks) * PL__NTT_COLS;
    PL__NTT_FR *base = (PL__NTT_FR *)job->data + (high << (s0 + r)) + k0;
    size_t rows = (size_t)1 << r;
    for (unsigned t = 0; t < r; t++) {
        unsigned s = s0 + t;
        size_t half = (size_t)1 << t;
        /* the last stage's twiddles are the first table itself */
        const PL__NTT_FR *tw =
            s + 1 == plan->log2n
                ? (const PL__NTT_FR *)plan->twiddle
                : (const PL__NTT_FR *)plan->stage_tw + ((size_t)1 << s) -
                      ((size_t)1 << PL__NTT_BLOCK_LOG);
        for (size_t m = 0; m < rows; m++) {
            if (m & half)
                continue;
            PL__NTT_FR *a = base + (m << s0), *b = base + ((m + half) << s0);
            const PL__NTT_FR *w = tw + k0 + ((m & (half - 1)) << s0);
            for (size_t k = 0; k < PL__NTT_COLS; k++)
                PL__NTT_FN(butterfly)(&a[k], &b[k], &w[k]);
        }
    }
}

static void PL__NTT_FN(forward)(const pl__ntt_plan *plan, void *data,
                                pl__pool *pool)
{
    if (plan->log2n == 0)
        return;
    bit_reverse_all(plan, data, pool);

    stage_job job = {.plan = plan, .data = data};
    job.block_log = plan->log2n < PL__NTT_BLOCK_LOG ? plan->log2n
                                                     : PL__NTT_BLOCK_LOG;
    pl__pool_run(pool, plan->n >> job.block_log, PL__NTT_FN(block_task), &job);

    /* the outer stages in column blocks, PL__NTT_COL_STAGES at a time
     * (block_log is the chunk's stage count from here on) */
    for (unsigned s = job.block_log; s < plan->log2n; s += job.block_log) {
        unsigned r = plan->log2n - s;
        job.block_log = r < PL__NTT_COL_STAGES ? r : PL__NTT_COL_STAGES;
        job.stage_log = s;
        size_t tasks = (plan->n >> (s + job.block_log)) *
                       (((size_t)1 << s) / PL__NTT_COLS);
        pl__pool_run(pool, tasks, PL__NTT_FN(column_task), &job);
    }
}

/* After a forward transform y = NTT(x): data[i] = x[-i mod n] / n, times
 * g^i when coset.  The pair (i, n - i) is handled together, i <= n/2. */
static void PL__NTT_FN(finish_task)(void *ctx, size_t task, unsigned worker)
{
    finish_job *job = ctx;
    const pl__ntt_plan *plan = job->plan;
    PL__NTT_FR *d = job->data;
    const PL__NTT_FR *g = &plan->g.PL__NTT_M, *g_inv = &plan->g_inv.PL__NTT_M;
    size_t n = plan->n;
    size_t count = n / 2 + 1;
    size_t lo = range_lo(count, job->ntasks, task);
    size_t hi = range_lo(count, job->ntasks, task + 1);
    if (lo == hi)
        return;
    /* scale of i and of n - i */
    PL__NTT_FR p = plan->n_inv.PL__NTT_M, q = plan->n_inv.PL__NTT_M;
    if (job->coset) {
        PL__NTT_FR t;
        PL__NTT_POW(&t, g, lo);
        PL__NTT_MUL(&p, &p, &t);
        PL__NTT_POW(&t, g, n - lo);
        PL__NTT_MUL(&q, &q, &t);
    }
    for (size_t i = lo; i < hi; i++) {
        if (i == 0 || 2 * i == n) {
            PL__NTT_MUL(&d[i], &d[i], &p);
        } else {
            PL__NTT_FR a = d[i];
            PL__NTT_MUL(&d[i], &d[n - i], &p);
            PL__NTT_MUL(&d[n - i], &a, &q);
        }
        if (job->coset) {
            PL__NTT_MUL(&p, &p, g);
            PL__NTT_MUL(&q, &q, g_inv);
        }
    }
}

static void PL__NTT_FN(inverse_then)(const pl__ntt_plan *plan, void *data,
                                     pl__pool *pool, bool coset)
{
    PL__NTT_FN(forward)(plan, data, pool);
    finish_job job = {plan, data, coset, pass_tasks(plan->n / 2 + 1, pool)};
    pl__pool_run(pool, job.ntasks, PL__NTT_FN(finish_task), &job);
}

/* The field's transforms, for ntt.c's table */
static const ntt_field PL__NTT_FN(field) = {
    PL__NTT_FN(twiddle_task),
    PL__NTT_FN(forward),
    PL__NTT_FN(inverse_then),
};

#undef PL__NTT_FN
#undef PL__NTT_SFX
#undef PL__NTT_FR
#undef PL__NTT_M
#undef PL__NTT_MUL
#undef PL__NTT_ADD
#undef PL__NTT_SUB
#undef PL__NTT_POW
