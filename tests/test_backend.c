/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the backend interface (backend/backend.h) for both key shapes
 * (snarkjs's: H on the odd coset; bellperson's: h's coefficients over
 * blstrs's domain), the CUDA backend against the CPU backend, on the two
 * devices of tests/test_cuda.c:
 *
 *   *_emulated   the host emulation (gpu_emu.c), in every run;
 *   *_on_device  CUDA device 0, at larger sizes; exit 77 (skipped) in
 *                builds without nvcc or where no device answers.
 *
 * The CPU backend's H sum must equal the sum over a reference h computed
 * here from its few lines of math (so the test needs nothing of groth16/),
 * and the CUDA backend's every sum must equal the CPU's; Montgomery-form
 * scalars must give what their standard form gives.  The device bytes
 * open allocates must be what device_bytes plans (plus the sort's storage,
 * which only the device sizes), and close must give every one back.  The
 * *_bn254_* cases do the same on BN254's kernels against the CPU
 * backend's BN254 code (snarkjs's shape).
 */
#define _GNU_SOURCE
#include "harness.h"
#include "backend/backend.h"
#include "backend/cuda/gpu.h"
#include "backend/cuda/process_device.h"
#include "field/bn254/curve.h"
#include "field/field.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The CUDA backend a case runs on: the emulation, or the real device
 * (exit 77 when it has none). */
static const pl__backend_ops *cuda_or_skip(bool on_device)
{
    if (!on_device)
        return &pl__backend_cuda_emulated;
    char why[200] = "";
    if (pl__backend_cuda && pl__backend_cuda_usable(why, sizeof(why)))
        return pl__backend_cuda;
    printf("skipped: no CUDA device (%s)\n", why);
    exit(77);
}

/* n affine points P_i = (i + 1 + offset) G, every inf_every-th (0: none)
 * at infinity (all-zero bytes). */
static blst_p1_affine *make_points(size_t n, unsigned offset, size_t inf_every)
{
    blst_p1 *proj = malloc((n ? n : 1) * sizeof(*proj));
    blst_p1_affine *aff = malloc((n ? n : 1) * sizeof(*aff));
    CHECK(proj && aff);
    blst_p1 acc = *blst_p1_generator();
    for (unsigned k = 0; k < offset; k++)
        blst_p1_add_or_double(&acc, &acc, blst_p1_generator());
    for (size_t i = 0; i < n; i++) {
        proj[i] = acc;
        blst_p1_add_or_double(&acc, &acc, blst_p1_generator());
    }
    const blst_p1 *list[2] = {proj, NULL};
    if (n)
        blst_p1s_to_affine(aff, list, n);
    if (inf_every)
        for (size_t i = 0; i < n; i += inf_every)
            memset(&aff[i], 0, sizeof(aff[i]));
    free(proj);
    return aff;
}

/* n standard-form scalars: random below 2^254 (< r), or all 1. */
static pl_scalar *make_scalars(size_t n, bool ones, uint64_t seed)
{
    pl_scalar *s = calloc(n ? n : 1, sizeof(*s));
    CHECK(s);
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        if (ones) {
            s[i].b[0] = 1;
            continue;
        }
        pl_test_random_bytes(&state, s[i].b, 32);
        s[i].b[31] &= 0x3f;
    }
    return s;
}

/* The same values in Montgomery form (bellperson's in-memory Scalar). */
static pl_scalar *to_montgomery(const pl_scalar *s, size_t n)
{
    pl_scalar *m = calloc(n ? n : 1, sizeof(*m));
    CHECK(m);
    for (size_t i = 0; i < n; i++) {
        blst_fr f;
        pl__fr_from_le(&f, s[i].b);
        memcpy(m[i].b, &f, sizeof(f));
    }
    return m;
}

static blst_fr random_fr(uint64_t *state)
{
    uint8_t le[32];
    blst_fr x;
    pl_test_random_bytes(state, le, 32);
    le[31] &= 0x3f;
    pl__fr_from_le(&x, le);
    return x;
}

/* H's scalars on the CPU, over copies of a, b, c: to the odd coset,
 * a b - c; for the coefficient form times -1/2 (1/t), the inverse NTT,
 * times g^-j, n - 1 values. */
