/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Groth16 zkey's phase 2 as snarkjs runs it: pl_zkey_contribute and
 * pl_zkey_beacon (zkey_contribute.js, zkey_beacon.js, mpc_applykey.js) and
 * pl_zkey_verify (zkey_verify_fromr1cs.js, zkey_verify_frominit.js).
 *
 * A contribution draws delta (Fr.fromRng) and g1_s (G1.fromRng) from its
 * stream, g1_sx = delta g1_s; its transcript is BLAKE2b of the circuit
 * hash, every earlier record (deltaAfter, g1_s, g1_sx, g2_spx
 * uncompressed, transcript) and its own g1_s, g1_sx; g2_sp = hashToG2 of
 * the transcript, g2_spx = delta g2_sp.  The key's delta1 and delta2 are
 * multiplied by delta, sections 8 (C, "L") and 9 (H) by 1/delta, sections
 * 3-7 copied; section 10 gains the record {deltaAfter = the new delta1,
 * g1_s, g1_sx, g2_spx, transcript, type, parameters}.  The output's
 * sections are in order 1..10.
 *
 * Verifying a key: each record's transcript, its two same-ratio checks
 * (its key, and deltaAfter following the delta before), a beacon's key
 * from its beacon; then the key zkey new makes from the r1cs and the ptau
 * (zkey_new.c, never written: its sections are compared as they are made)
 * against this one: the header but delta, the circuit hash, sections 3-7
 * byte for byte, section 8 by a random linear combination in the ratio of
 * delta, section 9 against the ptau's monomials tau^i (tau^n - 1) by a
 * random combination through an FFT (sameRatioH).
 */
#include "ceremony/ceremony.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROTOCOL_GROTH16 1u
/* The most points a step holds at a time; a key with fewer points in its
 * largest section gets buffers for those alone (zkey_view.chunk), so a
 * small key takes small buffers. */
#define CHUNK ((size_t)1 << 14)

static const char *const zkey_section_names[11] = {
    "", "header", "groth16 header", "IC points", "coefficients",
    "A points", "B1 points", "B2 points", "C points", "H points",
    "contributions"};

/* ---- a mapped zkey ----------------------------------------------------------- */

typedef struct {
    const char *path;
    pl__mapped map;
    pl__container c;
    const pl__cer_curve *curve;
    uint32_t n_vars, n_public, domain_size;
    const uint8_t *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    uint8_t cs_hash[PL__CER_HASH];
    pl__zkey_contrib *contribs;
    size_t n_contribs;
    size_t chunk; /* points per chunk: CHUNK, or fewer for a small key */
} zkey_view;

static void zkey_close(zkey_view *z)
{
    free(z->contribs);
    z->contribs = NULL;
    pl__file_unmap(&z->map);
}

static pl_status zk_format(const zkey_view *z, unsigned id, uint64_t at,
                           const char *what, pl_error *err)
{
    return pl__error_set(err, PL_EFORMAT, "%s: section %u (%s): %s (at byte "
                         "offset %" PRIu64 ")", z->path, id,
                         zkey_section_names[id], what, at);
}

static uint64_t section_want(const zkey_view *z, unsigned id, uint32_t n_coefs)
{
    const uint64_t g1 = z->curve->g[0].aff_bytes, g2 = z->curve->g[1].aff_bytes;
    switch (id) {
    case 3: return ((uint64_t)z->n_public + 1) * g1;
    case 4: return 4 + (uint64_t)n_coefs * (12 + z->curve->n8r);
    case 5: case 6: return (uint64_t)z->n_vars * g1;
    case 7: return (uint64_t)z->n_vars * g2;
    case 8: return ((uint64_t)z->n_vars - z->n_public - 1) * g1;
    case 9: return (uint64_t)z->domain_size * g1;
    default: return 0;
    }
}

static pl_status read_records(zkey_view *z, pl_error *err)
{
    const pl__cer_curve *c = z->curve;
    const size_t g1 = c->g[0].aff_bytes, g2 = c->g[1].aff_bytes;
    const uint64_t at = z->c.offset[10], size = z->c.size[10];
    const uint8_t *p = z->map.data + at;
    if (size < PL__CER_HASH + 4)
        return zk_format(z, 10, at, "too short for the circuit hash and the "
                         "count", err);
    memcpy(z->cs_hash, p, PL__CER_HASH);
    const uint32_t n = pl__le32(p + PL__CER_HASH);
    const uint64_t fixed = 3 * g1 + g2 + PL__CER_HASH + 8;
    uint64_t o = PL__CER_HASH + 4;
    if ((size - o) / fixed < n)
        return zk_format(z, 10, at, "claims more contributions than it holds",
                         err);
    z->contribs = calloc(n ? n : 1, sizeof(*z->contribs));
    if (!z->contribs)
        return pl__error_set(err, PL_ENOMEM, "%s: contribution records",
                             z->path);
    z->n_contribs = n;
    for (uint32_t i = 0; i < n; i++) {
        pl__zkey_contrib *r = &z->contribs[i];
        char what[128];
        if (size - o < fixed) {
            snprintf(what, sizeof(what), "contribution #%" PRIu32 " runs past "
                     "the section's end", i + 1);
            return zk_format(z, 10, at + o, what, err);
        }
        const uint8_t *q = p + o;
        r->at = at + o;
        memcpy(r->delta_after, q, g1);
        memcpy(r->g1_s, q + g1, g1);
        memcpy(r->g1_sx, q + 2 * g1, g1);
        memcpy(r->g2_spx, q + 3 * g1, g2);
        memcpy(r->transcript, q + 3 * g1 + g2, PL__CER_HASH);
        const uint32_t type = pl__le32(q + 3 * g1 + g2 + PL__CER_HASH);
        const uint32_t plen = pl__le32(q + 3 * g1 + g2 + PL__CER_HASH + 4);
        o += fixed;
        const char *why = NULL;
        if (plen > size - o || !pl__cer_params_parse(&r->p, p + o, plen, &why)) {
            snprintf(what, sizeof(what), "contribution #%" PRIu32 ": %s",
                     i + 1, why ? why : "its parameters run past the end");
            return zk_format(z, 10, at + o, what, err);
        }
        r->p.type = type;
        o += plen;
    }
    if (o != size)
        return zk_format(z, 10, at, "its records do not fill it", err);
    return PL_OK;
}

