/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bellperson's files: the parameter file and the .vk (reader over a memory
 * map, writer over a pl__output), 192-byte proofs and the public-input
 * file (include/proofline_c2.h, docs/filecoin.md).  The layout, from
 * bellperson's groth16 Parameters::write / VerifyingKey::write and what
 * MappedParameters reads:
 *
 *     alpha_g1 G1 | beta_g1 G1 | beta_g2 G2 | gamma_g2 G2 | delta_g1 G1 |
 *     delta_g2 G2 | u32 BE n_ic | n_ic G1 |            (the .vk ends here)
 *     u32 BE n_h | n_h G1 | u32 BE n_l | n_l G1 | u32 BE n_a | n_a G1 |
 *     u32 BE n_b_g1 | n_b_g1 G1 | u32 BE n_b_g2 | n_b_g2 G2
 *
 * points uncompressed in the zcash encoding (big-endian x then y, the top
 * three bits of the first byte: compressed = 0, infinity, sign = 0), which
 * is blst's serialization, so blst decodes and encodes them.  There is no
 * magic and no version: a reader knows the file by its shape, so every
 * count is checked against the bytes left before anything past it is read.
 *
 * Opening decodes the verifying key (a few points) and nothing of the
 * queries: pl_bp_params_check_points decodes every point when asked
 * (--check-params), as pl_zkey_check_points does for a zkey.
 *
 * What bellperson refuses, we refuse, with the file, the section and the
 * index (docs/filecoin.md, "What bellperson refuses"): in every point slot
 * a set compressed flag or sign bit (decode_g1/decode_g2); at open, a
 * verifying-key point outside its subgroup, an IC point at infinity or
 * outside G1; wherever a query point is read (pl__bp_g1_at, pl__bp_g2_at:
 * the prover's decoding and the check), the point at infinity; in a proof,
 * a point at infinity or outside its subgroup, read or written.
 */
#include "formats/bellperson.h"
#include "util/bits.h"
#include "formats/formats.h"
#include "field/field.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const section_names[PL__BP_SECTIONS] = {
    "ic", "h", "l", "a", "b_g1", "b_g2"};

