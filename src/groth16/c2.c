/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SupraSeal-C2-shaped prover (include/proofline_c2.h): bellperson's
 * proving assignments and a bellperson parameter file in, Groth16 proofs
 * out, as bellperson's own prover makes them:
 *
 *   h      = (a b - c) / t over bellperson's domain (blstrs's omega), in
 *            the monomial basis: a, b, c to the odd coset (iNTT, x g^j,
 *            NTT), divided there by t = g^n - 1 = -2, back by an iNTT and
 *            x g^-j; h's n - 1 coefficients against the h query;
 *   A      = alpha_g1 + <inputs ++ aux[a density], a query> + r delta_g1
 *   B      = beta_g2 + <inputs[b_inp density] ++ aux[b_aux density],
 *            b_g2 query> + s delta_g2   (and B1 the same in G1)
 *   C      = <aux, l query> + <h, h query> + s A + r B1 - r s delta_g1
 *
 * The a and b_g1/b_g2 queries hold only the variables that occur (the
 * density bits), so the A and B sums gather their scalars through the
 * bits first: the MSMs run over the popcounts, not over every variable,
 * where the snarkjs-style path sums every variable's point (points at
 * infinity included) and skips zero scalars on the way.
 *
 * This file is the arithmetic: the SRS, the checks, one proof in two steps
 * (start: H and the G1 sums, with the G2 sum started beside them; finish:
 * the G2 sum joined and the proof assembled; groth16/c2.h).  pl_c2_prove
 * runs the proofs as a job of the engine (engine/c2_job.c), which reserves
 * their bytes, records the ledger's events and overlaps one proof's finish
 * with the next one's start.  It runs on the CPU (the pool's NTTs and
 * MSMs).
 */
#include "proofline_c2.h"
#include "groth16/c2.h"
#include "groth16/assemble.h"
#include "backend/c2_device.h"
#include "field/field.h"
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/beside.h"
#include "util/bits.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/pool.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct pl_c2_srs {
    uint32_t log2n, n;          /* the domain: count(h) + 1 */
    uint32_t n_inp, n_aux;      /* ic's count; l's count */
    uint32_t n_a, n_b;          /* the a query's; b_g1's (= b_g2's) */
    blst_p1_affine alpha_g1, beta_g1, delta_g1;
    blst_p2_affine beta_g2, delta_g2;
    /* one allocation (class params): h, l, a, b_g1 points, then b_g2 */
    uint8_t *points;
    const uint8_t *h, *l, *a, *b_g1, *b_g2;
    uint64_t points_bytes;
    pl__ntt_plan *plan;
    pl__pool *pool;
};

/* Points per decoding task: 4096 G1 points are ~2-4 ms of work, enough
 * to amortise a task, and a section of 2^27 makes 32 Ki tasks. */
#define DECODE_GRAIN 4096u

typedef struct {
    uint8_t *dst;
    const pl_bp_params *p;
    unsigned section;
    _Atomic uint64_t first_bad; /* the lowest index that failed, or ~0 */
} decode_job;

static void decode_task(void *ctx, size_t task, unsigned worker)
{
    decode_job *j = ctx;
    (void)worker;
    const uint32_t count = j->p->count[j->section];
    const uint64_t lo = (uint64_t)task * DECODE_GRAIN;
    const uint64_t hi = lo + DECODE_GRAIN < count ? lo + DECODE_GRAIN : count;
    for (uint64_t i = lo; i < hi; i++) {
        BLST_ERROR e;
        if (pl__bp_section_is_g2(j->section)) {
            blst_p2_affine q;
            e = pl__bp_g2_at(&q, j->p, (uint32_t)i);
            memcpy(j->dst + i * sizeof(q), &q, sizeof(q));
        } else {
            blst_p1_affine q;
            e = pl__bp_g1_at(&q, j->p, j->section, (uint32_t)i);
            memcpy(j->dst + i * sizeof(q), &q, sizeof(q));
        }
        if (e != BLST_SUCCESS) {
            uint64_t seen = atomic_load(&j->first_bad);
            while (i < seen &&
                   !atomic_compare_exchange_weak(&j->first_bad, &seen, i))
                ;
            return;
        }
    }
}

/* A section's points decoded (on the curve; the subgroups are
 * pl_bp_params_check_points's) into dst as blst affine points, over the
 * pool: a real PoRep file holds ~10^8 of them. */
