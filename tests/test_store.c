/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's job store (service/store.h) on SQLite: the job's states
 * from receiving to its end, the claim order (priority, then arrival, then
 * index), the byte filter, leases that lapse and are recovered, fencing of
 * a stale owner, cancel, fail, release, heartbeats, counts, purge, a
 * reopened store that kept everything, the schema version check, and
 * several threads and several processes claiming from one store, each
 * partition completed exactly once.
 *
 * Leases here are short (50 ms) and the tests sleep past them: what they
 * check is the state after expiry, never how long anything took.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"
#include "store/store.h"

#include <dirent.h>
#include <ftw.h>
#include <glob.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <fcntl.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCENARIO(name) static void scenario_##name(void)

/* ---- helpers ----------------------------------------------------------- */

static char *store_dir(const char *name)
{
    static char dir[4096];
    snprintf(dir, sizeof(dir), "%s", pl_test_tmp(name));
    /* A fresh folder: the store's three files and the folder go. */
    static const char *const files[] = {"store.sqlite", "store.sqlite-wal",
                                        "store.sqlite-shm"};
    for (int i = 0; i < 3; i++) {
        char p[4200];
        snprintf(p, sizeof(p), "%.4000s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
    return dir;
}

/* The implementation the scenarios run against: SQLite in their own
 * cases, PostgreSQL in the case postgres_store (one server for all). */
typedef enum { BACKEND_SQLITE, BACKEND_POSTGRES } backend;
static backend g_backend = BACKEND_SQLITE;
static const char *pg_fresh_db(const char *name);
static void pg_sql(const char *db, const char *sql);
static long long pg_int(const char *db, const char *sql);
static PGconn *pg_connect(const char *db);

/* A store of its own for a scenario: a fresh folder, or a fresh
 * database. */
static const char *store_loc(const char *name)
{
    return g_backend == BACKEND_POSTGRES ? pg_fresh_db(name) : store_dir(name);
}

static pl__store *open_store(const char *dir)
{
    pl_error err = {0};
    pl__store *s = NULL;
    CHECK_OK(pl__store_open(&s, dir, &err), &err);
    CHECK(s != NULL);
    return s;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A circuit whose id is c repeated 64 times. */
static void put_circuit(pl__store *s, char c, uint64_t partition_bytes)
{
    pl__store_circuit circ = {0};
    memset(circ.id, c, PL__STORE_ID_LEN);
    snprintf(circ.zkey_path, sizeof(circ.zkey_path), "/data/circuits/%c.zkey",
             c);
    circ.zkey_bytes = 1000;
    circ.n_constraints = 4096;
    circ.n_vars = 4000;
    circ.n_public = 2;
    circ.witness_bytes = 4000 * 32 + 76;
    circ.partition_bytes = partition_bytes;
    pl_error err = {0};
    CHECK_OK(pl__store_circuit_put(s, &circ, &err), &err);
}

/* The circuit id made of one letter repeated. One buffer per letter and per
 * thread: the race tests call this from several threads at once, and a call
 * may pass two ids (a and z) in one expression. */
static const char *circuit_id(char c)
{
    static _Thread_local char ids[256][PL__STORE_ID_LEN + 1];
    char *id = ids[(unsigned char)c];
    memset(id, c, PL__STORE_ID_LEN);
    id[PL__STORE_ID_LEN] = 0;
    return id;
}

static void witness_path(char *out, size_t cap, const char *job, uint32_t k)
{
    snprintf(out, cap, "/data/jobs/%.36s/%u.wtns", job, k);
}

static void proof_path(char *out, size_t cap, const char *job, uint32_t k)
{
    snprintf(out, cap, "/data/jobs/%.36s/%u.proof.json", job, k);
}

/* A job of n partitions of circuit c, every witness stored: queued. */
static pl__store_job queued_job(pl__store *s, char c, pl__priority prio,
                                uint32_t n)
{
    pl_error err = {0};
    pl__store_job job;
    CHECK_OK(pl__store_job_create(s, circuit_id(c), prio, n, &job, &err),
             &err);
    for (uint32_t k = 0; k < n; k++) {
        char w[256];
        witness_path(w, sizeof(w), job.id, k);
        CHECK_OK(pl__store_witness_stored(s, job.id, k, w, &job, &err), &err);
    }
    CHECK_EQ(job.state, PL__JOB_QUEUED);
    return job;
}

static pl__store_claim claim(pl__store *s, const char *owner,
                             uint64_t max_bytes, int64_t lease_ms)
{
    pl_error err = {0};
    pl__store_claim c;
    bool found = false;
    CHECK_OK(pl__store_claim_next(s, owner, max_bytes, lease_ms, &c, &found,
                                  &err),
             &err);
    CHECK(found);
    return c;
}

static void claim_none(pl__store *s, uint64_t max_bytes)
{
    pl_error err = {0};
    pl__store_claim c;
    bool found = true;
    CHECK_OK(pl__store_claim_next(s, "nobody", max_bytes, 60000, &c, &found,
                                  &err),
             &err);
    CHECK(!found);
}

static void complete(pl__store *s, const pl__store_claim *c)
{
    pl_error err = {0};
    char p[256];
    proof_path(p, sizeof(p), c->part.job_id, c->part.index);
    CHECK_OK(pl__store_complete(s, c->part.job_id, c->part.index,
                                c->part.owner, c->part.fence, p, &err),
             &err);
}

/* The claim's proof starts (its engine admitted it): from now on losing
 * it costs an attempt. */
static pl__store_claim start(pl__store *s, pl__store_claim c)
{
    pl_error err = {0};
    CHECK_OK(pl__store_claim_started(s, c.part.job_id, c.part.index,
                                     c.part.owner, c.part.fence, &err),
             &err);
    return c;
}

static pl__store_partition part_of(pl__store *s, const char *job, uint32_t k)
{
    pl_error err = {0};
    pl__store_partition parts[64];
    size_t count = 0;
    CHECK_OK(pl__store_partitions(s, job, parts, 64, &count, &err), &err);
    CHECK(k < count && k < 64);
    CHECK_EQ(parts[k].index, k);
    return parts[k];
}

static pl__store_job job_of(pl__store *s, const char *id)
{
    pl_error err = {0};
    pl__store_job job;
    CHECK_OK(pl__store_job_get(s, id, &job, &err), &err);
    return job;
}

/* ---- opening ------------------------------------------------------------- */

PL_TEST(open_creates_private_folder)
{
    const char *dir = store_dir("store_open");
    pl__store *s = open_store(dir);
    struct stat sb;
    CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode));
    CHECK_EQ(sb.st_mode & 0777, 0700);
    CHECK_EQ(pl__store_schema_version(s), 5);
    pl__store_close(s);
    /* Open again: the schema is there, nothing is created twice. */
    s = open_store(dir);
    CHECK_EQ(pl__store_schema_version(s), 5);
    pl__store_close(s);
    pl__store_close(NULL);

    pl_error err = {0};
    CHECK_STATUS(pl__store_open(&s, "", &err), PL_EUSAGE, &err);
    CHECK_STATUS(pl__store_open(&s, "mysql://x/y", &err), PL_EUNSUPPORTED,
                 &err);
    /* A file where the folder should be. */
    char file[4200];
    snprintf(file, sizeof(file), "%s/store.sqlite", dir);
    CHECK_STATUS(pl__store_open(&s, file, &err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "store.sqlite") != NULL);
}

/* A schema newer than this build's is refused, naming the file (or the
 * database); so is a SQLite file that is not a store. */
SCENARIO(newer_schema_refused)
{
    const char *loc = store_loc("store_newer");
    char where[4200];
    pl__store_close(open_store(loc));
    if (g_backend == BACKEND_POSTGRES) {
        pg_sql("store_newer", "UPDATE proofline.meta SET version = 6");
        snprintf(where, sizeof(where), "store_newer");
    } else {
        snprintf(where, sizeof(where), "%.4000s/store.sqlite", loc);
        sqlite3 *db = NULL;
        CHECK_EQ(sqlite3_open(where, &db), SQLITE_OK);
        CHECK_EQ(sqlite3_exec(db, "PRAGMA user_version = 6", NULL, NULL,
                              NULL),
                 SQLITE_OK);
        sqlite3_close(db);
    }
    pl_error err = {0};
    pl__store *s = NULL;
    CHECK_STATUS(pl__store_open(&s, loc, &err), PL_EUNSUPPORTED, &err);
    CHECK(s == NULL);
    CHECK(strstr(err.msg, where) != NULL);
    CHECK(strstr(err.msg, "version 6") != NULL);
}

PL_TEST(foreign_file_refused)
{
    const char *dir = store_dir("store_foreign");
    mkdir(dir, 0700);
    char file[4200];
    snprintf(file, sizeof(file), "%.4000s/store.sqlite", dir);
    sqlite3 *db = NULL;
    CHECK_EQ(sqlite3_open(file, &db), SQLITE_OK);
    CHECK_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL),
             SQLITE_OK);
    sqlite3_close(db);
    pl_error err = {0};
    pl__store *s = NULL;
    CHECK_STATUS(pl__store_open(&s, dir, &err), PL_EFORMAT, &err);
    CHECK(strstr(err.msg, "not a proofline store") != NULL);
    CHECK(strstr(err.msg, file) != NULL);
}

/* ---- circuits and jobs -------------------------------------------------- */

static bool count_circuit(void *user, const pl__store_circuit *c)
{
    (*(int *)user)++;
    return true;
}

