/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PoRep-like demo circuit (porep.h): one partition opens K leaves of
 * one SHA-256 Merkle tree.  An example outside the library: it builds on
 * the builder's internal term interface and the gadgets (src/circuit/),
 * which are not public API yet, so it compiles with src/ on its include
 * path; `proofline demo`, `proofline circuit` and tests/test_circuit.c link
 * it.
 *
 * Public inputs, in wire order: the root, then the K leaf indices.
 * Private: the K leaves and their siblings.  Per opening the circuit
 * decomposes the index into `depth` direction bits (depth + 1
 * constraints), takes the leaf's 254 bits (254), climbs the path
 * (pl__merkle_path: ~26.6k a level at 64 rounds) and packs the top node
 * into a field element equal to the root (1).
 *
 * Inputs come from (seed, partition) alone: prf(tag, a, b) = SHA-256(seed
 * || 0x00 || partition (u64 LE) || tag || a (u64 LE) || b (u64 LE)).
 * Index k is prf('i', k, 0) mod 2^depth; the leaf at index x is
 * prf('l', x, 0) truncated to 254 bits.  The tree is the one whose nodes
 * off the opened paths are prf('n', level, position) (truncated): a real
 * tree of 2^depth leaves would cost 2^depth hashes to build, and the
 * circuit cannot tell the difference.  Nodes on the paths are computed
 * bottom-up, shared between openings that meet, so all K paths lead to
 * the one root.
 *
 * Sizing (porep_params_for): three counting runs (K, depth) = (1, 1),
 * (1, 2), (2, 1) give the cost of a level, of an opening and of the rest;
 * the largest K * depth that fits the target is chosen and then confirmed
 * by an exact count.  Below one full compression the rounds are cut
 * instead (a toy hash for tests, labelled as such).
 */
#include "porep.h"
#include "circuit/gadgets/gadgets.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 32u
#define MAX_OPENINGS 4096u

struct porep_inputs {
    porep_params p;
    uint8_t root[32];
    uint64_t *index;     /* openings */
    uint8_t (*leaf)[32]; /* openings */
    uint8_t (*sib)[32];  /* openings x depth: sib[k * depth + level] */
};

static pl_status check_params(const porep_params *p, pl_error *err)
{
    if (p->openings < 1 || p->openings > MAX_OPENINGS || p->depth < 1 ||
        p->depth > MAX_DEPTH || p->rounds < 1 || p->rounds > 64)
        return pl__error_set(err, PL_EUSAGE,
                             "porep: openings %u (1..%u), depth %u (1..%u), "
                             "rounds %u (1..64): out of range", p->openings,
                             MAX_OPENINGS, p->depth, MAX_DEPTH, p->rounds);
    return PL_OK;
}

static porep_inputs *inputs_new(const porep_params *p)
{
    porep_inputs *in = calloc(1, sizeof(*in));
    if (!in)
        return NULL;
    in->p = *p;
    in->index = calloc(p->openings, sizeof(*in->index));
    in->leaf = calloc(p->openings, sizeof(*in->leaf));
    in->sib = calloc((size_t)p->openings * p->depth, sizeof(*in->sib));
    if (!in->index || !in->leaf || !in->sib) {
        porep_inputs_destroy(in);
        return NULL;
    }
    return in;
}

void porep_inputs_destroy(porep_inputs *in)
{
    if (!in)
        return;
    free(in->index);
    free(in->leaf);
    free(in->sib);
    free(in);
}

typedef struct {
    uint8_t *buf; /* seed || 0 || partition || tag || a || b */
    size_t seed_len;
} prf_state;

static void put_le64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void prf(uint8_t out[32], prf_state *s, char tag, uint64_t a,
                uint64_t b)
{
    uint8_t *p = s->buf + s->seed_len + 9;
    p[0] = (uint8_t)tag;
    put_le64(p + 1, a);
    put_le64(p + 9, b);
    pl__sha256_digest(out, s->buf, s->seed_len + 9 + 17);
}

