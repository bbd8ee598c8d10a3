/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's figures (see figures.h): one snapshot, one table, two
 * renderings.  A row of the table says how a figure is named in
 * Prometheus (its family: name, type, help, label) and in /v1/status (its
 * key, and the object it sits in: "classes": {"witness": {"bytes": ...}}
 * when the row has a label ("gpus": {"0": {"used_bytes": ...}} too),
 * "gpu": {"used_bytes": ...} when it has not),
 * and reads its samples from the snapshot.  A row whose samples are none
 * (the GPU's without a device) is left out of the JSON; in Prometheus its
 * family is still named (HELP and TYPE, no sample).  The snapshot is read
 * once per request: the engine's stats, the store's counts, the worker's
 * view, the metrics, the residency, the connections' guard.
 */
#define _GNU_SOURCE
#include "figures.h"
#include "metrics.h"
#include "residency.h"
#include "worker.h"
#include "http/http.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 256 /* circuits shown in the parameters' figures */

typedef struct snap {
    pl__service *svc;
    pl_engine_stats st;
    pl__store_counts c;
    pl__worker_view wv;
    pl__metrics_view mv;
    pl__guard_counts gc;
    bool ready;
    uint64_t hot, peak_hot, params_budget;
    pl__residency_entry *ents;
    size_t n_ents;
    uint64_t live, silent, gone; /* the cluster's workers */
    bool cluster_read;
} snap;

typedef enum { V_U64, V_I64, V_F64, V_BOOL, V_STR } vtype;

typedef struct sample {
    const char *label;   /* the label's value; NULL: none */
    const char *label2;  /* a second label's value (the row's label2) */
    vtype t;
    uint64_t u;
    int64_t i;
    double f;
    const char *s;
    const pl__histogram *h; /* a histogram row's */
} sample;

typedef void (*emit_fn)(void *ctx, const sample *s);

typedef struct figure {
    const char *metric;  /* Prometheus; NULL: JSON only */
    const char *type;    /* gauge, counter, histogram */
    const char *help;
    const char *group;   /* the JSON object it sits in; NULL: the top */
    const char *json;    /* its key ("": the label's value is the key);
                            NULL: Prometheus only */
    const char *label, *label2;
    void (*read)(const snap *s, emit_fn emit, void *ctx);
} figure;

/* ---- the samples ------------------------------------------------------------- */

#define U64(v) (&(sample){.t = V_U64, .u = (v)})
#define LU64(l, v) (&(sample){.label = (l), .t = V_U64, .u = (v)})

static void r_version(const snap *s, emit_fn e, void *c)
{
    e(c, &(sample){.t = V_STR, .s = pl_version()});
}
static void r_uptime(const snap *s, emit_fn e, void *c)
{
    e(c, &(sample){.t = V_F64, .f = (double)(pl__service_now_ms() -
                                             s->svc->started_unix_ms) /
                                    1000.0});
}
static void r_backend(const snap *s, emit_fn e, void *c)
{
    e(c, &(sample){.t = V_STR, .s = s->st.backend ? s->st.backend : "cpu"});
}
static void r_draining(const snap *s, emit_fn e, void *c)
{
    e(c, &(sample){.t = V_BOOL, .u = atomic_load(&s->svc->draining)});
}
static void r_ready(const snap *s, emit_fn e, void *c)
{
    e(c, &(sample){.t = V_BOOL, .u = s->ready});
}
static void r_budget(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.budget_bytes)); }
static void r_reserved(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.reserved_bytes)); }
static void r_committed(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.committed_bytes)); }
static void r_peak_reserved(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.peak_reserved_bytes)); }
static void r_tracked(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.tracked_bytes)); }
static void r_peak_tracked(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.peak_tracked_bytes)); }
static void r_rss(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.rss_anon_bytes)); }
static void r_peak_rss(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.peak_rss_anon_bytes)); }
static void r_rss_file(const snap *s, emit_fn e, void *c) { e(c, U64(s->st.rss_file_bytes)); }
static void r_untracked(const snap *s, emit_fn e, void *c)
{
    e(c, &(sample){.t = V_I64, .i = s->st.untracked_bytes});
}

