/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger: every lifecycle event once per partition and in order, stage
 * counts that agree with the events, a summary that balances (and names a
 * deliberate leak), and the story of DESIGN.md: with a slow prover and
 * pw = 4, a budget for two partitions keeps the waiting partitions and the
 * reserved bytes bounded at every event, where an unlimited budget lets the
 * waiting count grow.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "engine/engine.h"
#include "ledger/report.h"
#include "util/alloc.h"

#include <pthread.h>
#include <time.h>

#define MAX_PARTS 16

typedef struct {
    pthread_mutex_t lock;
    int seen[MAX_PARTS][PL_EV_COUNT];   /* how many times each event fired */
    int last[MAX_PARTS];                /* the last event, for the order */
    bool out_of_order;
    uint64_t max_waiting, max_reserved, budget;
    uint64_t records;
} event_log;

static void log_init(event_log *log)
{
    memset(log, 0, sizeof(*log));
    pthread_mutex_init(&log->lock, NULL);
}

static void on_event(void *user, const pl_ledger_record *r)
{
    event_log *log = user;
    pthread_mutex_lock(&log->lock);
    log->records++;
    if (r->partition < MAX_PARTS) {
        log->seen[r->partition][r->event]++;
        if ((int)r->event < log->last[r->partition])
            log->out_of_order = true;
        log->last[r->partition] = (int)r->event;
    }
    if (r->stage_now[PL_STAGE_WAITING] > log->max_waiting)
        log->max_waiting = r->stage_now[PL_STAGE_WAITING];
    if (r->reserved_bytes > log->max_reserved)
        log->max_reserved = r->reserved_bytes;
    log->budget = r->budget_bytes;
    pthread_mutex_unlock(&log->lock);
}

static pl_status slow_start(void *instance, void **pending, blst_fr *abc,
                            const pl_wtns *wtns, pl_error *err)
{
    struct timespec ts = {0, 60 * 1000000L};
    nanosleep(&ts, NULL);
    return pl__backend_cpu.start(instance, pending, abc, wtns, err);
}

static const char *vector(const char *name, const char *file)
{
    static char paths[4][256];
    static int slot;
    char *p = paths[slot++ % 4];
    snprintf(p, 256, "%s/%s/%s", PL_TEST_VECTORS, name, file);
    return p;
}

/* Runs a job of n copies of chain10 and returns the log. */
static void run_job(event_log *log, uint64_t budget, unsigned pw, size_t n,
                    bool slow, FILE *summary, bool *balanced)
{
    pl__backend_ops ops = pl__backend_cpu;
    if (slow)
        ops.start = slow_start;
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = budget;
    cfg.synth_workers = pw;
    cfg.prover_workers = 1;
    cfg.threads = 2;
    cfg.on_event = on_event;
    cfg.on_event_user = log;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg, &ops, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector("chain10", "circuit.zkey"),
                                    NULL, &err), &err);
    const char *paths[MAX_PARTS];
    for (size_t i = 0; i < n; i++)
        paths[i] = vector("chain10", "witness.wtns");
    pl_job_spec spec = {.circuit = c, .n_partitions = n,
                        .witness_paths = paths};
    uint64_t id;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    pl_job_status js;
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    CHECK_EQ(js.proved, n);
    pl_circuit_release(c);
    bool ok = pl_engine_write_summary(e, summary);
    if (balanced)
        *balanced = ok;
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

static uint64_t partition_bytes(void)
{
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, NULL, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector("chain10", "circuit.zkey"),
                                    NULL, &err), &err);
    FILE *f = fopen(vector("chain10", "witness.wtns"), "rb");
    CHECK(f);
    fseek(f, 0, SEEK_END);
    uint64_t part, resident;
    pl_circuit_plan(c, (uint64_t)ftell(f), &part, &resident);
    fclose(f);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    return part;
}