static void h_reference(const pl__ntt_plan *plan, pl__pool *pool, size_t n,
                        pl__h_form form, const blst_fr *abc, pl_scalar *h)
{
    blst_fr *v = malloc(3 * n * sizeof(blst_fr));
    CHECK(v);
    memcpy(v, abc, 3 * n * sizeof(blst_fr));
    for (int m = 0; m < 3; m++)
        pl__ntt_to_odd_coset(plan, v + m * n, pool);
    blst_fr minus_half, two;
    const uint64_t two_limbs[4] = {2, 0, 0, 0};
    blst_fr_from_uint64(&two, two_limbs);
    blst_fr_inverse(&minus_half, &two);
    blst_fr_cneg(&minus_half, &minus_half, true);
    for (size_t i = 0; i < n; i++) {
        blst_fr_mul(&v[i], &v[i], &v[n + i]);
        blst_fr_sub(&v[i], &v[i], &v[2 * n + i]);
        if (form == PL__H_ODD_COSET)
            pl__fr_to_le(h[i].b, &v[i]);
        else
            blst_fr_mul(&v[i], &v[i], &minus_half);
    }
    if (form == PL__H_COEFFICIENTS) {
        pl__ntt_inverse(plan, v, pool);
        const blst_fr *tw;
        blst_fr n_inv, g, g_inv, pw;
        pl__ntt_plan_constants(plan, &tw, &n_inv, &g);
        blst_fr_inverse(&g_inv, &g);
        const uint64_t one_limbs[4] = {1, 0, 0, 0};
        blst_fr_from_uint64(&pw, one_limbs);
        for (size_t j = 0; j + 1 < n; j++) {
            blst_fr_mul(&v[j], &v[j], &pw);
            pl__fr_to_le(h[j].b, &v[j]);
            blst_fr_mul(&pw, &pw, &g_inv);
        }
    }
    free(v);
}

/* The four base sets of a test, counts[k] points each, distinct per set,
 * and the shape over them. */
typedef struct {
    blst_p1_affine *points[PL__SUM_COUNT];
    pl__backend_shape shape;
} base_sets;

static void base_sets_make(base_sets *b, unsigned log2n, pl__h_form form,
                           const size_t counts[PL__SUM_COUNT])
{
    memset(b, 0, sizeof(*b));
    b->shape.log2n = log2n;
    b->shape.h_form = form;
    b->shape.roots = form == PL__H_COEFFICIENTS ? PL__ROOTS_BLSTRS
                                                : PL__ROOTS_SNARKJS;
    b->shape.montgomery_scalars = true;
    for (int k = 0; k < PL__SUM_COUNT; k++) {
        b->shape.counts[k] = counts[k];
        b->points[k] = make_points(counts[k], 1000u * (unsigned)k + 3,
                                   k == PL__SUM_C ? 5 : 0);
    }
}

static void base_sets_free(base_sets *b)
{
    for (int k = 0; k < PL__SUM_COUNT; k++)
        free(b->points[k]);
}

static pl_status open_on(const pl__backend_ops *ops, void **instance,
                         const base_sets *b, pl__pool *pool, pl_error *err)
{
    pl__backend_config cfg = {b->shape, {NULL}, "test", pool, false, 0};
    for (int k = 0; k < PL__SUM_COUNT; k++)
        cfg.bases[k] = (const uint8_t *)b->points[k];
    return ops->open(instance, &cfg, err);
}

/* One proof's pass: begin, h over a copy of abc (unless NULL), the sums
 * asked for (want[k]: run sum k), end. */
static pl_status run_sums(const pl__backend_ops *ops, void *instance,
                          const base_sets *b, const blst_fr *abc,
                          const pl__scalars scalars[PL__SUM_COUNT],
                          const bool want[PL__SUM_COUNT],
                          blst_p1 out[PL__SUM_COUNT], pl_error *err)
{
    pl__stage_timer timer;
    pl__stage_timer_start(&timer, NULL, NULL);
    pl__backend_proof proof = {instance, {{0}}, &timer, NULL};
    memcpy(proof.scalars, scalars, sizeof(proof.scalars));
    size_t n = (size_t)1 << b->shape.log2n;
    blst_fr *copy = NULL;
    pl_status st = ops->begin(&proof, err);
    if (st != PL_OK)
        return st;
    if (abc) {
        if (!(copy = pl__alloc(PL_BUF_ABC, 3 * n * sizeof(blst_fr), err))) {
            st = PL_ENOMEM;
            goto done;
        }
        memcpy(copy, abc, 3 * n * sizeof(blst_fr));
        st = ops->h(&proof, copy, err);
        pl__free(copy);
    }
    for (int k = 0; k < PL__SUM_COUNT && st == PL_OK; k++)
        if (want[k])
            st = ops->msm_g1(&proof, (pl__g1_sum)k, &out[k], err);
done:
    ops->end(&proof);
    return st;
}

/* For each domain 2^log2n and both H forms: random a, b, c (zero past a
 * random row count), the CPU backend's H sum against the reference's, the
 * CUDA backend's against the CPU's. */
