/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's durable job store: circuits, jobs and their partitions, and
 * the claims workers hold on partitions.  One interface, several
 * implementations behind it (SQLite under --data here, PostgreSQL for a
 * cluster of services later), chosen by pl__store_open's locator.
 *
 * Why a claim is a lease and not a flag: several processes may claim from
 * one queue.  A claim names its owner (a worker id), carries an expiry the
 * owner renews with pl__store_heartbeat, and a fencing token that grows
 * with every claim of the partition; complete and fail succeed only with
 * the token of the live claim, so a worker whose lease lapsed (a crash, a
 * pause, a lost network) can never overwrite the result of the worker that
 * took the partition over.  pl__store_recover returns to the queue every
 * claim whose lease expired, and, at a worker's start, every claim of its
 * own id (work a crashed run of the same worker left).
 *
 * Durability: every call that changes state returns only after the change
 * is committed to disk (SQLite: WAL with synchronous=FULL).  The caller
 * writes witness and proof files (temporary, fsync, rename) before it
 * records them, so a record never names a file that is not whole.
 *
 * Threads: a store handle may be used by several threads at once (the
 * implementation serialises or pools its connections).  Strings it returns
 * inside structures live in fixed arrays: nothing to free.
 */
#ifndef PL_SERVICE_STORE_H
#define PL_SERVICE_STORE_H

#include "proofline.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PL__STORE_ID_LEN 64   /* circuit ids: sha256 in hex */
#define PL__STORE_JOB_ID_LEN 36
#define PL__STORE_PATH_MAX 4096
#define PL__STORE_MSG_MAX 256
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

typedef struct pl__store_circuit {
    char id[PL__STORE_ID_LEN + 1];        /* sha256 of the zkey, hex */
    char zkey_path[PL__STORE_PATH_MAX];
    uint64_t zkey_bytes;
    uint64_t n_constraints, n_vars, n_public; /* the shape */
    uint64_t witness_bytes;   /* the exact size of a witness file */
    uint64_t partition_bytes; /* planned bytes per partition */
    int64_t created_unix_ms;
} pl__store_circuit;

typedef struct pl__store_job {
    char id[PL__STORE_JOB_ID_LEN + 1];
    char circuit_id[PL__STORE_ID_LEN + 1];
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
 * in store_impl.h, once opened). */
int pl__store_schema_version(const pl__store *store);

/* Circuits: put is idempotent on the id (a second put of the same id
 * changes nothing and succeeds). */
pl_status pl__store_circuit_put(pl__store *store, const pl__store_circuit *c,
                                pl_error *err);
/* An absent id: PL_EUSAGE, "unknown circuit ..." (pl__store_is_not_found
 * tells it from other usage errors). */
pl_status pl__store_circuit_get(pl__store *store, const char *id,
                                pl__store_circuit *out, pl_error *err);
typedef bool (*pl__store_circuit_fn)(void *user, const pl__store_circuit *c);
pl_status pl__store_circuit_list(pl__store *store, pl__store_circuit_fn fn,
                                 void *user, pl_error *err);

/* Jobs.  create: a new job in state receiving with n partitions waiting;
 * the store chooses the id (random, 36 characters) and the arrival
 * sequence. */
pl_status pl__store_job_create(pl__store *store, const char *circuit_id,
                               pl__priority priority, uint32_t n_partitions,
                               pl__store_job *out, pl_error *err);
/* Creates a job with the caller's id (PL__STORE_JOB_ID_LEN characters;
 * the server derives it from an idempotency key), as job_create does.
 * When a job of that id exists already, nothing changes: *created is
 * false and out is that job, whatever its circuit, priority or partition
 * count (the caller compares).  Two calls with one id, from two threads or
 * two processes on one database, make one job. */
pl_status pl__store_job_create_with_id(pl__store *store, const char *job_id,
                                       const char *circuit_id,
                                       pl__priority priority,
                                       uint32_t n_partitions,
                                       pl__store_job *out, bool *created,
                                       pl_error *err);