static pl_status decode_section(uint8_t *dst, const pl_bp_params *p,
                                unsigned s, pl__pool *pool, pl_error *err)
{
    decode_job j = {dst, p, s, UINT64_MAX};
    const size_t tasks = ((size_t)p->count[s] + DECODE_GRAIN - 1) /
                         DECODE_GRAIN;
    if (tasks)
        pl__pool_run(pool, tasks, decode_task, &j);
    const uint64_t bad = atomic_load(&j.first_bad);
    if (bad != UINT64_MAX)
        return pl__error_set(err, PL_EFORMAT, "%s: section %s: point "
                             "%" PRIu64 " does not decode (not on the curve, "
                             "or a bad encoding; at byte offset %" PRIu64 ")",
                             p->path, pl__bp_section_name(s), bad,
                             p->at[s] + 4 + bad *
                                 (pl__bp_section_is_g2(s) ? PL__BP_G2_BYTES
                                                          : PL__BP_G1_BYTES));
    return PL_OK;
}

pl_status pl_c2_srs_create(pl_c2_srs **out, const char *params_path,
                           bool check_points, unsigned threads, pl_error *err)
{
    return pl__c2_srs_create_domain(out, params_path, check_points, threads,
                                    false, err);
}

pl_status pl__c2_srs_create_domain(pl_c2_srs **out, const char *params_path,
                                   bool check_points, unsigned threads,
                                   bool snarkjs_domain, pl_error *err)
{
    pl_status st = PL_OK;
    pl_bp_params *p = NULL;
    pl_c2_srs *srs = NULL;
    *out = NULL;
    if ((st = pl_bp_params_open(&p, params_path, err)))
        goto fail;
    if (p->vk_only) {
        st = pl__error_set(err, PL_EUSAGE, "%s: a verifying key (.vk), not a "
                           "parameter file: no queries to prove with",
                           params_path);
        goto fail;
    }
    if (check_points && (st = pl_bp_params_check_points(p, err)))
        goto fail;
    const uint64_t n = (uint64_t)p->count[PL__BP_H] + 1;
    unsigned log2n = 0;
    while (((uint64_t)1 << log2n) < n)
        log2n++;
    if (((uint64_t)1 << log2n) != n || log2n > 28 || n < 2) {
        st = pl__error_set(err, PL_EFORMAT, "%s: section h: count %" PRIu32
                           " is not a power of two less one (1 to 2^28 - 1): "
                           "no domain fits it", params_path,
                           p->count[PL__BP_H]);
        goto fail;
    }
    if (!(srs = calloc(1, sizeof(*srs)))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", params_path);
        goto fail;
    }
    srs->log2n = log2n;
    srs->n = (uint32_t)n;
    srs->n_inp = p->count[PL__BP_IC];
    srs->n_aux = p->count[PL__BP_L];
    srs->n_a = p->count[PL__BP_A];
    srs->n_b = p->count[PL__BP_B_G1];
    srs->alpha_g1 = p->alpha_g1;
    srs->beta_g1 = p->beta_g1;
    srs->delta_g1 = p->delta_g1;
    srs->beta_g2 = p->beta_g2;
    srs->delta_g2 = p->delta_g2;
    const uint64_t g1 = sizeof(blst_p1_affine), g2 = sizeof(blst_p2_affine);
    const uint64_t n_g1 = (uint64_t)p->count[PL__BP_H] + srs->n_aux +
                          srs->n_a + srs->n_b;
    srs->points_bytes = n_g1 * g1 + (uint64_t)srs->n_b * g2;
    if (!(srs->points = pl__alloc(PL_BUF_PARAMS, srs->points_bytes, err))) {
        st = PL_ENOMEM;
        goto fail;
    }
    if ((st = pl__pool_create(&srs->pool, threads, "pl-c2", err)))
        goto fail;
    uint8_t *at = srs->points;
    const unsigned order[5] = {PL__BP_H, PL__BP_L, PL__BP_A, PL__BP_B_G1,
                               PL__BP_B_G2};
    const uint8_t **dst[5] = {&srs->h, &srs->l, &srs->a, &srs->b_g1,
                              &srs->b_g2};
    for (unsigned k = 0; k < 5; k++) {
        *dst[k] = at;
        if ((st = decode_section(at, p, order[k], srs->pool, err)))
            goto fail;
        at += (uint64_t)p->count[order[k]] *
              (pl__bp_section_is_g2(order[k]) ? g2 : g1);
    }
    if ((st = snarkjs_domain
                  ? pl__ntt_plan_create(&srs->plan, log2n, srs->pool, err)
                  : pl__ntt_plan_create_blstrs(&srs->plan, log2n, srs->pool,
                                               err)))
        goto fail;
    *out = srs;
    srs = NULL;
fail:
    pl_c2_srs_destroy(srs);
    pl_bp_params_close(p);
    return st;
}

