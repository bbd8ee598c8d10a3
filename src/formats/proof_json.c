/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proof.json and public.json, read and written as snarkjs does, and the
 * snarkjs JSON encodings of field elements and points (snarkjs_json.h)
 * that the verification key code (groth16/vkey.c) shares.  Called by the CLI and by
 * tests; the verifier works on the decoded values.
 *
 * Reading checks the encoding only: decimal strings below the modulus,
 * points padded with z = 1 (or snarkjs's infinity [0, 1, 0]), the protocol
 * and curve tags.  Whether a proof point is on its curve and in its
 * subgroup is the verifier's question (snarkjs answers it in verify, with
 * "invalid"), so a proof of garbage points still reads and then fails
 * pl_verify with PL_EINVALID.  The curve is the "curve" tag's ("bls12381",
 * "bn128"): BN254's points decode through field/bn254/serial.h into the
 * zkey's layout at the start of pl_proof's arrays.  Writing reproduces snarkjs's layout byte
 * for byte: bfj.write(value, {space: 1}), which is JSON.stringify(value,
 * null, 1) except that an empty array is "[\n]"; no final newline.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/snarkjs_json.h"
#include "field/field.h"
#include "formats/formats.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)PL_CURVE_BLS12_381 == (int)PL__CURVE_BLS12_381 &&
                   (int)PL_CURVE_BN254 == (int)PL__CURVE_BN254,
               "pl_curve and pl__curve agree");
_Static_assert(sizeof(blst_p1_affine) == sizeof(pl_g1_affine),
               "pl_g1_affine holds the bytes of a blst_p1_affine");
_Static_assert(sizeof(blst_p2_affine) == sizeof(pl_g2_affine),
               "pl_g2_affine holds the bytes of a blst_p2_affine");

/* A proof is about 1.3 KB (twelve coordinates of up to 116 digits);
 * 16 KiB leaves room for any indentation. */
#define PL__PROOF_JSON_MAX (16u << 10)
/* public.json holds about 82 bytes per input (77 digits, quotes, a comma,
 * a newline and an indent): PL_PUBLIC_JSON_BYTES (256) per input and
 * 1 KiB more leave room for any layout, so a key's input count bounds the
 * file. */
#define PL__PUBLIC_JSON_BASE ((size_t)1 << 10)
#define PL__DEC_CAP 128 /* 2^384 has 116 digits */

/* ---- shared encodings ------------------------------------------------- */

pl_status pl__json_read_fp(blst_fp *out, const pl__json_doc *doc,
                           const pl__json_value *v, const char *path,
                           pl_error *err)
{
    pl_status st = PL_OK;
    uint8_t le[48];

    if (v->type != PL__JSON_STRING) {
        st = pl__json_fail(doc, err, v, path, "expected a decimal string, "
                           "found %s", pl__json_type_name(v->type));
        goto fail;
    }
    if (!pl__dec_to_le(le, sizeof(le), v->text, v->len)) {
        st = pl__json_fail(doc, err, v, path, "not a decimal integer below "
                           "2^384 (digits only, no sign, no leading zero)");
        goto fail;
    }
    if (!pl__fp_from_dec(out, v->text, v->len)) {
        st = pl__json_fail(doc, err, v, path, "not below the base field "
                           "modulus q");
        goto fail;
    }
fail:
    return st;
}

static bool pl__json_is_text(const pl__json_value *v, const char *s)
{
    return v->type == PL__JSON_STRING && v->len == strlen(s) &&
           memcmp(v->text, s, v->len) == 0;
}

/* Checks an array of exactly n elements. */
static pl_status pl__json_expect_array(const pl__json_doc *doc,
                                       const pl__json_value *v, size_t n,
                                       const char *path, const char *shape,
                                       pl_error *err)
{
    pl_status st = PL_OK;
    if (v->type != PL__JSON_ARRAY)
        st = pl__json_fail(doc, err, v, path, "expected %s, found %s", shape,
                           pl__json_type_name(v->type));
    else if (v->len != n)
        st = pl__json_fail(doc, err, v, path, "expected %s, found an array "
                           "of %zu", shape, v->len);
    return st;
}

