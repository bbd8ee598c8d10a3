/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The job state machine (jobs.h lists every transition), once for every
 * database: each call checks its arguments, then runs one transaction of
 * statements by id (driver.h) whose SQL is the driver's.  The rules that
 * keep it right whatever runs at the same time:
 *
 *  - a claim's end (complete, fail, release, start, recovery) changes the
 *    partition only WHERE it is still the caller's claim (its owner and
 *    fence): zero rows changed is a lost claim, and nothing else changes;
 *  - a transaction that touches several partitions of a job locks them
 *    first, in index order, then the job's row (PL__SQL_PARTS_LOCK; a
 *    claim locks one partition, then its job), so two never wait on each
 *    other in a cycle;
 *  - time is the store's clock at the transaction's start (the database's
 *    on PostgreSQL), the same for every worker;
 *  - a claim and a completion may run again after a connection lost
 *    during their COMMIT: a claim finds its own by its token, a
 *    completion recognises its own proof.
 */
#include "driver.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The claim (owner, fence) is not the partition's live one: PL_ECANCELLED,
 * saying what the partition is instead. */
static pl_status claim_lost(pl__store *s, const char *job_id, uint32_t index,
                            const char *owner, uint64_t fence, pl_error *err)
{
    pl__store_partition part;
    pl_status st = pl__store_get_part(s, job_id, index, &part, err);
    if (st != PL_OK)
        return st;
    return pl__error_set(
        err, PL_ECANCELLED,
        "%s: job %s partition %u: the claim was lost (owner %s, fence %llu; "
        "the partition is %s, owner %s, fence %llu)",
        s->name, job_id, index, owner, (unsigned long long)fence,
        pl__part_state_name(part.state), part.owner[0] ? part.owner : "none",
        (unsigned long long)part.fence);
}

static bool claimed_by(const pl__store_partition *p, const char *owner,
                       uint64_t fence)
{
    return p->state == PL__PART_CLAIMED && strcmp(p->owner, owner) == 0 &&
           p->fence == fence;
}

/* ---- jobs ----------------------------------------------------------------------- */

typedef struct {
    const char *id, *circuit_id;
    pl__priority priority;
    uint32_t n;
    pl__store_job *out;
    bool *created; /* NULL: the id is random, new */
} create_args;

static pl_status body_job_create(pl__store *s, void *arg, int64_t now,
                                 pl_error *err)
{
    create_args *a = arg;
    if (a->created) {
        pl_error absent = {0};
        *a->created = false;
        if (pl__store_get_job(s, a->id, a->out, &absent) == PL_OK)
            return PL_OK;
        if (!pl__store_is_not_found(&absent)) {
            *err = absent;
            return absent.code;
        }
        *a->created = true;
    }
    pl__store_circuit c;
    pl_status st = pl__store_get_circuit(s, a->circuit_id, &c, err);
    if (st != PL_OK)
        return st;
    pl__sql_rows r;
    if ((st = PL__EXEC(s, PL__SQL_JOB_INSERT, &r, err, pl__arg_text(a->id),
                       pl__arg_text(a->circuit_id),
                       pl__arg_int(a->priority), pl__arg_int(a->n),
                       pl__arg_int(now))) != PL_OK)
        return st;
    int64_t seq = pl__sql_i64(&r, 0, 0);
    pl__sql_rows_free(&r);
    st = PL__EXEC(s, PL__SQL_PARTS_INSERT, NULL, err, pl__arg_text(a->id),
                  pl__arg_int(a->priority), pl__arg_int(seq),
                  pl__arg_u64(c.partition_bytes), pl__arg_int(a->n));
    if (st == PL_OK)
        st = pl__store_get_job(s, a->id, a->out, err);
    return st;
}

static pl_status check_new_job(const char *circuit_id, pl__priority priority,
                               uint32_t n_partitions, pl_error *err)
{
    PL__CHECK_TEXT("circuit id", circuit_id, PL__STORE_ID_LEN + 1);
    if ((unsigned)priority >= PL__PRIORITY_COUNT)
        return pl__error_set(err, PL_EUSAGE, "store: priority %d",
                             (int)priority);
    if (n_partitions == 0)
        return pl__error_set(err, PL_EUSAGE,
                             "store: a job needs at least one partition");
    return PL_OK;
}

