/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A batch of proofs in the skeleton (pl__groth16_start_batch,
 * groth16/prover.c): k proofs of one key started together give, with
 * r = s = 0, the same proofs byte for byte as k separate
 * pl__groth16_start calls, on the CPU backend (its batched G1 sums,
 * cpu_msm_g1_batch) and on the CUDA backend's host emulation (no batched
 * sums: one proof after another), with the witness-aware and the plain
 * MSMs, with standard and Montgomery-form scalars; the proof of the real
 * witness verifies.  Each input's a/b/c is freed once (abc_freed), before
 * its proof finishes; every class's high-water mark stays within
 * pl__groth16_plan_batch, which is at most k proofs' plan; a failed
 * allocation anywhere in a batch fails it, consumes every input and leaks
 * nothing (the harness checks every class back at zero after each case).
 *
 * The inputs: the vector's real witness, and copies of it with some
 * scalars and some a/b/c values replaced by random ones.  Those do not
 * satisfy the circuit (their proofs do not verify), but a proof is a
 * deterministic function of its input, so they check that each of the k
 * vectors goes to its own proof.
 */
#include "harness.h"
#include "field/field.h"
#include "groth16/zkey_prover.h"
#include "util/alloc.h"

#define KMAX 4

typedef struct {
    pl_zkey *zkey;
    pl_wtns *wtns;
    pl_vkey *vkey;
    pl_prover *prover;
    const pl__backend_ops *backend;
    size_t domain;
    /* per input: a/b/c as synthesized (then perturbed), and the A (= B1)
     * and C scalars */
    blst_fr *abc[KMAX];
    pl_scalar *ab[KMAX], *c[KMAX];
    size_t n_ab, n_c;
} fixture;

static const pl__backend_ops *backend_named(const char *name)
{
    return strcmp(name, "cpu") == 0 ? &pl__backend_cpu
                                    : &pl__backend_cuda_emulated;
}

static void random_fr(uint64_t *rng, blst_fr *out)
{
    uint8_t b[32];
    pl_test_random_bytes(rng, b, 32);
    b[31] &= 0x3f;
    blst_scalar s;
    blst_scalar_from_lendian(&s, b);
    blst_fr_from_scalar(out, &s);
}

static void setup(fixture *f, const char *vector, const char *backend,
                  bool plain, size_t k)
{
    pl_error err = {0};
    char path[512];
    memset(f, 0, sizeof(*f));
    snprintf(path, sizeof(path), "%s/circuit.zkey", vector);
    CHECK_OK(pl_zkey_open(&f->zkey, pl_test_vector(path), &err), &err);
    snprintf(path, sizeof(path), "%s/witness.wtns", vector);
    CHECK_OK(pl_wtns_open(&f->wtns, pl_test_vector(path), &err), &err);
    snprintf(path, sizeof(path), "%s/verification_key.json", vector);
    CHECK_OK(pl_vkey_read_json(&f->vkey, pl_test_vector(path), &err), &err);
    f->backend = backend_named(backend);
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = 2;
    cfg.plain_msm = plain;
    CHECK_OK(pl__prover_create_with_backend(&f->prover, f->zkey, f->backend,
                                            &cfg, &err), &err);
    pl__prover_set_zero_blinding(f->prover, true);
    const pl__groth16_key *key = pl__prover_key(f->prover);
    f->domain = (size_t)1 << key->shape.log2n;
    f->n_ab = key->shape.counts[PL__SUM_A];
    f->n_c = key->shape.counts[PL__SUM_C];
    const pl_scalar *w = pl_wtns_values(f->wtns);
    uint64_t rng = 99;
    for (size_t j = 0; j < k; j++) {
        blst_fr *abc;
        CHECK_OK(pl__prover_synthesize(f->prover, &abc, f->wtns, NULL, &err),
                 &err);
        f->abc[j] = malloc(3 * f->domain * sizeof(blst_fr));
        f->ab[j] = malloc((f->n_ab + 1) * sizeof(pl_scalar));
        f->c[j] = malloc((f->n_c + 1) * sizeof(pl_scalar));
        CHECK(f->abc[j] && f->ab[j] && f->c[j]);
        memcpy(f->abc[j], abc, 3 * f->domain * sizeof(blst_fr));
        pl__free(abc);
        memcpy(f->ab[j], w, f->n_ab * sizeof(pl_scalar));
        memcpy(f->c[j], w + key->n_public + 1, f->n_c * sizeof(pl_scalar));
        if (j == 0)
            continue; /* the real witness */
        for (size_t i = j; i < 3 * f->domain; i += 3)
            random_fr(&rng, &f->abc[j][i]);
        for (size_t i = j; i < f->n_ab; i += 2) {
            pl_test_random_bytes(&rng, f->ab[j][i].b, 32);
            f->ab[j][i].b[31] &= 0x3f;
        }
        for (size_t i = 0; i < f->n_c; i += j + 1) {
            pl_test_random_bytes(&rng, f->c[j][i].b, 32);
            f->c[j][i].b[31] &= 0x3f;
        }
    }
}

