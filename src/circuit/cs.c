/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The constraint-system builder (pl_cs, pl_lc): variables in two index
 * spaces (public, private), a table of distinct coefficients, constraints
 * stored as (var, coefficient index) terms with row offsets, and the
 * freeze that maps variables to circom's wire order.  Circuits call the
 * public pl_cs_ / pl_lc_ functions; gadgets call the pl__cs_ term interface
 * (cs.h).  The writers and the evaluation are in export.c.
 *
 * Every array that can grow large (values: class witness; terms, rows,
 * coefficients, their hash: class csr) is an accounted buffer, grown by
 * doubling (allocate, copy, free: the allocator has no realloc).  Only the
 * scratch of the one constraint being emitted is plain malloc: it holds a
 * few hundred terms at most.
 */
#include "circuit/cs.h"
#include "proofline_c2.h"
#include "formats/bellperson.h"
#include "field/field.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_GROW 1024u
#define SMALL_SORT 24u

struct pl_lc {
    pl_cs *cs;
    blst_fr value;
    pl__term *terms; /* recording only (malloc) */
    uint32_t n, cap;
};

pl_status pl__cs_fail(pl_cs *cs, pl_status code, const char *fmt, ...)
{
    if (cs->status == PL_OK) {
        cs->status = code;
        memset(&cs->error, 0, sizeof(cs->error));
        cs->error.code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cs->error.msg, sizeof(cs->error.msg), fmt, ap);
        va_end(ap);
    }
    return cs->status;
}

static pl_status sticky(const pl_cs *cs, pl_error *err)
{
    if (cs->status != PL_OK && err)
        *err = cs->error;
    return cs->status;
}

/* Grows an accounted array to hold `need` elements. */
static bool grow(pl_cs *cs, void **buf, uint64_t *cap, uint64_t need,
                 size_t elem, pl_buffer_class cls, const char *what)
{
    if (need <= *cap)
        return true;
    uint64_t n = *cap ? *cap : MIN_GROW;
    while (n < need)
        n *= 2;
    pl_error e = {0};
    void *p = pl__alloc(cls, n * elem, &e);
    if (!p) {
        pl__cs_fail(cs, PL_ENOMEM, "circuit: %s: %s", what, e.msg);
        return false;
    }
    if (*buf) {
        memcpy(p, *buf, *cap * elem);
        pl__free(*buf);
    }
    *buf = p;
    *cap = n;
    return true;
}

/* ---- coefficients ------------------------------------------------------ */

