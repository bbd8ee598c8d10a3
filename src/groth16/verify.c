/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Groth16 verifier: the check snarkjs's `groth16 verify` makes,
 *     e(-A, B) e(vk_x, gamma_2) e(C, delta_2) e(alpha_1, beta_2) = 1,
 *     vk_x = IC_0 + sum_i public_i IC_i,
 * as three Miller loops, one final exponentiation, and a multiplication by
 * the key's cached e(alpha_1, beta_2) (equal to a fourth Miller loop under
 * the same final exponentiation, since the final exponentiation is a
 * homomorphism).  Used by the CLI's verify command and to check our own
 * proofs before they are written.
 *
 * Statuses, chosen to agree with snarkjs where snarkjs has an answer:
 *  - wrong public input count, or a public input >= r: PL_EFORMAT (snarkjs
 *    rejects the inputs before looking at the proof);
 *  - a proof point at infinity, not on its curve or not in its subgroup:
 *    PL_EINVALID with a message naming the point (snarkjs reports the
 *    proof as not valid; it checks the curve only, the subgroup check is
 *    ours, since the pairing is only sound on the prime-order subgroups);
 *  - the pairing check fails: PL_EINVALID.
 * The identity is refused for A, B and C.  snarkjs's isValid lets it
 * through, but its pairing of infinity does not come out as 1, so snarkjs
 * rejects such proofs; blst's does, so without this check a proof with
 * B = 0 and C chosen from the key's trapdoor (a development key's secrets
 * are known) would pass here and fail there.  An honest prover never
 * makes one: A and B carry the blinding r and s.  docs/snarkjs.md lists
 * where we differ from snarkjs.
 */
#include "groth16/vkey.h"
#include "field/field.h"
#include "util/error.h"

#include <string.h>

static const char *pl__proof_g1_problem(const blst_p1_affine *p)
{
    const char *bad = NULL;
    if (blst_p1_affine_is_inf(p))
        bad = "is the point at infinity";
    else if (!blst_p1_affine_on_curve(p))
        bad = "is not on the curve";
    else if (!blst_p1_affine_in_g1(p))
        bad = "is not in the G1 subgroup";
    return bad;
}

static const char *pl__proof_g2_problem(const blst_p2_affine *p)
{
    const char *bad = NULL;
    if (blst_p2_affine_is_inf(p))
        bad = "is the point at infinity";
    else if (!blst_p2_affine_on_curve(p))
        bad = "is not on the curve";
    else if (!blst_p2_affine_in_g2(p))
        bad = "is not in the G2 subgroup";
    return bad;
}

pl_status pl_verify(const pl_vkey *vkey, const pl_proof *proof,
                    const pl_scalar *publics, size_t count, pl_error *err)
{
    pl_status st = PL_OK;
    blst_p1_affine a, c, vk_x_aff;
    blst_p2_affine b;
    blst_p1 vk_x, term;
    blst_fp12 acc, f;
    const char *bad;

    if (!vkey || !proof || (count && !publics)) {
        st = pl__error_set(err, PL_EUSAGE, "pl_verify: missing key, proof or "
                           "public inputs");
        goto fail;
    }
    if (vkey->curve == PL__CURVE_BN254)
        return pl__verify_bn254(vkey, proof, publics, count, err);
    if (count != vkey->n_public) {
        st = pl__error_set(err, PL_EFORMAT, "public inputs: %zu given, the "
                           "verification key expects %zu", count,
                           vkey->n_public);
        goto fail;
    }
    for (size_t i = 0; i < count; i++)
        if (!pl__scalar_is_canonical(publics[i].b)) {
            st = pl__error_set(err, PL_EFORMAT, "public input %zu is not "
                               "below the scalar field modulus r", i);
            goto fail;
        }

    memcpy(&a, proof->a.b, sizeof(a));
    memcpy(&b, proof->b.b, sizeof(b));
    memcpy(&c, proof->c.b, sizeof(c));
    if ((bad = pl__proof_g1_problem(&a))) {
        st = pl__error_set(err, PL_EINVALID, "proof point A (pi_a) %s", bad);
        goto fail;
    }
    if ((bad = pl__proof_g2_problem(&b))) {
        st = pl__error_set(err, PL_EINVALID, "proof point B (pi_b) %s", bad);
        goto fail;
    }
    if ((bad = pl__proof_g1_problem(&c))) {
        st = pl__error_set(err, PL_EINVALID, "proof point C (pi_c) %s", bad);
        goto fail;
    }

    /* vk_x: few inputs in practice, so one 255-bit multiplication each */
    blst_p1_from_affine(&vk_x, &vkey->ic[0]);
    for (size_t i = 0; i < count; i++) {
        blst_p1_from_affine(&term, &vkey->ic[i + 1]);
        blst_p1_mult(&term, &term, publics[i].b, 255);
        blst_p1_add_or_double(&vk_x, &vk_x, &term);
    }
    blst_p1_to_affine(&vk_x_aff, &vk_x);

    /* -A: negating y (A is not infinity, checked above) */
    blst_fp_cneg(&a.y, &a.y, true);
    blst_miller_loop(&acc, &b, &a);
    blst_miller_loop(&f, &vkey->gamma2, &vk_x_aff);
    blst_fp12_mul(&acc, &acc, &f);
    blst_miller_loop(&f, &vkey->delta2, &c);
    blst_fp12_mul(&acc, &acc, &f);
    blst_final_exp(&f, &acc);
    blst_fp12_mul(&f, &f, &vkey->alphabeta);
    if (!blst_fp12_is_one(&f)) {
        st = pl__error_set(err, PL_EINVALID, "pairing check failed");
        goto fail;
    }
fail:
    return st;
}