static void teardown(fixture *f)
{
    for (size_t j = 0; j < KMAX; j++) {
        free(f->abc[j]);
        free(f->ab[j]);
        free(f->c[j]);
    }
    pl_prover_destroy(f->prover);
    pl_vkey_destroy(f->vkey);
    pl_wtns_close(f->wtns);
    pl_zkey_close(f->zkey);
}

/* Input j, with its own accounted copy of a/b/c (which start consumes);
 * montgomery: A's and C's scalars read as Montgomery form (any bytes are
 * some field element's: the same for the batch and the reference). */
static void input_of(fixture *f, size_t j, bool montgomery,
                     pl__proof_input *in)
{
    pl_error err = {0};
    memset(in, 0, sizeof(*in));
    uint64_t bytes = 3 * f->domain * sizeof(blst_fr);
    in->abc = pl__alloc(PL_BUF_ABC, bytes, &err);
    CHECK(in->abc != NULL);
    memcpy(in->abc, f->abc[j], bytes);
    in->scalars[PL__SUM_A] = (pl__scalars){f->ab[j], f->n_ab, montgomery};
    in->scalars[PL__SUM_B1] = (pl__scalars){f->ab[j], f->n_ab, false};
    in->scalars[PL__SUM_C] = (pl__scalars){f->c[j], f->n_c, montgomery};
}

typedef struct {
    int freed;
    bool finished; /* set once its proof is finished */
    bool freed_after_finish;
} freed_count;

static void count_freed(void *ctx)
{
    freed_count *c = ctx;
    c->freed++;
    if (c->finished)
        c->freed_after_finish = true;
}

static void batch_equals_separate(const char *vector, const char *backend,
                                  bool plain, bool montgomery, size_t k)
{
    pl_error err = {0};
    fixture f;
    setup(&f, vector, backend, plain, k);
    pl__groth16_prover *skel = pl__prover_skeleton(f.prover);
    pl_proof want[KMAX], got[KMAX];
    for (size_t j = 0; j < k; j++) {
        pl__proof_input in;
        pl_pending *pd;
        input_of(&f, j, montgomery, &in);
        CHECK_OK(pl__groth16_start(skel, &pd, &in, NULL, NULL, &err), &err);
        CHECK_OK(pl_prove_finish(pd, &want[j], &err), &err);
    }

    pl__proof_input ins[KMAX], *inp[KMAX];
    freed_count counts[KMAX] = {{0}};
    void *ctx[KMAX];
    for (size_t j = 0; j < k; j++) {
        input_of(&f, j, montgomery, &ins[j]);
        inp[j] = &ins[j];
        ctx[j] = &counts[j];
    }
    pl__prove_plan plan, one;
    const pl__groth16_key *key = pl__prover_key(f.prover);
    pl__groth16_plan_batch(&key->shape, f.backend, 2, k, &plan);
    pl__groth16_plan(&key->shape, f.backend, 2, &one);
    pl_alloc_stats st;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        CHECK(plan.bytes[c] <= k * one.bytes[c]);
        pl_alloc_stats_read(&st, (pl_buffer_class)c, true);
    }
    pl_pending *pds[KMAX];
    CHECK_OK(pl__groth16_start_batch(skel, pds, inp, k, count_freed, ctx,
                                     &err), &err);
    for (size_t j = 0; j < k; j++) {
        CHECK(ins[j].abc == NULL); /* consumed */
        CHECK_EQ(counts[j].freed, 1);
    }
    for (size_t j = 0; j < k; j++) {
        CHECK_OK(pl_prove_finish(pds[j], &got[j], &err), &err);
        counts[j].finished = true;
    }
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        pl_alloc_stats_read(&st, (pl_buffer_class)c, false);
        if (c == PL_BUF_ABC || c == PL_BUF_H || c == PL_BUF_MSM_SCRATCH ||
            c == PL_BUF_PENDING)
            CHECK(st.high_water_bytes <= plan.bytes[c]);
    }
    for (size_t j = 0; j < k; j++) {
        CHECK(!counts[j].freed_after_finish);
        if (memcmp(&got[j], &want[j], sizeof(pl_proof)) != 0) {
            fprintf(stderr, "%s on %s (%s MSM, %s scalars), k = %zu: proof "
                    "%zu differs from the separate one\n", vector, backend,
                    plain ? "plain" : "witness",
                    montgomery ? "Montgomery" : "standard", k, j);
            CHECK(false);
        }
    }
    if (!montgomery) {
        pl_zkey_info info;
        pl_zkey_get_info(f.zkey, &info);
        CHECK_OK(pl_verify(f.vkey, &got[0], pl_wtns_values(f.wtns) + 1,
                           info.n_public, &err), &err);
    }
    teardown(&f);
}

