/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The claim loop of `proofline serve` (see worker.h): store -> engine ->
 * proof files -> store.  One thread, woken by the server (a job queued or
 * cancelled), by the engine's finisher (a proof delivered) or every
 * LOOP_MS.  It does not prove anything itself and holds no partition
 * bytes: the engine maps each witness only when it admits the partition
 * under its budget, so what waits in the queue costs disk, not memory.
 *
 * Why the room is counted here and not read from the engine: the engine
 * reserves a partition's bytes only when it admits it, so a partition just
 * submitted is not yet in its reserved bytes; counting the planned bytes of
 * every claim in flight, plus the resident bytes of the circuits held
 * open, keeps the claims within the budget (the engine's own admission
 * still enforces it byte for byte).
 */
#define _GNU_SOURCE
#include "worker.h"
#include "metrics.h"
#include "residency.h"
#include "formats/json.h"
#include "util/clock.h"
#include "util/error.h"
#include "util/lock.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FLIGHTS 32
#define LOOP_MS 50
/* with nothing in flight the loop asks the store less often: this
 * service's own new jobs wake it at once; another service's (on a shared
 * store) are seen within this */
#define IDLE_MS 250
#define PURGE_EVERY_S 60.0

typedef struct flight {
    bool used;
    uint64_t engine_job;
    pl__store_claim claim;
    uint64_t bytes;       /* planned bytes of the partition */
    double started;       /* monotonic seconds at the claim */
    double promote_s;     /* how long its circuit took to become hot */
    bool release;         /* cancelled by the drain: give it back */
    bool written;         /* on_proof wrote the pair */
    pl_status write_status;
    char write_msg[256];
} flight;

struct pl__worker {
    pl__service *svc;
    pthread_t thread;
    bool thread_started;
    pl__lock lock;
    pthread_cond_t cond;      /* the loop's wake-up */
    pthread_cond_t changed;   /* a flight ended (the drain waits on it) */
    bool kicked, stop_claiming, stop;
    flight flights[MAX_FLIGHTS];
    size_t n_flights;
    uint64_t claimed, completed, failed, released;
    double backoff_until;     /* no claim before (a circuit did not fit) */
    char last_error[256];
};

int64_t pl__service_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void pl__worker_proof_paths(const pl__service *svc, const char *job_id,
                            uint32_t index, char *proof_path,
                            char *public_path, size_t cap)
{
    if (proof_path)
        snprintf(proof_path, cap, "%s/proofs/%s.%u.proof.json", svc->data_dir,
                 job_id, index);
    if (public_path)
        snprintf(public_path, cap, "%s/proofs/%s.%u.public.json",
                 svc->data_dir, job_id, index);
}

bool pl__worker_public_path(const char *proof_path, char *out, size_t cap)
{
    size_t n = strlen(proof_path);
    if (n <= 11 || strcmp(proof_path + n - 11, ".proof.json") != 0)
        return false;
    return snprintf(out, cap, "%.*s.public.json", (int)(n - 11),
                    proof_path) < (int)cap;
}

/* ---- proofs, on the engine's finisher ---------------------------------- */

static void on_proof(void *user, uint64_t job, size_t partition,
                     const pl_proof *proof, const pl_scalar *publics,
                     size_t n_public)
{
    (void)partition;
    pl__worker *w = user;
    char proof_path[PL__STORE_PATH_MAX], public_path[PL__STORE_PATH_MAX];
    pl__lock_acquire(&w->lock);
    flight *f = NULL;
    for (size_t i = 0; i < MAX_FLIGHTS; i++)
        if (w->flights[i].used && w->flights[i].engine_job == job)
            f = &w->flights[i];
    if (f)
        pl__worker_proof_paths(w->svc, f->claim.job.id, f->claim.part.index,
                               proof_path, public_path, sizeof(proof_path));
    pl__lock_release(&w->lock);
    if (!f)
        return;
    /* the pair is whole on disk (temporary, fsync, rename) before the
     * completion is recorded; a crash between the two proves it again */
    pl_error err = {0};
    pl_status st = pl_proof_write_json(proof, proof_path, publics, n_public,
                                       public_path, &err);
    pl__lock_acquire(&w->lock);
    f->written = st == PL_OK;
    f->write_status = st;
    snprintf(f->write_msg, sizeof(f->write_msg), "%s", err.msg);
    pthread_cond_signal(&w->cond);
    pl__lock_release(&w->lock);
}

