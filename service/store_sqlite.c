/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job store on SQLite: one file, DIR/store.sqlite, the embedded
 * default of `proofline serve --data DIR`.  Implements store.h (see there
 * for the contract: leases, fencing, the job's states); store.c checks the
 * arguments before they reach this file.
 *
 * Durability and several processes: WAL with synchronous=FULL (a commit is
 * on disk when the call returns), and every change in one BEGIN IMMEDIATE
 * transaction, which takes SQLite's write lock at its start: two processes
 * on one file serialise there (busy_timeout waits for the lock), and a
 * claim's choice and its update cannot interleave with another's, so no
 * partition is claimed twice.  (A deferred transaction that reads and
 * then writes could fail in WAL mode when another process wrote in
 * between; IMMEDIATE never reads an old snapshot before writing.)
 *
 * Threads: one connection, guarded by one mutex (the only lock in this
 * file).  A listing reads a page of rows under the lock and calls the
 * caller's function without it, so that function may call the store.
 *
 * The queue: a partition row carries copies of its job's priority and
 * arrival sequence and of its circuit's partition_bytes (none of them
 * ever changes after creation), so the next claim is the first row of one
 * partial index over the queued partitions, whatever the queue's length,
 * with no join and no sort.
 *
 * Schema versions: PRAGMA user_version holds the version, PRAGMA
 * application_id marks the file as proofline's.  A new file gets the
 * current schema by the same steps an older one is migrated by (1, then
 * 2: migrations[]), in one transaction; a newer one, or a
 * SQLite file that is not a store, is refused, naming the file.
 *
 * Every statement is prepared once from a constant text and bound with
 * the caller's values: no SQL is ever built from an input.
 */
#define _POSIX_C_SOURCE 200809L
#include "store_impl.h"
#include "util/error.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* "PLst": marks the file as a proofline store. */
#define APPLICATION_ID 0x504c5374
/* How long a process waits for another's write lock before it reports the
 * store busy.  Transactions here are short (a few rows); the wait covers
 * a crowd of workers and a slow disk's fsync, not a stuck holder. */
#define BUSY_TIMEOUT_MS 30000

static const char schema_v1[] =
    "CREATE TABLE circuits ("
    " id TEXT PRIMARY KEY NOT NULL,"
    " zkey_path TEXT NOT NULL,"
    " zkey_bytes INTEGER NOT NULL,"
    " n_constraints INTEGER NOT NULL,"
    " n_vars INTEGER NOT NULL,"
    " n_public INTEGER NOT NULL,"
    " witness_bytes INTEGER NOT NULL,"
    " partition_bytes INTEGER NOT NULL,"
    " created_ms INTEGER NOT NULL);"
    /* seq: AUTOINCREMENT, so an arrival number is never reused, even after
     * the newest job is purged. */
    "CREATE TABLE jobs ("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " id TEXT NOT NULL UNIQUE,"
    " circuit_id TEXT NOT NULL REFERENCES circuits(id),"
    " priority INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),"
    " state TEXT NOT NULL CHECK (state IN ('receiving', 'queued', 'running',"
    "  'done', 'failed', 'cancelled')),"
    " n_partitions INTEGER NOT NULL CHECK (n_partitions > 0),"
    " n_stored INTEGER NOT NULL DEFAULT 0,"
    " n_done INTEGER NOT NULL DEFAULT 0,"
    " created_ms INTEGER NOT NULL,"
    " updated_ms INTEGER NOT NULL,"
    " finished_ms INTEGER NOT NULL DEFAULT 0,"
    " error TEXT NOT NULL DEFAULT '',"
    " CHECK (n_stored BETWEEN 0 AND n_partitions),"
    " CHECK (n_done BETWEEN 0 AND n_partitions));"
    "CREATE INDEX jobs_by_state ON jobs(state, seq);"
    /* The invariants the code keeps, kept by the schema too: a claimed
     * partition has an owner, a partition completes once at most, a done
     * one names its proof. */
    "CREATE TABLE partitions ("
    " job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    " idx INTEGER NOT NULL CHECK (idx >= 0),"
    " state TEXT NOT NULL CHECK (state IN ('waiting', 'queued', 'claimed',"
    "  'done', 'failed', 'cancelled')),"
    " witness_path TEXT NOT NULL DEFAULT '',"
    " proof_path TEXT NOT NULL DEFAULT '',"
    " owner TEXT NOT NULL DEFAULT '',"
    " fence INTEGER NOT NULL DEFAULT 0,"
    " lease_until INTEGER NOT NULL DEFAULT 0,"
    " attempts INTEGER NOT NULL DEFAULT 0,"
    " completions INTEGER NOT NULL DEFAULT 0"
    "  CHECK (completions BETWEEN 0 AND 1),"
    " claimed_ms INTEGER NOT NULL DEFAULT 0,"
    " finished_ms INTEGER NOT NULL DEFAULT 0,"
    " error TEXT NOT NULL DEFAULT '',"
    " priority INTEGER NOT NULL,"
    " seq INTEGER NOT NULL,"
    " partition_bytes INTEGER NOT NULL,"
    " PRIMARY KEY (job_id, idx),"
    " CHECK (state <> 'claimed' OR owner <> ''),"
    " CHECK (state <> 'done' OR (proof_path <> '' AND completions = 1)));"
    "CREATE INDEX partitions_by_state ON partitions(state, priority);"
    "CREATE INDEX partitions_queue ON partitions(priority DESC, seq, idx)"
    " WHERE state = 'queued';";

/* Version 2, one step from version 1 (a new store runs both): every
 * failed attempt kept (its row goes with its partition's), the workers'
 * rows for the cluster's view, and the live claims by owner (what a
 * heartbeat renews). */
static const char schema_v2[] =
    "CREATE TABLE attempts ("
    " job_id TEXT NOT NULL,"
    " idx INTEGER NOT NULL,"
    " attempt INTEGER NOT NULL CHECK (attempt > 0),"
    " owner TEXT NOT NULL,"
    " fence INTEGER NOT NULL,"
    " retried INTEGER NOT NULL CHECK (retried IN (0, 1)),"
    " at_ms INTEGER NOT NULL,"
    " error TEXT NOT NULL,"
    " PRIMARY KEY (job_id, idx, attempt),"
    " FOREIGN KEY (job_id, idx) REFERENCES partitions(job_id, idx)"
    "  ON DELETE CASCADE);"
    "CREATE TABLE workers ("
    " id TEXT PRIMARY KEY NOT NULL,"
    " host TEXT NOT NULL,"
    " pid INTEGER NOT NULL,"
    " backend TEXT NOT NULL,"
    " gpus TEXT NOT NULL,"
    " budget_bytes INTEGER NOT NULL,"
    " reserved_bytes INTEGER NOT NULL,"
    " status_json TEXT NOT NULL,"
    " gone INTEGER NOT NULL CHECK (gone IN (0, 1)),"
    " started_ms INTEGER NOT NULL,"
    " heartbeat_ms INTEGER NOT NULL);"
    "CREATE INDEX partitions_claims ON partitions(owner)"
    " WHERE state = 'claimed';"
    /* PostgreSQL's claim token (a lost answer's claim found again); kept
     * here too so that both stores have the same tables. */
    "ALTER TABLE partitions ADD COLUMN claim_id TEXT NOT NULL DEFAULT '';";

/* Version 3, one step from version 2: a job's deadline (unix ms, 0 for
 * none), so that a miss is judged against what was asked at submission,
 * whichever worker finishes the job.  Existing rows have none. */
static const char schema_v3[] =
    "ALTER TABLE jobs ADD COLUMN deadline_ms INTEGER NOT NULL DEFAULT 0"
    " CHECK (deadline_ms >= 0);";

/* The steps, by the version each one makes. */
static const char *const migrations[PL__STORE_SCHEMA_VERSION + 1] = {
    NULL, schema_v1, schema_v2, schema_v3};

#define CIRCUIT_COLS                                                          \
    "id, zkey_path, zkey_bytes, n_constraints, n_vars, n_public, "            \
    "witness_bytes, partition_bytes, created_ms"
/* n_stored and n_done (10, 11) are the store's own counters. */
#define JOB_COLS                                                              \
    "id, circuit_id, priority, state, n_partitions, seq, created_ms, "        \
    "updated_ms, finished_ms, error, n_stored, n_done, deadline_ms"
#define PART_COLS                                                             \
    "job_id, idx, state, witness_path, proof_path, owner, fence, "            \
    "lease_until, attempts, completions, claimed_ms, finished_ms, error"
#define LIVE_JOB "('receiving', 'queued', 'running')"
#define CLAIM_IS                                                              \
    "job_id = ?1 AND idx = ?2 AND state = 'claimed' AND owner = ?3 AND "      \
    "fence = ?4"

