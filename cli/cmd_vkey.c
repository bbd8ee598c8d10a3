/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline vkey`: exports a zkey's verification key as snarkjs does.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char vkey_help[] =
    "Usage: proofline vkey <circuit.zkey> <verification_key.json>\n"
    "\n"
    "Exports the verification key of a Groth16 zkey, with the same values as\n"
    "`snarkjs zkey export verificationkey`.\n";

int cli_vkey(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(vkey_help, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("vkey", "unknown option %s", argv[i]);
        }
    if (argc != 2)
        return cli_usage_error("vkey", "needs 2 files: <circuit.zkey> "
                           "<verification_key.json>%s", "");
    pl_error err = {0};
    pl_zkey *zkey = NULL;
    pl_vkey *vkey = NULL;
    pl_status st;
    if ((st = pl_zkey_open(&zkey, argv[0], &err)) ||
        (st = pl_vkey_from_zkey(&vkey, zkey, &err)))
        goto done;
    st = pl_vkey_write_json(vkey, argv[1], &err);
done:
    pl_vkey_destroy(vkey);
    pl_zkey_close(zkey);
    return st == PL_OK ? 0 : cli_fail("vkey", st, &err);
}

