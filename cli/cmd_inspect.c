/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline inspect`: the header facts of a zkey, wtns or r1cs.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char inspect_help[] =
    "Usage: proofline inspect <file>\n"
    "\n"
    "Validates a .zkey, .wtns or .r1cs (recognised by its magic) and prints\n"
    "its header facts as `key: value` lines.\n";

int cli_inspect(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(inspect_help, stdout);
            return 0;
        }
    if (argc != 1)
        return cli_usage_error("inspect", "needs one file%s", "");
    pl_error err = {0};
    pl_status st = pl_inspect(argv[0], stdout, &err);
    return st == PL_OK ? 0 : cli_fail("inspect", st, &err);
}

