/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The BN254 prover through the public calls (pl_prover_*, pl_vkey_*,
 * pl_verify) on the bn128 vectors of tests/vectors/bn254/ (zkeys and
 * witnesses from circom --prime bn128 and snarkjs): each vector's proof
 * verifies under the key taken from its zkey and under snarkjs's
 * verification_key.json; with r = s = 0 the proof is deterministic and the
 * same bytes in both field implementations (mulx/adx and portable C) and
 * with 1 or 2 threads; fresh blinding gives another proof that verifies;
 * a proof moved is refused; every accounted buffer is freed; the CUDA
 * backend (on its host emulation) gives the same proofs.  The r = s = 0
 * proof equals, point for point, two references computed in JS from the
 * zkey and the witness (vectors/bn254_ref_prove.mjs): one with BigInt
 * NTTs and @noble/curves' bn254 sums straight from the zkey's sections,
 * one by snarkjs's own groth16 prove with its random r and s made zero.
 * The CLI's path, snarkjs's verdicts and the files are tests/cli_bn254.sh's.
 */
#include "harness.h"
#include "bn254_test.h"
#include "field/bn254/fp.h"
#include "formats/formats.h"
#include "groth16/zkey_prover.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const vectors[] = {"multiplier", "chain10",    "nopublic",
                                      "noB",        "manypublic", "edgevalues"};

static const char *path_of(const char *vector, const char *file)
{
    static char path[4096];
    snprintf(path, sizeof(path), "bn254/%s/%s", vector, file);
    return pl_test_vector(path);
}

/* One proof of the vector's witness (zero: r = s = 0). */
static void prove(pl_proof *out, const pl_zkey *z, const pl_wtns *w,
                  unsigned threads, bool zero)
{
    pl_error err = {0};
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = threads;
    pl_prover *p = NULL;
    CHECK_OK(pl_prover_create(&p, z, &cfg, &err), &err);
    pl__prover_set_zero_blinding(p, zero);
    CHECK_OK(pl_prove(p, out, w, &err), &err);
    pl_prover_destroy(p);
}

PL_TEST(proofs_verify_and_are_deterministic_unblinded)
{
    pl_error err = {0};
    pl__bn254_arith saved = pl__bn254_arith_current();
    for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        pl_zkey *z = NULL;
        pl_wtns *w = NULL;
        pl_vkey *vk = NULL, *vk_file = NULL;
        CHECK_OK(pl_zkey_open(&z, path_of(vectors[i], "circuit.zkey"), &err),
                 &err);
        CHECK_OK(pl_wtns_open(&w, path_of(vectors[i], "witness.wtns"), &err),
                 &err);
        CHECK_EQ(pl_zkey_curve(z), PL_CURVE_BN254);
        CHECK_EQ(pl_wtns_curve(w), PL_CURVE_BN254);
        CHECK_OK(pl_vkey_from_zkey(&vk, z, &err), &err);
        CHECK_OK(pl_vkey_read_json(&vk_file,
                                   path_of(vectors[i], "verification_key.json"),
                                   &err), &err);
        CHECK_EQ(pl_vkey_curve(vk), PL_CURVE_BN254);
        const pl_scalar *publics = pl_wtns_values(w) + 1;
        size_t n_public = pl_vkey_n_public(vk);

        pl_proof zero[3], blinded;
        pl__bn254_set_arith(PL__BN254_PORTABLE);
        prove(&zero[0], z, w, 1, true);
        pl__bn254_set_arith(pl__bn254_arith_best());
        prove(&zero[1], z, w, 1, true);
        prove(&zero[2], z, w, 2, true);
        CHECK_MEM(&zero[0], &zero[1], sizeof(pl_proof));
        CHECK_MEM(&zero[0], &zero[2], sizeof(pl_proof));
        prove(&blinded, z, w, 2, false);
        CHECK(memcmp(&blinded, &zero[0], sizeof(pl_proof)) != 0);
        for (int k = 0; k < 2; k++) {
            const pl_proof *pr = k ? &blinded : &zero[0];
            CHECK_OK(pl_verify(vk, pr, publics, n_public, &err), &err);
            CHECK_OK(pl_verify(vk_file, pr, publics, n_public, &err), &err);
        }
        /* A moved by one coordinate's low bit: refused */
        pl_proof bad = blinded;
        bad.a.b[0] ^= 1;
        CHECK(pl_verify(vk, &bad, publics, n_public, &err) != PL_OK);
        /* A and C swapped */
        bad = blinded;
        memcpy(bad.a.b, blinded.c.b, sizeof(bad.a.b));
        memcpy(bad.c.b, blinded.a.b, sizeof(bad.c.b));
        CHECK_STATUS(pl_verify(vk, &bad, publics, n_public, &err),
                     PL_EINVALID, &err);
        pl_vkey_destroy(vk);
        pl_vkey_destroy(vk_file);
        pl_wtns_close(w);
        pl_zkey_close(z);
    }
    pl__bn254_set_arith(saved);
    CHECK(pl_alloc_all_freed(&err));
}

