/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Groth16 verification key: taken from a zkey (section 2 and the IC
 * section), or read from and written to snarkjs's verification_key.json.
 * The written file has the values and layout of `snarkjs zkey export
 * verificationkey` for BLS12-381, including vk_alphabeta_12 = e(alpha_1,
 * beta_2), which snarkjs's verifier ignores but other tools read.
 *
 * Every point is checked on its curve and in its prime-order subgroup when
 * a key is made, so the verifier can trust the key.  alpha, beta, gamma and
 * delta may not be the point at infinity (a setup never yields them, and a
 * key with gamma or delta at infinity accepts forged proofs); IC points
 * may.  A vk_alphabeta_12 in a file must equal the pairing we compute.
 * BN254 ("bn128") keys are vkey_bn254.c's, called from the entry points
 * here once the curve is known (the zkey's primes, the file's tag).
 */
#include "groth16/vkey.h"
#include "field/field.h"
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "formats/snarkjs_json.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

/* A vkey is ~380 bytes of JSON per IC point (three coordinates of up to
 * 116 digits, indented) and ~4 KiB more for the rest; 1 KiB a point and
 * 64 KiB leave room for any layout, and PL_VKEY_MAX_PUBLIC inputs (2^16)
 * bound the file at about 64 MiB, read only when its size says it fits. */
#define PL__VKEY_JSON_MAX \
    (((size_t)64 << 10) + (PL_VKEY_MAX_PUBLIC + 1) * ((size_t)1 << 10))
#define PL__VKEY_MAX_PUBLIC 0x7fffffffu

static const char *pl__g1_problem(const blst_p1_affine *p, bool allow_inf)
{
    const char *bad = NULL;
    if (blst_p1_affine_is_inf(p))
        bad = allow_inf ? NULL : "is the point at infinity";
    else if (!blst_p1_affine_on_curve(p))
        bad = "is not on the curve";
    else if (!blst_p1_affine_in_g1(p))
        bad = "is not in the G1 subgroup";
    return bad;
}

static const char *pl__g2_problem(const blst_p2_affine *p, bool allow_inf)
{
    const char *bad = NULL;
    if (blst_p2_affine_is_inf(p))
        bad = allow_inf ? NULL : "is the point at infinity";
    else if (!blst_p2_affine_on_curve(p))
        bad = "is not on the curve";
    else if (!blst_p2_affine_in_g2(p))
        bad = "is not in the G2 subgroup";
    return bad;
}

#define VKEY_HEAD_BYTES ((sizeof(pl_vkey) + 63) & ~(size_t)63)

uint64_t pl__vkey_bytes(size_t n_public)
{
    return VKEY_HEAD_BYTES + ((uint64_t)n_public + 1) * sizeof(blst_p1_affine);
}

/* The struct and its IC points in one accounted allocation (a BN254 key's
 * smaller points in the same room). */
pl_status pl__vkey_alloc(pl_vkey **out, size_t n_public, pl_error *err)
{
    pl_status st = PL_OK;
    size_t head = VKEY_HEAD_BYTES;
    pl_vkey *vk = pl__calloc(PL_BUF_PARAMS, pl__vkey_bytes(n_public), err);

    if (!vk) {
        st = PL_ENOMEM;
        goto fail;
    }
    vk->n_public = n_public;
    vk->ic = (blst_p1_affine *)((char *)vk + head);
    vk->bn254.ic = (pl__bn254_g1_affine *)vk->ic;
fail:
    *out = vk;
    return st;
}

static void pl__vkey_alphabeta(blst_fp12 *out, const pl_vkey *vk)
{
    blst_fp12 f;
    blst_miller_loop(&f, &vk->beta2, &vk->alpha1);
    blst_final_exp(out, &f);
}

pl_status pl__vkey_zkey_point_error(pl_error *err, const char *path,
                                    const char *what, size_t index,
                                    const char *bad)
{
    if (strcmp(what, "IC") == 0)
        return pl__error_set(err, PL_EFORMAT, "%s: section 3 (IC): point %zu "
                             "%s", path, index, bad);
    return pl__error_set(err, PL_EFORMAT, "%s: section 2 (header): %s %s",
                         path, what, bad);
}