void pl_c2_srs_destroy(pl_c2_srs *srs)
{
    if (!srs)
        return;
    pl__ntt_plan_destroy(srs->plan);
    pl__pool_destroy(srs->pool);
    pl__free(srs->points);
    free(srs);
}

uint64_t pl_c2_srs_bytes(const pl_c2_srs *srs)
{
    return srs->points_bytes + pl__ntt_plan_bytes(srs->log2n);
}

/* The largest MSM a proof runs, for its scratch. */
static size_t largest_msm(const pl_c2_srs *srs)
{
    size_t m = srs->n - 1;
    if (srs->n_aux > m)
        m = srs->n_aux;
    if (srs->n_a > m)
        m = srs->n_a;
    if (srs->n_b > m)
        m = srs->n_b;
    return m;
}

/* A proof between start and finish: the G1 sums are in, the G2 sum is on
 * its way (over gathered_b, the B-dense scalars, which it alone still
 * reads). */
struct pl__c2_pending {
    const pl_c2_srs *srs;
    pl_scalar *gathered_b;   /* class msm_scratch, n_b + 1 */
    size_t n_gathered_b;
    blst_scalar r, s;        /* standard form */
    blst_p1 h_sum, l_sum, a_sum, b1_sum;
    blst_p2 b2_sum;
    pl__beside g2;
    pl__pool *g2_pool;       /* the SRS's when G1 is on a device */
    pl_status g2_status;
    pl_error g2_err;
};

/* On the CPU the G1 sums' threads are the SRS's pool and the G2 sum runs
 * beside them on its own thread (the cores are busy with G1), as the zkey
 * prover does; with the G1 work on a device, the G2 sum has the pool. */
#define G2_THREADS 1u

void pl__c2_plan(const pl_c2_srs *srs, bool on_device, pl__prove_plan *out)
{
    memset(out, 0, sizeof(*out));
    const unsigned t = pl__pool_size(srs->pool);
    const size_t m = largest_msm(srs);
    /* on a device the G1 sums' scratch is the device's (class device),
     * and the G2 sum has the pool */
    uint64_t g1 = 0;
    if (!on_device) {
        g1 = pl__msm_g1_witness_scratch_bytes(m, t);
        if (pl__msm_g1_scratch_bytes(m, t) > g1)
            g1 = pl__msm_g1_scratch_bytes(m, t);
    }
    /* a, b, c on the odd coset: bellperson's a/b/c, copied in; freed once
     * h's coefficients are out, before any sum (the early free) */
    out->bytes[PL_BUF_ABC] = 3 * (uint64_t)srs->n * sizeof(blst_fr);
    /* h's coefficients, then each sum's gathered scalars; the B-dense
     * scalars, which the G2 sum reads until finish; for Montgomery-form
     * input (pl_c2_config.montgomery) every variable's scalar converted
     * once (counted either way: a bound); the G1 sums' scratch and the G2
     * sum's, which run at once */
    out->bytes[PL_BUF_MSM_SCRATCH] =
        ((uint64_t)m + 1) * sizeof(pl_scalar) +
        ((uint64_t)srs->n_b + 1) * sizeof(pl_scalar) +
        ((uint64_t)srs->n_inp + srs->n_aux + 1) * sizeof(pl_scalar) + g1 +
        pl__msm_g2_witness_scratch_bytes(srs->n_b, on_device ? t
                                                             : G2_THREADS);
    out->bytes[PL_BUF_PENDING] = sizeof(struct pl__c2_pending);
    out->resident_bytes = pl_c2_srs_bytes(srs);
}

uint64_t pl_c2_prove_bytes(const pl_c2_srs *srs)
{
    pl__prove_plan plan;
    pl__c2_plan(srs, false, &plan);
    uint64_t total = 0;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        total += plan.bytes[c];
    return total;
}

uint32_t pl__c2_srs_n_public(const pl_c2_srs *srs)
{
    return srs->n_inp ? srs->n_inp - 1 : 0;
}

/* ---- checking an assignment --------------------------------------------- */

static bool bit_at(const uint64_t *words, size_t i)
{
    return (words[i / 64] >> (i % 64)) & 1;
}

