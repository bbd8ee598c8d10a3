/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CPU backend: the backend primitives (backend.h) on the prover's
 * worker pool.
 *
 *   open:    the NTT plan of the shape's domain and roots (twiddles, coset
 *            constants: class params, resident); the bases stay where the
 *            key decoder put them (read in place);
 *   h:       a, b, c to the odd coset in place (inverse NTT, shift, NTT),
 *            then a b - c there, as canonical scalars (class h): n of them
 *            for PL__H_ODD_COSET; for PL__H_COEFFICIENTS divided by t
 *            (t = g^n - 1 = -2 on the odd coset), back through an inverse
 *            NTT and times g^-j, h's n - 1 coefficients;
 *   msm_g1:  H over h (dense scalars: the batch-affine Pippenger), then h
 *            is freed; A, B1 and C over the scalars named at begin (mostly
 *            0 and 1 in circuits built from bits: the witness-aware MSM
 *            unless the prover was configured with plain_msm), converted
 *            first into scratch when they are Montgomery-form;
 *   msm_g1_batch: the same sums for k proofs begun together, each sum of
 *            the k taken in one batched MSM (msm/msm_batch.c: one pass
 *            over the pool on a grid planned for k, phi's table made once),
 *            Montgomery-form scalars converted for all k first.
 *
 * Per curve (the shape's): the NTT plan is the curve's (its transforms
 * instantiated per field, ntt/ntt_impl.h), the MSMs are the curve's groups
 * (pl__msm_sum by group), and a b - c has a loop per field -- on BN254 one
 * per field implementation (mulx/adx or portable), chosen once per call.
 * BN254 keys are snarkjs's (H on the odd coset, standard-form scalars):
 * bellperson's forms are refused there.
 */
#include "backend/backend.h"
#include "field/bn254/fp.h"
#include "field/field.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

#define FR_BYTES ((uint64_t)sizeof(blst_fr))

typedef struct {
    pl__backend_shape shape;
    const uint8_t *bases[PL__SUM_COUNT];
    pl__pool *pool;
    pl__ntt_plan *ntt;
    bool plain_msm;
} cpu_instance;

/* A proof's state: its h scalars, from h until the H sum. */
typedef struct {
    pl_scalar *h;
} cpu_proof;

static size_t largest_variable_set(const pl__backend_shape *shape)
{
    size_t most = 0;
    for (int k = PL__SUM_A; k < PL__SUM_COUNT; k++)
        if (shape->counts[k] > most)
            most = shape->counts[k];
    return most;
}

static void cpu_plan(const pl__backend_shape *shape, unsigned threads,
                     pl__prove_plan *out)
{
    uint64_t n = (uint64_t)1 << shape->log2n;
    threads = pl__pool_threads_for(threads);
    memset(out, 0, sizeof(*out));
    out->bytes[PL_BUF_H] = n * FR_BYTES;
    /* the G1 MSMs run one after another on the pool: the largest of them
     * (H's dense, the others' witness-aware or plain: the bound covers
     * both); Montgomery-form scalars converted first, beside it */
    const pl__msm_group_id g1 = pl__shape_g1(shape);
    uint64_t most = pl__msm_sum_scratch_bytes(g1, pl__shape_h_count(shape),
                                              threads, NULL);
    for (int k = PL__SUM_A; k < PL__SUM_COUNT; k++) {
        uint64_t b = pl__msm_sum_of_witness_scratch_bytes(
            g1, shape->counts[k], threads);
        if (b > most)
            most = b;
    }
    if (shape->montgomery_scalars)
        most += (uint64_t)largest_variable_set(shape) * FR_BYTES;
    out->bytes[PL_BUF_MSM_SCRATCH] = most;
    out->resident_bytes = pl__ntt_plan_bytes(shape->log2n);
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
    if (cfg->shape.curve == PL__CURVE_BN254 &&
        (cfg->shape.h_form != PL__H_ODD_COSET ||
         cfg->shape.roots != PL__ROOTS_SNARKJS ||
         cfg->shape.montgomery_scalars))
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: cpu backend: a %s "
                             "key in bellperson's form (only snarkjs's zkeys "
                             "are read on this curve)", cfg->name,
                             pl__curve_name(cfg->shape.curve));
    cpu_instance *ci = calloc(1, sizeof(*ci));
    if (!ci)
        return pl__error_set(err, PL_ENOMEM, "cpu backend: out of memory");
    ci->shape = cfg->shape;
    memcpy(ci->bases, cfg->bases, sizeof(ci->bases));
    ci->pool = cfg->pool;
    ci->plain_msm = cfg->plain_msm;
    pl_status st = cfg->shape.roots == PL__ROOTS_BLSTRS
                       ? pl__ntt_plan_create_blstrs(&ci->ntt, cfg->shape.log2n,
                                                    cfg->pool, err)
                       : pl__ntt_plan_create_curve(&ci->ntt, cfg->shape.curve,
                                                   cfg->shape.log2n, cfg->pool,
                                                   err);
    if (st != PL_OK) {
        cpu_close(ci);
        return st;
    }
    *instance = ci;
    return PL_OK;
}

static pl_status cpu_begin(pl__backend_proof *proof, pl_error *err)
{
    cpu_proof *cp = calloc(1, sizeof(*cp));
    if (!cp)
        return pl__error_set(err, PL_ENOMEM, "cpu backend: out of memory");
    proof->state = cp;
    return PL_OK;
}

static void cpu_end(pl__backend_proof *proof)
{
    cpu_proof *cp = proof->state;
    if (cp)
        pl__free(cp->h);
    free(cp);
    proof->state = NULL;
}

typedef struct {
    blst_fr *a;
    const blst_fr *b, *c;
    pl_scalar *h;
    blst_fr factor;  /* what a b - c is multiplied by (1, or 1/t) */
    bool scale;
    size_t n, per_task;
} h_ctx;

/* (a b - c) x factor on the coset: as standard-form scalars for the MSM
 * (odd coset), or kept Montgomery in a's place for the way back. */
static void compute_h(void *arg, size_t task, unsigned worker)
{
    h_ctx *ctx = arg;
    (void)worker;
    size_t lo = task * ctx->per_task, hi = lo + ctx->per_task;
    if (hi > ctx->n)
        hi = ctx->n;
    for (size_t i = lo; i < hi; i++) {
        blst_fr t;
        blst_fr_mul(&t, &ctx->a[i], &ctx->b[i]);
        blst_fr_sub(&t, &t, &ctx->c[i]);
        if (ctx->scale)
            blst_fr_mul(&ctx->a[i], &t, &ctx->factor);
        else
            pl__fr_to_le(ctx->h[i].b, &t);
    }
}

/* The same on BN254 (odd coset only), instantiated per implementation. */
PL__BN254_INLINE void compute_h_bn254(h_ctx *ctx, size_t task,
                                      pl__bn254_arith v)
{
    const pl__bn254_fr *a = (const pl__bn254_fr *)ctx->a;
    const pl__bn254_fr *b = (const pl__bn254_fr *)ctx->b;
    const pl__bn254_fr *c = (const pl__bn254_fr *)ctx->c;
    size_t lo = task * ctx->per_task, hi = lo + ctx->per_task;
    if (hi > ctx->n)
        hi = ctx->n;
    for (size_t i = lo; i < hi; i++) {
        pl__bn254_fr t;
        pl__bn254_fr_mul(&t, &a[i], &b[i], v);
        pl__bn254_fr_sub(&t, &t, &c[i], v);
        pl__bn254_fr_to_le(ctx->h[i].b, &t);
    }
}

static void compute_h_bn254_adx(void *arg, size_t task, unsigned worker)
{
    (void)worker;
    compute_h_bn254(arg, task, PL__BN254_ADX);
}

static void compute_h_bn254_portable(void *arg, size_t task, unsigned worker)
{
    (void)worker;
    compute_h_bn254(arg, task, PL__BN254_PORTABLE);
}

static void run_h(cpu_instance *ci, h_ctx *ctx)
{
    size_t tasks = 4 * (size_t)pl__pool_size(ci->pool);
    ctx->per_task = (ctx->n + tasks - 1) / tasks;
    if (ctx->per_task < 1024)
        ctx->per_task = 1024;
    void (*task)(void *, size_t, unsigned) = compute_h;
    if (ci->shape.curve == PL__CURVE_BN254)
        task = pl__bn254_arith_current() == PL__BN254_ADX
                   ? compute_h_bn254_adx
                   : compute_h_bn254_portable;
    pl__pool_run(ci->pool, (ctx->n + ctx->per_task - 1) / ctx->per_task,
                 task, ctx);
}

/* h's n - 1 coefficients from (a b - c) / t on the odd coset, in a's
 * place: the inverse NTT gives the coefficients of h(g x), so coefficient
 * j is divided by g^j. */
static void coefficients_back(cpu_instance *ci, blst_fr *v, pl_scalar *h,
                              size_t n)
{
    pl__ntt_inverse(ci->ntt, v, ci->pool);
    const blst_fr *unused_tw;
    blst_fr unused_n_inv, g, g_inv, pw;
    pl__ntt_plan_constants(ci->ntt, &unused_tw, &unused_n_inv, &g);
    blst_fr_inverse(&g_inv, &g);
    const uint64_t one_limbs[4] = {1, 0, 0, 0};
    blst_fr_from_uint64(&pw, one_limbs);
    for (size_t j = 0; j + 1 < n; j++) {
        blst_fr_mul(&v[j], &v[j], &pw);
        pl__fr_to_le(h[j].b, &v[j]);
        blst_fr_mul(&pw, &pw, &g_inv);
    }
}

static pl_status cpu_h(pl__backend_proof *proof, blst_fr *abc, pl_error *err)
{
    cpu_instance *ci = proof->instance;
    cpu_proof *cp = proof->state;
    size_t n = (size_t)1 << ci->shape.log2n;
    blst_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    pl__ntt_to_odd_coset_elems(ci->ntt, a, ci->pool);
    pl__ntt_to_odd_coset_elems(ci->ntt, b, ci->pool);
    pl__ntt_to_odd_coset_elems(ci->ntt, c, ci->pool);
    pl__stage_lap(proof->timer, "ntt");

    pl_scalar *h = pl__alloc(PL_BUF_H, (uint64_t)n * FR_BYTES, err);
    if (!h)
        return PL_ENOMEM;
    h_ctx ctx = {a, b, c, h, {{0}}, false, n, 0};
    if (ci->shape.h_form == PL__H_COEFFICIENTS) {
        /* t(g w^i) = g^n - 1 = -2 on the odd coset: times -1/2 */
        blst_fr two;
        const uint64_t two_limbs[4] = {2, 0, 0, 0};
        blst_fr_from_uint64(&two, two_limbs);
        blst_fr_inverse(&ctx.factor, &two);
        blst_fr_cneg(&ctx.factor, &ctx.factor, true);
        ctx.scale = true;
    }
    run_h(ci, &ctx);
    if (ci->shape.h_form == PL__H_COEFFICIENTS)
        coefficients_back(ci, a, h, n);
    cp->h = h;
    return PL_OK;
}

/* Standard form of n Montgomery-form scalars. */
static void from_montgomery(pl_scalar *out, const pl_scalar *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        blst_fr f;
        memcpy(&f, in[i].b, sizeof(f));
        pl__fr_to_le(out[i].b, &f);
    }
}

