/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_batch: k sums over one base set in one batched call
 * (pl__msm_sum_batch, msm_batch.c) against k separate calls
 * (pl__msm_sum), for k = 1, 2, 5, 10 at 2^16 and 2^18, on the same random
 * input: BLS12-381 G1 (the prover's H sum; its A, B1, C sums and B's G2
 * sum are the same tiles), and G2 at 2^16.  Throughput is proofs' sums
 * per second of process CPU time (every thread's: on a shared machine it
 * leaves out the waits for a core), as a ratio separate / batch (above 1:
 * the batch wins); peak memory is the accounted scratch's high-water mark
 * (class msm_scratch) of each contender, and the batch's over the
 * separate calls'.  The contenders alternate, each going first in turn;
 * each figure is the median of BENCH_RUNS (3).  Not part of `make test`: run it with nice on a quiet
 * machine, or read only the ratios.
 *
 *   bench_batch               G1 at 2^16 and 2^18, G2 at 2^16
 *   BENCH_MAX_LOG=16          cap the sizes
 *   BENCH_THREADS=k           pool size (default: one per core)
 *   BENCH_KS=1,2,5,10         the batch sizes
 *   BENCH_G1_ONLY=1           no G2 case
 *   BENCH_MODEL_ONLY=1        only the cost model's ratios (no sums)
 *   BENCH_ZKEY=f BENCH_WTNS=w  whole proofs instead (bench/batch_bench.sh):
 *                             k proofs started together
 *                             (pl__groth16_start_batch) against k
 *                             pl__groth16_start calls, each finished; the
 *                             peak is the sum of the classes' high-water
 *                             marks (abc, h, msm_scratch, pending)
 *
 * Output: key=value lines.  Every batched sum is checked against the
 * separate one (the same group element) and a mismatch exits 1.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "field/field.h"
#include "groth16/prover.h"
#include "groth16/zkey_prover.h"
#include "msm/msm.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "bench_common.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t scratch_peak(void)
{
    pl_alloc_stats st;
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, false);
    return st.high_water_bytes;
}

static void scratch_reset(void)
{
    pl_alloc_stats st;
    pl_alloc_stats_read(&st, PL_BUF_MSM_SCRATCH, true);
}

static bool same_sum(pl__msm_group_id g, const void *a, const void *b)
{
    if (g == PL__MSM_BLS12_381_G1)
        return blst_p1_is_equal(a, b);
    return blst_p2_is_equal(a, b);
}

static void run_case(pl__msm_group_id g, unsigned log2n, const size_t *ks,
                     size_t nks, int runs, pl__pool *pool)
{
    size_t n = (size_t)1 << log2n, kmax = 0;
    for (size_t i = 0; i < nks; i++)
        if (ks[i] > kmax)
            kmax = ks[i];
    const char *name = g == PL__MSM_BLS12_381_G1 ? "g1" : "g2";
    uint8_t *points = g == PL__MSM_BLS12_381_G1 ? g1_points(n) : g2_points(n);
    const uint8_t **scalars = malloc(kmax * sizeof(*scalars));
    size_t sb = pl__msm_sum_bytes(g);
    uint8_t *sep = malloc(kmax * sb), *bat = malloc(kmax * sb);
    if (!scalars || !sep || !bat)
        exit(2);
    for (size_t j = 0; j < kmax; j++)
        scalars[j] = random_scalars_below_r(n);
    pl_error err;
    for (size_t i = 0; i < nks; i++) {
        size_t k = ks[i];
        double ts[16], tb[16];
        uint64_t peak_s = 0, peak_b = 0;
        for (int r = 0; r < runs; r++) {
            /* the contenders alternate which goes first */
            for (int turn = 0; turn < 2; turn++) {
                bool batch = (turn + r) % 2 == 1;
                scratch_reset();
                double t0 = cpu_now();
                if (batch) {
                    if (pl__msm_sum_batch(g, bat, points, scalars, k, n, NULL,
                                          pool, &err) != PL_OK)
                        exit(3);
                    tb[r] = cpu_now() - t0;
                    peak_b = scratch_peak();
                    continue;
                }
                for (size_t j = 0; j < k; j++)
                    if (pl__msm_sum(g, sep + j * sb, points, scalars[j], n,
                                    NULL, pool, &err) != PL_OK)
                        exit(3);
                ts[r] = cpu_now() - t0;
                peak_s = scratch_peak();
            }
            for (size_t j = 0; j < k; j++)
                if (!same_sum(g, sep + j * sb, bat + j * sb)) {
                    fprintf(stderr, "bench_batch: %s 2^%u k=%zu: sum %zu "
                            "differs\n", name, log2n, k, j);
                    exit(1);
                }
        }
        double ms = median(ts, runs), mb = median(tb, runs);
        printf("batch_%s_2^%u_k%zu_separate_cpu_s=%.3f\n", name, log2n, k, ms);
        printf("batch_%s_2^%u_k%zu_batch_cpu_s=%.3f\n", name, log2n, k, mb);
        printf("batch_%s_2^%u_k%zu_throughput_ratio=%.3f\n", name, log2n, k,
               ms / mb);
        printf("batch_%s_2^%u_k%zu_model_ratio=%.3f\n", name, log2n, k,
               pl__msm_sum_batch_gain(g, n, k, pl__pool_size(pool)));
        printf("batch_%s_2^%u_k%zu_separate_peak_bytes=%llu\n", name, log2n, k,
               (unsigned long long)peak_s);
        printf("batch_%s_2^%u_k%zu_batch_peak_bytes=%llu\n", name, log2n, k,
               (unsigned long long)peak_b);
        printf("batch_%s_2^%u_k%zu_peak_ratio=%.2f\n", name, log2n, k,
               (double)peak_b / (double)peak_s);
        fflush(stdout);
    }
    for (size_t j = 0; j < kmax; j++)
        free((void *)scalars[j]);
    free(scalars);
    free(sep);
    free(bat);
    free(points);
}