static void h_cases(bool on_device, unsigned lo, unsigned hi)
{
    const pl__backend_ops *cuda = cuda_or_skip(on_device);
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    for (int f = 0; f < 2; f++) {
        const pl__h_form form = f ? PL__H_COEFFICIENTS : PL__H_ODD_COSET;
        for (unsigned log2n = lo; log2n <= hi; log2n++) {
            size_t n = (size_t)1 << log2n;
            base_sets b;
            const size_t counts[4] = {f ? n - 1 : n, 5, 3, 2};
            base_sets_make(&b, log2n, form, counts);
            pl__ntt_plan *plan;
            CHECK_OK(f ? pl__ntt_plan_create_blstrs(&plan, log2n, pool, &err)
                       : pl__ntt_plan_create(&plan, log2n, pool, &err),
                     &err);
            uint64_t state = 0x4c2u + log2n + 100u * (unsigned)f;
            size_t rows = n - (size_t)(state % (n / 2 + 1));
            blst_fr *abc = calloc(3 * n, sizeof(blst_fr));
            pl_scalar *h = calloc(n, sizeof(pl_scalar));
            CHECK(abc && h);
            for (int m = 0; m < 3; m++)
                for (size_t i = 0; i < rows; i++)
                    abc[m * n + i] = random_fr(&state);
            h_reference(plan, pool, n, form, abc, h);
            blst_p1 want;
            CHECK_OK(pl__msm_g1(&want, (const uint8_t *)b.points[PL__SUM_H],
                                (const uint8_t *)h, counts[PL__SUM_H], pool,
                                &err), &err);
            const bool only_h[4] = {true, false, false, false};
            const pl__scalars none[4] = {{0}};
            const pl__backend_ops *ops[2] = {&pl__backend_cpu, cuda};
            for (int k = 0; k < 2; k++) {
                void *inst;
                blst_p1 got[4];
                CHECK_OK(open_on(ops[k], &inst, &b, pool, &err), &err);
                CHECK_OK(run_sums(ops[k], inst, &b, abc, none, only_h, got,
                                  &err), &err);
                ops[k]->close(inst);
                if (!blst_p1_is_equal(&got[PL__SUM_H], &want))
                    pl_test_fail(__FILE__, __LINE__, "%s: the H sum of 2^%u "
                                 "(%s, %zu rows) differs from the "
                                 "reference's", ops[k]->name, log2n,
                                 f ? "coefficients" : "odd coset", rows);
            }
            base_sets_free(&b);
            free(h);
            free(abc);
            pl__ntt_plan_destroy(plan);
        }
    }
    pl__pool_destroy(pool);
}

PL_TEST(h_matches_cpu_emulated)
{
    h_cases(false, 0, 10);
}

PL_TEST(h_matches_cpu_on_device)
{
    h_cases(true, 0, 16);
}

/* The sums of A, B1 and C over the scalars named at begin, on backend ops,
 * against pl__msm_g1 over the standard-form scalars. */
static void check_sums(const pl__backend_ops *ops, void *inst,
                       const base_sets *b, const size_t n[PL__SUM_COUNT],
                       bool ones, bool montgomery, pl__pool *pool)
{
    pl_error err = {0};
    pl_scalar *s[PL__SUM_COUNT] = {NULL}, *m[PL__SUM_COUNT] = {NULL};
    pl__scalars scalars[PL__SUM_COUNT] = {{0}};
    bool want_sum[PL__SUM_COUNT] = {false};
    blst_p1 want[PL__SUM_COUNT], got[PL__SUM_COUNT];
    for (int k = PL__SUM_A; k < PL__SUM_COUNT; k++) {
        s[k] = make_scalars(n[k], ones, 0xc2d0000u + 7919u * n[k] + (unsigned)k);
        if (montgomery)
            m[k] = to_montgomery(s[k], n[k]);
        scalars[k] = (pl__scalars){montgomery ? m[k] : s[k], n[k], montgomery};
        want_sum[k] = true;
        CHECK_OK(pl__msm_g1(&want[k], (const uint8_t *)b->points[k],
                            (const uint8_t *)s[k], n[k], pool, &err), &err);
    }
    CHECK_OK(run_sums(ops, inst, b, NULL, scalars, want_sum, got, &err), &err);
    for (int k = PL__SUM_A; k < PL__SUM_COUNT; k++) {
        if (!blst_p1_is_equal(&got[k], &want[k]))
            pl_test_fail(__FILE__, __LINE__, "%s: the sum of set %d, %zu "
                         "points (%s%s scalars) differs from the CPU's",
                         ops->name, k, n[k], ones ? "all-one" : "random",
                         montgomery ? ", Montgomery-form" : "");
        free(s[k]);
        free(m[k]);
    }
}

/* Every set's sum against the CPU's: n = 1, 7, 4097 and 4159 (where 4097
 * and 4159 all-one scalars put every point in one bucket, the run the
 * accumulate levels must fold in three), random n, the whole sets, zero
 * points, Montgomery-form scalars, and C's scalars inside A's (the zkey's
 * witness: one upload for both). */