PL_TEST(cpu_batch_equals_separate)
{
    for (size_t k = 1; k <= 3; k++)
        batch_equals_separate("chain10", "cpu", false, false, k);
    batch_equals_separate("multiplier", "cpu", false, false, 3);
}

PL_TEST(cpu_batch_plain_and_montgomery)
{
    batch_equals_separate("chain10", "cpu", true, false, 3);
    batch_equals_separate("chain10", "cpu", false, true, 2);
    batch_equals_separate("chain10", "cpu", true, true, 2);
}

PL_TEST(cuda_emulated_batch_falls_back_to_one_by_one)
{
    fixture f;
    setup(&f, "multiplier", "cuda-emulated", false, 1);
    CHECK(!pl__groth16_batches(pl__prover_skeleton(f.prover)));
    teardown(&f);
    batch_equals_separate("multiplier", "cuda-emulated", false, false, 3);
    batch_equals_separate("pow2exact", "cuda-emulated", false, true, 2);
}

/* Every accounted allocation of a batch failed in turn: the batch fails,
 * every input is consumed with abc_freed once, nothing leaks. */
static void allocation_failures(const char *backend)
{
    pl_error err = {0};
    const size_t k = 2;
    fixture f;
    setup(&f, "multiplier", backend, false, k);
    pl__groth16_prover *skel = pl__prover_skeleton(f.prover);
    pl__proof_input ins[KMAX], *inp[KMAX];
    freed_count counts[KMAX];
    void *ctx[KMAX];
    pl_pending *pds[KMAX];
    for (uint64_t fail = 1;; fail++) {
        memset(counts, 0, sizeof(counts));
        for (size_t j = 0; j < k; j++) {
            input_of(&f, j, false, &ins[j]);
            inp[j] = &ins[j];
            ctx[j] = &counts[j];
        }
        pl__alloc_fail_at(fail);
        pl_status st = pl__groth16_start_batch(skel, pds, inp, k, count_freed,
                                               ctx, &err);
        pl__alloc_fail_at(0);
        for (size_t j = 0; j < k; j++) {
            CHECK(ins[j].abc == NULL);
            CHECK_EQ(counts[j].freed, 1);
        }
        if (st == PL_OK) {
            /* past the last allocation of the start, or a G2 sum's (on its
             * own thread), which its finish reports */
            bool all = true;
            for (size_t j = 0; j < k; j++) {
                pl_proof proof;
                st = pl_prove_finish(pds[j], &proof, &err);
                if (st != PL_OK) {
                    CHECK_STATUS(st, PL_ENOMEM, &err);
                    all = false;
                }
            }
            if (all) {
                CHECK(fail > 3);
                break;
            }
            continue;
        }
        CHECK_STATUS(st, PL_ENOMEM, &err);
        for (size_t j = 0; j < k; j++)
            CHECK(pds[j] == NULL);
    }
    teardown(&f);
}

PL_TEST(allocation_failures_leak_nothing)
{
    allocation_failures("cpu");
    allocation_failures("cuda-emulated");
}
