/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger: every lifecycle event once per partition and in order, stage
 * counts that agree with the events, a summary that balances (and names a
 * deliberate leak), and the story of DESIGN.md: with a slow prover and
 * pw = 4, a budget for two partitions keeps the waiting partitions and the
 * reserved bytes bounded at every event, where an unlimited budget lets the
 * waiting count grow, and the plot's waiting lane shows it.  The
 * presentation: log lines in logfmt with the reason and the witness file of
 * a failure, a plot scaled to its data with the budget marked, total RSS in
 * the stats and the summary; the trace's stages are checked by
 * tests/cli_ledger.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "engine/engine.h"
#include "ledger/ledger.h"
#include "util/alloc.h"
#include "util/error.h"

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

static const char *vector(const char *name, const char *file)
{
    static char paths[4][256];
    static int slot;
    char *p = paths[slot++ % 4];
    snprintf(p, 256, "%s/%s/%s", PL_TEST_VECTORS, name, file);
    return p;
}

/* Runs a job of n copies of chain10 and returns the log; with plot, the
 * engine keeps its records and writes the plot there at the end. */
static void run_job(event_log *log, uint64_t budget, unsigned pw, size_t n,
                    bool slow, FILE *summary, bool *balanced, const char *plot)
{
    pl__backend_ops ops = pl__backend_cpu;
    if (slow)
        pl_test_slow_backend(&ops, 60);
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = budget;
    cfg.synth_workers = pw;
    cfg.prover_workers = 1;
    cfg.threads = 2;
    cfg.on_event = on_event;
    cfg.on_event_user = log;
    cfg.record_timeline = plot != NULL;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg, &ops, NULL, &err), &err);
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
    if (plot)
        CHECK_OK(pl_engine_write_plot(e, plot, &err), &err);
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
    run_job(&log, 0, 2, 6, false, summary, &balanced, NULL);
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

/* The summary reads the process-wide counters: it names a buffer that is
 * still live, even one the engine did not allocate (which is not the
 * engine's leak, so its destroy still succeeds). */
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
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    pl__free(leak);
    free(text);
}

static void *leaked_on_engine_thread;

/* A witness generator that also leaks an accounted buffer, on the engine's
 * synthesis thread. */
static pl_status leak_then_fail(void *user, size_t partition, pl_scalar *out,
                                size_t n, pl_error *err)
{
    leaked_on_engine_thread = pl__alloc(PL_BUF_ABC, 777, err);
    return pl__error_set(err, PL_EFORMAT, "generator gave up");
}

/* A buffer an engine's thread allocated and never freed fails the engine's
 * destroy, naming the class. */
PL_TEST(destroy_names_an_engine_leak)
{
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, NULL, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector("chain10", "circuit.zkey"),
                                    NULL, &err), &err);
    pl_job_spec spec = {.circuit = c, .n_partitions = 1,
                        .generate = leak_then_fail};
    uint64_t id;
    pl_job_status js;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_EQ(js.status, PL_EFORMAT);
    pl_circuit_release(c);
    CHECK(leaked_on_engine_thread);
    CHECK_STATUS(pl_engine_destroy(e, &err), PL_EINTERNAL, &err);
    CHECK(strstr(err.msg, "abc=1") != NULL);
    pl__free(leaked_on_engine_thread);
}

/* The number in attribute `attr` of the first element of an SVG file that
 * holds `marker` (UINT64_MAX when there is none). */
