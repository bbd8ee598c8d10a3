/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .ptau file of snarkjs's powers of tau and the steps that write one
 * from another: new, contribute, beacon (pl_ptau_new, pl_ptau_contribute,
 * pl_ptau_beacon).  prepare.c and ptau_verify.c use its reader.
 *
 * Layout (powersoftau_new.js, FORMATS.md): section 1 the header (u32 n8q,
 * q, u32 power, u32 ceremonyPower); 2 tauG1 (2^(p+1) - 1 G1 points tau^i),
 * 3 tauG2 (2^p G2), 4 alphaTauG1 (2^p G1 alpha tau^i), 5 betaTauG1, 6 betaG2
 * (one G2); 7 the contributions; after prepare 12..15 the Lagrange bases
 * of 2 (one more level), 3, 4 and 5 (prepare.c).
 *
 * A contribution (powersoftau_contribute.js) draws secrets tau, alpha,
 * beta and their public keys (keypair.js), multiplies point i of sections
 * 2-6 by first * tau^i (first: 1, alpha or beta), and records:
 *   - the response hash: BLAKE2b of the previous challenge, the new points
 *     compressed, the public key uncompressed; the record keeps the
 *     hasher's state before the key (partialHash, blake2b.h);
 *   - the next challenge: BLAKE2b of the response hash and the new points
 *     uncompressed, read back from the output as snarkjs reads its file;
 *   - the new tau G1, tau G2 (point 1), alpha G1, beta G1, beta G2 (point
 *     0), the public key, the type (0, or 1 with the beacon's hash and
 *     iteration exponent) and the name.
 * The response hasher is fed in snarkjs's pieces (2^20 bytes of input
 * points at a time), since its state is part of the file.
 *
 * Memory: a chunk of points at a time (about 5 MiB of buffers, whatever
 * the power), class params; the input is mapped.
 */
#include "ceremony/ceremony.h"
#include "formats/formats.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PTAU_VERSION 1u
#define MAX_POWER 28u   /* snarkjs's powersoftau new refuses more */

const char *pl__ptau_section_name(unsigned id)
{
    return id < PL__PTAU_SECTIONS ? pl__ptau_section_names[id] : "";
}

const pl__cer_group *pl__ptau_section_group(const pl__cer_curve *c,
                                            unsigned id)
{
    return (id == 3 || id == 6 || id == 13) ? &c->g[1] : &c->g[0];
}

uint64_t pl__ptau_section_points(unsigned id, unsigned power)
{
    const uint64_t n = (uint64_t)1 << power;
    switch (id) {
    case 2: return 2 * n - 1;
    case 3: case 4: case 5: return n;
    case 6: return 1;
    case 12: return 4 * n - 1;
    case 13: case 14: case 15: return 2 * n - 1;
    default: return 0;
    }
}

const uint8_t *pl__ptau_point(const pl__ptau *p, unsigned id, uint64_t i)
{
    return p->map.data + p->c.offset[id] +
           i * pl__ptau_section_group(p->curve, id)->aff_bytes;
}

/* ---- reading ----------------------------------------------------------------- */

static uint64_t record_fixed_bytes(const pl__cer_curve *c)
{
    const size_t g1 = c->g[0].aff_bytes, g2 = c->g[1].aff_bytes;
    return 3 * g1 + 2 * g2 + 6 * g1 + 3 * g2 + PL__BLAKE2B_PARTIAL_BYTES +
           PL__CER_HASH + 4 + 4;
}