SCENARIO(circuits)
{
    pl__store *s = open_store(store_loc("store_circuits"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    put_circuit(s, 'a', 999); /* idempotent: the first record stays */
    put_circuit(s, 'b', 200);
    pl__store_circuit c;
    CHECK_OK(pl__store_circuit_get(s, circuit_id('a'), &c, &err), &err);
    CHECK_EQ(c.partition_bytes, 100);
    CHECK_EQ(c.n_constraints, 4096);
    CHECK_EQ(c.witness_bytes, 4000 * 32 + 76);
    CHECK(strcmp(c.zkey_path, "/data/circuits/a.zkey") == 0);
    CHECK(c.created_unix_ms > 0);
    CHECK_STATUS(pl__store_circuit_get(s, circuit_id('z'), &c, &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    /* 40 circuits: more than one page of the listing. */
    for (const char *ch = "cdefghijklmnopqrstuvwxyz0123456789ABCD"; *ch; ch++)
        put_circuit(s, *ch, 1);
    int n = 0;
    CHECK_OK(pl__store_circuit_list(s, count_circuit, &n, &err), &err);
    CHECK_EQ(n, 40);
    pl__store_close(s);
}

SCENARIO(job_states_receiving_to_queued)
{
    pl__store *s = open_store(store_loc("store_states"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job;
    CHECK_STATUS(pl__store_job_create(s, circuit_id('z'), PL__PRIORITY_NORMAL,
                                      2, &job, &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    CHECK_STATUS(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_NORMAL,
                                      0, &job, &err),
                 PL_EUSAGE, &err);
    CHECK(!pl__store_is_not_found(&err));

    CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_NORMAL, 3,
                                  &job, &err),
             &err);
    /* A version 4 UUID. */
    CHECK_EQ(strlen(job.id), 36);
    CHECK(job.id[8] == '-' && job.id[13] == '-' && job.id[18] == '-' &&
          job.id[23] == '-' && job.id[14] == '4');
    CHECK(strchr("89ab", job.id[19]) != NULL);
    CHECK_EQ(job.state, PL__JOB_RECEIVING);
    CHECK_EQ(job.n_partitions, 3);
    CHECK(strcmp(job.circuit_id, circuit_id('a')) == 0);
    CHECK(job.created_unix_ms > 0 && job.seq > 0);
    pl__store_job other;
    CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_NORMAL, 1,
                                  &other, &err),
             &err);
    CHECK(strcmp(other.id, job.id) != 0);
    CHECK(other.seq > job.seq);

    char w[256];
    witness_path(w, sizeof(w), job.id, 1);
    pl__store_job now;
    CHECK_OK(pl__store_witness_stored(s, job.id, 1, w, &now, &err), &err);
    CHECK_EQ(now.state, PL__JOB_RECEIVING);
    pl__store_partition p = part_of(s, job.id, 1);
    CHECK(strcmp(p.witness_path, w) == 0);
    CHECK_EQ(p.state, PL__PART_WAITING);
    CHECK_EQ(part_of(s, job.id, 0).state, PL__PART_WAITING);
    /* Nothing of a job that is still receiving can be claimed. */
    claim_none(s, UINT64_MAX);
    /* A second witness for a partition, and a partition out of range. */
    CHECK_STATUS(pl__store_witness_stored(s, job.id, 1, w, &now, &err),
                 PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "already") != NULL);
    CHECK_STATUS(pl__store_witness_stored(s, job.id, 3, w, &now, &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err)); /* no partition 3: not found */
    CHECK_STATUS(pl__store_witness_stored(s, "00000000-0000-4000-8000-"
                                             "000000000000",
                                          0, w, &now, &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    CHECK_STATUS(pl__store_job_get(s, "nope", &now, &err), PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));

    witness_path(w, sizeof(w), job.id, 0);
    CHECK_OK(pl__store_witness_stored(s, job.id, 0, w, &now, &err), &err);
    CHECK_EQ(now.state, PL__JOB_RECEIVING);
    witness_path(w, sizeof(w), job.id, 2);
    CHECK_OK(pl__store_witness_stored(s, job.id, 2, w, &now, &err), &err);
    CHECK_EQ(now.state, PL__JOB_QUEUED);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_QUEUED);
    for (uint32_t k = 0; k < 3; k++)
        CHECK_EQ(part_of(s, job.id, k).state, PL__PART_QUEUED);
    /* A queued job takes no more witnesses. */
    CHECK_STATUS(pl__store_witness_stored(s, job.id, 2, w, &now, &err),
                 PL_EUSAGE, &err);

    /* partitions: count beyond cap. */
    pl__store_partition parts[2];
    size_t count = 0;
    CHECK_OK(pl__store_partitions(s, job.id, parts, 2, &count, &err), &err);
    CHECK_EQ(count, 3);
    CHECK_EQ(parts[1].index, 1);

    /* queued -> running at the first claim -> done at the last complete. */
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    CHECK(strcmp(c.job.id, job.id) == 0);
    CHECK_EQ(c.job.state, PL__JOB_RUNNING);
    CHECK_EQ(c.part.state, PL__PART_CLAIMED);
    CHECK_EQ(c.part.fence, 1);
    CHECK_EQ(c.part.attempts, 1);
    CHECK(strcmp(c.part.owner, "w1") == 0);
    CHECK(strcmp(c.circuit.id, circuit_id('a')) == 0);
    CHECK_EQ(c.circuit.partition_bytes, 100);
    CHECK(c.part.witness_path[0] != 0);
    complete(s, &c);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_RUNNING);
    for (int i = 0; i < 2; i++) {
        c = claim(s, "w1", UINT64_MAX, 60000);
        CHECK(strcmp(c.job.id, job.id) == 0);
        complete(s, &c);
    }
    pl__store_job done = job_of(s, job.id);
    CHECK_EQ(done.state, PL__JOB_DONE);
    CHECK(done.finished_unix_ms > 0);
    for (uint32_t k = 0; k < 3; k++) {
        p = part_of(s, job.id, k);
        CHECK_EQ(p.state, PL__PART_DONE);
        CHECK_EQ(p.completions, 1);
        char want[256];
        proof_path(want, sizeof(want), job.id, k);
        CHECK(strcmp(p.proof_path, want) == 0);
    }
    pl__store_close(s);
}

/* ---- claims ---------------------------------------------------------------- */

SCENARIO(claim_order_priority_then_arrival)
{
    pl__store *s = open_store(store_loc("store_order"));
    put_circuit(s, 'a', 100);
    pl__store_job low = queued_job(s, 'a', PL__PRIORITY_LOW, 2);
    pl__store_job normal = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    pl__store_job high1 = queued_job(s, 'a', PL__PRIORITY_HIGH, 2);
    pl__store_job high2 = queued_job(s, 'a', PL__PRIORITY_HIGH, 2);
    const pl__store_job *want[] = {&high1, &high1, &high2, &high2,
                                   &normal, &normal, &low, &low};
    for (int i = 0; i < 8; i++) {
        pl__store_claim c = claim(s, "w", UINT64_MAX, 60000);
        CHECK(strcmp(c.part.job_id, want[i]->id) == 0);
        CHECK_EQ(c.part.index, i % 2);
        CHECK_EQ(c.job.priority, want[i]->priority);
    }
    claim_none(s, UINT64_MAX);
    pl__store_close(s);
}

SCENARIO(claim_only_what_fits)
{
    pl__store *s = open_store(store_loc("store_fits"));
    put_circuit(s, 'a', 100);  /* small */
    put_circuit(s, 'b', 1000); /* large */
    pl__store_job big = queued_job(s, 'b', PL__PRIORITY_HIGH, 1);
    pl__store_job small = queued_job(s, 'a', PL__PRIORITY_LOW, 1);
    claim_none(s, 99);
    /* The high-priority job does not fit 500 bytes; the low one does. */
    pl__store_claim c = claim(s, "w", 500, 60000);
    CHECK(strcmp(c.part.job_id, small.id) == 0);
    claim_none(s, 999);
    c = claim(s, "w", 1000, 60000);
    CHECK(strcmp(c.part.job_id, big.id) == 0);
    CHECK_EQ(c.circuit.partition_bytes, 1000);
    pl__store_close(s);
}

/* A lease that lapses: recover requeues it, the next claim's fence is
 * higher, the old owner's complete is refused. */
SCENARIO(lease_expiry_and_recover)
{
    pl__store *s = open_store(store_loc("store_lease"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    /* A claim whose lease has not lapsed stays (10 minutes: however
     * loaded the machine, it does not lapse during the test). */
    pl__store_claim kept = claim(s, "w2", UINT64_MAX, 600000);
    uint64_t requeued = 99;
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 0);
    pl__store_claim old = claim(s, "w1", UINT64_MAX, 50);
    sleep_ms(120);
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 1); /* w1's; w2's lease runs for 10 minutes */
    pl__store_partition p = part_of(s, job.id, old.part.index);
    CHECK_EQ(p.state, PL__PART_QUEUED);
    CHECK(p.owner[0] == 0);
    CHECK_EQ(part_of(s, job.id, kept.part.index).state, PL__PART_CLAIMED);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_RUNNING);
    bool live = true;
    CHECK_OK(pl__store_claim_live(s, job.id, old.part.index, "w1",
                                  old.part.fence, &live, &err),
             &err);
    CHECK(!live);

    pl__store_claim again = claim(s, "w3", UINT64_MAX, 60000);
    CHECK(strcmp(again.part.job_id, job.id) == 0);
    CHECK_EQ(again.part.index, old.part.index);
    CHECK_EQ(again.part.fence, old.part.fence + 1);
    CHECK_EQ(again.part.attempts, 2);
    char pp[256];
    proof_path(pp, sizeof(pp), job.id, old.part.index);
    CHECK_STATUS(pl__store_complete(s, job.id, old.part.index, "w1",
                                    old.part.fence, pp, &err),
                 PL_ECANCELLED, &err);
    complete(s, &again);
    CHECK_EQ(part_of(s, job.id, old.part.index).completions, 1);

    /* At a worker's start: recover(owner) returns its own claims, whatever
     * their lease. */
    CHECK_OK(pl__store_recover(s, "w2", &requeued, &err), &err);
    CHECK_EQ(requeued, 1);
    CHECK_EQ(part_of(s, job.id, kept.part.index).state, PL__PART_QUEUED);
    pl__store_close(s);
}

/* A stale owner (same owner name, older fence, or another owner) can
 * neither complete, nor fail, nor release: PL_ECANCELLED, nothing
 * changes, completions stays 1. */