const char *pl__bp_section_name(unsigned section)
{
    return section < PL__BP_SECTIONS ? section_names[section] : "?";
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static size_t unit_bytes(unsigned section)
{
    return pl__bp_section_is_g2(section) ? PL__BP_G2_BYTES : PL__BP_G1_BYTES;
}

static const char *blst_problem(BLST_ERROR e)
{
    switch (e) {
    case BLST_SUCCESS:
        return NULL;
    case BLST_BAD_ENCODING:
        return "is not a valid encoding (the infinity flag with other bits "
               "set, or a coordinate >= q)";
    case BLST_POINT_NOT_ON_CURVE:
        return "is not on the curve";
    case BLST_POINT_NOT_IN_GROUP:
        return "is not in the prime-order subgroup";
    case BLST_PK_IS_INFINITY:
        return "is the point at infinity";
    default:
        return "cannot be decoded";
    }
}

/* ---- points as bellperson reads them ------------------------------------ */

/* The zcash encoding's flags, in the first byte of a point. */
#define ZC_COMPRESSED 0x80u
#define ZC_SIGN 0x20u

/* An uncompressed point of a parameter or .vk file.  bellperson writes
 * them with to_uncompressed (blst's serialization: compressed flag and
 * sign bit clear).  blst's deserializer takes a slot whose compressed flag
 * is set as a compressed point in its first half, ignoring the rest, and
 * so does blstrs's from_uncompressed over it; the reader bellperson's
 * format was defined with (pairing's into_affine_unchecked) refused the
 * flag (UnexpectedCompressionMode) and a sign bit (UnexpectedInformation),
 * and no writer sets them: a file holding them is damaged, refused here,
 * BLST_BAD_ENCODING (slot_problem says which bit). */
static BLST_ERROR decode_g1(blst_p1_affine *out, const uint8_t *in)
{
    if (in[0] & (ZC_COMPRESSED | ZC_SIGN))
        return BLST_BAD_ENCODING;
    return blst_p1_deserialize(out, in);
}

static BLST_ERROR decode_g2(blst_p2_affine *out, const uint8_t *in)
{
    if (in[0] & (ZC_COMPRESSED | ZC_SIGN))
        return BLST_BAD_ENCODING;
    return blst_p2_deserialize(out, in);
}

/* What is wrong with the uncompressed slot `in` that failed with e. */
static const char *slot_problem(const uint8_t *in, BLST_ERROR e)
{
    if (e == BLST_BAD_ENCODING && (in[0] & ZC_COMPRESSED))
        return "has the compressed flag set (bit 7 of its first byte) in "
               "an uncompressed slot";
    if (e == BLST_BAD_ENCODING && (in[0] & ZC_SIGN))
        return "has the sign bit set (bit 5 of its first byte) on an "
               "uncompressed point";
    return blst_problem(e);
}

const char *pl__bp_decode_g1(void *out, const uint8_t *bytes,
                             const void *ctx)
{
    (void)ctx;
    BLST_ERROR e = decode_g1(out, bytes);
    if (e == BLST_SUCCESS && blst_p1_affine_is_inf(out))
        e = BLST_PK_IS_INFINITY;
    return slot_problem(bytes, e);
}

const char *pl__bp_decode_g2(void *out, const uint8_t *bytes,
                             const void *ctx)
{
    (void)ctx;
    BLST_ERROR e = decode_g2(out, bytes);
    if (e == BLST_SUCCESS && blst_p2_affine_is_inf(out))
        e = BLST_PK_IS_INFINITY;
    return slot_problem(bytes, e);
}

const char *const pl__bp_not_in_group = "is not in the prime-order subgroup";

static uint64_t slot_offset(const pl_bp_params *p, unsigned section,
                            uint64_t i)
{
    return p->at[section] + 4 +
           i * (pl__bp_section_is_g2(section) ? PL__BP_G2_BYTES
                                              : PL__BP_G1_BYTES);
}

pl_status pl__bp_point_fail(const pl_bp_params *p, unsigned section,
                            uint64_t i, BLST_ERROR e, pl_error *err)
{
    const uint64_t at = slot_offset(p, section, i);
    return pl__error_set(err, PL_EFORMAT, "%s: section %s: point %" PRIu64
                         " %s (at byte offset %" PRIu64 ")", p->path,
                         pl__bp_section_name(section), i,
                         slot_problem(p->map.data + at, e), at);
}

/* ---- the reader --------------------------------------------------------- */

/* bellperson's read_g1 and read_g2 (mapped_params.rs, params.rs) refuse a
 * query point at infinity on the checked and the unchecked path alike:
 * "point at infinity".  The IC points of a verifying key likewise
 * (verifying_key.rs). */
BLST_ERROR pl__bp_g1_at(blst_p1_affine *out, const pl_bp_params *p,
                        unsigned section, uint32_t i)
{
    BLST_ERROR e = decode_g1(out, p->points[section] +
                                      (uint64_t)i * PL__BP_G1_BYTES);
    if (e == BLST_SUCCESS && blst_p1_affine_is_inf(out))
        e = BLST_PK_IS_INFINITY;
    return e;
}

BLST_ERROR pl__bp_g2_at(blst_p2_affine *out, const pl_bp_params *p,
                        uint32_t i)
{
    BLST_ERROR e = decode_g2(out, p->points[PL__BP_B_G2] +
                                      (uint64_t)i * PL__BP_G2_BYTES);
    if (e == BLST_SUCCESS && blst_p2_affine_is_inf(out))
        e = BLST_PK_IS_INFINITY;
    return e;
}

/* The six points of the verifying key at data[0..863], decoded, each in
 * its subgroup: bellperson reads them with from_uncompressed, which checks
 * the subgroup (verifying_key.rs, read and read_mmap); the point at
 * infinity passes it there, and here (--check-params refuses it). */
static pl_status parse_vk_points(pl_bp_params *p, const uint8_t *d,
                                 pl_error *err)
{
    static const struct {
        const char *name;
        bool g2;
    } f[6] = {{"alpha_g1", false}, {"beta_g1", false}, {"beta_g2", true},
              {"gamma_g2", true},  {"delta_g1", false}, {"delta_g2", true}};
    blst_p1_affine *g1[3] = {&p->alpha_g1, &p->beta_g1, &p->delta_g1};
    blst_p2_affine *g2[3] = {&p->beta_g2, &p->gamma_g2, &p->delta_g2};
    uint64_t at = 0;
    unsigned i1 = 0, i2 = 0;
    for (unsigned i = 0; i < 6; i++) {
        BLST_ERROR e;
        if (f[i].g2) {
            e = decode_g2(g2[i2], d + at);
            if (e == BLST_SUCCESS && !blst_p2_affine_in_g2(g2[i2]))
                e = BLST_POINT_NOT_IN_GROUP;
            i2++;
        } else {
            e = decode_g1(g1[i1], d + at);
            if (e == BLST_SUCCESS && !blst_p1_affine_in_g1(g1[i1]))
                e = BLST_POINT_NOT_IN_GROUP;
            i1++;
        }
        if (e != BLST_SUCCESS)
            return pl__error_set(err, PL_EFORMAT, "%s: verifying key: %s %s "
                                 "(at byte offset %" PRIu64 ")", p->path,
                                 f[i].name, slot_problem(d + at, e), at);
        at += f[i].g2 ? PL__BP_G2_BYTES : PL__BP_G1_BYTES;
    }
    return PL_OK;
}

/* One section at *at: its count, then its points, within len. */
static pl_status parse_section(pl_bp_params *p, unsigned s, uint64_t *at,
                               pl_error *err)
{
    const uint64_t len = p->map.size;
    const char *name = pl__bp_section_name(s);
    if (len - *at < 4)
        return pl__error_set(err, PL_EFORMAT, "%s: section %s: the file ends "
                             "before its u32 count (%" PRIu64 " bytes left, "
                             "at byte offset %" PRIu64 ")", p->path, name,
                             len - *at, *at);
    p->at[s] = *at;
    p->count[s] = be32(p->map.data + *at);
    *at += 4;
    const uint64_t need = (uint64_t)p->count[s] * unit_bytes(s);
    if (need > len - *at)
        return pl__error_set(err, PL_EFORMAT, "%s: section %s: count %" PRIu32
                             " needs %" PRIu64 " bytes of points, the file has "
                             "%" PRIu64 " left (count at byte offset %" PRIu64
                             ")", p->path, name, p->count[s], need, len - *at,
                             p->at[s]);
    p->points[s] = p->map.data + *at;
    *at += need;
    return PL_OK;
}

static pl_status parse(pl_bp_params *p, pl_error *err)
{
    const uint64_t len = p->map.size;
    uint64_t at = PL__BP_VK_POINTS_BYTES;
    pl_status st;
    /* a snarkjs file given by mistake: say so rather than "bad point" */
    static const char *const magics[] = {"zkey", "wtns", "r1cs", "ptau"};
    for (unsigned i = 0; len >= 4 && i < 4; i++)
        if (memcmp(p->map.data, magics[i], 4) == 0)
            return pl__error_set(err, PL_EFORMAT, "%s: a snarkjs .%s file "
                                 "(magic \"%s\"), not a bellperson parameter "
                                 "or .vk file (at byte offset 0)", p->path,
                                 magics[i], magics[i]);
    if (len < PL__BP_VK_POINTS_BYTES)
        return pl__error_set(err, PL_EFORMAT, "%s: verifying key: the file is "
                             "%" PRIu64 " bytes, the key's six points take "
                             "%u (at byte offset 0)", p->path, len,
                             PL__BP_VK_POINTS_BYTES);
    if ((st = parse_vk_points(p, p->map.data, err)) ||
        (st = parse_section(p, PL__BP_IC, &at, err)))
        return st;
    if (p->count[PL__BP_IC] == 0)
        return pl__error_set(err, PL_EFORMAT, "%s: section ic: count 0, it "
                             "holds at least ONE's point (at byte offset "
                             "%" PRIu64 ")", p->path, p->at[PL__BP_IC]);
    /* the IC points as bellperson reads them: checked (in G1), and not
     * the point at infinity (verifying_key.rs) */
    for (uint32_t i = 0; i < p->count[PL__BP_IC]; i++) {
        blst_p1_affine ic;
        BLST_ERROR e = pl__bp_g1_at(&ic, p, PL__BP_IC, i);
        if (e == BLST_SUCCESS && !blst_p1_affine_in_g1(&ic))
            e = BLST_POINT_NOT_IN_GROUP;
        if (e != BLST_SUCCESS)
            return pl__bp_point_fail(p, PL__BP_IC, i, e, err);
    }
    if (at == len) {
        p->vk_only = true;
        return PL_OK;
    }
    for (unsigned s = PL__BP_H; s < PL__BP_SECTIONS; s++)
        if ((st = parse_section(p, s, &at, err)))
            return st;
    if (at != len)
        return pl__error_set(err, PL_EFORMAT, "%s: %" PRIu64 " bytes after "
                             "section b_g2, which ends the file (at byte "
                             "offset %" PRIu64 ")", p->path, len - at, at);
    if (p->count[PL__BP_B_G1] != p->count[PL__BP_B_G2])
        return pl__error_set(err, PL_EFORMAT, "%s: section b_g2: count "
                             "%" PRIu32 ", section b_g1 has %" PRIu32 " (the "
                             "same variables in G1 and G2; at byte offset "
                             "%" PRIu64 ")", p->path, p->count[PL__BP_B_G2],
                             p->count[PL__BP_B_G1], p->at[PL__BP_B_G2]);
    return PL_OK;
}

pl_status pl__bp_parse(pl_bp_params **out, const uint8_t *data, size_t len,
                       const char *name, pl_error *err)
{
    pl_status st = PL_OK;
    *out = NULL;
    pl_bp_params *p = calloc(1, sizeof(*p));
    if (!p || !(p->path = pl__path_dup(name))) {
        free(p);
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory", name);
    }
    p->borrowed = true;
    p->map.data = data;
    p->map.size = len;
    if ((st = parse(p, err))) {
        pl_bp_params_close(p);
        return st;
    }
    *out = p;
    return PL_OK;
}

pl_status pl_bp_params_open(pl_bp_params **out, const char *path,
                            pl_error *err)
{
    pl_status st = PL_OK;
    *out = NULL;
    pl_bp_params *p = calloc(1, sizeof(*p));
    if (!p || !(p->path = pl__path_dup(path))) {
        free(p);
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
    }
    if ((st = pl__file_map(&p->map, path, err)) || (st = parse(p, err))) {
        pl_bp_params_close(p);
        return st;
    }
    *out = p;
    return PL_OK;
}

void pl_bp_params_close(pl_bp_params *p)
{
    if (!p)
        return;
    if (!p->borrowed)
        pl__file_unmap(&p->map);
    free(p->path);
    free(p);
}

void pl_bp_params_get_info(const pl_bp_params *p, pl_bp_info *out)
{
    memset(out, 0, sizeof(*out));
    out->vk_only = p->vk_only;
    out->file_bytes = p->map.size;
    out->n_ic = p->count[PL__BP_IC];
    out->n_h = p->count[PL__BP_H];
    out->n_l = p->count[PL__BP_L];
    out->n_a = p->count[PL__BP_A];
    out->n_b_g1 = p->count[PL__BP_B_G1];
    out->n_b_g2 = p->count[PL__BP_B_G2];
}

/* ---- the writer --------------------------------------------------------- */

static pl_status writer_fail(pl__bp_writer *w, pl_status st)
{
    if (w->status == PL_OK)
        w->status = st;
    return w->status;
}

pl_status pl__bp_write_begin(pl__bp_writer *w, pl__output *out, bool vk_only,
                             const pl__bp_vk *vk, pl_error *err)
{
    uint8_t buf[PL__BP_VK_POINTS_BYTES], *q = buf;
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->vk_only = vk_only;
    w->section = PL__BP_IC;
    blst_p1_affine_serialize(q, vk->alpha_g1);
    q += PL__BP_G1_BYTES;
    blst_p1_affine_serialize(q, vk->beta_g1);
    q += PL__BP_G1_BYTES;
    blst_p2_affine_serialize(q, vk->beta_g2);
    q += PL__BP_G2_BYTES;
    blst_p2_affine_serialize(q, vk->gamma_g2);
    q += PL__BP_G2_BYTES;
    blst_p1_affine_serialize(q, vk->delta_g1);
    q += PL__BP_G1_BYTES;
    blst_p2_affine_serialize(q, vk->delta_g2);
    return writer_fail(w, pl__output_write(out, buf, sizeof(buf), err));
}

pl_status pl__bp_section_begin(pl__bp_writer *w, unsigned section,
                               uint32_t count, pl_error *err)
{
    uint8_t len[4];
    if (w->status)
        return w->status;
    if (w->open || section != w->section ||
        (w->vk_only && section != PL__BP_IC))
        return writer_fail(w, pl__error_set(err, PL_EINTERNAL, "%s: section "
                                            "%s begun out of order",
                                            w->out->path,
                                            pl__bp_section_name(section)));
    put_be32(len, count);
    w->open = true;
    w->left = count;
    return writer_fail(w, pl__output_write(w->out, len, sizeof(len), err));
}

/* Points are converted through a small buffer: 64 G2 points are 12 KiB. */
#define PUT_BATCH 64u

pl_status pl__bp_put_points(pl__bp_writer *w, const uint8_t *points, size_t n,
                            pl_error *err)
{
    uint8_t buf[PUT_BATCH * PL__BP_G2_BYTES];
    const bool g2 = pl__bp_section_is_g2(w->section);
    const bool skip_inf = w->section >= PL__BP_A;
    const size_t in_unit = g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine);
    const size_t out_unit = unit_bytes(w->section);
    size_t fill = 0;
    if (w->status)
        return w->status;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *src = points + i * in_unit;
        if (g2) {
            blst_p2_affine pt;
            memcpy(&pt, src, sizeof(pt));
            if (skip_inf && blst_p2_affine_is_inf(&pt))
                continue;
            blst_p2_affine_serialize(buf + fill * out_unit, &pt);
        } else {
            blst_p1_affine pt;
            memcpy(&pt, src, sizeof(pt));
            if (skip_inf && blst_p1_affine_is_inf(&pt))
                continue;
            blst_p1_affine_serialize(buf + fill * out_unit, &pt);
        }
        if (w->left == 0)
            return writer_fail(w, pl__error_set(err, PL_EINTERNAL, "%s: "
                                                "section %s: more points than "
                                                "its count", w->out->path,
                                                pl__bp_section_name(
                                                    w->section)));
        w->left--;
        if (++fill == PUT_BATCH) {
            if (writer_fail(w, pl__output_write(w->out, buf, fill * out_unit,
                                                err)))
                return w->status;
            fill = 0;
        }
    }
    return writer_fail(w, pl__output_write(w->out, buf, fill * out_unit, err));
}