static uint64_t svg_number(const char *path, const char *marker,
                           const char *attr)
{
    size_t len;
    char *text = (char *)pl_test_read_file(path, &len);
    uint64_t v = UINT64_MAX;
    char *at = strstr(text, marker);
    if (at) {
        char *element = at;
        while (element > text && *element != '<')
            element--;
        char *end = strchr(at, '>');
        char key[64];
        snprintf(key, sizeof(key), "%s=\"", attr);
        char *value = strstr(element, key);
        if (value && end && value < end)
            v = strtoull(value + strlen(key), NULL, 10);
    }
    free(text);
    return v;
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
    char bounded_plot[4096], unbounded_plot[4096]; /* pl_test_tmp's is shared */
    snprintf(bounded_plot, sizeof(bounded_plot), "%s",
             pl_test_tmp("bounded.svg"));
    snprintf(unbounded_plot, sizeof(unbounded_plot), "%s",
             pl_test_tmp("unbounded.svg"));
    run_job(&bounded, budget, 4, 8, true, NULL, NULL, bounded_plot);
    printf("budget for 2 partitions: max waiting %llu, max reserved %llu of "
           "%llu\n", (unsigned long long)bounded.max_waiting,
           (unsigned long long)bounded.max_reserved,
           (unsigned long long)bounded.budget);
    CHECK(bounded.max_reserved <= budget);
    /* the budget holds two partitions: at most two exist past admission,
     * and both are waiting only for the moment before the prover takes the
     * first; without a budget, synthesis piles them up */
    CHECK(bounded.max_waiting <= 2);

    event_log unbounded;
    log_init(&unbounded);
    run_job(&unbounded, 0, 4, 8, true, NULL, NULL, unbounded_plot);
    printf("unlimited budget: max waiting %llu\n",
           (unsigned long long)unbounded.max_waiting);
    CHECK(unbounded.max_waiting > bounded.max_waiting);
    /* and the plots say so at a glance: the waiting lane of each peaks
     * where the events did (a timer sample may catch a moment between two
     * events, never less) */
    uint64_t bounded_lane = svg_number(bounded_plot, "data-stage=\"waiting\"",
                                       "data-peak");
    uint64_t unbounded_lane = svg_number(unbounded_plot,
                                         "data-stage=\"waiting\"",
                                         "data-peak");
    CHECK(bounded_lane >= bounded.max_waiting);
    CHECK(unbounded_lane >= unbounded.max_waiting);
    CHECK(unbounded_lane > bounded_lane);
}

/* Proves n copies of chain10 on an engine made with cfg, keeping its
 * records, then writes its trace and its plot (either path may be NULL). */
static void timeline_of_chain10(pl_engine_config *cfg, size_t n,
                                const char *trace, const char *plot)
{
    cfg->record_timeline = true;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, cfg, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector("chain10", "circuit.zkey"),
                                    NULL, &err), &err);
    const char *paths[MAX_PARTS];
    CHECK(n <= MAX_PARTS);
    for (size_t i = 0; i < n; i++)
        paths[i] = vector("chain10", "witness.wtns");
    pl_job_spec spec = {.circuit = c, .n_partitions = n,
                        .witness_paths = paths};
    uint64_t id;
    pl_job_status js;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    if (trace)
        CHECK_OK(pl_engine_write_trace(e, trace, &err), &err);
    if (plot)
        CHECK_OK(pl_engine_write_plot(e, plot, &err), &err);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

/* Every counter sample of a trace is later than the one before: the
 * ledger stamps records under its lock, so however the threads interleave
 * (four synthesis workers, two provers, a 1 ms sampler) the timeline never
 * runs backwards. */
PL_TEST(trace_time_never_runs_backwards)
{
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 4;
    cfg.prover_workers = 2;
    cfg.threads = 2;
    cfg.sample_ms = 1;
    char path[4096];
    snprintf(path, sizeof(path), "%s", pl_test_tmp("monotonic.trace.json"));
    timeline_of_chain10(&cfg, 12, path, NULL);

    size_t len;
    char *text = (char *)pl_test_read_file(path, &len);
    const char *key = "{\"name\":\"reserved\",\"ph\":\"C\",\"ts\":";
    double last = -1;
    size_t samples = 0;
    for (const char *at = strstr(text, key); at; at = strstr(at + 1, key)) {
        double ts = strtod(at + strlen(key), NULL);
        if (ts < last)
            pl_test_fail(__FILE__, __LINE__, "record %zu at %.1f us follows "
                         "one at %.1f us", samples, ts, last);
        last = ts;
        samples++;
    }
    CHECK(samples > 12 * 9); /* every event of every partition, at least */
    free(text);
}

/* The plot and the trace written while the engine runs, with the sampler
 * appending a record every millisecond: each output walks one snapshot of
 * the records (the plot sizes its arrays from the first pass), so every
 * file is complete and nothing is read or written past its arrays (the
 * sanitizer pass would report it). */
