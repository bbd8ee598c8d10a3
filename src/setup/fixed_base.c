/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fixed-base comb for the dev setup.  The scalar is cut into
 * ceil(255 / w) unsigned w-bit digits d_j; the product is the sum over j
 * of table[j][d_j - 1] = d_j * 2^(w*j) * G, so there is no doubling, and
 * every addition is mixed (projective + affine, blst's add_or_double
 * handles the equal-point case that a comb can in principle meet).
 *
 * Affine results are unique, so the bytes equal those of any other correct
 * multiplication (the reference tool's 8-bit comb in wasm included); the
 * window only trades table size for additions per point.
 *
 * blst's batch conversion to affine multiplies all the Z coordinates
 * together, so one point at infinity would zero the whole batch: a zero
 * scalar is set aside (its output is all-zero bytes, as the zkey encodes
 * infinity) and only the others are converted.  A non-zero scalar below r
 * never sums to infinity, since every table point is a multiple of G below r.
 *
 * The groups are BLS12-381's (blst) or BN254's (field/bn254), chosen at
 * create; the scalars are the curve's Fr in Montgomery form (blst_fr,
 * pl__bn254_fr: four 64-bit limbs each).
 *
 * Memory: the table (ceil(255/w) * (2^w - 1) affine points) and per-worker
 * scratch of TASK projective points are one accounted allocation (class
 * params), made at create.
 */
#include "setup/fixed_base.h"
#include "field/bn254/curve.h"
#include "util/alloc.h"
#include "util/error.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define SCALAR_BITS 255u
/* Points per task: one inversion per task amortised over this many points,
 * and a few hundred tasks per 64 Ki-point chunk to balance the workers. */
#define TASK 256u

typedef struct {
    size_t aff_bytes, proj_bytes;
    void (*generator)(void *out); /* projective */
    void (*add)(void *acc, const void *p);
    void (*add_affine)(void *acc, const void *aff);
    void (*from_affine)(void *out, const void *aff);
    void (*to_affine)(void *dst, const void *src, size_t n);
    void (*scalar_le)(uint8_t out[32], const void *fr); /* the integer */
} group;

/* A scalar is 32 bytes of Montgomery limbs on both curves. */
#define SCALAR_BYTES 32u
_Static_assert(sizeof(blst_fr) == SCALAR_BYTES &&
               sizeof(pl__bn254_fr) == SCALAR_BYTES, "scalar layout");

static void bls_scalar_le(uint8_t out[32], const void *fr)
{
    blst_scalar sc;
    blst_scalar_from_fr(&sc, fr);
    memcpy(out, sc.b, 32);
}

static void g1_gen(void *out) { memcpy(out, blst_p1_generator(), sizeof(blst_p1)); }
static void g1_add(void *acc, const void *p) { blst_p1_add_or_double(acc, acc, p); }
static void g1_add_affine(void *acc, const void *aff)
{
    blst_p1_add_or_double_affine(acc, acc, aff);
}
static void g1_from_affine(void *out, const void *aff) { blst_p1_from_affine(out, aff); }
static void g1_to_affine(void *dst, const void *src, size_t n)
{
    /* blst walks points[0] as an array when points[1] is NULL */
    const blst_p1 *pts[2] = {src, NULL};
    blst_p1s_to_affine(dst, pts, n);
}

static void g2_gen(void *out) { memcpy(out, blst_p2_generator(), sizeof(blst_p2)); }
static void g2_add(void *acc, const void *p) { blst_p2_add_or_double(acc, acc, p); }
static void g2_add_affine(void *acc, const void *aff)
{
    blst_p2_add_or_double_affine(acc, acc, aff);
}
static void g2_from_affine(void *out, const void *aff) { blst_p2_from_affine(out, aff); }
static void g2_to_affine(void *dst, const void *src, size_t n)
{
    const blst_p2 *pts[2] = {src, NULL};
    blst_p2s_to_affine(dst, pts, n);
}

static const group group_g1 = {sizeof(blst_p1_affine), sizeof(blst_p1), g1_gen,
                                g1_add, g1_add_affine, g1_from_affine,
                                g1_to_affine, bls_scalar_le};
static const group group_g2 = {sizeof(blst_p2_affine), sizeof(blst_p2), g2_gen,
                                g2_add, g2_add_affine, g2_from_affine,
                                g2_to_affine, bls_scalar_le};

/* BN254: field/bn254's out-of-line operations with the implementation of
 * this machine (the comb's cost is in them, not in the call). */
static void bn_scalar_le(uint8_t out[32], const void *fr)
{
    pl__bn254_fr_to_le(out, fr);
}

static void bn_g1_gen(void *out)
{
    pl__bn254_g1_from_affine(out, &pl__bn254_g1_generator);
}
static void bn_g1_add(void *acc, const void *p)
{
    pl__bn254_g1_add(acc, acc, p, pl__bn254_arith_current());
}
static void bn_g1_add_affine(void *acc, const void *aff)
{
    pl__bn254_g1_add_affine(acc, acc, aff, pl__bn254_arith_current());
}
static void bn_g1_from_affine(void *out, const void *aff)
{
    pl__bn254_g1_from_affine(out, aff);
}
static void bn_g1_to_affine(void *dst, const void *src, size_t n)
{
    pl__bn254_g1_batch_to_affine(dst, src, n, pl__bn254_arith_current());
}