pl_status pl__store_job_create(pl__store *store, const char *circuit_id,
                               pl__priority priority, uint32_t n_partitions,
                               pl__store_job *out, pl_error *err)
{
    pl_status st = check_new_job(circuit_id, priority, n_partitions, err);
    if (st != PL_OK)
        return st;
    PL__CHECK_COPY("circuit id", circuit_id, PL__STORE_ID_LEN + 1);
    memset(out, 0, sizeof(*out));
    char id[PL__STORE_JOB_ID_LEN + 1];
    if ((st = pl__store_new_job_id(id, err)) != PL_OK)
        return st;
    create_args a = {id, circuit_id, priority, n_partitions, out, NULL};
    return pl__store_txn(store, PL__TXN_WRITE, false, body_job_create, &a,
                         err);
}

pl_status pl__store_job_create_with_id(pl__store *store, const char *job_id,
                                       const char *circuit_id,
                                       pl__priority priority,
                                       uint32_t n_partitions,
                                       pl__store_job *out, bool *created,
                                       pl_error *err)
{
    *created = false;
    PL__CHECK_TEXT("job id", job_id, PL__STORE_JOB_ID_LEN + 1);
    if (strlen(job_id) != PL__STORE_JOB_ID_LEN)
        return pl__error_set(err, PL_EUSAGE, "store: a job id of %zu "
                             "characters (%d are needed)", strlen(job_id),
                             PL__STORE_JOB_ID_LEN);
    pl_status st = check_new_job(circuit_id, priority, n_partitions, err);
    if (st != PL_OK)
        return st;
    char id[PL__STORE_JOB_ID_LEN + 1];
    memcpy(id, job_id, sizeof(id));
    PL__CHECK_COPY("circuit id", circuit_id, PL__STORE_ID_LEN + 1);
    memset(out, 0, sizeof(*out));
    create_args a = {id, circuit_id, priority, n_partitions, out, created};
    st = pl__store_txn(store, PL__TXN_WRITE, false, body_job_create, &a, err);
    if (st != PL_OK && !pl__store_is_not_found(err)) {
        /* two creators of one id at once (two processes, two services on
         * one database): both found it absent, the unique id let one
         * insert; the other reads the job the first made */
        pl_error again = {0};
        if (pl__store_job_get(store, id, out, &again) == PL_OK) {
            *created = false;
            return PL_OK;
        }
    }
    return st;
}

typedef struct {
    const char *job_id;
    int64_t deadline;
} deadline_args;

static pl_status body_job_set_deadline(pl__store *s, void *arg, int64_t now,
                                       pl_error *err)
{
    deadline_args *a = arg;
    /* read first: an unknown id is not found, not a silent update */
    pl_status st = pl__store_get_job(s, a->job_id, NULL, err);
    if (st == PL_OK)
        st = PL__EXEC(s, PL__SQL_JOB_DEADLINE, NULL, err,
                      pl__arg_text(a->job_id), pl__arg_int(a->deadline));
    return st;
}

pl_status pl__store_job_set_deadline(pl__store *store, const char *job_id,
                                     int64_t deadline_unix_ms, pl_error *err)
{
    PL__CHECK_JOB_ID(job_id);
    if (deadline_unix_ms < 0)
        return pl__error_set(err, PL_EUSAGE, "store: deadline %lld: below 0",
                             (long long)deadline_unix_ms);
    deadline_args a = {job_id, deadline_unix_ms};
    return pl__store_txn(store, PL__TXN_WRITE, true, body_job_set_deadline,
                         &a, err);
}

bool pl__store_job_deadline_missed(const pl__store_job *j,
                                   int64_t now_unix_ms)
{
    if (j->deadline_unix_ms <= 0)
        return false;
    if (j->state > PL__JOB_RUNNING)
        return j->finished_unix_ms > j->deadline_unix_ms;
    return now_unix_ms > j->deadline_unix_ms;
}

typedef struct {
    const char *job_id;
    uint32_t index;
    const char *path;
    pl__store_job *job_out;
} witness_args;

