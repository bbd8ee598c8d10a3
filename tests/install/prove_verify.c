/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A user's program of the installed library: built by tests/cli_install.sh
 * with `pkg-config --cflags --libs proofline` alone against a
 * `make install DESTDIR=...` tree, and run against its libproofline.so.
 * Through the public API only, it proves a committed vector
 * (tests/vectors/multiplier), verifies the proof with the key's
 * verification key, checks that a changed public input is refused, and
 * prints the library's version, which the script compares with the
 * header's, `proofline --version` and the soname.
 *
 *   prove_verify <circuit.zkey> <witness.wtns>
 */
#include <proofline.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    pl_error err = {0};
    pl_zkey *zkey = NULL;
    pl_wtns *wtns = NULL;
    pl_prover *prover = NULL;
    pl_vkey *vkey = NULL;
    pl_proof proof;
    pl_prover_config cfg;
    pl_scalar publics[16];
    int rc = 1;

    if (argc != 3) {
        fprintf(stderr, "usage: prove_verify <circuit.zkey> <witness.wtns>\n");
        return 2;
    }
    printf("library %s header %s\n", pl_version(), PL_VERSION_STRING);
    pl_prover_config_init(&cfg);
    cfg.threads = 1;
    if (pl_zkey_open(&zkey, argv[1], &err) != PL_OK ||
        pl_wtns_open(&wtns, argv[2], &err) != PL_OK ||
        pl_prover_create(&prover, zkey, &cfg, &err) != PL_OK ||
        pl_prove(prover, &proof, wtns, &err) != PL_OK ||
        pl_vkey_from_zkey(&vkey, zkey, &err) != PL_OK)
        goto fail;
    /* the public inputs are the witness's wires 1..n (wire 0 is ONE) */
    size_t n = pl_vkey_n_public(vkey);
    if (n == 0 || n >= sizeof(publics) / sizeof(publics[0]) ||
        pl_wtns_count(wtns) <= n) {
        fprintf(stderr, "prove_verify: unexpected public input count %zu\n", n);
        goto fail;
    }
    memcpy(publics, pl_wtns_values(wtns) + 1, n * sizeof(pl_scalar));
    if (pl_verify(vkey, &proof, publics, n, &err) != PL_OK)
        goto fail;
    printf("proof: valid\n");
    publics[0].b[0] ^= 1;
    if (pl_verify(vkey, &proof, publics, n, &err) != PL_EINVALID) {
        fprintf(stderr, "prove_verify: a changed public input was not refused\n");
        goto fail;
    }
    printf("changed public input: refused\n");
    rc = 0;
fail:
    if (rc != 0 && err.code != PL_OK)
        fprintf(stderr, "prove_verify: %s: %s\n", pl_strerror(err.code), err.msg);
    pl_vkey_destroy(vkey);
    pl_prover_destroy(prover);
    pl_wtns_close(wtns);
    pl_zkey_close(zkey);
    return rc;
}
