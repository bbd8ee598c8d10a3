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
 *
 * Two scalar fields, both of 32-byte elements: BLS12-381's (blst_fr) and
 * BN254's (pl__bn254_fr, two-adicity 28: plans above 2^28 are refused).
 * The passes that multiply are in ntt_impl.h, instantiated per field (and
 * for BN254 per field implementation, fp.h); a plan knows its field and
 * each transform picks the instantiation once per call.  The roots are
 * snarkjs's for both: w[s] = nqr^((r - 1) / 2^s) with nqr the smallest
 * quadratic non-residue (5 for both fields; s = 32 and 28), w[k-1] =
 * w[k]^2, and the odd coset's g = w[log2 n + 1], except at BN254's 2^28,
 * where no 2^29-th root exists and snarkjs (groth16_prove.js) takes
 * g = nqr^2 = 25 (ffjavascript's Fr.shift) instead.
 */
#include "ntt/ntt.h"
#include "field/field.h"
#include "util/alloc.h"
#include "util/error.h"

#include <assert.h>
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

/* An element of either field: the plan holds one field's elements. */
typedef union {
    blst_fr bls;
    pl__bn254_fr bn;
} ntt_elem;

struct pl__ntt_plan {
    pl__curve curve;
    unsigned log2n;
    size_t n;
    ntt_elem n_inv;     /* 1/n */
    ntt_elem g, g_inv;  /* the odd coset's generator and its inverse */
    ntt_elem *twiddle;  /* omega^j, j < n/2, omega = root_of_unity(log2n) */
    /* stage s's twiddles omega^(j n / 2^(s+1)), j < 2^s, at
     * stage_tw + 2^s - 2^PL__NTT_BLOCK_LOG, for BLOCK_LOG <= s <= log2n - 2 */
    ntt_elem *stage_tw;
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
           (half + stage_tw_count(log2n)) * sizeof(ntt_elem);
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

/* ---- the jobs of the passes --------------------------------------------- */

typedef struct {
    ntt_elem *table;
    ntt_elem omega;
    size_t count, ntasks;
} twiddle_job;

typedef struct {
    const pl__ntt_plan *plan;
    size_t ntasks;
} copy_job;

typedef struct {
    ntt_elem *data;
    size_t n;
    unsigned log2n;
    size_t ntasks;
} bitrev_job;

typedef struct {
    const pl__ntt_plan *plan;
    void *data;
    /* block_task: spans below 2^block_log run inside blocks; column_task:
     * the chunk's first stage (stage_log) and its stage count (block_log) */
    unsigned block_log;
    unsigned stage_log;
} stage_job;

typedef struct {
    const pl__ntt_plan *plan;
    void *data;
    bool coset;
    size_t ntasks;
} finish_job;

/* One field's passes (ntt_impl.h). */
typedef struct {
    void (*twiddle_task)(void *ctx, size_t task, unsigned worker);
    void (*forward)(const pl__ntt_plan *plan, void *data, pl__pool *pool);
    void (*inverse_then)(const pl__ntt_plan *plan, void *data,
                         pl__pool *pool, bool coset);
} ntt_field;

/* ---- bit reversal ------------------------------------------------------- */

static size_t bit_reverse(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

/* Tiles of 2^PL__BITREV_B x 2^PL__BITREV_B elements (see the top). */
#define PL__BITREV_B 4u

static void swap_elem(ntt_elem *a, ntt_elem *b)
{
    ntt_elem t = *a;
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
                swap_elem(&job->data[i], &job->data[j]);
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
                    swap_elem(&job->data[i], &job->data[j]);
            }
        }
    }
}

static void bit_reverse_all(const pl__ntt_plan *plan, void *data,
                            pl__pool *pool)
{
    bitrev_job br = {data, plan->n, plan->log2n, 1};
    if (plan->log2n >= 2 * PL__BITREV_B + 1) {
        /* a tile pair is 16 KiB of work: 8 tasks a worker even it out */
        size_t mids = (size_t)1 << (plan->log2n - 2 * PL__BITREV_B);
        br.ntasks = 8 * (size_t)pl__pool_size(pool);
        if (br.ntasks > mids)
            br.ntasks = mids;
    }
    pl__pool_run(pool, br.ntasks, bitrev_task, &br);
}

/* ---- the fields' passes ------------------------------------------------ */

#define PL__NTT_SFX(name) name##_bls
#define PL__NTT_FR blst_fr
#define PL__NTT_M bls
#define PL__NTT_MUL blst_fr_mul
#define PL__NTT_ADD blst_fr_add
#define PL__NTT_SUB blst_fr_sub
#define PL__NTT_POW pl__fr_pow
#include "ntt/ntt_impl.h"

