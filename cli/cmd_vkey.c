/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline vkey`: exports a zkey's verification key as snarkjs does.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"

static const cli_command vkey_cmd = {
    "vkey",
    "Usage: proofline vkey <circuit.zkey> <verification_key.json>\n"
    "\n"
    "Exports the verification key of a Groth16 zkey, with the same values as\n"
    "`snarkjs zkey export verificationkey`.\n",
    NULL, 0};

/* pos: the zkey, the JSON to write. */
static int vkey_run(char **pos)
{
    pl_error err = {0};
    pl_zkey *zkey = NULL;
    pl_vkey *vkey = NULL;
    pl_status st;
    if ((st = pl_zkey_open(&zkey, pos[0], &err)) ||
        (st = pl_vkey_from_zkey(&vkey, zkey, &err)))
        goto done;
    st = pl_vkey_write_json(vkey, pos[1], &err);
done:
    pl_vkey_destroy(vkey);
    pl_zkey_close(zkey);
    return cli_exit("vkey", st, &err);
}

int cli_vkey(int argc, char **argv)
{
    int npos = 0;
    int rc = cli_parse(&vkey_cmd, NULL, 0, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 2)
        rc = cli_usage_error("vkey", "needs 2 files: <circuit.zkey> "
                             "<verification_key.json>");
    return rc == CLI_RUN ? vkey_run(argv) : rc;
}