pl_status pl__bp_section_end(pl__bp_writer *w, pl_error *err)
{
    if (w->status)
        return w->status;
    if (!w->open || w->left != 0)
        return writer_fail(w, pl__error_set(err, PL_EINTERNAL, "%s: section "
                                            "%s: %" PRIu64 " points short of "
                                            "its count", w->out->path,
                                            pl__bp_section_name(w->section),
                                            w->left));
    w->open = false;
    w->section++;
    return PL_OK;
}

pl_status pl__bp_write_end(pl__bp_writer *w, pl_error *err)
{
    if (w->status)
        return w->status;
    unsigned last = w->vk_only ? PL__BP_IC : PL__BP_B_G2;
    if (w->open || w->section != last + 1)
        return writer_fail(w, pl__error_set(err, PL_EINTERNAL, "%s: ended "
                                            "before section %s",
                                            w->out->path,
                                            pl__bp_section_name(w->section)));
    return PL_OK;
}

/* ---- proofs -------------------------------------------------------------- */

static const char *const proof_point_names[3] = {
    "A (bytes 0-47)", "B (bytes 48-143)", "C (bytes 144-191)"};

/* A bad point: an encoding that is not one is malformed input; a point
 * that is not where a proof's point must be (off the curve, outside its
 * subgroup, at infinity) makes the proof invalid, as the verifier would
 * say. */