static pl_status zkey_open(zkey_view *z, const char *path, pl_error *err)
{
    pl_status st;
    memset(z, 0, sizeof(*z));
    z->path = path;
    if ((st = pl__file_map(&z->map, path, err)) ||
        (st = pl__container_parse(&z->c, &z->map, path, "zkey", err)))
        return st;
    if (z->c.version < 1 || z->c.version > 2)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: version %" PRIu32
                             " (snarkjs reads versions 1 and 2)", path,
                             z->c.version);
    for (unsigned id = 1; id <= 10; id++)
        if (z->c.offset[id] == 0)
            return pl__error_set(err, PL_EFORMAT, "%s: section %u (%s) is "
                                 "missing", path, id, zkey_section_names[id]);
    const uint8_t *h = z->map.data + z->c.offset[1];
    if (z->c.size[1] != 4)
        return zk_format(z, 1, z->c.offset[1], "not one u32", err);
    if (pl__le32(h) != PROTOCOL_GROTH16)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: section 1 (header): "
                             "protocol %" PRIu32 " is not groth16 (1)", path,
                             pl__le32(h));
    const uint64_t at2 = z->c.offset[2], size2 = z->c.size[2];
    const uint8_t *g = z->map.data + at2;
    if (size2 < 4 || pl__le32(g) > 64 || size2 < 8 + pl__le32(g))
        return zk_format(z, 2, at2, "too short", err);
    const uint32_t n8q = pl__le32(g);
    z->curve = pl__cer_curve_by_q(g + 4, n8q);
    if (!z->curve)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: section 2 (groth16 "
                             "header): the curve is none this build has (%s)",
                             path, pl__cer_curve_names());
    const pl__cer_curve *c = z->curve;
    const size_t g1 = c->g[0].aff_bytes, g2 = c->g[1].aff_bytes;
    const uint64_t want = 4 + c->n8q + 4 + c->n8r + 12 + 3 * g1 + 3 * g2;
    if (size2 != want)
        return zk_format(z, 2, at2, "its size is not that of the groth16 "
                         "header", err);
    g += 4 + n8q;
    if (pl__le32(g) != c->n8r || memcmp(g + 4, c->r_le, c->n8r) != 0)
        return zk_format(z, 2, at2, "r is not the curve's", err);
    g += 4 + c->n8r;
    z->n_vars = pl__le32(g);
    z->n_public = pl__le32(g + 4);
    z->domain_size = pl__le32(g + 8);
    g += 12;
    z->alpha1 = g;
    z->beta1 = g + g1;
    z->beta2 = g + 2 * g1;
    z->gamma2 = z->beta2 + g2;
    z->delta1 = z->gamma2 + g2;
    z->delta2 = z->delta1 + g1;
    if (z->n_vars < (uint64_t)z->n_public + 1 || z->domain_size == 0 ||
        (z->domain_size & (z->domain_size - 1)) != 0)
        return zk_format(z, 2, at2, "nVars, nPublic or domainSize is out of "
                         "range", err);
    const uint64_t at4 = z->c.offset[4];
    if (z->c.size[4] < 4)
        return zk_format(z, 4, at4, "too short for its count", err);
    const uint32_t n_coefs = pl__le32(z->map.data + at4);
    for (unsigned id = 3; id <= 9; id++)
        if (z->c.size[id] != section_want(z, id, n_coefs)) {
            char what[96];
            snprintf(what, sizeof(what), "%" PRIu64 " bytes where the header "
                     "gives %" PRIu64, z->c.size[id],
                     section_want(z, id, n_coefs));
            return zk_format(z, id, z->c.offset[id], what, err);
        }
    uint64_t most = z->domain_size;
    for (unsigned id = 3; id <= 9; id++)
        if (id != 4 && z->c.size[id] / g1 > most)
            most = z->c.size[id] / g1;
    z->chunk = most < CHUNK ? (size_t)most : CHUNK;
    const pl__cer_named pts[] = {
        {z->alpha1, 0, "alpha1"}, {z->beta1, 0, "beta1"},
        {z->beta2, 1, "beta2"},   {z->gamma2, 1, "gamma2"},
        {z->delta1, 0, "delta1"}, {z->delta2, 1, "delta2"}};
    char what[96];
    const pl__cer_named *bad = pl__cer_check_named(c, pts, 6, what,
                                                   sizeof(what));
    if (bad)
        return zk_format(z, 2, (uint64_t)(bad->p - z->map.data), what, err);
    return read_records(z, err);
}