/* ---- whole proofs ---------------------------------------------------------- */

static uint64_t proof_peak(void)
{
    static const pl_buffer_class cls[] = {PL_BUF_ABC, PL_BUF_H,
                                          PL_BUF_MSM_SCRATCH, PL_BUF_PENDING};
    uint64_t sum = 0;
    for (size_t i = 0; i < 4; i++) {
        pl_alloc_stats st;
        pl_alloc_stats_read(&st, cls[i], false);
        sum += st.high_water_bytes;
    }
    return sum;
}

static void proof_reset(void)
{
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        pl_alloc_stats st;
        pl_alloc_stats_read(&st, (pl_buffer_class)c, true);
    }
}

/* k inputs: the witness's a/b/c, the j-th with every third value
 * replaced (H's scalars then differ; the witness sums' are the
 * witness's, as partitions of one circuit have alike), the same each
 * call */
static void make_inputs(pl_prover *prover, const pl_wtns *w,
                        const blst_fr *abc0, size_t domain, size_t k,
                        pl__proof_input *in)
{
    pl_error err;
    uint64_t bytes = 3 * domain * sizeof(blst_fr);
    rng_state = 0x9e3779b97f4a7c15ull; /* the same inputs every time */
    for (size_t j = 0; j < k; j++) {
        pl__prover_input(prover, &in[j], NULL, w);
        if (!(in[j].abc = pl__alloc(PL_BUF_ABC, bytes, &err)))
            exit(2);
        memcpy(in[j].abc, abc0, bytes);
        for (size_t i = j; j && i < 3 * domain; i += 3) {
            uint64_t l[4] = {rng(), rng(), rng(), rng() >> 2};
            blst_fr_from_uint64(&in[j].abc[i], l);
        }
    }
}

