/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the CUDA backend (src/backend/cuda/): the kernels' algorithms and
 * the backend's orchestration against the CPU, on two devices:
 *
 *   *_emulated   the host emulation (gpu_emu.c): the kernels' thread bodies
 *                run in loops on the CPU, under gpu.c's schedules.  Always
 *                run; this is how make test checks the NTT index
 *                arithmetic, the MSM's digits, sort order and buffer wiring,
 *                bucket bounds, segment levels and window reduction, the
 *                staging and the accounting, on machines without a GPU.
 *   *_on_device  the same checks on CUDA device 0, at larger sizes; they
 *                exit 77 (skipped) in builds without nvcc or where no device
 *                answers.  bench/gpu_check.sh runs them on a GPU machine.
 *
 * And, needing no device: the MSM plan's level count over every n up to
 * 2^25 (msm_levels_fold_every_run).
 *
 * Proofs made with r = s = 0 must equal the CPU backend's bit for bit (and
 * the vectors' proof_ref.json); NTTs and MSMs must give the CPU's values.
 * On both curves: the *_bn254_* cases run BN254's kernels (the same bodies
 * instantiated over its fields) against the CPU's BN254 MSM, NTT and
 * prover, on the bn128 vectors of tests/vectors/bn254/.
 */
#define _GNU_SOURCE
#include "harness.h"
#include "backend/backend.h"
#include "backend/cuda/gpu.h"
#include "engine/engine.h"
#include "field/bn254/curve.h"
#include "field/field.h"
#include "formats/formats.h"
#include "groth16/zkey_prover.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "util/alloc.h"
#include "util/pool.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const vectors[] = {"multiplier", "chain10", "nopublic",
                                      "pow2exact", "pow2plus1", "noB",
                                      "manypublic", "edgevalues"};
#define N_VECTORS (sizeof(vectors) / sizeof(vectors[0]))

/* The device implementation of a case, or exit 77 when it has none. */
static const pl__gpu_impl *impl_or_skip(bool on_device)
{
    if (!on_device)
        return &pl__gpu_impl_emulated;
#ifdef PL_HAVE_CUDA
    char why[160] = "";
    if (pl__gpu_impl_cuda.device_count(why, sizeof(why)) > 0)
        return &pl__gpu_impl_cuda;
    printf("skipped: no CUDA device (%s)\n", why);
#else
    printf("skipped: this build has no CUDA backend\n");
#endif
    exit(77);
}

static const pl__backend_ops *backend_or_skip(bool on_device)
{
    impl_or_skip(on_device);
    return on_device ? pl__backend_cuda : &pl__backend_cuda_emulated;
}

/* ---- MSM ------------------------------------------------------------------ */

/* n points P_i = (i + 1 + offset) G of the curve's G1 in the CPU's affine
 * layout (blst's, 96 bytes, for BLS12-381; the zkey's, 64 bytes, for BN254;
 * distinct, and made by additions, which is fast), with every
 * `inf_every`-th one (0: none) set to infinity. */
static size_t affine_bytes(pl__curve curve)
{
    return curve == PL__CURVE_BN254 ? sizeof(pl__bn254_g1_affine)
                                    : sizeof(blst_p1_affine);
}

static uint8_t *make_points_bn254(size_t n, unsigned offset)
{
    pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_g1 *proj = malloc(n * sizeof(*proj));
    pl__bn254_g1_affine *aff = malloc(n * sizeof(*aff));
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
    pl__bn254_g1_batch_to_affine(aff, proj, n, v);
    free(proj);
    return (uint8_t *)aff;
}

static uint8_t *make_points(pl__curve curve, size_t n, unsigned offset,
                            size_t inf_every)
{
    uint8_t *out;
    if (curve == PL__CURVE_BN254) {
        out = make_points_bn254(n, offset);
    } else {
        blst_p1 *proj = malloc(n * sizeof(*proj));
        blst_p1_affine *aff = malloc(n * sizeof(*aff));
        CHECK(proj && aff);
        blst_p1 acc = *blst_p1_generator();
        for (unsigned k = 0; k < offset; k++)
            blst_p1_add_or_double(&acc, &acc, blst_p1_generator());
        for (size_t i = 0; i < n; i++) {
            proj[i] = acc;
            blst_p1_add_or_double(&acc, &acc, blst_p1_generator());
        }
        const blst_p1 *list[2] = {proj, NULL}; /* NULL: one contiguous array */
        blst_p1s_to_affine(aff, list, n);
        free(proj);
        out = (uint8_t *)aff;
    }
    if (inf_every)
        for (size_t i = 0; i < n; i += inf_every)
            memset(out + i * affine_bytes(curve), 0, affine_bytes(curve));
    return out;
}

typedef enum {
    SCALARS_RANDOM,    /* uniform below 2^254 (BN254: 2^253), below r */
    SCALARS_ONES,      /* all 1: one bucket holds every point */
    SCALARS_WITNESS,   /* 60% zero, 30% one, 10% random */
    SCALARS_EDGES,     /* 0, 1, r - 1, r - 2^32 - 1 (BN254: r - 2), 2^k,
                        * top bit set */
} scalar_kind;