/* Sets a job's deadline (unix ms; 0 removes it), whatever its state.
 * The server records it right after creating the job, before any
 * witness is stored, so before the job can be claimed; one more
 * transaction rather than a longer create call, since most jobs have
 * none.  An unknown id: PL_EUSAGE, "unknown job ...". */
pl_status pl__store_job_set_deadline(pl__store *store, const char *job_id,
                                     int64_t deadline_unix_ms, pl_error *err);
/* Whether j missed its deadline at now_unix_ms: it has one, and it ended
 * after it (finished_unix_ms; whatever the end), or it has not ended and
 * now is past it. */
bool pl__store_job_deadline_missed(const pl__store_job *j,
                                   int64_t now_unix_ms);
/* Records partition k's witness file (already whole on disk); when it is
 * the last one the job becomes queued, in the same transaction.  A
 * partition that already has a witness is refused (PL_EUSAGE). */
pl_status pl__store_witness_stored(pl__store *store, const char *job_id,
                                   uint32_t index, const char *witness_path,
                                   pl__store_job *job_out, pl_error *err);
pl_status pl__store_job_get(pl__store *store, const char *job_id,
                            pl__store_job *out, pl_error *err);
/* The job's partitions, in index order, into out[0..cap); *count is the
 * job's partition count (may be more than cap). */
pl_status pl__store_partitions(pl__store *store, const char *job_id,
                               pl__store_partition *out, size_t cap,
                               size_t *count, pl_error *err);
typedef bool (*pl__store_job_fn)(void *user, const pl__store_job *job);
/* Jobs in arrival order, newest first; state < 0 lists every state; at
 * most limit (0: no limit). */
pl_status pl__store_job_list(pl__store *store, int state, size_t limit,
                             pl__store_job_fn fn, void *user, pl_error *err);
/* Cancels a job that has not ended: waiting and queued partitions become
 * cancelled at once; claimed ones become cancelled too, and their owners
 * find out when complete or heartbeat reports the claim gone.  *changed
 * is false when the job had already ended. */
pl_status pl__store_job_cancel(pl__store *store, const char *job_id,
                               bool *changed, pl_error *err);
/* Fails a job that has not ended, without a claim (a witness found not to
 * fit its circuit as it arrived): the job becomes failed with msg (a job
 * keeps its first message), its waiting, queued and claimed partitions
 * cancelled, as cancel does.  *changed is false when the job had already
 * ended. */
pl_status pl__store_job_fail(pl__store *store, const char *job_id,
                             const char *msg, bool *changed, pl_error *err);

/* Claims the first queued partition, by priority then arrival (then
 * index), whose circuit's partition_bytes is at most max_bytes (the
 * caller's room under its budget; UINT64_MAX for no limit).  *found is
 * false when there is none.  The claim lasts lease_ms from now. */
pl_status pl__store_claim_next(pl__store *store, const char *owner,
                               uint64_t max_bytes, int64_t lease_ms,
                               pl__store_claim *out, bool *found,
                               pl_error *err);
/* Extends every live claim of owner to now + lease_ms.  A claim that is no
 * longer the owner's (expired and taken, or its job cancelled) is not
 * extended: pl__store_claim_live tells the worker to stop that work. */
pl_status pl__store_heartbeat(pl__store *store, const char *owner,
                              int64_t lease_ms, pl_error *err);
/* Whether (job, index) is still claimed by owner with this fence. */
pl_status pl__store_claim_live(pl__store *store, const char *job_id,
                               uint32_t index, const char *owner,
                               uint64_t fence, bool *live, pl_error *err);
/* Ends a claim.  Both succeed only with the live claim's owner and fence;
 * otherwise PL_ECANCELLED ("the claim was lost") and nothing changes.
 * complete records the proof file (already whole on disk); when it is the
 * job's last partition the job becomes done.  fail is
 * pl__store_fail_attempt with retryable true: the partition is retried
 * (by any worker) until it has failed max_attempts times; then it ends,
 * and its job (failed, with msg) and the job's other waiting/queued
 * partitions are cancelled; those already claimed may still complete
 * (the job stays failed), or, released, retried or recovered, are
 * cancelled. */