static uint32_t hash_fr(const blst_fr *v, uint32_t cap)
{
    uint64_t h = v->l[0] ^ (v->l[1] * 0xff51afd7ed558ccdull) ^
                 (v->l[2] * 0xc4ceb9fe1a85ec53ull) ^ (v->l[3] << 17);
    h *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

static bool rehash(pl_cs *cs, uint32_t cap)
{
    pl_error e = {0};
    uint32_t *h = pl__calloc(PL_BUF_CSR, (uint64_t)cap * sizeof(uint32_t), &e);
    if (!h) {
        pl__cs_fail(cs, PL_ENOMEM, "circuit: coefficient index: %s", e.msg);
        return false;
    }
    for (uint32_t i = 0; i < cs->n_coeffs; i++) {
        uint32_t s = hash_fr(&cs->coeffs[i], cap);
        while (h[s])
            s = (s + 1) & (cap - 1);
        h[s] = i + 1;
    }
    pl__free(cs->hash);
    cs->hash = h;
    cs->hash_cap = cap;
    return true;
}

uint32_t pl__cs_coeff(pl_cs *cs, const blst_fr *value)
{
    if (cs->status != PL_OK)
        return PL__COEFF_ONE;
    if (!cs->hash) { /* a recording frees its index at freeze */
        pl__cs_fail(cs, PL_EUSAGE, "circuit: a coefficient given after "
                    "pl_cs_freeze");
        return PL__COEFF_ONE;
    }
    uint32_t s = hash_fr(value, cs->hash_cap);
    for (uint32_t i; (i = cs->hash[s]) != 0; s = (s + 1) & (cs->hash_cap - 1))
        if (memcmp(&cs->coeffs[i - 1], value, sizeof(blst_fr)) == 0)
            return i - 1;
    uint64_t cap = cs->coeffs_cap;
    if (!grow(cs, (void **)&cs->coeffs, &cap, (uint64_t)cs->n_coeffs + 1,
              sizeof(blst_fr), PL_BUF_CSR, "coefficients"))
        return PL__COEFF_ONE;
    cs->coeffs_cap = (uint32_t)cap;
    uint32_t idx = cs->n_coeffs++;
    cs->coeffs[idx] = *value;
    if ((uint64_t)cs->n_coeffs * 2 > cs->hash_cap) {
        if (!rehash(cs, cs->hash_cap * 2))
            return PL__COEFF_ONE;
    } else {
        cs->hash[s] = idx + 1;
    }
    return idx;
}

uint32_t pl__cs_coeff_scaled(pl_cs *cs, int64_t k, unsigned shift)
{
    if ((k == 1 || k == -1) && shift < 256)
        return k > 0 ? PL__COEFF_POW2(shift) : PL__COEFF_NEG_POW2(shift);
    if ((k == 2 || k == -2) && shift < 255)
        return k > 0 ? PL__COEFF_POW2(shift + 1)
                     : PL__COEFF_NEG_POW2(shift + 1);
    uint64_t mag = k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k;
    uint64_t limbs[4] = {mag, 0, 0, 0};
    blst_fr v;
    blst_fr_from_uint64(&v, limbs);
    for (unsigned i = 0; i < shift; i++)
        blst_fr_add(&v, &v, &v);
    if (k < 0)
        blst_fr_cneg(&v, &v, true);
    return pl__cs_coeff(cs, &v);
}

/* The table starts with 0, 2^0..2^255, -2^0..-2^255. */
static bool coeffs_init(pl_cs *cs)
{
    uint64_t cap = 0;
    if (!grow(cs, (void **)&cs->coeffs, &cap, 1024, sizeof(blst_fr),
              PL_BUF_CSR, "coefficients"))
        return false;
    cs->coeffs_cap = (uint32_t)cap;
    memset(&cs->coeffs[0], 0, sizeof(blst_fr));
    uint64_t one[4] = {1, 0, 0, 0};
    blst_fr p;
    blst_fr_from_uint64(&p, one);
    for (unsigned i = 0; i < 256; i++) {
        cs->coeffs[PL__COEFF_POW2(i)] = p;
        blst_fr_cneg(&cs->coeffs[PL__COEFF_NEG_POW2(i)], &p, true);
        blst_fr_add(&p, &p, &p);
    }
    cs->n_coeffs = PL__COEFF_PREFILLED;
    return rehash(cs, 2048);
}

/* ---- create, destroy --------------------------------------------------- */

static pl_status create(pl_cs **out, pl__cs_mode mode, pl_error *err)
{
    *out = NULL;
    pl_cs *cs = calloc(1, sizeof(*cs));
    if (!cs)
        return pl__error_set(err, PL_ENOMEM, "circuit: out of memory");
    cs->mode = mode;
    /* Witness-only lcs need coefficient values too; only recording keeps
     * rows. */
    if (mode != PL__CS_COUNT)
        coeffs_init(cs);
    if (mode == PL__CS_RECORDING && cs->status == PL_OK) {
        uint64_t cap = 0;
        if (grow(cs, (void **)&cs->rows, &cap, MIN_GROW, sizeof(uint64_t),
                 PL_BUF_CSR, "constraint rows")) {
            cs->rows_cap = cap;
            cs->rows[0] = 0;
        }
    }
    if (cs->status != PL_OK) {
        pl_status st = sticky(cs, err);
        pl_cs_destroy(cs);
        return st;
    }
    *out = cs;
    return PL_OK;
}

pl_status pl_cs_create_recording(pl_cs **out, pl_error *err)
{
    return create(out, PL__CS_RECORDING, err);
}

pl_status pl__cs_create_counting(pl_cs **out, pl_error *err)
{
    return create(out, PL__CS_COUNT, err);
}

pl_status pl_cs_create_witness_only(pl_cs **out, size_t n_public,
                                    size_t n_wires, pl_scalar *values,
                                    pl_error *err)
{
    *out = NULL;
    if (n_wires < 1 + (uint64_t)n_public || n_wires > PL__MAX_VARS)
        return pl__error_set(err, PL_EUSAGE,
                             "circuit: a shape of %zu wires cannot hold ONE "
                             "and %zu public variables", n_wires, n_public);
    pl_cs *cs;
    pl_status st = create(&cs, PL__CS_WITNESS, err);
    if (st != PL_OK)
        return st;
    cs->shape_public = n_public;
    cs->shape_wires = n_wires;
    if (values) {
        cs->values = values;
    } else {
        cs->values = pl__alloc(PL_BUF_WITNESS, (uint64_t)n_wires *
                               sizeof(pl_scalar), err);
        if (!cs->values) {
            pl_cs_destroy(cs);
            return PL_ENOMEM;
        }
        cs->own_values = true;
    }
    memset(&cs->values[0], 0, sizeof(pl_scalar));
    cs->values[0].b[0] = 1;
    *out = cs;
    return PL_OK;
}

pl_status pl_cs_create_assignment(pl_cs **out, size_t n_public,
                                  size_t n_wires, size_t n_constraints,
                                  pl_scalar *values, pl_error *err)
{
    pl_cs *cs;
    pl_status st = pl_cs_create_witness_only(&cs, n_public, n_wires, values,
                                             err);
    if (st != PL_OK)
        return st;
    const uint64_t n_inp = 1 + (uint64_t)n_public;
    const uint64_t n_aux = n_wires - n_inp;
    cs->assign = true;
    cs->shape_constraints = n_constraints;
    cs->abc_rows = n_constraints + n_inp;
    cs->density_words = pl__c2_density_words(n_inp, n_aux);
    /* a, b, c apart from the densities, so that the early free (abc_done)
     * lets go of them alone */
    if (!(cs->abc = pl__calloc(PL_BUF_ABC, 3 * cs->abc_rows *
                                               sizeof(pl_scalar), err)) ||
        !(cs->density = pl__calloc(PL_BUF_ABC, 3 * cs->density_words *
                                                   sizeof(uint64_t), err))) {
        pl_cs_destroy(cs);
        *out = NULL;
        return PL_ENOMEM;
    }
    *out = cs;
    return PL_OK;
}

uint64_t pl_cs_assignment_abc_bytes(size_t n_public, size_t n_constraints)
{
    return 3 * ((uint64_t)n_constraints + 1 + n_public) * sizeof(pl_scalar);
}

/* The coefficient table as coeffs_init makes it: 1024 entries (the 513
 * prefilled ones and room), its hash of 2048 slots. */
#define COEFF_TABLE_BYTES (1024 * sizeof(blst_fr) + 2048 * sizeof(uint32_t))

uint64_t pl_cs_assignment_other_bytes(size_t n_public, size_t n_wires)
{
    const uint64_t n_inp = 1 + (uint64_t)n_public;
    const uint64_t n_aux = n_wires > n_inp ? n_wires - n_inp : 0;
    const uint64_t words = pl__c2_density_words(n_inp, n_aux);
    return (uint64_t)n_wires * sizeof(pl_scalar) +
           3 * words * sizeof(uint64_t) + COEFF_TABLE_BYTES;
}

pl_status pl_cs_take_assignment(pl_cs *cs, pl_c2_assignment *out,
                                pl_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!cs->assign)
        return pl__error_set(err, PL_EUSAGE, "circuit: an assignment comes "
                             "from a cs made by pl_cs_create_assignment");
    pl_status st = cs->frozen ? sticky(cs, err) : pl_cs_freeze(cs, err);
    if (st != PL_OK)
        return st;
    if (!cs->abc)
        return pl__error_set(err, PL_EUSAGE, "circuit: the assignment was "
                             "taken already");
    if (cs->n_constraints != cs->shape_constraints)
        return pl__error_set(err, PL_EFORMAT, "circuit: enforced %" PRIu64
                             " constraints, but its shape has %" PRIu64,
                             cs->n_constraints, cs->shape_constraints);
    const uint64_t n_inp = 1 + cs->shape_public;
    const uint64_t n_aux = cs->shape_wires - n_inp;
    pl__c2_assignment_over(out, cs->abc, cs->abc_rows, cs->density,
                           cs->values, n_inp, n_aux);
    cs->abc = NULL; /* the assignment's now */
    cs->density = NULL;
    return PL_OK;
}

