/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine: bounded hand-off, byte budget, ordering, failure, cancel and
 * allocation failures, on the committed circom vectors.  A slow fake
 * backend (start sleeps, then proves with the CPU backend) makes the
 * synthesis workers outrun the prover, as a GPU queue would in the story.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "engine/engine.h"
#include "util/alloc.h"

#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

/* ---- helpers ----------------------------------------------------------- */

typedef struct {
    pthread_mutex_t lock;
    size_t n;
    uint64_t job[64];
    size_t part[64];
} delivery_log;

static void on_proof(void *user, uint64_t job, size_t partition,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public)
{
    delivery_log *log = user;
    pthread_mutex_lock(&log->lock);
    if (log->n < 64) {
        log->job[log->n] = job;
        log->part[log->n] = partition;
        log->n++;
    }
    pthread_mutex_unlock(&log->lock);
}

static const char *wtns_path(const char *vector)
{
    static _Thread_local char paths[4][256]; /* tests run engines in threads */
    static _Thread_local int slot;
    char *p = paths[slot++ % 4];
    snprintf(p, 256, "%s/%s/witness.wtns", PL_TEST_VECTORS, vector);
    return p;
}

static const char *zkey_path(const char *vector)
{
    static _Thread_local char path[256];
    snprintf(path, sizeof(path), "%s/%s/circuit.zkey", PL_TEST_VECTORS, vector);
    return path;
}

static pl_engine *engine_with(uint64_t budget, unsigned pw, unsigned workers,
                              const pl__backend_ops *backend)
{
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = budget;
    cfg.synth_workers = pw;
    cfg.prover_workers = workers;
    cfg.threads = 2;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg, backend ? backend
                                            : &pl__backend_cpu, NULL, &err),
             &err);
    return e;
}

static void destroy_balanced(pl_engine *e)
{
    pl_error err = {0};
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

static uint64_t submit_copies(pl_engine *e, pl_circuit *c, const char *vector,
                              size_t n, delivery_log *log, int priority)
{
    const char *paths[64];
    for (size_t i = 0; i < n; i++)
        paths[i] = wtns_path(vector);
    pl_job_spec spec = {.circuit = c, .n_partitions = n,
                        .witness_paths = paths, .verify = true,
                        .priority = priority, .on_proof = on_proof,
                        .on_proof_user = log};
    uint64_t id;
    pl_error err = {0};
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    return id;
}

/* ---- tests ------------------------------------------------------------- */

PL_TEST(real_batch_of_six_verifies)
{
    pl_engine *e = engine_with(0, 2, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t id = submit_copies(e, c, "chain10", 6, &log, 0);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, 6);
    CHECK_EQ(js.verified, 6);
    CHECK_EQ(log.n, 6);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK(st.peak_reserved_bytes <= st.budget_bytes);
    uint64_t resident;
    pl_circuit_plan(c, 0, NULL, &resident);
    CHECK_EQ(st.reserved_bytes, resident); /* only the circuit is left */
    pl_circuit_release(c);
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.reserved_bytes, 0);
    destroy_balanced(e);
}

/* The story: synthesis outruns a one-slot prover.  Partitions do wait (the
 * story's condition happens: more are synthesized than the hand-off
 * holds), and the waiting stay within the hand-off slots plus the
 * synthesis workers, and reserved bytes within the budget. */
PL_TEST(slow_prover_bounds_waiting_partitions)
{
    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 40);
    pl_engine *e = engine_with(0, 4, 1, &slow);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t id = submit_copies(e, c, "chain10", 12, &log, 0);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, 12);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    printf("peaks: waiting %llu proving %llu finishing %llu; reserved %llu of "
           "%llu\n", (unsigned long long)st.stage_peak[PL_STAGE_WAITING],
           (unsigned long long)st.stage_peak[PL_STAGE_PROVING],
           (unsigned long long)st.stage_peak[PL_STAGE_FINISHING],
           (unsigned long long)st.peak_reserved_bytes,
           (unsigned long long)st.budget_bytes);
    /* handoff_slots defaults to the prover workers (1); pw = 4.  While
     * one proof takes 40 ms, the four workers synthesize chain10 in well
     * under a millisecond each: at least one finds the slot taken. */
    CHECK(st.stage_peak[PL_STAGE_WAITING] >= 2);
    if (st.stage_peak[PL_STAGE_WAITING] > 1 + 4)
        pl_test_fail(__FILE__, __LINE__, "waiting peaked at %llu",
                     (unsigned long long)st.stage_peak[PL_STAGE_WAITING]);
    CHECK(st.stage_peak[PL_STAGE_PROVING] <= 1);
    CHECK(st.peak_reserved_bytes <= st.budget_bytes);
    pl_circuit_release(c);
    destroy_balanced(e);
}