static pl_status cpu_msm_g1(pl__backend_proof *proof, pl__g1_sum sum,
                            blst_p1 *out, pl_error *err)
{
    cpu_instance *ci = proof->instance;
    cpu_proof *cp = proof->state;
    const uint8_t *bases = ci->bases[sum];
    pl_status st;
    if (sum == PL__SUM_H) {
        if (!cp->h)
            return pl__error_set(err, PL_EINTERNAL, "cpu backend: the H sum "
                                 "before h");
        st = pl__msm_sum(pl__shape_g1(&ci->shape), out, bases,
                         (const uint8_t *)cp->h,
                         pl__shape_h_count(&ci->shape), NULL, ci->pool, err);
        pl__free(cp->h); /* H is the only reader of h */
        cp->h = NULL;
        return st;
    }
    if (sum < 0 || sum >= PL__SUM_COUNT)
        return pl__error_set(err, PL_EINTERNAL, "cpu backend: no sum %d",
                             (int)sum);
    const pl__scalars *s = &proof->scalars[sum];
    if (s->n > ci->shape.counts[sum])
        return pl__error_set(err, PL_EINTERNAL, "cpu backend: %zu scalars "
                             "for a set of %zu points", s->n,
                             ci->shape.counts[sum]);
    const pl_scalar *v = s->v;
    pl_scalar *converted = NULL;
    if (s->montgomery && s->n) {
        if (!(converted = pl__alloc(PL_BUF_MSM_SCRATCH,
                                    (uint64_t)s->n * FR_BYTES, err)))
            return PL_ENOMEM;
        from_montgomery(converted, s->v, s->n);
        v = converted;
    }
    st = pl__msm_sum_of_witness(pl__shape_g1(&ci->shape), out, bases,
                                (const uint8_t *)v, s->n, ci->plain_msm,
                                ci->pool, err);
    if (converted) {
        memset(converted, 0, (uint64_t)s->n * FR_BYTES);
        pl__free(converted);
    }
    return st;
}