static pl_status read_contribs(pl__ptau *p, pl_error *err)
{
    const pl__cer_curve *c = p->curve;
    const size_t g1 = c->g[0].aff_bytes, g2 = c->g[1].aff_bytes;
    const uint64_t start = p->c.offset[7], size = p->c.size[7];
    const uint8_t *base = p->map.data + start;
    if (size < 4)
        return pl__error_set(err, PL_EFORMAT, "%s: section 7 (contributions) "
                             "is %" PRIu64 " bytes, too short for its count "
                             "(at byte offset %" PRIu64 ")", p->path, size,
                             start);
    const uint32_t n = pl__le32(base);
    const uint64_t fixed = record_fixed_bytes(c);
    if ((size - 4) / fixed < n)
        return pl__error_set(err, PL_EFORMAT, "%s: section 7 (contributions) "
                             "claims %" PRIu32 " contributions in %" PRIu64
                             " bytes (at byte offset %" PRIu64 ")", p->path, n,
                             size, start);
    p->contribs = calloc(n ? n : 1, sizeof(*p->contribs));
    if (!p->contribs)
        return pl__error_set(err, PL_ENOMEM, "%s: %" PRIu32 " contribution "
                             "records", p->path, n);
    p->n_contribs = n;
    uint64_t o = 4;
    for (uint32_t i = 0; i < n; i++) {
        pl__ptau_contrib *r = &p->contribs[i];
        if (size - o < fixed)
            return pl__error_set(err, PL_EFORMAT, "%s: section 7 "
                                 "(contributions): contribution #%" PRIu32
                                 " runs past the section's end (at byte "
                                 "offset %" PRIu64 ")", p->path, i + 1,
                                 start + o);
        const uint8_t *q = base + o;
        r->at = start + o;
#define TAKE(dst, bytes)                                                      \
    do {                                                                      \
        memcpy((dst), q, (bytes));                                            \
        q += (bytes);                                                         \
    } while (0)
        TAKE(r->tau_g1, g1);
        TAKE(r->tau_g2, g2);
        TAKE(r->alpha_g1, g1);
        TAKE(r->beta_g1, g1);
        TAKE(r->beta_g2, g2);
        for (unsigned k = 0; k < 3; k++) {
            TAKE(r->g1_s[k], g1);
            TAKE(r->g1_sx[k], g1);
        }
        for (unsigned k = 0; k < 3; k++)
            TAKE(r->g2_spx[k], g2);
        TAKE(r->partial, PL__BLAKE2B_PARTIAL_BYTES);
        TAKE(r->next_challenge, PL__CER_HASH);
#undef TAKE
        const uint32_t type = pl__le32(q);
        uint32_t plen = pl__le32(q + 4);
        q += 8;
        o += fixed;
        if (plen > size - o)
            return pl__error_set(err, PL_EFORMAT, "%s: section 7 "
                                 "(contributions): contribution #%" PRIu32
                                 "'s parameters (%" PRIu32 " bytes) run past "
                                 "the section's end (at byte offset %" PRIu64
                                 ")", p->path, i + 1, plen, start + o);
        const char *why = NULL;
        if (!pl__cer_params_parse(&r->p, q, plen, &why))
            return pl__error_set(err, PL_EFORMAT, "%s: section 7 "
                                 "(contributions): contribution #%" PRIu32
                                 ": %s (at byte offset %" PRIu64 ")", p->path,
                                 i + 1, why, start + o);
        r->p.type = type;
        o += plen;
    }
    if (o != size)
        return pl__error_set(err, PL_EFORMAT, "%s: section 7 (contributions) "
                             "is %" PRIu64 " bytes, its %" PRIu32 " records "
                             "take %" PRIu64 " (at byte offset %" PRIu64 ")",
                             p->path, size, n, o, start);
    return PL_OK;
}

static pl_status need_points(const pl__ptau *p, unsigned id, pl_error *err)
{
    const uint64_t want = pl__ptau_section_points(id, p->power) *
                          pl__ptau_section_group(p->curve, id)->aff_bytes;
    if (p->c.offset[id] == 0)
        return pl__error_set(err, PL_EFORMAT, "%s: section %u (%s) is missing",
                             p->path, id, pl__ptau_section_name(id));
    if (p->c.size[id] != want)
        return pl__error_set(err, PL_EFORMAT, "%s: section %u (%s) is %" PRIu64
                             " bytes, a file of power %u has %" PRIu64
                             " (at byte offset %" PRIu64 ")", p->path, id,
                             pl__ptau_section_name(id), p->c.size[id],
                             p->power, want, p->c.offset[id]);
    return PL_OK;
}

static pl_status read_header(pl__ptau *p, pl_error *err)
{
    pl__ptau_header h;
    pl_status st = pl__ptau_header_read(&p->c, &p->map, p->path, &h, err);
    if (st)
        return st;
    p->curve = pl__cer_curve_by_q(h.q, h.n8q);
    if (!p->curve) {
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: section 1 (header): "
                             "the prime q is no curve this build knows (%s) "
                             "(at byte offset %" PRIu64 ")", p->path,
                             pl__cer_curve_names(), h.at + 4);
    }
    p->power = h.power;
    p->ceremony_power = h.ceremony_power;
    if (p->power < 1 || p->power > MAX_POWER ||
        p->ceremony_power < p->power || p->ceremony_power > MAX_POWER)
        return pl__error_set(err, PL_EFORMAT, "%s: section 1 (header): power "
                             "%u of ceremony power %u; powers go from 1 to "
                             "%u (at byte offset %" PRIu64 ")", p->path,
                             p->power, p->ceremony_power, MAX_POWER,
                             h.at + 4 + h.n8q);
    return PL_OK;
}

