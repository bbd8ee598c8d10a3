/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The binary container of the iden3/snarkjs files (.zkey .wtns .r1cs .ptau):
 * a 4-byte magic, u32 version, u32 nSections, then nSections records
 * {u32 id, u64 size, payload}.  pl__container_parse reads the section table
 * of a mapped file once, checking that every section lies inside the file,
 * so that the format readers (zkey.c, wtns.c, r1cs.c) only have to check
 * payload sizes against their declared counts.  It does not check versions
 * or section contents: each reader knows its own.  pl__container_writer is
 * the other way, used by the format writers (zkey.c, wtns.c, r1cs.c) for
 * the dev setup and the circuit export.  Also here: the check of a
 * declared prime, shared by the three readers.
 */
#include "formats/formats.h"
#include "field/field.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* BN254 (alt_bn128, circom's default curve, snarkjs's "bn128") primes,
 * little-endian. */
static const uint8_t bn254_q_le[32] = {
    0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71,
    0x68, 0x91, 0x6a, 0x81, 0x97, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
    0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
static const uint8_t bn254_r_le[32] = {
    0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
    0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
    0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

#define HEADER_BYTES PL__CONTAINER_HEADER_BYTES
#define SECTION_HEADER_BYTES PL__SECTION_HEADER_BYTES

/* The magic as printable text for messages: a binary file's first bytes
 * would otherwise garble the terminal. */
void pl__magic_text(char out[17], const uint8_t *p)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < 4; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\' && p[i] != '"') {
            out[o++] = (char)p[i];
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[p[i] >> 4];
            out[o++] = hex[p[i] & 15];
        }
    }
    out[o] = '\0';
}

pl_status pl__container_parse(pl__container *out, const pl__mapped *m,
                              const char *path, const char *magic,
                              pl_error *err)
{
    pl_status st = PL_OK;
    memset(out, 0, sizeof(*out));
    if (m->size < HEADER_BYTES) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: file is %" PRIu64 " bytes, too short for the "
                           "%u-byte header of a .%s file (at byte offset 0)",
                           path, m->size, HEADER_BYTES, magic);
        goto fail;
    }
    if (memcmp(m->data, magic, 4) != 0) {
        char seen[17];
        pl__magic_text(seen, m->data);
        st = pl__error_set(err, PL_EFORMAT,
                           "%s: magic is \"%s\", expected \"%s\" (at byte "
                           "offset 0)", path, seen, magic);
        goto fail;
    }
    memcpy(out->magic, m->data, 4);
    out->magic[4] = '\0';
    out->version = pl__le32(m->data + 4);
    out->n_sections = pl__le32(m->data + 8);

    /* Each record needs 12 bytes, so a huge nSections in a small file stops
     * at the first record past the end: the loop is bounded by the file. */
    uint64_t pos = HEADER_BYTES;
    for (uint32_t i = 0; i < out->n_sections; i++) {
        if (m->size - pos < SECTION_HEADER_BYTES) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section table entry %" PRIu32 " of %" PRIu32
                               ": truncated, the file ends %" PRIu64
                               " bytes in (at byte offset %" PRIu64 ")",
                               path, i + 1, out->n_sections,
                               m->size - pos, pos);
            goto fail;
        }
        uint32_t id = pl__le32(m->data + pos);
        uint64_t size = pl__le64(m->data + pos + 4);
        uint64_t payload = pos + SECTION_HEADER_BYTES;
        /* Written as a subtraction so that a size near 2^64 cannot wrap. */
        if (size > m->size - payload) {
            st = pl__error_set(err, PL_EFORMAT,
                               "%s: section %" PRIu32 ": size %" PRIu64
                               " runs past the end of the file (%" PRIu64
                               " bytes, %" PRIu64 " left) (at byte offset %"
                               PRIu64 ")", path, id, size, m->size,
                               m->size - payload, pos);
            goto fail;
        }
        if (id >= 1 && id <= PL__MAX_SECTION_ID) {
            if (out->offset[id] != 0) {
                st = pl__error_set(err, PL_EFORMAT,
                                   "%s: section %" PRIu32 " appears twice "
                                   "(at byte offsets %" PRIu64 " and %" PRIu64
                                   ")", path, id,
                                   out->offset[id] - SECTION_HEADER_BYTES, pos);
                goto fail;
            }
            out->offset[id] = payload;
            out->size[id] = size;
        }
        pos = payload + size;
    }
    return PL_OK;

