/* SPDX-License-Identifier: Apache-2.0 */
/*
 * snarkjs's `groth16 setup` / `zkey new` (zkey_new.js): a circuit's first
 * Groth16 key from its r1cs and a prepared powers of tau, section by
 * section, and the circuit hash that every later contribution builds on.
 * pl__zkey_build hands the sections to a sink: pl_zkey_new's writes them
 * (byte for byte snarkjs's file), zkey verify's compares them with a key.
 *
 * With n the domain (2^cirPower, cirPower = floor(log2(nConstraints +
 * nPublic)) + 1) and L_c the level-cirPower Lagrange points of the ptau
 * (section 12 tau, 13 tau in G2, 14 alpha tau, 15 beta tau):
 *   A_s  = sum over A terms (c, coef) of coef L_c(tau), plus L_(nC+s) for
 *          s <= nPublic (the input rows); B1_s, B2_s likewise over B;
 *   IC_s (s <= nPublic) and C_s (the others): the A terms over beta tau,
 *          the B terms over alpha tau, the C terms over tau (and the input
 *          row over beta tau);
 *   H_i  = the odd points of section 12's level cirPower + 1;
 *   coefficients: per constraint its A then its B terms, then the input
 *          rows, each value coef R^2 mod r;
 *   delta = gamma = the generators (no contribution yet).
 * The circuit hash (BLAKE2b, everything uncompressed): alpha1, beta1,
 * beta2, gamma2, delta1, delta2; then per point section a big-endian u32
 * count and its points: IC, the H of the monomial basis (tau^(i+n) - tau^i
 * from section 2, the count n - 1, and past 2^14 points one point more, as
 * snarkjs's chunked loop hashes it: when the domain is the ptau's whole
 * power that point's first operand lies past section 2, and snarkjs
 * computes with the bytes it finds there, which wasm_sub.c reproduces),
 * C, A, B1, B2.  Sections are written in snarkjs's order: 1, 2, 4, 3, 9,
 * 8, 5, 6, 7, 10.
 *
 * The work: every point is a small sum, so a section is made by reading
 * the r1cs row by row (in place, in file order) and adding each term's
 * product into its signal's accumulator: a term of row c with coefficient
 * k (taken negated when above r/2, most of circom's are small) adds the
 * NAF digits of k times the row's doubling chain 2^i L_c, computed once
 * per row as far as its terms need, so the 2^i coefficients of a bit
 * decomposition cost one addition each.  The signals of a section go in
 * blocks (their accumulators in memory, the r1cs read once per block),
 * each block's signals split among the workers by their term counts.
 * Memory (class params, budgeted): the term counts (12 bytes a signal), a
 * block's accumulators and output points (up to 2^18 signals), each
 * worker's chain.
 */
#include "ceremony/ceremony.h"
#include "formats/formats.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Signals per block at most (a block's accumulators and points are in
 * memory while the r1cs is read once); fewer, down to MIN_BLOCK, when the
 * budget leaves less room. */
#define MAX_BLOCK ((size_t)1 << 18)
#define MIN_BLOCK ((size_t)1 << 6)
/* a doubling chain: 2^i L for the 257 NAF digits of a 256-bit value */
#define CHAIN 258u

struct pl__zkey_builder {
    pl__cer_run *run;
    const pl__cer_curve *c;
    const pl_r1cs *r1cs;
    const pl__ptau *ptau;
    pl__zkey_shape shape;
    const pl__zkey_sink *sink;
    pl__blake2b hash;
    uint32_t *count[3];          /* terms of A (with the input rows), B, C
                                  * by signal */
    uint8_t *counts_block;
    uint64_t counts_bytes;
    /* a block: accumulators, output points, their normalisation's scratch,
     * the hash's uncompressed points; each worker's chain */
    uint8_t *work;
    uint64_t work_bytes;
    uint8_t *jac, *out_pts, *aff_scratch, *ubuf, *chains;
    size_t block;
};

