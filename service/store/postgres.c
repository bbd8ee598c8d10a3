/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The store's PostgreSQL driver (driver.h, libpq): the queue that several
 * proofline services, on several machines, claim work from.  It holds the
 * SQL of every statement in PostgreSQL's dialect (the same tables as the
 * SQLite driver's, in the schema "proofline"), the schema's migrations
 * and the connection; the logic that uses them is store.c's and jobs.c's.
 *
 * Claims: the next partition is chosen with SELECT ... FOR UPDATE SKIP
 * LOCKED in the statement that takes it, so concurrent claimers never wait
 * on each other's choice and never take the same row (the UPDATE
 * re-checks the row's state under its lock).
 *
 * Time: a transaction begins with the database's clock (now(), the
 * transaction's start), which every statement of it is given: leases and
 * timestamps are the database's, so workers whose clocks disagree still
 * agree on when a lease ends.
 *
 * Row locks, one order: PL__SQL_PARTS_LOCK locks a job's partitions in
 * index order before its job's row is touched, and the heartbeat and the
 * claim lock partitions before jobs too, so no two transactions wait on
 * each other in a cycle (a cycle costs PostgreSQL's deadlock_timeout, 1 s,
 * before it aborts one).  Should one still happen, its fate is "retry".
 * Transactions run at READ COMMITTED; reads that must agree with each
 * other at REPEATABLE READ.
 *
 * Connections: one per handle.  One that broke is reset, with backoff, at
 * the next transaction (connect); what runs again after that is
 * store.c's choice, from the fate this driver reports: lost before COMMIT
 * (nothing committed), or during it (unknown).
 *
 * Schema versions: proofline.meta holds the version.  The schema is
 * created or migrated, one step per version (migrations[]), in one
 * transaction under an advisory lock, so that two workers starting at
 * once on an empty database create it once.  A newer version than this
 * build's is refused.
 *
 * Every statement is prepared from a constant text, with parameters
 * bound: no SQL is built from an input.
 */
#define _POSIX_C_SOURCE 200809L
#include "driver.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The advisory lock key of the schema's creation and migrations ("PLst",
 * as the SQLite store's application_id). */
#define SCHEMA_LOCK_KEY "1347179380"
/* How long a call waits for a server that went away to come back. */
#define RECONNECT_MS 15000

#define NOW_MS "floor(extract(epoch from now()) * 1000)::bigint"

static const char schema_v1[] =
    "CREATE SCHEMA IF NOT EXISTS proofline;"
    "CREATE TABLE proofline.meta (version integer NOT NULL);"
    "CREATE TABLE proofline.circuits ("
    " id text PRIMARY KEY,"
    " zkey_path text NOT NULL,"
    " zkey_bytes bigint NOT NULL,"
    " n_constraints bigint NOT NULL,"
    " n_vars bigint NOT NULL,"
    " n_public bigint NOT NULL,"
    " witness_bytes bigint NOT NULL,"
    " partition_bytes bigint NOT NULL,"
    " created_ms bigint NOT NULL);"
    /* seq: an identity, never reused. */
    "CREATE TABLE proofline.jobs ("
    " seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    " id text NOT NULL UNIQUE,"
    " circuit_id text NOT NULL REFERENCES proofline.circuits(id),"
    " priority smallint NOT NULL CHECK (priority BETWEEN 0 AND 3),"
    " state text NOT NULL CHECK (state IN ('receiving', 'queued', 'running',"
    "  'done', 'failed', 'cancelled')),"
    " n_partitions integer NOT NULL CHECK (n_partitions > 0),"
    " n_stored integer NOT NULL DEFAULT 0,"
    " n_done integer NOT NULL DEFAULT 0,"
    " created_ms bigint NOT NULL,"
    " updated_ms bigint NOT NULL,"
    " finished_ms bigint NOT NULL DEFAULT 0,"
    " error text NOT NULL DEFAULT '',"
    " CHECK (n_stored BETWEEN 0 AND n_partitions),"
    " CHECK (n_done BETWEEN 0 AND n_partitions));"
    "CREATE INDEX jobs_by_state ON proofline.jobs(state, seq);"
    "CREATE TABLE proofline.partitions ("
    " job_id text NOT NULL REFERENCES proofline.jobs(id) ON DELETE CASCADE,"
    " idx integer NOT NULL CHECK (idx >= 0),"
    " state text NOT NULL CHECK (state IN ('waiting', 'queued', 'claimed',"
    "  'done', 'failed', 'cancelled')),"
    " witness_path text NOT NULL DEFAULT '',"
    " proof_path text NOT NULL DEFAULT '',"
    " owner text NOT NULL DEFAULT '',"
    " fence bigint NOT NULL DEFAULT 0,"
    " lease_until bigint NOT NULL DEFAULT 0,"
    " attempts integer NOT NULL DEFAULT 0,"
    " completions integer NOT NULL DEFAULT 0"
    "  CHECK (completions BETWEEN 0 AND 1),"
    " claimed_ms bigint NOT NULL DEFAULT 0,"
    " finished_ms bigint NOT NULL DEFAULT 0,"
    " error text NOT NULL DEFAULT '',"
    " priority smallint NOT NULL,"
    " seq bigint NOT NULL,"
    " partition_bytes bigint NOT NULL,"
    " PRIMARY KEY (job_id, idx),"
    " CHECK (state <> 'claimed' OR owner <> ''),"
    " CHECK (state <> 'done' OR (proof_path <> '' AND completions = 1)));"
    "CREATE INDEX partitions_by_state ON proofline.partitions(state, "
    " priority);"
    "CREATE INDEX partitions_queue ON proofline.partitions(priority DESC, "
    " seq, idx) WHERE state = 'queued';"
    "INSERT INTO proofline.meta (version) VALUES (1);";

