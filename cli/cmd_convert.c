/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline convert`: proofs between snarkjs's proof.json and bellperson's
 * 192 bytes.  JSON in (one or more proof.json files): their proofs
 * concatenated, as Filecoin stores a multi-partition proof.  Bytes in (a
 * file of 192-byte proofs): the one proof, or the one --index picks, as
 * proof.json.  The points are the same; only their encoding changes.
 * public.json in: the inputs as 32-byte little-endian values, the file
 * `verify --format bellperson` reads.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"
#include "proofline_c2.h"
#include "util/file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

static const cli_command convert_cmd = {
    "convert",
    "Usage: proofline convert <proof.json> [proof2.json ...] <proofs.bin>\n"
    "       proofline convert <public.json> [public2.json ...] <inputs.bin>\n"
    "       proofline convert [--index I] <proofs.bin> <proof.json>\n"
    "\n"
    "Converts Groth16 proofs (BLS12-381) between snarkjs's proof.json and\n"
    "bellperson's bytes: A (G1, 48) || B (G2, 96) || C (G1, 48), compressed\n"
    "in the zcash encoding, 192 bytes a proof, a batch concatenated.  The\n"
    "input's kind is told by its first byte ('{': a proof, '[': public\n"
    "inputs, written as 32-byte little-endian field elements, concatenated).\n",
    NULL, 24};

typedef struct {
    long index;
} convert_options;

static const cli_opt convert_opts[] = {
    {"--index", "I", CLI_LONG, offsetof(convert_options, index),
     .help = "bytes in: the proof to convert, from 0 (default: the file\n"
             "must hold one)"},
    /* the files converted, then the one written */
    {CLI_ARGUMENTS, .files = "i+o"},
    {NULL},
};

/* The file's first character that is not white space ('{' or '[' for
 * JSON), or EOF when its start is all white space (a file of bytes then:
 * its reader says what is wrong); read as every input is (util/file.h:
 * without blocking, a regular file only, so a FIFO is refused, not
 * waited on). */
static pl_status first_char(int *c, const char *path, pl_error *err)
{
    uint8_t head[4096];
    size_t got = 0, i = 0;
    pl_status st = pl__file_head(head, sizeof(head), &got, path, err);
    while (i < got && isspace(head[i]))
        i++;
    *c = i < got ? head[i] : EOF;
    return st;
}

static int inputs_to_bytes(char **in, int n_in, const char *out)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    pl_scalar *all = NULL;
    size_t n_all = 0;
    for (int i = 0; i < n_in && st == PL_OK; i++) {
        pl_scalar *v = NULL;
        size_t n = 0;
        st = pl_public_read_json(&v, &n, in[i], PL_VKEY_MAX_PUBLIC, &err);
        if (st == PL_OK) {
            pl_scalar *grown = realloc(all, (n_all + n + 1) * sizeof(*all));
            if (!grown) {
                st = PL_ENOMEM;
            } else {
                all = grown;
                for (size_t j = 0; j < n; j++)
                    all[n_all + j] = v[j];
                n_all += n;
            }
        }
        pl_public_free(v);
    }
    if (st == PL_OK)
        st = pl_bp_inputs_write(out, all, n_all, &err);
    free(all);
    return cli_exit("convert", st, &err);
}

static int to_bytes(char **in, int n_in, const char *out)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    pl_proof *proofs = calloc((size_t)n_in, sizeof(*proofs));
    if (!proofs) {
        st = PL_ENOMEM;
        goto done;
    }
    for (int i = 0; i < n_in && st == PL_OK; i++) {
        pl_curve curve;
        st = pl_proof_read_json_curve(&proofs[i], &curve, in[i], &err);
        /* bellperson's proofs are BLS12-381's */
        if (st == PL_OK && curve != PL_CURVE_BLS12_381) {
            st = PL_EUNSUPPORTED;
            pl__error_set(&err, st, "%s: a %s proof has no bellperson "
                          "encoding (BLS12-381 only)", in[i],
                          pl_curve_name(curve));
        }
    }
    if (st == PL_OK)
        st = pl_bp_proofs_write(out, proofs, (size_t)n_in, &err);
done:
    free(proofs);
    return cli_exit("convert", st, &err);
}

static int to_json(const char *in, const char *out, const convert_options *o)
{
    pl_error err = {0};
    pl_proof *proofs = NULL;
    size_t n = 0;
    pl_status st = pl_bp_proofs_read(&proofs, &n, in, 0, &err);
    if (st == PL_OK) {
        if (o->index < 0 && n != 1) {
            st = PL_EUSAGE;
            pl__error_set(&err, st, "%s holds %zu proofs: pick one with "
                          "--index", in, n);
        } else if (o->index >= 0 && (size_t)o->index >= n) {
            st = PL_EUSAGE;
            pl__error_set(&err, st, "--index %ld: %s holds %zu proofs",
                          o->index, in, n);
        } else {
            st = pl_proof_write_json(&proofs[o->index < 0 ? 0 : o->index],
                                     out, NULL, 0, NULL, &err);
        }
    }
    pl_bp_proofs_free(proofs);
    return cli_exit("convert", st, &err);
}

int cli_convert(int argc, char **argv)
{
    convert_options o = {.index = -1};
    const cli_table tables[] = {{convert_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&convert_cmd, tables, 1, argc, argv, &npos);
    if (rc == CLI_RUN && npos < 2)
        rc = cli_usage_error("convert", "needs an input and an output");
    if (rc != CLI_RUN)
        return rc;
    pl_error err = {0};
    int c;
    pl_status st = first_char(&c, argv[0], &err);
    if (st != PL_OK)
        return cli_exit("convert", st, &err);
    if (c == '{')
        return to_bytes(argv, npos - 1, argv[npos - 1]);
    if (c == '[')
        return inputs_to_bytes(argv, npos - 1, argv[npos - 1]);
    if (npos != 2)
        return cli_usage_error("convert", "bytes in: one input file, then "
                               "the proof.json to write");
    return to_json(argv[0], argv[1], &o);
}