static pl_status check_density(size_t k, const char *name,
                               const uint64_t *words, size_t bit_len,
                               size_t popcount, size_t want_len,
                               pl_error *err)
{
    if (bit_len != want_len)
        return pl__error_set(err, PL_EFORMAT, "assignment %zu: %s_bit_len "
                             "%zu, the SRS has %zu variables there", k, name,
                             bit_len, want_len);
    if (bit_len && !words)
        return pl__error_set(err, PL_EUSAGE, "assignment %zu: %s_density "
                             "is NULL", k, name);
    size_t bits = pl__popcount_bits(words, bit_len);
    if (bits != popcount)
        return pl__error_set(err, PL_EFORMAT, "assignment %zu: %s_popcount "
                             "%zu, its bits hold %zu", k, name, popcount,
                             bits);
    return PL_OK;
}

static pl_status check_scalars(size_t k, const char *name,
                               const pl_scalar *v, size_t n, pl_error *err)
{
    if (n && !v)
        return pl__error_set(err, PL_EUSAGE, "assignment %zu: %s is NULL", k,
                             name);
    for (size_t i = 0; i < n; i++)
        if (!pl__scalar_is_canonical(v[i].b))
            return pl__error_set(err, PL_EFORMAT, "assignment %zu: %s[%zu] "
                                 "is not below r", k, name, i);
    return PL_OK;
}

static pl_status check_assignment(const pl_c2_srs *srs, size_t k,
                                  const pl_c2_assignment *as, pl_error *err)
{
    pl_status st;
    if (as->abc_size > srs->n)
        return pl__error_set(err, PL_EFORMAT, "assignment %zu: abc_size %zu "
                             "is more than the SRS's domain of %" PRIu32, k,
                             as->abc_size, srs->n);
    if (as->inp_assignment_size != srs->n_inp)
        return pl__error_set(err, PL_EFORMAT, "assignment %zu: "
                             "inp_assignment_size %zu, the SRS has %" PRIu32
                             " inputs (ic)", k, as->inp_assignment_size,
                             srs->n_inp);
    if (as->aux_assignment_size != srs->n_aux)
        return pl__error_set(err, PL_EFORMAT, "assignment %zu: "
                             "aux_assignment_size %zu, the SRS has %" PRIu32
                             " auxiliary variables (l)", k,
                             as->aux_assignment_size, srs->n_aux);
    if ((st = check_density(k, "a_aux", as->a_aux_density, as->a_aux_bit_len,
                            as->a_aux_popcount, srs->n_aux, err)) ||
        (st = check_density(k, "b_inp", as->b_inp_density, as->b_inp_bit_len,
                            as->b_inp_popcount, srs->n_inp, err)) ||
        (st = check_density(k, "b_aux", as->b_aux_density, as->b_aux_bit_len,
                            as->b_aux_popcount, srs->n_aux, err)))
        return st;
    if (srs->n_inp + as->a_aux_popcount != srs->n_a)
        return pl__error_set(err, PL_EFORMAT, "assignment %zu: %" PRIu32
                             " inputs + a_aux_popcount %zu, the SRS's a query "
                             "has %" PRIu32 " points", k, srs->n_inp,
                             as->a_aux_popcount, srs->n_a);
    if (as->b_inp_popcount + as->b_aux_popcount != srs->n_b)
        return pl__error_set(err, PL_EFORMAT, "assignment %zu: b_inp_popcount "
                             "%zu + b_aux_popcount %zu, the SRS's b queries "
                             "have %" PRIu32 " points", k, as->b_inp_popcount,
                             as->b_aux_popcount, srs->n_b);
    if ((st = check_scalars(k, "a", as->a, as->abc_size, err)) ||
        (st = check_scalars(k, "b", as->b, as->abc_size, err)) ||
        (st = check_scalars(k, "c", as->c, as->abc_size, err)) ||
        (st = check_scalars(k, "inp_assignment", as->inp_assignment,
                            as->inp_assignment_size, err)) ||
        (st = check_scalars(k, "aux_assignment", as->aux_assignment,
                            as->aux_assignment_size, err)))
        return st;
    return PL_OK;
}

/* ---- one proof ----------------------------------------------------------- */

/* The caller's a, b, c into v0 (3 n, Montgomery), each zero past
 * abc_size up to the domain. */