static pl_status proof_point_fail(BLST_ERROR e, unsigned point, pl_error *err)
{
    pl_status st = e == BLST_BAD_ENCODING ? PL_EFORMAT : PL_EINVALID;
    return pl__error_set(err, st, "proof point %s %s",
                         proof_point_names[point], blst_problem(e));
}

/* Why a proof's point (on its curve or not) is not one bellperson reads:
 * Proof::read_many (proof.rs) decodes each point with from_bytes, which
 * checks the curve and the subgroup, and then refuses the point at
 * infinity. */
static BLST_ERROR proof_g1_problem(const blst_p1_affine *p)
{
    if (blst_p1_affine_is_inf(p))
        return BLST_PK_IS_INFINITY;
    if (!blst_p1_affine_on_curve(p))
        return BLST_POINT_NOT_ON_CURVE;
    return blst_p1_affine_in_g1(p) ? BLST_SUCCESS : BLST_POINT_NOT_IN_GROUP;
}

static BLST_ERROR proof_g2_problem(const blst_p2_affine *p)
{
    if (blst_p2_affine_is_inf(p))
        return BLST_PK_IS_INFINITY;
    if (!blst_p2_affine_on_curve(p))
        return BLST_POINT_NOT_ON_CURVE;
    return blst_p2_affine_in_g2(p) ? BLST_SUCCESS : BLST_POINT_NOT_IN_GROUP;
}