/* ---- records ----------------------------------------------------------------- */

/* hashPubKey: deltaAfter, g1_s, g1_sx, g2_spx uncompressed, transcript */
static void hash_pubkey(const pl__cer_curve *c, pl__blake2b *h,
                        const pl__zkey_contrib *r)
{
    uint8_t u[PL__CER_G2_MAX];
    const pl__cer_group *g1 = &c->g[0], *g2 = &c->g[1];
    g1->to_u(u, r->delta_after);
    pl__blake2b_update(h, u, g1->aff_bytes);
    g1->to_u(u, r->g1_s);
    pl__blake2b_update(h, u, g1->aff_bytes);
    g1->to_u(u, r->g1_sx);
    pl__blake2b_update(h, u, g1->aff_bytes);
    g2->to_u(u, r->g2_spx);
    pl__blake2b_update(h, u, g2->aff_bytes);
    pl__blake2b_update(h, r->transcript, PL__CER_HASH);
}

static void hash_g1(const pl__cer_curve *c, pl__blake2b *h, const uint8_t *p)
{
    uint8_t u[PL__CER_G1_MAX];
    c->g[0].to_u(u, p);
    pl__blake2b_update(h, u, c->g[0].aff_bytes);
}

static pl_status write_records(pl__container_writer *w, const pl__cer_curve *c,
                               const uint8_t cs_hash[PL__CER_HASH],
                               const pl__zkey_contrib *rs, size_t n,
                               pl_error *err)
{
    const size_t g1 = c->g[0].aff_bytes, g2 = c->g[1].aff_bytes;
    uint8_t params[PL__CER_PARAMS_MAX];
    uint64_t total = PL__CER_HASH + 4;
    for (size_t i = 0; i < n; i++)
        total += 3 * g1 + g2 + PL__CER_HASH + 8 +
                 pl__cer_params_encode(params, &rs[i].p);
    pl__container_section_begin(w, 10, total, err);
    pl__container_put(w, cs_hash, PL__CER_HASH, err);
    pl__container_put_u32(w, (uint32_t)n, err);
    for (size_t i = 0; i < n; i++) {
        const pl__zkey_contrib *r = &rs[i];
        size_t plen = pl__cer_params_encode(params, &r->p);
        pl__container_put(w, r->delta_after, g1, err);
        pl__container_put(w, r->g1_s, g1, err);
        pl__container_put(w, r->g1_sx, g1, err);
        pl__container_put(w, r->g2_spx, g2, err);
        pl__container_put(w, r->transcript, PL__CER_HASH, err);
        pl__container_put_u32(w, r->p.type, err);
        pl__container_put_u32(w, (uint32_t)plen, err);
        pl__container_put(w, params, plen, err);
    }
    return pl__container_section_end(w, err);
}

/* delta, g1_s, g1_sx from a stream (zkey_contribute.js) */
static void delta_key(const pl__cer_curve *c, pl__chacha *rng, pl__cer_fr *prv,
                      uint8_t *g1_s, uint8_t *g1_sx)
{
    _Alignas(64) uint8_t j[PL__CER_MAX_JAC];
    pl__cer_fr_from_rng(c, prv, rng);
    c->g[0].from_rng(g1_s, rng);
    c->g[0].from_aff(j, g1_s);
    c->g[0].mul(j, j, prv);
    c->g[0].to_aff(g1_sx, j);
}

/* ---- contribute and beacon ------------------------------------------------------ */

typedef struct {
    const pl__cer_group *g;
    uint8_t *out;
    const uint8_t *in;
    const pl__cer_fr *s;
    uint8_t *scratch;
    size_t scratch_bytes;
    bool secret;             /* 1/delta of a contribution (not a beacon) */
} scale_job;

static void scale_task(void *ctx, size_t first, size_t count, unsigned worker)
{
    const scale_job *j = ctx;
    const size_t b = j->g->aff_bytes;
    j->g->mul_batch(j->out + first * b, j->in + first * b, j->s, 0, count,
                    j->secret, j->scratch + worker * j->scratch_bytes);
}

/* points per task (their multiplications run in step) */
#define PIECE 256u
#define MIN_PIECE 16u

/* Section id of z times s into w, a chunk at a time. */
static pl_status scale_section(pl__cer_run *run, const zkey_view *z,
                               unsigned id, const pl__cer_fr *s,
                               pl__container_writer *w, uint8_t *buf,
                               uint8_t *scratch, size_t scratch_bytes,
                               size_t piece, bool secret, pl_error *err)
{
    const pl__cer_group *g = &z->curve->g[0];
    const uint64_t n = z->c.size[id] / g->aff_bytes;
    const uint8_t *in = z->map.data + z->c.offset[id];
    pl__container_section_begin(w, id, z->c.size[id], err);
    const size_t chunk = z->chunk;
    for (uint64_t i = 0; i < n && w->status == PL_OK; i += chunk) {
        const size_t k = n - i < chunk ? (size_t)(n - i) : chunk;
        scale_job job = {g,       buf,           in + i * g->aff_bytes, s,
                         scratch, scratch_bytes, secret};
        pl__cer_parallel(run, k, piece, scale_task, &job);
        pl__container_put(w, buf, k * g->aff_bytes, err);
        pl__cer_progress(run, zkey_section_names[id], i + k, n);
    }
    return pl__container_section_end(w, err);
}

