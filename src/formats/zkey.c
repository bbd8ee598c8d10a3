/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Groth16 .zkey reader: maps the file, validates everything the prover
 * relies on, and points the fields of struct pl_zkey into the map.  After a
 * successful pl_zkey_open the counts can be trusted: every section holds
 * exactly the points its counts say, every coefficient record names a matrix
 * A or B, a constraint inside the domain, a signal inside the witness and a
 * value below r.  Sizes are compared with the file before anything
 * proportional to a count is done, so a lying header is an error, never an
 * allocation or a long loop.
 *
 * Opening does not check that points are on their curves or in their
 * subgroups: that costs about as much as a prove, and snarkjs wrote them.
 * pl_zkey_check_points does, on request (`proofline prove --check-params`),
 * through the point checker bellperson's files use (point_check.c).
 * The curve (BLS12-381 or BN254) is the header's primes': it sets the
 * header's layout and the points' sizes (pl_zkey.curve, g1_bytes).
 * PLONK and FFLONK zkeys and zkeys for other curves are refused with
 * PL_EUNSUPPORTED.  pl__zkey_parse reads the same from memory (fuzzers).
 *
 * The writer is here too, so that the layout is known in one place: the
 * header (sections 1, 2) from the same offsets, sections 3..9 sized by the
 * table the reader checks them with (pl__zkey_section_shape), the
 * coefficient records and the contributions section.  The dev setup
 * (setup/dev_setup.c) writes its keys with it.
 */
#include "formats/formats.h"
#include "formats/point_check.h"
#include "field/field.h"
#include "field/bn254/fp.h"
#include "field/bn254/serial.h"
#include "util/alloc.h"
#include "util/error.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZKEY_VERSION 1u
#define PROTOCOL_GROTH16 1u
#define PROTOCOL_PLONK 2u
#define PROTOCOL_FFLONK 10u
/* 2^28 points of H alone are 24 GiB: beyond that a prove does not fit the
 * machines we target, and snarkjs's ptau files stop at 2^28. */
#define MAX_LOG2_DOMAIN 28u

/* The same offsets for any n8q (the reader: 48 on BLS12-381, 32 on BN254;
 * n8r is 32 on both): n8q, q, n8r, r, nVars, nPublic, domainSize, then
 * alpha1 beta1 (G1) beta2 gamma2 (G2) delta1 (G1) delta2 (G2). */
typedef struct {
    uint32_t n_vars, n_public, domain, alpha1, beta1, beta2, gamma2, delta1,
        delta2, bytes;
} header_layout;

static header_layout layout_of(uint32_t n8q)
{
    header_layout l;
    uint32_t g1 = 2 * n8q, g2 = 4 * n8q;
    l.n_vars = 4 + n8q + 4 + PL__FR_BYTES;
    l.n_public = l.n_vars + 4;
    l.domain = l.n_public + 4;
    l.alpha1 = l.domain + 4;
    l.beta1 = l.alpha1 + g1;
    l.beta2 = l.beta1 + g1;
    l.gamma2 = l.beta2 + g2;
    l.delta1 = l.gamma2 + g2;
    l.delta2 = l.delta1 + g1;
    l.bytes = l.delta2 + g2;
    return l;
}

static const char *const section_names[] = {
    "", "header", "groth16 header", "IC points", "coefficients",
    "A points", "B1 points", "B2 points", "C points", "H points",
    "contributions"};

static pl_status need_section(const pl_zkey *z, const pl__container *c,
                              unsigned id, pl_error *err)
{
    if (c->offset[id] != 0)
        return PL_OK;
    return pl__error_set(err, PL_EFORMAT, "%s: section %u (%s) is missing",
                         z->path, id, section_names[id]);
}

/* A section must hold its shape's fixed bytes then exactly count items of
 * unit bytes.  count < 2^33 and unit <= 192, so the product cannot wrap. */