void pl_cs_destroy(pl_cs *cs)
{
    if (!cs)
        return;
    if (cs->own_values)
        pl__free(cs->values);
    pl__free(cs->pub_vals);
    pl__free(cs->prv_vals);
    pl__free(cs->terms);
    pl__free(cs->rows);
    pl__free(cs->coeffs);
    pl__free(cs->hash);
    pl__free(cs->abc);
    pl__free(cs->density);
    free(cs->cur);
    free(cs);
}

bool pl_cs_is_recording(const pl_cs *cs)
{
    return cs->mode == PL__CS_RECORDING;
}

void pl_cs_set_check(pl_cs *cs, bool check)
{
    cs->check = check;
}

pl_status pl_cs_status(const pl_cs *cs, pl_error *err)
{
    return sticky(cs, err);
}

size_t pl_cs_n_constraints(const pl_cs *cs) { return cs->n_constraints; }
size_t pl_cs_n_public(const pl_cs *cs) { return cs->n_public; }
size_t pl_cs_n_private(const pl_cs *cs) { return cs->n_private; }
size_t pl_cs_n_wires(const pl_cs *cs)
{
    return 1 + cs->n_public + cs->n_private;
}

/* ---- variables --------------------------------------------------------- */

static const pl_scalar SCALAR_ONE = {{1}};