SCENARIO(fencing)
{
    pl__store *s = open_store(store_loc("store_fence"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    pl__store_claim first = claim(s, "w1", UINT64_MAX, 50);
    sleep_ms(120);
    uint64_t requeued = 0;
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 1);
    /* The same worker id claims it again: only the fence tells the two
     * claims apart. */
    pl__store_claim second = claim(s, "w1", UINT64_MAX, 60000);
    CHECK_EQ(second.part.index, first.part.index);
    CHECK_EQ(second.part.fence, first.part.fence + 1);
    char pp[256];
    proof_path(pp, sizeof(pp), job.id, 0);
    CHECK_STATUS(pl__store_complete(s, job.id, 0, "w1", first.part.fence,
                                    "/stale.json", &err),
                 PL_ECANCELLED, &err);
    CHECK(strstr(err.msg, "claim was lost") != NULL);
    CHECK_STATUS(pl__store_fail(s, job.id, 0, "w1", first.part.fence,
                                "stale failure", &err),
                 PL_ECANCELLED, &err);
    CHECK_STATUS(pl__store_release(s, job.id, 0, "w1", first.part.fence,
                                   &err),
                 PL_ECANCELLED, &err);
    CHECK_STATUS(pl__store_complete(s, job.id, 0, "w9", second.part.fence,
                                    "/other.json", &err),
                 PL_ECANCELLED, &err);
    pl__store_partition p = part_of(s, job.id, 0);
    CHECK_EQ(p.state, PL__PART_CLAIMED);
    CHECK_EQ(p.completions, 0);
    /* The lapse is the partition's last error; the stale failure left
     * none. */
    CHECK(strstr(p.error, "lease of worker w1 lapsed") != NULL);
    CHECK(strstr(p.error, "stale failure") == NULL);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_RUNNING);

    complete(s, &second);
    /* Completing twice, even with the right fence, is refused. */
    CHECK_STATUS(pl__store_complete(s, job.id, 0, "w1", second.part.fence,
                                    "/again.json", &err),
                 PL_ECANCELLED, &err);
    p = part_of(s, job.id, 0);
    CHECK_EQ(p.state, PL__PART_DONE);
    CHECK_EQ(p.completions, 1);
    CHECK(strcmp(p.proof_path, pp) == 0);
    CHECK(p.error[0] == 0); /* done: the attempts keep the history */
    CHECK(strcmp(job_of(s, job.id).error, "") == 0);
    /* Unknown job: not found, not "lost". */
    CHECK_STATUS(pl__store_complete(s, "00000000-0000-4000-8000-000000000000",
                                    0, "w1", 1, "/x", &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    pl__store_close(s);
}

SCENARIO(release_requeues)
{
    pl__store *s = open_store(store_loc("store_release"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    CHECK_OK(pl__store_release(s, job.id, 0, "w1", c.part.fence, &err), &err);
    pl__store_partition p = part_of(s, job.id, 0);
    CHECK_EQ(p.state, PL__PART_QUEUED);
    CHECK(p.owner[0] == 0);
    /* The released claim is gone: its owner can no longer complete. */
    CHECK_STATUS(pl__store_complete(s, job.id, 0, "w1", c.part.fence, "/x",
                                    &err),
                 PL_ECANCELLED, &err);
    pl__store_claim again = claim(s, "w2", UINT64_MAX, 60000);
    CHECK_EQ(again.part.fence, c.part.fence + 1);
    complete(s, &again);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_DONE);
    pl__store_close(s);
}

SCENARIO(heartbeat_extends)
{
    pl__store *s = open_store(store_loc("store_heartbeat"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    pl__store_claim mine = claim(s, "w1", UINT64_MAX, 50);
    pl__store_claim theirs = claim(s, "w2", UINT64_MAX, 50);
    CHECK_OK(pl__store_heartbeat(s, "w1", 600000, &err), &err);
    pl__store_partition p = part_of(s, job.id, mine.part.index);
    CHECK(p.lease_until_unix_ms > mine.part.lease_until_unix_ms + 500000);
    sleep_ms(120);
    uint64_t requeued = 0;
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 1); /* w2's, which had no heartbeat */
    CHECK_EQ(part_of(s, job.id, theirs.part.index).state, PL__PART_QUEUED);
    bool live = false;
    CHECK_OK(pl__store_claim_live(s, job.id, mine.part.index, "w1",
                                  mine.part.fence, &live, &err),
             &err);
    CHECK(live);
    /* A heartbeat does not bring back a claim that was lost. */
    CHECK_OK(pl__store_heartbeat(s, "w2", 600000, &err), &err);
    CHECK_EQ(part_of(s, job.id, theirs.part.index).state, PL__PART_QUEUED);
    pl__store_close(s);
}

/* ---- cancel and fail --------------------------------------------------------- */

SCENARIO(cancel_queued_and_claimed)
{
    pl__store *s = open_store(store_loc("store_cancel"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job queued = queued_job(s, 'a', PL__PRIORITY_HIGH, 2);
    bool changed = false;
    CHECK_OK(pl__store_job_cancel(s, queued.id, &changed, &err), &err);
    CHECK(changed);
    pl__store_job j = job_of(s, queued.id);
    CHECK_EQ(j.state, PL__JOB_CANCELLED);
    CHECK(j.finished_unix_ms > 0);
    for (uint32_t k = 0; k < 2; k++)
        CHECK_EQ(part_of(s, queued.id, k).state, PL__PART_CANCELLED);
    claim_none(s, UINT64_MAX);
    CHECK_OK(pl__store_job_cancel(s, queued.id, &changed, &err), &err);
    CHECK(!changed);

    /* A job with a claimed partition and a queued one. */
    pl__store_job running = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    CHECK_OK(pl__store_job_cancel(s, running.id, &changed, &err), &err);
    CHECK(changed);
    CHECK_EQ(job_of(s, running.id).state, PL__JOB_CANCELLED);
    CHECK_EQ(part_of(s, running.id, 0).state, PL__PART_CANCELLED);
    CHECK_EQ(part_of(s, running.id, 1).state, PL__PART_CANCELLED);
    bool live = true;
    CHECK_OK(pl__store_claim_live(s, running.id, 0, "w1", c.part.fence, &live,
                                  &err),
             &err);
    CHECK(!live);
    CHECK_STATUS(pl__store_complete(s, running.id, 0, "w1", c.part.fence,
                                    "/p.json", &err),
                 PL_ECANCELLED, &err);
    CHECK_EQ(part_of(s, running.id, 0).completions, 0);
    /* Recover does not requeue it either. */
    uint64_t requeued = 9;
    CHECK_OK(pl__store_recover(s, "w1", &requeued, &err), &err);
    CHECK_EQ(requeued, 0);
    claim_none(s, UINT64_MAX);

    /* A job still receiving its witnesses. */
    pl__store_job receiving;
    CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_NORMAL, 2,
                                  &receiving, &err),
             &err);
    CHECK_OK(pl__store_job_cancel(s, receiving.id, &changed, &err), &err);
    CHECK(changed);
    CHECK_STATUS(pl__store_witness_stored(s, receiving.id, 0, "/w", NULL,
                                          &err),
                 PL_EUSAGE, &err);
    CHECK_STATUS(pl__store_job_cancel(s, "x", &changed, &err), PL_EUSAGE,
                 &err);
    CHECK(pl__store_is_not_found(&err));
    pl__store_close(s);
}

/* fail: the job fails with the first message, its waiting and queued
 * partitions are cancelled, a partition still claimed may finish (its
 * proof is recorded) but the job stays failed. */
SCENARIO(fail_ends_the_job)
{
    pl__store *s = open_store(store_loc("store_fail"));
    /* One attempt: each failure is final (retries: failures_retry). */
    pl__store_set_max_attempts(s, 1);
    CHECK_EQ(pl__store_max_attempts(s), 1);
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 4);
    pl__store_claim c0 = claim(s, "w1", UINT64_MAX, 60000);
    pl__store_claim c1 = claim(s, "w2", UINT64_MAX, 60000);
    pl__store_claim c2 = claim(s, "w3", UINT64_MAX, 60000);
    CHECK_OK(pl__store_fail(s, job.id, 0, "w1", c0.part.fence,
                            "partition 0: the witness does not fit", &err),
             &err);
    pl__store_job j = job_of(s, job.id);
    CHECK_EQ(j.state, PL__JOB_FAILED);
    CHECK(strcmp(j.error, "partition 0: the witness does not fit") == 0);
    CHECK(j.finished_unix_ms > 0);
    pl__store_partition p = part_of(s, job.id, 0);
    CHECK_EQ(p.state, PL__PART_FAILED);
    CHECK(strcmp(p.error, "partition 0: the witness does not fit") == 0);
    CHECK_EQ(part_of(s, job.id, 3).state, PL__PART_CANCELLED);
    CHECK_EQ(part_of(s, job.id, 1).state, PL__PART_CLAIMED);
    claim_none(s, UINT64_MAX);
    /* A second failure keeps the first message. */
    CHECK_OK(pl__store_fail(s, job.id, 1, "w2", c1.part.fence, "second",
                            &err),
             &err);
    CHECK(strcmp(job_of(s, job.id).error,
                 "partition 0: the witness does not fit") == 0);
    complete(s, &c2);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_FAILED);
    CHECK_EQ(part_of(s, job.id, 2).state, PL__PART_DONE);
    /* A long message is cut to fit, on a character boundary. */
    pl__store_job other = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    char longmsg[600];
    for (size_t i = 0; i + 2 < sizeof(longmsg); i += 2)
        memcpy(longmsg + i, "\xc3\xa9", 2); /* é */
    longmsg[sizeof(longmsg) - 2] = 0;
    CHECK_OK(pl__store_fail(s, other.id, 0, "w1", c.part.fence, longmsg,
                            &err),
             &err);
    j = job_of(s, other.id);
    CHECK(strlen(j.error) > 0 && strlen(j.error) < PL__STORE_MSG_MAX);
    CHECK_EQ(strlen(j.error) % 2, 0);
    /* Bytes that are not UTF-8 (a file name in Latin-1) become '?'. */
    pl__store_job latin = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    c = claim(s, "w1", UINT64_MAX, 60000);
    CHECK_OK(pl__store_fail(s, latin.id, 0, "w1", c.part.fence,
                            "cannot read caf\xe9.wtns \xc3\xa9", &err),
             &err);
    CHECK(strcmp(job_of(s, latin.id).error,
                 "cannot read caf?.wtns \xc3\xa9") == 0);
    pl__store_close(s);
}

/* job_fail: a job fails without a claim (a witness found not to fit as
 * it arrived): its partitions are cancelled, a claimed one's owner finds
 * its claim lost, and the first message stays. */
SCENARIO(job_fail_without_claim)
{
    pl__store *s = open_store(store_loc("store_job_fail"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job receiving;
    CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_NORMAL, 3,
                                  &receiving, &err),
             &err);
    char w[256];
    witness_path(w, sizeof(w), receiving.id, 0);
    CHECK_OK(pl__store_witness_stored(s, receiving.id, 0, w, NULL, &err),
             &err);
    bool changed = false;
    CHECK_OK(pl__store_job_fail(s, receiving.id,
                                "partition 1: the witness has 3 values, the "
                                "circuit 4000",
                                &changed, &err),
             &err);
    CHECK(changed);
    pl__store_job j = job_of(s, receiving.id);
    CHECK_EQ(j.state, PL__JOB_FAILED);
    CHECK(strstr(j.error, "partition 1") != NULL);
    CHECK(j.finished_unix_ms > 0);
    for (uint32_t k = 0; k < 3; k++)
        CHECK_EQ(part_of(s, receiving.id, k).state, PL__PART_CANCELLED);
    witness_path(w, sizeof(w), receiving.id, 1);
    CHECK_STATUS(pl__store_witness_stored(s, receiving.id, 1, w, NULL, &err),
                 PL_EUSAGE, &err);
    /* Ended: nothing changes, the first message stays. */
    CHECK_OK(pl__store_job_fail(s, receiving.id, "later", &changed, &err),
             &err);
    CHECK(!changed);
    CHECK(strstr(job_of(s, receiving.id).error, "partition 1") != NULL);
    bool cancelled = true;
    CHECK_OK(pl__store_job_cancel(s, receiving.id, &cancelled, &err), &err);
    CHECK(!cancelled);
    CHECK_EQ(job_of(s, receiving.id).state, PL__JOB_FAILED);

    pl__store_job running = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    CHECK_OK(pl__store_job_fail(s, running.id, "bad input", &changed, &err),
             &err);
    CHECK(changed);
    CHECK_STATUS(pl__store_complete(s, running.id, c.part.index, "w1",
                                    c.part.fence, "/p.json", &err),
                 PL_ECANCELLED, &err);
    claim_none(s, UINT64_MAX);
    CHECK_STATUS(pl__store_job_fail(s, "unknown", "x", &changed, &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    pl__store_counts n;
    CHECK_OK(pl__store_counts_read(s, &n, &err), &err);
    CHECK_EQ(n.jobs[PL__JOB_FAILED], 2);
    CHECK_EQ(n.claimed_partitions, 0);
    pl__store_close(s);
}

/* ---- counts, lists, purge ------------------------------------------------- */

SCENARIO(counts)
{
    pl__store *s = open_store(store_loc("store_counts"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job receiving;
    CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_LOW, 2,
                                  &receiving, &err),
             &err);
    queued_job(s, 'a', PL__PRIORITY_HIGH, 3);
    queued_job(s, 'a', PL__PRIORITY_LOW, 2);
    pl__store_job cancelled = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    bool changed;
    CHECK_OK(pl__store_job_cancel(s, cancelled.id, &changed, &err), &err);
    claim(s, "w1", UINT64_MAX, 60000); /* high job, partition 0 */
    pl__store_counts n;
    CHECK_OK(pl__store_counts_read(s, &n, &err), &err);
    CHECK_EQ(n.jobs[PL__JOB_RECEIVING], 1);
    CHECK_EQ(n.jobs[PL__JOB_QUEUED], 1);
    CHECK_EQ(n.jobs[PL__JOB_RUNNING], 1);
    CHECK_EQ(n.jobs[PL__JOB_CANCELLED], 1);
    CHECK_EQ(n.jobs[PL__JOB_DONE], 0);
    CHECK_EQ(n.queued_partitions[PL__PRIORITY_HIGH], 2);
    CHECK_EQ(n.queued_partitions[PL__PRIORITY_NORMAL], 0);
    CHECK_EQ(n.queued_partitions[PL__PRIORITY_LOW], 2);
    CHECK_EQ(n.claimed_partitions, 1);
    pl__store_close(s);
}

typedef struct {
    char ids[64][PL__STORE_JOB_ID_LEN + 1];
    int n, stop_at;
} job_ids;

static bool collect_job(void *user, const pl__store_job *job)
{
    job_ids *l = user;
    if (l->n < 64)
        snprintf(l->ids[l->n++], sizeof(l->ids[0]), "%s", job->id);
    return l->n != l->stop_at;
}

SCENARIO(job_list_newest_first)
{
    pl__store *s = open_store(store_loc("store_list"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job jobs[40];
    for (int i = 0; i < 40; i++)
        CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_NORMAL,
                                      1, &jobs[i], &err),
                 &err);
    char w[256];
    for (int i = 0; i < 40; i += 4) {
        witness_path(w, sizeof(w), jobs[i].id, 0);
        CHECK_OK(pl__store_witness_stored(s, jobs[i].id, 0, w, NULL, &err),
                 &err);
    }
    job_ids l = {.stop_at = -1};
    CHECK_OK(pl__store_job_list(s, -1, 0, collect_job, &l, &err), &err);
    CHECK_EQ(l.n, 40);
    for (int i = 0; i < 40; i++)
        CHECK(strcmp(l.ids[i], jobs[39 - i].id) == 0);
    l = (job_ids){.stop_at = -1};
    CHECK_OK(pl__store_job_list(s, PL__JOB_QUEUED, 0, collect_job, &l, &err),
             &err);
    CHECK_EQ(l.n, 10);
    CHECK(strcmp(l.ids[0], jobs[36].id) == 0);
    CHECK(strcmp(l.ids[9], jobs[0].id) == 0);
    l = (job_ids){.stop_at = -1};
    CHECK_OK(pl__store_job_list(s, -1, 35, collect_job, &l, &err), &err);
    CHECK_EQ(l.n, 35);
    l = (job_ids){.stop_at = 3}; /* the callback stops it */
    CHECK_OK(pl__store_job_list(s, -1, 0, collect_job, &l, &err), &err);
    CHECK_EQ(l.n, 3);
    CHECK_STATUS(pl__store_job_list(s, PL__JOB_STATE_COUNT, 0, collect_job,
                                    &l, &err),
                 PL_EUSAGE, &err);
    pl__store_close(s);
}

typedef struct {
    char paths[16][256];
    int n;
} path_set;

static void collect_path(void *user, const char *path)
{
    path_set *p = user;
    CHECK(p->n < 16);
    snprintf(p->paths[p->n++], sizeof(p->paths[0]), "%s", path);
}

static bool has_path(const path_set *p, const char *path)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->paths[i], path) == 0)
            return true;
    return false;
}

SCENARIO(purge_forgets_ended_jobs)
{
    pl__store *s = open_store(store_loc("store_purge"));
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job done = queued_job(s, 'a', PL__PRIORITY_HIGH, 2);
    for (int i = 0; i < 2; i++) {
        pl__store_claim c = claim(s, "w", UINT64_MAX, 60000);
        complete(s, &c);
    }
    pl__store_job cancelled = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    bool changed;
    CHECK_OK(pl__store_job_cancel(s, cancelled.id, &changed, &err), &err);
    pl__store_job running = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    claim(s, "w", UINT64_MAX, 60000);
    CHECK_EQ(job_of(s, done.id).state, PL__JOB_DONE);

    uint64_t removed = 9;
    path_set paths = {0};
    /* A cutoff before they ended: nothing goes. */
    CHECK_OK(pl__store_purge(s, 1, collect_path, &paths, &removed, &err),
             &err);
    CHECK_EQ(removed, 0);
    CHECK_EQ(paths.n, 0);
    sleep_ms(5);
    CHECK_OK(pl__store_purge(s, INT64_MAX, collect_path, &paths, &removed,
                             &err),
             &err);
    CHECK_EQ(removed, 2);
    /* The done job's two witnesses and two proofs, the cancelled job's
     * witness. */
    CHECK_EQ(paths.n, 5);
    char p[256];
    for (uint32_t k = 0; k < 2; k++) {
        witness_path(p, sizeof(p), done.id, k);
        CHECK(has_path(&paths, p));
        proof_path(p, sizeof(p), done.id, k);
        CHECK(has_path(&paths, p));
    }
    witness_path(p, sizeof(p), cancelled.id, 0);
    CHECK(has_path(&paths, p));
    pl__store_job j;
    CHECK_STATUS(pl__store_job_get(s, done.id, &j, &err), PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    CHECK_STATUS(pl__store_job_get(s, cancelled.id, &j, &err), PL_EUSAGE,
                 &err);
    CHECK_EQ(job_of(s, running.id).state, PL__JOB_RUNNING);
    /* A new job after the purge still gets a later arrival number. */
    pl__store_job later = queued_job(s, 'a', PL__PRIORITY_LOW, 1);
    CHECK(later.seq > running.seq);
    CHECK_OK(pl__store_purge(s, INT64_MAX, NULL, NULL, &removed, &err), &err);
    CHECK_EQ(removed, 0);
    pl__store_close(s);
}

/* ---- durability ---------------------------------------------------------------- */

SCENARIO(reopen_keeps_everything)
{
    const char *dir = store_loc("store_reopen");
    pl__store *s = open_store(dir);
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_HIGH, 3);
    pl__store_claim c0 = claim(s, "w1", UINT64_MAX, 600000);
    complete(s, &c0);
    pl__store_claim c1 = claim(s, "w1", UINT64_MAX, 600000);
    pl__store_job before = job_of(s, job.id);
    pl__store_partition parts_before[3];
    size_t count = 0;
    CHECK_OK(pl__store_partitions(s, job.id, parts_before, 3, &count, &err),
             &err);
    pl__store_close(s);

    s = open_store(dir);
    pl__store_job after = job_of(s, job.id);
    CHECK_MEM(&before, &after, sizeof(before));
    pl__store_partition parts_after[3];
    CHECK_OK(pl__store_partitions(s, job.id, parts_after, 3, &count, &err),
             &err);
    CHECK_EQ(count, 3);
    CHECK_MEM(parts_before, parts_after, sizeof(parts_before));
    pl__store_circuit c;
    CHECK_OK(pl__store_circuit_get(s, circuit_id('a'), &c, &err), &err);
    CHECK_EQ(c.partition_bytes, 100);
    /* The claim held across the restart: its owner completes it. */
    complete(s, &c1);
    pl__store_claim c2 = claim(s, "w2", UINT64_MAX, 600000);
    CHECK_EQ(c2.part.index, 2);
    complete(s, &c2);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_DONE);
    pl__store_close(s);
}

