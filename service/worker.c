/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The claim loop of `proofline serve` (see worker.h): store -> engine ->
 * proof files -> store.  One thread, woken by the server (a job queued or
 * cancelled), by the engine (a partition admitted or ended) or every
 * LOOP_MS.  It proves nothing itself and holds no partition bytes: the
 * engine maps each witness only when it admits the partition under its
 * budget, so what waits in the queue costs disk, not memory.
 *
 * What it claims is what its engine can admit now, read from the engine
 * (pl_engine_stats.committed_bytes: reserved, and planned for what was
 * submitted and not admitted) rather than counted beside it: the room is
 * the budget less that, plus what idle hot circuits would give back; and a
 * claim is made only while no earlier claim waits for admission.  So the
 * claims it holds are the partitions in its engine, and one more at most,
 * and a restart (which charges an attempt only to claims the store was
 * told had started) costs nothing to partitions that were only waiting.
 *
 * The store can fail to record an outcome (a full disk, a store gone read
 * only, its folder removed): the outcome is kept (unrecorded[]) and
 * recorded when the store writes again, before any heartbeat renews it: a
 * completion whose proof is on disk is recorded as such, a failure gives
 * its claim back.  Meanwhile the health probe says the service is not
 * ready and nothing is claimed.
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

#define MAX_FLIGHTS PL__WORKER_MAX_FLIGHTS
/* the longest message a pl_error holds */
#define ENGINE_MSG_MAX (sizeof(((pl_error *)0)->msg) - 1)
#define LOOP_MS 50
/* with nothing in flight the loop asks the store less often: this
 * service's own new jobs wake it at once; another service's (on a shared
 * store) are seen within this */
#define IDLE_MS 250
#define PURGE_EVERY_S 60.0
#define HEALTH_EVERY_S 1.0

typedef struct flight {
    bool used;
    uint64_t engine_job;  /* 0 until submitted */
    pl__store_claim claim;
    pl__flight_stage stage;
    bool start_told;      /* the store knows its proof started */
    double started;       /* monotonic seconds at the claim */
    bool release;         /* cancelled by the drain: give it back */
    bool written;         /* on_proof wrote the pair */
    pl_curve curve;       /* the circuit's: the pair's JSON */
    pl_status write_status;
    char write_msg[256];
} flight;

/* An outcome the store could not record yet. */
typedef struct unrecorded {
    bool used;
    char job_id[PL__STORE_JOB_ID_LEN + 1];
    uint32_t index;
    uint64_t fence;
    bool complete;        /* its proof is on disk: record the completion */
    bool deadline;        /* its job has a deadline (judged when done) */
    double seconds;       /* from its claim to its end */
} unrecorded;

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
    unrecorded pending[MAX_FLIGHTS];
    size_t n_pending;
    uint64_t claimed, completed, failed, released;
    double backoff_until;     /* no claim before (a circuit did not fit) */
    char last_error[PL__STORE_MSG_MAX];
    bool error_logged;        /* a store failure is on stderr already */
};

const char *pl__flight_stage_name(pl__flight_stage s)
{
    static const char *const names[] = {
#define PL__FLIGHT_STAGE_NAME(name, label) label,
        PL__FLIGHT_STAGE_MAP(PL__FLIGHT_STAGE_NAME)
#undef PL__FLIGHT_STAGE_NAME
    };
    return (unsigned)s < PL__FLIGHT_STAGE_COUNT ? names[s] : "unknown";
}

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