/* The first of A, B, C with a problem (*point: 0, 1, 2), or success. */
static BLST_ERROR proof_points_problem(const blst_p1_affine *a,
                                       const blst_p2_affine *b,
                                       const blst_p1_affine *c,
                                       unsigned *point)
{
    BLST_ERROR e;
    if ((e = proof_g1_problem(a)) != BLST_SUCCESS)
        *point = 0;
    else if ((e = proof_g2_problem(b)) != BLST_SUCCESS)
        *point = 1;
    else if ((e = proof_g1_problem(c)) != BLST_SUCCESS)
        *point = 2;
    return e;
}

pl_status pl_proof_from_bp_bytes(pl_proof *out, const uint8_t *in,
                                 pl_error *err)
{
    blst_p1_affine a, c;
    blst_p2_affine b;
    BLST_ERROR e;
    unsigned bad;
    /* compressed: the top bit of each point's first byte is set */
    if ((e = blst_p1_uncompress(&a, in)) != BLST_SUCCESS)
        return proof_point_fail(e, 0, err);
    if ((e = blst_p2_uncompress(&b, in + PL__BP_G1C_BYTES)) != BLST_SUCCESS)
        return proof_point_fail(e, 1, err);
    if ((e = blst_p1_uncompress(&c, in + PL__BP_G1C_BYTES +
                                        PL__BP_G2C_BYTES)) != BLST_SUCCESS)
        return proof_point_fail(e, 2, err);
    if ((e = proof_points_problem(&a, &b, &c, &bad)) != BLST_SUCCESS)
        return proof_point_fail(e, bad, err);
    memcpy(out->a.b, &a, sizeof(a));
    memcpy(out->b.b, &b, sizeof(b));
    memcpy(out->c.b, &c, sizeof(c));
    return PL_OK;
}