/* Retries: a failure below the limit (3 by default) puts the partition
 * back in the queue for any worker, keeping its message; the third fails
 * the job, every attempt kept.  A failure marked not retryable fails at
 * once.  A retry of a partition whose job ended cancels it instead. */
SCENARIO(failures_retry)
{
    pl__store *s = open_store(store_loc("store_retry"));
    pl_error err = {0};
    CHECK_EQ(pl__store_max_attempts(s), PL__STORE_MAX_ATTEMPTS_DEFAULT);
    CHECK_EQ(PL__STORE_MAX_ATTEMPTS_DEFAULT, 3);
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    static const char *const owners[] = {"w1", "w2", "w3"};
    for (int i = 0; i < 3; i++) {
        pl__store_claim c = claim(s, owners[i], UINT64_MAX, 60000);
        CHECK_EQ(c.part.index, 0);
        CHECK_EQ(c.part.fence, (uint64_t)i + 1);
        char msg[64];
        snprintf(msg, sizeof(msg), "out of memory on %s", owners[i]);
        bool requeued = true;
        CHECK_OK(pl__store_fail_attempt(s, job.id, 0, owners[i], c.part.fence,
                                        msg, true, &requeued, &err),
                 &err);
        CHECK_EQ(requeued, i < 2);
        pl__store_partition p = part_of(s, job.id, 0);
        CHECK(strcmp(p.error, msg) == 0);
        if (i < 2) {
            CHECK_EQ(p.state, PL__PART_QUEUED);
            CHECK(p.owner[0] == 0);
            CHECK_EQ(job_of(s, job.id).state, PL__JOB_RUNNING);
            /* The stale claim stays fenced off. */
            CHECK_STATUS(pl__store_fail(s, job.id, 0, owners[i],
                                        c.part.fence, "again", &err),
                         PL_ECANCELLED, &err);
        } else {
            CHECK_EQ(p.state, PL__PART_FAILED);
        }
    }
    pl__store_job j = job_of(s, job.id);
    CHECK_EQ(j.state, PL__JOB_FAILED);
    CHECK(strstr(j.error, "after 3 attempts: out of memory on w3") != NULL);
    CHECK_EQ(part_of(s, job.id, 1).state, PL__PART_CANCELLED);
    pl__store_attempt at[4];
    size_t n = 0;
    CHECK_OK(pl__store_attempts(s, job.id, at, 4, &n, &err), &err);
    CHECK_EQ(n, 3);
    for (uint32_t i = 0; i < 3; i++) {
        CHECK_EQ(at[i].index, 0);
        CHECK_EQ(at[i].attempt, i + 1);
        CHECK_EQ(at[i].fence, (uint64_t)i + 1);
        CHECK(strcmp(at[i].owner, owners[i]) == 0);
        CHECK_EQ(at[i].retried, i < 2);
        CHECK(strstr(at[i].error, owners[i]) != NULL);
        CHECK(at[i].at_unix_ms > 0);
    }
    CHECK_OK(pl__store_attempts(s, job.id, at, 1, &n, &err), &err);
    CHECK_EQ(n, 3); /* the count, beyond cap */

    /* Not retryable: the job fails at the first attempt. */
    pl__store_job bad = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    bool requeued = true;
    CHECK_OK(pl__store_fail_attempt(s, bad.id, 0, "w1", c.part.fence,
                                    "the witness does not fit", false,
                                    &requeued, &err),
             &err);
    CHECK(!requeued);
    CHECK_EQ(job_of(s, bad.id).state, PL__JOB_FAILED);
    CHECK(strcmp(job_of(s, bad.id).error, "the witness does not fit") == 0);
    CHECK_OK(pl__store_attempts(s, bad.id, at, 4, &n, &err), &err);
    CHECK_EQ(n, 1);
    CHECK(!at[0].retried);

    /* A retry after its job was cancelled: cancelled, not requeued. */
    pl__store_job gone = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    pl__store_claim g0 = claim(s, "w1", UINT64_MAX, 60000);
    bool changed = false;
    CHECK_OK(pl__store_job_cancel(s, gone.id, &changed, &err), &err);
    CHECK_STATUS(pl__store_fail(s, gone.id, 0, "w1", g0.part.fence, "late",
                                &err),
                 PL_ECANCELLED, &err);
    claim_none(s, UINT64_MAX);
    /* Unknown job. */
    CHECK_STATUS(pl__store_attempts(s, "00000000-0000-4000-8000-000000000000",
                                    at, 4, &n, &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    /* Purge takes the attempts with their job. */
    uint64_t removed = 0;
    CHECK_OK(pl__store_purge(s, INT64_MAX, NULL, NULL, &removed, &err),
             &err);
    CHECK_EQ(removed, 3);
    pl__store_close(s);

    /* The limit in the locator: taken out before the store sees it. */
    const char *loc0 = store_loc("store_retry_loc");
    char loc[4300];
    snprintf(loc, sizeof(loc), "%s%cmax_attempts=7", loc0,
             strchr(loc0, '?') ? '&' : '?');
    s = open_store(loc);
    CHECK_EQ(pl__store_max_attempts(s), 7);
    pl__store_close(s);
    s = open_store(loc0);
    CHECK_EQ(pl__store_max_attempts(s), 3);
    pl__store_close(s);
    snprintf(loc, sizeof(loc), "%s%cmax_attempts=0", loc0,
             strchr(loc0, '?') ? '&' : '?');
    s = NULL;
    CHECK_STATUS(pl__store_open(&s, loc, &err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "max_attempts") != NULL);
}

/* A claim taken back by recovery is a failed attempt too (its worker
 * died, stalled, or restarted while it held the partition): a partition
 * that kills every worker taking it ends after max_attempts. */
SCENARIO(lapses_count_as_attempts)
{
    pl__store *s = open_store(store_loc("store_lapses"));
    pl_error err = {0};
    pl__store_set_max_attempts(s, 2);
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    start(s, claim(s, "w1", UINT64_MAX, 50));
    sleep_ms(120);
    uint64_t requeued = 0;
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 1);
    pl__store_attempt at[3];
    size_t n = 0;
    CHECK_OK(pl__store_attempts(s, job.id, at, 3, &n, &err), &err);
    CHECK_EQ(n, 1);
    CHECK(at[0].retried);
    CHECK(strcmp(at[0].owner, "w1") == 0);
    CHECK(strstr(at[0].error, "lease of worker w1 lapsed") != NULL);
    /* The second holder restarts (recover with its own id): the last
     * allowed attempt, so the job fails. */
    start(s, claim(s, "w2", UINT64_MAX, 600000));
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 0); /* its lease runs */
    CHECK_EQ(part_of(s, job.id, 0).state, PL__PART_CLAIMED);
    CHECK_OK(pl__store_recover(s, "w2", &requeued, &err), &err);
    CHECK_EQ(requeued, 0);
    pl__store_job j = job_of(s, job.id);
    CHECK_EQ(j.state, PL__JOB_FAILED);
    CHECK(strstr(j.error, "after 2 attempts") != NULL);
    CHECK(strstr(j.error, "w2 restarted") != NULL);
    CHECK_OK(pl__store_attempts(s, job.id, at, 3, &n, &err), &err);
    CHECK_EQ(n, 2);
    CHECK(!at[1].retried);
    claim_none(s, UINT64_MAX);
    pl__store_close(s);
}

/* A claim whose proof never started (it waited for its engine's room)
 * costs no attempt when its worker restarts or its lease lapses, however
 * often: the partition goes back to the queue with a message that says
 * so, and the job completes.  Marking a claim started twice changes
 * nothing; marking one no longer the caller's is refused. */
SCENARIO(waiting_claims_cost_nothing)
{
    pl__store *s = open_store(store_loc("store_waiting"));
    pl_error err = {0};
    pl__store_set_max_attempts(s, 2);
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    uint64_t requeued = 0;
    for (int i = 0; i < 5; i++) {
        pl__store_claim c = claim(s, "w1", UINT64_MAX, 600000);
        CHECK_EQ(part_of(s, job.id, 0).started_unix_ms, 0);
        CHECK_OK(pl__store_recover(s, "w1", &requeued, &err), &err);
        CHECK_EQ(requeued, 1);
        pl__store_partition p = part_of(s, job.id, 0);
        CHECK_EQ(p.state, PL__PART_QUEUED);
        CHECK(strstr(p.error, "no attempt spent") != NULL);
        CHECK_STATUS(pl__store_claim_started(s, job.id, 0, "w1", c.part.fence,
                                             &err),
                     PL_ECANCELLED, &err);
    }
    pl__store_claim c = claim(s, "w2", UINT64_MAX, 50);
    sleep_ms(120); /* its lease lapses, never started */
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 1);
    pl__store_attempt at[4];
    size_t n = 9;
    CHECK_OK(pl__store_attempts(s, job.id, at, 4, &n, &err), &err);
    CHECK_EQ(n, 0);
    c = start(s, claim(s, "w3", UINT64_MAX, 600000));
    int64_t started = part_of(s, job.id, 0).started_unix_ms;
    CHECK(started > 0);
    start(s, c); /* again: nothing changes */
    CHECK_EQ(part_of(s, job.id, 0).started_unix_ms, started);
    complete(s, &c);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_DONE);
    CHECK_EQ(part_of(s, job.id, 0).started_unix_ms, started);
    pl__store_close(s);
}

/* Real processes: a worker stopped (SIGSTOP) past its lease, whose
 * partition another worker then completes, has its late completion
 * refused by the fence when it resumes (SIGCONT); a worker killed (kill
 * -9) holding a claim loses it when its lease lapses, and another worker
 * completes it.  Each partition completed exactly once; each lapse kept
 * as an attempt. */
SCENARIO(stopped_and_killed_workers)
{
    char loc[4200];
    snprintf(loc, sizeof(loc), "%s", store_loc("store_stopped"));
    pl__store *s = open_store(loc);
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    for (int round = 0; round < 2; round++) {
        bool stop = round == 0; /* then kill -9 */
        int told[2], go[2];
        CHECK(pipe(told) == 0 && pipe(go) == 0);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            close(told[0]);
            close(go[1]);
            pl__store *mine = NULL;
            pl_error e = {0};
            pl__store_claim c;
            bool found = false;
            if (pl__store_open(&mine, loc, &e) != PL_OK ||
                pl__store_claim_next(mine, "stalled", UINT64_MAX, 200, &c,
                                     &found, &e) != PL_OK ||
                !found ||
                pl__store_claim_started(mine, c.part.job_id, c.part.index,
                                        "stalled", c.part.fence,
                                        &e) != PL_OK)
                _exit(2);
            if (write(told[1], &c.part.index, sizeof(c.part.index)) !=
                sizeof(c.part.index))
                _exit(2);
            char byte;
            while (read(go[0], &byte, 1) < 0 && errno == EINTR) {
            }
            pl_status st = pl__store_complete(mine, c.part.job_id,
                                              c.part.index, "stalled",
                                              c.part.fence, "/late.json", &e);
            pl__store_close(mine);
            _exit(st == PL_ECANCELLED ? 0 : 1);
        }
        close(told[1]);
        close(go[0]);
        uint32_t index = 99;
        CHECK_EQ(read(told[0], &index, sizeof(index)), (ssize_t)sizeof(index));
        CHECK_EQ(index, (uint32_t)round);
        CHECK_EQ(kill(pid, stop ? SIGSTOP : SIGKILL), 0);
        sleep_ms(400); /* past the 200 ms lease */
        uint64_t requeued = 0;
        CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
        CHECK_EQ(requeued, 1);
        pl__store_claim c = claim(s, "healthy", UINT64_MAX, 600000);
        CHECK_EQ(c.part.index, index);
        CHECK_EQ(c.part.fence, 2);
        complete(s, &c);
        int status = 0;
        if (stop) {
            CHECK_EQ(kill(pid, SIGCONT), 0);
            CHECK_EQ(write(go[1], "x", 1), 1);
            CHECK_EQ(waitpid(pid, &status, 0), pid);
            CHECK(WIFEXITED(status));
            CHECK_EQ(WEXITSTATUS(status), 0); /* refused: PL_ECANCELLED */
        } else {
            CHECK_EQ(waitpid(pid, &status, 0), pid);
            CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        }
        close(told[0]);
        close(go[1]);
        pl__store_partition p = part_of(s, job.id, index);
        CHECK_EQ(p.state, PL__PART_DONE);
        CHECK_EQ(p.completions, 1);
        CHECK(strstr(p.proof_path, "/late.json") == NULL);
    }
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_DONE);
    pl__store_attempt at[4];
    size_t n = 0;
    CHECK_OK(pl__store_attempts(s, job.id, at, 4, &n, &err), &err);
    CHECK_EQ(n, 2);
    for (size_t i = 0; i < 2; i++) {
        CHECK_EQ(at[i].index, (uint32_t)i);
        CHECK(strcmp(at[i].owner, "stalled") == 0);
        CHECK(at[i].retried);
    }
    pl__store_close(s);
}

