/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C2 kind (include/proofline_c2.h): bellperson's parameter files and
 * proving assignments in, Groth16 proofs out through the one skeleton
 * (groth16/prover.c), as bellperson's own prover makes them:
 *
 *   h      = (a b - c) / t over bellperson's domain (blstrs's omega), in
 *            the monomial basis: the backend's PL__H_COEFFICIENTS, against
 *            the h query;
 *   A      = alpha_g1 + <inputs ++ aux[a density], a query> + r delta_g1
 *   B      = beta_g2 + <inputs[b_inp density] ++ aux[b_aux density],
 *            b_g2 query> + s delta_g2   (and B1 the same in G1)
 *   C      = <aux, l query> + <h, h query> + s A + r B1 - r s delta_g1
 *
 * The a and b_g1/b_g2 queries hold only the variables that occur (the
 * density bits), so the A and B scalars are gathered through the bits
 * first: the MSMs run over the popcounts, not over every variable.
 *
 * This file is the kind's own part: the key decoder (a parameter file read
 * whole into accounted memory, so nothing the file does later reaches a
 * proof, and its queries decoded there in place: bellperson's uncompressed
 * points and blst's affine ones are the same size), the checks of an
 * assignment, and its preparation into the skeleton's input.  pl_c2_prove
 * runs the proofs as a job of the engine (engine/kind_c2.c), which reserves
 * their bytes, records the ledger's events, verifies each proof and
 * overlaps one proof's finish with the next one's start.
 */
#include "proofline_c2.h"
#include "groth16/c2.h"
#include "groth16/vkey.h"
#include "field/field.h"
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "util/alloc.h"
#include "util/bits.h"
#include "util/error.h"
#include "util/file.h"
#include "util/pool.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define FR_BYTES ((uint64_t)sizeof(blst_fr))

struct pl_c2_srs {
    pl__groth16_key key;
    uint32_t n;                 /* the domain: count(h) + 1 */
    uint32_t n_inp, n_aux;      /* ic's count; l's count */
    uint32_t n_a, n_b;          /* the a query's; b_g1's (= b_g2's) */
    unsigned threads;
    /* the parameter file's bytes (class params), its queries decoded in
     * place into blst's affine points */
    pl__mapped file;
    pl_vkey *vkey;
    char *path;
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

/* Point i is read (zcash encoding) before it is written (blst's layout,
 * the same size) at the same place: a task's points are its own. */
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
            if ((e = pl__bp_g2_at(&q, j->p, (uint32_t)i)) == BLST_SUCCESS)
                memcpy(j->dst + i * sizeof(q), &q, sizeof(q));
        } else {
            blst_p1_affine q;
            if ((e = pl__bp_g1_at(&q, j->p, j->section, (uint32_t)i)) ==
                BLST_SUCCESS)
                memcpy(j->dst + i * sizeof(q), &q, sizeof(q));
        }
        if (e != BLST_SUCCESS) { /* left as the file has it */
            uint64_t seen = atomic_load(&j->first_bad);
            while (i < seen &&
                   !atomic_compare_exchange_weak(&j->first_bad, &seen, i))
                ;
            return;
        }
    }
}

/* A section's points decoded in place (on the curve, not at infinity; the
 * subgroups are pl_bp_params_check_points's), over the pool: a real PoRep
 * file holds ~10^8 of them. */
static pl_status decode_section(const pl_bp_params *p, unsigned s,
                                pl__pool *pool, pl_error *err)
{
    _Static_assert(sizeof(blst_p1_affine) == PL__BP_G1_BYTES &&
                       sizeof(blst_p2_affine) == PL__BP_G2_BYTES,
                   "decoding in place needs blst's points to be as large as "
                   "bellperson's uncompressed ones");
    decode_job j = {(uint8_t *)p->points[s], p, s, UINT64_MAX};
    const size_t tasks = ((size_t)p->count[s] + DECODE_GRAIN - 1) /
                         DECODE_GRAIN;
    if (tasks)
        pl__pool_run(pool, tasks, decode_task, &j);
    const uint64_t bad = atomic_load(&j.first_bad);
    if (bad == UINT64_MAX)
        return PL_OK;
    /* the first bad point is still as the file has it (a task writes only
     * what decoded): decoded once more, for what is wrong with it */
    BLST_ERROR e;
    if (pl__bp_section_is_g2(s)) {
        blst_p2_affine q;
        e = pl__bp_g2_at(&q, p, (uint32_t)bad);
    } else {
        blst_p1_affine q;
        e = pl__bp_g1_at(&q, p, s, (uint32_t)bad);
    }
    return pl__bp_point_fail(p, s, bad, e == BLST_SUCCESS ? BLST_BAD_ENCODING
                                                          : e, err);
}