static pl_status body_witness_stored(pl__store *s, void *arg, int64_t now,
                                     pl_error *err)
{
    witness_args *a = arg;
    pl__store_job job;
    pl__store_partition part;
    /* the job's partitions first: witnesses of one job are recorded one
     * at a time, so the last one sees every other, and queues them */
    pl_status st = PL__EXEC(s, PL__SQL_PARTS_LOCK, NULL, err,
                            pl__arg_text(a->job_id));
    if (st == PL_OK)
        st = pl__store_get_part(s, a->job_id, a->index, &part, err);
    if (st == PL_OK)
        st = pl__store_get_job(s, a->job_id, &job, err);
    if (st != PL_OK)
        return st;
    if (job.state != PL__JOB_RECEIVING)
        return pl__error_set(err, PL_EUSAGE, "job %s is %s: it takes no "
                             "more witnesses", a->job_id,
                             pl__job_state_name(job.state));
    if (part.witness_path[0])
        return pl__error_set(err, PL_EUSAGE, "job %s: partition %u already "
                             "has its witness", a->job_id, a->index);
    st = PL__EXEC(s, PL__SQL_PART_WITNESS, NULL, err,
                  pl__arg_text(a->job_id), pl__arg_int(a->index),
                  pl__arg_text(a->path));
    if (st == PL_OK)
        st = PL__EXEC(s, PL__SQL_JOB_WITNESS, NULL, err,
                      pl__arg_text(a->job_id), pl__arg_int(now));
    if (st == PL_OK)
        st = pl__store_get_job(s, a->job_id, &job, err);
    /* the last witness: the job and all its partitions queue together, so
     * a claim never starts a job whose witnesses are not all on disk */
    if (st == PL_OK && job.state == PL__JOB_QUEUED)
        st = PL__EXEC(s, PL__SQL_PARTS_QUEUE, NULL, err,
                      pl__arg_text(a->job_id));
    if (st == PL_OK && a->job_out)
        *a->job_out = job;
    return st;
}

pl_status pl__store_witness_stored(pl__store *store, const char *job_id,
                                   uint32_t index, const char *witness_path,
                                   pl__store_job *job_out, pl_error *err)
{
    PL__CHECK_JOB_ID(job_id);
    if (job_out)
        memset(job_out, 0, sizeof(*job_out));
    PL__CHECK_TEXT("witness path", witness_path, PL__STORE_PATH_MAX);
    witness_args a = {job_id, index, witness_path, job_out};
    return pl__store_txn(store, PL__TXN_WRITE, false, body_witness_stored, &a,
                         err);
}

typedef struct {
    const char *id;
    pl__store_job *out;
} job_get_args;

static pl_status body_job_get(pl__store *s, void *arg, int64_t now,
                              pl_error *err)
{
    job_get_args *a = arg;
    return pl__store_get_job(s, a->id, a->out, err);
}

pl_status pl__store_job_get(pl__store *store, const char *job_id,
                            pl__store_job *out, pl_error *err)
{
    PL__CHECK_JOB_ID(job_id);
    memset(out, 0, sizeof(*out));
    job_get_args a = {job_id, out};
    return pl__store_txn(store, PL__TXN_ONE, true, body_job_get, &a, err);
}

typedef struct {
    const char *job_id;
    void *out;
    size_t cap, *count;
} rows_args;

static pl_status body_partitions(pl__store *s, void *arg, int64_t now,
                                 pl_error *err)
{
    rows_args *a = arg;
    pl__store_job job;
    pl_status st = pl__store_get_job(s, a->job_id, &job, err);
    if (st != PL_OK)
        return st;
    *a->count = job.n_partitions;
    pl__sql_rows r;
    if ((st = PL__EXEC(s, PL__SQL_PARTS_PAGE, &r, err,
                       pl__arg_text(a->job_id), pl__arg_u64(a->cap))) != PL_OK)
        return st;
    for (size_t i = 0; i < r.n && i < a->cap; i++)
        pl__store_read_part(&r, i, 0, (pl__store_partition *)a->out + i);
    pl__sql_rows_free(&r);
    return PL_OK;
}

/* A job's rows (partitions, attempts): up to cap of size bytes each into
 * out, zeroed first, in one read transaction. */
static pl_status job_rows(pl__store *store, const char *job_id, void *out,
                          size_t cap, size_t size, size_t *count,
                          pl__txn_body body, pl_error *err)
{
    *count = 0;
    PL__CHECK_JOB_ID(job_id);
    if (cap)
        memset(out, 0, cap * size);
    rows_args a = {job_id, out, cap, count};
    return pl__store_txn(store, PL__TXN_READ, true, body, &a, err);
}

pl_status pl__store_partitions(pl__store *store, const char *job_id,
                               pl__store_partition *out, size_t cap,
                               size_t *count, pl_error *err)
{
    return job_rows(store, job_id, out, cap, sizeof(*out), count,
                    body_partitions, err);
}

typedef struct {
    const char *job_id;
    const char *fail_msg; /* NULL: a cancel */
    bool *changed;
} end_args;