static void bn_g2_gen(void *out)
{
    pl__bn254_g2_from_affine(out, &pl__bn254_g2_generator);
}
static void bn_g2_add(void *acc, const void *p)
{
    pl__bn254_g2_add(acc, acc, p, pl__bn254_arith_current());
}
static void bn_g2_add_affine(void *acc, const void *aff)
{
    pl__bn254_g2_add_affine(acc, acc, aff, pl__bn254_arith_current());
}
static void bn_g2_from_affine(void *out, const void *aff)
{
    pl__bn254_g2_from_affine(out, aff);
}
static void bn_g2_to_affine(void *dst, const void *src, size_t n)
{
    pl__bn254_g2_batch_to_affine(dst, src, n, pl__bn254_arith_current());
}

static const group bn_group_g1 = {
    sizeof(pl__bn254_g1_affine), sizeof(pl__bn254_g1), bn_g1_gen, bn_g1_add,
    bn_g1_add_affine, bn_g1_from_affine, bn_g1_to_affine, bn_scalar_le};
static const group bn_group_g2 = {
    sizeof(pl__bn254_g2_affine), sizeof(pl__bn254_g2), bn_g2_gen, bn_g2_add,
    bn_g2_add_affine, bn_g2_from_affine, bn_g2_to_affine, bn_scalar_le};

static const group *group_of(pl__curve curve, bool g2)
{
    if (curve == PL__CURVE_BN254)
        return g2 ? &bn_group_g2 : &bn_group_g1;
    return g2 ? &group_g2 : &group_g1;
}

struct pl__fixed_base {
    const group *g;
    unsigned w, windows, workers;
    size_t digits;      /* 2^w - 1 table entries per window */
    uint8_t *table;     /* windows * digits affine points */
    uint8_t *scratch;   /* workers * TASK projective points */
    void *block;        /* the one allocation holding both */
};

static unsigned windows_of(unsigned w) { return (SCALAR_BITS + w - 1) / w; }

static uint64_t round64(uint64_t x) { return (x + 63) & ~(uint64_t)63; }

static uint64_t table_bytes(const group *g, unsigned w)
{
    return round64((uint64_t)windows_of(w) * ((1u << w) - 1) * g->aff_bytes);
}

/* Larger windows halve nothing once the table leaves the caches: at 2^16
 * (260 Ki G1 and 65 Ki G2 products, one thread, 2-core AMD EPYC shared
 * with other work) 8 / 10 / 11 bits took 7.2 / 7.0 / 6.2 s in all, while
 * 12 / 14 / 16 bits took 6.9 / 8.1 / 14.8 s (the table build included),
 * though they need fewer additions. */
#define MAX_WINDOW 11u
#define MIN_WINDOW 4u

unsigned pl__fixed_base_window(uint64_t products)
{
    unsigned best = MIN_WINDOW;
    uint64_t best_cost = UINT64_MAX;
    for (unsigned w = MIN_WINDOW; w <= MAX_WINDOW; w++) {
        /* the table's additions, then one per window per product */
        uint64_t cost = windows_of(w) * (((uint64_t)1 << w) - 1 + products);
        if (cost < best_cost) {
            best_cost = cost;
            best = w;
        }
    }
    return best;
}

uint64_t pl__fixed_base_bytes(bool g2, unsigned w, unsigned workers)
{
    return pl__fixed_base_bytes_curve(PL__CURVE_BLS12_381, g2, w, workers);
}

uint64_t pl__fixed_base_bytes_curve(pl__curve curve, bool g2, unsigned w,
                                    unsigned workers)
{
    const group *g = group_of(curve, g2);
    return table_bytes(g, w) + (uint64_t)workers * TASK * g->proj_bytes;
}

size_t pl__fixed_base_point_bytes(const pl__fixed_base *fb)
{
    return fb->g->aff_bytes;
}

pl_status pl__fixed_base_create(pl__fixed_base **out, bool g2, unsigned w,
                                unsigned workers, pl_error *err)
{
    return pl__fixed_base_create_curve(out, PL__CURVE_BLS12_381, g2, w,
                                       workers, err);
}