static void r_class_bytes(const snap *s, emit_fn e, void *c)
{
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        e(c, LU64(pl_buffer_class_name((pl_buffer_class)k),
                  s->st.classes[k].live_bytes));
}
static void r_class_peak(const snap *s, emit_fn e, void *c)
{
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        e(c, LU64(pl_buffer_class_name((pl_buffer_class)k),
                  s->st.classes[k].high_water_bytes));
}
static void r_class_count(const snap *s, emit_fn e, void *c)
{
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        e(c, LU64(pl_buffer_class_name((pl_buffer_class)k),
                  s->st.classes[k].live_count));
}

/* The worker's claims by stage: each in exactly one, so they sum to the
 * claims in flight. */
static void r_stages(const snap *s, emit_fn e, void *c)
{
    for (int k = 0; k < PL__FLIGHT_STAGE_COUNT; k++)
        e(c, LU64(pl__flight_stage_name((pl__flight_stage)k),
                  s->wv.stages[k]));
}
static void r_queue(const snap *s, emit_fn e, void *c)
{
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        e(c, &(sample){.label = pl__priority_name((pl__priority)k),
                       .label2 = s->svc->owner, .t = V_U64,
                       .u = s->c.queued_partitions[k]});
}
static void r_claimed(const snap *s, emit_fn e, void *c) { e(c, U64(s->c.claimed_partitions)); }
static void r_jobs(const snap *s, emit_fn e, void *c)
{
    for (int k = 0; k < PL__JOB_STATE_COUNT; k++)
        e(c, LU64(pl__job_state_name((pl__job_state)k), s->c.jobs[k]));
}
static void r_unrecorded(const snap *s, emit_fn e, void *c) { e(c, U64(s->wv.unrecorded)); }
static void r_conn_opened(const snap *s, emit_fn e, void *c) { e(c, U64(s->gc.opened)); }
static void r_conn_closed(const snap *s, emit_fn e, void *c)
{
    e(c, LU64("header_timeout", s->gc.header_timeouts));
    e(c, LU64("slow_body", s->gc.slow_bodies));
    e(c, LU64("evicted", s->gc.evicted));
    e(c, LU64("refused", s->gc.refused));
}
static void r_cluster(const snap *s, emit_fn e, void *c)
{
    if (!s->cluster_read)
        return;
    e(c, LU64("live", s->live));
    e(c, LU64("silent", s->silent));
    e(c, LU64("gone", s->gone));
}
static void r_proofs(const snap *s, emit_fn e, void *c)
{
    e(c, LU64("ok", s->mv.proofs_ok));
    e(c, LU64("failed", s->mv.proofs_failed));
}
/* every class, 0 included: a series that appears only at the first miss
 * makes rate() and alerts blind to it until then */
static void r_missed(const snap *s, emit_fn e, void *c)
{
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        e(c, LU64(pl__priority_name((pl__priority)k),
                  s->mv.deadline_missed[k]));
}
static void r_met(const snap *s, emit_fn e, void *c)
{
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        e(c, LU64(pl__priority_name((pl__priority)k), s->mv.deadline_met[k]));
}
static void r_params_budget(const snap *s, emit_fn e, void *c) { e(c, U64(s->params_budget)); }
static void r_params_hot(const snap *s, emit_fn e, void *c) { e(c, U64(s->hot)); }
static void r_params_bytes(const snap *s, emit_fn e, void *c)
{
    for (size_t i = 0; i < s->n_ents; i++) {
        const pl__residency_entry *en = &s->ents[i];
        uint64_t v = en->tier == PL__TIER_HOT    ? en->resident_bytes
                     : en->tier == PL__TIER_WARM ? en->cached_bytes
                                                 : 0;
        for (int t = 0; t < PL__TIER_COUNT; t++)
            e(c, &(sample){.label = en->id,
                           .label2 = pl__tier_name((pl__tier)t), .t = V_U64,
                           .u = t == (int)en->tier ? v : 0});
    }
}
static void r_promotions(const snap *s, emit_fn e, void *c)
{
    for (size_t i = 0; i < s->n_ents; i++)
        e(c, LU64(s->ents[i].id, s->ents[i].promotions));
}
static void r_demotions(const snap *s, emit_fn e, void *c)
{
    for (size_t i = 0; i < s->n_ents; i++)
        e(c, LU64(s->ents[i].id, s->ents[i].demotions));
}
static void r_gpu_used(const snap *s, emit_fn e, void *c)
{
    if (s->st.device_total_bytes)
        e(c, U64(s->st.device_used_bytes));
}
static void r_gpu_total(const snap *s, emit_fn e, void *c)
{
    if (s->st.device_total_bytes)
        e(c, U64(s->st.device_total_bytes));
}
static void r_gpu_class(const snap *s, emit_fn e, void *c)
{
    if (s->st.device_total_bytes)
        e(c, U64(s->st.classes[PL_BUF_DEVICE].live_bytes));
}
static void r_gpu_untracked(const snap *s, emit_fn e, void *c)
{
    if (s->st.device_total_bytes)
        e(c, &(sample){.t = V_I64, .i = s->st.peak_device_untracked_bytes});
}
/* each device the driver reports on, labelled by its ordinal */
static const char *const gpu_ordinal[] = {"0", "1", "2", "3",
                                          "4", "5", "6", "7"};
