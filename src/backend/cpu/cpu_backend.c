/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CPU backend: the backend primitives (backend.h) on the prover's
 * worker pool.
 *
 *   open:    the circuit's NTT plan (twiddles, coset constants: class
 *            params, resident);
 *   h:       a, b, c to the odd coset in place (inverse NTT, shift, NTT),
 *            then h = a b - c as canonical scalars (class h);
 *   msm_g1:  H over h (dense scalars: the batch-affine Pippenger), then h
 *            is freed; A, B1 and C over the witness (mostly 0 and 1 in
 *            circuits built from bits: the witness-aware MSM unless the
 *            prover was configured with plain_msm).
 *
 * The zkey's points are read in place from its memory map.
 */
#include "backend/backend.h"
#include "field/field.h"
#include "formats/formats.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const pl_zkey *zkey;
    pl__pool *pool;
    pl__ntt_plan *ntt;
    bool plain_msm;
} cpu_instance;

static void cpu_plan(const pl_zkey *zk, unsigned threads, pl__prove_plan *out)
{
    uint64_t n = zk->domain_size;
    threads = pl__pool_threads_for(threads);
    memset(out, 0, sizeof(*out));
    out->bytes[PL_BUF_H] = n * PL__FR_BYTES;
    /* the G1 MSMs run one after another on the pool: the largest of them */
    uint64_t h = pl__msm_g1_scratch_bytes(n, threads);
    uint64_t ab = pl__msm_g1_of_witness_scratch_bytes(zk->n_vars, threads);
    uint64_t c = pl__msm_g1_of_witness_scratch_bytes(pl__zkey_n_private(zk), threads);
    uint64_t most = h > ab ? h : ab;
    out->bytes[PL_BUF_MSM_SCRATCH] = most > c ? most : c;
    out->resident_bytes = pl__ntt_plan_bytes(zk->log2_domain);
}

static void cpu_close(void *instance)
{
    cpu_instance *ci = instance;
    if (!ci)
        return;
    pl__ntt_plan_destroy(ci->ntt);
    free(ci);
}

static pl_status cpu_open(void **instance, const pl__backend_config *cfg,
                          pl_error *err)
{
    *instance = NULL;
    cpu_instance *ci = calloc(1, sizeof(*ci));
    if (!ci)
        return pl__error_set(err, PL_ENOMEM, "cpu backend: out of memory");
    ci->zkey = cfg->zkey;
    ci->pool = cfg->pool;
    ci->plain_msm = cfg->plain_msm;
    pl_status st = pl__ntt_plan_create(&ci->ntt, cfg->zkey->log2_domain,
                                       cfg->pool, err);
    if (st != PL_OK) {
        cpu_close(ci);
        return st;
    }
    *instance = ci;
    return PL_OK;
}

/* A proof's state is its h scalars (NULL outside h .. msm_g1(H)). */
static pl_status cpu_begin(pl__backend_proof *proof, pl_error *err)
{
    proof->state = NULL;
    return PL_OK;
}

static void cpu_end(pl__backend_proof *proof)
{
    pl__free(proof->state);
    proof->state = NULL;
}

typedef struct {
    const blst_fr *a, *b, *c;
    uint8_t *h;
    size_t n, per_task;
} h_ctx;

/* h = a b - c on the coset, written as standard-form scalars for the MSM. */
static void compute_h(void *arg, size_t task, unsigned worker)
{
    h_ctx *ctx = arg;
    size_t lo = task * ctx->per_task, hi = lo + ctx->per_task;
    if (hi > ctx->n)
        hi = ctx->n;
    for (size_t i = lo; i < hi; i++) {
        blst_fr t;
        blst_fr_mul(&t, &ctx->a[i], &ctx->b[i]);
        blst_fr_sub(&t, &t, &ctx->c[i]);
        pl__fr_to_le(ctx->h + i * PL__FR_BYTES, &t);
    }
}

static pl_status cpu_h(pl__backend_proof *proof, blst_fr *abc, pl_error *err)
{
    cpu_instance *ci = proof->instance;
    size_t n = ci->zkey->domain_size;
    blst_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    pl__ntt_to_odd_coset(ci->ntt, a, ci->pool);
    pl__ntt_to_odd_coset(ci->ntt, b, ci->pool);
    pl__ntt_to_odd_coset(ci->ntt, c, ci->pool);
    pl__stage_lap(proof->timer, "ntt");

    uint8_t *h = pl__alloc(PL_BUF_H, (uint64_t)n * PL__FR_BYTES, err);
    if (!h)
        return PL_ENOMEM;
    h_ctx ctx = {a, b, c, h, n, 0};
    size_t tasks = 4 * (size_t)pl__pool_size(ci->pool);
    ctx.per_task = (n + tasks - 1) / tasks;
    if (ctx.per_task < 1024)
        ctx.per_task = 1024;
    pl__pool_run(ci->pool, (n + ctx.per_task - 1) / ctx.per_task, compute_h,
                 &ctx);
    proof->state = h;
    return PL_OK;
}

static pl_status cpu_msm_g1(pl__backend_proof *proof, pl__g1_sum sum,
                            blst_p1 *out, pl_error *err)
{
    cpu_instance *ci = proof->instance;
    const pl_zkey *zk = ci->zkey;
    const uint8_t *w = proof->wtns->values;
    uint64_t first_private = (uint64_t)zk->n_public + 1;
    pl_status st;
    switch (sum) {
    case PL__SUM_H:
        st = pl__msm_g1(out, zk->h, proof->state, zk->domain_size, ci->pool,
                        err);
        pl__free(proof->state); /* H is the only reader of h */
        proof->state = NULL;
        return st;
    case PL__SUM_A:
        return pl__msm_g1_of_witness(out, zk->a, w, zk->n_vars, ci->plain_msm,
                                     ci->pool, err);
    case PL__SUM_B1:
        return pl__msm_g1_of_witness(out, zk->b1, w, zk->n_vars, ci->plain_msm,
                                     ci->pool, err);
    case PL__SUM_C:
        return pl__msm_g1_of_witness(out, zk->c,
                                     w + first_private * PL__FR_BYTES,
                                     pl__zkey_n_private(zk), ci->plain_msm,
                                     ci->pool, err);
    default:
        return pl__error_set(err, PL_EINTERNAL, "cpu backend: no sum %d",
                             (int)sum);
    }
}

const pl__backend_ops pl__backend_cpu = {
    .name = "cpu",
    .g1_on_host = true,
    .plan = cpu_plan,
    .open = cpu_open,
    .close = cpu_close,
    .begin = cpu_begin,
    .h = cpu_h,
    .msm_g1 = cpu_msm_g1,
    .end = cpu_end,
};
