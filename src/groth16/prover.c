/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Groth16 proof's skeleton, written once for every key format, over a
 * backend that does the heavy transforms and sums (src/backend/: the
 * CPU's threads or a GPU).  In the paper's order, as rapidsnark's
 * Prover::prove reads:
 *
 *   start:           B's G2 sum starts on its own thread;
 *                    the backend computes H's scalars from a, b, c (to the
 *                    odd coset; a b - c; for bellperson's keys back to
 *                    coefficients); a/b/c freed;
 *                    the backend's G1 sums H, A, B1, C;
 *   pl_prove_finish: join the G2 sum, blind with r and s, assemble:
 *                      A = alpha1 + sum_A + r delta1
 *                      B = beta2 + sum_B2 + s delta2
 *                      C = sum_C + sum_H + s A + r B1 - r s delta1.
 *
 * What differs between the zkey and bellperson's parameters is only how
 * the key is decoded (groth16/key.h) and how a proof's input is prepared
 * (a witness synthesized through the zkey's matrices, groth16/
 * zkey_prover.c; bellperson's assignment gathered by its densities,
 * groth16/c2.c); from here on they are one path.
 *
 * The curve is the key's (its shape's): the G2 sum runs in its group, the
 * blinding is drawn below its r and the assembly is its own
 * (groth16/assemble.c); everything else here is the same for both.
 *
 * Every buffer goes through the accounted allocator: pending (the state
 * between start and finish), the G2 sum's scratch, and whatever the
 * backend plans.  pl__groth16_plan says how many bytes of each a proof
 * takes before it starts.
 */
#define _GNU_SOURCE
#include "groth16/prover.h"
#include "groth16/assemble.h"
#include "field/field.h"
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/beside.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pl__groth16_prover {
    const pl__groth16_key *key;
    const pl__backend_ops *backend;
    int device;     /* the backend's device this prover opened */
    void *instance; /* the backend's, for this key */
    pl__pool *pool;
    pl_stage_fn on_stage;
    void *on_stage_user;
    bool zero_blinding; /* test hook */
    bool plain_msm;     /* see pl_prover_config */
};

/* A proof between start and finish: the G1 sums are in, the G2 sum is on
 * its way. */
struct pl_pending {
    pl__groth16_prover *prover;
    pl__scalars b;      /* the G2 sum's scalars, the caller's until finish */
    pl__beside g2;      /* the G2 sum's thread */
    pl__pool *g2_pool;  /* NULL: the G2 thread alone */
    pl_status g2_status;
    pl_error g2_err;
    bool blinding_given;
    blst_scalar r, s;
    blst_p2 b2;
    blst_p1 g1[PL__SUM_COUNT];
};

void pl__groth16_set_zero_blinding(pl__groth16_prover *prover, bool zero)
{
    prover->zero_blinding = zero;
}

/* ---- backends ------------------------------------------------------------ */

pl_status pl__prover_backend(const pl__backend_ops **out, const char *name,
                             char *note, size_t note_len, pl_error *err)
{
    char why[256];
    if (!name)
        name = "cpu";
    *out = pl__backend_find(name, why, sizeof(why));
    if (!*out)
        return pl__error_set(err, strcmp(name, "cuda") == 0 ? PL_EUNSUPPORTED
                                                            : PL_EUSAGE,
                             "%s", why);
    if (note_len)
        snprintf(note, note_len, "%s", why);
    return PL_OK;
}

const char *pl__prover_backend_name(const pl__backend_ops *backend)
{
    return backend->name;
}

int pl__prover_device_count(const pl__backend_ops *backend)
{
    return backend->device_count ? backend->device_count() : 1;
}

bool pl__prover_backend_faulted(const pl__backend_ops *backend, int device,
                                char *why, size_t why_len)
{
    return backend->faulted && backend->faulted(device, why, why_len);
}

bool pl__prover_device_memory(const pl__backend_ops *backend, int device,
                              uint64_t *used_bytes, uint64_t *total_bytes,
                              uint64_t *used_at_open_bytes)
{
    *used_bytes = *total_bytes = *used_at_open_bytes = 0;
    return backend->device_memory &&
           backend->device_memory(device, used_bytes, total_bytes,
                                  used_at_open_bytes);
}