static void msm_cases(bool on_device)
{
    const pl__backend_ops *cuda = cuda_or_skip(on_device);
    const bool real = on_device;
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    size_t big = real ? ((size_t)1 << 17) + 5 : 4159;
    const size_t counts[4] = {15, big, 4200, 1000};
    base_sets b;
    base_sets_make(&b, 4, PL__H_COEFFICIENTS, counts);
    void *inst;
    CHECK_OK(open_on(cuda, &inst, &b, pool, &err), &err);
    static const size_t sizes[] = {1, 7, 4097, 4159};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        const size_t n[4] = {0, sizes[i], sizes[i] % 4200, sizes[i] % 1000};
        check_sums(cuda, inst, &b, n, false, false, pool);
        check_sums(cuda, inst, &b, n, true, false, pool);
    }
    uint64_t state = 0x3a5u;
    uint8_t roll[6];
    pl_test_random_bytes(&state, roll, sizeof(roll));
    const size_t random_n[4] = {0, 1 + ((size_t)roll[0] << 8 | roll[1]) % big,
                                1 + ((size_t)roll[2] << 8 | roll[3]) % 4200,
                                1 + ((size_t)roll[4] << 8 | roll[5]) % 1000};
    check_sums(cuda, inst, &b, random_n, false, false, pool);
    check_sums(cuda, inst, &b, random_n, false, true, pool);
    check_sums(cuda, inst, &b, counts, false, true, pool);
    const size_t empty[4] = {0, 0, 0, 0};
    check_sums(cuda, inst, &b, empty, false, false, pool); /* infinity */
    if (real) {
        check_sums(cuda, inst, &b, counts, false, false, pool);
        check_sums(cuda, inst, &b, counts, true, false, pool);
    }
    /* C's scalars a slice of A's, as a zkey's witness gives them */
    pl_scalar *w = make_scalars(1000 + 7, false, 99);
    const pl__scalars shared[4] = {{0}, {w, 1000 + 7, false},
                                   {w, 1000 + 7, false}, {w + 7, 1000, false}};
    const bool sums[4] = {false, true, true, true};
    blst_p1 got[4], want;
    CHECK_OK(run_sums(cuda, inst, &b, NULL, shared, sums, got, &err), &err);
    CHECK_OK(pl__msm_g1(&want, (const uint8_t *)b.points[PL__SUM_C],
                        (const uint8_t *)(w + 7), 1000, pool, &err), &err);
    CHECK(blst_p1_is_equal(&got[PL__SUM_C], &want));
    CHECK_OK(pl__msm_g1(&want, (const uint8_t *)b.points[PL__SUM_B1],
                        (const uint8_t *)w, 1000 + 7, pool, &err), &err);
    CHECK(blst_p1_is_equal(&got[PL__SUM_B1], &want));
    /* more scalars than the set has points: refused */
    const pl__scalars over[4] = {{0}, {w, 1, false}, {w, 1, false},
                                 {w, 1001, false}};
    CHECK_STATUS(run_sums(cuda, inst, &b, NULL, over, sums, got, &err),
                 PL_EINTERNAL, &err);
    free(w);
    cuda->close(inst);
    base_sets_free(&b);
    pl__pool_destroy(pool);
}

PL_TEST(msm_matches_cpu_emulated)
{
    msm_cases(false);
}

PL_TEST(msm_matches_cpu_on_device)
{
    msm_cases(true);
}

/* Open allocates what device_bytes plans, plus the sort's own storage
 * (the emulation's: 4 bytes per key value, under 1 MiB at these sizes),
 * all class device, for both shapes, and close gives back every byte: the
 * device object is held across, so its stack reservation stays out of the
 * difference. */
PL_TEST(device_bytes_as_planned_emulated)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    pl__gpu *held;
    CHECK_OK(pl__cuda_device_acquire(&pl__gpu_impl_emulated, 0, &held, &err),
             &err);
    for (int f = 0; f < 2; f++) {
        const size_t counts[4] = {f ? 511 : 512, 700, 300, 0};
        base_sets b;
        base_sets_make(&b, 9, f ? PL__H_COEFFICIENTS : PL__H_ODD_COSET,
                       counts);
        pl_alloc_stats before, opened, after;
        pl_alloc_stats_read(&before, PL_BUF_DEVICE, false);
        void *inst;
        CHECK_OK(open_on(&pl__backend_cuda_emulated, &inst, &b, pool, &err),
                 &err);
        pl_alloc_stats_read(&opened, PL_BUF_DEVICE, false);
        uint64_t used = opened.live_bytes - before.live_bytes;
        uint64_t planned = pl__backend_cuda_emulated.device_bytes(&b.shape);
        printf("planned %llu device bytes, open took %llu\n",
               (unsigned long long)planned, (unsigned long long)used);
        CHECK(used >= planned);
        CHECK(used - planned < ((uint64_t)1 << 20));
        pl__backend_cuda_emulated.close(inst);
        pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
        CHECK_EQ(after.live_bytes, before.live_bytes);
        base_sets_free(&b);
    }
    pl__cuda_device_release(0);
    pl_alloc_stats after;
    pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
    CHECK_EQ(after.live_bytes, 0);
    CHECK_EQ(after.live_count, 0);
    pl__pool_destroy(pool);
    /* the harness then checks every class back at zero */
}

/* Where the CUDA backend cannot run, choosing it says so (and "auto"
 * takes the CPU, saying why). */
PL_TEST(real_device_refused_without_one)
{
    char why[200] = "";
    if (pl__backend_cuda_usable(why, sizeof(why))) {
        printf("skipped: a CUDA device is usable here\n");
        exit(77);
    }
    char note[256] = "";
    CHECK(pl__backend_find("cuda", note, sizeof(note)) == NULL);
    printf("cuda: %s\n", note);
    CHECK(strstr(note, "cuda") != NULL);
    CHECK(pl__backend_find("auto", note, sizeof(note)) == &pl__backend_cpu);
    CHECK(strstr(note, "using the CPU") != NULL);
}