/* Whether sql, run straight on the scenario's database (bypassing the
 * store), is refused. */
static bool raw_refused(const char *loc, const char *db, const char *sql)
{
    if (g_backend == BACKEND_POSTGRES) {
        PGconn *c = pg_connect(db);
        PGresult *r = PQexec(c, sql);
        bool refused = PQresultStatus(r) == PGRES_FATAL_ERROR;
        PQclear(r);
        PQfinish(c);
        return refused;
    }
    char file[4300];
    snprintf(file, sizeof(file), "%s/store.sqlite", loc);
    sqlite3 *h = NULL;
    CHECK_EQ(sqlite3_open(file, &h), SQLITE_OK);
    sqlite3_busy_timeout(h, 30000);
    bool refused = sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK;
    sqlite3_close(h);
    return refused;
}

/* Exactly one result per partition, by the schema itself: whatever a
 * program writing straight into the tables does, a second row for a
 * partition, a second completion, or a done partition without its proof
 * is refused. */
SCENARIO(schema_keeps_one_result)
{
    char loc[4200];
    snprintf(loc, sizeof(loc), "%s", store_loc("store_one_result"));
    pl__store *s = open_store(loc);
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 2);
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    complete(s, &c);
    bool pg = g_backend == BACKEND_POSTGRES;
    char sql[512];
    snprintf(sql, sizeof(sql),
             "UPDATE %spartitions SET completions = 2 WHERE job_id = '%s' "
             "AND idx = 0",
             pg ? "proofline." : "", job.id);
    CHECK(raw_refused(loc, "store_one_result", sql));
    snprintf(sql, sizeof(sql),
             "INSERT INTO %spartitions (job_id, idx, state, priority, seq, "
             "partition_bytes) VALUES ('%s', 0, 'queued', 1, 1, 100)",
             pg ? "proofline." : "", job.id);
    CHECK(raw_refused(loc, "store_one_result", sql));
    snprintf(sql, sizeof(sql),
             "UPDATE %spartitions SET state = 'done' WHERE job_id = '%s' "
             "AND idx = 1",
             pg ? "proofline." : "", job.id);
    CHECK(raw_refused(loc, "store_one_result", sql));
    snprintf(sql, sizeof(sql),
             "UPDATE %spartitions SET state = 'claimed', owner = '' WHERE "
             "job_id = '%s' AND idx = 1",
             pg ? "proofline." : "", job.id);
    CHECK(raw_refused(loc, "store_one_result", sql));
    /* (and a statement that keeps the rules goes through) */
    snprintf(sql, sizeof(sql),
             "UPDATE %spartitions SET error = 'x' WHERE job_id = '%s' AND "
             "idx = 1",
             pg ? "proofline." : "", job.id);
    CHECK(!raw_refused(loc, "store_one_result", sql));
    pl__store_partition p = part_of(s, job.id, 0);
    CHECK_EQ(p.completions, 1);
    CHECK_EQ(part_of(s, job.id, 1).state, PL__PART_QUEUED);
    pl__store_close(s);
}

static bool collect_worker(void *user, const pl__store_worker *w)
{
    pl__store_worker *out = user;
    for (int i = 0; i < 4; i++)
        if (!out[i].id[0]) {
            out[i] = *w;
            return true;
        }
    return false;
}

/* Workers: register, heartbeat (with the claims' leases in the same
 * call), list, gone, re-register, purge. */
SCENARIO(workers_table)
{
    pl__store *s = open_store(store_loc("store_workers"));
    pl_error err = {0};
    pl__store_worker w = {.pid = 4242, .budget_bytes = 8ull << 30};
    snprintf(w.id, sizeof(w.id), "gpu-a-1");
    snprintf(w.host, sizeof(w.host), "gpu-a");
    snprintf(w.backend, sizeof(w.backend), "cuda");
    snprintf(w.gpus, sizeof(w.gpus), "0:H200");
    CHECK_OK(pl__store_worker_register(s, &w, &err), &err);
    pl__store_worker b = w;
    snprintf(b.id, sizeof(b.id), "cpu-b-1");
    snprintf(b.backend, sizeof(b.backend), "cpu");
    b.gpus[0] = 0;
    CHECK_OK(pl__store_worker_register(s, &b, &err), &err);

    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_NORMAL, 1);
    pl__store_claim c = claim(s, "gpu-a-1", UINT64_MAX, 50);
    sleep_ms(20);
    w.reserved_bytes = 1u << 20;
    snprintf(w.status_json, sizeof(w.status_json),
             "{\"partitions\":{\"msm\":1}}");
    CHECK_OK(pl__store_worker_heartbeat(s, &w, 600000, &err), &err);
    sleep_ms(80); /* past the first lease: the heartbeat renewed it */
    uint64_t requeued = 9;
    CHECK_OK(pl__store_recover(s, NULL, &requeued, &err), &err);
    CHECK_EQ(requeued, 0);
    CHECK_EQ(part_of(s, job.id, 0).state, PL__PART_CLAIMED);
    complete(s, &c);

    pl__store_worker got[4];
    memset(got, 0, sizeof(got));
    CHECK_OK(pl__store_worker_list(s, collect_worker, got, &err), &err);
    CHECK(strcmp(got[0].id, "cpu-b-1") == 0); /* by id */
    CHECK(strcmp(got[1].id, "gpu-a-1") == 0);
    CHECK(got[2].id[0] == 0);
    CHECK(strcmp(got[1].host, "gpu-a") == 0);
    CHECK_EQ(got[1].pid, 4242);
    CHECK(strcmp(got[1].backend, "cuda") == 0);
    CHECK(strcmp(got[1].gpus, "0:H200") == 0);
    CHECK_EQ(got[1].budget_bytes, 8ull << 30);
    CHECK_EQ(got[1].reserved_bytes, 1u << 20);
    CHECK(strcmp(got[1].status_json, "{\"partitions\":{\"msm\":1}}") == 0);
    CHECK(strcmp(got[0].status_json, "{}") == 0);
    CHECK(!got[1].gone);
    CHECK(got[1].started_unix_ms > 0);
    CHECK(got[1].heartbeat_unix_ms >= got[1].started_unix_ms);
    CHECK(got[1].heartbeat_unix_ms > got[0].heartbeat_unix_ms);
    CHECK(got[1].age_ms >= 0 && got[1].age_ms < 60000);
    int64_t started = got[1].started_unix_ms;

    CHECK_OK(pl__store_worker_gone(s, "gpu-a-1", &err), &err);
    memset(got, 0, sizeof(got));
    CHECK_OK(pl__store_worker_list(s, collect_worker, got, &err), &err);
    CHECK(got[1].gone);
    /* A restart registers again: alive, a new start. */
    sleep_ms(5);
    CHECK_OK(pl__store_worker_register(s, &w, &err), &err);
    memset(got, 0, sizeof(got));
    CHECK_OK(pl__store_worker_list(s, collect_worker, got, &err), &err);
    CHECK(!got[1].gone);
    CHECK(got[1].started_unix_ms > started);
    /* A heartbeat of a worker never registered creates its row. */
    pl__store_worker x = b;
    snprintf(x.id, sizeof(x.id), "x-1");
    CHECK_OK(pl__store_worker_heartbeat(s, &x, 0, &err), &err);
    /* Bad input. */
    pl__store_worker bad = w;
    bad.id[0] = 0;
    CHECK_STATUS(pl__store_worker_register(s, &bad, &err), PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "worker id") != NULL);
    /* Purge: workers silent since before the cutoff go. */
    uint64_t removed = 0;
    CHECK_OK(pl__store_purge(s, INT64_MAX, NULL, NULL, &removed, &err),
             &err);
    memset(got, 0, sizeof(got));
    CHECK_OK(pl__store_worker_list(s, collect_worker, got, &err), &err);
    CHECK(got[0].id[0] == 0);
    pl__store_close(s);
}

/* Migrations: a version 1 store (made by the version 1 step alone), with
 * jobs in every state, opened by this build: version 5, every row as it
 * was, the new tables usable.  pl__store_migrate tells before/after. */
SCENARIO(migrate_from_v1)
{
    const char *loc0 = store_loc("store_v1");
    char loc[4200];
    snprintf(loc, sizeof(loc), "%s", loc0);
    pl_error err = {0};
    int before = -1, after = -1;
    CHECK_OK(pl__store_migrate(loc, 1, &before, &after, &err), &err);
    CHECK_EQ(before, 0);
    CHECK_EQ(after, 1);
    /* Rows written as a version 1 build (or a program submitting
     * straight into the tables) would. */
    pl__store *s = NULL;
    if (g_backend == BACKEND_POSTGRES) {
        pg_sql("store_v1",
               "INSERT INTO proofline.circuits VALUES ('c1', '/z', 1, 2, 3, "
               "4, 5, 100, 7);"
               "INSERT INTO proofline.jobs (id, circuit_id, priority, state, "
               "n_partitions, n_stored, n_done, created_ms, updated_ms) "
               "VALUES ('11111111-1111-4111-8111-111111111111', 'c1', 2, "
               "'queued', 2, 2, 0, 1, 1);"
               "INSERT INTO proofline.partitions (job_id, idx, state, "
               "witness_path, priority, seq, partition_bytes) SELECT "
               "'11111111-1111-4111-8111-111111111111', g, 'queued', '/w', "
               "2, 1, 100 FROM generate_series(0, 1) g");
    } else {
        char file[4300];
        snprintf(file, sizeof(file), "%s/store.sqlite", loc);
        sqlite3 *db = NULL;
        CHECK_EQ(sqlite3_open(file, &db), SQLITE_OK);
        int64_t v = 0;
        sqlite3_stmt *st = NULL;
        CHECK_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL),
                 SQLITE_OK);
        CHECK_EQ(sqlite3_step(st), SQLITE_ROW);
        v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        CHECK_EQ(v, 1);
        CHECK_EQ(sqlite3_exec(
                     db,
                     "INSERT INTO circuits VALUES ('c1', '/z', 1, 2, 3, 4, 5, "
                     "100, 7);"
                     "INSERT INTO jobs (id, circuit_id, priority, state, "
                     "n_partitions, n_stored, n_done, created_ms, updated_ms) "
                     "VALUES ('11111111-1111-4111-8111-111111111111', 'c1', 2, "
                     "'queued', 2, 2, 0, 1, 1);"
                     "INSERT INTO partitions (job_id, idx, state, "
                     "witness_path, priority, seq, partition_bytes) VALUES "
                     "('11111111-1111-4111-8111-111111111111', 0, 'queued', "
                     "'/w', 2, 1, 100), "
                     "('11111111-1111-4111-8111-111111111111', 1, 'queued', "
                     "'/w', 2, 1, 100);",
                     NULL, NULL, NULL),
                 SQLITE_OK);
        sqlite3_close(db);
    }
    CHECK_OK(pl__store_migrate(loc, 0, &before, &after, &err), &err);
    CHECK_EQ(before, 1);
    CHECK_EQ(after, 5);
    CHECK_OK(pl__store_migrate(loc, 0, &before, &after, &err), &err);
    CHECK_EQ(before, 5);
    CHECK_EQ(after, 5);
    CHECK_STATUS(pl__store_migrate(loc, 9, &before, &after, &err), PL_EUSAGE,
                 &err);
    s = open_store(loc);
    CHECK_EQ(pl__store_schema_version(s), 5);
    const char *id = "11111111-1111-4111-8111-111111111111";
    pl__store_job j = job_of(s, id);
    CHECK_EQ(j.state, PL__JOB_QUEUED);
    CHECK_EQ(j.priority, PL__PRIORITY_HIGH);
    CHECK(strcmp(j.circuit_id, "c1") == 0);
    pl__store_circuit c;
    CHECK_OK(pl__store_circuit_get(s, "c1", &c, &err), &err);
    CHECK_EQ(c.partition_bytes, 100);
    /* The old rows work with the new tables: a retry, then success. */
    pl__store_claim c0 = claim(s, "w1", UINT64_MAX, 60000);
    CHECK(strcmp(c0.part.job_id, id) == 0);
    CHECK_OK(pl__store_fail(s, id, c0.part.index, "w1", c0.part.fence,
                            "flaky", &err),
             &err);
    for (int i = 0; i < 2; i++)
        complete(s, (pl__store_claim[]){claim(s, "w2", UINT64_MAX, 60000)});
    CHECK_EQ(job_of(s, id).state, PL__JOB_DONE);
    pl__store_attempt at[2];
    size_t n = 0;
    CHECK_OK(pl__store_attempts(s, id, at, 2, &n, &err), &err);
    CHECK_EQ(n, 1);
    pl__store_worker w = {.pid = 1};
    snprintf(w.id, sizeof(w.id), "w2");
    CHECK_OK(pl__store_worker_register(s, &w, &err), &err);
    pl__store_close(s);
}

/* ---- several threads, several processes ------------------------------------ */

