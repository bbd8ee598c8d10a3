/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The .wtns reader (version 2, as written by circom's witness calculators
 * and snarkjs wtns calculate): reads the file whole into accounted memory
 * (class witness, never mapped), checks the field is BLS12-381's or BN254's r, that
 * section 2 holds exactly nWitness 32-byte values and that each value is
 * below r, then hands out the values in place.  The
 * prover and the witness check read them without copying.  It does not check
 * the values against a circuit: that is pl_witness_check.  pl__wtns_write
 * writes the same layout (for the circuit export).
 */
#include "formats/formats.h"
#include "field/field.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define WTNS_VERSION 2u

static pl_status read_header(pl_wtns *w, const pl__container *c,
                             uint32_t *n_witness, pl_error *err)
{
    pl_status st = PL_OK;
    if (c->offset[1] == 0) {
        st = pl__error_set(err, PL_EFORMAT, "%s: section 1 (header) is missing",
                           w->path);
        goto fail;
    }
    const uint8_t *p = w->map.data + c->offset[1];
    uint64_t at = c->offset[1], size = c->size[1];
    if (size < 4) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 1 (header): size %" PRIu64 " is too "
                           "small for n8 (at byte offset %" PRIu64 ")",
                           w->path, size, at);
        goto fail;
    }
    uint32_t n8 = pl__le32(p);
    st = pl__file_curve(w->path, "section 1 (header): prime", "witness", true,
                        n8, p + 4, size - 4, at + 4, &w->curve, err);
    if (st != PL_OK)
        goto fail;
    if (size != 4 + PL__FR_BYTES + 4) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 1 (header): size %" PRIu64 ", but n8, "
                           "the prime and nWitness are %u bytes (at byte "
                           "offset %" PRIu64 ")", w->path, size,
                           4 + PL__FR_BYTES + 4, at);
        goto fail;
    }
    *n_witness = pl__le32(p + 4 + PL__FR_BYTES);
fail:
    return st;
}

static pl_status read_values(pl_wtns *w, const pl__container *c,
                             uint32_t n_witness, pl_error *err)
{
    pl_status st = PL_OK;
    if (c->offset[2] == 0) {
        st = pl__error_set(err, PL_EFORMAT, "%s: section 2 (values) is missing",
                           w->path);
        goto fail;
    }
    uint64_t want = (uint64_t)n_witness * PL__FR_BYTES;
    if (c->size[2] != want) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: section 2 (values): size %" PRIu64 ", but "
                           "nWitness %" PRIu32 " values of %u bytes need %"
                           PRIu64 " (at byte offset %" PRIu64 ")", w->path,
                           c->size[2], n_witness, PL__FR_BYTES, want,
                           c->offset[2] - 12);
        goto fail;
    }
    w->values = w->map.data + c->offset[2];
    /* The MSMs and the witness check take the values as reduced scalars. */
    for (uint64_t i = 0; i < n_witness; i++) {
        if (!pl__scalar_below_r(w->curve, w->values + i * PL__FR_BYTES)) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section 2 (values): value %" PRIu64
                               " is not below r (at byte offset %" PRIu64 ")",
                               w->path, i, c->offset[2] + i * PL__FR_BYTES);
            goto fail;
        }
    }
    w->n_values = n_witness;
fail:
    return st;
}

/* An empty handle that knows its file's name (for messages). */
static pl_wtns *wtns_new(const char *name, pl_error *err)
{
    pl_wtns *w = calloc(1, sizeof(*w));
    if (w && !(w->path = pl__path_dup(name))) {
        free(w);
        w = NULL;
    }
    if (!w)
        pl__error_set(err, PL_ENOMEM, "%s: out of memory", name);
    return w;
}

/* Validates the container already in w->map. */
static pl_status parse_mapped(pl_wtns *w, const char *path, pl_error *err)
{
    pl_status st;
    pl__container c;
    uint32_t n_witness = 0;
    if ((st = pl__container_parse(&c, &w->map, path, "wtns", err)) != PL_OK)
        return st;
    if (c.version != WTNS_VERSION)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "%s: wtns version %" PRIu32 ", but proofline "
                             "reads version %u (at byte offset 4)",
                             path, c.version, WTNS_VERSION);
    if ((st = read_header(w, &c, &n_witness, err)) != PL_OK)
        return st;
    return read_values(w, &c, n_witness, err);
}

/* A witness from a file, read whole into class witness after a check
 * that it is at most max_bytes (0: no limit): never mapped, so nothing the
 * file does after the read (rewritten, truncated) reaches its values. */
static pl_status wtns_from_file(pl_wtns **out, const char *path,
                                uint64_t max_bytes, pl_error *err)
{
    pl_status st;
    pl_wtns *w = wtns_new(path, err);
    *out = NULL;
    if (!w) {
        st = PL_ENOMEM;
        goto fail;
    }
    w->heap = true;
    st = pl__file_load(&w->map, path, PL_BUF_WITNESS, max_bytes, err);
    if (st != PL_OK || (st = parse_mapped(w, path, err)) != PL_OK)
        goto fail;
    *out = w;
    return PL_OK;

fail:
    pl_wtns_close(w);
    return st;
}