/* ---- room ---------------------------------------------------------------- */

static uint64_t inflight_sum_locked(const pl__worker *w)
{
    assert(pl__lock_mine(&w->lock));
    uint64_t sum = 0;
    for (size_t i = 0; i < MAX_FLIGHTS; i++)
        if (w->flights[i].used)
            sum += w->flights[i].bytes;
    return sum;
}

/* This worker as the cluster sees it (GET /v1/cluster): its budget, what
 * it has reserved, its partitions per engine stage and its hot
 * parameters. */
static void worker_row(pl__worker *w, pl__store_worker *row)
{
    pl__service *svc = w->svc;
    memset(row, 0, sizeof(*row));
    snprintf(row->id, sizeof(row->id), "%s", svc->owner);
    if (gethostname(row->host, sizeof(row->host) - 1) != 0)
        snprintf(row->host, sizeof(row->host), "unknown");
    row->pid = (int64_t)getpid();
    pl_engine_stats st;
    pl_engine_stats_read(svc->engine, &st);
    snprintf(row->backend, sizeof(row->backend), "%s",
             st.backend ? st.backend : "cpu");
    row->budget_bytes = st.budget_bytes;
    row->reserved_bytes = st.reserved_bytes;
    uint64_t hot = 0;
    pl__residency_bytes(svc->residency, &hot, NULL, NULL);
    pl__lock_acquire(&w->lock);
    size_t in_flight = w->n_flights;
    pl__lock_release(&w->lock);
    pl__strbuf sb = {0};
    pl__strbuf_printf(&sb, "{\"in_flight\": %zu, \"hot_params_bytes\": %llu, "
                      "\"stages\": {", in_flight, (unsigned long long)hot);
    for (int k = 0; k < PL_STAGE_COUNT; k++)
        pl__strbuf_printf(&sb, "%s\"%s\": %llu", k ? ", " : "",
                          pl_stage_name((pl_stage)k),
                          (unsigned long long)st.stage_now[k]);
    pl__strbuf_printf(&sb, "}}");
    snprintf(row->status_json, sizeof(row->status_json), "%s",
             sb.failed || !sb.data ? "{}" : sb.data);
    pl__strbuf_free(&sb);
}

/* ---- claims -------------------------------------------------------------- */

static void note_error(pl__worker *w, const char *what, const pl_error *err)
{
    pl__lock_acquire(&w->lock);
    snprintf(w->last_error, sizeof(w->last_error), "%s: %.200s", what, err->msg);
    pl__lock_release(&w->lock);
    fprintf(stderr, "proofline serve: %s: %s\n", what, err->msg);
}

/* The counters are read by the status under the lock. */
static void count(pl__worker *w, uint64_t *counter)
{
    pl__lock_acquire(&w->lock);
    (*counter)++;
    pl__lock_release(&w->lock);
}

/* Ends a claim with a failure whose message names the partition and the
 * kind of failure (the status's text first, so a client can tell an
 * invalid proof from a broken input).  A failure of the input (a witness
 * that does not satisfy the circuit, a malformed file) fails the job at
 * once; anything else (memory, I/O, a device) is retried, by any worker,
 * up to the store's max_attempts. */