/* Claims and completes until the queue is empty, with work_ms of
 * pretended proving between (outside the store, as a worker's would be);
 * returns how many it completed, -1 on an error (a lost claim is one
 * unless lost_ok). */
static int drain(pl__store *s, const char *owner, int work_ms, bool lost_ok)
{
    int n = 0;
    for (;;) {
        pl_error err = {0};
        pl__store_claim c;
        bool found = false;
        if (pl__store_claim_next(s, owner, UINT64_MAX, 600000, &c, &found,
                                 &err) != PL_OK) {
            fprintf(stderr, "%s: claim: %s\n", owner, err.msg);
            return -1;
        }
        if (!found)
            return n;
        if (work_ms)
            sleep_ms(work_ms);
        char p[256];
        proof_path(p, sizeof(p), c.part.job_id, c.part.index);
        pl_status st = pl__store_complete(s, c.part.job_id, c.part.index,
                                          owner, c.part.fence, p, &err);
        if (st == PL_ECANCELLED && lost_ok)
            continue; /* its job was cancelled meanwhile */
        if (st != PL_OK) {
            fprintf(stderr, "%s: complete: %s\n", owner, err.msg);
            return -1;
        }
        n++;
    }
}

/* Every partition of every job done exactly once: one claim, one
 * completion, the job done. */
static void check_all_done_once(pl__store *s, const pl__store_job *jobs,
                                int n_jobs, uint32_t per_job)
{
    for (int j = 0; j < n_jobs; j++) {
        CHECK_EQ(job_of(s, jobs[j].id).state, PL__JOB_DONE);
        for (uint32_t k = 0; k < per_job; k++) {
            pl__store_partition p = part_of(s, jobs[j].id, k);
            CHECK_EQ(p.state, PL__PART_DONE);
            CHECK_EQ(p.completions, 1);
            CHECK_EQ(p.attempts, 1);
            CHECK_EQ(p.fence, 1);
        }
    }
    pl_error err = {0};
    pl__store_counts n;
    CHECK_OK(pl__store_counts_read(s, &n, &err), &err);
    CHECK_EQ(n.jobs[PL__JOB_DONE], (uint64_t)n_jobs);
    CHECK_EQ(n.claimed_partitions, 0);
}

typedef struct {
    pl__store *s;
    char owner[16];
    int done;
} drainer;

static void *drain_thread(void *arg)
{
    drainer *d = arg;
    d->done = drain(d->s, d->owner, 0, false);
    return NULL;
}

SCENARIO(threads_share_one_handle)
{
    pl__store *s = open_store(store_loc("store_threads"));
    put_circuit(s, 'a', 100);
    pl__store_job jobs[10];
    for (int j = 0; j < 10; j++)
        jobs[j] = queued_job(s, 'a', (pl__priority)(j % 3), 8);
    drainer d[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        d[i] = (drainer){.s = s};
        snprintf(d[i].owner, sizeof(d[i].owner), "thread-%d", i);
        CHECK_EQ(pthread_create(&t[i], NULL, drain_thread, &d[i]), 0);
    }
    int total = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(d[i].done >= 0);
        total += d[i].done;
    }
    CHECK_EQ(total, 80);
    check_all_done_once(s, jobs, 10, 8);
    pl__store_close(s);
}

/* 4 processes, each with its own connection to one store file, claim and
 * complete 200 partitions: none is lost, none is claimed twice. */
SCENARIO(processes_claim_each_partition_once)
{
    const char *dir = store_loc("store_processes");
    pl__store *s = open_store(dir);
    put_circuit(s, 'a', 100);
    enum { JOBS = 10, PER_JOB = 20, PROCS = 4 };
    pl__store_job jobs[JOBS];
    for (int j = 0; j < JOBS; j++)
        jobs[j] = queued_job(s, 'a', (pl__priority)(j % 3), PER_JOB);
    pl__store_close(s);

    /* A start line: each child opens its store, then waits for the pipe
     * to close, so that all four claim at once (else the first could
     * drain the queue before the last has started). */
    int gate[2];
    CHECK(pipe(gate) == 0);
    pid_t pids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            close(gate[1]);
            pl_error err = {0};
            pl__store *mine = NULL;
            if (pl__store_open(&mine, dir, &err) != PL_OK) {
                fprintf(stderr, "process %d: %s\n", i, err.msg);
                _exit(2);
            }
            char byte;
            while (read(gate[0], &byte, 1) < 0 && errno == EINTR) {
            }
            char owner[32];
            snprintf(owner, sizeof(owner), "process-%d", i);
            int n = drain(mine, owner, 2, false);
            fprintf(stderr, "%s completed %d partitions\n", owner, n);
            pl__store_close(mine);
            _exit(n < 0 ? 1 : 0);
        }
    }
    close(gate[0]);
    close(gate[1]);
    for (int i = 0; i < PROCS; i++) {
        int status = 0;
        CHECK_EQ(waitpid(pids[i], &status, 0), pids[i]);
        CHECK(WIFEXITED(status));
        CHECK_EQ(WEXITSTATUS(status), 0);
    }
    s = open_store(dir);
    check_all_done_once(s, jobs, JOBS, PER_JOB);
    pl__store_close(s);
}


/* Claims, completions and cancels at once, from several processes (the
 * canceller waits for each of its jobs to start, so that it cancels
 * claimed partitions): every call succeeds or reports a lost claim, and
 * at the end each job is done or cancelled, no partition completed twice,
 * none left claimed.  On PostgreSQL a cancel and a claim may deadlock;
 * the store retries the transaction PostgreSQL aborted. */
SCENARIO(cancel_under_load)
{
    char loc[512];
    snprintf(loc, sizeof(loc), "%s", store_loc("store_cancel_load"));
    pl__store *s = open_store(loc);
    put_circuit(s, 'a', 100);
    enum { JOBS = 16, PER_JOB = 8, DRAINERS = 3 };
    pl__store_job jobs[JOBS];
    for (int j = 0; j < JOBS; j++)
        jobs[j] = queued_job(s, 'a', PL__PRIORITY_NORMAL, PER_JOB);
    pl__store_close(s);
    pid_t pids[DRAINERS + 1];
    for (int i = 0; i <= DRAINERS; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] != 0)
            continue;
        pl_error err = {0};
        pl__store *mine = NULL;
        if (pl__store_open(&mine, loc, &err) != PL_OK) {
            fprintf(stderr, "process %d: %s\n", i, err.msg);
            _exit(2);
        }
        int rc = 0;
        if (i < DRAINERS) {
            char owner[32];
            snprintf(owner, sizeof(owner), "process-%d", i);
            rc = drain(mine, owner, 2, true) < 0;
        } else {
            for (int j = 1; j < JOBS && !rc; j += 2) {
                pl__store_job now;
                for (int tries = 0; tries < 5000; tries++) {
                    if (pl__store_job_get(mine, jobs[j].id, &now, &err) !=
                        PL_OK) {
                        rc = 1;
                        break;
                    }
                    if (now.state != PL__JOB_QUEUED)
                        break;
                    sleep_ms(1);
                }
                bool changed;
                if (!rc && pl__store_job_cancel(mine, jobs[j].id, &changed,
                                                &err) != PL_OK)
                    rc = 1;
            }
            if (rc)
                fprintf(stderr, "canceller: %s\n", err.msg);
        }
        pl__store_close(mine);
        _exit(rc);
    }
    for (int i = 0; i <= DRAINERS; i++) {
        int status = 0;
        CHECK_EQ(waitpid(pids[i], &status, 0), pids[i]);
        CHECK(WIFEXITED(status));
        CHECK_EQ(WEXITSTATUS(status), 0);
    }
    s = open_store(loc);
    int cancelled = 0;
    for (int j = 0; j < JOBS; j++) {
        pl__store_job job = job_of(s, jobs[j].id);
        CHECK(job.state == PL__JOB_DONE ||
              (j % 2 == 1 && job.state == PL__JOB_CANCELLED));
        cancelled += job.state == PL__JOB_CANCELLED;
        for (uint32_t k = 0; k < PER_JOB; k++) {
            pl__store_partition p = part_of(s, jobs[j].id, k);
            CHECK(p.state == PL__PART_DONE ||
                  (job.state == PL__JOB_CANCELLED &&
                   p.state == PL__PART_CANCELLED));
            CHECK_EQ(p.completions, p.state == PL__PART_DONE);
        }
    }
    fprintf(stderr, "%d of %d jobs cancelled\n", cancelled, JOBS / 2);
    pl_error err = {0};
    pl__store_counts n;
    CHECK_OK(pl__store_counts_read(s, &n, &err), &err);
    CHECK_EQ(n.claimed_partitions, 0);
    CHECK_EQ(n.queued_partitions[PL__PRIORITY_NORMAL], 0);
    pl__store_close(s);
}

/* Four processes open one new store at the same moment: one creates the
 * schema (SQLite: in its IMMEDIATE transaction; PostgreSQL: under the
 * advisory lock), the others find it; all succeed. */
SCENARIO(concurrent_first_open)
{
    char loc[512];
    snprintf(loc, sizeof(loc), "%s", store_loc("store_first_open"));
    int gate[2];
    CHECK(pipe(gate) == 0);
    pid_t pids[4];
    for (int i = 0; i < 4; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            close(gate[1]);
            char byte;
            while (read(gate[0], &byte, 1) < 0 && errno == EINTR) {
            }
            pl_error err = {0};
            pl__store *mine = NULL;
            if (pl__store_open(&mine, loc, &err) != PL_OK) {
                fprintf(stderr, "process %d: %s\n", i, err.msg);
                _exit(1);
            }
            pl__store_close(mine);
            _exit(0);
        }
    }
    close(gate[0]);
    close(gate[1]);
    for (int i = 0; i < 4; i++) {
        int status = 0;
        CHECK_EQ(waitpid(pids[i], &status, 0), pids[i]);
        CHECK(WIFEXITED(status));
        CHECK_EQ(WEXITSTATUS(status), 0);
    }
    pl__store *s = open_store(loc);
    CHECK_EQ(pl__store_schema_version(s), 5);
    put_circuit(s, 'a', 100);
    queued_job(s, 'a', PL__PRIORITY_LOW, 1);
    pl__store_close(s);
    /* Migrated once: one version row (a second run of the version 1 step
     * would have failed on its CREATE TABLE, a second version 2 or 3
     * step on its ALTER TABLE). */
    if (g_backend == BACKEND_POSTGRES) {
        CHECK_EQ(pg_int("store_first_open",
                        "SELECT count(*) FROM proofline.meta"),
                 1);
        CHECK_EQ(pg_int("store_first_open",
                        "SELECT max(version) FROM proofline.meta"),
                 5);
    }
}

/* ---- the cases: each scenario on SQLite ------------------------------- */

/* A job created with the caller's id: made once, whatever the number of
 * calls, from one handle, after a reopen, or from several handles (so
 * several processes) at once; a second call with another body is handed
 * the first job, unchanged (the server compares and answers 409). */
typedef struct id_racer {
    const char *loc, *id;
    bool created;
    pl__store_job job;
} id_racer;

static void *race_create_with_id(void *arg)
{
    id_racer *r = arg;
    pl__store *s = open_store(r->loc);
    pl_error err = {0};
    CHECK_OK(pl__store_job_create_with_id(s, r->id, circuit_id('a'),
                                          PL__PRIORITY_HIGH, 2, &r->job,
                                          &r->created, &err),
             &err);
    pl__store_close(s);
    return NULL;
}

SCENARIO(job_create_with_id)
{
    const char *loc = store_loc("store_with_id");
    pl__store *s = open_store(loc);
    pl_error err = {0};
    put_circuit(s, 'a', 100);
    static const char id[] = "0f0e0d0c-0b0a-8908-8706-050403020100";
    pl__store_job job, again;
    bool created = false;
    CHECK_OK(pl__store_job_create_with_id(s, id, circuit_id('a'),
                                          PL__PRIORITY_NORMAL, 3, &job,
                                          &created, &err),
             &err);
    CHECK(created);
    CHECK(strcmp(job.id, id) == 0);
    CHECK_EQ(job.state, PL__JOB_RECEIVING);
    CHECK_EQ(job.n_partitions, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(pl__store_job_create_with_id(s, id, circuit_id('a'),
                                              PL__PRIORITY_HIGH, 1, &again,
                                              &created, &err),
                 &err);
        CHECK(!created);
        CHECK_EQ(again.seq, job.seq);
        CHECK_EQ(again.priority, PL__PRIORITY_NORMAL);
        CHECK_EQ(again.n_partitions, 3);
    }
    /* a malformed id is refused, naming it; an unknown circuit too */
    CHECK_STATUS(pl__store_job_create_with_id(s, "short", circuit_id('a'),
                                              PL__PRIORITY_NORMAL, 1, &again,
                                              &created, &err),
                 PL_EUSAGE, &err);
    CHECK(strstr(err.msg, "job id") != NULL);
    static const char other[] = "1f0e0d0c-0b0a-8908-8706-050403020100";
    CHECK_STATUS(pl__store_job_create_with_id(s, other, circuit_id('z'),
                                              PL__PRIORITY_NORMAL, 1, &again,
                                              &created, &err),
                 PL_EUSAGE, &err);
    CHECK(pl__store_is_not_found(&err));
    pl__store_close(s);
    s = open_store(loc);
    CHECK_OK(pl__store_job_create_with_id(s, id, circuit_id('a'),
                                          PL__PRIORITY_NORMAL, 3, &again,
                                          &created, &err),
             &err);
    CHECK(!created);
    CHECK_EQ(again.seq, job.seq);
    pl__store_close(s);
    /* four handles race on a new id: one job */
    static const char raced[] = "2f0e0d0c-0b0a-8908-8706-050403020100";
    id_racer r[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        r[i] = (id_racer){.loc = loc, .id = raced};
        CHECK(pthread_create(&t[i], NULL, race_create_with_id, &r[i]) == 0);
    }
    int made = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        made += r[i].created;
        CHECK_EQ(r[i].job.seq, r[0].job.seq);
        CHECK(strcmp(r[i].job.id, raced) == 0);
    }
    CHECK_EQ(made, 1);
}

