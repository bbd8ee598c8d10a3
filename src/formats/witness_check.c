/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checks between files, run before a prove when the caller has the .r1cs:
 * pl_witness_check evaluates every constraint A*B = C on the witness (a
 * witness that fails would give a proof that does not verify, after all
 * the work), and pl_r1cs_matches_zkey checks that an r1cs and a zkey
 * describe the same circuit shape; both refuse files of two curves.  Both rely on the readers' validation:
 * every wire index is below nWires and every value below r.
 *
 * On a failing constraint the error holds its index and its A, B, C values
 * (signed: r - 3 prints as -3), as the caller asked for a diagnosis;
 * those are witness-derived, so the
 * message is for the person running the prover, not for logs.
 */
#include "formats/formats.h"
#include "field/field.h"
#include "field/bn254/serial.h"
#include "util/error.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The last path component, to leave the message room for three values. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The value of one linear combination on the witness. */
static void eval_lc(blst_fr *out, const pl__r1cs_lc *lc,
                    const uint8_t *witness)
{
    memset(out, 0, sizeof(*out)); /* zero in Montgomery form is zero */
    for (uint32_t t = 0; t < lc->n_terms; t++) {
        pl__r1cs_term term = pl__r1cs_lc_term(lc, t);
        blst_fr coef, value;
        pl__fr_from_le(&coef, term.coef);
        pl__fr_from_le(&value, witness + (uint64_t)term.wire * PL__FR_BYTES);
        blst_fr_mul(&value, &value, &coef);
        blst_fr_add(out, out, &value);
    }
}

/* (r - 1) / 2, little-endian: values above it print as negatives. */
static const uint8_t half_r_le[32] = {
    0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0x7f, 0xff, 0x2d, 0xff,
    0x7f, 0x01, 0xd2, 0xde, 0xa9, 0x02, 0xec, 0xd0, 0x04, 0x04, 0xec,
    0x9c, 0x19, 0xa4, 0xbe, 0xce, 0x94, 0xa9, 0xd3, 0xf6, 0x39};

/* Decimal, signed: circom writes a - b as a + (r - 1) * b, so a failing row
 * often holds "negative" values; -3 reads better than a 77-digit r - 3, and
 * keeps three values inside the 256-byte message. */
static void fr_dec(char *out, size_t cap, const blst_fr *x)
{
    pl_scalar s;
    pl__fr_to_le(s.b, x);
    size_t sign = 0;
    if (pl__le_less(half_r_le, s.b, 32)) {
        blst_fr neg;
        blst_fr_cneg(&neg, x, true);
        pl__fr_to_le(s.b, &neg);
        out[0] = '-';
        sign = 1;
    }
    if (pl__fr_scalar_to_dec(out + sign, cap - sign, &s) == 0)
        snprintf(out, cap, "?");
}

/* The same on BN254: Fr in the implementation of this call. */
static void eval_lc_bn254(pl__bn254_fr *out, const pl__r1cs_lc *lc,
                          const uint8_t *witness, pl__bn254_arith v)
{
    memset(out, 0, sizeof(*out));
    for (uint32_t t = 0; t < lc->n_terms; t++) {
        pl__r1cs_term term = pl__r1cs_lc_term(lc, t);
        pl__bn254_fr coef, value;
        /* both read below r: the reader checked them */
        (void)pl__bn254_fr_from_le(&coef, term.coef);
        (void)pl__bn254_fr_from_le(&value, witness +
                                   (uint64_t)term.wire * PL__FR_BYTES);
        pl__bn254_fr_mul(&value, &value, &coef, v);
        pl__bn254_fr_add(out, out, &value, v);
    }
}

/* Signed decimal as fr_dec: the smaller of x and r - x. */
static void fr_dec_bn254(char *out, size_t cap, const pl__bn254_fr *x,
                         pl__bn254_arith v)
{
    pl__bn254_fr neg;
    uint8_t xb[32], nb[32];
    char dec[PL__BN254_DEC_CAP];
    pl__bn254_fr_neg(&neg, x, v);
    pl__bn254_fr_to_le(xb, x);
    pl__bn254_fr_to_le(nb, &neg);
    bool negative = pl__le_less(nb, xb, 32);
    pl__bn254_fr_to_dec(dec, negative ? &neg : x);
    snprintf(out, cap, "%s%s", negative ? "-" : "", dec);
}