/* Terms by signal, for splitting a block's signals among the workers. */
static pl_status count_terms(pl__zkey_builder *b, pl_error *err)
{
    const uint32_t nv = b->shape.n_vars, np = b->shape.n_public;
    b->counts_bytes = 3 * (uint64_t)nv * 4;
    pl_status st = pl__cer_alloc(b->run, &b->counts_block, PL_BUF_PARAMS,
                                 b->counts_bytes, "the terms by signal", err);
    if (st)
        return st;
    memset(b->counts_block, 0, b->counts_bytes);
    for (unsigned mi = 0; mi < 3; mi++)
        b->count[mi] = (uint32_t *)b->counts_block + (uint64_t)mi * nv;
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    uint64_t ab = np + 1u;
    for (pl__r1cs_iter_init(&it, b->r1cs); pl__r1cs_iter_next(&it, &k, lc);)
        for (unsigned mi = 0; mi < 3; mi++) {
            if (mi < 2)
                ab += lc[mi].n_terms;
            for (uint32_t t = 0; t < lc[mi].n_terms; t++)
                b->count[mi][pl__r1cs_lc_term(&lc[mi], t).wire]++;
        }
    for (uint32_t s = 0; s <= np; s++)
        b->count[0][s]++;
    b->shape.n_coefs = ab;
    if (ab > UINT32_MAX)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: %" PRIu64 " A and B "
                             "terms do not fit the zkey's u32 count",
                             b->r1cs->path, ab);
    return PL_OK;
}

/* ---- one section's points ---------------------------------------------------- */

/* A source of terms: matrix m (0 A with its input rows, 1 B, 2 C) over the
 * level's points base. */
typedef struct {
    unsigned m;
    const uint8_t *base;
} term_src;

typedef struct {
    pl__zkey_builder *b;
    const pl__cer_group *g;
    const term_src *src;
    unsigned n_src;
    uint32_t s0;             /* the block's first signal */
    const uint32_t *cut;     /* [workers + 1]: each worker's signals */
} block_job;

/* r - v for a 32-byte v < r, little-endian */
static void sub_from_r(uint8_t out[32], const uint8_t *r, const uint8_t *v)
{
    unsigned borrow = 0;
    for (unsigned i = 0; i < 32; i++) {
        int d = (int)r[i] - (int)v[i] - (int)borrow;
        borrow = d < 0;
        out[i] = (uint8_t)(d + (borrow ? 256 : 0));
    }
}

/* v > (r - 1) / 2, i.e. 2v >= r (r is odd) */
static bool above_half_r(const pl__cer_curve *c, const uint8_t *v)
{
    uint8_t twice[33];
    unsigned carry = 0;
    for (unsigned i = 0; i < 32; i++) {
        unsigned d = 2u * v[i] + carry;
        twice[i] = (uint8_t)d;
        carry = d >> 8;
    }
    twice[32] = (uint8_t)carry;
    if (twice[32])
        return true;
    for (unsigned i = c->n8r; i-- > 0;)
        if (twice[i] != c->r_le[i])
            return twice[i] > c->r_le[i];
    return true;
}

/* The signed binary NAF of a 256-bit little-endian value: digits -1, 0,
 * 1, least significant first; returns the count. */
static unsigned naf(int8_t *d, const uint8_t le[32])
{
    uint64_t k[5] = {0};
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 8; j++)
            k[i] |= (uint64_t)le[8 * i + j] << (8 * j);
    unsigned n = 0;
    while (k[0] | k[1] | k[2] | k[3] | k[4]) {
        int v = 0;
        if (k[0] & 1) {
            v = 2 - (int)(k[0] & 3);         /* +1 or -1 */
            if (v > 0) {
                k[0] -= 1;                    /* odd: no borrow */
            } else {
                for (unsigned i = 0; i < 5 && ++k[i] == 0; i++)
                    ;
            }
        }
        d[n++] = (int8_t)v;
        for (unsigned i = 0; i < 5; i++)
            k[i] = k[i] >> 1 | (i < 4 ? k[i + 1] << 63 : 0);
    }
    return n;
}

/* A row's doubling chain, extended on demand: chain[i] = 2^i P. */
typedef struct {
    uint8_t *pt;             /* CHAIN working points */
    unsigned len;
    const uint8_t *base;     /* P, affine */
} chain;