/* Deadlines: set before the job can be claimed, read back with the job
 * (get, list, the claim), kept across a reopen; the completion that ends
 * a job (and only that one) says so; a version 2 store's jobs migrate
 * with no deadline and take one afterwards. */
typedef struct deadline_seen {
    const char *id;
    int64_t deadline;
} deadline_seen;

static bool see_deadline(void *user, const pl__store_job *job)
{
    deadline_seen *d = user;
    if (strcmp(job->id, d->id) == 0)
        d->deadline = job->deadline_unix_ms;
    return true;
}

SCENARIO(job_deadline)
{
    const char *loc0 = store_loc("store_deadline");
    char loc[4200];
    snprintf(loc, sizeof(loc), "%s", loc0);
    pl_error err = {0};
    int before = -1, after = -1;
    /* a version 2 store with a job in it, as a version 2 build left it */
    CHECK_OK(pl__store_migrate(loc, 2, &before, &after, &err), &err);
    CHECK_EQ(after, 2);
    static const char old_id[] = "22222222-2222-4222-8222-222222222222";
    if (g_backend == BACKEND_POSTGRES) {
        pg_sql("store_deadline",
               "INSERT INTO proofline.circuits VALUES ('c1', '/z', 1, 2, 3, "
               "4, 5, 100, 7);"
               "INSERT INTO proofline.jobs (id, circuit_id, priority, state, "
               "n_partitions, n_stored, n_done, created_ms, updated_ms) "
               "VALUES ('22222222-2222-4222-8222-222222222222', 'c1', 1, "
               "'receiving', 1, 0, 0, 1, 1);"
               "INSERT INTO proofline.partitions (job_id, idx, state, "
               "priority, seq, partition_bytes) VALUES "
               "('22222222-2222-4222-8222-222222222222', 0, 'waiting', 1, 1, "
               "100)");
    } else {
        char file[4300];
        snprintf(file, sizeof(file), "%s/store.sqlite", loc);
        sqlite3 *db = NULL;
        CHECK_EQ(sqlite3_open(file, &db), SQLITE_OK);
        CHECK_EQ(sqlite3_exec(
                     db,
                     "INSERT INTO circuits VALUES ('c1', '/z', 1, 2, 3, 4, 5, "
                     "100, 7);"
                     "INSERT INTO jobs (id, circuit_id, priority, state, "
                     "n_partitions, n_stored, n_done, created_ms, updated_ms) "
                     "VALUES ('22222222-2222-4222-8222-222222222222', 'c1', 1, "
                     "'receiving', 1, 0, 0, 1, 1);"
                     "INSERT INTO partitions (job_id, idx, state, priority, "
                     "seq, partition_bytes) VALUES "
                     "('22222222-2222-4222-8222-222222222222', 0, 'waiting', "
                     "1, 1, 100);",
                     NULL, NULL, NULL),
                 SQLITE_OK);
        sqlite3_close(db);
    }
    pl__store *s = open_store(loc);
    CHECK_EQ(pl__store_schema_version(s), 5);
    pl__store_job old = job_of(s, old_id);
    CHECK_EQ(old.deadline_unix_ms, 0);
    CHECK_EQ(old.state, PL__JOB_RECEIVING);
    CHECK(!pl__store_job_deadline_missed(&old, INT64_MAX));
    CHECK_OK(pl__store_job_set_deadline(s, old_id, 5000, &err), &err);
    CHECK_EQ(job_of(s, old_id).deadline_unix_ms, 5000);

    /* a new job: none until set, then set before any witness */
    put_circuit(s, 'a', 100);
    pl__store_job job;
    CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_HIGH, 2,
                                  &job, &err),
             &err);
    CHECK_EQ(job.deadline_unix_ms, 0);
    int64_t at = job.created_unix_ms + 60000;
    CHECK_OK(pl__store_job_set_deadline(s, job.id, at, &err), &err);
    CHECK_EQ(job_of(s, job.id).deadline_unix_ms, at);
    deadline_seen seen = {job.id, -1};
    CHECK_OK(pl__store_job_list(s, -1, 0, see_deadline, &seen, &err), &err);
    CHECK_EQ(seen.deadline, at);
    /* refused: an unknown job (not found), a time below 0 */
    static const char nobody[] = "3f0e0d0c-0b0a-8908-8706-050403020100";
    CHECK_STATUS(pl__store_job_set_deadline(s, nobody, at, &err), PL_EUSAGE,
                 &err);
    CHECK(pl__store_is_not_found(&err));
    CHECK_STATUS(pl__store_job_set_deadline(s, job.id, -1, &err), PL_EUSAGE,
                 &err);
    CHECK(strstr(err.msg, "deadline") != NULL);
    pl__store_close(s);

    /* kept across a reopen; the claim carries it */
    s = open_store(loc);
    CHECK_EQ(job_of(s, job.id).deadline_unix_ms, at);
    for (uint32_t k = 0; k < 2; k++) {
        char w[256];
        witness_path(w, sizeof(w), job.id, k);
        CHECK_OK(pl__store_witness_stored(s, job.id, k, w, NULL, &err), &err);
    }
    pl__store_claim c0 = claim(s, "w1", UINT64_MAX, 60000);
    pl__store_claim c1 = claim(s, "w2", UINT64_MAX, 60000);
    CHECK(strcmp(c0.job.id, job.id) == 0 && strcmp(c1.job.id, job.id) == 0);
    CHECK_EQ(c0.job.deadline_unix_ms, at);
    CHECK_EQ(c1.job.deadline_unix_ms, at);
    /* while it runs: missed only once past it */
    pl__store_job running = job_of(s, job.id);
    CHECK(!pl__store_job_deadline_missed(&running, at));
    CHECK(pl__store_job_deadline_missed(&running, at + 1));
    /* the first completion does not end the job, the second does */
    bool job_done = true;
    char p[256];
    proof_path(p, sizeof(p), job.id, c0.part.index);
    CHECK_OK(pl__store_complete_job(s, job.id, c0.part.index, "w1",
                                    c0.part.fence, p, &job_done, &err),
             &err);
    CHECK(!job_done);
    proof_path(p, sizeof(p), job.id, c1.part.index);
    CHECK_OK(pl__store_complete_job(s, job.id, c1.part.index, "w2",
                                    c1.part.fence, p, &job_done, &err),
             &err);
    CHECK(job_done);
    pl__store_job ended = job_of(s, job.id);
    CHECK_EQ(ended.state, PL__JOB_DONE);
    CHECK_EQ(ended.deadline_unix_ms, at);
    /* an ended job is judged by its end, not by now */
    CHECK(!pl__store_job_deadline_missed(&ended, INT64_MAX));
    ended.deadline_unix_ms = ended.finished_unix_ms - 1;
    CHECK(pl__store_job_deadline_missed(&ended, 0));
    /* a lost claim's completion says nothing */
    job_done = true;
    CHECK_STATUS(pl__store_complete_job(s, job.id, c1.part.index, "w3",
                                        c1.part.fence, p, &job_done, &err),
                 PL_ECANCELLED, &err);
    CHECK(!job_done);
    pl__store_close(s);
}

/* A circuit's curve (schema 5): put with its circuit, read back with it
 * and with each of its jobs (get, list); a version 4 store's circuit
 * migrates with none ('': the service reads its zkey) and takes one once,
 * the second set keeping the first; jobs of two circuits of different
 * curves listed side by side each with its own. */
static bool see_curves(void *user, const pl__store_job *job)
{
    char (*seen)[PL__STORE_CURVE_LEN + 1] = user;
    /* the jobs' circuits here are 'a' (bn128) and 'b' (bls12381) */
    snprintf(seen[job->circuit_id[0] == 'a' ? 0 : 1], PL__STORE_CURVE_LEN + 1,
             "%s", job->curve);
    return true;
}

SCENARIO(circuit_curve)
{
    const char *loc0 = store_loc("store_curve");
    char loc[4200];
    snprintf(loc, sizeof(loc), "%s", loc0);
    pl_error err = {0};
    int before = -1, after = -1;
    CHECK_OK(pl__store_migrate(loc, 4, &before, &after, &err), &err);
    CHECK_EQ(after, 4);
    if (g_backend == BACKEND_POSTGRES) {
        pg_sql("store_curve",
               "INSERT INTO proofline.circuits VALUES ('c1', '/z', 1, 2, 3, "
               "4, 5, 100, 7);");
    } else {
        char file[4300];
        snprintf(file, sizeof(file), "%s/store.sqlite", loc);
        sqlite3 *db = NULL;
        CHECK_EQ(sqlite3_open(file, &db), SQLITE_OK);
        CHECK_EQ(sqlite3_exec(db, "INSERT INTO circuits VALUES ('c1', '/z', "
                              "1, 2, 3, 4, 5, 100, 7);", NULL, NULL, NULL),
                 SQLITE_OK);
        sqlite3_close(db);
    }
    pl__store *s = open_store(loc);
    CHECK_EQ(pl__store_schema_version(s), 5);
    pl__store_circuit c;
    CHECK_OK(pl__store_circuit_get(s, "c1", &c, &err), &err);
    CHECK(c.curve[0] == 0);
    CHECK_EQ(c.partition_bytes, 100);
    CHECK_OK(pl__store_circuit_set_curve(s, "c1", "bn128", &err), &err);
    CHECK_OK(pl__store_circuit_set_curve(s, "c1", "bls12381", &err), &err);
    CHECK_OK(pl__store_circuit_get(s, "c1", &c, &err), &err);
    CHECK(strcmp(c.curve, "bn128") == 0);

    /* new circuits carry theirs; their jobs show it */
    pl__store_circuit a = {0}, b = {0};
    memset(a.id, 'a', PL__STORE_ID_LEN);
    memset(b.id, 'b', PL__STORE_ID_LEN);
    snprintf(a.zkey_path, sizeof(a.zkey_path), "/a.zkey");
    snprintf(b.zkey_path, sizeof(b.zkey_path), "/b.zkey");
    a.n_vars = b.n_vars = 10;
    a.partition_bytes = b.partition_bytes = 100;
    snprintf(a.curve, sizeof(a.curve), "bn128");
    snprintf(b.curve, sizeof(b.curve), "bls12381");
    CHECK_OK(pl__store_circuit_put(s, &a, &err), &err);
    CHECK_OK(pl__store_circuit_put(s, &b, &err), &err);
    CHECK_OK(pl__store_circuit_get(s, circuit_id('a'), &c, &err), &err);
    CHECK(strcmp(c.curve, "bn128") == 0);
    pl__store_job ja, jb;
    CHECK_OK(pl__store_job_create(s, circuit_id('a'), PL__PRIORITY_NORMAL, 1,
                                  &ja, &err), &err);
    CHECK_OK(pl__store_job_create(s, circuit_id('b'), PL__PRIORITY_NORMAL, 1,
                                  &jb, &err), &err);
    CHECK(strcmp(ja.curve, "bn128") == 0);
    CHECK(strcmp(jb.curve, "bls12381") == 0);
    CHECK(strcmp(job_of(s, ja.id).curve, "bn128") == 0);
    char seen[2][PL__STORE_CURVE_LEN + 1] = {"", ""};
    CHECK_OK(pl__store_job_list(s, -1, 10, see_curves, seen, &err), &err);
    CHECK(strcmp(seen[0], "bn128") == 0 && strcmp(seen[1], "bls12381") == 0);
    memset(seen, 0, sizeof(seen));
    CHECK_OK(pl__store_job_list(s, PL__JOB_RECEIVING, 10, see_curves, seen,
                                &err), &err);
    CHECK(strcmp(seen[0], "bn128") == 0 && strcmp(seen[1], "bls12381") == 0);
    /* a name too long for the column is refused before the database */
    CHECK_STATUS(pl__store_circuit_set_curve(s, "c1", "a-curve-name-too-long",
                                             &err), PL_EUSAGE, &err);
    pl__store_close(s);
}

#define SCENARIO_LIST(X)                                                      \
    X(newer_schema_refused)                                                   \
    X(circuits)                                                               \
    X(job_states_receiving_to_queued)                                         \
    X(claim_order_priority_then_arrival)                                      \
    X(claim_only_what_fits)                                                   \
    X(lease_expiry_and_recover)                                               \
    X(fencing)                                                                \
    X(release_requeues)                                                       \
    X(heartbeat_extends)                                                      \
    X(cancel_queued_and_claimed)                                              \
    X(fail_ends_the_job)                                                      \
    X(counts)                                                                 \
    X(job_list_newest_first)                                                  \
    X(purge_forgets_ended_jobs)                                               \
    X(reopen_keeps_everything)                                                \
    X(threads_share_one_handle)                                               \
    X(processes_claim_each_partition_once)                                    \
    X(cancel_under_load)                                                      \
    X(concurrent_first_open)                                                  \
    X(job_fail_without_claim)                                                 \
    X(failures_retry)                                                         \
    X(workers_table)                                                          \
    X(migrate_from_v1)                                                        \
    X(lapses_count_as_attempts)                                               \
    X(waiting_claims_cost_nothing)                                            \
    X(stopped_and_killed_workers)                                             \
    X(schema_keeps_one_result)                                                \
    X(job_create_with_id)                                                     \
    X(job_deadline)                                                           \
    X(circuit_curve)