_Static_assert(sizeof(gpu_ordinal) / sizeof(gpu_ordinal[0]) == PL_MAX_DEVICES,
               "a label per device");
static void gpu_each(const snap *s, emit_fn e, void *c, const uint64_t *v)
{
    for (unsigned d = 0; d < s->st.devices && d < PL_MAX_DEVICES; d++)
        if (s->st.device_total[d])
            e(c, LU64(gpu_ordinal[d], v[d]));
}
static void r_gpu_dev_used(const snap *s, emit_fn e, void *c)
{
    gpu_each(s, e, c, s->st.device_used);
}
static void r_gpu_dev_total(const snap *s, emit_fn e, void *c)
{
    gpu_each(s, e, c, s->st.device_total);
}
static void r_proof_hist(const snap *s, emit_fn e, void *c)
{
    e(c, &(sample){.h = &s->mv.proof});
}
static void r_stage_hist(const snap *s, emit_fn e, void *c)
{
    for (size_t i = 0; i < s->mv.n_stages; i++)
        e(c, &(sample){.label = s->mv.stage_names[i], .h = &s->mv.stages[i]});
}

/* ---- the table ---------------------------------------------------------------- */

static const figure figures[] = {
    {NULL, NULL, NULL, NULL, "version", NULL, NULL, r_version},
    {"proofline_uptime_seconds", "gauge", "Seconds since the service "
     "started.", NULL, "uptime_s", NULL, NULL, r_uptime},
    {NULL, NULL, NULL, NULL, "backend", NULL, NULL, r_backend},
    {"proofline_draining", "gauge", "1 while the service drains (SIGTERM), "
     "else 0.", NULL, "draining", NULL, NULL, r_draining},
    {"proofline_ready", "gauge", "1 while the store and the data folder can "
     "be written (/readyz 200), else 0.", NULL, "ready", NULL, NULL, r_ready},
    {"proofline_budget_bytes", "gauge", "The engine's memory budget.", NULL,
     "budget_bytes", NULL, NULL, r_budget},
    {"proofline_budget_reserved_bytes", "gauge", "Bytes reserved from the "
     "budget now.", NULL, "reserved_bytes", NULL, NULL, r_reserved},
    {"proofline_budget_committed_bytes", "gauge", "Bytes reserved, and "
     "planned for partitions given to the engine and not admitted yet.",
     NULL, "committed_bytes", NULL, NULL, r_committed},
    {"proofline_budget_peak_reserved_bytes", "gauge", "The most bytes "
     "reserved at once since the start.", NULL, "peak_reserved_bytes", NULL,
     NULL, r_peak_reserved},
    {"proofline_tracked_bytes", "gauge", "Live bytes of the host buffer "
     "classes.", NULL, "tracked_bytes", NULL, NULL, r_tracked},
    {NULL, NULL, NULL, NULL, "peak_tracked_bytes", NULL, NULL,
     r_peak_tracked},
    {"proofline_rss_anon_bytes", "gauge", "The process's anonymous resident "
     "memory (RssAnon).", NULL, "rss_anon_bytes", NULL, NULL, r_rss},
    {NULL, NULL, NULL, NULL, "peak_rss_anon_bytes", NULL, NULL, r_peak_rss},
    {"proofline_rss_file_bytes", "gauge", "The process's file-backed "
     "resident memory (RssFile: a mapped zkey's pages, say).", NULL,
     "rss_file_bytes", NULL, NULL, r_rss_file},
    {"proofline_untracked_bytes", "gauge", "RssAnon not explained by "
     "accounted buffers and the baseline.", NULL, "untracked_bytes", NULL,
     NULL, r_untracked},
    {"proofline_buffer_bytes", "gauge", "Live bytes of accounted buffers, by "
     "class.", "classes", "bytes", "class", NULL, r_class_bytes},
    {"proofline_buffer_peak_bytes", "gauge", "High-water bytes of accounted "
     "buffers, by class.", "classes", "peak_bytes", "class", NULL,
     r_class_peak},
    {"proofline_buffers", "gauge", "Live accounted buffers, by class.",
     "classes", "count", "class", NULL, r_class_count},
    {"proofline_partitions", "gauge", "This worker's claimed partitions, by "
     "stage (each in exactly one).", "stages", "", "stage", NULL, r_stages},
    {"proofline_queue_depth", "gauge", "Partitions waiting to be claimed in "
     "the store, by priority.", "queue", "", "priority", "worker", r_queue},
    {"proofline_claimed_partitions", "gauge", "Partitions claimed by workers "
     "now.", NULL, "claimed", NULL, NULL, r_claimed},
    {"proofline_jobs", "gauge", "Jobs in the store, by state.", "jobs", "",
     "state", NULL, r_jobs},
    {"proofline_unrecorded_outcomes", "gauge", "Outcomes (proofs, failures) "
     "waiting for the store to write again.", NULL, "unrecorded", NULL, NULL,
     r_unrecorded},
    {"proofline_http_connections_total", "counter", "Connections the service "
     "took.", "connections", "opened", NULL, NULL, r_conn_opened},
    {"proofline_http_connections_closed_total", "counter", "Connections the "
     "service closed for a limit: headers too slow (--header-timeout), a "
     "body too slow (--body-min-rate), room made for a new one (evicted), a "
     "new one with no room (refused).", "connections_closed", "", "reason",
     NULL, r_conn_closed},
    {"proofline_cluster_workers", "gauge", "Workers on the store: live (heard "
     "from within 3 leases), silent, gone (left cleanly).", NULL, NULL,
     "state", NULL, r_cluster},
    {"proofline_proofs_total", "counter", "Partitions ended by the worker, by "
     "result.", NULL, NULL, "result", NULL, r_proofs},
    {"proofline_deadline_missed_total", "counter", "Jobs with a deadline this "
     "worker finished after it, by class (priority); each was still "
     "completed.", NULL, NULL, "class", NULL, r_missed},
    {"proofline_deadline_met_total", "counter", "Jobs with a deadline this "
     "worker finished by it, by class (priority).", NULL, NULL, "class", NULL,
     r_met},
    {"proofline_params_budget_bytes", "gauge", "The most bytes of circuits "
     "held hot (--params-budget).", NULL, NULL, NULL, NULL, r_params_budget},
    {"proofline_params_hot_bytes", "gauge", "Bytes of circuits held hot "
     "now.", NULL, NULL, NULL, NULL, r_params_hot},
    {"proofline_params_bytes", "gauge", "A circuit's parameter bytes by tier: "
     "hot (resident, reserved), warm (its key file's pages cached), cold.",
     NULL, NULL, "circuit", "tier", r_params_bytes},
    {"proofline_params_promotions_total", "counter", "Times a circuit was "
     "made hot (its parameters loaded).", NULL, NULL, "circuit", NULL,
     r_promotions},
    {"proofline_params_demotions_total", "counter", "Times a hot circuit was "
     "let go (least recently used, evict, idle).", NULL, NULL, "circuit",
     NULL, r_demotions},
    {"proofline_gpu_used_bytes", "gauge", "GPU memory in use as its driver "
     "reports it.", "gpu", "used_bytes", NULL, NULL, r_gpu_used},
    {"proofline_gpu_total_bytes", "gauge", "GPU memory in total.", "gpu",
     "total_bytes", NULL, NULL, r_gpu_total},
    {NULL, NULL, NULL, "gpu", "device_class_bytes", NULL, NULL, r_gpu_class},
    {"proofline_gpu_peak_untracked_bytes", "gauge", "The peak of GPU memory "
     "used outside class device.", "gpu", "peak_untracked_bytes", NULL, NULL,
     r_gpu_untracked},
    {"proofline_gpu_device_used_bytes", "gauge", "One GPU's memory in use as "
     "its driver reports it, by device (the ordinal the engine proves on).",
     "gpus", "used_bytes", "gpu", NULL, r_gpu_dev_used},
    {"proofline_gpu_device_total_bytes", "gauge", "One GPU's memory in total, "
     "by device.", "gpus", "total_bytes", "gpu", NULL, r_gpu_dev_total},
    {"proofline_proof_duration_seconds", "histogram", "Seconds from a "
     "partition's claim to its proof on disk.", NULL, NULL, NULL, NULL,
     r_proof_hist},
    {"proofline_stage_duration_seconds", "histogram", "Seconds of each prover "
     "stage, by stage.", NULL, NULL, "stage", NULL, r_stage_hist},
};
#define N_FIGURES (sizeof(figures) / sizeof(figures[0]))