/* A small key's sets opened, one pass of h and every sum, with the Nth
 * accounted allocation failing for every N that the run makes: each run
 * fails with PL_ENOMEM and leaves every class at zero (the process's
 * device object included), on both shapes. */
static pl_status small_run(const base_sets *b, const blst_fr *abc,
                           const pl__scalars scalars[4], pl__pool *pool,
                           pl_error *err)
{
    void *inst;
    blst_p1 out[4];
    const bool all[4] = {true, true, true, true};
    pl_status st = open_on(&pl__backend_cuda_emulated, &inst, b, pool, err);
    if (st != PL_OK)
        return st;
    st = run_sums(&pl__backend_cuda_emulated, inst, b, abc, scalars, all, out,
                  err);
    pl__backend_cuda_emulated.close(inst);
    return st;
}

PL_TEST(allocation_failures_leak_nothing_emulated)
{
    pl_error err = {0};
    const unsigned log2n = 4;
    const size_t n = (size_t)1 << log2n;
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    blst_fr abc[3 * 16];
    uint64_t state = 77;
    for (size_t i = 0; i < 3 * n; i++)
        abc[i] = random_fr(&state);
    pl_scalar *s = make_scalars(40, false, 5);
    pl_scalar *m = to_montgomery(s, 40);
    for (int f = 0; f < 2; f++) {
        const size_t counts[4] = {f ? n - 1 : n, 40, 0, 9};
        base_sets b;
        base_sets_make(&b, log2n, f ? PL__H_COEFFICIENTS : PL__H_ODD_COSET,
                       counts);
        const pl__scalars scalars[4] = {{0}, {s, 40, false}, {s, 0, false},
                                        {m, 9, true}};
        /* each run must end with the classes as they were before it */
        uint64_t live[PL_BUF_CLASS_COUNT];
        for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
            pl_alloc_stats now;
            pl_alloc_stats_read(&now, (pl_buffer_class)c, false);
            live[c] = now.live_bytes;
        }
        pl__alloc_fail_at(0);
        CHECK_OK(small_run(&b, abc, scalars, pool, &err), &err);
        uint64_t total = pl__alloc_fail_at(0);
        CHECK(total > 4);
        for (uint64_t k = 1; k <= total; k++) {
            pl__alloc_fail_at(k);
            pl_status st = small_run(&b, abc, scalars, pool, &err);
            pl__alloc_fail_at(0);
            if (st != PL_ENOMEM)
                pl_test_fail(__FILE__, __LINE__, "allocation %llu of %llu "
                             "failed but the run gave %s (%s)",
                             (unsigned long long)k, (unsigned long long)total,
                             pl_strerror(st), err.msg);
            for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
                pl_alloc_stats now;
                pl_alloc_stats_read(&now, (pl_buffer_class)c, false);
                if (now.live_bytes != live[c])
                    pl_test_fail(__FILE__, __LINE__, "allocation %llu of "
                                 "%llu failed, and class %s holds %llu "
                                 "bytes, not %llu", (unsigned long long)k,
                                 (unsigned long long)total,
                                 pl_buffer_class_name((pl_buffer_class)c),
                                 (unsigned long long)now.live_bytes,
                                 (unsigned long long)live[c]);
            }
        }
        base_sets_free(&b);
    }
    free(m);
    free(s);
    pl__pool_destroy(pool);
}

/* A card another process has filled: open refuses with PL_ENOMEM naming
 * the bytes, before it allocates any. */
PL_TEST(full_card_refused_emulated)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    const size_t counts[4] = {15, 10, 10, 10};
    base_sets b;
    base_sets_make(&b, 4, PL__H_COEFFICIENTS, counts);
    pl__gpu *held;
    CHECK_OK(pl__cuda_device_acquire(&pl__gpu_impl_emulated, 0, &held, &err),
             &err);
    uint64_t free_bytes, total;
    CHECK_OK(pl__gpu_mem_info(held, &free_bytes, &total, &err), &err);
    /* leave less than the headroom free */
    pl__gpu_emu_foreign(free_bytes - PL_GPU_HEADROOM_BYTES / 2, 0);
    pl_alloc_stats before, after;
    pl_alloc_stats_read(&before, PL_BUF_DEVICE, false);
    void *inst;
    CHECK_STATUS(open_on(&pl__backend_cuda_emulated, &inst, &b, pool, &err),
                 PL_ENOMEM, &err);
    printf("refused: %s\n", err.msg);
    CHECK(strstr(err.msg, "headroom") != NULL);
    pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
    CHECK_EQ(after.total_allocs, before.total_allocs);
    pl__gpu_emu_foreign(0, 0);
    pl__cuda_device_release(0);
    base_sets_free(&b);
    pl__pool_destroy(pool);
}