pl_status porep_inputs_create(porep_inputs **out,
                              const porep_params *params,
                              const char *seed, uint64_t partition,
                              pl_error *err)
{
    *out = NULL;
    pl_status st = check_params(params, err);
    if (st != PL_OK)
        return st;
    if (!seed)
        return pl__error_set(err, PL_EUSAGE, "porep: no seed");
    const unsigned K = params->openings, D = params->depth;
    size_t seed_len = strlen(seed);
    prf_state s = {malloc(seed_len + 9 + 17), seed_len};
    porep_inputs *in = inputs_new(params);
    uint8_t (*cur)[32] = malloc((size_t)K * 32);
    uint8_t (*next)[32] = malloc((size_t)K * 32);
    uint64_t *pos = malloc((size_t)K * sizeof(uint64_t));
    if (!s.buf || !in || !cur || !next || !pos) {
        st = pl__error_set(err, PL_ENOMEM, "porep: out of memory");
        goto done;
    }
    memcpy(s.buf, seed, seed_len);
    s.buf[seed_len] = 0;
    put_le64(s.buf + seed_len + 1, partition);
    uint64_t mask = D >= 64 ? ~0ull : (1ull << D) - 1;
    for (unsigned k = 0; k < K; k++) {
        uint8_t h[32];
        prf(h, &s, 'i', k, 0);
        uint64_t x = 0;
        for (unsigned i = 0; i < 8; i++)
            x |= (uint64_t)h[i] << (8 * i);
        in->index[k] = pos[k] = x & mask;
        prf(in->leaf[k], &s, 'l', in->index[k], 0);
        in->leaf[k][31] &= 0x3f;
        memcpy(cur[k], in->leaf[k], 32);
    }
    for (unsigned level = 0; level < D; level++) {
        for (unsigned k = 0; k < K; k++) {
            uint8_t *sib = in->sib[(size_t)k * D + level];
            unsigned j = 0;
            while (j < K && pos[j] != (pos[k] ^ 1))
                j++;
            if (j < K) {
                memcpy(sib, cur[j], 32);
            } else {
                prf(sib, &s, 'n', level, pos[k] ^ 1);
                sib[31] &= 0x3f;
            }
        }
        for (unsigned k = 0; k < K; k++) {
            const uint8_t *sib = in->sib[(size_t)k * D + level];
            if (pos[k] & 1)
                pl__node_native(next[k], sib, cur[k], PL__NODE_COMPRESS,
                                params->rounds);
            else
                pl__node_native(next[k], cur[k], sib, PL__NODE_COMPRESS,
                                params->rounds);
        }
        for (unsigned k = 0; k < K; k++) {
            memcpy(cur[k], next[k], 32);
            pos[k] >>= 1;
        }
    }
    memcpy(in->root, cur[0], 32);
    *out = in;
    in = NULL;
done:
    porep_inputs_destroy(in);
    free(s.buf);
    free(cur);
    free(next);
    free(pos);
    return st;
}

void porep_inputs_corrupt_sibling(porep_inputs *in, unsigned opening,
                                  unsigned level)
{
    if (opening < in->p.openings && level < in->p.depth)
        in->sib[(size_t)opening * in->p.depth + level][0] ^= 1;
}

pl_status porep_circuit(pl_cs *cs, const void *inputs, pl_error *err)
{
    const porep_inputs *in = inputs;
    const unsigned K = in->p.openings, D = in->p.depth;
    uint32_t *idx = malloc((size_t)K * sizeof(uint32_t));
    pl__u32 (*sib)[8] = malloc((size_t)D * sizeof(*sib));
    if (!idx || !sib) {
        free(idx);
        free(sib);
        return pl__error_set(err, PL_ENOMEM, "porep: out of memory");
    }
    uint32_t root = pl__cs_alloc(cs, true, in->root);
    for (unsigned k = 0; k < K; k++)
        idx[k] = pl__cs_alloc_u64(cs, true, in->index[k]);
    for (unsigned k = 0; k < K && pl_cs_status(cs, NULL) == PL_OK; k++) {
        uint8_t le[32] = {0};
        put_le64(le, in->index[k]);
        pl__bit dirs[MAX_DEPTH];
        pl__bits_decompose(cs, dirs, idx[k], le, D);
        pl__u32 leaf[8], top[8];
        pl__digest_alloc(cs, leaf, in->leaf[k]);
        for (unsigned level = 0; level < D; level++)
            pl__digest_alloc(cs, sib[level], in->sib[(size_t)k * D + level]);
        pl__merkle_path(cs, top, leaf, (const pl__u32 (*)[8])sib, dirs, D,
                        PL__NODE_COMPRESS, in->p.rounds);
        pl__bit bits[256];
        pl__digest_bits(bits, top);
        pl__bits_pack_equal(cs, bits, 256, root);
    }
    free(idx);
    free(sib);
    return pl_cs_status(cs, err);
}

