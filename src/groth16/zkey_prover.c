/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The zkey's prover: a snarkjs zkey decoded into a key for the one
 * skeleton (groth16/prover.c), and a witness prepared into a proof's
 * input, in the stages of snarkjs's `groth16 prove` (see FORMATS.md):
 *
 *   decode:      the zkey's sections in place as the key's base sets (A
 *                and B over every signal, C over the private ones, H over
 *                the domain: Lagrange points of the odd coset), snarkjs's
 *                roots, H's scalars on the odd coset;
 *   synthesize:  a, b from the constraint matrices (CSR, built once per
 *                circuit from the zkey's coefficients), c = a * b;
 *   input:       a, b, c, and the witness as A's, B's (and so B2's) and
 *                C's scalars: the skeleton does the rest.
 *
 * The curve is the zkey's: its points are read in the curve's layout and
 * the rows are summed in its scalar field (on BN254 by a loop per field
 * implementation, chosen once per call); a witness of another curve is
 * refused naming both files.
 *
 * The public pl_prover_* calls are this prover.  Every buffer goes through
 * the accounted allocator: csr (resident per circuit), abc (3 x domain
 * scalars), and the skeleton's.
 */
#include "groth16/zkey_prover.h"
#include "field/bn254/serial.h"
#include "formats/formats.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

/* The A and B matrices in CSR form, rows = the domain's rows, cut from one
 * accounted allocation (class csr).  Values are the zkey's coefficients as
 * stored (coef * R^2 mod r), see row_dot. */
typedef struct {
    blst_fr *values;      /* nnz */
    uint32_t *columns;    /* nnz: signal indices */
    uint32_t *row_start;  /* 2 x (rows + 1): A's, then B's */
    uint64_t bytes;
} constraint_matrices;

struct pl_prover {
    const pl_zkey *zkey;
    pl__groth16_key key;
    pl__groth16_prover *skeleton;
    pl__pool *pool; /* the skeleton's */
    constraint_matrices csr;
    pl_stage_fn on_stage;
    void *on_stage_user;
};

void pl_prover_config_init(pl_prover_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

void pl__prover_set_zero_blinding(pl_prover *prover, bool zero)
{
    pl__groth16_set_zero_blinding(prover->skeleton, zero);
}

/* ---- the key ------------------------------------------------------------ */

static void p1_from_bytes(blst_p1_affine *out, const uint8_t *bytes)
{
    if (bytes)
        memcpy(out, bytes, sizeof(*out));
    else
        memset(out, 0, sizeof(*out));
}

static void p2_from_bytes(blst_p2_affine *out, const uint8_t *bytes)
{
    if (bytes)
        memcpy(out, bytes, sizeof(*out));
    else
        memset(out, 0, sizeof(*out));
}

/* BN254's points (the zkey's layout; the reader checked nothing inside
 * them: a coordinate not below p leaves the point at zero, which the
 * check of --check-params names). */
static void bn254_fixed(pl__groth16_fixed_bn254 *out, const pl_zkey *zk)
{
    memset(out, 0, sizeof(*out));
    if (zk->alpha1 && !(pl__bn254_g1_from_bytes(&out->alpha1, zk->alpha1) &&
                        pl__bn254_g1_from_bytes(&out->beta1, zk->beta1) &&
                        pl__bn254_g1_from_bytes(&out->delta1, zk->delta1) &&
                        pl__bn254_g2_from_bytes(&out->beta2, zk->beta2) &&
                        pl__bn254_g2_from_bytes(&out->delta2, zk->delta2)))
        memset(out, 0, sizeof(*out));
}

void pl__zkey_key(pl__groth16_key *out, const pl_zkey *zk)
{
    memset(out, 0, sizeof(*out));
    out->path = zk->path;
    out->shape.log2n = zk->log2_domain;
    out->shape.roots = PL__ROOTS_SNARKJS;
    out->shape.h_form = PL__H_ODD_COSET;
    out->shape.counts[PL__SUM_H] = zk->domain_size;
    out->shape.counts[PL__SUM_A] = zk->n_vars;
    out->shape.counts[PL__SUM_B1] = zk->n_vars;
    out->shape.counts[PL__SUM_C] = pl__zkey_n_private(zk);
    out->shape.curve = zk->curve;
    out->g1[PL__SUM_H] = zk->h;
    out->g1[PL__SUM_A] = zk->a;
    out->g1[PL__SUM_B1] = zk->b1;
    out->g1[PL__SUM_C] = zk->c;
    out->b2 = zk->b2;
    if (zk->curve == PL__CURVE_BN254) {
        /* its points are smaller than blst's structs (left zero): read
         * them as BN254's, never past them */
        bn254_fixed(&out->bn254, zk);
    } else {
        p1_from_bytes(&out->alpha1, zk->alpha1);
        p1_from_bytes(&out->beta1, zk->beta1);
        p1_from_bytes(&out->delta1, zk->delta1);
        p2_from_bytes(&out->beta2, zk->beta2);
        p2_from_bytes(&out->delta2, zk->delta2);
    }
    out->n_public = zk->n_public;
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

/* ---- plan, create, destroy ------------------------------------------------ */

void pl__prover_plan(const pl_zkey *zk, const pl__backend_ops *backend,
                     unsigned threads, pl__prove_plan *out)
{
    pl__groth16_key key;
    pl__zkey_key(&key, zk);
    pl__groth16_plan(&key.shape, backend, threads, out);
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
    pl_prover *p = calloc(1, sizeof(*p));
    if (!p)
        return pl__error_set(err, PL_ENOMEM, "prover: out of memory");
    p->zkey = zkey;
    if (cfg) {
        p->on_stage = cfg->on_stage;
        p->on_stage_user = cfg->on_stage_user;
    }
    pl__zkey_key(&p->key, zkey);
    pl_status st = build_matrices(&p->csr, zkey, err);
    if (st != PL_OK ||
        (st = pl__groth16_prover_create(&p->skeleton, &p->key, backend, cfg,
                                        err)) != PL_OK) {
        pl_prover_destroy(p);
        return st;
    }
    p->pool = pl__groth16_prover_pool(p->skeleton);
    *out = p;
    return PL_OK;
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
    pl__groth16_prover_destroy(prover->skeleton);
    pl__free(prover->csr.values);
    free(prover);
}

const pl_zkey *pl__prover_zkey(const pl_prover *p)
{
    return p->zkey;
}

pl__groth16_prover *pl__prover_skeleton(const pl_prover *p)
{
    return p->skeleton;
}

const pl__groth16_key *pl__prover_key(const pl_prover *p)
{
    return &p->key;
}

const pl__backend_ops *pl__prover_backend_of(const pl_prover *p)
{
    return pl__groth16_prover_backend(p->skeleton);
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

/* The same on BN254 (its coefficients are coef * R^2 mod r with R = 2^256
 * as well), per field implementation. */
PL__BN254_INLINE void row_dot_bn254(pl__bn254_fr *out,
                                    const constraint_matrices *m, size_t entry,
                                    size_t end, const uint8_t *witness,
                                    pl__bn254_arith v)
{
    pl__bn254_fr acc, w, term;
    memset(&acc, 0, sizeof(acc));
    for (; entry < end; entry++) {
        memcpy(&w, witness + (uint64_t)m->columns[entry] * PL__FR_BYTES,
               sizeof(w));
        pl__bn254_fr_mul(&term, (const pl__bn254_fr *)&m->values[entry], &w,
                         v);
        pl__bn254_fr_add(&acc, &acc, &term, v);
    }
    *out = acc;
}

PL__BN254_INLINE void synthesize_rows_bn254(synth_ctx *ctx, size_t task,
                                            pl__bn254_arith v)
{
    const uint32_t *a_start = ctx->m->row_start;
    const uint32_t *b_start = a_start + ctx->rows + 1;
    pl__bn254_fr *a = (pl__bn254_fr *)ctx->a, *b = (pl__bn254_fr *)ctx->b;
    pl__bn254_fr *c = (pl__bn254_fr *)ctx->c;
    size_t lo = task * ctx->per_task, hi = lo + ctx->per_task;
    if (hi > ctx->rows)
        hi = ctx->rows;
    for (size_t row = lo; row < hi; row++) {
        row_dot_bn254(&a[row], ctx->m, a_start[row], a_start[row + 1],
                      ctx->witness, v);
        row_dot_bn254(&b[row], ctx->m, b_start[row], b_start[row + 1],
                      ctx->witness, v);
        pl__bn254_fr_mul(&c[row], &a[row], &b[row], v);
    }
}

static void synthesize_rows_bn254_adx(void *arg, size_t task, unsigned worker)
{
    (void)worker;
    synthesize_rows_bn254(arg, task, PL__BN254_ADX);
}

static void synthesize_rows_bn254_portable(void *arg, size_t task,
                                           unsigned worker)
{
    (void)worker;
    synthesize_rows_bn254(arg, task, PL__BN254_PORTABLE);
}

static void synthesize_rows(void *arg, size_t task, unsigned worker)
{
    synth_ctx *ctx = arg;
    (void)worker;
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
    pl_status st = pl__curve_match("prove", wtns->path, wtns->curve, zk->path,
                                   zk->curve, err);
    if (st != PL_OK)
        return st;
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
    void (*rows)(void *, size_t, unsigned) = synthesize_rows;
    if (zk->curve == PL__CURVE_BN254)
        rows = pl__bn254_arith_current() == PL__BN254_ADX
                   ? synthesize_rows_bn254_adx
                   : synthesize_rows_bn254_portable;
    pl__pool_run(pool, (n + ctx.per_task - 1) / ctx.per_task, rows, &ctx);
    *abc_out = abc;
    return PL_OK;
}

/* ---- the proof ------------------------------------------------------------ */

void pl__prover_input(const pl_prover *p, pl__proof_input *out, blst_fr *abc,
                      const pl_wtns *wtns)
{
    const pl_scalar *w = (const pl_scalar *)wtns->values;
    memset(out, 0, sizeof(*out));
    out->abc = abc;
    out->scalars[PL__SUM_A] = (pl__scalars){w, p->key.shape.counts[PL__SUM_A],
                                            false};
    out->scalars[PL__SUM_B1] = out->scalars[PL__SUM_A];
    out->scalars[PL__SUM_C] = (pl__scalars){w + p->key.n_public + 1,
                                            p->key.shape.counts[PL__SUM_C],
                                            false};
}

pl_status pl__prove_start_abc(pl_prover *p, pl_pending **out, blst_fr *abc,
                              const pl_wtns *wtns,
                              void (*abc_freed)(void *ctx), void *ctx,
                              pl_error *err)
{
    pl__proof_input in;
    pl__prover_input(p, &in, abc, wtns);
    return pl__groth16_start(p->skeleton, out, &in, abc_freed, ctx, err);
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
    return pl__prove_start_abc(p, out, abc, wtns, NULL, NULL, err);
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