/* Version 2, one step from version 1 (a new store runs both): every
 * failed attempt kept (its rows go with its partition's), the workers'
 * rows for the cluster's view, and the live claims by owner (what a
 * heartbeat renews, without reading every claimed row). */
static const char schema_v2[] =
    "CREATE TABLE proofline.attempts ("
    " job_id text NOT NULL,"
    " idx integer NOT NULL,"
    " attempt integer NOT NULL CHECK (attempt > 0),"
    " owner text NOT NULL,"
    " fence bigint NOT NULL,"
    " retried boolean NOT NULL,"
    " at_ms bigint NOT NULL,"
    " error text NOT NULL,"
    " PRIMARY KEY (job_id, idx, attempt),"
    " FOREIGN KEY (job_id, idx) REFERENCES proofline.partitions(job_id, idx)"
    "  ON DELETE CASCADE);"
    "CREATE TABLE proofline.workers ("
    " id text PRIMARY KEY,"
    " host text NOT NULL,"
    " pid bigint NOT NULL,"
    " backend text NOT NULL,"
    " gpus text NOT NULL,"
    " budget_bytes bigint NOT NULL,"
    " reserved_bytes bigint NOT NULL,"
    " status_json text NOT NULL,"
    " gone boolean NOT NULL,"
    " started_ms bigint NOT NULL,"
    " heartbeat_ms bigint NOT NULL);"
    "CREATE INDEX partitions_claims ON proofline.partitions(owner)"
    " WHERE state = 'claimed';"
    /* The caller's token of the claim that took the partition, so that a
     * claim whose answer a broken connection lost is found again, not
     * taken twice. */
    "ALTER TABLE proofline.partitions ADD COLUMN claim_id text NOT NULL"
    " DEFAULT '';"
    "UPDATE proofline.meta SET version = 2;";

/* Version 3, one step from version 2: a job's deadline (unix ms, 0 for
 * none), so that a miss is judged against what was asked at submission,
 * whichever worker finishes the job.  Existing rows have none. */
static const char schema_v3[] =
    "ALTER TABLE proofline.jobs ADD COLUMN deadline_ms bigint NOT NULL"
    " DEFAULT 0 CHECK (deadline_ms >= 0);"
    "UPDATE proofline.meta SET version = 3;";

/* Version 4, one step from version 3: when a claim's proof started (its
 * worker's engine admitted it), so that only a claim lost while proving
 * costs an attempt; and the one row the readiness probe writes. */
static const char schema_v4[] =
    "ALTER TABLE proofline.partitions ADD COLUMN started_ms bigint NOT NULL"
    " DEFAULT 0;"
    "CREATE TABLE proofline.probe (id integer PRIMARY KEY CHECK (id = 1),"
    " at_ms bigint NOT NULL);"
    "UPDATE proofline.meta SET version = 4;";

/* Version 5, one step from version 4: a circuit's curve ("bls12381",
 * "bn128": its zkey's), which job listings and the status show.  The rows
 * of an older store get '' (SQL cannot read their zkeys); the service
 * fills them in from the zkeys when it starts. */