static int run_proofs(const char *zkey_path, const char *wtns_path,
                      const size_t *ks, size_t nks, int runs, unsigned threads)
{
    pl_error err;
    pl_zkey *zk;
    pl_wtns *w;
    pl_prover *prover;
    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = threads;
    if (pl_zkey_open(&zk, zkey_path, &err) || pl_wtns_open(&w, wtns_path, &err) ||
        pl__prover_create_with_backend(&prover, zk, &pl__backend_cpu, &cfg,
                                       &err)) {
        fprintf(stderr, "bench_batch: %s\n", err.msg);
        return 2;
    }
    pl__prover_set_zero_blinding(prover, true);
    pl__groth16_prover *skel = pl__prover_skeleton(prover);
    const pl__groth16_key *key = pl__prover_key(prover);
    size_t domain = (size_t)1 << key->shape.log2n;
    blst_fr *abc0;
    if (pl__prover_synthesize(prover, &abc0, w, NULL, &err))
        return 2;
    blst_fr *abc_copy = malloc(3 * domain * sizeof(blst_fr));
    memcpy(abc_copy, abc0, 3 * domain * sizeof(blst_fr));
    pl__free(abc0);
    printf("proof_log2n=%u\n", key->shape.log2n);
    for (size_t i = 0; i < nks; i++) {
        size_t k = ks[i];
        pl__proof_input in[16], *inp[16];
        pl_pending *pd[16];
        pl_proof sep[16], bat[16];
        double ts[16], tb[16];
        uint64_t peak_s = 0, peak_b = 0;
        if (k > 16)
            continue;
        for (int r = 0; r < runs; r++)
            for (int turn = 0; turn < 2; turn++) {
                bool batch = (turn + r) % 2 == 1;
                make_inputs(prover, w, abc_copy, domain, k, in);
                proof_reset();
                double t0 = cpu_now();
                if (batch) {
                    for (size_t j = 0; j < k; j++)
                        inp[j] = &in[j];
                    if (pl__groth16_start_batch(skel, pd, inp, k, NULL, NULL,
                                                &err))
                        exit(3);
                    for (size_t j = 0; j < k; j++)
                        if (pl_prove_finish(pd[j], &bat[j], &err))
                            exit(3);
                    tb[r] = cpu_now() - t0;
                    peak_b = proof_peak();
                    continue;
                }
                for (size_t j = 0; j < k; j++)
                    if (pl__groth16_start(skel, &pd[0], &in[j], NULL, NULL,
                                          &err) ||
                        pl_prove_finish(pd[0], &sep[j], &err))
                        exit(3);
                ts[r] = cpu_now() - t0;
                peak_s = proof_peak();
            }
        for (size_t j = 0; j < k; j++)
            if (memcmp(&sep[j], &bat[j], sizeof(pl_proof)) != 0) {
                fprintf(stderr, "bench_batch: proof %zu of %zu differs\n", j,
                        k);
                exit(1);
            }
        double ms = median(ts, runs), mb = median(tb, runs);
        printf("proof_2^%u_k%zu_separate_cpu_s=%.3f\n", key->shape.log2n, k,
               ms);
        printf("proof_2^%u_k%zu_batch_cpu_s=%.3f\n", key->shape.log2n, k, mb);
        printf("proof_2^%u_k%zu_throughput_ratio=%.3f\n", key->shape.log2n, k,
               ms / mb);
        printf("proof_2^%u_k%zu_separate_peak_bytes=%llu\n",
               key->shape.log2n, k, (unsigned long long)peak_s);
        printf("proof_2^%u_k%zu_batch_peak_bytes=%llu\n", key->shape.log2n,
               k, (unsigned long long)peak_b);
        printf("proof_2^%u_k%zu_peak_ratio=%.2f\n", key->shape.log2n, k,
               (double)peak_b / (double)peak_s);
        fflush(stdout);
    }
    free(abc_copy);
    pl_prover_destroy(prover);
    pl_wtns_close(w);
    pl_zkey_close(zk);
    return 0;
}

int main(void)
{
    const char *e = getenv("BENCH_MAX_LOG");
    unsigned max_log = e ? (unsigned)atoi(e) : 18;
    e = getenv("BENCH_THREADS");
    unsigned threads = e ? (unsigned)atoi(e) : 0;
    e = getenv("BENCH_RUNS");
    int runs = e ? atoi(e) : 3;
    if (runs < 1 || runs > 16)
        runs = 3;
    size_t ks[8] = {1, 2, 5, 10}, nks = 4;
    if ((e = getenv("BENCH_KS"))) {
        nks = 0;
        for (char *p = (char *)e; *p && nks < 8;) {
            ks[nks++] = strtoul(p, &p, 10);
            while (*p == ',')
                p++;
        }
    }
    if (getenv("BENCH_ZKEY") && getenv("BENCH_WTNS"))
        return run_proofs(getenv("BENCH_ZKEY"), getenv("BENCH_WTNS"), ks, nks,
                          runs, threads);
    pl__pool *pool;
    pl_error err;
    if (pl__pool_create(&pool, threads, "bench", &err) != PL_OK)
        return 2;
    printf("batch_threads=%u\n", pl__pool_size(pool));
    bool model_only = getenv("BENCH_MODEL_ONLY") != NULL;
    for (unsigned lg = 16; lg <= max_log && lg <= 18 && !model_only; lg += 2)
        run_case(PL__MSM_BLS12_381_G1, lg, ks, nks, runs, pool);
    if (!getenv("BENCH_G1_ONLY") && !model_only)
        run_case(PL__MSM_BLS12_381_G2, 16, ks, nks, runs, pool);
    pl__pool_destroy(pool);
    /* the model's gain where the workers are many (no run: this machine
     * may have fewer cores) */
    static const unsigned many[] = {2, 16, 32, 96};
    for (unsigned t = 0; t < 4; t++)
        for (unsigned lg = 16; lg <= 18; lg += 2)
            for (size_t i = 0; i < nks; i++)
                printf("batch_model_g1_2^%u_k%zu_threads%u_ratio=%.3f\n", lg,
                       ks[i], many[t],
                       pl__msm_sum_batch_gain(PL__MSM_BLS12_381_G1,
                                              (size_t)1 << lg, ks[i],
                                              many[t]));
    return 0;
}
