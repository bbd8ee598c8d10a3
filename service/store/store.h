/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's durable job store: circuits, jobs and their partitions, the
 * claims workers hold on partitions, and the workers themselves.  The job
 * state machine is written once (jobs.h lists every transition and the
 * function that makes it, jobs.c makes them) over a narrow driver
 * interface (driver.h: transactions, prepared statements by id, typed
 * parameters, rows); one driver per database, each with its own SQL and
 * migrations: SQLite under --data (sqlite.c), PostgreSQL for a cluster of
 * services (postgres.c), chosen by pl__store_open's locator.
 *
 * Why a claim is a lease and not a flag: several processes may claim from
 * one queue.  A claim names its owner (a worker id), carries an expiry the
 * owner renews with pl__store_heartbeat, and a fencing token that grows
 * with every claim of the partition; complete and fail succeed only with
 * the token of the live claim, so a worker whose lease lapsed (a crash, a
 * pause, a lost network) can never overwrite the result of the worker that
 * took the partition over.  pl__store_recover returns to the queue every
 * claim whose lease expired, and, at a worker's start, every claim of its
 * own id (work a crashed run of the same worker left); only a claim whose
 * proof had started (pl__store_claim_started) costs one of the
 * partition's attempts.
 *
 * Durability: every call that changes state returns only after the change
 * is committed to disk (SQLite: WAL with synchronous=FULL).  The caller
 * writes witness and proof files (temporary, fsync, rename) before it
 * records them, so a record never names a file that is not whole.
 *
 * Not found is a status: an absent circuit, job or partition is PL_EUSAGE
 * with sys_errno ENOENT (pl__store_is_not_found), whatever the message
 * says; a claim that is no longer the caller's is PL_ECANCELLED.
 *
 * Threads: a store handle may be used by several threads at once (one
 * transaction at a time per handle).  Strings it returns inside
 * structures live in fixed arrays: nothing to free.
 */
#ifndef PL_SERVICE_STORE_H
#define PL_SERVICE_STORE_H

#include "proofline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PL__STORE_ID_LEN 64   /* circuit ids: sha256 in hex */
#define PL__STORE_CURVE_LEN 15 /* "bls12381", "bn128" */
#define PL__STORE_JOB_ID_LEN 36
#define PL__STORE_PATH_MAX 4096
/* A failure's message: long enough for a whole one (the engine's message of
 * up to 255 bytes, after "after N attempts: job ID partition K: status: "),
 * so none is cut */
#define PL__STORE_MSG_MAX 1024
#define PL__STORE_OWNER_MAX 128

typedef struct pl__store pl__store;

typedef enum {
    PL__PRIORITY_LOW = 0,
    PL__PRIORITY_NORMAL = 1,
    PL__PRIORITY_HIGH = 2,
    /* before every other waiting partition (the engine's
     * PL_PRIORITY_CRITICAL: the same numbers) */
    PL__PRIORITY_CRITICAL = 3,
    PL__PRIORITY_COUNT
} pl__priority;

/* A job's state.  receiving: created, not every witness stored yet;
 * queued: every witness stored, no partition claimed; running: at least
 * one partition claimed or done, not all finished; then one of the three
 * ends. */
#define PL__JOB_STATE_MAP(X)                                                  \
    X(PL__JOB_RECEIVING, "receiving")                                         \
    X(PL__JOB_QUEUED,    "queued")                                            \
    X(PL__JOB_RUNNING,   "running")                                           \
    X(PL__JOB_DONE,      "done")                                              \
    X(PL__JOB_FAILED,    "failed")                                            \
    X(PL__JOB_CANCELLED, "cancelled")

typedef enum {
#define PL__JOB_STATE_ENUM(name, label) name,
    PL__JOB_STATE_MAP(PL__JOB_STATE_ENUM)
#undef PL__JOB_STATE_ENUM
    PL__JOB_STATE_COUNT
} pl__job_state;

/* A partition's state: waiting (its job still receives witnesses; its own
 * may be stored already: witness_path says), queued (claimable: a job's
 * partitions queue together, with its last witness), claimed, done,
 * failed, cancelled. */
#define PL__PART_STATE_MAP(X)                                                 \
    X(PL__PART_WAITING,   "waiting")                                          \
    X(PL__PART_QUEUED,    "queued")                                           \
    X(PL__PART_CLAIMED,   "claimed")                                          \
    X(PL__PART_DONE,      "done")                                             \
    X(PL__PART_FAILED,    "failed")                                           \
    X(PL__PART_CANCELLED, "cancelled")