static void load_abc(const pl_c2_srs *srs, blst_fr *v0,
                     const pl_c2_assignment *as, bool montgomery)
{
    const size_t n = srs->n;
    const pl_scalar *in[3] = {as->a, as->b, as->c};
    for (unsigned m = 0; m < 3; m++) {
        blst_fr *v = v0 + m * n;
        if (montgomery) /* blstrs's Scalar is blst_fr's limbs */
            memcpy(v, in[m], as->abc_size * sizeof(blst_fr));
        else
            for (size_t i = 0; i < as->abc_size; i++)
                pl__fr_from_le(&v[i], in[m][i].b);
        memset(&v[as->abc_size], 0, (n - as->abc_size) * sizeof(blst_fr));
    }
}

/* h's coefficients, as scalars, into gather[0 .. n-2], from a, b, c
 * loaded in v0 (3 n, overwritten) over the SRS's pool. */
static void h_coefficients(const pl_c2_srs *srs, blst_fr *v0,
                           pl_scalar *gather)
{
    const size_t n = srs->n;
    blst_fr *v[3] = {v0, v0 + n, v0 + 2 * n};
    for (unsigned m = 0; m < 3; m++)
        pl__ntt_to_odd_coset(srs->plan, v[m], srs->pool);
    /* t(g w^i) = g^n - 1 = -2 on the odd coset */
    blst_fr minus_half, two;
    const uint64_t two_limbs[4] = {2, 0, 0, 0};
    blst_fr_from_uint64(&two, two_limbs);
    blst_fr_inverse(&minus_half, &two);
    blst_fr_cneg(&minus_half, &minus_half, true);
    for (size_t i = 0; i < n; i++) {
        blst_fr_mul(&v[0][i], &v[0][i], &v[1][i]);
        blst_fr_sub(&v[0][i], &v[0][i], &v[2][i]);
        blst_fr_mul(&v[0][i], &v[0][i], &minus_half);
    }
    /* coefficients of h(g x), then of h */
    pl__ntt_inverse(srs->plan, v[0], srs->pool);
    const blst_fr *tw;
    blst_fr n_inv, g, g_inv, pw;
    pl__ntt_plan_constants(srs->plan, &tw, &n_inv, &g);
    blst_fr_inverse(&g_inv, &g);
    const uint64_t one_limbs[4] = {1, 0, 0, 0};
    blst_fr_from_uint64(&pw, one_limbs);
    for (size_t j = 0; j + 1 < n; j++) {
        blst_fr_mul(&v[0][j], &v[0][j], &pw);
        pl__fr_to_le(gather[j].b, &v[0][j]);
        blst_fr_mul(&pw, &pw, &g_inv);
    }
}

/* Scalars of the variables a density selects: inputs (all of them when
 * inp_bits is NULL) then the aux ones whose bit is set. */
static size_t gather(pl_scalar *out, const pl_c2_assignment *as,
                     const uint64_t *inp_bits, const uint64_t *aux_bits)
{
    size_t k = 0;
    for (size_t i = 0; i < as->inp_assignment_size; i++)
        if (!inp_bits || bit_at(inp_bits, i))
            out[k++] = as->inp_assignment[i];
    for (size_t i = 0; i < as->aux_assignment_size; i++)
        if (bit_at(aux_bits, i))
            out[k++] = as->aux_assignment[i];
    return k;
}

/* Standard form of a Montgomery-form scalar (blstrs's in-memory bytes). */
static void from_montgomery(pl_scalar *out, const pl_scalar *in)
{
    blst_fr f;
    memcpy(&f, in->b, sizeof(f));
    pl__fr_to_le(out->b, &f);
}

static void g2_main(void *arg)
{
    pl__c2_pending *pd = arg;
    double t0 = pl__now_seconds();
    pd->g2_status = pl__msm_g2_witness(&pd->b2_sum, pd->srs->b_g2,
                                       (const uint8_t *)pd->gathered_b,
                                       pd->n_gathered_b, pd->g2_pool,
                                       &pd->g2_err);
    pl__stage_span("g2_msm", t0, pl__now_seconds());
}

void pl__c2_pending_abort(pl__c2_pending *pd)
{
    if (!pd)
        return;
    pl__beside_join(&pd->g2);
    pl__free(pd->gathered_b);
    memset(pd, 0, sizeof(*pd));
    pl__free(pd);
}

/* H's coefficients into gathered[0 .. n-2] from the caller's a, b, c,
 * through v (3 n, class abc): on the device when there is one. */