static pl_status body_job_end(pl__store *s, void *arg, int64_t now,
                              pl_error *err)
{
    end_args *a = arg;
    pl__store_job job;
    *a->changed = false;
    pl_status st = PL__EXEC(s, PL__SQL_PARTS_LOCK, NULL, err,
                            pl__arg_text(a->job_id));
    if (st == PL_OK)
        st = pl__store_get_job(s, a->job_id, &job, err);
    if (st != PL_OK || job.state > PL__JOB_RUNNING)
        return st;
    st = PL__EXEC(s, PL__SQL_JOB_END, NULL, err, pl__arg_text(a->job_id),
                  pl__arg_text(a->fail_msg ? "failed" : "cancelled"),
                  pl__arg_text(a->fail_msg ? a->fail_msg : ""),
                  pl__arg_int(now));
    if (st == PL_OK)
        st = PL__EXEC(s, PL__SQL_PARTS_CANCEL, NULL, err,
                      pl__arg_text(a->job_id), pl__arg_int(now));
    *a->changed = st == PL_OK;
    return st;
}

static pl_status job_end(pl__store *store, const char *job_id,
                         const char *fail_msg, bool *changed, pl_error *err)
{
    end_args a = {job_id, fail_msg, changed};
    pl_status st = pl__store_txn(store, PL__TXN_WRITE, false, body_job_end,
                                 &a, err);
    if (st != PL_OK)
        *changed = false;
    return st;
}

pl_status pl__store_job_cancel(pl__store *store, const char *job_id,
                               bool *changed, pl_error *err)
{
    *changed = false;
    PL__CHECK_JOB_ID(job_id);
    return job_end(store, job_id, NULL, changed, err);
}

pl_status pl__store_job_fail(pl__store *store, const char *job_id,
                             const char *msg, bool *changed, pl_error *err)
{
    *changed = false;
    PL__CHECK_JOB_ID(job_id);
    char cut[PL__STORE_MSG_MAX];
    pl__store_message(cut, msg);
    return job_end(store, job_id, cut, changed, err);
}

/* ---- claims ---------------------------------------------------------------------- */

typedef struct {
    const char *owner;
    uint64_t max_bytes;
    int64_t lease_ms;
    pl__store_claim *out;
    bool *found;
    char token[PL__STORE_JOB_ID_LEN + 1]; /* this call's */
    int runs;
} claim_args;

static pl_status body_claim(pl__store *s, void *arg, int64_t now,
                            pl_error *err)
{
    claim_args *a = arg;
    *a->found = false;
    pl__sql_rows r = {0};
    pl_status st = PL_OK;
    /* run again: an earlier run may have committed (its answer lost with
     * a connection); its token finds that claim, rather than a second
     * partition taken that nobody would work on while heartbeats renew
     * it */
    if (a->runs++ > 0)
        st = PL__EXEC(s, PL__SQL_CLAIM_FIND, &r, err, pl__arg_text(a->owner),
                      pl__arg_text(a->token));
    if (st == PL_OK && r.n == 0) {
        pl__sql_rows_free(&r);
        st = PL__EXEC(s, PL__SQL_CLAIM_TAKE, &r, err,
                      pl__arg_u64(a->max_bytes), pl__arg_text(a->owner),
                      pl__arg_int(now + a->lease_ms), pl__arg_int(now),
                      pl__arg_text(a->token));
        if (st == PL_OK && r.n == 1)
            st = PL__EXEC(s, PL__SQL_JOB_RUNNING, NULL, err,
                          pl__arg_text(pl__sql_text(&r, 0, 0)),
                          pl__arg_int(now));
    }
    if (st == PL_OK && r.n == 1) {
        char job_id[PL__STORE_JOB_ID_LEN + 1];
        pl__store_copy(job_id, sizeof(job_id), pl__sql_text(&r, 0, 0));
        uint32_t index = (uint32_t)pl__sql_i64(&r, 0, 1);
        pl__store_claim *c = a->out;
        st = pl__store_get_part(s, job_id, index, &c->part, err);
        if (st == PL_OK)
            st = pl__store_get_job(s, job_id, &c->job, err);
        if (st == PL_OK)
            st = pl__store_get_circuit(s, c->job.circuit_id, &c->circuit,
                                       err);
        *a->found = st == PL_OK;
    }
    pl__sql_rows_free(&r);
    return st;
}