static pl_status zkey_contribute(const char *step, const char *in_path,
                                 const char *out_path, const pl__cer_kind *kind,
                                 const pl_ceremony_config *cfg, pl_error *err)
{
    pl__cer_run run;
    zkey_view z;
    pl__output out;
    pl__container_writer w;
    pl__zkey_contrib *all = NULL;
    uint8_t *block = NULL;
    uint64_t block_bytes = 0;
    pl__cer_fr prv, inv;
    pl__chacha rng;
    memset(&z, 0, sizeof(z));
    memset(&out, 0, sizeof(out));
    const char *const ins[] = {in_path};
    pl_status st = pl__cer_run_begin_io(&run, step, cfg, out_path, ins, 1, err);
    if (st || (st = zkey_open(&z, in_path, err)))
        goto fail;
    run.curve = z.curve;
    const pl__cer_curve *c = z.curve;
    const pl__cer_group *g1 = &c->g[0], *g2 = &c->g[1];
    const size_t b1 = g1->aff_bytes, b2 = g2->aff_bytes;

    if ((st = pl__cer_kind_stream(&run, kind, &rng, err)))
        goto fail;
    all = calloc(z.n_contribs + 1, sizeof(*all));
    if (!all) {
        st = pl__error_set(err, PL_ENOMEM, "%s: contribution records",
                           in_path);
        goto fail;
    }
    memcpy(all, z.contribs, z.n_contribs * sizeof(*all));
    pl__zkey_contrib *cur = &all[z.n_contribs];

    pl__blake2b h;
    pl__blake2b_init(&h);
    pl__blake2b_update(&h, z.cs_hash, PL__CER_HASH);
    for (size_t i = 0; i < z.n_contribs; i++)
        hash_pubkey(c, &h, &z.contribs[i]);
    delta_key(c, &rng, &prv, cur->g1_s, cur->g1_sx);
    memset(&rng, 0, sizeof(rng));
    hash_g1(c, &h, cur->g1_s);
    hash_g1(c, &h, cur->g1_sx);
    pl__blake2b_final(&h, cur->transcript);
    uint8_t g2_sp[PL__CER_G2_MAX];
    _Alignas(64) uint8_t j[PL__CER_MAX_JAC];
    pl__cer_hash_to_g2(c, g2_sp, cur->transcript);
    g2->from_aff(j, g2_sp);
    g2->mul(j, j, &prv);
    g2->to_aff(cur->g2_spx, j);
    uint8_t delta1[PL__CER_G1_MAX], delta2[PL__CER_G2_MAX];
    g1->from_aff(j, z.delta1);
    g1->mul(j, j, &prv);
    g1->to_aff(delta1, j);
    g2->from_aff(j, z.delta2);
    g2->mul(j, j, &prv);
    g2->to_aff(delta2, j);
    memcpy(cur->delta_after, delta1, b1);
    pl__cer_kind_params(kind, &cur->p);
    c->fr_inv(&inv, &prv);
    memset(&prv, 0, sizeof(prv));

    size_t piece = PIECE, scratch;
    for (;;) {
        scratch = (g1->mul_scratch_bytes(piece) + 63) & ~(size_t)63;
        block_bytes = z.chunk * b1 + (uint64_t)scratch * run.threads;
        if (piece <= MIN_PIECE || block_bytes <= pl__cer_room(&run))
            break;
        piece /= 2;
    }
    if ((st = pl__cer_alloc(&run, &block, PL_BUF_PARAMS, block_bytes,
                            "a chunk of points and its scratch", err)))
        goto fail;
    if ((st = pl__output_open(&out, out_path, err)) ||
        (st = pl__container_write_begin(&w, &out, "zkey", 1, 10, err)))
        goto fail;
    /* sections 1 and 2 as zkey_utils.js writeHeader, the new delta */
    const uint8_t *g2hdr = z.map.data + z.c.offset[2];
    const size_t fixed = (size_t)(z.delta1 - g2hdr);
    pl__container_section_begin(&w, 1, 4, err);
    pl__container_put_u32(&w, PROTOCOL_GROTH16, err);
    pl__container_section_end(&w, err);
    pl__container_section_begin(&w, 2, z.c.size[2], err);
    pl__container_put(&w, g2hdr, fixed, err);
    pl__container_put(&w, delta1, b1, err);
    pl__container_put(&w, delta2, b2, err);
    if ((st = pl__container_section_end(&w, err)))
        goto fail;
    for (unsigned id = 3; id <= 7; id++)
        if ((st = pl__cer_copy_section(&w, &z.map, &z.c, id, err)))
            goto fail;
    for (unsigned id = 8; id <= 9; id++)
        if ((st = scale_section(&run, &z, id, &inv, &w, block,
                                block + z.chunk * b1, scratch, piece,
                                !kind->beacon, err)))
            goto fail;
    if ((st = write_records(&w, c, z.cs_hash, all, z.n_contribs + 1, err)) ||
        (st = pl__container_write_end(&w, err)) ||
        (st = pl__output_commit(&out, err)))
        goto fail;
    uint8_t contribution_hash[PL__CER_HASH];
    pl__blake2b_init(&h);
    hash_pubkey(c, &h, cur);
    pl__blake2b_final(&h, contribution_hash);
    pl__cer_line_hash(&run, "Circuit Hash: ", z.cs_hash);
    pl__cer_line_hash(&run, "Contribution Hash: ", contribution_hash);
fail:
    memset(&prv, 0, sizeof(prv));
    memset(&inv, 0, sizeof(inv));
    pl__output_abort(&out);
    pl__cer_free(&run, block, block_bytes);
    free(all);
    zkey_close(&z);
    pl__cer_run_end(&run);
    return st;
}

