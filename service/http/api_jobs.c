/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The jobs' resources: POST /v1/jobs (a JSON spec, or the multipart form
 * with its witnesses), GET /v1/jobs (newest first), GET /v1/jobs/{id}
 * (?wait= until it ends), DELETE /v1/jobs/{id}, PUT
 * /v1/jobs/{id}/witness/{k}, GET /v1/jobs/{id}/proofs/{k}, and POST
 * /v1/prove (submit and wait in one call).  A job's JSON carries its
 * partitions, each in one stage when this worker holds it, and its
 * errors whole, their files named relative to DATA.
 */
#define _GNU_SOURCE
#include "http.h"
#include "worker.h"
#include "formats/json.h"
#include "util/alloc.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIST_LIMIT_DEFAULT 100
#define LIST_LIMIT_MAX 10000

/* A message as a reply shows it: whole, its files relative to DATA. */
static void put_message(pl__jw *w, const pl__service *svc, const char *key,
                        const char *msg)
{
    pl__strbuf t = {0};
    pl__http_relative(svc, msg, &t);
    pl__jw_key_str(w, key, t.data ? t.data : "");
    pl__strbuf_free(&t);
}

pl_status pl__api_job_json(pl__strbuf *sb, pl__service *svc,
                           const pl__store_job *j, pl_error *err)
{
    pl__jw w;
    pl__jw_to_buffer(&w, sb, false);
    pl__jw_object(&w);
    pl__jw_key_str(&w, "id", j->id);
    pl__jw_key_str(&w, "circuit", j->circuit_id);
    pl__jw_key(&w, "curve"); /* its circuit's; null while unknown */
    if (j->curve[0])
        pl__jw_str(&w, j->curve);
    else
        pl__jw_null(&w);
    pl__jw_key_str(&w, "priority", pl__priority_name(j->priority));
    pl__jw_key_str(&w, "state", pl__job_state_name(j->state));
    pl__jw_key_u64(&w, "n_partitions", j->n_partitions);
    pl__jw_key_i64(&w, "created_ms", j->created_unix_ms);
    pl__jw_key_i64(&w, "updated_ms", j->updated_unix_ms);
    pl__jw_key_i64(&w, "finished_ms", j->finished_unix_ms);
    pl__jw_key_i64(&w, "deadline_ms", j->deadline_unix_ms);
    pl__jw_key_bool(&w, "deadline_missed",
                    pl__store_job_deadline_missed(j, pl__service_now_ms()));
    put_message(&w, svc, "error", j->error);
    pl__jw_key(&w, "partitions");
    pl__jw_array(&w);
    size_t n = j->n_partitions, count = 0;
    /* 4096 partitions of a job are ~45 MiB of records: accounted */
    pl__store_partition *parts =
        pl__alloc(PL__SERVICE_BUF, (n ? n : 1) * sizeof(*parts), err);
    if (!parts)
        return PL_ENOMEM;
    pl_status st = pl__store_partitions(svc->store, j->id, parts, n, &count,
                                        err);
    for (size_t i = 0; st == PL_OK && i < count && i < n; i++) {
        const pl__store_partition *p = &parts[i];
        pl__jw_newline(&w);
        pl__jw_object(&w);
        pl__jw_key_u64(&w, "index", p->index);
        pl__jw_key_str(&w, "state", pl__part_state_name(p->state));
        pl__jw_key_bool(&w, "witness_stored", p->witness_path[0] != 0);
        pl__jw_key_u64(&w, "attempts", p->attempts);
        pl__jw_key_u64(&w, "completions", p->completions);
        pl__jw_key_i64(&w, "claimed_ms", p->claimed_unix_ms);
        pl__jw_key_i64(&w, "started_ms", p->started_unix_ms);
        pl__jw_key_i64(&w, "finished_ms", p->finished_unix_ms);
        put_message(&w, svc, "error", p->error);
        /* queue wait: from the job's creation (its witnesses' upload
         * included: the store keeps no time of queueing) to the latest
         * claim; proving: from that claim to the end */
        pl__jw_key(&w, "timings");
        pl__jw_object(&w);
        pl__jw_key(&w, "queue_wait_ms");
        if (p->claimed_unix_ms > 0)
            pl__jw_i64(&w, p->claimed_unix_ms - j->created_unix_ms);
        else
            pl__jw_null(&w);
        pl__jw_key(&w, "prove_ms");
        if (p->claimed_unix_ms > 0 &&
            p->finished_unix_ms >= p->claimed_unix_ms)
            pl__jw_i64(&w, p->finished_unix_ms - p->claimed_unix_ms);
        else
            pl__jw_null(&w);
        pl__jw_end_object(&w);
        /* where a claimed partition is, when this service holds it */
        const char *stage =
            p->state == PL__PART_CLAIMED
                ? pl__worker_stage_of(svc->worker, p->job_id, p->index)
                : NULL;
        pl__jw_key(&w, "stage");
        if (stage)
            pl__jw_str(&w, stage);
        else
            pl__jw_null(&w);
        pl__jw_end_object(&w);
    }
    pl__free(parts);
    pl__jw_end_array(&w);
    pl__jw_key(&w, "timings");
    pl__jw_object(&w);
    pl__jw_key(&w, "total_ms");
    if (j->finished_unix_ms > 0)
        pl__jw_i64(&w, j->finished_unix_ms - j->created_unix_ms);
    else
        pl__jw_null(&w);
    pl__jw_end_object(&w);
    pl__jw_end_object(&w);
    if (st == PL_OK && (w.failed || sb->failed))
        st = pl__error_set(err, PL_ENOMEM, "a job's JSON: out of memory");
    return st;
}