static const void *chain_at(const pl__cer_group *g, chain *ch, unsigned i)
{
    while (ch->len <= i) {
        void *at = ch->pt + (size_t)ch->len * g->jac_bytes;
        if (ch->len == 0)
            g->from_aff(at, ch->base);
        else
            g->dbl(at, ch->pt + (size_t)(ch->len - 1) * g->jac_bytes);
        ch->len++;
    }
    return ch->pt + (size_t)i * g->jac_bytes;
}

/* acc += coef * P, P the chain's point */
static void add_term(const pl__zkey_builder *b, const pl__cer_group *g,
                     void *acc, chain *ch, const uint8_t *coef)
{
    const pl__cer_curve *c = b->c;
    uint8_t k[32];
    const bool neg = above_half_r(c, coef);
    if (neg)
        sub_from_r(k, c->r_le, coef);
    else
        memcpy(k, coef, 32);
    static const uint8_t one[32] = {1};
    if (!neg && memcmp(k, one, 32) == 0) {
        g->add_aff(acc, acc, ch->base);   /* the common coefficient 1 */
        return;
    }
    int8_t d[CHAIN];
    const unsigned n = naf(d, k);
    _Alignas(64) uint8_t t[PL__CER_MAX_JAC];
    for (unsigned i = 0; i < n; i++) {
        if (d[i] == 0)
            continue;
        const void *p = chain_at(g, ch, i);
        if ((d[i] < 0) != neg) {
            g->neg(t, p);
            g->add(acc, acc, t);
        } else {
            g->add(acc, acc, p);
        }
    }
}

/* One worker's share of a block: every row read, its terms of signals in
 * [cut[w], cut[w + 1]) added into their accumulators. */
static void block_task(void *ctx, size_t task, unsigned worker)
{
    const block_job *j = ctx;
    const pl__zkey_builder *b = j->b;
    const pl__cer_group *g = j->g;
    const uint32_t lo = j->cut[task], hi = j->cut[task + 1];
    if (lo == hi)
        return;
    chain ch = {b->chains + (size_t)worker * CHAIN * g->jac_bytes, 0, NULL};
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    for (pl__r1cs_iter_init(&it, b->r1cs); pl__r1cs_iter_next(&it, &k, lc);)
        for (unsigned si = 0; si < j->n_src; si++) {
            const pl__r1cs_lc *l = &lc[j->src[si].m];
            ch.len = 0;
            ch.base = j->src[si].base + (uint64_t)k * g->aff_bytes;
            for (uint32_t t = 0; t < l->n_terms; t++) {
                pl__r1cs_term term = pl__r1cs_lc_term(l, t);
                if (term.wire < lo || term.wire >= hi)
                    continue;
                add_term(b, g, b->jac + (size_t)(term.wire - j->s0) *
                                            g->jac_bytes,
                         &ch, term.coef);
            }
        }
    /* the input rows: A's row nConstraints + s, coefficient 1, s <= nPublic */
    for (unsigned si = 0; si < j->n_src; si++) {
        if (j->src[si].m != 0)
            continue;
        for (uint32_t s = lo; s < hi && s <= b->shape.n_public; s++)
            g->add_aff(b->jac + (size_t)(s - j->s0) * g->jac_bytes,
                       b->jac + (size_t)(s - j->s0) * g->jac_bytes,
                       j->src[si].base +
                           (uint64_t)(b->shape.n_constraints + s) *
                               g->aff_bytes);
    }
}

static void hash_u32(pl__blake2b *h, uint32_t v)
{
    const uint8_t be[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
                           (uint8_t)(v >> 8), (uint8_t)v};
    pl__blake2b_update(h, be, 4);
}

static void hash_points_u(pl__zkey_builder *b, const pl__cer_group *g,
                          const uint8_t *pts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        g->to_u(b->ubuf + i * g->aff_bytes, pts + i * g->aff_bytes);
    pl__blake2b_update(&b->hash, b->ubuf, n * g->aff_bytes);
}

