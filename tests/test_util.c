/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The utilities alone, without an engine around them: the accounted
 * allocator (exact frees, peaks and their reset, largest request, the host
 * total, leak naming, fault injection), the worker pool (every task once,
 * worker indices, thread names, concurrent runs), size parsing and
 * printing, the byte budget (reserve, release, peak, try, give up, and
 * a waiter woken by a release or a wake from another thread), and the
 * memory limit read from RAM and a (fake) cgroup, and error messages too
 * long for pl_error kept at their end.
 */
#define _GNU_SOURCE
#include "harness.h"
#include "engine/budget.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/sysmem.h"
#include "util/error.h"

#include <errno.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <time.h>

#define MIB (1024u * 1024u)

static pl_alloc_stats stats_of(pl_buffer_class cls)
{
    pl_alloc_stats s;
    pl_alloc_stats_read(&s, cls, false);
    return s;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- the accounted allocator ----------------------------------------- */

PL_TEST(alloc_frees_are_exact)
{
    pl_error err = {0};
    /* one from the heap, one mapped (1 MiB and up), one zero-filled */
    void *small = pl__alloc(PL_BUF_WITNESS, 1000, &err);
    void *large = pl__alloc(PL_BUF_WITNESS, 3 * MIB + 5, &err);
    uint8_t *zeroed = pl__calloc(PL_BUF_WITNESS, 4096, &err);
    CHECK(small && large && zeroed);
    for (size_t i = 0; i < 4096; i++)
        CHECK_EQ(zeroed[i], 0);
    pl_alloc_stats s = stats_of(PL_BUF_WITNESS);
    CHECK_EQ(s.live_count, 3);
    CHECK_EQ(s.live_bytes, 1000 + 3 * MIB + 5 + 4096);
    CHECK_EQ(s.total_allocs, 3);
    CHECK_EQ(s.total_frees, 0);
    pl__free(large);
    s = stats_of(PL_BUF_WITNESS);
    CHECK_EQ(s.live_count, 2);
    CHECK_EQ(s.live_bytes, 1000 + 4096);
    pl__free(small);
    pl__free(zeroed);
    pl__free(NULL);
    s = stats_of(PL_BUF_WITNESS);
    CHECK_EQ(s.live_count, 0);
    CHECK_EQ(s.live_bytes, 0);
    CHECK_EQ(s.total_frees, 3);
    /* the other classes saw nothing */
    CHECK_EQ(stats_of(PL_BUF_ABC).total_allocs, 0);
}

PL_TEST(alloc_peaks_and_reset)
{
    pl_error err = {0};
    void *a = pl__alloc(PL_BUF_H, 2 * MIB, &err);
    void *b = pl__alloc(PL_BUF_H, 1 * MIB, &err);
    CHECK(a && b);
    pl__free(a);
    pl_alloc_stats s = stats_of(PL_BUF_H);
    CHECK_EQ(s.high_water_bytes, 3 * MIB); /* the peak outlives the free */
    CHECK_EQ(s.peak_count, 2);
    CHECK_EQ(s.largest_request, 2 * MIB);
    /* a reset restarts the peaks at what is live now */
    pl_alloc_stats_read(&s, PL_BUF_H, true);
    CHECK_EQ(s.high_water_bytes, 3 * MIB); /* the read returns the old ones */
    s = stats_of(PL_BUF_H);
    CHECK_EQ(s.high_water_bytes, 1 * MIB);
    CHECK_EQ(s.peak_count, 1);
    CHECK_EQ(s.largest_request, 2 * MIB); /* not a peak: never reset */
    pl__free(b);
    s = stats_of(PL_BUF_H);
    CHECK_EQ(s.high_water_bytes, 1 * MIB);
    CHECK_EQ(s.live_bytes, 0);
}

PL_TEST(alloc_total_counts_host_classes_only)
{
    pl_error err = {0};
    void *host = pl__alloc(PL_BUF_PARAMS, 5000, &err);
    CHECK(host);
    CHECK(pl__alloc_account(PL_BUF_DEVICE, 7 * MIB, &err));
    CHECK(pl__alloc_account(PL_BUF_PINNED, 3000, &err));
    uint64_t live, peak;
    pl_alloc_total(&live, &peak);
    CHECK_EQ(live, 5000 + 3000); /* device memory is not in the RSS */
    CHECK_EQ(peak, 5000 + 3000);
    CHECK_EQ(stats_of(PL_BUF_DEVICE).live_bytes, 7 * MIB);
    pl__alloc_unaccount(PL_BUF_DEVICE, 7 * MIB);
    pl__alloc_unaccount(PL_BUF_PINNED, 3000);
    pl__free(host);
    pl_alloc_total(&live, &peak);
    CHECK_EQ(live, 0);
    CHECK_EQ(peak, 8000);
    CHECK_EQ(stats_of(PL_BUF_DEVICE).total_frees, 1);
}

PL_TEST(alloc_names_live_classes)
{
    pl_error err = {0};
    CHECK(pl_alloc_all_freed(&err));
    void *p = pl__alloc(PL_BUF_MSM_SCRATCH, 64, &err);
    void *q = pl__alloc(PL_BUF_CSR, 64, &err);
    CHECK(p && q);
    CHECK(!pl_alloc_all_freed(&err));
    CHECK_EQ(err.code, PL_EINTERNAL);
    CHECK(strstr(err.msg, "msm_scratch=1") != NULL);
    CHECK(strstr(err.msg, "csr=1") != NULL);
    pl__free(p);
    pl__free(q);
    CHECK(pl_alloc_all_freed(&err));
}

PL_TEST(alloc_fault_injection)
{
    pl_error err = {0};
    pl__alloc_fail_at(0); /* mark */
    void *a = pl__alloc(PL_BUF_ABC, 100, &err);
    CHECK(a);
    CHECK_EQ(pl__alloc_fail_at(2), 1); /* one made since the mark */
    void *b = pl__alloc(PL_BUF_ABC, 100, &err);
    CHECK(b);
    void *c = pl__alloc(PL_BUF_ABC, 12345, &err); /* the second from then */
    CHECK(c == NULL);
    CHECK_EQ(err.code, PL_ENOMEM);
    CHECK(strstr(err.msg, "12345 bytes of class abc") != NULL);
    /* the injection fired once and is off again */
    CHECK(pl__alloc_account(PL_BUF_DEVICE, 1, &err));
    pl__alloc_unaccount(PL_BUF_DEVICE, 1);
    /* foreign memory fails under injection too */
    pl__alloc_fail_at(1);
    CHECK(!pl__alloc_account(PL_BUF_DEVICE, 1, &err));
    CHECK_EQ(err.code, PL_ENOMEM);
    CHECK_EQ(stats_of(PL_BUF_DEVICE).total_allocs, 1);
    /* a failed allocation counts nothing */
    pl_alloc_stats s = stats_of(PL_BUF_ABC);
    CHECK_EQ(s.live_count, 2);
    CHECK_EQ(s.total_allocs, 2);
    pl__free(a);
    pl__free(b);
    /* unknown classes are refused, not counted */
    CHECK(pl__alloc(PL_BUF_CLASS_COUNT, 8, &err) == NULL);
    CHECK_EQ(err.code, PL_EINTERNAL);
    CHECK(strcmp(pl_buffer_class_name(PL_BUF_CLASS_COUNT), "unknown") == 0);
    CHECK(strcmp(pl_buffer_class_name(PL_BUF_MSM_SCRATCH), "msm_scratch") == 0);
}

/* ---- the worker pool --------------------------------------------------- */

#define POOL_TASKS 5000

typedef struct {
    _Atomic unsigned runs[POOL_TASKS];
    _Atomic unsigned bad_worker, bad_name, by_workers;
    unsigned size;
} pool_check;

static void count_task(void *ctx, size_t task, unsigned worker)
{
    pool_check *c = ctx;
    atomic_fetch_add(&c->runs[task], 1);
    if (worker >= c->size)
        atomic_fetch_add(&c->bad_worker, 1);
    if (worker == 0)
        return; /* the caller keeps its own name */
    atomic_fetch_add(&c->by_workers, 1);
    char name[16], want[32];
    snprintf(want, sizeof(want), "pl-test-%u", worker);
    if (pthread_getname_np(pthread_self(), name, sizeof(name)) != 0 ||
        strcmp(name, want) != 0)
        atomic_fetch_add(&c->bad_name, 1);
}

static void check_every_task_once(pool_check *c)
{
    for (size_t t = 0; t < POOL_TASKS; t++)
        CHECK_EQ(atomic_load(&c->runs[t]), 1);
    CHECK_EQ(atomic_load(&c->bad_worker), 0);
    CHECK_EQ(atomic_load(&c->bad_name), 0);
}

PL_TEST(pool_runs_every_task_once)
{
    pl_error err = {0};
    pl__pool *pool = NULL;
    CHECK_OK(pl__pool_create(&pool, 4, "pl-test", &err), &err);
    CHECK_EQ(pl__pool_size(pool), 4);
    for (int round = 0; round < 3; round++) { /* the pool is reusable */
        static pool_check c;
        memset(&c, 0, sizeof(c));
        c.size = 4;
        pl__pool_run(pool, POOL_TASKS, count_task, &c);
        check_every_task_once(&c);
    }
    pl__pool_run(pool, 0, count_task, NULL); /* nothing to do */
    pl__pool_destroy(pool);
    pl__pool_destroy(NULL);
}

PL_TEST(pool_of_one_and_null_run_on_the_caller)
{
    pl_error err = {0};
    pl__pool *pool = NULL;
    CHECK_OK(pl__pool_create(&pool, 1, "pl-test", &err), &err);
    CHECK_EQ(pl__pool_size(pool), 1);
    static pool_check c;
    c.size = 1;
    pl__pool_run(pool, POOL_TASKS, count_task, &c);
    check_every_task_once(&c);
    CHECK_EQ(atomic_load(&c.by_workers), 0);
    pl__pool_destroy(pool);

    CHECK_EQ(pl__pool_size(NULL), 1);
    memset(&c, 0, sizeof(c));
    c.size = 1;
    pl__pool_run(NULL, POOL_TASKS, count_task, &c);
    check_every_task_once(&c);
}

PL_TEST(pool_sizes_are_clamped)
{
    CHECK_EQ(pl__pool_threads_for(0), pl__cpu_count());
    CHECK_EQ(pl__pool_threads_for(3), 3);
    CHECK_EQ(pl__pool_threads_for(PL__POOL_MAX_THREADS + 1),
             PL__POOL_MAX_THREADS);
    CHECK(pl__cpu_count() >= 1);
}

typedef struct {
    pl__pool *pool;
    pool_check check;
} pool_caller;

static void *run_from_thread(void *arg)
{
    pool_caller *pc = arg;
    pl__pool_run(pc->pool, POOL_TASKS, count_task, &pc->check);
    return NULL;
}

PL_TEST(pool_concurrent_runs_queue)
{
    pl_error err = {0};
    pl__pool *pool = NULL;
    CHECK_OK(pl__pool_create(&pool, 3, "pl-test", &err), &err);
    static pool_caller callers[3];
    pthread_t threads[3];
    for (int i = 0; i < 3; i++) {
        callers[i].pool = pool;
        callers[i].check.size = 3;
        CHECK_EQ(pthread_create(&threads[i], NULL, run_from_thread,
                                &callers[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(threads[i], NULL);
        check_every_task_once(&callers[i].check);
    }
    pl__pool_destroy(pool);
}

/* ---- messages ------------------------------------------------------------ */

/* A message longer than pl_error.msg keeps its end (what to do) and loses
 * the front of its leading path, cut at a component: the service's job
 * folders made the engine's "--check-witness" hint fall off the end. */
PL_TEST(long_messages_keep_their_end)
{
    char path[400] = "/srv";
    while (strlen(path) < 300)
        strcat(path, "/a-long-folder-name");
    strcat(path, "/w0.wtns");
    pl_error err = {0};
    CHECK(pl__error_set(&err, PL_EINVALID, "%s: the proof does not verify "
                        "(--check-witness names the constraint)",
                        path) == PL_EINVALID);
    CHECK(strlen(err.msg) < sizeof(err.msg));
    CHECK(strncmp(err.msg, ".../", 4) == 0);
    CHECK(strstr(err.msg, "/w0.wtns: the proof does not verify "
                 "(--check-witness names the constraint)") != NULL);
    /* a short one is kept as it is, errno's text included */
    CHECK(pl__error_errno(&err, PL_EIO, ENOENT, "%s: open", "x.zkey") ==
          PL_EIO);
    CHECK(strcmp(err.msg, "x.zkey: open: No such file or directory") == 0);
    /* the file's own name stays whatever follows it (a fuzzed field
     * quoted in the message): its folders go, then the end */
    char field[600];
    memset(field, 'f', sizeof(field) - 1);
    field[sizeof(field) - 1] = 0;
    pl__error_set(&err, PL_EFORMAT, "/tmp/in/x.costs:2: '%s' is not a field",
                  field);
    CHECK(strncmp(err.msg, ".../x.costs:2: 'fff", 19) == 0);
    CHECK(strlen(err.msg) == sizeof(err.msg) - 1);
    CHECK(strcmp(err.msg + sizeof(err.msg) - 4, "...") == 0);
    /* two long paths: the longer loses folders first, both names and the
     * words between and after them stay */
    char deep[200] = "/check";
    while (strlen(deep) < 120)
        strcat(deep, "/build-tree");
    pl__error_set(&err, PL_EFORMAT,
                  "%s/tmp/run.x/multiplier.proof.json is for curve bn128 but "
                  "%s/tests/vectors/verification_key.json is for curve "
                  "bls12381", deep, deep);
    CHECK(strlen(err.msg) < sizeof(err.msg));
    CHECK(strstr(err.msg, "/multiplier.proof.json is for curve bn128 but ") !=
          NULL);
    CHECK(strstr(err.msg, "/verification_key.json is for curve bls12381") !=
          NULL);
    /* no path to shorten: cut at the end, marked */
    char words[600];
    memset(words, 'w', sizeof(words) - 1);
    words[sizeof(words) - 1] = 0;
    pl__error_set(&err, PL_EUSAGE, "%s", words);
    CHECK(strlen(err.msg) == sizeof(err.msg) - 1);
    CHECK(strcmp(err.msg + sizeof(err.msg) - 4, "...") == 0);
}

/* ---- sizes --------------------------------------------------------------- */

PL_TEST(size_parse)
{
    static const struct {
        const char *text;
        uint64_t bytes;
    } good[] = {
        {"1", 1},
        {"1000000", 1000000},
        {"512B", 512},
        {"4GiB", 4ull << 30},
        {"4gib", 4ull << 30},
        {"4G", 4ull << 30},
        {"512MiB", 512ull << 20},
        {"64k", 64 << 10},
        {"1.5GB", 1500000000},
        {"1.5GiB", 3ull << 29},
        {"2TB", 2000000000000ull},
        {"1TiB", 1ull << 40},
        {"0.5KiB", 512},
        {"1.", 1},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        uint64_t v = 0;
        if (!pl_parse_size(good[i].text, &v))
            pl_test_fail(__FILE__, __LINE__, "'%s' refused", good[i].text);
        if (v != good[i].bytes)
            pl_test_fail(__FILE__, __LINE__, "'%s' -> %llu, wanted %llu",
                         good[i].text, (unsigned long long)v,
                         (unsigned long long)good[i].bytes);
    }
    /* no sign, hex, exponent, spaces, unknown unit, zero or overflow */
    static const char *const bad[] = {
        "", "-1", "+1", "0", "0.1", "0x10", "1e3", " 1", "1 GiB", "GiB",
        "12Q", "1.5.5", "1GiBs", "99999999999TiB", "20000000000000000000",
        "123456789012345678901234567890123456789012345678901234567890123456"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t v = 7;
        if (pl_parse_size(bad[i], &v))
            pl_test_fail(__FILE__, __LINE__, "'%s' accepted as %llu", bad[i],
                         (unsigned long long)v);
        CHECK_EQ(v, 7); /* untouched */
    }
    uint64_t v;
    CHECK(!pl_parse_size(NULL, &v));
}

PL_TEST(size_format)
{
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        {0, "0B"},
        {1023, "1023B"},
        {1024, "1.0KiB"},
        {1536, "1.5KiB"},
        {96ull << 20, "96.0MiB"},
        {(3ull << 30) / 2, "1.5GiB"},
        {1ull << 40, "1.0TiB"},
        {5000ull << 40, "5000.0TiB"}, /* no unit past TiB */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[32];
        const char *got = pl_format_bytes(buf, sizeof(buf), cases[i].bytes);
        CHECK(got == buf);
        if (strcmp(got, cases[i].text) != 0)
            pl_test_fail(__FILE__, __LINE__, "%llu -> '%s', wanted '%s'",
                         (unsigned long long)cases[i].bytes, got,
                         cases[i].text);
    }
    char tiny[4];
    pl_format_bytes(tiny, sizeof(tiny), 96ull << 20); /* truncated, ended */
    CHECK(strcmp(tiny, "96.") == 0);
}

/* ---- the byte budget ---------------------------------------------------- */

PL_TEST(budget_reserve_release_peak)
{
    pl__budget b;
    pl__budget_init(&b, 100);
    uint64_t reserved, peak;
    CHECK(pl__budget_try_reserve(&b, 60));
    CHECK(!pl__budget_try_reserve(&b, 41)); /* 60 + 41 > 100 */
    CHECK(pl__budget_reserve(&b, 40, NULL, NULL)); /* exactly to the limit */
    pl__budget_read(&b, &reserved, &peak);
    CHECK_EQ(reserved, 100);
    CHECK_EQ(peak, 100);
    pl__budget_release(&b, 60);
    pl__budget_read(&b, &reserved, &peak);
    CHECK_EQ(reserved, 40);
    CHECK_EQ(peak, 100); /* the peak stays */
    CHECK(pl__budget_try_reserve(&b, 0));
    pl__budget_release(&b, 40);
    pl__budget_read(&b, &reserved, NULL);
    CHECK_EQ(reserved, 0);
    pl__budget_destroy(&b);
}

static bool always(void *ctx) { return true; }

PL_TEST(budget_refuses_without_waiting)
{
    pl__budget b;
    pl__budget_init(&b, 100);
    /* more than the limit can never fit: refused at once */
    CHECK(!pl__budget_reserve(&b, 101, NULL, NULL));
    CHECK(!pl__budget_try_reserve(&b, 101));
    /* give_up is asked before waiting, even when the bytes would fit */
    CHECK(!pl__budget_reserve(&b, 10, always, NULL));
    uint64_t reserved, peak;
    pl__budget_read(&b, &reserved, &peak);
    CHECK_EQ(reserved, 0);
    CHECK_EQ(peak, 0);
    pl__budget_destroy(&b);
}

typedef struct {
    pl__budget *budget;
    uint64_t bytes;
    atomic_bool stop;
    atomic_int result; /* -1 while waiting, then 0 or 1 */
    atomic_int give_up_calls;
} waiter;

static bool waiter_gives_up(void *ctx)
{
    waiter *w = ctx;
    atomic_fetch_add(&w->give_up_calls, 1);
    return atomic_load(&w->stop);
}

static void *waiter_main(void *arg)
{
    waiter *w = arg;
    bool ok = pl__budget_reserve(w->budget, w->bytes, waiter_gives_up, w);
    atomic_store(&w->result, ok ? 1 : 0);
    return NULL;
}

/* Waits up to a second for the waiter to have asked give_up `calls` times:
 * then it is blocked in the budget. */
static void wait_for_calls(waiter *w, int calls)
{
    for (int i = 0; i < 1000 && atomic_load(&w->give_up_calls) < calls; i++)
        sleep_ms(1);
    CHECK(atomic_load(&w->give_up_calls) >= calls);
}

/* Joins the waiter once it has returned; a waiter that was never woken
 * fails the test within a second instead of hanging it. */
static int join_waiter(waiter *w, pthread_t t)
{
    for (int i = 0; i < 1000 && atomic_load(&w->result) < 0; i++)
        sleep_ms(1);
    CHECK(atomic_load(&w->result) >= 0);
    pthread_join(t, NULL);
    return atomic_load(&w->result);
}

/* A budget of 100 with 80 reserved, and a thread waiting for 50 more. */
static pthread_t start_waiter(pl__budget *b, waiter *w)
{
    pl__budget_init(b, 100);
    CHECK(pl__budget_try_reserve(b, 80));
    *w = (waiter){.budget = b, .bytes = 50, .result = -1};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, waiter_main, w), 0);
    wait_for_calls(w, 1);
    return t;
}

PL_TEST(budget_waiter_woken_by_release)
{
    pl__budget b;
    waiter w;
    pthread_t t = start_waiter(&b, &w);
    sleep_ms(20);
    CHECK_EQ(atomic_load(&w.result), -1); /* 80 + 50 > 100: still waiting */
    pl__budget_release(&b, 20); /* 60 + 50 > 100: wakes, waits again */
    wait_for_calls(&w, 2);
    CHECK_EQ(atomic_load(&w.result), -1);
    pl__budget_release(&b, 60);
    CHECK_EQ(join_waiter(&w, t), 1);
    uint64_t reserved, peak;
    pl__budget_read(&b, &reserved, &peak);
    CHECK_EQ(reserved, 50);
    CHECK_EQ(peak, 80);
    pl__budget_release(&b, 50);
    pl__budget_destroy(&b);
}

PL_TEST(budget_wake_lets_a_waiter_give_up)
{
    pl__budget b;
    waiter w;
    pthread_t t = start_waiter(&b, &w);
    pl__budget_wake(&b); /* nothing changed: it waits on */
    wait_for_calls(&w, 2);
    CHECK_EQ(atomic_load(&w.result), -1);
    atomic_store(&w.stop, true);
    pl__budget_wake(&b);
    CHECK_EQ(join_waiter(&w, t), 0);
    uint64_t reserved;
    pl__budget_read(&b, &reserved, NULL);
    CHECK_EQ(reserved, 80); /* nothing taken */
    pl__budget_release(&b, 80);
    pl__budget_destroy(&b);
}

/* ---- the memory limit: RAM and the cgroup's --------------------------- */

/* Writes text to root/relative, making its folders. */
static void fake_file(const char *root, const char *relative, const char *text)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, relative);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    pl_test_write_file(path, text, strlen(text));
}