pl_status pl__json_read_g1(blst_p1_affine *out, const pl__json_doc *doc,
                           const pl__json_value *v, const char *path,
                           pl_error *err)
{
    pl_status st;
    char sub[256];
    const pl__json_value *e[3];
    blst_fp c[3];

    st = pl__json_expect_array(doc, v, 3, path, "a G1 point [x, y, z]", err);
    if (st != PL_OK)
        goto fail;
    e[0] = pl__json_first(v);
    e[1] = pl__json_next(e[0]);
    e[2] = pl__json_next(e[1]);
    for (int i = 0; i < 3; i++) {
        snprintf(sub, sizeof(sub), "%s[%d]", path, i);
        if ((st = pl__json_read_fp(&c[i], doc, e[i], sub, err)) != PL_OK)
            goto fail;
    }
    if (pl__json_is_text(e[2], "1")) {
        out->x = c[0];
        out->y = c[1];
    } else if (pl__json_is_text(e[2], "0") && pl__json_is_text(e[0], "0") &&
               pl__json_is_text(e[1], "1")) {
        memset(out, 0, sizeof(*out));
    } else {
        snprintf(sub, sizeof(sub), "%s[2]", path);
        st = pl__json_fail(doc, err, e[2], sub, "z must be \"1\" (affine), "
                           "or the point [\"0\", \"1\", \"0\"] (infinity)");
        goto fail;
    }
fail:
    return st;
}

pl_status pl__json_read_g2(blst_p2_affine *out, const pl__json_doc *doc,
                           const pl__json_value *v, const char *path,
                           pl_error *err)
{
    pl_status st;
    char sub[256], sub2[280];
    const pl__json_value *e[3], *f[3][2];
    blst_fp2 c[3];

    st = pl__json_expect_array(doc, v, 3, path,
                               "a G2 point [[x0, x1], [y0, y1], [z0, z1]]",
                               err);
    if (st != PL_OK)
        goto fail;
    e[0] = pl__json_first(v);
    e[1] = pl__json_next(e[0]);
    e[2] = pl__json_next(e[1]);
    for (int i = 0; i < 3; i++) {
        snprintf(sub, sizeof(sub), "%s[%d]", path, i);
        st = pl__json_expect_array(doc, e[i], 2, sub,
                                   "an Fq2 element [c0, c1]", err);
        if (st != PL_OK)
            goto fail;
        f[i][0] = pl__json_first(e[i]);
        f[i][1] = pl__json_next(f[i][0]);
        for (int j = 0; j < 2; j++) {
            snprintf(sub2, sizeof(sub2), "%s[%d]", sub, j);
            st = pl__json_read_fp(&c[i].fp[j], doc, f[i][j], sub2, err);
            if (st != PL_OK)
                goto fail;
        }
    }
    if (pl__json_is_text(f[2][0], "1") && pl__json_is_text(f[2][1], "0")) {
        out->x = c[0];
        out->y = c[1];
    } else if (pl__json_is_text(f[2][0], "0") &&
               pl__json_is_text(f[2][1], "0") &&
               pl__json_is_text(f[0][0], "0") &&
               pl__json_is_text(f[0][1], "0") &&
               pl__json_is_text(f[1][0], "1") &&
               pl__json_is_text(f[1][1], "0")) {
        memset(out, 0, sizeof(*out));
    } else {
        snprintf(sub, sizeof(sub), "%s[2]", path);
        st = pl__json_fail(doc, err, e[2], sub, "z must be [\"1\", \"0\"] "
                           "(affine), or the point at infinity "
                           "[[\"0\", \"0\"], [\"1\", \"0\"], [\"0\", \"0\"]]");
        goto fail;
    }
fail:
    return st;
}

pl_status pl__json_check_tag(const pl__json_doc *doc,
                             const pl__json_value *obj, const char *key,
                             const char *want, bool required, pl_error *err)
{
    pl_status st;
    const pl__json_value *v;

    st = pl__json_member(&v, doc, obj, key, required, "", err);
    if (st != PL_OK || !v)
        goto fail;
    if (v->type != PL__JSON_STRING) {
        st = pl__json_fail(doc, err, v, key, "expected a string, found %s",
                           pl__json_type_name(v->type));
        goto fail;
    }
    if (!pl__json_is_text(v, want)) {
        /* another curve or protocol is a real file we do not handle, not a
         * malformed one */
        st = pl__json_fail_status(doc, err, PL_EUNSUPPORTED, v, key,
                                  "\"%.40s\" is not supported (proofline "
                                  "handles %s \"%s\" only)", v->text, key,
                                  want);
        goto fail;
    }
fail:
    return st;
}

