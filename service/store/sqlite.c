/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The store's SQLite driver (driver.h): one file, DIR/store.sqlite, the
 * embedded default of `proofline serve --data DIR`.  It holds the SQL of
 * every statement in SQLite's dialect, the schema's migrations and the
 * connection; the logic that uses them is store.c's and jobs.c's.
 *
 * Durability and several processes: WAL with synchronous=FULL (a commit is
 * on disk when the call returns), and every change in one BEGIN IMMEDIATE
 * transaction, which takes SQLite's write lock at its start: two processes
 * on one file serialise there (busy_timeout waits for the lock), and a
 * claim's choice and its update cannot interleave with another's, so no
 * partition is claimed twice.  (A deferred transaction that reads and
 * then writes could fail in WAL mode when another process wrote in
 * between; IMMEDIATE never reads an old snapshot before writing.)  The
 * write lock covers the whole file, so PL__SQL_PARTS_LOCK has nothing to
 * do here.
 *
 * The queue: a partition row carries copies of its job's priority and
 * arrival sequence and of its circuit's partition_bytes (none of them
 * ever changes after creation), so the next claim is the first row of one
 * partial index over the queued partitions, whatever the queue's length,
 * with no join and no sort.
 *
 * Schema versions: PRAGMA user_version holds the version, PRAGMA
 * application_id marks the file as proofline's.  A new file gets the
 * current schema by the same steps an older one is migrated by
 * (migrations[]), in one transaction; a newer one, or a SQLite file that
 * is not a store, is refused, naming the file.
 *
 * The file's identity (device and inode) is kept at open: a folder removed
 * or a file replaced under a running service (the connection would go on
 * writing into the unlinked file) is caught by check().
 *
 * Every statement is prepared once from a constant text and bound with
 * the caller's values: no SQL is ever built from an input.
 */
#define _POSIX_C_SOURCE 200809L
#include "driver.h"
#include "util/error.h"

#include <errno.h>
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

/* Version 4, one step from version 3: when a claim's proof started (its
 * worker's engine admitted it), so that only a claim lost while proving
 * costs an attempt; and the one row the readiness probe writes. */
static const char schema_v4[] =
    "ALTER TABLE partitions ADD COLUMN started_ms INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE probe (id INTEGER PRIMARY KEY CHECK (id = 1),"
    " at_ms INTEGER NOT NULL);";

/* Version 5, one step from version 4: a circuit's curve ("bls12381",
 * "bn128": its zkey's), which job listings and the status show.  The rows
 * of an older store get '' (SQL cannot read their zkeys); the service
 * fills them in from the zkeys when it starts. */
static const char schema_v5[] =
    "ALTER TABLE circuits ADD COLUMN curve TEXT NOT NULL DEFAULT '';";

/* The steps, by the version each one makes. */
static const char *const migrations[PL__STORE_SCHEMA_VERSION + 1] = {
    NULL, schema_v1, schema_v2, schema_v3, schema_v4, schema_v5};


#define LIVE_JOB "('receiving', 'queued', 'running')"
#define SQL_JOB_COLS PL__SQL_JOB_COLS_WITH("circuits")
#define CLAIM_IS                                                              \
    "job_id = ?1 AND idx = ?2 AND state = 'claimed' AND owner = ?3 AND "      \
    "fence = ?4"
/* a claim's end: back in the queue while its job runs, else cancelled */
#define REQUEUED_STATE                                                        \
    "CASE WHEN (SELECT state FROM jobs WHERE id = ?1) IN ('queued', "         \
    "'running') THEN 'queued' ELSE 'cancelled' END"

/* The SQL of every statement (driver.h gives their parameters and
 * columns). */
