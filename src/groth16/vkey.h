/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Groth16 verification key (struct pl_vkey) and the snarkjs JSON
 * encodings of field elements and points shared by the vkey and proof
 * readers and writers (vkey.c, formats/proof_json.c) and the verifier
 * (verify.c).  Points are blst affine points, base field in Montgomery
 * form: the same bytes as the zkey and as pl_g1_affine / pl_g2_affine.
 */
#ifndef PL_GROTH16_VKEY_H
#define PL_GROTH16_VKEY_H

#include "proofline.h"
#include "blst.h"
#include "formats/json.h"
#include "util/file.h"

struct pl_vkey {
    size_t n_public;          /* < 2^31 */
    blst_p1_affine alpha1;
    blst_p2_affine beta2, gamma2, delta2;
    blst_fp12 alphabeta;      /* e(alpha1, beta2), after final exp. */
    blst_p1_affine *ic;       /* n_public + 1, cut from the same allocation */
};

/* ---- snarkjs JSON encodings (implemented in formats/proof_json.c) ---- */

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

/* pl_vkey_read_json on len bytes of text in memory (for the fuzzers), `name`
 * standing for the path in messages. */
pl_status pl__vkey_parse_json(pl_vkey **out, const char *text, size_t len,
                              const char *name, pl_error *err);

/* Bytes of the accounted allocation behind a vkey with n_public inputs. */
uint64_t pl__vkey_bytes(size_t n_public);

#endif /* PL_GROTH16_VKEY_H */