static void pl__indent(pl__strbuf *sb, int depth)
{
    pl__strbuf_printf(sb, "%*s", depth, "");
}

/* The layouts below over decimal strings, shared by both curves. */
static void put_dec_pair(pl__strbuf *sb, const char *const s[2], int depth)
{
    pl__strbuf_printf(sb, "[\n%*s\"%s\",\n%*s\"%s\"\n%*s]", depth + 1, "",
                      s[0], depth + 1, "", s[1], depth, "");
}

void pl__json_put_dec_g1(pl__strbuf *sb, const char *const s[3], int depth)
{
    int in = depth + 1;
    pl__strbuf_printf(sb, "[\n%*s\"%s\",\n%*s\"%s\",\n%*s\"%s\"\n%*s]", in,
                      "", s[0], in, "", s[1], in, "", s[2], depth, "");
}

void pl__json_put_dec_g2(pl__strbuf *sb, const char *const s[3][2],
                         int depth)
{
    pl__strbuf_printf(sb, "[\n");
    for (int i = 0; i < 3; i++) {
        pl__indent(sb, depth + 1);
        put_dec_pair(sb, s[i], depth + 1);
        pl__strbuf_printf(sb, i < 2 ? ",\n" : "\n");
    }
    pl__indent(sb, depth);
    pl__strbuf_printf(sb, "]");
}

void pl__json_put_dec_fp12(pl__strbuf *sb, const char *const s[2][3][2],
                           int depth)
{
    pl__strbuf_printf(sb, "[\n");
    for (int i = 0; i < 2; i++) {
        pl__indent(sb, depth + 1);
        pl__strbuf_printf(sb, "[\n");
        for (int j = 0; j < 3; j++) {
            pl__indent(sb, depth + 2);
            put_dec_pair(sb, s[i][j], depth + 2);
            pl__strbuf_printf(sb, j < 2 ? ",\n" : "\n");
        }
        pl__indent(sb, depth + 1);
        pl__strbuf_printf(sb, i < 1 ? "],\n" : "]\n");
    }
    pl__indent(sb, depth);
    pl__strbuf_printf(sb, "]");
}

void pl__json_put_fp(pl__strbuf *sb, const blst_fp *v)
{
    char dec[PL__DEC_CAP];
    pl__fp_to_dec(dec, sizeof(dec), v);
    pl__strbuf_printf(sb, "\"%s\"", dec);
}

/* An Fp2 element's two decimal strings. */
static void fp2_dec(char out[2][PL__DEC_CAP], const char *ptr[2],
                    const blst_fp2 *v)
{
    for (int k = 0; k < 2; k++) {
        pl__fp_to_dec(out[k], PL__DEC_CAP, &v->fp[k]);
        ptr[k] = out[k];
    }
}

void pl__json_put_g1(pl__strbuf *sb, const blst_p1_affine *p, int depth)
{
    char x[PL__DEC_CAP], y[PL__DEC_CAP];
    const char *s[3] = {"0", "1", "0"}; /* ffjavascript's zero point */
    if (!blst_p1_affine_is_inf(p)) {
        pl__fp_to_dec(x, sizeof(x), &p->x);
        pl__fp_to_dec(y, sizeof(y), &p->y);
        s[0] = x;
        s[1] = y;
        s[2] = "1";
    }
    pl__json_put_dec_g1(sb, s, depth);
}

void pl__json_put_g2(pl__strbuf *sb, const blst_p2_affine *p, int depth)
{
    char dec[2][2][PL__DEC_CAP];
    /* ffjavascript's G2.toObject of zero: [F2 zero, F2 one, F2 zero] */
    const char *s[3][2] = {{"0", "0"}, {"1", "0"}, {"0", "0"}};
    if (!blst_p2_affine_is_inf(p)) {
        fp2_dec(dec[0], s[0], &p->x);
        fp2_dec(dec[1], s[1], &p->y);
        s[2][0] = "1";
    }
    pl__json_put_dec_g2(sb, s, depth);
}