/* A point section of signals [s0, s1): hashed with its count first, put
 * to the sink block by block. */
static pl_status point_section(pl__zkey_builder *b, unsigned id,
                               const pl__cer_group *g, const term_src *srcs,
                               unsigned n_src, uint32_t s0, uint32_t s1,
                               const char *what, pl_error *err)
{
    const uint32_t n = s1 - s0;
    const unsigned workers = b->run->threads;
    uint32_t cut[PL__POOL_MAX_THREADS + 1];
    pl_status st;
    hash_u32(&b->hash, n);
    if ((st = b->sink->begin(b->sink->user, id, (uint64_t)n * g->aff_bytes,
                             err)))
        return st;
    for (uint32_t at = s0; at < s1; at += (uint32_t)b->block) {
        const uint32_t k = s1 - at < b->block ? s1 - at : (uint32_t)b->block;
        /* the workers' shares, even in terms */
        uint64_t total = 0, acc = 0;
        for (uint32_t s = at; s < at + k; s++)
            for (unsigned si = 0; si < n_src; si++)
                total += b->count[srcs[si].m][s];
        cut[0] = at;
        unsigned w = 1;
        for (uint32_t s = at; s < at + k && w < workers; s++) {
            for (unsigned si = 0; si < n_src; si++)
                acc += b->count[srcs[si].m][s];
            if (acc * workers >= total * w)
                cut[w++] = s + 1;
        }
        while (w <= workers)
            cut[w++] = at + k;
        for (uint32_t i = 0; i < k; i++)
            g->set_inf(b->jac + (size_t)i * g->jac_bytes);
        block_job job = {b, g, srcs, n_src, at, cut};
        pl__pool_run(b->run->pool, workers, block_task, &job);
        g->to_aff_batch(b->out_pts, b->jac, k, b->aff_scratch);
        hash_points_u(b, g, b->out_pts, k);
        if ((st = b->sink->put(b->sink->user, b->out_pts,
                               (size_t)k * g->aff_bytes, err)))
            return st;
        pl__cer_progress(b->run, what, at - s0 + k, n);
    }
    return b->sink->end(b->sink->user, id, err);
}

/* ---- the fixed sections ----------------------------------------------------- */

static pl_status put_bytes(pl__zkey_builder *b, const void *p, size_t len,
                           pl_error *err)
{
    return b->sink->put(b->sink->user, p, len, err);
}

static pl_status put_u32(pl__zkey_builder *b, uint32_t v, pl_error *err)
{
    uint8_t le[4];
    pl__put_le32(le, v);
    return put_bytes(b, le, 4, err);
}

static pl_status header_sections(pl__zkey_builder *b, pl_error *err)
{
    const pl__cer_curve *c = b->c;
    const pl__cer_group *g1 = &c->g[0], *g2 = &c->g[1];
    const size_t b1 = g1->aff_bytes, b2 = g2->aff_bytes;
    uint8_t gen1[PL__CER_G1_MAX], gen2[PL__CER_G2_MAX];
    uint8_t u[PL__CER_G2_MAX];
    pl_status st;
    g1->generator(gen1);
    g2->generator(gen2);
    if ((st = b->sink->begin(b->sink->user, 1, 4, err)) ||
        (st = put_u32(b, 1, err)) ||
        (st = b->sink->end(b->sink->user, 1, err)))
        return st;
    const uint64_t size = 4 + c->n8q + 4 + c->n8r + 12 + 3 * b1 + 3 * b2;
    const uint8_t *pts[6] = {pl__ptau_point(b->ptau, 4, 0),
                             pl__ptau_point(b->ptau, 5, 0),
                             pl__ptau_point(b->ptau, 6, 0), gen2, gen1, gen2};
    const pl__cer_group *grp[6] = {g1, g1, g2, g2, g1, g2};
    if ((st = b->sink->begin(b->sink->user, 2, size, err)) ||
        (st = put_u32(b, c->n8q, err)) ||
        (st = put_bytes(b, c->q_le, c->n8q, err)) ||
        (st = put_u32(b, c->n8r, err)) ||
        (st = put_bytes(b, c->r_le, c->n8r, err)) ||
        (st = put_u32(b, b->shape.n_vars, err)) ||
        (st = put_u32(b, b->shape.n_public, err)) ||
        (st = put_u32(b, b->shape.domain_size, err)))
        return st;
    for (unsigned i = 0; i < 6; i++) {
        if ((st = put_bytes(b, pts[i], grp[i]->aff_bytes, err)))
            return st;
        grp[i]->to_u(u, pts[i]);
        pl__blake2b_update(&b->hash, u, grp[i]->aff_bytes);
    }
    return b->sink->end(b->sink->user, 2, err);
}