static pl_status need_size(const pl_zkey *z, const pl__container *c,
                           unsigned id, const pl__section_shape *shape,
                           pl_error *err)
{
    pl_status st = need_section(z, c, id, err);
    if (st != PL_OK)
        return st;
    uint64_t want = shape->fixed + shape->count * shape->unit;
    if (c->size[id] == want)
        return PL_OK;
    return pl__error_set(err, PL_EFORMAT,
                         "%s: section %u (%s): size %" PRIu64 ", but %s%"
                         PRIu64 " %s of %" PRIu64 " bytes need %" PRIu64
                         " (at byte offset %" PRIu64 ")", z->path, id,
                         section_names[id], c->size[id],
                         shape->fixed ? "a 4-byte count and " : "",
                         shape->count, shape->what, shape->unit, want,
                         c->offset[id] - 12);
}

static pl_status read_protocol(const pl_zkey *z, const pl__container *c,
                               pl_error *err)
{
    pl_status st = need_section(z, c, 1, err);
    if (st != PL_OK)
        goto fail;
    if (c->size[1] < 4) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 1 (header): size %" PRIu64 " is too "
                           "small for the u32 protocol (at byte offset %"
                           PRIu64 ")", z->path, c->size[1], c->offset[1]);
        goto fail;
    }
    uint32_t protocol = pl__le32(z->map.data + c->offset[1]);
    if (protocol == PROTOCOL_PLONK || protocol == PROTOCOL_FFLONK) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: this is a%s %s zkey; proofline proves Groth16",
                           z->path, protocol == PROTOCOL_PLONK ? "" : "n",
                           protocol == PROTOCOL_PLONK ? "PLONK" : "FFLONK");
        goto fail;
    }
    if (protocol != PROTOCOL_GROTH16) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: section 1 (header): protocol %" PRIu32
                           " is not Groth16 (1) (at byte offset %" PRIu64 ")",
                           z->path, protocol, c->offset[1]);
        goto fail;
    }
fail:
    return st;
}

/* Section 2: the primes first (so that a BN254 zkey is named as such rather
 * than reported as a size mismatch), then the exact size, then the counts. */
static pl_status read_header(pl_zkey *z, const pl__container *c,
                             pl_error *err)
{
    pl_status st = need_section(z, c, 2, err);
    if (st != PL_OK)
        goto fail;
    const uint8_t *p = z->map.data + c->offset[2];
    uint64_t at = c->offset[2], size = c->size[2];
    if (size < 4) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): size %" PRIu64
                           " is too small for n8q (at byte offset %" PRIu64
                           ")", z->path, size, at);
        goto fail;
    }
    uint32_t n8q = pl__le32(p);
    pl__curve q_curve, r_curve;
    st = pl__file_curve(z->path, "section 2 (groth16 header): q", "zkey",
                        false, n8q, p + 4, size - 4, at + 4, &q_curve, err);
    if (st != PL_OK)
        goto fail;
    /* n8q is 48 or 32 now, so these sums cannot wrap. */
    const uint32_t r_at = 4 + n8q;
    if (size < r_at + 4) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): size %" PRIu64
                           " ends before n8r (at byte offset %" PRIu64 ")",
                           z->path, size, at + r_at);
        goto fail;
    }
    uint32_t n8r = pl__le32(p + r_at);
    st = pl__file_curve(z->path, "section 2 (groth16 header): r", "zkey",
                        true, n8r, p + r_at + 4, size - r_at - 4,
                        at + r_at + 4, &r_curve, err);
    if (st != PL_OK)
        goto fail;
    if (q_curve != r_curve) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): q is %s's but r "
                           "is %s's (at byte offset %" PRIu64 ")", z->path,
                           pl__curve_name(q_curve), pl__curve_name(r_curve),
                           at + r_at + 4);
        goto fail;
    }
    z->curve = q_curve;
    z->g1_bytes = 2 * n8q;
    z->g2_bytes = 4 * n8q;
    const header_layout l = layout_of(n8q);
    if (size != l.bytes) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): size %" PRIu64
                           ", but a %s groth16 header is %u bytes (at byte "
                           "offset %" PRIu64 ")", z->path, size,
                           pl__curve_name(z->curve), l.bytes, at);
        goto fail;
    }
    z->n_vars = pl__le32(p + l.n_vars);
    z->n_public = pl__le32(p + l.n_public);
    z->domain_size = pl__le32(p + l.domain);
    if (z->domain_size == 0 || (z->domain_size & (z->domain_size - 1)) != 0) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): domainSize %"
                           PRIu32 " is not a power of two (at byte offset %"
                           PRIu64 ")", z->path, z->domain_size,
                           at + l.domain);
        goto fail;
    }
    if (z->domain_size > (1u << MAX_LOG2_DOMAIN)) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: section 2 (groth16 header): domainSize %"
                           PRIu32 " is above the largest supported, 2^%u (at "
                           "byte offset %" PRIu64 ")", z->path,
                           z->domain_size, MAX_LOG2_DOMAIN, at + l.domain);
        goto fail;
    }
    z->log2_domain = 0;
    while ((1u << z->log2_domain) < z->domain_size)
        z->log2_domain++;
    if ((uint64_t)z->n_public + 1 > z->n_vars) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): nPublic %" PRIu32
                           " + 1 exceeds nVars %" PRIu32 " (at byte offset %"
                           PRIu64 ")", z->path, z->n_public, z->n_vars,
                           at + l.n_public);
        goto fail;
    }
    z->alpha1 = p + l.alpha1;
    z->beta1 = p + l.beta1;
    z->beta2 = p + l.beta2;
    z->gamma2 = p + l.gamma2;
    z->delta1 = p + l.delta1;
    z->delta2 = p + l.delta2;