static uint8_t *make_scalars(pl__curve curve, size_t n, scalar_kind kind,
                             uint64_t seed)
{
    static const uint8_t bls_r_minus_1[32] = {
        0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
        0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
        0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    static const uint8_t bn_r_minus_1[32] = {
        0x00, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
        0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
        0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
    const bool bn = curve == PL__CURVE_BN254;
    const uint8_t *r_minus_1 = bn ? bn_r_minus_1 : bls_r_minus_1;
    uint8_t *s = calloc(n, 32);
    CHECK(s);
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        uint8_t *x = s + 32 * i;
        uint8_t roll;
        pl_test_random_bytes(&state, &roll, 1);
        switch (kind) {
        case SCALARS_ONES:
            x[0] = 1;
            break;
        case SCALARS_WITNESS:
            if (roll % 10 < 6)
                break;
            if (roll % 10 < 9) {
                x[0] = 1;
                break;
            }
            /* fall through */
        case SCALARS_RANDOM:
            pl_test_random_bytes(&state, x, 32);
            x[31] &= bn ? 0x1f : 0x3f; /* < r */
            break;
        case SCALARS_EDGES:
            switch (i % 6) {
            case 0: break;
            case 1: x[0] = 1; break;
            case 2: memcpy(x, r_minus_1, 32); break;
            case 3:
                memcpy(x, r_minus_1, 32);
                if (bn)
                    x[0] = 0xff, x[1] = 0xff, x[2] = 0xff, x[3] = 0xef;
                else
                    x[4] = 0xfe;
                break;
            /* 2^k for every k below 256: on BN254 from 2^254 above r,
             * which both MSMs take mod r (the group's order) */
            case 4: x[(i / 6) % 32] = (uint8_t)(1u << (i % 8)); break;
            /* bit 255 set: ignored by both BLS12-381 MSMs (x and
             * x + 2^255 agree), taken mod r by both BN254 ones */
            case 5: x[0] = 7; x[31] = 0x80; break;
            }
            break;
        }
    }
    return s;
}

/* The CPU's sum of the curve (blst's Pippenger for BLS12-381, the BN254
 * MSM for BN254), and whether two sums are the same point. */
static void cpu_msm(pl__curve curve, void *out, const uint8_t *points,
                    const uint8_t *scalars, size_t n)
{
    pl_error err = {0};
    if (curve == PL__CURVE_BN254) {
        pl__pool *pool;
        CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
        CHECK_OK(pl__msm_sum(PL__MSM_BN254_G1, out, points, scalars, n, NULL,
                             pool, &err), &err);
        pl__pool_destroy(pool);
    } else {
        CHECK_OK(pl__msm_g1_blst(out, points, scalars, n, NULL, &err), &err);
    }
}

static bool same_sum(pl__curve curve, const void *a, const void *b)
{
    return curve == PL__CURVE_BN254
               ? pl__bn254_g1_eq(a, b, pl__bn254_arith_current())
               : blst_p1_is_equal(a, b);
}

/* The device MSM of n points against the CPU's, on an open device; with
 * `growth`, also the drop in the device's free memory over the MSM call
 * (what the driver took at its launches beyond our buffers). */
static void check_msm_on(pl__gpu *gpu, pl__curve curve, size_t n,
                         scalar_kind kind, size_t inf_every, uint64_t *growth)
{
    pl_error err = {0};
    const size_t pb = affine_bytes(curve);
    uint8_t *points = make_points(curve, n, (unsigned)(n % 97), inf_every);
    uint8_t *scalars = make_scalars(curve, n, kind,
                                    0x5eed0000u + n + kind + 16 * curve);
    blst_p1 want, got; /* either curve's sum: backend.h's storage rule */
    cpu_msm(curve, &want, points, scalars, n);

    uint64_t scratch_bytes, free_before, free_after, total;
    CHECK_OK(pl__gpu_msm_scratch_bytes(gpu, curve, &scratch_bytes,
                                       (uint32_t)n, &err), &err);
    void *d_points = pl__gpu_alloc(gpu, n * pb, &err);
    void *d_scalars = pl__gpu_alloc(gpu, n * 32, &err);
    void *scratch = pl__gpu_alloc(gpu, scratch_bytes, &err);
    CHECK(d_points && d_scalars && scratch);
    CHECK_OK(pl__gpu_upload(gpu, d_points, points, n * pb, &err), &err);
    CHECK_OK(pl__gpu_upload(gpu, d_scalars, scalars, n * 32, &err), &err);
    CHECK_OK(pl__gpu_mem_info(gpu, &free_before, &total, &err), &err);
    CHECK_OK(pl__gpu_msm_g1(gpu, curve, &got, d_points, d_scalars,
                            (uint32_t)n, scratch, scratch_bytes, &err), &err);
    CHECK_OK(pl__gpu_mem_info(gpu, &free_after, &total, &err), &err);
    if (growth)
        *growth = free_before > free_after ? free_before - free_after : 0;
    if (!same_sum(curve, &got, &want))
        pl_test_fail(__FILE__, __LINE__,
                     "%s %s MSM of %zu points (scalars %d, infinity every "
                     "%zu) differs from the CPU's",
                     pl__gpu_impl_of(gpu)->name, pl__curve_name(curve), n,
                     (int)kind, inf_every);
    pl__gpu_free(gpu, scratch, scratch_bytes);
    pl__gpu_free(gpu, d_scalars, n * 32);
    pl__gpu_free(gpu, d_points, n * pb);
    free(points);
    free(scalars);
}

static void check_msm(const pl__gpu_impl *impl, pl__curve curve, size_t n,
                      scalar_kind kind, size_t inf_every)
{
    pl_error err = {0};
    pl__gpu *gpu;
    CHECK_OK(pl__gpu_open(&gpu, impl, 0, &err), &err);
    check_msm_on(gpu, curve, n, kind, inf_every, NULL);
    pl__gpu_close(gpu);
}

static void msm_cases(bool on_device, pl__curve curve)
{
    const pl__gpu_impl *impl = impl_or_skip(on_device);
    /* sizes around the window and segment boundaries: c = 8 below 2^13,
     * one level up to 64 entries per bucket, two to 4096, three above */
    static const size_t small[] = {1, 2, 3, 17, 64, 65, 300, 1000};
    for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
        check_msm(impl, curve, small[i], SCALARS_RANDOM, 0);
    check_msm(impl, curve, 200, SCALARS_EDGES, 0);
    check_msm(impl, curve, 257, SCALARS_WITNESS, 5);
    check_msm(impl, curve, 4200, SCALARS_ONES, 0); /* 3 accumulate levels */
    if (on_device) {
        size_t large[] = {(size_t)1 << 16, ((size_t)1 << 18) + 3};
        for (size_t i = 0; i < 2; i++) {
            check_msm(impl, curve, large[i], SCALARS_RANDOM, 0);
            check_msm(impl, curve, large[i], SCALARS_WITNESS, 1000);
        }
        check_msm(impl, curve, (size_t)1 << 17, SCALARS_ONES, 0);
    }
}

PL_TEST(msm_matches_cpu_emulated)
{
    msm_cases(false, PL__CURVE_BLS12_381);
}

PL_TEST(msm_matches_cpu_on_device)
{
    msm_cases(true, PL__CURVE_BLS12_381);
}

PL_TEST(msm_matches_cpu_bn254_emulated)
{
    msm_cases(false, PL__CURVE_BN254);
}

PL_TEST(msm_matches_cpu_bn254_on_device)
{
    msm_cases(true, PL__CURVE_BN254);
}

/* Scalars all 1 put every point in bucket 1 of window 0, the longest run
 * an MSM of n points can have: the accumulate levels must fold it to one
 * sum.  4096 = 64^2 takes 2 levels exactly, 4097 and 4159 3 (the ends of
 * the first range where levels counted by floor division left two sums
 * and the reduction read one: issue 21.1), 262145 = 64^3 + 1 takes 4. */
static void msm_longest_runs(bool on_device, pl__curve curve)
{
    const pl__gpu_impl *impl = impl_or_skip(on_device);
    static const size_t sizes[] = {4096, 4097, 4159, 262145};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        check_msm(impl, curve, sizes[i], SCALARS_ONES, 0);
}

/* The level count itself, for every n up to 2^25 (cheap: no MSM runs):
 * the longest run, n entries, folded by ceil(run / S) per level, ends at
 * one sum, and one level fewer would not do (no idle level). */
PL_TEST(msm_levels_fold_every_run)
{
    for (uint32_t n = 1; n <= (1u << 25); n++) {
        pl__cu_msm_cfg cfg;
        pl__cu_msm_config(&cfg, n);
        uint64_t run = n, before_last = n;
        for (unsigned level = 0; level < cfg.levels; level++) {
            before_last = run;
            run = (run + cfg.segment - 1) / cfg.segment;
        }
        if (run > 1 || (cfg.levels > 1 && before_last <= 1))
            pl_test_fail(__FILE__, __LINE__,
                         "n = %u: %u levels of segments of %u leave %llu "
                         "sums in a bucket of n entries (%llu before the "
                         "last level)",
                         n, cfg.levels, cfg.segment, (unsigned long long)run,
                         (unsigned long long)before_last);
    }
}

/* Every index the kernels keep in 32 bits fits for the largest MSM the
 * plan takes, and the next size is refused when it is planned and when
 * it is run (issue 21.6: W n overflowed 32 bits from 2^28 points). */
PL_TEST(msm_sizes_beyond_32_bits_refused_emulated)
{
    pl__cu_msm_cfg cfg;
    pl__cu_msm_config(&cfg, PL_CU_MSM_MAX_POINTS);
    CHECK((uint64_t)cfg.windows * cfg.n <= UINT32_MAX);
    CHECK(cfg.max_partials <= UINT32_MAX);
    CHECK(2 * (uint64_t)cfg.n - 1 <= UINT32_MAX); /* a value: 2 i + sign */

    pl_error err = {0};
    pl__gpu *gpu;
    uint64_t bytes;
    CHECK_OK(pl__gpu_open(&gpu, &pl__gpu_impl_emulated, 0, &err), &err);
    for (int c = 0; c < 2; c++) {
        pl__curve curve = c ? PL__CURVE_BN254 : PL__CURVE_BLS12_381;
        CHECK_OK(pl__gpu_msm_scratch_bytes(gpu, curve, &bytes,
                                           PL_CU_MSM_MAX_POINTS, &err), &err);
        CHECK(bytes > ((uint64_t)1 << 32)); /* sized in 64 bits */
        CHECK_EQ(pl__gpu_msm_scratch_bytes(gpu, curve, &bytes,
                                           PL_CU_MSM_MAX_POINTS + 1, &err),
                 PL_EUNSUPPORTED);
        CHECK(strstr(err.msg, "2^28 - 1") != NULL);
        blst_p1 sum;
        CHECK_EQ(pl__gpu_msm_g1(gpu, curve, &sum, NULL, NULL,
                                PL_CU_MSM_MAX_POINTS + 1, NULL, UINT64_MAX,
                                &err), PL_EUNSUPPORTED);
    }
    pl__gpu_close(gpu);
}

/* Open reserves the kernels' stacks and accounts them in class device
 * until close, and the first MSM (the reduction is the kernel with the
 * most stack) takes no more from the driver than the headroom allows
 * (issue 21.2: the driver grew the stack at that launch). */
static void stack_reservation(bool on_device)
{
    const pl__gpu_impl *impl = impl_or_skip(on_device);
    pl_error err = {0};
    pl_alloc_stats before, opened, after;
    pl_alloc_stats_read(&before, PL_BUF_DEVICE, false);
    pl__gpu *gpu;
    CHECK_OK(pl__gpu_open(&gpu, impl, 0, &err), &err);
    uint64_t stack = pl__gpu_stack_bytes(gpu), free_bytes, total, growth;
    CHECK(stack > 0);
    pl_alloc_stats_read(&opened, PL_BUF_DEVICE, false);
    CHECK_EQ(opened.live_bytes - before.live_bytes, stack);
    CHECK_OK(pl__gpu_mem_info(gpu, &free_bytes, &total, &err), &err);
    if (!on_device) /* nothing else moves on the emulated card */
        CHECK_EQ(total - free_bytes - pl__gpu_used_at_open(gpu), stack);
    check_msm_on(gpu, PL__CURVE_BLS12_381, 4200, SCALARS_RANDOM, 0, &growth);
    printf("stack reserved at open: %llu bytes; the driver took %llu more "
           "over the first MSM (headroom %llu)\n",
           (unsigned long long)stack, (unsigned long long)growth,
           (unsigned long long)PL_GPU_HEADROOM_BYTES);
    CHECK(growth <= (on_device ? PL_GPU_HEADROOM_BYTES : 0));
    pl__gpu_close(gpu);
    pl_alloc_stats_read(&after, PL_BUF_DEVICE, false);
    CHECK_EQ(after.live_bytes, before.live_bytes);
}

PL_TEST(stack_reserved_at_open_emulated)
{
    stack_reservation(false);
}

PL_TEST(stack_reserved_at_open_on_device)
{
    stack_reservation(true);
}

PL_TEST(msm_longest_runs_emulated)
{
    msm_longest_runs(false, PL__CURVE_BLS12_381);
}

PL_TEST(msm_longest_runs_on_device)
{
    msm_longest_runs(true, PL__CURVE_BLS12_381);
}

PL_TEST(msm_longest_runs_bn254_emulated)
{
    msm_longest_runs(false, PL__CURVE_BN254);
}

PL_TEST(msm_longest_runs_bn254_on_device)
{
    msm_longest_runs(true, PL__CURVE_BN254);
}

/* A failed CUDA call says which call, where, and CUDA's code; and neither
 * it nor a failed free is reported again by the next launch (issue 21.5:
 * the runtime keeps the last error until someone reads it). */
PL_TEST(errors_name_the_cuda_call_on_device)
{
    const pl__gpu_impl *impl = impl_or_skip(true);
    pl_error err = {0};
    pl__gpu *gpu;
    CHECK_OK(pl__gpu_open(&gpu, impl, 0, &err), &err);
    uint64_t total = 0, free_bytes = 0;
    CHECK_OK(pl__gpu_mem_info(gpu, &free_bytes, &total, &err), &err);
    CHECK(pl__gpu_alloc(gpu, 4 * total, &err) == NULL);
    CHECK_EQ(err.code, PL_ENOMEM);
    CHECK_EQ(err.cuda_code, 2); /* cudaErrorMemoryAllocation */
    CHECK(strstr(err.msg, "cudaMalloc") && strstr(err.msg, "gpu_cuda.cu:"));
    /* a free cudaFree refuses (host memory), accounted first so that the
     * ledger stays balanced */
    static char not_device_memory[64];
    CHECK(pl__alloc_account(PL_BUF_DEVICE, 0, &err));
    pl__gpu_free(gpu, not_device_memory, 0);
    pl__gpu_close(gpu);
    check_msm(impl, PL__CURVE_BLS12_381, 65, SCALARS_RANDOM, 0);
    check_msm(impl, PL__CURVE_BN254, 65, SCALARS_RANDOM, 0);
}

/* ---- NTT ------------------------------------------------------------------ */

static void check_ntt(const pl__gpu_impl *impl, pl__curve curve,
                      unsigned log2n)
{
    pl_error err = {0};
    size_t n = (size_t)1 << log2n;
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_curve(&plan, curve, log2n, pool, &err), &err);
    /* 32-byte elements of the curve's Fr, Montgomery form */
    blst_fr *want = malloc(n * sizeof(blst_fr));
    blst_fr *got = malloc(n * sizeof(blst_fr));
    CHECK(want && got);
    uint64_t state = 0xabcdef00u + log2n + 64 * curve;
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32];
        pl_test_random_bytes(&state, le, 32);
        le[31] &= 0x1f;
        if (curve == PL__CURVE_BN254)
            CHECK(pl__bn254_fr_from_le((pl__bn254_fr *)&want[i], le));
        else
            pl__fr_from_le(&want[i], le);
    }
    memcpy(got, want, n * sizeof(blst_fr));
    pl__ntt_to_odd_coset_elems(plan, want, pool);

    pl__gpu *gpu;
    CHECK_OK(pl__gpu_open(&gpu, impl, 0, &err), &err);
    pl__gpu_ntt_set set;
    CHECK_OK(pl__gpu_ntt_set_create(gpu, &set, plan, log2n, &err), &err);
    CHECK_EQ(set.tables.curve, curve);
    void *d_data = pl__gpu_alloc(gpu, n * sizeof(blst_fr), &err);
    CHECK(d_data);
    CHECK_OK(pl__gpu_upload(gpu, d_data, got, n * sizeof(blst_fr), &err), &err);
    CHECK_OK(pl__gpu_to_odd_coset(gpu, d_data, &set.tables, &err), &err);
    CHECK_OK(pl__gpu_download(gpu, got, d_data, n * sizeof(blst_fr), &err),
             &err);
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(blst_fr)) != 0)
            pl_test_fail(__FILE__, __LINE__,
                         "%s %s odd-coset NTT of 2^%u differs from the CPU's "
                         "at %zu",
                         impl->name, pl__curve_name(curve), log2n, i);
    pl__gpu_free(gpu, d_data, n * sizeof(blst_fr));
    pl__gpu_ntt_set_destroy(gpu, &set);
    pl__gpu_close(gpu);
    free(want);
    free(got);
    pl__ntt_plan_destroy(plan);
    pl__pool_destroy(pool);
}