void pl__json_put_fp12(pl__strbuf *sb, const blst_fp12 *f, int depth)
{
    /* ffjavascript's F12 is F6[2] and F6 is F2[3], the tower blst uses
     * (w^2 = v, v^3 = 1 + u), so the nesting maps index for index. */
    char dec[2][3][2][PL__DEC_CAP];
    const char *s[2][3][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            fp2_dec(dec[i][j], s[i][j], &f->fp6[i].fp2[j]);
    pl__json_put_dec_fp12(sb, s, depth);
}

/* ---- BN254's points (field/bn254/serial.h decodes the strings) -------- */

/* The string leaves of a nested array of the given dimensions, in order. */
static pl_status json_leaves(const pl__json_doc *doc, const pl__json_value *v,
                             const char *path, const unsigned *dims,
                             unsigned n_dims, const char **out, size_t *k,
                             pl_error *err)
{
    char sub[300];
    if (n_dims == 0) {
        if (v->type != PL__JSON_STRING)
            return pl__json_fail(doc, err, v, path, "expected a decimal "
                                 "string, found %s",
                                 pl__json_type_name(v->type));
        out[(*k)++] = v->text;
        return PL_OK;
    }
    if (v->type != PL__JSON_ARRAY || v->len != dims[0])
        return pl__json_fail(doc, err, v, path, "expected an array of %u, "
                             "found %s", dims[0], pl__json_type_name(v->type));
    unsigned i = 0;
    for (const pl__json_value *e = pl__json_first(v); e != pl__json_end(v);
         e = pl__json_next(e), i++) {
        snprintf(sub, sizeof(sub), "%.250s[%u]", path, i);
        pl_status st = json_leaves(doc, e, sub, dims + 1, n_dims - 1, out, k,
                                   err);
        if (st != PL_OK)
            return st;
    }
    return PL_OK;
}

pl_status pl__json_read_bn254_g1(pl__bn254_g1_affine *out,
                                 const pl__json_doc *doc,
                                 const pl__json_value *v, const char *path,
                                 pl_error *err)
{
    static const unsigned dims[1] = {3};
    const char *s[3];
    size_t k = 0;
    pl_status st = json_leaves(doc, v, path, dims, 1, s, &k, err);
    if (st == PL_OK && !pl__bn254_g1_from_dec(out, s))
        st = pl__json_fail(doc, err, v, path, "not a bn128 G1 point: [x, y, "
                           "\"1\"] with x, y decimal below q, or [\"0\", "
                           "\"1\", \"0\"] (infinity)");
    return st;
}

pl_status pl__json_read_bn254_g2(pl__bn254_g2_affine *out,
                                 const pl__json_doc *doc,
                                 const pl__json_value *v, const char *path,
                                 pl_error *err)
{
    static const unsigned dims[2] = {3, 2};
    const char *flat[6], *s[3][2];
    size_t k = 0;
    pl_status st = json_leaves(doc, v, path, dims, 2, flat, &k, err);
    if (st != PL_OK)
        return st;
    memcpy(s, flat, sizeof(s));
    if (!pl__bn254_g2_from_dec(out, s))
        st = pl__json_fail(doc, err, v, path, "not a bn128 G2 point: [[x0, "
                           "x1], [y0, y1], [\"1\", \"0\"]] with decimals "
                           "below q, or the point at infinity");
    return st;
}

pl_status pl__json_read_bn254_fp12(pl__bn254_fp12 *out,
                                   const pl__json_doc *doc,
                                   const pl__json_value *v, const char *path,
                                   pl_error *err)
{
    static const unsigned dims[3] = {2, 3, 2};
    const char *flat[12], *s[2][3][2];
    size_t k = 0;
    pl_status st = json_leaves(doc, v, path, dims, 3, flat, &k, err);
    if (st != PL_OK)
        return st;
    memcpy(s, flat, sizeof(s));
    if (!pl__bn254_fp12_from_dec(out, s))
        st = pl__json_fail(doc, err, v, path, "not an Fq12 element of bn128 "
                           "(decimals below q)");
    return st;
}

/* NUL-terminated strings of serial.h's arrays, as the putters take them. */
void pl__json_put_bn254_g1(pl__strbuf *sb, const pl__bn254_g1_affine *p,
                           int depth)
{
    char dec[3][PL__BN254_DEC_CAP];
    const char *s[3];
    pl__bn254_g1_to_dec(dec, p);
    for (int i = 0; i < 3; i++)
        s[i] = dec[i];
    pl__json_put_dec_g1(sb, s, depth);
}

void pl__json_put_bn254_g2(pl__strbuf *sb, const pl__bn254_g2_affine *p,
                           int depth)
{
    char dec[3][2][PL__BN254_DEC_CAP];
    const char *s[3][2];
    pl__bn254_g2_to_dec(dec, p);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            s[i][j] = dec[i][j];
    pl__json_put_dec_g2(sb, s, depth);
}

void pl__json_put_bn254_fp12(pl__strbuf *sb, const pl__bn254_fp12 *f,
                             int depth)
{
    char dec[2][3][2][PL__BN254_DEC_CAP];
    const char *s[2][3][2];
    pl__bn254_fp12_to_dec(dec, f);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++)
                s[i][j][k] = dec[i][j][k];
    pl__json_put_dec_fp12(sb, s, depth);
}