static bool can_add(pl_cs *cs, bool is_public)
{
    if (cs->status != PL_OK)
        return false;
    if (cs->frozen) {
        pl__cs_fail(cs, PL_EUSAGE, "circuit: a variable allocated after "
                    "pl_cs_freeze");
        return false;
    }
    if (cs->mode == PL__CS_WITNESS) {
        uint64_t have = is_public ? cs->shape_public
                                  : cs->shape_wires - 1 - cs->shape_public;
        if ((is_public ? cs->n_public : cs->n_private) >= have) {
            pl__cs_fail(cs, PL_EFORMAT, "circuit: allocates more than the "
                        "%" PRIu64 " %s variables of its shape (%" PRIu64
                        " wires, %" PRIu64 " public)", have,
                        is_public ? "public" : "private", cs->shape_wires,
                        cs->shape_public);
            return false;
        }
    } else if (cs->n_public + cs->n_private + 1 >= PL__MAX_VARS) {
        pl__cs_fail(cs, PL_EUNSUPPORTED, "circuit: more than %u variables",
                    PL__MAX_VARS);
        return false;
    }
    return true;
}

/* Where a new variable's value goes (NULL: counting, or failed). */
static pl_scalar *new_slot(pl_cs *cs, bool is_public, uint32_t *id)
{
    if (!can_add(cs, is_public)) {
        *id = PL__VAR_ONE;
        return NULL;
    }
    uint64_t idx = is_public ? cs->n_public : cs->n_private;
    pl_scalar *slot = NULL;
    if (cs->mode == PL__CS_WITNESS) {
        slot = &cs->values[is_public ? 1 + idx
                                     : 1 + cs->shape_public + idx];
    } else if (cs->mode == PL__CS_RECORDING) {
        if (is_public) {
            if (!grow(cs, (void **)&cs->pub_vals, &cs->pub_cap, idx + 1,
                      sizeof(pl_scalar), PL_BUF_WITNESS, "public values")) {
                *id = PL__VAR_ONE;
                return NULL;
            }
            slot = &cs->pub_vals[idx];
        } else {
            if (!grow(cs, (void **)&cs->prv_vals, &cs->prv_cap, idx + 1,
                      sizeof(pl_scalar), PL_BUF_WITNESS, "private values")) {
                *id = PL__VAR_ONE;
                return NULL;
            }
            slot = &cs->prv_vals[idx];
        }
    }
    if (is_public) {
        cs->n_public++;
        *id = (uint32_t)(1 + idx);
    } else {
        cs->n_private++;
        *id = PL__VAR_PRIVATE | (uint32_t)idx;
    }
    return slot;
}

uint32_t pl__cs_alloc(pl_cs *cs, bool is_public, const uint8_t value_le[32])
{
    if (!pl__scalar_is_canonical(value_le)) {
        pl__cs_fail(cs, PL_EFORMAT, "circuit: the value of %s variable %"
                    PRIu64 " is not below r", is_public ? "public" : "private",
                    is_public ? cs->n_public : cs->n_private);
        return PL__VAR_ONE;
    }
    uint32_t id;
    pl_scalar *slot = new_slot(cs, is_public, &id);
    if (slot)
        memcpy(slot->b, value_le, 32);
    return id;
}

uint32_t pl__cs_alloc_u64(pl_cs *cs, bool is_public, uint64_t value)
{
    uint32_t id;
    pl_scalar *slot = new_slot(cs, is_public, &id);
    if (slot) {
        memset(slot->b, 0, 32);
        for (unsigned i = 0; i < 8; i++)
            slot->b[i] = (uint8_t)(value >> (8 * i));
    }
    return id;
}

uint32_t pl__cs_alloc_bit(pl_cs *cs, unsigned bit)
{
    uint32_t id;
    pl_scalar *slot = new_slot(cs, false, &id);
    if (slot) {
        memset(slot->b, 0, 32);
        slot->b[0] = (uint8_t)(bit & 1);
    }
    return id;
}