pl_status pl_vkey_from_zkey(pl_vkey **out, const pl_zkey *zkey, pl_error *err)
{
    pl_status st;
    pl_vkey *vk = NULL;
    const char *bad = NULL, *what = NULL;
    size_t bad_index = 0;

    *out = NULL;
    if (!zkey) {
        st = pl__error_set(err, PL_EUSAGE, "pl_vkey_from_zkey: no zkey");
        goto fail;
    }
    if (zkey->curve == PL__CURVE_BN254)
        return pl__vkey_from_zkey_bn254(out, zkey, err);
    if (zkey->n_public > PL__VKEY_MAX_PUBLIC) {
        st = pl__error_set(err, PL_EFORMAT, "%s: nPublic %u is 2^31 or more",
                           zkey->path, zkey->n_public);
        goto fail;
    }
    if ((st = pl__vkey_alloc(&vk, zkey->n_public, err)) != PL_OK)
        goto fail;
    /* the zkey's points may sit at any byte offset: copy, never cast */
    memcpy(&vk->alpha1, zkey->alpha1, PL__G1_BYTES);
    memcpy(&vk->beta2, zkey->beta2, PL__G2_BYTES);
    memcpy(&vk->gamma2, zkey->gamma2, PL__G2_BYTES);
    memcpy(&vk->delta2, zkey->delta2, PL__G2_BYTES);
    memcpy(vk->ic, zkey->ic, ((size_t)vk->n_public + 1) * PL__G1_BYTES);

    if ((bad = pl__g1_problem(&vk->alpha1, false)))
        what = "alpha_1";
    else if ((bad = pl__g2_problem(&vk->beta2, false)))
        what = "beta_2";
    else if ((bad = pl__g2_problem(&vk->gamma2, false)))
        what = "gamma_2";
    else if ((bad = pl__g2_problem(&vk->delta2, false)))
        what = "delta_2";
    for (size_t i = 0; !bad && i <= vk->n_public; i++)
        if ((bad = pl__g1_problem(&vk->ic[i], true))) {
            what = "IC";
            bad_index = i;
        }
    if (bad) {
        st = pl__vkey_zkey_point_error(err, zkey->path, what, bad_index, bad);
        goto fail;
    }
    pl__vkey_alphabeta(&vk->alphabeta, vk);
    *out = vk;
    vk = NULL;
fail:
    pl_vkey_destroy(vk);
    return st;
}

/* ---- reading verification_key.json ----------------------------------- */

/* A bellperson parameter or .vk file's key: its points were decoded (on
 * their curves) when the file was opened; the subgroups and infinity are
 * checked here, as for a zkey's. */
pl_status pl_vkey_from_bp_params(pl_vkey **out, const pl_bp_params *params,
                                 pl_error *err)
{
    pl_status st;
    pl_vkey *vk = NULL;
    const char *bad = NULL, *what = NULL;
    size_t bad_index = 0;

    *out = NULL;
    if (!params) {
        st = pl__error_set(err, PL_EUSAGE, "pl_vkey_from_bp_params: no file");
        goto fail;
    }
    const size_t n_public = (size_t)params->count[PL__BP_IC] - 1;
    if (n_public > PL__VKEY_MAX_PUBLIC) {
        st = pl__error_set(err, PL_EFORMAT, "%s: section ic: %zu public "
                           "inputs is 2^31 or more", params->path, n_public);
        goto fail;
    }
    if ((st = pl__vkey_alloc(&vk, n_public, err)) != PL_OK)
        goto fail;
    vk->alpha1 = params->alpha_g1;
    vk->beta2 = params->beta_g2;
    vk->gamma2 = params->gamma_g2;
    vk->delta2 = params->delta_g2;
    for (size_t i = 0; i <= n_public; i++)
        if (pl__bp_g1_at(&vk->ic[i], params, PL__BP_IC, (uint32_t)i) !=
            BLST_SUCCESS) { /* decoded once at open: cannot fail */
            st = pl__error_set(err, PL_EINTERNAL, "%s: section ic: point %zu "
                               "no longer decodes", params->path, i);
            goto fail;
        }
    if ((bad = pl__g1_problem(&vk->alpha1, false)))
        what = "alpha_g1";
    else if ((bad = pl__g2_problem(&vk->beta2, false)))
        what = "beta_g2";
    else if ((bad = pl__g2_problem(&vk->gamma2, false)))
        what = "gamma_g2";
    else if ((bad = pl__g2_problem(&vk->delta2, false)))
        what = "delta_g2";
    for (size_t i = 0; !bad && i <= n_public; i++)
        if ((bad = pl__g1_problem(&vk->ic[i], true))) {
            what = "ic";
            bad_index = i;
        }
    if (bad) {
        if (strcmp(what, "ic") == 0)
            st = pl__error_set(err, PL_EFORMAT, "%s: section ic: point %zu "
                               "%s", params->path, bad_index, bad);
        else
            st = pl__error_set(err, PL_EFORMAT, "%s: verifying key: %s %s",
                               params->path, what, bad);
        goto fail;
    }
    pl__vkey_alphabeta(&vk->alphabeta, vk);
    *out = vk;
    vk = NULL;
fail:
    pl_vkey_destroy(vk);
    return st;
}

