/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C API in one small program: open a circuit's zkey (snarkjs's
 * format), prove a witness (.wtns, from circom's witness generator), and
 * verify the proof with the key's verification key.  Built against an
 * installed proofline with pkg-config alone (examples/api/Makefile, or
 * `cc prove_verify.c $(pkg-config --cflags --libs proofline)`); make test
 * builds it so against a `make install` tree (tests/cli_install.sh), with
 * the shared library and with `pkg-config --static`, and runs both.
 *
 *   prove_verify <circuit.zkey> <witness.wtns> [public.json]
 *
 * The public inputs pl_verify takes are circom's public wires in circom's
 * order: the circuit's outputs first, then its public inputs, each as
 * declared.  In the witness they are wires 1..n (wire 0 is the constant
 * ONE), and public.json (snarkjs's, or proofline's --public) lists them in
 * that same order; so the two sources below agree, and this program checks
 * that they do when public.json is given.  It then shows that a changed
 * input is refused, and prints the library's version beside the header's
 * (the install test compares them).
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
    pl_scalar *from_json = NULL;
    pl_proof proof;
    pl_prover_config cfg;
    pl_scalar publics[16];
    size_t n = 0, n_json = 0;
    int rc = 1;

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: prove_verify <circuit.zkey> <witness.wtns> [public.json]\n");
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
    /* the public inputs: the witness's wires 1..n (outputs, then inputs) */
    n = pl_vkey_n_public(vkey);
    if (n == 0 || n > sizeof(publics) / sizeof(publics[0]) ||
        pl_wtns_count(wtns) <= n) {
        fprintf(stderr, "prove_verify: unexpected public input count %zu\n", n);
        goto fail;
    }
    memcpy(publics, pl_wtns_values(wtns) + 1, n * sizeof(pl_scalar));
    /* or public.json's values, the same wires in the same order */
    if (argc == 4) {
        if (pl_public_read_json(&from_json, &n_json, argv[3], n, &err) != PL_OK)
            goto fail;
        if (n_json != n || memcmp(from_json, publics, n * sizeof(pl_scalar)) != 0) {
            fprintf(stderr, "prove_verify: %s does not hold the witness's wires 1..%zu\n",
                    argv[3], n);
            goto fail;
        }
        printf("public.json: the witness's wires 1..%zu\n", n);
    }
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
    pl_public_free(from_json);
    pl_vkey_destroy(vkey);
    pl_prover_destroy(prover);
    pl_wtns_close(wtns);
    pl_zkey_close(zkey);
    return rc;
}