static void fail_claim(pl__worker *w, const char *job_id, uint32_t index,
                       uint64_t fence, pl_status st, const char *why)
{
    pl__service *svc = w->svc;
    bool input = st == PL_EINVALID || st == PL_EFORMAT || st == PL_EUNSAT ||
                 st == PL_EUSAGE || st == PL_EUNSUPPORTED;
    char msg[PL__STORE_MSG_MAX];
    snprintf(msg, sizeof(msg), "job %s partition %u: %s: %.160s", job_id,
             index, pl_strerror(st), why);
    pl_error e2 = {0};
    bool requeued = false;
    if (pl__store_fail_attempt(svc->store, job_id, index, svc->owner, fence,
                               msg, !input, &requeued, &e2) != PL_OK)
        note_error(w, "fail", &e2);
    else if (requeued)
        fprintf(stderr, "proofline serve: %s (retried)\n", msg);
    count(w, &w->failed);
}

/* A claim goes back to the queue (not now), and no claim for a second. */
static void give_back(pl__worker *w, const pl__store_claim *claim)
{
    pl_error e2 = {0};
    pl__store_release(w->svc->store, claim->job.id, claim->part.index,
                      w->svc->owner, claim->part.fence, &e2);
    w->backoff_until = pl__now_seconds() + 1.0;
}

/* Claims one partition when there is room and a free slot; true when it
 * did (the loop tries again at once).
 *
 * The room is the budget less what cannot move: partitions in flight and
 * hot circuits in use.  Idle hot circuits do not count against it: they
 * are demoted (least recently used first) when a claim needs their bytes,
 * so the claim's own circuit, its partition and everything in flight fit
 * the budget before the engine is asked to admit it. */
static bool claim_one(pl__worker *w, pl__store_claim *claim)
{
    pl__service *svc = w->svc;
    pl__lock_acquire(&w->lock);
    bool can = !w->stop_claiming && w->n_flights < MAX_FLIGHTS;
    uint64_t inflight = inflight_sum_locked(w);
    pl__lock_release(&w->lock);
    uint64_t in_use = 0;
    pl__residency_bytes(svc->residency, NULL, &in_use, NULL);
    uint64_t used = inflight + in_use;
    if (!can || used >= svc->budget_bytes || pl__now_seconds() < w->backoff_until)
        return false;
    uint64_t room = svc->budget_bytes - used;
    bool found = false;
    pl_error err = {0};
    if (pl__store_claim_next(svc->store, svc->owner, room, svc->lease_ms,
                             claim, &found, &err) != PL_OK) {
        note_error(w, "claim", &err);
        return false;
    }
    if (!found)
        return false;
    const char *job_id = claim->job.id;
    const char *circuit_id = claim->circuit.id;
    uint32_t index = claim->part.index;
    /* its circuit hot: promoted now if it is not (seconds for a large key) */
    pl_circuit *circuit = NULL;
    double promote_s = 0;
    bool busy = false;
    pl_status st = pl__residency_acquire(svc->residency, circuit_id,
                                         claim->circuit.zkey_path, 0,
                                         &circuit, &promote_s, &busy, &err);
    if (st != PL_OK) {
        if (busy) { /* the circuits in use hold the room: later */
            give_back(w, claim);
            return false;
        }
        fail_claim(w, job_id, index, claim->part.fence, st, err.msg);
        return true;
    }
    if (promote_s > 0) {
        pl__metrics_promotion(svc->metrics, circuit_id, promote_s);
        if (svc->log_claims)
            fprintf(stderr, "proofline serve: circuit %.16s... promoted "
                    "(hot) in %.3f s for job %s partition %u\n", circuit_id,
                    promote_s, job_id, index);
    }
    uint64_t part_bytes = 0;
    pl_circuit_plan(circuit, claim->circuit.witness_bytes, &part_bytes, NULL);
    /* room for this partition beside everything in flight: idle circuits
     * other than this one are demoted if they hold it */
    pl__lock_acquire(&w->lock);
    inflight = inflight_sum_locked(w);
    pl__lock_release(&w->lock);
    uint64_t allowed_hot = svc->budget_bytes > inflight + part_bytes
                               ? svc->budget_bytes - inflight - part_bytes
                               : 0;
    if (pl__residency_shrink(svc->residency, allowed_hot, circuit_id) >
        allowed_hot) {
        pl__residency_release(svc->residency, circuit_id);
        give_back(w, claim);
        return false;
    }
    const char *paths[1] = {claim->part.witness_path};
    pl_job_spec spec = {0};
    spec.circuit = circuit;
    spec.n_partitions = 1;
    spec.witness_paths = paths;
    spec.priority = (int)claim->job.priority;
    spec.verify = true;
    spec.on_proof = on_proof;
    spec.on_proof_user = w;
    pl__lock_acquire(&w->lock);
    flight *f = NULL;
    for (size_t i = 0; i < MAX_FLIGHTS && !f; i++)
        if (!w->flights[i].used)
            f = &w->flights[i];
    memset(f, 0, sizeof(*f));
    f->claim = *claim;
    f->bytes = part_bytes;
    f->started = pl__now_seconds();
    f->promote_s = promote_s;
    /* under the lock, so that a proof delivered before submit returns
     * finds its flight (on_proof takes the lock) */
    st = pl_engine_submit(svc->engine, &f->engine_job, &spec, &err);
    if (st == PL_OK) {
        if (svc->log_claims)
            fprintf(stderr, "proofline serve: job %s partition %u (%s "
                    "priority, attempt %u) is engine job %llu\n", job_id,
                    index, pl__priority_name(claim->job.priority),
                    claim->part.attempts, (unsigned long long)f->engine_job);
        pl__metrics_note_job(svc->metrics, f->engine_job, job_id, index);
        f->used = true;
        w->n_flights++;
        w->claimed++;
    }
    pl__lock_release(&w->lock);
    if (st != PL_OK) {
        pl__residency_release(svc->residency, circuit_id);
        fail_claim(w, job_id, index, claim->part.fence, st, err.msg);
    }
    return true;
}

