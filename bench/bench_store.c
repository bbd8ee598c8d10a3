/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job store's claim throughput (bench/store_claims.sh runs it): N
 * worker processes, each with its own connection to one store, claim,
 * heartbeat and complete partitions with no proving between, until the
 * queue is empty.  Prints key=value lines: claims per second, the p50 and
 * p99 latency of one claim, and whether every partition completed exactly
 * once (the run is void otherwise).
 *
 *     bench_store LOCATOR [WORKERS [PARTITIONS]]
 *
 * LOCATOR is a folder (SQLite) or a postgres:// URI, of a new store: the
 * queue is filled first (not timed), with jobs of 20 partitions.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "store/store.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER_JOB 20

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int die(const char *what, const pl_error *err)
{
    fprintf(stderr, "bench_store: %s: %s\n", what, err->msg);
    return 2;
}

/* What the workers share: one latency slot per claim. */
typedef struct shared {
    atomic_size_t next;
    double latency_ms[];
} shared;

static int worker(const char *locator, int id, shared *sh, size_t cap)
{
    pl_error err = {0};
    pl__store *s = NULL;
    if (pl__store_open(&s, locator, &err) != PL_OK)
        return die("open", &err);
    char owner[32];
    snprintf(owner, sizeof(owner), "bench-%d", id);
    for (;;) {
        pl__store_claim c;
        bool found = false;
        double t0 = now_s();
        if (pl__store_claim_next(s, owner, UINT64_MAX, 60000, &c, &found,
                                 &err) != PL_OK)
            return die("claim", &err);
        double t1 = now_s();
        if (!found)
            break;
        size_t slot = atomic_fetch_add(&sh->next, 1);
        if (slot < cap)
            sh->latency_ms[slot] = (t1 - t0) * 1e3;
        if (pl__store_heartbeat(s, owner, 60000, &err) != PL_OK)
            return die("heartbeat", &err);
        if (pl__store_complete(s, c.part.job_id, c.part.index, owner,
                               c.part.fence, "/bench/proof.json",
                               &err) != PL_OK)
            return die("complete", &err);
    }
    pl__store_close(s);
    return 0;
}

typedef struct check {
    pl__store *s;
    uint64_t partitions, once;
    bool ok;
} check;

static bool check_job(void *user, const pl__store_job *job)
{
    check *c = user;
    pl__store_partition parts[PER_JOB];
    size_t count = 0;
    pl_error err = {0};
    if (pl__store_partitions(c->s, job->id, parts, PER_JOB, &count, &err) !=
        PL_OK) {
        c->ok = false;
        return false;
    }
    for (size_t k = 0; k < count && k < PER_JOB; k++) {
        c->partitions++;
        c->once += parts[k].state == PL__PART_DONE &&
                   parts[k].completions == 1 && parts[k].attempts == 1;
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_store LOCATOR [WORKERS [PARTITIONS]]\n");
        return 2;
    }
    const char *locator = argv[1];
    int workers = argc > 2 ? atoi(argv[2]) : 4;
    size_t total = argc > 3 ? (size_t)atol(argv[3]) : 2000;
    if (workers < 1 || workers > 256 || total < PER_JOB) {
        fprintf(stderr, "bench_store: 1..256 workers, at least %d "
                        "partitions\n", PER_JOB);
        return 2;
    }
    size_t jobs = total / PER_JOB;
    total = jobs * PER_JOB;

    pl_error err = {0};
    pl__store *s = NULL;
    if (pl__store_open(&s, locator, &err) != PL_OK)
        return die("open", &err);
    pl__store_circuit circ = {.zkey_bytes = 1, .n_constraints = 1,
                              .n_vars = 1, .witness_bytes = 1,
                              .partition_bytes = 1};
    memset(circ.id, 'b', PL__STORE_ID_LEN);
    snprintf(circ.zkey_path, sizeof(circ.zkey_path), "/bench/circuit.zkey");
    if (pl__store_circuit_put(s, &circ, &err) != PL_OK)
        return die("circuit", &err);
    for (size_t j = 0; j < jobs; j++) {
        pl__store_job job;
        if (pl__store_job_create(s, circ.id, (pl__priority)(j % 3), PER_JOB,
                                 &job, &err) != PL_OK)
            return die("job", &err);
        for (uint32_t k = 0; k < PER_JOB; k++)
            if (pl__store_witness_stored(s, job.id, k, "/bench/w.wtns", NULL,
                                         &err) != PL_OK)
                return die("witness", &err);
    }
    pl__store_close(s);

    size_t bytes = sizeof(shared) + total * sizeof(double);
    shared *sh = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("bench_store: mmap");
        return 2;
    }
    atomic_init(&sh->next, 0);
    double t0 = now_s();
    pid_t *pids = calloc((size_t)workers, sizeof(*pids));
    for (int i = 0; i < workers; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            _exit(worker(locator, i, sh, total));
    }
    int failed = 0;
    for (int i = 0; i < workers; i++) {
        int status = 0;
        if (pids[i] <= 0 || waitpid(pids[i], &status, 0) != pids[i] ||
            !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    double seconds = now_s() - t0;
    size_t claims = atomic_load(&sh->next);
    if (claims > total)
        claims = total;
    qsort(sh->latency_ms, claims, sizeof(double), cmp_double);

    check c = {.ok = true};
    if (pl__store_open(&c.s, locator, &err) != PL_OK)
        return die("open", &err);
    if (pl__store_job_list(c.s, -1, 0, check_job, &c, &err) != PL_OK)
        return die("check", &err);
    pl__store_close(c.s);
    bool once = c.ok && !failed && c.partitions == total && c.once == total;

    printf("store=%s\n", strstr(locator, "://") ? "postgres" : "sqlite");
    printf("workers=%d\n", workers);
    printf("claims=%zu\n", claims);
    printf("seconds=%.3f\n", seconds);
    printf("claims_per_s=%.0f\n", (double)claims / seconds);
    if (claims) {
        printf("claim_p50_ms=%.2f\n", sh->latency_ms[claims / 2]);
        printf("claim_p99_ms=%.2f\n", sh->latency_ms[(claims * 99) / 100]);
    }
    printf("each_completed_once=%d\n", once ? 1 : 0);
    free(pids);
    munmap(sh, bytes);
    return once ? 0 : 1;
}
