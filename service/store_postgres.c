/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job store on PostgreSQL (libpq): the queue that several proofline
 * services, on several machines, claim work from.  Implements store.h with
 * the semantics of the SQLite store (store_sqlite.c; the same tables, in
 * the schema "proofline"); store.c checks the arguments first.
 *
 * Claims: the next partition is chosen with SELECT ... FOR UPDATE SKIP
 * LOCKED in one statement that also takes it, marks its job running and
 * returns the partition, the job and the circuit, so concurrent claimers
 * never wait on each other's choice and never take the same row (the
 * UPDATE re-checks the row's state under its lock), and a claim is one
 * round trip.  A completion and a worker's heartbeat are one statement
 * each too: the store's hot path is three round trips per partition.
 *
 * Time: leases and timestamps come from the database's clock (now(), the
 * transaction's start), not the worker's, so that workers whose clocks
 * disagree still agree on when a lease ends.
 *
 * Row locks, one order: a transaction locks partitions before their job's
 * row, and several partitions in (job, index) order (PS_PARTS_LOCK for a
 * job's, an ordered FOR UPDATE subquery for heartbeats and recovery).  A
 * claim holds one partition and then takes its job's row; a cancel, a
 * failure or the last witness locks all the job's partitions first.  So
 * no two transactions wait on each other in a cycle (a cycle costs
 * PostgreSQL's deadlock_timeout, 1 s, before it aborts one).  Should one
 * still happen, txn() retries the whole transaction (a few times) when
 * PostgreSQL aborts it for a deadlock or a serialization failure.
 * Transactions run at READ COMMITTED; reads that must agree with each
 * other (counts, a job's partitions) at REPEATABLE READ.
 *
 * Schema versions: proofline.meta holds the version.  The schema is
 * created or migrated, one step per version (migrations[]), in one
 * transaction under an advisory lock, so that two workers starting at
 * once on an empty database create it once.  A newer version than this
 * build's is refused.
 *
 * Threads: one connection, guarded by one mutex (the only lock in this
 * file); a listing calls the caller's function between pages, with no
 * lock held.  A connection that broke is reset, with backoff, at the next
 * call (connected()); see txn() for what runs again after a reconnection.
 *
 * Recovery: every claim taken back (a lapsed lease, a restarted owner) is
 * a failed attempt through the same code as a worker's failure
 * (body_fail), so the retry limit holds whatever the cause.
 *
 * Every statement is prepared from a constant text, with parameters
 * bound: no SQL is built from an input.
 */
#define _POSIX_C_SOURCE 200809L
#include "store_impl.h"
#include "util/error.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The advisory lock key of the schema's creation and migrations ("PLst",
 * as the SQLite store's application_id). */
#define SCHEMA_LOCK_KEY "1347179380"
/* Attempts of a transaction aborted by a deadlock or a serialization
 * failure. */
#define TXN_ATTEMPTS 5
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

/* The steps, by the version each one makes. */
static const char *const migrations[PL__STORE_SCHEMA_VERSION + 1] = {
    NULL, schema_v1, schema_v2, schema_v3};

#define CIRCUIT_COLS                                                          \
    "id, zkey_path, zkey_bytes, n_constraints, n_vars, n_public, "            \
    "witness_bytes, partition_bytes, created_ms"
#define JOB_COLS                                                              \
    "id, circuit_id, priority, state, n_partitions, seq, created_ms, "        \
    "updated_ms, finished_ms, error, n_stored, n_done, deadline_ms"
#define PART_COLS                                                             \
    "job_id, idx, state, witness_path, proof_path, owner, fence, "            \
    "lease_until, attempts, completions, claimed_ms, finished_ms, error"
/* The same, qualified (p: partitions, j: jobs, c: circuits), for joins;
 * a joined row holds them in this order (PART_COLS at 0, JOB_COLS at
 * PART_NCOLS, CIRCUIT_COLS after). */
#define PART_COLS_P                                                           \
    "p.job_id, p.idx, p.state, p.witness_path, p.proof_path, p.owner, "       \
    "p.fence, p.lease_until, p.attempts, p.completions, p.claimed_ms, "       \
    "p.finished_ms, p.error"
#define JOB_COLS_J                                                            \
    "j.id, j.circuit_id, j.priority, j.state, j.n_partitions, j.seq, "        \
    "j.created_ms, j.updated_ms, j.finished_ms, j.error, j.n_stored, "        \
    "j.n_done, j.deadline_ms"
#define CIRCUIT_COLS_C                                                        \
    "c.id, c.zkey_path, c.zkey_bytes, c.n_constraints, c.n_vars, "            \
    "c.n_public, c.witness_bytes, c.partition_bytes, c.created_ms"
#define PART_NCOLS 13
#define JOB_NCOLS 13
#define LIVE_JOB "('receiving', 'queued', 'running')"
#define CLAIM_IS                                                              \
    "job_id = $1::text AND idx = $2::integer AND state = 'claimed' AND "      \
    "owner = $3::text AND fence = $4::bigint"
#define CIRCUITS "proofline.circuits"
#define JOBS "proofline.jobs"
#define PARTS "proofline.partitions"
#define ATTEMPTS "proofline.attempts"
#define WORKERS "proofline.workers"

#define STMT_MAP(X)                                                           \
    X(PS_CIRCUIT_PUT,                                                         \
      "INSERT INTO " CIRCUITS " (" CIRCUIT_COLS ") VALUES ($1::text, "        \
      "$2::text, $3::bigint, $4::bigint, $5::bigint, $6::bigint, $7::bigint," \
      " $8::bigint, CASE WHEN $9::bigint = 0 THEN " NOW_MS " ELSE "           \
      "$9::bigint END) ON CONFLICT (id) DO NOTHING")                          \
    X(PS_CIRCUIT_GET,                                                         \
      "SELECT " CIRCUIT_COLS " FROM " CIRCUITS " WHERE id = $1::text")        \
    X(PS_CIRCUIT_PAGE, "SELECT " CIRCUIT_COLS " FROM " CIRCUITS " WHERE "     \
                       "id > $1::text ORDER BY id LIMIT $2::bigint")          \
    X(PS_JOB_INSERT,                                                          \
      "INSERT INTO " JOBS " (id, circuit_id, priority, state, n_partitions, " \
      "created_ms, updated_ms) VALUES ($1::text, $2::text, $3::smallint, "    \
      "'receiving', $4::integer, " NOW_MS ", " NOW_MS ") RETURNING seq")      \
    X(PS_PARTS_INSERT,                                                        \
      "INSERT INTO " PARTS " (job_id, idx, state, priority, seq, "            \
      "partition_bytes) SELECT $1::text, g, 'waiting', $2::smallint, "        \
      "$3::bigint, $4::bigint FROM generate_series(0, $5::integer - 1) g")    \
    X(PS_JOB_GET, "SELECT " JOB_COLS " FROM " JOBS " WHERE id = $1::text")    \
    X(PS_JOB_DEADLINE, "UPDATE " JOBS " SET deadline_ms = $2::bigint WHERE "  \
                       "id = $1::text")                                       \
    X(PS_PARTS_LOCK, "SELECT idx FROM " PARTS " WHERE job_id = $1::text "     \
                     "ORDER BY idx FOR UPDATE")                               \
    X(PS_PART_GET, "SELECT " PART_COLS " FROM " PARTS " WHERE "               \
                   "job_id = $1::text AND idx = $2::integer")                 \
    X(PS_PART_WITNESS,                                                        \
      "UPDATE " PARTS " SET witness_path = $3::text WHERE job_id = $1::text " \
      "AND idx = $2::integer AND state = 'waiting' AND witness_path = ''")    \
    X(PS_JOB_WITNESS,                                                         \
      "UPDATE " JOBS " SET n_stored = n_stored + 1, updated_ms = " NOW_MS     \
      ", state = CASE WHEN n_stored + 1 = n_partitions THEN 'queued' ELSE "   \
      "state END WHERE id = $1::text AND state = 'receiving'")                \
    X(PS_PARTS_QUEUE, "UPDATE " PARTS " SET state = 'queued' WHERE "          \
                      "job_id = $1::text AND state = 'waiting'")              \
    X(PS_PARTS_PAGE, "SELECT " PART_COLS " FROM " PARTS " WHERE "             \
                     "job_id = $1::text ORDER BY idx LIMIT $2::bigint")       \
    X(PS_JOB_PAGE, "SELECT " JOB_COLS " FROM " JOBS " WHERE "                 \
                   "seq < $1::bigint ORDER BY seq DESC LIMIT $2::bigint")     \
    X(PS_JOB_PAGE_STATE,                                                      \
      "SELECT " JOB_COLS " FROM " JOBS " WHERE state = $3::text AND "         \
      "seq < $1::bigint ORDER BY seq DESC LIMIT $2::bigint")                  \
    /* Cancel ($2 'cancelled', $3 '') or fail ($2 'failed', $3 a message). */ \
    X(PS_JOB_END,                                                             \
      "UPDATE " JOBS " SET state = $2::text, error = CASE WHEN error = '' "   \
      "THEN $3::text ELSE error END, updated_ms = " NOW_MS ", finished_ms = " \
      NOW_MS " WHERE id = $1::text AND state IN " LIVE_JOB)                   \
    X(PS_PARTS_CANCEL,                                                        \
      "UPDATE " PARTS " SET state = 'cancelled', lease_until = 0, "           \
      "finished_ms = " NOW_MS " WHERE job_id = $1::text AND state IN "        \
      "('waiting', 'queued', 'claimed')")                                     \
    /* The claim, one statement: choose, take, mark the job running, and
     * read the partition, its job and its circuit (the job row as it was
     * before: a 'queued' one is 'running' now). */                          \
    X(PS_CLAIM,                                                               \
      "WITH pick AS (SELECT job_id, idx FROM " PARTS " WHERE "                \
      "state = 'queued' AND partition_bytes <= $1::bigint ORDER BY "          \
      "priority DESC, seq, idx LIMIT 1 FOR UPDATE SKIP LOCKED), took AS "     \
      "(UPDATE " PARTS " p SET state = 'claimed', owner = $2::text, "         \
      "fence = p.fence + 1, lease_until = " NOW_MS " + $3::bigint, "          \
      "attempts = p.attempts + 1, claimed_ms = " NOW_MS ", claim_id = "       \
      "$4::text FROM pick WHERE p.job_id = pick.job_id AND p.idx = pick.idx " \
      "AND p.state = 'queued' RETURNING " PART_COLS_P "), run AS (UPDATE "    \
      JOBS " SET state = 'running', updated_ms = " NOW_MS " WHERE id IN "     \
      "(SELECT job_id FROM took) AND state = 'queued') SELECT took.*, "       \
      JOB_COLS_J ", " CIRCUIT_COLS_C " FROM took JOIN " JOBS " j ON j.id = "  \
      "took.job_id JOIN " CIRCUITS " c ON c.id = j.circuit_id")               \
    /* A claim that may have committed before its connection broke. */       \
    X(PS_CLAIM_FIND,                                                          \
      "SELECT " PART_COLS_P ", " JOB_COLS_J ", " CIRCUIT_COLS_C " FROM "      \
      PARTS " p JOIN " JOBS " j ON j.id = p.job_id JOIN " CIRCUITS " c ON "   \
      "c.id = j.circuit_id WHERE p.state = 'claimed' AND p.owner = $1::text " \
      "AND p.claim_id = $2::text")                                            \
    /* complete, one statement: the claim's row, then (if it matched) its   \
     * job's, whose new state says whether this completion made it done. */   \
    X(PS_COMPLETE,                                                            \
      "WITH done AS (UPDATE " PARTS " SET state = 'done', proof_path = "      \
      "$5::text, error = '', completions = completions + 1, lease_until = "   \
      "0, "                                                                   \
      "finished_ms = " NOW_MS " WHERE " CLAIM_IS " RETURNING job_id) UPDATE " \
      JOBS " SET n_done = n_done + 1, updated_ms = " NOW_MS ", state = CASE " \
      "WHEN n_done + 1 = n_partitions AND state = 'running' THEN 'done' "     \
      "ELSE state END, finished_ms = CASE WHEN n_done + 1 = n_partitions "    \
      "AND state = 'running' THEN " NOW_MS " ELSE finished_ms END WHERE id "  \
      "IN (SELECT job_id FROM done) RETURNING state")                         \
    X(PS_HEARTBEAT,                                                           \
      "UPDATE " PARTS " SET lease_until = " NOW_MS " + $2::bigint WHERE "     \
      "(job_id, idx) IN (SELECT job_id, idx FROM " PARTS " WHERE "            \
      "state = 'claimed' AND owner = $1::text ORDER BY job_id, idx FOR "      \
      "UPDATE) AND state = 'claimed' AND owner = $1::text")                   \
    X(PS_CLAIM_LIVE, "SELECT 1 FROM " PARTS " WHERE " CLAIM_IS)               \
    X(PS_PART_FAIL,                                                           \
      "UPDATE " PARTS " SET state = 'failed', error = $5::text, "             \
      "lease_until = 0, finished_ms = " NOW_MS " WHERE " CLAIM_IS)            \
    X(PS_JOB_FAIL,                                                            \
      "UPDATE " JOBS " SET state = CASE WHEN state IN " LIVE_JOB " THEN "     \
      "'failed' ELSE state END, finished_ms = CASE WHEN state IN " LIVE_JOB   \
      " THEN " NOW_MS " ELSE finished_ms END, error = CASE WHEN error = '' "   \
      "THEN $2::text ELSE error END, updated_ms = " NOW_MS                    \
      " WHERE id = $1::text")                                                 \
    X(PS_PARTS_CANCEL_PENDING,                                                \
      "UPDATE " PARTS " SET state = 'cancelled', finished_ms = " NOW_MS       \
      " WHERE job_id = $1::text AND state IN ('waiting', 'queued')")          \
    X(PS_RELEASE,                                                             \
      "UPDATE " PARTS " p SET state = CASE WHEN j.state IN ('queued', "       \
      "'running') THEN 'queued' ELSE 'cancelled' END, owner = '', "           \
      "lease_until = 0 FROM " JOBS " j WHERE j.id = p.job_id AND "            \
      "p.job_id = $1::text AND p.idx = $2::integer AND p.state = 'claimed' "  \
      "AND p.owner = $3::text AND p.fence = $4::bigint")                      \
    /* The claims whose lease lapsed, and $1's whatever their lease. */      \
    X(PS_RECOVER_PICK,                                                        \
      "SELECT job_id, idx, owner, fence FROM " PARTS " WHERE state = "        \
      "'claimed' AND (lease_until <= " NOW_MS " OR owner = $1::text) ORDER "  \
      "BY job_id, idx")                                                       \
    X(PS_NOW, "SELECT " NOW_MS)                                               \
    X(PS_ATTEMPT_COUNT, "SELECT count(*) FROM " ATTEMPTS " WHERE "            \
                        "job_id = $1::text AND idx = $2::integer")            \
    X(PS_ATTEMPT_INSERT,                                                      \
      "INSERT INTO " ATTEMPTS " (job_id, idx, attempt, owner, fence, "        \
      "retried, at_ms, error) VALUES ($1::text, $2::integer, $3::integer, "   \
      "$4::text, $5::bigint, $6::boolean, " NOW_MS ", $7::text)")             \
    /* A retry: back to the queue, or cancelled if the job ended. */          \
    X(PS_PART_RETRY,                                                          \
      "UPDATE " PARTS " p SET state = CASE WHEN j.state IN ('queued', "       \
      "'running') THEN 'queued' ELSE 'cancelled' END, owner = '', "           \
      "lease_until = 0, error = $5::text FROM " JOBS " j WHERE j.id = "       \
      "p.job_id AND p.job_id = $1::text AND p.idx = $2::integer AND "         \
      "p.state = 'claimed' AND p.owner = $3::text AND p.fence = $4::bigint "  \
      "RETURNING p.state")                                                    \
    X(PS_ATTEMPTS_COUNT, "SELECT count(*) FROM " ATTEMPTS " WHERE "           \
                         "job_id = $1::text")                                 \
    X(PS_ATTEMPTS_PAGE,                                                       \
      "SELECT job_id, idx, attempt, owner, fence, retried, at_ms, error "     \
      "FROM " ATTEMPTS " WHERE job_id = $1::text ORDER BY idx, attempt "      \
      "LIMIT $2::bigint")                                                     \
    /* $10: true registers (started now), false renews. */                    \
    X(PS_WORKER_PUT,                                                          \
      "INSERT INTO " WORKERS " AS w (id, host, pid, backend, gpus, "          \
      "budget_bytes, reserved_bytes, status_json, gone, started_ms, "         \
      "heartbeat_ms) VALUES ($1::text, $2::text, $3::bigint, $4::text, "      \
      "$5::text, $6::bigint, $7::bigint, $8::text, false, " NOW_MS ", "       \
      NOW_MS ") ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = "  \
      "excluded.pid, backend = excluded.backend, gpus = excluded.gpus, "      \
      "budget_bytes = excluded.budget_bytes, reserved_bytes = "               \
      "excluded.reserved_bytes, status_json = excluded.status_json, gone = "  \
      "false, started_ms = CASE WHEN $9::boolean THEN excluded.started_ms "   \
      "ELSE w.started_ms END, heartbeat_ms = excluded.heartbeat_ms")          \
    /* A worker's tick, one statement: its row, and ($9 > 0) the leases   \
     * of its claims, as PS_HEARTBEAT. */                                    \
    X(PS_WORKER_BEAT,                                                         \
      "WITH w AS (INSERT INTO " WORKERS " AS w (id, host, pid, backend, "     \
      "gpus, budget_bytes, reserved_bytes, status_json, gone, started_ms, "   \
      "heartbeat_ms) VALUES ($1::text, $2::text, $3::bigint, $4::text, "      \
      "$5::text, $6::bigint, $7::bigint, $8::text, false, " NOW_MS ", "       \
      NOW_MS ") ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = "  \
      "excluded.pid, backend = excluded.backend, gpus = excluded.gpus, "      \
      "budget_bytes = excluded.budget_bytes, reserved_bytes = "               \
      "excluded.reserved_bytes, status_json = excluded.status_json, gone = "  \
      "false, heartbeat_ms = excluded.heartbeat_ms RETURNING 1), h AS "       \
      "(UPDATE " PARTS " SET lease_until = " NOW_MS " + $9::bigint WHERE "    \
      "$9::bigint > 0 AND (job_id, idx) IN (SELECT job_id, idx FROM " PARTS  \
      " WHERE state = 'claimed' AND owner = $1::text ORDER BY job_id, idx "   \
      "FOR UPDATE) AND state = 'claimed' AND owner = $1::text RETURNING 1) "  \
      "SELECT (SELECT count(*) FROM w), (SELECT count(*) FROM h)")            \
    X(PS_WORKER_GONE, "UPDATE " WORKERS " SET gone = true WHERE "             \
                      "id = $1::text")                                        \
    X(PS_WORKER_PAGE,                                                         \
      "SELECT id, host, pid, backend, gpus, budget_bytes, reserved_bytes, "   \
      "status_json, gone, started_ms, heartbeat_ms, " NOW_MS " - "            \
      "heartbeat_ms FROM " WORKERS " WHERE id > $1::text ORDER BY id LIMIT "  \
      "$2::bigint")                                                           \
    X(PS_PURGE_WORKERS, "DELETE FROM " WORKERS " WHERE heartbeat_ms < "       \
                        "$1::bigint")                                         \
    X(PS_COUNT_JOBS, "SELECT state, count(*) FROM " JOBS " GROUP BY state")   \
    X(PS_COUNT_QUEUED, "SELECT priority, count(*) FROM " PARTS " WHERE "      \
                       "state = 'queued' GROUP BY priority")                  \
    X(PS_COUNT_CLAIMED,                                                       \
      "SELECT count(*) FROM " PARTS " WHERE state = 'claimed'")               \
    X(PS_PURGE_PICK,                                                          \
      "SELECT id FROM " JOBS " WHERE state IN ('done', 'failed', "            \
      "'cancelled') AND finished_ms < $1::bigint ORDER BY seq LIMIT "         \
      "$2::bigint")                                                           \
    X(PS_PURGE_PATHS, "SELECT witness_path, proof_path FROM " PARTS           \
                      " WHERE job_id = $1::text")                             \
    X(PS_PURGE_JOB, "DELETE FROM " JOBS " WHERE id = $1::text AND state IN " \
                    "('done', 'failed', 'cancelled')")

enum {
#define STMT_ENUM(name, sql) name,
    STMT_MAP(STMT_ENUM)
#undef STMT_ENUM
        PS_COUNT
};

static const char *const stmt_sql[PS_COUNT] = {
#define STMT_SQL(name, sql) sql,
    STMT_MAP(STMT_SQL)
#undef STMT_SQL
};

typedef struct pg_store {
    pl__store base;
    PGconn *conn;
    pthread_mutex_t mu; /* guards conn, prepared, sqlstate */
    bool prepared[PS_COUNT];
    char sqlstate[6]; /* of the last failed statement */
    char name[256];   /* "postgres DB on HOST", for messages */
} pg_store;

static pg_store *pg(pl__store *store) { return (pg_store *)store; }

/* ---- errors and statements ---------------------------------------------- */

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
    return pl__error_set(err, code, "%s: %s: %s", s->name, what, text);
}

/* Runs prepared statement id with n text parameters (NULL: SQL NULL).
 * Returns the result (PQclear it) or NULL with err set. */
static PGresult *q(pg_store *s, int id, int n, const char *const *params,
                   const char *what, pl_error *err)
{
    char name[16];
    snprintf(name, sizeof(name), "pl_%d", id);
    if (!s->prepared[id]) {
        PGresult *res = PQprepare(s->conn, name, stmt_sql[id], 0, NULL);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            pg_error(s, res, "preparing a statement", err);
            PQclear(res);
            return NULL;
        }
        PQclear(res);
        s->prepared[id] = true;
    }
    PGresult *res = PQexecPrepared(s->conn, name, n, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        pg_error(s, res, what, err);
        PQclear(res);
        return NULL;
    }
    return res;
}

/* A statement whose result is only its row count (*rows, may be NULL). */
static pl_status q_run(pg_store *s, int id, int n, const char *const *params,
                       uint64_t *rows, const char *what, pl_error *err)
{
    PGresult *res = q(s, id, n, params, what, err);
    if (!res)
        return err->code;
    if (rows)
        *rows = strtoull(PQcmdTuples(res), NULL, 10);
    PQclear(res);
    return PL_OK;
}

/* A constant command (BEGIN, COMMIT, the schema). */
static pl_status exec_sql(pg_store *s, const char *sql, const char *what,
                          pl_error *err)
{
    PGresult *res = PQexec(s->conn, sql);
    ExecStatusType st = PQresultStatus(res);
    pl_status status = PL_OK;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        status = pg_error(s, res, what, err);
    PQclear(res);
    return status;
}

/* Decimal text of an integer, for a parameter. */
typedef struct num {
    char s[24];
} num;

static num i64(int64_t v)
{
    num n;
    snprintf(n.s, sizeof(n.s), "%" PRId64, v);
    return n;
}

static num u64(uint64_t v)
{
    return i64(v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}

static int64_t get_i64(const PGresult *res, int row, int col)
{
    return strtoll(PQgetvalue(res, row, col), NULL, 10);
}

static uint64_t get_u64(const PGresult *res, int row, int col)
{
    int64_t v = get_i64(res, row, col);
    return v < 0 ? 0 : (uint64_t)v;
}

/* ---- rows ----------------------------------------------------------------- */

static void read_circuit_at(const PGresult *r, int row, int off,
                            pl__store_circuit *c)
{
    memset(c, 0, sizeof(*c));
    pl__store_copy(c->id, sizeof(c->id), PQgetvalue(r, row, off + 0));
    pl__store_copy(c->zkey_path, sizeof(c->zkey_path),
                   PQgetvalue(r, row, off + 1));
    c->zkey_bytes = get_u64(r, row, off + 2);
    c->n_constraints = get_u64(r, row, off + 3);
    c->n_vars = get_u64(r, row, off + 4);
    c->n_public = get_u64(r, row, off + 5);
    c->witness_bytes = get_u64(r, row, off + 6);
    c->partition_bytes = get_u64(r, row, off + 7);
    c->created_unix_ms = get_i64(r, row, off + 8);
}

static void read_circuit(const PGresult *r, int row, pl__store_circuit *c)
{
    read_circuit_at(r, row, 0, c);
}

static void read_job_at(const PGresult *r, int row, int off,
                        pl__store_job *j)
{
    memset(j, 0, sizeof(*j));
    pl__store_copy(j->id, sizeof(j->id), PQgetvalue(r, row, off + 0));
    pl__store_copy(j->circuit_id, sizeof(j->circuit_id),
                   PQgetvalue(r, row, off + 1));
    int64_t p = get_i64(r, row, off + 2);
    j->priority = p >= 0 && p < PL__PRIORITY_COUNT ? (pl__priority)p
                                                   : PL__PRIORITY_NORMAL;
    pl__job_state js = PL__JOB_FAILED; /* the CHECK forbids other labels */
    pl__job_state_parse(&js, PQgetvalue(r, row, off + 3));
    j->state = js;
    j->n_partitions = (uint32_t)get_i64(r, row, off + 4);
    j->seq = get_u64(r, row, off + 5);
    j->created_unix_ms = get_i64(r, row, off + 6);
    j->updated_unix_ms = get_i64(r, row, off + 7);
    j->finished_unix_ms = get_i64(r, row, off + 8);
    pl__store_copy(j->error, sizeof(j->error), PQgetvalue(r, row, off + 9));
    j->deadline_unix_ms = get_i64(r, row, off + 12);
}

static void read_job(const PGresult *r, int row, pl__store_job *j)
{
    read_job_at(r, row, 0, j);
}

static void read_part_at(const PGresult *r, int row, int off,
                         pl__store_partition *p)
{
    memset(p, 0, sizeof(*p));
    pl__store_copy(p->job_id, sizeof(p->job_id), PQgetvalue(r, row, off + 0));
    p->index = (uint32_t)get_i64(r, row, off + 1);
    pl__part_state ps = PL__PART_FAILED;
    pl__part_state_parse(&ps, PQgetvalue(r, row, off + 2));
    p->state = ps;
    pl__store_copy(p->witness_path, sizeof(p->witness_path),
                   PQgetvalue(r, row, off + 3));
    pl__store_copy(p->proof_path, sizeof(p->proof_path),
                   PQgetvalue(r, row, off + 4));
    pl__store_copy(p->owner, sizeof(p->owner), PQgetvalue(r, row, off + 5));
    p->fence = get_u64(r, row, off + 6);
    p->lease_until_unix_ms = get_i64(r, row, off + 7);
    p->attempts = (uint32_t)get_i64(r, row, off + 8);
    p->completions = (uint32_t)get_i64(r, row, off + 9);
    p->claimed_unix_ms = get_i64(r, row, off + 10);
    p->finished_unix_ms = get_i64(r, row, off + 11);
    pl__store_copy(p->error, sizeof(p->error), PQgetvalue(r, row, off + 12));
}

static void read_part(const PGresult *r, int row, pl__store_partition *p)
{
    read_part_at(r, row, 0, p);
}

/* Job id into out (may be NULL); "unknown job" if absent. */
static pl_status get_job(pg_store *s, const char *id, pl__store_job *out,
                         pl_error *err)
{
    const char *p[] = {id};
    PGresult *r = q(s, PS_JOB_GET, 1, p, "reading a job", err);
    if (!r)
        return err->code;
    pl_status status = PL_OK;
    if (PQntuples(r) == 0)
        status = pl__error_set(err, PL_EUSAGE, "%s: unknown job %s", s->name,
                               id);
    else if (out)
        read_job(r, 0, out);
    PQclear(r);
    return status;
}

static pl_status get_circuit(pg_store *s, const char *id,
                             pl__store_circuit *out, pl_error *err)
{
    const char *p[] = {id};
    PGresult *r = q(s, PS_CIRCUIT_GET, 1, p, "reading a circuit", err);
    if (!r)
        return err->code;
    pl_status status = PL_OK;
    if (PQntuples(r) == 0)
        status = pl__error_set(err, PL_EUSAGE, "%s: unknown circuit %s",
                               s->name, id);
    else
        read_circuit(r, 0, out);
    PQclear(r);
    return status;
}

static pl_status get_part(pg_store *s, const char *job_id, uint32_t index,
                          pl__store_partition *out, pl_error *err)
{
    pl__store_job job;
    pl_status status = get_job(s, job_id, &job, err);
    if (status != PL_OK)
        return status;
    num k = i64(index);
    const char *p[] = {job_id, k.s};
    PGresult *r = q(s, PS_PART_GET, 2, p, "reading a partition", err);
    if (!r)
        return err->code;
    if (PQntuples(r) == 0)
        status = pl__error_set(err, PL_EUSAGE,
                               "%s: job %s has %u partitions: no partition %u",
                               s->name, job_id, job.n_partitions, index);
    else
        read_part(r, 0, out);
    PQclear(r);
    return status;
}

/* Locks every partition of job_id, in index order (see the top). */
static pl_status lock_parts(pg_store *s, const char *job_id, pl_error *err)
{
    const char *p[] = {job_id};
    return q_run(s, PS_PARTS_LOCK, 1, p, NULL, "locking a job's partitions",
                 err);
}

/* ---- transactions ----------------------------------------------------------- */

enum { TXN_WRITE, TXN_READ, TXN_NONE };

typedef pl_status (*txn_body)(pg_store *s, void *arg, pl_error *err);

/* A connection that broke is reset before the next call: the statements
 * it had prepared are gone with it.  A server that restarts refuses
 * connections for a moment (seconds, while it recovers), so this backs
 * off and tries again, 50 ms doubling to 1 s, for up to RECONNECT_MS in
 * all, before it reports the server gone (PL_EIO).  The lock is held
 * meanwhile: the handle's other callers would wait for the same server
 * anyway. */
static pl_status connected(pg_store *s, pl_error *err)
{
    if (PQstatus(s->conn) == CONNECTION_OK)
        return PL_OK;
    int64_t deadline = pl__store_now_ms() + RECONNECT_MS;
    long pause_ms = 50;
    for (;;) {
        PQreset(s->conn);
        memset(s->prepared, 0, sizeof(s->prepared));
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

static bool retryable(const pg_store *s)
{
    /* 40001 serialization_failure, 40P01 deadlock_detected */
    return strcmp(s->sqlstate, "40001") == 0 ||
           strcmp(s->sqlstate, "40P01") == 0;
}

/* Runs body in a transaction (kind), under the lock.  Retries it (up to
 * TXN_ATTEMPTS in all) when PostgreSQL aborted it for a deadlock or a
 * serialization failure, and when the connection broke before COMMIT was
 * sent (a server restart, a dropped network): then nothing was committed,
 * and the transaction runs again on a new connection.  A connection lost
 * during COMMIT is reported (PL_EIO): whether it committed is unknown, and
 * running it again could do it twice.  (The single statements of
 * TXN_NONE may all run again: each is idempotent or made safe twice: a
 * claim finds its own by its token, a completion recognises its own
 * result.) */
static pl_status txn(pg_store *s, int kind, txn_body body, void *arg,
                     pl_error *err)
{
    pthread_mutex_lock(&s->mu);
    pl_status status = connected(s, err);
    for (int attempt = 0; status == PL_OK && attempt < TXN_ATTEMPTS;
         attempt++) {
        s->sqlstate[0] = 0;
        bool committing = false;
        if (kind == TXN_WRITE)
            status = exec_sql(s, "BEGIN", "starting a transaction", err);
        else if (kind == TXN_READ)
            status = exec_sql(s,
                              "BEGIN ISOLATION LEVEL REPEATABLE READ READ "
                              "ONLY",
                              "starting a transaction", err);
        if (status == PL_OK)
            status = body(s, arg, err);
        if (kind != TXN_NONE) {
            if (status == PL_OK) {
                committing = true;
                status = exec_sql(s, "COMMIT", "committing", err);
            } else if (PQstatus(s->conn) == CONNECTION_OK &&
                       PQtransactionStatus(s->conn) != PQTRANS_IDLE) {
                pl_error ignored = {0};
                char keep[6];
                memcpy(keep, s->sqlstate, sizeof(keep));
                exec_sql(s, "ROLLBACK", "rolling back", &ignored);
                memcpy(s->sqlstate, keep, sizeof(keep));
            }
        }
        if (status == PL_OK || attempt + 1 == TXN_ATTEMPTS)
            break;
        if (PQstatus(s->conn) != CONNECTION_OK) {
            if (committing)
                break;
            pl_error lost = *err;
            if (connected(s, err) != PL_OK) {
                *err = lost; /* the first cause is the clearer */
                status = lost.code;
                break;
            }
        } else if (!retryable(s)) {
            break;
        }
        status = PL_OK; /* and again */
    }
    pthread_mutex_unlock(&s->mu);
    return status;
}

/* ---- circuits ------------------------------------------------------------------ */

static pl_status body_circuit_put(pg_store *s, void *arg, pl_error *err)
{
    const pl__store_circuit *c = arg;
    num n[7] = {u64(c->zkey_bytes),      u64(c->n_constraints),
                u64(c->n_vars),          u64(c->n_public),
                u64(c->witness_bytes),   u64(c->partition_bytes),
                i64(c->created_unix_ms)};
    const char *p[] = {c->id,  c->zkey_path, n[0].s, n[1].s, n[2].s,
                       n[3].s, n[4].s,       n[5].s, n[6].s};
    return q_run(s, PS_CIRCUIT_PUT, 9, p, NULL, "recording a circuit", err);
}

static pl_status pg_circuit_put(pl__store *store, const pl__store_circuit *c,
                                pl_error *err)
{
    return txn(pg(store), TXN_NONE, body_circuit_put, (void *)c, err);
}

typedef struct get_args {
    const char *id;
    void *out;
} get_args;

static pl_status body_circuit_get(pg_store *s, void *arg, pl_error *err)
{
    get_args *a = arg;
    return get_circuit(s, a->id, a->out, err);
}

static pl_status pg_circuit_get(pl__store *store, const char *id,
                                pl__store_circuit *out, pl_error *err)
{
    get_args a = {id, out};
    return txn(pg(store), TXN_NONE, body_circuit_get, &a, err);
}

/* One page of a listing. */
typedef struct page_args {
    int stmt;
    const char *after;   /* circuits: the last id read */
    int64_t before;      /* jobs: the last seq read */
    const char *state;   /* jobs: NULL for every state */
    void *rows;
    size_t n;
} page_args;

static pl_status body_page(pg_store *s, void *arg, pl_error *err)
{
    page_args *a = arg;
    num lim = i64(PL__STORE_LIST_PAGE), before = i64(a->before);
    const char *p[3];
    int n = 2;
    if (a->stmt == PS_CIRCUIT_PAGE) {
        p[0] = a->after;
    } else {
        p[0] = before.s;
        if (a->state)
            p[n++] = a->state;
    }
    p[1] = lim.s;
    PGresult *r = q(s, a->stmt, n, p, "listing", err);
    if (!r)
        return err->code;
    a->n = (size_t)PQntuples(r);
    for (size_t i = 0; i < a->n && i < PL__STORE_LIST_PAGE; i++) {
        if (a->stmt == PS_CIRCUIT_PAGE)
            read_circuit(r, (int)i, (pl__store_circuit *)a->rows + i);
        else
            read_job(r, (int)i, (pl__store_job *)a->rows + i);
    }
    PQclear(r);
    return PL_OK;
}

static pl_status pg_circuit_page(pl__store *store, const char *after,
                                 pl__store_circuit *rows, size_t *n,
                                 pl_error *err)
{
    page_args a = {.stmt = PS_CIRCUIT_PAGE, .after = after, .rows = rows};
    pl_status st = txn(pg(store), TXN_NONE, body_page, &a, err);
    *n = a.n;
    return st;
}

/* ---- jobs -------------------------------------------------------------------------- */

typedef struct create_args {
    const char *id, *circuit_id;
    pl__priority priority;
    uint32_t n;
    pl__store_job *out;
    bool *created; /* NULL: the id is random, new */
} create_args;

static pl_status body_job_create(pg_store *s, void *arg, pl_error *err)
{
    create_args *a = arg;
    pl__store_circuit c;
    if (a->created) {
        pl_error absent = {0};
        *a->created = false;
        if (get_job(s, a->id, a->out, &absent) == PL_OK)
            return PL_OK;
        if (!pl__store_is_not_found(&absent)) {
            *err = absent;
            return absent.code;
        }
        *a->created = true;
    }
    pl_status status = get_circuit(s, a->circuit_id, &c, err);
    if (status != PL_OK)
        return status;
    num prio = i64(a->priority), n = i64(a->n);
    const char *p[] = {a->id, a->circuit_id, prio.s, n.s};
    PGresult *r = q(s, PS_JOB_INSERT, 4, p, "recording a job", err);
    if (!r)
        return err->code;
    num seq = i64(get_i64(r, 0, 0));
    PQclear(r);
    num bytes = u64(c.partition_bytes);
    const char *pp[] = {a->id, prio.s, seq.s, bytes.s, n.s};
    status = q_run(s, PS_PARTS_INSERT, 5, pp, NULL,
                   "recording a job's partitions", err);
    if (status == PL_OK)
        status = get_job(s, a->id, a->out, err);
    return status;
}

static pl_status pg_job_create(pl__store *store, const char *circuit_id,
                               pl__priority priority, uint32_t n_partitions,
                               pl__store_job *out, pl_error *err)
{
    char id[PL__STORE_JOB_ID_LEN + 1];
    pl_status status = pl__store_new_job_id(id, err);
    if (status != PL_OK)
        return status;
    create_args a = {id, circuit_id, priority, n_partitions, out, NULL};
    return txn(pg(store), TXN_WRITE, body_job_create, &a, err);
}

static pl_status body_job_get(pg_store *s, void *arg, pl_error *err);

/* With the caller's id.  Two workers given one id at once both find it
 * absent; the primary key lets one insert, the other's fails (a unique
 * violation), and that one then reads the job the first made. */
static pl_status pg_job_create_with_id(pl__store *store, const char *id,
                                       const char *circuit_id,
                                       pl__priority priority,
                                       uint32_t n_partitions,
                                       pl__store_job *out, bool *created,
                                       pl_error *err)
{
    create_args a = {id, circuit_id, priority, n_partitions, out, created};
    pl_status status = txn(pg(store), TXN_WRITE, body_job_create, &a, err);
    if (status != PL_OK) {
        get_args g = {id, out};
        pl_error again = {0};
        if (txn(pg(store), TXN_NONE, body_job_get, &g, &again) == PL_OK) {
            *created = false;
            return PL_OK;
        }
    }
    return status;
}

typedef struct part_args {
    const char *job_id;
    uint32_t index;
    const char *owner;
    uint64_t fence;
    const char *text; /* a path or a message */
    pl__store_job *job_out;
    bool *flag;
} part_args;

static pl_status body_witness_stored(pg_store *s, void *arg, pl_error *err)
{
    part_args *a = arg;
    pl__store_job job;
    /* The job's partitions first: witnesses of one job are recorded one
     * at a time, so the last one sees every other, and may queue them. */
    pl_status status = lock_parts(s, a->job_id, err);
    if (status == PL_OK)
        status = get_job(s, a->job_id, &job, err);
    pl__store_partition part;
    if (status == PL_OK)
        status = get_part(s, a->job_id, a->index, &part, err);
    if (status == PL_OK && job.state != PL__JOB_RECEIVING)
        return pl__error_set(
            err, PL_EUSAGE, "%s: job %s is %s: it takes no more witnesses",
            s->name, a->job_id, pl__job_state_name(job.state));
    if (status == PL_OK && part.witness_path[0])
        return pl__error_set(err, PL_EUSAGE,
                             "%s: job %s: partition %u already has its "
                             "witness",
                             s->name, a->job_id, a->index);
    num k = i64(a->index);
    const char *p[] = {a->job_id, k.s, a->text};
    if (status == PL_OK)
        status = q_run(s, PS_PART_WITNESS, 3, p, NULL, "recording a witness",
                       err);
    if (status == PL_OK)
        status = q_run(s, PS_JOB_WITNESS, 1, p, NULL, "recording a witness",
                       err);
    if (status == PL_OK)
        status = get_job(s, a->job_id, &job, err);
    /* The last witness: the job and all its partitions queue together. */
    if (status == PL_OK && job.state == PL__JOB_QUEUED)
        status = q_run(s, PS_PARTS_QUEUE, 1, p, NULL, "queueing a job", err);
    if (status == PL_OK && a->job_out)
        *a->job_out = job;
    return status;
}

static pl_status pg_witness_stored(pl__store *store, const char *job_id,
                                   uint32_t index, const char *witness_path,
                                   pl__store_job *job_out, pl_error *err)
{
    part_args a = {.job_id = job_id, .index = index, .text = witness_path,
                   .job_out = job_out};
    return txn(pg(store), TXN_WRITE, body_witness_stored, &a, err);
}

static pl_status body_job_get(pg_store *s, void *arg, pl_error *err)
{
    get_args *a = arg;
    return get_job(s, a->id, a->out, err);
}

static pl_status pg_job_get(pl__store *store, const char *job_id,
                            pl__store_job *out, pl_error *err)
{
    get_args a = {job_id, out};
    return txn(pg(store), TXN_NONE, body_job_get, &a, err);
}

typedef struct parts_args {
    const char *job_id;
    pl__store_partition *out;
    size_t cap, *count;
} parts_args;

static pl_status body_partitions(pg_store *s, void *arg, pl_error *err)
{
    parts_args *a = arg;
    pl__store_job job;
    pl_status status = get_job(s, a->job_id, &job, err);
    if (status != PL_OK)
        return status;
    *a->count = job.n_partitions;
    num cap = u64(a->cap);
    const char *p[] = {a->job_id, cap.s};
    PGresult *r = q(s, PS_PARTS_PAGE, 2, p, "reading partitions", err);
    if (!r)
        return err->code;
    for (int i = 0; i < PQntuples(r) && (size_t)i < a->cap; i++)
        read_part(r, i, &a->out[i]);
    PQclear(r);
    return PL_OK;
}

static pl_status pg_partitions(pl__store *store, const char *job_id,
                               pl__store_partition *out, size_t cap,
                               size_t *count, pl_error *err)
{
    parts_args a = {job_id, out, cap, count};
    return txn(pg(store), TXN_READ, body_partitions, &a, err);
}

static pl_status pg_job_page(pl__store *store, int state, int64_t before,
                             pl__store_job *rows, size_t *n, pl_error *err)
{
    page_args a = {
        .stmt = state < 0 ? PS_JOB_PAGE : PS_JOB_PAGE_STATE,
        .before = before,
        .state = state < 0 ? NULL : pl__job_state_name((pl__job_state)state),
        .rows = rows};
    pl_status st = txn(pg(store), TXN_NONE, body_page, &a, err);
    *n = a.n;
    return st;
}

static pl_status body_job_end(pg_store *s, void *arg, pl_error *err)
{
    part_args *a = arg;
    pl__store_job job;
    *a->flag = false;
    pl_status status = lock_parts(s, a->job_id, err);
    if (status == PL_OK)
        status = get_job(s, a->job_id, &job, err);
    if (status != PL_OK || job.state > PL__JOB_RUNNING)
        return status;
    const char *p[] = {a->job_id, a->text ? "failed" : "cancelled",
                       a->text ? a->text : ""};
    status = q_run(s, PS_JOB_END, 3, p, NULL, "ending a job", err);
    if (status == PL_OK)
        status = q_run(s, PS_PARTS_CANCEL, 1, p, NULL, "ending a job", err);
    *a->flag = status == PL_OK;
    return status;
}

static pl_status pg_job_end(pl__store *store, const char *job_id,
                            const char *fail_msg, bool *changed,
                            pl_error *err)
{
    part_args a = {.job_id = job_id, .text = fail_msg, .flag = changed};
    pl_status status = txn(pg(store), TXN_WRITE, body_job_end, &a, err);
    if (status != PL_OK)
        *changed = false;
    return status;
}

typedef struct deadline_args {
    const char *job_id;
    int64_t deadline_unix_ms;
} deadline_args;

static pl_status body_job_set_deadline(pg_store *s, void *arg, pl_error *err)
{
    deadline_args *a = arg;
    /* Read first: an unknown id is "unknown job" (404), not a silent
     * update of no row. */
    pl_status status = get_job(s, a->job_id, NULL, err);
    if (status != PL_OK)
        return status;
    num d = i64(a->deadline_unix_ms);
    const char *p[] = {a->job_id, d.s};
    return q_run(s, PS_JOB_DEADLINE, 2, p, NULL, "setting a job's deadline",
                 err);
}

static pl_status pg_job_set_deadline(pl__store *store, const char *job_id,
                                     int64_t deadline_unix_ms, pl_error *err)
{
    deadline_args a = {job_id, deadline_unix_ms};
    return txn(pg(store), TXN_WRITE, body_job_set_deadline, &a, err);
}

/* ---- claims ---------------------------------------------------------------------- */

typedef struct claim_args {
    const char *owner;
    uint64_t max_bytes;
    int64_t lease_ms;
    pl__store_claim *out;
    bool *found;
    char claim_id[PL__STORE_JOB_ID_LEN + 1]; /* this call's token */
    int runs;
} claim_args;

static void read_claim(const PGresult *r, pl__store_claim *out)
{
    read_part_at(r, 0, 0, &out->part);
    read_job_at(r, 0, PART_NCOLS, &out->job);
    read_circuit_at(r, 0, PART_NCOLS + JOB_NCOLS, &out->circuit);
    if (out->job.state == PL__JOB_QUEUED)
        out->job.state = PL__JOB_RUNNING; /* by this very statement */
}

/* One statement, no transaction around it: one round trip per claim.
 * When txn runs it again (its connection broke), the first run may have
 * committed: its token finds that claim, rather than taking a second
 * partition that nobody would work on while the heartbeats renew it. */
static pl_status body_claim(pg_store *s, void *arg, pl_error *err)
{
    claim_args *a = arg;
    *a->found = false;
    PGresult *r;
    if (a->runs++ > 0) {
        const char *pf[] = {a->owner, a->claim_id};
        r = q(s, PS_CLAIM_FIND, 2, pf, "claiming a partition", err);
        if (!r)
            return err->code;
        if (PQntuples(r) == 1) {
            read_claim(r, a->out);
            *a->found = true;
            PQclear(r);
            return PL_OK;
        }
        PQclear(r);
    }
    num bytes = u64(a->max_bytes), lease = i64(a->lease_ms);
    const char *p[] = {bytes.s, a->owner, lease.s, a->claim_id};
    r = q(s, PS_CLAIM, 4, p, "claiming a partition", err);
    if (!r)
        return err->code;
    if (PQntuples(r) == 1) {
        read_claim(r, a->out);
        *a->found = true;
    }
    PQclear(r);
    return PL_OK;
}

static pl_status pg_claim_next(pl__store *store, const char *owner,
                               uint64_t max_bytes, int64_t lease_ms,
                               pl__store_claim *out, bool *found,
                               pl_error *err)
{
    claim_args a = {.owner = owner, .max_bytes = max_bytes,
                    .lease_ms = lease_ms, .out = out, .found = found};
    pl_status status = pl__store_new_job_id(a.claim_id, err);
    if (status == PL_OK)
        status = txn(pg(store), TXN_NONE, body_claim, &a, err);
    if (status != PL_OK || !*found) {
        *found = false;
        memset(out, 0, sizeof(*out));
    }
    return status;
}

static pl_status body_heartbeat(pg_store *s, void *arg, pl_error *err)
{
    claim_args *a = arg;
    num lease = i64(a->lease_ms);
    const char *p[] = {a->owner, lease.s};
    return q_run(s, PS_HEARTBEAT, 2, p, NULL, "renewing leases", err);
}

static pl_status pg_heartbeat(pl__store *store, const char *owner,
                              int64_t lease_ms, pl_error *err)
{
    claim_args a = {.owner = owner, .lease_ms = lease_ms};
    return txn(pg(store), TXN_NONE, body_heartbeat, &a, err);
}

static pl_status body_claim_live(pg_store *s, void *arg, pl_error *err)
{
    part_args *a = arg;
    num k = i64(a->index), f = u64(a->fence);
    const char *p[] = {a->job_id, k.s, a->owner, f.s};
    PGresult *r = q(s, PS_CLAIM_LIVE, 4, p, "reading a claim", err);
    if (!r)
        return err->code;
    *a->flag = PQntuples(r) > 0;
    PQclear(r);
    return PL_OK;
}

static pl_status pg_claim_live(pl__store *store, const char *job_id,
                               uint32_t index, const char *owner,
                               uint64_t fence, bool *live, pl_error *err)
{
    part_args a = {.job_id = job_id, .index = index, .owner = owner,
                   .fence = fence, .flag = live};
    return txn(pg(store), TXN_NONE, body_claim_live, &a, err);
}

/* The claim's update (it matches only the live claim), then, if it
 * matched, the job's. */
typedef struct end_args {
    part_args part;
    int part_stmt, job_stmt;
    const char *what;
} end_args;

static pl_status body_end_claim(pg_store *s, void *arg, pl_error *err)
{
    end_args *e = arg;
    part_args *a = &e->part;
    num k = i64(a->index), f = u64(a->fence);
    const char *p[] = {a->job_id, k.s, a->owner, f.s, a->text};
    uint64_t rows = 0;
    pl_status status = PL_OK;
    /* A failure cancels the job's other partitions: it locks them all
     * first. */
    if (e->job_stmt == PS_JOB_FAIL)
        status = lock_parts(s, a->job_id, err);
    if (status == PL_OK)
        status = q_run(s, e->part_stmt, e->part_stmt == PS_RELEASE ? 4 : 5,
                             p, &rows, e->what, err);
    if (status == PL_OK && rows == 0) {
        pl__store_partition part;
        status = get_part(s, a->job_id, a->index, &part, err);
        if (status == PL_OK)
            status = pl__error_set(
                err, PL_ECANCELLED,
                "%s: job %s partition %u: the claim was lost (owner %s, "
                "fence %llu; the partition is %s, owner %s, fence %llu)",
                s->name, a->job_id, a->index, a->owner,
                (unsigned long long)a->fence, pl__part_state_name(part.state),
                part.owner[0] ? part.owner : "none",
                (unsigned long long)part.fence);
    }
    const char *pj[] = {a->job_id, a->text};
    if (status == PL_OK && e->job_stmt >= 0)
        status = q_run(s, e->job_stmt, e->job_stmt == PS_JOB_FAIL ? 2 : 1, pj,
                       NULL, e->what, err);
    if (status == PL_OK && e->job_stmt == PS_JOB_FAIL)
        status = q_run(s, PS_PARTS_CANCEL_PENDING, 1, pj, NULL, e->what, err);
    return status;
}

static pl_status end_claim(pl__store *store, int part_stmt, int job_stmt,
                           const char *job_id, uint32_t index,
                           const char *owner, uint64_t fence,
                           const char *text, const char *what, pl_error *err)
{
    end_args e = {{.job_id = job_id, .index = index, .owner = owner,
                   .fence = fence, .text = text},
                  part_stmt, job_stmt, what};
    return txn(pg(store), TXN_WRITE, body_end_claim, &e, err);
}

/* One statement, no transaction around it.  No row changed: either the
 * claim was lost, or an earlier run of this very call committed before
 * its connection broke (txn runs it again): the partition is then done
 * with this owner, fence and proof, and that is success. */
static pl_status body_complete(pg_store *s, void *arg, pl_error *err)
{
    part_args *a = arg;
    num k = i64(a->index), f = u64(a->fence);
    const char *p[] = {a->job_id, k.s, a->owner, f.s, a->text};
    PGresult *r = q(s, PS_COMPLETE, 5, p, "recording a proof", err);
    if (!r)
        return err->code;
    /* the statement's own view: a job is done only once all its
     * partitions are, so 'done' here means this completion, the last,
     * made it so */
    int rows = PQntuples(r);
    if (rows == 1 && a->flag)
        *a->flag = strcmp(PQgetvalue(r, 0, 0), "done") == 0;
    PQclear(r);
    if (rows == 1)
        return PL_OK;
    pl__store_partition part;
    pl_status status = get_part(s, a->job_id, a->index, &part, err);
    if (status != PL_OK)
        return status;
    if (part.state == PL__PART_DONE && strcmp(part.owner, a->owner) == 0 &&
        part.fence == a->fence && strcmp(part.proof_path, a->text) == 0) {
        /* our completion committed, its answer lost with a connection:
         * whether it ended the job is read now.  The completion that
         * ends a job stamps the job and its partition with one now(), so
         * equal times say it was ours; a completion of another partition
         * in the same millisecond would say so too (a rare double count,
         * never a missed one) */
        pl__store_job job;
        status = get_job(s, a->job_id, &job, err);
        if (status == PL_OK && a->flag)
            *a->flag = job.state == PL__JOB_DONE &&
                       job.finished_unix_ms == part.finished_unix_ms;
        return status;
    }
    return pl__error_set(
        err, PL_ECANCELLED,
        "%s: job %s partition %u: the claim was lost (owner %s, fence %llu; "
        "the partition is %s, owner %s, fence %llu)",
        s->name, a->job_id, a->index, a->owner, (unsigned long long)a->fence,
        pl__part_state_name(part.state), part.owner[0] ? part.owner : "none",
        (unsigned long long)part.fence);
}

static pl_status pg_complete(pl__store *store, const char *job_id,
                             uint32_t index, const char *owner, uint64_t fence,
                             const char *proof_path, bool *job_done,
                             pl_error *err)
{
    part_args a = {.job_id = job_id, .index = index, .owner = owner,
                   .fence = fence, .text = proof_path, .flag = job_done};
    return txn(pg(store), TXN_NONE, body_complete, &a, err);
}

typedef struct fail_args {
    part_args part;
    bool retry;
    uint32_t max_attempts;
    bool *requeued;
    /* recovery: the claim is taken back only if its lease has lapsed by
     * this time (the database's), or it is the restarting owner's */
    int64_t lapsed_by;
    bool own;
} fail_args;

/* A failed attempt: kept in attempts, then the partition requeued (a
 * retry) or ended with its job.  The job's partitions are locked first
 * (a final failure cancels the others), then the claim is checked. */
static pl_status body_fail(pg_store *s, void *arg, pl_error *err)
{
    fail_args *f = arg;
    part_args *a = &f->part;
    const char *what = "recording a failure";
    *f->requeued = false;
    pl_status status = lock_parts(s, a->job_id, err);
    pl__store_partition part;
    if (status == PL_OK)
        status = get_part(s, a->job_id, a->index, &part, err);
    if (status != PL_OK)
        return status;
    if (part.state != PL__PART_CLAIMED || strcmp(part.owner, a->owner) != 0 ||
        part.fence != a->fence ||
        (f->lapsed_by && !f->own && part.lease_until_unix_ms > f->lapsed_by))
        return pl__error_set(
            err, PL_ECANCELLED,
            "%s: job %s partition %u: the claim was lost (owner %s, fence "
            "%llu; the partition is %s, owner %s, fence %llu)",
            s->name, a->job_id, a->index, a->owner,
            (unsigned long long)a->fence, pl__part_state_name(part.state),
            part.owner[0] ? part.owner : "none",
            (unsigned long long)part.fence);
    num k = i64(a->index), fence = u64(a->fence);
    const char *pc[] = {a->job_id, k.s};
    PGresult *r = q(s, PS_ATTEMPT_COUNT, 2, pc, what, err);
    if (!r)
        return err->code;
    int64_t n = get_i64(r, 0, 0) + 1; /* this attempt */
    PQclear(r);
    const char *p[] = {a->job_id, k.s, a->owner, fence.s, a->text};
    if (f->retry && n < (int64_t)f->max_attempts) {
        r = q(s, PS_PART_RETRY, 5, p, what, err);
        if (!r)
            return err->code;
        /* A job that ended meanwhile cancels it instead. */
        *f->requeued =
            PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "queued") == 0;
        PQclear(r);
    } else {
        char job_msg[PL__STORE_MSG_MAX];
        if (n > 1) {
            char longer[PL__STORE_MSG_MAX + 64];
            snprintf(longer, sizeof(longer), "after %lld attempts: %s",
                     (long long)n, a->text);
            pl__store_message(job_msg, longer);
        } else {
            pl__store_copy(job_msg, sizeof(job_msg), a->text);
        }
        const char *pj[] = {a->job_id, job_msg};
        status = q_run(s, PS_PART_FAIL, 5, p, NULL, what, err);
        if (status == PL_OK)
            status = q_run(s, PS_JOB_FAIL, 2, pj, NULL, what, err);
        if (status == PL_OK)
            status = q_run(s, PS_PARTS_CANCEL_PENDING, 1, pj, NULL, what,
                           err);
    }
    num attempt = i64(n);
    const char *pa[] = {a->job_id, k.s, attempt.s, a->owner, fence.s,
                        *f->requeued ? "true" : "false", a->text};
    if (status == PL_OK)
        status = q_run(s, PS_ATTEMPT_INSERT, 7, pa, NULL, what, err);
    return status;
}

static pl_status pg_fail(pl__store *store, const char *job_id, uint32_t index,
                         const char *owner, uint64_t fence, const char *msg,
                         bool retry, uint32_t max_attempts, bool *requeued,
                         pl_error *err)
{
    fail_args f = {{.job_id = job_id, .index = index, .owner = owner,
                    .fence = fence, .text = msg},
                   retry, max_attempts, requeued, 0, false};
    return txn(pg(store), TXN_WRITE, body_fail, &f, err);
}

typedef struct attempts_args {
    const char *job_id;
    pl__store_attempt *out;
    size_t cap, *count;
} attempts_args;

static pl_status body_attempts(pg_store *s, void *arg, pl_error *err)
{
    attempts_args *a = arg;
    pl_status status = get_job(s, a->job_id, NULL, err);
    if (status != PL_OK)
        return status;
    const char *p1[] = {a->job_id};
    PGresult *r = q(s, PS_ATTEMPTS_COUNT, 1, p1, "reading attempts", err);
    if (!r)
        return err->code;
    *a->count = get_u64(r, 0, 0);
    PQclear(r);
    num cap = u64(a->cap);
    const char *p[] = {a->job_id, cap.s};
    r = q(s, PS_ATTEMPTS_PAGE, 2, p, "reading attempts", err);
    if (!r)
        return err->code;
    for (int i = 0; i < PQntuples(r) && (size_t)i < a->cap; i++) {
        pl__store_attempt *t = &a->out[i];
        memset(t, 0, sizeof(*t));
        pl__store_copy(t->job_id, sizeof(t->job_id), PQgetvalue(r, i, 0));
        t->index = (uint32_t)get_i64(r, i, 1);
        t->attempt = (uint32_t)get_i64(r, i, 2);
        pl__store_copy(t->owner, sizeof(t->owner), PQgetvalue(r, i, 3));
        t->fence = get_u64(r, i, 4);
        t->retried = strcmp(PQgetvalue(r, i, 5), "t") == 0;
        t->at_unix_ms = get_i64(r, i, 6);
        pl__store_copy(t->error, sizeof(t->error), PQgetvalue(r, i, 7));
    }
    PQclear(r);
    return PL_OK;
}

static pl_status pg_attempts(pl__store *store, const char *job_id,
                             pl__store_attempt *out, size_t cap,
                             size_t *count, pl_error *err)
{
    attempts_args a = {job_id, out, cap, count};
    return txn(pg(store), TXN_READ, body_attempts, &a, err);
}

/* ---- workers ------------------------------------------------------------------ */

typedef struct worker_args {
    const pl__store_worker *w;
    bool fresh;
    int64_t lease_ms;
} worker_args;

/* Register: one statement.  Heartbeat: one statement too (the row and
 * the leases), one round trip per tick however many workers there are. */
static pl_status body_worker_put(pg_store *s, void *arg, pl_error *err)
{
    worker_args *a = arg;
    const pl__store_worker *w = a->w;
    num pid = i64(w->pid), budget = u64(w->budget_bytes),
        reserved = u64(w->reserved_bytes), lease = i64(a->lease_ms);
    /* $9: "true" (a fresh start) for PS_WORKER_PUT, the lease for
     * PS_WORKER_BEAT. */
    const char *p[] = {w->id,    w->host,   pid.s,      w->backend,
                       w->gpus,  budget.s,  reserved.s,
                       w->status_json[0] ? w->status_json : "{}",
                       a->fresh ? "true" : lease.s};
    if (a->fresh)
        return q_run(s, PS_WORKER_PUT, 9, p, NULL, "recording a worker",
                     err);
    PGresult *r = q(s, PS_WORKER_BEAT, 9, p, "recording a heartbeat", err);
    if (!r)
        return err->code;
    PQclear(r);
    return PL_OK;
}

static pl_status pg_worker_put(pl__store *store, const pl__store_worker *w,
                               bool fresh, int64_t lease_ms, pl_error *err)
{
    worker_args a = {w, fresh, lease_ms};
    return txn(pg(store), TXN_NONE, body_worker_put, &a, err);
}

static pl_status body_worker_gone(pg_store *s, void *arg, pl_error *err)
{
    const char *p[] = {arg};
    return q_run(s, PS_WORKER_GONE, 1, p, NULL, "recording a worker's exit",
                 err);
}

static pl_status pg_worker_gone(pl__store *store, const char *id,
                                pl_error *err)
{
    return txn(pg(store), TXN_NONE, body_worker_gone, (void *)id, err);
}

typedef struct wpage_args {
    const char *after;
    pl__store_worker *rows;
    size_t n;
} wpage_args;

static pl_status body_worker_page(pg_store *s, void *arg, pl_error *err)
{
    wpage_args *a = arg;
    num lim = i64(PL__STORE_LIST_PAGE);
    const char *p[] = {a->after, lim.s};
    PGresult *r = q(s, PS_WORKER_PAGE, 2, p, "listing workers", err);
    if (!r)
        return err->code;
    a->n = 0;
    for (int i = 0; i < PQntuples(r) && a->n < PL__STORE_LIST_PAGE; i++) {
        pl__store_worker *w = &a->rows[a->n++];
        memset(w, 0, sizeof(*w));
        pl__store_copy(w->id, sizeof(w->id), PQgetvalue(r, i, 0));
        pl__store_copy(w->host, sizeof(w->host), PQgetvalue(r, i, 1));
        w->pid = get_i64(r, i, 2);
        pl__store_copy(w->backend, sizeof(w->backend), PQgetvalue(r, i, 3));
        pl__store_copy(w->gpus, sizeof(w->gpus), PQgetvalue(r, i, 4));
        w->budget_bytes = get_u64(r, i, 5);
        w->reserved_bytes = get_u64(r, i, 6);
        pl__store_copy(w->status_json, sizeof(w->status_json),
                       PQgetvalue(r, i, 7));
        w->gone = strcmp(PQgetvalue(r, i, 8), "t") == 0;
        w->started_unix_ms = get_i64(r, i, 9);
        w->heartbeat_unix_ms = get_i64(r, i, 10);
        w->age_ms = get_i64(r, i, 11);
    }
    PQclear(r);
    return PL_OK;
}

static pl_status pg_worker_page(pl__store *store, const char *after,
                                pl__store_worker *rows, size_t *n,
                                pl_error *err)
{
    wpage_args a = {.after = after, .rows = rows};
    pl_status st = txn(pg(store), TXN_NONE, body_worker_page, &a, err);
    *n = a.n;
    return st;
}

static pl_status pg_release(pl__store *store, const char *job_id,
                            uint32_t index, const char *owner, uint64_t fence,
                            pl_error *err)
{
    return end_claim(store, PS_RELEASE, -1, job_id, index, owner, fence, NULL,
                     "releasing a claim", err);
}

typedef struct recover_args {
    const char *owner;
    uint32_t max_attempts;
    uint64_t *requeued;
} recover_args;

/* Each claim taken back is a failed attempt (its worker died, stalled or
 * lost the store while it held the partition), through body_fail: so a
 * partition that kills every worker taking it (the OOM killer, a driver
 * crash) ends after max_attempts instead of going round the farm for
 * ever.  The candidates are read first, then each is locked with its
 * job's partitions and checked again (a heartbeat may have renewed it
 * meanwhile: then it stays). */
static pl_status body_recover(pg_store *s, void *arg, pl_error *err)
{
    recover_args *a = arg;
    *a->requeued = 0;
    PGresult *now = q(s, PS_NOW, 0, NULL, "recovering claims", err);
    if (!now)
        return err->code;
    int64_t now_ms = get_i64(now, 0, 0);
    PQclear(now);
    const char *p[] = {a->owner}; /* NULL: SQL NULL, which matches no one */
    PGresult *r = q(s, PS_RECOVER_PICK, 1, p, "recovering claims", err);
    if (!r)
        return err->code;
    pl_status status = PL_OK;
    for (int i = 0; i < PQntuples(r) && status == PL_OK; i++) {
        const char *job_id = PQgetvalue(r, i, 0), *owner = PQgetvalue(r, i, 2);
        uint32_t index = (uint32_t)get_i64(r, i, 1);
        bool own = a->owner && strcmp(owner, a->owner) == 0;
        char msg[PL__STORE_MSG_MAX];
        snprintf(msg, sizeof(msg),
                 own ? "job %s partition %u: its worker %.100s restarted "
                       "while it held the partition"
                     : "job %s partition %u: the lease of worker %.100s "
                       "lapsed (it died, stalled or lost the store)",
                 job_id, index, owner);
        bool again = false;
        fail_args f = {{.job_id = job_id, .index = index, .owner = owner,
                        .fence = get_u64(r, i, 3), .text = msg},
                       true, a->max_attempts, &again, now_ms, own};
        status = body_fail(s, &f, err);
        if (status == PL_ECANCELLED) /* renewed, ended or taken meanwhile */
            status = PL_OK;
        *a->requeued += again;
    }
    PQclear(r);
    return status;
}

static pl_status pg_recover(pl__store *store, const char *owner,
                            uint32_t max_attempts, uint64_t *requeued,
                            pl_error *err)
{
    recover_args a = {owner, max_attempts, requeued};
    pl_status status = txn(pg(store), TXN_WRITE, body_recover, &a, err);
    if (status != PL_OK)
        *requeued = 0;
    return status;
}

/* ---- counts and purge ---------------------------------------------------------- */

static pl_status body_counts(pg_store *s, void *arg, pl_error *err)
{
    pl__store_counts *out = arg;
    memset(out, 0, sizeof(*out));
    static const int ids[] = {PS_COUNT_JOBS, PS_COUNT_QUEUED,
                              PS_COUNT_CLAIMED};
    for (int i = 0; i < 3; i++) {
        PGresult *r = q(s, ids[i], 0, NULL, "counting", err);
        if (!r)
            return err->code;
        for (int row = 0; row < PQntuples(r); row++) {
            if (ids[i] == PS_COUNT_JOBS) {
                pl__job_state js;
                if (pl__job_state_parse(&js, PQgetvalue(r, row, 0)))
                    out->jobs[js] = get_u64(r, row, 1);
            } else if (ids[i] == PS_COUNT_QUEUED) {
                int64_t p = get_i64(r, row, 0);
                if (p >= 0 && p < PL__PRIORITY_COUNT)
                    out->queued_partitions[p] = get_u64(r, row, 1);
            } else {
                out->claimed_partitions = get_u64(r, row, 0);
            }
        }
        PQclear(r);
    }
    return PL_OK;
}

static pl_status pg_counts_read(pl__store *store, pl__store_counts *out,
                                pl_error *err)
{
    return txn(pg(store), TXN_READ, body_counts, out, err);
}

#define PURGE_BATCH 32

typedef struct purge_args {
    int64_t cutoff;
    size_t picked, n; /* jobs chosen, jobs removed */
    pl__store_paths paths;
} purge_args;

static pl_status body_purge(pg_store *s, void *arg, pl_error *err)
{
    purge_args *a = arg;
    /* a retried transaction starts over */
    pl__store_paths_truncate(&a->paths, 0);
    a->n = 0;
    num cutoff = i64(a->cutoff), lim = i64(PURGE_BATCH);
    const char *p[] = {cutoff.s, lim.s};
    PGresult *ids = q(s, PS_PURGE_PICK, 2, p, "choosing jobs to purge", err);
    if (!ids)
        return err->code;
    pl_status status = PL_OK;
    int n = PQntuples(ids);
    for (int i = 0; i < n && status == PL_OK; i++) {
        const char *pj[] = {PQgetvalue(ids, i, 0)};
        status = lock_parts(s, pj[0], err);
        if (status != PL_OK)
            break;
        size_t mark = a->paths.n;
        PGresult *r = q(s, PS_PURGE_PATHS, 1, pj, "purging", err);
        if (!r) {
            status = err->code;
            break;
        }
        for (int row = 0; row < PQntuples(r) && status == PL_OK; row++)
            if (!pl__store_paths_add(&a->paths, PQgetvalue(r, row, 0)) ||
                !pl__store_paths_add(&a->paths, PQgetvalue(r, row, 1)))
                status = pl__error_set(err, PL_ENOMEM, "%s: purging",
                                       s->name);
        PQclear(r);
        /* The job's row goes, its partitions with it (ON DELETE CASCADE);
         * none if another purge took it meanwhile. */
        uint64_t gone = 0;
        if (status == PL_OK)
            status = q_run(s, PS_PURGE_JOB, 1, pj, &gone, "purging", err);
        if (status == PL_OK && gone)
            a->n++;
        if (status == PL_OK && !gone)
            pl__store_paths_truncate(&a->paths, mark);
    }
    PQclear(ids);
    a->picked = (size_t)n;
    return status;
}

static pl_status body_purge_workers(pg_store *s, void *arg, pl_error *err)
{
    const char *p[] = {arg};
    return q_run(s, PS_PURGE_WORKERS, 1, p, NULL, "purging workers", err);
}

static pl_status pg_purge(pl__store *store, int64_t cutoff_unix_ms,
                          pl__store_path_fn fn, void *user, uint64_t *removed,
                          pl_error *err)
{
    purge_args a = {.cutoff = cutoff_unix_ms};
    pl_status status = PL_OK;
    for (bool more = true; more && status == PL_OK;) {
        status = txn(pg(store), TXN_WRITE, body_purge, &a, err);
        if (status != PL_OK)
            break;
        /* After the commit: a record never names a file already gone. */
        *removed += a.n;
        for (size_t i = 0; fn && i < a.paths.n; i++)
            fn(user, a.paths.v[i]);
        more = a.picked == PURGE_BATCH;
    }
    pl__store_paths_free(&a.paths);
    /* Workers silent since before the cutoff (gone, or dead long ago). */
    if (status == PL_OK) {
        num cutoff = i64(cutoff_unix_ms);
        status = txn(pg(store), TXN_NONE, body_purge_workers, cutoff.s, err);
    }
    return status;
}

/* ---- open and close ---------------------------------------------------------- */

static void pg_close(pl__store *store)
{
    pg_store *s = pg(store);
    PQfinish(s->conn);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static const pl__store_ops pg_ops = {
    .name = "postgres",
    .close = pg_close,
    .circuit_put = pg_circuit_put,
    .circuit_get = pg_circuit_get,
    .circuit_page = pg_circuit_page,
    .job_create = pg_job_create,
    .job_create_with_id = pg_job_create_with_id,
    .witness_stored = pg_witness_stored,
    .job_get = pg_job_get,
    .partitions = pg_partitions,
    .job_page = pg_job_page,
    .job_end = pg_job_end,
    .job_set_deadline = pg_job_set_deadline,
    .claim_next = pg_claim_next,
    .heartbeat = pg_heartbeat,
    .claim_live = pg_claim_live,
    .complete = pg_complete,
    .fail = pg_fail,
    .release = pg_release,
    .recover = pg_recover,
    .attempts = pg_attempts,
    .worker_put = pg_worker_put,
    .worker_gone = pg_worker_gone,
    .worker_page = pg_worker_page,
    .counts_read = pg_counts_read,
    .purge = pg_purge,
};

/* The server's notices ("schema already exists, skipping") are not the
 * service's messages. */
static void no_notices(void *arg, const char *message) {}

/* Creates the schema on an empty database or migrates an older one up to
 * m->target, under the advisory lock. */
typedef struct migrate_args {
    int target;
    int *before;
} migrate_args;

static pl_status body_migrate(pg_store *s, void *arg, pl_error *err)
{
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
                                     s->name);
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
        version = get_i64(r, 0, 0);
        PQclear(r);
        if (version > PL__STORE_SCHEMA_VERSION)
            return pl__error_set(
                err, PL_EUNSUPPORTED,
                "%s: the store's schema is version %lld, newer than this "
                "proofline's (%d): run the proofline that upgraded it, or a "
                "newer one",
                s->name, (long long)version, PL__STORE_SCHEMA_VERSION);
        if (version < 1)
            return pl__error_set(err, PL_EFORMAT,
                                 "%s: proofline.meta holds no schema version",
                                 s->name);
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
    s->base.ops = &pg_ops;
    pthread_mutex_init(&s->mu, NULL);
    pl__store_copy(s->name, sizeof(s->name), "postgres");
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
    snprintf(s->name, sizeof(s->name), "postgres %.100s on %.120s",
             PQdb(s->conn), PQhost(s->conn));
    PQsetNoticeProcessor(s->conn, no_notices, NULL);
    migrate_args m = {target, before};
    status = txn(s, TXN_WRITE, body_migrate, &m, err);
    if (status != PL_OK)
        goto fail;
    *out = &s->base;
    return PL_OK;
fail:
    pg_close(&s->base);
    return status;
}