static pl_status h_of(const pl_c2_srs *srs, pl__c2_device *device,
                      blst_fr *v, pl_scalar *gathered,
                      const pl_c2_assignment *as, bool montgomery,
                      pl_error *err)
{
    const size_t n = srs->n;
    load_abc(srs, v, as, montgomery);
    if (device)
        return pl__c2_device_h(device, v, v + n, v + 2 * n, gathered, err);
    h_coefficients(srs, v, gathered);
    return PL_OK;
}

/* sum scalars[i] bases[i]: one of the SRS's G1 sets, on the device or on
 * the SRS's pool. */
static pl_status g1_sum(const pl_c2_srs *srs, pl__c2_device *device,
                        unsigned which, const pl_scalar *scalars, size_t n,
                        blst_p1 *out, pl_error *err)
{
    if (device)
        return pl__c2_device_msm(device, which, scalars, n, out, err);
    const uint8_t *bases[PL__C2_BASES_COUNT] = {srs->h, srs->l, srs->a,
                                                srs->b_g1};
    /* h's coefficients are dense; the variables' scalars often zero */
    if (which == PL__C2_BASES_H)
        return pl__msm_g1(out, bases[which], (const uint8_t *)scalars, n,
                          srs->pool, err);
    return pl__msm_g1_witness(out, bases[which], (const uint8_t *)scalars, n,
                              srs->pool, err);
}

pl_status pl__c2_srs_open_device(const pl_c2_srs *srs,
                                 const pl__backend_ops *backend,
                                 pl__c2_device **out, pl_error *err)
{
    *out = NULL;
    const bool emulated = backend == &pl__backend_cuda_emulated;
    if (!emulated && (!pl__backend_cuda || backend != pl__backend_cuda))
        return PL_OK; /* the CPU's */
    const blst_p1_affine *const bases[PL__C2_BASES_COUNT] = {
        (const blst_p1_affine *)srs->h, (const blst_p1_affine *)srs->l,
        (const blst_p1_affine *)srs->a, (const blst_p1_affine *)srs->b_g1};
    const size_t counts[PL__C2_BASES_COUNT] = {srs->n - 1, srs->n_aux,
                                               srs->n_a, srs->n_b};
    return pl__c2_device_open(out, emulated, srs->plan, srs->log2n, bases,
                              counts, err);
}

pl_status pl__c2_prove_start(const pl_c2_srs *srs, pl__c2_device *device,
                             pl__c2_pending **out,
                             const pl_c2_assignment *as_in,
                             const pl_scalar *r, const pl_scalar *s,
                             bool montgomery, void (*abc_read)(void *ctx),
                             void *ctx, pl_error *err)
{
    pl_status st = PL_OK;
    const uint64_t vec = 3 * (uint64_t)srs->n * sizeof(blst_fr);
    pl_scalar *gathered = NULL, *std = NULL;
    pl_c2_assignment conv = *as_in;
    const pl_c2_assignment *as = as_in;
    blst_fr *v = NULL;
    *out = NULL;
    pl__c2_pending *pd = pl__calloc(PL_BUF_PENDING, sizeof(*pd), err);
    if (!pd || !(v = pl__alloc(PL_BUF_ABC, vec, err)) ||
        !(gathered = pl__alloc(PL_BUF_MSM_SCRATCH,
                               ((uint64_t)largest_msm(srs) + 1) *
                                   sizeof(pl_scalar),
                               err)) ||
        !(pd->gathered_b = pl__alloc(PL_BUF_MSM_SCRATCH,
                                     ((uint64_t)srs->n_b + 1) *
                                         sizeof(pl_scalar),
                                     err))) {
        st = PL_ENOMEM;
        goto fail;
    }
    pd->srs = srs;
    if (montgomery) {
        /* the sums take standard form: the inputs and auxiliary variables
         * converted once, r and s here */
        const size_t n_vars = as_in->inp_assignment_size +
                              as_in->aux_assignment_size;
        if (!(std = pl__alloc(PL_BUF_MSM_SCRATCH,
                              ((uint64_t)n_vars + 1) * sizeof(pl_scalar),
                              err))) {
            st = PL_ENOMEM;
            goto fail;
        }
        for (size_t i = 0; i < as_in->inp_assignment_size; i++)
            from_montgomery(&std[i], &as_in->inp_assignment[i]);
        for (size_t i = 0; i < as_in->aux_assignment_size; i++)
            from_montgomery(&std[as_in->inp_assignment_size + i],
                            &as_in->aux_assignment[i]);
        conv.inp_assignment = std;
        conv.aux_assignment = std + as_in->inp_assignment_size;
        as = &conv;
        from_montgomery((pl_scalar *)&pd->r, r);
        from_montgomery((pl_scalar *)&pd->s, s);
    } else {
        memcpy(pd->r.b, r->b, sizeof(pd->r.b));
        memcpy(pd->s.b, s->b, sizeof(pd->s.b));
    }
    if ((st = h_of(srs, device, v, gathered, as_in, montgomery, err)))
        goto fail;
    /* h is in `gathered` now: the coset vectors go before the sums, and
     * the caller's a, b, c are read for good */
    memset(v, 0, vec);
    pl__free(v);
    v = NULL;
    if (abc_read)
        abc_read(ctx);

    /* B's scalars first, so the G2 sum can start beside the G1 ones */
    pd->n_gathered_b = gather(pd->gathered_b, as, as->b_inp_density,
                              as->b_aux_density);
    pd->g2_pool = device ? srs->pool : NULL;
    if ((st = pl__beside_start(&pd->g2, "pl-c2-g2msm", g2_main, pd, err)))
        goto fail;
    if ((st = g1_sum(srs, device, PL__C2_BASES_H, gathered, srs->n - 1,
                     &pd->h_sum, err)) ||
        (st = g1_sum(srs, device, PL__C2_BASES_L, as->aux_assignment,
                     srs->n_aux, &pd->l_sum, err)))
        goto fail;
    size_t m = gather(gathered, as, NULL, as->a_aux_density);
    if ((st = g1_sum(srs, device, PL__C2_BASES_A, gathered, m, &pd->a_sum,
                     err)) ||
        (st = g1_sum(srs, device, PL__C2_BASES_B_G1, pd->gathered_b,
                     pd->n_gathered_b, &pd->b1_sum, err)))
        goto fail;
    pl__free(std);
    pl__free(gathered);
    *out = pd;
    return PL_OK;

fail:
    pl__free(std);
    pl__free(v);
    pl__free(gathered);
    pl__c2_pending_abort(pd);
    return st;
}

