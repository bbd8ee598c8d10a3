/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger, live (see metrics.h): histograms of proof and stage
 * durations fed by the worker and the engine, counters of proofs and
 * deadlines, the names of the store's partitions the engine's jobs prove,
 * and a bounded ring of the engine's records for /v1/trace (written by the
 * ledger's one trace writer).  The figures themselves are read and
 * rendered by figures.c; nothing here keeps a second copy of the engine's
 * ledger that could drift from it.
 */
#define _GNU_SOURCE
#include "metrics.h"
#include "formats/json.h"
#include "ledger/trace.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/error.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* seconds; a 2^10 circuit proves in ~0.05 s on a laptop core, a 2^20 one
 * in tens of seconds: the buckets span both */
static const double buckets[] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                 2.5,  5,     10,   30,  60,   120, 300};
#define N_BUCKETS (sizeof(buckets) / sizeof(buckets[0]))
#define MAX_STAGES PL__METRICS_MAX_STAGES
#define JOB_NOTES 1024 /* engine job -> store partition, the newest */
#define PROMOTIONS 256 /* the newest parameter promotions, for the trace */

/* A circuit made hot, as a span of the trace (its own track). */
typedef struct promotion {
    double start_s, seconds; /* on the ledger's clock */
    char circuit[17];        /* the id's first 16 characters */
} promotion;

typedef struct job_note {
    uint64_t engine_job; /* 0: empty */
    char job_id[PL__STORE_JOB_ID_LEN + 1];
    uint32_t index;
} job_note;

typedef pl__histogram histogram;
_Static_assert(N_BUCKETS == PL__HISTOGRAM_BUCKETS, "the buckets' count");

struct pl__metrics {
    pthread_mutex_t lock;
    histogram proof;
    uint64_t proofs_ok, proofs_failed;
    /* jobs with a deadline that this worker finished, by class */
    uint64_t deadline_met[PL__PRIORITY_COUNT];
    uint64_t deadline_missed[PL__PRIORITY_COUNT];
    char stage_names[MAX_STAGES][32];
    histogram stages[MAX_STAGES];
    size_t n_stages;
    job_note notes[JOB_NOTES]; /* by engine job mod JOB_NOTES */
    /* the ring: cap records, the newest at (head - 1) mod cap */
    pl_ledger_record *ring;
    size_t cap, head, count;
    /* the ledger's clock (seconds since the engine started) is the
     * monotonic clock less this: learned from the first record, which is
     * delivered as it happens */
    double clock_offset;
    bool clock_known;
    promotion promotions[PROMOTIONS];
    size_t n_promotions; /* ever; the newest at (n - 1) mod PROMOTIONS */
};

static void observe(histogram *h, double v)
{
    size_t i = 0;
    while (i < N_BUCKETS && v > buckets[i])
        i++;
    h->counts[i]++;
    h->n++;
    h->sum += v;
}

pl_status pl__metrics_create(pl__metrics **out, size_t ring_records,
                             pl_error *err)
{
    *out = NULL;
    pl__metrics *m = calloc(1, sizeof(*m));
    if (!m)
        return pl__error_set(err, PL_ENOMEM, "metrics: out of memory");
    pthread_mutex_init(&m->lock, NULL);
    if (ring_records) {
        m->ring = pl__alloc(PL__SERVICE_BUF,
                            (uint64_t)ring_records * sizeof(pl_ledger_record),
                            err);
        if (!m->ring) {
            pl__metrics_destroy(m);
            return PL_ENOMEM;
        }
        m->cap = ring_records;
    }
    /* until the first record says better: the engine starts right after */
    m->clock_offset = pl__now_seconds();
    *out = m;
    return PL_OK;
}

void pl__metrics_destroy(pl__metrics *m)
{
    if (!m)
        return;
    pl__free(m->ring);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void pl__metrics_on_event(void *user, const pl_ledger_record *record)
{
    pl__metrics *m = user;
    double now = pl__now_seconds();
    pthread_mutex_lock(&m->lock);
    if (!m->clock_known) {
        m->clock_offset = now - record->t_seconds;
        m->clock_known = true;
    }
    if (record->event < PL_EV_COUNT && record->job) {
        job_note *n = &m->notes[record->job % JOB_NOTES];
        if (n->engine_job != record->job) { /* before the worker's note */
            memset(n, 0, sizeof(*n));
            n->engine_job = record->job;
        }
    }
    if (!m->cap) {
        pthread_mutex_unlock(&m->lock);
        return;
    }
    m->ring[m->head] = *record;
    m->head = (m->head + 1) % m->cap;
    if (m->count < m->cap)
        m->count++;
    pthread_mutex_unlock(&m->lock);
}

void pl__metrics_on_stage(void *user, const char *stage, double seconds)
{
    pl__metrics *m = user;
    pthread_mutex_lock(&m->lock);
    size_t i = 0;
    while (i < m->n_stages && strcmp(m->stage_names[i], stage) != 0)
        i++;
    if (i == m->n_stages && i < MAX_STAGES) {
        snprintf(m->stage_names[i], sizeof(m->stage_names[i]), "%s", stage);
        m->n_stages++;
    }
    if (i < m->n_stages)
        observe(&m->stages[i], seconds);
    pthread_mutex_unlock(&m->lock);
}

void pl__metrics_note_job(pl__metrics *m, uint64_t engine_job,
                          const char *job_id, uint32_t index)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    job_note *n = &m->notes[engine_job % JOB_NOTES];
    n->engine_job = engine_job;
    snprintf(n->job_id, sizeof(n->job_id), "%s", job_id);
    n->index = index;
    pthread_mutex_unlock(&m->lock);
}