/* ---- the snapshot --------------------------------------------------------------- */

static bool count_worker(void *user, const pl__store_worker *w)
{
    snap *s = user;
    int64_t lease = s->svc->lease_ms ? s->svc->lease_ms : 30000;
    if (w->gone)
        s->gone++;
    else if (w->age_ms <= 3 * lease)
        s->live++;
    else
        s->silent++;
    return true;
}

static pl_status snap_read(snap *s, pl__service *svc, bool cluster,
                           pl_error *err)
{
    memset(s, 0, sizeof(*s));
    s->svc = svc;
    pl_engine_stats_read(svc->engine, &s->st);
    pl_status st = pl__store_counts_read(svc->store, &s->c, err);
    if (st != PL_OK)
        return st;
    pl__worker_view_read(svc->worker, &s->wv);
    pl__metrics_read(svc->metrics, &s->mv);
    if (svc->server)
        pl__guard_counts_read(pl__server_guard(svc->server), &s->gc);
    s->ready = !atomic_load(&svc->draining) && pl__health_ok(svc, NULL, 0);
    if (svc->residency) {
        pl__residency_bytes(svc->residency, &s->hot, NULL, &s->peak_hot);
        s->params_budget = pl__residency_budget(svc->residency);
        s->ents = calloc(MAX_ENTRIES, sizeof(*s->ents));
        if (s->ents) {
            s->n_ents = pl__residency_list(svc->residency, s->ents,
                                           MAX_ENTRIES);
            if (s->n_ents > MAX_ENTRIES)
                s->n_ents = MAX_ENTRIES;
        }
    }
    if (cluster)
        s->cluster_read = pl__store_worker_list(svc->store, count_worker, s,
                                                err) == PL_OK;
    return PL_OK;
}