pl_status pl__ptau_open(pl__ptau *p, const char *path, pl_error *err)
{
    pl_status st;
    memset(p, 0, sizeof(*p));
    p->path = path;
    if ((st = pl__file_map(&p->map, path, err)) ||
        (st = pl__container_parse(&p->c, &p->map, path, "ptau", err)))
        return st;
    if (p->c.version != PTAU_VERSION)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: version %" PRIu32
                             ", snarkjs writes version %u (at byte offset 4)",
                             path, p->c.version, PTAU_VERSION);
    if ((st = read_header(p, err)))
        return st;
    for (unsigned id = 2; id <= 6; id++)
        if ((st = need_points(p, id, err)))
            return st;
    if (p->c.offset[7] == 0)
        return pl__error_set(err, PL_EFORMAT, "%s: section 7 (contributions) "
                             "is missing", path);
    bool any = false, all = true;
    for (unsigned id = 12; id <= 15; id++) {
        any |= p->c.offset[id] != 0;
        all &= p->c.offset[id] != 0;
    }
    if (any) {
        for (unsigned id = 12; id <= 15; id++)
            if ((st = need_points(p, id, err)))
                return st;
        p->prepared = all;
    }
    return read_contribs(p, err);
}

void pl__ptau_close(pl__ptau *p)
{
    free(p->contribs);
    p->contribs = NULL;
    pl__file_unmap(&p->map);
}

/* ---- writing ----------------------------------------------------------------- */

pl_status pl__ptau_write_header(pl__container_writer *w,
                                const pl__cer_curve *c, unsigned power,
                                unsigned ceremony_power, pl_error *err)
{
    pl__container_section_begin(w, 1, 4 + c->n8q + 8, err);
    pl__container_put_u32(w, c->n8q, err);
    pl__container_put(w, c->q_le, c->n8q, err);
    pl__container_put_u32(w, power, err);
    pl__container_put_u32(w, ceremony_power, err);
    return pl__container_section_end(w, err);
}

/* One record's bytes into out (record_fixed_bytes + params); returns the
 * length. */
static size_t encode_contrib(const pl__cer_curve *c, uint8_t *out,
                             const pl__ptau_contrib *r)
{
    const size_t g1 = c->g[0].aff_bytes, g2 = c->g[1].aff_bytes;
    uint8_t *o = out;
#define PUT(src, bytes)                                                       \
    do {                                                                      \
        memcpy(o, (src), (bytes));                                            \
        o += (bytes);                                                         \
    } while (0)
    PUT(r->tau_g1, g1);
    PUT(r->tau_g2, g2);
    PUT(r->alpha_g1, g1);
    PUT(r->beta_g1, g1);
    PUT(r->beta_g2, g2);
    for (unsigned k = 0; k < 3; k++) {
        PUT(r->g1_s[k], g1);
        PUT(r->g1_sx[k], g1);
    }
    for (unsigned k = 0; k < 3; k++)
        PUT(r->g2_spx[k], g2);
    PUT(r->partial, PL__BLAKE2B_PARTIAL_BYTES);
    PUT(r->next_challenge, PL__CER_HASH);
#undef PUT
    pl__put_le32(o, r->p.type);
    size_t plen = pl__cer_params_encode(o + 8, &r->p);
    pl__put_le32(o + 4, (uint32_t)plen);
    return (size_t)(o + 8 + plen - out);
}

pl_status pl__ptau_write_contribs(pl__container_writer *w,
                                  const pl__cer_curve *c,
                                  const pl__ptau_contrib *cs, size_t n,
                                  pl_error *err)
{
    uint8_t rec[3 * PL__CER_G1_MAX + 2 * PL__CER_G2_MAX + 6 * PL__CER_G1_MAX +
                3 * PL__CER_G2_MAX + PL__BLAKE2B_PARTIAL_BYTES + PL__CER_HASH +
                8 + PL__CER_PARAMS_MAX];
    uint64_t total = 4;
    for (size_t i = 0; i < n; i++)
        total += encode_contrib(c, rec, &cs[i]);
    pl__container_section_begin(w, 7, total, err);
    pl__container_put_u32(w, (uint32_t)n, err);
    for (size_t i = 0; i < n; i++)
        pl__container_put(w, rec, encode_contrib(c, rec, &cs[i]), err);
    return pl__container_section_end(w, err);
}

/* ---- hashes and keys --------------------------------------------------------- */