/* The "curve" tag of a proof or key: "bls12381" (or none, for files that
 * predate it), "bn128"; anything else PL_EUNSUPPORTED. */
pl_status pl__json_curve(pl__curve *out, const pl__json_doc *doc,
                         const pl__json_value *obj, bool required,
                         pl_error *err)
{
    const pl__json_value *v;
    *out = PL__CURVE_BLS12_381;
    pl_status st = pl__json_member(&v, doc, obj, "curve", required, "", err);
    if (st != PL_OK || !v)
        return st;
    if (pl__json_is_text(v, "bn128")) {
        *out = PL__CURVE_BN254;
        return PL_OK;
    }
    if (v->type == PL__JSON_STRING && !pl__json_is_text(v, "bls12381"))
        return pl__json_fail_status(doc, err, PL_EUNSUPPORTED, v, "curve",
                                    "\"%.40s\" is not supported (proofline "
                                    "handles curve \"bls12381\" and "
                                    "\"bn128\")", v->text);
    return pl__json_check_tag(doc, obj, "curve", "bls12381", required, err);
}

/* ---- proof.json ------------------------------------------------------- */

/* The checks of a parsed proof.json; the caller frees the doc. */
static pl_status proof_from_doc(pl_proof *out, pl__curve *curve,
                                const pl__json_doc *doc, pl_error *err)
{
    pl_status st = PL_OK;
    const pl__json_value *root, *v;
    blst_p1_affine a, c;
    blst_p2_affine b;

    root = pl__json_root(doc);
    if (root->type != PL__JSON_OBJECT) {
        st = pl__json_fail(doc, err, root, "", "expected an object, found "
                           "%s", pl__json_type_name(root->type));
        goto fail;
    }
    /* the tags first: a proof for another curve is unsupported, not
     * malformed, whatever its coordinates look like */
    if ((st = pl__json_curve(curve, doc, root, false, err)) != PL_OK ||
        (st = pl__json_check_tag(doc, root, "protocol", "groth16", false,
                                 err)) != PL_OK)
        goto fail;
    if (*curve == PL__CURVE_BN254) {
        pl__bn254_g1_affine a1, c1;
        pl__bn254_g2_affine b2;
        if ((st = pl__json_member(&v, doc, root, "pi_a", true, "", err)) ||
            (st = pl__json_read_bn254_g1(&a1, doc, v, "pi_a", err)) ||
            (st = pl__json_member(&v, doc, root, "pi_b", true, "", err)) ||
            (st = pl__json_read_bn254_g2(&b2, doc, v, "pi_b", err)) ||
            (st = pl__json_member(&v, doc, root, "pi_c", true, "", err)) ||
            (st = pl__json_read_bn254_g1(&c1, doc, v, "pi_c", err)))
            goto fail;
        memset(out, 0, sizeof(*out));
        pl__bn254_g1_to_bytes(out->a.b, &a1);
        pl__bn254_g2_to_bytes(out->b.b, &b2);
        pl__bn254_g1_to_bytes(out->c.b, &c1);
        goto fail;
    }
    if ((st = pl__json_member(&v, doc, root, "pi_a", true, "", err)) ||
        (st = pl__json_read_g1(&a, doc, v, "pi_a", err)) ||
        (st = pl__json_member(&v, doc, root, "pi_b", true, "", err)) ||
        (st = pl__json_read_g2(&b, doc, v, "pi_b", err)) ||
        (st = pl__json_member(&v, doc, root, "pi_c", true, "", err)) ||
        (st = pl__json_read_g1(&c, doc, v, "pi_c", err)))
        goto fail;
    memcpy(out->a.b, &a, sizeof(out->a.b));
    memcpy(out->b.b, &b, sizeof(out->b.b));
    memcpy(out->c.b, &c, sizeof(out->c.b));
fail:
    return st;
}