static void snap_free(snap *s)
{
    free(s->ents);
}

/* ---- Prometheus text --------------------------------------------------------------- */

typedef struct prom_ctx {
    pl__strbuf *sb;
    const figure *f;
} prom_ctx;

static void prom_value(pl__strbuf *sb, const sample *v)
{
    switch (v->t) {
    case V_U64: pl__strbuf_printf(sb, "%llu", (unsigned long long)v->u); break;
    case V_I64: pl__strbuf_printf(sb, "%lld", (long long)v->i); break;
    case V_F64: pl__strbuf_printf(sb, "%.3f", v->f); break;
    case V_BOOL: pl__strbuf_printf(sb, "%d", v->u ? 1 : 0); break;
    default: pl__strbuf_printf(sb, "0"); break;
    }
}

/* A label's value as the exposition format quotes it. */
static void prom_label(pl__strbuf *sb, const char *name, const char *value)
{
    pl__strbuf_printf(sb, "%s=\"", name);
    for (const char *p = value; *p; p++)
        if (*p == '\\' || *p == '"')
            pl__strbuf_printf(sb, "\\%c", *p);
        else if (*p == '\n')
            pl__strbuf_printf(sb, "\\n");
        else
            pl__strbuf_printf(sb, "%c", *p);
    pl__strbuf_printf(sb, "\"");
}