static enum MHD_Result reply_job(request *rq, unsigned code,
                                 const pl__store_job *job)
{
    pl__strbuf sb = {0};
    pl_error err = {0};
    pl_status st = pl__api_job_json(&sb, rq->svc, job, &err);
    return pl__http_reply_built(rq, code, st, err.msg, &sb);
}

/* POST /v1/jobs: a JSON spec (the job, receiving its witnesses), or the
 * multipart form (the job and its witnesses at once). */
enum MHD_Result pl__api_jobs_add(request *rq)
{
    if (rq->body == PL__BODY_MULTIPART)
        return pl__http_end_multipart(rq);
    pl__strbuf msg = {0};
    unsigned code = pl__http_job_from_spec(rq, "body", &msg);
    enum MHD_Result r =
        code ? pl__http_reply_error(rq, code, msg.data ? msg.data : "",
                                    code == 503)
             /* a retry: the same job, and the first answer's status */
             : reply_job(rq, 201, &rq->job);
    pl__strbuf_free(&msg);
    return r;
}

enum MHD_Result pl__api_prove(request *rq)
{
    return pl__http_end_multipart(rq);
}

/* Jobs are collected first and described after the listing ends: the
 * store is not called again from inside its own callback. */
typedef struct job_list {
    pl__store_job *jobs;
    size_t n, cap;
    bool failed;
} job_list;

static bool list_job(void *user, const pl__store_job *job)
{
    job_list *l = user;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pl__store_job *j = realloc(l->jobs, cap * sizeof(*j));
        if (!j) {
            l->failed = true;
            return false;
        }
        l->jobs = j;
        l->cap = cap;
    }
    l->jobs[l->n++] = *job;
    return true;
}