/* h.update(u) count times, through a buffer of copies */
static void hash_repeated(pl__blake2b *h, const uint8_t *u, size_t bytes,
                          uint64_t count)
{
    uint8_t buf[64 * PL__CER_G2_MAX];
    const size_t per = sizeof(buf) / bytes;
    for (size_t i = 0; i < per; i++)
        memcpy(buf + i * bytes, u, bytes);
    while (count) {
        uint64_t k = count < per ? count : per;
        pl__blake2b_update(h, buf, (size_t)k * bytes);
        count -= k;
    }
}

void pl__ptau_first_challenge(const pl__cer_curve *c, unsigned power,
                              uint8_t out[PL__CER_HASH])
{
    uint8_t g1[PL__CER_G1_MAX], g2[PL__CER_G2_MAX];
    uint8_t u1[PL__CER_G1_MAX], u2[PL__CER_G2_MAX], empty[PL__CER_HASH];
    const size_t b1 = c->g[0].aff_bytes, b2 = c->g[1].aff_bytes;
    const uint64_t n = (uint64_t)1 << power;
    c->g[0].generator(g1);
    c->g[1].generator(g2);
    c->g[0].to_u(u1, g1);
    c->g[1].to_u(u2, g2);
    pl__blake2b_digest(empty, NULL, 0);
    pl__blake2b h;
    pl__blake2b_init(&h);
    pl__blake2b_update(&h, empty, sizeof(empty));
    hash_repeated(&h, u1, b1, 2 * n - 1);
    hash_repeated(&h, u2, b2, n);
    hash_repeated(&h, u1, b1, n);
    hash_repeated(&h, u1, b1, n);
    pl__blake2b_update(&h, u2, b2);
    pl__blake2b_final(&h, out);
}

void pl__cer_hash_to_g2(const pl__cer_curve *c, uint8_t *g2,
                        const uint8_t hash[PL__CER_HASH])
{
    pl__chacha rng;
    pl__chacha_from_hash(&rng, hash);
    c->g[1].from_rng(g2, &rng);
}

void pl__ptau_g2sp(const pl__cer_curve *c, uint8_t *g2_sp,
                   unsigned personalization,
                   const uint8_t challenge[PL__CER_HASH],
                   const uint8_t *g1_s, const uint8_t *g1_sx)
{
    uint8_t u[PL__CER_G1_MAX], hash[PL__CER_HASH];
    const uint8_t pers = (uint8_t)personalization;
    pl__blake2b h;
    pl__blake2b_init(&h);
    pl__blake2b_update(&h, &pers, 1);
    pl__blake2b_update(&h, challenge, PL__CER_HASH);
    c->g[0].to_u(u, g1_s);
    pl__blake2b_update(&h, u, c->g[0].aff_bytes);
    c->g[0].to_u(u, g1_sx);
    pl__blake2b_update(&h, u, c->g[0].aff_bytes);
    pl__blake2b_final(&h, hash);
    pl__cer_hash_to_g2(c, g2_sp, hash);
}

/* p * s as an affine point */
static void mul_aff(const pl__cer_group *g, uint8_t *out, const uint8_t *p,
                    const pl__cer_fr *s)
{
    _Alignas(64) uint8_t j[PL__CER_MAX_JAC];
    g->from_aff(j, p);
    g->mul(j, j, s);
    g->to_aff(out, j);
}

void pl__ptau_key_create(const pl__cer_curve *c, pl__ptau_key *key,
                         const uint8_t challenge[PL__CER_HASH],
                         pl__chacha *rng)
{
    for (unsigned k = 0; k < 3; k++)
        pl__cer_fr_from_rng(c, &key->prv[k], rng);
    for (unsigned k = 0; k < 3; k++) {
        c->g[0].from_rng(key->g1_s[k], rng);
        mul_aff(&c->g[0], key->g1_sx[k], key->g1_s[k], &key->prv[k]);
        pl__ptau_g2sp(c, key->g2_sp[k], k, challenge, key->g1_s[k],
                      key->g1_sx[k]);
        mul_aff(&c->g[1], key->g2_spx[k], key->g2_sp[k], &key->prv[k]);
    }
}

size_t pl__ptau_pubkey_u(const pl__cer_curve *c, uint8_t *out,
                         const uint8_t g1_s[3][PL__CER_G1_MAX],
                         const uint8_t g1_sx[3][PL__CER_G1_MAX],
                         const uint8_t g2_spx[3][PL__CER_G2_MAX])
{
    const size_t b1 = c->g[0].aff_bytes, b2 = c->g[1].aff_bytes;
    size_t o = 0;
    for (unsigned k = 0; k < 3; k++) {
        c->g[0].to_u(out + o, g1_s[k]);
        o += b1;
        c->g[0].to_u(out + o, g1_sx[k]);
        o += b1;
    }
    for (unsigned k = 0; k < 3; k++) {
        c->g[1].to_u(out + o, g2_spx[k]);
        o += b2;
    }
    return o;
}