pl_status pl__c2_prove_finish(pl__c2_pending *pd, pl_proof *out,
                              pl_error *err)
{
    pl__beside_join(&pd->g2);
    pl_status st = pd->g2_status;
    if (st != PL_OK) {
        if (err)
            *err = pd->g2_err;
    } else {
        const pl_c2_srs *srs = pd->srs;
        pl__groth16_fixed key;
        blst_p1_from_affine(&key.alpha1, &srs->alpha_g1);
        blst_p1_from_affine(&key.beta1, &srs->beta_g1);
        blst_p1_from_affine(&key.delta1, &srs->delta_g1);
        blst_p2_from_affine(&key.beta2, &srs->beta_g2);
        blst_p2_from_affine(&key.delta2, &srs->delta_g2);
        blst_p1 c_sum;
        blst_p1_add_or_double(&c_sum, &pd->l_sum, &pd->h_sum);
        pl__groth16_assemble(out, &key, &pd->a_sum, &pd->b1_sum,
                             &pd->b2_sum, &c_sum, &pd->r, &pd->s);
        memset(&c_sum, 0, sizeof(c_sum));
    }
    pl__c2_pending_abort(pd); /* joined: frees and scrubs */
    return st;
}

pl_status pl__c2_check_one(const pl_c2_srs *srs, size_t index,
                           const pl_c2_assignment *as, const pl_scalar *r,
                           const pl_scalar *s, pl_error *err)
{
    pl_status st = check_assignment(srs, index, as, err);
    if (st == PL_OK &&
        (!pl__scalar_is_canonical(r->b) || !pl__scalar_is_canonical(s->b)))
        st = pl__error_set(err, PL_EFORMAT, "proof %zu: r or s is not below "
                           "r", index);
    return st;
}

pl_status pl__c2_check(const pl_c2_srs *srs,
                       const pl_c2_assignment *assignments, size_t n,
                       const pl_scalar *r, const pl_scalar *s,
                       pl_error *err)
{
    pl_status st;
    if (!srs || (n && (!assignments || !r || !s)))
        return pl__error_set(err, PL_EUSAGE, "pl_c2_prove: missing SRS, "
                             "assignments, r or s");
    for (size_t k = 0; k < n; k++)
        if ((st = check_assignment(srs, k, &assignments[k], err)))
            return st;
    for (size_t k = 0; k < n; k++)
        if (!pl__scalar_is_canonical(r[k].b) ||
            !pl__scalar_is_canonical(s[k].b))
            return pl__error_set(err, PL_EFORMAT, "proof %zu: r or s is not "
                                 "below r", k);
    return PL_OK;
}