fail:
    return st;
}

void pl__zkey_section_shape(pl__section_shape *out, unsigned id,
                            uint32_t n_vars, uint32_t n_public,
                            uint32_t domain_size, uint32_t n_coefs)
{
    pl__zkey_section_shape_curve(out, PL__CURVE_BLS12_381, id, n_vars,
                                 n_public, domain_size, n_coefs);
}

void pl__zkey_section_shape_curve(pl__section_shape *out, pl__curve curve,
                                  unsigned id, uint32_t n_vars,
                                  uint32_t n_public, uint32_t domain_size,
                                  uint32_t n_coefs)
{
    /* points in units of the curve's G1 point (a G2 point is two) */
    static const struct {
        uint64_t fixed, g1s, record;
        const char *what;
    } shapes[10] = {
        [3] = {0, 1, 0, "G1 points"},
        [4] = {4, 0, PL__COEF_RECORD_BYTES, "records"},
        [5] = {0, 1, 0, "G1 points"},
        [6] = {0, 1, 0, "G1 points"},
        [7] = {0, 2, 0, "G2 points"},
        [8] = {0, 1, 0, "G1 points"},
        [9] = {0, 1, 0, "G1 points"},
    };
    const uint64_t g1 = curve == PL__CURVE_BN254 ? 64 : PL__G1_BYTES;
    const uint64_t counts[10] = {
        [3] = (uint64_t)n_public + 1, [4] = n_coefs,
        [5] = n_vars, [6] = n_vars, [7] = n_vars,
        [8] = (uint64_t)n_vars - n_public - 1, [9] = domain_size,
    };
    assert(id >= 3 && id <= 9 && (uint64_t)n_public + 1 <= n_vars);
    out->fixed = shapes[id].fixed;
    out->count = counts[id];
    out->unit = shapes[id].g1s ? shapes[id].g1s * g1 : shapes[id].record;
    out->what = shapes[id].what;
}

/* Sections 3..9 against the header's counts.  Sections have been checked
 * to lie inside the file, so once these sizes match, the counts are bounded
 * by the file size. */