void pl__ptau_response_hash(const pl__cer_curve *c, const pl__ptau_contrib *r,
                            uint8_t out[PL__CER_HASH])
{
    uint8_t u[6 * PL__CER_G1_MAX + 3 * PL__CER_G2_MAX];
    pl__blake2b h;
    pl__blake2b_import(&h, r->partial);
    pl__blake2b_update(&h, u, pl__ptau_pubkey_u(c, u, r->g1_s, r->g1_sx,
                                                r->g2_spx));
    pl__blake2b_final(&h, out);
}

/* ---- new --------------------------------------------------------------------- */

static pl_status put_repeated(pl__container_writer *w, const uint8_t *p,
                              size_t bytes, uint64_t count, uint8_t *buf,
                              size_t per, pl_error *err)
{
    for (size_t i = 0; i < per; i++)
        memcpy(buf + i * bytes, p, bytes);
    while (count && w->status == PL_OK) {
        uint64_t k = count < per ? count : per;
        pl__container_put(w, buf, (size_t)k * bytes, err);
        count -= k;
    }
    return w->status;
}

pl_status pl_ptau_new(const char *curve_name, unsigned power,
                      const char *out_path, const pl_ceremony_config *cfg,
                      pl_error *err)
{
    pl__cer_run run;
    pl__output out;
    pl__container_writer w;
    uint8_t *buf = NULL;
    const size_t buf_bytes = (size_t)1 << 20;
    uint8_t hash[PL__CER_HASH];
    memset(&out, 0, sizeof(out));
    pl_status st = pl__cer_run_begin_io(&run, "ptau new", cfg, out_path, NULL,
                                        0, err);
    if (st)
        goto fail;
    run.curve = pl__cer_curve_by_name(curve_name);
    if (!run.curve) {
        st = pl__error_set(err, PL_EUNSUPPORTED, "ptau new: no curve '%s'; "
                           "this build has %s", curve_name,
                           pl__cer_curve_names());
        goto fail;
    }
    if (power < 1 || power > MAX_POWER) {
        st = pl__error_set(err, PL_EUSAGE, "ptau new: power %u: powers go "
                           "from 1 to %u", power, MAX_POWER);
        goto fail;
    }
    const pl__cer_curve *c = run.curve;
    const size_t b1 = c->g[0].aff_bytes, b2 = c->g[1].aff_bytes;
    const uint64_t n = (uint64_t)1 << power;
    uint8_t g1[PL__CER_G1_MAX], g2[PL__CER_G2_MAX];
    c->g[0].generator(g1);
    c->g[1].generator(g2);
    if ((st = pl__cer_alloc(&run, &buf, PL_BUF_PARAMS, buf_bytes,
                            "the output buffer", err)))
        goto fail;
    if ((st = pl__output_open(&out, out_path, err)) ||
        (st = pl__container_write_begin(&w, &out, "ptau", PTAU_VERSION, 7,
                                        err)) ||
        (st = pl__ptau_write_header(&w, c, power, power, err)))
        goto fail;
    const struct {
        unsigned id;
        const uint8_t *p;
        size_t bytes;
        uint64_t count;
    } secs[] = {{2, g1, b1, 2 * n - 1}, {3, g2, b2, n}, {4, g1, b1, n},
                {5, g1, b1, n}, {6, g2, b2, 1}};
    for (size_t s = 0; s < 5; s++) {
        pl__container_section_begin(&w, secs[s].id,
                                    secs[s].count * secs[s].bytes, err);
        put_repeated(&w, secs[s].p, secs[s].bytes, secs[s].count, buf,
                     buf_bytes / secs[s].bytes, err);
        if ((st = pl__container_section_end(&w, err)))
            goto fail;
        pl__cer_progress(&run, "writing", s + 1, 5);
    }
    if ((st = pl__ptau_write_contribs(&w, c, NULL, 0, err)) ||
        (st = pl__container_write_end(&w, err)) ||
        (st = pl__output_commit(&out, err)))
        goto fail;
    pl__ptau_first_challenge(c, power, hash);
    pl__cer_line_hash(&run, "First Contribution Hash:", hash);
fail:
    pl__output_abort(&out);
    pl__cer_free(&run, buf, buf_bytes);
    pl__cer_run_end(&run);
    return st;
}

/* ---- contribute and beacon ----------------------------------------------------- */