static const char *const sql[PL__SQL_COUNT] = {
    [PL__SQL_CIRCUIT_PUT] =
        "INSERT INTO circuits (" PL__SQL_CIRCUIT_COLS ") VALUES (?1, ?2, ?3, "
        "?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (id) DO NOTHING",
    [PL__SQL_CIRCUIT_CURVE] = "UPDATE circuits SET curve = ?2 WHERE id = ?1 "
                              "AND curve = ''",
    [PL__SQL_CIRCUIT_GET] = "SELECT " PL__SQL_CIRCUIT_COLS " FROM circuits "
                            "WHERE id = ?1",
    [PL__SQL_CIRCUIT_PAGE] = "SELECT " PL__SQL_CIRCUIT_COLS " FROM circuits "
                             "WHERE id > ?1 ORDER BY id LIMIT ?2",
    [PL__SQL_JOB_INSERT] =
        "INSERT INTO jobs (id, circuit_id, priority, state, n_partitions, "
        "created_ms, updated_ms) VALUES (?1, ?2, ?3, 'receiving', ?4, ?5, ?5) "
        "RETURNING seq",
    [PL__SQL_PARTS_INSERT] =
        "WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k "
        "WHERE i + 1 < ?5) INSERT INTO partitions (job_id, idx, state, "
        "priority, seq, partition_bytes) SELECT ?1, i, 'waiting', ?2, ?3, ?4 "
        "FROM k",
    [PL__SQL_JOB_GET] = "SELECT " SQL_JOB_COLS " FROM jobs WHERE id = ?1",
    [PL__SQL_JOB_DEADLINE] = "UPDATE jobs SET deadline_ms = ?2 WHERE id = ?1",
    [PL__SQL_PARTS_LOCK] = NULL, /* the write lock holds the whole file */
    [PL__SQL_PART_GET] = "SELECT " PL__SQL_PART_COLS " FROM partitions WHERE "
                         "job_id = ?1 AND idx = ?2",
    [PL__SQL_PART_WITNESS] =
        "UPDATE partitions SET witness_path = ?3 WHERE job_id = ?1 AND "
        "idx = ?2 AND state = 'waiting' AND witness_path = ''",
    [PL__SQL_JOB_WITNESS] =
        "UPDATE jobs SET n_stored = n_stored + 1, updated_ms = ?2, state = "
        "CASE WHEN n_stored + 1 = n_partitions THEN 'queued' ELSE state END "
        "WHERE id = ?1 AND state = 'receiving'",
    [PL__SQL_PARTS_QUEUE] = "UPDATE partitions SET state = 'queued' WHERE "
                            "job_id = ?1 AND state = 'waiting'",
    [PL__SQL_PARTS_PAGE] = "SELECT " PL__SQL_PART_COLS " FROM partitions WHERE "
                           "job_id = ?1 ORDER BY idx LIMIT ?2",
    [PL__SQL_JOB_PAGE] = "SELECT " SQL_JOB_COLS " FROM jobs WHERE seq < ?1 "
                         "ORDER BY seq DESC LIMIT ?2",
    [PL__SQL_JOB_PAGE_STATE] = "SELECT " SQL_JOB_COLS " FROM jobs WHERE "
                               "state = ?3 AND seq < ?1 ORDER BY seq DESC "
                               "LIMIT ?2",
    [PL__SQL_JOB_END] =
        "UPDATE jobs SET state = ?2, error = CASE WHEN error = '' THEN ?3 "
        "ELSE error END, updated_ms = ?4, finished_ms = ?4 WHERE id = ?1 AND "
        "state IN " LIVE_JOB,
    [PL__SQL_PARTS_CANCEL] =
        "UPDATE partitions SET state = 'cancelled', lease_until = 0, "
        "finished_ms = ?2 WHERE job_id = ?1 AND state IN ('waiting', "
        "'queued', 'claimed')",
    /* the write lock is held since the transaction began: the row chosen
     * is still queued when it is taken */
    [PL__SQL_CLAIM_TAKE] =
        "UPDATE partitions SET state = 'claimed', owner = ?2, "
        "fence = fence + 1, lease_until = ?3, attempts = attempts + 1, "
        "claimed_ms = ?4, claim_id = ?5, started_ms = 0 WHERE (job_id, idx) "
        "= (SELECT job_id, idx FROM partitions WHERE state = 'queued' AND "
        "partition_bytes <= ?1 ORDER BY priority DESC, seq, idx LIMIT 1) "
        "RETURNING job_id, idx",
    [PL__SQL_CLAIM_FIND] = "SELECT job_id, idx FROM partitions WHERE "
                           "state = 'claimed' AND owner = ?1 AND "
                           "claim_id = ?2",
    [PL__SQL_JOB_RUNNING] = "UPDATE jobs SET state = 'running', "
                            "updated_ms = ?2 WHERE id = ?1 AND "
                            "state = 'queued'",
    [PL__SQL_HEARTBEAT] = "UPDATE partitions SET lease_until = ?2 WHERE "
                          "state = 'claimed' AND owner = ?1",
    [PL__SQL_CLAIM_LIVE] = "SELECT 1 FROM partitions WHERE " CLAIM_IS,
    [PL__SQL_CLAIM_STARTED] =
        "UPDATE partitions SET started_ms = CASE WHEN started_ms = 0 THEN ?5 "
        "ELSE started_ms END WHERE " CLAIM_IS,
    [PL__SQL_PART_COMPLETE] =
        "UPDATE partitions SET state = 'done', proof_path = ?5, error = '', "
        "completions = completions + 1, lease_until = 0, finished_ms = ?6 "
        "WHERE " CLAIM_IS,
    [PL__SQL_JOB_COMPLETE] =
        "UPDATE jobs SET n_done = n_done + 1, updated_ms = ?2, "
        "state = CASE WHEN n_done + 1 = n_partitions AND state = 'running' "
        "THEN 'done' ELSE state END, finished_ms = CASE WHEN n_done + 1 = "
        "n_partitions AND state = 'running' THEN ?2 ELSE finished_ms END "
        "WHERE id = ?1 RETURNING state",
    [PL__SQL_PART_FAIL] =
        "UPDATE partitions SET state = 'failed', error = ?5, lease_until = 0, "
        "finished_ms = ?6 WHERE " CLAIM_IS,
    [PL__SQL_JOB_FAIL] =
        "UPDATE jobs SET state = CASE WHEN state IN " LIVE_JOB " THEN "
        "'failed' ELSE state END, finished_ms = CASE WHEN state IN " LIVE_JOB
        " THEN ?3 ELSE finished_ms END, error = CASE WHEN error = '' THEN ?2 "
        "ELSE error END, updated_ms = ?3 WHERE id = ?1",
    [PL__SQL_PARTS_CANCEL_PENDING] =
        "UPDATE partitions SET state = 'cancelled', finished_ms = ?2 WHERE "
        "job_id = ?1 AND state IN ('waiting', 'queued')",
    [PL__SQL_PART_REQUEUE] =
        "UPDATE partitions SET state = " REQUEUED_STATE ", owner = '', "
        "lease_until = 0, started_ms = 0, error = CASE WHEN ?5 = '' THEN "
        "error ELSE ?5 END WHERE " CLAIM_IS " RETURNING state",
    [PL__SQL_RECOVER_PICK] =
        "SELECT job_id, idx, owner, fence FROM partitions WHERE "
        "state = 'claimed' AND (lease_until <= ?1 OR owner = ?2) ORDER BY "
        "job_id, idx",
    [PL__SQL_ATTEMPT_COUNT] = "SELECT count(*) FROM attempts WHERE "
                              "job_id = ?1 AND idx = ?2",
    [PL__SQL_ATTEMPT_INSERT] =
        "INSERT INTO attempts (job_id, idx, attempt, owner, fence, retried, "
        "at_ms, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [PL__SQL_ATTEMPTS_COUNT] = "SELECT count(*) FROM attempts WHERE "
                               "job_id = ?1",
    [PL__SQL_ATTEMPTS_PAGE] =
        "SELECT job_id, idx, attempt, owner, fence, retried, at_ms, error "
        "FROM attempts WHERE job_id = ?1 ORDER BY idx, attempt LIMIT ?2",
    [PL__SQL_WORKER_PUT] =
        "INSERT INTO workers (id, host, pid, backend, gpus, budget_bytes, "
        "reserved_bytes, status_json, gone, started_ms, heartbeat_ms) VALUES "
        "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?9) ON CONFLICT (id) DO "
        "UPDATE SET host = excluded.host, pid = excluded.pid, backend = "
        "excluded.backend, gpus = excluded.gpus, budget_bytes = "
        "excluded.budget_bytes, reserved_bytes = excluded.reserved_bytes, "
        "status_json = excluded.status_json, gone = 0, started_ms = CASE WHEN "
        "?10 THEN excluded.started_ms ELSE workers.started_ms END, "
        "heartbeat_ms = excluded.heartbeat_ms",
    [PL__SQL_WORKER_GONE] = "UPDATE workers SET gone = 1 WHERE id = ?1",
    [PL__SQL_WORKER_PAGE] =
        "SELECT id, host, pid, backend, gpus, budget_bytes, reserved_bytes, "
        "status_json, gone, started_ms, heartbeat_ms FROM workers WHERE "
        "id > ?1 ORDER BY id LIMIT ?2",
    [PL__SQL_PURGE_WORKERS] = "DELETE FROM workers WHERE heartbeat_ms < ?1",
    [PL__SQL_COUNT_JOBS] = "SELECT state, count(*) FROM jobs GROUP BY state",
    [PL__SQL_COUNT_QUEUED] = "SELECT priority, count(*) FROM partitions "
                             "WHERE state = 'queued' GROUP BY priority",
    [PL__SQL_COUNT_CLAIMED] = "SELECT count(*) FROM partitions WHERE "
                              "state = 'claimed'",
    [PL__SQL_PURGE_PICK] =
        "SELECT id FROM jobs WHERE state IN ('done', 'failed', 'cancelled') "
        "AND finished_ms < ?1 ORDER BY seq LIMIT ?2",
    [PL__SQL_PURGE_PATHS] = "SELECT witness_path, proof_path FROM "
                            "partitions WHERE job_id = ?1",
    /* the partitions and their attempts go with it (foreign keys on) */
    [PL__SQL_PURGE_JOB] = "DELETE FROM jobs WHERE id = ?1 AND state IN "
                          "('done', 'failed', 'cancelled')",
    [PL__SQL_PROBE] = "INSERT INTO probe (id, at_ms) VALUES (1, ?1) ON "
                      "CONFLICT (id) DO UPDATE SET at_ms = excluded.at_ms",
};

