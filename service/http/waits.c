/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Requests that wait for their job to end (GET /v1/jobs/{id}?wait=, POST
 * /v1/prove): their connections are suspended (no thread held), and one
 * thread of ours reads their jobs every WAIT_POLL_MS, resuming each when
 * its job ends, its time is up, or the service drains or stops; the
 * library then calls the request again and its handler answers.
 *
 * The store is read without the waiters' lock held, so that a slow store
 * never stalls the daemon's threads (they take the lock to add a waiter
 * or to answer a resumed one).  That is safe because only this thread
 * removes waiters or changes wait_next of a listed one; others only push
 * new ones at the head, which the next pass sees.
 */
#define _GNU_SOURCE
#include "http.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How often the waiters' jobs are read from the store. */
#define WAIT_POLL_MS 50

struct pl__waits {
    pl__service *svc;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    bool started, stop;
    request *waiters;
    unsigned n, max;
    unsigned n_resumed; /* resumed, not answered yet: stop waits for them */
};

bool pl__http_job_ended(pl__job_state s)
{
    return s == PL__JOB_DONE || s == PL__JOB_FAILED || s == PL__JOB_CANCELLED;
}

static void *wait_loop(void *arg)
{
    pl__waits *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        if (!w->waiters && !w->stop) {
            pthread_cond_wait(&w->cv, &w->mu);
        } else if (!w->stop) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += WAIT_POLL_MS * 1000000L;
            ts.tv_sec += ts.tv_nsec / 1000000000L;
            ts.tv_nsec %= 1000000000L;
            pthread_cond_timedwait(&w->cv, &w->mu, &ts);
        }
        bool all = w->stop || atomic_load(&w->svc->draining);
        request *head = w->waiters;
        pthread_mutex_unlock(&w->mu);
        int64_t now = pl__service_now_ms();
        for (request *rq = head; rq; rq = rq->wait_next) {
            rq->wake = all || now >= rq->wait_until_ms;
            if (!rq->wake) {
                pl__store_job job;
                pl_error err = {0};
                /* a store that fails to answer: the request answers with
                 * the error itself */
                rq->wake = pl__store_job_get(w->svc->store, rq->id, &job,
                                             &err) != PL_OK ||
                           pl__http_job_ended(job.state);
            }
        }
        pthread_mutex_lock(&w->mu);
        /* the waiters pushed since are before head, unmarked: kept */
        bool seen = false;
        for (request **pp = &w->waiters; *pp;) {
            request *rq = *pp;
            seen = seen || rq == head;
            if (!seen || !rq->wake) {
                pp = &rq->wait_next;
                continue;
            }
            *pp = rq->wait_next;
            w->n--;
            rq->wait_next = NULL;
            rq->wake = false;
            rq->resumed = true;
            w->n_resumed++;
            MHD_resume_connection(rq->conn);
        }
        if (w->stop && !w->waiters)
            break;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

pl_status pl__waits_start(pl__waits **out, pl__service *svc,
                          unsigned max_waiters, pl_error *err)
{
    *out = NULL;
    pl__waits *w = calloc(1, sizeof(*w));
    if (!w)
        return pl__error_set(err, PL_ENOMEM, "server: out of memory");
    w->svc = svc;
    w->max = max_waiters;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, wait_loop, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return pl__error_set(err, PL_EIO, "server: the waiter thread did "
                             "not start");
    }
    pthread_setname_np(w->thread, "pl-http-wait");
    w->started = true;
    *out = w;
    return PL_OK;
}

void pl__waits_stop(pl__waits *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    /* and answered: the daemon's threads do that (a few ms), unless a
     * client is gone; 2 s at most */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 2;
    pthread_mutex_lock(&w->mu);
    while (w->n_resumed > 0 &&
           pthread_cond_timedwait(&w->cv, &w->mu, &ts) == 0)
        ;
    pthread_mutex_unlock(&w->mu);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

bool pl__waits_add(pl__waits *w, request *rq, const pl__store_job *job)
{
    pthread_mutex_lock(&w->mu);
    bool ok = !w->stop && w->n < w->max;
    if (ok) {
        snprintf(rq->id, sizeof(rq->id), "%s", job->id);
        rq->wait_until_ms = pl__service_now_ms() + rq->wait_ms;
        rq->suspended = true;
        rq->resumed = false;
        rq->replied = true; /* answered when resumed */
        /* suspended before the waiter thread can see it, so it never
         * resumes a connection that is not suspended yet */
        MHD_suspend_connection(rq->conn);
        rq->wait_next = w->waiters;
        w->waiters = rq;
        w->n++;
        pthread_cond_signal(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return ok;
}

bool pl__waits_resumed(pl__waits *w, request *rq)
{
    pthread_mutex_lock(&w->mu);
    bool resumed = rq->resumed;
    pthread_mutex_unlock(&w->mu);
    return resumed;
}

void pl__waits_answered(pl__waits *w, request *rq)
{
    pthread_mutex_lock(&w->mu);
    rq->suspended = rq->resumed = false;
    w->n_resumed--;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void pl__waits_closed(pl__waits *w, request *rq)
{
    pthread_mutex_lock(&w->mu);
    if (rq->resumed) {
        w->n_resumed--;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
}

enum MHD_Result pl__http_too_many_waiters(request *rq)
{
    char msg[200];
    snprintf(msg, sizeof(msg), "wait: as many requests wait already as this "
             "service allows (half of --max-connections); retry later, or "
             "poll without wait");
    return pl__http_reply_error(rq, 503, msg, true);
}