pl_status pl_proof_read_json(pl_proof *out, const char *path, pl_error *err)
{
    pl_curve curve;
    return pl_proof_read_json_curve(out, &curve, path, err);
}

pl_status pl_proof_read_json_curve(pl_proof *out, pl_curve *curve,
                                   const char *path, pl_error *err)
{
    pl__json_doc doc;
    pl__curve c = PL__CURVE_BLS12_381;
    pl_status st = pl__json_read_file(&doc, path, PL__PROOF_JSON_MAX, err);
    if (st == PL_OK)
        st = proof_from_doc(out, &c, &doc, err);
    *curve = (pl_curve)c;
    pl__json_free(&doc);
    return st;
}

pl_status pl__proof_parse_json(pl_proof *out, const char *text, size_t len,
                               const char *name, pl_error *err)
{
    pl__json_doc doc;
    pl_status st = len > PL__PROOF_JSON_MAX
        ? pl__error_set(err, PL_EFORMAT, "%s: larger than %u bytes", name,
                        PL__PROOF_JSON_MAX)
        : pl__json_parse(&doc, text, len, name, err);
    if (st != PL_OK)
        return st;
    pl__curve curve;
    st = proof_from_doc(out, &curve, &doc, err);
    pl__json_free(&doc);
    return st;
}

/* ---- public.json ------------------------------------------------------ */

/* The checks of a parsed public.json; the caller frees the doc. */
static pl_status public_from_doc(pl_scalar **out, size_t *count,
                                 const pl__json_doc *doc, pl_error *err)
{
    pl_status st = PL_OK;
    const char *path = doc->name;
    const pl__json_value *root;
    pl_scalar *vals = NULL;
    size_t i = 0;

    root = pl__json_root(doc);
    if (root->type != PL__JSON_ARRAY) {
        st = pl__json_fail(doc, err, root, "", "expected an array of "
                           "decimal strings, found %s",
                           pl__json_type_name(root->type));
        goto fail;
    }
    /* never 0 bytes, so success always returns a pointer */
    vals = malloc(root->len ? root->len * sizeof(*vals) : 1);
    if (!vals) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory for %zu public "
                           "inputs", path, root->len);
        goto fail;
    }
    for (const pl__json_value *v = pl__json_first(root);
         v != pl__json_end(root); v = pl__json_next(v), i++) {
        char sub[32];
        snprintf(sub, sizeof(sub), "[%zu]", i);
        if (v->type != PL__JSON_STRING) {
            st = pl__json_fail(doc, err, v, sub, "expected a decimal "
                               "string, found %s",
                               pl__json_type_name(v->type));
            goto fail;
        }
        if (!pl__fr_scalar_from_dec(&vals[i], v->text, v->len)) {
            st = pl__json_fail(doc, err, v, sub, "not a decimal integer "
                               "below the scalar field modulus r");
            goto fail;
        }
    }
    *out = vals;
    *count = root->len;
    vals = NULL;
fail:
    free(vals);
    return st;
}

pl_status pl_public_read_json(pl_scalar **out, size_t *count, const char *path,
                              size_t max_count, pl_error *err)
{
    pl__json_doc doc;
    *out = NULL;
    *count = 0;
    size_t max_bytes = max_count > (SIZE_MAX - PL__PUBLIC_JSON_BASE) /
                                       PL_PUBLIC_JSON_BYTES
                           ? SIZE_MAX
                           : PL__PUBLIC_JSON_BASE +
                                 max_count * PL_PUBLIC_JSON_BYTES;
    pl_status st = pl__json_read_file(&doc, path, max_bytes, err);
    if (st == PL_OK)
        st = public_from_doc(out, count, &doc, err);
    pl__json_free(&doc);
    return st;
}

void pl_public_free(pl_scalar *publics)
{
    free(publics);
}

pl_status pl__public_parse_json(pl_scalar **out, size_t *count,
                                const char *text, size_t len,
                                const char *name, pl_error *err)
{
    pl__json_doc doc;
    *out = NULL;
    *count = 0;
    pl_status st = pl__json_parse(&doc, text, len, name, err);
    if (st == PL_OK)
        st = public_from_doc(out, count, &doc, err);
    pl__json_free(&doc);
    return st;
}

/* ---- writing ---------------------------------------------------------- */