/* A budget that fits the circuit and exactly one partition: everything
 * serializes and nothing deadlocks. */
PL_TEST(budget_of_one_partition_serializes)
{
    /* learn the sizes with a roomy engine first */
    pl_engine *probe = engine_with(0, 1, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(probe, &c, zkey_path("chain10"), NULL,
                                    &err), &err);
    uint64_t part, resident;
    FILE *f = fopen(wtns_path("chain10"), "rb");
    CHECK(f);
    fseek(f, 0, SEEK_END);
    uint64_t wbytes = (uint64_t)ftell(f);
    fclose(f);
    pl_circuit_plan(c, wbytes, &part, &resident);
    pl_circuit_release(c);
    destroy_balanced(probe);

    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 40);
    pl_engine *e = engine_with(resident + part, 4, 2, &slow);
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t id = submit_copies(e, c, "chain10", 5, &log, 0);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, 5);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.peak_reserved_bytes, resident + part);
    /* what was really allocated never went past the budget either */
    if (st.peak_tracked_bytes > st.budget_bytes)
        pl_test_fail(__FILE__, __LINE__, "tracked peak %llu > budget %llu",
                     (unsigned long long)st.peak_tracked_bytes,
                     (unsigned long long)st.budget_bytes);
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        CHECK(st.stage_peak[s] <= 1);
    pl_circuit_release(c);
    destroy_balanced(e);
}

/* committed_bytes: reserved plus the planned bytes of what was submitted
 * and not admitted yet, so it says what the engine has promised while a
 * budget of one partition keeps the others waiting. */
PL_TEST(committed_bytes_count_unadmitted_partitions)
{
    pl_engine *probe = engine_with(0, 1, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(probe, &c, zkey_path("chain10"), NULL,
                                    &err), &err);
    struct stat sb;
    CHECK(stat(wtns_path("chain10"), &sb) == 0);
    uint64_t part, resident;
    pl_circuit_plan(c, (uint64_t)sb.st_size, &part, &resident);
    pl_circuit_release(c);
    destroy_balanced(probe);

    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 40);
    pl_engine *e = engine_with(resident + part, 2, 1, &slow);
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.committed_bytes, resident);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t id = submit_copies(e, c, "chain10", 5, &log, 0);
    for (int round = 0; round < 4; round++) {
        pl_job_status before, after;
        CHECK_OK(pl_engine_poll(e, id, &before, &err), &err);
        pl_engine_stats_read(e, &st);
        CHECK_OK(pl_engine_poll(e, id, &after, &err), &err);
        /* what is reserved (the circuit, the partition admitted, what
         * those in flight still hold), plus every partition not admitted
         * yet at its planned bytes: the budget holds one partition, so at
         * most two are past admission and unproved (one admitted, one
         * giving its shares back) */
        CHECK(st.committed_bytes >= st.reserved_bytes);
        CHECK(st.reserved_bytes >= resident);
        uint64_t planned = st.committed_bytes - st.reserved_bytes;
        if (planned % part != 0 || planned / part > 5 - before.proved ||
            planned / part + 2 < 5 - after.proved)
            pl_test_fail(__FILE__, __LINE__, "committed %llu, reserved %llu: "
                         "not %zu to %zu partitions of %llu planned",
                         (unsigned long long)st.committed_bytes,
                         (unsigned long long)st.reserved_bytes,
                         5 - after.proved >= 2 ? 5 - after.proved - 2 : 0,
                         5 - before.proved, (unsigned long long)part);
        struct timespec ts = {0, 30 * 1000000L};
        nanosleep(&ts, NULL);
    }
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_EQ(js.proved, 5);
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.committed_bytes, resident);
    /* a cancelled job promises nothing more */
    id = submit_copies(e, c, "chain10", 5, &log, 0);
    CHECK_OK(pl_engine_cancel(e, id, &err), &err);
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.committed_bytes, resident);
    pl_circuit_release(c);
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.committed_bytes, 0);
    destroy_balanced(e);
}

