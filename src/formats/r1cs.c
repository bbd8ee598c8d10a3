/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .r1cs reader (version 1, as written by circom): reads the file whole
 * into accounted memory (class csr, never mapped), checks the header (field
 * BLS12-381's or BN254's r, wire counts consistent), and walks the constraints
 * section once so that later readers (pl_witness_check) can
 * trust every term: a wire index below nWires and a coefficient below r,
 * and exactly nConstraints constraints filling the section.  The section 3
 * label map is only size-checked; circom's custom-gate sections (4, 5) are
 * refused, since the prover has no meaning for them.  The writer of the
 * same layout (pl__r1cs_write_begin ...) serves the circuit export
 * (circuit/export.c).
 */
#include "formats/formats.h"
#include "util/alloc.h"
#include "field/field.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define R1CS_VERSION 1u
#define TERM_BYTES PL__R1CS_TERM_BYTES /* u32 wire, coefficient */
/* After n8 and the prime: nWires, nPubOut, nPubIn, nPrvIn (u32),
 * nLabels (u64), nConstraints (u32). */
#define COUNTS_BYTES 28u

static pl_status read_header(pl_r1cs *r, const pl__container *c,
                             pl_error *err)
{
    pl_status st = PL_OK;
    if (c->offset[1] == 0) {
        st = pl__error_set(err, PL_EFORMAT, "%s: section 1 (header) is missing",
                           r->path);
        goto fail;
    }
    const uint8_t *p = r->map.data + c->offset[1];
    uint64_t at = c->offset[1], size = c->size[1];
    if (size < 4) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 1 (header): size %" PRIu64 " is too "
                           "small for n8 (at byte offset %" PRIu64 ")",
                           r->path, size, at);
        goto fail;
    }
    uint32_t n8 = pl__le32(p);
    st = pl__file_curve(r->path, "section 1 (header): prime", "r1cs", true,
                        n8, p + 4, size - 4, at + 4, &r->curve, err);
    if (st != PL_OK)
        goto fail;
    if (size != 4 + PL__FR_BYTES + COUNTS_BYTES) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 1 (header): size %" PRIu64 ", but a "
                           "groth16 r1cs header is %u bytes (at byte offset "
                           "%" PRIu64 ")", r->path, size,
                           4 + PL__FR_BYTES + COUNTS_BYTES, at);
        goto fail;
    }
    p += 4 + PL__FR_BYTES;
    r->info.n_wires = pl__le32(p);
    r->info.n_pub_out = pl__le32(p + 4);
    r->info.n_pub_in = pl__le32(p + 8);
    r->info.n_prv_in = pl__le32(p + 12);
    r->info.n_labels = pl__le64(p + 16);
    r->info.n_constraints = pl__le32(p + 24);
    /* Wire 0 is the constant ONE, then outputs, public and private inputs. */
    uint64_t io = 1 + (uint64_t)r->info.n_pub_out + r->info.n_pub_in +
                  r->info.n_prv_in;
    if (io > r->info.n_wires) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 1 (header): 1 + nPubOut %" PRIu32
                           " + nPubIn %" PRIu32 " + nPrvIn %" PRIu32
                           " exceeds nWires %" PRIu32 " (at byte offset %"
                           PRIu64 ")", r->path, r->info.n_pub_out,
                           r->info.n_pub_in, r->info.n_prv_in,
                           r->info.n_wires, at + 4 + PL__FR_BYTES);
        goto fail;
    }
fail:
    return st;
}

static const char *const lc_names[3] = {"A", "B", "C"};

/* One pass over section 2.  Every read is preceded by a check against the
 * bytes left, so a lying nTerms or nConstraints ends in an error at the
 * first term past the end, never a read outside the section. */