/* snarkjs's pieces of the response hash: 2^20 bytes of input points */
static size_t response_chunk(const pl__cer_group *g)
{
    return ((size_t)1 << 20) / g->aff_bytes;
}

/* The points of one chunk multiplied over the pool. */
typedef struct {
    const pl__cer_group *g;
    uint8_t *out;
    const uint8_t *in;
    const pl__cer_fr *s;
    uint8_t *scratch;      /* per worker */
    size_t scratch_bytes, piece;
    bool secret;           /* a contribution's secret (not a beacon's) */
} mul_job;

static void mul_piece(void *ctx, size_t first, size_t count, unsigned worker)
{
    const mul_job *j = ctx;
    const size_t b = j->g->aff_bytes;
    j->g->mul_batch(j->out + first * b, j->in + first * b, j->s + first, 1,
                    count, j->secret, j->scratch + worker * j->scratch_bytes);
}

/* The buffers of contribute: one chunk's scalars, output points,
 * compressed points, per-worker scratch; one allocation. */
typedef struct {
    uint8_t *block;
    uint64_t bytes;
    pl__cer_fr *s;
    uint8_t *pts, *comp, *scratch;
    size_t scratch_bytes, piece;
} contrib_bufs;

/* points per task (their multiplications run in step) */
#define PIECE 256u
#define MIN_PIECE 16u

/* The bytes of the buffers with pieces of `piece` points per task. */
static uint64_t bufs_bytes(const pl__cer_run *run, size_t piece,
                           size_t *s_bytes, size_t *chunk, size_t *comp,
                           size_t *scratch)
{
    const pl__cer_curve *c = run->curve;
    *chunk = *comp = *scratch = 0;
    for (unsigned gi = 0; gi < 2; gi++) {
        const pl__cer_group *g = &c->g[gi];
        size_t k = response_chunk(g);
        if (k * g->aff_bytes > *chunk)
            *chunk = k * g->aff_bytes;
        if (k * g->coord_bytes > *comp)
            *comp = k * g->coord_bytes;
        if (g->mul_scratch_bytes(piece) > *scratch)
            *scratch = g->mul_scratch_bytes(piece);
    }
    *scratch = (*scratch + 63) & ~(size_t)63;
    const size_t k1 = response_chunk(&c->g[0]);
    *s_bytes = ((k1 * sizeof(pl__cer_fr)) + 63) & ~(size_t)63;
    return *s_bytes + *chunk + *comp + (uint64_t)*scratch * run->threads;
}

static pl_status bufs_alloc(pl__cer_run *run, contrib_bufs *b, pl_error *err)
{
    size_t s_bytes, chunk, comp, scratch, piece = PIECE;
    /* pieces as large as the budget allows (a piece's multiplications share
     * their inversions), down to MIN_PIECE */
    while (piece > MIN_PIECE &&
           bufs_bytes(run, piece, &s_bytes, &chunk, &comp, &scratch) >
               pl__cer_room(run))
        piece /= 2;
    b->bytes = bufs_bytes(run, piece, &s_bytes, &chunk, &comp, &scratch);
    b->piece = piece;
    b->scratch_bytes = scratch;
    pl_status st = pl__cer_alloc(run, &b->block, PL_BUF_PARAMS, b->bytes,
                                 "a chunk of points and its scratch", err);
    if (st)
        return st;
    b->s = (pl__cer_fr *)b->block;
    b->pts = b->block + s_bytes;
    b->comp = b->pts + chunk;
    b->scratch = b->comp + comp;
    return PL_OK;
}

typedef struct {
    pl__cer_run *run;
    const pl__ptau *in;
    pl__output *out;
    pl__container_writer *w;
    contrib_bufs *b;
    pl__blake2b *response;
    uint64_t start[7];                 /* payload offsets in the output */
    bool secret;                       /* the scalars are secret (not a beacon) */
} contrib_ctx;

/* Section id: point i times first * inc^i, written and hashed compressed;
 * the first two new points into first2. */