#define PL__NTT_SFX(name) name##_bn_portable
#define PL__NTT_FR pl__bn254_fr
#define PL__NTT_M bn
#define PL__NTT_MUL(r, a, b) pl__bn254_fr_mul(r, a, b, PL__BN254_PORTABLE)
#define PL__NTT_ADD(r, a, b) pl__bn254_fr_add(r, a, b, PL__BN254_PORTABLE)
#define PL__NTT_SUB(r, a, b) pl__bn254_fr_sub(r, a, b, PL__BN254_PORTABLE)
#define PL__NTT_POW(r, a, e) pl__bn254_fr_pow_u64(r, a, e, PL__BN254_PORTABLE)
#include "ntt/ntt_impl.h"

#define PL__NTT_SFX(name) name##_bn_adx
#define PL__NTT_FR pl__bn254_fr
#define PL__NTT_M bn
#define PL__NTT_MUL(r, a, b) pl__bn254_fr_mul(r, a, b, PL__BN254_ADX)
#define PL__NTT_ADD(r, a, b) pl__bn254_fr_add(r, a, b, PL__BN254_ADX)
#define PL__NTT_SUB(r, a, b) pl__bn254_fr_sub(r, a, b, PL__BN254_ADX)
#define PL__NTT_POW(r, a, e) pl__bn254_fr_pow_u64(r, a, e, PL__BN254_ADX)
#include "ntt/ntt_impl.h"

/* The passes of the plan's field, in this call's implementation. */
static const ntt_field *field_of(const pl__ntt_plan *plan)
{
    if (plan->curve == PL__CURVE_BLS12_381)
        return &field_bls;
    return pl__bn254_arith_current() == PL__BN254_ADX ? &field_bn_adx
                                                       : &field_bn_portable;
}

/* ---- plan ----------------------------------------------------------------*/

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

/* BLS12-381: 1/n, g = w[log2n + 1] and g^-1 = g^(2n - 1), omega
 * (snarkjs's or, for bellperson's domains, blstrs's). */
static void constants_bls(pl__ntt_plan *plan, ntt_elem *omega, bool blstrs)
{
    blst_fr n_fr;
    uint64_t n_limbs[4] = {plan->n, 0, 0, 0};
    blst_fr_from_uint64(&n_fr, n_limbs);
    blst_fr_inverse(&plan->n_inv.bls, &n_fr);
    pl__fr_root_of_unity(&plan->g.bls, plan->log2n + 1);
    /* g has order 2n, so g^-1 = g^(2n-1) */
    pl__fr_pow(&plan->g_inv.bls, &plan->g.bls, 2 * (uint64_t)plan->n - 1);
    if (blstrs)
        pl__fr_root_of_unity_blstrs(&omega->bls, plan->log2n);
    else
        pl__fr_root_of_unity(&omega->bls, plan->log2n);
}

/* (r - 1) / 2^28, BN254's Fr */
static const uint64_t bn_odd_part[4] = {0x9b9709143e1f593f, 0x181585d2833e8487,
                                        0x131a029b85045b68, 0x000000030644e72e};

void pl__ntt_bn254_root_of_unity(pl__bn254_fr *out, unsigned log2n)
{
    pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_fr w;
    pl__bn254_fr_from_u64(&w, PL__NTT_BN254_NQR);
    pl__bn254_fr_pow(&w, &w, bn_odd_part, v); /* w[28] */
    for (unsigned k = PL__NTT_BN254_MAX_LOG; k > log2n; k--)
        pl__bn254_fr_sqr(&w, &w, v);
    *out = w;
}

void pl__ntt_bn254_coset(pl__bn254_fr *out, unsigned log2n)
{
    if (log2n < PL__NTT_BN254_MAX_LOG)
        pl__ntt_bn254_root_of_unity(out, log2n + 1);
    else
        pl__bn254_fr_from_u64(out, PL__NTT_BN254_NQR * PL__NTT_BN254_NQR);
}

static void constants_bn254(pl__ntt_plan *plan, ntt_elem *omega)
{
    pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_fr n_fr;
    pl__bn254_fr_from_u64(&n_fr, plan->n);
    pl__bn254_fr_inv(&plan->n_inv.bn, &n_fr, v);
    pl__ntt_bn254_coset(&plan->g.bn, plan->log2n);
    pl__bn254_fr_inv(&plan->g_inv.bn, &plan->g.bn, v);
    pl__ntt_bn254_root_of_unity(&omega->bn, plan->log2n);
}

