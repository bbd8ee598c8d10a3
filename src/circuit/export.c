/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A frozen constraint system out to the snarkjs formats (FORMATS.md): the
 * .r1cs (version 1, sections 1 header, 2 constraints, 3 wire labels) and
 * the .wtns (version 2), in the layouts of the format writers
 * (formats/r1cs.c, formats/wtns.c) through pl__output (a temporary file,
 * fsynced, renamed), so a failed write leaves nothing.  Also the
 * evaluation of A, B, C from the recorded rows (pl__cs_eval, the reference
 * the prover's CSR path is tested against) and pl_cs_check.
 */
#define _POSIX_C_SOURCE 200809L
#include "circuit/cs.h"
#include "field/field.h"
#include "formats/formats.h"
#include "util/alloc.h"
#include "util/error.h"

#include <inttypes.h>
#include <string.h>

static pl_status need_frozen(const pl_cs *cs, bool recording, pl_error *err)
{
    if (cs->status != PL_OK)
        return pl_cs_status(cs, err);
    if (!cs->frozen || cs->mode == PL__CS_COUNT ||
        (recording && cs->mode != PL__CS_RECORDING))
        return pl__error_set(err, PL_EUSAGE, "circuit: needs a %s cs after "
                             "pl_cs_freeze", recording ? "recording"
                                                       : "recording or "
                                                         "witness-only");
    return PL_OK;
}

pl_status pl_cs_write_r1cs(const pl_cs *cs, const char *path, pl_error *err)
{
    pl_status st = need_frozen(cs, true, err);
    pl__output out;
    pl__container_writer w;
    uint8_t *le = NULL;
    memset(&out, 0, sizeof(out));
    if (st != PL_OK)
        goto fail;
    uint64_t n_wires = pl_cs_n_wires(cs), nc = cs->n_constraints;
    if (nc > UINT32_MAX) {
        st = pl__error_set(err, PL_EUNSUPPORTED, "%s: %" PRIu64 " "
                           "constraints do not fit an r1cs", path, nc);
        goto fail;
    }
    /* The coefficients in the file's encoding, once. */
    le = pl__alloc(PL_BUF_CSR, (uint64_t)cs->n_coeffs * PL__FR_BYTES, err);
    if (!le) {
        st = PL_ENOMEM;
        goto fail;
    }
    for (uint32_t i = 0; i < cs->n_coeffs; i++)
        pl__fr_to_le(le + PL__FR_BYTES * (uint64_t)i, &cs->coeffs[i]);
    /* Every variable is a public input or a private wire; labels are the
     * wire indices. */
    const pl_r1cs_info info = {
        .n_wires = (uint32_t)n_wires, .n_pub_out = 0,
        .n_pub_in = (uint32_t)cs->n_public, .n_prv_in = 0,
        .n_labels = n_wires, .n_constraints = (uint32_t)nc};
    if ((st = pl__output_open(&out, path, err)) != PL_OK)
        goto fail;
    pl__r1cs_write_begin(&w, &out, &info, cs->n_terms, err);
    for (uint64_t k = 0; k < nc && w.status == PL_OK; k++)
        for (unsigned m = 0; m < 3; m++) {
            uint64_t t0 = cs->rows[3 * k + m], t1 = cs->rows[3 * k + m + 1];
            pl__r1cs_put_lc(&w, (uint32_t)(t1 - t0), err);
            for (uint64_t t = t0; t < t1; t++)
                pl__r1cs_put_term(&w, cs->terms[t].var,
                                  le + PL__FR_BYTES *
                                           (uint64_t)cs->terms[t].coeff,
                                  err);
        }
    if ((st = pl__r1cs_write_end(&w, &info, err)) == PL_OK)
        st = pl__output_commit(&out, err);
fail:
    pl__output_abort(&out);
    pl__free(le);
    return st;
}

pl_status pl_cs_write_wtns(const pl_cs *cs, const char *path, pl_error *err)
{
    pl_status st = need_frozen(cs, false, err);
    if (st != PL_OK)
        return st;
    return pl__wtns_write(path, cs->values, pl_cs_n_wires(cs), err);
}

/* The witness in Montgomery form (class witness): the caller frees it. */
static blst_fr *witness_fr(const pl_cs *cs, pl_error *err)
{
    uint64_t n = pl_cs_n_wires(cs);
    blst_fr *w = pl__alloc(PL_BUF_WITNESS, n * sizeof(blst_fr), err);
    if (w)
        for (uint64_t i = 0; i < n; i++)
            pl__fr_from_le(&w[i], cs->values[i].b);
    return w;
}

static void eval_row(const pl_cs *cs, const blst_fr *w, uint64_t k,
                     unsigned m, blst_fr *out)
{
    memset(out, 0, sizeof(*out));
    for (uint64_t t = cs->rows[3 * k + m]; t < cs->rows[3 * k + m + 1]; t++) {
        blst_fr v;
        blst_fr_mul(&v, &w[cs->terms[t].var], &cs->coeffs[cs->terms[t].coeff]);
        blst_fr_add(out, out, &v);
    }
}

pl_status pl__cs_eval(const pl_cs *cs, blst_fr *a, blst_fr *b, blst_fr *c,
                      pl_error *err)
{
    pl_status st = need_frozen(cs, true, err);
    if (st != PL_OK)
        return st;
    blst_fr *w = witness_fr(cs, err);
    if (!w)
        return PL_ENOMEM;
    blst_fr *outs[3] = {a, b, c};
    for (uint64_t k = 0; k < cs->n_constraints; k++)
        for (unsigned m = 0; m < 3; m++)
            if (outs[m])
                eval_row(cs, w, k, m, &outs[m][k]);
    pl__free(w);
    return PL_OK;
}

pl_status pl_cs_check(const pl_cs *cs, pl_error *err)
{
    pl_status st = need_frozen(cs, true, err);
    if (st != PL_OK)
        return st;
    blst_fr *w = witness_fr(cs, err);
    if (!w)
        return PL_ENOMEM;
    for (uint64_t k = 0; k < cs->n_constraints && st == PL_OK; k++) {
        blst_fr v[3];
        for (unsigned m = 0; m < 3; m++)
            eval_row(cs, w, k, m, &v[m]);
        blst_fr_mul(&v[0], &v[0], &v[1]);
        /* Values stay out of the message: they are witness data. */
        if (memcmp(&v[0], &v[2], sizeof(blst_fr)) != 0)
            st = pl__error_set(err, PL_EUNSAT, "circuit: constraint %" PRIu64
                               " of %" PRIu64 " is not satisfied (A * B != C)",
                               k, cs->n_constraints);
    }
    pl__free(w);
    return st;
}