/* Section 4: per constraint its A terms, then its B terms; the input rows. */
static pl_status coef_section(pl__zkey_builder *b, pl_error *err)
{
    const pl__cer_curve *c = b->c;
    const uint64_t rec_bytes = 12 + c->n8r;
    pl_status st;
    /* R^2 mod r, R = 2^(8 n8r) */
    pl__cer_fr r2, two;
    c->fr_from_u64(&two, 2);
    pl__cer_fr_pow(c, &r2, &two, 8u * c->n8r);
    c->fr_mul(&r2, &r2, &r2);
    if ((st = b->sink->begin(b->sink->user, 4, 4 + b->shape.n_coefs * rec_bytes,
                             err)) ||
        (st = put_u32(b, (uint32_t)b->shape.n_coefs, err)))
        return st;
    uint8_t *buf = b->ubuf;
    const size_t cap = (b->block * b->c->g[1].aff_bytes) / rec_bytes;
    size_t fill = 0;
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    pl__cer_fr v;
#define RECORD(matrix, row, signal, fr)                                       \
    do {                                                                      \
        uint8_t *rec = buf + fill * rec_bytes;                                \
        pl__put_le32(rec, (matrix));                                          \
        pl__put_le32(rec + 4, (row));                                         \
        pl__put_le32(rec + 8, (signal));                                      \
        c->fr_to_le(rec + 12, (fr));                                          \
        if (++fill == cap) {                                                  \
            if ((st = put_bytes(b, buf, fill * rec_bytes, err)))              \
                return st;                                                    \
            fill = 0;                                                         \
        }                                                                     \
    } while (0)
    for (pl__r1cs_iter_init(&it, b->r1cs); pl__r1cs_iter_next(&it, &k, lc);)
        for (unsigned mi = 0; mi < 2; mi++)
            for (uint32_t t = 0; t < lc[mi].n_terms; t++) {
                pl__r1cs_term term = pl__r1cs_lc_term(&lc[mi], t);
                c->fr_from_le(&v, term.coef);
                c->fr_mul(&v, &v, &r2);
                RECORD(mi, k, term.wire, &v);
            }
    for (uint32_t s = 0; s <= b->shape.n_public; s++)
        RECORD(0, b->shape.n_constraints + s, s, &r2);
#undef RECORD
    if (fill && (st = put_bytes(b, buf, fill * rec_bytes, err)))
        return st;
    return b->sink->end(b->sink->user, 4, err);
}

/* Section 9: the odd points of section 12's level cirPower + 1. */
static pl_status h_section(pl__zkey_builder *b, pl_error *err)
{
    const pl__cer_group *g = &b->c->g[0];
    const uint64_t n = b->shape.domain_size;
    const uint8_t *level = pl__ptau_point(b->ptau, 12, 2 * n - 1);
    pl_status st = b->sink->begin(b->sink->user, 9, n * g->aff_bytes, err);
    if (st)
        return st;
    for (uint64_t i = 0; i < n; i += b->block) {
        const size_t k = n - i < b->block ? (size_t)(n - i) : b->block;
        for (size_t j = 0; j < k; j++)
            memcpy(b->out_pts + j * g->aff_bytes,
                   level + (2 * (i + j) + 1) * g->aff_bytes, g->aff_bytes);
        if ((st = put_bytes(b, b->out_pts, k * g->aff_bytes, err)))
            return st;
    }
    return b->sink->end(b->sink->user, 9, err);
}