typedef struct sq_store {
    pl__store base;
    sqlite3 *db;
    sqlite3_stmt *st[PL__SQL_COUNT];
    int last_rc;          /* of the last failure */
    dev_t dev;            /* the file's identity at open */
    ino_t ino;
    char path[PL__STORE_PATH_MAX];
} sq_store;

static sq_store *sq(pl__store *store) { return (sq_store *)store; }

static pl_status sq_error(sq_store *s, int rc, const char *what,
                          pl_error *err)
{
    s->last_rc = rc;
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

static pl_status exec_sql(sq_store *s, const char *text, const char *what,
                          pl_error *err)
{
    int rc = sqlite3_exec(s->db, text, NULL, NULL, NULL);
    return rc == SQLITE_OK ? PL_OK : sq_error(s, rc, what, err);
}

/* ---- the driver ---------------------------------------------------------------- */

static pl_status sq_connect(pl__store *store, pl_error *err)
{
    return PL_OK; /* a file: nothing to reconnect */
}

static pl_status sq_begin(pl__store *store, pl__txn_kind kind,
                          int64_t *now_ms, pl_error *err)
{
    sq_store *s = sq(store);
    *now_ms = pl__store_now_ms();
    s->last_rc = 0;
    if (kind == PL__TXN_ONE)
        return PL_OK;
    return exec_sql(s, kind == PL__TXN_WRITE ? "BEGIN IMMEDIATE" : "BEGIN",
                    "starting a transaction", err);
}

static pl_status sq_commit(pl__store *store, pl_error *err)
{
    return exec_sql(sq(store), "COMMIT", "committing", err);
}

static void sq_rollback(pl__store *store)
{
    sq_store *s = sq(store);
    if (sqlite3_get_autocommit(s->db))
        return; /* SQLite rolled back already (a full disk, no memory) */
    int keep = s->last_rc;
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    s->last_rc = keep;
}

static pl_status sq_exec(pl__store *store, pl__sql_id id,
                         const pl__sql_arg *args, size_t n_args,
                         pl__sql_rows *rows, pl_error *err)
{
    sq_store *s = sq(store);
    if (!sql[id])
        return PL_OK;
    if (!s->st[id]) {
        int rc = sqlite3_prepare_v3(s->db, sql[id], -1,
                                    SQLITE_PREPARE_PERSISTENT, &s->st[id],
                                    NULL);
        if (rc != SQLITE_OK)
            return sq_error(s, rc, "preparing a statement", err);
    }
    sqlite3_stmt *st = s->st[id];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    for (size_t i = 0; i < n_args; i++) {
        int k = (int)i + 1;
        if (args[i].type == PL__ARG_TEXT) {
            if (args[i].text)
                sqlite3_bind_text(st, k, args[i].text, -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(st, k);
        } else {
            sqlite3_bind_int64(st, k, args[i].i);
        }
    }
    pl_status status = PL_OK;
    size_t cols = (size_t)sqlite3_column_count(st), cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!rows)
            continue;
        if (rows->n == cap) {
            size_t grown = cap ? 2 * cap : 4;
            char **cells = realloc(rows->cells, grown * cols * sizeof(char *));
            if (!cells) {
                status = pl__error_set(err, PL_ENOMEM, "%s: reading rows",
                                       s->path);
                break;
            }
            rows->cells = cells;
            cap = grown;
        }
        rows->cols = cols;
        for (size_t c = 0; c < cols; c++) {
            const unsigned char *t = sqlite3_column_text(st, (int)c);
            char **cell = &rows->cells[rows->n * cols + c];
            *cell = t ? strdup((const char *)t) : NULL;
            if (t && !*cell)
                status = pl__error_set(err, PL_ENOMEM, "%s: reading rows",
                                       s->path);
        }
        rows->n++;
        if (status != PL_OK)
            break;
    }
    if (status == PL_OK && rc != SQLITE_DONE)
        status = sq_error(s, rc, "running a statement", err);
    if (status == PL_OK && rows)
        rows->changed = (uint64_t)sqlite3_changes(s->db);
    /* no statement left mid-result: an open read would pin the WAL and
     * hide other processes' commits */
    sqlite3_reset(st);
    if (status != PL_OK && rows)
        pl__sql_rows_free(rows);
    return status;
}