uint64_t pl__prover_device_bytes(const pl__backend_ops *backend,
                                 const pl__backend_shape *shape)
{
    return backend->device_bytes ? backend->device_bytes(shape) : 0;
}

void pl__prover_backend_plan(const pl__backend_ops *backend,
                             const pl__backend_shape *shape, unsigned threads,
                             pl__prove_plan *out)
{
    backend->plan(shape, pl__pool_threads_for(threads), out);
}

bool pl__prover_backend_on_host(const pl__backend_ops *backend)
{
    return backend->g1_on_host;
}

/* ---- plan, create, destroy ------------------------------------------------ */

/* The G2 sum's threads: the pool when the backend's G1 work leaves it
 * idle (a GPU), else its own thread alone. */
static unsigned g2_threads(const pl__backend_ops *backend, unsigned threads)
{
    return backend->g1_on_host ? 1 : threads;
}

void pl__groth16_plan(const pl__backend_shape *shape,
                      const pl__backend_ops *backend, unsigned threads,
                      pl__prove_plan *out)
{
    threads = pl__pool_threads_for(threads);
    backend->plan(shape, threads, out);
    out->bytes[PL_BUF_ABC] += 3 * ((uint64_t)1 << shape->log2n) *
                              sizeof(blst_fr);
    out->bytes[PL_BUF_PENDING] += sizeof(struct pl_pending);
    /* the G2 sum runs beside the backend's G1 sums: its scratch adds */
    out->bytes[PL_BUF_MSM_SCRATCH] += pl__msm_sum_of_witness_scratch_bytes(
        pl__shape_g2(shape), shape->counts[PL__SUM_B1],
        g2_threads(backend, threads));
}

void pl__groth16_prover_destroy(pl__groth16_prover *p)
{
    if (!p)
        return;
    if (p->instance)
        p->backend->close(p->instance);
    pl__pool_destroy(p->pool);
    free(p);
}

pl_status pl__groth16_prover_create(pl__groth16_prover **out,
                                    const pl__groth16_key *key,
                                    const pl__backend_ops *backend,
                                    const pl_prover_config *cfg,
                                    pl_error *err)
{
    *out = NULL;
    pl_prover_config defaults;
    if (!cfg) {
        pl_prover_config_init(&defaults);
        cfg = &defaults;
    }
    pl__groth16_prover *p = calloc(1, sizeof(*p));
    if (!p)
        return pl__error_set(err, PL_ENOMEM, "prover: out of memory");
    p->key = key;
    p->backend = backend;
    p->on_stage = cfg->on_stage;
    p->on_stage_user = cfg->on_stage_user;
    p->plain_msm = cfg->plain_msm;
    pl_status st = pl__pool_create(&p->pool, cfg->threads, "pl-prove", err);
    if (st != PL_OK)
        goto fail;
    pl__backend_config bc = {key->shape, {NULL}, key->path, p->pool,
                             cfg->plain_msm, cfg->device};
    p->device = cfg->device;
    memcpy(bc.bases, key->g1, sizeof(bc.bases));
    if ((st = backend->open(&p->instance, &bc, err)) != PL_OK)
        goto fail;
    *out = p;
    return PL_OK;
fail:
    pl__groth16_prover_destroy(p);
    return st;
}

const pl__groth16_key *pl__groth16_prover_key(const pl__groth16_prover *p)
{
    return p->key;
}

const pl__backend_ops *pl__groth16_prover_backend(const pl__groth16_prover *p)
{
    return p->backend;
}

int pl__groth16_prover_device(const pl__groth16_prover *p)
{
    return p->device;
}

pl__pool *pl__groth16_prover_pool(const pl__groth16_prover *p)
{
    return p->pool;
}

/* ---- start ---------------------------------------------------------------- */