void pl__metrics_proof_done(pl__metrics *m, double seconds, bool ok)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    if (ok) {
        observe(&m->proof, seconds);
        m->proofs_ok++;
    } else {
        m->proofs_failed++;
    }
    pthread_mutex_unlock(&m->lock);
}

void pl__metrics_deadline(pl__metrics *m, pl__priority cls, bool missed)
{
    if (!m || (unsigned)cls >= PL__PRIORITY_COUNT)
        return;
    pthread_mutex_lock(&m->lock);
    if (missed)
        m->deadline_missed[cls]++;
    else
        m->deadline_met[cls]++;
    pthread_mutex_unlock(&m->lock);
}

/* ---- the figures' reading ------------------------------------------------- */

const double *pl__histogram_bounds(void)
{
    return buckets;
}

void pl__metrics_read(pl__metrics *m, pl__metrics_view *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&m->lock);
    out->proof = m->proof;
    out->proofs_ok = m->proofs_ok;
    out->proofs_failed = m->proofs_failed;
    memcpy(out->deadline_met, m->deadline_met, sizeof(out->deadline_met));
    memcpy(out->deadline_missed, m->deadline_missed,
           sizeof(out->deadline_missed));
    out->n_stages = m->n_stages;
    memcpy(out->stage_names, m->stage_names, sizeof(out->stage_names));
    memcpy(out->stages, m->stages, sizeof(out->stages));
    pthread_mutex_unlock(&m->lock);
}

/* ---- the trace ------------------------------------------------------------ */

/* The trace's source over the ring (read with the lock held). */
static void ring_records(void *user, pl__record_visit fn, void *ctx)
{
    const pl__metrics *m = user;
    size_t oldest = (m->head + m->cap - m->count) % (m->cap ? m->cap : 1);
    for (size_t i = 0; i < m->count; i++)
        if (!fn(ctx, &m->ring[(oldest + i) % m->cap]))
            return;
}

static void ring_promotions(void *user, pl__trace_extra_visit fn, void *ctx)
{
    const pl__metrics *m = user;
    size_t n = m->n_promotions < PROMOTIONS ? m->n_promotions : PROMOTIONS;
    for (size_t i = 0; i < n; i++) {
        const promotion *p =
            &m->promotions[(m->n_promotions - n + i) % PROMOTIONS];
        pl__trace_extra x = {"params_promotion", "parameters", p->start_s,
                             p->start_s + p->seconds, "circuit", p->circuit};
        if (!fn(ctx, &x))
            return;
    }
}

/* A partition's arguments: the engine's numbers, and the store's job and
 * partition when the worker noted them. */
static void ring_ids(void *user, pl__jw *w, uint64_t job, size_t partition)
{
    const pl__metrics *m = user;
    const job_note *n = &m->notes[job % JOB_NOTES];
    pl__jw_key_u64(w, "engine_job", job);
    pl__jw_key_u64(w, "part", partition);
    if (n->engine_job == job && job) {
        pl__jw_key_str(w, "job", n->job_id);
        pl__jw_key_u64(w, "index", n->index);
    }
}

void pl__metrics_promotion(pl__metrics *m, const char *circuit_id,
                           double seconds)
{
    double end = pl__now_seconds();
    pthread_mutex_lock(&m->lock);
    promotion *p = &m->promotions[m->n_promotions++ % PROMOTIONS];
    p->start_s = end - seconds - m->clock_offset;
    p->seconds = seconds;
    snprintf(p->circuit, sizeof(p->circuit), "%.16s", circuit_id);
    pthread_mutex_unlock(&m->lock);
    pl__metrics_on_stage(m, "params_promotion", seconds);
}

pl_status pl__metrics_trace_json(pl__metrics *m, pl__strbuf *sb,
                                 double since_s, pl_error *err)
{
    pl__trace_source src = {
        .process = "proofline serve",
        .each_record = ring_records,
        .each_extra = ring_promotions,
        .ids = ring_ids,
        .since_s = since_s,
        .user = m,
    };
    pl__jw w;
    pl__jw_to_buffer(&w, sb, true);
    pthread_mutex_lock(&m->lock);
    pl_status st = pl__trace_write(&w, &src, err);
    pthread_mutex_unlock(&m->lock);
    pl__strbuf_printf(sb, "\n");
    if (st == PL_OK && (w.failed || sb->failed))
        st = pl__error_set(err, PL_ENOMEM, "/v1/trace: out of memory");
    return st;
}