static pl_status check_sizes(pl_zkey *z, const pl__container *c, pl_error *err)
{
    const uint8_t *d = z->map.data;
    pl_status st;
    for (unsigned id = 3; id <= 9; id++) {
        pl__section_shape shape;
        if (id == 4) { /* its count is its first field */
            if ((st = need_section(z, c, 4, err)) != PL_OK)
                goto fail;
            if (c->size[4] < 4) {
                st = pl__error_set(err, PL_EFORMAT,
                                   "%s: section 4 (coefficients): size %"
                                   PRIu64 " is too small for nCoef (at byte "
                                   "offset %" PRIu64 ")", z->path, c->size[4],
                                   c->offset[4]);
                goto fail;
            }
            z->n_coefs = pl__le32(d + c->offset[4]);
        }
        pl__zkey_section_shape_curve(&shape, z->curve, id, z->n_vars,
                                     z->n_public, z->domain_size, z->n_coefs);
        if ((st = need_size(z, c, id, &shape, err)) != PL_OK)
            goto fail;
    }
    z->ic = d + c->offset[3];
    z->coefs = d + c->offset[4] + 4;
    z->a = d + c->offset[5];
    z->b1 = d + c->offset[6];
    z->b2 = d + c->offset[7];
    z->c = d + c->offset[8];
    z->h = d + c->offset[9];
fail:
    return st;
}

/* One pass over the coefficient records: each must be usable by the prover
 * as an index into its arrays.  The number of constraints is not stored in
 * a zkey; it follows from the input-consistency rows, which snarkjs appends
 * after the circuit's records as {A, nConstraints + s, s, 1}, s = 0..nPublic,
 * and which are checked here to be where the prover expects them. */
static pl_status walk_coefs(pl_zkey *z, const pl__container *c, pl_error *err)
{
    pl_status st = PL_OK;
    const uint64_t base = c->offset[4] + 4;
    const uint64_t n_in = (uint64_t)z->n_public + 1;
    uint32_t max_constraint = 0;
    pl__zkey_coef_iter it;
    pl__zkey_coef rec;
    for (pl__zkey_coef_iter_init(&it, z); pl__zkey_coef_next(&it, &rec);) {
        const uint32_t i = rec.index, matrix = rec.matrix;
        const uint32_t constraint = rec.constraint, signal = rec.signal;
        uint64_t at = base + (uint64_t)i * PL__COEF_RECORD_BYTES;
        if (matrix > 1) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section 4 (coefficients): record %" PRIu32
                               ": matrix %" PRIu32 " is neither 0 (A) nor 1 "
                               "(B) (at byte offset %" PRIu64 ")", z->path, i,
                               matrix, at);
            goto fail;
        }
        if (constraint >= z->domain_size) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section 4 (coefficients): record %" PRIu32
                               ": constraint %" PRIu32 " is not below "
                               "domainSize %" PRIu32 " (at byte offset %"
                               PRIu64 ")", z->path, i, constraint,
                               z->domain_size, at + 4);
            goto fail;
        }
        if (signal >= z->n_vars) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section 4 (coefficients): record %" PRIu32
                               ": signal %" PRIu32 " is not below nVars %"
                               PRIu32 " (at byte offset %" PRIu64 ")",
                               z->path, i, signal, z->n_vars, at + 8);
            goto fail;
        }
        if (!pl__scalar_below_r(z->curve, rec.value)) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section 4 (coefficients): record %" PRIu32
                               ": value is not below r (at byte offset %"
                               PRIu64 ")", z->path, i, at + 12);
            goto fail;
        }
        if (constraint > max_constraint)
            max_constraint = constraint;
    }
    if (z->n_coefs < n_in || (uint64_t)max_constraint + 1 < n_in) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 4 (coefficients): %" PRIu32
                           " records, largest constraint %" PRIu32 ", cannot "
                           "hold the %" PRIu64 " input-consistency rows (at "
                           "byte offset %" PRIu64 ")", z->path, z->n_coefs,
                           max_constraint, n_in, base - 4);
        goto fail;
    }
    z->n_constraints = (uint32_t)((uint64_t)max_constraint + 1 - n_in);
    /* Every constraint index is below domainSize, so nConstraints + nPublic
     * + 1 <= domainSize holds here: the domain can hold the rows. */
    for (uint64_t s = 0; s < n_in; s++) {
        uint32_t i = (uint32_t)(z->n_coefs - n_in + s);
        pl__zkey_coef_at(&rec, z, i);
        const uint32_t matrix = rec.matrix, constraint = rec.constraint;
        const uint32_t signal = rec.signal;
        if (matrix != 0 || constraint != z->n_constraints + s || signal != s) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section 4 (coefficients): record %" PRIu32
                               " is {matrix %" PRIu32 ", constraint %" PRIu32
                               ", signal %" PRIu32 "}, but the input rows "
                               "end the section as {0, %" PRIu64 ", %" PRIu64
                               "} (at byte offset %" PRIu64 ")", z->path, i,
                               matrix, constraint, signal,
                               z->n_constraints + s, s,
                               base + (uint64_t)i * PL__COEF_RECORD_BYTES);
            goto fail;
        }
    }