void pl_proof_to_bp_bytes(uint8_t *out, const pl_proof *proof)
{
    blst_p1_affine a, c;
    blst_p2_affine b;
    memcpy(&a, proof->a.b, sizeof(a));
    memcpy(&b, proof->b.b, sizeof(b));
    memcpy(&c, proof->c.b, sizeof(c));
    blst_p1_affine_compress(out, &a);
    blst_p2_affine_compress(out + PL__BP_G1C_BYTES, &b);
    blst_p1_affine_compress(out + PL__BP_G1C_BYTES + PL__BP_G2C_BYTES, &c);
}

pl_status pl_bp_proofs_read(pl_proof **out, size_t *count, const char *path,
                            size_t max_count, pl_error *err)
{
    pl__mapped m = {0};
    pl_proof *proofs = NULL;
    pl_status st;
    *out = NULL;
    *count = 0;
    if ((st = pl__file_map(&m, path, err)))
        goto fail;
    if (m.size % PL_BP_PROOF_BYTES != 0) {
        st = pl__error_set(err, PL_EFORMAT, "%s: %" PRIu64 " bytes is not a "
                           "multiple of a proof's %u (bytes from offset "
                           "%" PRIu64 " on)", path, m.size, PL_BP_PROOF_BYTES,
                           m.size - m.size % PL_BP_PROOF_BYTES);
        goto fail;
    }
    const uint64_t n = m.size / PL_BP_PROOF_BYTES;
    if (max_count && n > max_count) {
        st = pl__error_set(err, PL_EFORMAT, "%s: %" PRIu64 " proofs, at most "
                           "%zu expected", path, n, max_count);
        goto fail;
    }
    if (!(proofs = calloc((size_t)n, sizeof(*proofs)))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory for %" PRIu64
                           " proofs", path, n);
        goto fail;
    }
    for (uint64_t i = 0; i < n; i++)
        if ((st = pl_proof_from_bp_bytes(&proofs[i], m.data +
                                         i * PL_BP_PROOF_BYTES, err))) {
            pl__error_set(err, st, "%s: proof %" PRIu64 ": %s (at byte "
                          "offset %" PRIu64 ")", path, i, err ? err->msg : "",
                          i * PL_BP_PROOF_BYTES);
            goto fail;
        }
    *out = proofs;
    *count = (size_t)n;
    proofs = NULL;
fail:
    free(proofs);
    pl__file_unmap(&m);
    return st;
}

void pl_bp_proofs_free(pl_proof *proofs)
{
    free(proofs);
}

