/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline inspect`: the header facts of a zkey, wtns or r1cs, or of
 * bellperson's parameter, .vk and proof files; with --check-params, every
 * point of a zkey or a bellperson key file checked too.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"
#include "proofline_c2.h"
#include "util/file.h"

#include <stdio.h>
#include <string.h>

static const cli_command inspect_cmd = {
    "inspect",
    "Usage: proofline inspect [--check-params] <file>\n"
    "\n"
    "Validates a .zkey, .wtns or .r1cs (recognised by its magic), or a\n"
    "bellperson parameter file, verifying key (.vk) or file of 192-byte\n"
    "proofs (recognised by their shape), and prints its header facts as\n"
    "`key: value` lines.\n",
    NULL, 24};

typedef struct {
    bool check_params;
} inspect_options;

static const cli_opt inspect_opts[] = {
    {"--check-params", NULL, CLI_FLAG, offsetof(inspect_options, check_params),
     .help = "a zkey or bellperson key: check every point (on the curve,\n"
             "in the subgroup)"},
    /* the file inspected */
    {CLI_ARGUMENTS, .files = "i"},
    {NULL},
};

/* The point check of the file inspected: a zkey or a bellperson key. */
static pl_status check_points(const char *path, FILE *out, pl_error *err)
{
    uint8_t magic[4] = {0};
    size_t got = 0;
    pl_status st = pl__file_head(magic, sizeof(magic), &got, path, err);
    if (st != PL_OK)
        return st;
    if (got == 4 && memcmp(magic, "zkey", 4) == 0) {
        pl_zkey *z = NULL;
        if ((st = pl_zkey_open(&z, path, err)) == PL_OK)
            st = cli_check_zkey_points("inspect", path, z, err);
        pl_zkey_close(z);
    } else {
        pl_bp_params *p = NULL;
        if ((st = pl_bp_params_open(&p, path, err)) == PL_OK)
            st = cli_check_bp_points("inspect", p, err);
        pl_bp_params_close(p);
    }
    if (st == PL_OK)
        fprintf(out, "points: checked\n");
    return st;
}

int cli_inspect(int argc, char **argv)
{
    pl_error err = {0};
    inspect_options o = {0};
    const cli_table tables[] = {{inspect_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&inspect_cmd, tables, 1, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 1)
        rc = cli_usage_error("inspect", "needs one file");
    if (rc == CLI_RUN) {
        pl_status st = pl_inspect(argv[0], stdout, &err);
        if (st == PL_OK && o.check_params)
            st = check_points(argv[0], stdout, &err);
        if (st == PL_OK && fflush(stdout) != 0)
            st = PL_EIO;
        rc = cli_exit("inspect", st, &err);
    }
    return rc;
}