/* r = s = 0 against the JS references (see the top of the file), on the
 * small vectors (chain10's 2^10 takes noble's G2 sums a minute). */
PL_TEST(zero_blinding_equals_js_references)
{
    static const char *const small[] = {"multiplier", "nopublic", "noB",
                                        "manypublic", "edgevalues"};
    char script[4096], snarkjs[4096];
    snprintf(script, sizeof(script), "%s/bn254_ref_prove.mjs",
             PL_TEST_VECTORS);
    snprintf(snarkjs, sizeof(snarkjs),
             "%s/node_modules/snarkjs/src/groth16_prove.js", PL_TEST_VECTORS);
    if (access(snarkjs, R_OK) != 0)
        bn254_skip("tests/vectors/node_modules has no snarkjs (make npm-deps)");
    if (system("node --version >/dev/null 2>&1") != 0)
        bn254_skip("node is not on PATH");
    pl_error err = {0};
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
        char zkey[4096], wtns[4096], refs[2][4096], cmd[5 * 4096 + 64];
        snprintf(zkey, sizeof(zkey), "%s", path_of(small[i], "circuit.zkey"));
        snprintf(wtns, sizeof(wtns), "%s", path_of(small[i], "witness.wtns"));
        snprintf(refs[0], sizeof(refs[0]), "%s",
                 pl_test_tmp("bn254_ref_noble.json"));
        snprintf(refs[1], sizeof(refs[1]), "%s",
                 pl_test_tmp("bn254_ref_snarkjs.json"));
        snprintf(cmd, sizeof(cmd), "node '%s' '%s' '%s' '%s' '%s'", script,
                 zkey, wtns, refs[0], refs[1]);
        CHECK(system(cmd) == 0);
        pl_zkey *z = NULL;
        pl_wtns *w = NULL;
        CHECK_OK(pl_zkey_open(&z, zkey, &err), &err);
        CHECK_OK(pl_wtns_open(&w, wtns, &err), &err);
        pl_proof ours, blinded;
        prove(&ours, z, w, 2, true);
        prove(&blinded, z, w, 2, false); /* the comparison can tell */
        for (int k = 0; k < 2; k++) {
            pl_proof ref;
            pl_curve curve = PL_CURVE_BLS12_381;
            memset(&ref, 0, sizeof(ref));
            CHECK_OK(pl_proof_read_json_curve(&ref, &curve, refs[k], &err),
                     &err);
            CHECK_EQ(curve, PL_CURVE_BN254);
            if (memcmp(&ours, &ref, sizeof(ours)) != 0)
                pl_test_fail(__FILE__, __LINE__, "%s: the r = s = 0 proof "
                             "differs from %s's", small[i],
                             k ? "snarkjs" : "the noble reference");
            CHECK(memcmp(&blinded, &ref, sizeof(ref)) != 0);
        }
        pl_wtns_close(w);
        pl_zkey_close(z);
    }
    CHECK(pl_alloc_all_freed(&err));
}