/* Three threads on two instances of one device at once: each pass holds
 * the device from begin to end, so each one's uploads and sums are its
 * own, and every sum equals the CPU's. */
typedef struct {
    void *inst;
    const base_sets *b;
    int which;
    size_t n;
    uint64_t seed;
    blst_p1 sums[6];
    pl_status st;
    pl_error err;
} msm_worker;

static void *msm_worker_run(void *arg)
{
    msm_worker *w = arg;
    for (int i = 0; i < 6 && w->st == PL_OK; i++) {
        pl_scalar *s = make_scalars(w->n, false, w->seed + (uint64_t)i);
        pl__scalars scalars[4] = {{0}};
        bool want[4] = {false};
        blst_p1 out[4];
        scalars[w->which] = (pl__scalars){s, w->n, false};
        want[w->which] = true;
        w->st = run_sums(&pl__backend_cuda_emulated, w->inst, w->b, NULL,
                         scalars, want, out, &w->err);
        w->sums[i] = out[w->which];
        free(s);
    }
    return NULL;
}

PL_TEST(threads_share_the_device_emulated)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    const size_t counts[4] = {15, 300, 200, 100};
    base_sets b;
    base_sets_make(&b, 4, PL__H_COEFFICIENTS, counts);
    void *inst[2];
    for (int k = 0; k < 2; k++)
        CHECK_OK(open_on(&pl__backend_cuda_emulated, &inst[k], &b, pool,
                         &err), &err);
    msm_worker w[3] = {
        {.inst = inst[0], .b = &b, .which = 1, .n = 300, .seed = 100},
        {.inst = inst[0], .b = &b, .which = 2, .n = 150, .seed = 200},
        {.inst = inst[1], .b = &b, .which = 3, .n = 100, .seed = 300},
    };
    pthread_t t[3];
    for (int k = 0; k < 3; k++)
        CHECK(pthread_create(&t[k], NULL, msm_worker_run, &w[k]) == 0);
    for (int k = 0; k < 3; k++)
        CHECK(pthread_join(t[k], NULL) == 0);
    for (int k = 0; k < 3; k++) {
        CHECK_OK(w[k].st, &w[k].err);
        for (int i = 0; i < 6; i++) {
            pl_scalar *s = make_scalars(w[k].n, false, w[k].seed + (uint64_t)i);
            blst_p1 want;
            CHECK_OK(pl__msm_g1(&want, (const uint8_t *)b.points[w[k].which],
                                (const uint8_t *)s, w[k].n, pool, &err), &err);
            if (!blst_p1_is_equal(&want, &w[k].sums[i]))
                pl_test_fail(__FILE__, __LINE__, "thread %d's MSM %d differs "
                             "from the CPU's", k, i);
            free(s);
        }
    }
    for (int k = 0; k < 2; k++)
        pl__backend_cuda_emulated.close(inst[k]);
    base_sets_free(&b);
    pl__pool_destroy(pool);
}

/* ---- BN254 ------------------------------------------------------------------ */

/* The CUDA backend's BN254 kernels against the CPU backend's BN254 code
 * (itself checked against references in test_bn254_*.c), through the
 * same interface: the H sum of snarkjs's shape for every domain the BLS
 * cases take, and the sums of every base set with the sizes msm_cases
 * takes.  Points are the zkey's 64-byte affine points; sums compare as
 * group elements. */

static uint8_t *bn_make_points(size_t n, unsigned offset, size_t inf_every)
{
    const pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_g1 *proj = malloc((n ? n : 1) * sizeof(*proj));
    pl__bn254_g1_affine *aff = malloc((n ? n : 1) * sizeof(*aff));
    CHECK(proj && aff);
    pl__bn254_g1 g, acc;
    pl__bn254_g1_from_affine(&g, &pl__bn254_g1_generator);
    acc = g;
    for (unsigned k = 0; k < offset; k++)
        pl__bn254_g1_add(&acc, &acc, &g, v);
    for (size_t i = 0; i < n; i++) {
        proj[i] = acc;
        pl__bn254_g1_add(&acc, &acc, &g, v);
    }
    if (n)
        pl__bn254_g1_batch_to_affine(aff, proj, n, v);
    if (inf_every)
        for (size_t i = 0; i < n; i += inf_every)
            memset(&aff[i], 0, sizeof(aff[i]));
    free(proj);
    return (uint8_t *)aff;
}

typedef struct {
    uint8_t *points[PL__SUM_COUNT];
    pl__backend_shape shape;
} bn_sets;

static void bn_sets_make(bn_sets *b, unsigned log2n,
                         const size_t counts[PL__SUM_COUNT])
{
    memset(b, 0, sizeof(*b));
    b->shape.log2n = log2n;
    b->shape.h_form = PL__H_ODD_COSET;
    b->shape.roots = PL__ROOTS_SNARKJS;
    b->shape.curve = PL__CURVE_BN254;
    for (int k = 0; k < PL__SUM_COUNT; k++) {
        b->shape.counts[k] = counts[k];
        b->points[k] = bn_make_points(counts[k], 1000u * (unsigned)k + 3,
                                      k == PL__SUM_C ? 5 : 0);
    }
}