void pl__cs_value_le(const pl_cs *cs, uint8_t out[32], uint32_t var)
{
    const pl_scalar *v = NULL;
    if (var == PL__VAR_ONE) {
        v = &SCALAR_ONE;
    } else if (cs->mode == PL__CS_WITNESS || (cs->frozen && cs->values)) {
        v = &cs->values[pl__cs_wire(cs, var)];
    } else if (cs->mode == PL__CS_RECORDING) {
        v = (var & PL__VAR_PRIVATE) ? &cs->prv_vals[var & ~PL__VAR_PRIVATE]
                                    : &cs->pub_vals[var - 1];
    }
    if (v)
        memcpy(out, v->b, 32);
    else
        memset(out, 0, 32);
}

static bool var_valid(const pl_cs *cs, uint32_t var)
{
    if (var & PL__VAR_PRIVATE)
        return (var & ~PL__VAR_PRIVATE) < cs->n_private;
    return var <= cs->n_public;
}

pl_var pl_cs_one(void)
{
    pl_var v = {PL__VAR_ONE};
    return v;
}

pl_status pl_cs_alloc_public(pl_cs *cs, pl_var *out, const pl_scalar *value,
                             pl_error *err)
{
    out->id = pl__cs_alloc(cs, true, value->b);
    return sticky(cs, err);
}

pl_status pl_cs_alloc_private(pl_cs *cs, pl_var *out, const pl_scalar *value,
                              pl_error *err)
{
    out->id = pl__cs_alloc(cs, false, value->b);
    return sticky(cs, err);
}

void pl_cs_value(const pl_cs *cs, pl_scalar *out, pl_var var)
{
    if (!var_valid(cs, var.id)) {
        memset(out->b, 0, 32);
        return;
    }
    pl__cs_value_le(cs, out->b, var.id);
}

/* ---- constraints ------------------------------------------------------- */

bool pl__cs_begin(pl_cs *cs)
{
    if (cs->status != PL_OK)
        return false;
    if (cs->frozen) {
        pl__cs_fail(cs, PL_EUSAGE, "circuit: a constraint enforced after "
                    "pl_cs_freeze");
        return false;
    }
    cs->n_constraints++;
    if (cs->assign && cs->n_constraints > cs->shape_constraints) {
        pl__cs_fail(cs, PL_EFORMAT, "circuit: enforces more than the %"
                    PRIu64 " constraints of its shape", cs->shape_constraints);
        return false;
    }
    if (cs->mode != PL__CS_RECORDING && !cs->assign)
        return false;
    cs->in_constraint = true;
    cs->n_cur = 0;
    return true;
}

void pl__cs_term(pl_cs *cs, unsigned matrix, uint32_t var, uint32_t coeff)
{
    if (cs->n_cur == cs->cur_cap) {
        uint32_t cap = cs->cur_cap ? cs->cur_cap * 2 : 256;
        pl__pending_term *p = realloc(cs->cur, cap * sizeof(*p));
        if (!p) {
            pl__cs_fail(cs, PL_ENOMEM, "circuit: out of memory");
            return;
        }
        cs->cur = p;
        cs->cur_cap = cap;
    }
    cs->cur[cs->n_cur].key = (uint64_t)matrix << 32 | var;
    cs->cur[cs->n_cur].coeff = coeff;
    cs->n_cur++;
}

/* Sorts the constraint's terms by key: insertion sort for short runs,
 * quicksort above (glibc's qsort copies each 16-byte element through
 * memcpy, which dominated recording). */
static void sort_pending(pl__pending_term *t, uint32_t n)
{
    while (n > SMALL_SORT) {
        uint64_t a = t[0].key, b = t[n / 2].key, c = t[n - 1].key;
        uint64_t pivot = a < b ? (b < c ? b : (a < c ? c : a))
                               : (a < c ? a : (b < c ? c : b));
        uint32_t i = 0, j = n - 1;
        for (;;) {
            while (t[i].key < pivot)
                i++;
            while (t[j].key > pivot)
                j--;
            if (i >= j)
                break;
            pl__pending_term x = t[i];
            t[i++] = t[j];
            t[j--] = x;
        }
        /* [0, j] <= pivot <= [j + 1, n): recurse on the smaller side */
        uint32_t left = j + 1;
        if (left < n - left) {
            sort_pending(t, left);
            t += left;
            n -= left;
        } else {
            sort_pending(t + left, n - left);
            n = left;
        }
    }
    for (uint32_t i = 1; i < n; i++) {
        pl__pending_term x = t[i];
        uint32_t j = i;
        for (; j > 0 && t[j - 1].key > x.key; j--)
            t[j] = t[j - 1];
        t[j] = x;
    }
}