static const char schema_v5[] =
    "ALTER TABLE proofline.circuits ADD COLUMN curve text NOT NULL"
    " DEFAULT '';"
    "UPDATE proofline.meta SET version = 5;";

/* The steps, by the version each one makes. */
static const char *const migrations[PL__STORE_SCHEMA_VERSION + 1] = {
    NULL, schema_v1, schema_v2, schema_v3, schema_v4, schema_v5};

#define LIVE_JOB "('receiving', 'queued', 'running')"
#define CLAIM_IS                                                              \
    "job_id = $1::text AND idx = $2::integer AND state = 'claimed' AND "      \
    "owner = $3::text AND fence = $4::bigint"
#define CIRCUITS "proofline.circuits"
#define JOBS "proofline.jobs"
#define PARTS "proofline.partitions"
#define ATTEMPTS "proofline.attempts"
#define WORKERS "proofline.workers"
#define SQL_JOB_COLS PL__SQL_JOB_COLS_WITH(CIRCUITS)

/* The SQL of every statement (driver.h gives their parameters and
 * columns). */
static const char *const sql[PL__SQL_COUNT] = {
    [PL__SQL_CIRCUIT_PUT] =
        "INSERT INTO " CIRCUITS " (" PL__SQL_CIRCUIT_COLS ") VALUES ($1::text, "
        "$2::text, $3::bigint, $4::bigint, $5::bigint, $6::bigint, "
        "$7::bigint, $8::bigint, $9::bigint, $10::text) ON CONFLICT (id) DO "
        "NOTHING",
    [PL__SQL_CIRCUIT_CURVE] = "UPDATE " CIRCUITS " SET curve = $2::text "
                              "WHERE id = $1::text AND curve = ''",
    [PL__SQL_CIRCUIT_GET] = "SELECT " PL__SQL_CIRCUIT_COLS " FROM " CIRCUITS
                            " WHERE id = $1::text",
    [PL__SQL_CIRCUIT_PAGE] = "SELECT " PL__SQL_CIRCUIT_COLS " FROM " CIRCUITS
                             " WHERE id > $1::text ORDER BY id LIMIT "
                             "$2::bigint",
    [PL__SQL_JOB_INSERT] =
        "INSERT INTO " JOBS " (id, circuit_id, priority, state, "
        "n_partitions, created_ms, updated_ms) VALUES ($1::text, $2::text, "
        "$3::smallint, 'receiving', $4::integer, $5::bigint, $5::bigint) "
        "RETURNING seq",
    [PL__SQL_PARTS_INSERT] =
        "INSERT INTO " PARTS " (job_id, idx, state, priority, seq, "
        "partition_bytes) SELECT $1::text, g, 'waiting', $2::smallint, "
        "$3::bigint, $4::bigint FROM generate_series(0, $5::integer - 1) g",
    [PL__SQL_JOB_GET] = "SELECT " SQL_JOB_COLS " FROM " JOBS " WHERE "
                        "id = $1::text",
    [PL__SQL_JOB_DEADLINE] = "UPDATE " JOBS " SET deadline_ms = $2::bigint "
                             "WHERE id = $1::text",
    [PL__SQL_PARTS_LOCK] = "SELECT idx FROM " PARTS " WHERE job_id = $1::text "
                           "ORDER BY idx FOR UPDATE",
    [PL__SQL_PART_GET] = "SELECT " PL__SQL_PART_COLS " FROM " PARTS " WHERE "
                         "job_id = $1::text AND idx = $2::integer",
    [PL__SQL_PART_WITNESS] =
        "UPDATE " PARTS " SET witness_path = $3::text WHERE job_id = "
        "$1::text AND idx = $2::integer AND state = 'waiting' AND "
        "witness_path = ''",
    [PL__SQL_JOB_WITNESS] =
        "UPDATE " JOBS " SET n_stored = n_stored + 1, updated_ms = "
        "$2::bigint, state = CASE WHEN n_stored + 1 = n_partitions THEN "
        "'queued' ELSE state END WHERE id = $1::text AND state = 'receiving'",
    [PL__SQL_PARTS_QUEUE] = "UPDATE " PARTS " SET state = 'queued' WHERE "
                            "job_id = $1::text AND state = 'waiting'",
    [PL__SQL_PARTS_PAGE] = "SELECT " PL__SQL_PART_COLS " FROM " PARTS " WHERE "
                           "job_id = $1::text ORDER BY idx LIMIT $2::bigint",
    [PL__SQL_JOB_PAGE] = "SELECT " SQL_JOB_COLS " FROM " JOBS " WHERE "
                         "seq < $1::bigint ORDER BY seq DESC LIMIT "
                         "$2::bigint",
    [PL__SQL_JOB_PAGE_STATE] =
        "SELECT " SQL_JOB_COLS " FROM " JOBS " WHERE state = $3::text AND "
        "seq < $1::bigint ORDER BY seq DESC LIMIT $2::bigint",
    [PL__SQL_JOB_END] =
        "UPDATE " JOBS " SET state = $2::text, error = CASE WHEN error = '' "
        "THEN $3::text ELSE error END, updated_ms = $4::bigint, finished_ms "
        "= $4::bigint WHERE id = $1::text AND state IN " LIVE_JOB,
    [PL__SQL_PARTS_CANCEL] =
        "UPDATE " PARTS " SET state = 'cancelled', lease_until = 0, "
        "finished_ms = $2::bigint WHERE job_id = $1::text AND state IN "
        "('waiting', 'queued', 'claimed')",
    [PL__SQL_CLAIM_TAKE] =
        "WITH pick AS (SELECT job_id, idx FROM " PARTS " WHERE "
        "state = 'queued' AND partition_bytes <= $1::bigint ORDER BY "
        "priority DESC, seq, idx LIMIT 1 FOR UPDATE SKIP LOCKED) UPDATE "
        PARTS " p SET state = 'claimed', owner = $2::text, fence = p.fence "
        "+ 1, lease_until = $3::bigint, attempts = p.attempts + 1, "
        "claimed_ms = $4::bigint, claim_id = $5::text, started_ms = 0 FROM "
        "pick WHERE p.job_id = pick.job_id AND p.idx = pick.idx AND "
        "p.state = 'queued' RETURNING p.job_id, p.idx",
    [PL__SQL_CLAIM_FIND] = "SELECT job_id, idx FROM " PARTS " WHERE "
                           "state = 'claimed' AND owner = $1::text AND "
                           "claim_id = $2::text",
    [PL__SQL_JOB_RUNNING] = "UPDATE " JOBS " SET state = 'running', "
                            "updated_ms = $2::bigint WHERE id = $1::text "
                            "AND state = 'queued'",
    [PL__SQL_HEARTBEAT] =
        "UPDATE " PARTS " SET lease_until = $2::bigint WHERE (job_id, idx) "
        "IN (SELECT job_id, idx FROM " PARTS " WHERE state = 'claimed' AND "
        "owner = $1::text ORDER BY job_id, idx FOR UPDATE) AND state = "
        "'claimed' AND owner = $1::text",
    [PL__SQL_CLAIM_LIVE] = "SELECT 1 FROM " PARTS " WHERE " CLAIM_IS,
    [PL__SQL_CLAIM_STARTED] =
        "UPDATE " PARTS " SET started_ms = CASE WHEN started_ms = 0 THEN "
        "$5::bigint ELSE started_ms END WHERE " CLAIM_IS,
    [PL__SQL_PART_COMPLETE] =
        "UPDATE " PARTS " SET state = 'done', proof_path = $5::text, error = "
        "'', completions = completions + 1, lease_until = 0, finished_ms = "
        "$6::bigint WHERE " CLAIM_IS,
    [PL__SQL_JOB_COMPLETE] =
        "UPDATE " JOBS " SET n_done = n_done + 1, updated_ms = $2::bigint, "
        "state = CASE WHEN n_done + 1 = n_partitions AND state = 'running' "
        "THEN 'done' ELSE state END, finished_ms = CASE WHEN n_done + 1 = "
        "n_partitions AND state = 'running' THEN $2::bigint ELSE finished_ms "
        "END WHERE id = $1::text RETURNING state",
    [PL__SQL_PART_FAIL] =
        "UPDATE " PARTS " SET state = 'failed', error = $5::text, "
        "lease_until = 0, finished_ms = $6::bigint WHERE " CLAIM_IS,
    [PL__SQL_JOB_FAIL] =
        "UPDATE " JOBS " SET state = CASE WHEN state IN " LIVE_JOB " THEN "
        "'failed' ELSE state END, finished_ms = CASE WHEN state IN " LIVE_JOB
        " THEN $3::bigint ELSE finished_ms END, error = CASE WHEN error = '' "
        "THEN $2::text ELSE error END, updated_ms = $3::bigint WHERE id = "
        "$1::text",
    [PL__SQL_PARTS_CANCEL_PENDING] =
        "UPDATE " PARTS " SET state = 'cancelled', finished_ms = $2::bigint "
        "WHERE job_id = $1::text AND state IN ('waiting', 'queued')",
    [PL__SQL_PART_REQUEUE] =
        "UPDATE " PARTS " p SET state = CASE WHEN j.state IN ('queued', "
        "'running') THEN 'queued' ELSE 'cancelled' END, owner = '', "
        "lease_until = 0, started_ms = 0, error = CASE WHEN $5::text = '' "
        "THEN p.error ELSE $5::text END FROM " JOBS " j WHERE j.id = "
        "p.job_id AND p.job_id = $1::text AND p.idx = $2::integer AND "
        "p.state = 'claimed' AND p.owner = $3::text AND p.fence = $4::bigint "
        "RETURNING p.state",
    [PL__SQL_RECOVER_PICK] =
        "SELECT job_id, idx, owner, fence FROM " PARTS " WHERE state = "
        "'claimed' AND (lease_until <= $1::bigint OR owner = $2::text) ORDER "
        "BY job_id, idx",
    [PL__SQL_ATTEMPT_COUNT] = "SELECT count(*) FROM " ATTEMPTS " WHERE "
                              "job_id = $1::text AND idx = $2::integer",
    [PL__SQL_ATTEMPT_INSERT] =
        "INSERT INTO " ATTEMPTS " (job_id, idx, attempt, owner, fence, "
        "retried, at_ms, error) VALUES ($1::text, $2::integer, $3::integer, "
        "$4::text, $5::bigint, $6::boolean, $7::bigint, $8::text)",
    [PL__SQL_ATTEMPTS_COUNT] = "SELECT count(*) FROM " ATTEMPTS " WHERE "
                               "job_id = $1::text",
    [PL__SQL_ATTEMPTS_PAGE] =
        "SELECT job_id, idx, attempt, owner, fence, retried, at_ms, error "
        "FROM " ATTEMPTS " WHERE job_id = $1::text ORDER BY idx, attempt "
        "LIMIT $2::bigint",
    [PL__SQL_WORKER_PUT] =
        "INSERT INTO " WORKERS " AS w (id, host, pid, backend, gpus, "
        "budget_bytes, reserved_bytes, status_json, gone, started_ms, "
        "heartbeat_ms) VALUES ($1::text, $2::text, $3::bigint, $4::text, "
        "$5::text, $6::bigint, $7::bigint, $8::text, false, $9::bigint, "
        "$9::bigint) ON CONFLICT (id) DO UPDATE SET host = excluded.host, "
        "pid = excluded.pid, backend = excluded.backend, gpus = "
        "excluded.gpus, budget_bytes = excluded.budget_bytes, "
        "reserved_bytes = excluded.reserved_bytes, status_json = "
        "excluded.status_json, gone = false, started_ms = CASE WHEN "
        "$10::boolean THEN excluded.started_ms ELSE w.started_ms END, "
        "heartbeat_ms = excluded.heartbeat_ms",
    [PL__SQL_WORKER_GONE] = "UPDATE " WORKERS " SET gone = true WHERE "
                            "id = $1::text",
    [PL__SQL_WORKER_PAGE] =
        "SELECT id, host, pid, backend, gpus, budget_bytes, reserved_bytes, "
        "status_json, gone, started_ms, heartbeat_ms FROM " WORKERS " WHERE "
        "id > $1::text ORDER BY id LIMIT $2::bigint",
    [PL__SQL_PURGE_WORKERS] = "DELETE FROM " WORKERS " WHERE heartbeat_ms < "
                              "$1::bigint",
    [PL__SQL_COUNT_JOBS] = "SELECT state, count(*) FROM " JOBS " GROUP BY "
                           "state",
    [PL__SQL_COUNT_QUEUED] = "SELECT priority, count(*) FROM " PARTS " WHERE "
                             "state = 'queued' GROUP BY priority",
    [PL__SQL_COUNT_CLAIMED] = "SELECT count(*) FROM " PARTS " WHERE "
                              "state = 'claimed'",
    [PL__SQL_PURGE_PICK] =
        "SELECT id FROM " JOBS " WHERE state IN ('done', 'failed', "
        "'cancelled') AND finished_ms < $1::bigint ORDER BY seq LIMIT "
        "$2::bigint",
    [PL__SQL_PURGE_PATHS] = "SELECT witness_path, proof_path FROM " PARTS
                            " WHERE job_id = $1::text",
    /* the partitions and their attempts go with it (on delete cascade) */
    [PL__SQL_PURGE_JOB] = "DELETE FROM " JOBS " WHERE id = $1::text AND "
                          "state IN ('done', 'failed', 'cancelled')",
    [PL__SQL_PROBE] = "INSERT INTO proofline.probe (id, at_ms) VALUES (1, "
                      "$1::bigint) ON CONFLICT (id) DO UPDATE SET at_ms = "
                      "excluded.at_ms",
};

