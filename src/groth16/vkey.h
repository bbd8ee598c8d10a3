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

struct pl_vkey {
    size_t n_public;          /* < 2^31 */
    blst_p1_affine alpha1;
    blst_p2_affine beta2, gamma2, delta2;
    blst_fp12 alphabeta;      /* e(alpha1, beta2), after final exp. */
    blst_p1_affine *ic;       /* n_public + 1, cut from the same allocation */
};

/* pl_vkey_read_json on len bytes of text in memory (for the fuzzers), `name`
 * standing for the path in messages. */
pl_status pl__vkey_parse_json(pl_vkey **out, const char *text, size_t len,
                              const char *name, pl_error *err);

/* Bytes of the accounted allocation behind a vkey with n_public inputs. */
uint64_t pl__vkey_bytes(size_t n_public);

#endif /* PL_GROTH16_VKEY_H */
