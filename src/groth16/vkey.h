/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Groth16 verification key (struct pl_vkey), shared by its reader and
 * writer (vkey.c), the verifier (verify.c) and the engine.  Points are blst
 * affine points, base field in Montgomery form: the same bytes as the zkey
 * and as pl_g1_affine / pl_g2_affine.  The snarkjs JSON encodings it is
 * read and written with are formats/snarkjs_json.h's.
 */
#ifndef PL_GROTH16_VKEY_H
#define PL_GROTH16_VKEY_H

#include "proofline.h"
#include "blst.h"
#include "field/bn254/tower.h"
#include "field/bn254/curve.h"
#include "field/curve.h"
#include "formats/json.h"

struct pl_vkey {
    size_t n_public;          /* < 2^31 */
    blst_p1_affine alpha1;
    blst_p2_affine beta2, gamma2, delta2;
    blst_fp12 alphabeta;      /* e(alpha1, beta2), after final exp. */
    blst_p1_affine *ic;       /* n_public + 1, cut from the same allocation */
    pl__curve curve;          /* BLS12-381: the fields above; BN254: these */
    struct {
        pl__bn254_g1_affine alpha1;
        pl__bn254_g2_affine beta2, gamma2, delta2;
        pl__bn254_fp12 alphabeta; /* e(alpha1, beta2), our final exp. */
        pl__bn254_g1_affine *ic;  /* n_public + 1, in ic's room */
    } bn254;
};

/* The struct and room for n_public + 1 IC points of either curve, in one
 * accounted allocation (class params). */
pl_status pl__vkey_alloc(pl_vkey **out, size_t n_public, pl_error *err);

/* A zkey's unusable point (what: "alpha_1" .. "delta_2" in section 2, or
 * "IC" and its index): PL_EFORMAT naming the file, section and point. */
pl_status pl__vkey_zkey_point_error(pl_error *err, const char *path,
                                    const char *what, size_t index,
                                    const char *bad);

/* BN254's halves of the calls (groth16/vkey_bn254.c): from a BN254 zkey;
 * a verification_key.json's points once nPublic and IC's length are
 * known (vk allocated for them); the file's text; the check. */
struct pl_zkey;
pl_status pl__vkey_from_zkey_bn254(pl_vkey **out, const struct pl_zkey *zkey,
                                   pl_error *err);
pl_status pl__vkey_read_bn254(pl_vkey *vk, const pl__json_doc *doc,
                              const pl__json_value *root,
                              const pl__json_value *ic, pl_error *err);
pl_status pl__vkey_write_json_bn254(const pl_vkey *vkey, const char *path,
                                    pl_error *err);
pl_status pl__verify_bn254(const pl_vkey *vkey, const pl_proof *proof,
                           const pl_scalar *publics, size_t count,
                           pl_error *err);

/* pl_vkey_read_json on len bytes of text in memory (for the fuzzers), `name`
 * standing for the path in messages. */
pl_status pl__vkey_parse_json(pl_vkey **out, const char *text, size_t len,
                              const char *name, pl_error *err);

/* Bytes of the accounted allocation behind a vkey with n_public inputs. */
uint64_t pl__vkey_bytes(size_t n_public);

#endif /* PL_GROTH16_VKEY_H */