/* below, at and above the shared-memory tile (2^10) */
static const unsigned emulated_ntt_logs[] = {0, 1, 2, 3, 5, 9, 10, 11, 12};

PL_TEST(ntt_matches_cpu_emulated)
{
    const pl__gpu_impl *impl = impl_or_skip(false);
    for (size_t i = 0; i < sizeof(emulated_ntt_logs) / sizeof(unsigned); i++)
        check_ntt(impl, PL__CURVE_BLS12_381, emulated_ntt_logs[i]);
}

PL_TEST(ntt_matches_cpu_on_device)
{
    const pl__gpu_impl *impl = impl_or_skip(true);
    for (unsigned log2n = 0; log2n <= 20; log2n++)
        check_ntt(impl, PL__CURVE_BLS12_381, log2n);
}

PL_TEST(ntt_matches_cpu_bn254_emulated)
{
    const pl__gpu_impl *impl = impl_or_skip(false);
    for (size_t i = 0; i < sizeof(emulated_ntt_logs) / sizeof(unsigned); i++)
        check_ntt(impl, PL__CURVE_BN254, emulated_ntt_logs[i]);
}

PL_TEST(ntt_matches_cpu_bn254_on_device)
{
    const pl__gpu_impl *impl = impl_or_skip(true);
    for (unsigned log2n = 0; log2n <= 20; log2n++)
        check_ntt(impl, PL__CURVE_BN254, log2n);
}