static void pl__proof_text_bn254(pl__strbuf *sb, const pl_proof *proof)
{
    pl__bn254_g1_affine a, c;
    pl__bn254_g2_affine b;
    /* the prover's and the reader's bytes: coordinates below p, so these
     * decode (a point that does not is written as infinity) */
    if (!pl__bn254_g1_from_bytes(&a, proof->a.b))
        memset(&a, 0, sizeof(a));
    if (!pl__bn254_g2_from_bytes(&b, proof->b.b))
        memset(&b, 0, sizeof(b));
    if (!pl__bn254_g1_from_bytes(&c, proof->c.b))
        memset(&c, 0, sizeof(c));
    pl__strbuf_printf(sb, "{\n \"pi_a\": ");
    pl__json_put_bn254_g1(sb, &a, 1);
    pl__strbuf_printf(sb, ",\n \"pi_b\": ");
    pl__json_put_bn254_g2(sb, &b, 1);
    pl__strbuf_printf(sb, ",\n \"pi_c\": ");
    pl__json_put_bn254_g1(sb, &c, 1);
    pl__strbuf_printf(sb, ",\n \"protocol\": \"groth16\",\n"
                          " \"curve\": \"bn128\"\n}");
}

static void pl__proof_text(pl__strbuf *sb, const pl_proof *proof)
{
    blst_p1_affine a, c;
    blst_p2_affine b;

    memcpy(&a, proof->a.b, sizeof(a));
    memcpy(&b, proof->b.b, sizeof(b));
    memcpy(&c, proof->c.b, sizeof(c));
    pl__strbuf_printf(sb, "{\n \"pi_a\": ");
    pl__json_put_g1(sb, &a, 1);
    pl__strbuf_printf(sb, ",\n \"pi_b\": ");
    pl__json_put_g2(sb, &b, 1);
    pl__strbuf_printf(sb, ",\n \"pi_c\": ");
    pl__json_put_g1(sb, &c, 1);
    pl__strbuf_printf(sb, ",\n \"protocol\": \"groth16\",\n"
                          " \"curve\": \"bls12381\"\n}");
}

static void pl__public_text(pl__strbuf *sb, const pl_scalar *publics,
                            size_t count)
{
    char dec[PL__DEC_CAP];
    if (count == 0) {
        /* snarkjs writes through bfj, which puts a newline in an empty
         * array (JSON.stringify would write "[]") */
        pl__strbuf_printf(sb, "[\n]");
        return;
    }
    pl__strbuf_printf(sb, "[");
    for (size_t i = 0; i < count; i++) {
        pl__fr_scalar_to_dec(dec, sizeof(dec), &publics[i]);
        pl__strbuf_printf(sb, "%s\n \"%s\"", i ? "," : "", dec);
    }
    pl__strbuf_printf(sb, "\n]");
}

pl_status pl_proof_write_json(const pl_proof *proof, const char *proof_path,
                              const pl_scalar *publics, size_t count,
                              const char *public_path, pl_error *err)
{
    return pl_proof_write_json_curve(proof, PL_CURVE_BLS12_381, proof_path,
                                     publics, count, public_path, err);
}

pl_status pl_proof_write_json_curve(const pl_proof *proof, pl_curve curve,
                                    const char *proof_path,
                                    const pl_scalar *publics, size_t count,
                                    const char *public_path, pl_error *err)
{
    pl_status st = PL_OK;
    pl__strbuf ptext = {0}, qtext = {0};

    if (!proof || !proof_path || (count && !publics)) {
        st = pl__error_set(err, PL_EUSAGE, "pl_proof_write_json: missing "
                           "proof, path or public inputs");
        goto fail;
    }
    for (size_t i = 0; public_path && i < count; i++)
        if (!pl__scalar_below_r((pl__curve)curve, publics[i].b)) {
            st = pl__error_set(err, PL_EUSAGE, "%s: public input %zu is "
                               "not below r", public_path, i);
            goto fail;
        }
    if (curve == PL_CURVE_BN254)
        pl__proof_text_bn254(&ptext, proof);
    else
        pl__proof_text(&ptext, proof);
    if (public_path)
        pl__public_text(&qtext, publics, count);
    if (ptext.failed || qtext.failed) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", proof_path);
        goto fail;
    }
    st = pl__file_write_pair(proof_path, ptext.data, ptext.len, public_path,
                             qtext.data, qtext.len, err);
fail:
    pl__strbuf_free(&ptext);
    pl__strbuf_free(&qtext);
    return st;
}

const char *pl_curve_name(pl_curve curve)
{
    return pl__curve_name((pl__curve)curve);
}
