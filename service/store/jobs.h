/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job state machine of the store, written once (jobs.c) over the
 * driver interface, so both databases make every transition the same way.
 * Every change of state, and the function that makes it (each one
 * transaction; "lost" below is PL_ECANCELLED: the claim is no longer the
 * caller's, and nothing changes):
 *
 *   job        partition        function
 *   (new) -> receiving          pl__store_job_create, _create_with_id:
 *              (new) -> waiting    n partitions waiting
 *   receiving -> queued          pl__store_witness_stored, the last witness:
 *              waiting -> queued   the job's partitions all at once
 *   queued -> running            pl__store_claim_next:
 *              queued -> claimed   the first that fits, a new fence
 *              claimed (started)   pl__store_claim_started: its proof began
 *              claimed (renewed)   pl__store_heartbeat, _worker_heartbeat
 *   running -> done              pl__store_complete(_job), the last one:
 *              claimed -> done     the proof recorded, completions 1
 *              claimed -> queued   pl__store_fail_attempt, retried: an
 *                                  attempt kept; pl__store_release: none;
 *                                  pl__store_recover: an attempt if it had
 *                                  started, else none
 *   live -> failed               pl__store_fail_attempt, the last allowed
 *              claimed -> failed   one (or not retryable); the job's
 *              waiting, queued     waiting and queued ones cancelled
 *                -> cancelled
 *   live -> failed               pl__store_job_fail (no claim: a witness
 *   live -> cancelled            that does not fit); pl__store_job_cancel:
 *              waiting, queued,    every partition not ended cancelled
 *              claimed -> cancelled
 *              claimed -> cancelled  release, retry or recovery of a claim
 *                                  whose job ended meanwhile
 *
 * (live: receiving, queued or running.)  A partition completes once at
 * most, by the schema itself; a claim of a failed job may still complete
 * (its proof recorded, the job stays failed).
 */
#ifndef PL_SERVICE_STORE_JOBS_H
#define PL_SERVICE_STORE_JOBS_H

#include "store.h"

/* ---- jobs ------------------------------------------------------------------ */

/* A new job in state receiving with n partitions waiting; the store
 * chooses the id (random, 36 characters) and the arrival sequence.  An
 * unknown circuit: not found. */
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
 * The server records it right after creating the job, before any witness
 * is stored, so before the job can be claimed.  An unknown id: not
 * found. */
pl_status pl__store_job_set_deadline(pl__store *store, const char *job_id,
                                     int64_t deadline_unix_ms, pl_error *err);
/* Whether j missed its deadline at now_unix_ms: it has one, and it ended
 * after it (finished_unix_ms; whatever the end), or it has not ended and
 * now is past it. */
bool pl__store_job_deadline_missed(const pl__store_job *j,
                                   int64_t now_unix_ms);
/* Records partition k's witness file (already whole on disk); when it is
 * the last one the job becomes queued, in the same transaction.  A
 * partition that already has a witness, or a job no longer receiving, is
 * refused (PL_EUSAGE); an unknown job or partition: not found. */
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
 * most limit (0: no limit).  fn runs between pages, no lock held. */
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

/* ---- claims ---------------------------------------------------------------- */

/* Claims the first queued partition, by priority then arrival (then
 * index), whose circuit's partition_bytes is at most max_bytes (the
 * caller's room under its budget; UINT64_MAX for no limit).  *found is
 * false when there is none.  The claim lasts lease_ms from now. */
pl_status pl__store_claim_next(pl__store *store, const char *owner,
                               uint64_t max_bytes, int64_t lease_ms,
                               pl__store_claim *out, bool *found,
                               pl_error *err);
/* The claim's proof started (the worker's engine admitted the partition):
 * from now on a recovery of the claim costs one of the partition's
 * attempts.  Marking it twice changes nothing; a claim no longer the
 * owner's: lost. */
pl_status pl__store_claim_started(pl__store *store, const char *job_id,
                                  uint32_t index, const char *owner,
                                  uint64_t fence, pl_error *err);
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
 * otherwise lost.  complete records the proof file (already whole on
 * disk); when it is the job's last partition the job becomes done.  fail
 * is pl__store_fail_attempt with retryable true. */
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
 * job fail, the job's message msg, prefixed with "after N attempts: "
 * when there were several. */
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
 * a budget that no longer fits, a store or disk that could not record
 * the outcome). */
pl_status pl__store_release(pl__store *store, const char *job_id,
                            uint32_t index, const char *owner, uint64_t fence,
                            pl_error *err);

/* Takes back every claim whose lease has expired, and every claim of
 * `owner` (NULL: none) whatever its lease: call it at a worker's start
 * with its own id.  A claim whose proof had started is a failed attempt
 * (kept, with a message saying the lease lapsed or the worker restarted
 * while proving it): the partition returns to the queue, or, at
 * max_attempts, fails its job, as pl__store_fail.  A claim that was only
 * waiting (never started) goes back to the queue and costs nothing: the
 * partition's error says why.  *requeued counts those returned to the
 * queue. */
pl_status pl__store_recover(pl__store *store, const char *owner,
                            uint64_t *requeued, pl_error *err);

#endif /* PL_SERVICE_STORE_JOBS_H */