static void g2_main(void *arg)
{
    pl_pending *pd = arg;
    const pl__groth16_prover *p = pd->prover;
    /* Timed for the starter's sink only (the trace's G2 span): on_stage
     * runs on the prover's callers' threads, never on this one. */
    double t0 = pl__now_seconds();
    pd->g2_status = pl__msm_sum_of_witness(pl__shape_g2(&p->key->shape),
                                           &pd->b2, p->key->b2,
                                           (const uint8_t *)pd->b.v, pd->b.n,
                                           p->plain_msm, pd->g2_pool,
                                           &pd->g2_err);
    pl__stage_span("g2_msm", t0, pl__now_seconds());
}

/* The pending state (class pending), with the G2 sum over B's scalars
 * started on its own thread. */
static pl_status pending_begin(pl__groth16_prover *p, pl_pending **out,
                               const pl__proof_input *in, pl_error *err)
{
    *out = NULL;
    const pl__scalars *b = &in->scalars[PL__SUM_B1];
    if (b->montgomery || b->n > p->key->shape.counts[PL__SUM_B1] ||
        (b->n && !b->v))
        return pl__error_set(err, PL_EINTERNAL, "prover: B's scalars (%zu, "
                             "%s) for a G2 set of %zu points", b->n,
                             b->montgomery ? "Montgomery form" : "standard",
                             p->key->shape.counts[PL__SUM_B1]);
    pl_pending *pd = pl__calloc(PL_BUF_PENDING, sizeof(*pd), err);
    if (!pd)
        return PL_ENOMEM;
    pd->prover = p;
    pd->b = *b;
    pd->g2_pool = p->backend->g1_on_host ? NULL : p->pool;
    if (in->r && in->s) {
        pd->blinding_given = true;
        pd->r = *in->r;
        pd->s = *in->s;
    }
    pl_status st = pl__beside_start(&pd->g2, "pl-g2msm", g2_main, pd, err);
    if (st != PL_OK) {
        memset(pd, 0, sizeof(*pd));
        pl__free(pd);
        return st;
    }
    *out = pd;
    return PL_OK;
}

void pl__pending_abort(pl_pending *pd)
{
    if (!pd)
        return;
    pl__beside_join(&pd->g2);
    memset(pd, 0, sizeof(*pd)); /* the blinding and the unblinded sums */
    pl__free(pd);
}

static const char *const sum_stage[PL__SUM_COUNT] = {
    [PL__SUM_H] = "msm_h", [PL__SUM_A] = "msm_a", [PL__SUM_B1] = "msm_b1",
    [PL__SUM_C] = "msm_c"};

pl_status pl__groth16_start(pl__groth16_prover *p, pl_pending **out,
                            pl__proof_input *in, void (*abc_freed)(void *ctx),
                            void *ctx, pl_error *err)
{
    const pl__backend_ops *backend = p->backend;
    pl__stage_timer timer;
    pl__backend_proof bp = {p->instance, {{0}}, &timer, NULL};
    pl_pending *pd = NULL;
    blst_fr *abc = in->abc;
    bool begun = false;
    pl_status st;
    *out = NULL;
    in->abc = NULL; /* consumed, whatever happens */
    memcpy(bp.scalars, in->scalars, sizeof(bp.scalars));
    pl__stage_timer_start(&timer, p->on_stage, p->on_stage_user);

    if ((st = pending_begin(p, &pd, in, err)) ||
        (st = backend->begin(&bp, err)))
        goto fail;
    begun = true;
    st = backend->h(&bp, abc, err);
    pl__free(abc); /* spent: H's scalars are the backend's now */
    abc = NULL;
    if (abc_freed)
        abc_freed(ctx);
    if (st != PL_OK)
        goto fail;
    pl__stage_lap(&timer, "h");
    for (int sum = 0; sum < PL__SUM_COUNT; sum++) {
        if ((st = backend->msm_g1(&bp, (pl__g1_sum)sum, &pd->g1[sum], err)))
            goto fail;
        pl__stage_lap(&timer, sum_stage[sum]);
    }
    backend->end(&bp);
    *out = pd;
    return PL_OK;

fail:
    if (begun)
        backend->end(&bp);
    if (abc) {
        pl__free(abc);
        if (abc_freed)
            abc_freed(ctx);
    }
    pl__pending_abort(pd);
    return st;
}

/* ---- a batch: k proofs of one key started together ------------------------ */