/* SQLite keeps no connection to lose; a busy store is reported, since
 * busy_timeout has waited already. */
static pl__txn_fate sq_fate(pl__store *store)
{
    return PL__FATE_FAILED;
}

static pl_status sq_check(pl__store *store, pl_error *err)
{
    sq_store *s = sq(store);
    struct stat sb;
    if (stat(s->path, &sb) != 0)
        return pl__error_errno(err, PL_EIO, errno,
                               "%s: the store's file is gone (its folder "
                               "removed?)", s->path);
    if (sb.st_dev != s->dev || sb.st_ino != s->ino)
        return pl__error_set(err, PL_EIO, "%s: the store's file was replaced "
                             "under the service", s->path);
    return PL_OK;
}

static void sq_close(pl__store *store)
{
    sq_store *s = sq(store);
    for (int i = 0; i < PL__SQL_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    pthread_mutex_destroy(&s->base.lock);
    free(s);
}

static const pl__store_driver sq_driver = {
    .name = "sqlite",
    .close = sq_close,
    .connect = sq_connect,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .exec = sq_exec,
    .fate = sq_fate,
    .check = sq_check,
};

/* ---- open and migrations -------------------------------------------------------- */

/* One integer from a constant query (a pragma): PL_OK with it in *out. */
static pl_status query_int(sq_store *s, const char *text, int64_t *out,
                           pl_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, text, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        if (rc == SQLITE_ROW || rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? PL_OK : sq_error(s, rc, text, err);
}

/* Creates the schema in a new file, or migrates an older one up to
 * target, one step per version: inside one IMMEDIATE transaction (the
 * file's write lock), so that two processes opening a store at once
 * migrate it once, and a failed step leaves the old version whole. */
static pl_status migrate(sq_store *s, int target, int *before,
                         pl_error *err)
{
    pl_status status = exec_sql(s, "BEGIN IMMEDIATE",
                                "starting a transaction", err);
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
    /* one step per version, in this transaction: all of them or none */
    int64_t from = version;
    while (status == PL_OK && version < target) {
        version++;
        status = exec_sql(s, migrations[version], "migrating the schema",
                          err);
    }
    if (status == PL_OK && version != from) {
        /* constants of this build, not inputs: pragmas take no bound
         * parameters */
        char text[96];
        snprintf(text, sizeof(text),
                 "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 APPLICATION_ID, (int)version);
        status = exec_sql(s, text, "recording the schema version", err);
    }
    s->base.schema_version = (int)version;
    if (status == PL_OK)
        return exec_sql(s, "COMMIT", "committing", err);
    sq_rollback(&s->base);
    return status;
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
            const unsigned char *mode =
                rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
            wal = mode && strcmp((const char *)mode, "wal") == 0;
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
    s->base.drv = &sq_driver;
    pthread_mutex_init(&s->base.lock, NULL);
    pl_status status = PL_OK;
    if ((size_t)snprintf(s->path, sizeof(s->path), "%s/store.sqlite", dir) >=
        sizeof(s->path)) {
        status = pl__error_set(err, PL_EUSAGE, "%s: the path is too long",
                               dir);
        goto fail;
    }
    pl__store_copy(s->base.name, sizeof(s->base.name), s->path);
    /* NOMUTEX: the handle's own lock serialises the connection */
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
    /* journal_mode is kept in the file; the others are per connection */
    status = set_wal(s, err);
    if (status == PL_OK)
        status = exec_sql(s,
                          "PRAGMA synchronous = FULL; "
                          "PRAGMA foreign_keys = ON",
                          "setting the connection's options", err);
    if (status == PL_OK)
        status = migrate(s, target, before, err);
    if (status == PL_OK && stat(s->path, &sb) != 0)
        status = pl__error_errno(err, PL_EIO, errno, "%s", s->path);
    if (status != PL_OK)
        goto fail;
    s->dev = sb.st_dev;
    s->ino = sb.st_ino;
    *out = &s->base;
    return PL_OK;
fail:
    sq_close(&s->base);
    return status;
}