static void prom_sample(void *arg, const sample *v)
{
    prom_ctx *c = arg;
    const figure *f = c->f;
    pl__strbuf *sb = c->sb;
    if (v->t == V_STR)
        return;
    if (v->h) { /* a histogram: its buckets, cumulative, then sum, count */
        const double *bounds = pl__histogram_bounds();
        uint64_t cum = 0;
        for (int i = 0; i <= PL__HISTOGRAM_BUCKETS; i++) {
            cum += v->h->counts[i];
            pl__strbuf_printf(sb, "%s_bucket{", f->metric);
            if (v->label) {
                prom_label(sb, f->label, v->label);
                pl__strbuf_printf(sb, ",");
            }
            if (i < PL__HISTOGRAM_BUCKETS)
                pl__strbuf_printf(sb, "le=\"%g\"} %llu\n", bounds[i],
                                  (unsigned long long)cum);
            else
                pl__strbuf_printf(sb, "le=\"+Inf\"} %llu\n",
                                  (unsigned long long)cum);
        }
        for (int k = 0; k < 2; k++) {
            pl__strbuf_printf(sb, "%s_%s", f->metric, k ? "count" : "sum");
            if (v->label) {
                pl__strbuf_printf(sb, "{");
                prom_label(sb, f->label, v->label);
                pl__strbuf_printf(sb, "}");
            }
            if (k)
                pl__strbuf_printf(sb, " %llu\n", (unsigned long long)v->h->n);
            else
                pl__strbuf_printf(sb, " %.6f\n", v->h->sum);
        }
        return;
    }
    pl__strbuf_printf(sb, "%s", f->metric);
    if (v->label) {
        pl__strbuf_printf(sb, "{");
        prom_label(sb, f->label, v->label);
        if (v->label2) {
            pl__strbuf_printf(sb, ",");
            prom_label(sb, f->label2, v->label2);
        }
        pl__strbuf_printf(sb, "}");
    }
    pl__strbuf_printf(sb, " ");
    prom_value(sb, v);
    pl__strbuf_printf(sb, "\n");
}

pl_status pl__figures_prometheus(pl__service *svc, pl__strbuf *sb,
                                 pl_error *err)
{
    snap s;
    pl_status st = snap_read(&s, svc, true, err);
    for (size_t i = 0; st == PL_OK && i < N_FIGURES; i++) {
        if (!figures[i].metric)
            continue;
        /* every family is named, with no sample when it has none now
         * (the GPU's without a device): a dashboard's query names a
         * metric that exists, and a checker can tell */
        pl__strbuf_printf(sb, "# HELP %s %s\n# TYPE %s %s\n",
                          figures[i].metric, figures[i].help,
                          figures[i].metric, figures[i].type);
        prom_ctx c = {sb, &figures[i]};
        figures[i].read(&s, prom_sample, &c);
    }
    snap_free(&s);
    if (st == PL_OK && sb->failed)
        st = pl__error_set(err, PL_ENOMEM, "/metrics: out of memory");
    return st;
}

/* ---- JSON ------------------------------------------------------------------------------ */

#define MAX_SAMPLES 64

typedef struct json_ctx {
    sample v[MAX_SAMPLES];
    size_t n;
} json_ctx;

static void keep_sample(void *arg, const sample *v)
{
    json_ctx *c = arg;
    if (c->n < MAX_SAMPLES && !v->h)
        c->v[c->n++] = *v;
}

static void json_value(pl__jw *w, const sample *v)
{
    switch (v->t) {
    case V_U64: pl__jw_u64(w, v->u); break;
    case V_I64: pl__jw_i64(w, v->i); break;
    case V_F64: pl__jw_f64(w, v->f, 3); break;
    case V_BOOL: pl__jw_bool(w, v->u != 0); break;
    case V_STR: pl__jw_str(w, v->s); break;
    }
}

/* The rows from i sharing its group, written as that group's object:
 * {label: value} for a row keyed by its label ("" key), {label: {key:
 * value, ...}} for several labelled rows, {key: value, ...} for rows
 * without a label.  Returns the row after them; nothing is written when
 * none has a sample. */
static size_t json_group(pl__jw *w, const snap *s, size_t i)
{
    const char *group = figures[i].group;
    size_t end = i;
    while (end < N_FIGURES && figures[end].group &&
           strcmp(figures[end].group, group) == 0)
        end++;
    json_ctx *rows = calloc(end - i, sizeof(*rows));
    if (!rows) {
        w->failed = true;
        return end;
    }
    bool any = false;
    for (size_t k = i; k < end; k++) {
        figures[k].read(s, keep_sample, &rows[k - i]);
        any = any || rows[k - i].n > 0;
    }
    if (any) {
        pl__jw_key(w, group);
        pl__jw_object(w);
        if (!figures[i].label) {
            for (size_t k = i; k < end; k++)
                if (rows[k - i].n) {
                    pl__jw_key(w, figures[k].json);
                    json_value(w, &rows[k - i].v[0]);
                }
        } else {
            for (size_t j = 0; j < rows[0].n; j++) {
                const char *label = rows[0].v[j].label;
                pl__jw_key(w, label);
                if (end - i == 1 && !figures[i].json[0]) {
                    json_value(w, &rows[0].v[j]);
                    continue;
                }
                pl__jw_object(w);
                for (size_t k = i; k < end; k++)
                    for (size_t m = 0; m < rows[k - i].n; m++)
                        if (strcmp(rows[k - i].v[m].label, label) == 0) {
                            pl__jw_key(w, figures[k].json);
                            json_value(w, &rows[k - i].v[m]);
                            break;
                        }
                pl__jw_end_object(w);
            }
        }
        pl__jw_end_object(w);
    }
    free(rows);
    return end;
}