/* count proofs in 192 bytes each, concatenated, in a malloc'd buffer. */
static pl_status proofs_bytes(uint8_t **out, const char *path,
                              const pl_proof *proofs, size_t count,
                              pl_error *err)
{
    *out = NULL;
    if (count && !proofs)
        return pl__error_set(err, PL_EUSAGE, "%s: no proofs to write", path);
    /* a point the encoding cannot carry (off the curve: its compressed x
     * would decode to another point or none) or that bellperson refuses on
     * read is never written */
    for (size_t i = 0; i < count; i++) {
        blst_p1_affine a, c;
        blst_p2_affine b;
        unsigned bad;
        memcpy(&a, proofs[i].a.b, sizeof(a));
        memcpy(&b, proofs[i].b.b, sizeof(b));
        memcpy(&c, proofs[i].c.b, sizeof(c));
        BLST_ERROR e = proof_points_problem(&a, &b, &c, &bad);
        if (e != BLST_SUCCESS)
            return pl__error_set(err, PL_EINVALID, "%s: proof %zu: point %c "
                                 "%s: not written", path, i, "ABC"[bad],
                                 blst_problem(e));
    }
    if (count > SIZE_MAX / PL_BP_PROOF_BYTES ||
        !(*out = malloc(count ? count * PL_BP_PROOF_BYTES : 1)))
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < count; i++)
        pl_proof_to_bp_bytes(*out + i * PL_BP_PROOF_BYTES, &proofs[i]);
    return PL_OK;
}

static pl_status check_inputs(const char *path, const pl_scalar *inputs,
                              size_t count, pl_error *err)
{
    if (count && !inputs)
        return pl__error_set(err, PL_EUSAGE, "%s: no inputs to write", path);
    for (size_t i = 0; i < count; i++)
        if (!pl__scalar_is_canonical(inputs[i].b))
            return pl__error_set(err, PL_EFORMAT, "%s: input %zu is not below "
                                 "the scalar field modulus r", path, i);
    return PL_OK;
}

pl_status pl_bp_proofs_write(const char *path, const pl_proof *proofs,
                             size_t count, pl_error *err)
{
    return pl_bp_proofs_write_with_inputs(path, proofs, count, NULL, NULL, 0,
                                          err);
}

pl_status pl_bp_proofs_write_with_inputs(const char *proofs_path,
                                         const pl_proof *proofs, size_t count,
                                         const char *inputs_path,
                                         const pl_scalar *inputs,
                                         size_t n_inputs, pl_error *err)
{
    uint8_t *bytes = NULL;
    pl_status st;
    if ((inputs_path && (st = check_inputs(inputs_path, inputs, n_inputs,
                                           err))) ||
        (st = proofs_bytes(&bytes, proofs_path, proofs, count, err)))
        goto done;
    st = pl__file_write_pair(proofs_path, bytes, count * PL_BP_PROOF_BYTES,
                             inputs_path, inputs, n_inputs * PL__FR_BYTES,
                             err);
done:
    free(bytes);
    return st;
}

/* ---- public inputs ------------------------------------------------------- */

pl_status pl_bp_inputs_read(pl_scalar **out, size_t *count, const char *path,
                            size_t max_count, pl_error *err)
{
    char *data = NULL;
    size_t size = 0;
    pl_scalar *v = NULL;
    pl_status st;
    *out = NULL;
    *count = 0;
    /* an empty file is no inputs; pl__file_read_small refuses empty files.
     * Unbounded (max_count 0) still stops at 2 Mi inputs, 64 MiB: the
     * buffer is a plain malloc, sized for public inputs, not witnesses. */
    size_t max_bytes = max_count && max_count < SIZE_MAX / PL__FR_BYTES
                           ? max_count * PL__FR_BYTES
                           : (size_t)64 << 20;
    pl_error read_err = {0};
    st = pl__file_read_small(&data, &size, path, max_bytes, &read_err);
    if (st == PL_EFORMAT && strstr(read_err.msg, "file is empty")) {
        size = 0;
        st = PL_OK;
    }
    if (st) {
        if (err)
            *err = read_err;
        goto fail;
    }
    if (size % PL__FR_BYTES != 0) {
        st = pl__error_set(err, PL_EFORMAT, "%s: %zu bytes is not a multiple "
                           "of a field element's %u (bytes from offset %zu "
                           "on)", path, size, PL__FR_BYTES,
                           size - size % PL__FR_BYTES);
        goto fail;
    }
    const size_t n = size / PL__FR_BYTES;
    if (!(v = malloc(n ? n * sizeof(*v) : 1))) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(v[i].b, data + i * PL__FR_BYTES, PL__FR_BYTES);
        if (!pl__scalar_is_canonical(v[i].b)) {
            st = pl__error_set(err, PL_EFORMAT, "%s: input %zu is not below "
                               "the scalar field modulus r (at byte offset "
                               "%zu)", path, i, i * PL__FR_BYTES);
            goto fail;
        }
    }
    *out = v;
    *count = n;
    v = NULL;