bool pl__groth16_batches(const pl__groth16_prover *p)
{
    return p->backend->msm_g1_batch && p->backend->plan_batch;
}

void pl__groth16_plan_batch(const pl__backend_shape *shape,
                            const pl__backend_ops *backend, unsigned threads,
                            size_t k, pl__prove_plan *out)
{
    pl__groth16_plan(shape, backend, threads, out);
    if (k < 2)
        return;
    threads = pl__pool_threads_for(threads);
    /* the backend's: its batch, or one proof at a time */
    if (backend->plan_batch)
        backend->plan_batch(shape, threads, k, out);
    else
        backend->plan(shape, threads, out);
    /* the skeleton's own, k times, either way: each proof's a/b/c (all
     * prepared before the batch starts), its pending state and its G2 sum
     * beside, which outlive the next proof's start */
    out->bytes[PL_BUF_ABC] += k * 3 * ((uint64_t)1 << shape->log2n) *
                              sizeof(blst_fr);
    out->bytes[PL_BUF_PENDING] += k * sizeof(struct pl_pending);
    out->bytes[PL_BUF_MSM_SCRATCH] +=
        k * pl__msm_g2_of_witness_scratch_bytes(shape->counts[PL__SUM_B1],
                                                g2_threads(backend, threads));
}

/* Each input consumed: its a/b/c freed (abc_freed called) where still
 * held. */
static void batch_drop_abc(blst_fr **abc, size_t k,
                           void (*abc_freed)(void *ctx), void *const *ctx)
{
    for (size_t j = 0; j < k; j++)
        if (abc[j]) {
            pl__free(abc[j]);
            abc[j] = NULL;
            if (abc_freed)
                abc_freed(ctx ? ctx[j] : NULL);
        }
}

pl_status pl__groth16_start_batch(pl__groth16_prover *p, pl_pending **out,
                                  pl__proof_input *const *in, size_t k,
                                  void (*abc_freed)(void *ctx),
                                  void *const *ctx, pl_error *err)
{
    const pl__backend_ops *backend = p->backend;
    pl_status st = PL_OK;
    for (size_t j = 0; j < k; j++)
        out[j] = NULL;
    if (k < 2 || !pl__groth16_batches(p)) {
        /* one after another, each as pl__groth16_start; on a failure the
         * rest are consumed unstarted and the started ones dropped */
        for (size_t j = 0; j < k; j++) {
            if (st == PL_OK)
                st = pl__groth16_start(p, &out[j], in[j], abc_freed,
                                       ctx ? ctx[j] : NULL, err);
            else
                batch_drop_abc(&in[j]->abc, 1, abc_freed,
                               ctx ? &ctx[j] : NULL);
        }
        if (st != PL_OK)
            for (size_t j = 0; j < k; j++) {
                pl__pending_abort(out[j]);
                out[j] = NULL;
            }
        return st;
    }
    pl__stage_timer timer;
    pl__backend_proof *bp = calloc(k, sizeof(*bp));
    pl__backend_proof **bpp = calloc(k, sizeof(*bpp));
    blst_fr **abc = calloc(k, sizeof(*abc));
    blst_p1 *sums = calloc(k, sizeof(*sums));
    size_t begun = 0;
    if (!bp || !bpp || !abc || !sums) {
        st = pl__error_set(err, PL_ENOMEM, "prover: out of memory");
        for (size_t j = 0; j < k; j++)
            batch_drop_abc(&in[j]->abc, 1, abc_freed,
                           ctx ? &ctx[j] : NULL);
        goto done;
    }
    for (size_t j = 0; j < k; j++) { /* consumed, whatever happens */
        abc[j] = in[j]->abc;
        in[j]->abc = NULL;
    }
    pl__stage_timer_start(&timer, p->on_stage, p->on_stage_user);
    for (; begun < k; begun++) {
        size_t j = begun;
        bp[j] = (pl__backend_proof){p->instance, {{0}}, &timer, NULL};
        memcpy(bp[j].scalars, in[j]->scalars, sizeof(bp[j].scalars));
        bpp[j] = &bp[j];
        if ((st = pending_begin(p, &out[j], in[j], err)))
            goto fail;
        if ((st = backend->begin(&bp[j], err))) {
            pl__pending_abort(out[j]);
            out[j] = NULL;
            goto fail;
        }
    }
    /* each proof's a/b/c freed as soon as its h is made, while the G2
     * sums run beside */
    for (size_t j = 0; j < k; j++) {
        st = backend->h(&bp[j], abc[j], err);
        batch_drop_abc(&abc[j], 1, abc_freed, ctx ? &ctx[j] : NULL);
        if (st != PL_OK)
            goto fail;
    }
    pl__stage_lap(&timer, "h");
    for (int sum = 0; sum < PL__SUM_COUNT; sum++) {
        if ((st = backend->msm_g1_batch(bpp, k, (pl__g1_sum)sum, sums, err)))
            goto fail;
        for (size_t j = 0; j < k; j++)
            out[j]->g1[sum] = sums[j];
        pl__stage_lap(&timer, sum_stage[sum]);
    }
    for (size_t j = 0; j < k; j++)
        backend->end(&bp[j]);
    goto done;

fail:
    for (size_t j = 0; j < begun; j++)
        backend->end(&bp[j]);
    batch_drop_abc(abc, k, abc_freed, ctx);
    for (size_t j = 0; j < k; j++) {
        pl__pending_abort(out[j]);
        out[j] = NULL;
    }
done:
    if (sums)
        memset(sums, 0, k * sizeof(*sums));
    free(sums);
    free(abc);
    free(bpp);
    free(bp);
    return st;
}