/* A job with a deadline that a completion of this worker made done: met
 * or missed, counted by class, a miss logged.  Judged by the store's
 * times (finished_ms, the store's clock: the database's in a cluster),
 * the same the job's JSON shows. */
static void judge_deadline(pl__worker *w, const char *job_id)
{
    pl__service *svc = w->svc;
    pl__store_job job;
    pl_error err = {0};
    if (pl__store_job_get(svc->store, job_id, &job, &err) != PL_OK) {
        note_error(w, "reading a finished job's deadline", &err);
        return;
    }
    if (job.deadline_unix_ms <= 0 || job.state != PL__JOB_DONE)
        return;
    bool missed = pl__store_job_deadline_missed(&job, job.finished_unix_ms);
    pl__metrics_deadline(svc->metrics, job.priority, missed);
    if (missed)
        fprintf(stderr, "proofline serve: job %s (%s) missed its deadline "
                "by %lld ms (done in %lld ms, %lld ms allowed); completed "
                "all the same\n",
                job.id, pl__priority_name(job.priority),
                (long long)(job.finished_unix_ms - job.deadline_unix_ms),
                (long long)(job.finished_unix_ms - job.created_unix_ms),
                (long long)(job.deadline_unix_ms - job.created_unix_ms));
}

/* Ends the flights whose engine job is done: records the completion (the
 * pair is on disk), the failure (naming the partition), or gives the claim
 * back (drained). */