/* CMake reads these lines (one ctest case each). */
PL_TEST(newer_schema_refused) { scenario_newer_schema_refused(); }
PL_TEST(circuits) { scenario_circuits(); }
PL_TEST(job_states_receiving_to_queued) { scenario_job_states_receiving_to_queued(); }
PL_TEST(claim_order_priority_then_arrival) { scenario_claim_order_priority_then_arrival(); }
PL_TEST(claim_only_what_fits) { scenario_claim_only_what_fits(); }
PL_TEST(lease_expiry_and_recover) { scenario_lease_expiry_and_recover(); }
PL_TEST(fencing) { scenario_fencing(); }
PL_TEST(release_requeues) { scenario_release_requeues(); }
PL_TEST(heartbeat_extends) { scenario_heartbeat_extends(); }
PL_TEST(cancel_queued_and_claimed) { scenario_cancel_queued_and_claimed(); }
PL_TEST(fail_ends_the_job) { scenario_fail_ends_the_job(); }
PL_TEST(counts) { scenario_counts(); }
PL_TEST(job_list_newest_first) { scenario_job_list_newest_first(); }
PL_TEST(purge_forgets_ended_jobs) { scenario_purge_forgets_ended_jobs(); }
PL_TEST(reopen_keeps_everything) { scenario_reopen_keeps_everything(); }
PL_TEST(threads_share_one_handle) { scenario_threads_share_one_handle(); }
PL_TEST(processes_claim_each_partition_once) { scenario_processes_claim_each_partition_once(); }
PL_TEST(cancel_under_load) { scenario_cancel_under_load(); }
PL_TEST(concurrent_first_open) { scenario_concurrent_first_open(); }
PL_TEST(job_fail_without_claim) { scenario_job_fail_without_claim(); }
PL_TEST(failures_retry) { scenario_failures_retry(); }
PL_TEST(workers_table) { scenario_workers_table(); }
PL_TEST(migrate_from_v1) { scenario_migrate_from_v1(); }
PL_TEST(lapses_count_as_attempts) { scenario_lapses_count_as_attempts(); }
PL_TEST(waiting_claims_cost_nothing) { scenario_waiting_claims_cost_nothing(); }
PL_TEST(stopped_and_killed_workers) { scenario_stopped_and_killed_workers(); }
PL_TEST(schema_keeps_one_result) { scenario_schema_keeps_one_result(); }
PL_TEST(job_create_with_id) { scenario_job_create_with_id(); }
PL_TEST(job_deadline) { scenario_job_deadline(); }
PL_TEST(circuit_curve) { scenario_circuit_curve(); }

/* ---- PostgreSQL: a server of the test's own ------------------------------
 *
 * initdb into a temporary folder under /tmp (short, so that the Unix
 * socket's path fits), the server listening only on a socket in that
 * folder, run as an unprivileged user when the test runs as root
 * (PostgreSQL refuses root): "nobody".  Stopped and removed at exit,
 * whatever the outcome (a failed CHECK exits through atexit too). */

static char g_pg_dir[128];
static char g_pg_bin[256];
static bool g_pg_running;

/* Runs argv (argv[0]: a full path) as the server's user, its output to
 * dir/log; returns its exit status (-1 if it could not run). */
static int pg_run(char *const argv[])
{
    char log[256];
    snprintf(log, sizeof(log), "%s/commands.log", g_pg_dir);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (geteuid() == 0) {
            struct passwd *pw = getpwnam("nobody");
            if (!pw || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
                _exit(126);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    return remove(path) == 0 ? 0 : 0; /* best effort */
}

static void pg_stop(void)
{
    if (!g_pg_dir[0])
        return;
    if (g_pg_running) {
        char ctl[300], data[200];
        snprintf(ctl, sizeof(ctl), "%s/pg_ctl", g_pg_bin);
        snprintf(data, sizeof(data), "%s/data", g_pg_dir);
        char *argv[] = {ctl, "-D", data, "-m", "immediate", "-w", "stop",
                        NULL};
        pg_run(argv);
        g_pg_running = false;
    }
    nftw(g_pg_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_pg_dir[0] = 0;
}

/* Fails the test with the tail of the server's log (the folder, and the
 * log, go at exit). */
_Noreturn static void pg_fail(const char *what, const char *log_name)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", g_pg_dir, log_name);
    fprintf(stderr, "---- the end of %s:\n", path);
    FILE *f = fopen(path, "r");
    if (f) {
        static char buf[4096];
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0,
              SEEK_SET);
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        fputs(buf, stderr);
        fclose(f);
    }
    pl_test_fail(__FILE__, __LINE__, "%s", what);
}

/* Starts the server; false (and why, on stderr) when PostgreSQL's
 * binaries are not installed. */
static bool pg_start(void)
{
    glob_t g;
    if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) != 0 ||
        g.gl_pathc == 0) {
        fprintf(stderr, "skipped: PostgreSQL's server binaries are not "
                        "installed (/usr/lib/postgresql/*/bin/initdb; "
                        "Debian: postgresql)\n");
        return false;
    }
    /* The newest version (glob sorts; "15" after "14"). */
    snprintf(g_pg_bin, sizeof(g_pg_bin), "%s", g.gl_pathv[g.gl_pathc - 1]);
    globfree(&g);
    *strrchr(g_pg_bin, '/') = 0;
    snprintf(g_pg_dir, sizeof(g_pg_dir), "/tmp/proofline-pg-XXXXXX");
    CHECK(mkdtemp(g_pg_dir) != NULL);
    atexit(pg_stop);
    if (geteuid() == 0) {
        struct passwd *pw = getpwnam("nobody");
        if (!pw) {
            fprintf(stderr, "skipped: running as root, and there is no user "
                            "\"nobody\" to run PostgreSQL as\n");
            return false;
        }
        CHECK(chown(g_pg_dir, pw->pw_uid, pw->pw_gid) == 0);
    }
    char initdb[300], ctl[300], data[200], log[200], opts[300];
    snprintf(initdb, sizeof(initdb), "%s/initdb", g_pg_bin);
    snprintf(ctl, sizeof(ctl), "%s/pg_ctl", g_pg_bin);
    snprintf(data, sizeof(data), "%s/data", g_pg_dir);
    snprintf(log, sizeof(log), "%s/server.log", g_pg_dir);
    snprintf(opts, sizeof(opts), "-k %s -c listen_addresses=", g_pg_dir);
    char *init_argv[] = {initdb, "-D", data, "-A", "trust", "-U", "proofline",
                         "-E", "UTF8", "--locale=C", "--no-sync", NULL};
    if (pg_run(init_argv) != 0)
        pg_fail("initdb failed", "commands.log");
    char *start_argv[] = {ctl, "-D", data, "-l", log, "-o", opts, "-w",
                          "start", NULL};
    if (pg_run(start_argv) != 0)
        pg_fail("the server did not start", "server.log");
    g_pg_running = true;
    return true;
}

static void pg_restart(void)
{
    char ctl[300], data[200], log[200];
    snprintf(ctl, sizeof(ctl), "%s/pg_ctl", g_pg_bin);
    snprintf(data, sizeof(data), "%s/data", g_pg_dir);
    snprintf(log, sizeof(log), "%s/server.log", g_pg_dir);
    char *argv[] = {ctl, "-D", data, "-l", log, "-m", "fast", "-w", "restart",
                    NULL};
    if (pg_run(argv) != 0)
        pg_fail("the server did not restart", "server.log");
}

static PGconn *pg_connect(const char *db)
{
    const char *keys[] = {"host", "dbname", "user", NULL};
    const char *vals[] = {g_pg_dir, db, "proofline", NULL};
    PGconn *c = PQconnectdbParams(keys, vals, 0);
    if (PQstatus(c) != CONNECTION_OK)
        pl_test_fail(__FILE__, __LINE__, "connecting to %s: %s", db,
                     PQerrorMessage(c));
    return c;
}

static void pg_sql(const char *db, const char *sql)
{
    PGconn *c = pg_connect(db);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK &&
        PQresultStatus(r) != PGRES_TUPLES_OK)
        pl_test_fail(__FILE__, __LINE__, "%s: %s", sql,
                     PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
}

/* The integer a one-row, one-column query answers. */
static long long pg_int(const char *db, const char *sql)
{
    PGconn *c = pg_connect(db);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        pl_test_fail(__FILE__, __LINE__, "%s: %s", sql,
                     PQresultErrorMessage(r));
    long long v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    PQfinish(c);
    return v;
}

/* Stops the server now; a child starts it again after delay_ms.  Returns
 * the child, for waitpid. */
static pid_t pg_bounce(long delay_ms)
{
    char ctl[300], data[200], log[200];
    snprintf(ctl, sizeof(ctl), "%s/pg_ctl", g_pg_bin);
    snprintf(data, sizeof(data), "%s/data", g_pg_dir);
    snprintf(log, sizeof(log), "%s/server.log", g_pg_dir);
    char *stop_argv[] = {ctl, "-D", data, "-m", "fast", "-w", "stop", NULL};
    if (pg_run(stop_argv) != 0)
        pg_fail("the server did not stop", "server.log");
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        sleep_ms(delay_ms);
        char opts[300];
        snprintf(opts, sizeof(opts), "-k %s -c listen_addresses=", g_pg_dir);
        char *start_argv[] = {ctl, "-D", data, "-l", log, "-o", opts, "-w",
                              "start", NULL};
        _exit(pg_run(start_argv) == 0 ? 0 : 1);
    }
    return pid;
}

/* A new, empty database named name (a scenario's own), and its locator. */
static const char *pg_fresh_db(const char *name)
{
    char sql[256]; /* the server is new: the name is free */
    snprintf(sql, sizeof(sql), "CREATE DATABASE %s", name);
    pg_sql("postgres", sql);
    static char loc[512];
    snprintf(loc, sizeof(loc), "postgresql:///%s?host=%s&user=proofline", name,
             g_pg_dir);
    return loc;
}

/* Every scenario against one PostgreSQL server, each on a database of its
 * own; then restarts of the server under an open store, and a server
 * that is not there. */
PL_TEST(postgres_store)
{
    if (!pg_start())
        exit(77);
    g_backend = BACKEND_POSTGRES;
    static const struct {
        const char *name;
        void (*fn)(void);
    } scenarios[] = {
#define SCENARIO_ROW(name) {#name, scenario_##name},
        SCENARIO_LIST(SCENARIO_ROW)
#undef SCENARIO_ROW
    };
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
        fprintf(stderr, "postgres: %s\n", scenarios[i].name);
        scenarios[i].fn();
    }

    /* The server restarts under an open store: its next call reconnects,
     * and finds what was committed before. */
    const char *restart_loc = store_loc("store_restart");
    pl__store *s = open_store(restart_loc);
    put_circuit(s, 'a', 100);
    pl__store_job job = queued_job(s, 'a', PL__PRIORITY_HIGH, 2);
    pg_restart();
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_QUEUED);
    pl__store_claim c = claim(s, "w1", UINT64_MAX, 60000);
    complete(s, &c);
    pg_restart();
    c = claim(s, "w1", UINT64_MAX, 60000);
    complete(s, &c);
    CHECK_EQ(job_of(s, job.id).state, PL__JOB_DONE);

    /* The server is down for a while (a restart that takes seconds, a
     * failover): calls back off and reconnect when it is back, a claim
     * held across it completes, and nothing committed is lost. */
    pl__store_job job2 = queued_job(s, 'a', PL__PRIORITY_HIGH, 2);
    c = claim(s, "w1", UINT64_MAX, 60000);
    pid_t starter = pg_bounce(1500);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    complete(s, &c); /* waits for the server */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK((t1.tv_sec - t0.tv_sec) * 1000 +
              (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 1000);
    int st = 0;
    CHECK_EQ(waitpid(starter, &st, 0), starter);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    starter = pg_bounce(800);
    pl__store_claim c2 = claim(s, "w2", UINT64_MAX, 60000);
    CHECK_EQ(waitpid(starter, &st, 0), starter);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(c2.part.index, 1);
    complete(s, &c2);
    CHECK_EQ(job_of(s, job2.id).state, PL__JOB_DONE);
    CHECK_EQ(part_of(s, job2.id, 0).completions, 1);
    CHECK_EQ(part_of(s, job2.id, 1).completions, 1);
    pl__store_close(s);

    /* A server that is not there: an error naming it, no crash. */
    pl_error err = {0};
    s = NULL;
    char bad[300];
    snprintf(bad, sizeof(bad), "postgresql:///nodb?host=%s/nowhere&user=x",
             g_pg_dir);
    CHECK_STATUS(pl__store_open(&s, bad, &err), PL_EIO, &err);
    CHECK(strstr(err.msg, "postgres") != NULL);
    pg_stop();
}
