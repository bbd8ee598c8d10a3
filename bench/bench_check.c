/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_check: --check-params on bellperson parameter files, the batched
 * subgroup check (pl_bp_params_check_points, formats/bp_check.c) against
 * every point checked on its own with blst's exact test (what the check
 * did before issue 26, there on one thread), on one thread and on the
 * pool, over the same mapped file.  Not part of `make test`
 * (bench/check_params.sh builds the files and runs it).
 *
 *   bench_check FILE.params|FILE.zkey ...
 *   BENCH_THREADS=k    the pool (default: one per core)
 *   BENCH_ALONE_1=0    skip the one-thread point-by-point baseline (it is
 *                      the slowest: ~5 minutes of CPU at 2^20)
 *   BENCH_ALONE=0      skip both point-by-point baselines (the batched
 *                      check only)
 *
 * A .zkey among the files (told by its name) is checked the same ways
 * through pl__zkey_check_points (formats/zkey.c over point_check.c): the
 * old check, every point alone on one thread (what pl_zkey_check_points
 * did before the shared checker), against the batched check on one
 * thread and on the pool, with the ratios of wall and CPU time against
 * the old one (zkey_wall_speedup_vs_old, zkey_cpu_speedup_vs_old).
 *
 * Output: key=value lines per file and mode: the points, wall and process
 * CPU seconds (on a shared machine only CPU time means much), CPU
 * nanoseconds a point (batched on one thread: also a G1 and a G2 point's,
 * split where the G1 stage ends), and the ratios of CPU time against the
 * one-thread baseline and of wall time against the point-by-point check
 * on the same pool.  Every mode must pass the file, else it exits 1.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "util/pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    double wall, cpu;
    double g1_cpu; /* batched: the CPU time when the G1 points were done */
} timing;

/* The end of the batched G1 stage, in process CPU time since t0. */
static void on_progress(void *user, const char *stage, uint64_t done,
                        uint64_t total)
{
    timing *t = user;
    if (done == total && strcmp(stage, "G1 points") == 0)
        t->g1_cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

/* One mode on p; exits 1 when the file does not pass. */
static timing run(const pl_bp_params *p, pl__pool *pool, bool batched)
{
    pl_error err = {0};
    timing t = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID),
                0};
    const double cpu0 = t.cpu;
    pl_bp_check_config cfg = {.on_progress = on_progress,
                              .on_progress_user = &t};
    pl_status st = batched ? pl__bp_params_check_points(p, pool, &cfg, &err)
                           : pl__bp_params_check_points_alone(p, pool, &err);
    t.wall = clock_s(CLOCK_MONOTONIC) - t.wall;
    t.cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t.cpu;
    t.g1_cpu = t.g1_cpu ? t.g1_cpu - cpu0 : 0;
    if (st != PL_OK) {
        fprintf(stderr, "bench_check: %s\n", err.msg);
        exit(1);
    }
    return t;
}

/* The zkey check in one mode; exits 1 when the file does not pass. */
static timing run_zkey(const pl_zkey *z, pl__pool *pool, bool alone)
{
    pl_error err = {0};
    timing t = {clock_s(CLOCK_MONOTONIC), clock_s(CLOCK_PROCESS_CPUTIME_ID),
                0};
    pl_status st = pl__zkey_check_points(z, pool, NULL, alone, &err);
    t.wall = clock_s(CLOCK_MONOTONIC) - t.wall;
    t.cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - t.cpu;
    if (st != PL_OK) {
        fprintf(stderr, "bench_check: %s\n", err.msg);
        exit(1);
    }
    return t;
}

/* A zkey: the old per-point loop on one thread against the batched
 * check on one thread and on the pool. */
static int bench_zkey(const char *path, pl__pool *one, pl__pool *pool,
                      unsigned threads)
{
    pl_error err = {0};
    pl_zkey *z = NULL;
    if (pl_zkey_open(&z, path, &err)) {
        fprintf(stderr, "bench_check: %s\n", err.msg);
        return 1;
    }
    pl_zkey_info in;
    pl_zkey_get_info(z, &in);
    const uint64_t g1 = (uint64_t)in.n_public + 1 + 3ull * in.n_vars -
                        in.n_public - 1 + in.domain_size;
    const double points = (double)g1 + in.n_vars;
    printf("file=%s curve=%s g1_points=%llu g2_points=%u threads=%u\n", path,
           pl_zkey_curve(z) == PL_CURVE_BN254 ? "bn254" : "bls12-381",
           (unsigned long long)g1, in.n_vars, threads);
    (void)run_zkey(z, pool, false); /* the pages read once */
    const timing old = run_zkey(z, one, true);
    const timing b1 = run_zkey(z, one, false);
    const timing bt = run_zkey(z, pool, false);
    printf("mode=zkey_alone threads=1 wall_s=%.2f cpu_s=%.2f "
           "cpu_ns_per_point=%.0f\n", old.wall, old.cpu,
           old.cpu / points * 1e9);
    printf("mode=zkey_batch threads=1 wall_s=%.2f cpu_s=%.2f "
           "cpu_ns_per_point=%.0f zkey_cpu_speedup_vs_old=%.2f\n", b1.wall,
           b1.cpu, b1.cpu / points * 1e9, old.cpu / b1.cpu);
    printf("mode=zkey_batch threads=%u wall_s=%.2f cpu_s=%.2f "
           "cpu_ns_per_point=%.0f zkey_wall_speedup_vs_old=%.2f "
           "zkey_cpu_speedup_vs_old=%.2f\n", threads, bt.wall, bt.cpu,
           bt.cpu / points * 1e9, old.wall / bt.wall, old.cpu / bt.cpu);
    fflush(stdout);
    pl_zkey_close(z);
    return 0;
}