pl_status pl__store_claim_next(pl__store *store, const char *owner,
                               uint64_t max_bytes, int64_t lease_ms,
                               pl__store_claim *out, bool *found,
                               pl_error *err)
{
    *found = false;
    PL__CHECK_COPY("owner", owner, PL__STORE_OWNER_MAX);
    PL__CHECK_LEASE(lease_ms);
    memset(out, 0, sizeof(*out));
    claim_args a = {.owner = owner, .max_bytes = max_bytes,
                    .lease_ms = lease_ms, .out = out, .found = found};
    pl_status st = pl__store_new_job_id(a.token, err);
    if (st == PL_OK)
        st = pl__store_txn(store, PL__TXN_WRITE, true, body_claim, &a, err);
    if (st != PL_OK || !*found) {
        *found = false;
        memset(out, 0, sizeof(*out));
    }
    return st;
}

/* The arguments of the calls on one claim. */
typedef struct {
    const char *job_id;
    uint32_t index;
    const char *owner;
    uint64_t fence;
    const char *text;  /* a proof path or a message */
    bool *flag;        /* complete: job_done; fail: requeued */
    bool retry;
    uint32_t max_attempts;
} claim_call;

static pl_status body_claim_started(pl__store *s, void *arg, int64_t now,
                                    pl_error *err)
{
    claim_call *a = arg;
    pl__sql_rows r;
    pl_status st = PL__EXEC(s, PL__SQL_CLAIM_STARTED, &r, err,
                            pl__arg_text(a->job_id), pl__arg_int(a->index),
                            pl__arg_text(a->owner), pl__arg_u64(a->fence),
                            pl__arg_int(now));
    if (st == PL_OK && r.changed == 0)
        st = claim_lost(s, a->job_id, a->index, a->owner, a->fence, err);
    pl__sql_rows_free(&r);
    return st;
}

pl_status pl__store_claim_started(pl__store *store, const char *job_id,
                                  uint32_t index, const char *owner,
                                  uint64_t fence, pl_error *err)
{
    PL__CHECK_JOB_ID(job_id);
    PL__CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    claim_call a = {job_id, index, owner, fence, NULL, NULL, false, 0};
    return pl__store_txn(store, PL__TXN_WRITE, true, body_claim_started, &a,
                         err);
}

typedef struct {
    const char *owner;
    int64_t lease_ms;
} heartbeat_args;

static pl_status body_heartbeat(pl__store *s, void *arg, int64_t now,
                                pl_error *err)
{
    heartbeat_args *a = arg;
    return PL__EXEC(s, PL__SQL_HEARTBEAT, NULL, err, pl__arg_text(a->owner),
                    pl__arg_int(now + a->lease_ms));
}

pl_status pl__store_heartbeat(pl__store *store, const char *owner,
                              int64_t lease_ms, pl_error *err)
{
    PL__CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    PL__CHECK_LEASE(lease_ms);
    heartbeat_args a = {owner, lease_ms};
    return pl__store_txn(store, PL__TXN_WRITE, true, body_heartbeat, &a, err);
}

static pl_status body_claim_live(pl__store *s, void *arg, int64_t now,
                                 pl_error *err)
{
    claim_call *a = arg;
    pl__sql_rows r;
    pl_status st = PL__EXEC(s, PL__SQL_CLAIM_LIVE, &r, err,
                            pl__arg_text(a->job_id), pl__arg_int(a->index),
                            pl__arg_text(a->owner), pl__arg_u64(a->fence));
    *a->flag = st == PL_OK && r.n > 0;
    pl__sql_rows_free(&r);
    return st;
}

pl_status pl__store_claim_live(pl__store *store, const char *job_id,
                               uint32_t index, const char *owner,
                               uint64_t fence, bool *live, pl_error *err)
{
    *live = false;
    PL__CHECK_JOB_ID(job_id);
    PL__CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    claim_call a = {job_id, index, owner, fence, NULL, live, false, 0};
    return pl__store_txn(store, PL__TXN_ONE, true, body_claim_live, &a, err);
}

/* No row changed: either the claim was lost, or an earlier run of this
 * very call committed before its connection broke: the partition is then
 * done with this owner, fence and proof, and that is success. */
