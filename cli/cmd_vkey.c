/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline vkey`: exports a zkey's verification key as snarkjs does, or
 * (--format bellperson) as a bellperson .vk.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"
#include "proofline_c2.h"

static const cli_command vkey_cmd = {
    "vkey",
    "Usage: proofline vkey <circuit.zkey> <verification_key.json>\n"
    "\n"
    "Exports the verification key of a Groth16 zkey, with the same values as\n"
    "`snarkjs zkey export verificationkey`.  With --format bellperson, writes\n"
    "it as a bellperson verifying key file (.vk) instead, for\n"
    "`proofline verify --format bellperson` and Filecoin's verifiers.\n",
    NULL, 24};

typedef struct {
    unsigned format;
} vkey_options;

static const char *const formats[] = {"snarkjs", "bellperson", NULL};

static const cli_opt vkey_opts[] = {
    {"--format", "F", CLI_CHOICE, offsetof(vkey_options, format),
     .help = "snarkjs (JSON, default) or bellperson (.vk)",
     .choices = formats},
    /* the zkey read, the key written */
    {CLI_ARGUMENTS, .files = "io"},
    {NULL},
};

/* pos: the zkey, the JSON to write. */
static int vkey_run(const vkey_options *o, char **pos)
{
    pl_error err = {0};
    pl_zkey *zkey = NULL;
    pl_vkey *vkey = NULL;
    pl_status st;
    if (o->format == 1) {
        if ((st = pl_zkey_open(&zkey, pos[0], &err)) == PL_OK)
            st = pl_bp_vk_write_from_zkey(zkey, pos[1], &err);
        goto done;
    }
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
    vkey_options o = {0};
    const cli_table tables[] = {{vkey_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&vkey_cmd, tables, 1, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 2)
        rc = cli_usage_error("vkey", "needs 2 files: <circuit.zkey> "
                             "<verification_key.json>");
    return rc == CLI_RUN ? vkey_run(&o, argv) : rc;
}