/* ---- finish --------------------------------------------------------------- */

pl_status pl_prove_finish(pl_pending *pd, pl_proof *out, pl_error *err)
{
    pl__groth16_prover *p = pd->prover;
    const pl__groth16_key *key = p->key;
    pl_status st = PL_OK;
    pl__stage_timer timer;
    pl__stage_timer_start(&timer, p->on_stage, p->on_stage_user);
    pl__beside_join(&pd->g2);
    pl__stage_lap(&timer, "g2_join");
    if (pd->g2_status != PL_OK) {
        st = pd->g2_status;
        if (err)
            *err = pd->g2_err;
        goto done;
    }

    if (p->zero_blinding) {
        memset(&pd->r, 0, sizeof(pd->r));
        memset(&pd->s, 0, sizeof(pd->s));
    } else if (!pd->blinding_given &&
               ((st = pl__groth16_random_scalar(key->shape.curve, &pd->r,
                                                err)) ||
                (st = pl__groth16_random_scalar(key->shape.curve, &pd->s,
                                                err)))) {
        goto done;
    }
    if (key->shape.curve == PL__CURVE_BN254) {
        pl__groth16_assemble_bn254(out, &key->bn254, &pd->g1[PL__SUM_A],
                                   &pd->g1[PL__SUM_B1], &pd->b2,
                                   &pd->g1[PL__SUM_C], &pd->g1[PL__SUM_H],
                                   &pd->r, &pd->s);
        pl__stage_lap(&timer, "assemble");
        goto done;
    }
    pl__groth16_fixed fixed;
    blst_p1_from_affine(&fixed.alpha1, &key->alpha1);
    blst_p1_from_affine(&fixed.beta1, &key->beta1);
    blst_p1_from_affine(&fixed.delta1, &key->delta1);
    blst_p2_from_affine(&fixed.beta2, &key->beta2);
    blst_p2_from_affine(&fixed.delta2, &key->delta2);
    blst_p1 c_sum;
    blst_p1_add_or_double(&c_sum, &pd->g1[PL__SUM_C], &pd->g1[PL__SUM_H]);
    pl__groth16_assemble(out, &fixed, &pd->g1[PL__SUM_A], &pd->g1[PL__SUM_B1],
                         &pd->b2, &c_sum, &pd->r, &pd->s);
    pl__stage_lap(&timer, "assemble");
    memset(&c_sum, 0, sizeof(c_sum));
done:
    /* the blinding factors and the unblinded sums go with it */
    memset(pd, 0, sizeof(*pd));
    pl__free(pd);
    return st;
}
