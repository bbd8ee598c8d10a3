/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The narrow interface between the store's logic (store.c, jobs.c: written
 * once) and a database driver (sqlite.c, postgres.c): transactions (with
 * the store's clock at their start), statements prepared by id with typed
 * parameters, and their rows as text.  A driver owns its SQL, one text per
 * statement id below, with the parameters in the order the comment gives
 * ($1..: ?1.. in SQLite) and the columns in the order it lists, and its
 * migrations; it knows nothing of jobs beyond that text.  What a failure
 * means for its transaction (run it again? did it commit?) the driver
 * says, and store.c decides (pl__store_txn).
 *
 * Only the store's own files include this header.
 */
#ifndef PL_SERVICE_STORE_DRIVER_H
#define PL_SERVICE_STORE_DRIVER_H

#include "store.h"

#include <pthread.h>

/* The schema version this build writes (both drivers keep the same
 * tables, so one number).  1: circuits, jobs, partitions.  2: attempts
 * (every failure kept) and workers (the cluster's view), an index of the
 * live claims by owner, partitions.claim_id (a claim's token).  3:
 * jobs.deadline_ms.  4: partitions.started_ms (a claim's proof began: only
 * then does its loss cost an attempt).  5: circuits.curve (the zkey's, from
 * its prime; '' in the rows a version 4 store had, until the service reads
 * their zkeys: pl__store_circuit_set_curve). */
#define PL__STORE_SCHEMA_VERSION 5

/* Columns, in the order every driver returns them (the readers below
 * take them so): the lists are the drivers' SQL for them, their counts the
 * readers'. */
#define PL__SQL_CIRCUIT_COLS                                                  \
    "id, zkey_path, zkey_bytes, n_constraints, n_vars, n_public, "            \
    "witness_bytes, partition_bytes, created_ms, curve"
#define PL__CIRCUIT_NCOLS 10
/* A job's columns then its circuit's curve (a listing shows it), from the
 * circuits table the driver names (`circuits`: its table's name). */
#define PL__SQL_JOB_COLS_WITH(circuits)                                       \
    "id, circuit_id, priority, state, n_partitions, seq, created_ms, "        \
    "updated_ms, finished_ms, error, n_stored, n_done, deadline_ms, "         \
    "COALESCE((SELECT c.curve FROM " circuits " c WHERE c.id = "              \
    "jobs.circuit_id), '')"
#define PL__JOB_NCOLS 14
#define PL__SQL_PART_COLS                                                     \
    "job_id, idx, state, witness_path, proof_path, owner, fence, "            \
    "lease_until, attempts, completions, claimed_ms, finished_ms, error, "    \
    "started_ms"
#define PL__PART_NCOLS 14

/* The statements, by id, with their parameters -> their rows.  A driver
 * may give NULL for one it needs nothing for (PL__SQL_PARTS_LOCK on
 * SQLite, whose write transactions hold the whole file). */
#define PL__SQL_MAP(X)                                                        \
    X(PL__SQL_CIRCUIT_PUT)  /* the 10 circuit columns; a second put of an  \
                               id changes nothing */                        \
    X(PL__SQL_CIRCUIT_CURVE) /* id, curve: set where it is '' (a circuit    \
                                from before schema 5) */                    \
    X(PL__SQL_CIRCUIT_GET)  /* id -> circuit */                             \
    X(PL__SQL_CIRCUIT_PAGE) /* after_id, limit -> circuits by id */         \
    X(PL__SQL_JOB_INSERT)   /* id, circuit_id, priority, n, now -> seq */   \
    X(PL__SQL_PARTS_INSERT) /* job_id, priority, seq, partition_bytes, n:   \
                               partitions 0..n-1 waiting */                 \
    X(PL__SQL_JOB_GET)      /* id -> job */                                 \
    X(PL__SQL_JOB_DEADLINE) /* id, deadline_ms */                           \
    X(PL__SQL_PARTS_LOCK)   /* job_id: its partitions locked, in index      \
                               order (before its job's row) */              \
    X(PL__SQL_PART_GET)     /* job_id, idx -> partition */                  \
    X(PL__SQL_PART_WITNESS) /* job_id, idx, path (a waiting one's) */       \
    X(PL__SQL_JOB_WITNESS)  /* job_id, now: n_stored + 1, queued at the     \
                               last */                                      \
    X(PL__SQL_PARTS_QUEUE)  /* job_id: waiting ones queued */               \
    X(PL__SQL_PARTS_PAGE)   /* job_id, limit -> partitions by index */      \
    X(PL__SQL_JOB_PAGE)     /* before_seq, limit -> jobs newest first */    \
    X(PL__SQL_JOB_PAGE_STATE) /* before_seq, limit, state -> the same */    \
    X(PL__SQL_JOB_END)      /* id, state, message, now: a live job ends */  \
    X(PL__SQL_PARTS_CANCEL) /* job_id, now: waiting, queued, claimed ones   \
                               cancelled */                                 \
    X(PL__SQL_CLAIM_TAKE)   /* max_bytes, owner, lease_until, now, token    \
                               -> job_id, idx of the partition taken */     \
    X(PL__SQL_CLAIM_FIND)   /* owner, token -> job_id, idx (a claim whose  \
                               commit's answer was lost) */                 \
    X(PL__SQL_JOB_RUNNING)  /* job_id, now: a queued job runs */            \
    X(PL__SQL_HEARTBEAT)    /* owner, lease_until: its live claims */       \
    X(PL__SQL_CLAIM_LIVE)   /* job_id, idx, owner, fence -> a row if live */\
    X(PL__SQL_CLAIM_STARTED) /* job_id, idx, owner, fence, now */           \
    X(PL__SQL_PART_COMPLETE) /* job_id, idx, owner, fence, proof, now */    \
    X(PL__SQL_JOB_COMPLETE) /* job_id, now -> its state after */            \
    X(PL__SQL_PART_FAIL)    /* job_id, idx, owner, fence, message, now */   \
    X(PL__SQL_JOB_FAIL)     /* job_id, message, now */                      \
    X(PL__SQL_PARTS_CANCEL_PENDING) /* job_id, now: waiting and queued      \
                                       ones cancelled */                    \
    X(PL__SQL_PART_REQUEUE) /* job_id, idx, owner, fence, message -> its    \
                               state: queued, or cancelled when its job     \
                               ended (a retry, a release) */                \
    X(PL__SQL_RECOVER_PICK) /* now, owner (NULL: none) -> job_id, idx,      \
                               owner, fence: lapsed claims and owner's */   \
    X(PL__SQL_ATTEMPT_COUNT) /* job_id, idx -> count */                     \
    X(PL__SQL_ATTEMPT_INSERT) /* job_id, idx, attempt, owner, fence,        \
                                 retried, at_ms, message */                 \
    X(PL__SQL_ATTEMPTS_COUNT) /* job_id -> count */                         \
    X(PL__SQL_ATTEMPTS_PAGE) /* job_id, limit -> job_id, idx, attempt,      \
                                owner, fence, retried, at_ms, error */      \
    X(PL__SQL_WORKER_PUT)   /* id, host, pid, backend, gpus, budget,        \
                               reserved, status_json, now, fresh */         \
    X(PL__SQL_WORKER_GONE)  /* id */                                        \
    X(PL__SQL_WORKER_PAGE)  /* after_id, limit -> id, host, pid, backend,   \
                               gpus, budget, reserved, status_json, gone,   \
                               started_ms, heartbeat_ms */                  \
    X(PL__SQL_PURGE_WORKERS) /* cutoff */                                   \
    X(PL__SQL_COUNT_JOBS)   /* -> state, count */                           \
    X(PL__SQL_COUNT_QUEUED) /* -> priority, count */                        \
    X(PL__SQL_COUNT_CLAIMED) /* -> count */                                 \
    X(PL__SQL_PURGE_PICK)   /* cutoff, limit -> ids of ended jobs */        \
    X(PL__SQL_PURGE_PATHS)  /* job_id -> witness_path, proof_path */        \
    X(PL__SQL_PURGE_JOB)    /* job_id: an ended job and its rows deleted */ \
    X(PL__SQL_PROBE)        /* now: a write that reaches the disk */

typedef enum {
#define PL__SQL_ENUM(name) name,
    PL__SQL_MAP(PL__SQL_ENUM)
#undef PL__SQL_ENUM
        PL__SQL_COUNT
} pl__sql_id;

/* A parameter: text (NULL text: SQL NULL), an integer, or a boolean. */
typedef enum { PL__ARG_TEXT, PL__ARG_INT, PL__ARG_BOOL } pl__arg_type;
typedef struct pl__sql_arg {
    pl__arg_type type;
    const char *text;
    int64_t i;
} pl__sql_arg;

static inline pl__sql_arg pl__arg_text(const char *s)
{
    return (pl__sql_arg){PL__ARG_TEXT, s, 0};
}
static inline pl__sql_arg pl__arg_int(int64_t v)
{
    return (pl__sql_arg){PL__ARG_INT, NULL, v};
}
/* a byte count or a fence: the database keeps signed 64 bits */
static inline pl__sql_arg pl__arg_u64(uint64_t v)
{
    return pl__arg_int(v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}
static inline pl__sql_arg pl__arg_bool(bool b)
{
    return (pl__sql_arg){PL__ARG_BOOL, NULL, b};
}

/* A statement's result: its rows as text (NULL: SQL NULL), and for a
 * write the rows it changed.  Filled by the driver, freed by the store. */
typedef struct pl__sql_rows {
    size_t n, cols;
    char **cells; /* n * cols */
    uint64_t changed;
} pl__sql_rows;

void pl__sql_rows_free(pl__sql_rows *r);
/* Cell (row, col) as text ("" for NULL or out of range), as an integer,
 * as a boolean ("t", "true" and "1" are true). */
const char *pl__sql_text(const pl__sql_rows *r, size_t row, size_t col);
int64_t pl__sql_i64(const pl__sql_rows *r, size_t row, size_t col);
uint64_t pl__sql_u64(const pl__sql_rows *r, size_t row, size_t col);
bool pl__sql_bool(const pl__sql_rows *r, size_t row, size_t col);

/* Kinds of transaction. */
typedef enum {
    PL__TXN_WRITE, /* changes rows: SQLite's write lock first; PostgreSQL
                      read committed */
    PL__TXN_READ,  /* one consistent snapshot, no writes */
    PL__TXN_ONE    /* no transaction: the one statement that follows */
} pl__txn_kind;

/* What a failure means for its transaction. */
typedef enum {
    PL__FATE_FAILED,   /* an error no retry fixes: reported */
    PL__FATE_RETRY,    /* a deadlock or a serialization failure: run again */
    PL__FATE_LOST,     /* the connection broke before COMMIT was sent:
                          nothing committed; run again once reconnected */
    PL__FATE_UNKNOWN   /* it broke during COMMIT (or during a statement
                          outside a transaction): it may have committed */
} pl__txn_fate;

typedef struct pl__store_driver {
    const char *name; /* "sqlite", "postgres" */
    void (*close)(pl__store *s);
    /* The connection up (re-established, with backoff) before a
     * transaction, and after a lost one. */
    pl_status (*connect)(pl__store *s, pl_error *err);
    /* *now_ms: the store's clock at the start (the database's, on
     * PostgreSQL: the same one its leases are measured by). */
    pl_status (*begin)(pl__store *s, pl__txn_kind kind, int64_t *now_ms,
                       pl_error *err);
    pl_status (*commit)(pl__store *s, pl_error *err);
    void (*rollback)(pl__store *s);
    /* rows may be NULL (only success counts). */
    pl_status (*exec)(pl__store *s, pl__sql_id id, const pl__sql_arg *args,
                      size_t n_args, pl__sql_rows *rows, pl_error *err);
    pl__txn_fate (*fate)(pl__store *s);
    /* The files the store opened are still the ones at their paths
     * (NULL: nothing to check). */
    pl_status (*check)(pl__store *s, pl_error *err);
} pl__store_driver;

/* The head of every driver's handle. */
struct pl__store {
    const pl__store_driver *drv;
    pthread_mutex_t lock; /* one transaction at a time */
    int schema_version;   /* the one the store holds, once open */
    uint32_t max_attempts;
    char name[256];       /* the file or the database, for messages */
};

/* Runs body in a transaction of `kind` under the handle's lock, again
 * (up to a few times in all) when the driver says the failure allows it:
 * a deadlock or a serialization failure, a connection lost before COMMIT,
 * and, when repeatable (the body finds what an earlier run committed:
 * a claim by its token, a completion by its proof), a connection lost
 * during COMMIT.  A body runs again from its start: it resets what it
 * gathers. */
typedef pl_status (*pl__txn_body)(pl__store *s, void *arg, int64_t now_ms,
                                  pl_error *err);
pl_status pl__store_txn(pl__store *s, pl__txn_kind kind, bool repeatable,
                        pl__txn_body body, void *arg, pl_error *err);
/* One statement (inside a body): exec with its arguments counted. */
#define PL__EXEC(s, id, rows, err, ...)                                       \
    pl__store_exec((s), (id), (pl__sql_arg[]){__VA_ARGS__},                   \
                   sizeof((pl__sql_arg[]){__VA_ARGS__}) / sizeof(pl__sql_arg),\
                   (rows), (err))
pl_status pl__store_exec(pl__store *s, pl__sql_id id, const pl__sql_arg *args,
                         size_t n, pl__sql_rows *rows, pl_error *err);

/* Not found, as a status (see store.h): PL_EUSAGE, sys_errno ENOENT. */
pl_status pl__store_absent(pl_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Rows into records (the column orders above, from column `off`). */
void pl__store_read_circuit(const pl__sql_rows *r, size_t row, size_t off,
                            pl__store_circuit *c);
void pl__store_read_job(const pl__sql_rows *r, size_t row, size_t off,
                        pl__store_job *j);
void pl__store_read_part(const pl__sql_rows *r, size_t row, size_t off,
                         pl__store_partition *p);

/* Inside a body: a job, a circuit, a partition by id (not found when
 * absent); out may be NULL for job (only whether it exists). */
pl_status pl__store_get_job(pl__store *s, const char *id, pl__store_job *out,
                            pl_error *err);
pl_status pl__store_get_circuit(pl__store *s, const char *id,
                                pl__store_circuit *out, pl_error *err);
pl_status pl__store_get_part(pl__store *s, const char *job_id, uint32_t index,
                             pl__store_partition *out, pl_error *err);

/* The drivers' opens: dir (SQLite; created, mode 0700, if absent; the
 * database is dir/store.sqlite) or conninfo (a libpq URI).  Both migrate
 * the schema up to target (1..PL__STORE_SCHEMA_VERSION) and tell the
 * version found in *before (0: a new store). */
pl_status pl__store_sqlite_open(pl__store **out, const char *dir,
                                int target, int *before, pl_error *err);
pl_status pl__store_postgres_open(pl__store **out, const char *conninfo,
                                  int target, int *before, pl_error *err);

/* Shared helpers. */
void pl__store_copy(char *dst, size_t cap, const char *text);
/* A failure's message as it is kept: cut to PL__STORE_MSG_MAX - 1 bytes
 * on a character boundary (it fits whole unless it is out of all
 * measure), and made valid UTF-8. */
void pl__store_message(char cut[PL__STORE_MSG_MAX], const char *msg);
int64_t pl__store_now_ms(void);
/* A random version 4 UUID, 36 characters and a NUL (getrandom). */
pl_status pl__store_new_job_id(char out[PL__STORE_JOB_ID_LEN + 1],
                               pl_error *err);

/* The files a purge forgets, gathered in its transaction and told to the
 * caller only after the commit (so a record never names a missing file). */
typedef struct pl__store_paths {
    char **v;
    size_t n, cap;
} pl__store_paths;
bool pl__store_paths_add(pl__store_paths *l, const char *path);
void pl__store_paths_truncate(pl__store_paths *l, size_t keep);
void pl__store_paths_free(pl__store_paths *l);

/* The checks of arguments every call makes the same way, before any
 * statement runs (so a driver receives only what fits the arrays of
 * store.h): text present and short enough; a job id of 36 characters (any
 * other cannot name a job: not found); a positive lease.  The *_COPY
 * forms copy the text first, for an input that may lie inside the
 * structure the call fills (job.id, &job). */
pl_status pl__store_check_text(const char *what, const char *text, size_t cap,
                               bool may_be_empty, pl_error *err);
#define PL__CHECK_TEXT(what, text, cap)                                       \
    do {                                                                      \
        pl_status st_ = pl__store_check_text(what, text, cap, false, err);    \
        if (st_ != PL_OK)                                                     \
            return st_;                                                       \
    } while (0)
#define PL__CHECK_COPY(what, text, cap)                                       \
    char text##_copy[cap];                                                    \
    do {                                                                      \
        PL__CHECK_TEXT(what, text, cap);                                      \
        memcpy(text##_copy, text, strlen(text) + 1);                          \
        text = text##_copy;                                                   \
    } while (0)
#define PL__CHECK_JOB_ID(id)                                                  \
    char id##_copy[PL__STORE_JOB_ID_LEN + 1];                                 \
    do {                                                                      \
        PL__CHECK_TEXT("job id", id, PL__STORE_JOB_ID_LEN + 1);               \
        if (strlen(id) != PL__STORE_JOB_ID_LEN)                               \
            return pl__store_absent(err, "store: no job %s", id);            \
        memcpy(id##_copy, id, sizeof(id##_copy));                             \
        id = id##_copy;                                                       \
    } while (0)
#define PL__CHECK_LEASE(ms)                                                   \
    do {                                                                      \
        if ((ms) <= 0 || (ms) > INT64_C(1) << 40)                             \
            return pl__error_set(err, PL_EUSAGE,                              \
                                 "store: a lease of %lld ms",                 \
                                 (long long)(ms));                            \
    } while (0)

/* How many rows a listing reads per transaction (the callbacks run
 * between pages, with no lock held, so they may call the store). */
#define PL__STORE_LIST_PAGE 32

#endif /* PL_SERVICE_STORE_DRIVER_H */