static void value_fr(const pl_cs *cs, blst_fr *out, uint32_t var)
{
    uint8_t le[32];
    pl__cs_value_le(cs, le, var);
    pl__fr_from_le(out, le);
}

/* Constraint k's A, B or C from its stored terms and the values so far. */
static void eval_stored(const pl_cs *cs, uint64_t k, unsigned m, blst_fr *out)
{
    memset(out, 0, sizeof(*out));
    for (uint64_t t = cs->rows[3 * k + m]; t < cs->rows[3 * k + m + 1]; t++) {
        blst_fr v;
        value_fr(cs, &v, cs->terms[t].var);
        blst_fr_mul(&v, &v, &cs->coeffs[cs->terms[t].coeff]);
        blst_fr_add(out, out, &v);
    }
}

/* Assignment mode: one merged term of constraint k's matrix m into its
 * sum, and its variable's occurrence into the densities (A and B only). */
static void assign_term(pl_cs *cs, unsigned m, uint32_t var, uint32_t coeff,
                        blst_fr *sum)
{
    blst_fr v;
    value_fr(cs, &v, var);
    blst_fr_mul(&v, &v, &cs->coeffs[coeff]);
    blst_fr_add(sum, sum, &v);
    if (m == 2)
        return;
    const uint64_t n_inp = 1 + cs->shape_public;
    const uint64_t wire = pl__cs_wire(cs, var);
    uint64_t *bits = NULL, i = wire;
    if (wire >= n_inp) {
        bits = cs->density + (m == 0 ? 0 : 2 * cs->density_words);
        i = wire - n_inp;
    } else if (m == 1) {
        bits = cs->density + cs->density_words;
    }
    if (bits)
        bits[i / 64] |= UINT64_C(1) << (i % 64);
}

void pl__cs_end(pl_cs *cs)
{
    cs->in_constraint = false;
    if (cs->status != PL_OK)
        return;
    uint64_t k = cs->n_constraints - 1;
    if (!cs->assign &&
        (!grow(cs, (void **)&cs->rows, &cs->rows_cap, 3 * k + 4,
               sizeof(uint64_t), PL_BUF_CSR, "constraint rows") ||
         !grow(cs, (void **)&cs->terms, &cs->terms_cap,
               cs->n_terms + cs->n_cur, sizeof(pl__term), PL_BUF_CSR,
               "constraint terms")))
        return;
    /* merged as recording merges them, so that the densities name exactly
     * the variables the recorded r1cs has in A and B */
    sort_pending(cs->cur, cs->n_cur);
    blst_fr sums[3];
    memset(sums, 0, sizeof(sums));
    uint32_t i = 0;
    for (unsigned m = 0; m < 3; m++) {
        if (!cs->assign)
            cs->rows[3 * k + m] = cs->n_terms;
        while (i < cs->n_cur && (cs->cur[i].key >> 32) == m) {
            uint32_t j = i + 1;
            uint32_t coeff = cs->cur[i].coeff;
            if (j < cs->n_cur && cs->cur[j].key == cs->cur[i].key) {
                blst_fr sum = cs->coeffs[coeff];
                for (; j < cs->n_cur && cs->cur[j].key == cs->cur[i].key; j++)
                    blst_fr_add(&sum, &sum, &cs->coeffs[cs->cur[j].coeff]);
                coeff = pl__cs_coeff(cs, &sum);
            }
            if (coeff != PL__COEFF_ZERO) {
                uint32_t var = (uint32_t)cs->cur[i].key;
                if (cs->assign) {
                    assign_term(cs, m, var, coeff, &sums[m]);
                } else {
                    cs->terms[cs->n_terms].var = var;
                    cs->terms[cs->n_terms].coeff = coeff;
                    cs->n_terms++;
                }
            }
            i = j;
        }
    }
    if (cs->assign) {
        for (unsigned m = 0; m < 3; m++)
            pl__fr_to_le(cs->abc[m * cs->abc_rows + k].b, &sums[m]);
    } else {
        cs->rows[3 * k + 3] = cs->n_terms;
        if (cs->check) {
            eval_stored(cs, k, 0, &sums[0]);
            eval_stored(cs, k, 1, &sums[1]);
            eval_stored(cs, k, 2, &sums[2]);
        }
    }
    if (cs->check) {
        blst_fr_mul(&sums[0], &sums[0], &sums[1]);
        if (memcmp(&sums[0], &sums[2], sizeof(sums[0])) != 0)
            pl__cs_fail(cs, PL_EUNSAT, "circuit: constraint %" PRIu64
                        " is not satisfied by the values given", k);
    }
}