pl_status pl_wtns_open(pl_wtns **out, const char *path, pl_error *err)
{
    return wtns_from_file(out, path, 0, err);
}

pl_status pl__wtns_load(pl_wtns **out, const char *path, uint64_t max_bytes,
                        pl_error *err)
{
    return wtns_from_file(out, path, max_bytes, err);
}

pl_status pl__wtns_parse(pl_wtns **out, const uint8_t *data, size_t len,
                         const char *name, pl_error *err)
{
    pl_status st;
    pl_wtns *w = wtns_new(name, err);
    *out = NULL;
    if (!w) {
        st = PL_ENOMEM;
        goto fail;
    }
    w->borrowed = true;
    w->map.data = data;
    w->map.size = len;
    if ((st = parse_mapped(w, name, err)) != PL_OK)
        goto fail;
    *out = w;
    return PL_OK;

fail:
    pl_wtns_close(w);
    return st;
}

pl_status pl__wtns_wrap(pl_wtns **out, const pl_scalar *values, size_t n,
                        const char *name, pl_error *err)
{
    return pl__wtns_wrap_curve(out, PL__CURVE_BLS12_381, values, n, name,
                               err);
}

pl_status pl__wtns_wrap_curve(pl_wtns **out, pl__curve curve,
                              const pl_scalar *values, size_t n,
                              const char *name, pl_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < n; i++)
        if (!pl__scalar_below_r(curve, values[i].b))
            return pl__error_set(err, PL_EFORMAT,
                                 "%s: value %zu is not below r of %s", name,
                                 i, pl__curve_name(curve));
    pl_wtns *w = wtns_new(name, err);
    if (!w)
        return PL_ENOMEM;
    w->curve = curve;
    w->borrowed = true;
    w->n_values = n;
    w->values = (const uint8_t *)values;
    *out = w;
    return PL_OK;
}

pl_status pl__wtns_adopt(pl_wtns **out, pl_scalar *values, size_t n,
                         const char *name, pl_error *err)
{
    return pl__wtns_adopt_curve(out, PL__CURVE_BLS12_381, values, n, name,
                                err);
}

pl_status pl__wtns_adopt_curve(pl_wtns **out, pl__curve curve,
                               pl_scalar *values, size_t n, const char *name,
                               pl_error *err)
{
    pl_status st = pl__wtns_wrap_curve(out, curve, values, n, name, err);
    if (st != PL_OK)
        return st;
    (*out)->borrowed = false;
    (*out)->heap = true;
    (*out)->map.data = (const uint8_t *)values;
    (*out)->map.size = (uint64_t)n * PL__FR_BYTES;
    return PL_OK;
}

void pl_wtns_close(pl_wtns *wtns)
{
    if (!wtns)
        return;
    if (wtns->heap)
        pl__free((void *)wtns->map.data);
    else if (!wtns->borrowed)
        pl__file_unmap(&wtns->map);
    free(wtns->path);
    free(wtns);
}

uint64_t pl__wtns_file_bytes(uint64_t n)
{
    /* the container's header (magic, version, section count), then two
     * sections of a 12-byte header each: n8, the prime and nWitness; the
     * values */
    return 12 + (12 + 4 + PL__FR_BYTES + 4) + 12 + n * PL__FR_BYTES;
}

pl_status pl__wtns_write(const char *path, const pl_scalar *values, size_t n,
                         pl_error *err)
{
    pl__output out;
    pl__container_writer w;
    pl_status st = pl__output_open(&out, path, err);
    if (st != PL_OK)
        return st;
    pl__container_write_begin(&w, &out, "wtns", WTNS_VERSION, 2, err);
    pl__container_section_begin(&w, 1, 4 + PL__FR_BYTES + 4, err);
    pl__container_put_u32(&w, PL__FR_BYTES, err);
    pl__container_put(&w, pl__fr_modulus_le, PL__FR_BYTES, err);
    pl__container_put_u32(&w, (uint32_t)n, err);
    pl__container_section_end(&w, err);
    pl__container_section_begin(&w, 2, (uint64_t)n * PL__FR_BYTES, err);
    pl__container_put(&w, values, n * PL__FR_BYTES, err);
    pl__container_section_end(&w, err);
    if ((st = pl__container_write_end(&w, err)) == PL_OK)
        st = pl__output_commit(&out, err);
    pl__output_abort(&out);
    return st;
}

size_t pl_wtns_count(const pl_wtns *wtns)
{
    return (size_t)wtns->n_values;
}

const pl_scalar *pl_wtns_values(const pl_wtns *wtns)
{
    /* pl_scalar is 32 bytes with byte alignment, so the map's bytes are an
     * array of them at any offset. */
    return (const pl_scalar *)(const void *)wtns->values;
}

bool pl_wtns_file_changed(const pl_wtns *wtns)
{
    /* a look at the file's inode, size and times, not its bytes: cheap
     * enough to ask of every witness */
    return wtns && wtns->heap && !pl__file_unchanged(wtns->path, &wtns->map.id);
}

pl_curve pl_wtns_curve(const pl_wtns *wtns)
{
    return (pl_curve)wtns->curve;
}
