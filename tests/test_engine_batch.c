/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's batches (pl_engine_config.batch, issue 29 item 2): a prover
 * worker that takes a partition also takes the ready partitions of the
 * same circuit, up to the batch size, and starts them together
 * (pl__groth16_start_batch).  With a slow backend the hand-off fills and
 * batches form (a partition's prove_start comes between another's
 * prove_start and its abc_freed, which one worker never does one at a
 * time); every proof verifies; each partition's a/b/c is released
 * (abc_freed) before its proof is done; reserved and tracked bytes stay
 * within the budget, and a budget for two partitions makes batches of two
 * at most; the emulated CUDA backend has no batched sums, so its worker
 * takes one at a time.  The ledger is back to zero at destroy.
 */
#include "harness.h"
#include "engine/engine.h"

#include <pthread.h>

#define MAXREC 256

typedef struct {
    pthread_mutex_t lock;
    size_t n;
    pl_event ev[MAXREC];
    size_t part[MAXREC];
    uint64_t tracked_peak, budget;
} event_log;

static void on_event(void *user, const pl_ledger_record *r)
{
    event_log *log = user;
    pthread_mutex_lock(&log->lock);
    if (log->n < MAXREC && r->job != 0 &&
        (r->event == PL_EV_PROVE_START || r->event == PL_EV_ABC_FREED ||
         r->event == PL_EV_PROVE_DONE)) {
        log->ev[log->n] = r->event;
        log->part[log->n] = r->partition;
        log->n++;
    }
    if (r->tracked_bytes > log->tracked_peak)
        log->tracked_peak = r->tracked_bytes;
    log->budget = r->budget_bytes;
    pthread_mutex_unlock(&log->lock);
}

static const char *vector_file(const char *vector, const char *file)
{
    static _Thread_local char paths[8][256];
    static _Thread_local int slot;
    char *p = paths[slot++ % 8];
    snprintf(p, 256, "%s/%s/%s", PL_TEST_VECTORS, vector, file);
    return p;
}

static pl_engine *engine_with(uint64_t budget, unsigned batch,
                              const pl__backend_ops *backend, event_log *log)
{
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = budget;
    cfg.synth_workers = 4;
    cfg.prover_workers = 1;
    cfg.handoff_slots = 4;
    cfg.batch = batch;
    cfg.threads = 2;
    cfg.on_event = on_event;
    cfg.on_event_user = log;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg, backend, NULL, &err),
             &err);
    return e;
}

/* The largest batch the log shows: partitions started after a partition's
 * prove_start and before its abc_freed, plus itself. */
static size_t largest_batch(const event_log *log)
{
    size_t most = 0;
    for (size_t i = 0; i < log->n; i++) {
        if (log->ev[i] != PL_EV_PROVE_START)
            continue;
        size_t k = 1;
        for (size_t j = i + 1; j < log->n; j++) {
            if (log->ev[j] == PL_EV_ABC_FREED && log->part[j] == log->part[i])
                break;
            k += log->ev[j] == PL_EV_PROVE_START;
        }
        if (k > most)
            most = k;
    }
    return most;
}

/* Each partition's abc_freed comes before its prove_done. */
static void check_abc_freed_first(const event_log *log, size_t parts)
{
    for (size_t p = 0; p < parts; p++) {
        int freed = -1, done = -1;
        for (size_t i = 0; i < log->n; i++) {
            if (log->part[i] != p)
                continue;
            if (log->ev[i] == PL_EV_ABC_FREED && freed < 0)
                freed = (int)i;
            if (log->ev[i] == PL_EV_PROVE_DONE)
                done = (int)i;
        }
        CHECK(freed >= 0 && done > freed);
    }
}

static void run(const char *vector, size_t parts, uint64_t budget,
                unsigned batch, const pl__backend_ops *backend,
                event_log *log, pl_engine_stats *st)
{
    pl_error err = {0};
    pl_engine *e = engine_with(budget, batch, backend, log);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector_file(vector, "circuit.zkey"),
                                    NULL, &err), &err);
    const char *paths[16];
    for (size_t i = 0; i < parts; i++)
        paths[i] = vector_file(vector, "witness.wtns");
    pl_job_spec spec = {.circuit = c, .n_partitions = parts,
                        .witness_paths = paths, .verify = true};
    uint64_t id;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, parts);
    CHECK_EQ(js.verified, parts);
    pl_engine_stats_read(e, st);
    CHECK(st->peak_reserved_bytes <= st->budget_bytes);
    CHECK(st->peak_tracked_bytes <= st->budget_bytes);
    CHECK(log->tracked_peak <= log->budget);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    check_abc_freed_first(log, parts);
}

/* The bytes of the circuit and of one partition of it. */
static void sizes_of(const char *vector, uint64_t *part, uint64_t *resident)
{
    pl_error err = {0};
    event_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}, 0, 0};
    pl_engine *e = engine_with(0, 1, &pl__backend_cpu, &log);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector_file(vector, "circuit.zkey"),
                                    NULL, &err), &err);
    FILE *f = fopen(vector_file(vector, "witness.wtns"), "rb");
    CHECK(f);
    fseek(f, 0, SEEK_END);
    uint64_t wbytes = (uint64_t)ftell(f);
    fclose(f);
    pl_circuit_plan(c, wbytes, part, resident);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

PL_TEST(ready_partitions_are_proved_in_batches)
{
    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 40);
    event_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}, 0, 0};
    pl_engine_stats st;
    run("chain10", 8, 0, 4, &slow, &log, &st);
    size_t most = largest_batch(&log);
    printf("largest batch %zu, proving peak %llu\n", most,
           (unsigned long long)st.stage_peak[PL_STAGE_PROVING]);
    CHECK(most >= 2 && most <= 4);
    CHECK(st.stage_peak[PL_STAGE_PROVING] <= 4);
}

PL_TEST(batch_one_is_one_at_a_time)
{
    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 40);
    event_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}, 0, 0};
    pl_engine_stats st;
    run("chain10", 6, 0, 1, &slow, &log, &st);
    CHECK_EQ(largest_batch(&log), 1);
    CHECK(st.stage_peak[PL_STAGE_PROVING] <= 1);
}

/* A budget for two partitions: batches of two at most, within it. */
PL_TEST(budget_for_fewer_takes_fewer)
{
    uint64_t part, resident;
    sizes_of("chain10", &part, &resident);
    pl__backend_ops slow;
    pl_test_slow_backend(&slow, 40);
    event_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}, 0, 0};
    pl_engine_stats st;
    run("chain10", 7, resident + 2 * part + part / 2, 10, &slow, &log, &st);
    CHECK(largest_batch(&log) <= 2);
    CHECK(st.stage_peak[PL_STAGE_PROVING] <= 2);
    CHECK(st.peak_reserved_bytes <= resident + 2 * part);
}

PL_TEST(cuda_emulated_takes_one_at_a_time)
{
    event_log log = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}, 0, 0};
    pl_engine_stats st;
    run("multiplier", 5, 0, 4, &pl__backend_cuda_emulated, &log, &st);
    CHECK_EQ(largest_batch(&log), 1);
}