/* ---- linear combinations ----------------------------------------------- */

pl_status pl_lc_create(pl_cs *cs, pl_lc **out, pl_error *err)
{
    *out = calloc(1, sizeof(pl_lc));
    if (!*out)
        return pl__error_set(err, PL_ENOMEM, "circuit: out of memory");
    (*out)->cs = cs;
    return PL_OK;
}

void pl_lc_destroy(pl_lc *lc)
{
    if (!lc)
        return;
    free(lc->terms);
    free(lc);
}

void pl_lc_clear(pl_lc *lc)
{
    lc->n = 0;
    memset(&lc->value, 0, sizeof(lc->value));
}

static void lc_add_coeff(pl_lc *lc, pl_var var, uint32_t coeff)
{
    pl_cs *cs = lc->cs;
    if (cs->status != PL_OK)
        return;
    if (!var_valid(cs, var.id)) {
        pl__cs_fail(cs, PL_EUSAGE, "circuit: a linear combination names "
                    "variable id 0x%08" PRIx32 ", which this cs did not "
                    "allocate", var.id);
        return;
    }
    if (cs->mode != PL__CS_COUNT) {
        blst_fr v;
        value_fr(cs, &v, var.id);
        blst_fr_mul(&v, &v, &cs->coeffs[coeff]);
        blst_fr_add(&lc->value, &lc->value, &v);
    }
    if (cs->mode != PL__CS_RECORDING && !cs->assign)
        return;
    if (lc->n == lc->cap) {
        uint32_t cap = lc->cap ? lc->cap * 2 : 16;
        pl__term *t = realloc(lc->terms, cap * sizeof(*t));
        if (!t) {
            pl__cs_fail(cs, PL_ENOMEM, "circuit: out of memory");
            return;
        }
        lc->terms = t;
        lc->cap = cap;
    }
    lc->terms[lc->n].var = var.id;
    lc->terms[lc->n].coeff = coeff;
    lc->n++;
}

void pl_lc_add(pl_lc *lc, pl_var var, const pl_scalar *coeff)
{
    pl_cs *cs = lc->cs;
    if (cs->status != PL_OK)
        return;
    if (!coeff) {
        lc_add_coeff(lc, var, PL__COEFF_ONE);
        return;
    }
    if (!pl__scalar_is_canonical(coeff->b)) {
        pl__cs_fail(cs, PL_EFORMAT, "circuit: a coefficient is not below r");
        return;
    }
    /* Counting mode keeps no table: any index will do. */
    uint32_t idx = PL__COEFF_ONE;
    if (cs->mode != PL__CS_COUNT) {
        blst_fr c;
        pl__fr_from_le(&c, coeff->b);
        idx = pl__cs_coeff(cs, &c);
    }
    lc_add_coeff(lc, var, idx);
}

void pl_lc_add_i64(pl_lc *lc, pl_var var, int64_t coeff)
{
    pl_cs *cs = lc->cs;
    if (cs->status != PL_OK)
        return;
    uint32_t idx = cs->mode == PL__CS_COUNT ? PL__COEFF_ONE
                                            : pl__cs_coeff_scaled(cs, coeff, 0);
    lc_add_coeff(lc, var, idx);
}

void pl_lc_add_constant(pl_lc *lc, const pl_scalar *constant)
{
    pl_lc_add(lc, pl_cs_one(), constant);
}

void pl_lc_value(const pl_lc *lc, pl_scalar *out)
{
    pl__fr_to_le(out->b, &lc->value);
}