pl_status porep_shape(const porep_params *params, size_t *n_constraints,
                      size_t *n_public, size_t *n_wires, pl_error *err)
{
    pl_status st = check_params(params, err);
    if (st != PL_OK)
        return st;
    porep_inputs *in = inputs_new(params);
    pl_cs *cs = NULL;
    if (!in) {
        st = pl__error_set(err, PL_ENOMEM, "porep: out of memory");
        goto done;
    }
    if ((st = pl__cs_create_counting(&cs, err)) != PL_OK ||
        (st = pl_cs_run(cs, porep_circuit, in, err)) != PL_OK)
        goto done;
    if (n_constraints)
        *n_constraints = pl_cs_n_constraints(cs);
    if (n_public)
        *n_public = pl_cs_n_public(cs);
    if (n_wires)
        *n_wires = pl_cs_n_wires(cs);
done:
    pl_cs_destroy(cs);
    porep_inputs_destroy(in);
    return st;
}

/* The domain's share of a shape: constraints + publics + ONE. */
static pl_status footprint(const porep_params *p, uint64_t *out,
                           pl_error *err)
{
    size_t nc, np;
    pl_status st = porep_shape(p, &nc, &np, NULL, err);
    *out = (uint64_t)nc + np + 1;
    return st;
}

pl_status porep_params_for(porep_params *out, uint64_t constraints,
                           unsigned depth, pl_error *err)
{
    if (depth > MAX_DEPTH)
        return pl__error_set(err, PL_EUSAGE, "porep: depth %u: at most %u",
                             depth, MAX_DEPTH);
    pl_status st;
    unsigned d0 = depth ? depth : 1;
    porep_params p = {1, d0, 64};
    uint64_t n11;
    if ((st = footprint(&p, &n11, err)) != PL_OK)
        return st;
    if (n11 > constraints) {
        /* A toy: fewer rounds, one opening. */
        unsigned lo = 0, hi = 63; /* lo fits (0: none yet), hi + 1 does not */
        while (lo < hi) {
            unsigned mid = (lo + hi + 1) / 2;
            porep_params q = {1, d0, mid};
            uint64_t n;
            if ((st = footprint(&q, &n, err)) != PL_OK)
                return st;
            if (n <= constraints)
                lo = mid;
            else
                hi = mid - 1;
        }
        if (lo == 0) {
            porep_params q = {1, d0, 1};
            uint64_t n = 0;
            footprint(&q, &n, NULL);
            return pl__error_set(err, PL_EUSAGE,
                                 "porep: %llu constraints cannot hold one "
                                 "opening of depth %u (one round a node "
                                 "needs %llu)", (unsigned long long)constraints,
                                 d0, (unsigned long long)n);
        }
        out->openings = 1;
        out->depth = d0;
        out->rounds = lo;
        return PL_OK;
    }
    /* total(K, d) = base + K * (opening + (d - 1) * level) */
    porep_params p11 = {1, 1, 64}, p12 = {1, 2, 64}, p21 = {2, 1, 64};
    uint64_t n12, n21;
    if ((st = footprint(&p11, &n11, err)) != PL_OK ||
        (st = footprint(&p12, &n12, err)) != PL_OK ||
        (st = footprint(&p21, &n21, err)) != PL_OK)
        return st;
    int64_t level = (int64_t)n12 - (int64_t)n11;
    int64_t opening = (int64_t)n21 - (int64_t)n11;
    int64_t base = (int64_t)n11 - opening;
#define TOTAL(K, d) (base + (int64_t)(K) * (opening + ((int64_t)(d) - 1) * level))
    unsigned best_k = 0, best_d = 0;
    for (unsigned K = 1; K <= MAX_OPENINGS; K++) {
        unsigned d;
        if (depth) {
            d = depth;
            if (TOTAL(K, d) > (int64_t)constraints)
                break;
        } else {
            if (TOTAL(K, 1) > (int64_t)constraints)
                break;
            d = 1;
            while (d < MAX_DEPTH && TOTAL(K, d + 1) <= (int64_t)constraints)
                d++;
        }
        if ((uint64_t)K * d > (uint64_t)best_k * best_d) {
            best_k = K;
            best_d = d;
        }
    }
#undef TOTAL
    /* Confirm by an exact count (the model is exact unless a gadget's
     * cost depends on the values of the indices, which it does not). */
    if (best_k == 0)
        return pl__error_set(err, PL_EINTERNAL, "porep: no size fits %llu "
                             "constraints", (unsigned long long)constraints);
    porep_params q = {best_k, best_d, 64};
    for (;;) {
        uint64_t n;
        if ((st = footprint(&q, &n, err)) != PL_OK)
            return st;
        if (n <= constraints)
            break;
        if (q.openings > 1)
            q.openings--;
        else if (q.depth > 1 && !depth)
            q.depth--;
        else
            return pl__error_set(err, PL_EINTERNAL, "porep: no size fits "
                                 "%llu constraints",
                                 (unsigned long long)constraints);
    }
    *out = q;
    return PL_OK;
}