/* A fake /proc and /sys under a scratch folder: cgroup v2 (memory.max of
 * the cgroup and of its ancestors, the smallest binding; "max" is none),
 * cgroup v1 (memory.limit_in_bytes, its "no limit" value, a cgroup path
 * that does not exist below the mount as in a container's namespace), and
 * no cgroup at all.  The default budget used RAM alone before. */
PL_TEST(cgroup_memory_limit_from_fake_files)
{
    char root[4096];
    snprintf(root, sizeof(root), "%s", pl_test_tmp("fake_cgroup_v2"));
    fake_file(root, "proc/self/cgroup", "0::/machine/job\n");
    fake_file(root, "sys/fs/cgroup/machine/memory.max", "3221225472\n");
    fake_file(root, "sys/fs/cgroup/machine/job/memory.max", "max\n");
    CHECK_EQ(pl__cgroup_memory_limit(root), 3ull << 30);
    fake_file(root, "sys/fs/cgroup/machine/job/memory.max", "1073741824\n");
    CHECK_EQ(pl__cgroup_memory_limit(root), 1ull << 30);

    snprintf(root, sizeof(root), "%s", pl_test_tmp("fake_cgroup_v1"));
    fake_file(root, "proc/self/cgroup",
              "5:cpu,cpuacct:/x\n4:memory:/gone/away\n0::/\n");
    fake_file(root, "sys/fs/cgroup/memory/memory.limit_in_bytes",
              "9223372036854771712\n");
    CHECK_EQ(pl__cgroup_memory_limit(root), UINT64_MAX);
    fake_file(root, "sys/fs/cgroup/memory/memory.limit_in_bytes",
              "2147483648\n");
    CHECK_EQ(pl__cgroup_memory_limit(root), 2ull << 30);

    snprintf(root, sizeof(root), "%s", pl_test_tmp("fake_cgroup_none"));
    fake_file(root, "proc/self/cgroup", "0::/\n");
    CHECK_EQ(pl__cgroup_memory_limit(root), UINT64_MAX);
    CHECK_EQ(pl__cgroup_memory_limit(pl_test_tmp("no_such_root")),
             UINT64_MAX);

    /* the real one: never more than RAM */
    uint64_t limit = pl_memory_limit(), ram = pl__physical_memory();
    CHECK(limit > 0 && limit <= ram);
}

