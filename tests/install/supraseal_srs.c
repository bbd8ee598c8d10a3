/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A user's program of the installed libproofline_supraseal, built by
 * tests/cli_install.sh with `pkg-config --cflags --libs
 * proofline_supraseal` alone (and statically, from its archive and
 * libproofline.a): SupraSeal C2's SRS calls through the C ABI, as the
 * crate makes them.  A parameter file opens, is cloned, evicted and
 * dropped; a path that is not there comes back as the error struct
 * (code and message, freed with free).
 *
 *   supraseal_srs <circuit.params> <missing path>
 */
#include <proofline_supraseal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    pl_supraseal_srs srs, copy;
    pl_supraseal_error e = create_SRS(&srs, argv[1], true);
    if (e.code) {
        printf("create_SRS: %s\n", e.message);
        free(e.message);
        return 1;
    }
    copy = clone_SRS(&srs);
    evict_SRS(&srs);
    drop_SRS(&srs);
    drop_SRS(&copy);
    e = create_SRS(&srs, argv[2], false);
    if (e.code == 0 || !e.message || !strstr(e.message, argv[2]) || srs.ptr) {
        printf("create_SRS(%s) did not fail as it should\n", argv[2]);
        return 1;
    }
    printf("error: %s\n", e.message);
    free(e.message);
    pl_supraseal_stats st;
    pl_supraseal_stats_read(&st);
    pl_error err;
    if (st.srs_objects != 0 || pl_supraseal_shutdown(&err) != PL_OK) {
        printf("shutdown: %s\n", err.msg);
        return 1;
    }
    printf("srs: ok\n");
    return 0;
}