PL_TEST(partition_too_big_fails_at_submission)
{
    pl_engine *probe = engine_with(0, 1, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(probe, &c, zkey_path("chain10"), NULL,
                                    &err), &err);
    uint64_t part, resident;
    pl_circuit_plan(c, 0, &part, &resident);
    pl_circuit_release(c);
    destroy_balanced(probe);

    pl_engine *e = engine_with(resident + part / 2, 1, 1, NULL);
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    const char *paths[2] = {wtns_path("chain10"), wtns_path("chain10")};
    pl_job_spec spec = {.circuit = c, .n_partitions = 2,
                        .witness_paths = paths};
    uint64_t id;
    CHECK_STATUS(pl_engine_submit(e, &id, &spec, &err), PL_EBUDGET, &err);
    CHECK(strstr(err.msg, "smallest budget that works") != NULL);
    pl_circuit_release(c);
    destroy_balanced(e);
}

PL_TEST(failing_partition_fails_only_its_job)
{
    pl_engine *e = engine_with(0, 2, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    char r1cs[256];
    snprintf(r1cs, sizeof(r1cs), "%s/multiplier/circuit.r1cs", PL_TEST_VECTORS);
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("multiplier"), r1cs, &err),
             &err);
    char unsat[256];
    snprintf(unsat, sizeof(unsat), "%s/bad/unsat.wtns", PL_TEST_VECTORS);
    const char *bad_job[4] = {wtns_path("multiplier"), unsat,
                              wtns_path("multiplier"), wtns_path("multiplier")};
    pl_job_spec spec = {.circuit = c, .n_partitions = 4,
                        .witness_paths = bad_job, .check_witness = true,
                        .verify = true};
    uint64_t bad, good;
    CHECK_OK(pl_engine_submit(e, &bad, &spec, &err), &err);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    good = submit_copies(e, c, "multiplier", 3, &log, 0);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, bad, &js, &err), &err);
    CHECK_EQ(js.status, PL_EUNSAT);
    CHECK(strstr(js.error.msg, "unsat.wtns") != NULL);
    CHECK_EQ(js.failed, 1);
    CHECK_EQ(js.proved + js.failed + js.skipped, 4);
    CHECK_OK(pl_engine_wait(e, good, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, 3);
    pl_circuit_release(c);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.reserved_bytes, 0);
    destroy_balanced(e);
}

/* A proof that does not verify is blamed on the witness while the key on
 * disk still holds the bytes the circuit read; once the file holds other
 * bytes (a key rewritten after it was read, or read while being
 * rewritten), on the key: PL_EIO naming it. */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    CHECK(in && out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        CHECK_EQ(fwrite(buf, 1, n, out), n);
    fclose(in);
    CHECK_EQ(fclose(out), 0);
}

PL_TEST(unverified_proof_blames_a_key_changed_on_disk)
{
    pl_error err = {0};
    char key[512], unsat[256];
    snprintf(key, sizeof(key), "%s", pl_test_tmp("changing.zkey"));
    snprintf(unsat, sizeof(unsat), "%s/bad/unsat.wtns", PL_TEST_VECTORS);
    for (int changed = 0; changed < 2; changed++) {
        copy_file(zkey_path("multiplier"), key);
        pl_engine *e = engine_with(0, 1, 1, NULL);
        pl_circuit *c;
        CHECK_OK(pl_engine_open_circuit(e, &c, key, NULL, &err), &err);
        if (changed) /* another circuit's key, after it was read */
            copy_file(zkey_path("chain10"), key);
        const char *paths[1] = {unsat};
        pl_job_spec spec = {.circuit = c, .n_partitions = 1,
                            .witness_paths = paths, .verify = true};
        uint64_t job;
        pl_job_status js;
        CHECK_OK(pl_engine_submit(e, &job, &spec, &err), &err);
        CHECK_OK(pl_engine_wait(e, job, &js, &err), &err);
        if (changed) {
            CHECK_EQ(js.status, PL_EIO);
            CHECK(strstr(js.error.msg, "changed on disk") != NULL);
            CHECK(strstr(js.error.msg, "changing.zkey") != NULL);
        } else {
            CHECK_EQ(js.status, PL_EINVALID);
            CHECK(strstr(js.error.msg, "unsat.wtns") != NULL);
        }
        pl_circuit_release(c);
        destroy_balanced(e);
    }
}

