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
 * pl_zkey_check_points does, on request (`proofline prove --check-params`).
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
#include "field/field.h"
#include "util/alloc.h"
#include "util/error.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ZKEY_VERSION 1u
#define PROTOCOL_GROTH16 1u
#define PROTOCOL_PLONK 2u
#define PROTOCOL_FFLONK 10u
/* 2^28 points of H alone are 24 GiB: beyond that a prove does not fit the
 * machines we target, and snarkjs's ptau files stop at 2^28. */
#define MAX_LOG2_DOMAIN 28u

/* Section 2 (groth16 header) once n8q = 48 and n8r = 32 are known. */
#define HDR_NVARS 88u
#define HDR_NPUBLIC 92u
#define HDR_DOMAIN 96u
#define HDR_ALPHA1 100u
#define HDR_BETA1 (HDR_ALPHA1 + PL__G1_BYTES)
#define HDR_BETA2 (HDR_BETA1 + PL__G1_BYTES)
#define HDR_GAMMA2 (HDR_BETA2 + PL__G2_BYTES)
#define HDR_DELTA1 (HDR_GAMMA2 + PL__G2_BYTES)
#define HDR_DELTA2 (HDR_DELTA1 + PL__G1_BYTES)
#define HDR_BYTES (HDR_DELTA2 + PL__G2_BYTES) /* 964 */

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
    st = pl__check_prime(z->path, "section 2 (groth16 header): q", "zkey",
                         false, n8q, p + 4, size - 4, at + 4, err);
    if (st != PL_OK)
        goto fail;
    /* n8q = 48 now, so 52 + 4 bytes fit in a u64 comparison. */
    if (size < 56) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): size %" PRIu64
                           " ends before n8r (at byte offset %" PRIu64 ")",
                           z->path, size, at + 52);
        goto fail;
    }
    uint32_t n8r = pl__le32(p + 52);
    st = pl__check_prime(z->path, "section 2 (groth16 header): r", "zkey",
                         true, n8r, p + 56, size - 56, at + 56, err);
    if (st != PL_OK)
        goto fail;
    if (size != HDR_BYTES) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): size %" PRIu64
                           ", but a BLS12-381 groth16 header is %u bytes (at "
                           "byte offset %" PRIu64 ")", z->path, size,
                           HDR_BYTES, at);
        goto fail;
    }
    z->n_vars = pl__le32(p + HDR_NVARS);
    z->n_public = pl__le32(p + HDR_NPUBLIC);
    z->domain_size = pl__le32(p + HDR_DOMAIN);
    if (z->domain_size == 0 || (z->domain_size & (z->domain_size - 1)) != 0) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (groth16 header): domainSize %"
                           PRIu32 " is not a power of two (at byte offset %"
                           PRIu64 ")", z->path, z->domain_size,
                           at + HDR_DOMAIN);
        goto fail;
    }
    if (z->domain_size > (1u << MAX_LOG2_DOMAIN)) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: section 2 (groth16 header): domainSize %"
                           PRIu32 " is above the largest supported, 2^%u (at "
                           "byte offset %" PRIu64 ")", z->path,
                           z->domain_size, MAX_LOG2_DOMAIN, at + HDR_DOMAIN);
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
                           at + HDR_NPUBLIC);
        goto fail;
    }
    z->alpha1 = p + HDR_ALPHA1;
    z->beta1 = p + HDR_BETA1;
    z->beta2 = p + HDR_BETA2;
    z->gamma2 = p + HDR_GAMMA2;
    z->delta1 = p + HDR_DELTA1;
    z->delta2 = p + HDR_DELTA2;
fail:
    return st;
}