/* ---- an assignment from an r1cs and a witness ---------------------------- */

static void lc_eval(pl_scalar *out, const pl__r1cs_lc *lc, const pl_scalar *w)
{
    blst_fr acc, c, v;
    memset(&acc, 0, sizeof(acc));
    for (uint32_t t = 0; t < lc->n_terms; t++) {
        pl__r1cs_term term = pl__r1cs_lc_term(lc, t);
        pl__fr_from_le(&c, term.coef);
        pl__fr_from_le(&v, w[term.wire].b);
        blst_fr_mul(&c, &c, &v);
        blst_fr_add(&acc, &acc, &c);
    }
    pl__fr_to_le(out->b, &acc);
}

pl_status pl_c2_assignment_from_r1cs(pl_c2_assignment *out,
                                     const pl_r1cs *r1cs, const pl_wtns *wtns,
                                     pl_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!r1cs || !wtns)
        return pl__error_set(err, PL_EUSAGE, "pl_c2_assignment_from_r1cs: "
                             "missing r1cs or witness");
    return pl_c2_assignment_from_values(out, r1cs, pl_wtns_values(wtns),
                                        pl_wtns_count(wtns), wtns->path, err);
}

pl_status pl_c2_assignment_from_values(pl_c2_assignment *out,
                                       const pl_r1cs *r1cs,
                                       const pl_scalar *w, size_t n,
                                       const char *name, pl_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!r1cs || (n && !w))
        return pl__error_set(err, PL_EUSAGE, "pl_c2_assignment_from_values: "
                             "missing r1cs or values");
    const size_t n_inp = (size_t)r1cs->info.n_pub_out + r1cs->info.n_pub_in +
                         1;
    if (n != r1cs->info.n_wires || n_inp > r1cs->info.n_wires)
        return pl__error_set(err, PL_EFORMAT, "%s: %zu values, %s has "
                             "%" PRIu32 " wires", name ? name : "witness", n,
                             r1cs->path, r1cs->info.n_wires);
    for (size_t i = 0; i < n; i++)
        if (!pl__scalar_is_canonical(w[i].b))
            return pl__error_set(err, PL_EFORMAT, "%s: value %zu is not "
                                 "below r", name ? name : "witness", i);
    const size_t n_aux = r1cs->info.n_wires - n_inp;
    const size_t rows = (size_t)r1cs->info.n_constraints + n_inp;
    const size_t words = pl__c2_density_words(n_inp, n_aux);
    /* a, b, c apart from the densities: abc_done frees them first */
    pl_scalar *abc = pl__calloc(PL_BUF_ABC, 3 * rows * sizeof(pl_scalar),
                                err);
    uint64_t *a_aux = abc ? pl__calloc(PL_BUF_ABC,
                                       3 * words * sizeof(uint64_t), err)
                          : NULL;
    if (!a_aux) {
        pl__free(abc);
        return PL_ENOMEM;
    }
    pl_scalar *a = abc, *b = a + rows, *c = b + rows;
    uint64_t *b_inp = a_aux + words, *b_aux = b_inp + words;
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    for (pl__r1cs_iter_init(&it, r1cs); pl__r1cs_iter_next(&it, &k, lc);) {
        lc_eval(&a[k], &lc[0], w);
        lc_eval(&b[k], &lc[1], w);
        lc_eval(&c[k], &lc[2], w);
        for (unsigned m = 0; m < 2; m++)
            for (uint32_t t = 0; t < lc[m].n_terms; t++) {
                uint32_t wire = pl__r1cs_lc_term(&lc[m], t).wire;
                uint64_t *bits = wire >= n_inp ? (m ? b_aux : a_aux)
                                               : (m ? b_inp : NULL);
                size_t i = wire >= n_inp ? wire - n_inp : wire;
                if (bits)
                    bits[i / 64] |= UINT64_C(1) << (i % 64);
            }
    }
    pl__c2_assignment_over(out, abc, rows, a_aux, w, n_inp, n_aux);
    return PL_OK;
}

void pl_c2_assignment_release_abc(pl_c2_assignment *as)
{
    if (!as)
        return;
    pl__free((void *)as->a);
    as->a = as->b = as->c = NULL;
}

void pl_c2_assignment_release(pl_c2_assignment *as)
{
    if (!as)
        return;
    pl_c2_assignment_release_abc(as);
    pl__free((void *)as->a_aux_density);
    as->a_aux_density = as->b_inp_density = as->b_aux_density = NULL;
}