static pl_status pl__vkey_read_g1(blst_p1_affine *out, const pl__json_doc *doc,
                                  const pl__json_value *v, const char *path,
                                  bool allow_inf, pl_error *err)
{
    pl_status st = pl__json_read_g1(out, doc, v, path, err);
    const char *bad;
    if (st == PL_OK && (bad = pl__g1_problem(out, allow_inf)))
        st = pl__json_fail(doc, err, v, path, "the point %s", bad);
    return st;
}

static pl_status pl__vkey_read_g2(blst_p2_affine *out, const pl__json_doc *doc,
                                  const pl__json_value *v, const char *path,
                                  pl_error *err)
{
    pl_status st = pl__json_read_g2(out, doc, v, path, err);
    const char *bad;
    if (st == PL_OK && (bad = pl__g2_problem(out, false)))
        st = pl__json_fail(doc, err, v, path, "the point %s", bad);
    return st;
}

/* vk_alphabeta_12: [[[c0, c1] x 3] x 2], ffjavascript's F12 = F6[2], F6 =
 * F2[3], the same tower and order as blst_fp12. */
static pl_status pl__vkey_read_fp12(blst_fp12 *out, const pl__json_doc *doc,
                                    const pl__json_value *v, pl_error *err)
{
    pl_status st = PL_OK;
    char path[64];
    const pl__json_value *a, *b, *c;
    int i = 0, j, k;

    if (v->type != PL__JSON_ARRAY || v->len != 2) {
        st = pl__json_fail(doc, err, v, "vk_alphabeta_12", "expected an "
                           "array of 2 Fq6 elements");
        goto fail;
    }
    for (a = pl__json_first(v); a != pl__json_end(v); a = pl__json_next(a), i++) {
        snprintf(path, sizeof(path), "vk_alphabeta_12[%d]", i);
        if (a->type != PL__JSON_ARRAY || a->len != 3) {
            st = pl__json_fail(doc, err, a, path, "expected an array of 3 "
                               "Fq2 elements");
            goto fail;
        }
        j = 0;
        for (b = pl__json_first(a); b != pl__json_end(a);
             b = pl__json_next(b), j++) {
            snprintf(path, sizeof(path), "vk_alphabeta_12[%d][%d]", i, j);
            if (b->type != PL__JSON_ARRAY || b->len != 2) {
                st = pl__json_fail(doc, err, b, path, "expected an Fq2 "
                                   "element [c0, c1]");
                goto fail;
            }
            k = 0;
            for (c = pl__json_first(b); c != pl__json_end(b);
                 c = pl__json_next(c), k++) {
                snprintf(path, sizeof(path), "vk_alphabeta_12[%d][%d][%d]", i,
                         j, k);
                st = pl__json_read_fp(&out->fp6[i].fp2[j].fp[k], doc, c, path,
                                      err);
                if (st != PL_OK)
                    goto fail;
            }
        }
    }
fail:
    return st;
}

