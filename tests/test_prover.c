/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The prover end to end on the committed circom/snarkjs vectors:
 *  - with r = s = 0 (test hook) the proof equals the deterministic reference
 *    (proof_ref.json, from an independent BigInt prover) bit for bit;
 *  - with real blinding the proof verifies with snarkjs's verification key
 *    and with the key we derive from the zkey, and two proofs differ;
 *  - start/finish can be split, and thread counts do not change results;
 *  - every accounted allocation failure returns PL_ENOMEM and leaks nothing.
 */
#include "harness.h"
#include "groth16/zkey_prover.h"
#include "util/alloc.h"

static const char *const vectors[] = {"multiplier", "chain10", "nopublic",
                                      "pow2exact", "pow2plus1", "noB",
                                      "manypublic", "edgevalues"};
#define N_VECTORS (sizeof(vectors) / sizeof(vectors[0]))

typedef struct {
    pl_zkey *zkey;
    pl_wtns *wtns;
    pl_vkey *vkey;
} loaded;

static void load(loaded *l, const char *name)
{
    pl_error err = {0};
    char path[512];
    snprintf(path, sizeof(path), "%s/circuit.zkey", name);
    CHECK_OK(pl_zkey_open(&l->zkey, pl_test_vector(path), &err), &err);
    snprintf(path, sizeof(path), "%s/witness.wtns", name);
    CHECK_OK(pl_wtns_open(&l->wtns, pl_test_vector(path), &err), &err);
    snprintf(path, sizeof(path), "%s/verification_key.json", name);
    CHECK_OK(pl_vkey_read_json(&l->vkey, pl_test_vector(path), &err), &err);
}

static void unload(loaded *l)
{
    pl_vkey_destroy(l->vkey);
    pl_wtns_close(l->wtns);
    pl_zkey_close(l->zkey);
}

static const pl_scalar *publics_of(const loaded *l)
{
    return pl_wtns_values(l->wtns) + 1;
}

static size_t n_public_of(const loaded *l)
{
    pl_zkey_info info;
    pl_zkey_get_info(l->zkey, &info);
    return info.n_public;
}

static void prove_with(const loaded *l, unsigned threads, bool zero_blinding,
                       pl_proof *out)
{
    pl_error err = {0};
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = threads;
    pl_prover *prover;
    CHECK_OK(pl_prover_create(&prover, l->zkey, &cfg, &err), &err);
    pl__prover_set_zero_blinding(prover, zero_blinding);
    pl_pending *pending;
    CHECK_OK(pl_prove_start(prover, &pending, l->wtns, &err), &err);
    CHECK_OK(pl_prove_finish(pending, out, &err), &err);
    pl_prover_destroy(prover);
}

PL_TEST(zero_blinding_equals_reference)
{
    for (size_t i = 0; i < N_VECTORS; i++) {
        loaded l;
        load(&l, vectors[i]);
        pl_proof ours, ref;
        prove_with(&l, 2, true, &ours);
        pl_error err = {0};
        char path[512];
        snprintf(path, sizeof(path), "%s/proof_ref.json", vectors[i]);
        CHECK_OK(pl_proof_read_json(&ref, pl_test_vector(path), &err), &err);
        if (memcmp(&ours, &ref, sizeof(ours)) != 0)
            pl_test_fail(__FILE__, __LINE__, "%s: proof with r = s = 0 "
                         "differs from proof_ref.json", vectors[i]);
        CHECK_OK(pl_verify(l.vkey, &ours, publics_of(&l), n_public_of(&l),
                           &err), &err);
        unload(&l);
    }
}

