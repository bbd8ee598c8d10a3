/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A frozen constraint system out to the snarkjs formats (FORMATS.md): the
 * .r1cs (version 1, sections 1 header, 2 constraints, 3 wire labels) and
 * the .wtns (version 2), each streamed to a temporary file beside the
 * target, fsynced, then renamed, so a failed write leaves nothing.  Also
 * the evaluation of A, B, C from the recorded rows (pl__cs_eval, the
 * reference the prover's CSR path is tested against) and pl_cs_check.
 */
#define _POSIX_C_SOURCE 200809L
#include "circuit/cs.h"
#include "field/field.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    pl__output out;
} out_file;

static pl_status out_open(out_file *o, const char *path, pl_error *err)
{
    return pl__output_open(&o->out, path, err);
}

/* Errors stay with the stream and show at commit. */
static void out_put(out_file *o, const void *p, size_t n)
{
    fwrite(p, 1, n, o->out.f);
}

static void out_u32(out_file *o, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                    (uint8_t)(v >> 24)};
    out_put(o, b, 4);
}

static void out_u64(out_file *o, uint64_t v)
{
    out_u32(o, (uint32_t)v);
    out_u32(o, (uint32_t)(v >> 32));
}

static void out_abort(out_file *o)
{
    pl__output_abort(&o->out);
}

static pl_status out_commit(out_file *o, pl_error *err)
{
    return pl__output_commit(&o->out, err);
}

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
    if (st != PL_OK)
        return st;
    uint64_t n_wires = pl_cs_n_wires(cs), nc = cs->n_constraints;
    if (nc > UINT32_MAX)
        return pl__error_set(err, PL_EUNSUPPORTED, "%s: %" PRIu64 " "
                             "constraints do not fit an r1cs", path, nc);
    /* The coefficients in the file's encoding, once. */
    uint8_t *le = pl__alloc(PL_BUF_CSR, (uint64_t)cs->n_coeffs * 32, err);
    if (!le)
        return PL_ENOMEM;
    for (uint32_t i = 0; i < cs->n_coeffs; i++)
        pl__fr_to_le(le + 32 * (uint64_t)i, &cs->coeffs[i]);
    out_file o = {0};
    if ((st = out_open(&o, path, err)) != PL_OK)
        goto done;
    out_put(&o, "r1cs", 4);
    out_u32(&o, 1);
    out_u32(&o, 3);
    out_u32(&o, 1);
    out_u64(&o, 4 + 32 + 28);
    out_u32(&o, 32);
    out_put(&o, pl__fr_modulus_le, 32);
    out_u32(&o, (uint32_t)n_wires);
    out_u32(&o, 0);                       /* nPubOut */
    out_u32(&o, (uint32_t)cs->n_public);  /* nPubIn */
    out_u32(&o, 0);                       /* nPrvIn */
    out_u64(&o, n_wires);                 /* nLabels */
    out_u32(&o, (uint32_t)nc);
    out_u32(&o, 2);
    out_u64(&o, 12 * nc + 36 * cs->n_terms);
    for (uint64_t k = 0; k < nc; k++)
        for (unsigned m = 0; m < 3; m++) {
            uint64_t t0 = cs->rows[3 * k + m], t1 = cs->rows[3 * k + m + 1];
            out_u32(&o, (uint32_t)(t1 - t0));
            for (uint64_t t = t0; t < t1; t++) {
                out_u32(&o, cs->terms[t].var);
                out_put(&o, le + 32 * (uint64_t)cs->terms[t].coeff, 32);
            }
        }
    out_u32(&o, 3);
    out_u64(&o, 8 * n_wires);
    for (uint64_t w = 0; w < n_wires; w++)
        out_u64(&o, w);
    st = out_commit(&o, err);
done:
    if (st != PL_OK)
        out_abort(&o);
    pl__free(le);
    return st;
}

pl_status pl_cs_write_wtns(const pl_cs *cs, const char *path, pl_error *err)
{
    pl_status st = need_frozen(cs, false, err);
    if (st != PL_OK)
        return st;
    uint64_t n = pl_cs_n_wires(cs);
    out_file o = {0};
    if ((st = out_open(&o, path, err)) != PL_OK)
        return st;
    out_put(&o, "wtns", 4);
    out_u32(&o, 2);
    out_u32(&o, 2);
    out_u32(&o, 1);
    out_u64(&o, 4 + 32 + 4);
    out_u32(&o, 32);
    out_put(&o, pl__fr_modulus_le, 32);
    out_u32(&o, (uint32_t)n);
    out_u32(&o, 2);
    out_u64(&o, 32 * n);
    out_put(&o, cs->values, 32 * n);
    if ((st = out_commit(&o, err)) != PL_OK)
        out_abort(&o);
    return st;
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