/* Every row with a JSON key, in the table's order, as members of the
 * object w has open. */
static void json_rows(pl__jw *w, const snap *s)
{
    for (size_t i = 0; i < N_FIGURES;) {
        const figure *f = &figures[i];
        if (!f->json) {
            i++;
            continue;
        }
        if (f->group) {
            i = json_group(w, s, i);
            continue;
        }
        json_ctx c = {.n = 0};
        f->read(s, keep_sample, &c);
        if (c.n) {
            pl__jw_key(w, f->json);
            json_value(w, &c.v[0]);
        }
        i++;
    }
}

pl_status pl__figures_status_json(pl__service *svc, pl__strbuf *sb,
                                  pl_error *err)
{
    snap s;
    pl_status st = snap_read(&s, svc, false, err);
    if (st != PL_OK)
        return st;
    pl__jw w;
    pl__jw_to_buffer(&w, sb, false);
    pl__jw_object(&w);
    json_rows(&w, &s);
    /* what is not a figure: the worker's claims, the parameters */
    pl__jw_key(&w, "workers");
    pl__jw_array(&w);
    pl__jw_object(&w);
    pl__jw_key_str(&w, "owner", svc->owner);
    pl__jw_key_str(&w, "state", s.wv.state);
    pl__jw_key_u64(&w, "in_flight", s.wv.in_flight);
    pl__jw_key_u64(&w, "claimed", s.wv.claimed);
    pl__jw_key_u64(&w, "completed", s.wv.completed);
    pl__jw_key_u64(&w, "failed", s.wv.failed);
    pl__jw_key_u64(&w, "released", s.wv.released);
    pl__jw_key_u64(&w, "unrecorded", s.wv.unrecorded);
    pl__jw_key_u64(&w, "resident_bytes", s.hot);
    pl__jw_key(&w, "partitions");
    pl__worker_partitions_json(&s.wv, &w);
    pl__strbuf last = {0};
    pl__http_relative(svc, s.wv.last_error, &last);
    pl__jw_key_str(&w, "last_error", last.data ? last.data : "");
    pl__strbuf_free(&last);
    pl__jw_end_object(&w);
    pl__jw_end_array(&w);
    if (svc->residency) {
        pl__jw_key(&w, "params");
        pl__figures_params_json(svc, &w, NULL);
    }
    pl__jw_end_object(&w);
    pl__strbuf_printf(sb, "\n");
    snap_free(&s);
    if (w.failed || sb->failed)
        return pl__error_set(err, PL_ENOMEM, "/v1/status: out of memory");
    return PL_OK;
}

/* ---- parameters ---------------------------------------------------------------------- */

static void params_entry_json(pl__jw *w, const pl__residency_entry *e)
{
    pl__jw_object(w);
    pl__jw_key_str(w, "id", e->id);
    pl__jw_key_str(w, "tier", pl__tier_name(e->tier));
    if (e->curve) /* known once the circuit has been opened */
        pl__jw_key_str(w, "curve", e->curve);
    pl__jw_key_u64(w, "resident_bytes", e->resident_bytes);
    pl__jw_key_u64(w, "cached_bytes", e->cached_bytes);
    pl__jw_key_u64(w, "refs", e->refs);
    pl__jw_key_u64(w, "promotions", e->promotions);
    pl__jw_key_u64(w, "demotions", e->demotions);
    pl__jw_key_f64(w, "last_promotion_s", e->last_promotion_s, 6);
    pl__jw_key_f64(w, "idle_s", e->idle_s, 3);
    pl__jw_end_object(w);
}

