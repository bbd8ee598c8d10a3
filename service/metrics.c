/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger, live (see metrics.h): histograms of proof and stage
 * durations fed by the worker and the engine, a bounded ring of the
 * engine's records for /v1/trace, and the three renderings: Prometheus
 * text, the status JSON, a Chrome trace.  The figures themselves are the
 * engine's (pl_engine_stats_read) and the store's (pl__store_counts_read),
 * read at each request: nothing here keeps a second copy of the ledger
 * that could drift from it.
 */
#define _GNU_SOURCE
#include "metrics.h"
#include "residency.h"
#include "worker.h"
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
#define MAX_STAGES 16
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
    int last;            /* the job's last event; -1: none yet */
} job_note;

typedef struct histogram {
    uint64_t counts[N_BUCKETS + 1]; /* the last: +Inf only */
    uint64_t n;
    double sum;
} histogram;

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
        n->last = (int)record->event;
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
    if (n->engine_job != engine_job) /* its events may have come first */
        n->last = -1;
    n->engine_job = engine_job;
    snprintf(n->job_id, sizeof(n->job_id), "%s", job_id);
    n->index = index;
    pthread_mutex_unlock(&m->lock);
}

const char *pl__metrics_stage(pl__metrics *m, const char *job_id,
                              uint32_t index)
{
    const char *stage = NULL;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < JOB_NOTES && !stage; i++) {
        const job_note *n = &m->notes[i];
        if (!n->engine_job || n->index != index ||
            strcmp(n->job_id, job_id) != 0)
            continue;
        switch (n->last) {
        case -1: stage = "queued"; break;
        case PL_EV_ADMITTED: stage = "admitted"; break;
        case PL_EV_SYNTH_START: stage = "synth"; break;
        case PL_EV_SYNTH_DONE:
        case PL_EV_HANDED_OFF: stage = "waiting"; break;
        case PL_EV_PROVE_START:
        case PL_EV_ABC_FREED: stage = "proving"; break;
        case PL_EV_PROVE_DONE: stage = "finishing"; break;
        default: stage = "finished"; break;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return stage;
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

/* ---- Prometheus text ---------------------------------------------------- */

static void family(pl__strbuf *sb, const char *name, const char *type,
                   const char *help)
{
    pl__strbuf_printf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
                      type);
}

static void put_histogram(pl__strbuf *sb, const char *name,
                          const char *label, const histogram *h)
{
    uint64_t cum = 0;
    const char *sep = label[0] ? "," : "";
    for (size_t i = 0; i < N_BUCKETS; i++) {
        cum += h->counts[i];
        pl__strbuf_printf(sb, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, label,
                          sep, buckets[i], (unsigned long long)cum);
    }
    cum += h->counts[N_BUCKETS];
    pl__strbuf_printf(sb, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, label,
                      sep, (unsigned long long)cum);
    if (label[0]) {
        pl__strbuf_printf(sb, "%s_sum{%s} %.6f\n%s_count{%s} %llu\n", name,
                          label, h->sum, name, label,
                          (unsigned long long)h->n);
    } else {
        pl__strbuf_printf(sb, "%s_sum %.6f\n%s_count %llu\n", name, h->sum,
                          name, (unsigned long long)h->n);
    }
}

typedef struct {
    uint64_t live, silent, gone;
    int64_t lease_ms;
} cluster_count;

static bool count_worker(void *user, const pl__store_worker *w)
{
    cluster_count *c = user;
    if (w->gone)
        c->gone++;
    else if (w->age_ms <= 3 * (c->lease_ms ? c->lease_ms : 30000))
        c->live++;
    else
        c->silent++;
    return true;
}

static double uptime_s(const pl__service *svc)
{
    return (double)(pl__service_now_ms() - svc->started_unix_ms) / 1000.0;
}

pl_status pl__metrics_prometheus(pl__service *svc, pl__strbuf *sb,
                                 pl_error *err)
{
    pl_engine_stats st;
    pl_engine_stats_read(svc->engine, &st);
    pl__store_counts c;
    pl_status rc = pl__store_counts_read(svc->store, &c, err);
    if (rc != PL_OK)
        return rc;
    typedef unsigned long long ull;

    family(sb, "proofline_buffer_bytes", "gauge",
           "Live bytes of accounted buffers, by class.");
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        pl__strbuf_printf(sb, "proofline_buffer_bytes{class=\"%s\"} %llu\n",
                          pl_buffer_class_name((pl_buffer_class)k),
                          (ull)st.classes[k].live_bytes);
    family(sb, "proofline_buffer_peak_bytes", "gauge",
           "High-water bytes of accounted buffers, by class.");
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        pl__strbuf_printf(sb,
                          "proofline_buffer_peak_bytes{class=\"%s\"} %llu\n",
                          pl_buffer_class_name((pl_buffer_class)k),
                          (ull)st.classes[k].high_water_bytes);
    family(sb, "proofline_buffers", "gauge",
           "Live accounted buffers, by class.");
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        pl__strbuf_printf(sb, "proofline_buffers{class=\"%s\"} %llu\n",
                          pl_buffer_class_name((pl_buffer_class)k),
                          (ull)st.classes[k].live_count);
    family(sb, "proofline_partitions", "gauge",
           "Partitions in the engine, by stage.");
    for (int k = 0; k < PL_STAGE_COUNT; k++)
        pl__strbuf_printf(sb, "proofline_partitions{stage=\"%s\"} %llu\n",
                          pl_stage_name((pl_stage)k), (ull)st.stage_now[k]);
    family(sb, "proofline_budget_bytes", "gauge",
           "The engine's memory budget.");
    pl__strbuf_printf(sb, "proofline_budget_bytes %llu\n",
                      (ull)st.budget_bytes);
    family(sb, "proofline_budget_reserved_bytes", "gauge",
           "Bytes reserved from the budget now.");
    pl__strbuf_printf(sb, "proofline_budget_reserved_bytes %llu\n",
                      (ull)st.reserved_bytes);
    family(sb, "proofline_budget_peak_reserved_bytes", "gauge",
           "The most bytes reserved at once since the start.");
    pl__strbuf_printf(sb, "proofline_budget_peak_reserved_bytes %llu\n",
                      (ull)st.peak_reserved_bytes);
    family(sb, "proofline_tracked_bytes", "gauge",
           "Live bytes of the host buffer classes.");
    pl__strbuf_printf(sb, "proofline_tracked_bytes %llu\n",
                      (ull)st.tracked_bytes);
    family(sb, "proofline_rss_anon_bytes", "gauge",
           "The process's anonymous resident memory (RssAnon).");
    pl__strbuf_printf(sb, "proofline_rss_anon_bytes %llu\n",
                      (ull)st.rss_anon_bytes);
    family(sb, "proofline_untracked_bytes", "gauge",
           "RssAnon not explained by accounted buffers and the baseline.");
    pl__strbuf_printf(sb, "proofline_untracked_bytes %lld\n",
                      (long long)st.untracked_bytes);
    family(sb, "proofline_jobs", "gauge", "Jobs in the store, by state.");
    for (int k = 0; k < PL__JOB_STATE_COUNT; k++)
        pl__strbuf_printf(sb, "proofline_jobs{state=\"%s\"} %llu\n",
                          pl__job_state_name((pl__job_state)k),
                          (ull)c.jobs[k]);
    /* the queue is the store's, shared by every worker on it: the worker
     * label says which one read it */
    family(sb, "proofline_queue_depth", "gauge",
           "Partitions waiting to be claimed in the store, by priority.");
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        pl__strbuf_printf(sb, "proofline_queue_depth{priority=\"%s\","
                          "worker=\"%s\"} %llu\n",
                          pl__priority_name((pl__priority)k), svc->owner,
                          (ull)c.queued_partitions[k]);
    cluster_count cc = {0, 0, 0, svc->lease_ms};
    if (pl__store_worker_list(svc->store, count_worker, &cc, err) == PL_OK) {
        family(sb, "proofline_cluster_workers", "gauge",
               "Workers on the store: live (heard from within 3 leases), "
               "silent, gone (left cleanly).");
        pl__strbuf_printf(sb, "proofline_cluster_workers{state=\"live\"} "
                          "%llu\nproofline_cluster_workers{state=\"silent\"} "
                          "%llu\nproofline_cluster_workers{state=\"gone\"} "
                          "%llu\n", (ull)cc.live, (ull)cc.silent,
                          (ull)cc.gone);
    }
    family(sb, "proofline_claimed_partitions", "gauge",
           "Partitions claimed by workers now.");
    pl__strbuf_printf(sb, "proofline_claimed_partitions %llu\n",
                      (ull)c.claimed_partitions);
    family(sb, "proofline_uptime_seconds", "gauge",
           "Seconds since the service started.");
    pl__strbuf_printf(sb, "proofline_uptime_seconds %.3f\n", uptime_s(svc));
    family(sb, "proofline_draining", "gauge",
           "1 while the service drains (SIGTERM), else 0.");
    pl__strbuf_printf(sb, "proofline_draining %d\n",
                      atomic_load(&svc->draining) ? 1 : 0);
    if (st.device_total_bytes) {
        family(sb, "proofline_gpu_used_bytes", "gauge",
               "GPU memory in use as its driver reports it.");
        pl__strbuf_printf(sb, "proofline_gpu_used_bytes %llu\n",
                          (ull)st.device_used_bytes);
        family(sb, "proofline_gpu_total_bytes", "gauge",
               "GPU memory in total.");
        pl__strbuf_printf(sb, "proofline_gpu_total_bytes %llu\n",
                          (ull)st.device_total_bytes);
        family(sb, "proofline_gpu_peak_untracked_bytes", "gauge",
               "The peak of GPU memory used outside class device.");
        pl__strbuf_printf(sb, "proofline_gpu_peak_untracked_bytes %lld\n",
                          (long long)st.peak_device_untracked_bytes);
    }

    if (svc->residency) {
        pl__residency_entry ents[64];
        size_t n = pl__residency_list(svc->residency, ents, 64);
        uint64_t hot = 0, peak = 0;
        pl__residency_bytes(svc->residency, &hot, NULL, &peak);
        family(sb, "proofline_params_budget_bytes", "gauge",
               "The most bytes of circuits held hot (--params-budget).");
        pl__strbuf_printf(sb, "proofline_params_budget_bytes %llu\n",
                          (ull)pl__residency_budget(svc->residency));
        family(sb, "proofline_params_hot_bytes", "gauge",
               "Bytes of circuits held hot now.");
        pl__strbuf_printf(sb, "proofline_params_hot_bytes %llu\n", (ull)hot);
        family(sb, "proofline_params_bytes", "gauge",
               "A circuit's parameter bytes by tier: hot (resident, "
               "reserved), warm (its key file's pages cached), cold.");
        for (size_t i = 0; i < n && i < 64; i++) {
            const pl__residency_entry *e = &ents[i];
            uint64_t v = e->tier == PL__TIER_HOT    ? e->resident_bytes
                         : e->tier == PL__TIER_WARM ? e->cached_bytes
                                                    : 0;
            for (int t = 0; t < PL__TIER_COUNT; t++)
                pl__strbuf_printf(sb, "proofline_params_bytes{circuit=\"%s\","
                                  "tier=\"%s\"} %llu\n", e->id,
                                  pl__tier_name((pl__tier)t),
                                  (ull)(t == (int)e->tier ? v : 0));
        }
        family(sb, "proofline_params_promotions_total", "counter",
               "Times a circuit was made hot (its parameters loaded).");
        for (size_t i = 0; i < n && i < 64; i++)
            pl__strbuf_printf(sb, "proofline_params_promotions_total{"
                              "circuit=\"%s\"} %llu\n", ents[i].id,
                              (ull)ents[i].promotions);
        family(sb, "proofline_params_demotions_total", "counter",
               "Times a hot circuit was let go (least recently used, evict, "
               "idle).");
        for (size_t i = 0; i < n && i < 64; i++)
            pl__strbuf_printf(sb, "proofline_params_demotions_total{"
                              "circuit=\"%s\"} %llu\n", ents[i].id,
                              (ull)ents[i].demotions);
    }

    pl__metrics *m = svc->metrics;
    pthread_mutex_lock(&m->lock);
    family(sb, "proofline_proofs_total", "counter",
           "Partitions ended by the worker, by result.");
    pl__strbuf_printf(sb, "proofline_proofs_total{result=\"ok\"} %llu\n"
                      "proofline_proofs_total{result=\"failed\"} %llu\n",
                      (ull)m->proofs_ok, (ull)m->proofs_failed);
    /* every class, 0 included: a series that appears only at the first
     * miss makes rate() and alerts blind to it until then */
    family(sb, "proofline_deadline_missed_total", "counter",
           "Jobs with a deadline this worker finished after it, by class "
           "(priority); each was still completed.");
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        pl__strbuf_printf(sb, "proofline_deadline_missed_total{class=\"%s\"} "
                          "%llu\n", pl__priority_name((pl__priority)k),
                          (ull)m->deadline_missed[k]);
    family(sb, "proofline_deadline_met_total", "counter",
           "Jobs with a deadline this worker finished by it, by class "
           "(priority).");
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        pl__strbuf_printf(sb, "proofline_deadline_met_total{class=\"%s\"} "
                          "%llu\n", pl__priority_name((pl__priority)k),
                          (ull)m->deadline_met[k]);
    family(sb, "proofline_proof_duration_seconds", "histogram",
           "Seconds from a partition's claim to its proof on disk.");
    put_histogram(sb, "proofline_proof_duration_seconds", "", &m->proof);
    family(sb, "proofline_stage_duration_seconds", "histogram",
           "Seconds of each prover stage, by stage.");
    for (size_t i = 0; i < m->n_stages; i++) {
        char label[64];
        snprintf(label, sizeof(label), "stage=\"%s\"", m->stage_names[i]);
        put_histogram(sb, "proofline_stage_duration_seconds", label,
                      &m->stages[i]);
    }
    pthread_mutex_unlock(&m->lock);
    if (sb->failed)
        return pl__error_set(err, PL_ENOMEM, "/metrics: out of memory");
    return PL_OK;
}

/* ---- status JSON ---------------------------------------------------------- */

pl_status pl__metrics_status_json(pl__service *svc, pl__strbuf *sb,
                                  pl_error *err)
{
    pl_engine_stats st;
    pl_engine_stats_read(svc->engine, &st);
    pl__store_counts c;
    pl_status rc = pl__store_counts_read(svc->store, &c, err);
    if (rc != PL_OK)
        return rc;
    typedef unsigned long long ull;
    pl__strbuf_printf(sb,
                      "{\"version\": \"%s\", \"uptime_s\": %.3f, \"backend\": "
                      "\"%s\", \"draining\": %s, \"budget_bytes\": %llu, "
                      "\"reserved_bytes\": %llu, \"peak_reserved_bytes\": %llu, "
                      "\"tracked_bytes\": %llu, \"peak_tracked_bytes\": %llu, "
                      "\"rss_anon_bytes\": %llu, \"peak_rss_anon_bytes\": %llu, "
                      "\"untracked_bytes\": %lld, \"classes\": {",
                      pl_version(), uptime_s(svc),
                      st.backend ? st.backend : "cpu",
                      atomic_load(&svc->draining) ? "true" : "false",
                      (ull)st.budget_bytes, (ull)st.reserved_bytes,
                      (ull)st.peak_reserved_bytes, (ull)st.tracked_bytes,
                      (ull)st.peak_tracked_bytes, (ull)st.rss_anon_bytes,
                      (ull)st.peak_rss_anon_bytes,
                      (long long)st.untracked_bytes);
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        pl__strbuf_printf(sb,
                          "%s\"%s\": {\"count\": %llu, \"bytes\": %llu, "
                          "\"peak_bytes\": %llu}",
                          k ? ", " : "",
                          pl_buffer_class_name((pl_buffer_class)k),
                          (ull)st.classes[k].live_count,
                          (ull)st.classes[k].live_bytes,
                          (ull)st.classes[k].high_water_bytes);
    pl__strbuf_printf(sb, "}, \"stages\": {");
    for (int k = 0; k < PL_STAGE_COUNT; k++)
        pl__strbuf_printf(sb, "%s\"%s\": %llu", k ? ", " : "",
                          pl_stage_name((pl_stage)k), (ull)st.stage_now[k]);
    pl__strbuf_printf(sb, "}, \"queue\": {\"critical\": %llu, \"high\": %llu, "
                      "\"normal\": %llu, \"low\": %llu}, \"claimed\": %llu, "
                      "\"jobs\": {",
                      (ull)c.queued_partitions[PL__PRIORITY_CRITICAL],
                      (ull)c.queued_partitions[PL__PRIORITY_HIGH],
                      (ull)c.queued_partitions[PL__PRIORITY_NORMAL],
                      (ull)c.queued_partitions[PL__PRIORITY_LOW],
                      (ull)c.claimed_partitions);
    for (int k = 0; k < PL__JOB_STATE_COUNT; k++)
        pl__strbuf_printf(sb, "%s\"%s\": %llu", k ? ", " : "",
                          pl__job_state_name((pl__job_state)k),
                          (ull)c.jobs[k]);
    pl__strbuf_printf(sb, "}, \"workers\": ");
    if (svc->worker)
        pl__worker_status_json(svc->worker, sb);
    else
        pl__strbuf_printf(sb, "[]");
    if (svc->residency) {
        pl__strbuf_printf(sb, ", \"params\": ");
        pl__metrics_params_json(svc, sb, NULL);
    }
    if (st.device_total_bytes)
        pl__strbuf_printf(sb,
                          ", \"gpu\": {\"used_bytes\": %llu, \"total_bytes\": "
                          "%llu, \"device_class_bytes\": %llu, "
                          "\"peak_untracked_bytes\": %lld}",
                          (ull)st.device_used_bytes,
                          (ull)st.device_total_bytes,
                          (ull)st.classes[PL_BUF_DEVICE].live_bytes,
                          (long long)st.peak_device_untracked_bytes);
    pl__strbuf_printf(sb, "}\n");
    if (sb->failed)
        return pl__error_set(err, PL_ENOMEM, "/v1/status: out of memory");
    return PL_OK;
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

/* ---- parameters ------------------------------------------------------------ */

static void params_entry_json(pl__strbuf *sb, const pl__residency_entry *e)
{
    pl__strbuf_printf(sb,
                      "{\"id\": \"%s\", \"tier\": \"%s\", "
                      "\"resident_bytes\": %llu, \"cached_bytes\": %llu, "
                      "\"refs\": %u, \"promotions\": %llu, "
                      "\"demotions\": %llu, \"last_promotion_s\": %.6f, "
                      "\"idle_s\": %.3f}",
                      e->id, pl__tier_name(e->tier),
                      (unsigned long long)e->resident_bytes,
                      (unsigned long long)e->cached_bytes, e->refs,
                      (unsigned long long)e->promotions,
                      (unsigned long long)e->demotions, e->last_promotion_s,
                      e->idle_s);
}

void pl__metrics_params_json(pl__service *svc, pl__strbuf *sb, const char *id)
{
    enum { CAP = 256 };
    pl__residency_entry *ents = calloc(CAP, sizeof(*ents));
    size_t n = ents ? pl__residency_list(svc->residency, ents, CAP) : 0;
    if (n > CAP)
        n = CAP;
    if (id) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            if (strcmp(ents[i].id, id) == 0) {
                params_entry_json(sb, &ents[i]);
                found = true;
            }
        if (!found)
            pl__strbuf_printf(sb, "{\"id\": \"%s\", \"tier\": \"cold\"}",
                              id);
        free(ents);
        return;
    }
    uint64_t hot = 0, peak = 0;
    pl__residency_bytes(svc->residency, &hot, NULL, &peak);
    pl__strbuf_printf(sb, "{\"budget_bytes\": %llu, \"hot_bytes\": %llu, "
                      "\"peak_hot_bytes\": %llu, \"circuits\": [",
                      (unsigned long long)pl__residency_budget(svc->residency),
                      (unsigned long long)hot, (unsigned long long)peak);
    for (size_t i = 0; i < n; i++) {
        if (i)
            pl__strbuf_printf(sb, ", ");
        params_entry_json(sb, &ents[i]);
    }
    pl__strbuf_printf(sb, "]}");
    free(ents);
}

/* ---- the cluster ------------------------------------------------------------ */

typedef struct {
    pl__strbuf *sb;
    size_t n;
} cluster_ctx;

static bool put_worker(void *user, const pl__store_worker *w)
{
    cluster_ctx *c = user;
    pl__strbuf *sb = c->sb;
    pl__strbuf_printf(sb, "%s{\"id\": ", c->n++ ? ", " : "");
    pl__json_put_string(sb, w->id);
    pl__strbuf_printf(sb, ", \"host\": ");
    pl__json_put_string(sb, w->host);
    pl__strbuf_printf(sb, ", \"pid\": %lld, \"backend\": ", (long long)w->pid);
    pl__json_put_string(sb, w->backend);
    pl__strbuf_printf(sb, ", \"gpus\": ");
    pl__json_put_string(sb, w->gpus);
    /* status_json is the worker's own object, written by worker_row */
    pl__strbuf_printf(sb, ", \"budget_bytes\": %llu, \"reserved_bytes\": %llu, "
                      "\"status\": %s, \"gone\": %s, \"started_ms\": %lld, "
                      "\"heartbeat_ms\": %lld, \"age_ms\": %lld}",
                      (unsigned long long)w->budget_bytes,
                      (unsigned long long)w->reserved_bytes,
                      w->status_json[0] == '{' ? w->status_json : "{}",
                      w->gone ? "true" : "false",
                      (long long)w->started_unix_ms,
                      (long long)w->heartbeat_unix_ms, (long long)w->age_ms);
    return true;
}

pl_status pl__metrics_cluster_json(pl__service *svc, pl__strbuf *sb,
                                   pl_error *err)
{
    pl__store_counts c;
    pl_status rc = pl__store_counts_read(svc->store, &c, err);
    if (rc != PL_OK)
        return rc;
    pl__strbuf_printf(sb, "{\"self\": ");
    pl__json_put_string(sb, svc->owner);
    pl__strbuf_printf(sb, ", \"workers\": [");
    cluster_ctx ctx = {sb, 0};
    if ((rc = pl__store_worker_list(svc->store, put_worker, &ctx, err)) !=
        PL_OK)
        return rc;
    pl__strbuf_printf(sb, "], \"queue\": {");
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        pl__strbuf_printf(sb, "%s\"%s\": %llu",
                          k == PL__PRIORITY_COUNT - 1 ? "" : ", ",
                          pl__priority_name((pl__priority)k),
                          (unsigned long long)c.queued_partitions[k]);
    pl__strbuf_printf(sb, "}, \"claimed\": %llu, \"jobs\": {",
                      (unsigned long long)c.claimed_partitions);
    for (int k = 0; k < PL__JOB_STATE_COUNT; k++)
        pl__strbuf_printf(sb, "%s\"%s\": %llu", k ? ", " : "",
                          pl__job_state_name((pl__job_state)k),
                          (unsigned long long)c.jobs[k]);
    pl__strbuf_printf(sb, "}}\n");
    if (sb->failed)
        return pl__error_set(err, PL_ENOMEM, "/v1/cluster: out of memory");
    return PL_OK;
}