enum MHD_Result pl__api_jobs_list(request *rq)
{
    pl__service *svc = rq->svc;
    const char *state = pl__http_arg(rq, "state");
    const char *limit = pl__http_arg(rq, "limit");
    int want = -1;
    if (state) {
        pl__job_state js;
        if (!pl__job_state_parse(&js, state))
            return pl__http_reply_error(rq, 400, "state: receiving, queued, "
                                        "running, done, failed or cancelled",
                                        false);
        want = (int)js;
    }
    uint64_t n = LIST_LIMIT_DEFAULT;
    if (limit && (!pl__http_uint(limit, LIST_LIMIT_MAX, &n) || n < 1))
        return pl__http_reply_error(rq, 400, "limit: a whole number from 1 to "
                                    "10000", false);
    job_list l = {0};
    pl_error err = {0};
    pl_status st = pl__store_job_list(svc->store, want, (size_t)n, list_job,
                                      &l, &err);
    pl__strbuf sb = {0};
    pl__strbuf_printf(&sb, "{\"jobs\": [");
    for (size_t i = 0; st == PL_OK && i < l.n; i++) {
        pl__strbuf_printf(&sb, "%s", i ? ",\n" : "");
        st = pl__api_job_json(&sb, svc, &l.jobs[i], &err);
    }
    pl__strbuf_printf(&sb, "]}");
    free(l.jobs);
    if (st == PL_OK && l.failed)
        st = pl__error_set(&err, PL_ENOMEM, "out of memory");
    return pl__http_reply_built(rq, 200, st, err.msg, &sb);
}

enum MHD_Result pl__api_job(request *rq)
{
    pl__service *svc = rq->svc;
    const char *wait = pl__http_arg(rq, "wait");
    uint64_t ms = 0;
    if (wait && !pl__http_duration_ms(wait, &ms))
        return pl__http_reply_error(rq, 400, "wait: a duration such as 30, "
                                    "30s, 500ms or 2m is needed (decimal; "
                                    "more than 300 s counts as 300 s)",
                                    false);
    rq->wait_ms = wait ? (ms > PL__HTTP_WAIT_MAX_MS ? PL__HTTP_WAIT_MAX_MS
                                                    : (long long)ms)
                       : -1;
    pl__store_job job;
    pl_error err = {0};
    pl_status st = pl__store_job_get(svc->store, rq->id, &job, &err);
    if (st != PL_OK)
        return pl__http_reply_error(rq, pl__http_store_code(st, &err),
                                    err.msg, false);
    if (rq->wait_ms > 0 && !pl__http_job_ended(job.state) &&
        !atomic_load(&svc->draining)) {
        /* ?wait=: the reply when the job ends or the time is up */
        if (!pl__waits_add(pl__server_waits(rq->server), rq, &job))
            return pl__http_too_many_waiters(rq);
        return MHD_YES;
    }
    return reply_job(rq, 200, &job);
}

enum MHD_Result pl__api_job_cancel(request *rq)
{
    pl__service *svc = rq->svc;
    pl__store_job job;
    pl_error err = {0};
    pl_status st = pl__store_job_get(svc->store, rq->id, &job, &err);
    bool changed = false;
    if (st == PL_OK)
        st = pl__store_job_cancel(svc->store, job.id, &changed, &err);
    if (st != PL_OK)
        return pl__http_reply_error(rq, pl__http_store_code(st, &err),
                                    err.msg, false);
    if (!changed) {
        char msg[160];
        snprintf(msg, sizeof(msg), "job %s already ended (%s)", job.id,
                 pl__job_state_name(job.state));
        return pl__http_reply_error(rq, 409, msg, false);
    }
    pl__worker_cancel_job(svc->worker, job.id);
    if ((st = pl__store_job_get(svc->store, rq->id, &job, &err)) != PL_OK)
        return pl__http_reply_error(rq, 503, err.msg, true);
    return reply_job(rq, 200, &job);
}