static pl_status srs_read(pl_c2_srs **out, const char *params_path,
                          bool check_points, unsigned threads,
                          bool snarkjs_domain, uint64_t max_bytes,
                          pl_error *err);

pl_status pl_c2_srs_create(pl_c2_srs **out, const char *params_path,
                           bool check_points, unsigned threads, pl_error *err)
{
    return srs_read(out, params_path, check_points, threads, false, 0, err);
}

pl_status pl__c2_srs_create_domain(pl_c2_srs **out, const char *params_path,
                                   bool check_points, unsigned threads,
                                   bool snarkjs_domain, pl_error *err)
{
    return srs_read(out, params_path, check_points, threads, snarkjs_domain,
                    0, err);
}

pl_status pl__c2_srs_load(pl_c2_srs **out, const char *params_path,
                          bool check_points, unsigned threads,
                          uint64_t max_bytes, pl_error *err)
{
    return srs_read(out, params_path, check_points, threads, false, max_bytes,
                    err);
}

/* The key over the decoded queries: blstrs's domain (or snarkjs's, for
 * the test hook), h's n - 1 coefficients, the sets' counts. */
static void fill_key(pl_c2_srs *srs, const pl_bp_params *p, unsigned log2n,
                     bool snarkjs_domain)
{
    pl__groth16_key *key = &srs->key;
    key->path = srs->path;
    key->shape.log2n = log2n;
    key->shape.roots = snarkjs_domain ? PL__ROOTS_SNARKJS : PL__ROOTS_BLSTRS;
    key->shape.h_form = PL__H_COEFFICIENTS;
    key->shape.montgomery_scalars = true; /* pl_c2_config.montgomery */
    key->shape.counts[PL__SUM_H] = p->count[PL__BP_H];
    key->shape.counts[PL__SUM_A] = p->count[PL__BP_A];
    key->shape.counts[PL__SUM_B1] = p->count[PL__BP_B_G1];
    key->shape.counts[PL__SUM_C] = p->count[PL__BP_L];
    key->g1[PL__SUM_H] = p->points[PL__BP_H];
    key->g1[PL__SUM_A] = p->points[PL__BP_A];
    key->g1[PL__SUM_B1] = p->points[PL__BP_B_G1];
    key->g1[PL__SUM_C] = p->points[PL__BP_L];
    key->b2 = p->points[PL__BP_B_G2];
    key->alpha1 = p->alpha_g1;
    key->beta1 = p->beta_g1;
    key->delta1 = p->delta_g1;
    key->beta2 = p->beta_g2;
    key->delta2 = p->delta_g2;
    key->n_public = p->count[PL__BP_IC] ? p->count[PL__BP_IC] - 1 : 0;
}

static pl_status srs_read(pl_c2_srs **out, const char *params_path,
                          bool check_points, unsigned threads,
                          bool snarkjs_domain, uint64_t max_bytes,
                          pl_error *err)
{
    pl_status st = PL_OK;
    pl_bp_params *p = NULL;
    pl__pool *pool = NULL;
    pl_c2_srs *srs = NULL;
    *out = NULL;
    if (!(srs = calloc(1, sizeof(*srs))) ||
        !(srs->path = pl__path_dup(params_path))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", params_path);
        goto fail;
    }
    /* read whole, then parsed and decoded there: the bytes proved with
     * are one version of the file (pl__file_load refuses one that changed
     * while it was read), whatever happens to it later */
    if ((st = pl__file_load(&srs->file, params_path, PL_BUF_PARAMS, max_bytes,
                            err)) ||
        (st = pl__bp_parse(&p, srs->file.data, srs->file.size, params_path,
                           err)))
        goto fail;
    if (p->vk_only) {
        st = pl__error_set(err, PL_EUSAGE, "%s: a verifying key (.vk), not a "
                           "parameter file: no queries to prove with",
                           params_path);
        goto fail;
    }
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
    if (p->count[PL__BP_A] < p->count[PL__BP_IC]) {
        st = pl__error_set(err, PL_EFORMAT, "%s: section a: %" PRIu32
                           " points, fewer than the %" PRIu32 " inputs (ic), "
                           "which every proof's A sums", params_path,
                           p->count[PL__BP_A], p->count[PL__BP_IC]);
        goto fail;
    }
    srs->n = (uint32_t)n;
    srs->n_inp = p->count[PL__BP_IC];
    srs->n_aux = p->count[PL__BP_L];
    srs->n_a = p->count[PL__BP_A];
    srs->n_b = p->count[PL__BP_B_G1];
    srs->threads = pl__pool_threads_for(threads);
    /* the verifying key from the ic points, which stay as the file has
     * them; the subgroups checked if asked, over the same threads; then
     * every query decoded in place */
    if ((st = pl_vkey_from_bp_params(&srs->vkey, p, err)) ||
        (st = pl__pool_create(&pool, threads, "pl-c2", err)) ||
        (check_points &&
         (st = pl__bp_params_check_points(p, pool, NULL, err))))
        goto fail;
    const unsigned queries[5] = {PL__BP_H, PL__BP_L, PL__BP_A, PL__BP_B_G1,
                                 PL__BP_B_G2};
    for (unsigned k = 0; k < 5; k++)
        if ((st = decode_section(p, queries[k], pool, err)))
            goto fail;
    fill_key(srs, p, log2n, snarkjs_domain);
    *out = srs;
    srs = NULL;
fail:
    pl__pool_destroy(pool);
    pl_bp_params_close(p); /* its view of the queries is stale now */
    pl_c2_srs_destroy(srs);
    return st;
}