PL_TEST(blinded_proofs_verify)
{
    for (size_t i = 0; i < N_VECTORS; i++) {
        loaded l;
        load(&l, vectors[i]);
        pl_proof p1, p2;
        prove_with(&l, 0, false, &p1);
        prove_with(&l, 1, false, &p2);
        pl_error err = {0};
        CHECK_OK(pl_verify(l.vkey, &p1, publics_of(&l), n_public_of(&l), &err),
                 &err);
        CHECK_OK(pl_verify(l.vkey, &p2, publics_of(&l), n_public_of(&l), &err),
                 &err);
        CHECK(memcmp(&p1, &p2, sizeof(p1)) != 0); /* fresh r, s each time */
        /* ... and with the key we derive ourselves */
        pl_vkey *derived;
        CHECK_OK(pl_vkey_from_zkey(&derived, l.zkey, &err), &err);
        CHECK_OK(pl_verify(derived, &p1, publics_of(&l), n_public_of(&l),
                           &err), &err);
        pl_vkey_destroy(derived);
        unload(&l);
    }
}

PL_TEST(thread_counts_agree)
{
    loaded l;
    load(&l, "chain10");
    pl_proof p1, p4;
    prove_with(&l, 1, true, &p1);
    prove_with(&l, 4, true, &p4);
    CHECK_MEM(&p1, &p4, sizeof(p1));
    unload(&l);
}

PL_TEST(tampered_proofs_are_invalid)
{
    loaded l;
    load(&l, "chain10");
    pl_proof proof;
    prove_with(&l, 0, false, &proof);
    pl_error err = {0};
    size_t n = n_public_of(&l);
    pl_scalar publics[8];
    CHECK(n >= 1 && n <= 8);
    memcpy(publics, publics_of(&l), n * sizeof(pl_scalar));
    publics[0].b[0] ^= 1;
    CHECK_STATUS(pl_verify(l.vkey, &proof, publics, n, &err), PL_EINVALID,
                 &err);
    pl_proof swapped = proof;
    swapped.a = proof.c;
    swapped.c = proof.a;
    CHECK_STATUS(pl_verify(l.vkey, &swapped, publics_of(&l), n, &err),
                 PL_EINVALID, &err);
    unload(&l);
}

PL_TEST(witness_of_wrong_length_is_refused)
{
    loaded chain, mult;
    load(&chain, "chain10");
    load(&mult, "multiplier");
    pl_error err = {0};
    pl_prover *prover;
    CHECK_OK(pl_prover_create(&prover, chain.zkey, NULL, &err), &err);
    pl_pending *pending;
    CHECK_STATUS(pl_prove_start(prover, &pending, mult.wtns, &err), PL_EFORMAT,
                 &err);
    CHECK(strstr(err.msg, "witness.wtns") != NULL);
    pl_prover_destroy(prover);
    unload(&mult);
    unload(&chain);
}

/* Fail the k-th accounted allocation, for every k a prove makes. */
PL_TEST(allocation_failures_leak_nothing)
{
    loaded l;
    load(&l, "chain10");
    pl_vkey_destroy(l.vkey); /* so that nothing else is live in between */
    l.vkey = NULL;
    pl_error err = {0};
    pl_prover *prover;
    pl_proof proof;
    pl__alloc_fail_at(0);
    CHECK_OK(pl_prover_create(&prover, l.zkey, NULL, &err), &err);
    CHECK_OK(pl_prove(prover, &proof, l.wtns, &err), &err);
    pl_prover_destroy(prover);
    uint64_t total = pl__alloc_fail_at(0);
    CHECK(total >= 4);
    pl_test_live held; /* the key and the witness the test holds */
    pl_test_live_read(&held);
    for (uint64_t k = 1; k <= total; k++) {
        pl__alloc_fail_at(k);
        pl_status st = pl_prover_create(&prover, l.zkey, NULL, &err);
        if (st == PL_OK) {
            st = pl_prove(prover, &proof, l.wtns, &err);
            pl_prover_destroy(prover);
        }
        pl__alloc_fail_at(0);
        if (st != PL_ENOMEM)
            pl_test_fail(__FILE__, __LINE__, "failing allocation %llu of "
                         "%llu gave %s", (unsigned long long)k,
                         (unsigned long long)total, pl_strerror(st));
        if (!pl_test_live_as_before(&held, &err))
            pl_test_fail(__FILE__, __LINE__, "failing allocation %llu: %s",
                         (unsigned long long)k, err.msg);
    }
    unload(&l);
}