enum MHD_Result pl__api_witness(request *rq)
{
    pl__service *svc = rq->svc;
    pl_error err = {0};
    char name[128];
    bool misfit;
    snprintf(name, sizeof(name), "job %s partition %u: witness", rq->id,
             rq->index);
    pl__strbuf msg = {0};
    unsigned code = pl__http_witness_commit(rq, name, &msg, &misfit);
    if (code && misfit) {
        /* the right size, but not a witness of this circuit: its job
         * fails, naming the partition (nothing else is touched) */
        bool changed;
        pl__store_job_fail(svc->store, rq->id, msg.data, &changed, &err);
    }
    enum MHD_Result r;
    if (code) {
        r = pl__http_reply_error(rq, code, msg.data ? msg.data : "",
                                 code == 503);
        pl__strbuf_free(&msg);
        return r;
    }
    pl__strbuf_free(&msg);
    pl__store_job job;
    pl_status st = pl__store_witness_stored(svc->store, rq->id, rq->index,
                                            rq->out.path, &job, &err);
    if (st != PL_OK) {
        unlink(rq->out.path); /* recorded nowhere: ours to remove */
        unsigned c = pl__http_store_code(st, &err);
        pl__strbuf text = {0};
        pl__strbuf_printf(&text, "witness %u: %s", rq->index, err.msg);
        r = pl__http_reply_error(rq, c == 500 ? 503 : c, text.data, c == 500);
        pl__strbuf_free(&text);
        return r;
    }
    if (job.state == PL__JOB_QUEUED)
        pl__worker_kick(svc->worker);
    return reply_job(rq, 202, &job);
}

/* A done partition's proof pair, from the paths the store recorded (in a
 * cluster another worker wrote them, under its own DATA): "index": K,
 * "proof": {...}, "public": [...] as members of the object w has open. */
static pl_status proof_pair_json(pl__jw *w, const pl__store_partition *p,
                                 pl_error *err)
{
    char public_path[PL__STORE_PATH_MAX + 8];
    if (!pl__worker_public_path(p->proof_path, public_path,
                                sizeof(public_path)))
        return pl__error_set(err, PL_EINTERNAL, "store: job %s partition %u: "
                             "a proof path that does not end in .proof.json",
                             p->job_id, p->index);
    char *proof = NULL, *pub = NULL;
    size_t proof_len = 0, pub_len = 0;
    pl_status st;
    if ((st = pl__file_read_small(&proof, &proof_len, p->proof_path, 16384,
                                  err)) != PL_OK ||
        (st = pl__file_read_small(&pub, &pub_len, public_path,
                                  (size_t)PL_VKEY_MAX_PUBLIC *
                                      PL_PUBLIC_JSON_BYTES,
                                  err)) != PL_OK) {
        free(proof);
        return st;
    }
    /* the files as the worker wrote them: whitespace at their ends does
     * not matter inside the object */
    pl__jw_key_u64(w, "index", p->index);
    pl__jw_key(w, "proof");
    pl__jw_raw(w, proof, proof_len);
    pl__jw_key(w, "public");
    pl__jw_raw(w, pub, pub_len);
    free(proof);
    free(pub);
    return PL_OK;
}

enum MHD_Result pl__api_proof(request *rq)
{
    pl__service *svc = rq->svc;
    pl_error err = {0};
    pl__store_job job;
    pl_status st = pl__store_job_get(svc->store, rq->id, &job, &err);
    if (st != PL_OK)
        return pl__http_reply_error(rq, pl__http_store_code(st, &err),
                                    err.msg, false);
    if (rq->index >= job.n_partitions) {
        char msg[160];
        snprintf(msg, sizeof(msg), "job %s has %u partitions, no partition %u",
                 job.id, job.n_partitions, rq->index);
        return pl__http_reply_error(rq, 404, msg, false);
    }
    /* the partitions up to k (the store lists them from the first) */
    pl__store_partition *parts =
        pl__alloc(PL__SERVICE_BUF, (rq->index + 1) * sizeof(*parts), &err);
    size_t count = 0;
    if (!parts)
        return pl__http_reply_error(rq, 503, err.msg, true);
    st = pl__store_partitions(svc->store, job.id, parts, rq->index + 1,
                              &count, &err);
    pl__store_partition p = parts[rq->index];
    pl__free(parts);
    if (st != PL_OK || count <= rq->index)
        return pl__http_reply_error(rq, 503, st != PL_OK
                                                 ? err.msg
                                                 : "store: partition missing",
                                    true);
    if (p.state != PL__PART_DONE) {
        pl__strbuf msg = {0};
        pl__strbuf_printf(&msg, "job %s partition %u is %s%s%s", job.id,
                          rq->index, pl__part_state_name(p.state),
                          p.error[0] ? ": " : "", p.error);
        enum MHD_Result r = pl__http_reply_error(rq, 409, msg.data, false);
        pl__strbuf_free(&msg);
        return r;
    }
    pl__strbuf sb = {0};
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_object(&w);
    pl__jw_key_str(&w, "job", job.id);
    st = proof_pair_json(&w, &p, &err);
    pl__jw_end_object(&w);
    return pl__http_reply_built(rq, 200, st, err.msg, &sb);
}