/* A BLS12-381 witness with a bn128 key, and the other way: refused before
 * any work, naming both files and both curves. */
PL_TEST(witness_of_the_other_curve_refused)
{
    pl_error err = {0};
    /* the path helpers return static buffers: copied at once */
    char keys[2][4096], wits[2][4096];
    snprintf(keys[0], sizeof(keys[0]), "%s",
             path_of("multiplier", "circuit.zkey"));
    snprintf(keys[1], sizeof(keys[1]), "%s",
             pl_test_vector("multiplier/circuit.zkey"));
    snprintf(wits[0], sizeof(wits[0]), "%s",
             pl_test_vector("multiplier/witness.wtns"));
    snprintf(wits[1], sizeof(wits[1]), "%s",
             path_of("multiplier", "witness.wtns"));
    const char *curves[2] = {"bn128", "bls12381"};
    for (int k = 0; k < 2; k++) {
        const char *key = keys[k], *wit = wits[k];
        pl_zkey *z = NULL;
        pl_wtns *w = NULL;
        pl_prover *p = NULL;
        pl_proof proof;
        CHECK_OK(pl_zkey_open(&z, key, &err), &err);
        CHECK_OK(pl_wtns_open(&w, wit, &err), &err);
        CHECK_OK(pl_prover_create(&p, z, NULL, &err), &err);
        CHECK_STATUS(pl_prove(p, &proof, w, &err), PL_EFORMAT, &err);
        CHECK(strstr(err.msg, key) && strstr(err.msg, wit));
        CHECK(strstr(err.msg, curves[k]) && strstr(err.msg, curves[1 - k]));
        pl_prover_destroy(p);
        pl_wtns_close(w);
        pl_zkey_close(z);
    }
    CHECK(pl_alloc_all_freed(&err));
}

/* The CUDA backend (over its emulation here) proves BN254 keys through
 * the public calls: with r = s = 0 the CPU backend's proof byte for byte;
 * blinded, a proof that verifies under the zkey's key and snarkjs's
 * verification_key.json (test_cuda.c has the rest: every vector, the
 * kernels against the CPU's MSM and NTT). */
PL_TEST(cuda_emulated_proves_bn254)
{
    pl_error err = {0};
    static const char *const some[] = {"multiplier", "manypublic"};
    for (size_t i = 0; i < 2; i++) {
        pl_zkey *z = NULL;
        pl_wtns *w = NULL;
        pl_vkey *vk = NULL;
        CHECK_OK(pl_zkey_open(&z, path_of(some[i], "circuit.zkey"), &err),
                 &err);
        CHECK_OK(pl_wtns_open(&w, path_of(some[i], "witness.wtns"), &err),
                 &err);
        CHECK_OK(pl_vkey_read_json(&vk,
                                   path_of(some[i], "verification_key.json"),
                                   &err), &err);
        pl_prover_config cfg;
        pl_prover_config_init(&cfg);
        cfg.backend = "cuda-emulated";
        cfg.threads = 2;
        pl_proof cpu, gpu, blinded;
        pl_prover *p = NULL;
        CHECK_OK(pl_prover_create(&p, z, &cfg, &err), &err);
        pl__prover_set_zero_blinding(p, true);
        CHECK_OK(pl_prove(p, &gpu, w, &err), &err);
        pl__prover_set_zero_blinding(p, false);
        CHECK_OK(pl_prove(p, &blinded, w, &err), &err);
        pl_prover_destroy(p);
        prove(&cpu, z, w, 2, true);
        CHECK_MEM(&gpu, &cpu, sizeof(pl_proof));
        const pl_scalar *publics = pl_wtns_values(w) + 1;
        CHECK_OK(pl_verify(vk, &blinded, publics, pl_vkey_n_public(vk), &err),
                 &err);
        pl_vkey_destroy(vk);
        pl_wtns_close(w);
        pl_zkey_close(z);
    }
    CHECK(pl_alloc_all_freed(&err));
}