pl_status pl__fixed_base_create_curve(pl__fixed_base **out, pl__curve curve,
                                      bool g2, unsigned w, unsigned workers,
                                      pl_error *err)
{
    pl_status st = PL_OK;
    uint8_t *proj = NULL;
    pl__fixed_base *fb = NULL;
    *out = NULL;
    if (w < 1 || w > 16 || workers < 1) {
        st = pl__error_set(err, PL_EINTERNAL, "fixed-base table: window %u "
                           "bits, %u workers", w, workers);
        goto fail;
    }
    fb = calloc(1, sizeof(*fb));
    if (!fb) {
        st = pl__error_set(err, PL_ENOMEM, "fixed-base table: out of memory");
        goto fail;
    }
    fb->g = group_of(curve, g2);
    fb->w = w;
    fb->windows = windows_of(w);
    fb->workers = workers;
    fb->digits = ((size_t)1 << w) - 1;
    const group *g = fb->g;
    fb->block = pl__alloc(PL_BUF_PARAMS,
                          pl__fixed_base_bytes_curve(curve, g2, w, workers),
                          err);
    if (!fb->block) {
        st = PL_ENOMEM;
        goto fail;
    }
    fb->table = fb->block;
    fb->scratch = (uint8_t *)fb->block + table_bytes(g, w);

    /* One window at a time: entries d * base for d = 1..2^w-1, made affine
     * in one batch; after the last entry, acc = 2^w * base is the next
     * window's base. */
    proj = pl__alloc(PL_BUF_PARAMS, (uint64_t)fb->digits * g->proj_bytes, err);
    if (!proj) {
        st = PL_ENOMEM;
        goto fail;
    }
    blst_p2 base, acc; /* storage for any group's point (the largest) */
    _Static_assert(sizeof(blst_p2) >= sizeof(pl__bn254_g2), "point storage");
    g->generator(&base);
    for (unsigned j = 0; j < fb->windows; j++) {
        memcpy(&acc, &base, g->proj_bytes);
        for (size_t d = 0; d < fb->digits; d++) {
            memcpy(proj + d * g->proj_bytes, &acc, g->proj_bytes);
            g->add(&acc, &base);
        }
        g->to_affine(fb->table + (size_t)j * fb->digits * g->aff_bytes, proj,
                     fb->digits);
        memcpy(&base, &acc, g->proj_bytes);
    }
    *out = fb;
    fb = NULL;
fail:
    pl__free(proj);
    pl__fixed_base_destroy(fb);
    return st;
}

void pl__fixed_base_destroy(pl__fixed_base *fb)
{
    if (!fb)
        return;
    pl__free(fb->block);
    free(fb);
}

/* Bits [bit, bit + w) of a little-endian scalar padded to 40 bytes. */
static unsigned digit_at(const uint8_t s[40], unsigned bit, unsigned w)
{
    uint64_t v = 0;
    const uint8_t *p = s + bit / 8;
    for (unsigned i = 0; i < 4; i++) /* w <= 16: 3 bytes reach past any shift */
        v |= (uint64_t)p[i] << (8 * i);
    return (unsigned)(v >> (bit % 8)) & ((1u << w) - 1);
}

typedef struct {
    const pl__fixed_base *fb;
    uint8_t *out;
    const uint8_t *scalars; /* SCALAR_BYTES each */
    size_t n;
} mul_job;

static void mul_task(void *ctx, size_t task, unsigned worker)
{
    const mul_job *job = ctx;
    const pl__fixed_base *fb = job->fb;
    const group *g = fb->g;
    size_t first = task * TASK;
    size_t count = job->n - first < TASK ? job->n - first : TASK;
    uint8_t *proj = fb->scratch + (size_t)worker * TASK * g->proj_bytes;
    uint8_t *out = job->out + first * g->aff_bytes;
    const size_t window_bytes = fb->digits * g->aff_bytes;
    bool zero[TASK];
    size_t k = 0; /* products made so far, packed at the front of proj */

    for (size_t i = 0; i < count; i++) {
        uint8_t s[40] = {0};
        g->scalar_le(s, job->scalars + (first + i) * SCALAR_BYTES);
        uint8_t *acc = proj + k * g->proj_bytes;
        bool started = false;
        for (unsigned j = 0; j < fb->windows; j++) {
            unsigned d = digit_at(s, j * fb->w, fb->w);
            if (d == 0)
                continue;
            const uint8_t *entry = fb->table + j * window_bytes +
                                   (size_t)(d - 1) * g->aff_bytes;
            if (started) {
                g->add_affine(acc, entry);
            } else {
                g->from_affine(acc, entry);
                started = true;
            }
        }
        zero[i] = !started;
        k += started;
    }
    /* Affine products packed at the front of out, then spread backwards
     * into place: product p goes to index >= p, so nothing unread is
     * overwritten. */
    if (k)
        g->to_affine(out, proj, k);
    for (size_t i = count; i-- > 0;) {
        uint8_t *dst = out + i * g->aff_bytes;
        if (zero[i]) {
            memset(dst, 0, g->aff_bytes);
        } else {
            k--;
            if (k != i)
                memmove(dst, out + k * g->aff_bytes, g->aff_bytes);
        }
    }
}

void pl__fixed_base_mul(const pl__fixed_base *fb, uint8_t *out,
                        const void *scalars, size_t n, pl__pool *pool)
{
    assert(pl__pool_size(pool) <= fb->workers);
    mul_job job = {fb, out, scalars, n};
    pl__pool_run(pool, (n + TASK - 1) / TASK, mul_task, &job);
}