static void bn_sets_free(bn_sets *b)
{
    for (int k = 0; k < PL__SUM_COUNT; k++)
        free(b->points[k]);
}

/* One pass of the sums asked for on both backends (abc: h first, unless
 * NULL), each sum compared; returns the CUDA backend's status (the CPU's
 * must succeed whenever it does). */
static pl_status bn_compare(const pl__backend_ops *cuda, const bn_sets *b,
                            const blst_fr *abc,
                            const pl__scalars scalars[PL__SUM_COUNT],
                            const bool want[PL__SUM_COUNT], pl__pool *pool,
                            const char *what)
{
    pl_error err = {0};
    const pl__backend_ops *ops[2] = {&pl__backend_cpu, cuda};
    blst_p1 got[2][PL__SUM_COUNT]; /* pl__bn254_g1 in blst_p1's storage */
    pl_status st[2];
    for (int k = 0; k < 2; k++) {
        pl__backend_config cfg = {b->shape, {NULL}, "test", pool, false, 0};
        for (int s = 0; s < PL__SUM_COUNT; s++)
            cfg.bases[s] = b->points[s];
        void *inst;
        CHECK_OK(ops[k]->open(&inst, &cfg, &err), &err);
        /* run_sums reads only the shape of its base sets */
        base_sets shape_only;
        memset(&shape_only, 0, sizeof(shape_only));
        shape_only.shape = b->shape;
        st[k] = run_sums(ops[k], inst, &shape_only, abc, scalars, want,
                         got[k], &err);
        ops[k]->close(inst);
    }
    if (st[1] != PL_OK)
        return st[1];
    CHECK_OK(st[0], &err);
    for (int s = 0; s < PL__SUM_COUNT; s++)
        if (want[s] && !pl__bn254_g1_eq((const pl__bn254_g1 *)&got[1][s],
                                        (const pl__bn254_g1 *)&got[0][s],
                                        pl__bn254_arith_current()))
            pl_test_fail(__FILE__, __LINE__, "%s: BN254 sum %d (%s) differs "
                         "from the CPU backend's", cuda->name, s, what);
    return PL_OK;
}

static pl__bn254_fr bn_random_fr(uint64_t *state)
{
    uint8_t le[32];
    pl__bn254_fr x;
    pl_test_random_bytes(state, le, 32);
    le[31] &= 0x1f;
    CHECK(pl__bn254_fr_from_le(&x, le));
    return x;
}

static void bn_h_cases(bool on_device, unsigned lo, unsigned hi)
{
    const pl__backend_ops *cuda = cuda_or_skip(on_device);
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    for (unsigned log2n = lo; log2n <= hi; log2n++) {
        size_t n = (size_t)1 << log2n;
        const size_t counts[4] = {n, 5, 3, 2};
        bn_sets b;
        bn_sets_make(&b, log2n, counts);
        uint64_t state = 0xb4c2u + log2n;
        size_t rows = n - (size_t)(state % (n / 2 + 1));
        /* pl__bn254_fr in blst_fr's storage (backend.h) */
        blst_fr *abc = calloc(3 * n, sizeof(blst_fr));
        CHECK(abc);
        for (int m = 0; m < 3; m++)
            for (size_t i = 0; i < rows; i++) {
                pl__bn254_fr x = bn_random_fr(&state);
                memcpy(&abc[m * n + i], &x, sizeof(x));
            }
        const bool only_h[4] = {true, false, false, false};
        const pl__scalars none[4] = {{0}};
        char what[64];
        snprintf(what, sizeof(what), "H of 2^%u, %zu rows", log2n, rows);
        CHECK_OK(bn_compare(cuda, &b, abc, none, only_h, pool, what), &err);
        bn_sets_free(&b);
        free(abc);
    }
    pl__pool_destroy(pool);
}

PL_TEST(h_matches_cpu_bn254_emulated)
{
    bn_h_cases(false, 0, 10);
}

PL_TEST(h_matches_cpu_bn254_on_device)
{
    bn_h_cases(true, 0, 16);
}

/* n standard-form BN254 scalars: random below 2^253 (< r), or all 1. */
static pl_scalar *bn_make_scalars(size_t n, bool ones, uint64_t seed)
{
    pl_scalar *s = make_scalars(n, ones, seed);
    for (size_t i = 0; i < n && !ones; i++)
        s[i].b[31] &= 0x1f;
    return s;
}