void pl__zkey_section_shape(pl__section_shape *out, unsigned id,
                            uint32_t n_vars, uint32_t n_public,
                            uint32_t domain_size, uint32_t n_coefs)
{
    static const struct {
        uint64_t fixed, unit;
        const char *what;
    } shapes[10] = {
        [3] = {0, PL__G1_BYTES, "G1 points"},
        [4] = {4, PL__COEF_RECORD_BYTES, "records"},
        [5] = {0, PL__G1_BYTES, "G1 points"},
        [6] = {0, PL__G1_BYTES, "G1 points"},
        [7] = {0, PL__G2_BYTES, "G2 points"},
        [8] = {0, PL__G1_BYTES, "G1 points"},
        [9] = {0, PL__G1_BYTES, "G1 points"},
    };
    const uint64_t counts[10] = {
        [3] = (uint64_t)n_public + 1, [4] = n_coefs,
        [5] = n_vars, [6] = n_vars, [7] = n_vars,
        [8] = (uint64_t)n_vars - n_public - 1, [9] = domain_size,
    };
    assert(id >= 3 && id <= 9 && (uint64_t)n_public + 1 <= n_vars);
    out->fixed = shapes[id].fixed;
    out->count = counts[id];
    out->unit = shapes[id].unit;
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
        pl__zkey_section_shape(&shape, id, z->n_vars, z->n_public,
                               z->domain_size, z->n_coefs);
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
        if (!pl__scalar_is_canonical(rec.value)) {
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
    uint8_t hdr[HDR_BYTES];
    pl__put_le32(hdr, PL__FP_BYTES);
    memcpy(hdr + 4, pl__fp_modulus_le, PL__FP_BYTES);
    pl__put_le32(hdr + 52, PL__FR_BYTES);
    memcpy(hdr + 56, pl__fr_modulus_le, PL__FR_BYTES);
    pl__put_le32(hdr + HDR_NVARS, h->n_vars);
    pl__put_le32(hdr + HDR_NPUBLIC, h->n_public);
    pl__put_le32(hdr + HDR_DOMAIN, h->domain_size);
    memcpy(hdr + HDR_ALPHA1, h->alpha1, PL__G1_BYTES);
    memcpy(hdr + HDR_BETA1, h->beta1, PL__G1_BYTES);
    memcpy(hdr + HDR_BETA2, h->beta2, PL__G2_BYTES);
    memcpy(hdr + HDR_GAMMA2, h->gamma2, PL__G2_BYTES);
    memcpy(hdr + HDR_DELTA1, h->delta1, PL__G1_BYTES);
    memcpy(hdr + HDR_DELTA2, h->delta2, PL__G2_BYTES);
    pl__container_write_begin(w, out, "zkey", ZKEY_VERSION, PL__ZKEY_SECTIONS,
                              err);
    pl__container_section_begin(w, 1, 4, err);
    pl__container_put_u32(w, PROTOCOL_GROTH16, err);
    pl__container_section_end(w, err);
    pl__container_section_begin(w, 2, HDR_BYTES, err);
    pl__container_put(w, hdr, sizeof(hdr), err);
    return pl__container_section_end(w, err); /* the first error, if any */
}

pl_status pl__zkey_section_begin(pl__container_writer *w, unsigned id,
                                 const pl__zkey_header *h, pl_error *err)
{
    pl__section_shape shape;
    pl__zkey_section_shape(&shape, id, h->n_vars, h->n_public, h->domain_size,
                           h->n_coefs);
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
    size_t name_len = strlen(c->name);
    if (name_len > PL__ZKEY_NAME_MAX)
        return pl__error_set(err, PL_EINTERNAL, "%s: section 10 "
                             "(contributions): a name of %zu bytes, snarkjs "
                             "keeps %u", w->out->path, name_len,
                             PL__ZKEY_NAME_MAX);
    /* csHash, n, then the record: deltaAfter, g1_s, g1_sx, g2_spx,
     * transcript, type, paramsLength, params (id 1 = name, length, name) */
    uint32_t params = 2 + (uint32_t)name_len;
    uint64_t size = PL__ZKEY_HASH_BYTES + 4 + 3 * PL__G1_BYTES + PL__G2_BYTES +
                    PL__ZKEY_HASH_BYTES + 4 + 4 + params;
    uint8_t param_head[2] = {1, (uint8_t)name_len};
    pl__container_section_begin(w, 10, size, err);
    pl__container_put(w, c->cs_hash ? c->cs_hash : zero_hash,
                      PL__ZKEY_HASH_BYTES, err);
    pl__container_put_u32(w, 1, err);
    pl__container_put(w, c->delta_after, PL__G1_BYTES, err);
    pl__container_put(w, c->g1_s, PL__G1_BYTES, err);
    pl__container_put(w, c->g1_sx, PL__G1_BYTES, err);
    pl__container_put(w, c->g2_spx, PL__G2_BYTES, err);
    pl__container_put(w, c->transcript, PL__ZKEY_HASH_BYTES, err);
    pl__container_put_u32(w, c->type, err);
    pl__container_put_u32(w, params, err);
    pl__container_put(w, param_head, sizeof(param_head), err);
    pl__container_put(w, c->name, name_len, err);
    return pl__container_section_end(w, err);
}

/* ---- the parameter check (pl_zkey_check_points) ----------------------- */

/* Why a point is unusable, or NULL: coordinates must be reduced mod q (the
 * Montgomery form of a value below q), then on the curve, then in the
 * prime-order subgroup.  All-zero bytes are the point at infinity. */
static const char *g1_problem(const uint8_t *bytes, bool allow_inf)
{
    blst_p1_affine p;
    memcpy(&p, bytes, sizeof(p));
    if (blst_p1_affine_is_inf(&p))
        return allow_inf ? NULL : "is the point at infinity";
    for (unsigned i = 0; i < 2; i++)
        if (!pl__le_less(bytes + i * PL__FP_BYTES, pl__fp_modulus_le,
                         PL__FP_BYTES))
            return i ? "has y not below q" : "has x not below q";
    if (!blst_p1_affine_on_curve(&p))
        return "is not on the curve";
    if (!blst_p1_affine_in_g1(&p))
        return "is not in the G1 subgroup";
    return NULL;
}

static const char *g2_problem(const uint8_t *bytes, bool allow_inf)
{
    static const char *const coord[4] = {
        "has x.c0 not below q", "has x.c1 not below q",
        "has y.c0 not below q", "has y.c1 not below q"};
    blst_p2_affine p;
    memcpy(&p, bytes, sizeof(p));
    if (blst_p2_affine_is_inf(&p))
        return allow_inf ? NULL : "is the point at infinity";
    for (unsigned i = 0; i < 4; i++)
        if (!pl__le_less(bytes + i * PL__FP_BYTES, pl__fp_modulus_le,
                         PL__FP_BYTES))
            return coord[i];
    if (!blst_p2_affine_on_curve(&p))
        return "is not on the curve";
    if (!blst_p2_affine_in_g2(&p))
        return "is not in the G2 subgroup";
    return NULL;
}

pl_status pl_zkey_check_points(const pl_zkey *zkey, pl_error *err)
{
    /* The setup's secrets times a generator are never infinity; points of
     * wires that a matrix never uses are (A, B1, B2), and IC, C, H may be. */
    const struct {
        const char *name;
        const uint8_t *point;
        bool g2;
    } fixed[6] = {
        {"alpha_1", zkey->alpha1, false}, {"beta_1", zkey->beta1, false},
        {"delta_1", zkey->delta1, false}, {"beta_2", zkey->beta2, true},
        {"gamma_2", zkey->gamma2, true},  {"delta_2", zkey->delta2, true},
    };
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
    pl_status st = PL_OK;
    const char *bad;
    for (unsigned i = 0; i < 6; i++) {
        bad = fixed[i].g2 ? g2_problem(fixed[i].point, false)
                          : g1_problem(fixed[i].point, false);
        if (bad) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section 2 (groth16 header): %s %s (at "
                               "byte offset %" PRIu64 ")", zkey->path,
                               fixed[i].name, bad,
                               (uint64_t)(fixed[i].point - zkey->map.data));
            goto fail;
        }
    }
    for (unsigned k = 0; k < 6; k++) {
        uint64_t unit = arrays[k].g2 ? PL__G2_BYTES : PL__G1_BYTES;
        for (uint64_t i = 0; i < arrays[k].count; i++) {
            const uint8_t *p = arrays[k].points + i * unit;
            bad = arrays[k].g2 ? g2_problem(p, true) : g1_problem(p, true);
            if (bad) {
                st = pl__error_set(err, PL_EFORMAT,
                                   "%s: section %u (%s): point %" PRIu64
                                   " %s (at byte offset %" PRIu64 ")",
                                   zkey->path, arrays[k].id,
                                   section_names[arrays[k].id], i, bad,
                                   (uint64_t)(p - zkey->map.data));
                goto fail;
            }
        }
    }
fail:
    return st;
}

void pl_zkey_get_info(const pl_zkey *zkey, pl_zkey_info *out)
{
    out->n_vars = zkey->n_vars;
    out->n_public = zkey->n_public;
    out->domain_size = zkey->domain_size;
    out->n_coefs = zkey->n_coefs;
    out->n_constraints = zkey->n_constraints;
}