PL_TEST(plot_and_trace_while_sampling)
{
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 2;
    cfg.threads = 2;
    cfg.sample_ms = 1;
    cfg.record_timeline = true;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, &cfg, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector("chain10", "circuit.zkey"),
                                    NULL, &err), &err);
    const char *paths[MAX_PARTS];
    for (size_t i = 0; i < MAX_PARTS; i++)
        paths[i] = vector("chain10", "witness.wtns");
    pl_job_spec spec = {.circuit = c, .n_partitions = MAX_PARTS,
                        .witness_paths = paths};
    uint64_t id;
    pl_job_status js;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    char plot[4096], trace[4096]; /* pl_test_tmp's buffer is shared */
    snprintf(plot, sizeof(plot), "%s", pl_test_tmp("while_sampling.svg"));
    snprintf(trace, sizeof(trace), "%s",
             pl_test_tmp("while_sampling.trace.json"));
    for (int k = 0; k < 12; k++) {
        CHECK_OK(pl_engine_write_plot(e, plot, &err), &err);
        CHECK_OK(pl_engine_write_trace(e, trace, &err), &err);
        size_t len;
        char *text = (char *)pl_test_read_file(plot, &len);
        CHECK(len > 7 && strcmp(text + len - 7, "</svg>\n") == 0);
        free(text);
        text = (char *)pl_test_read_file(trace, &len);
        CHECK(strstr(text, "]") != NULL);
        free(text);
    }
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_OK(js.status, &js.error);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
}

/* ---- the log line: logfmt ---------------------------------------------- */

/* Walks a logfmt line one key=value at a time: the key and the value, its
 * quotes taken off and escapes undone.  False at the end of the line, or
 * (with *bad) at anything that is not key=value. */
typedef struct {
    const char *at;
    char key[64], value[512];
    bool bad;
} logfmt;

static bool logfmt_next(logfmt *lf)
{
    while (*lf->at == ' ')
        lf->at++;
    if (!*lf->at || *lf->at == '\n')
        return false;
    size_t k = 0, v = 0;
    while (*lf->at && *lf->at != '=' && *lf->at != ' ' && *lf->at != '\n' &&
           k + 1 < sizeof(lf->key))
        lf->key[k++] = *lf->at++;
    lf->key[k] = '\0';
    if (*lf->at != '=' || k == 0) {
        lf->bad = true;
        return false;
    }
    lf->at++;
    if (*lf->at == '"') {
        for (lf->at++; *lf->at != '"'; lf->at++) {
            if (!*lf->at || *lf->at == '\n') {
                lf->bad = true; /* unterminated */
                return false;
            }
            if (*lf->at == '\\' && lf->at[1])
                lf->at++;
            if (v + 1 < sizeof(lf->value))
                lf->value[v++] = *lf->at;
        }
        lf->at++;
    } else {
        while (*lf->at && *lf->at != ' ' && *lf->at != '\n' &&
               v + 1 < sizeof(lf->value))
            lf->value[v++] = *lf->at++;
    }
    lf->value[v] = '\0';
    if (*lf->at && *lf->at != ' ' && *lf->at != '\n')
        lf->bad = true;
    return !lf->bad;
}

/* The value of key in one line (into out); false when absent. */
static bool logfmt_get(const char *line, const char *key, char *out,
                       size_t cap)
{
    logfmt lf = {.at = line};
    while (logfmt_next(&lf))
        if (strcmp(lf.key, key) == 0) {
            snprintf(out, cap, "%s", lf.value);
            return true;
        }
    return false;
}

/* Holds partition 0 at prove_start, so that it is still in flight when
 * the next partition fails (on_event may delay the partition it reports
 * on). */