typedef struct pg_store {
    pl__store base;
    PGconn *conn;
    bool prepared[PL__SQL_COUNT];
    char sqlstate[6];  /* of the last failed statement */
    bool in_txn;       /* a transaction is open */
    bool committing;   /* its COMMIT was sent */
} pg_store;

static pg_store *pg(pl__store *store) { return (pg_store *)store; }

/* Sets err from the result or the connection (res may be NULL). */
static pl_status pg_error(pg_store *s, const PGresult *res, const char *what,
                          pl_error *err)
{
    const char *msg = res ? PQresultErrorMessage(res) : "";
    if (!msg || !*msg)
        msg = PQerrorMessage(s->conn);
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    pl__store_copy(s->sqlstate, sizeof(s->sqlstate), state);
    char text[200];
    pl__store_copy(text, sizeof(text), msg);
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = 0;
    pl_status code = PL_EIO;
    if (state && strncmp(state, "23", 2) == 0)
        code = PL_EINTERNAL; /* an integrity constraint: a broken invariant */
    else if (state && strcmp(state, "53200") == 0)
        code = PL_ENOMEM;
    return pl__error_set(err, code, "%s: %s: %s", s->base.name, what, text);
}

/* A constant command (BEGIN, COMMIT, the schema's steps). */
static pl_status exec_sql(pg_store *s, const char *text, const char *what,
                          pl_error *err)
{
    PGresult *res = PQexec(s->conn, text);
    ExecStatusType st = PQresultStatus(res);
    pl_status status = PL_OK;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        status = pg_error(s, res, what, err);
    PQclear(res);
    return status;
}