static flight *flight_of_locked(pl__worker *w, uint64_t engine_job)
{
    assert(pl__lock_mine(&w->lock));
    for (size_t i = 0; engine_job && i < MAX_FLIGHTS; i++)
        if (w->flights[i].used && w->flights[i].engine_job == engine_job)
            return &w->flights[i];
    return NULL;
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
    flight *f = flight_of_locked(w, job);
    if (f)
        pl__worker_proof_paths(w->svc, f->claim.job.id, f->claim.part.index,
                               proof_path, public_path, sizeof(proof_path));
    pl__lock_release(&w->lock);
    if (!f)
        return;
    /* the pair is whole on disk (temporary, fsync, rename) before the
     * completion is recorded; a crash between the two proves it again */
    pl_error err = {0};
    pl_status st = pl_proof_write_json_curve(proof, f->curve, proof_path,
                                             publics, n_public, public_path,
                                             &err);
    pl__lock_acquire(&w->lock);
    f->written = st == PL_OK;
    f->write_status = st;
    snprintf(f->write_msg, sizeof(f->write_msg), "%s", err.msg);
    pthread_cond_signal(&w->cond);
    pl__lock_release(&w->lock);
}

/* ---- the cluster's row and the errors --------------------------------------- */

/* This worker as the cluster sees it (GET /v1/cluster): its budget, what
 * it has reserved, its claims by stage and its hot parameters. */
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
    pl__worker_view v;
    pl__worker_view_read(w, &v);
    pl__strbuf sb = {0};
    pl__jw jw;
    pl__jw_to_buffer(&jw, &sb, false);
    pl__jw_object(&jw);
    pl__jw_key_u64(&jw, "in_flight", v.in_flight);
    pl__jw_key_u64(&jw, "hot_params_bytes", hot);
    pl__jw_key(&jw, "stages");
    pl__jw_object(&jw);
    for (int k = 0; k < PL__FLIGHT_STAGE_COUNT; k++)
        pl__jw_key_u64(&jw, pl__flight_stage_name((pl__flight_stage)k),
                       v.stages[k]);
    pl__jw_end_object(&jw);
    pl__jw_end_object(&jw);
    snprintf(row->status_json, sizeof(row->status_json), "%s",
             jw.failed || !sb.data ? "{}" : sb.data);
    pl__strbuf_free(&sb);
}

/* A failure to write the store, for the status (the latest) and stderr
 * (the first only, until the store takes a heartbeat again: a full disk
 * fails every round, in several ways, and one line says it). */
static void note_error(pl__worker *w, const char *what, const pl_error *err)
{
    pl__lock_acquire(&w->lock);
    snprintf(w->last_error, sizeof(w->last_error), "%s: %s", what, err->msg);
    bool again = w->error_logged;
    w->error_logged = true;
    pl__lock_release(&w->lock);
    if (!again)
        fprintf(stderr, "proofline serve: %s: %s (more such failures are "
                "in /v1/status until it writes again)\n", what, err->msg);
}

/* The counters are read by the status under the lock. */
static void count(pl__worker *w, uint64_t *counter)
{
    pl__lock_acquire(&w->lock);
    (*counter)++;
    pl__lock_release(&w->lock);
}

/* ---- outcomes and what the store could not record ------------------------------ */