static pl_status pl__vkey_read_n_public(size_t *out, const pl__json_doc *doc,
                                        const pl__json_value *v, pl_error *err)
{
    pl_status st = PL_OK;
    uint64_t n = 0;

    if (v->type != PL__JSON_NUMBER) {
        st = pl__json_fail(doc, err, v, "nPublic", "expected a number, found "
                           "%s", pl__json_type_name(v->type));
        goto fail;
    }
    /* the JSON grammar already excludes leading zeros; 10 digits suffice */
    for (size_t i = 0; i < v->len; i++) {
        char ch = v->text[i];
        if (ch < '0' || ch > '9' || i >= 10) {
            st = pl__json_fail(doc, err, v, "nPublic", "expected an integer "
                               "from 0 to 2^31 - 1, found %.*s",
                               (int)(v->len > 40 ? 40 : v->len), v->text);
            goto fail;
        }
        n = n * 10 + (uint64_t)(ch - '0');
    }
    if (n > PL__VKEY_MAX_PUBLIC) {
        st = pl__json_fail(doc, err, v, "nPublic", "%llu is 2^31 or more",
                           (unsigned long long)n);
        goto fail;
    }
    *out = (size_t)n;
fail:
    return st;
}

/* The checks of a parsed verification_key.json; the caller frees the doc. */
static pl_status pl__vkey_from_doc(pl_vkey **out, const pl__json_doc *doc,
                                   pl_error *err)
{
    pl_status st = PL_OK;
    pl_vkey *vk = NULL;
    const pl__json_value *root, *v, *ic;
    size_t n_public = 0, i = 0;
    blst_fp12 file_ab;
    char sub[48];

    *out = NULL;
    root = pl__json_root(doc);
    if (root->type != PL__JSON_OBJECT) {
        st = pl__json_fail(doc, err, root, "", "expected an object, found "
                           "%s", pl__json_type_name(root->type));
        goto fail;
    }
    /* snarkjs picks the curve by this tag, so it is required */
    pl__curve curve;
    if ((st = pl__json_curve(&curve, doc, root, true, err)) ||
        (st = pl__json_check_tag(doc, root, "protocol", "groth16", false,
                                 err)))
        goto fail;
    if ((st = pl__json_member(&v, doc, root, "nPublic", true, "", err)) ||
        (st = pl__vkey_read_n_public(&n_public, doc, v, err)))
        goto fail;
    if ((st = pl__json_member(&ic, doc, root, "IC", true, "", err)))
        goto fail;
    if (ic->type != PL__JSON_ARRAY || ic->len != n_public + 1) {
        st = pl__json_fail(doc, err, ic, "IC", "expected an array of "
                           "nPublic + 1 = %zu points, found %s of %zu",
                           n_public + 1, pl__json_type_name(ic->type),
                           ic->type == PL__JSON_ARRAY ? ic->len : 0);
        goto fail;
    }
    if ((st = pl__vkey_alloc(&vk, n_public, err)))
        goto fail;
    if (curve == PL__CURVE_BN254) {
        if ((st = pl__vkey_read_bn254(vk, doc, root, ic, err)))
            goto fail;
        *out = vk;
        return PL_OK;
    }
    if ((st = pl__json_member(&v, doc, root, "vk_alpha_1", true, "", err)) ||
        (st = pl__vkey_read_g1(&vk->alpha1, doc, v, "vk_alpha_1", false,
                               err)) ||
        (st = pl__json_member(&v, doc, root, "vk_beta_2", true, "", err)) ||
        (st = pl__vkey_read_g2(&vk->beta2, doc, v, "vk_beta_2", err)) ||
        (st = pl__json_member(&v, doc, root, "vk_gamma_2", true, "", err)) ||
        (st = pl__vkey_read_g2(&vk->gamma2, doc, v, "vk_gamma_2", err)) ||
        (st = pl__json_member(&v, doc, root, "vk_delta_2", true, "", err)) ||
        (st = pl__vkey_read_g2(&vk->delta2, doc, v, "vk_delta_2", err)))
        goto fail;
    for (v = pl__json_first(ic); v != pl__json_end(ic);
         v = pl__json_next(v), i++) {
        snprintf(sub, sizeof(sub), "IC[%zu]", i);
        if ((st = pl__vkey_read_g1(&vk->ic[i], doc, v, sub, true, err)))
            goto fail;
    }
    pl__vkey_alphabeta(&vk->alphabeta, vk);
    /* optional (snarkjs's verifier does not read it), but if present it
     * must be the key's own e(alpha_1, beta_2) */
    if ((st = pl__json_member(&v, doc, root, "vk_alphabeta_12", false, "",
                              err)))
        goto fail;
    if (v) {
        if ((st = pl__vkey_read_fp12(&file_ab, doc, v, err)))
            goto fail;
        if (!blst_fp12_is_equal(&file_ab, &vk->alphabeta)) {
            st = pl__json_fail(doc, err, v, "vk_alphabeta_12", "does not "
                               "equal e(vk_alpha_1, vk_beta_2)");
            goto fail;
        }
    }
    *out = vk;
    vk = NULL;
fail:
    pl_vkey_destroy(vk);
    return st;
}

