/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Groth16 prover: the proof's skeleton, once, over a backend that does
 * the heavy transforms and sums (src/backend/: the CPU's threads or a GPU).
 * In the stages of snarkjs's `groth16 prove` (see FORMATS.md):
 *
 *   synthesize:      a, b from the constraint matrices (CSR, built once per
 *                    circuit from the zkey's coefficients), c = a * b;
 *   start:           the B-in-G2 MSM starts on its own thread;
 *                    the backend computes H's scalars from a, b, c
 *                    (odd coset: iNTT, shift, NTT; a b - c); a/b/c freed;
 *                    the backend's G1 sums H, A, B1, C;
 *   pl_prove_finish: join the G2 MSM, blind with r and s, assemble.
 *
 * The zkey's points are read in place from its memory map.  Every buffer
 * goes through the accounted allocator: csr (resident per circuit), abc
 * (3 x domain scalars), pending (the state between start and finish), the
 * G2 MSM's scratch, and whatever the backend plans.  pl__prover_plan says
 * how many bytes of each a proof takes before it starts.
 */
#define _GNU_SOURCE
#include "groth16/prover.h"
#include "groth16/assemble.h"
#include "field/field.h"
#include "formats/formats.h"
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/beside.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The A and B matrices in CSR form, rows = the domain's rows, cut from one
 * accounted allocation (class csr).  Values are the zkey's coefficients as
 * stored (coef * R^2 mod r), see multiply_term. */
typedef struct {
    blst_fr *values;      /* nnz */
    uint32_t *columns;    /* nnz: signal indices */
    uint32_t *row_start;  /* 2 x (rows + 1): A's, then B's */
    uint64_t bytes;
} constraint_matrices;

struct pl_prover {
    const pl_zkey *zkey;
    const pl__backend_ops *backend;
    void *instance;  /* the backend's, for this circuit */
    pl__pool *pool;
    constraint_matrices csr;
    pl_stage_fn on_stage;
    void *on_stage_user;
    bool zero_blinding;  /* test hook */
    bool plain_msm;      /* see pl_prover_config */
};

/* A proof between start and finish: the G1 sums are in, the G2 sum is on
 * its way. */
struct pl_pending {
    pl_prover *prover;
    const pl_wtns *wtns;
    pl__beside g2;      /* the G2 MSM's thread */
    pl__pool *g2_pool;  /* NULL: the G2 thread alone */
    pl_status g2_status;
    pl_error g2_err;
    blst_p2 b2;
    blst_p1 g1[PL__SUM_COUNT];
};

void pl_prover_config_init(pl_prover_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

void pl__prover_set_zero_blinding(pl_prover *prover, bool zero)
{
    prover->zero_blinding = zero;
}

/* ---- the constraint matrices ------------------------------------------ */

static uint64_t matrices_bytes(const pl_zkey *zk)
{
    uint64_t rows = zk->domain_size;
    return (uint64_t)zk->n_coefs * (sizeof(blst_fr) + sizeof(uint32_t)) +
           2 * (rows + 1) * sizeof(uint32_t);
}

/* Counting sort of the coefficient records by (matrix, row): two passes
 * over the section, no assumption about the records' order. */
static pl_status build_matrices(constraint_matrices *m, const pl_zkey *zk,
                                pl_error *err)
{
    uint64_t rows = zk->domain_size, nnz = zk->n_coefs;
    m->bytes = matrices_bytes(zk);
    uint8_t *block = pl__alloc(PL_BUF_CSR, m->bytes, err);
    if (!block)
        return PL_ENOMEM;
    m->values = (blst_fr *)block;
    m->columns = (uint32_t *)(block + nnz * sizeof(blst_fr));
    m->row_start = m->columns + nnz;
    uint32_t *starts = m->row_start;
    memset(starts, 0, 2 * (rows + 1) * sizeof(uint32_t));
    pl__zkey_coef_iter it;
    pl__zkey_coef c;
    for (pl__zkey_coef_iter_init(&it, zk); pl__zkey_coef_next(&it, &c);)
        starts[c.matrix * (rows + 1) + c.constraint + 1]++;
    /* one running sum over both matrices: B's entries follow A's */
    for (uint64_t i = 1; i < 2 * (rows + 1); i++)
        starts[i] += starts[i - 1];
    for (pl__zkey_coef_iter_init(&it, zk); pl__zkey_coef_next(&it, &c);) {
        uint32_t at = starts[c.matrix * (rows + 1) + c.constraint]++;
        m->columns[at] = c.signal;
        memcpy(&m->values[at], c.value, sizeof(blst_fr));
    }
    /* the fill advanced each start to the next row's: shift back */
    for (uint64_t i = 2 * (rows + 1) - 1; i > 0; i--)
        starts[i] = starts[i - 1];
    starts[0] = 0;
    return PL_OK;
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

bool pl__prover_backend_faulted(const pl__backend_ops *backend, char *why,
                                size_t why_len)
{
    return backend->faulted && backend->faulted(why, why_len);
}

bool pl__prover_device_memory(const pl__backend_ops *backend,
                              uint64_t *used_bytes, uint64_t *total_bytes,
                              uint64_t *used_at_open_bytes)
{
    *used_bytes = *total_bytes = *used_at_open_bytes = 0;
    return backend->device_memory &&
           backend->device_memory(used_bytes, total_bytes, used_at_open_bytes);
}

/* ---- plan, create, destroy ------------------------------------------------ */

/* The G2 MSM's threads: the pool when the backend's G1 work leaves it
 * idle (a GPU), else its own thread alone. */
static unsigned g2_threads(const pl__backend_ops *backend, unsigned threads)
{
    return backend->g1_on_host ? 1 : threads;
}

void pl__prover_plan(const pl_zkey *zk, const pl__backend_ops *backend,
                     unsigned threads, pl__prove_plan *out)
{
    threads = pl__pool_threads_for(threads);
    backend->plan(zk, threads, out);
    out->bytes[PL_BUF_ABC] += 3 * (uint64_t)zk->domain_size * sizeof(blst_fr);
    out->bytes[PL_BUF_PENDING] += sizeof(struct pl_pending);
    /* the G2 MSM runs beside the backend's G1 sums: its scratch adds */
    out->bytes[PL_BUF_MSM_SCRATCH] += pl__msm_g2_of_witness_scratch_bytes(
        zk->n_vars, g2_threads(backend, threads));
    out->resident_bytes += matrices_bytes(zk);
}

uint64_t pl__prover_csr_bytes(const pl_zkey *zk)
{
    return matrices_bytes(zk);
}

pl_status pl__prover_create_with_backend(pl_prover **out, const pl_zkey *zkey,
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
    pl_prover *p = calloc(1, sizeof(*p));
    if (!p)
        return pl__error_set(err, PL_ENOMEM, "prover: out of memory");
    p->zkey = zkey;
    p->backend = backend;
    p->on_stage = cfg->on_stage;
    p->on_stage_user = cfg->on_stage_user;
    p->plain_msm = cfg->plain_msm;
    pl_status st = pl__pool_create(&p->pool, cfg->threads, "pl-prove", err);
    if (st != PL_OK || (st = build_matrices(&p->csr, zkey, err)) != PL_OK)
        goto fail;
    pl__backend_config bc = {zkey, p->pool, cfg->plain_msm};
    if ((st = backend->open(&p->instance, &bc, err)) != PL_OK)
        goto fail;
    *out = p;
    return PL_OK;
fail:
    pl_prover_destroy(p);
    return st;
}

pl_status pl_prover_create(pl_prover **out, const pl_zkey *zkey,
                           const pl_prover_config *cfg, pl_error *err)
{
    const pl__backend_ops *backend;
    *out = NULL;
    pl_status st = pl__prover_backend(&backend, cfg ? cfg->backend : NULL,
                                      NULL, 0, err);
    if (st != PL_OK)
        return st;
    return pl__prover_create_with_backend(out, zkey, backend, cfg, err);
}

void pl_prover_destroy(pl_prover *prover)
{
    if (!prover)
        return;
    if (prover->instance)
        prover->backend->close(prover->instance);
    pl__free(prover->csr.values);
    pl__pool_destroy(prover->pool);
    free(prover);
}

const pl_zkey *pl__prover_zkey(const pl_prover *p)
{
    return p->zkey;
}

/* ---- synthesis ------------------------------------------------------------ */

typedef struct {
    const constraint_matrices *m;
    const uint8_t *witness;
    blst_fr *a, *b, *c;
    size_t rows, per_task;
} synth_ctx;

/* value (x) w: the value is coef * R^2 (mod r) and w is in standard form, so
 * one Montgomery multiplication yields Montgomery(coef * w). */
static void row_dot(blst_fr *out, const constraint_matrices *m, size_t entry,
                    size_t end, const uint8_t *witness)
{
    blst_fr acc, w, term;
    memset(&acc, 0, sizeof(acc));
    for (; entry < end; entry++) {
        memcpy(&w, witness + (uint64_t)m->columns[entry] * PL__FR_BYTES,
               sizeof(w));
        blst_fr_mul(&term, &m->values[entry], &w);
        blst_fr_add(&acc, &acc, &term);
    }
    *out = acc;
}

static void synthesize_rows(void *arg, size_t task, unsigned worker)
{
    synth_ctx *ctx = arg;
    const uint32_t *a_start = ctx->m->row_start;
    const uint32_t *b_start = a_start + ctx->rows + 1;
    size_t lo = task * ctx->per_task, hi = lo + ctx->per_task;
    if (hi > ctx->rows)
        hi = ctx->rows;
    for (size_t row = lo; row < hi; row++) {
        row_dot(&ctx->a[row], ctx->m, a_start[row], a_start[row + 1], ctx->witness);
        row_dot(&ctx->b[row], ctx->m, b_start[row], b_start[row + 1], ctx->witness);
        blst_fr_mul(&ctx->c[row], &ctx->a[row], &ctx->b[row]);
    }
}

pl_status pl__prover_synthesize(pl_prover *p, blst_fr **abc_out,
                                const pl_wtns *wtns, pl__pool *pool,
                                pl_error *err)
{
    const pl_zkey *zk = p->zkey;
    *abc_out = NULL;
    if (wtns->n_values != zk->n_vars)
        return pl__error_set(err, PL_EFORMAT,
                             "%s: the witness has %llu values but %s has "
                             "nVars = %u",
                             wtns->path, (unsigned long long)wtns->n_values,
                             zk->path, zk->n_vars);
    size_t n = zk->domain_size;
    blst_fr *abc = pl__alloc(PL_BUF_ABC, 3ull * n * sizeof(blst_fr), err);
    if (!abc)
        return PL_ENOMEM;
    synth_ctx ctx = {&p->csr, wtns->values, abc, abc + n, abc + 2 * n, n, 0};
    size_t tasks = 4 * (size_t)pl__pool_size(pool);
    ctx.per_task = (n + tasks - 1) / tasks;
    if (ctx.per_task < 256)
        ctx.per_task = 256;
    pl__pool_run(pool, (n + ctx.per_task - 1) / ctx.per_task, synthesize_rows,
                 &ctx);
    *abc_out = abc;
    return PL_OK;
}

/* ---- start ---------------------------------------------------------------- */

static void g2_main(void *arg)
{
    pl_pending *pd = arg;
    const pl_prover *p = pd->prover;
    const pl_zkey *zk = p->zkey;
    /* Timed for the starter's sink only (the trace's G2 span): on_stage
     * runs on the prover's callers' threads, never on this one. */
    double t0 = pl__now_seconds();
    pd->g2_status = pl__msm_g2_of_witness(&pd->b2, zk->b2, pd->wtns->values,
                                          zk->n_vars, p->plain_msm,
                                          pd->g2_pool, &pd->g2_err);
    pl__stage_span("g2_msm", t0, pl__now_seconds());
}

/* The pending state (class pending), with the G2 MSM over the witness
 * started on its own thread. */
static pl_status pending_begin(pl_prover *p, pl_pending **out,
                               const pl_wtns *wtns, pl_error *err)
{
    *out = NULL;
    pl_pending *pd = pl__calloc(PL_BUF_PENDING, sizeof(*pd), err);
    if (!pd)
        return PL_ENOMEM;
    pd->prover = p;
    pd->wtns = wtns;
    pd->g2_pool = p->backend->g1_on_host ? NULL : p->pool;
    pl_status st = pl__beside_start(&pd->g2, "pl-g2msm", g2_main, pd, err);
    if (st != PL_OK) {
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
    pl__free(pd);
}

static const char *const sum_stage[PL__SUM_COUNT] = {
    [PL__SUM_H] = "msm_h", [PL__SUM_A] = "msm_a", [PL__SUM_B1] = "msm_b1",
    [PL__SUM_C] = "msm_c"};

pl_status pl__prove_start_abc(pl_prover *p, pl_pending **out, blst_fr *abc,
                              const pl_wtns *wtns, pl_error *err)
{
    const pl__backend_ops *backend = p->backend;
    pl__stage_timer timer;
    pl__backend_proof bp = {p->instance, wtns, &timer, NULL};
    pl_pending *pd = NULL;
    bool begun = false;
    pl_status st;
    *out = NULL;
    pl__stage_timer_start(&timer, p->on_stage, p->on_stage_user);

    if ((st = pending_begin(p, &pd, wtns, err)) ||
        (st = backend->begin(&bp, err)))
        goto fail;
    begun = true;
    st = backend->h(&bp, abc, err);
    pl__free(abc); /* spent: H's scalars are the backend's now */
    abc = NULL;
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
    pl__free(abc);
    pl__pending_abort(pd);
    return st;
}

pl_status pl_prove_start(pl_prover *p, pl_pending **out, const pl_wtns *wtns,
                         pl_error *err)
{
    blst_fr *abc;
    pl__stage_timer timer;
    *out = NULL;
    pl__stage_timer_start(&timer, p->on_stage, p->on_stage_user);
    pl_status st = pl__prover_synthesize(p, &abc, wtns, p->pool, err);
    if (st != PL_OK)
        return st;
    pl__stage_lap(&timer, "synthesize");
    return pl__prove_start_abc(p, out, abc, wtns, err);
}

/* ---- finish --------------------------------------------------------------- */

static void p1_from_bytes(blst_p1 *out, const uint8_t *bytes)
{
    blst_p1_affine aff;
    memcpy(&aff, bytes, sizeof(aff));
    blst_p1_from_affine(out, &aff);
}

static void p2_from_bytes(blst_p2 *out, const uint8_t *bytes)
{
    blst_p2_affine aff;
    memcpy(&aff, bytes, sizeof(aff));
    blst_p2_from_affine(out, &aff);
}

pl_status pl_prove_finish(pl_pending *pd, pl_proof *out, pl_error *err)
{
    pl_prover *p = pd->prover;
    const pl_zkey *zk = p->zkey;
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

    blst_scalar r, s;
    memset(&r, 0, sizeof(r));
    memset(&s, 0, sizeof(s));
    if (!p->zero_blinding) {
        if ((st = pl__fr_random_scalar(&r, err)) ||
            (st = pl__fr_random_scalar(&s, err)))
            goto done;
    }
    pl__groth16_fixed key;
    p1_from_bytes(&key.alpha1, zk->alpha1);
    p1_from_bytes(&key.beta1, zk->beta1);
    p1_from_bytes(&key.delta1, zk->delta1);
    p2_from_bytes(&key.beta2, zk->beta2);
    p2_from_bytes(&key.delta2, zk->delta2);
    blst_p1 c_sum;
    blst_p1_add_or_double(&c_sum, &pd->g1[PL__SUM_C], &pd->g1[PL__SUM_H]);
    pl__groth16_assemble(out, &key, &pd->g1[PL__SUM_A], &pd->g1[PL__SUM_B1],
                         &pd->b2, &c_sum, &r, &s);
    pl__stage_lap(&timer, "assemble");

    /* Scrub the blinding factors and the unblinded sums. */
    memset(&r, 0, sizeof(r));
    memset(&s, 0, sizeof(s));
    memset(&c_sum, 0, sizeof(c_sum));
done:
    memset(pd, 0, sizeof(*pd));
    pl__free(pd);
    return st;
}

pl_status pl_prove(pl_prover *prover, pl_proof *out, const pl_wtns *wtns,
                   pl_error *err)
{
    pl_pending *pd;
    pl_status st = pl_prove_start(prover, &pd, wtns, err);
    if (st != PL_OK)
        return st;
    return pl_prove_finish(pd, out, err);
}
