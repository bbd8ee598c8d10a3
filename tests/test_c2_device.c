/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the C2 prover's device part (backend/c2_device.h) against the
 * CPU, on the two devices of tests/test_cuda.c:
 *
 *   *_emulated   the host emulation (gpu_emu.c), in every run;
 *   *_on_device  CUDA device 0, at larger sizes; exit 77 (skipped) in
 *                builds without nvcc or where no device answers.
 *
 * h must equal, byte for byte, what c2.c's h_coefficients computes on the
 * CPU (its few lines of math are repeated here as the reference, so that
 * the test needs nothing of groth16/); every MSM must equal pl__msm_g1.
 * The device bytes open allocates must be what pl__c2_device_bytes plans
 * (plus the sort's storage, which only the device sizes), and close must
 * give every one of them back.
 */
#define _GNU_SOURCE
#include "harness.h"
#include "backend/backend.h"
#include "backend/c2_device.h"
#include "backend/cuda/gpu.h"
#include "backend/cuda/process_device.h"
#include "field/field.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether a case runs on the real device; exit 77 when it has none. */
static bool device_or_skip(bool on_device)
{
    if (!on_device)
        return false;
#ifdef PL_HAVE_CUDA
    char why[160] = "";
    if (pl__gpu_impl_cuda.device_count(why, sizeof(why)) > 0)
        return true;
    printf("skipped: no CUDA device (%s)\n", why);
#else
    printf("skipped: this build has no CUDA backend\n");
#endif
    exit(77);
}

/* n affine points P_i = (i + 1 + offset) G, every inf_every-th (0: none)
 * at infinity (all-zero bytes, as c2.c decodes it). */
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

static blst_fr random_fr(uint64_t *state)
{
    uint8_t le[32];
    blst_fr x;
    pl_test_random_bytes(state, le, 32);
    le[31] &= 0x3f;
    pl__fr_from_le(&x, le);
    return x;
}

/* c2.c's h_coefficients on the CPU, over copies of a, b, c: to the odd
 * coset, (a b - c) (-1/2), the inverse NTT, times g^-j; n - 1 values. */
static void h_reference(const pl__ntt_plan *plan, pl__pool *pool, size_t n,
                        const blst_fr *a, const blst_fr *b, const blst_fr *c,
                        pl_scalar *h)
{
    blst_fr *v = malloc(3 * n * sizeof(blst_fr));
    CHECK(v);
    memcpy(v, a, n * sizeof(blst_fr));
    memcpy(v + n, b, n * sizeof(blst_fr));
    memcpy(v + 2 * n, c, n * sizeof(blst_fr));
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
        blst_fr_mul(&v[i], &v[i], &minus_half);
    }
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
    free(v);
}

/* The four base sets of a test, counts[k] points each, distinct per set. */
typedef struct {
    blst_p1_affine *points[4];
    size_t counts[4];
} base_sets;

static void base_sets_make(base_sets *b, const size_t counts[4])
{
    for (int k = 0; k < 4; k++) {
        b->counts[k] = counts[k];
        b->points[k] = make_points(counts[k], 1000u * (unsigned)k + 3,
                                   k == 1 ? 5 : 0);
    }
}

static void base_sets_free(base_sets *b)
{
    for (int k = 0; k < 4; k++)
        free(b->points[k]);
}

/* The device's sum against the CPU's for n points of set which. */
static void check_msm(pl__c2_device *d, const base_sets *b, unsigned which,
                      size_t n, bool ones, pl__pool *pool)
{
    pl_error err = {0};
    pl_scalar *s = make_scalars(n, ones, 0xc2d0000u + 7919u * n + which);
    blst_p1 want, got;
    CHECK_OK(pl__msm_g1(&want, (const uint8_t *)b->points[which],
                        (const uint8_t *)s, n, pool, &err), &err);
    CHECK_OK(pl__c2_device_msm(d, which, s, n, &got, &err), &err);
    if (!blst_p1_is_equal(&got, &want))
        pl_test_fail(__FILE__, __LINE__, "device MSM of set %u, %zu points "
                     "(%s scalars) differs from the CPU's", which, n,
                     ones ? "all-one" : "random");
    free(s);
}

/* For each domain 2^log2n: random a, b, c (zero past a random abc_size),
 * h against the reference, and the h MSM over what h left on the device
 * against the CPU's over the reference's scalars. */