/* The way back from the odd coset on BN254 (the quotient's tables, which
 * no BN254 key uses yet: snarkjs's H stays on the coset): h of degree
 * below n times t = x^n - 1, taken to the coset on the CPU, comes back as
 * h's coefficients, canonical in, canonical out. */
PL_TEST(quotient_round_trip_bn254_emulated)
{
    const pl__gpu_impl *impl = impl_or_skip(false);
    pl_error err = {0};
    const unsigned log2n = 11;
    const size_t n = (size_t)1 << log2n;
    pl__pool *pool;
    CHECK_OK(pl__pool_create(&pool, 2, "pl-test", &err), &err);
    pl__ntt_plan *plan;
    CHECK_OK(pl__ntt_plan_create_curve(&plan, PL__CURVE_BN254, log2n, pool,
                                       &err), &err);
    pl__bn254_arith v = pl__bn254_arith_current();
    pl__bn254_fr *h = malloc(n * sizeof(*h)), *p = malloc(n * sizeof(*p));
    pl__bn254_fr *back = malloc(n * sizeof(*back));
    CHECK(h && p && back);
    uint64_t state = 0x9e0;
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32];
        pl_test_random_bytes(&state, le, 32);
        le[31] &= 0x1f;
        CHECK(pl__bn254_fr_from_le(&h[i], le));
    }
    /* p = h t on the coset: h's values there times t = g^n - 1, from the
     * coefficients (the CPU's transform takes evaluations, so h's
     * coefficients are first made the evaluations of the same h) */
    memcpy(p, h, n * sizeof(*p));
    pl__ntt_forward_elems(plan, p, pool); /* values of h on the domain */
    pl__ntt_to_odd_coset_elems(plan, p, pool);
    pl__bn254_fr g, t;
    pl__ntt_bn254_coset(&g, log2n);
    pl__bn254_fr_pow_u64(&t, &g, n, v);
    pl__bn254_fr_sub(&t, &t, &PL__BN254_FR_ONE, v);
    for (size_t i = 0; i < n; i++) {
        pl__bn254_fr_mul(&p[i], &p[i], &t, v);
        uint8_t le[32]; /* canonical integers, as pl__gpu_coset_h writes */
        pl__bn254_fr_to_le(le, &p[i]);
        memcpy(&p[i], le, 32);
    }
    pl__gpu *gpu;
    CHECK_OK(pl__gpu_open(&gpu, impl, 0, &err), &err);
    pl__gpu_ntt_set set;
    CHECK_OK(pl__gpu_ntt_set_create(gpu, &set, plan, log2n, &err), &err);
    void *d = pl__gpu_alloc(gpu, 2 * n * 32, &err);
    CHECK(d);
    CHECK_OK(pl__gpu_upload(gpu, (char *)d + n * 32, p, n * 32, &err), &err);
    CHECK_OK(pl__gpu_odd_coset_quotient(gpu, d, (char *)d + n * 32,
                                        &set.quotient, &err), &err);
    CHECK_OK(pl__gpu_download(gpu, back, d, n * 32, &err), &err);
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32];
        pl__bn254_fr_to_le(le, &h[i]);
        if (memcmp(le, &back[i], 32) != 0)
            pl_test_fail(__FILE__, __LINE__, "BN254 quotient: coefficient "
                         "%zu differs", i);
    }
    pl__gpu_free(gpu, d, 2 * n * 32);
    pl__gpu_ntt_set_destroy(gpu, &set);
    pl__gpu_close(gpu);
    free(h);
    free(p);
    free(back);
    pl__ntt_plan_destroy(plan);
    pl__pool_destroy(pool);
}