PL_TEST(every_event_once_per_partition_in_order)
{
    event_log log;
    log_init(&log);
    char *text = NULL;
    size_t len = 0;
    FILE *summary = open_memstream(&text, &len);
    bool balanced = false;
    run_job(&log, 0, 2, 6, false, summary, &balanced);
    fclose(summary);
    CHECK(!log.out_of_order);
    for (size_t p = 0; p < 6; p++)
        for (int ev = PL_EV_ADMITTED; ev <= PL_EV_DEALLOC_DONE; ev++)
            if (log.seen[p][ev] != 1)
                pl_test_fail(__FILE__, __LINE__, "partition %zu: %s fired %d "
                             "times", p, pl_event_name((pl_event)ev),
                             log.seen[p][ev]);
    CHECK_EQ(log.records, 6 * (PL_EV_DEALLOC_DONE + 1));
    CHECK(balanced);
    CHECK(strstr(text, "ledger balanced") != NULL);
    free(text);
}

PL_TEST(summary_names_a_leak)
{
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, NULL, &err), &err);
    void *leak = pl__alloc(PL_BUF_WITNESS, 12345, &err);
    CHECK(leak);
    char *text = NULL;
    size_t len = 0;
    FILE *summary = open_memstream(&text, &len);
    CHECK(!pl_engine_write_summary(e, summary));
    fclose(summary);
    CHECK(strstr(text, "NOT balanced") != NULL);
    CHECK(strstr(text, "witness 1 buffers 12345 bytes") != NULL);
    /* destroy refuses to call it balanced too, naming the class */
    CHECK_STATUS(pl_engine_destroy(e, &err), PL_EINTERNAL, &err);
    CHECK(strstr(err.msg, "witness") != NULL);
    pl__free(leak);
    free(text);
}

/* The story: a slow prover, four synthesis workers. */
PL_TEST(budget_bounds_waiting_where_unlimited_does_not)
{
    uint64_t part = partition_bytes();
    event_log bounded;
    log_init(&bounded);
    /* the circuit's resident bytes, plus two partitions */
    pl_engine *probe;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&probe, NULL, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(probe, &c, vector("chain10", "circuit.zkey"),
                                    NULL, &err), &err);
    uint64_t resident;
    pl_circuit_plan(c, 0, NULL, &resident);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(probe, &err), &err);

    uint64_t budget = resident + 2 * part;
    run_job(&bounded, budget, 4, 8, true, NULL, NULL);
    printf("budget for 2 partitions: max waiting %llu, max reserved %llu of "
           "%llu\n", (unsigned long long)bounded.max_waiting,
           (unsigned long long)bounded.max_reserved,
           (unsigned long long)bounded.budget);
    CHECK(bounded.max_reserved <= budget);
    CHECK(bounded.max_waiting <= 1); /* one proving, at most one waiting */

    event_log unbounded;
    log_init(&unbounded);
    run_job(&unbounded, 0, 4, 8, true, NULL, NULL);
    printf("unlimited budget: max waiting %llu\n",
           (unsigned long long)unbounded.max_waiting);
    CHECK(unbounded.max_waiting > bounded.max_waiting);
}

/* ---- the report (src/ledger/report.c), from public data alone --------- */

static void fake_stats(pl_engine_stats *st)
{
    memset(st, 0, sizeof(*st));
    st->backend = "cpu";
    st->budget_bytes = 64ull << 20;
    st->peak_reserved_bytes = 3 << 20;
    st->peak_tracked_bytes = 2 << 20;
    st->peak_rss_anon_bytes = 40 << 20;
    st->baseline_rss_anon_bytes = 30 << 20;
    st->peak_untracked_bytes = -5;
    st->trimmed_bytes = 4096;
    st->proofs = 4;
    st->verified = 4;
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        st->stage_peak[s] = (uint64_t)s + 1;
    pl_alloc_stats *w = &st->classes[PL_BUF_WITNESS];
    w->peak_count = 2;
    w->high_water_bytes = 1536;
    w->total_allocs = 4;
    w->total_frees = 4;
}

static char *capture_report(const pl_engine_stats *st)
{
    pl_job_status js = {.done = true, .n_partitions = 4, .proved = 4,
                        .verified = 4};
    pl_run_facts run = {.wall_seconds = 1.23456, .synth_workers = 2,
                        .prover_workers = 1, .threads = 8};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f);
    pl_engine_write_report(f, st, &js, &run);
    fclose(f);
    return text;
}