static pl_status apply_section(contrib_ctx *x, unsigned id,
                               const pl__cer_fr *first, const pl__cer_fr *inc,
                               uint8_t *first2, pl_error *err)
{
    const pl__cer_curve *c = x->run->curve;
    const pl__cer_group *g = pl__ptau_section_group(c, id);
    const uint64_t n = pl__ptau_section_points(id, x->in->power);
    const size_t chunk = response_chunk(g);
    contrib_bufs *b = x->b;
    pl__cer_fr t = *first;
    pl__container_section_begin(x->w, id, n * g->aff_bytes, err);
    x->start[id - 2 + 0] = x->w->start;
    for (uint64_t i = 0; i < n && x->w->status == PL_OK; i += chunk) {
        const size_t k = n - i < chunk ? (size_t)(n - i) : chunk;
        for (size_t j = 0; j < k; j++) {
            b->s[j] = t;
            c->fr_mul(&t, &t, inc);
        }
        mul_job job = {g,          b->pts,           pl__ptau_point(x->in, id, i),
                       b->s,       b->scratch,       b->scratch_bytes,
                       b->piece,   x->secret};
        pl__cer_parallel(x->run, k, b->piece, mul_piece, &job);
        pl__container_put(x->w, b->pts, k * g->aff_bytes, err);
        for (size_t j = 0; j < k; j++)
            g->to_c(b->comp + j * g->coord_bytes, b->pts + j * g->aff_bytes);
        pl__blake2b_update(x->response, b->comp, k * g->coord_bytes);
        if (i == 0)
            memcpy(first2, b->pts, (k < 2 ? k : 2) * g->aff_bytes);
        char what[64];
        snprintf(what, sizeof(what), "%s", pl__ptau_section_name(id));
        pl__cer_progress(x->run, what, i + k, n);
    }
    return pl__container_section_end(x->w, err);
}

/* The next challenge: the response hash, then sections 2-6 as written,
 * uncompressed (snarkjs's hashSection reads them back from its file). */
static pl_status next_challenge(contrib_ctx *x,
                                const uint8_t response[PL__CER_HASH],
                                uint8_t out[PL__CER_HASH], pl_error *err)
{
    const pl__cer_curve *c = x->run->curve;
    contrib_bufs *b = x->b;
    pl__blake2b h;
    pl_status st = PL_OK;
    pl__blake2b_init(&h);
    pl__blake2b_update(&h, response, PL__CER_HASH);
    for (unsigned id = 2; id <= 6; id++) {
        const pl__cer_group *g = pl__ptau_section_group(c, id);
        const uint64_t n = pl__ptau_section_points(id, x->in->power);
        /* the compressed buffer holds half a chunk's uncompressed points */
        const size_t chunk = response_chunk(g) / 2;
        for (uint64_t i = 0; i < n; i += chunk) {
            const size_t k = n - i < chunk ? (size_t)(n - i) : chunk;
            if ((st = pl__cer_output_read(x->out,
                                          x->start[id - 2] + i * g->aff_bytes,
                                          b->pts, k * g->aff_bytes, err)))
                return st;
            for (size_t j = 0; j < k; j++)
                g->to_u(b->comp + j * g->aff_bytes, b->pts + j * g->aff_bytes);
            pl__blake2b_update(&h, b->comp, k * g->aff_bytes);
            pl__cer_progress(x->run, "hashing the new challenge", i + k, n);
        }
    }
    pl__blake2b_final(&h, out);
    return st;
}