pl_status pl_zkey_contribute(const char *in_path, const char *out_path,
                             const char *name, const char *entropy,
                             const pl_ceremony_config *cfg, pl_error *err)
{
    pl__cer_kind kind;
    pl_status st = pl__cer_kind_contribution(&kind, "zkey contribute", name,
                                             entropy, err);
    return st ? st
              : zkey_contribute("zkey contribute", in_path, out_path, &kind,
                                cfg, err);
}

pl_status pl_zkey_beacon(const char *in_path, const char *out_path,
                         const char *name, const char *beacon_hex,
                         unsigned iter_exp, const pl_ceremony_config *cfg,
                         pl_error *err)
{
    pl__cer_kind kind;
    pl_status st = pl__cer_kind_beacon(&kind, "zkey beacon", name, beacon_hex,
                                       iter_exp, err);
    return st ? st
              : zkey_contribute("zkey beacon", in_path, out_path, &kind, cfg,
                                err);
}

/* ---- verify ---------------------------------------------------------------------- */

/* A record's check failed with `st` (PL_EINVALID unless the record could
 * not be checked at all). */
static pl_status record_fail_as(pl_status st, const zkey_view *z, size_t i,
                                const char *what, pl_error *err)
{
    const pl__zkey_contrib *r = &z->contribs[i];
    char name[PL__CER_NAME_MAX + 4];
    return pl__error_set(err, st, "%s: section 10 (contributions): "
                         "contribution #%zu%s: %s (record at byte offset %"
                         PRIu64 ")", z->path, i + 1,
                         pl__cer_quoted_name(name, sizeof(name), &r->p), what,
                         r->at);
}

static pl_status record_fail(const zkey_view *z, size_t i, const char *what,
                             pl_error *err)
{
    return record_fail_as(PL_EINVALID, z, i, what, err);
}

static pl_status check_records(pl__cer_run *run, const zkey_view *z,
                               uint8_t *cur_delta, pl_error *err)
{
    const pl__cer_curve *c = z->curve;
    const size_t b1 = c->g[0].aff_bytes;
    pl__blake2b acc;
    pl__blake2b_init(&acc);
    pl__blake2b_update(&acc, z->cs_hash, PL__CER_HASH);
    c->g[0].generator(cur_delta);
    for (size_t i = 0; i < z->n_contribs; i++) {
        const pl__zkey_contrib *r = &z->contribs[i];
        const pl__cer_named pts[] = {{r->delta_after, 0, "deltaAfter"},
                                     {r->g1_s, 0, "g1_s"},
                                     {r->g1_sx, 0, "g1_sx"},
                                     {r->g2_spx, 1, "g2_spx"}};
        char what[96];
        if (pl__cer_check_named(c, pts, 4, what, sizeof(what)))
            return record_fail(z, i, what, err);
        pl__blake2b ours = acc;
        uint8_t t[PL__CER_HASH];
        hash_g1(c, &ours, r->g1_s);
        hash_g1(c, &ours, r->g1_sx);
        pl__blake2b_final(&ours, t);
        if (memcmp(t, r->transcript, PL__CER_HASH) != 0)
            return record_fail(z, i, "Inconsistent transcript", err);
        uint8_t g2_sp[PL__CER_G2_MAX];
        pl__cer_hash_to_g2(c, g2_sp, r->transcript);
        if (!c->same_ratio(r->g1_s, r->g1_sx, g2_sp, r->g2_spx))
            return record_fail(z, i, "public key G1 and G2 do not have the "
                               "same ratio", err);
        if (!c->same_ratio(cur_delta, r->delta_after, g2_sp, r->g2_spx))
            return record_fail(z, i, "deltaAfter does not follow the public "
                               "key", err);
        if (r->p.type == 1) {
            pl__chacha rng;
            pl__cer_fr prv;
            uint8_t s[PL__CER_G1_MAX], sx[PL__CER_G1_MAX];
            char why[160];
            pl_status bst = pl__cer_beacon_replay(run, &r->p, &rng, why,
                                                  sizeof(why));
            if (bst)
                return record_fail_as(bst, z, i, why, err);
            delta_key(c, &rng, &prv, s, sx);
            if (memcmp(s, r->g1_s, b1) != 0)
                return record_fail(z, i, "Key of the beacon does not match. "
                                   "g1_s", err);
            if (memcmp(sx, r->g1_sx, b1) != 0)
                return record_fail(z, i, "Key of the beacon does not match. "
                                   "g1_sx", err);
        } else if (r->p.type != 0) {
            return record_fail(z, i, "its type is neither a contribution (0) "
                               "nor a beacon (1)", err);
        }
        hash_pubkey(c, &acc, r);
        uint8_t ch[PL__CER_HASH];
        pl__blake2b one;
        pl__blake2b_init(&one);
        hash_pubkey(c, &one, r);
        pl__blake2b_final(&one, ch);
        char title[320];
        snprintf(title, sizeof(title), "contribution #%zu %.*s:", i + 1,
                 (int)r->p.name_len, (const char *)r->p.name);
        pl__cer_line_hash(run, title, ch);
        if (r->p.type == 1)
            pl__cer_line(run, "Beacon iterations Exp: %u", r->p.iter_exp);
        memcpy(cur_delta, r->delta_after, b1);
    }
    return PL_OK;
}