static void hold_first_proof(void *user, const pl_ledger_record *r)
{
    (void)user;
    if (r->event == PL_EV_PROVE_START && r->partition == 0) {
        struct timespec ts = {0, 150 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* A job whose second partition does not satisfy the circuit, the first
 * held in the prover meanwhile: its line says failed with the reason and the witness file; the
 * partition in flight ends cancelled with the same reason and its own
 * witness file.  Every line is logfmt throughout, with a timestamp, the
 * job, the stages, every host class, reserved, budget and RSS (anonymous,
 * file-backed, total). */
PL_TEST(log_lines_are_logfmt_with_reasons)
{
    char *text = NULL;
    size_t len = 0;
    FILE *stream = open_memstream(&text, &len);
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.synth_workers = 1;
    cfg.threads = 2;
    cfg.log_level = PL_LOG_INFO;
    cfg.log_stream = stream;
    cfg.on_event = hold_first_proof;
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, &cfg, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector("multiplier", "circuit.zkey"),
                                    vector("multiplier", "circuit.r1cs"), &err),
             &err);
    char good[256], unsat[256];
    snprintf(good, sizeof(good), "%s", vector("multiplier", "witness.wtns"));
    snprintf(unsat, sizeof(unsat), "%s", vector("bad", "unsat.wtns"));
    const char *paths[3] = {good, unsat, good};
    pl_job_spec spec = {.circuit = c, .n_partitions = 3, .witness_paths = paths,
                        .check_witness = true};
    uint64_t id;
    pl_job_status js;
    CHECK_OK(pl_engine_submit(e, &id, &spec, &err), &err);
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_EQ(js.status, PL_EUNSAT);
    /* a witness file whose name needs quoting, failing at admission */
    const char *odd = "/nonexistent/a \"quoted\" name.wtns";
    pl_job_spec missing = {.circuit = c, .n_partitions = 1,
                           .witness_paths = &odd};
    CHECK_OK(pl_engine_submit(e, &id, &missing, &err), &err);
    CHECK_OK(pl_engine_wait(e, id, &js, &err), &err);
    CHECK_EQ(js.status, PL_EIO);
    pl_circuit_release(c);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    fclose(stream);

    static const char *const keys[] = {
        "ts", "t", "log", "event", "job", "part", "stage.admitted",
        "stage.synth", "stage.waiting", "stage.proving", "stage.finishing",
        "buf.params", "buf.csr", "buf.witness", "buf.abc", "buf.h",
        "buf.msm_scratch", "buf.pending", "tracked", "reserved", "budget",
        "rss_anon", "rss_file", "rss", "untracked"};
    size_t lines = 0, failed = 0, cancelled = 0, odd_seen = 0;
    char value[512], reason[512] = "";
    for (char *line = text; line && *line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        if (!*line)
            break;
        lines++;
        logfmt lf = {.at = line};
        while (logfmt_next(&lf))
            ;
        if (lf.bad || strncmp(line, "ts=", 3) != 0)
            pl_test_fail(__FILE__, __LINE__, "not logfmt: %.200s", line);
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
            if (!logfmt_get(line, keys[k], value, sizeof(value)))
                pl_test_fail(__FILE__, __LINE__, "no %s in: %.200s", keys[k],
                             line);
        /* ts: 2026-11-30T17:34:01.123Z */
        logfmt_get(line, "ts", value, sizeof(value));
        CHECK(strlen(value) == 24 && value[10] == 'T' && value[19] == '.' &&
              value[23] == 'Z');
        logfmt_get(line, "log", value, sizeof(value));
        CHECK(strcmp(value, "ledger") == 0);
        char event[32], part[32], witness[512];
        logfmt_get(line, "event", event, sizeof(event));
        logfmt_get(line, "part", part, sizeof(part));
        bool has_reason = logfmt_get(line, "reason", value, sizeof(value));
        bool has_witness = logfmt_get(line, "witness", witness, sizeof(witness));
        if (strcmp(event, "failed") && strcmp(event, "cancelled")) {
            CHECK(!has_reason && !has_witness);
        } else if (strcmp(witness, odd) == 0) {
            odd_seen++;
            CHECK(strstr(value, "cannot stat") != NULL);
        } else if (!strcmp(event, "failed")) {
            failed++;
            CHECK_EQ(strcmp(part, "1"), 0);
            CHECK_EQ(strcmp(witness, unsat), 0);
            /* the failing constraint, not the witness values it holds */
            CHECK(strstr(value, "unsat.wtns: constraint") != NULL);
            CHECK(strstr(value, "is not satisfied") != NULL);
            CHECK(strstr(value, "A =") == NULL);
            snprintf(reason, sizeof(reason), "%s", value);
        } else {
            cancelled++;
            CHECK(has_reason);
            CHECK_EQ(strcmp(witness, good), 0);
            CHECK(strstr(value, "is not satisfied") != NULL);
            CHECK(strstr(value, "A =") == NULL);
        }
    }
    CHECK(lines >= 6); /* admitted and synth_start of partitions 0 and 1 */
    CHECK_EQ(failed, 1);
    CHECK(cancelled >= 1); /* partition 0, held at prove_start */
    CHECK_EQ(odd_seen, 1);
    CHECK(reason[0] != '\0');
    CHECK(strstr(text, "A = ") == NULL); /* nowhere in the log */
    free(text);
}

/* A failure's record carries its reason and witness file to on_event too,
 * and a path too long for the record keeps its end (the file's name). */
PL_TEST(failed_record_keeps_the_end_of_a_long_path)
{
    char path[400];
    size_t n = (size_t)snprintf(path, sizeof(path), "/nonexistent/");
    while (n < 300)
        path[n++] = 'd';
    snprintf(path + n, sizeof(path) - n, "/witness-17.wtns");
    pl__ledger_note note;
    pl__ledger_note_set(&note, "why", 3, path);
    size_t kept = strlen(note.witness);
    CHECK_EQ(kept, sizeof(note.witness) - 1);
    CHECK(strncmp(note.witness, "...", 3) == 0);
    CHECK(strcmp(note.witness + kept - 16, "/witness-17.wtns") == 0);
    CHECK_EQ(strcmp(note.reason, "why"), 0);
}

/* ---- the plot --------------------------------------------------------- */

static void plot_one_job(uint64_t budget, const char *plot)
{
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = budget;
    cfg.threads = 2;
    timeline_of_chain10(&cfg, 3, NULL, plot);
}

/* At the demo's 1 GiB budget a small run's data fills the chart: the
 * y-axis is scaled to the data, the budget marked above it (no line); a
 * budget the data reaches half of is a line on the chart.  Both plots
 * have a lane per stage under the memory panel. */
PL_TEST(plot_scales_to_the_data_and_marks_the_budget)
{
    char plot[4096];
    snprintf(plot, sizeof(plot), "%s", pl_test_tmp("budget_far.svg"));
    uint64_t gib = 1ull << 30;
    plot_one_job(gib, plot);
    uint64_t top = svg_number(plot, "class=\"memory-axis\"", "data-y-max");
    printf("1 GiB budget: the chart's top is %llu bytes\n",
           (unsigned long long)top);
    CHECK(top < gib / 8);
    CHECK_EQ(svg_number(plot, "class=\"budget-off-chart\"", "data-budget"),
             gib);
    CHECK_EQ(svg_number(plot, "data-line=\"budget\"", "data-line"),
             UINT64_MAX);
    for (int s = 0; s < PL_STAGE_COUNT; s++) {
        char marker[64];
        snprintf(marker, sizeof(marker), "data-stage=\"%s\"",
                 pl_stage_name((pl_stage)s));
        CHECK(svg_number(plot, marker, "data-peak") >= 1);
    }

    /* a budget the data reaches half of: a line on a chart that holds it */
    uint64_t near = top;
    plot_one_job(near, plot);
    top = svg_number(plot, "class=\"memory-axis\"", "data-y-max");
    CHECK(top >= near);
    size_t len;
    char *text = (char *)pl_test_read_file(plot, &len);
    CHECK(strstr(text, "data-line=\"budget\"") != NULL);
    CHECK(strstr(text, "budget-off-chart") == NULL);
    CHECK(strstr(text, "data-line=\"rss\"") != NULL);
    CHECK(strstr(text, "data-line=\"rss_anon\"") != NULL);
    free(text);
}

/* ---- RSS: anonymous, file-backed and their sum ------------------------- */

PL_TEST(stats_and_summary_show_total_rss)
{
    char *text = NULL;
    size_t len = 0;
    FILE *summary = open_memstream(&text, &len);
    pl_engine *e;
    pl_error err = {0};
    CHECK_OK(pl_engine_create(&e, NULL, &err), &err);
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    /* the executable and its libraries are file-backed: RssFile > 0 */
    CHECK(st.rss_file_bytes > 0);
    CHECK(st.peak_rss_file_bytes >= st.rss_file_bytes);
    CHECK(st.peak_rss_bytes >= st.rss_anon_bytes + st.rss_file_bytes);
    CHECK(st.peak_rss_bytes >= st.peak_rss_anon_bytes);
    CHECK(st.peak_rss_bytes <= st.peak_rss_anon_bytes + st.peak_rss_file_bytes);
    pl_engine_write_summary(e, summary);
    fclose(summary);
    CHECK(strstr(text, "  peak rss ") != NULL);
    CHECK(strstr(text, "(rss_anon + rss_file; peak rss_file ") != NULL);
    CHECK(strstr(text, " = rss_anon ") != NULL);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    free(text);
}