static void h_cases(bool on_device, unsigned lo, unsigned hi)
{
    bool real = device_or_skip(on_device);
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    for (unsigned log2n = lo; log2n <= hi; log2n++) {
        size_t n = (size_t)1 << log2n;
        pl__ntt_plan *plan;
        CHECK_OK(pl__ntt_plan_create_blstrs(&plan, log2n, pool, &err), &err);
        uint64_t state = 0x4c2u + log2n;
        size_t abc_size = n - (size_t)(state % (n / 2 + 1));
        blst_fr *abc = calloc(3 * n, sizeof(blst_fr));
        CHECK(abc);
        for (int m = 0; m < 3; m++)
            for (size_t i = 0; i < abc_size; i++)
                abc[m * n + i] = random_fr(&state);
        pl_scalar *want = calloc(n, sizeof(pl_scalar));
        pl_scalar *got = calloc(n, sizeof(pl_scalar));
        CHECK(want && got);
        h_reference(plan, pool, n, abc, abc + n, abc + 2 * n, want);

        base_sets b;
        const size_t counts[4] = {n - 1, 5, 3, 2};
        base_sets_make(&b, counts);
        pl__c2_device *d;
        CHECK_OK(pl__c2_device_open(&d, !real, plan, log2n,
                                    (const blst_p1_affine *const *)b.points,
                                    b.counts, &err), &err);
        CHECK_OK(pl__c2_device_h(d, abc, abc + n, abc + 2 * n, got, &err),
                 &err);
        for (size_t j = 0; j + 1 < n; j++)
            if (memcmp(&got[j], &want[j], sizeof(pl_scalar)) != 0)
                pl_test_fail(__FILE__, __LINE__, "h of 2^%u (abc_size %zu) "
                             "differs from the CPU's at coefficient %zu",
                             log2n, abc_size, j);
        /* the same h again, kept on the device only, then its MSM */
        blst_p1 want_sum, got_sum;
        CHECK_OK(pl__c2_device_h(d, abc, abc + n, abc + 2 * n, NULL, &err),
                 &err);
        CHECK_OK(pl__c2_device_msm(d, PL__C2_BASES_H, NULL, n - 1, &got_sum,
                                   &err), &err);
        CHECK_OK(pl__msm_g1(&want_sum, (const uint8_t *)b.points[0],
                            (const uint8_t *)want, n - 1, pool, &err), &err);
        if (!blst_p1_is_equal(&got_sum, &want_sum))
            pl_test_fail(__FILE__, __LINE__, "the h MSM of 2^%u over the "
                         "device's h differs from the CPU's", log2n);
        /* an MSM of host scalars takes the place of h's */
        check_msm(d, &b, PL__C2_BASES_L, 5, false, pool);
        CHECK_STATUS(pl__c2_device_msm(d, PL__C2_BASES_H, NULL, n - 1,
                                       &got_sum, &err), PL_EUSAGE, &err);
        pl__c2_device_close(d);
        base_sets_free(&b);
        free(want);
        free(got);
        free(abc);
        pl__ntt_plan_destroy(plan);
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

/* Every set's MSM against the CPU's: n = 1, 7, 4097 and 4159 (where 4097
 * and 4159 all-one scalars put every point in one bucket, the run the
 * accumulate levels must fold in three), random n, and the whole set. */
static void msm_cases(bool on_device)
{
    bool real = device_or_skip(on_device);
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    const unsigned log2n = 4;
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_blstrs(&plan, log2n, pool, &err), &err);
    size_t big = real ? ((size_t)1 << 17) + 5 : 4159;
    const size_t counts[4] = {15, big, 4200, 1000};
    base_sets b;
    base_sets_make(&b, counts);
    pl__c2_device *d;
    CHECK_OK(pl__c2_device_open(&d, !real, plan, log2n,
                                (const blst_p1_affine *const *)b.points,
                                b.counts, &err), &err);
    static const size_t sizes[] = {1, 7, 4097, 4159};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        check_msm(d, &b, PL__C2_BASES_L, sizes[i], false, pool);
        check_msm(d, &b, PL__C2_BASES_L, sizes[i], true, pool);
    }
    uint64_t state = 0x3a5u;
    for (unsigned which = 0; which < 4; which++) {
        uint8_t roll[2];
        pl_test_random_bytes(&state, roll, 2);
        size_t n = 1 + ((size_t)roll[0] << 8 | roll[1]) % counts[which];
        check_msm(d, &b, which, n, false, pool);
        check_msm(d, &b, which, counts[which], false, pool);
    }
    check_msm(d, &b, PL__C2_BASES_A, 0, false, pool); /* infinity */
    if (real) {
        check_msm(d, &b, PL__C2_BASES_L, big, false, pool);
        check_msm(d, &b, PL__C2_BASES_L, big, true, pool);
    }
    /* beyond the set, or a set that is not there */
    blst_p1 out;
    pl_scalar *s = make_scalars(counts[2] + 1, false, 1);
    CHECK_STATUS(pl__c2_device_msm(d, PL__C2_BASES_A, s, counts[2] + 1, &out,
                                   &err), PL_EUSAGE, &err);
    CHECK_STATUS(pl__c2_device_msm(d, 4, s, 1, &out, &err), PL_EUSAGE, &err);
    CHECK_STATUS(pl__c2_device_msm(d, PL__C2_BASES_L, NULL, 1, &out, &err),
                 PL_EUSAGE, &err);
    free(s);
    pl__c2_device_close(d);
    base_sets_free(&b);
    pl__ntt_plan_destroy(plan);
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

/* Open allocates what pl__c2_device_bytes plans, plus the sort's own
 * storage (the emulation's: 4 bytes per key value, under 1 MiB at these
 * sizes), all class device, and close gives back every byte: the device
 * object is held across, so its stack reservation stays out of the
 * difference. */
PL_TEST(device_bytes_as_planned_emulated)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    const unsigned log2n = 9;
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_blstrs(&plan, log2n, pool, &err), &err);
    const size_t counts[4] = {511, 700, 300, 0};
    base_sets b;
    base_sets_make(&b, counts);
    pl__gpu *held;
    CHECK_OK(pl__cuda_device_acquire(&pl__gpu_impl_emulated, &held, &err),
             &err);
    pl_alloc_stats before, opened, after;
    pl_alloc_stats_read(&before, PL_BUF_DEVICE, false);
    pl__c2_device *d;
    CHECK_OK(pl__c2_device_open(&d, true, plan, log2n,
                                (const blst_p1_affine *const *)b.points,
                                b.counts, &err), &err);
    pl_alloc_stats_read(&opened, PL_BUF_DEVICE, false);
    uint64_t used = opened.live_bytes - before.live_bytes;
    uint64_t planned = pl__c2_device_bytes(log2n, counts);
    printf("planned %llu device bytes, open took %llu\n",
           (unsigned long long)planned, (unsigned long long)used);
    CHECK(used >= planned);
    CHECK(used - planned < ((uint64_t)1 << 20));
    pl__c2_device_close(d);
    pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
    CHECK_EQ(after.live_bytes, before.live_bytes);
    pl__cuda_device_release();
    pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
    CHECK_EQ(after.live_bytes, 0);
    CHECK_EQ(after.live_count, 0);
    base_sets_free(&b);
    pl__ntt_plan_destroy(plan);
    pl__pool_destroy(pool);
    /* the harness then checks every class back at zero */
}