static pl_status body_complete(pl__store *s, void *arg, int64_t now,
                               pl_error *err)
{
    claim_call *a = arg;
    pl__sql_rows r;
    *a->flag = false;
    pl_status st = PL__EXEC(s, PL__SQL_PART_COMPLETE, &r, err,
                            pl__arg_text(a->job_id), pl__arg_int(a->index),
                            pl__arg_text(a->owner), pl__arg_u64(a->fence),
                            pl__arg_text(a->text), pl__arg_int(now));
    uint64_t changed = r.changed;
    pl__sql_rows_free(&r);
    if (st != PL_OK)
        return st;
    if (changed == 1) {
        /* the job's new state in the same transaction: a job is done only
         * once all its partitions are, so done here means this completion,
         * the last one, made it so */
        st = PL__EXEC(s, PL__SQL_JOB_COMPLETE, &r, err,
                      pl__arg_text(a->job_id), pl__arg_int(now));
        if (st == PL_OK)
            *a->flag = strcmp(pl__sql_text(&r, 0, 0), "done") == 0;
        pl__sql_rows_free(&r);
        return st;
    }
    pl__store_partition part;
    if ((st = pl__store_get_part(s, a->job_id, a->index, &part, err)) != PL_OK)
        return st;
    if (part.state == PL__PART_DONE && strcmp(part.owner, a->owner) == 0 &&
        part.fence == a->fence && strcmp(part.proof_path, a->text) == 0) {
        /* ours, its answer lost: whether it ended the job is read now.  The
         * completion that ends a job stamps the job and its partition with
         * one time, so equal times say it was ours (a completion of another
         * partition in the same millisecond would say so too: a rare
         * double count, never a missed one) */
        pl__store_job job;
        st = pl__store_get_job(s, a->job_id, &job, err);
        *a->flag = st == PL_OK && job.state == PL__JOB_DONE &&
                   job.finished_unix_ms == part.finished_unix_ms;
        return st;
    }
    return claim_lost(s, a->job_id, a->index, a->owner, a->fence, err);
}

pl_status pl__store_complete_job(pl__store *store, const char *job_id,
                                 uint32_t index, const char *owner,
                                 uint64_t fence, const char *proof_path,
                                 bool *job_done, pl_error *err)
{
    *job_done = false;
    PL__CHECK_JOB_ID(job_id);
    PL__CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    PL__CHECK_TEXT("proof path", proof_path, PL__STORE_PATH_MAX);
    claim_call a = {job_id, index, owner, fence, proof_path, job_done, false,
                    0};
    pl_status st = pl__store_txn(store, PL__TXN_WRITE, true, body_complete,
                                 &a, err);
    if (st != PL_OK)
        *job_done = false;
    return st;
}

pl_status pl__store_complete(pl__store *store, const char *job_id,
                             uint32_t index, const char *owner, uint64_t fence,
                             const char *proof_path, pl_error *err)
{
    bool job_done = false;
    return pl__store_complete_job(store, job_id, index, owner, fence,
                                  proof_path, &job_done, err);
}

/* A failed attempt: kept in attempts, then the partition requeued (a
 * retry) or ended with its job.  The job's partitions are locked first (a
 * final failure cancels the others), then the claim is checked.  Inside a
 * transaction; recovery calls it for each claim whose proof had started. */
static pl_status fail_core(pl__store *s, const claim_call *a, int64_t now,
                           bool *requeued, pl_error *err)
{
    *requeued = false;
    pl__store_partition part;
    pl_status st = PL__EXEC(s, PL__SQL_PARTS_LOCK, NULL, err,
                            pl__arg_text(a->job_id));
    if (st == PL_OK)
        st = pl__store_get_part(s, a->job_id, a->index, &part, err);
    if (st != PL_OK)
        return st;
    if (!claimed_by(&part, a->owner, a->fence))
        return claim_lost(s, a->job_id, a->index, a->owner, a->fence, err);
    pl__sql_rows r;
    if ((st = PL__EXEC(s, PL__SQL_ATTEMPT_COUNT, &r, err,
                       pl__arg_text(a->job_id), pl__arg_int(a->index))))
        return st;
    int64_t n = pl__sql_i64(&r, 0, 0) + 1; /* this attempt */
    pl__sql_rows_free(&r);
    if (a->retry && n < (int64_t)a->max_attempts) {
        st = PL__EXEC(s, PL__SQL_PART_REQUEUE, &r, err,
                      pl__arg_text(a->job_id), pl__arg_int(a->index),
                      pl__arg_text(a->owner), pl__arg_u64(a->fence),
                      pl__arg_text(a->text));
        /* a job that ended meanwhile cancels it instead */
        *requeued = st == PL_OK && r.n == 1 &&
                    strcmp(pl__sql_text(&r, 0, 0), "queued") == 0;
        pl__sql_rows_free(&r);
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
        st = PL__EXEC(s, PL__SQL_PART_FAIL, NULL, err,
                      pl__arg_text(a->job_id), pl__arg_int(a->index),
                      pl__arg_text(a->owner), pl__arg_u64(a->fence),
                      pl__arg_text(a->text), pl__arg_int(now));
        if (st == PL_OK)
            st = PL__EXEC(s, PL__SQL_JOB_FAIL, NULL, err,
                          pl__arg_text(a->job_id), pl__arg_text(job_msg),
                          pl__arg_int(now));
        if (st == PL_OK)
            st = PL__EXEC(s, PL__SQL_PARTS_CANCEL_PENDING, NULL, err,
                          pl__arg_text(a->job_id), pl__arg_int(now));
    }
    if (st == PL_OK)
        st = PL__EXEC(s, PL__SQL_ATTEMPT_INSERT, NULL, err,
                      pl__arg_text(a->job_id), pl__arg_int(a->index),
                      pl__arg_int(n), pl__arg_text(a->owner),
                      pl__arg_u64(a->fence), pl__arg_bool(*requeued),
                      pl__arg_int(now), pl__arg_text(a->text));
    return st;
}