static void keep_unrecorded(pl__worker *w, const pl__store_claim *c,
                            bool complete, double seconds)
{
    pl__lock_acquire(&w->lock);
    for (size_t i = 0; i < MAX_FLIGHTS; i++) {
        unrecorded *u = &w->pending[i];
        if (u->used)
            continue;
        memset(u, 0, sizeof(*u));
        u->used = true;
        snprintf(u->job_id, sizeof(u->job_id), "%s", c->job.id);
        u->index = c->part.index;
        u->fence = c->part.fence;
        u->complete = complete;
        u->deadline = c->job.deadline_unix_ms > 0;
        u->seconds = seconds;
        w->n_pending++;
        break;
    }
    pl__lock_release(&w->lock);
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

/* Records a completion; false when the store could not (kept for later). */
static bool record_complete(pl__worker *w, const char *job_id, uint32_t index,
                            uint64_t fence, bool deadline, double seconds)
{
    pl__service *svc = w->svc;
    char proof_path[PL__STORE_PATH_MAX];
    pl__worker_proof_paths(svc, job_id, index, proof_path, NULL,
                           sizeof(proof_path));
    bool job_done = false;
    pl_error err = {0};
    pl_status st = pl__store_complete_job(svc->store, job_id, index,
                                          svc->owner, fence, proof_path,
                                          &job_done, &err);
    if (st == PL_ECANCELLED)
        return true; /* the claim was lost: another worker's now */
    if (st != PL_OK) {
        note_error(w, "recording a proof (kept until the store can write)",
                   &err);
        return false;
    }
    count(w, &w->completed);
    pl__metrics_proof_done(svc->metrics, seconds, true);
    /* the deadline was recorded before the job could be claimed */
    if (job_done && deadline)
        judge_deadline(w, job_id);
    return true;
}

/* Gives a claim back; false when the store could not. */
static bool record_release(pl__worker *w, const char *job_id, uint32_t index,
                           uint64_t fence)
{
    pl_error err = {0};
    pl_status st = pl__store_release(w->svc->store, job_id, index,
                                     w->svc->owner, fence, &err);
    if (st == PL_OK)
        count(w, &w->released);
    if (st == PL_OK || st == PL_ECANCELLED)
        return true;
    note_error(w, "giving a claim back (kept until the store can write)",
               &err);
    return false;
}

/* Ends a claim with a failure whose message names the partition and the
 * kind of failure (the status's text first, so a client can tell an
 * invalid proof from a broken input).  A failure of the input (a witness
 * that does not satisfy the circuit, a malformed file) fails the job at
 * once; anything else (memory, I/O, a device) is retried, by any worker,
 * up to the store's max_attempts.  A failure the store cannot record
 * gives the claim back instead, when it can write again. */
static void fail_claim(pl__worker *w, const pl__store_claim *c, pl_status st,
                       const char *why)
{
    pl__service *svc = w->svc;
    bool input = st == PL_EINVALID || st == PL_EFORMAT || st == PL_EUNSAT ||
                 st == PL_EUSAGE || st == PL_EUNSUPPORTED;
    pl__strbuf msg = {0};
    pl__strbuf_printf(&msg, "job %s partition %u: %s: %s", c->job.id,
                      c->part.index, pl_strerror(st), why);
    /* the engine's words come in a pl_error, whose message is cut at its
     * size: say so rather than end mid-word */
    if (strlen(why) == ENGINE_MSG_MAX)
        pl__strbuf_printf(&msg, " [...: the engine's message is cut at %zu "
                          "bytes]", ENGINE_MSG_MAX);
    pl_error e2 = {0};
    bool requeued = false;
    pl_status fs = pl__store_fail_attempt(
        svc->store, c->job.id, c->part.index, svc->owner, c->part.fence,
        msg.data ? msg.data : pl_strerror(st), !input, &requeued, &e2);
    if (fs == PL_OK && requeued)
        fprintf(stderr, "proofline serve: %s (retried)\n", msg.data);
    if (fs != PL_OK && fs != PL_ECANCELLED) {
        note_error(w, "recording a failure (the claim goes back when the "
                   "store can write)", &e2);
        if (!record_release(w, c->job.id, c->part.index, c->part.fence))
            keep_unrecorded(w, c, false, 0);
        pl__health_probe(svc);
    } else {
        count(w, &w->failed);
    }
    pl__strbuf_free(&msg);
}

/* The outcomes the store could not record, again: before a heartbeat, so
 * the heartbeat never renews a claim whose outcome is known. */
static void record_pending(pl__worker *w)
{
    for (size_t i = 0; i < MAX_FLIGHTS; i++) {
        pl__lock_acquire(&w->lock);
        unrecorded u = w->pending[i];
        pl__lock_release(&w->lock);
        if (!u.used)
            continue;
        bool done = u.complete ? record_complete(w, u.job_id, u.index,
                                                 u.fence, u.deadline,
                                                 u.seconds)
                               : record_release(w, u.job_id, u.index,
                                                u.fence);
        if (!done)
            return; /* the store still cannot write: the rest waits too */
        pl__lock_acquire(&w->lock);
        w->pending[i].used = false;
        w->n_pending--;
        pl__lock_release(&w->lock);
    }
}

/* ---- claims ---------------------------------------------------------------------- */

/* A claim goes back to the queue (not now), and no claim for a second. */
static void give_back(pl__worker *w, const pl__store_claim *claim)
{
    if (!record_release(w, claim->job.id, claim->part.index,
                        claim->part.fence))
        keep_unrecorded(w, claim, false, 0);
    w->backoff_until = pl__now_seconds() + 1.0;
}

/* The engine's room now: the budget less what it has committed, plus what
 * idle hot circuits would give back. */
static uint64_t room(pl__worker *w)
{
    pl__service *svc = w->svc;
    pl_engine_stats st;
    pl_engine_stats_read(svc->engine, &st);
    uint64_t hot = 0, in_use = 0;
    pl__residency_bytes(svc->residency, &hot, &in_use, NULL);
    uint64_t idle = hot > in_use ? hot - in_use : 0;
    uint64_t have = svc->budget_bytes + idle;
    return have > st.committed_bytes ? have - st.committed_bytes : 0;
}

/* Claims one partition when the engine can admit it now; true when it did
 * (the loop tries again at once). */
static bool claim_one(pl__worker *w)
{
    pl__service *svc = w->svc;
    pl__lock_acquire(&w->lock);
    bool can = !w->stop_claiming && w->n_flights < MAX_FLIGHTS &&
               w->n_pending == 0 && pl__now_seconds() >= w->backoff_until;
    for (size_t i = 0; can && i < MAX_FLIGHTS; i++)
        if (w->flights[i].used &&
            w->flights[i].stage <= PL__FLIGHT_QUEUED)
            can = false; /* one waits for admission already */
    pl__lock_release(&w->lock);
    if (!can || !pl__health_ok(svc, NULL, 0))
        return false;
    uint64_t max_bytes = room(w);
    if (max_bytes == 0)
        return false;
    pl__store_claim claim;
    bool found = false;
    pl_error err = {0};
    if (pl__store_claim_next(svc->store, svc->owner, max_bytes, svc->lease_ms,
                             &claim, &found, &err) != PL_OK) {
        note_error(w, "claim", &err);
        pl__health_probe(svc);
        return false;
    }
    if (!found)
        return false;
    pl__lock_acquire(&w->lock);
    flight *f = NULL;
    for (size_t i = 0; i < MAX_FLIGHTS && !f; i++)
        if (!w->flights[i].used)
            f = &w->flights[i];
    memset(f, 0, sizeof(*f));
    f->used = true;
    f->claim = claim;
    f->stage = PL__FLIGHT_CLAIMED;
    f->started = pl__now_seconds();
    w->n_flights++;
    w->claimed++;
    pl__lock_release(&w->lock);

    const char *job_id = claim.job.id, *circuit_id = claim.circuit.id;
    uint32_t index = claim.part.index;
    /* its circuit hot: promoted now if it is not (seconds for a large key) */
    pl_circuit *circuit = NULL;
    double promote_s = 0;
    bool busy = false;
    pl_status st = pl__residency_acquire(svc->residency, circuit_id,
                                         claim.circuit.zkey_path, 0, &circuit,
                                         &promote_s, &busy, &err);
    if (st == PL_OK && promote_s > 0) {
        pl__metrics_promotion(svc->metrics, circuit_id, promote_s);
        if (svc->log_claims)
            fprintf(stderr, "proofline serve: circuit %.16s... promoted "
                    "(hot) in %.3f s for job %s partition %u\n", circuit_id,
                    promote_s, job_id, index);
    }
    bool fits = st == PL_OK;
    if (fits) {
        /* room for this partition beside everything committed: idle
         * circuits other than this one are demoted if they hold it */
        uint64_t part_bytes = 0, hot = 0;
        pl_circuit_plan(circuit, claim.circuit.witness_bytes, &part_bytes,
                        NULL);
        pl_engine_stats es;
        pl_engine_stats_read(svc->engine, &es);
        pl__residency_bytes(svc->residency, &hot, NULL, NULL);
        uint64_t others = es.committed_bytes > hot ? es.committed_bytes - hot
                                                   : 0;
        uint64_t allowed_hot =
            svc->budget_bytes > others + part_bytes
                ? svc->budget_bytes - others - part_bytes
                : 0;
        fits = pl__residency_shrink(svc->residency, allowed_hot, circuit_id) <=
               allowed_hot;
        if (!fits)
            pl__residency_release(svc->residency, circuit_id);
    }
    if (!fits) {
        pl__lock_acquire(&w->lock);
        f->used = false;
        w->n_flights--;
        pl__lock_release(&w->lock);
        if (st == PL_OK || busy) /* the room is held: later */
            give_back(w, &claim);
        else
            fail_claim(w, &claim, st, err.msg);
        return st != PL_OK && !busy;
    }
    const char *paths[1] = {claim.part.witness_path};
    pl_job_spec spec = {0};
    spec.circuit = circuit;
    spec.n_partitions = 1;
    spec.witness_paths = paths;
    spec.priority = (int)claim.job.priority;
    spec.verify = true;
    spec.on_proof = on_proof;
    spec.on_proof_user = w;
    pl__lock_acquire(&w->lock);
    f->curve = pl_circuit_curve(circuit);
    /* under the lock, so that a proof delivered (or an admission told)
     * before submit returns finds its flight */
    st = pl_engine_submit(svc->engine, &f->engine_job, &spec, &err);
    if (st == PL_OK) {
        f->stage = PL__FLIGHT_QUEUED;
        if (svc->log_claims)
            fprintf(stderr, "proofline serve: job %s partition %u (%s "
                    "priority, claim %u) is engine job %llu\n", job_id,
                    index, pl__priority_name(claim.job.priority),
                    claim.part.attempts, (unsigned long long)f->engine_job);
        pl__metrics_note_job(svc->metrics, f->engine_job, job_id, index);
    } else {
        f->used = false;
        w->n_flights--;
    }
    pl__lock_release(&w->lock);
    if (st != PL_OK) {
        pl__residency_release(svc->residency, circuit_id);
        fail_claim(w, &claim, st, err.msg);
    }
    return true;
}

/* The claims whose engine admitted them: the store is told their proofs
 * started (from now on losing them costs an attempt). */
static void tell_starts(pl__worker *w)
{
    pl__service *svc = w->svc;
    for (size_t i = 0; i < MAX_FLIGHTS; i++) {
        pl__lock_acquire(&w->lock);
        flight f = w->flights[i];
        pl__lock_release(&w->lock);
        if (!f.used || f.start_told || f.stage <= PL__FLIGHT_QUEUED)
            continue;
        pl_error err = {0};
        pl_status st = pl__store_claim_started(svc->store, f.claim.job.id,
                                               f.claim.part.index, svc->owner,
                                               f.claim.part.fence, &err);
        if (st != PL_OK && st != PL_ECANCELLED) {
            note_error(w, "recording a proof's start", &err);
            return; /* again at the next tick */
        }
        pl__lock_acquire(&w->lock);
        if (w->flights[i].used && w->flights[i].engine_job == f.engine_job)
            w->flights[i].start_told = true;
        pl__lock_release(&w->lock);
    }
}

/* Whether a proof that could not be written failed for the service's own
 * storage (then the claim goes back, costing nothing) rather than for
 * this partition. */
static bool our_storage_failed(pl__service *svc)
{
    return !pl__health_probe(svc);
}

/* Ends the flights whose engine job is done: records the completion (the
 * pair is on disk), the failure (naming the partition), or gives the claim
 * back (drained, or the service's storage failed). */
static void reap(pl__worker *w)
{
    pl__service *svc = w->svc;
    for (size_t i = 0; i < MAX_FLIGHTS; i++) {
        pl__lock_acquire(&w->lock);
        flight *f = &w->flights[i];
        pl_job_status js;
        pl_error err = {0};
        if (!f->used || !f->engine_job ||
            pl_engine_poll(svc->engine, f->engine_job, &js, &err) != PL_OK ||
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

        const pl__store_claim *c = &done.claim;
        double seconds = pl__now_seconds() - done.started;
        if (js.status == PL_OK && done.written) {
            if (!record_complete(w, c->job.id, c->part.index, c->part.fence,
                                 c->job.deadline_unix_ms > 0, seconds)) {
                keep_unrecorded(w, c, true, seconds);
                pl__health_probe(svc);
            }
        } else if (done.release || (js.status == PL_ECANCELLED &&
                                    atomic_load(&svc->draining))) {
            if (!record_release(w, c->job.id, c->part.index, c->part.fence))
                keep_unrecorded(w, c, false, 0);
        } else if (js.status == PL_ECANCELLED) {
            /* the job was cancelled through the API: the store knows */
        } else if (js.status == PL_OK && our_storage_failed(svc)) {
            fprintf(stderr, "proofline serve: job %s partition %u: its proof "
                    "could not be written (%s): the claim goes back\n",
                    c->job.id, c->part.index, done.write_msg);
            if (!record_release(w, c->job.id, c->part.index, c->part.fence))
                keep_unrecorded(w, c, false, 0);
        } else {
            fail_claim(w, c, js.status != PL_OK ? js.status
                                                : done.write_status,
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
        if (!f.used || !f.engine_job)
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
    double last_recover = pl__now_seconds(), last_health = 0;
    for (;;) {
        pl__lock_acquire(&w->lock);
        bool stop = w->stop;
        pl__lock_release(&w->lock);
        if (stop)
            break;
        double now = pl__now_seconds();
        if (now - last_health >= HEALTH_EVERY_S) {
            pl__health_probe(svc);
            last_health = now;
        }
        reap(w);
        record_pending(w);
        tell_starts(w);
        pl_error err = {0};
        pl__lock_acquire(&w->lock);
        bool unrecorded_left = w->n_pending > 0;
        pl__lock_release(&w->lock);
        /* no heartbeat while an outcome is unrecorded: its claim must
         * not be renewed, so that another worker or a restart retries it
         * if this one cannot record it */
        if (now - last_beat >= (double)svc->lease_ms / 3000.0 &&
            !unrecorded_left) {
            /* the worker's row (the cluster's view) and its leases, in
             * one transaction */
            pl__store_worker row;
            worker_row(w, &row);
            if (pl__store_worker_heartbeat(svc->store, &row, svc->lease_ms,
                                           &err) != PL_OK) {
                note_error(w, "heartbeat", &err);
            } else {
                pl__lock_acquire(&w->lock);
                w->error_logged = false;
                pl__lock_release(&w->lock);
            }
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
        while (claim_one(w))
            ;
        if (svc->params_idle_s > 0)
            pl__residency_demote_idle(svc->residency, svc->params_idle_s);

        pl__lock_acquire(&w->lock);
        if (!w->kicked && !w->stop) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += (w->n_flights || w->n_pending ? LOOP_MS : IDLE_MS) *
                          1000000L;
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
    pl__health_probe(svc);
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

/* A record's event moves its claim to a stage. */
static pl__flight_stage stage_after(pl_event ev, pl__flight_stage was)
{
    switch (ev) {
    case PL_EV_ADMITTED: return PL__FLIGHT_ADMITTED;
    case PL_EV_SYNTH_START: return PL__FLIGHT_SYNTH;
    case PL_EV_SYNTH_DONE:
    case PL_EV_HANDED_OFF: return PL__FLIGHT_WAITING;
    case PL_EV_PROVE_START:
    case PL_EV_ABC_FREED: return PL__FLIGHT_PROVING;
    case PL_EV_PROVE_DONE: return PL__FLIGHT_FINISHING;
    case PL_EV_FINALIZE_DONE:
    case PL_EV_DEALLOC_DONE:
    case PL_EV_FAILED:
    case PL_EV_CANCELLED: return PL__FLIGHT_RECORDING;
    default: return was;
    }
}

void pl__worker_on_event(void *user, const pl_ledger_record *record)
{
    pl__service *svc = user;
    pl__metrics_on_event(svc->metrics, record);
    pl__worker *w = svc->worker;
    if (!w || record->event >= PL_EV_COUNT || !record->job)
        return;
    bool wake = false;
    pl__lock_acquire(&w->lock);
    flight *f = flight_of_locked(w, record->job);
    if (f) {
        f->stage = stage_after(record->event, f->stage);
        /* an admission frees the next claim; an end frees bytes */
        wake = record->event == PL_EV_ADMITTED ||
               f->stage == PL__FLIGHT_RECORDING;
    }
    if (wake) {
        w->kicked = true;
        pthread_cond_signal(&w->cond);
    }
    pl__lock_release(&w->lock);
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
        if (w->flights[i].used && w->flights[i].engine_job &&
            strcmp(w->flights[i].claim.job.id, job_id) == 0)
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
        if (w->flights[i].used && w->flights[i].engine_job) {
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
    record_pending(w); /* a last try: what stays is recovered at restart */
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

/* ---- the worker as the figures read it ---------------------------------------- */

void pl__worker_view_read(pl__worker *w, pl__worker_view *out)
{
    memset(out, 0, sizeof(*out));
    out->state = "idle";
    if (!w)
        return;
    pl__lock_acquire(&w->lock);
    out->state = w->stop_claiming ? "draining" : w->n_flights ? "busy"
                                                              : "idle";
    out->claimed = w->claimed;
    out->completed = w->completed;
    out->failed = w->failed;
    out->released = w->released;
    out->unrecorded = w->n_pending;
    size_t n = 0;
    for (size_t i = 0; i < MAX_FLIGHTS; i++) {
        const flight *f = &w->flights[i];
        if (!f->used)
            continue;
        out->stages[f->stage]++;
        pl__worker_claim_view *c = &out->claims[n++];
        snprintf(c->job, sizeof(c->job), "%s", f->claim.job.id);
        c->index = f->claim.part.index;
        c->stage = f->stage;
        snprintf(c->circuit, sizeof(c->circuit), "%s", f->claim.circuit.id);
        /* the store's, or the circuit's own once it was opened */
        if (f->claim.circuit.curve[0])
            snprintf(c->curve, sizeof(c->curve), "%s", f->claim.circuit.curve);
        else if (f->engine_job)
            snprintf(c->curve, sizeof(c->curve), "%s", pl_curve_name(f->curve));
    }
    out->in_flight = n; /* the slots in use, as stages and claims count them */
    snprintf(out->last_error, sizeof(out->last_error), "%s", w->last_error);
    pl__lock_release(&w->lock);
}

void pl__worker_partitions_json(const pl__worker_view *v, pl__jw *jw)
{
    pl__jw_array(jw);
    for (size_t i = 0; i < v->in_flight; i++) {
        const pl__worker_claim_view *c = &v->claims[i];
        pl__jw_object(jw);
        pl__jw_key_str(jw, "job", c->job);
        pl__jw_key_u64(jw, "index", c->index);
        pl__jw_key_str(jw, "stage", pl__flight_stage_name(c->stage));
        pl__jw_key_str(jw, "circuit", c->circuit);
        pl__jw_key(jw, "curve");
        if (c->curve[0])
            pl__jw_str(jw, c->curve);
        else
            pl__jw_null(jw);
        pl__jw_end_object(jw);
    }
    pl__jw_end_array(jw);
}

const char *pl__worker_stage_of(pl__worker *w, const char *job_id,
                                uint32_t index)
{
    const char *stage = NULL;
    if (!w)
        return NULL;
    pl__lock_acquire(&w->lock);
    for (size_t i = 0; i < MAX_FLIGHTS && !stage; i++) {
        const flight *f = &w->flights[i];
        if (f->used && f->claim.part.index == index &&
            strcmp(f->claim.job.id, job_id) == 0)
            stage = pl__flight_stage_name(f->stage);
    }
    pl__lock_release(&w->lock);
    return stage;
}