fail:
    return st;
}

/* Validates the file already in z->map (mapped, or the caller's bytes). */
static pl_status parse_map(pl_zkey *z, pl_error *err)
{
    pl_status st;
    pl__container c;
    if ((st = pl__container_parse(&c, &z->map, z->path, "zkey", err)) != PL_OK)
        return st;
    if (c.version != ZKEY_VERSION)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "%s: zkey version %" PRIu32 ", but proofline "
                             "reads version %u (at byte offset 4)", z->path,
                             c.version, ZKEY_VERSION);
    if ((st = read_protocol(z, &c, err)) != PL_OK ||
        (st = read_header(z, &c, err)) != PL_OK ||
        (st = check_sizes(z, &c, err)) != PL_OK ||
        (st = walk_coefs(z, &c, err)) != PL_OK)
        return st;
    return PL_OK;
}

/* A key from a file: mapped, or (heap) read into class params after a
 * check that it is at most max_bytes. */
static pl_status zkey_from_file(pl_zkey **out, const char *path, bool heap,
                                uint64_t max_bytes, pl_error *err)
{
    pl_status st;
    pl_zkey *z = calloc(1, sizeof(*z));
    *out = NULL;
    if (!z || !(z->path = pl__path_dup(path))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    z->heap = heap;
    st = heap ? pl__file_load(&z->map, path, PL_BUF_PARAMS, max_bytes, err)
              : pl__file_map(&z->map, path, err);
    if (st != PL_OK || (st = parse_map(z, err)) != PL_OK)
        goto fail;
    *out = z;
    return PL_OK;

fail:
    pl_zkey_close(z);
    return st;
}

pl_status pl_zkey_open(pl_zkey **out, const char *path, pl_error *err)
{
    return zkey_from_file(out, path, false, 0, err);
}

pl_status pl__zkey_load(pl_zkey **out, const char *path, uint64_t max_bytes,
                        pl_error *err)
{
    return zkey_from_file(out, path, true, max_bytes, err);
}

pl_status pl__zkey_parse(pl_zkey **out, const uint8_t *data, size_t len,
                         const char *name, pl_error *err)
{
    pl_status st;
    pl_zkey *z = calloc(1, sizeof(*z));
    *out = NULL;
    if (!z || !(z->path = pl__path_dup(name))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", name);
        goto fail;
    }
    z->borrowed = true;
    z->map.data = data;
    z->map.size = len;
    if ((st = parse_map(z, err)) != PL_OK)
        goto fail;
    *out = z;
    return PL_OK;

fail:
    pl_zkey_close(z);
    return st;
}

void pl_zkey_close(pl_zkey *zkey)
{
    if (!zkey)
        return;
    if (zkey->heap)
        pl__free((void *)zkey->map.data);
    else if (!zkey->borrowed)
        pl__file_unmap(&zkey->map);
    free(zkey->path);
    free(zkey);
}

/* ---- writing (the dev setup) ------------------------------------------- */

pl_status pl__zkey_write_header(pl__container_writer *w, pl__output *out,
                                const pl__zkey_header *h, pl_error *err)
{
    const bool bn = h->curve == PL__CURVE_BN254;
    const uint32_t n8q = bn ? 32u : PL__FP_BYTES;
    const uint32_t g1 = 2 * n8q, g2 = 4 * n8q;
    const header_layout l = layout_of(n8q);
    uint8_t hdr[964]; /* BLS12-381's, the larger */
    assert(l.bytes <= sizeof(hdr));
    pl__put_le32(hdr, n8q);
    memcpy(hdr + 4, bn ? pl__bn254_p_le : pl__fp_modulus_le, n8q);
    pl__put_le32(hdr + 4 + n8q, PL__FR_BYTES);
    memcpy(hdr + 8 + n8q, bn ? pl__bn254_r_le : pl__fr_modulus_le,
           PL__FR_BYTES);
    pl__put_le32(hdr + l.n_vars, h->n_vars);
    pl__put_le32(hdr + l.n_public, h->n_public);
    pl__put_le32(hdr + l.domain, h->domain_size);
    memcpy(hdr + l.alpha1, h->alpha1, g1);
    memcpy(hdr + l.beta1, h->beta1, g1);
    memcpy(hdr + l.beta2, h->beta2, g2);
    memcpy(hdr + l.gamma2, h->gamma2, g2);
    memcpy(hdr + l.delta1, h->delta1, g1);
    memcpy(hdr + l.delta2, h->delta2, g2);
    pl__container_write_begin(w, out, "zkey", ZKEY_VERSION, PL__ZKEY_SECTIONS,
                              err);
    pl__container_section_begin(w, 1, 4, err);
    pl__container_put_u32(w, PROTOCOL_GROTH16, err);
    pl__container_section_end(w, err);
    pl__container_section_begin(w, 2, l.bytes, err);
    pl__container_put(w, hdr, l.bytes, err);
    return pl__container_section_end(w, err); /* the first error, if any */
}

pl_status pl__zkey_section_begin(pl__container_writer *w, unsigned id,
                                 const pl__zkey_header *h, pl_error *err)
{
    pl__section_shape shape;
    pl__zkey_section_shape_curve(&shape, h->curve, id, h->n_vars, h->n_public,
                                 h->domain_size, h->n_coefs);
    pl__container_section_begin(w, id, shape.fixed + shape.count * shape.unit,
                                err);
    if (id == 4)
        pl__container_put_u32(w, h->n_coefs, err);
    return w->status;
}

void pl__zkey_coef_encode(uint8_t rec[PL__COEF_RECORD_BYTES], uint32_t matrix,
                          uint32_t constraint, uint32_t signal,
                          const uint8_t value[PL__FR_BYTES])
{
    pl__put_le32(rec, matrix);
    pl__put_le32(rec + 4, constraint);
    pl__put_le32(rec + 8, signal);
    memcpy(rec + 12, value, PL__FR_BYTES);
}

pl_status pl__zkey_write_contributions(pl__container_writer *w,
                                       const pl__zkey_contribution *c,
                                       pl_error *err)
{
    static const uint8_t zero_hash[PL__ZKEY_HASH_BYTES];
    const uint64_t g1 = c->curve == PL__CURVE_BN254 ? 64 : PL__G1_BYTES;
    size_t name_len = strlen(c->name);
    if (name_len > PL__ZKEY_NAME_MAX)
        return pl__error_set(err, PL_EINTERNAL, "%s: section 10 "
                             "(contributions): a name of %zu bytes, snarkjs "
                             "keeps %u", w->out->path, name_len,
                             PL__ZKEY_NAME_MAX);
    /* csHash, n, then the record: deltaAfter, g1_s, g1_sx, g2_spx,
     * transcript, type, paramsLength, params (id 1 = name, length, name) */
    uint32_t params = 2 + (uint32_t)name_len;
    uint64_t size = PL__ZKEY_HASH_BYTES + 4 + 5 * g1 +
                    PL__ZKEY_HASH_BYTES + 4 + 4 + params;
    uint8_t param_head[2] = {1, (uint8_t)name_len};
    pl__container_section_begin(w, 10, size, err);
    pl__container_put(w, c->cs_hash ? c->cs_hash : zero_hash,
                      PL__ZKEY_HASH_BYTES, err);
    pl__container_put_u32(w, 1, err);
    pl__container_put(w, c->delta_after, g1, err);
    pl__container_put(w, c->g1_s, g1, err);
    pl__container_put(w, c->g1_sx, g1, err);
    pl__container_put(w, c->g2_spx, 2 * g1, err);
    pl__container_put(w, c->transcript, PL__ZKEY_HASH_BYTES, err);
    pl__container_put_u32(w, c->type, err);
    pl__container_put_u32(w, params, err);
    pl__container_put(w, param_head, sizeof(param_head), err);
    pl__container_put(w, c->name, name_len, err);
    return pl__container_section_end(w, err);
}

/* ---- the parameter check (pl_zkey_check_points) ----------------------- */

/* The point checker's decoders (formats/point_check.h; ctx: a bool, the
 * point at infinity allowed): why a point is unusable, or NULL.
 * Coordinates must be reduced mod q (the Montgomery form of a value below
 * q), then on the curve; the subgroup is the checker's.  All-zero bytes
 * are the point at infinity. */
static const char *g1_decode(void *out, const uint8_t *bytes,
                             const void *ctx)
{
    blst_p1_affine *p = out;
    memcpy(p, bytes, sizeof(*p));
    if (blst_p1_affine_is_inf(p))
        return *(const bool *)ctx ? NULL : "is the point at infinity";
    for (unsigned i = 0; i < 2; i++)
        if (!pl__le_less(bytes + i * PL__FP_BYTES, pl__fp_modulus_le,
                         PL__FP_BYTES))
            return i ? "has y not below q" : "has x not below q";
    if (!blst_p1_affine_on_curve(p))
        return "is not on the curve";
    return NULL;
}

static const char *g2_decode(void *out, const uint8_t *bytes,
                             const void *ctx)
{
    static const char *const coord[4] = {
        "has x.c0 not below q", "has x.c1 not below q",
        "has y.c0 not below q", "has y.c1 not below q"};
    blst_p2_affine *p = out;
    memcpy(p, bytes, sizeof(*p));
    if (blst_p2_affine_is_inf(p))
        return *(const bool *)ctx ? NULL : "is the point at infinity";
    for (unsigned i = 0; i < 4; i++)
        if (!pl__le_less(bytes + i * PL__FP_BYTES, pl__fp_modulus_le,
                         PL__FP_BYTES))
            return coord[i];
    if (!blst_p2_affine_on_curve(p))
        return "is not on the curve";
    return NULL;
}

/* The same on BN254 (serial.h's decoding checks the coordinates; G1's
 * cofactor is 1, so on the curve is in the group: the checker does no
 * more for it). */
static const char *bn254_g1_decode(void *out, const uint8_t *bytes,
                                   const void *ctx)
{
    pl__bn254_g1_affine *p = out;
    if (!pl__bn254_g1_from_bytes(p, bytes))
        return "has a coordinate not below q";
    if (pl__bn254_g1_affine_is_inf(p))
        return *(const bool *)ctx ? NULL : "is the point at infinity";
    if (!pl__bn254_g1_affine_on_curve(p, pl__bn254_arith_current()))
        return "is not on the curve";
    return NULL;
}

static const char *bn254_g2_decode(void *out, const uint8_t *bytes,
                                   const void *ctx)
{
    pl__bn254_g2_affine *p = out;
    if (!pl__bn254_g2_from_bytes(p, bytes))
        return "has a coordinate not below q";
    if (pl__bn254_g2_affine_is_inf(p))
        return *(const bool *)ctx ? NULL : "is the point at infinity";
    if (!pl__bn254_g2_affine_on_curve(p, pl__bn254_arith_current()))
        return "is not on the curve";
    return NULL;
}

static const bool inf_allowed = true, inf_refused = false;

/* A section of the zkey's points for the checker. */
static pl__pc_section zkey_section(const pl_zkey *zkey, const char *name,
                                   const uint8_t *points, uint64_t count,
                                   bool g2, bool allow_inf)
{
    const bool bn = zkey->curve == PL__CURVE_BN254;
    pl__pc_section s = {
        .name = name,
        .group = bn ? (g2 ? PL__PC_BN254_G2 : PL__PC_BN254_G1)
                    : (g2 ? PL__PC_BLS12_381_G2 : PL__PC_BLS12_381_G1),
        .points = points,
        .count = count,
        .unit = g2 ? zkey->g2_bytes : zkey->g1_bytes,
        .at = (uint64_t)(points - zkey->map.data),
        .decode = bn ? (g2 ? bn254_g2_decode : bn254_g1_decode)
                     : (g2 ? g2_decode : g1_decode),
        .decode_ctx = allow_inf ? &inf_allowed : &inf_refused,
        .not_in_group = g2 ? "is not in the G2 subgroup"
                           : "is not in the G1 subgroup",
    };
    return s;
}

pl_status pl__zkey_check_points(const pl_zkey *zkey, pl__pool *pool,
                                const pl_check_config *cfg, bool alone,
                                pl_error *err)
{
    /* The setup's secrets times a generator are never infinity; points of
     * wires that a matrix never uses are (A, B1, B2), and IC, C, H may be.
     * The header's six are checked here one by one, the arrays by the
     * checker. */
    const struct {
        const char *name;
        const uint8_t *point;
        bool g2;
    } fixed[6] = {
        {"alpha_1", zkey->alpha1, false}, {"beta_1", zkey->beta1, false},
        {"delta_1", zkey->delta1, false}, {"beta_2", zkey->beta2, true},
        {"gamma_2", zkey->gamma2, true},  {"delta_2", zkey->delta2, true},
    };
    for (unsigned i = 0; i < 6; i++) {
        const pl__pc_section s = zkey_section(zkey, fixed[i].name,
                                              fixed[i].point, 1, fixed[i].g2,
                                              false);
        const char *bad = pl__point_check_one(s.group, s.decode,
                                              s.decode_ctx, s.points,
                                              s.not_in_group);
        if (bad)
            return pl__error_set(err, PL_EFORMAT,
                                 "%s: section 2 (groth16 header): %s %s (at "
                                 "byte offset %" PRIu64 ")", zkey->path,
                                 fixed[i].name, bad, s.at);
    }
    const struct {
        unsigned id;
        const uint8_t *points;
        uint64_t count;
        bool g2;
    } arrays[6] = {
        {3, zkey->ic, (uint64_t)zkey->n_public + 1, false},
        {5, zkey->a, zkey->n_vars, false},
        {6, zkey->b1, zkey->n_vars, false},
        {7, zkey->b2, zkey->n_vars, true},
        {8, zkey->c, (uint64_t)zkey->n_vars - zkey->n_public - 1, false},
        {9, zkey->h, zkey->domain_size, false},
    };
    char names[6][48];
    pl__pc_section sec[6];
    for (unsigned k = 0; k < 6; k++) {
        snprintf(names[k], sizeof(names[k]), "%u (%s)", arrays[k].id,
                 section_names[arrays[k].id]);
        sec[k] = zkey_section(zkey, names[k], arrays[k].points,
                              arrays[k].count, arrays[k].g2, true);
    }
    const pl__pc_job job = {
        .path = zkey->path,
        .sections = sec,
        .n_sections = 6,
        .pool = pool,
        .cfg = cfg,
        .alone = alone,
    };
    return pl__points_check(&job, err);
}

pl_status pl_zkey_check_points_with(const pl_zkey *zkey,
                                    const pl_check_config *cfg,
                                    pl_error *err)
{
    return pl__zkey_check_points(zkey, NULL, cfg, false, err);
}

pl_status pl_zkey_check_points(const pl_zkey *zkey, pl_error *err)
{
    return pl_zkey_check_points_with(zkey, NULL, err);
}

void pl_zkey_get_info(const pl_zkey *zkey, pl_zkey_info *out)
{
    out->n_vars = zkey->n_vars;
    out->n_public = zkey->n_public;
    out->domain_size = zkey->domain_size;
    out->n_coefs = zkey->n_coefs;
    out->n_constraints = zkey->n_constraints;
}

pl_curve pl_zkey_curve(const pl_zkey *zkey)
{
    return (pl_curve)zkey->curve;
}