/* A batch's bytes: k proofs' h, and the largest of the batched sums with
 * all k vectors converted; at most k times cpu_plan's in every class
 * (msm.h: a batch's scratch is at most k sums'). */
static void cpu_plan_batch(const pl__backend_shape *shape, unsigned threads,
                           size_t k, pl__prove_plan *out)
{
    cpu_plan(shape, threads, out);
    if (k < 2)
        return;
    threads = pl__pool_threads_for(threads);
    uint64_t n = (uint64_t)1 << shape->log2n;
    out->bytes[PL_BUF_H] = k * n * FR_BYTES;
    uint64_t most = pl__msm_sum_batch_scratch_bytes(
        pl__shape_g1(shape), pl__shape_h_count(shape), k, threads, NULL);
    for (int s = PL__SUM_A; s < PL__SUM_COUNT; s++) {
        uint64_t b = pl__msm_sum_batch_of_witness_scratch_bytes(
            pl__shape_g1(shape), shape->counts[s], k, threads);
        if (shape->montgomery_scalars)
            b += k * (uint64_t)shape->counts[s] * FR_BYTES;
        if (b > most)
            most = b;
    }
    out->bytes[PL_BUF_MSM_SCRATCH] = most;
}

/* The H sums of a batch over the k proofs' h, each h freed after. */
static pl_status batch_h(cpu_instance *ci, pl__backend_proof *const *proofs,
                         size_t k, const uint8_t **sc, blst_p1 *outs,
                         pl_error *err)
{
    pl_status st = PL_OK;
    for (size_t j = 0; j < k && st == PL_OK; j++)
        if (!(sc[j] = (const uint8_t *)((cpu_proof *)proofs[j]->state)->h))
            st = pl__error_set(err, PL_EINTERNAL, "cpu backend: the H sum "
                               "of proof %zu of a batch before its h", j);
    if (st == PL_OK)
        st = pl__msm_sum_batch(pl__shape_g1(&ci->shape), outs,
                               ci->bases[PL__SUM_H], sc, k,
                               pl__shape_h_count(&ci->shape), NULL, ci->pool,
                               err);
    for (size_t j = 0; j < k; j++) { /* H is the only reader of h */
        cpu_proof *cp = proofs[j]->state;
        pl__free(cp->h);
        cp->h = NULL;
    }
    return st;
}