fail:
    memset(out, 0, sizeof(*out));
    return st;
}

/* ---- writing ------------------------------------------------------------ */

pl_status pl__container_write_begin(pl__container_writer *w, pl__output *out,
                                    const char magic[4], uint32_t version,
                                    uint32_t n_sections, pl_error *err)
{
    uint8_t h[HEADER_BYTES];
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->n_sections = n_sections;
    memcpy(h, magic, 4);
    pl__put_le32(h + 4, version);
    pl__put_le32(h + 8, n_sections);
    return pl__container_put(w, h, sizeof(h), err);
}

/* Records the first error: the writer is sticky from then on. */
static pl_status writer_fail(pl__container_writer *w, pl_status st)
{
    if (w->status == PL_OK)
        w->status = st;
    return st;
}

pl_status pl__container_put(pl__container_writer *w, const void *data,
                            size_t len, pl_error *err)
{
    if (w->status != PL_OK)
        return w->status;
    return writer_fail(w, pl__output_write(w->out, data, len, err));
}

pl_status pl__container_put_u32(pl__container_writer *w, uint32_t v,
                                pl_error *err)
{
    uint8_t b[4];
    pl__put_le32(b, v);
    return pl__container_put(w, b, sizeof(b), err);
}

pl_status pl__container_put_u64(pl__container_writer *w, uint64_t v,
                                pl_error *err)
{
    uint8_t b[8];
    pl__put_le64(b, v);
    return pl__container_put(w, b, sizeof(b), err);
}

pl_status pl__container_section_begin(pl__container_writer *w, uint32_t id,
                                      uint64_t size, pl_error *err)
{
    if (w->status != PL_OK)
        return w->status;
    if (w->in_section || w->n_begun == w->n_sections)
        return writer_fail(w, pl__error_set(
            err, PL_EINTERNAL, "%s: section %" PRIu32 " begun %s (at byte "
            "offset %" PRIu64 ")", w->out->path, id,
            w->in_section ? "inside another" : "past the declared count",
            w->out->written));
    uint8_t h[SECTION_HEADER_BYTES];
    pl__put_le32(h, id);
    /* a size to come is written as 0 until section_end knows it */
    pl__put_le64(h + 4, size == PL__SECTION_SIZE_LATER ? 0 : size);
    pl_status st = pl__container_put(w, h, sizeof(h), err);
    if (st != PL_OK)
        return st;
    w->n_begun++;
    w->in_section = true;
    w->id = id;
    w->declared = size;
    w->start = w->out->written;
    return PL_OK;
}

pl_status pl__container_section_end(pl__container_writer *w, pl_error *err)
{
    if (w->status != PL_OK)
        return w->status;
    uint64_t size = w->out->written - w->start;
    if (!w->in_section)
        return writer_fail(w, pl__error_set(
            err, PL_EINTERNAL, "%s: section end outside a section (at byte "
            "offset %" PRIu64 ")", w->out->path, w->out->written));
    w->in_section = false;
    if (w->declared == PL__SECTION_SIZE_LATER) {
        uint8_t b[8];
        pl__put_le64(b, size);
        return writer_fail(w, pl__output_patch(w->out, w->start - 8, b,
                                               sizeof(b), err));
    }
    if (size != w->declared)
        return writer_fail(w, pl__error_set(
            err, PL_EINTERNAL, "%s: section %" PRIu32 ": %" PRIu64 " bytes "
            "written, %" PRIu64 " declared (at byte offset %" PRIu64 ")",
            w->out->path, w->id, size, w->declared,
            w->start - SECTION_HEADER_BYTES));
    return PL_OK;
}