static pl_status walk_constraints(pl_r1cs *r, const pl__container *c,
                                  pl_error *err)
{
    pl_status st = PL_OK;
    if (c->offset[2] == 0) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (constraints) is missing", r->path);
        goto fail;
    }
    const uint8_t *p = r->map.data + c->offset[2];
    const uint64_t base = c->offset[2], size = c->size[2];
    const uint32_t n_wires = r->info.n_wires;
    /* Each constraint holds at least its three nTerms. */
    if ((uint64_t)r->info.n_constraints * 12 > size) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (constraints): size %" PRIu64
                           " cannot hold nConstraints %" PRIu32 " (at least "
                           "12 bytes each) (at byte offset %" PRIu64 ")",
                           r->path, size, r->info.n_constraints, base - 12);
        goto fail;
    }
    uint64_t pos = 0;
    for (uint32_t k = 0; k < r->info.n_constraints; k++) {
        for (unsigned lc = 0; lc < 3; lc++) {
            if (size - pos < 4) {
                st = pl__error_set(err, PL_EFORMAT,
                                   "%s: section 2 (constraints): constraint %"
                                   PRIu32 " %s: nTerms runs past the end of "
                                   "the section (at byte offset %" PRIu64 ")",
                                   r->path, k, lc_names[lc], base + pos);
                goto fail;
            }
            uint32_t n_terms = pl__le32(p + pos);
            pos += 4;
            if (n_terms > (size - pos) / TERM_BYTES) {
                st = pl__error_set(err, PL_EFORMAT,
                                   "%s: section 2 (constraints): constraint %"
                                   PRIu32 " %s: %" PRIu32 " terms of %u bytes "
                                   "but %" PRIu64 " bytes left in the section "
                                   "(at byte offset %" PRIu64 ")", r->path, k,
                                   lc_names[lc], n_terms, TERM_BYTES,
                                   size - pos, base + pos - 4);
                goto fail;
            }
            for (uint32_t t = 0; t < n_terms; t++, pos += TERM_BYTES) {
                uint32_t wire = pl__le32(p + pos);
                if (wire >= n_wires) {
                    st = pl__error_set(err, PL_EFORMAT,
                                       "%s: section 2 (constraints): "
                                       "constraint %" PRIu32 " %s term %" PRIu32
                                       ": wire %" PRIu32 " is not below nWires %"
                                       PRIu32 " (at byte offset %" PRIu64 ")",
                                       r->path, k, lc_names[lc], t, wire,
                                       n_wires, base + pos);
                    goto fail;
                }
                if (!pl__scalar_below_r(r->curve, p + pos + 4)) {
                    st = pl__error_set(err, PL_EFORMAT,
                                       "%s: section 2 (constraints): "
                                       "constraint %" PRIu32 " %s term %" PRIu32
                                       ": coefficient is not below r (at byte "
                                       "offset %" PRIu64 ")", r->path, k,
                                       lc_names[lc], t, base + pos + 4);
                    goto fail;
                }
            }
        }
    }
    if (pos != size) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (constraints): %" PRIu64 " bytes "
                           "left after nConstraints %" PRIu32 " constraints "
                           "(at byte offset %" PRIu64 ")", r->path,
                           size - pos, r->info.n_constraints, base + pos);
        goto fail;
    }
    r->constraints = p;
    r->constraints_bytes = size;
fail:
    return st;
}

/* Validates the file already in r->map (mapped, or the caller's bytes). */
static pl_status parse_map(pl_r1cs *r, pl_error *err)
{
    pl_status st;
    pl__container c;
    if ((st = pl__container_parse(&c, &r->map, r->path, "r1cs", err)) != PL_OK)
        return st;
    if (c.version != R1CS_VERSION) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: r1cs version %" PRIu32 ", but proofline reads "
                           "version %u (at byte offset 4)", r->path, c.version,
                           R1CS_VERSION);
        return st;
    }
    if ((st = read_header(r, &c, err)) != PL_OK)
        return st;
    if (c.offset[4] != 0 || c.offset[5] != 0) {
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: section %d (custom gates): custom gates are "
                           "not supported (at byte offset %" PRIu64 ")",
                           r->path, c.offset[4] ? 4 : 5,
                           (c.offset[4] ? c.offset[4] : c.offset[5]) - 12);
        return st;
    }
    if ((st = walk_constraints(r, &c, err)) != PL_OK)
        return st;
    /* circom writes one u64 label id per wire (r1csfile reads nVars of
     * them), not nLabels: nLabels counts every signal before optimisation. */
    if (c.offset[3] != 0 && c.size[3] != (uint64_t)r->info.n_wires * 8) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 3 (wire labels): size %" PRIu64
                           ", but nWires %" PRIu32 " labels of 8 bytes need %"
                           PRIu64 " (at byte offset %" PRIu64 ")", r->path,
                           c.size[3], r->info.n_wires,
                           (uint64_t)r->info.n_wires * 8, c.offset[3] - 12);
        return st;
    }
    return PL_OK;
}