pl_status pl_vkey_read_json(pl_vkey **out, const char *path, pl_error *err)
{
    pl__json_doc doc;
    *out = NULL;
    pl_status st = pl__json_read_file(&doc, path, PL__VKEY_JSON_MAX, err);
    if (st == PL_OK)
        st = pl__vkey_from_doc(out, &doc, err);
    pl__json_free(&doc);
    return st;
}

pl_status pl__vkey_parse_json(pl_vkey **out, const char *text, size_t len,
                              const char *name, pl_error *err)
{
    pl__json_doc doc;
    *out = NULL;
    pl_status st = pl__json_parse(&doc, text, len, name, err);
    if (st == PL_OK)
        st = pl__vkey_from_doc(out, &doc, err);
    pl__json_free(&doc);
    return st;
}

/* ---- writing ---------------------------------------------------------- */

pl_status pl_vkey_write_json(const pl_vkey *vkey, const char *path,
                             pl_error *err)
{
    pl_status st = PL_OK;
    pl__strbuf sb = {0};

    if (!vkey || !path) {
        st = pl__error_set(err, PL_EUSAGE, "pl_vkey_write_json: no key or "
                           "path");
        goto fail;
    }
    if (vkey->curve == PL__CURVE_BN254)
        return pl__vkey_write_json_bn254(vkey, path, err);
    /* the key order and layout of snarkjs's export (bfj, space 1) */
    pl__strbuf_printf(&sb, "{\n \"protocol\": \"groth16\",\n"
                           " \"curve\": \"bls12381\",\n"
                           " \"nPublic\": %zu,\n \"vk_alpha_1\": ",
                      vkey->n_public);
    pl__json_put_g1(&sb, &vkey->alpha1, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_beta_2\": ");
    pl__json_put_g2(&sb, &vkey->beta2, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_gamma_2\": ");
    pl__json_put_g2(&sb, &vkey->gamma2, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_delta_2\": ");
    pl__json_put_g2(&sb, &vkey->delta2, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_alphabeta_12\": ");
    pl__json_put_fp12(&sb, &vkey->alphabeta, 1);
    pl__strbuf_printf(&sb, ",\n \"IC\": [\n");
    for (size_t i = 0; i <= vkey->n_public; i++) {
        pl__strbuf_printf(&sb, "  ");
        pl__json_put_g1(&sb, &vkey->ic[i], 2);
        pl__strbuf_printf(&sb, i < vkey->n_public ? ",\n" : "\n");
    }
    pl__strbuf_printf(&sb, " ]\n}");
    if (sb.failed) {
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    st = pl__file_write_atomic(path, sb.data, sb.len, err);
fail:
    pl__strbuf_free(&sb);
    return st;
}

size_t pl_vkey_n_public(const pl_vkey *vkey)
{
    return vkey ? vkey->n_public : 0;
}

pl_curve pl_vkey_curve(const pl_vkey *vkey)
{
    return vkey ? (pl_curve)vkey->curve : PL_CURVE_BLS12_381;
}

void pl_vkey_destroy(pl_vkey *vkey)
{
    pl__free(vkey);
}