static void reap(pl__worker *w)
{
    pl__service *svc = w->svc;
    for (size_t i = 0; i < MAX_FLIGHTS; i++) {
        pl__lock_acquire(&w->lock);
        flight *f = &w->flights[i];
        if (!f->used) {
            pl__lock_release(&w->lock);
            continue;
        }
        pl_job_status js;
        pl_error err = {0};
        if (pl_engine_poll(svc->engine, f->engine_job, &js, &err) != PL_OK ||
            !js.done) {
            pl__lock_release(&w->lock);
            continue;
        }
        pl_engine_wait(svc->engine, f->engine_job, &js, &err); /* forgets it */
        flight done = *f;
        f->used = false;
        w->n_flights--;
        pl__lock_release(&w->lock);
        pl__residency_release(svc->residency, done.claim.circuit.id);

        const char *job_id = done.claim.job.id;
        uint32_t index = done.claim.part.index;
        uint64_t fence = done.claim.part.fence;
        pl_error e2 = {0};
        double seconds = pl__now_seconds() - done.started;
        if (js.status == PL_OK && done.written) {
            char proof_path[PL__STORE_PATH_MAX];
            pl__worker_proof_paths(svc, job_id, index, proof_path, NULL,
                                   sizeof(proof_path));
            bool job_done = false;
            pl_status st = pl__store_complete_job(svc->store, job_id, index,
                                                  svc->owner, fence,
                                                  proof_path, &job_done, &e2);
            if (st == PL_OK) {
                count(w, &w->completed);
                pl__metrics_proof_done(svc->metrics, seconds, true);
                /* the deadline was recorded before the job could be
                 * claimed, so the claim's copy of the job has it */
                if (job_done && done.claim.job.deadline_unix_ms > 0)
                    judge_deadline(w, job_id);
            } else if (st != PL_ECANCELLED) {
                note_error(w, "complete", &e2);
            }
        } else if (done.release || (js.status == PL_ECANCELLED &&
                                    atomic_load(&svc->draining))) {
            if (pl__store_release(svc->store, job_id, index, svc->owner,
                                  fence, &e2) == PL_OK)
                count(w, &w->released);
        } else if (js.status == PL_ECANCELLED) {
            /* the job was cancelled through the API: the store knows */
        } else {
            fail_claim(w, job_id, index, fence,
                       js.status != PL_OK ? js.status : done.write_status,
                       js.status != PL_OK ? js.error.msg : done.write_msg);
            pl__metrics_proof_done(svc->metrics, seconds, false);
        }
        pl__lock_acquire(&w->lock);
        pthread_cond_broadcast(&w->changed);
        pl__lock_release(&w->lock);
    }
}

/* Claims whose job was cancelled, or whose lease another worker took over,
 * stop in the engine. */
static void check_live(pl__worker *w)
{
    pl__service *svc = w->svc;
    for (size_t i = 0; i < MAX_FLIGHTS; i++) {
        pl__lock_acquire(&w->lock);
        flight f = w->flights[i];
        pl__lock_release(&w->lock);
        if (!f.used)
            continue;
        bool live = true;
        pl_error err = {0};
        if (pl__store_claim_live(svc->store, f.claim.job.id,
                                 f.claim.part.index, svc->owner,
                                 f.claim.part.fence, &live, &err) == PL_OK &&
            !live) {
            pl__lock_acquire(&w->lock);
            if (w->flights[i].used && w->flights[i].engine_job == f.engine_job)
                pl_engine_cancel(svc->engine, f.engine_job, &err);
            pl__lock_release(&w->lock);
        }
    }
}

static void unlink_path(void *user, const char *path)
{
    (void)user;
    if (path && *path)
        unlink(path);
    /* a proof's public.json beside it */
    char pub[PL__STORE_PATH_MAX + 8];
    if (path && pl__worker_public_path(path, pub, sizeof(pub)))
        unlink(pub);
}