pl_status pl__r1cs_load(pl_r1cs **out, const char *path, uint64_t max_bytes,
                        pl_error *err)
{
    pl_status st;
    pl_r1cs *r = calloc(1, sizeof(*r));
    *out = NULL;
    if (!r || !(r->path = pl__path_dup(path))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    /* read whole (class csr: the constraints), never mapped: the terms
     * validated here are the terms every later walk reads, whatever the
     * file does meanwhile */
    r->heap = true;
    if ((st = pl__file_load(&r->map, path, PL_BUF_CSR, max_bytes, err)) !=
            PL_OK ||
        (st = parse_map(r, err)) != PL_OK)
        goto fail;
    *out = r;
    return PL_OK;

fail:
    pl_r1cs_close(r);
    return st;
}

pl_status pl_r1cs_open(pl_r1cs **out, const char *path, pl_error *err)
{
    return pl__r1cs_load(out, path, 0, err);
}

pl_status pl__r1cs_parse(pl_r1cs **out, const uint8_t *data, size_t len,
                         const char *name, pl_error *err)
{
    pl_status st;
    pl_r1cs *r = calloc(1, sizeof(*r));
    *out = NULL;
    if (!r || !(r->path = pl__path_dup(name))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", name);
        goto fail;
    }
    r->borrowed = true;
    r->map.data = data;
    r->map.size = len;
    if ((st = parse_map(r, err)) != PL_OK)
        goto fail;
    *out = r;
    return PL_OK;

fail:
    pl_r1cs_close(r);
    return st;
}

void pl_r1cs_close(pl_r1cs *r1cs)
{
    if (!r1cs)
        return;
    if (r1cs->heap)
        pl__free((void *)r1cs->map.data);
    else if (!r1cs->borrowed)
        pl__file_unmap(&r1cs->map);
    free(r1cs->path);
    free(r1cs);
}

void pl_r1cs_get_info(const pl_r1cs *r1cs, pl_r1cs_info *out)
{
    *out = r1cs->info;
}

/* ---- writing (the circuit export) -------------------------------------- */

pl_status pl__r1cs_write_begin(pl__container_writer *w, pl__output *out,
                               const pl_r1cs_info *info, uint64_t n_terms,
                               pl_error *err)
{
    pl__container_write_begin(w, out, "r1cs", R1CS_VERSION, 3, err);
    pl__container_section_begin(w, 1, 4 + PL__FR_BYTES + COUNTS_BYTES, err);
    pl__container_put_u32(w, PL__FR_BYTES, err);
    pl__container_put(w, pl__fr_modulus_le, PL__FR_BYTES, err);
    pl__container_put_u32(w, info->n_wires, err);
    pl__container_put_u32(w, info->n_pub_out, err);
    pl__container_put_u32(w, info->n_pub_in, err);
    pl__container_put_u32(w, info->n_prv_in, err);
    pl__container_put_u64(w, info->n_labels, err);
    pl__container_put_u32(w, info->n_constraints, err);
    pl__container_section_end(w, err);
    /* three nTerms per constraint, then the terms */
    return pl__container_section_begin(
        w, 2, 12 * (uint64_t)info->n_constraints + TERM_BYTES * n_terms, err);
}

pl_status pl__r1cs_put_lc(pl__container_writer *w, uint32_t n_terms,
                          pl_error *err)
{
    return pl__container_put_u32(w, n_terms, err);
}

pl_status pl__r1cs_put_term(pl__container_writer *w, uint32_t wire,
                            const uint8_t coef[PL__FR_BYTES], pl_error *err)
{
    pl__container_put_u32(w, wire, err);
    return pl__container_put(w, coef, PL__FR_BYTES, err);
}

pl_status pl__r1cs_write_end(pl__container_writer *w,
                             const pl_r1cs_info *info, pl_error *err)
{
    pl__container_section_end(w, err);
    pl__container_section_begin(w, 3, 8 * (uint64_t)info->n_wires, err);
    for (uint64_t i = 0; i < info->n_wires && w->status == PL_OK; i++)
        pl__container_put_u64(w, i, err);
    pl__container_section_end(w, err);
    return pl__container_write_end(w, err);
}