static pl_status check_bn254(const pl_r1cs *r1cs, const pl_wtns *wtns,
                             pl_error *err)
{
    pl__bn254_arith v = pl__bn254_arith_current();
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    for (pl__r1cs_iter_init(&it, r1cs); pl__r1cs_iter_next(&it, &k, lc);) {
        pl__bn254_fr a, b, c, ab;
        eval_lc_bn254(&a, &lc[0], wtns->values, v);
        eval_lc_bn254(&b, &lc[1], wtns->values, v);
        eval_lc_bn254(&c, &lc[2], wtns->values, v);
        pl__bn254_fr_mul(&ab, &a, &b, v);
        if (memcmp(&ab, &c, sizeof(ab)) != 0) {
            char da[PL__BN254_DEC_CAP + 1], db[sizeof(da)], dc[sizeof(da)];
            fr_dec_bn254(da, sizeof(da), &a, v);
            fr_dec_bn254(db, sizeof(db), &b, v);
            fr_dec_bn254(dc, sizeof(dc), &c, v);
            return pl__error_set(err, PL_EUNSAT,
                                 "%s: constraint %" PRIu32 " is not "
                                 "satisfied: A = %s, B = %s, C = %s",
                                 base_name(wtns->path), k, da, db, dc);
        }
    }
    return PL_OK;
}

pl_status pl_witness_check(const pl_r1cs *r1cs, const pl_wtns *wtns,
                           pl_error *err)
{
    pl_status st = pl__curve_match("witness check", wtns->path, wtns->curve,
                                   r1cs->path, r1cs->curve, err);
    if (st != PL_OK)
        goto fail;
    if (wtns->n_values != r1cs->info.n_wires) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s has %" PRIu64 " witness values, but %s has "
                           "nWires %" PRIu32 ": they are not for the same "
                           "circuit", wtns->path, wtns->n_values, r1cs->path,
                           r1cs->info.n_wires);
        goto fail;
    }
    if (r1cs->curve == PL__CURVE_BN254) {
        st = check_bn254(r1cs, wtns, err);
        goto fail;
    }
    pl__r1cs_iter it;
    pl__r1cs_lc lc[3];
    uint32_t k;
    for (pl__r1cs_iter_init(&it, r1cs); pl__r1cs_iter_next(&it, &k, lc);) {
        blst_fr a, b, c, ab;
        eval_lc(&a, &lc[0], wtns->values);
        eval_lc(&b, &lc[1], wtns->values);
        eval_lc(&c, &lc[2], wtns->values);
        blst_fr_mul(&ab, &a, &b);
        if (memcmp(&ab, &c, sizeof(ab)) != 0) {
            char da[80], db[80], dc[80];
            fr_dec(da, sizeof(da), &a);
            fr_dec(db, sizeof(db), &b);
            fr_dec(dc, sizeof(dc), &c);
            st = pl__error_set(err, PL_EUNSAT,
                               "%s: constraint %" PRIu32 " is not satisfied: "
                               "A = %s, B = %s, C = %s", base_name(wtns->path),
                               k, da, db, dc);
            goto fail;
        }
    }
fail:
    return st;
}

pl_status pl_r1cs_matches_zkey(const pl_r1cs *r1cs, const pl_zkey *zkey,
                               pl_error *err)
{
    pl_status st = PL_OK;
    const pl_r1cs_info *ri = &r1cs->info;
    uint64_t r_public = (uint64_t)ri->n_pub_out + ri->n_pub_in;
    if ((st = pl__curve_match("circuit", r1cs->path, r1cs->curve, zkey->path,
                              zkey->curve, err)) != PL_OK)
        return st;
    if (ri->n_wires != zkey->n_vars) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s and %s are not the same circuit: nWires %"
                           PRIu32 " but nVars %" PRIu32, r1cs->path,
                           zkey->path, ri->n_wires, zkey->n_vars);
    } else if (r_public != zkey->n_public) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s and %s are not the same circuit: nPubOut + "
                           "nPubIn = %" PRIu64 " but nPublic %" PRIu32,
                           r1cs->path, zkey->path, r_public, zkey->n_public);
    } else if (ri->n_constraints != zkey->n_constraints) {
        st = pl__error_set(err, PL_EFORMAT,
                           "%s and %s are not the same circuit: nConstraints %"
                           PRIu32 " but the zkey has %" PRIu32, r1cs->path,
                           zkey->path, ri->n_constraints, zkey->n_constraints);
    }
    return st;
}
