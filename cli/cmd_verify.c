/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline verify`: checks a proof against a verification key; with
 * --format bellperson, a file of 192-byte proofs against a bellperson .vk
 * (or parameter file) and a file of public inputs.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"
#include "proofline_c2.h"

#include <stdio.h>
#include <string.h>

static const cli_command verify_cmd = {
    "verify",
    "Usage: proofline verify <verification_key.json> <public.json> "
    "<proof.json>\n"
    "\n"
    "Checks a Groth16 proof (BLS12-381) as snarkjs does: public inputs < r,\n"
    "proof points on the curve and in the subgroup, then one multi-pairing.\n"
    "Prints OK and exits 0 for a valid proof, INVALID and exits 1 for an\n"
    "invalid one; bad input exits 2.\n"
    "\n"
    "       proofline verify --format bellperson <key.vk> <inputs.bin> "
    "<proofs.bin>\n"
    "\n"
    "Checks proofs in bellperson's bytes (Filecoin's): proofs.bin holds one\n"
    "or more proofs of 192 bytes (A G1 || B G2 || C G1, compressed, zcash\n"
    "encoding), concatenated as Filecoin stores a multi-partition proof;\n"
    "key.vk is a bellperson verifying key file (a parameter file works too);\n"
    "inputs.bin holds the public inputs as 32-byte little-endian field\n"
    "elements (each < r), n_public of them for each proof, proof after proof,\n"
    "without ONE.  OK only when every proof is valid; an invalid one is\n"
    "named on stderr.\n",
    NULL, 24};

typedef struct {
    unsigned format; /* index in formats[] */
    bool check_params;
} verify_options;

static const char *const formats[] = {"snarkjs", "bellperson", NULL};

#define O(field) offsetof(verify_options, field)
static const cli_opt verify_opts[] = {
    {"--format", "F", CLI_CHOICE, O(format),
     .help = "snarkjs (JSON, default) or bellperson (bytes)",
     .choices = formats},
    {"--check-params", NULL, CLI_FLAG, O(check_params),
     .help = "bellperson: check every point of the key file first"},
    /* the key, the inputs and the proof(s), read */
    {CLI_ARGUMENTS, .files = "iii"},
    {NULL},
};

/* pos: the verification key, public.json, proof.json. */
static int verify_run(char **pos)
{
    pl_error err = {0};
    pl_vkey *vkey = NULL;
    pl_scalar *publics = NULL;
    size_t count = 0;
    pl_proof proof;
    pl_curve curve;
    pl_status st;
    if ((st = pl_vkey_read_json(&vkey, pos[0], &err)) ||
        (st = pl_public_read_json(&publics, &count, pos[1],
                                  pl_vkey_n_public(vkey), &err)) ||
        (st = pl_proof_read_json_curve(&proof, &curve, pos[2], &err)))
        goto done;
    /* a proof of one curve under a key of the other is a usage error, not
     * an invalid proof: say which files and which curves */
    if (curve != pl_vkey_curve(vkey)) {
        st = pl__error_set(&err, PL_EFORMAT, "%s is for curve %s but %s is "
                           "for curve %s", pos[2], pl_curve_name(curve),
                           pos[0], pl_curve_name(pl_vkey_curve(vkey)));
        goto done;
    }
    st = pl_verify(vkey, &proof, publics, count, &err);
    if (st == PL_EFORMAT) /* the public inputs do not fit the key */
        pl__error_set(&err, st, "%s: %s", pos[1], err.msg);
done:
    pl_vkey_destroy(vkey);
    pl_public_free(publics);
    if (st == PL_OK || st == PL_EINVALID)
        puts(st == PL_OK ? "OK" : "INVALID");
    if (st == PL_EINVALID && err.msg[0])
        fprintf(stderr, "%s verify: %s\n", CLI_PROG, err.msg);
    return st == PL_EINVALID ? 1 : cli_exit("verify", st, &err);
}

/* pos: the .vk (or .params), the inputs, the proofs. */
static int verify_bellperson(const verify_options *o, char **pos)
{
    pl_error err = {0};
    pl_bp_params *params = NULL;
    pl_vkey *vkey = NULL;
    pl_scalar *inputs = NULL;
    pl_proof *proofs = NULL;
    size_t n_inputs = 0, n_proofs = 0;
    pl_status st;
    if ((st = pl_bp_params_open(&params, pos[0], &err)) ||
        (o->check_params &&
         (st = cli_check_bp_points("verify", params, &err))) ||
        (st = pl_vkey_from_bp_params(&vkey, params, &err)) ||
        (st = pl_bp_proofs_read(&proofs, &n_proofs, pos[2], 0, &err)) ||
        /* the file's size bounded by what the proofs take (0 inputs: 1,
         * since 0 is no bound; a count that differs is refused below) */
        (st = pl_bp_inputs_read(&inputs, &n_inputs, pos[1],
                                n_proofs * pl_vkey_n_public(vkey) != 0
                                    ? n_proofs * pl_vkey_n_public(vkey)
                                    : 1,
                                &err)))
        goto done;
    const size_t n_public = pl_vkey_n_public(vkey);
    if (n_inputs != n_proofs * n_public) {
        st = pl__error_set(&err, PL_EFORMAT, "%s: %zu public inputs; %zu "
                           "proofs of %zu inputs each take %zu", pos[1],
                           n_inputs, n_proofs, n_public, n_proofs * n_public);
        goto done;
    }
    for (size_t i = 0; i < n_proofs && st == PL_OK; i++) {
        st = pl_verify(vkey, &proofs[i], inputs + i * n_public, n_public,
                       &err);
        if (st != PL_OK)
            pl__error_set(&err, st, "%s: proof %zu (at byte offset %zu): %s",
                          pos[2], i, i * PL_BP_PROOF_BYTES, err.msg);
    }
done:
    pl_bp_proofs_free(proofs);
    pl_public_free(inputs);
    pl_vkey_destroy(vkey);
    pl_bp_params_close(params);
    if (st == PL_OK || st == PL_EINVALID)
        puts(st == PL_OK ? "OK" : "INVALID");
    if (st == PL_EINVALID && err.msg[0])
        fprintf(stderr, "%s verify: %s\n", CLI_PROG, err.msg);
    return st == PL_EINVALID ? 1 : cli_exit("verify", st, &err);
}

int cli_verify(int argc, char **argv)
{
    verify_options o = {0};
    const cli_table tables[] = {{verify_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&verify_cmd, tables, 1, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 3)
        rc = o.format == 1
                 ? cli_usage_error("verify", "needs 3 files: <key.vk> "
                                   "<inputs.bin> <proofs.bin>")
                 : cli_usage_error("verify", "needs 3 files: "
                                   "<verification_key.json> <public.json> "
                                   "<proof.json>");
    else if (rc == CLI_RUN && o.check_params && o.format != 1)
        rc = cli_usage_error("verify", "--check-params is for --format "
                             "bellperson");
    if (rc != CLI_RUN)
        return rc;
    return o.format == 1 ? verify_bellperson(&o, argv) : verify_run(argv);
}