/* --check-params through the engine: a key with a point off the curve is
 * refused when it is opened checked (naming the section, the point and
 * the offset), with nothing left reserved; opened unchecked it opens.  A
 * good key opened checked proves; an unchecked open shares a checked
 * circuit, a checked open does not share an unchecked one. */
PL_TEST(open_checked_refuses_a_bad_key)
{
    pl_error err = {0};
    char bad[512];
    snprintf(bad, sizeof(bad), "%s", pl_test_tmp("badpoint.zkey"));
    size_t len;
    uint8_t *b = pl_test_read_file(zkey_path("chain10"), &len);
    const size_t h = pl_test_section_payload(b, len, 9);
    size_t k = 7;
    static const uint8_t zero[96];
    while (memcmp(b + h + k * 96, zero, 96) == 0)
        k++;
    b[h + k * 96] ^= 1; /* the low bit of x: off the curve */
    pl_test_write_file(bad, b, len);
    free(b);
    pl_engine *e = engine_with(0, 1, 1, NULL);
    pl_circuit *c = NULL, *c2 = NULL;
    CHECK_STATUS(pl_engine_open_circuit_checked(e, &c, bad, NULL, true,
                                                &err),
                 PL_EFORMAT, &err);
    char want[160];
    snprintf(want, sizeof(want), "section 9 (H points): point %zu is not "
             "on the curve (at byte offset %zu)", k, h + k * 96);
    CHECK(strstr(err.msg, want) != NULL);
    CHECK(strstr(err.msg, "badpoint.zkey") != NULL);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.reserved_bytes, 0);
    CHECK_OK(pl_engine_open_circuit(e, &c, bad, NULL, &err), &err);
    pl_circuit_release(c);

    CHECK_OK(pl_engine_open_circuit_checked(e, &c, zkey_path("chain10"),
                                            NULL, true, &err),
             &err);
    CHECK_OK(pl_engine_open_circuit(e, &c2, zkey_path("chain10"), NULL,
                                    &err),
             &err);
    CHECK(c2 == c);
    pl_circuit_release(c2);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t id = submit_copies(e, c, "chain10", 1, &log, 0);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.verified, 1);
    pl_circuit_release(c);
    destroy_balanced(e);

    e = engine_with(0, 1, 1, NULL);
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL,
                                    &err),
             &err);
    CHECK_OK(pl_engine_open_circuit_checked(e, &c2, zkey_path("chain10"),
                                            NULL, true, &err),
             &err);
    CHECK(c2 != c);
    pl_circuit_release(c2);
    pl_circuit_release(c);
    destroy_balanced(e);
}

PL_TEST(cancel_mid_job_returns_every_byte)
{
    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 40);
    pl_engine *e = engine_with(0, 2, 1, &slow);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t id = submit_copies(e, c, "chain10", 10, &log, 0);
    pl_job_status js;
    do { /* until the first proof is out */
        struct timespec ts = {0, 5000000L};
        nanosleep(&ts, NULL);
        CHECK_OK(pl_engine_poll(e, id, &js, &err), &err);
    } while (js.proved == 0);
    CHECK_OK(pl_engine_cancel(e, id, &err), &err);
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_EQ(js.status, PL_ECANCELLED);
    CHECK(js.proved < 10);
    CHECK_EQ(js.proved + js.failed + js.skipped, 10);
    pl_circuit_release(c);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.reserved_bytes, 0);
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        CHECK_EQ(st.stage_now[s], 0);
    destroy_balanced(e);
}

PL_TEST(jobs_are_admitted_in_order)
{
    /* one synthesis worker, one prover: completion order = admission order */
    pl_engine *e = engine_with(0, 1, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("multiplier"), NULL, &err),
             &err);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t first = submit_copies(e, c, "multiplier", 4, &log, 0);
    uint64_t second = submit_copies(e, c, "multiplier", 4, &log, 0);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, second, &js, &err), &err);
    CHECK_OK(pl_engine_wait(e, first, &js, &err), &err);
    CHECK_EQ(log.n, 8);
    for (size_t i = 0; i < 8; i++) {
        CHECK_EQ(log.job[i], i < 4 ? first : second);
        CHECK_EQ(log.part[i], i % 4);
    }
    pl_circuit_release(c);
    destroy_balanced(e);
}