pl_status pl__store_complete(pl__store *store, const char *job_id,
                             uint32_t index, const char *owner, uint64_t fence,
                             const char *proof_path, pl_error *err);
/* complete, telling in *job_done whether this completion made the job
 * done (its last partition, the job not failed): the one completion of a
 * job that judges its deadline, even with several workers finishing its
 * partitions at once. */
pl_status pl__store_complete_job(pl__store *store, const char *job_id,
                                 uint32_t index, const char *owner,
                                 uint64_t fence, const char *proof_path,
                                 bool *job_done, pl_error *err);
pl_status pl__store_fail(pl__store *store, const char *job_id, uint32_t index,
                         const char *owner, uint64_t fence, const char *msg,
                         pl_error *err);
/* How often a partition may fail before its job fails: a setting of
 * this handle, PL__STORE_MAX_ATTEMPTS_DEFAULT unless the locator says
 * "?max_attempts=N" (1 to 1000; "DIR?max_attempts=5",
 * "postgres://h/db?sslmode=require&max_attempts=5": taken out before the
 * folder or the URI is used) or the setter changes it (at least 1). */
#define PL__STORE_MAX_ATTEMPTS_DEFAULT 3
void pl__store_set_max_attempts(pl__store *store, uint32_t max_attempts);
uint32_t pl__store_max_attempts(const pl__store *store);

/* Ends a claim with a failure, as pl__store_fail, choosing whether a
 * retry may help.  Every failure is kept as an attempt (see
 * pl__store_attempts).  retryable and fewer than max_attempts failures
 * of this partition so far, this one included: the partition returns to
 * the queue (for any worker; its error keeps msg) and *requeued (may be
 * NULL) is true.  Otherwise (a witness that does not fit its circuit:
 * no retry can help; or the last allowed attempt) the partition and its
 * job fail as pl__store_fail describes, the job's message msg, prefixed
 * with "after N attempts: " when there were several. */
pl_status pl__store_fail_attempt(pl__store *store, const char *job_id,
                                 uint32_t index, const char *owner,
                                 uint64_t fence, const char *msg,
                                 bool retryable, bool *requeued,
                                 pl_error *err);

/* One failed attempt of a partition, as it is kept. */
typedef struct pl__store_attempt {
    char job_id[PL__STORE_JOB_ID_LEN + 1];
    uint32_t index;
    uint32_t attempt;          /* 1, 2, ... per partition */
    char owner[PL__STORE_OWNER_MAX];
    uint64_t fence;            /* the claim that failed */
    bool retried;              /* the partition went back to the queue */
    int64_t at_unix_ms;
    char error[PL__STORE_MSG_MAX];
} pl__store_attempt;

/* A job's failed attempts, by partition then attempt, into out[0..cap);
 * *count is how many there are (may be more than cap). */
pl_status pl__store_attempts(pl__store *store, const char *job_id,
                             pl__store_attempt *out, size_t cap,
                             size_t *count, pl_error *err);

/* Gives a claim back to the queue without an attempt's failure (a drain,
 * a budget that no longer fits). */
pl_status pl__store_release(pl__store *store, const char *job_id,
                            uint32_t index, const char *owner, uint64_t fence,
                            pl_error *err);

/* Takes back every claim whose lease has expired, and every claim of
 * `owner` (NULL: none) whatever its lease: call it at a worker's start
 * with its own id.  Each is a failed attempt (kept, with a message saying
 * the lease lapsed or the worker restarted): the partition returns to the
 * queue, or, at max_attempts, fails its job, as pl__store_fail.
 * *requeued counts those returned to the queue. */
pl_status pl__store_recover(pl__store *store, const char *owner,
                            uint64_t *requeued, pl_error *err);

pl_status pl__store_counts_read(pl__store *store, pl__store_counts *out,
                                pl_error *err);

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

/* Whether err came from an unknown id (circuit or job): the server maps it
 * to 404. */
bool pl__store_is_not_found(const pl_error *err);

#endif