/* ---- phase timing ------------------------------------------------------------ */

/* The GPU check's profile counts every phase of an MSM and an NTT once
 * while it is on, and nothing while it is off. */
PL_TEST(profile_counts_each_phase_emulated)
{
    const pl__gpu_impl *impl = impl_or_skip(false);
    double seconds[PL_GPU_PHASES];
    uint64_t counts[PL_GPU_PHASES];
    pl__gpu_profile_read(NULL, NULL, true);
    check_msm(impl, PL__CURVE_BLS12_381, 300, SCALARS_RANDOM, 0); /* off */
    pl__gpu_profile_read(seconds, counts, false);
    for (int i = 0; i < PL_GPU_PHASES; i++)
        CHECK_EQ(counts[i], 0);

    pl__gpu_profile(true);
    check_msm(impl, PL__CURVE_BLS12_381, 300, SCALARS_RANDOM, 0);
    check_ntt(impl, PL__CURVE_BLS12_381, 5);
    pl__gpu_profile(false);
    pl__gpu_profile_read(seconds, counts, true);
    CHECK_EQ(counts[PL_GPU_PHASE_UPLOAD], 2 + 4); /* points, scalars; NTT:
                                                   * tables (3), data */
    CHECK_EQ(counts[PL_GPU_PHASE_DOWNLOAD], 1);
    CHECK_EQ(counts[PL_GPU_PHASE_NTT], 1);
    CHECK_EQ(counts[PL_GPU_PHASE_COSET_H], 0);
    for (int i = PL_GPU_PHASE_MSM_SORT; i <= PL_GPU_PHASE_MSM_COMBINE; i++) {
        CHECK_EQ(counts[i], 1);
        CHECK(seconds[i] > 0);
    }
    CHECK_EQ(strcmp(pl__gpu_phase_name(PL_GPU_PHASE_MSM_ACCUMULATE),
                    "msm_accumulate"), 0);
    pl__gpu_profile_read(seconds, counts, false); /* reset by the read */
    CHECK_EQ(counts[PL_GPU_PHASE_UPLOAD], 0);
}

/* ---- proofs --------------------------------------------------------------- */

/* A proof of a vector with r = s = 0 by a prover on a backend. */
static void prove_on(const pl__backend_ops *ops, pl_zkey *zk, pl_wtns *wtns,
                     pl_proof *out)
{
    pl_error err = {0};
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = 2;
    pl_prover *prover;
    CHECK_OK(pl__prover_create_with_backend(&prover, zk, ops, &cfg, &err),
             &err);
    pl__prover_set_zero_blinding(prover, true);
    CHECK_OK(pl_prove(prover, out, wtns, &err), &err);
    pl_prover_destroy(prover);
}

static void proof_cases(bool on_device)
{
    const pl__backend_ops *ops = backend_or_skip(on_device);
    for (size_t i = 0; i < N_VECTORS; i++) {
        pl_error err = {0};
        char path[512];
        pl_zkey *zk;
        pl_wtns *wtns;
        snprintf(path, sizeof(path), "%s/circuit.zkey", vectors[i]);
        CHECK_OK(pl_zkey_open(&zk, pl_test_vector(path), &err), &err);
        snprintf(path, sizeof(path), "%s/witness.wtns", vectors[i]);
        CHECK_OK(pl_wtns_open(&wtns, pl_test_vector(path), &err), &err);
        pl_proof cpu, gpu, ref;
        prove_on(&pl__backend_cpu, zk, wtns, &cpu);
        prove_on(ops, zk, wtns, &gpu);
        snprintf(path, sizeof(path), "%s/proof_ref.json", vectors[i]);
        CHECK_OK(pl_proof_read_json(&ref, pl_test_vector(path), &err), &err);
        if (memcmp(&gpu, &cpu, sizeof(gpu)) != 0 ||
            memcmp(&gpu, &ref, sizeof(gpu)) != 0)
            pl_test_fail(__FILE__, __LINE__,
                         "%s: the %s backend's proof with r = s = 0 differs "
                         "from the CPU backend's",
                         vectors[i], ops->name);
        pl_wtns_close(wtns);
        pl_zkey_close(zk);
    }
}

PL_TEST(proofs_equal_cpu_emulated)
{
    proof_cases(false);
}

PL_TEST(proofs_equal_cpu_on_device)
{
    proof_cases(true);
}

/* BN254: each bn128 vector's proof with r = s = 0 through the backend is
 * the CPU backend's, byte for byte; a blinded one verifies under the key
 * from the zkey and under snarkjs's verification_key.json, and one moved
 * by a bit is refused. */
static const char *const bn254_vectors[] = {"multiplier", "chain10",
                                            "nopublic",   "noB",
                                            "manypublic", "edgevalues"};