#define STMT_MAP(X)                                                           \
    X(ST_BEGIN_WRITE, "BEGIN IMMEDIATE")                                      \
    X(ST_BEGIN_READ, "BEGIN")                                                 \
    X(ST_COMMIT, "COMMIT")                                                    \
    X(ST_ROLLBACK, "ROLLBACK")                                                \
    X(ST_CIRCUIT_PUT,                                                         \
      "INSERT INTO circuits (" CIRCUIT_COLS ") VALUES "                       \
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (id) DO NOTHING")     \
    X(ST_CIRCUIT_GET, "SELECT " CIRCUIT_COLS " FROM circuits WHERE id = ?1")  \
    X(ST_CIRCUIT_PAGE, "SELECT " CIRCUIT_COLS " FROM circuits WHERE id > ?1 " \
                       "ORDER BY id LIMIT ?2")                                \
    X(ST_JOB_INSERT,                                                          \
      "INSERT INTO jobs (id, circuit_id, priority, state, n_partitions, "     \
      "created_ms, updated_ms) VALUES (?1, ?2, ?3, 'receiving', ?4, ?5, ?5)") \
    X(ST_PART_INSERT,                                                         \
      "INSERT INTO partitions (job_id, idx, state, priority, seq, "           \
      "partition_bytes) VALUES (?1, ?2, 'waiting', ?3, ?4, ?5)")              \
    X(ST_JOB_GET, "SELECT " JOB_COLS " FROM jobs WHERE id = ?1")              \
    X(ST_JOB_DEADLINE,                                                        \
      "UPDATE jobs SET deadline_ms = ?2 WHERE id = ?1")                       \
    X(ST_PART_GET,                                                            \
      "SELECT " PART_COLS " FROM partitions WHERE job_id = ?1 AND idx = ?2")  \
    X(ST_PART_WITNESS,                                                        \
      "UPDATE partitions SET witness_path = ?3 WHERE job_id = ?1 AND "        \
      "idx = ?2 AND state = 'waiting' AND witness_path = ''")                 \
    X(ST_JOB_WITNESS,                                                         \
      "UPDATE jobs SET n_stored = n_stored + 1, updated_ms = ?2, state = "    \
      "CASE WHEN n_stored + 1 = n_partitions THEN 'queued' ELSE state END "   \
      "WHERE id = ?1 AND state = 'receiving'")                                \
    X(ST_PARTS_QUEUE, "UPDATE partitions SET state = 'queued' WHERE "         \
                      "job_id = ?1 AND state = 'waiting'")                    \
    X(ST_PARTS_PAGE, "SELECT " PART_COLS " FROM partitions WHERE "            \
                     "job_id = ?1 ORDER BY idx LIMIT ?2")                     \
    X(ST_JOB_PAGE, "SELECT " JOB_COLS " FROM jobs WHERE seq < ?1 "            \
                   "ORDER BY seq DESC LIMIT ?2")                              \
    X(ST_JOB_PAGE_STATE, "SELECT " JOB_COLS " FROM jobs WHERE state = ?3 "    \
                         "AND seq < ?1 ORDER BY seq DESC LIMIT ?2")           \
    /* Cancel (?3 'cancelled', ?4 '') or fail (?3 'failed', ?4 a message). */ \
    X(ST_JOB_END,                                                             \
      "UPDATE jobs SET state = ?3, error = CASE WHEN error = '' THEN ?4 "      \
      "ELSE error END, updated_ms = ?2, finished_ms = ?2 WHERE id = ?1 AND "  \
      "state IN " LIVE_JOB)                                                   \
    X(ST_PARTS_CANCEL,                                                        \
      "UPDATE partitions SET state = 'cancelled', lease_until = 0, "          \
      "finished_ms = ?2 WHERE job_id = ?1 AND state IN ('waiting', "          \
      "'queued', 'claimed')")                                                 \
    X(ST_CLAIM_PICK,                                                          \
      "SELECT job_id, idx FROM partitions WHERE state = 'queued' AND "        \
      "partition_bytes <= ?1 ORDER BY priority DESC, seq, idx LIMIT 1")       \
    X(ST_CLAIM_TAKE,                                                          \
      "UPDATE partitions SET state = 'claimed', owner = ?3, "                 \
      "fence = fence + 1, lease_until = ?4, attempts = attempts + 1, "        \
      "claimed_ms = ?5 WHERE job_id = ?1 AND idx = ?2 AND state = 'queued'")  \
    X(ST_JOB_RUNNING, "UPDATE jobs SET state = 'running', updated_ms = ?2 "   \
                      "WHERE id = ?1 AND state = 'queued'")                   \
    X(ST_HEARTBEAT, "UPDATE partitions SET lease_until = ?2 WHERE "           \
                    "state = 'claimed' AND owner = ?1")                       \
    X(ST_CLAIM_LIVE, "SELECT 1 FROM partitions WHERE " CLAIM_IS)            \
    X(ST_PART_COMPLETE,                                                       \
      "UPDATE partitions SET state = 'done', proof_path = ?5, error = '', "   \
      "completions = completions + 1, lease_until = 0, finished_ms = ?6 "     \
      "WHERE " CLAIM_IS)                                                    \
    X(ST_JOB_COMPLETE,                                                        \
      "UPDATE jobs SET n_done = n_done + 1, updated_ms = ?2, "                \
      "state = CASE WHEN n_done + 1 = n_partitions AND state = 'running' "    \
      "THEN 'done' ELSE state END, finished_ms = CASE WHEN n_done + 1 = "     \
      "n_partitions AND state = 'running' THEN ?2 ELSE finished_ms END "      \
      "WHERE id = ?1")                                                        \
    X(ST_PART_FAIL,                                                           \
      "UPDATE partitions SET state = 'failed', error = ?5, lease_until = 0, " \
      "finished_ms = ?6 WHERE " CLAIM_IS)                                   \
    X(ST_JOB_FAIL,                                                            \
      "UPDATE jobs SET state = CASE WHEN state IN " LIVE_JOB " THEN "         \
      "'failed' ELSE state END, finished_ms = CASE WHEN state IN " LIVE_JOB   \
      " THEN ?2 ELSE finished_ms END, error = CASE WHEN error = '' THEN ?3 "  \
      "ELSE error END, updated_ms = ?2 WHERE id = ?1")                        \
    X(ST_PARTS_CANCEL_PENDING,                                                \
      "UPDATE partitions SET state = 'cancelled', finished_ms = ?2 WHERE "    \
      "job_id = ?1 AND state IN ('waiting', 'queued')")                       \
    X(ST_RELEASE,                                                             \
      "UPDATE partitions SET state = CASE WHEN (SELECT state FROM jobs "      \
      "WHERE id = ?1) IN ('queued', 'running') THEN 'queued' ELSE "           \
      "'cancelled' END, owner = '', lease_until = 0 WHERE " CLAIM_IS)       \
    /* The claims whose lease lapsed, and ?2's whatever their lease. */      \
    X(ST_RECOVER_PICK,                                                        \
      "SELECT job_id, idx, owner, fence FROM partitions WHERE "               \
      "state = 'claimed' AND (lease_until <= ?1 OR owner = ?2) ORDER BY "     \
      "job_id, idx")                                                          \
    X(ST_ATTEMPT_COUNT, "SELECT count(*) FROM attempts WHERE job_id = ?1 "  \
                        "AND idx = ?2")                                       \
    X(ST_ATTEMPT_INSERT,                                                      \
      "INSERT INTO attempts (job_id, idx, attempt, owner, fence, retried, "   \
      "at_ms, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")                \
    /* A retry: back to the queue, or cancelled if the job ended. */          \
    X(ST_PART_RETRY,                                                          \
      "UPDATE partitions SET state = CASE WHEN (SELECT state FROM jobs "      \
      "WHERE id = ?1) IN ('queued', 'running') THEN 'queued' ELSE "           \
      "'cancelled' END, owner = '', lease_until = 0, error = ?5 WHERE "       \
      CLAIM_IS)                                                               \
    X(ST_ATTEMPTS_COUNT, "SELECT count(*) FROM attempts WHERE job_id = ?1")   \
    X(ST_ATTEMPTS_PAGE,                                                       \
      "SELECT job_id, idx, attempt, owner, fence, retried, at_ms, error "     \
      "FROM attempts WHERE job_id = ?1 ORDER BY idx, attempt LIMIT ?2")       \
    /* ?11: 1 registers (started now), 0 renews. */                           \
    X(ST_WORKER_PUT,                                                          \
      "INSERT INTO workers (id, host, pid, backend, gpus, budget_bytes, "     \
      "reserved_bytes, status_json, gone, started_ms, heartbeat_ms) VALUES "  \
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?9) ON CONFLICT (id) DO "      \
      "UPDATE SET host = excluded.host, pid = excluded.pid, backend = "       \
      "excluded.backend, gpus = excluded.gpus, budget_bytes = "               \
      "excluded.budget_bytes, reserved_bytes = excluded.reserved_bytes, "     \
      "status_json = excluded.status_json, gone = 0, started_ms = CASE WHEN " \
      "?10 THEN excluded.started_ms ELSE workers.started_ms END, "            \
      "heartbeat_ms = excluded.heartbeat_ms")                                 \
    X(ST_WORKER_GONE, "UPDATE workers SET gone = 1 WHERE id = ?1")            \
    X(ST_WORKER_PAGE,                                                         \
      "SELECT id, host, pid, backend, gpus, budget_bytes, reserved_bytes, "   \
      "status_json, gone, started_ms, heartbeat_ms FROM workers WHERE "       \
      "id > ?1 ORDER BY id LIMIT ?2")                                         \
    X(ST_PURGE_WORKERS, "DELETE FROM workers WHERE heartbeat_ms < ?1")        \
    X(ST_COUNT_JOBS, "SELECT state, count(*) FROM jobs GROUP BY state")       \
    X(ST_COUNT_QUEUED, "SELECT priority, count(*) FROM partitions WHERE "     \
                       "state = 'queued' GROUP BY priority")                  \
    X(ST_COUNT_CLAIMED,                                                       \
      "SELECT count(*) FROM partitions WHERE state = 'claimed'")              \
    X(ST_PURGE_PICK,                                                          \
      "SELECT id FROM jobs WHERE state IN ('done', 'failed', 'cancelled') "   \
      "AND finished_ms < ?1 ORDER BY seq LIMIT ?2")                           \
    X(ST_PURGE_PATHS, "SELECT witness_path, proof_path FROM partitions "      \
                      "WHERE job_id = ?1")                                    \
    X(ST_PURGE_PARTS, "DELETE FROM partitions WHERE job_id = ?1")             \
    X(ST_PURGE_JOB, "DELETE FROM jobs WHERE id = ?1")

enum {
#define STMT_ENUM(name, sql) name,
    STMT_MAP(STMT_ENUM)
#undef STMT_ENUM
        ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
#define STMT_SQL(name, sql) sql,
    STMT_MAP(STMT_SQL)
#undef STMT_SQL
};

typedef struct sq_store {
    pl__store base;
    sqlite3 *db;
    pthread_mutex_t mu; /* guards db and st */
    sqlite3_stmt *st[ST_COUNT];
    char path[PL__STORE_PATH_MAX];
} sq_store;

static sq_store *sq(pl__store *store) { return (sq_store *)store; }

/* ---- errors -------------------------------------------------------------- */

static pl_status sq_error(sq_store *s, int rc, const char *what,
                          pl_error *err)
{
    pl_status code = PL_EIO;
    if (rc == SQLITE_NOMEM)
        code = PL_ENOMEM;
    else if ((rc & 0xff) == SQLITE_CONSTRAINT)
        code = PL_EINTERNAL; /* the code checks first: a broken invariant */
    const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    if ((rc & 0xff) == SQLITE_BUSY)
        return pl__error_set(err, code,
                             "%s: %s: the store is locked by another process "
                             "(waited up to %d s: %s)",
                             s->path, what, BUSY_TIMEOUT_MS / 1000, msg);
    return pl__error_set(err, code, "%s: %s: %s", s->path, what, msg);
}

/* ---- statements ---------------------------------------------------------- */

/* The prepared statement id, reset and unbound; NULL (err set) if it
 * cannot be prepared.  Called with the lock held. */
static sqlite3_stmt *stmt(sq_store *s, int id, pl_error *err)
{
    if (!s->st[id]) {
        int rc = sqlite3_prepare_v3(s->db, stmt_sql[id], -1,
                                    SQLITE_PREPARE_PERSISTENT, &s->st[id],
                                    NULL);
        if (rc != SQLITE_OK) {
            sq_error(s, rc, "preparing a statement", err);
            return NULL;
        }
    }
    sqlite3_reset(s->st[id]);
    sqlite3_clear_bindings(s->st[id]);
    return s->st[id];
}

/* One step: SQLITE_ROW or SQLITE_DONE, or -1 with err set. */
static int step(sq_store *s, sqlite3_stmt *st, const char *what,
                pl_error *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return rc;
    sq_error(s, rc, what, err);
    sqlite3_reset(st);
    return -1;
}

/* Runs a statement that returns no row: PL_OK or the error. */
static pl_status run(sq_store *s, sqlite3_stmt *st, const char *what,
                     pl_error *err)
{
    int rc = step(s, st, what, err);
    sqlite3_reset(st);
    return rc < 0 ? err->code : PL_OK;
}

static pl_status exec_id(sq_store *s, int id, const char *what,
                         pl_error *err)
{
    sqlite3_stmt *st = stmt(s, id, err);
    return st ? run(s, st, what, err) : err->code;
}

static void lock(sq_store *s) { pthread_mutex_lock(&s->mu); }

/* Resets every statement left mid-result, so that no read transaction
 * outlives the call (an open one would pin the WAL and hide other
 * processes' commits), then unlocks. */
static void unlock(sq_store *s)
{
    for (int i = 0; i < ST_COUNT; i++)
        if (s->st[i] && sqlite3_stmt_busy(s->st[i]))
            sqlite3_reset(s->st[i]);
    pthread_mutex_unlock(&s->mu);
}

static pl_status begin_write(sq_store *s, pl_error *err)
{
    return exec_id(s, ST_BEGIN_WRITE, "starting a transaction", err);
}

static pl_status begin_read(sq_store *s, pl_error *err)
{
    return exec_id(s, ST_BEGIN_READ, "starting a transaction", err);
}

static pl_status commit(sq_store *s, pl_error *err)
{
    return exec_id(s, ST_COMMIT, "committing", err);
}

/* Ends the transaction after a failure (err keeps the first error). */
static void rollback(sq_store *s)
{
    if (sqlite3_get_autocommit(s->db))
        return; /* SQLite rolled back already (a full disk, no memory) */
    pl_error ignored = {0};
    for (int i = 0; i < ST_COUNT; i++)
        if (s->st[i] && sqlite3_stmt_busy(s->st[i]))
            sqlite3_reset(s->st[i]);
    exec_id(s, ST_ROLLBACK, "rolling back", &ignored);
}

/* Ends a write or read transaction: commit on success, rollback else. */
static pl_status finish(sq_store *s, pl_status status, pl_error *err)
{
    if (status == PL_OK)
        status = commit(s, err);
    if (status != PL_OK)
        rollback(s);
    return status;
}

static void bind_text(sqlite3_stmt *st, int i, const char *text)
{
    sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
}

static void bind_i64(sqlite3_stmt *st, int i, int64_t v)
{
    sqlite3_bind_int64(st, i, v);
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
    sqlite3_bind_int64(st, i, v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
    int64_t v = sqlite3_column_int64(st, i);
    return v < 0 ? 0 : (uint64_t)v;
}

/* ---- rows ------------------------------------------------------------------ */

static void read_circuit(sqlite3_stmt *st, pl__store_circuit *c)
{
    memset(c, 0, sizeof(*c));
    pl__store_copy(c->id, sizeof(c->id), col_text(st, 0));
    pl__store_copy(c->zkey_path, sizeof(c->zkey_path), col_text(st, 1));
    c->zkey_bytes = col_u64(st, 2);
    c->n_constraints = col_u64(st, 3);
    c->n_vars = col_u64(st, 4);
    c->n_public = col_u64(st, 5);
    c->witness_bytes = col_u64(st, 6);
    c->partition_bytes = col_u64(st, 7);
    c->created_unix_ms = sqlite3_column_int64(st, 8);
}

static void read_job(sqlite3_stmt *st, pl__store_job *j)
{
    memset(j, 0, sizeof(*j));
    pl__store_copy(j->id, sizeof(j->id), col_text(st, 0));
    pl__store_copy(j->circuit_id, sizeof(j->circuit_id), col_text(st, 1));
    int p = sqlite3_column_int(st, 2);
    j->priority = (unsigned)p < PL__PRIORITY_COUNT ? (pl__priority)p
                                                   : PL__PRIORITY_NORMAL;
    pl__job_state js = PL__JOB_FAILED; /* the CHECK forbids other labels */
    pl__job_state_parse(&js, col_text(st, 3));
    j->state = js;
    j->n_partitions = (uint32_t)sqlite3_column_int64(st, 4);
    j->seq = col_u64(st, 5);
    j->created_unix_ms = sqlite3_column_int64(st, 6);
    j->updated_unix_ms = sqlite3_column_int64(st, 7);
    j->finished_unix_ms = sqlite3_column_int64(st, 8);
    pl__store_copy(j->error, sizeof(j->error), col_text(st, 9));
    j->deadline_unix_ms = sqlite3_column_int64(st, 12);
}

static void read_part(sqlite3_stmt *st, pl__store_partition *p)
{
    memset(p, 0, sizeof(*p));
    pl__store_copy(p->job_id, sizeof(p->job_id), col_text(st, 0));
    p->index = (uint32_t)sqlite3_column_int64(st, 1);
    pl__part_state ps = PL__PART_FAILED;
    pl__part_state_parse(&ps, col_text(st, 2));
    p->state = ps;
    pl__store_copy(p->witness_path, sizeof(p->witness_path), col_text(st, 3));
    pl__store_copy(p->proof_path, sizeof(p->proof_path), col_text(st, 4));
    pl__store_copy(p->owner, sizeof(p->owner), col_text(st, 5));
    p->fence = col_u64(st, 6);
    p->lease_until_unix_ms = sqlite3_column_int64(st, 7);
    p->attempts = (uint32_t)sqlite3_column_int64(st, 8);
    p->completions = (uint32_t)sqlite3_column_int64(st, 9);
    p->claimed_unix_ms = sqlite3_column_int64(st, 10);
    p->finished_unix_ms = sqlite3_column_int64(st, 11);
    pl__store_copy(p->error, sizeof(p->error), col_text(st, 12));
}

/* Reads job id into out (may be NULL) and its counters; "unknown job" if
 * absent.  Lock held, inside a transaction. */
static pl_status get_job(sq_store *s, const char *id, pl__store_job *out,
                         int64_t *n_stored, pl_error *err)
{
    sqlite3_stmt *st = stmt(s, ST_JOB_GET, err);
    if (!st)
        return err->code;
    bind_text(st, 1, id);
    int rc = step(s, st, "reading a job", err);
    if (rc < 0)
        return err->code;
    if (rc == SQLITE_DONE)
        return pl__error_set(err, PL_EUSAGE, "%s: unknown job %s", s->path,
                             id);
    pl__store_job tmp;
    read_job(st, out ? out : &tmp);
    if (n_stored)
        *n_stored = sqlite3_column_int64(st, 10);
    sqlite3_reset(st);
    return PL_OK;
}

static pl_status get_circuit(sq_store *s, const char *id,
                             pl__store_circuit *out, pl_error *err)
{
    sqlite3_stmt *st = stmt(s, ST_CIRCUIT_GET, err);
    if (!st)
        return err->code;
    bind_text(st, 1, id);
    int rc = step(s, st, "reading a circuit", err);
    if (rc < 0)
        return err->code;
    if (rc == SQLITE_DONE)
        return pl__error_set(err, PL_EUSAGE, "%s: unknown circuit %s",
                             s->path, id);
    read_circuit(st, out);
    sqlite3_reset(st);
    return PL_OK;
}

/* Partition (job, index): PL_OK with it in out, or "unknown job"/"no
 * partition" (PL_EUSAGE). */
static pl_status get_part(sq_store *s, const char *job_id, uint32_t index,
                          pl__store_partition *out, pl_error *err)
{
    pl__store_job job;
    pl_status status = get_job(s, job_id, &job, NULL, err);
    if (status != PL_OK)
        return status;
    sqlite3_stmt *st = stmt(s, ST_PART_GET, err);
    if (!st)
        return err->code;
    bind_text(st, 1, job_id);
    bind_i64(st, 2, index);
    int rc = step(s, st, "reading a partition", err);
    if (rc < 0)
        return err->code;
    if (rc == SQLITE_DONE)
        return pl__error_set(err, PL_EUSAGE,
                             "%s: job %s has %u partitions: no partition %u",
                             s->path, job_id, job.n_partitions, index);
    read_part(st, out);
    sqlite3_reset(st);
    return PL_OK;
}

/* ---- circuits -------------------------------------------------------------- */

static pl_status sq_circuit_put(pl__store *store, const pl__store_circuit *c,
                                pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = begin_write(s, err);
    if (status == PL_OK) {
        sqlite3_stmt *st = stmt(s, ST_CIRCUIT_PUT, err);
        if (!st) {
            status = err->code;
        } else {
            bind_text(st, 1, c->id);
            bind_text(st, 2, c->zkey_path);
            bind_u64(st, 3, c->zkey_bytes);
            bind_u64(st, 4, c->n_constraints);
            bind_u64(st, 5, c->n_vars);
            bind_u64(st, 6, c->n_public);
            bind_u64(st, 7, c->witness_bytes);
            bind_u64(st, 8, c->partition_bytes);
            bind_i64(st, 9, c->created_unix_ms ? c->created_unix_ms
                                               : pl__store_now_ms());
            status = run(s, st, "recording a circuit", err);
        }
        status = finish(s, status, err);
    }
    unlock(s);
    return status;
}

static pl_status sq_circuit_get(pl__store *store, const char *id,
                                pl__store_circuit *out, pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = get_circuit(s, id, out, err);
    unlock(s);
    return status;
}

static pl_status sq_circuit_page(pl__store *store, const char *after,
                                 pl__store_circuit *rows, size_t *n,
                                 pl_error *err)
{
    sq_store *s = sq(store);
    pl_status status = PL_OK;
    lock(s);
    sqlite3_stmt *st = stmt(s, ST_CIRCUIT_PAGE, err);
    if (!st) {
        status = err->code;
    } else {
        bind_text(st, 1, after);
        bind_i64(st, 2, PL__STORE_LIST_PAGE);
        int rc;
        while ((rc = step(s, st, "listing circuits", err)) == SQLITE_ROW)
            read_circuit(st, &rows[(*n)++]);
        if (rc < 0)
            status = err->code;
    }
    unlock(s);
    return status;
}

/* ---- jobs -------------------------------------------------------------------- */

/* With the caller's id: a job that has it already is read back, in the
 * same write transaction (so two requests with one id make one job), and
 * nothing is written.  created may be NULL (a random id is new). */
static pl_status sq_job_create_with_id(pl__store *store, const char *id,
                                       const char *circuit_id,
                                       pl__priority priority,
                                       uint32_t n_partitions,
                                       pl__store_job *out, bool *created,
                                       pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    if (created) {
        pl_error absent = {0};
        *created = false;
        if (get_job(s, id, out, NULL, &absent) == PL_OK) {
            status = finish(s, PL_OK, err);
            goto out;
        }
        if (!pl__store_is_not_found(&absent)) {
            *err = absent;
            status = finish(s, absent.code, err);
            goto out;
        }
        *created = true;
    }
    pl__store_circuit c = {0};
    status = get_circuit(s, circuit_id, &c, err);
    sqlite3_stmt *st = NULL;
    if (status == PL_OK && !(st = stmt(s, ST_JOB_INSERT, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, id);
        bind_text(st, 2, circuit_id);
        bind_i64(st, 3, priority);
        bind_i64(st, 4, n_partitions);
        bind_i64(st, 5, now);
        status = run(s, st, "recording a job", err);
    }
    int64_t seq = sqlite3_last_insert_rowid(s->db);
    if (status == PL_OK && !(st = stmt(s, ST_PART_INSERT, err)))
        status = err->code;
    for (uint32_t k = 0; status == PL_OK && k < n_partitions; k++) {
        sqlite3_reset(st);
        bind_text(st, 1, id);
        bind_i64(st, 2, k);
        bind_i64(st, 3, priority);
        bind_i64(st, 4, seq);
        bind_u64(st, 5, c.partition_bytes);
        status = run(s, st, "recording a job's partitions", err);
    }
    if (status == PL_OK)
        status = get_job(s, id, out, NULL, err);
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

static pl_status sq_job_create(pl__store *store, const char *circuit_id,
                               pl__priority priority, uint32_t n_partitions,
                               pl__store_job *out, pl_error *err)
{
    char id[PL__STORE_JOB_ID_LEN + 1];
    pl_status status = pl__store_new_job_id(id, err);
    if (status != PL_OK)
        return status;
    return sq_job_create_with_id(store, id, circuit_id, priority,
                                 n_partitions, out, NULL, err);
}

static pl_status sq_witness_stored(pl__store *store, const char *job_id,
                                   uint32_t index, const char *witness_path,
                                   pl__store_job *job_out, pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    pl__store_job job;
    pl__store_partition part;
    status = get_part(s, job_id, index, &part, err);
    if (status == PL_OK)
        status = get_job(s, job_id, &job, NULL, err);
    if (status == PL_OK && job.state != PL__JOB_RECEIVING)
        status = pl__error_set(
            err, PL_EUSAGE, "%s: job %s is %s: it takes no more witnesses",
            s->path, job_id, pl__job_state_name(job.state));
    if (status == PL_OK && part.witness_path[0])
        status = pl__error_set(err, PL_EUSAGE,
                               "%s: job %s: partition %u already has its "
                               "witness",
                               s->path, job_id, index);
    sqlite3_stmt *st = NULL;
    if (status == PL_OK && !(st = stmt(s, ST_PART_WITNESS, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, job_id);
        bind_i64(st, 2, index);
        bind_text(st, 3, witness_path);
        status = run(s, st, "recording a witness", err);
    }
    if (status == PL_OK && !(st = stmt(s, ST_JOB_WITNESS, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, job_id);
        bind_i64(st, 2, now);
        status = run(s, st, "recording a witness", err);
    }
    if (status == PL_OK)
        status = get_job(s, job_id, &job, NULL, err);
    /* The last witness: the job and all its partitions queue together, so
     * a claim never starts a job whose witnesses are not all on disk. */
    if (status == PL_OK && job.state == PL__JOB_QUEUED) {
        if (!(st = stmt(s, ST_PARTS_QUEUE, err)))
            status = err->code;
        else {
            bind_text(st, 1, job_id);
            status = run(s, st, "queueing a job", err);
        }
    }
    if (status == PL_OK && job_out)
        *job_out = job;
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

static pl_status sq_job_get(pl__store *store, const char *job_id,
                            pl__store_job *out, pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = get_job(s, job_id, out, NULL, err);
    unlock(s);
    return status;
}

static pl_status sq_partitions(pl__store *store, const char *job_id,
                               pl__store_partition *out, size_t cap,
                               size_t *count, pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = begin_read(s, err);
    if (status != PL_OK)
        goto out;
    pl__store_job job;
    status = get_job(s, job_id, &job, NULL, err);
    sqlite3_stmt *st = NULL;
    if (status == PL_OK && !(st = stmt(s, ST_PARTS_PAGE, err)))
        status = err->code;
    if (status == PL_OK) {
        *count = job.n_partitions;
        bind_text(st, 1, job_id);
        bind_u64(st, 2, cap);
        size_t n = 0;
        int rc;
        while ((rc = step(s, st, "reading partitions", err)) == SQLITE_ROW &&
               n < cap)
            read_part(st, &out[n++]);
        if (rc < 0)
            status = err->code;
    }
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

static pl_status sq_job_page(pl__store *store, int state, int64_t before,
                             pl__store_job *rows, size_t *n, pl_error *err)
{
    sq_store *s = sq(store);
    pl_status status = PL_OK;
    lock(s);
    sqlite3_stmt *st = stmt(s, state < 0 ? ST_JOB_PAGE : ST_JOB_PAGE_STATE,
                            err);
    if (!st) {
        status = err->code;
    } else {
        bind_i64(st, 1, before);
        bind_i64(st, 2, PL__STORE_LIST_PAGE);
        if (state >= 0)
            bind_text(st, 3, pl__job_state_name((pl__job_state)state));
        int rc;
        while ((rc = step(s, st, "listing jobs", err)) == SQLITE_ROW)
            read_job(st, &rows[(*n)++]);
        if (rc < 0)
            status = err->code;
    }
    unlock(s);
    return status;
}

static pl_status sq_job_end(pl__store *store, const char *job_id,
                            const char *fail_msg, bool *changed,
                            pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    pl__store_job job;
    status = get_job(s, job_id, &job, NULL, err);
    sqlite3_stmt *st = NULL;
    if (status == PL_OK && job.state <= PL__JOB_RUNNING) {
        if (!(st = stmt(s, ST_JOB_END, err)))
            status = err->code;
        else {
            bind_text(st, 1, job_id);
            bind_i64(st, 2, now);
            bind_text(st, 3, fail_msg ? "failed" : "cancelled");
            bind_text(st, 4, fail_msg ? fail_msg : "");
            status = run(s, st, "ending a job", err);
        }
        if (status == PL_OK && !(st = stmt(s, ST_PARTS_CANCEL, err)))
            status = err->code;
        if (status == PL_OK) {
            bind_text(st, 1, job_id);
            bind_i64(st, 2, now);
            status = run(s, st, "ending a job", err);
        }
        *changed = status == PL_OK;
    }
    status = finish(s, status, err);
    if (status != PL_OK)
        *changed = false;
out:
    unlock(s);
    return status;
}

/* ---- claims ------------------------------------------------------------------ */

static pl_status sq_claim_next(pl__store *store, const char *owner,
                               uint64_t max_bytes, int64_t lease_ms,
                               pl__store_claim *out, bool *found,
                               pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    char job_id[PL__STORE_JOB_ID_LEN + 1] = "";
    uint32_t index = 0;
    sqlite3_stmt *st = stmt(s, ST_CLAIM_PICK, err);
    if (!st)
        status = err->code;
    if (status == PL_OK) {
        bind_u64(st, 1, max_bytes);
        int rc = step(s, st, "choosing a partition", err);
        if (rc < 0)
            status = err->code;
        else if (rc == SQLITE_ROW) {
            pl__store_copy(job_id, sizeof(job_id), col_text(st, 0));
            index = (uint32_t)sqlite3_column_int64(st, 1);
        }
        sqlite3_reset(st);
    }
    if (status == PL_OK && job_id[0]) {
        if (!(st = stmt(s, ST_CLAIM_TAKE, err)))
            status = err->code;
        else {
            bind_text(st, 1, job_id);
            bind_i64(st, 2, index);
            bind_text(st, 3, owner);
            bind_i64(st, 4, now + lease_ms);
            bind_i64(st, 5, now);
            status = run(s, st, "claiming a partition", err);
        }
        /* The write lock is held since the choice: the row is still
         * queued. */
        if (status == PL_OK && sqlite3_changes(s->db) != 1)
            status = pl__error_set(err, PL_EINTERNAL,
                                   "%s: job %s partition %u changed while "
                                   "it was claimed",
                                   s->path, job_id, index);
        if (status == PL_OK && !(st = stmt(s, ST_JOB_RUNNING, err)))
            status = err->code;
        if (status == PL_OK) {
            bind_text(st, 1, job_id);
            bind_i64(st, 2, now);
            status = run(s, st, "claiming a partition", err);
        }
        if (status == PL_OK)
            status = get_part(s, job_id, index, &out->part, err);
        if (status == PL_OK)
            status = get_job(s, job_id, &out->job, NULL, err);
        if (status == PL_OK)
            status = get_circuit(s, out->job.circuit_id, &out->circuit, err);
    }
    status = finish(s, status, err);
    *found = status == PL_OK && job_id[0];
    if (!*found)
        memset(out, 0, sizeof(*out));
out:
    unlock(s);
    return status;
}

static pl_status sq_heartbeat(pl__store *store, const char *owner,
                              int64_t lease_ms, pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status == PL_OK) {
        sqlite3_stmt *st = stmt(s, ST_HEARTBEAT, err);
        if (!st)
            status = err->code;
        else {
            bind_text(st, 1, owner);
            bind_i64(st, 2, now + lease_ms);
            status = run(s, st, "renewing leases", err);
        }
        status = finish(s, status, err);
    }
    unlock(s);
    return status;
}

static pl_status sq_claim_live(pl__store *store, const char *job_id,
                               uint32_t index, const char *owner,
                               uint64_t fence, bool *live, pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = PL_OK;
    sqlite3_stmt *st = stmt(s, ST_CLAIM_LIVE, err);
    if (!st)
        status = err->code;
    else {
        bind_text(st, 1, job_id);
        bind_i64(st, 2, index);
        bind_text(st, 3, owner);
        bind_u64(st, 4, fence);
        int rc = step(s, st, "reading a claim", err);
        if (rc < 0)
            status = err->code;
        *live = rc == SQLITE_ROW;
    }
    unlock(s);
    return status;
}

/* PL_ECANCELLED: the claim (owner, fence) is not the partition's live
 * one; the message says what the partition is instead. */
static pl_status claim_lost(sq_store *s, const char *job_id, uint32_t index,
                            const char *owner, uint64_t fence, pl_error *err)
{
    pl__store_partition part;
    pl_status status = get_part(s, job_id, index, &part, err);
    if (status != PL_OK)
        return status;
    return pl__error_set(
        err, PL_ECANCELLED,
        "%s: job %s partition %u: the claim was lost (owner %s, fence %llu; "
        "the partition is %s, owner %s, fence %llu)",
        s->path, job_id, index, owner, (unsigned long long)fence,
        pl__part_state_name(part.state), part.owner[0] ? part.owner : "none",
        (unsigned long long)part.fence);
}

/* The shared end of complete, fail and release: the claim's update (which
 * matches only the live claim), then, if it matched, the job's. */
static pl_status end_claim(sq_store *s, int part_stmt, int job_stmt,
                           const char *job_id, uint32_t index,
                           const char *owner, uint64_t fence,
                           const char *text, const char *what,
                           bool *job_done, pl_error *err)
{
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    sqlite3_stmt *st = stmt(s, part_stmt, err);
    if (!st)
        status = err->code;
    else {
        bind_text(st, 1, job_id);
        bind_i64(st, 2, index);
        bind_text(st, 3, owner);
        bind_u64(st, 4, fence);
        if (part_stmt != ST_RELEASE) {
            bind_text(st, 5, text);
            bind_i64(st, 6, now);
        }
        status = run(s, st, what, err);
    }
    if (status == PL_OK && sqlite3_changes(s->db) == 0)
        status = claim_lost(s, job_id, index, owner, fence, err);
    if (status == PL_OK && job_stmt >= 0) {
        if (!(st = stmt(s, job_stmt, err)))
            status = err->code;
        else {
            bind_text(st, 1, job_id);
            bind_i64(st, 2, now);
            if (job_stmt == ST_JOB_FAIL)
                bind_text(st, 3, text);
            status = run(s, st, what, err);
        }
    }
    /* Read in the same transaction: a job is done only once all its
     * partitions are, so it is done here only if this completion, the
     * last one, made it so. */
    if (status == PL_OK && job_done) {
        pl__store_job job;
        status = get_job(s, job_id, &job, NULL, err);
        *job_done = status == PL_OK && job.state == PL__JOB_DONE;
    }
    if (status == PL_OK && job_stmt == ST_JOB_FAIL) {
        if (!(st = stmt(s, ST_PARTS_CANCEL_PENDING, err)))
            status = err->code;
        else {
            bind_text(st, 1, job_id);
            bind_i64(st, 2, now);
            status = run(s, st, what, err);
        }
    }
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

static pl_status sq_complete(pl__store *store, const char *job_id,
                             uint32_t index, const char *owner, uint64_t fence,
                             const char *proof_path, bool *job_done,
                             pl_error *err)
{
    return end_claim(sq(store), ST_PART_COMPLETE, ST_JOB_COMPLETE, job_id,
                     index, owner, fence, proof_path, "recording a proof",
                     job_done, err);
}

/* A failed attempt: kept in attempts, then the partition requeued (a
 * retry) or ended with its job, in one transaction. */
static pl_status fail_core(sq_store *s, const char *job_id, uint32_t index,
                           const char *owner, uint64_t fence, const char *msg,
                           bool retry, uint32_t max_attempts, bool *requeued,
                           int64_t now, pl_error *err)
{
    const char *what = "recording a failure";
    *requeued = false;
    pl__store_partition part;
    pl_status status = get_part(s, job_id, index, &part, err);
    if (status == PL_OK &&
        (part.state != PL__PART_CLAIMED || strcmp(part.owner, owner) != 0 ||
         part.fence != fence))
        status = claim_lost(s, job_id, index, owner, fence, err);
    int64_t n = 0;
    sqlite3_stmt *st = NULL;
    if (status == PL_OK && !(st = stmt(s, ST_ATTEMPT_COUNT, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, job_id);
        bind_i64(st, 2, index);
        int rc = step(s, st, what, err);
        if (rc < 0)
            status = err->code;
        else if (rc == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
    }
    n++; /* this attempt */
    bool again = retry && n < (int64_t)max_attempts;
    if (status == PL_OK && again) {
        if (!(st = stmt(s, ST_PART_RETRY, err)))
            status = err->code;
        else {
            bind_text(st, 1, job_id);
            bind_i64(st, 2, index);
            bind_text(st, 3, owner);
            bind_u64(st, 4, fence);
            bind_text(st, 5, msg);
            status = run(s, st, what, err);
        }
        /* A job that ended meanwhile cancels it instead. */
        if (status == PL_OK)
            status = get_part(s, job_id, index, &part, err);
        *requeued = status == PL_OK && part.state == PL__PART_QUEUED;
    } else if (status == PL_OK) {
        char job_msg[PL__STORE_MSG_MAX];
        if (n > 1) {
            char longer[PL__STORE_MSG_MAX + 64];
            snprintf(longer, sizeof(longer), "after %lld attempts: %s",
                     (long long)n, msg);
            pl__store_message(job_msg, longer);
        } else {
            pl__store_copy(job_msg, sizeof(job_msg), msg);
        }
        static const int ids[] = {ST_PART_FAIL, ST_JOB_FAIL,
                                  ST_PARTS_CANCEL_PENDING};
        for (int i = 0; i < 3 && status == PL_OK; i++) {
            if (!(st = stmt(s, ids[i], err))) {
                status = err->code;
                break;
            }
            bind_text(st, 1, job_id);
            if (ids[i] == ST_PART_FAIL) {
                bind_i64(st, 2, index);
                bind_text(st, 3, owner);
                bind_u64(st, 4, fence);
                bind_text(st, 5, msg);
                bind_i64(st, 6, now);
            } else {
                bind_i64(st, 2, now);
                if (ids[i] == ST_JOB_FAIL)
                    bind_text(st, 3, job_msg);
            }
            status = run(s, st, what, err);
        }
    }
    if (status == PL_OK && !(st = stmt(s, ST_ATTEMPT_INSERT, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, job_id);
        bind_i64(st, 2, index);
        bind_i64(st, 3, n);
        bind_text(st, 4, owner);
        bind_u64(st, 5, fence);
        bind_i64(st, 6, *requeued ? 1 : 0);
        bind_i64(st, 7, now);
        bind_text(st, 8, msg);
        status = run(s, st, what, err);
    }
    return status;
}

static pl_status sq_fail(pl__store *store, const char *job_id, uint32_t index,
                         const char *owner, uint64_t fence, const char *msg,
                         bool retry, uint32_t max_attempts, bool *requeued,
                         pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status == PL_OK) {
        status = fail_core(s, job_id, index, owner, fence, msg, retry,
                           max_attempts, requeued, now, err);
        status = finish(s, status, err);
    }
    unlock(s);
    return status;
}

static void read_attempt(sqlite3_stmt *st, pl__store_attempt *a)
{
    memset(a, 0, sizeof(*a));
    pl__store_copy(a->job_id, sizeof(a->job_id), col_text(st, 0));
    a->index = (uint32_t)sqlite3_column_int64(st, 1);
    a->attempt = (uint32_t)sqlite3_column_int64(st, 2);
    pl__store_copy(a->owner, sizeof(a->owner), col_text(st, 3));
    a->fence = col_u64(st, 4);
    a->retried = sqlite3_column_int64(st, 5) != 0;
    a->at_unix_ms = sqlite3_column_int64(st, 6);
    pl__store_copy(a->error, sizeof(a->error), col_text(st, 7));
}

static pl_status sq_attempts(pl__store *store, const char *job_id,
                             pl__store_attempt *out, size_t cap,
                             size_t *count, pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = begin_read(s, err);
    if (status != PL_OK)
        goto out;
    status = get_job(s, job_id, NULL, NULL, err);
    sqlite3_stmt *st = NULL;
    if (status == PL_OK && !(st = stmt(s, ST_ATTEMPTS_COUNT, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, job_id);
        int rc = step(s, st, "reading attempts", err);
        if (rc < 0)
            status = err->code;
        else if (rc == SQLITE_ROW)
            *count = col_u64(st, 0);
        sqlite3_reset(st);
    }
    if (status == PL_OK && !(st = stmt(s, ST_ATTEMPTS_PAGE, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, job_id);
        bind_u64(st, 2, cap);
        size_t n = 0;
        int rc;
        while ((rc = step(s, st, "reading attempts", err)) == SQLITE_ROW &&
               n < cap)
            read_attempt(st, &out[n++]);
        if (rc < 0)
            status = err->code;
    }
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

/* ---- workers ------------------------------------------------------------------ */

static pl_status sq_worker_put(pl__store *store, const pl__store_worker *w,
                               bool fresh, int64_t lease_ms, pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    sqlite3_stmt *st = stmt(s, ST_WORKER_PUT, err);
    if (!st)
        status = err->code;
    else {
        bind_text(st, 1, w->id);
        bind_text(st, 2, w->host);
        bind_i64(st, 3, w->pid);
        bind_text(st, 4, w->backend);
        bind_text(st, 5, w->gpus);
        bind_u64(st, 6, w->budget_bytes);
        bind_u64(st, 7, w->reserved_bytes);
        bind_text(st, 8, w->status_json[0] ? w->status_json : "{}");
        bind_i64(st, 9, now);
        bind_i64(st, 10, fresh ? 1 : 0);
        status = run(s, st, "recording a worker", err);
    }
    if (status == PL_OK && lease_ms > 0) {
        if (!(st = stmt(s, ST_HEARTBEAT, err)))
            status = err->code;
        else {
            bind_text(st, 1, w->id);
            bind_i64(st, 2, now + lease_ms);
            status = run(s, st, "renewing leases", err);
        }
    }
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

static pl_status sq_worker_gone(pl__store *store, const char *id,
                                pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = begin_write(s, err);
    if (status == PL_OK) {
        sqlite3_stmt *st = stmt(s, ST_WORKER_GONE, err);
        if (!st)
            status = err->code;
        else {
            bind_text(st, 1, id);
            status = run(s, st, "recording a worker's exit", err);
        }
        status = finish(s, status, err);
    }
    unlock(s);
    return status;
}

static pl_status sq_worker_page(pl__store *store, const char *after,
                                pl__store_worker *rows, size_t *n,
                                pl_error *err)
{
    sq_store *s = sq(store);
    pl_status status = PL_OK;
    int64_t now = pl__store_now_ms();
    lock(s);
    sqlite3_stmt *st = stmt(s, ST_WORKER_PAGE, err);
    if (!st) {
        status = err->code;
    } else {
        bind_text(st, 1, after);
        bind_i64(st, 2, PL__STORE_LIST_PAGE);
        int rc;
        while ((rc = step(s, st, "listing workers", err)) == SQLITE_ROW) {
            pl__store_worker *w = &rows[(*n)++];
            memset(w, 0, sizeof(*w));
            pl__store_copy(w->id, sizeof(w->id), col_text(st, 0));
            pl__store_copy(w->host, sizeof(w->host), col_text(st, 1));
            w->pid = sqlite3_column_int64(st, 2);
            pl__store_copy(w->backend, sizeof(w->backend), col_text(st, 3));
            pl__store_copy(w->gpus, sizeof(w->gpus), col_text(st, 4));
            w->budget_bytes = col_u64(st, 5);
            w->reserved_bytes = col_u64(st, 6);
            pl__store_copy(w->status_json, sizeof(w->status_json),
                           col_text(st, 7));
            w->gone = sqlite3_column_int64(st, 8) != 0;
            w->started_unix_ms = sqlite3_column_int64(st, 9);
            w->heartbeat_unix_ms = sqlite3_column_int64(st, 10);
            w->age_ms = now - w->heartbeat_unix_ms;
        }
        if (rc < 0)
            status = err->code;
    }
    unlock(s);
    return status;
}

static pl_status sq_release(pl__store *store, const char *job_id,
                            uint32_t index, const char *owner, uint64_t fence,
                            pl_error *err)
{
    return end_claim(sq(store), ST_RELEASE, -1, job_id, index, owner, fence,
                     NULL, "releasing a claim", NULL, err);
}

/* The claims recovery takes back: each one is a failed attempt (its
 * worker died, stalled or lost the store while it held the partition), so
 * that a partition that kills every worker taking it (the OOM killer, a
 * driver crash) ends after max_attempts rather than going round the farm
 * for ever. */
typedef struct lapsed {
    char job_id[PL__STORE_JOB_ID_LEN + 1];
    uint32_t index;
    char owner[PL__STORE_OWNER_MAX];
    uint64_t fence;
} lapsed;

static pl_status sq_recover(pl__store *store, const char *owner,
                            uint32_t max_attempts, uint64_t *requeued,
                            pl_error *err)
{
    sq_store *s = sq(store);
    int64_t now = pl__store_now_ms();
    lapsed *v = NULL;
    size_t n = 0, cap = 0;
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    sqlite3_stmt *st = stmt(s, ST_RECOVER_PICK, err);
    if (!st)
        status = err->code;
    else {
        bind_i64(st, 1, now);
        if (owner)
            bind_text(st, 2, owner); /* NULL matches no owner */
        int rc;
        while ((rc = step(s, st, "recovering claims", err)) == SQLITE_ROW) {
            if (n == cap) {
                size_t c2 = cap ? 2 * cap : 16;
                lapsed *nv = realloc(v, c2 * sizeof(*nv));
                if (!nv) {
                    status = pl__error_set(err, PL_ENOMEM,
                                           "%s: recovering claims", s->path);
                    break;
                }
                v = nv;
                cap = c2;
            }
            lapsed *l = &v[n++];
            pl__store_copy(l->job_id, sizeof(l->job_id), col_text(st, 0));
            l->index = (uint32_t)sqlite3_column_int64(st, 1);
            pl__store_copy(l->owner, sizeof(l->owner), col_text(st, 2));
            l->fence = col_u64(st, 3);
        }
        if (rc < 0)
            status = err->code;
        sqlite3_reset(st);
    }
    for (size_t i = 0; i < n && status == PL_OK; i++) {
        char msg[PL__STORE_MSG_MAX];
        snprintf(msg, sizeof(msg),
                 owner && strcmp(v[i].owner, owner) == 0
                     ? "job %s partition %u: its worker %.100s restarted "
                       "while it held the partition"
                     : "job %s partition %u: the lease of worker %.100s "
                       "lapsed (it died, stalled or lost the store)",
                 v[i].job_id, v[i].index, v[i].owner);
        bool again = false;
        status = fail_core(s, v[i].job_id, v[i].index, v[i].owner,
                           v[i].fence, msg, true, max_attempts, &again, now,
                           err);
        *requeued += again;
    }
    status = finish(s, status, err);
    if (status != PL_OK)
        *requeued = 0;
out:
    unlock(s);
    free(v);
    return status;
}

/* ---- counts and purge ------------------------------------------------------ */

static pl_status sq_counts_read(pl__store *store, pl__store_counts *out,
                                pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = begin_read(s, err);
    if (status != PL_OK)
        goto out;
    static const int ids[] = {ST_COUNT_JOBS, ST_COUNT_QUEUED,
                              ST_COUNT_CLAIMED};
    for (int i = 0; i < 3 && status == PL_OK; i++) {
        sqlite3_stmt *st = stmt(s, ids[i], err);
        if (!st) {
            status = err->code;
            break;
        }
        int rc;
        while ((rc = step(s, st, "counting", err)) == SQLITE_ROW) {
            if (ids[i] == ST_COUNT_JOBS) {
                pl__job_state js;
                if (pl__job_state_parse(&js, col_text(st, 0)))
                    out->jobs[js] = col_u64(st, 1);
            } else if (ids[i] == ST_COUNT_QUEUED) {
                int p = sqlite3_column_int(st, 0);
                if ((unsigned)p < PL__PRIORITY_COUNT)
                    out->queued_partitions[p] = col_u64(st, 1);
            } else {
                out->claimed_partitions = col_u64(st, 0);
            }
        }
        if (rc < 0)
            status = err->code;
    }
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

/* Jobs purged per transaction. */
#define PURGE_BATCH 32

static pl_status sq_purge(pl__store *store, int64_t cutoff_unix_ms,
                          pl__store_path_fn fn, void *user, uint64_t *removed,
                          pl_error *err)
{
    sq_store *s = sq(store);
    pl__store_paths paths = {0};
    pl_status status = PL_OK;
    for (bool more = true; more && status == PL_OK;) {
        char ids[PURGE_BATCH][PL__STORE_JOB_ID_LEN + 1];
        size_t n = 0;
        lock(s);
        status = begin_write(s, err);
        if (status != PL_OK) {
            unlock(s);
            break;
        }
        sqlite3_stmt *st = stmt(s, ST_PURGE_PICK, err);
        if (!st)
            status = err->code;
        else {
            bind_i64(st, 1, cutoff_unix_ms);
            bind_i64(st, 2, PURGE_BATCH);
            int rc;
            while ((rc = step(s, st, "choosing jobs to purge", err)) ==
                   SQLITE_ROW)
                pl__store_copy(ids[n++], sizeof(ids[0]), col_text(st, 0));
            if (rc < 0)
                status = err->code;
            sqlite3_reset(st);
        }
        for (size_t i = 0; i < n && status == PL_OK; i++) {
            if (!(st = stmt(s, ST_PURGE_PATHS, err))) {
                status = err->code;
                break;
            }
            bind_text(st, 1, ids[i]);
            int rc;
            while ((rc = step(s, st, "purging", err)) == SQLITE_ROW)
                if (!pl__store_paths_add(&paths, col_text(st, 0)) ||
                    !pl__store_paths_add(&paths, col_text(st, 1))) {
                    status = pl__error_set(err, PL_ENOMEM, "%s: purging",
                                           s->path);
                    break;
                }
            if (rc < 0)
                status = err->code;
            sqlite3_reset(st);
            static const int dels[] = {ST_PURGE_PARTS, ST_PURGE_JOB};
            for (int d = 0; d < 2 && status == PL_OK; d++) {
                if (!(st = stmt(s, dels[d], err))) {
                    status = err->code;
                    break;
                }
                bind_text(st, 1, ids[i]);
                status = run(s, st, "purging", err);
            }
        }
        status = finish(s, status, err);
        unlock(s);
        if (status == PL_OK) {
            *removed += n;
            for (size_t i = 0; fn && i < paths.n; i++)
                fn(user, paths.v[i]);
        }
        pl__store_paths_truncate(&paths, 0);
        more = n == PURGE_BATCH;
    }
    pl__store_paths_free(&paths);
    /* Workers silent since before the cutoff (gone, or dead long ago). */
    if (status == PL_OK) {
        lock(s);
        status = begin_write(s, err);
        if (status == PL_OK) {
            sqlite3_stmt *st = stmt(s, ST_PURGE_WORKERS, err);
            if (!st)
                status = err->code;
            else {
                bind_i64(st, 1, cutoff_unix_ms);
                status = run(s, st, "purging workers", err);
            }
            status = finish(s, status, err);
        }
        unlock(s);
    }
    return status;
}

/* ---- open and close -------------------------------------------------------- */

static void sq_close(pl__store *store)
{
    sq_store *s = sq(store);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static pl_status sq_job_set_deadline(pl__store *store, const char *job_id,
                                     int64_t deadline_unix_ms, pl_error *err)
{
    sq_store *s = sq(store);
    lock(s);
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        goto out;
    /* Read first: an unknown id is "unknown job" (404), not a silent
     * update of no row. */
    status = get_job(s, job_id, NULL, NULL, err);
    sqlite3_stmt *st = NULL;
    if (status == PL_OK && !(st = stmt(s, ST_JOB_DEADLINE, err)))
        status = err->code;
    if (status == PL_OK) {
        bind_text(st, 1, job_id);
        bind_i64(st, 2, deadline_unix_ms);
        status = run(s, st, "setting a job's deadline", err);
    }
    status = finish(s, status, err);
out:
    unlock(s);
    return status;
}

static const pl__store_ops sq_ops = {
    .name = "sqlite",
    .close = sq_close,
    .circuit_put = sq_circuit_put,
    .circuit_get = sq_circuit_get,
    .circuit_page = sq_circuit_page,
    .job_create = sq_job_create,
    .job_create_with_id = sq_job_create_with_id,
    .witness_stored = sq_witness_stored,
    .job_get = sq_job_get,
    .partitions = sq_partitions,
    .job_page = sq_job_page,
    .job_end = sq_job_end,
    .job_set_deadline = sq_job_set_deadline,
    .claim_next = sq_claim_next,
    .heartbeat = sq_heartbeat,
    .claim_live = sq_claim_live,
    .complete = sq_complete,
    .fail = sq_fail,
    .release = sq_release,
    .recover = sq_recover,
    .attempts = sq_attempts,
    .worker_put = sq_worker_put,
    .worker_gone = sq_worker_gone,
    .worker_page = sq_worker_page,
    .counts_read = sq_counts_read,
    .purge = sq_purge,
};

/* One integer from a constant query (a pragma): PL_OK with it in *out. */
static pl_status query_int(sq_store *s, const char *sql, int64_t *out,
                           pl_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        if (rc == SQLITE_ROW || rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? PL_OK : sq_error(s, rc, sql, err);
}

static pl_status exec_sql(sq_store *s, const char *sql, const char *what,
                          pl_error *err)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? PL_OK : sq_error(s, rc, what, err);
}

/* Creates the schema in a new file, or migrates an older one up to
 * target, one step per version: inside one IMMEDIATE transaction (the
 * file's write lock), so that two processes opening a store at once
 * migrate it once, and a failed step leaves the old version whole. */
static pl_status migrate(sq_store *s, int target, int *before,
                         pl_error *err)
{
    pl_status status = begin_write(s, err);
    if (status != PL_OK)
        return status;
    int64_t app = 0, version = 0, objects = 0;
    status = query_int(s, "PRAGMA application_id", &app, err);
    if (status == PL_OK)
        status = query_int(s, "PRAGMA user_version", &version, err);
    if (status == PL_OK)
        status = query_int(s, "SELECT count(*) FROM sqlite_master", &objects,
                           err);
    if (status == PL_OK &&
        (app != APPLICATION_ID && (app != 0 || version != 0 || objects != 0)))
        status = pl__error_set(err, PL_EFORMAT,
                               "%s: not a proofline store (a SQLite file "
                               "with other tables)",
                               s->path);
    if (status == PL_OK && version > PL__STORE_SCHEMA_VERSION)
        status = pl__error_set(
            err, PL_EUNSUPPORTED,
            "%s: the store's schema is version %lld, newer than this "
            "proofline's (%d): run the proofline that upgraded it, or a "
            "newer one",
            s->path, (long long)version, PL__STORE_SCHEMA_VERSION);
    if (status == PL_OK)
        *before = (int)version;
    /* One step per version, in this transaction: all of them or none. */
    int64_t from = version;
    while (status == PL_OK && version < target) {
        version++;
        status = exec_sql(s, migrations[version], "migrating the schema",
                          err);
    }
    if (status == PL_OK && version != from) {
        /* Constants of this build, not inputs: pragmas take no bound
         * parameters. */
        char sql[96];
        snprintf(sql, sizeof(sql),
                 "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 APPLICATION_ID, (int)version);
        status = exec_sql(s, sql, "recording the schema version", err);
    }
    s->base.schema_version = (int)version;
    return finish(s, status, err);
}

/* Puts the file in WAL mode (a no-op when it is already).  The switch of
 * a new file needs its exclusive lock, and SQLite reports a process that
 * opens the file at the same moment as busy at once, without waiting in
 * the busy handler (seen with 4 processes opening a new store together):
 * so this waits here, up to the same timeout. */
static pl_status set_wal(sq_store *s, pl_error *err)
{
    int64_t deadline = pl__store_now_ms() + BUSY_TIMEOUT_MS;
    for (;;) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1,
                                    &st, NULL);
        bool wal = false;
        if (rc == SQLITE_OK) {
            rc = sqlite3_step(st);
            wal = rc == SQLITE_ROW && strcmp(col_text(st, 0), "wal") == 0;
        }
        sqlite3_finalize(st);
        if (wal)
            return PL_OK;
        if (rc == SQLITE_ROW) /* the mode it kept instead */
            return pl__error_set(err, PL_EIO,
                                 "%s: the store cannot use WAL mode on this "
                                 "file system",
                                 s->path);
        if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
            pl__store_now_ms() > deadline)
            return sq_error(s, rc, "setting WAL mode", err);
        struct timespec pause = {0, 10 * 1000000L};
        nanosleep(&pause, NULL);
    }
}

pl_status pl__store_sqlite_open(pl__store **out, const char *dir,
                                int target, int *before, pl_error *err)
{
    *out = NULL;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return pl__error_errno(err, PL_EIO, errno,
                               "%s: cannot create the store's folder", dir);
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return pl__error_errno(err, PL_EIO, errno, "%s", dir);
    if (!S_ISDIR(sb.st_mode))
        return pl__error_set(err, PL_EUSAGE,
                             "%s: the store's place is not a folder", dir);
    sq_store *s = calloc(1, sizeof(*s));
    if (!s)
        return pl__error_set(err, PL_ENOMEM, "%s: opening the store", dir);
    s->base.ops = &sq_ops;
    pthread_mutex_init(&s->mu, NULL);
    pl_status status = PL_OK;
    if ((size_t)snprintf(s->path, sizeof(s->path), "%s/store.sqlite", dir) >=
        sizeof(s->path)) {
        status = pl__error_set(err, PL_EUSAGE, "%s: the path is too long",
                               dir);
        goto fail;
    }
    /* NOMUTEX: the handle's own mutex serialises the connection. */
    int rc = sqlite3_open_v2(s->path, &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                 SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc != SQLITE_OK) {
        status = sq_error(s, rc, "cannot open", err);
        goto fail;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    /* journal_mode is kept in the file; the others are per connection. */
    status = set_wal(s, err);
    if (status == PL_OK)
        status = exec_sql(s,
                          "PRAGMA synchronous = FULL; "
                          "PRAGMA foreign_keys = ON",
                          "setting the connection's options", err);
    if (status == PL_OK)
        status = migrate(s, target, before, err);
    if (status != PL_OK)
        goto fail;
    *out = &s->base;
    return PL_OK;
fail:
    sq_close(&s->base);
    return status;
}