fail:
    free(v);
    free(data);
    return st;
}

pl_status pl_bp_inputs_write(const char *path, const pl_scalar *inputs,
                             size_t count, pl_error *err)
{
    pl_status st = check_inputs(path, inputs, count, err);
    return st != PL_OK ? st : pl__file_write_atomic(path, inputs,
                                                    count * PL__FR_BYTES,
                                                    err);
}

/* ---- a zkey's key as a .vk ----------------------------------------------- */

pl_status pl_bp_vk_write_from_zkey(const pl_zkey *zk, const char *vk_path,
                                   pl_error *err)
{
    pl__output out;
    pl__bp_writer w;
    pl_status st = PL_OK;
    blst_p1_affine p1[3];
    blst_p2_affine p2[3];
    memset(&out, 0, sizeof(out));
    if (!zk)
        return pl__error_set(err, PL_EUSAGE, "pl_bp_vk_write_from_zkey: no "
                             "zkey");
    /* the zkey's points may sit at any byte offset: copy, never cast */
    memcpy(&p1[0], zk->alpha1, PL__G1_BYTES);
    memcpy(&p1[1], zk->beta1, PL__G1_BYTES);
    memcpy(&p1[2], zk->delta1, PL__G1_BYTES);
    memcpy(&p2[0], zk->beta2, PL__G2_BYTES);
    memcpy(&p2[1], zk->gamma2, PL__G2_BYTES);
    memcpy(&p2[2], zk->delta2, PL__G2_BYTES);
    const pl__bp_vk vk = {&p1[0], &p1[1], &p1[2], &p2[0], &p2[1], &p2[2]};
    if ((st = pl__output_open(&out, vk_path, err)) ||
        (st = pl__bp_write_begin(&w, &out, true, &vk, err)) ||
        (st = pl__bp_section_begin(&w, PL__BP_IC, zk->n_public + 1, err)) ||
        (st = pl__bp_put_points(&w, zk->ic, (size_t)zk->n_public + 1, err)) ||
        (st = pl__bp_section_end(&w, err)) ||
        (st = pl__bp_write_end(&w, err)) ||
        (st = pl__output_commit(&out, err)))
        goto fail;
fail:
    pl__output_abort(&out);
    return st;
}

/* ---- the proving assignment's buffers ------------------------------------ */

size_t pl__c2_density_words(size_t n_inp, size_t n_aux)
{
    return (n_aux > n_inp ? n_aux : n_inp) / 64 + 1;
}

void pl__c2_assignment_over(pl_c2_assignment *out, pl_scalar *abc,
                            size_t rows, const uint64_t *density,
                            const pl_scalar *values, size_t n_inp,
                            size_t n_aux)
{
    const size_t words = pl__c2_density_words(n_inp, n_aux);
    for (size_t i = 0; i < n_inp; i++) /* input_i * 0 = 0 */
        abc[rows - n_inp + i] = values[i];
    const uint64_t *a_aux = density, *b_inp = density + words,
                   *b_aux = density + 2 * words;
    out->a_aux_density = a_aux;
    out->a_aux_bit_len = n_aux;
    out->a_aux_popcount = pl__popcount_bits(a_aux, n_aux);
    out->b_inp_density = b_inp;
    out->b_inp_bit_len = n_inp;
    out->b_inp_popcount = pl__popcount_bits(b_inp, n_inp);
    out->b_aux_density = b_aux;
    out->b_aux_bit_len = n_aux;
    out->b_aux_popcount = pl__popcount_bits(b_aux, n_aux);
    out->a = abc;
    out->b = abc + rows;
    out->c = abc + 2 * rows;
    out->abc_size = rows;
    out->inp_assignment = values;
    out->inp_assignment_size = n_inp;
    out->aux_assignment = values + n_inp;
    out->aux_assignment_size = n_aux;
}