static void proof_cases_bn254(bool on_device)
{
    const pl__backend_ops *ops = backend_or_skip(on_device);
    for (size_t i = 0; i < sizeof(bn254_vectors) / sizeof(char *); i++) {
        pl_error err = {0};
        char path[512];
        pl_zkey *zk;
        pl_wtns *wtns;
        pl_vkey *vk, *vk_file;
        snprintf(path, sizeof(path), "bn254/%s/circuit.zkey",
                 bn254_vectors[i]);
        CHECK_OK(pl_zkey_open(&zk, pl_test_vector(path), &err), &err);
        snprintf(path, sizeof(path), "bn254/%s/witness.wtns",
                 bn254_vectors[i]);
        CHECK_OK(pl_wtns_open(&wtns, pl_test_vector(path), &err), &err);
        snprintf(path, sizeof(path), "bn254/%s/verification_key.json",
                 bn254_vectors[i]);
        CHECK_OK(pl_vkey_read_json(&vk_file, pl_test_vector(path), &err),
                 &err);
        CHECK_EQ(pl_zkey_curve(zk), PL_CURVE_BN254);
        CHECK_OK(pl_vkey_from_zkey(&vk, zk, &err), &err);
        pl_proof cpu, gpu, blinded;
        prove_on(&pl__backend_cpu, zk, wtns, &cpu);
        prove_on(ops, zk, wtns, &gpu);
        if (memcmp(&gpu, &cpu, sizeof(gpu)) != 0)
            pl_test_fail(__FILE__, __LINE__,
                         "bn254/%s: the %s backend's proof with r = s = 0 "
                         "differs from the CPU backend's",
                         bn254_vectors[i], ops->name);

        pl_prover_config cfg;
        pl_prover_config_init(&cfg);
        cfg.threads = 2;
        pl_prover *prover;
        CHECK_OK(pl__prover_create_with_backend(&prover, zk, ops, &cfg, &err),
                 &err);
        CHECK_OK(pl_prove(prover, &blinded, wtns, &err), &err);
        pl_prover_destroy(prover);
        const pl_scalar *publics = pl_wtns_values(wtns) + 1;
        size_t n_public = pl_vkey_n_public(vk);
        CHECK_OK(pl_verify(vk, &gpu, publics, n_public, &err), &err);
        CHECK_OK(pl_verify(vk, &blinded, publics, n_public, &err), &err);
        CHECK_OK(pl_verify(vk_file, &blinded, publics, n_public, &err), &err);
        CHECK(memcmp(&blinded, &gpu, sizeof(gpu)) != 0);
        pl_proof bad = blinded;
        bad.c.b[0] ^= 1;
        CHECK(pl_verify(vk, &bad, publics, n_public, &err) != PL_OK);
        pl_vkey_destroy(vk_file);
        pl_vkey_destroy(vk);
        pl_wtns_close(wtns);
        pl_zkey_close(zk);
    }
    pl_error err = {0};
    CHECK(pl_alloc_all_freed(&err));
}

PL_TEST(proofs_bn254_equal_cpu_and_verify_emulated)
{
    proof_cases_bn254(false);
}

PL_TEST(proofs_bn254_equal_cpu_and_verify_on_device)
{
    proof_cases_bn254(true);
}

/* A BN254 shape beyond the field's two-adicity is refused at open, with
 * the reason, before anything is allocated on the device. */
PL_TEST(bn254_domain_beyond_two_adicity_refused_emulated)
{
    pl_error err = {0};
    pl__backend_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.shape.curve = PL__CURVE_BN254;
    cfg.shape.log2n = PL__NTT_BN254_MAX_LOG + 1;
    cfg.shape.roots = PL__ROOTS_SNARKJS;
    cfg.shape.h_form = PL__H_ODD_COSET;
    cfg.name = "big.zkey";
    void *instance = NULL;
    CHECK_STATUS(pl__backend_cuda_emulated.open(&instance, &cfg, &err),
                 PL_EUNSUPPORTED, &err);
    CHECK(instance == NULL);
    CHECK(strstr(err.msg, "big.zkey") && strstr(err.msg, "two-adicity 28"));
    CHECK(pl_alloc_all_freed(&err));
}

/* ---- through the engine --------------------------------------------------- */

/* vector: the folder under tests/vectors (chain10, or bn254/chain10 for
 * BN254's kernels). */
static void engine_batch(bool on_device, const char *vector)
{
    const pl__backend_ops *ops = backend_or_skip(on_device);
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 2;
    cfg.prover_workers = 2; /* two workers share the one device */
    cfg.threads = 2;
    cfg.log_level = PL_LOG_INFO;
    char *log_text = NULL;
    size_t log_len = 0;
    cfg.log_stream = open_memstream(&log_text, &log_len);
    CHECK(cfg.log_stream);
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg, ops, NULL, &err), &err);
    pl_circuit *c;
    char zkey[512], wtns[512];
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/circuit.zkey", vector);
    snprintf(zkey, sizeof(zkey), "%s", pl_test_vector(rel));
    snprintf(rel, sizeof(rel), "%s/witness.wtns", vector);
    snprintf(wtns, sizeof(wtns), "%s", pl_test_vector(rel));
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey, NULL, &err), &err);
    const char *paths[3] = {wtns, wtns, wtns};
    pl_job_spec spec = {.circuit = c, .n_partitions = 3,
                        .witness_paths = paths, .verify = true};
    uint64_t id;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.verified, 3);
    pl_alloc_stats dev, pinned;
    pl_alloc_stats_read(&dev, PL_BUF_DEVICE, false);
    pl_alloc_stats_read(&pinned, PL_BUF_PINNED, false);
    CHECK(dev.live_count > 0 && pinned.live_count > 0); /* resident */
    /* the driver's view reconciles with ours: everything it reports used
     * beyond the context is class device */
    pl_engine_stats es;
    pl_engine_stats_read(e, &es);
    CHECK_EQ(strcmp(es.backend, ops->name), 0);
    CHECK(es.device_total_bytes > 0);
    CHECK(es.device_used_bytes >= dev.live_bytes);
    if (!on_device)
        CHECK_EQ(es.peak_device_untracked_bytes, 0);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err); /* checks the ledger */
    fclose(cfg.log_stream);
    pl_alloc_stats_read(&dev, PL_BUF_DEVICE, false);
    pl_alloc_stats_read(&pinned, PL_BUF_PINNED, false);
    CHECK_EQ(dev.live_bytes, 0);
    CHECK_EQ(pinned.live_bytes, 0);
    CHECK(dev.total_allocs > 0 && dev.total_allocs == dev.total_frees);
    /* every event line carries the device's share */
    CHECK(strstr(log_text, " log=ledger event=prove_done ") != NULL);
    CHECK(strstr(log_text, " buf.device=") != NULL);
    CHECK(strstr(log_text, " buf.pinned=") != NULL);
    if (!on_device)
        CHECK(strstr(log_text, " gpu.used=") &&
              strstr(log_text, " gpu.total=4.0GiB gpu.untracked=0B"));
    free(log_text);
}

PL_TEST(engine_batch_emulated)
{
    engine_batch(false, "chain10");
}

