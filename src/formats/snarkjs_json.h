/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The snarkjs JSON encodings of field elements and points, shared by the
 * proof and public-input files (formats/proof_json.c, which implements
 * them), the verification key (groth16/vkey.c) and its tests.  Points are
 * blst affine points, base field in Montgomery form: the same bytes as the
 * zkey and as pl_g1_affine / pl_g2_affine.  Reading checks the encoding
 * only (decimal strings below q, z = 1 or snarkjs's infinity), not that a
 * point is on its curve: that is for whoever uses the point.
 */
#ifndef PL_FORMATS_SNARKJS_JSON_H
#define PL_FORMATS_SNARKJS_JSON_H

#include "proofline.h"
#include "blst.h"
#include "field/bn254/serial.h"
#include "field/curve.h"
#include "formats/json.h"
#include "util/file.h"

/* A decimal string < q into Montgomery form. */
pl_status pl__json_read_fp(blst_fp *out, const pl__json_doc *doc,
                           const pl__json_value *v, const char *path,
                           pl_error *err);
/* [x, y, "1"], or snarkjs's infinity ["0", "1", "0"] (all-zero result).
 * Checks only the encoding, not that the point is on the curve. */
pl_status pl__json_read_g1(blst_p1_affine *out, const pl__json_doc *doc,
                           const pl__json_value *v, const char *path,
                           pl_error *err);
/* [[x0, x1], [y0, y1], ["1", "0"]], or infinity
 * [["0", "0"], ["1", "0"], ["0", "0"]]. */
pl_status pl__json_read_g2(blst_p2_affine *out, const pl__json_doc *doc,
                           const pl__json_value *v, const char *path,
                           pl_error *err);
/* A string that must equal `want` when the key is present. */
pl_status pl__json_check_tag(const pl__json_doc *doc,
                             const pl__json_value *obj, const char *key,
                             const char *want, bool required, pl_error *err);

/* Writers in the layout of JSON.stringify(value, null, 1): the value's
 * opening bracket at the cursor, its lines indented by depth + 1 spaces,
 * the closing bracket by depth; no trailing comma or newline. */
void pl__json_put_fp(pl__strbuf *sb, const blst_fp *v);
void pl__json_put_g1(pl__strbuf *sb, const blst_p1_affine *p, int depth);
void pl__json_put_g2(pl__strbuf *sb, const blst_p2_affine *p, int depth);
void pl__json_put_fp12(pl__strbuf *sb, const blst_fp12 *f, int depth);

/* The same layouts over decimal strings (both curves' putters end here). */
void pl__json_put_dec_g1(pl__strbuf *sb, const char *const s[3], int depth);
void pl__json_put_dec_g2(pl__strbuf *sb, const char *const s[3][2],
                         int depth);
void pl__json_put_dec_fp12(pl__strbuf *sb, const char *const s[2][3][2],
                           int depth);

/* BN254 ("bn128"): the same encodings, read and written through
 * field/bn254/serial.h (coordinates below q checked, infinity as
 * ffjavascript writes it; not that a point is on its curve). */
pl_status pl__json_read_bn254_g1(pl__bn254_g1_affine *out,
                                 const pl__json_doc *doc,
                                 const pl__json_value *v, const char *path,
                                 pl_error *err);
pl_status pl__json_read_bn254_g2(pl__bn254_g2_affine *out,
                                 const pl__json_doc *doc,
                                 const pl__json_value *v, const char *path,
                                 pl_error *err);
pl_status pl__json_read_bn254_fp12(pl__bn254_fp12 *out,
                                   const pl__json_doc *doc,
                                   const pl__json_value *v, const char *path,
                                   pl_error *err);
void pl__json_put_bn254_g1(pl__strbuf *sb, const pl__bn254_g1_affine *p,
                           int depth);
void pl__json_put_bn254_g2(pl__strbuf *sb, const pl__bn254_g2_affine *p,
                           int depth);
void pl__json_put_bn254_fp12(pl__strbuf *sb, const pl__bn254_fp12 *f,
                             int depth);
/* The "curve" tag of obj: "bls12381" or absent (unless required) is
 * BLS12-381, "bn128" BN254, another PL_EUNSUPPORTED naming it. */
pl_status pl__json_curve(pl__curve *out, const pl__json_doc *doc,
                         const pl__json_value *obj, bool required,
                         pl_error *err);

#endif /* PL_FORMATS_SNARKJS_JSON_H */