pl_status pl__container_write_end(pl__container_writer *w, pl_error *err)
{
    if (w->status != PL_OK)
        return w->status;
    if (w->in_section || w->n_begun != w->n_sections)
        return writer_fail(w, pl__error_set(
            err, PL_EINTERNAL, "%s: %" PRIu32 " of %" PRIu32 " declared "
            "sections written%s (at byte offset %" PRIu64 ")", w->out->path,
            w->n_begun, w->n_sections,
            w->in_section ? ", the last not ended" : "", w->out->written));
    return PL_OK;
}

/* ---- the prime of a file ------------------------------------------------ */

bool pl__scalar_below_r(pl__curve curve, const uint8_t b[32])
{
    return curve == PL__CURVE_BN254 ? pl__le_less(b, bn254_r_le, 32)
                                    : pl__scalar_is_canonical(b);
}

pl_status pl__file_curve(const char *path, const char *field, const char *kind,
                         bool scalar, uint32_t n8, const uint8_t *p,
                         uint64_t avail, uint64_t at, pl__curve *curve,
                         pl_error *err)
{
    const uint8_t *bls = scalar ? pl__fr_modulus_le : pl__fp_modulus_le;
    const uint8_t *bn254 = scalar ? bn254_r_le : bn254_q_le;
    uint32_t bls_n8 = scalar ? PL__FR_BYTES : PL__FP_BYTES;
    const char *name = scalar ? "scalar field r" : "base field q";

    if (n8 > avail)
        return pl__error_set(err, PL_EFORMAT,
                             "%s: %s: %" PRIu32 " bytes declared but only %"
                             PRIu64 " left in the section (at byte offset %"
                             PRIu64 ")", path, field, n8, avail, at);
    if (n8 == bls_n8 && memcmp(p, bls, n8) == 0) {
        *curve = PL__CURVE_BLS12_381;
        return PL_OK;
    }
    if (n8 == 32 && memcmp(p, bn254, 32) == 0) {
        *curve = PL__CURVE_BN254;
        return PL_OK;
    }
    if (n8 != bls_n8 && n8 != 32)
        return pl__error_set(err, PL_EUNSUPPORTED,
                             "%s: %s: %" PRIu32 "-byte elements, but the %s "
                             "of BLS12-381 has %" PRIu32 " and BN254's 32: "
                             "this %s is for another curve (at byte offset %"
                             PRIu64 ")", path, field, n8, name, bls_n8, kind,
                             at);
    return pl__error_set(err, PL_EUNSUPPORTED,
                         "%s: %s is neither the BLS12-381 nor the BN254 "
                         "(bn128) %s: this %s is for another curve (at byte "
                         "offset %" PRIu64 ")", path, field, name, kind, at);
}

pl_status pl__check_prime(const char *path, const char *field, const char *kind,
                          bool scalar, uint32_t n8, const uint8_t *p,
                          uint64_t avail, uint64_t at, pl_error *err)
{
    pl__curve curve;
    pl_status st = pl__file_curve(path, field, kind, scalar, n8, p, avail, at,
                                  &curve, err);
    if (st == PL_OK && curve != PL__CURVE_BLS12_381)
        st = pl__error_set(err, PL_EUNSUPPORTED,
                           "%s: this is a BN254 (bn128) %s, where only "
                           "BLS12-381 is read (compile with circom --prime "
                           "bls12381) (%s at byte offset %" PRIu64 ")", path,
                           kind, field, at);
    return st;
}

pl_status pl__curve_match(const char *what, const char *path_a, pl__curve a,
                          const char *path_b, pl__curve b, pl_error *err)
{
    if (a == b)
        return PL_OK;
    return pl__error_set(err, PL_EFORMAT,
                         "%s: %s is for curve %s but %s is for curve %s",
                         what, path_a, pl__curve_name(a), path_b,
                         pl__curve_name(b));
}

char *pl__path_dup(const char *path)
{
    size_t n = strlen(path) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, path, n);
    return copy;
}