/* The monomial H into the hash: tau^(i+n) - tau^i over section 2, as
 * zkey_new.js's hashHPoints loops: chunks of 2^14 points, each chunk
 * taking min(n - 1, 2^14) points, so past 2^14 the last chunk runs one
 * point beyond n - 1 (and, when the domain is the ptau's whole power, its
 * first operand past section 2, into whatever bytes follow it). */
static pl_status hash_h(pl__zkey_builder *b, pl_error *err)
{
    const pl__cer_curve *c = b->c;
    const pl__cer_group *g = &c->g[0];
    const size_t ab = g->aff_bytes;
    const uint64_t n = b->shape.domain_size;
    const uint64_t chunk = (uint64_t)1 << 14;
    const uint64_t per = n - 1 < chunk ? n - 1 : chunk;
    const pl__ptau *p = b->ptau;
    const uint64_t sec2 = p->c.offset[2];
    hash_u32(&b->hash, (uint32_t)(n - 1));
    for (uint64_t i = 0; i < n - 1; i += chunk) {
        for (uint64_t j0 = 0; j0 < per; j0 += b->block) {
            const size_t k = per - j0 < b->block ? (size_t)(per - j0) : b->block;
            for (size_t j = 0; j < k; j++) {
                const uint64_t idx = i + j0 + j;
                void *acc = b->jac + j * g->jac_bytes;
                if (idx + n >= pl__ptau_section_points(2, p->power)) {
                    /* past section 2: its bytes as snarkjs reads them
                     * (zeros past the file's end), its arithmetic */
                    uint8_t a[PL__CER_G1_MAX], xyz[3 * PL__CER_MAX_FQ];
                    const uint64_t at = sec2 + (idx + n) * ab;
                    memset(a, 0, ab);
                    if (at < p->map.size)
                        memcpy(a, p->map.data + at,
                               p->map.size - at < ab ? p->map.size - at : ab);
                    pl__cer_wasm_sub_affine(c, xyz, a,
                                            pl__ptau_point(p, 2, idx));
                    g->from_jac_le(acc, xyz);
                    continue;
                }
                _Alignas(64) uint8_t t[PL__CER_MAX_JAC];
                g->from_aff(t, pl__ptau_point(p, 2, idx));
                g->neg(t, t);
                g->from_aff(acc, pl__ptau_point(p, 2, idx + n));
                g->add(acc, acc, t);
            }
            g->to_aff_batch(b->out_pts, b->jac, k, b->aff_scratch);
            hash_points_u(b, g, b->out_pts, k);
        }
        pl__cer_progress(b->run, "hashing H", i + per, n - 1);
    }
    return PL_OK;
}

/* ---- the build ---------------------------------------------------------------- */

static pl_status shape_of(pl__zkey_builder *b, const char *r1cs_path,
                          pl_error *err)
{
    const pl_r1cs_info *info = &b->r1cs->info;
    pl__zkey_shape *s = &b->shape;
    s->n_vars = info->n_wires;
    s->n_public = info->n_pub_out + info->n_pub_in;
    s->n_constraints = info->n_constraints;
    const uint64_t rows = (uint64_t)info->n_constraints + s->n_public;
    unsigned log2 = 0;
    while (rows >> (log2 + 1))
        log2++;
    s->log2_domain = log2 + 1;   /* misc.js log2(rows) + 1, log2(0) = 0 */
    if (s->log2_domain > b->ptau->power)
        return pl__error_set(err, PL_EUSAGE, "%s: the circuit needs a domain "
                             "of 2^%u (%" PRIu32 " constraints + %" PRIu32
                             " public), more than the %s ceremony of power %u "
                             "holds", r1cs_path, s->log2_domain,
                             info->n_constraints, s->n_public, b->ptau->path,
                             b->ptau->power);
    if (s->log2_domain >= b->c->fr_s)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: a domain of 2^%u is "
                             "too large for %s", r1cs_path, s->log2_domain,
                             b->c->name);
    s->domain_size = (uint32_t)1 << s->log2_domain;
    return PL_OK;
}

/* The bytes of a block of `block` signals and the workers' chains; the
 * layout is cut in alloc_work from the same sizes. */
