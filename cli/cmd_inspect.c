/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline inspect`: the header facts of a zkey, wtns or r1cs.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"

static const cli_command inspect_cmd = {
    "inspect",
    "Usage: proofline inspect <file>\n"
    "\n"
    "Validates a .zkey, .wtns or .r1cs (recognised by its magic) and prints\n"
    "its header facts as `key: value` lines.\n",
    NULL, 0};

int cli_inspect(int argc, char **argv)
{
    pl_error err = {0};
    int npos = 0;
    int rc = cli_parse(&inspect_cmd, NULL, 0, argc, argv, &npos);
    if (rc == CLI_RUN && npos != 1)
        rc = cli_usage_error("inspect", "needs one file");
    if (rc == CLI_RUN)
        rc = cli_exit("inspect", pl_inspect(argv[0], stdout, &err), &err);
    return rc;
}