PL_TEST(engine_batch_on_device)
{
    engine_batch(true, "chain10");
}

PL_TEST(engine_batch_bn254_emulated)
{
    engine_batch(false, "bn254/chain10");
}

PL_TEST(engine_batch_bn254_on_device)
{
    engine_batch(true, "bn254/chain10");
}

/* Every accounted allocation of an emulated open and proof failed in turn:
 * each failure is reported, and nothing leaks (device and pinned classes
 * included). */
PL_TEST(allocation_failures_leak_nothing_emulated)
{
    pl_error err = {0};
    pl_zkey *zk;
    pl_wtns *wtns;
    CHECK_OK(pl_zkey_open(&zk, pl_test_vector("multiplier/circuit.zkey"), &err),
             &err);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector("multiplier/witness.wtns"),
                          &err), &err);
    const pl__backend_ops *ops = &pl__backend_cuda_emulated;
    pl_prover *prover;
    pl_proof proof;
    pl__alloc_fail_at(0);
    CHECK_OK(pl__prover_create_with_backend(&prover, zk, ops, NULL, &err),
             &err);
    CHECK_OK(pl_prove(prover, &proof, wtns, &err), &err);
    pl_prover_destroy(prover);
    uint64_t total = pl__alloc_fail_at(0);
    CHECK(total > 4);
    pl_test_live held; /* the witness, read whole */
    pl_test_live_read(&held);
    for (uint64_t k = 1; k <= total; k++) {
        pl__alloc_fail_at(k);
        pl_status st = pl__prover_create_with_backend(&prover, zk, ops, NULL,
                                                      &err);
        if (st == PL_OK) {
            st = pl_prove(prover, &proof, wtns, &err);
            pl_prover_destroy(prover);
        }
        pl__alloc_fail_at(0);
        CHECK_EQ(st, PL_ENOMEM);
        if (!pl_test_live_as_before(&held, &err))
            pl_test_fail(__FILE__, __LINE__, "allocation %llu failed: %s",
                         (unsigned long long)k, err.msg);
    }
    pl_wtns_close(wtns);
    pl_zkey_close(zk);
}

/* A proof gives the device back with nothing queued on either stream,
 * when it succeeds and when it fails part-way (each accounted allocation
 * of the proof failed in turn), so the next proof's uploads cannot land
 * under kernels still running (issue 21.4).  The emulation runs every
 * operation at once; it counts what a real stream would still hold. */
PL_TEST(proof_leaves_no_work_queued_emulated)
{
    pl_error err = {0};
    pl_zkey *zk;
    pl_wtns *wtns;
    CHECK_OK(pl_zkey_open(&zk, pl_test_vector("multiplier/circuit.zkey"), &err),
             &err);
    CHECK_OK(pl_wtns_open(&wtns, pl_test_vector("multiplier/witness.wtns"),
                          &err), &err);
    const pl__backend_ops *ops = &pl__backend_cuda_emulated;
    pl_prover *prover;
    pl_proof proof;
    CHECK_OK(pl__prover_create_with_backend(&prover, zk, ops, NULL, &err),
             &err);
    pl__alloc_fail_at(0);
    CHECK_OK(pl_prove(prover, &proof, wtns, &err), &err);
    uint64_t total = pl__alloc_fail_at(0); /* the proof's allocations */
    CHECK_EQ(pl__gpu_emu_queued(PL_GPU_COPY), 0);
    CHECK_EQ(pl__gpu_emu_queued(PL_GPU_COMPUTE), 0);
    CHECK(total > 0);
    for (uint64_t k = 1; k <= total; k++) {
        pl__alloc_fail_at(k);
        pl_status st = pl_prove(prover, &proof, wtns, &err);
        pl__alloc_fail_at(0);
        CHECK_EQ(st, PL_ENOMEM);
        if (pl__gpu_emu_queued(PL_GPU_COPY) ||
            pl__gpu_emu_queued(PL_GPU_COMPUTE))
            pl_test_fail(__FILE__, __LINE__,
                         "allocation %llu of %llu failed: the proof gave "
                         "the device back with %u copies and %u compute "
                         "operations queued",
                         (unsigned long long)k, (unsigned long long)total,
                         pl__gpu_emu_queued(PL_GPU_COPY),
                         pl__gpu_emu_queued(PL_GPU_COMPUTE));
    }
    /* and the device still proves */
    CHECK_OK(pl_prove(prover, &proof, wtns, &err), &err);
    pl_prover_destroy(prover);
    pl_wtns_close(wtns);
    CHECK(pl_alloc_all_freed(&err));
    pl_zkey_close(zk);
}

/* A job of `n` chain10 partitions on a circuit, waited for. */
static void run_chain10(pl_engine *e, pl_circuit *c, size_t n,
                        pl_job_status *js)
{
    char wtns[512];
    snprintf(wtns, sizeof(wtns), "%s", pl_test_vector("chain10/witness.wtns"));
    const char *paths[4] = {wtns, wtns, wtns, wtns};
    pl_job_spec spec = {.circuit = c, .n_partitions = n,
                        .witness_paths = paths, .verify = true};
    uint64_t id;
    pl_error err = {0};
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    CHECK_OK(pl_engine_wait(e, id, js, &err), &err);
}

/* A sticky device fault in the middle of a proof (the emulation's
 * cudaErrorIllegalAddress at a kernel launch): the partition fails with the
 * CUDA error named and its code; the next proof on the device fails at
 * once, naming the first fault; the backend reports itself faulted (so
 * auto would take the CPU); an engine with the CPU as fallback opens the
 * circuit afresh on the CPU, whose proofs verify, and says so in one log
 * line; every byte, host and device, comes back. */
