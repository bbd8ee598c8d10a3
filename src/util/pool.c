/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Worker pool.  Lock order: run_lock, then lock.  `lock` guards the job
 * description and the generation counter; task indices are claimed with an
 * atomic counter so no lock is held while tasks run.
 */
#define _GNU_SOURCE
#include "util/pool.h"
#include "util/error.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct pl__pool {
    unsigned size; /* workers including the caller */
    pthread_t *threads;
    pthread_mutex_t run_lock;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    uint64_t generation;
    bool stopping;
    /* the current job */
    pl__task_fn fn;
    void *ctx;
    size_t ntasks;
    _Atomic size_t next_task;
    unsigned busy_workers;
};

typedef struct {
    pl__pool *pool;
    unsigned index;
} worker_arg;

static void drain_tasks(pl__pool *pool, unsigned worker)
{
    size_t task;
    while ((task = atomic_fetch_add(&pool->next_task, 1)) < pool->ntasks)
        pool->fn(pool->ctx, task, worker);
}

static void *worker_main(void *arg)
{
    worker_arg *wa = arg;
    pl__pool *pool = wa->pool;
    unsigned index = wa->index;
    free(wa);
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->stopping && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->stopping)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        drain_tasks(pool, index);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy_workers == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

unsigned pl__cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

unsigned pl__pool_threads_for(unsigned requested)
{
    if (requested == 0)
        return pl__cpu_count();
    return requested > PL__POOL_MAX_THREADS ? PL__POOL_MAX_THREADS : requested;
}

pl_status pl__pool_create(pl__pool **out, unsigned threads, const char *name,
                          pl_error *err)
{
    *out = NULL;
    threads = pl__pool_threads_for(threads);
    pl__pool *pool = calloc(1, sizeof(*pool));
    if (!pool)
        return pl__error_set(err, PL_ENOMEM, "thread pool: out of memory");
    pool->size = threads;
    pthread_mutex_init(&pool->run_lock, NULL);
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    if (threads > 1) {
        pool->threads = calloc(threads - 1, sizeof(pthread_t));
        if (!pool->threads) {
            pl__pool_destroy(pool);
            return pl__error_set(err, PL_ENOMEM, "thread pool: out of memory");
        }
    }
    for (unsigned i = 1; i < threads; i++) {
        worker_arg *wa = malloc(sizeof(*wa));
        int rc = wa ? 0 : ENOMEM;
        if (wa) {
            wa->pool = pool;
            wa->index = i;
            rc = pthread_create(&pool->threads[i - 1], NULL, worker_main, wa);
            if (rc)
                free(wa);
        }
        if (rc) {
            pool->size = i; /* join the ones that started */
            pl__pool_destroy(pool);
            return pl__error_errno(err, PL_EINTERNAL, rc,
                                   "thread pool: cannot start thread %u", i);
        }
        char thread_name[16];
        snprintf(thread_name, sizeof(thread_name), "%s-%u", name, i);
        pthread_setname_np(pool->threads[i - 1], thread_name);
    }
    *out = pool;
    return PL_OK;
}

void pl__pool_destroy(pl__pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stopping = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 1; i < pool->size; i++)
        pthread_join(pool->threads[i - 1], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    pthread_mutex_destroy(&pool->run_lock);
    free(pool->threads);
    free(pool);
}

unsigned pl__pool_size(const pl__pool *pool)
{
    return pool ? pool->size : 1u;
}

void pl__pool_run(pl__pool *pool, size_t ntasks, pl__task_fn fn, void *ctx)
{
    if (ntasks == 0)
        return;
    if (!pool || pool->size == 1 || ntasks == 1) {
        for (size_t t = 0; t < ntasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&pool->run_lock);
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->ctx = ctx;
    pool->ntasks = ntasks;
    atomic_store(&pool->next_task, 0);
    pool->busy_workers = pool->size - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    drain_tasks(pool, 0);

    pthread_mutex_lock(&pool->lock);
    while (pool->busy_workers)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    pthread_mutex_unlock(&pool->run_lock);
}