/* Where the CUDA backend cannot run, opening on the real device says so
 * (PL_EUNSUPPORTED and the reason), and leaves nothing behind. */
PL_TEST(real_device_refused_without_one)
{
    char why[200] = "";
    if (pl__backend_cuda_usable(why, sizeof(why))) {
        printf("skipped: a CUDA device is usable here\n");
        exit(77);
    }
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_blstrs(&plan, 3, pool, &err), &err);
    const size_t counts[4] = {0, 0, 0, 0};
    const blst_p1_affine *const bases[4] = {NULL, NULL, NULL, NULL};
    pl__c2_device *d = (pl__c2_device *)&err; /* overwritten with NULL */
    CHECK_STATUS(pl__c2_device_open(&d, false, plan, 3, bases, counts, &err),
                 PL_EUNSUPPORTED, &err);
    CHECK(d == NULL);
    printf("refused: %s\n", err.msg);
    pl__ntt_plan_destroy(plan);
    pl__pool_destroy(pool);
}

/* The bases, the tables and the scratch of a small domain, opened, one h
 * and one MSM of each kind, with the Nth accounted allocation failing for
 * every N that the run makes: each run fails with PL_ENOMEM and leaves
 * every class at zero (the process's device object included). */
static pl_status small_run(const base_sets *b, const pl__ntt_plan *plan,
                           unsigned log2n, const blst_fr *abc,
                           const pl_scalar *s, pl_error *err)
{
    size_t n = (size_t)1 << log2n;
    pl__c2_device *d;
    pl_scalar h[15];
    blst_p1 out;
    pl_status st = pl__c2_device_open(&d, true, plan, log2n,
                                      (const blst_p1_affine *const *)b->points,
                                      b->counts, err);
    if (st != PL_OK)
        return st;
    if (!(st = pl__c2_device_h(d, abc, abc + n, abc + 2 * n, h, err)) &&
        !(st = pl__c2_device_msm(d, PL__C2_BASES_H, NULL, n - 1, &out, err)))
        st = pl__c2_device_msm(d, PL__C2_BASES_L, s, b->counts[1], &out, err);
    pl__c2_device_close(d);
    return st;
}