/* POST /v1/prove's answer for a job: done, its proofs (200); failed (422)
 * or cancelled (409), the job and its error; otherwise (the wait ran out,
 * or the service drains) 202 and the job, to be read again with GET
 * /v1/jobs/{id}?wait=.  A retry with the same key gets the same answer:
 * the job's, whichever try made it. */
static enum MHD_Result prove_reply(request *rq, const pl__store_job *job)
{
    pl__service *svc = rq->svc;
    pl_error err = {0};
    unsigned code = job->state == PL__JOB_DONE        ? 200
                    : job->state == PL__JOB_FAILED    ? 422
                    : job->state == PL__JOB_CANCELLED ? 409
                                                      : 202;
    pl__strbuf sb = {0}, jobtext = {0};
    pl_status st = pl__api_job_json(&jobtext, svc, job, &err);
    pl__jw w;
    pl__jw_to_buffer(&w, &sb, false);
    pl__jw_object(&w);
    if (code == 422 || code == 409) {
        pl__strbuf msg = {0};
        pl__strbuf_printf(&msg, "job %s %s%s%s", job->id,
                          pl__job_state_name(job->state),
                          job->error[0] ? ": " : "", job->error);
        put_message(&w, svc, "error", msg.data);
        pl__strbuf_free(&msg);
    }
    pl__jw_key(&w, "job");
    pl__jw_raw(&w, jobtext.data ? jobtext.data : "{}", jobtext.len);
    if (st == PL_OK && code == 200) {
        size_t n = job->n_partitions, count = 0;
        pl__store_partition *parts =
            pl__alloc(PL__SERVICE_BUF, n * sizeof(*parts), &err);
        st = parts ? pl__store_partitions(svc->store, job->id, parts, n,
                                          &count, &err)
                   : PL_ENOMEM;
        pl__jw_key(&w, "proofs");
        pl__jw_array(&w);
        for (size_t k = 0; st == PL_OK && k < count && k < n; k++) {
            pl__jw_newline(&w);
            pl__jw_object(&w);
            st = proof_pair_json(&w, &parts[k], &err);
            pl__jw_end_object(&w);
        }
        pl__jw_end_array(&w);
        pl__free(parts);
    }
    pl__jw_end_object(&w);
    pl__strbuf_free(&jobtext);
    return pl__http_reply_built(rq, code, st, err.msg, &sb);
}

enum MHD_Result pl__api_prove_reply_or_wait(request *rq,
                                            const pl__store_job *job)
{
    if (pl__http_job_ended(job->state) || rq->wait_ms <= 0 ||
        atomic_load(&rq->svc->draining))
        return prove_reply(rq, job);
    if (!pl__waits_add(pl__server_waits(rq->server), rq, job))
        return pl__http_too_many_waiters(rq);
    return MHD_YES;
}

enum MHD_Result pl__api_wait_end(request *rq)
{
    pl_error err = {0};
    pl__store_job job;
    pl_status st = pl__store_job_get(rq->svc->store, rq->id, &job, &err);
    if (st != PL_OK)
        return pl__http_reply_error(rq, st == PL_EUSAGE ? 404 : 503, err.msg,
                                    st != PL_EUSAGE);
    if (rq->route->id == PL__R_PROVE)
        return prove_reply(rq, &job);
    return reply_job(rq, 200, &job);
}
