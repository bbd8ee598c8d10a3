/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The BN254 ("bn128") halves of the verification key and the verifier
 * (groth16/vkey.h), over our own arithmetic (field/bn254/): vkey.c and
 * verify.c call them once the curve is known, so the entry points, the
 * file's framing (nPublic, IC's length) and the statuses stay one.
 *
 * The key's points are checked as vkey.c checks BLS12-381's: coordinates
 * below q, on the curve, G2 points in the order-r subgroup (G1's cofactor
 * is 1), alpha, beta, gamma, delta not at infinity.  vk_alphabeta_12 is
 * written as snarkjs writes it: ffjavascript's final exponentiation is
 * ours raised to m = 2u(6u^2 + 3u + 1) (field/bn254/pairing.h's note), so
 * the file holds e(alpha_1, beta_2)^m; a file's value must equal it.
 *
 * The verifier's check is snarkjs's,
 *     e(-A, B) e(alpha_1, beta_2) e(vk_x, gamma_2) e(C, delta_2) = 1,
 * as one four-pair multi-pairing (one final exponentiation).
 */
#include "groth16/vkey.h"
#include "field/bn254/pairing.h"
#include "field/bn254/serial.h"
#include "formats/formats.h"
#include "formats/snarkjs_json.h"
#include "util/error.h"

#include <stdio.h>
#include <string.h>

/* m = 2u(6u^2 + 3u + 1), little-endian limbs. */
static const uint64_t ffjs_power[3] = {0x2e5d4e223ddedaf4, 0x1ea96b02d9d9e38d,
                                       0x3bec47df15e307c8};

static const char *g1_problem(const pl__bn254_g1_affine *p, bool allow_inf,
                              pl__bn254_arith v)
{
    if (pl__bn254_g1_affine_is_inf(p))
        return allow_inf ? NULL : "is the point at infinity";
    if (!pl__bn254_g1_affine_on_curve(p, v))
        return "is not on the curve";
    return NULL;
}

static const char *g2_problem(const pl__bn254_g2_affine *p, pl__bn254_arith v)
{
    if (pl__bn254_g2_affine_is_inf(p))
        return "is the point at infinity";
    if (!pl__bn254_g2_affine_on_curve(p, v))
        return "is not on the curve";
    if (!pl__bn254_g2_affine_in_group(p, v))
        return "is not in the G2 subgroup";
    return NULL;
}

/* e(alpha_1, beta_2) as ours and as snarkjs writes it (^m). */
static void alphabeta(pl__bn254_fp12 *ours, pl__bn254_fp12 *snarkjs,
                      const pl_vkey *vk, pl__bn254_arith v)
{
    pl__bn254_pairing(ours, &vk->bn254.alpha1, &vk->bn254.beta2, 1, v);
    if (snarkjs)
        pl__bn254_fp12_pow(snarkjs, ours, ffjs_power, 3, v);
}

/* The key's points, checked; what names the failing one, index IC's. */
static const char *check_key(const pl_vkey *vk, const char **what,
                             size_t *index, pl__bn254_arith v)
{
    const char *bad;
    *index = 0;
    if ((bad = g1_problem(&vk->bn254.alpha1, false, v)))
        *what = "alpha_1";
    else if ((bad = g2_problem(&vk->bn254.beta2, v)))
        *what = "beta_2";
    else if ((bad = g2_problem(&vk->bn254.gamma2, v)))
        *what = "gamma_2";
    else if ((bad = g2_problem(&vk->bn254.delta2, v)))
        *what = "delta_2";
    for (size_t i = 0; !bad && i <= vk->n_public; i++)
        if ((bad = g1_problem(&vk->bn254.ic[i], true, v))) {
            *what = "IC";
            *index = i;
        }
    return bad;
}

pl_status pl__vkey_from_zkey_bn254(pl_vkey **out, const pl_zkey *zkey,
                                   pl_error *err)
{
    const pl__bn254_arith v = pl__bn254_arith_current();
    pl_vkey *vk = NULL;
    const char *bad = NULL, *what = "";
    size_t bad_index = 0;
    *out = NULL;
    pl_status st = pl__vkey_alloc(&vk, zkey->n_public, err);
    if (st != PL_OK)
        goto fail;
    vk->curve = PL__CURVE_BN254;
    if (!pl__bn254_g1_from_bytes(&vk->bn254.alpha1, zkey->alpha1))
        bad = "has a coordinate not below q", what = "alpha_1";
    else if (!pl__bn254_g2_from_bytes(&vk->bn254.beta2, zkey->beta2))
        bad = "has a coordinate not below q", what = "beta_2";
    else if (!pl__bn254_g2_from_bytes(&vk->bn254.gamma2, zkey->gamma2))
        bad = "has a coordinate not below q", what = "gamma_2";
    else if (!pl__bn254_g2_from_bytes(&vk->bn254.delta2, zkey->delta2))
        bad = "has a coordinate not below q", what = "delta_2";
    for (size_t i = 0; !bad && i <= vk->n_public; i++)
        if (!pl__bn254_g1_from_bytes(&vk->bn254.ic[i],
                                     zkey->ic + i * PL__BN254_G1_BYTES)) {
            bad = "has a coordinate not below q";
            what = "IC";
            bad_index = i;
        }
    if (!bad)
        bad = check_key(vk, &what, &bad_index, v);
    if (bad) {
        st = pl__vkey_zkey_point_error(err, zkey->path, what, bad_index, bad);
        goto fail;
    }
    alphabeta(&vk->bn254.alphabeta, NULL, vk, v);
    *out = vk;
    vk = NULL;
fail:
    pl_vkey_destroy(vk);
    return st;
}

pl_status pl__vkey_read_bn254(pl_vkey *vk, const pl__json_doc *doc,
                              const pl__json_value *root,
                              const pl__json_value *ic, pl_error *err)
{
    static const char *const g2_names[3] = {"vk_beta_2", "vk_gamma_2",
                                            "vk_delta_2"};
    pl__bn254_g2_affine *g2[3] = {&vk->bn254.beta2, &vk->bn254.gamma2,
                                  &vk->bn254.delta2};
    const pl__bn254_arith v = pl__bn254_arith_current();
    const pl__json_value *m;
    const char *bad, *what = "";
    size_t index;
    char sub[48];
    vk->curve = PL__CURVE_BN254;
    pl_status st = pl__json_member(&m, doc, root, "vk_alpha_1", true, "",
                                   err);
    if (st || (st = pl__json_read_bn254_g1(&vk->bn254.alpha1, doc, m,
                                           "vk_alpha_1", err)))
        return st;
    for (int k = 0; k < 3; k++)
        if ((st = pl__json_member(&m, doc, root, g2_names[k], true, "",
                                  err)) ||
            (st = pl__json_read_bn254_g2(g2[k], doc, m, g2_names[k], err)))
            return st;
    size_t i = 0;
    for (m = pl__json_first(ic); m != pl__json_end(ic);
         m = pl__json_next(m), i++) {
        snprintf(sub, sizeof(sub), "IC[%zu]", i);
        if ((st = pl__json_read_bn254_g1(&vk->bn254.ic[i], doc, m, sub, err)))
            return st;
    }
    if ((bad = check_key(vk, &what, &index, v))) {
        if (strcmp(what, "IC") == 0)
            snprintf(sub, sizeof(sub), "IC[%zu]", index);
        else
            snprintf(sub, sizeof(sub), "vk_%s", what);
        return pl__json_fail(doc, err, root, sub, "the point %s", bad);
    }
    pl__bn254_fp12 file_ab, want;
    alphabeta(&vk->bn254.alphabeta, &want, vk, v);
    if ((st = pl__json_member(&m, doc, root, "vk_alphabeta_12", false, "",
                              err)))
        return st;
    if (m) {
        if ((st = pl__json_read_bn254_fp12(&file_ab, doc, m,
                                           "vk_alphabeta_12", err)))
            return st;
        if (!pl__bn254_fp12_eq(&file_ab, &want))
            return pl__json_fail(doc, err, m, "vk_alphabeta_12", "does not "
                                 "equal e(vk_alpha_1, vk_beta_2) as snarkjs "
                                 "computes it");
    }
    return PL_OK;
}

pl_status pl__vkey_write_json_bn254(const pl_vkey *vkey, const char *path,
                                    pl_error *err)
{
    pl_status st = PL_OK;
    pl__strbuf sb = {0};
    pl__bn254_fp12 ours, snarkjs;
    alphabeta(&ours, &snarkjs, vkey, pl__bn254_arith_current());
    /* the key order and layout of snarkjs's export (bfj, space 1) */
    pl__strbuf_printf(&sb, "{\n \"protocol\": \"groth16\",\n"
                           " \"curve\": \"bn128\",\n"
                           " \"nPublic\": %zu,\n \"vk_alpha_1\": ",
                      vkey->n_public);
    pl__json_put_bn254_g1(&sb, &vkey->bn254.alpha1, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_beta_2\": ");
    pl__json_put_bn254_g2(&sb, &vkey->bn254.beta2, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_gamma_2\": ");
    pl__json_put_bn254_g2(&sb, &vkey->bn254.gamma2, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_delta_2\": ");
    pl__json_put_bn254_g2(&sb, &vkey->bn254.delta2, 1);
    pl__strbuf_printf(&sb, ",\n \"vk_alphabeta_12\": ");
    pl__json_put_bn254_fp12(&sb, &snarkjs, 1);
    pl__strbuf_printf(&sb, ",\n \"IC\": [\n");
    for (size_t i = 0; i <= vkey->n_public; i++) {
        pl__strbuf_printf(&sb, "  ");
        pl__json_put_bn254_g1(&sb, &vkey->bn254.ic[i], 2);
        pl__strbuf_printf(&sb, i < vkey->n_public ? ",\n" : "\n");
    }
    pl__strbuf_printf(&sb, " ]\n}");
    if (sb.failed)
        st = pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
    else
        st = pl__file_write_atomic(path, sb.data, sb.len, err);
    pl__strbuf_free(&sb);
    return st;
}

/* 32 little-endian bytes as 4 limbs. */
static void limbs_of(uint64_t k[4], const uint8_t b[32])
{
    for (int i = 0; i < 4; i++) {
        k[i] = 0;
        for (int j = 7; j >= 0; j--)
            k[i] = k[i] << 8 | b[8 * i + j];
    }
}

pl_status pl__verify_bn254(const pl_vkey *vkey, const pl_proof *proof,
                           const pl_scalar *publics, size_t count,
                           pl_error *err)
{
    const pl__bn254_arith v = pl__bn254_arith_current();
    static const char *const names[3] = {"A (pi_a)", "B (pi_b)",
                                         "C (pi_c)"};
    pl__bn254_g1_affine p[4];
    pl__bn254_g2_affine q[4];
    const char *bad = NULL;
    int which = 0;
    if (count != vkey->n_public)
        return pl__error_set(err, PL_EFORMAT, "public inputs: %zu given, the "
                             "verification key expects %zu", count,
                             vkey->n_public);
    for (size_t i = 0; i < count; i++)
        if (!pl__scalar_below_r(PL__CURVE_BN254, publics[i].b))
            return pl__error_set(err, PL_EFORMAT, "public input %zu is not "
                                 "below the scalar field modulus r of bn128",
                                 i);
    /* p[0] = A, q[0] = B, p[3] = C */
    if (!pl__bn254_g1_from_bytes(&p[0], proof->a.b))
        bad = "has a coordinate not below q", which = 0;
    else if (!pl__bn254_g2_from_bytes(&q[0], proof->b.b))
        bad = "has a coordinate not below q", which = 1;
    else if (!pl__bn254_g1_from_bytes(&p[3], proof->c.b))
        bad = "has a coordinate not below q", which = 2;
    else if ((bad = g1_problem(&p[0], false, v)))
        which = 0;
    else if ((bad = g2_problem(&q[0], v)))
        which = 1;
    else if ((bad = g1_problem(&p[3], false, v)))
        which = 2;
    if (bad)
        return pl__error_set(err, PL_EINVALID, "proof point %s %s",
                             names[which], bad);

    /* vk_x = IC_0 + sum_i public_i IC_i */
    pl__bn254_g1 vk_x, term;
    uint64_t k[4];
    pl__bn254_g1_from_affine(&vk_x, &vkey->bn254.ic[0]);
    for (size_t i = 0; i < count; i++) {
        pl__bn254_g1_from_affine(&term, &vkey->bn254.ic[i + 1]);
        limbs_of(k, publics[i].b);
        pl__bn254_g1_mul(&term, &term, k, v);
        pl__bn254_g1_add(&vk_x, &vk_x, &term, v);
    }
    pl__bn254_g1_to_affine(&p[2], &vk_x, v);

    pl__bn254_fp_neg(&p[0].y, &p[0].y, v); /* -A (A is not infinity) */
    p[1] = vkey->bn254.alpha1;
    q[1] = vkey->bn254.beta2;
    q[2] = vkey->bn254.gamma2;
    q[3] = vkey->bn254.delta2;
    if (!pl__bn254_pairing_is_one(p, q, 4, v))
        return pl__error_set(err, PL_EINVALID, "pairing check failed");
    return PL_OK;
}