#define UP(x) (((uint64_t)(x) + 63) & ~(uint64_t)63)
static uint64_t work_bytes(const pl__cer_curve *c, size_t block,
                           unsigned workers, size_t *jac, size_t *aff,
                           size_t *to_aff)
{
    *jac = *aff = *to_aff = 0;
    for (unsigned gi = 0; gi < 2; gi++) {
        if (c->g[gi].jac_bytes > *jac)
            *jac = c->g[gi].jac_bytes;
        if (c->g[gi].aff_bytes > *aff)
            *aff = c->g[gi].aff_bytes;
        if (c->g[gi].to_aff_scratch_bytes(block) > *to_aff)
            *to_aff = c->g[gi].to_aff_scratch_bytes(block);
    }
    return UP(block * *jac) + 2 * UP(block * *aff) + UP(*to_aff) +
           UP((uint64_t)workers * CHAIN * *jac);
}

static pl_status alloc_work(pl__zkey_builder *b, pl_error *err)
{
    const pl__cer_curve *c = b->c;
    const unsigned workers = b->run->threads;
    size_t jac, aff, to_aff;
    b->block = MAX_BLOCK;
    if (b->block > b->shape.n_vars)
        b->block = b->shape.n_vars ? b->shape.n_vars : 1;
    while (b->block > MIN_BLOCK &&
           work_bytes(c, b->block, workers, &jac, &aff, &to_aff) >
               pl__cer_room(b->run))
        b->block /= 2;
    b->work_bytes = work_bytes(c, b->block, workers, &jac, &aff, &to_aff);
    pl_status st = pl__cer_alloc(b->run, &b->work, PL_BUF_PARAMS,
                                 b->work_bytes,
                                 "a block of points and its scratch", err);
    if (st)
        return st;
    b->jac = b->work;
    b->out_pts = b->jac + UP(b->block * jac);
    b->ubuf = b->out_pts + UP(b->block * aff);
    b->aff_scratch = b->ubuf + UP(b->block * aff);
    b->chains = b->aff_scratch + UP(to_aff);
    return PL_OK;
}
#undef UP

pl_status pl__zkey_build(pl__cer_run *run, const char *r1cs_path,
                         const pl__ptau *ptau, pl__zkey_shape *shape,
                         const pl__zkey_sink *sink,
                         uint8_t cs_hash[PL__CER_HASH], pl_error *err)
{
    pl__zkey_builder b;
    pl__container rc;
    memset(&b, 0, sizeof(b));
    b.run = run;
    b.c = ptau->curve;
    b.ptau = ptau;
    b.sink = sink;
    pl_r1cs *r1cs = NULL;
    pl_status st = pl__r1cs_load(&r1cs, r1cs_path, 0, err);
    if (st)
        goto fail;
    b.r1cs = r1cs;
    /* the r1cs's prime is the ceremony's r */
    if ((st = pl__container_parse(&rc, &r1cs->map, r1cs_path, "r1cs", err)))
        goto fail;
    const uint8_t *h1 = r1cs->map.data + rc.offset[1];
    if (pl__le32(h1) != b.c->n8r || memcmp(h1 + 4, b.c->r_le, b.c->n8r) != 0) {
        st = pl__error_set(err, PL_EUSAGE, "%s: the circuit's curve is not "
                           "the %s of the ceremony %s", r1cs_path, b.c->name,
                           ptau->path);
        goto fail;
    }
    if (!ptau->prepared) {
        st = pl__error_set(err, PL_EUSAGE, "%s: the powers of tau are not "
                           "prepared for phase 2 (sections 12-15): run "
                           "`proofline ptau prepare` first", ptau->path);
        goto fail;
    }
    if ((st = shape_of(&b, r1cs_path, err)) || (st = count_terms(&b, err)) ||
        (st = alloc_work(&b, err)))
        goto fail;
    pl__blake2b_init(&b.hash);
    const pl__cer_group *g1 = &b.c->g[0], *g2 = &b.c->g[1];
    const uint64_t lv = b.shape.domain_size - 1;  /* the level's first point */
    const uint8_t *tau = pl__ptau_point(ptau, 12, lv);
    const uint8_t *tau2 = pl__ptau_point(ptau, 13, lv);
    const uint8_t *alpha = pl__ptau_point(ptau, 14, lv);
    const uint8_t *beta = pl__ptau_point(ptau, 15, lv);
    const uint32_t nv = b.shape.n_vars, np = b.shape.n_public;
    const term_src ic[3] = {{0, beta}, {1, alpha}, {2, tau}};
    const term_src a[1] = {{0, tau}};
    const term_src b1[1] = {{1, tau}};
    const term_src b2[1] = {{1, tau2}};
    if ((st = header_sections(&b, err)) || (st = coef_section(&b, err)) ||
        (st = point_section(&b, 3, g1, ic, 3, 0, np + 1, "IC", err)) ||
        (st = h_section(&b, err)) || (st = hash_h(&b, err)) ||
        (st = point_section(&b, 8, g1, ic, 3, np + 1, nv, "C", err)) ||
        (st = point_section(&b, 5, g1, a, 1, 0, nv, "A", err)) ||
        (st = point_section(&b, 6, g1, b1, 1, 0, nv, "B1", err)) ||
        (st = point_section(&b, 7, g2, b2, 1, 0, nv, "B2", err)))
        goto fail;
    pl__blake2b_final(&b.hash, cs_hash);
    *shape = b.shape;
fail:
    pl__cer_free(run, b.work, b.work_bytes);
    pl__cer_free(run, b.counts_block, b.counts_bytes);
    pl_r1cs_close(r1cs);
    return st;
}