/* ---- the driver ------------------------------------------------------------------ */

/* A server that restarts refuses connections for a moment (seconds, while
 * it recovers), so this backs off and tries again, 50 ms doubling to 1 s,
 * for up to RECONNECT_MS in all, before it reports the server gone
 * (PL_EIO).  The handle's lock is held meanwhile: its other callers would
 * wait for the same server anyway. */
static pl_status pg_connect(pl__store *store, pl_error *err)
{
    pg_store *s = pg(store);
    if (PQstatus(s->conn) == CONNECTION_OK)
        return PL_OK;
    int64_t deadline = pl__store_now_ms() + RECONNECT_MS;
    long pause_ms = 50;
    for (;;) {
        PQreset(s->conn);
        memset(s->prepared, 0, sizeof(s->prepared));
        s->in_txn = s->committing = false;
        if (PQstatus(s->conn) == CONNECTION_OK)
            return PL_OK;
        if (pl__store_now_ms() + pause_ms > deadline)
            return pg_error(s, NULL, "reconnecting", err);
        struct timespec ts = {pause_ms / 1000, (pause_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
        pause_ms = pause_ms * 2 > 1000 ? 1000 : pause_ms * 2;
    }
}

/* The transaction's start and the database's clock, in one round trip. */
static pl_status pg_begin(pl__store *store, pl__txn_kind kind,
                          int64_t *now_ms, pl_error *err)
{
    pg_store *s = pg(store);
    s->sqlstate[0] = 0;
    s->in_txn = s->committing = false;
    if (kind == PL__TXN_ONE) {
        *now_ms = pl__store_now_ms(); /* not used for leases */
        return PL_OK;
    }
    PGresult *res = PQexec(
        s->conn, kind == PL__TXN_WRITE
                     ? "BEGIN; SELECT " NOW_MS
                     : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; "
                       "SELECT " NOW_MS);
    pl_status status = PL_OK;
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
        status = pg_error(s, res, "starting a transaction", err);
    else
        *now_ms = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    s->in_txn = PQtransactionStatus(s->conn) != PQTRANS_IDLE;
    return status;
}

static pl_status pg_commit(pl__store *store, pl_error *err)
{
    pg_store *s = pg(store);
    s->committing = true;
    pl_status st = exec_sql(s, "COMMIT", "committing", err);
    if (st == PL_OK)
        s->in_txn = s->committing = false;
    return st;
}

static void pg_rollback(pl__store *store)
{
    pg_store *s = pg(store);
    if (PQstatus(s->conn) == CONNECTION_OK &&
        PQtransactionStatus(s->conn) != PQTRANS_IDLE) {
        pl_error ignored = {0};
        char keep[6];
        memcpy(keep, s->sqlstate, sizeof(keep));
        exec_sql(s, "ROLLBACK", "rolling back", &ignored);
        memcpy(s->sqlstate, keep, sizeof(keep));
    }
}

static pl_status pg_exec(pl__store *store, pl__sql_id id,
                         const pl__sql_arg *args, size_t n_args,
                         pl__sql_rows *rows, pl_error *err)
{
    pg_store *s = pg(store);
    char name[16];
    snprintf(name, sizeof(name), "pl_%d", (int)id);
    if (!s->prepared[id]) {
        PGresult *res = PQprepare(s->conn, name, sql[id], 0, NULL);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            pl_status st = pg_error(s, res, "preparing a statement", err);
            PQclear(res);
            return st;
        }
        PQclear(res);
        s->prepared[id] = true;
    }
    enum { MAX_ARGS = 12 };
    char text[MAX_ARGS][24];
    const char *params[MAX_ARGS];
    if (n_args > MAX_ARGS)
        return pl__error_set(err, PL_EINTERNAL, "%s: a statement of %zu "
                             "parameters", s->base.name, n_args);
    for (size_t i = 0; i < n_args; i++) {
        if (args[i].type == PL__ARG_TEXT) {
            params[i] = args[i].text; /* NULL: SQL NULL */
        } else if (args[i].type == PL__ARG_BOOL) {
            params[i] = args[i].i ? "true" : "false";
        } else {
            snprintf(text[i], sizeof(text[i]), "%" PRId64, args[i].i);
            params[i] = text[i];
        }
    }
    PGresult *res = PQexecPrepared(s->conn, name, (int)n_args, params, NULL,
                                   NULL, 0);
    ExecStatusType est = PQresultStatus(res);
    pl_status st = PL_OK;
    if (est != PGRES_COMMAND_OK && est != PGRES_TUPLES_OK) {
        st = pg_error(s, res, "running a statement", err);
    } else if (rows) {
        size_t n = (size_t)PQntuples(res), cols = (size_t)PQnfields(res);
        rows->changed = strtoull(PQcmdTuples(res), NULL, 10);
        if (n && !(rows->cells = calloc(n * cols, sizeof(char *))))
            st = pl__error_set(err, PL_ENOMEM, "%s: reading rows",
                               s->base.name);
        rows->n = st == PL_OK ? n : 0;
        rows->cols = cols;
        for (size_t r = 0; st == PL_OK && r < n; r++)
            for (size_t c = 0; c < cols; c++) {
                if (PQgetisnull(res, (int)r, (int)c))
                    continue;
                char **cell = &rows->cells[r * cols + c];
                if (!(*cell = strdup(PQgetvalue(res, (int)r, (int)c))))
                    st = pl__error_set(err, PL_ENOMEM, "%s: reading rows",
                                       s->base.name);
            }
        if (st != PL_OK)
            pl__sql_rows_free(rows);
    }
    PQclear(res);
    return st;
}

static pl__txn_fate pg_fate(pl__store *store)
{
    pg_store *s = pg(store);
    if (PQstatus(s->conn) != CONNECTION_OK)
        return s->in_txn && !s->committing ? PL__FATE_LOST : PL__FATE_UNKNOWN;
    /* 40001 serialization_failure, 40P01 deadlock_detected */
    if (strcmp(s->sqlstate, "40001") == 0 || strcmp(s->sqlstate, "40P01") == 0)
        return PL__FATE_RETRY;
    return PL__FATE_FAILED;
}

static void pg_close(pl__store *store)
{
    pg_store *s = pg(store);
    PQfinish(s->conn);
    pthread_mutex_destroy(&s->base.lock);
    free(s);
}

static const pl__store_driver pg_driver = {
    .name = "postgres",
    .close = pg_close,
    .connect = pg_connect,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .exec = pg_exec,
    .fate = pg_fate,
    .check = NULL,
};

/* ---- open and migrations ---------------------------------------------------------- */

/* The server's notices ("schema already exists, skipping") are not the
 * service's messages. */
static void no_notices(void *arg, const char *message) {}

/* Creates the schema on an empty database or migrates an older one up to
 * m->target, under the advisory lock. */
typedef struct migrate_args {
    int target;
    int *before;
} migrate_args;

static pl_status body_migrate(pl__store *store, void *arg, int64_t now,
                              pl_error *err)
{
    pg_store *s = pg(store);
    migrate_args *m = arg;
    pl_status status = exec_sql(s, "SELECT pg_advisory_xact_lock("
                                   SCHEMA_LOCK_KEY ")",
                                "waiting for the schema lock", err);
    if (status != PL_OK)
        return status;
    PGresult *r = PQexec(s->conn, "SELECT to_regclass('proofline.meta') IS "
                                  "NOT NULL, to_regnamespace('proofline') IS "
                                  "NOT NULL");
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        status = pg_error(s, r, "reading the schema", err);
        PQclear(r);
        return status;
    }
    bool has_meta = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    bool has_schema = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
    PQclear(r);
    if (!has_meta) {
        if (has_schema) {
            PGresult *t = PQexec(s->conn, "SELECT count(*) FROM "
                                          "information_schema.tables WHERE "
                                          "table_schema = 'proofline'");
            bool empty = PQresultStatus(t) == PGRES_TUPLES_OK &&
                         strcmp(PQgetvalue(t, 0, 0), "0") == 0;
            PQclear(t);
            if (!empty)
                return pl__error_set(err, PL_EFORMAT,
                                     "%s: the schema \"proofline\" holds "
                                     "tables that are not a proofline store",
                                     s->base.name);
        }
    }
    int64_t version = 0;
    if (has_meta) {
        r = PQexec(s->conn, "SELECT max(version) FROM proofline.meta");
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            status = pg_error(s, r, "reading the schema version", err);
            PQclear(r);
            return status;
        }
        version = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
        if (version > PL__STORE_SCHEMA_VERSION)
            return pl__error_set(
                err, PL_EUNSUPPORTED,
                "%s: the store's schema is version %lld, newer than this "
                "proofline's (%d): run the proofline that upgraded it, or a "
                "newer one",
                s->base.name, (long long)version, PL__STORE_SCHEMA_VERSION);
        if (version < 1)
            return pl__error_set(err, PL_EFORMAT,
                                 "%s: proofline.meta holds no schema version",
                                 s->base.name);
    }
    *m->before = (int)version;
    /* One step per version, in this transaction, under the lock: all of
     * them or none, and once however many workers start together (the
     * others wait on the lock, then find the new version). */
    while (status == PL_OK && version < m->target) {
        version++;
        status = exec_sql(s, migrations[version], "migrating the schema",
                          err);
    }
    s->base.schema_version = (int)version;
    return status;
}