/* The sink that compares zkey new's sections with the key's. */
typedef struct {
    pl__cer_run *run;
    const zkey_view *z;
    const pl__ptau *ptau;
    const char *r1cs_path;
    unsigned id;
    uint64_t at;             /* bytes of the current section seen */
    uint8_t hdr[4096];       /* section 2 as zkey new makes it */
    /* section 8: the random combination of the made and the key's points */
    pl__chacha rnd;
    uint8_t *scalars;        /* zkey_view.chunk */
    _Alignas(64) uint8_t r_made[PL__CER_MAX_JAC];
    _Alignas(64) uint8_t r_key[PL__CER_MAX_JAC];
} verify_sink;

static pl_status vs_begin(void *user, unsigned id, uint64_t size,
                          pl_error *err)
{
    verify_sink *v = user;
    v->id = id;
    v->at = 0;
    if (id == 2 && size > sizeof(v->hdr))
        return pl__error_set(err, PL_EINTERNAL, "zkey verify: header of %"
                             PRIu64 " bytes", size);
    if (id >= 3 && id <= 8 && size != v->z->c.size[id])
        return pl__error_set(err, PL_EINVALID, "%s: section %u (%s) is %"
                             PRIu64 " bytes, the circuit and the ptau give %"
                             PRIu64, v->z->path, id, zkey_section_names[id],
                             v->z->c.size[id], size);
    if (id == 8) {
        v->run->curve->g[0].set_inf(v->r_made);
        v->run->curve->g[0].set_inf(v->r_key);
    }
    return PL_OK;
}

static uint64_t first_difference(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}

static pl_status vs_put(void *user, const uint8_t *data, size_t len,
                        pl_error *err)
{
    verify_sink *v = user;
    const zkey_view *z = v->z;
    const unsigned id = v->id;
    pl_status st = PL_OK;
    if (id == 2) {
        memcpy(v->hdr + v->at, data, len);
    } else if (id >= 3 && id <= 7) {
        const uint8_t *mine = z->map.data + z->c.offset[id] + v->at;
        if (memcmp(mine, data, len) != 0) {
            const uint64_t d = v->at + first_difference(mine, data, len);
            return pl__error_set(err, PL_EINVALID, "%s: section %u (%s) is "
                                 "not the one the circuit %s and the "
                                 "ptau %s give: it differs at byte %" PRIu64
                                 " of the section (byte offset %" PRIu64 ")",
                                 z->path, id, zkey_section_names[id],
                                 v->r1cs_path, v->ptau->path, d,
                                 z->c.offset[id] + d);
        }
    } else if (id == 8) {
        const pl__cer_group *g = &z->curve->g[0];
        const size_t n = len / g->aff_bytes;
        _Alignas(64) uint8_t t[PL__CER_MAX_JAC];
        const size_t chunk = z->chunk;
        for (size_t done = 0; done < n && st == PL_OK; done += chunk) {
            const size_t k = n - done < chunk ? n - done : chunk;
            memset(v->scalars, 0, k * 32);
            for (size_t i = 0; i < k; i++) {
                uint64_t r;
                do
                    r = pl__chacha_u64(&v->rnd);
                while (r == 0);
                for (unsigned b = 0; b < 8; b++)
                    v->scalars[32 * i + b] = (uint8_t)(r >> (8 * b));
            }
            const uint64_t scratch = g->msm_scratch_bytes(k, v->run->threads);
            if ((st = pl__cer_reserve(v->run, scratch, "an MSM's scratch",
                                      err)))
                break;
            st = g->msm(t, data + done * g->aff_bytes, v->scalars, k,
                        v->run->pool, err);
            if (st == PL_OK) {
                g->add(v->r_made, v->r_made, t);
                st = g->msm(t,
                            z->map.data + z->c.offset[8] + v->at +
                                done * g->aff_bytes,
                            v->scalars, k, v->run->pool, err);
                g->add(v->r_key, v->r_key, t);
            }
            pl__cer_release(v->run, scratch);
        }
    }
    v->at += len;
    return st;
}

static pl_status vs_end(void *user, unsigned id, pl_error *err)
{
    (void)user;
    (void)id;
    (void)err;
    return PL_OK;
}

/* sameRatioH: R1 = sum r_i (tau^(i+n) - tau^i) over the ptau's section 2,
 * R2 = sum f_k H_k with f the FFT of r_i (-2) w_2n^i; e(R1, g2) must be
 * e(R2, delta2). */