void pl_c2_srs_destroy(pl_c2_srs *srs)
{
    if (!srs)
        return;
    pl_vkey_destroy(srs->vkey);
    pl__free((void *)srs->file.data);
    free(srs->path);
    free(srs);
}

uint64_t pl_c2_srs_bytes(const pl_c2_srs *srs)
{
    return srs->file.size + pl__vkey_bytes(srs->n_inp ? srs->n_inp - 1 : 0);
}

const pl__groth16_key *pl__c2_srs_key(const pl_c2_srs *srs)
{
    return &srs->key;
}

const pl_vkey *pl__c2_srs_vkey(const pl_c2_srs *srs)
{
    return srs->vkey;
}

const char *pl__c2_srs_path(const pl_c2_srs *srs)
{
    return srs->path;
}

unsigned pl__c2_srs_threads(const pl_c2_srs *srs)
{
    return srs->threads;
}

bool pl__c2_srs_file_changed(const pl_c2_srs *srs)
{
    return !pl__file_unchanged(srs->path, &srs->file.id);
}

uint32_t pl__c2_srs_n_public(const pl_c2_srs *srs)
{
    return srs->key.n_public;
}

/* The gathered scalars' buffer: A's (at most n_a), B's (at most n_b), the
 * public inputs (n_inp - 1); one allocation. */
static uint64_t gathered_bytes(const pl_c2_srs *srs)
{
    return ((uint64_t)srs->n_a + srs->n_b + srs->n_inp) * FR_BYTES;
}

void pl__c2_plan(const pl_c2_srs *srs, const pl__backend_ops *backend,
                 unsigned threads, pl__prove_plan *out)
{
    pl__groth16_plan(&srs->key.shape, backend, threads, out);
    out->bytes[PL_BUF_MSM_SCRATCH] += gathered_bytes(srs);
}