pl_status pl__store_postgres_open(pl__store **out, const char *conninfo,
                                  int target, int *before, pl_error *err)
{
    *out = NULL;
    pg_store *s = calloc(1, sizeof(*s));
    if (!s)
        return pl__error_set(err, PL_ENOMEM, "postgres: opening the store");
    s->base.drv = &pg_driver;
    pthread_mutex_init(&s->base.lock, NULL);
    pl__store_copy(s->base.name, sizeof(s->base.name), "postgres");
    pl_status status = PL_OK;
    /* Defaults the locator may override: a bounded wait for a server
     * that does not answer, and TCP keepalives that notice a dead peer
     * within about a minute (not the system's two hours), so a worker
     * whose network went away gets an error it can act on. */
    const char *keys[] = {"connect_timeout", "keepalives_idle",
                          "keepalives_interval", "keepalives_count",
                          "application_name", "dbname", NULL};
    const char *vals[] = {"10", "30", "10", "3", "proofline", conninfo, NULL};
    s->conn = PQconnectdbParams(keys, vals, 1);
    if (!s->conn) {
        status = pl__error_set(err, PL_ENOMEM, "postgres: connecting");
        goto fail;
    }
    if (PQstatus(s->conn) != CONNECTION_OK) {
        /* The locator may hold a password: the message names the
         * database and host libpq reports, never the locator. */
        status = pg_error(s, NULL, "cannot connect", err);
        goto fail;
    }
    snprintf(s->base.name, sizeof(s->base.name), "postgres %.100s on %.120s",
             PQdb(s->conn), PQhost(s->conn));
    PQsetNoticeProcessor(s->conn, no_notices, NULL);
    migrate_args m = {target, before};
    status = pl__store_txn(&s->base, PL__TXN_WRITE, false, body_migrate, &m,
                           err);
    if (status != PL_OK)
        goto fail;
    *out = &s->base;
    return PL_OK;
fail:
    pg_close(&s->base);
    return status;
}
