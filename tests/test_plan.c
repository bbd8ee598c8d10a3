/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The planner against the engine: one scheduler, two callers.  The same
 * jobs go through the real engine and through the planner with the same
 * stage durations; the lifecycle events must come in the same order and
 * the peak reserved bytes must be equal, for pw 1
 * and 2 and budgets of one partition, three partitions and no limit.
 *
 * The engine runs chain10 (the CPU backend: real proofs) on a virtual
 * clock, so that the machine's load cannot reorder it: synthesis is a
 * witness callback, the prover's start a fake backend's begin and the
 * finish the prover's first stage report in it (its G2 join), each
 * waiting until the virtual clock has moved its stage's duration past its
 * start; the clock moves to the next such deadline only when the engine is
 * quiet: no thread doing real work, every other thread of the process
 * asleep (none runnable in /proc/self/task: a thread woken but not yet
 * run counts as running), and no event for SETTLE_MS.  Every event
 * is stamped with the virtual time, so the run's times are the plan's.
 * Events at the same instant are compared as a set: the engine's threads
 * race there (a prover's prove_start and a synthesis worker's
 * handed_off), and either order is the engine's.  Synthesized partitions
 * waiting for a full hand-off are woken together and take the slot in any
 * order, so the scenarios keep at most one waiting (checked on the plan).
 *
 * Also: the planner's bytes are pl_circuit_plan's, the story's OOM at full
 * scale, a partition that can never fit, the costs file round trip, stage
 * costs per curve (a bn128 circuit planned with BN254's).
 */
#define _GNU_SOURCE
#include "harness.h"
#include "engine/engine.h"
#include "engine/sched.h"
#include "formats/formats.h"
#include "plan/plan.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#define JOBS 2
#define PARTS 3
#define PROVE_MS 160.0
#define FINISH_MS 30.0
#define MAX_EVENTS 256

typedef struct {
    pl_event event;
    uint64_t job;
    size_t partition;
    double t;
} ev;

typedef struct {
    pthread_mutex_t lock;
    size_t n;
    ev items[MAX_EVENTS];
} ev_log;

static void log_event(void *user, const pl_ledger_record *r)
{
    ev_log *log = user;
    pthread_mutex_lock(&log->lock);
    if (log->n < MAX_EVENTS)
        log->items[log->n++] = (ev){r->event, r->job, r->partition,
                                    r->t_seconds};
    pthread_mutex_unlock(&log->lock);
}

/* Synthesis of partition i of job j (1-based) takes this long: all
 * different, so the real engine's synthesis workers never finish at the
 * same moment. */
static double synth_base_ms, synth_step_ms;

static double synth_ms(uint64_t job, size_t partition)
{
    return synth_base_ms +
           synth_step_ms * (double)((job - 1) * PARTS + partition);
}

static double plan_duration(void *user, pl__plan_stage stage, uint64_t job,
                            size_t partition, const pl__plan_load *load)
{
    (void)user;
    (void)load;
    switch (stage) {
    case PL__PLAN_SYNTH:
        return synth_ms(job, partition) / 1e3;
    case PL__PLAN_PROVE:
        return PROVE_MS / 1e3;
    default:
        return FINISH_MS / 1e3;
    }
}

/* ---- the engine on a virtual clock ------------------------------------- */

#define SETTLE_MS 40.0

static struct {
    pthread_mutex_t lock;
    pthread_cond_t tick;
    double now;               /* virtual seconds */
    double deadline[64];      /* of the stages waiting for the clock */
    size_t n_waiting;
    int busy;                 /* threads doing real work after a stage */
    double quiet_since;       /* real seconds of the last event */
    ev_log log;
} vc = {.lock = PTHREAD_MUTEX_INITIALIZER, .tick = PTHREAD_COND_INITIALIZER};

static double real_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A stage of `seconds` virtual seconds from now; real work follows it
 * (busy until the stage's event). */
static void virtual_stage(double seconds)
{
    pthread_mutex_lock(&vc.lock);
    double until = vc.now + seconds;
    vc.deadline[vc.n_waiting++] = until;
    while (vc.now < until)
        pthread_cond_wait(&vc.tick, &vc.lock);
    for (size_t i = 0; i < vc.n_waiting; i++)
        if (vc.deadline[i] == until) { /* any slot of that value */
            vc.deadline[i] = vc.deadline[--vc.n_waiting];
            break;
        }
    vc.busy++;
    pthread_mutex_unlock(&vc.lock);
}

/* The engine's records, stamped with the virtual time.  Real work is
 * done when its event comes: synthesis at synth_done; the start at
 * abc_freed, where the finish's begins, done at dealloc_done. */
static void log_virtual(void *user, const pl_ledger_record *r)
{
    (void)user;
    pthread_mutex_lock(&vc.lock);
    if (vc.log.n < MAX_EVENTS)
        vc.log.items[vc.log.n++] = (ev){r->event, r->job, r->partition,
                                        vc.now};
    if (r->event == PL_EV_SYNTH_DONE || r->event == PL_EV_DEALLOC_DONE)
        vc.busy--;
    vc.quiet_since = real_now();
    pthread_mutex_unlock(&vc.lock);
}

static pl_status virtual_begin(pl__backend_proof *proof, pl_error *err)
{
    virtual_stage(PROVE_MS / 1e3);
    return pl__backend_cpu.begin(proof, err);
}

/* The finish's stage: the prover's first lap of it (its G2 join) waits on
 * the clock.  Without it the finisher's release and an admission made at
 * the same instant would race, and the peak reserved with them.  The
 * finisher is busy from abc_freed on: not while it waits here. */
static void virtual_finish(void *user, const char *stage, double seconds)
{
    (void)user;
    (void)seconds;
    if (strcmp(stage, "g2_join") != 0)
        return;
    pthread_mutex_lock(&vc.lock);
    vc.busy--;
    pthread_mutex_unlock(&vc.lock);
    virtual_stage(FINISH_MS / 1e3);
}

/* Moves the clock to the next deadline whenever the engine is quiet,
 * until the jobs are done. */
/* Whether every thread of the process but the caller is asleep (state S
 * or D in /proc/self/task/TID/stat): none is running or about to. */
static bool others_asleep(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return true; /* no /proc: SETTLE_MS alone */
    pid_t self = (pid_t)syscall(SYS_gettid);
    bool asleep = true;
    for (struct dirent *de; asleep && (de = readdir(d));) {
        if (de->d_name[0] == '.' || atoi(de->d_name) == self)
            continue;
        char path[300], buf[256];
        snprintf(path, sizeof(path), "/proc/self/task/%s/stat", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* gone */
        size_t len = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[len] = '\0';
        const char *paren = strrchr(buf, ')'); /* the name may hold spaces */
        if (paren && paren[1] == ' ' && paren[2] != 'S' && paren[2] != 'D')
            asleep = false;
    }
    closedir(d);
    return asleep;
}

static void drive_clock(pl_engine *e, const uint64_t *ids, size_t n)
{
    for (;;) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
        /* asleep is read first, without the lock: a thread waiting for
         * the lock to log an event would read as asleep */
        bool asleep = others_asleep();
        pthread_mutex_lock(&vc.lock);
        bool quiet = asleep && vc.busy == 0 &&
                     (real_now() - vc.quiet_since) * 1e3 > SETTLE_MS;
        if (quiet && vc.n_waiting) {
            double next = vc.deadline[0];
            for (size_t i = 1; i < vc.n_waiting; i++)
                if (vc.deadline[i] < next)
                    next = vc.deadline[i];
            vc.now = next;
            vc.quiet_since = real_now();
            pthread_cond_broadcast(&vc.tick);
        }
        pthread_mutex_unlock(&vc.lock);
        bool done = quiet;
        for (size_t i = 0; done && i < n; i++) {
            pl_job_status js;
            pl_error err = {0};
            CHECK_OK(pl_engine_poll(e, ids[i], &js, &err), &err);
            done = js.done;
        }
        if (done)
            return;
    }
}

typedef struct {
    const pl_wtns *w;
    uint64_t job;
} gen_ctx;

static pl_status generate(void *user, size_t partition, pl_scalar *out,
                          size_t n, pl_error *err)
{
    (void)err;
    const gen_ctx *g = user;
    virtual_stage(synth_ms(g->job, partition) / 1e3);
    if (n != pl_wtns_count(g->w))
        return PL_EINTERNAL;
    memcpy(out, pl_wtns_values(g->w), n * sizeof(pl_scalar));
    return PL_OK;
}

static const char *vector_path(const char *file)
{
    static char path[256];
    snprintf(path, sizeof(path), "%s/chain10/%s", PL_TEST_VECTORS, file);
    return path;
}

/* The plan's bytes for chain10 as an engine with `threads` on `backend`
 * reserves them. */
static void chain10_bytes(pl__plan_bytes *out, const pl__backend_ops *backend,
                          unsigned threads)
{
    pl_zkey *zk;
    pl_error err = {0};
    CHECK_OK(pl_zkey_open(&zk, vector_path("circuit.zkey"), &err), &err);
    struct stat sb;
    CHECK(stat(vector_path("circuit.zkey"), &sb) == 0);
    pl__plan_shape shape;
    pl__plan_shape_of_zkey(&shape, zk);
    pl__plan_bytes_for(out, &shape, backend, threads, (uint64_t)sb.st_size, 0);
    pl_zkey_close(zk);
}

static const char *ev_text(char *buf, const ev *e)
{
    sprintf(buf, "%s j%llu p%zu", pl_event_name(e->event),
            (unsigned long long)e->job, e->partition);
    return buf;
}

static bool same_ev(const ev *a, const ev *b)
{
    return a->event == b->event && a->job == b->job &&
           a->partition == b->partition;
}

static void dump(const char *who, const ev_log *log)
{
    char buf[64];
    fprintf(stderr, "%s:\n", who);
    for (size_t i = 0; i < log->n; i++)
        fprintf(stderr, "  %8.3f %s\n", log->items[i].t,
                ev_text(buf, &log->items[i]));
}

/* Same length; the real events, cut into the plan's same-instant groups,
 * equal them group by group as sets. */
static void compare(const ev_log *plan, const ev_log *run)
{
    if (plan->n != run->n) {
        dump("plan", plan);
        dump("run", run);
        CHECK_EQ(plan->n, run->n);
    }
    size_t i = 0;
    while (i < plan->n) {
        size_t end = i + 1;
        while (end < plan->n &&
               fabs(plan->items[end].t - plan->items[i].t) < 1e-9)
            end++;
        for (size_t k = i; k < end; k++) {
            bool found = false;
            for (size_t m = i; m < end && !found; m++)
                found = same_ev(&run->items[k], &plan->items[m]);
            if (!found) {
                char buf[64];
                dump("plan", plan);
                dump("run", run);
                pl_test_fail(__FILE__, __LINE__, "run event %zu (%s) is not "
                             "among the plan's events %zu-%zu", k,
                             ev_text(buf, &run->items[k]), i, end - 1);
            }
        }
        i = end;
    }
}

/* budget_parts: 0 for no limit, else a budget of the circuit and that
 * many partitions. */
static void plan_equals_run(unsigned pw, unsigned budget_parts)
{
    const unsigned threads = 2;
    /* pw 1 outruns the prover, so its worker waits at the hand-off with
     * its partition (the policy under test); pw 2 keeps at most one
     * worker waiting (see the top of the file) */
    synth_base_ms = pw == 1 ? 40.0 : 80.0;
    synth_step_ms = pw == 1 ? 10.0 : 40.0;
    pl__backend_ops slow = pl__backend_cpu;
    slow.name = "virtual-clock-test";
    slow.begin = virtual_begin;
    pl__plan_bytes bytes;
    chain10_bytes(&bytes, &slow, threads);
    pl__sched_reservation r;
    pl__plan_reservation(&r, &bytes);
    uint64_t budget = budget_parts
                          ? pl__plan_resident(&bytes) + budget_parts * r.total
                          : 1ull << 40;

    /* the plan */
    static ev_log planned = {PTHREAD_MUTEX_INITIALIZER, 0, {{0}}};
    pl__ledger *ledger;
    pl_error err = {0};
    pl__ledger_config lc = {PL_LOG_QUIET, NULL, log_event, &planned, false};
    CHECK_OK(pl__ledger_create(&ledger, &lc, &err), &err);
    pl__plan_config pc;
    memset(&pc, 0, sizeof(pc));
    pc.bytes = bytes;
    pc.engine.budget_bytes = budget;
    pc.engine.synth_workers = pw;
    pc.engine.prover_workers = 1;
    pc.policy = PL__SCHED_OURS;
    pc.jobs = JOBS;
    pc.partitions = PARTS;
    pc.duration = plan_duration;
    pc.ledger = ledger;
    pl__plan_result res;
    CHECK_OK(pl__plan_run(&res, &pc, &err), &err);
    pl__ledger_destroy(ledger);
    CHECK(!res.out_of_memory);
    CHECK_EQ(res.proved, JOBS * PARTS);
    CHECK_EQ(planned.n, JOBS * PARTS * 9);
    /* at most one synthesized partition waits for the hand-off's one
     * slot (see the top of the file) */
    CHECK(res.stage_peak[PL_STAGE_WAITING] <= 2);

    /* the run */
    pl_engine_config cfg;
    pl_engine_config_init(&cfg);
    cfg.budget_bytes = budget;
    cfg.synth_workers = pw;
    cfg.prover_workers = 1;
    cfg.threads = threads;
    cfg.on_event = log_virtual;
    cfg.on_stage = virtual_finish;
    pl_engine *e;
    CHECK_OK(pl__engine_create_with_backend(&e, &cfg, &slow, NULL, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, vector_path("circuit.zkey"), NULL,
                                    &err), &err);
    /* the planner's bytes are the engine's */
    pl_wtns *w;
    CHECK_OK(pl_wtns_open(&w, vector_path("witness.wtns"), &err), &err);
    uint64_t part_bytes, resident;
    pl_circuit_plan(c, pl_wtns_count(w) * 32ull, &part_bytes, &resident);
    CHECK_EQ(part_bytes, r.total);
    CHECK_EQ(resident, pl__plan_resident(&bytes));
    gen_ctx gens[JOBS];
    uint64_t ids[JOBS];
    for (unsigned j = 0; j < JOBS; j++) {
        gens[j] = (gen_ctx){w, j + 1};
        pl_job_spec spec = {.circuit = c, .n_partitions = PARTS,
                            .generate = generate, .generate_user = &gens[j]};
        CHECK_OK(pl_engine_submit(e, &ids[j], &spec, &err), &err);
        CHECK_EQ(ids[j], j + 1);
    }
    drive_clock(e, ids, JOBS);
    for (unsigned j = 0; j < JOBS; j++) {
        pl_job_status js;
        CHECK_OK(pl_engine_wait(e, ids[j], &js, &err), &err);
        CHECK_OK(js.status, &js.error);
    }
    pl_engine_stats st;
    pl_engine_stats_read(e, &st);
    pl_circuit_release(c);
    pl_wtns_close(w);
    CHECK_OK(pl_engine_destroy(e, &err), &err);

    compare(&planned, &vc.log);
    CHECK_EQ(st.peak_reserved_bytes, res.peak_reserved_bytes);
    /* Stage peaks are not compared: they count same-instant states too
     * (two workers admitted before either has started synthesis), which
     * the threads' interleaving decides, not the scheduler. */
}

PL_TEST(plan_equals_run_pw1_budget_one)       { plan_equals_run(1, 1); }
PL_TEST(plan_equals_run_pw1_budget_three)     { plan_equals_run(1, 3); }
PL_TEST(plan_equals_run_pw1_unlimited)        { plan_equals_run(1, 0); }
PL_TEST(plan_equals_run_pw2_budget_one)       { plan_equals_run(2, 1); }
PL_TEST(plan_equals_run_pw2_budget_three)     { plan_equals_run(2, 3); }
PL_TEST(plan_equals_run_pw2_unlimited)        { plan_equals_run(2, 0); }

/* ---- the planner alone ------------------------------------------------- */

static double story_duration(void *user, pl__plan_stage stage, uint64_t job,
                             size_t partition, const pl__plan_load *load)
{
    (void)user, (void)job, (void)partition, (void)load;
    static const double s[] = {40.0, 3.71, 1.0};
    return s[stage];
}

/* The story at full scale: 130M constraints, 10 partitions, 755 GiB, one
 * GPU.  Releasing the permit at synthesis end runs out of memory at pw 12
 * with synthesized partitions piled up in front of the prover; the
 * engine's policy stays bounded at the same throughput. */
PL_TEST(story_scale_release_at_synth_end_runs_out_ours_does_not)
{
    pl__plan_shape shape;
    pl_error err = {0};
    CHECK_OK(pl__plan_shape_of(&shape, 130000000, 16, 2.0, &err), &err);
    CHECK_EQ(shape.domain_size, 1u << 27);
    pl__plan_config pc;
    memset(&pc, 0, sizeof(pc));
    pl__plan_bytes_for(&pc.bytes, &shape, &pl__backend_cuda_emulated, 96, 0,
                       0);
    CHECK_EQ(pc.bytes.prove.bytes[PL_BUF_ABC], 12ull << 30); /* the story's */
    pc.engine.synth_workers = 12;
    pc.engine.prover_workers = 1;
    pc.memory_bytes = 755ull << 30;
    pc.jobs = 100;
    pc.partitions = 10;
    pc.duration = story_duration;

    pc.policy = PL__SCHED_RELEASE_AT_SYNTH_END;
    pc.engine.budget_bytes = UINT64_MAX;
    pl__plan_result story;
    CHECK_OK(pl__plan_run(&story, &pc, &err), &err);
    CHECK(story.out_of_memory);
    CHECK(story.oom_stage_now[PL_STAGE_WAITING] >= 20);

    pc.policy = PL__SCHED_OURS;
    pc.engine.budget_bytes = 0; /* the default: 80% of the memory */
    pl__plan_result ours;
    CHECK_OK(pl__plan_run(&ours, &pc, &err), &err);
    CHECK(!ours.out_of_memory);
    CHECK_EQ(ours.proved, 1000);
    CHECK(ours.stage_peak[PL_STAGE_WAITING] <= 12 + 1);
    CHECK(ours.peak_reserved_bytes <= ours.budget_bytes);
    /* the same throughput as the GPU allows: 3.71 s a partition */
    CHECK(fabs(ours.wall_seconds / 1000 - 3.71) < 0.05);
}

PL_TEST(never_fitting_partition_is_refused_as_submission_would)
{
    pl__plan_shape shape;
    pl_error err = {0};
    CHECK_OK(pl__plan_shape_of(&shape, 1u << 16, 1, 2.0, &err), &err);
    pl__plan_config pc;
    memset(&pc, 0, sizeof(pc));
    pl__plan_bytes_for(&pc.bytes, &shape, &pl__backend_cpu, 2, 0, 0);
    pc.engine.budget_bytes = pl__plan_resident(&pc.bytes) + 1000;
    pc.jobs = pc.partitions = 1;
    pc.duration = story_duration;
    pl__plan_result res;
    CHECK_STATUS(pl__plan_run(&res, &pc, &err), PL_EBUDGET, &err);
    CHECK(strstr(err.msg, "smallest budget") != NULL);
}

PL_TEST(costs_file_round_trip_and_errors)
{
    pl_plan_costs c, back;
    memset(&c, 0, sizeof(c));
    snprintf(c.profile, sizeof(c.profile), "test");
    snprintf(c.source, sizeof(c.source), "made up");
    c.cores = 4;
    c.fixed[0] = 0.001;
    c.per_row[1] = 2.5e-6;
    c.per_row[2] = 1e-7;
    pl_error err = {0};
    const char *path = pl_test_tmp("plan_costs.txt");
    CHECK_OK(pl_plan_costs_write(path, &c, &err), &err);
    CHECK_OK(pl_plan_costs_read(&back, path, &err), &err);
    CHECK(strcmp(back.profile, "test") == 0);
    CHECK_EQ(back.cores, 4);
    CHECK(fabs(back.per_row[1] - 2.5e-6) < 1e-12);
    CHECK(fabs(pl_plan_costs_seconds(&back, PL_PLAN_STAGE_PROVE, 1000) -
               2.5e-3) < 1e-9);
    const char bad[] = "profile x\nsynth 1 2\nprove 1\nfinish 0 0\n";
    pl_test_write_file(path, bad, sizeof(bad) - 1);
    CHECK_STATUS(pl_plan_costs_read(&back, path, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, ":3: prove") != NULL);
}

/* Stage costs per curve: a file without a `curve` line is BLS12-381's (as
 * files always were); `curve bn128` starts BN254's; both round trip; a
 * curve's section without all three stages, or an unknown curve, is an
 * error naming the line or the curve. */
PL_TEST(costs_per_curve)
{
    pl_plan_costs c, back;
    pl_error err = {0};
    const char *path = pl_test_tmp("plan_costs_curves.txt");
    const char legacy[] = "profile old\nsynth 1 0\nprove 2 0\nfinish 3 0\n";
    pl_test_write_file(path, legacy, sizeof(legacy) - 1);
    CHECK_OK(pl_plan_costs_read(&c, path, &err), &err);
    CHECK(pl_plan_costs_has_curve(&c, PL_CURVE_BLS12_381));
    CHECK(!pl_plan_costs_has_curve(&c, PL_CURVE_BN254));
    CHECK(pl_plan_costs_seconds_curve(&c, PL_CURVE_BLS12_381,
                                      PL_PLAN_STAGE_PROVE, 9) == 2);
    CHECK(pl_plan_costs_seconds_curve(&c, PL_CURVE_BN254,
                                      PL_PLAN_STAGE_PROVE, 9) == 0);

    const char both[] = "profile two\ncores 2\nsynth 1 0\nprove 2 1e-6\n"
                        "finish 3 0\ncurve bn128\nsynth 0.5 0\n"
                        "prove 0.25 5e-7\nfinish 0.125 0\n";
    pl_test_write_file(path, both, sizeof(both) - 1);
    CHECK_OK(pl_plan_costs_read(&c, path, &err), &err);
    CHECK(pl_plan_costs_has_curve(&c, PL_CURVE_BLS12_381));
    CHECK(pl_plan_costs_has_curve(&c, PL_CURVE_BN254));
    CHECK(fabs(pl_plan_costs_seconds_curve(&c, PL_CURVE_BN254,
                                           PL_PLAN_STAGE_PROVE, 1000000) -
               0.75) < 1e-12);
    CHECK(fabs(pl_plan_costs_seconds(&c, PL_PLAN_STAGE_PROVE, 1000000) - 3) <
          1e-12);
    CHECK_OK(pl_plan_costs_write(path, &c, &err), &err);
    CHECK_OK(pl_plan_costs_read(&back, path, &err), &err);
    CHECK(back.bn254 && !back.no_bls12_381);
    for (int st = 0; st < PL_PLAN_STAGE_COUNT; st++) {
        CHECK(fabs(back.fixed[st] - c.fixed[st]) < 1e-12);
        CHECK(fabs(back.bn254_fixed[st] - c.bn254_fixed[st]) < 1e-12);
        CHECK(fabs(back.bn254_per_row[st] - c.bn254_per_row[st]) < 1e-18);
    }

    /* BN254's alone: no BLS12-381 stages, and it round trips so */
    const char bn_only[] = "profile bn\ncurve bn128\nsynth 1 0\nprove 1 0\n"
                           "finish 1 0\n";
    pl_test_write_file(path, bn_only, sizeof(bn_only) - 1);
    CHECK_OK(pl_plan_costs_read(&c, path, &err), &err);
    CHECK(!pl_plan_costs_has_curve(&c, PL_CURVE_BLS12_381));
    CHECK(pl_plan_costs_has_curve(&c, PL_CURVE_BN254));
    CHECK_OK(pl_plan_costs_write(path, &c, &err), &err);
    CHECK_OK(pl_plan_costs_read(&back, path, &err), &err);
    CHECK(back.no_bls12_381 && back.bn254);

    const char partial[] = "synth 1 0\nprove 1 0\nfinish 1 0\n"
                           "curve bn128\nsynth 1 0\nfinish 1 0\n";
    pl_test_write_file(path, partial, sizeof(partial) - 1);
    CHECK_STATUS(pl_plan_costs_read(&c, path, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "curve bn128: prove: missing") != NULL);
    const char unknown[] = "synth 1 0\nprove 1 0\nfinish 1 0\ncurve bn254x\n";
    pl_test_write_file(path, unknown, sizeof(unknown) - 1);
    CHECK_STATUS(pl_plan_costs_read(&c, path, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, ":4: curve: 'bn254x' is not a curve") != NULL);
}

/* A bn128 circuit's plan takes BN254's stage costs and a BLS12-381 one
 * BLS12-381's, from one file; a profile without the circuit's curve is
 * refused naming both; the bytes of a bn128 zkey's plan are the engine's
 * (pl_circuit_plan) for the same key, as for BLS12-381. */
PL_TEST(bn254_circuit_plans_with_bn254_costs)
{
    pl_plan_costs costs;
    memset(&costs, 0, sizeof(costs));
    snprintf(costs.profile, sizeof(costs.profile), "two-curves");
    costs.cores = 2;
    costs.fixed[PL_PLAN_STAGE_SYNTH] = 1;
    costs.fixed[PL_PLAN_STAGE_PROVE] = 2;
    costs.fixed[PL_PLAN_STAGE_FINISH] = 0.5;
    costs.bn254 = true;
    costs.bn254_fixed[PL_PLAN_STAGE_SYNTH] = 0.25;
    costs.bn254_fixed[PL_PLAN_STAGE_PROVE] = 0.75;
    costs.bn254_fixed[PL_PLAN_STAGE_FINISH] = 0.125;
    char bn_zkey[512], bn_wtns[512], bls_zkey[512];
    snprintf(bn_zkey, sizeof(bn_zkey), "%s/bn254/chain10/circuit.zkey",
             PL_TEST_VECTORS);
    snprintf(bn_wtns, sizeof(bn_wtns), "%s/bn254/chain10/witness.wtns",
             PL_TEST_VECTORS);
    snprintf(bls_zkey, sizeof(bls_zkey), "%s/chain10/circuit.zkey",
             PL_TEST_VECTORS);
    pl_error err = {0};
    pl_plan_config cfg;
    pl_plan_config_init(&cfg);
    cfg.cores = 2;
    cfg.memory_bytes = 8ull << 30;
    cfg.synth_workers = cfg.prover_workers = 1;
    cfg.jobs = 1; /* one partition: no stage shares the cores, none stretched */
    cfg.costs = &costs;
    pl_plan *plan;
    pl_plan_result r;

    cfg.zkey_path = bn_zkey;
    CHECK_OK(pl_plan_run(&plan, &cfg, &err), &err);
    pl_plan_result_read(plan, &r);
    pl_plan_destroy(plan);
    CHECK_EQ(r.curve, PL_CURVE_BN254);
    CHECK_EQ(r.proved, 1);
    CHECK(fabs(r.stage_seconds[PL_PLAN_STAGE_SYNTH] - 0.25) < 1e-9);
    CHECK(fabs(r.stage_seconds[PL_PLAN_STAGE_PROVE] - 0.75) < 1e-9);
    CHECK(fabs(r.stage_seconds[PL_PLAN_STAGE_FINISH] - 0.125) < 1e-9);

    /* the engine's bytes for the same key */
    pl_wtns *w;
    CHECK_OK(pl_wtns_open(&w, bn_wtns, &err), &err);
    cfg.witness_bytes = pl_wtns_count(w) * 32ull;
    CHECK_OK(pl_plan_run(&plan, &cfg, &err), &err);
    pl_plan_result_read(plan, &r);
    pl_plan_destroy(plan);
    pl_engine_config ec;
    pl_engine_config_init(&ec);
    ec.threads = 2;
    pl_engine *e;
    CHECK_OK(pl_engine_create(&e, &ec, &err), &err);
    pl_circuit *c;
    CHECK_OK(pl_engine_open_circuit(e, &c, bn_zkey, NULL, &err), &err);
    CHECK_EQ(pl_circuit_curve(c), PL_CURVE_BN254);
    uint64_t part_bytes, resident;
    pl_circuit_plan(c, pl_wtns_count(w) * 32ull, &part_bytes, &resident);
    CHECK_EQ(r.partition_bytes, part_bytes);
    CHECK_EQ(r.resident_bytes, resident);
    pl_circuit_release(c);
    pl_wtns_close(w);
    CHECK_OK(pl_engine_destroy(e, &err), &err);
    cfg.witness_bytes = 0;

    cfg.zkey_path = bls_zkey;
    CHECK_OK(pl_plan_run(&plan, &cfg, &err), &err);
    pl_plan_result_read(plan, &r);
    pl_plan_destroy(plan);
    CHECK_EQ(r.curve, PL_CURVE_BLS12_381);
    CHECK(fabs(r.stage_seconds[PL_PLAN_STAGE_PROVE] - 2) < 1e-9);

    /* by constraints: the curve given */
    cfg.zkey_path = NULL;
    cfg.constraints = 1000;
    cfg.publics = 1;
    cfg.curve = PL_CURVE_BN254;
    CHECK_OK(pl_plan_run(&plan, &cfg, &err), &err);
    pl_plan_result_read(plan, &r);
    pl_plan_destroy(plan);
    CHECK_EQ(r.curve, PL_CURVE_BN254);
    CHECK(fabs(r.stage_seconds[PL_PLAN_STAGE_PROVE] - 0.75) < 1e-9);

    /* a BLS12-381 profile (no curve line) for a bn128 circuit: refused */
    costs.bn254 = false;
    cfg.constraints = 0;
    cfg.zkey_path = bn_zkey;
    CHECK_STATUS(pl_plan_run(&plan, &cfg, &err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "the circuit is for curve bn128, but the costs "
                          "(profile two-curves) give stage costs for "
                          "bls12381 only") != NULL);
}

/* Issue 29 item 3: the planner's `--gpus N` makes the engine's decision,
 * one prover worker per device (pl__sched_config_complete, which the
 * engine calls with its devices): with the GPU the bottleneck, two GPUs
 * prove the same load in half the time, within the same budget, and an
 * explicit prover_workers still wins over the default. */
PL_TEST(gpus_give_one_prover_worker_each_as_the_engine)
{
    pl__plan_shape shape;
    pl_error err = {0};
    CHECK_OK(pl__plan_shape_of(&shape, 130000000, 16, 2.0, &err), &err);
    pl__plan_config pc;
    memset(&pc, 0, sizeof(pc));
    pl__plan_bytes_for(&pc.bytes, &shape, &pl__backend_cuda_emulated, 96, 0,
                       0);
    pc.engine.synth_workers = 24; /* 40 s / 24 < 3.71 s / 2: GPU-bound */
    pc.memory_bytes = 1536ull << 30;
    pc.jobs = 20;
    pc.partitions = 10;
    pc.duration = story_duration;
    pc.policy = PL__SCHED_OURS;
    double wall[3] = {0};
    for (unsigned gpus = 1; gpus <= 2; gpus++) {
        pc.engine.devices = gpus;
        pc.engine.prover_workers = 0; /* the default: one per device */
        pl__plan_result res;
        CHECK_OK(pl__plan_run(&res, &pc, &err), &err);
        CHECK(!res.out_of_memory);
        CHECK_EQ(res.proved, 200);
        CHECK_EQ(res.servers[PL__PLAN_PROVE], gpus);
        CHECK(res.peak_reserved_bytes <= res.budget_bytes);
        /* the engine's own completion of the same configuration */
        pl_engine_config ec;
        memset(&ec, 0, sizeof(ec));
        ec.devices = gpus;
        pl__sched_config_complete(&ec, pc.memory_bytes, gpus);
        CHECK_EQ(ec.prover_workers, res.servers[PL__PLAN_PROVE]);
        wall[gpus] = res.wall_seconds;
    }
    CHECK(fabs(wall[2] / wall[1] - 0.5) < 0.05);
    pc.engine.devices = 2;
    pc.engine.prover_workers = 1;
    pl__plan_result one;
    CHECK_OK(pl__plan_run(&one, &pc, &err), &err);
    CHECK_EQ(one.servers[PL__PLAN_PROVE], 1);
    CHECK(fabs(one.wall_seconds / wall[1] - 1.0) < 0.05);
}