typedef enum {
#define PL__PART_STATE_ENUM(name, label) name,
    PL__PART_STATE_MAP(PL__PART_STATE_ENUM)
#undef PL__PART_STATE_ENUM
    PL__PART_STATE_COUNT
} pl__part_state;

const char *pl__job_state_name(pl__job_state s);
const char *pl__part_state_name(pl__part_state s);
const char *pl__priority_name(pl__priority p);
/* "critical", "high", "normal", "low" -> the priority; false for anything
 * else. */
bool pl__priority_parse(pl__priority *out, const char *text);
/* A state's label ("queued") -> its state; false for anything else. */
bool pl__job_state_parse(pl__job_state *out, const char *label);
bool pl__part_state_parse(pl__part_state *out, const char *label);

typedef struct pl__store_circuit {
    char id[PL__STORE_ID_LEN + 1];        /* sha256 of the zkey, hex */
    char zkey_path[PL__STORE_PATH_MAX];
    uint64_t zkey_bytes;
    uint64_t n_constraints, n_vars, n_public; /* the shape */
    uint64_t witness_bytes;   /* the exact size of a witness file */
    uint64_t partition_bytes; /* planned bytes per partition */
    int64_t created_unix_ms;
    /* its zkey's curve, snarkjs's name ("bls12381", "bn128"); "" for a
     * circuit registered before the store kept it, until filled in */
    char curve[PL__STORE_CURVE_LEN + 1];
} pl__store_circuit;

typedef struct pl__store_job {
    char id[PL__STORE_JOB_ID_LEN + 1];
    char circuit_id[PL__STORE_ID_LEN + 1];
    char curve[PL__STORE_CURVE_LEN + 1]; /* its circuit's ("" unknown) */
    pl__priority priority;
    pl__job_state state;
    uint32_t n_partitions;
    uint64_t seq;             /* arrival order, unique, increasing */
    int64_t created_unix_ms, updated_unix_ms, finished_unix_ms;
    /* When the job should be done by (0: no deadline); a job past it is
     * still proved: the miss is counted, not enforced. */
    int64_t deadline_unix_ms;
    char error[PL__STORE_MSG_MAX]; /* the first failure, "" otherwise */
} pl__store_job;

typedef struct pl__store_partition {
    char job_id[PL__STORE_JOB_ID_LEN + 1];
    uint32_t index;
    pl__part_state state;
    char witness_path[PL__STORE_PATH_MAX]; /* "" while waiting */
    char proof_path[PL__STORE_PATH_MAX];   /* "" until done */
    char owner[PL__STORE_OWNER_MAX];       /* the claim's owner, "" if none */
    uint64_t fence;            /* the token of the latest claim; 0: never */
    int64_t lease_until_unix_ms;
    uint32_t attempts;         /* claims so far */
    uint32_t completions;      /* times it completed (1 at most, by design) */
    int64_t claimed_unix_ms, finished_unix_ms;
    /* When the claim's proof started (its engine admitted it; 0: not, or
     * not claimed): a claim that dies before costs no attempt. */
    int64_t started_unix_ms;
    char error[PL__STORE_MSG_MAX];
} pl__store_partition;

/* What a successful claim hands the worker. */
typedef struct pl__store_claim {
    pl__store_partition part;
    pl__store_job job;
    pl__store_circuit circuit;
} pl__store_claim;

/* Counts for status and metrics, read in one transaction. */
typedef struct pl__store_counts {
    uint64_t jobs[PL__JOB_STATE_COUNT];
    uint64_t queued_partitions[PL__PRIORITY_COUNT]; /* claimable now */
    uint64_t claimed_partitions;
} pl__store_counts;

/* Opens (creating if needed) a store.  locator: a folder (SQLite in
 * DIR/store.sqlite) or "postgres://..." / "postgresql://..." (a libpq
 * URI).  The schema is created or upgraded to this build's version, one
 * migration step per version, in one transaction under the store's
 * write lock (PostgreSQL: an advisory lock), so that workers starting
 * at once migrate once; a newer schema than this build knows is refused.
 * Errors name the file or the server. */
pl_status pl__store_open(pl__store **out, const char *locator, pl_error *err);
void pl__store_close(pl__store *store);
/* The schema version the store holds (this build's, PL__STORE_SCHEMA_VERSION
 * in driver.h, once opened). */
int pl__store_schema_version(const pl__store *store);

/* Circuits: put is idempotent on the id (a second put of the same id
 * changes nothing and succeeds). */
pl_status pl__store_circuit_put(pl__store *store, const pl__store_circuit *c,
                                pl_error *err);