static void *loop(void *arg)
{
    pl__worker *w = arg;
    pl__service *svc = w->svc;
    double last_beat = pl__now_seconds(), last_live = 0, last_purge = 0;
    double last_recover = pl__now_seconds();
    for (;;) {
        pl__lock_acquire(&w->lock);
        bool stop = w->stop;
        pl__lock_release(&w->lock);
        if (stop)
            break;
        reap(w);
        double now = pl__now_seconds();
        pl_error err = {0};
        if (now - last_beat >= (double)svc->lease_ms / 3000.0) {
            /* the worker's row (the cluster's view) and its leases, in
             * one transaction */
            pl__store_worker row;
            worker_row(w, &row);
            if (pl__store_worker_heartbeat(svc->store, &row, svc->lease_ms,
                                           &err) != PL_OK)
                note_error(w, "heartbeat", &err);
            last_beat = now;
        }
        if (now - last_live >= 0.25) {
            check_live(w);
            last_live = now;
        }
        if (now - last_recover >= (double)svc->lease_ms / 1000.0) {
            uint64_t n = 0; /* other owners' lapsed leases */
            pl__store_recover(svc->store, NULL, &n, &err);
            last_recover = now;
        }
        if (svc->retain_ms > 0 && now - last_purge >= PURGE_EVERY_S) {
            uint64_t removed = 0;
            pl__store_purge(svc->store, pl__service_now_ms() - svc->retain_ms,
                            unlink_path, NULL, &removed, &err);
            last_purge = now;
        }
        pl__store_claim claim;
        while (claim_one(w, &claim))
            ;
        if (svc->params_idle_s > 0)
            pl__residency_demote_idle(svc->residency, svc->params_idle_s);

        pl__lock_acquire(&w->lock);
        if (!w->kicked && !w->stop) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += (w->n_flights ? LOOP_MS : IDLE_MS) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pl__lock_timedwait(&w->lock, &w->cond, &ts);
        }
        w->kicked = false;
        pl__lock_release(&w->lock);
    }
    return NULL;
}

pl_status pl__worker_start(pl__worker **out, pl__service *svc, pl_error *err)
{
    *out = NULL;
    pl__worker *w = calloc(1, sizeof(*w));
    if (!w)
        return pl__error_set(err, PL_ENOMEM, "the worker: out of memory");
    w->svc = svc;
    pl__lock_init(&w->lock);
    pthread_cond_init(&w->cond, NULL);
    pthread_cond_init(&w->changed, NULL);
    uint64_t requeued = 0;
    pl_status st = pl__store_recover(svc->store, svc->owner, &requeued, err);
    if (st != PL_OK)
        goto fail;
    if (requeued)
        fprintf(stderr, "proofline serve: recovered %llu claim(s) of %s\n",
                (unsigned long long)requeued, svc->owner);
    pl__store_worker row;
    worker_row(w, &row);
    if ((st = pl__store_worker_register(svc->store, &row, err)) != PL_OK)
        goto fail;
    /* published before the loop starts: the engine's events (on its
     * threads, once the loop submits) read it through the service */
    *out = w;
    if (pthread_create(&w->thread, NULL, loop, w) != 0) {
        st = pl__error_set(err, PL_EINTERNAL, "the worker: pthread_create "
                           "failed");
        goto fail;
    }
    w->thread_started = true;
    pthread_setname_np(w->thread, "pl-claim");
    return PL_OK;
fail:
    *out = NULL;
    pl__worker_destroy(w);
    return st;
}

void pl__worker_on_event(void *user, const pl_ledger_record *record)
{
    pl__service *svc = user;
    pl__metrics_on_event(svc->metrics, record);
    /* emitted once the job's counters say the partition ended */
    if (record->event == PL_EV_DEALLOC_DONE ||
        record->event == PL_EV_FAILED || record->event == PL_EV_CANCELLED)
        pl__worker_kick(svc->worker);
}

void pl__worker_kick(pl__worker *w)
{
    if (!w)
        return;
    pl__lock_acquire(&w->lock);
    w->kicked = true;
    pthread_cond_signal(&w->cond);
    pl__lock_release(&w->lock);
}

void pl__worker_cancel_job(pl__worker *w, const char *job_id)
{
    if (!w)
        return;
    pl__lock_acquire(&w->lock);
    for (size_t i = 0; i < MAX_FLIGHTS; i++)
        if (w->flights[i].used && strcmp(w->flights[i].claim.job.id, job_id) == 0)
            pl_engine_cancel(w->svc->engine, w->flights[i].engine_job, NULL);
    w->kicked = true;
    pthread_cond_signal(&w->cond);
    pl__lock_release(&w->lock);
}