PL_TEST(allocation_failures_leak_nothing_emulated)
{
    pl_error err = {0};
    const unsigned log2n = 4;
    const size_t n = (size_t)1 << log2n;
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_blstrs(&plan, log2n, pool, &err), &err);
    const size_t counts[4] = {n - 1, 40, 0, 9};
    base_sets b;
    base_sets_make(&b, counts);
    blst_fr abc[3 * 16];
    uint64_t state = 77;
    for (size_t i = 0; i < 3 * n; i++)
        abc[i] = random_fr(&state);
    pl_scalar *s = make_scalars(counts[1], false, 5);
    /* the plan's buffer is live throughout: each run must end with the
     * classes as they were before it */
    uint64_t live[PL_BUF_CLASS_COUNT];
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        pl_alloc_stats now;
        pl_alloc_stats_read(&now, (pl_buffer_class)c, false);
        live[c] = now.live_bytes;
    }
    pl__alloc_fail_at(0);
    CHECK_OK(small_run(&b, plan, log2n, abc, s, &err), &err);
    uint64_t total = pl__alloc_fail_at(0);
    CHECK(total > 4);
    for (uint64_t k = 1; k <= total; k++) {
        pl__alloc_fail_at(k);
        pl_status st = small_run(&b, plan, log2n, abc, s, &err);
        pl__alloc_fail_at(0);
        if (st != PL_ENOMEM)
            pl_test_fail(__FILE__, __LINE__, "allocation %llu of %llu failed "
                         "but the run gave %s (%s)", (unsigned long long)k,
                         (unsigned long long)total, pl_strerror(st), err.msg);
        for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
            pl_alloc_stats now;
            pl_alloc_stats_read(&now, (pl_buffer_class)c, false);
            if (now.live_bytes != live[c])
                pl_test_fail(__FILE__, __LINE__, "allocation %llu of %llu "
                             "failed, and class %s holds %llu bytes, not "
                             "%llu", (unsigned long long)k,
                             (unsigned long long)total,
                             pl_buffer_class_name((pl_buffer_class)c),
                             (unsigned long long)now.live_bytes,
                             (unsigned long long)live[c]);
        }
    }
    free(s);
    base_sets_free(&b);
    pl__ntt_plan_destroy(plan);
    pl__pool_destroy(pool);
}

/* A card another process has filled: open refuses with PL_ENOMEM naming
 * the bytes, before it allocates any. */
PL_TEST(full_card_refused_emulated)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_blstrs(&plan, 4, pool, &err), &err);
    const size_t counts[4] = {15, 10, 10, 10};
    base_sets b;
    base_sets_make(&b, counts);
    pl__gpu *held;
    CHECK_OK(pl__cuda_device_acquire(&pl__gpu_impl_emulated, &held, &err),
             &err);
    uint64_t free_bytes, total;
    CHECK_OK(pl__gpu_mem_info(held, &free_bytes, &total, &err), &err);
    /* leave less than the headroom free */
    pl__gpu_emu_foreign(free_bytes - PL_GPU_HEADROOM_BYTES / 2, 0);
    pl_alloc_stats before, after;
    pl_alloc_stats_read(&before, PL_BUF_DEVICE, false);
    pl__c2_device *d;
    CHECK_STATUS(pl__c2_device_open(&d, true, plan, 4,
                                    (const blst_p1_affine *const *)b.points,
                                    b.counts, &err), PL_ENOMEM, &err);
    printf("refused: %s\n", err.msg);
    CHECK(strstr(err.msg, "headroom") != NULL);
    pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
    CHECK_EQ(after.total_allocs, before.total_allocs);
    pl__gpu_emu_foreign(0, 0);
    pl__cuda_device_release();
    base_sets_free(&b);
    pl__ntt_plan_destroy(plan);
    pl__pool_destroy(pool);
}

/* Two threads on one object and a second object at once: every call holds
 * the device for its whole length, so each MSM of host scalars is its own
 * upload and sum, and equals the CPU's. */
typedef struct {
    pl__c2_device *d;
    const base_sets *b;
    unsigned which;
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
        w->st = pl__c2_device_msm(w->d, w->which, s, w->n, &w->sums[i],
                                  &w->err);
        free(s);
    }
    return NULL;
}

PL_TEST(threads_share_the_device_emulated)
{
    pl_error err = {0};
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_blstrs(&plan, 4, pool, &err), &err);
    const size_t counts[4] = {15, 300, 200, 100};
    base_sets b;
    base_sets_make(&b, counts);
    pl__c2_device *d[2];
    for (int k = 0; k < 2; k++)
        CHECK_OK(pl__c2_device_open(&d[k], true, plan, 4,
                                    (const blst_p1_affine *const *)b.points,
                                    b.counts, &err), &err);
    msm_worker w[3] = {
        {.d = d[0], .b = &b, .which = 1, .n = 300, .seed = 100},
        {.d = d[0], .b = &b, .which = 2, .n = 150, .seed = 200},
        {.d = d[1], .b = &b, .which = 3, .n = 100, .seed = 300},
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
        pl__c2_device_close(d[k]);
    base_sets_free(&b);
    pl__ntt_plan_destroy(plan);
    pl__pool_destroy(pool);
}
