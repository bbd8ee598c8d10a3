/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline verify`: checks a proof against a verification key.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"

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
    "invalid one; bad input exits 2.\n",
    NULL, 0};

/* pos: the verification key, public.json, proof.json. */
static int verify_run(char **pos)
{
    pl_error err = {0};
    pl_vkey *vkey = NULL;
    pl_scalar *publics = NULL;
    size_t count = 0;
    pl_proof proof;
    pl_status st;
    if ((st = pl_vkey_read_json(&vkey, pos[0], &err)) ||
        (st = pl_public_read_json(&publics, &count, pos[1],
                                  pl_vkey_n_public(vkey), &err)) ||
        (st = pl_proof_read_json(&proof, pos[2], &err)))
        goto done;
    st = pl_verify(vkey, &proof, publics, count, &err);
    if (st == PL_EFORMAT) { /* the public inputs do not fit the key */
        char msg[sizeof(err.msg)];
        snprintf(msg, sizeof(msg), "%.80s: %.170s", pos[1], err.msg);
        memcpy(err.msg, msg, sizeof(msg));
    }
done:
    pl_vkey_destroy(vkey);
    pl_public_free(publics);
    if (st == PL_OK || st == PL_EINVALID)
        puts(st == PL_OK ? "OK" : "INVALID");
    if (st == PL_EINVALID && err.msg[0])
        fprintf(stderr, "%s verify: %s\n", CLI_PROG, err.msg);
    return st == PL_EINVALID ? 1 : cli_exit("verify", st, &err);
}

int cli_verify(int argc, char **argv)
{
    int npos = 0;
    int rc = cli_parse(&verify_cmd, NULL, 0, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 3)
        rc = cli_usage_error("verify", "needs 3 files: "
                             "<verification_key.json> <public.json> "
                             "<proof.json>");
    return rc == CLI_RUN ? verify_run(argv) : rc;
}