static void deadline_after(struct timespec *ts, double seconds)
{
    clock_gettime(CLOCK_REALTIME, ts);
    double ns = (double)ts->tv_nsec + seconds * 1e9;
    ts->tv_sec += (time_t)(ns / 1e9);
    ts->tv_nsec = (long)(ns - (double)(time_t)(ns / 1e9) * 1e9);
}

size_t pl__worker_drain(pl__worker *w, double timeout_s)
{
    if (!w || !w->thread_started)
        return 0;
    pl__lock_acquire(&w->lock);
    w->stop_claiming = true;
    uint64_t released_before = w->released;
    struct timespec deadline;
    deadline_after(&deadline, timeout_s);
    while (w->n_flights > 0)
        if (pl__lock_timedwait(&w->lock, &w->changed, &deadline) ==
            ETIMEDOUT)
            break;
    /* what did not finish in time goes back to the queue */
    for (size_t i = 0; i < MAX_FLIGHTS; i++)
        if (w->flights[i].used) {
            w->flights[i].release = true;
            pl_engine_cancel(w->svc->engine, w->flights[i].engine_job, NULL);
        }
    while (w->n_flights > 0)
        pl__lock_wait(&w->lock, &w->changed);
    w->stop = true;
    pthread_cond_signal(&w->cond);
    size_t released = (size_t)(w->released - released_before);
    pl__lock_release(&w->lock);
    pthread_join(w->thread, NULL);
    w->thread_started = false;
    pl_error err = {0};
    if (pl__store_worker_gone(w->svc->store, w->svc->owner, &err) != PL_OK)
        fprintf(stderr, "proofline serve: the store: %s\n", err.msg);
    return released;
}

void pl__worker_destroy(pl__worker *w)
{
    if (!w)
        return;
    if (w->thread_started)
        pl__worker_drain(w, 0);
    pthread_cond_destroy(&w->changed);
    pthread_cond_destroy(&w->cond);
    pl__lock_destroy(&w->lock);
    free(w);
}

void pl__worker_status_json(pl__worker *w, pl__strbuf *sb)
{
    uint64_t hot = 0;
    pl__residency_bytes(w->svc->residency, &hot, NULL, NULL);
    pl__lock_acquire(&w->lock);
    const char *state = w->stop_claiming ? "draining"
                        : w->n_flights   ? "busy"
                                         : "idle";
    pl__strbuf_printf(sb, "[{\"owner\": ");
    pl__json_put_string(sb, w->svc->owner);
    pl__strbuf_printf(sb, ", \"state\": \"%s\", \"in_flight\": %zu, "
                      "\"claimed\": %llu, \"completed\": %llu, \"failed\": "
                      "%llu, \"released\": %llu, \"in_flight_bytes\": %llu, "
                      "\"resident_bytes\": %llu, \"partitions\": [",
                      state, w->n_flights, (unsigned long long)w->claimed,
                      (unsigned long long)w->completed,
                      (unsigned long long)w->failed,
                      (unsigned long long)w->released,
                      (unsigned long long)inflight_sum_locked(w),
                      (unsigned long long)hot);
    bool first = true;
    for (size_t i = 0; i < MAX_FLIGHTS; i++)
        if (w->flights[i].used) {
            pl__strbuf_printf(sb, "%s{\"job\": \"%s\", \"index\": %u}",
                              first ? "" : ", ", w->flights[i].claim.job.id,
                              w->flights[i].claim.part.index);
            first = false;
        }
    pl__strbuf_printf(sb, "], \"last_error\": ");
    pl__json_put_string(sb, w->last_error);
    pl__strbuf_printf(sb, "}]");
    pl__lock_release(&w->lock);
}