PL_TEST(device_fault_fails_the_partition_then_the_cpu_takes_over)
{
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 1;
    cfg.threads = 2;
    cfg.log_level = PL_LOG_INFO;
    char *log_text = NULL;
    size_t log_len = 0;
    cfg.log_stream = open_memstream(&log_text, &log_len);
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg,
                                            &pl__backend_cuda_emulated,
                                            &pl__backend_cpu, &err), &err);
    char zkey[512];
    snprintf(zkey, sizeof(zkey), "%s", pl_test_vector("chain10/circuit.zkey"));
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey, NULL, &err), &err);
    pl_job_status js;
    run_chain10(e, c, 1, &js); /* the device works */
    CHECK_OK(js.status, &js.error);

    pl__gpu_emu_fault_next_launch();
    run_chain10(e, c, 1, &js);
    CHECK_EQ(js.status, PL_EINTERNAL);
    CHECK_EQ(js.error.cuda_code, PL_GPU_EMU_FAULT_CODE);
    CHECK(strstr(js.error.msg, "illegal memory access") != NULL);
    run_chain10(e, c, 1, &js);
    CHECK_EQ(js.status, PL_EINTERNAL);
    CHECK(strstr(js.error.msg, "faulted earlier") != NULL);
    char why[320];
    CHECK(pl__backend_cuda_emulated.faulted(0, why, sizeof(why)));
    CHECK(strstr(why, "illegal memory access") != NULL);
    pl_circuit_release(c);

    /* opened again: on the CPU now */
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey, NULL, &err), &err);
    run_chain10(e, c, 2, &js);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.verified, 2);
    pl_engine_stats es;
    pl_engine_stats_read(e, &es);
    CHECK_EQ(strcmp(es.backend, "cpu"), 0);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    fclose(cfg.log_stream);
    CHECK(strstr(log_text, "engine: backend cuda-emulated: CUDA device 0 "
                           "faulted earlier") != NULL);
    CHECK(strstr(log_text, "circuits opened from now on use cpu") != NULL);
    CHECK(pl_alloc_all_freed(&err));
    /* and the device is not opened again in this process */
    pl_prover *prover;
    pl_zkey *zk;
    CHECK_OK(pl_zkey_open(&zk, zkey, &err), &err);
    CHECK_STATUS(pl__prover_create_with_backend(&prover, zk,
                                                &pl__backend_cuda_emulated,
                                                NULL, &err),
                 PL_EUNSUPPORTED, &err);
    pl_zkey_close(zk);
    free(log_text);
}

/* auto probes by opening: a device that is counted but does not open (the
 * emulated one, its open failed by fault injection) is not usable, and
 * says why; one that opens is, and the probe leaves nothing open. */
PL_TEST(usable_means_it_opens_emulated)
{
    char why[320] = "";
    pl_error err = {0};
    pl__alloc_fail_at(1); /* the open's first accounted allocation */
    CHECK(!pl__backend_cuda_emulated.usable(why, sizeof(why)));
    pl__alloc_fail_at(0);
    CHECK(strstr(why, "does not open") != NULL);
    CHECK(pl__backend_cuda_emulated.usable(why, sizeof(why)));
    uint64_t used, total, at_open;
    CHECK(!pl__backend_cuda_emulated.device_memory(0, &used, &total, &at_open));
    CHECK(pl_alloc_all_freed(&err));
}

/* Two processes on one card (the emulated card, another process's bytes
 * set by the hook).  When the other holds so much that this circuit's
 * buffers and the headroom do not fit, open refuses before allocating,
 * naming the bytes; when the other takes the memory after our check (it
 * passed the check at the same moment), the allocation fails and open
 * fails cleanly: nothing allocated stays, on the device or the host, and
 * the device opens fine once the memory is back. */
PL_TEST(device_shared_with_another_process_emulated)
{
    pl_error err = {0};
    pl_zkey *zk;
    CHECK_OK(pl_zkey_open(&zk, pl_test_vector("chain10/circuit.zkey"), &err),
             &err);
    pl_prover *prover;
    const uint64_t card = (uint64_t)4 << 30;
    pl__gpu_emu_foreign(card - ((uint64_t)200 << 20), 0);
    CHECK_STATUS(pl__prover_create_with_backend(&prover, zk,
                                                &pl__backend_cuda_emulated,
                                                NULL, &err), PL_ENOMEM, &err);
    CHECK(strstr(err.msg, "of device memory for this circuit") != NULL);
    CHECK(strstr(err.msg, "headroom") != NULL);
    CHECK(pl_alloc_all_freed(&err));

    pl__gpu_emu_foreign(0, card);
    CHECK_STATUS(pl__prover_create_with_backend(&prover, zk,
                                                &pl__backend_cuda_emulated,
                                                NULL, &err), PL_ENOMEM, &err);
    CHECK(strstr(err.msg, "the card is full") != NULL);
    CHECK(pl_alloc_all_freed(&err));

    pl__gpu_emu_foreign(0, 0);
    CHECK_OK(pl__prover_create_with_backend(&prover, zk,
                                            &pl__backend_cuda_emulated, NULL,
                                            &err), &err);
    pl_wtns *w;
    pl_vkey *vk;
    CHECK_OK(pl_wtns_open(&w, pl_test_vector("chain10/witness.wtns"), &err),
             &err);
    CHECK_OK(pl_vkey_from_zkey(&vk, zk, &err), &err);
    pl_proof proof;
    CHECK_OK(pl_prove(prover, &proof, w, &err), &err);
    pl_zkey_info info;
    pl_zkey_get_info(zk, &info);
    CHECK_OK(pl_verify(vk, &proof, pl_wtns_values(w) + 1, info.n_public, &err),
             &err);
    pl_vkey_destroy(vk);
    pl_wtns_close(w);
    pl_prover_destroy(prover);
    pl_zkey_close(zk);
    CHECK(pl_alloc_all_freed(&err));
}

/* A zkey's batch on an engine over two emulated cards: the circuit opened
 * on each (its points on both), one prover worker per card, both used,
 * every proof verified, the ledger balanced and every device byte back. */
PL_TEST(engine_two_devices_emulated)
{
    pl__gpu_emu_set_devices(2);
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 2;
    cfg.threads = 2;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg,
                                            &pl__backend_cuda_emulated, NULL,
                                            &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c,
                                    pl_test_vector("chain10/circuit.zkey"),
                                    NULL, &err), &err);
    pl_job_status js;
    for (int k = 0; k < 2; k++) {
        run_chain10(e, c, 4, &js);
        CHECK_OK(js.status, &js.error);
        CHECK_EQ(js.verified, 4);
    }
    pl_engine_stats es;
    pl_engine_stats_read(e, &es);
    CHECK_EQ(es.devices, 2);
    CHECK_EQ(es.device_starts[0] + es.device_starts[1], 8);
    CHECK(es.device_starts[0] > 0 && es.device_starts[1] > 0);
    /* each card's memory, read apart, the sums theirs; none past them */
    for (int d = 0; d < 2; d++) {
        CHECK(es.device_total[d] > 0);
        CHECK(es.device_used[d] > 0 && es.device_used[d] <= es.device_total[d]);
    }
    CHECK_EQ(es.device_used[0] + es.device_used[1], es.device_used_bytes);
    CHECK_EQ(es.device_total[0] + es.device_total[1], es.device_total_bytes);
    for (int d = 2; d < PL_MAX_DEVICES; d++)
        CHECK(es.device_used[d] == 0 && es.device_total[d] == 0);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    CHECK(pl_alloc_all_freed(&err));
}