static pl_status check_h(pl__cer_run *run, const zkey_view *z,
                         const pl__ptau *ptau, pl__chacha *rnd, pl_error *err)
{
    const pl__cer_curve *c = z->curve;
    const pl__cer_group *g = &c->g[0];
    const size_t ab = g->aff_bytes;
    const uint64_t n = z->domain_size;
    unsigned log2n = 0;
    while (((uint64_t)1 << log2n) < n)
        log2n++;
    const size_t chunk = z->chunk;
    const size_t scratch_to_aff = g->to_aff_scratch_bytes(chunk);
    const uint64_t bytes = n * sizeof(pl__cer_fr) + n * 32 +
                           chunk * (ab + g->jac_bytes) + scratch_to_aff;
    uint8_t *block;
    pl_status st = pl__cer_alloc(run, &block, PL_BUF_PARAMS, bytes,
                                 "the H check's scalars and points", err);
    if (st)
        return st;
    pl__cer_fr *fr = (pl__cer_fr *)block;
    uint8_t *sc = block + n * sizeof(pl__cer_fr);
    uint8_t *pts = sc + n * 32, *jac = pts + chunk * ab;
    uint8_t *tas = jac + chunk * g->jac_bytes;
    _Alignas(64) uint8_t R1[PL__CER_MAX_JAC], R2[PL__CER_MAX_JAC],
        t[PL__CER_MAX_JAC];
    g->set_inf(R1);
    g->set_inf(R2);
    memset(sc, 0, n * 32);
    for (uint64_t i = 0; i + 1 < n; i++) {
        uint64_t r;
        do
            r = pl__chacha_u64(rnd);
        while (r == 0);
        for (unsigned b = 0; b < 8; b++)
            sc[32 * i + b] = (uint8_t)(r >> (8 * b));
    }
    /* R1 over the differences, a chunk at a time */
    for (uint64_t i = 0; i < n && st == PL_OK; i += chunk) {
        const size_t k = n - i < chunk ? (size_t)(n - i) : chunk;
        for (size_t j = 0; j < k; j++) {
            void *acc = jac + j * g->jac_bytes;
            if (i + j + 1 == n) {
                /* its scalar is 0 (and tau^(2n-1) may be past section 2) */
                g->set_inf(acc);
                continue;
            }
            g->from_aff(t, pl__ptau_point(ptau, 2, i + j));
            g->neg(t, t);
            g->from_aff(acc, pl__ptau_point(ptau, 2, i + j + n));
            g->add(acc, acc, t);
        }
        g->to_aff_batch(pts, jac, k, tas);
        const uint64_t scratch = g->msm_scratch_bytes(k, run->threads);
        if ((st = pl__cer_reserve(run, scratch, "an MSM's scratch", err)))
            break;
        st = g->msm(t, pts, sc + 32 * i, k, run->pool, err);
        pl__cer_release(run, scratch);
        g->add(R1, R1, t);
    }
    /* the scalars of H: r_i (-2) w_2n^i, transformed */
    pl__cer_fr first, inc, two;
    c->fr_from_u64(&two, 2);
    c->fr_from_u64(&first, 0);
    c->fr_sub(&first, &first, &two);
    c->fr_root(&inc, log2n + 1);
    for (uint64_t i = 0; i < n; i++) {
        c->fr_from_le(&fr[i], sc + 32 * i);
        c->fr_mul(&fr[i], &fr[i], &first);
        c->fr_mul(&first, &first, &inc);
    }
    const uint64_t fft = c->fr_fft_bytes(log2n);
    if (st == PL_OK && (st = pl__cer_reserve(run, fft, "the FFT's tables",
                                             err)) == PL_OK) {
        st = c->fr_fft(fr, log2n, run->pool, err);
        pl__cer_release(run, fft);
    }
    for (uint64_t i = 0; i < n && st == PL_OK; i++)
        c->fr_to_le(sc + 32 * i, &fr[i]);
    if (st == PL_OK) {
        const uint64_t scratch = g->msm_scratch_bytes(n, run->threads);
        if ((st = pl__cer_reserve(run, scratch, "an MSM's scratch", err)) ==
            PL_OK) {
            st = g->msm(R2, z->map.data + z->c.offset[9], sc, n, run->pool,
                        err);
            pl__cer_release(run, scratch);
        }
    }
    if (st == PL_OK) {
        uint8_t a1[PL__CER_G1_MAX], b1[PL__CER_G1_MAX], gen2[PL__CER_G2_MAX];
        g->to_aff(a1, R1);
        g->to_aff(b1, R2);
        c->g[1].generator(gen2);
        if (!c->same_ratio(a1, b1, z->delta2, gen2))
            st = pl__error_set(err, PL_EINVALID, "%s: section 9 (H points) "
                               "does not match the powers of tau %s under the "
                               "key's delta", z->path, ptau->path);
    }
    pl__cer_free(run, block, bytes);
    return st;
}