static pl_status ptau_contribute(const char *step, const char *in_path,
                                 const char *out_path, const pl__cer_kind *kind,
                                 const pl_ceremony_config *cfg, pl_error *err)
{
    pl__cer_run run;
    pl__ptau in;
    pl__output out;
    pl__container_writer w;
    contrib_bufs b;
    pl__ptau_key key;
    pl__ptau_contrib *all = NULL;
    pl__chacha rng;
    memset(&in, 0, sizeof(in));
    memset(&out, 0, sizeof(out));
    memset(&b, 0, sizeof(b));
    memset(&key, 0, sizeof(key));
    const char *const ins[] = {in_path};
    pl_status st = pl__cer_run_begin_io(&run, step, cfg, out_path, ins, 1, err);
    if (st || (st = pl__ptau_open(&in, in_path, err)))
        goto fail;
    run.curve = in.curve;
    const pl__cer_curve *c = in.curve;
    if (in.power != in.ceremony_power) {
        st = pl__error_set(err, PL_EUSAGE, "%s: this file has been reduced "
                           "(power %u of a ceremony of power %u): a "
                           "contribution goes into the full file", in_path,
                           in.power, in.ceremony_power);
        goto fail;
    }
    if (in.prepared)
        pl__cer_line(&run, "WARNING: contributing into a file that has phase2 "
                     "calculated; it will have to be prepared again");
    uint8_t challenge[PL__CER_HASH];
    if (in.n_contribs)
        memcpy(challenge, in.contribs[in.n_contribs - 1].next_challenge,
               PL__CER_HASH);
    else
        pl__ptau_first_challenge(c, in.power, challenge);

    if ((st = pl__cer_kind_stream(&run, kind, &rng, err)))
        goto fail;
    pl__ptau_key_create(c, &key, challenge, &rng);
    memset(&rng, 0, sizeof(rng));

    all = calloc(in.n_contribs + 1, sizeof(*all));
    if (!all) {
        st = pl__error_set(err, PL_ENOMEM, "%s: contribution records",
                           in_path);
        goto fail;
    }
    memcpy(all, in.contribs, in.n_contribs * sizeof(*all));
    pl__ptau_contrib *cur = &all[in.n_contribs];

    if ((st = bufs_alloc(&run, &b, err)) ||
        (st = pl__output_open(&out, out_path, err)) ||
        (st = pl__container_write_begin(&w, &out, "ptau", PTAU_VERSION, 7,
                                        err)) ||
        (st = pl__ptau_write_header(&w, c, in.power, in.power, err)))
        goto fail;

    pl__blake2b response;
    pl__blake2b_init(&response);
    pl__blake2b_update(&response, challenge, PL__CER_HASH);
    contrib_ctx x = {&run, &in, &out, &w, &b, &response, {0}, !kind->beacon};
    uint8_t first2[2 * PL__CER_G2_MAX];
    pl__cer_fr one;
    c->fr_from_u64(&one, 1);
    const pl__cer_fr *tau = &key.prv[0];
    const size_t b1 = c->g[0].aff_bytes, b2 = c->g[1].aff_bytes;
    if ((st = apply_section(&x, 2, &one, tau, first2, err)))
        goto fail;
    memcpy(cur->tau_g1, first2 + b1, b1);
    if ((st = apply_section(&x, 3, &one, tau, first2, err)))
        goto fail;
    memcpy(cur->tau_g2, first2 + b2, b2);
    if ((st = apply_section(&x, 4, &key.prv[1], tau, first2, err)))
        goto fail;
    memcpy(cur->alpha_g1, first2, b1);
    if ((st = apply_section(&x, 5, &key.prv[2], tau, first2, err)))
        goto fail;
    memcpy(cur->beta_g1, first2, b1);
    if ((st = apply_section(&x, 6, &key.prv[2], tau, first2, err)))
        goto fail;
    memcpy(cur->beta_g2, first2, b2);

    for (unsigned k = 0; k < 3; k++) {
        memcpy(cur->g1_s[k], key.g1_s[k], b1);
        memcpy(cur->g1_sx[k], key.g1_sx[k], b1);
        memcpy(cur->g2_spx[k], key.g2_spx[k], b2);
    }
    pl__blake2b_export(cur->partial, &response);
    uint8_t u[6 * PL__CER_G1_MAX + 3 * PL__CER_G2_MAX], hash[PL__CER_HASH];
    pl__blake2b_update(&response, u, pl__ptau_pubkey_u(c, u, key.g1_s,
                                                       key.g1_sx, key.g2_spx));
    pl__blake2b_final(&response, hash);
    pl__cer_line_hash(&run, "Contribution Response Hash imported: ", hash);
    if ((st = next_challenge(&x, hash, cur->next_challenge, err)))
        goto fail;
    pl__cer_line_hash(&run, "Next Challenge Hash: ", cur->next_challenge);

    pl__cer_kind_params(kind, &cur->p);
    if ((st = pl__ptau_write_contribs(&w, c, all, in.n_contribs + 1, err)) ||
        (st = pl__container_write_end(&w, err)) ||
        (st = pl__output_commit(&out, err)))
        goto fail;
fail:
    memset(&key, 0, sizeof(key));
    pl__output_abort(&out);
    pl__cer_free(&run, b.block, b.bytes);
    free(all);
    pl__ptau_close(&in);
    pl__cer_run_end(&run);
    return st;
}

pl_status pl_ptau_contribute(const char *in_path, const char *out_path,
                             const char *name, const char *entropy,
                             const pl_ceremony_config *cfg, pl_error *err)
{
    pl__cer_kind kind;
    pl_status st = pl__cer_kind_contribution(&kind, "ptau contribute", name,
                                             entropy, err);
    return st ? st
              : ptau_contribute("ptau contribute", in_path, out_path, &kind,
                                cfg, err);
}

pl_status pl_ptau_beacon(const char *in_path, const char *out_path,
                         const char *name, const char *beacon_hex,
                         unsigned iter_exp, const pl_ceremony_config *cfg,
                         pl_error *err)
{
    pl__cer_kind kind;
    pl_status st = pl__cer_kind_beacon(&kind, "ptau beacon", name, beacon_hex,
                                       iter_exp, err);
    return st ? st
              : ptau_contribute("ptau beacon", in_path, out_path, &kind, cfg,
                                err);
}