pl_status pl_cs_enforce(pl_cs *cs, const pl_lc *a, const pl_lc *b,
                        const pl_lc *c, pl_error *err)
{
    if (cs->status == PL_OK && (a->cs != cs || b->cs != cs || c->cs != cs))
        pl__cs_fail(cs, PL_EUSAGE, "circuit: enforce with a linear "
                    "combination of another cs");
    if (pl__cs_begin(cs)) {
        const pl_lc *lcs[3] = {a, b, c};
        for (unsigned m = 0; m < 3; m++)
            for (uint32_t t = 0; t < lcs[m]->n; t++)
                pl__cs_term(cs, m, lcs[m]->terms[t].var,
                            lcs[m]->terms[t].coeff);
        pl__cs_end(cs); /* checks from the terms when cs->check */
    } else if (cs->status == PL_OK && cs->check &&
               cs->mode == PL__CS_WITNESS) {
        blst_fr ab;
        blst_fr_mul(&ab, &a->value, &b->value);
        if (memcmp(&ab, &c->value, sizeof(ab)) != 0)
            pl__cs_fail(cs, PL_EUNSAT, "circuit: constraint %" PRIu64
                        " is not satisfied by the values given",
                        cs->n_constraints - 1);
    }
    return sticky(cs, err);
}

/* ---- freeze ------------------------------------------------------------ */

pl_status pl_cs_freeze(pl_cs *cs, pl_error *err)
{
    if (cs->status != PL_OK || cs->frozen)
        return sticky(cs, err);
    if (cs->mode == PL__CS_WITNESS) {
        uint64_t want_prv = cs->shape_wires - 1 - cs->shape_public;
        if (cs->n_public != cs->shape_public || cs->n_private != want_prv)
            pl__cs_fail(cs, PL_EFORMAT, "circuit: allocated %" PRIu64
                        " public and %" PRIu64 " private variables, but its "
                        "shape has %" PRIu64 " and %" PRIu64, cs->n_public,
                        cs->n_private, cs->shape_public, want_prv);
    } else if (cs->mode == PL__CS_RECORDING) {
        uint64_t n = 1 + cs->n_public + cs->n_private;
        pl_error e = {0};
        cs->values = pl__alloc(PL_BUF_WITNESS, n * sizeof(pl_scalar), &e);
        if (!cs->values) {
            pl__cs_fail(cs, PL_ENOMEM, "circuit: the witness: %s", e.msg);
        } else {
            cs->own_values = true;
            cs->values[0] = SCALAR_ONE;
            if (cs->n_public)
                memcpy(&cs->values[1], cs->pub_vals,
                       cs->n_public * sizeof(pl_scalar));
            if (cs->n_private)
                memcpy(&cs->values[1 + cs->n_public], cs->prv_vals,
                       cs->n_private * sizeof(pl_scalar));
            pl__free(cs->pub_vals);
            pl__free(cs->prv_vals);
            cs->pub_vals = cs->prv_vals = NULL;
            /* Terms name wires from now on (order within an lc is kept:
             * every public id is below every private one either way). */
            uint32_t base = (uint32_t)(1 + cs->n_public);
            for (uint64_t t = 0; t < cs->n_terms; t++)
                if (cs->terms[t].var & PL__VAR_PRIVATE)
                    cs->terms[t].var = base +
                                       (cs->terms[t].var & ~PL__VAR_PRIVATE);
            pl__free(cs->hash);
            cs->hash = NULL;
            cs->hash_cap = 0;
            free(cs->cur);
            cs->cur = NULL;
            cs->cur_cap = 0;
        }
    }
    if (cs->status == PL_OK)
        cs->frozen = true;
    return sticky(cs, err);
}

pl_status pl_cs_run(pl_cs *cs, pl_cs_fn circuit, const void *inputs,
                    pl_error *err)
{
    pl_error e = {0};
    pl_status st = circuit(cs, inputs, &e);
    if (st != PL_OK) {
        /* The circuit's own failure, unless the cs failed first. */
        if (cs->status == PL_OK)
            pl__cs_fail(cs, st, "%s", e.msg[0] ? e.msg : pl_strerror(st));
        return sticky(cs, err);
    }
    return pl_cs_freeze(cs, err);
}

pl_status pl_cs_witness(const pl_cs *cs, pl_scalar *out, size_t n,
                        pl_error *err)
{
    if (cs->status != PL_OK)
        return sticky(cs, err);
    if (!cs->frozen || cs->mode == PL__CS_COUNT)
        return pl__error_set(err, PL_EUSAGE, "circuit: the witness exists "
                             "after pl_cs_freeze of a recording or "
                             "witness-only cs");
    if (n != pl_cs_n_wires(cs))
        return pl__error_set(err, PL_EUSAGE, "circuit: the witness has %zu "
                             "values, not %zu", pl_cs_n_wires(cs), n);
    if (out != cs->values)
        memcpy(out, cs->values, n * sizeof(pl_scalar));
    return PL_OK;
}