/* An absent id: not found (pl__store_is_not_found). */
pl_status pl__store_circuit_get(pl__store *store, const char *id,
                                pl__store_circuit *out, pl_error *err);
/* Sets a circuit's curve where the store has none (a circuit registered
 * before schema 5); one it has is kept. */
pl_status pl__store_circuit_set_curve(pl__store *store, const char *id,
                                      const char *curve, pl_error *err);
typedef bool (*pl__store_circuit_fn)(void *user, const pl__store_circuit *c);
pl_status pl__store_circuit_list(pl__store *store, pl__store_circuit_fn fn,
                                 void *user, pl_error *err);

pl_status pl__store_counts_read(pl__store *store, pl__store_counts *out,
                                pl_error *err);

/* Whether the store can still write: the files it opened are still the
 * ones at their paths (SQLite: not removed or replaced under it) and a
 * transaction that writes commits.  PL_EIO naming what failed; the
 * service's readiness is built on it. */
pl_status pl__store_probe(pl__store *store, pl_error *err);

/* Deletes jobs that ended before cutoff_unix_ms; fn (may be NULL) is told
 * each file path the store forgets (witnesses, proofs) so the caller can
 * unlink them.  *removed counts the jobs. */
typedef void (*pl__store_path_fn)(void *user, const char *path);
pl_status pl__store_purge(pl__store *store, int64_t cutoff_unix_ms,
                          pl__store_path_fn fn, void *user, uint64_t *removed,
                          pl_error *err);

/* ---- workers: the cluster's view of itself -------------------------------
 *
 * Each service registers itself as a worker (its id is the owner of its
 * claims) and renews its row with its status; GET /v1/cluster lists the
 * rows.  Times come from the store's clock (PostgreSQL: the database's),
 * and age_ms is measured there, so that machines whose clocks disagree
 * still agree on who is silent. */
#define PL__STORE_HOST_MAX 256
#define PL__STORE_TEXT_MAX 1024

typedef struct pl__store_worker {
    char id[PL__STORE_OWNER_MAX];
    char host[PL__STORE_HOST_MAX];
    int64_t pid;
    char backend[64];                 /* "cpu", "cuda"... */
    char gpus[PL__STORE_HOST_MAX];    /* free text: "0:H200" or "" */
    uint64_t budget_bytes, reserved_bytes;
    /* Partitions per stage and anything else the server wants shown, as
     * one JSON object in text ("{}" when there is nothing). */
    char status_json[PL__STORE_TEXT_MAX];
    bool gone;                        /* left cleanly (worker_gone) */
    /* Filled by the store, ignored on input: */
    int64_t started_unix_ms, heartbeat_unix_ms;
    int64_t age_ms;                   /* since its last heartbeat */
} pl__store_worker;

/* Registers (or re-registers, after a restart) w->id: every field is
 * recorded, started and heartbeat become now, gone false. */
pl_status pl__store_worker_register(pl__store *store,
                                    const pl__store_worker *w, pl_error *err);
/* Records w's status (budget, reserved, status_json) and now as its
 * heartbeat (a row that was missing is created, as register would), and,
 * when lease_ms > 0, extends every live claim of w->id as
 * pl__store_heartbeat does: one transaction for a worker's tick. */
pl_status pl__store_worker_heartbeat(pl__store *store,
                                     const pl__store_worker *w,
                                     int64_t lease_ms, pl_error *err);
/* A clean exit: the worker is marked gone (its row stays for the view;
 * purge removes it with the jobs older than the cutoff). */
pl_status pl__store_worker_gone(pl__store *store, const char *id,
                                pl_error *err);
typedef bool (*pl__store_worker_fn)(void *user, const pl__store_worker *w);
/* Every worker, by id. */
pl_status pl__store_worker_list(pl__store *store, pl__store_worker_fn fn,
                                void *user, pl_error *err);

/* ---- schema ----------------------------------------------------------------- */

/* Opens locator and applies the migrations up to target_version (0: this
 * build's version) alone, then closes it: `proofline store migrate`.
 * *before and *after (may be NULL) tell the version found and the one
 * left. */
pl_status pl__store_migrate(const char *locator, int target_version,
                            int *before, int *after, pl_error *err);

/* Whether err says an id was not found (a circuit, a job, a partition):
 * PL_EUSAGE with sys_errno ENOENT, set by the store alone; the server
 * maps it to 404. */
bool pl__store_is_not_found(const pl_error *err);

/* The state machine of jobs and partitions. */
#include "jobs.h"

#endif