PL_TEST(report_json_layout)
{
    pl_engine_stats st;
    fake_stats(&st);
    char *text = capture_report(&st);
    static const char want[] =
        "{\n  \"proofs\": 4,\n  \"verified\": 4,\n  \"failed\": 0,\n"
        "  \"skipped\": 0,\n  \"wall_seconds\": 1.235,\n"
        "  \"config\": {\"pw\": 2, \"workers\": 1, \"threads\": 8, "
        "\"budget_bytes\": 67108864, \"backend\": \"cpu\"},\n"
        "  \"memory\": {\n    \"budget_bytes\": 67108864,\n"
        "    \"peak_reserved_bytes\": 3145728,\n"
        "    \"peak_tracked_bytes\": 2097152,\n"
        "    \"peak_rss_anon_bytes\": 41943040,\n"
        "    \"baseline_rss_anon_bytes\": 31457280,\n"
        "    \"peak_untracked_bytes\": -5,\n"
        "    \"trimmed_bytes\": 4096,\n"
        "    \"classes\": {\n"
        "      \"params\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"csr\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"witness\": {\"peak_count\": 2, \"peak_bytes\": 1536, \"allocs\": 4, \"frees\": 4, \"live_bytes\": 0},\n"
        "      \"abc\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"h\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"msm_scratch\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"pending\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"pinned\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"device\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0}\n"
        "    },\n"
        "    \"stages\": {\n"
        "      \"admitted\": {\"peak\": 1},\n"
        "      \"synth\": {\"peak\": 2},\n"
        "      \"waiting\": {\"peak\": 3},\n"
        "      \"proving\": {\"peak\": 4},\n"
        "      \"finishing\": {\"peak\": 5}\n"
        "    },\n    \"balanced\": true\n  }\n}\n";
    if (strcmp(text, want) != 0)
        pl_test_fail(__FILE__, __LINE__, "report:\n%s\nwanted:\n%s", text,
                     want);
    free(text);
    /* a class that still holds a buffer unbalances it */
    st.classes[PL_BUF_PENDING].live_count = 1;
    text = capture_report(&st);
    CHECK(strstr(text, "\"balanced\": false\n") != NULL);
    free(text);
}

PL_TEST(report_summary_layout)
{
    pl_engine_stats st;
    fake_stats(&st);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(pl__report_write_summary(f, &st));
    fclose(f);
    static const char want[] =
        "ledger summary: 4 proofs, 4 verified, 0 failed, 0 skipped\n"
        "  class        peak count   peak bytes   allocs    frees     live now\n"
        "  witness               2       1.5KiB        4        4           0B\n"
        "  stages (peak partitions): admitted=1 synth=2 waiting=3 proving=4 "
        "finishing=5\n"
        "  budget 64.0MiB, peak reserved 3.0MiB, peak tracked 2.0MiB, peak "
        "rss_anon 40.0MiB (baseline 30.0MiB), peak untracked 0B\n"
        "  malloc_trim returned 4.0KiB to the OS\n"
        "ledger balanced\n";
    if (strcmp(text, want) != 0)
        pl_test_fail(__FILE__, __LINE__, "summary:\n%s\nwanted:\n%s", text,
                     want);
    free(text);
    /* with a device, and a class left live */
    st.device_total_bytes = 80ull << 30;
    st.device_used_bytes = 1ull << 30;
    st.peak_device_untracked_bytes = 512 << 20;
    st.classes[PL_BUF_DEVICE].live_count = 2;
    st.classes[PL_BUF_DEVICE].live_bytes = 777;
    st.classes[PL_BUF_DEVICE].total_allocs = 2;
    text = NULL;
    f = open_memstream(&text, &len);
    CHECK(!pl__report_write_summary(f, &st));
    fclose(f);
    CHECK(strstr(text, "  backend cpu: gpu0 used 1.0GiB of 80.0GiB now, peak "
                       "untracked 512.0MiB\n") != NULL);
    CHECK(strstr(text, "ledger NOT balanced: device 2 buffers 777 bytes\n")
          != NULL);
    free(text);
}
