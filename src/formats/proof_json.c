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
 * pl_verify with PL_EINVALID.  Writing reproduces snarkjs's layout byte
 * for byte: bfj.write(value, {space: 1}), which is JSON.stringify(value,
 * null, 1) except that an empty array is "[\n]"; no final newline.
 */
#define _POSIX_C_SOURCE 200809L
#include "formats/snarkjs_json.h"
#include "field/field.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void pl__json_put_fp(pl__strbuf *sb, const blst_fp *v)
{
    char dec[PL__DEC_CAP];
    pl__fp_to_dec(dec, sizeof(dec), v);
    pl__strbuf_printf(sb, "\"%s\"", dec);
}

static void pl__json_put_fp2(pl__strbuf *sb, const blst_fp2 *v, int depth)
{
    pl__strbuf_printf(sb, "[\n");
    pl__indent(sb, depth + 1);
    pl__json_put_fp(sb, &v->fp[0]);
    pl__strbuf_printf(sb, ",\n");
    pl__indent(sb, depth + 1);
    pl__json_put_fp(sb, &v->fp[1]);
    pl__strbuf_printf(sb, "\n");
    pl__indent(sb, depth);
    pl__strbuf_printf(sb, "]");
}

void pl__json_put_g1(pl__strbuf *sb, const blst_p1_affine *p, int depth)
{
    int in = depth + 1;
    pl__strbuf_printf(sb, "[\n");
    if (blst_p1_affine_is_inf(p)) {
        /* what ffjavascript's G1.toObject writes for the zero point */
        pl__strbuf_printf(sb, "%*s\"0\",\n%*s\"1\",\n%*s\"0\"\n", in, "",
                          in, "", in, "");
    } else {
        pl__indent(sb, in);
        pl__json_put_fp(sb, &p->x);
        pl__strbuf_printf(sb, ",\n");
        pl__indent(sb, in);
        pl__json_put_fp(sb, &p->y);
        pl__strbuf_printf(sb, ",\n%*s\"1\"\n", in, "");
    }
    pl__indent(sb, depth);
    pl__strbuf_printf(sb, "]");
}

void pl__json_put_g2(pl__strbuf *sb, const blst_p2_affine *p, int depth)
{
    blst_fp2 z;
    blst_p2_affine q = *p;
    static const uint64_t one[6] = {1, 0, 0, 0, 0, 0};

    memset(&z, 0, sizeof(z));
    if (blst_p2_affine_is_inf(p)) {
        /* ffjavascript's G2.toObject of zero: [F2 zero, F2 one, F2 zero] */
        memset(&q, 0, sizeof(q));
        blst_fp_from_uint64(&q.y.fp[0], one);
    } else {
        blst_fp_from_uint64(&z.fp[0], one);
    }
    pl__strbuf_printf(sb, "[\n");
    pl__indent(sb, depth + 1);
    pl__json_put_fp2(sb, &q.x, depth + 1);
    pl__strbuf_printf(sb, ",\n");
    pl__indent(sb, depth + 1);
    pl__json_put_fp2(sb, &q.y, depth + 1);
    pl__strbuf_printf(sb, ",\n");
    pl__indent(sb, depth + 1);
    pl__json_put_fp2(sb, &z, depth + 1);
    pl__strbuf_printf(sb, "\n");
    pl__indent(sb, depth);
    pl__strbuf_printf(sb, "]");
}

void pl__json_put_fp12(pl__strbuf *sb, const blst_fp12 *f, int depth)
{
    /* ffjavascript's F12 is F6[2] and F6 is F2[3], the tower blst uses
     * (w^2 = v, v^3 = 1 + u), so the nesting maps index for index. */
    pl__strbuf_printf(sb, "[\n");
    for (int i = 0; i < 2; i++) {
        pl__indent(sb, depth + 1);
        pl__strbuf_printf(sb, "[\n");
        for (int j = 0; j < 3; j++) {
            pl__indent(sb, depth + 2);
            pl__json_put_fp2(sb, &f->fp6[i].fp2[j], depth + 2);
            pl__strbuf_printf(sb, j < 2 ? ",\n" : "\n");
        }
        pl__indent(sb, depth + 1);
        pl__strbuf_printf(sb, i < 1 ? "],\n" : "]\n");
    }
    pl__indent(sb, depth);
    pl__strbuf_printf(sb, "]");
}

/* ---- proof.json ------------------------------------------------------- */

/* The checks of a parsed proof.json; the caller frees the doc. */
static pl_status proof_from_doc(pl_proof *out, const pl__json_doc *doc,
                                pl_error *err)
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
    if ((st = pl__json_check_tag(doc, root, "curve", "bls12381", false,
                                 err)) != PL_OK ||
        (st = pl__json_check_tag(doc, root, "protocol", "groth16", false,
                                 err)) != PL_OK)
        goto fail;
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
    pl__json_doc doc;
    pl_status st = pl__json_read_file(&doc, path, PL__PROOF_JSON_MAX, err);
    if (st == PL_OK)
        st = proof_from_doc(out, &doc, err);
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
    st = proof_from_doc(out, &doc, err);
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
    pl_status st = PL_OK;
    pl__strbuf ptext = {0}, qtext = {0};

    if (!proof || !proof_path || (count && !publics)) {
        st = pl__error_set(err, PL_EUSAGE, "pl_proof_write_json: missing "
                           "proof, path or public inputs");
        goto fail;
    }
    for (size_t i = 0; public_path && i < count; i++)
        if (!pl__scalar_is_canonical(publics[i].b)) {
            st = pl__error_set(err, PL_EUSAGE, "%s: public input %zu is "
                               "not below r", public_path, i);
            goto fail;
        }
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