static pl_status body_fail(pl__store *s, void *arg, int64_t now,
                           pl_error *err)
{
    claim_call *a = arg;
    return fail_core(s, a, now, a->flag, err);
}

pl_status pl__store_fail_attempt(pl__store *store, const char *job_id,
                                 uint32_t index, const char *owner,
                                 uint64_t fence, const char *msg,
                                 bool retryable, bool *requeued,
                                 pl_error *err)
{
    bool ignored = false;
    if (!requeued)
        requeued = &ignored;
    *requeued = false;
    PL__CHECK_JOB_ID(job_id);
    PL__CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    char cut[PL__STORE_MSG_MAX];
    pl__store_message(cut, msg);
    claim_call a = {job_id, index, owner, fence, cut, requeued, retryable,
                    store->max_attempts};
    pl_status st = pl__store_txn(store, PL__TXN_WRITE, false, body_fail, &a,
                                 err);
    if (st != PL_OK)
        *requeued = false;
    return st;
}

pl_status pl__store_fail(pl__store *store, const char *job_id, uint32_t index,
                         const char *owner, uint64_t fence, const char *msg,
                         pl_error *err)
{
    return pl__store_fail_attempt(store, job_id, index, owner, fence, msg,
                                  true, NULL, err);
}

static pl_status body_attempts(pl__store *s, void *arg, int64_t now,
                               pl_error *err)
{
    rows_args *a = arg;
    pl_status st = pl__store_get_job(s, a->job_id, NULL, err);
    pl__sql_rows r;
    if (st != PL_OK ||
        (st = PL__EXEC(s, PL__SQL_ATTEMPTS_COUNT, &r, err,
                       pl__arg_text(a->job_id))) != PL_OK)
        return st;
    *a->count = pl__sql_u64(&r, 0, 0);
    pl__sql_rows_free(&r);
    if ((st = PL__EXEC(s, PL__SQL_ATTEMPTS_PAGE, &r, err,
                       pl__arg_text(a->job_id), pl__arg_u64(a->cap))))
        return st;
    for (size_t i = 0; i < r.n && i < a->cap; i++) {
        pl__store_attempt *t = (pl__store_attempt *)a->out + i;
        memset(t, 0, sizeof(*t));
        pl__store_copy(t->job_id, sizeof(t->job_id), pl__sql_text(&r, i, 0));
        t->index = (uint32_t)pl__sql_i64(&r, i, 1);
        t->attempt = (uint32_t)pl__sql_i64(&r, i, 2);
        pl__store_copy(t->owner, sizeof(t->owner), pl__sql_text(&r, i, 3));
        t->fence = pl__sql_u64(&r, i, 4);
        t->retried = pl__sql_bool(&r, i, 5);
        t->at_unix_ms = pl__sql_i64(&r, i, 6);
        pl__store_copy(t->error, sizeof(t->error), pl__sql_text(&r, i, 7));
    }
    pl__sql_rows_free(&r);
    return PL_OK;
}

pl_status pl__store_attempts(pl__store *store, const char *job_id,
                             pl__store_attempt *out, size_t cap,
                             size_t *count, pl_error *err)
{
    return job_rows(store, job_id, out, cap, sizeof(*out), count,
                    body_attempts, err);
}

/* A claim back to the queue without an attempt (or cancelled when its job
 * ended); the message (may be "") is kept as the partition's error.
 * Inside a transaction. */