int main(int argc, char **argv)
{
    const char *env = getenv("BENCH_THREADS");
    const unsigned threads = pl__pool_threads_for(env ? (unsigned)atoi(env)
                                                      : 0);
    const char *a1 = getenv("BENCH_ALONE_1");
    const char *a = getenv("BENCH_ALONE");
    const bool alone = !a || strcmp(a, "0") != 0;
    const bool alone_1 = alone && (!a1 || strcmp(a1, "0") != 0);
    pl__pool *one = NULL, *pool = NULL;
    pl_error err = {0};
    if (argc < 2) {
        fprintf(stderr, "usage: bench_check FILE.params|FILE.zkey ...\n");
        return 2;
    }
    if (pl__pool_create(&one, 1, "pl-bench", &err) ||
        pl__pool_create(&pool, threads, "pl-bench", &err)) {
        fprintf(stderr, "bench_check: %s\n", err.msg);
        return 1;
    }
    for (int f = 1; f < argc; f++) {
        size_t n = strlen(argv[f]);
        if (n > 5 && strcmp(argv[f] + n - 5, ".zkey") == 0) {
            if (bench_zkey(argv[f], one, pool, threads))
                return 1;
            continue;
        }
        pl_bp_params *p = NULL;
        if (pl_bp_params_open(&p, argv[f], &err)) {
            fprintf(stderr, "bench_check: %s\n", err.msg);
            return 1;
        }
        pl_bp_info in;
        pl_bp_params_get_info(p, &in);
        const double points = (double)in.n_h + in.n_l + in.n_a + in.n_b_g1 +
                              in.n_b_g2;
        printf("file=%s bytes=%llu g1_points=%llu g2_points=%u threads=%u\n",
               argv[f], (unsigned long long)in.file_bytes,
               (unsigned long long)in.n_h + in.n_l + in.n_a + in.n_b_g1,
               in.n_b_g2, threads);
        /* the file's pages read once before any timing */
        timing warm = run(p, pool, true);
        (void)warm;
        timing base = {0, 0, 0};
        if (alone_1) {
            base = run(p, one, false);
            printf("mode=alone threads=1 wall_s=%.2f cpu_s=%.2f "
                   "cpu_ns_per_point=%.0f\n", base.wall, base.cpu,
                   base.cpu / points * 1e9);
        }
        timing b1 = run(p, one, true);
        timing at = alone ? run(p, pool, false) : (timing){0, 0, 0};
        timing bt = run(p, pool, true);
        const double g1 = (double)in.n_h + in.n_l + in.n_a + in.n_b_g1;
        printf("mode=batch threads=1 wall_s=%.2f cpu_s=%.2f "
               "cpu_ns_per_point=%.0f cpu_ns_per_g1_point=%.0f "
               "cpu_ns_per_g2_point=%.0f%s", b1.wall, b1.cpu,
               b1.cpu / points * 1e9, b1.g1_cpu / g1 * 1e9,
               (b1.cpu - b1.g1_cpu) / in.n_b_g2 * 1e9, alone_1 ? "" : "\n");
        if (alone_1)
            printf(" cpu_speedup_vs_alone_1=%.2f\n", base.cpu / b1.cpu);
        if (alone)
            printf("mode=alone threads=%u wall_s=%.2f cpu_s=%.2f "
                   "cpu_ns_per_point=%.0f\n", threads, at.wall, at.cpu,
                   at.cpu / points * 1e9);
        printf("mode=batch threads=%u wall_s=%.2f cpu_s=%.2f "
               "cpu_ns_per_point=%.0f", threads, bt.wall, bt.cpu,
               bt.cpu / points * 1e9);
        if (alone)
            printf(" wall_speedup_vs_alone=%.2f cpu_speedup_vs_alone=%.2f",
                   at.wall / bt.wall, at.cpu / bt.cpu);
        printf("\n");
        fflush(stdout);
        pl_bp_params_close(p);
    }
    pl__pool_destroy(pool);
    pl__pool_destroy(one);
    return 0;
}