static pl_status cpu_msm_g1_batch(pl__backend_proof *const *proofs, size_t k,
                                  pl__g1_sum sum, blst_p1 *outs,
                                  pl_error *err)
{
    cpu_instance *ci = proofs[0]->instance;
    pl_status st = PL_OK;
    if (sum < 0 || sum >= PL__SUM_COUNT)
        return pl__error_set(err, PL_EINTERNAL, "cpu backend: no sum %d",
                             (int)sum);
    size_t n = proofs[0]->scalars[sum].n, mont = 0;
    bool one_by_one = k < 2 || n > ci->shape.counts[sum];
    for (size_t j = 0; j < k; j++) {
        if (proofs[j]->instance != ci)
            return pl__error_set(err, PL_EINTERNAL, "cpu backend: a batch "
                                 "over two instances");
        if (sum != PL__SUM_H && proofs[j]->scalars[sum].n != n)
            one_by_one = true;
        mont += proofs[j]->scalars[sum].montgomery && n;
    }
    /* the batched sums are written pl__msm_sum_bytes apart, which is the
     * slots' stride on BLS12-381 only: a BN254 batch is summed proof by
     * proof (each into its slot, as msm_g1 does) */
    bool packed = pl__msm_sum_bytes(pl__shape_g1(&ci->shape)) == sizeof(*outs);
    if (!packed || (one_by_one && sum != PL__SUM_H)) {
        /* one proof, unequal lengths, or too many scalars (which msm_g1
         * refuses with its message) */
        for (size_t j = 0; j < k && st == PL_OK; j++)
            st = cpu_msm_g1(proofs[j], sum, &outs[j], err);
        return st;
    }
    const uint8_t **sc = calloc(k, sizeof(*sc));
    if (!sc)
        return pl__error_set(err, PL_ENOMEM, "cpu backend: out of memory");
    if (sum == PL__SUM_H) {
        st = batch_h(ci, proofs, k, sc, outs, err);
        free(sc);
        return st;
    }
    pl_scalar *converted = NULL;
    uint64_t conv_bytes = mont * (uint64_t)n * FR_BYTES;
    if (mont && !(converted = pl__alloc(PL_BUF_MSM_SCRATCH, conv_bytes, err))) {
        free(sc);
        return PL_ENOMEM;
    }
    for (size_t j = 0, m = 0; j < k; j++) {
        const pl__scalars *s = &proofs[j]->scalars[sum];
        sc[j] = (const uint8_t *)s->v;
        if (s->montgomery) {
            from_montgomery(converted + m * n, s->v, n);
            sc[j] = (const uint8_t *)(converted + m++ * n);
        }
    }
    st = pl__msm_sum_batch_of_witness(pl__shape_g1(&ci->shape), outs,
                                      ci->bases[sum], sc, k, n,
                                      ci->plain_msm, ci->pool, err);
    if (converted) {
        memset(converted, 0, conv_bytes);
        pl__free(converted);
    }
    free(sc);
    return st;
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
    .plan_batch = cpu_plan_batch,
    .msm_g1_batch = cpu_msm_g1_batch,
};