static pl_status plan_create(pl__ntt_plan **out, pl__curve curve,
                             unsigned log2n, bool blstrs, pl__pool *pool,
                             pl_error *err)
{
    *out = NULL;
    if (curve == PL__CURVE_BN254 && log2n > PL__NTT_BN254_MAX_LOG)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "ntt: domain 2^%u is larger than BN254 allows: "
                             "its scalar field has roots of unity of order "
                             "up to 2^%u only (two-adicity %u)",
                             log2n, PL__NTT_BN254_MAX_LOG,
                             PL__NTT_BN254_MAX_LOG);
    if (log2n > PL__NTT_MAX_LOG)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "ntt: domain 2^%u is larger than 2^%u", log2n,
                             PL__NTT_MAX_LOG);
    uint8_t *block = pl__alloc(PL_BUF_PARAMS, pl__ntt_plan_bytes(log2n), err);
    if (!block)
        return PL_ENOMEM; /* err was filled by pl__alloc */
    pl__ntt_plan *plan = (pl__ntt_plan *)block;
    memset(plan, 0, sizeof(*plan));
    plan->curve = curve;
    plan->log2n = log2n;
    plan->n = (size_t)1 << log2n;
    plan->twiddle = (ntt_elem *)(block + PL__NTT_HEADER_BYTES);
    plan->stage_tw = plan->twiddle + plan->n / 2;

    twiddle_job job = {.table = plan->twiddle, .count = plan->n / 2};
    if (curve == PL__CURVE_BLS12_381)
        constants_bls(plan, &job.omega, blstrs);
    else
        constants_bn254(plan, &job.omega);
    job.ntasks = pass_tasks(job.count, pool);
    if (job.count)
        pl__pool_run(pool, job.ntasks, field_of(plan)->twiddle_task, &job);
    copy_job copy = {plan, pass_tasks(stage_tw_count(log2n), pool)};
    if (stage_tw_count(log2n))
        pl__pool_run(pool, copy.ntasks, stage_copy_task, &copy);
    *out = plan;
    return PL_OK;
}

pl_status pl__ntt_plan_create(pl__ntt_plan **out, unsigned log2n,
                              pl__pool *pool, pl_error *err)
{
    return plan_create(out, PL__CURVE_BLS12_381, log2n, false, pool, err);
}

pl_status pl__ntt_plan_create_blstrs(pl__ntt_plan **out, unsigned log2n,
                                     pl__pool *pool, pl_error *err)
{
    return plan_create(out, PL__CURVE_BLS12_381, log2n, true, pool, err);
}

pl_status pl__ntt_plan_create_curve(pl__ntt_plan **out, pl__curve curve,
                                    unsigned log2n, pl__pool *pool,
                                    pl_error *err)
{
    return plan_create(out, curve, log2n, false, pool, err);
}

void pl__ntt_plan_destroy(pl__ntt_plan *plan)
{
    pl__free(plan); /* the plan is the start of its one allocation */
}

pl__curve pl__ntt_plan_curve(const pl__ntt_plan *plan) { return plan->curve; }

unsigned pl__ntt_plan_log2n(const pl__ntt_plan *plan) { return plan->log2n; }

void pl__ntt_plan_constants(const pl__ntt_plan *plan, const blst_fr **twiddles,
                            blst_fr *n_inv, blst_fr *g)
{
    assert(plan->curve == PL__CURVE_BLS12_381);
    *twiddles = &plan->twiddle[0].bls;
    *n_inv = plan->n_inv.bls;
    *g = plan->g.bls;
}

void pl__ntt_plan_constants_elems(const pl__ntt_plan *plan,
                                  const void **twiddles, void *n_inv, void *g)
{
    *twiddles = plan->twiddle;
    memcpy(n_inv, &plan->n_inv, sizeof(plan->n_inv));
    memcpy(g, &plan->g, sizeof(plan->g));
}

/* ---- the transforms ---------------------------------------------------- */

void pl__ntt_forward_elems(const pl__ntt_plan *plan, void *data,
                           pl__pool *pool)
{
    field_of(plan)->forward(plan, data, pool);
}

void pl__ntt_inverse_elems(const pl__ntt_plan *plan, void *data,
                           pl__pool *pool)
{
    field_of(plan)->inverse_then(plan, data, pool, false);
}

void pl__ntt_to_odd_coset_elems(const pl__ntt_plan *plan, void *data,
                                pl__pool *pool)
{
    const ntt_field *f = field_of(plan);
    f->inverse_then(plan, data, pool, true);
    f->forward(plan, data, pool);
}

void pl__ntt_forward(const pl__ntt_plan *plan, blst_fr *data, pl__pool *pool)
{
    assert(plan->curve == PL__CURVE_BLS12_381);
    forward_bls(plan, data, pool);
}

void pl__ntt_inverse(const pl__ntt_plan *plan, blst_fr *data, pl__pool *pool)
{
    assert(plan->curve == PL__CURVE_BLS12_381);
    inverse_then_bls(plan, data, pool, false);
}

void pl__ntt_to_odd_coset(const pl__ntt_plan *plan, blst_fr *data,
                          pl__pool *pool)
{
    assert(plan->curve == PL__CURVE_BLS12_381);
    inverse_then_bls(plan, data, pool, true);
    forward_bls(plan, data, pool);
}