/* Reads of a cgroup v1 controller list from threads at once, as engines
 * created side by side do: each finds its limit.  strtok's one hidden
 * position was shared by the threads (ThreadSanitizer reported it in
 * engine.two_engines_destroy_independently on a v1 host), so a list could
 * be walked from another thread's line. */
typedef struct {
    const char *root;
    atomic_int wrong;
} cgroup_readers;

static void *read_cgroup_limit_often(void *user)
{
    cgroup_readers *r = user;
    for (int i = 0; i < 200; i++)
        if (pl__cgroup_memory_limit(r->root) != (2ull << 30))
            atomic_fetch_add(&r->wrong, 1);
    return NULL;
}

PL_TEST(cgroup_memory_limit_from_threads_at_once)
{
    char root[4096];
    snprintf(root, sizeof(root), "%s", pl_test_tmp("fake_cgroup_threads"));
    fake_file(root, "proc/self/cgroup",
              "9:name=systemd:/\n8:pids,freezer,devices,blkio:/\n"
              "7:cpu,cpuacct,net_cls,net_prio,perf_event,memory:/job\n"
              "6:hugetlb,rdma,misc:/\n0::/\n");
    fake_file(root, "sys/fs/cgroup/memory/job/memory.limit_in_bytes",
              "2147483648\n");
    cgroup_readers r = {root, 0};
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, read_cgroup_limit_often, &r), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(atomic_load(&r.wrong), 0);
}