PL_TEST(in_memory_witnesses)
{
    pl_engine *e = engine_with(0, 2, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    pl_wtns *w;
    CHECK_OK(pl_wtns_open(&w, wtns_path("chain10"), &err), &err);
    const pl_scalar *values[3] = {pl_wtns_values(w), pl_wtns_values(w),
                                  pl_wtns_values(w)};
    pl_job_spec spec = {.circuit = c, .n_partitions = 3, .witnesses = values,
                        .verify = true};
    uint64_t id;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.verified, 3);
    pl_wtns_close(w);
    pl_circuit_release(c);
    destroy_balanced(e);
}

/* Fail the k-th accounted allocation of a whole batch, for every k. */
PL_TEST(allocation_failures_in_a_batch_leak_nothing)
{
    pl_error err = {0};
    uint64_t total = 0;
    for (uint64_t k = 0; k <= total; k++) {
        pl__alloc_fail_at(0);
        pl_engine *e = engine_with(0, 1, 1, NULL);
        pl__alloc_fail_at(k); /* k = 0: learn the count */
        pl_circuit *c;
        pl_status st = pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL,
                                              &err);
        if (st == PL_OK) {
            delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
            const char *paths[3] = {wtns_path("chain10"), wtns_path("chain10"),
                                    wtns_path("chain10")};
            pl_job_spec spec = {.circuit = c, .n_partitions = 3,
                                .witness_paths = paths, .verify = true,
                                .on_proof = on_proof, .on_proof_user = &log};
            uint64_t id;
            CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
            pl_job_status js;
            CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
            st = js.status;
            pl_circuit_release(c);
        }
        uint64_t made = pl__alloc_fail_at(0);
        if (k == 0) {
            CHECK_OK(st, &err);
            total = made;
            CHECK(total >= 10);
            printf("a batch of 3 makes %llu accounted allocations\n",
                   (unsigned long long)total);
        } else if (st != PL_ENOMEM) {
            pl_test_fail(__FILE__, __LINE__, "failing allocation %llu of %llu "
                         "gave %s", (unsigned long long)k,
                         (unsigned long long)total, pl_strerror(st));
        }
        destroy_balanced(e);
    }
}

/* Witnesses computed by a callback on the synthesis workers, into accounted
 * buffers the engine reserves (here: copies of a file's values). */
static pl_status copy_witness(void *user, size_t partition, pl_scalar *out,
                              size_t n, pl_error *err)
{
    const pl_wtns *w = user;
    if (n != pl_wtns_count(w))
        return PL_EINTERNAL;
    memcpy(out, pl_wtns_values(w), n * sizeof(pl_scalar));
    return PL_OK;
}

PL_TEST(generated_witnesses)
{
    pl_engine *e = engine_with(0, 2, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    pl_wtns *w;
    CHECK_OK(pl_wtns_open(&w, wtns_path("chain10"), &err), &err);
    pl_job_spec spec = {.circuit = c, .n_partitions = 4,
                        .generate = copy_witness, .generate_user = w,
                        .verify = true};
    uint64_t id;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.verified, 4);
    /* the four generated ones, beside the test's own (read whole) */
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.classes[PL_BUF_WITNESS].total_allocs, 1 + 4);
    CHECK_EQ(st.classes[PL_BUF_WITNESS].live_count, 1);
    pl_wtns_close(w);
    pl_circuit_release(c);
    destroy_balanced(e);
}

/* An event hook that sleeps at every hand-off: it runs between a synthesis
 * worker's claim of a hand-off slot and its push, which widens the window
 * in which a destroy can find a claimed slot and an empty queue. */