pl_status pl_zkey_verify(const char *r1cs_path, const char *ptau_path,
                         const char *zkey_path, const pl_ceremony_config *cfg,
                         pl_error *err)
{
    pl__cer_run run;
    zkey_view z;
    pl__ptau ptau;
    verify_sink *v = NULL;
    memset(&z, 0, sizeof(z));
    memset(&ptau, 0, sizeof(ptau));
    pl_status st = pl__cer_run_begin(&run, "zkey verify", cfg, err);
    if (st || (st = zkey_open(&z, zkey_path, err)) ||
        (st = pl__ptau_open(&ptau, ptau_path, err)))
        goto fail;
    run.curve = z.curve;
    const pl__cer_curve *c = z.curve;
    const size_t b1 = c->g[0].aff_bytes, b2 = c->g[1].aff_bytes;
    if (ptau.curve != c) {
        st = pl__error_set(err, PL_EINVALID, "%s: the key is for %s, the ptau "
                           "%s for %s", zkey_path, c->name, ptau_path,
                           ptau.curve->name);
        goto fail;
    }
    uint8_t cur_delta[PL__CER_G1_MAX];
    if ((st = check_records(&run, &z, cur_delta, err)))
        goto fail;
    if (!(v = calloc(1, sizeof(*v)))) {
        st = pl__error_set(err, PL_ENOMEM, "zkey verify: its state");
        goto fail;
    }
    if ((st = pl__cer_alloc(&run, &v->scalars, PL_BUF_PARAMS, z.chunk * 32,
                            "random scalars", err)))
        goto fail;
    v->run = &run;
    v->z = &z;
    v->ptau = &ptau;
    v->r1cs_path = r1cs_path;
    if ((st = pl__chacha_from_entropy(&v->rnd, "proofline zkey verify", err)))
        goto fail;
    const pl__zkey_sink sink = {v, vs_begin, vs_put, vs_end};
    pl__zkey_shape shape;
    uint8_t cs_hash[PL__CER_HASH];
    if ((st = pl__zkey_build(&run, r1cs_path, &ptau, &shape, &sink, cs_hash,
                             err)))
        goto fail;
    /* the header: the shape, alpha, beta, gamma as made; delta the last
     * contribution's */
    if (shape.n_vars != z.n_vars || shape.n_public != z.n_public ||
        shape.domain_size != z.domain_size) {
        st = pl__error_set(err, PL_EINVALID, "%s: section 2 (groth16 header):"
                           " nVars %" PRIu32 ", nPublic %" PRIu32 ", domain %"
                           PRIu32 " where the circuit gives %" PRIu32 ", %"
                           PRIu32 ", %" PRIu32 " (Different circuit "
                           "parameters)", zkey_path, z.n_vars, z.n_public,
                           z.domain_size, shape.n_vars, shape.n_public,
                           shape.domain_size);
        goto fail;
    }
    const uint8_t *made = v->hdr + 4 + c->n8q + 4 + c->n8r + 12;
    const struct {
        const uint8_t *mine, *made;
        size_t bytes;
        const char *name;
    } hp[] = {{z.alpha1, made, b1, "alpha1"},
              {z.beta1, made + b1, b1, "beta1"},
              {z.beta2, made + 2 * b1, b2, "beta2"},
              {z.gamma2, made + 2 * b1 + b2, b2, "gamma2"}};
    for (size_t i = 0; i < 4; i++)
        if (memcmp(hp[i].mine, hp[i].made, hp[i].bytes) != 0) {
            st = pl__error_set(err, PL_EINVALID, "%s: section 2 (groth16 "
                               "header): %s is not the ptau's (Invalid %s)",
                               zkey_path, hp[i].name, hp[i].name);
            goto fail;
        }
    if (memcmp(z.delta1, cur_delta, b1) != 0) {
        st = pl__error_set(err, PL_EINVALID, "%s: section 2 (groth16 header): "
                           "delta1 is not the last contribution's deltaAfter "
                           "(Invalid delta1)", zkey_path);
        goto fail;
    }
    uint8_t gen1[PL__CER_G1_MAX], gen2[PL__CER_G2_MAX];
    c->g[0].generator(gen1);
    c->g[1].generator(gen2);
    if (!c->same_ratio(gen1, cur_delta, gen2, z.delta2)) {
        st = pl__error_set(err, PL_EINVALID, "%s: section 2 (groth16 header): "
                           "delta2 is not in the ratio of delta1 (Invalid "
                           "delta2)", zkey_path);
        goto fail;
    }
    if (memcmp(cs_hash, z.cs_hash, PL__CER_HASH) != 0) {
        st = pl__error_set(err, PL_EINVALID, "%s: section 10 (contributions): "
                           "the circuit hash is not the circuit's (Circuit "
                           "does not match)", zkey_path);
        goto fail;
    }
    /* L: the made points (delta 1) and the key's in the ratio of delta */
    if (z.c.size[8]) {
        uint8_t a1[PL__CER_G1_MAX], a2[PL__CER_G1_MAX];
        c->g[0].to_aff(a1, v->r_made);
        c->g[0].to_aff(a2, v->r_key);
        if (!c->same_ratio(a1, a2, z.delta2, gen2)) {
            st = pl__error_set(err, PL_EINVALID, "%s: section 8 (C points) "
                               "does not match the circuit under the key's "
                               "delta (L section does not match)", zkey_path);
            goto fail;
        }
    }
    if ((st = check_h(&run, &z, &ptau, &v->rnd, err)))
        goto fail;
    pl__cer_line_hash(&run, "Circuit Hash: ", z.cs_hash);
    pl__cer_line(&run, "ZKey Ok!");
fail:
    if (v) {
        pl__cer_free(&run, v->scalars, z.chunk * 32);
        free(v);
    }
    pl__ptau_close(&ptau);
    zkey_close(&z);
    pl__cer_run_end(&run);
    return st;
}
