/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline verify`: checks a proof against a verification key.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char verify_help[] =
    "Usage: proofline verify <verification_key.json> <public.json> "
    "<proof.json>\n"
    "\n"
    "Checks a Groth16 proof (BLS12-381) as snarkjs does: public inputs < r,\n"
    "proof points on the curve and in the subgroup, then one multi-pairing.\n"
    "Prints OK and exits 0 for a valid proof, INVALID and exits 1 for an\n"
    "invalid one; bad input exits 2.\n";

int cli_verify(int argc, char **argv)
{
    if (argc == 1 && cli_is_help(argv[0])) {
        fputs(verify_help, stdout);
        return 0;
    }
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(verify_help, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("verify", "unknown option %s", argv[i]);
        }
    if (argc != 3)
        return cli_usage_error("verify", "needs 3 files: <verification_key.json> "
                           "<public.json> <proof.json>%s", "");
    pl_error err = {0};
    pl_vkey *vkey = NULL;
    pl_scalar *publics = NULL;
    size_t count = 0;
    pl_proof proof;
    pl_status st;
    if ((st = pl_vkey_read_json(&vkey, argv[0], &err)) ||
        (st = pl_public_read_json(&publics, &count, argv[1], &err)) ||
        (st = pl_proof_read_json(&proof, argv[2], &err)))
        goto done;
    st = pl_verify(vkey, &proof, publics, count, &err);
    if (st == PL_EFORMAT) { /* the public inputs do not fit the key */
        char msg[sizeof(err.msg)];
        snprintf(msg, sizeof(msg), "%.80s: %.170s", argv[1], err.msg);
        memcpy(err.msg, msg, sizeof(msg));
    }
done:
    pl_vkey_destroy(vkey);
    pl_public_free(publics);
    if (st == PL_OK) {
        puts("OK");
        return 0;
    }
    if (st == PL_EINVALID) {
        puts("INVALID");
        if (err.msg[0])
            fprintf(stderr, "%s verify: %s\n", CLI_PROG, err.msg);
        return 1;
    }
    return cli_fail("verify", st, &err);
}