void pl__figures_params_json(pl__service *svc, pl__jw *w, const char *id)
{
    pl__residency_entry *ents = calloc(MAX_ENTRIES, sizeof(*ents));
    size_t n = ents ? pl__residency_list(svc->residency, ents, MAX_ENTRIES)
                    : 0;
    if (n > MAX_ENTRIES)
        n = MAX_ENTRIES;
    if (id) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            if (strcmp(ents[i].id, id) == 0) {
                params_entry_json(w, &ents[i]);
                found = true;
            }
        if (!found) {
            pl__jw_object(w);
            pl__jw_key_str(w, "id", id);
            pl__jw_key_str(w, "tier", "cold");
            pl__jw_end_object(w);
        }
        free(ents);
        return;
    }
    uint64_t hot = 0, peak = 0;
    pl__residency_bytes(svc->residency, &hot, NULL, &peak);
    pl__jw_object(w);
    pl__jw_key_u64(w, "budget_bytes", pl__residency_budget(svc->residency));
    pl__jw_key_u64(w, "hot_bytes", hot);
    pl__jw_key_u64(w, "peak_hot_bytes", peak);
    pl__jw_key(w, "circuits");
    pl__jw_array(w);
    for (size_t i = 0; i < n; i++)
        params_entry_json(w, &ents[i]);
    pl__jw_end_array(w);
    pl__jw_end_object(w);
    free(ents);
}

/* ---- the cluster ------------------------------------------------------------------------- */

static bool put_worker(void *user, const pl__store_worker *wk)
{
    pl__jw *w = user;
    pl__jw_object(w);
    pl__jw_key_str(w, "id", wk->id);
    pl__jw_key_str(w, "host", wk->host);
    pl__jw_key_i64(w, "pid", wk->pid);
    pl__jw_key_str(w, "backend", wk->backend);
    pl__jw_key_str(w, "gpus", wk->gpus);
    pl__jw_key_u64(w, "budget_bytes", wk->budget_bytes);
    pl__jw_key_u64(w, "reserved_bytes", wk->reserved_bytes);
    /* status_json is a worker's own object, written by its worker_row:
     * checked to be one before it is passed on */
    pl__json_doc doc;
    pl_error err = {0};
    bool object =
        pl__json_parse(&doc, wk->status_json, strlen(wk->status_json),
                       "status", &err) == PL_OK &&
        pl__json_root(&doc)->type == PL__JSON_OBJECT;
    if (object)
        pl__json_free(&doc);
    pl__jw_key(w, "status");
    if (object)
        pl__jw_raw(w, wk->status_json, strlen(wk->status_json));
    else
        pl__jw_raw(w, "{}", 2);
    pl__jw_key_bool(w, "gone", wk->gone);
    pl__jw_key_i64(w, "started_ms", wk->started_unix_ms);
    pl__jw_key_i64(w, "heartbeat_ms", wk->heartbeat_unix_ms);
    pl__jw_key_i64(w, "age_ms", wk->age_ms);
    pl__jw_end_object(w);
    return true;
}

pl_status pl__figures_cluster_json(pl__service *svc, pl__strbuf *sb,
                                   pl_error *err)
{
    pl__store_counts c;
    pl_status st = pl__store_counts_read(svc->store, &c, err);
    if (st != PL_OK)
        return st;
    pl__jw w;
    pl__jw_to_buffer(&w, sb, false);
    pl__jw_object(&w);
    pl__jw_key_str(&w, "self", svc->owner);
    pl__jw_key(&w, "workers");
    pl__jw_array(&w);
    if ((st = pl__store_worker_list(svc->store, put_worker, &w, err)))
        return st;
    pl__jw_end_array(&w);
    pl__jw_key(&w, "queue");
    pl__jw_object(&w);
    for (int k = PL__PRIORITY_COUNT - 1; k >= 0; k--)
        pl__jw_key_u64(&w, pl__priority_name((pl__priority)k),
                       c.queued_partitions[k]);
    pl__jw_end_object(&w);
    pl__jw_key_u64(&w, "claimed", c.claimed_partitions);
    pl__jw_key(&w, "jobs");
    pl__jw_object(&w);
    for (int k = 0; k < PL__JOB_STATE_COUNT; k++)
        pl__jw_key_u64(&w, pl__job_state_name((pl__job_state)k), c.jobs[k]);
    pl__jw_end_object(&w);
    pl__jw_end_object(&w);
    pl__strbuf_printf(sb, "\n");
    if (w.failed || sb->failed)
        return pl__error_set(err, PL_ENOMEM, "/v1/cluster: out of memory");
    return PL_OK;
}