uint64_t pl_c2_prove_bytes(const pl_c2_srs *srs)
{
    char note[8];
    const pl__backend_ops *cpu = pl__backend_find("cpu", note, sizeof(note));
    pl__prove_plan plan;
    pl__c2_plan(srs, cpu, srs->threads, &plan);
    uint64_t total = plan.resident_bytes;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        total += plan.bytes[c];
    return total;
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

/* ---- one proof's input ---------------------------------------------------- */

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

/* Standard form of a scalar, from blstrs's in-memory bytes when
 * montgomery. */
static void standard(pl_scalar *out, const pl_scalar *in, bool montgomery)
{
    if (!montgomery) {
        *out = *in;
        return;
    }
    blst_fr f;
    memcpy(&f, in->b, sizeof(f));
    pl__fr_to_le(out->b, &f);
}

/* Scalars of the variables a density selects, in standard form: inputs
 * (all of them when inp_bits is NULL) then the aux ones whose bit is set. */
static size_t gather(pl_scalar *out, const pl_c2_assignment *as,
                     const uint64_t *inp_bits, const uint64_t *aux_bits,
                     bool montgomery)
{
    size_t k = 0;
    for (size_t i = 0; i < as->inp_assignment_size; i++)
        if (!inp_bits || bit_at(inp_bits, i))
            standard(&out[k++], &as->inp_assignment[i], montgomery);
    for (size_t i = 0; i < as->aux_assignment_size; i++)
        if (bit_at(aux_bits, i))
            standard(&out[k++], &as->aux_assignment[i], montgomery);
    return k;
}

pl_status pl__c2_input_prepare(pl__c2_input *out, const pl_c2_srs *srs,
                               const pl_c2_assignment *as,
                               const pl_scalar *r, const pl_scalar *s,
                               bool montgomery, bool rs_montgomery,
                               pl_error *err)
{
    memset(out, 0, sizeof(*out));
    blst_fr *abc = pl__alloc(PL_BUF_ABC, 3 * (uint64_t)srs->n * FR_BYTES,
                             err);
    pl_scalar *g = abc ? pl__alloc(PL_BUF_MSM_SCRATCH, gathered_bytes(srs),
                                   err)
                       : NULL;
    if (!g) {
        pl__free(abc);
        return PL_ENOMEM;
    }
    load_abc(srs, abc, as, montgomery);
    pl_scalar *a = g, *b = a + srs->n_a, *publics = b + srs->n_b;
    const size_t n_a = gather(a, as, NULL, as->a_aux_density, montgomery);
    const size_t n_b = gather(b, as, as->b_inp_density, as->b_aux_density,
                              montgomery);
    out->n_public = srs->n_inp ? srs->n_inp - 1 : 0;
    for (size_t i = 0; i < out->n_public; i++)
        standard(&publics[i], &as->inp_assignment[i + 1], montgomery);
    out->gathered = g;
    out->publics = publics;
    standard((pl_scalar *)&out->r, r, rs_montgomery);
    standard((pl_scalar *)&out->s, s, rs_montgomery);
    out->in.abc = abc;
    out->in.scalars[PL__SUM_A] = (pl__scalars){a, n_a, false};
    out->in.scalars[PL__SUM_B1] = (pl__scalars){b, n_b, false};
    out->in.scalars[PL__SUM_C] = (pl__scalars){as->aux_assignment,
                                               as->aux_assignment_size,
                                               montgomery};
    out->in.r = &out->r;
    out->in.s = &out->s;
    return PL_OK;
}

void pl__c2_input_release(pl__c2_input *x)
{
    if (!x)
        return;
    pl__free(x->in.abc); /* when start did not take it */
    pl__free(x->gathered);
    memset(x, 0, sizeof(*x)); /* the blinding */
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

/* sum coef * w[wire] over a linear combination; false at a wire not
 * below n_wires (the reader validated every term when it read the file,
 * and a loaded file cannot change since: this is the last line, for an
 * r1cs mapped by a caller). */
static bool lc_eval(pl_scalar *out, const pl__r1cs_lc *lc, const pl_scalar *w,
                    size_t n_wires, uint32_t *bad_wire)
{
    blst_fr acc, c, v;
    memset(&acc, 0, sizeof(acc));
    for (uint32_t t = 0; t < lc->n_terms; t++) {
        pl__r1cs_term term = pl__r1cs_lc_term(lc, t);
        if (term.wire >= n_wires) {
            *bad_wire = term.wire;
            return false;
        }
        pl__fr_from_le(&c, term.coef);
        pl__fr_from_le(&v, w[term.wire].b);
        blst_fr_mul(&c, &c, &v);
        blst_fr_add(&acc, &acc, &c);
    }
    pl__fr_to_le(out->b, &acc);
    return true;
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
    if (r1cs->curve != PL__CURVE_BLS12_381) /* bellperson's is BLS12-381 */
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: a bellperson "
                             "assignment is of BLS12-381, but this r1cs is "
                             "for curve %s", r1cs->path,
                             pl__curve_name(r1cs->curve));
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
    uint64_t *b_inp = a_aux + words, *b_aux = b_inp + words;
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    for (pl__r1cs_iter_init(&it, r1cs); pl__r1cs_iter_next(&it, &k, lc);) {
        uint32_t bad = 0;
        unsigned m;
        for (m = 0; m < 3; m++)
            if (!lc_eval(&abc[m * rows + k], &lc[m], w, n, &bad))
                break;
        if (m < 3) {
            pl__free(a_aux);
            pl__free(abc);
            return pl__error_set(err, PL_EFORMAT, "%s: section 2 "
                                 "(constraints): constraint %" PRIu32 ", %c: "
                                 "wire %" PRIu32 " is not below nWires %zu",
                                 r1cs->path, k, "ABC"[m], bad, n);
        }
        for (m = 0; m < 2; m++)
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