static void sleep_at_handoff(void *user, const pl_ledger_record *r)
{
    if (r->event == PL_EV_HANDED_OFF) {
        struct timespec ts = {0, 3 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Destroy (and sometimes cancel first) at random moments of a running
 * batch: every time, destroy succeeds and every class is back to zero, so
 * no partition is left in a queue that nobody drains. */
PL_TEST(destroy_at_random_moments_leaves_nothing)
{
    uint64_t rng = 0x5eed;
    for (int round = 0; round < 24; round++) {
        uint64_t r;
        pl_test_random_bytes(&rng, &r, sizeof(r));
        pl_engine_config cfg;
        pl_engine_config_init(&cfg);
        cfg.synth_workers = 2 + (unsigned)(r % 3);
        cfg.prover_workers = 1 + (unsigned)((r >> 8) % 2);
        cfg.threads = 2;
        cfg.on_event = sleep_at_handoff;
        pl_engine *e;
        pl_error err = {0};
        CHECK_OK(pl__engine_create_with_backend(&e, &cfg, &pl__backend_cpu,
                                                NULL, &err), &err);
        pl_circuit *c;
        CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL,
                                        &err), &err);
        delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
        uint64_t id = submit_copies(e, c, "chain10", 8, &log, 0);
        struct timespec ts = {0, (long)((r >> 16) % 25) * 1000000L};
        nanosleep(&ts, NULL);
        if ((r >> 32) % 3 == 0)
            CHECK_OK(pl_engine_cancel(e, id, &err), &err);
        CHECK_OK(pl_engine_destroy(e, &err), &err);
        CHECK(pl_alloc_all_freed(&err));
    }
}

typedef struct {
    pl_engine *engine;
    pthread_barrier_t *start;
    const char *path;
    pl_circuit *circuit;
    pl_status status;
} opener;

static void *open_after_barrier(void *arg)
{
    opener *o = arg;
    pl_error err = {0};
    pthread_barrier_wait(o->start);
    o->status = pl_engine_open_circuit(o->engine, &o->circuit, o->path, NULL,
                                       &err);
    return NULL;
}

/* Two threads open the same zkey at once. */
static void open_twice_at_once(pl_engine *e, const char *path, opener o[2])
{
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, 2);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        o[i] = (opener){e, &start, path, NULL, PL_OK};
        CHECK_EQ(pthread_create(&t[i], NULL, open_after_barrier, &o[i]), 0);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
}

/* Both get the one circuit, and its resident bytes are reserved once (the
 * second open waits for the first instead of building it again). */
PL_TEST(concurrent_opens_share_one_circuit)
{
    char path[512];
    snprintf(path, sizeof(path), "%s", zkey_path("chain10"));
    for (int round = 0; round < 20; round++) {
        pl_engine *e = engine_with(0, 1, 1, NULL);
        opener o[2];
        open_twice_at_once(e, path, o);
        CHECK_EQ(o[0].status, PL_OK);
        CHECK_EQ(o[1].status, PL_OK);
        CHECK(o[0].circuit == o[1].circuit);
        uint64_t resident;
        pl_circuit_plan(o[0].circuit, 0, NULL, &resident);
        pl_engine_stats st;
        pl_engine_stats_read(e, &st);
        CHECK_EQ(st.reserved_bytes, resident);
        pl_circuit_release(o[0].circuit);
        pl_circuit_release(o[1].circuit);
        destroy_balanced(e);
    }
}

/* An open that fails fails every open waiting on it, and leaves nothing. */
PL_TEST(failed_open_fails_every_opener)
{
    char path[512];
    snprintf(path, sizeof(path), "%s", pl_test_tmp("absent.zkey"));
    for (int round = 0; round < 10; round++) {
        pl_engine *e = engine_with(0, 1, 1, NULL);
        opener o[2];
        open_twice_at_once(e, path, o);
        for (int i = 0; i < 2; i++) {
            CHECK_EQ(o[i].status, PL_EIO);
            CHECK(o[i].circuit == NULL);
        }
        pl_engine_stats st;
        pl_engine_stats_read(e, &st);
        CHECK_EQ(st.reserved_bytes, 0);
        destroy_balanced(e);
    }
}