static void bn_check_sums(const pl__backend_ops *cuda, const bn_sets *b,
                          const size_t n[PL__SUM_COUNT], bool ones,
                          pl__pool *pool)
{
    pl_scalar *s[PL__SUM_COUNT] = {NULL};
    pl__scalars scalars[PL__SUM_COUNT] = {{0}};
    bool want[PL__SUM_COUNT] = {false};
    for (int k = PL__SUM_A; k < PL__SUM_COUNT; k++) {
        s[k] = bn_make_scalars(n[k], ones, 0xb2d0000u + 7919u * n[k] +
                                               (unsigned)k);
        scalars[k] = (pl__scalars){s[k], n[k], false};
        want[k] = true;
    }
    char what[96];
    snprintf(what, sizeof(what), "%zu, %zu, %zu points, %s scalars",
             n[PL__SUM_A], n[PL__SUM_B1], n[PL__SUM_C],
             ones ? "all-one" : "random");
    pl_error err = {0};
    CHECK_OK(bn_compare(cuda, b, NULL, scalars, want, pool, what), &err);
    for (int k = PL__SUM_A; k < PL__SUM_COUNT; k++)
        free(s[k]);
}

static void bn_msm_cases(bool on_device)
{
    const pl__backend_ops *cuda = cuda_or_skip(on_device);
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    size_t big = on_device ? ((size_t)1 << 17) + 5 : 4159;
    const size_t counts[4] = {16, big, 4200, 1000};
    bn_sets b;
    bn_sets_make(&b, 4, counts);
    static const size_t sizes[] = {1, 7, 4097, 4159};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        const size_t n[4] = {0, sizes[i], sizes[i] % 4200, sizes[i] % 1000};
        bn_check_sums(cuda, &b, n, false, pool);
        bn_check_sums(cuda, &b, n, true, pool);
    }
    uint64_t state = 0xb3a5u;
    uint8_t roll[6];
    pl_test_random_bytes(&state, roll, sizeof(roll));
    const size_t random_n[4] = {0, 1 + ((size_t)roll[0] << 8 | roll[1]) % big,
                                1 + ((size_t)roll[2] << 8 | roll[3]) % 4200,
                                1 + ((size_t)roll[4] << 8 | roll[5]) % 1000};
    bn_check_sums(cuda, &b, random_n, false, pool);
    bn_check_sums(cuda, &b, counts, false, pool);
    const size_t empty[4] = {0, 0, 0, 0};
    bn_check_sums(cuda, &b, empty, false, pool); /* infinity */
    if (on_device)
        bn_check_sums(cuda, &b, counts, true, pool);
    /* C's scalars a slice of A's, as a zkey's witness gives them */
    pl_scalar *w = bn_make_scalars(1000 + 7, false, 98);
    const pl__scalars shared[4] = {{0}, {w, 1000 + 7, false},
                                   {w, 1000 + 7, false}, {w + 7, 1000, false}};
    const bool sums[4] = {false, true, true, true};
    CHECK_OK(bn_compare(cuda, &b, NULL, shared, sums, pool, "C inside A"),
             &err);
    free(w);
    bn_sets_free(&b);
    pl__pool_destroy(pool);
}

PL_TEST(msm_matches_cpu_bn254_emulated)
{
    bn_msm_cases(false);
}

PL_TEST(msm_matches_cpu_bn254_on_device)
{
    bn_msm_cases(true);
}

/* Open allocates what device_bytes plans on BN254 too (its 64-byte points,
 * its smaller XYZZ sums), and close gives back every byte; bellperson's
 * form is refused on BN254, as the CPU backend refuses it. */
PL_TEST(device_bytes_as_planned_bn254_emulated)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    pl__gpu *held;
    CHECK_OK(pl__cuda_device_acquire(&pl__gpu_impl_emulated, 0, &held, &err),
             &err);
    const size_t counts[4] = {512, 700, 300, 0};
    bn_sets b;
    bn_sets_make(&b, 9, counts);
    pl__backend_config cfg = {b.shape, {NULL}, "test", pool, false, 0};
    for (int s = 0; s < PL__SUM_COUNT; s++)
        cfg.bases[s] = b.points[s];
    pl_alloc_stats before, opened, after;
    pl_alloc_stats_read(&before, PL_BUF_DEVICE, false);
    void *inst;
    CHECK_OK(pl__backend_cuda_emulated.open(&inst, &cfg, &err), &err);
    pl_alloc_stats_read(&opened, PL_BUF_DEVICE, false);
    uint64_t used = opened.live_bytes - before.live_bytes;
    uint64_t planned = pl__backend_cuda_emulated.device_bytes(&b.shape);
    CHECK(used >= planned);
    CHECK(used - planned < ((uint64_t)1 << 20));
    /* less than the same shape on BLS12-381 takes: 64-byte points */
    pl__backend_shape bls = b.shape;
    bls.curve = PL__CURVE_BLS12_381;
    CHECK(planned < pl__backend_cuda_emulated.device_bytes(&bls));
    pl__backend_cuda_emulated.close(inst);
    pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
    CHECK_EQ(after.live_bytes, before.live_bytes);
    cfg.shape.montgomery_scalars = true;
    CHECK_STATUS(pl__backend_cuda_emulated.open(&inst, &cfg, &err),
                 PL_EUNSUPPORTED, &err);
    CHECK(strstr(err.msg, "bellperson's form") != NULL);
    bn_sets_free(&b);
    pl__cuda_device_release(0);
    pl__pool_destroy(pool);
}