/* ---- zkey new: the sections into a file ----------------------------------------- */

typedef struct {
    pl__container_writer *w;
} file_sink;

static pl_status fs_begin(void *user, unsigned id, uint64_t size,
                          pl_error *err)
{
    return pl__container_section_begin(((file_sink *)user)->w, id, size, err);
}

static pl_status fs_put(void *user, const uint8_t *data, size_t len,
                        pl_error *err)
{
    return pl__container_put(((file_sink *)user)->w, data, len, err);
}

static pl_status fs_end(void *user, unsigned id, pl_error *err)
{
    (void)id;
    return pl__container_section_end(((file_sink *)user)->w, err);
}

pl_status pl_zkey_new(const char *r1cs_path, const char *ptau_path,
                      const char *out_path, const pl_ceremony_config *cfg,
                      pl_error *err)
{
    pl__cer_run run;
    pl__ptau ptau;
    pl__output out;
    pl__container_writer w;
    memset(&ptau, 0, sizeof(ptau));
    memset(&out, 0, sizeof(out));
    const char *const ins[] = {r1cs_path, ptau_path};
    pl_status st = pl__cer_run_begin_io(&run, "zkey new", cfg, out_path, ins, 2,
                                        err);
    if (st || (st = pl__ptau_open(&ptau, ptau_path, err)))
        goto fail;
    run.curve = ptau.curve;
    file_sink fs = {&w};
    const pl__zkey_sink sink = {&fs, fs_begin, fs_put, fs_end};
    pl__zkey_shape shape;
    uint8_t cs_hash[PL__CER_HASH];
    if ((st = pl__output_open(&out, out_path, err)) ||
        (st = pl__container_write_begin(&w, &out, "zkey", 1, 10, err)) ||
        (st = pl__zkey_build(&run, r1cs_path, &ptau, &shape, &sink, cs_hash,
                             err)))
        goto fail;
    pl__container_section_begin(&w, 10, PL__CER_HASH + 4, err);
    pl__container_put(&w, cs_hash, PL__CER_HASH, err);
    pl__container_put_u32(&w, 0, err);
    if ((st = pl__container_section_end(&w, err)) ||
        (st = pl__container_write_end(&w, err)) ||
        (st = pl__output_commit(&out, err)))
        goto fail;
    pl__cer_line_hash(&run, "Circuit hash: ", cs_hash);
fail:
    pl__output_abort(&out);
    pl__ptau_close(&ptau);
    pl__cer_run_end(&run);
    return st;
}