/* One engine's whole life: a batch of four, then destroy. */
static void *engine_life(void *arg)
{
    pl_status *status = arg;
    pl_engine *e = engine_with(0, 2, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    delivery_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t id = submit_copies(e, c, "chain10", 4, &log, 0);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    pl_circuit_release(c);
    *status = pl_engine_destroy(e, &err);
    if (*status != PL_OK)
        printf("destroy: %s\n", err.msg);
    return NULL;
}

/* Two engines in one process, side by side: each destroy checks that
 * engine's own buffers, so the other's live ones (and a buffer held
 * outside any engine) never make it fail; the process ends at zero. */
PL_TEST(two_engines_destroy_independently)
{
    pl_error err = {0};
    void *outside = pl__alloc(PL_BUF_WITNESS, 4096, &err);
    CHECK(outside);
    for (int round = 0; round < 6; round++) {
        pthread_t t[2];
        pl_status st[2];
        for (int i = 0; i < 2; i++)
            CHECK_EQ(pthread_create(&t[i], NULL, engine_life, &st[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        CHECK_EQ(st[0], PL_OK);
        CHECK_EQ(st[1], PL_OK);
    }
    pl__free(outside);
    CHECK(pl_alloc_all_freed(&err));
}

/* A copy of chain10's witness in the scratch folder, `extra` bytes larger
 * (an unknown section, which readers skip), under `name`. */
static const char *witness_copy(const char *name, size_t extra)
{
    static _Thread_local char path[4][512];
    static _Thread_local int slot;
    char *p = path[slot++ % 4];
    snprintf(p, 512, "%s", pl_test_tmp(name));
    size_t len;
    uint8_t *bytes = pl_test_read_file(wtns_path("chain10"), &len);
    if (extra) {
        CHECK(extra >= 12);
        bytes = realloc(bytes, len + extra);
        CHECK(bytes);
        uint32_t sections;
        memcpy(&sections, bytes + 8, 4);
        pl_test_put_le32(bytes + 8, sections + 1);
        pl_test_put_le32(bytes + len, 7); /* section 7: no reader's */
        pl_test_put_le64(bytes + len + 4, extra - 12);
        memset(bytes + len + 12, 0, extra - 12);
    }
    pl_test_write_file(p, bytes, len + extra);
    free(bytes);
    return p;
}

static uint64_t file_bytes(const char *path)
{
    struct stat sb;
    CHECK_EQ(stat(path, &sb), 0);
    return (uint64_t)sb.st_size;
}

/* The edge of admission: a job whose largest partition needs, beside the
 * circuit's resident bytes, exactly the rest of the budget runs; one byte
 * less of budget and the job fails at submission, naming the smallest
 * budget that works; for the first partition alone and for a larger one
 * in the middle of a batch. */
PL_TEST(admission_at_the_budget_edge)
{
    const char *plain = witness_copy("edge_plain.wtns", 0);
    const char *larger = witness_copy("edge_larger.wtns", 64);
    const char *middle[4] = {plain, plain, larger, plain};
    const char *first[1] = {plain};
    struct {
        const char *const *paths;
        size_t n;
        const char *biggest;
    } cases[2] = {{first, 1, plain}, {middle, 4, larger}};
    for (int k = 0; k < 2; k++) {
        pl_engine *probe = engine_with(0, 1, 1, NULL);
        pl_circuit *c;
        pl_error err = {0};
        CHECK_OK(pl_engine_open_circuit(probe, &c, zkey_path("chain10"), NULL,
                                        &err), &err);
        uint64_t part, resident;
        pl_circuit_plan(c, file_bytes(cases[k].biggest), &part, &resident);
        pl_circuit_release(c);
        destroy_balanced(probe);
        uint64_t need = resident + part;
        for (int d = -1; d <= 1; d++) {
            pl_engine *e = engine_with(need + (uint64_t)(int64_t)d, 2, 1, NULL);
            CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL,
                                            &err), &err);
            pl_job_spec spec = {.circuit = c, .n_partitions = cases[k].n,
                                .witness_paths = cases[k].paths,
                                .verify = true};
            uint64_t id;
            pl_status st = pl_engine_submit(e, &id, &spec, &err);
            if (d < 0) {
                CHECK_EQ(st, PL_EBUDGET);
                char want[64];
                snprintf(want, sizeof(want), "(%llu bytes)",
                         (unsigned long long)need);
                if (!strstr(err.msg, want))
                    pl_test_fail(__FILE__, __LINE__, "'%s' does not name %s",
                                 err.msg, want);
            } else {
                CHECK_OK(st, &err);
                pl_job_status js;
                CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
                CHECK_OK(js.status, &js.error);
                CHECK_EQ(js.verified, cases[k].n);
            }
            pl_circuit_release(c);
            destroy_balanced(e);
        }
    }
}

/* A witness file that grows after its job was submitted, while its
 * partition waits for the budget: the partition fails (the file is refused
 * as larger than its reservation), the job ends, nothing waits forever. */
PL_TEST(witness_grown_while_waiting_fails_not_hangs)
{
    const char *first = witness_copy("grow_first.wtns", 0);
    const char *second = witness_copy("grow_second.wtns", 0);
    pl_engine *probe = engine_with(0, 1, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(probe, &c, zkey_path("chain10"), NULL,
                                    &err), &err);
    uint64_t part, resident;
    pl_circuit_plan(c, file_bytes(first), &part, &resident);
    pl_circuit_release(c);
    destroy_balanced(probe);

    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 300);
    pl_engine *e = engine_with(resident + part, 2, 1, &slow);
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    const char *paths[2] = {first, second};
    pl_job_spec spec = {.circuit = c, .n_partitions = 2,
                        .witness_paths = paths, .verify = true};
    uint64_t id;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    struct timespec ts = {0, 100 * 1000000L}; /* the first is proving */
    nanosleep(&ts, NULL);
    witness_copy("grow_second.wtns", 64);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK(js.status == PL_EBUDGET || js.status == PL_EIO);
    CHECK(js.failed == 1);
    pl_circuit_release(c);
    destroy_balanced(e);
}

/* The order of admissions, from the ledger's events. */
typedef struct {
    pthread_mutex_t lock;
    size_t n;
    uint64_t job[16];
    size_t part[16];
} admission_log;

static void log_admission(void *user, const pl_ledger_record *r)
{
    admission_log *log = user;
    if (r->event != PL_EV_ADMITTED)
        return;
    pthread_mutex_lock(&log->lock);
    if (log->n < 16) {
        log->job[log->n] = r->job;
        log->part[log->n] = r->partition;
        log->n++;
    }
    pthread_mutex_unlock(&log->lock);
}

/* Room for one partition, a slow prover holding it, and a normal job whose
 * next partition waits for that room: a critical job submitted then is
 * admitted before it (the wait gives way), and the normal job's partitions
 * follow in their order.  Submitted before the wait began, it is picked
 * first anyway: the order is the same either way, which is the point. */
PL_TEST(critical_job_overtakes_a_waiting_admission)
{
    pl_engine *probe = engine_with(0, 1, 1, NULL);
    pl_circuit *c;
    pl_error err = {0};
    CHECK_OK(pl_engine_open_circuit(probe, &c, zkey_path("chain10"), NULL,
                                    &err), &err);
    struct stat sb;
    CHECK(stat(wtns_path("chain10"), &sb) == 0);
    uint64_t part, resident;
    pl_circuit_plan(c, (uint64_t)sb.st_size, &part, &resident);
    pl_circuit_release(c);
    destroy_balanced(probe);

    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 150);
    admission_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = resident + part;
    cfg.synth_workers = 2;
    cfg.prover_workers = 1;
    cfg.threads = 2;
    cfg.on_event = log_admission;
    cfg.on_event_user = &log;
    pl_engine *e;
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg, &slow, NULL, &err),
             &err);
    CHECK_OK(pl_engine_open_circuit(e, &c, zkey_path("chain10"), NULL, &err),
             &err);
    delivery_log dl = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}};
    uint64_t normal = submit_copies(e, c, "chain10", 3, &dl,
                                    PL_PRIORITY_NORMAL);
    struct timespec ts = {0, 60 * 1000000L}; /* let partition 1 wait */
    nanosleep(&ts, NULL);
    uint64_t critical = submit_copies(e, c, "chain10", 1, &dl,
                                      PL_PRIORITY_CRITICAL);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, critical, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_OK(pl_engine_wait(e, normal, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, 3);
    CHECK_EQ(log.n, 4);
    const uint64_t want_job[4] = {normal, critical, normal, normal};
    const size_t want_part[4] = {0, 0, 1, 2};
    for (size_t i = 0; i < 4; i++) {
        CHECK_EQ(log.job[i], want_job[i]);
        CHECK_EQ(log.part[i], want_part[i]);
    }
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    CHECK_EQ(st.peak_reserved_bytes, resident + part);
    pl_circuit_release(c);
    destroy_balanced(e);
}