static pl_status release_core(pl__store *s, const claim_call *a,
                              bool *requeued, pl_error *err)
{
    pl__sql_rows r;
    pl_status st = PL__EXEC(s, PL__SQL_PART_REQUEUE, &r, err,
                            pl__arg_text(a->job_id), pl__arg_int(a->index),
                            pl__arg_text(a->owner), pl__arg_u64(a->fence),
                            pl__arg_text(a->text ? a->text : ""));
    uint64_t changed = r.changed;
    *requeued = st == PL_OK && r.n == 1 &&
                strcmp(pl__sql_text(&r, 0, 0), "queued") == 0;
    pl__sql_rows_free(&r);
    if (st == PL_OK && changed == 0)
        st = claim_lost(s, a->job_id, a->index, a->owner, a->fence, err);
    return st;
}

static pl_status body_release(pl__store *s, void *arg, int64_t now,
                              pl_error *err)
{
    bool requeued = false;
    return release_core(s, arg, &requeued, err);
}

pl_status pl__store_release(pl__store *store, const char *job_id,
                            uint32_t index, const char *owner, uint64_t fence,
                            pl_error *err)
{
    PL__CHECK_JOB_ID(job_id);
    PL__CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    claim_call a = {job_id, index, owner, fence, "", NULL, false, 0};
    return pl__store_txn(store, PL__TXN_WRITE, false, body_release, &a, err);
}

typedef struct {
    const char *owner;
    uint32_t max_attempts;
    uint64_t *requeued;
} recover_args;

/* The claims recovery takes back (their worker died, stalled, restarted or
 * lost the store): the candidates are read first, then each is locked
 * with its job's partitions and checked again (a heartbeat may have
 * renewed it meanwhile: then it stays).  One whose proof had started is a
 * failed attempt, through the same code as a worker's failure, so that a
 * partition that kills every worker taking it (the OOM killer, a driver
 * crash) ends after max_attempts rather than going round the farm for
 * ever; one that was only waiting for room costs nothing. */
static pl_status body_recover(pl__store *s, void *arg, int64_t now,
                              pl_error *err)
{
    recover_args *a = arg;
    *a->requeued = 0;
    pl__sql_rows picks;
    pl_status st = PL__EXEC(s, PL__SQL_RECOVER_PICK, &picks, err,
                            pl__arg_int(now), pl__arg_text(a->owner));
    for (size_t i = 0; st == PL_OK && i < picks.n; i++) {
        char job_id[PL__STORE_JOB_ID_LEN + 1], owner[PL__STORE_OWNER_MAX];
        pl__store_copy(job_id, sizeof(job_id), pl__sql_text(&picks, i, 0));
        pl__store_copy(owner, sizeof(owner), pl__sql_text(&picks, i, 2));
        uint32_t index = (uint32_t)pl__sql_i64(&picks, i, 1);
        uint64_t fence = pl__sql_u64(&picks, i, 3);
        bool own = a->owner && strcmp(owner, a->owner) == 0;
        pl__store_partition part;
        if ((st = PL__EXEC(s, PL__SQL_PARTS_LOCK, NULL, err,
                           pl__arg_text(job_id))) != PL_OK ||
            (st = pl__store_get_part(s, job_id, index, &part, err)) != PL_OK)
            break;
        if (!claimed_by(&part, owner, fence) ||
            (!own && part.lease_until_unix_ms > now))
            continue; /* renewed, ended or taken meanwhile */
        bool started = part.started_unix_ms > 0;
        char msg[PL__STORE_MSG_MAX];
        snprintf(msg, sizeof(msg),
                 own ? "job %s partition %u: its worker %s restarted while "
                       "%s"
                     : "job %s partition %u: the lease of worker %s lapsed "
                       "(it died, stalled or lost the store) while %s",
                 job_id, index, owner,
                 started ? "it was proving the partition"
                         : "the partition waited for room (no attempt "
                           "spent)");
        claim_call c = {job_id, index, owner, fence, msg, NULL, true,
                        a->max_attempts};
        bool again = false;
        st = started ? fail_core(s, &c, now, &again, err)
                     : release_core(s, &c, &again, err);
        *a->requeued += again;
    }
    pl__sql_rows_free(&picks);
    return st;
}

pl_status pl__store_recover(pl__store *store, const char *owner,
                            uint64_t *requeued, pl_error *err)
{
    *requeued = 0;
    if (owner)
        PL__CHECK_TEXT("owner", owner, PL__STORE_OWNER_MAX);
    recover_args a = {owner, store->max_attempts, requeued};
    pl_status st = pl__store_txn(store, PL__TXN_WRITE, false, body_recover,
                                 &a, err);
    if (st != PL_OK)
        *requeued = 0;
    return st;
}
