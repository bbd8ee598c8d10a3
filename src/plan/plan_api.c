/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The planner's public face (pl_plan_* in proofline.h): a configuration of
 * circuit, machine, engine and load becomes the simulation's (plan.h) with
 * the bytes of the plan admission reserves and the stage durations of a
 * costs profile (costs.c), shared among the cores as the stages run; the
 * result, the report's stats, the trace and the plot come back from it.
 *
 * The cost model, in one place: a stage's seconds are the profile's for
 * the circuit's curve (a profile without that curve's stages is refused:
 * BN254's and BLS12-381's differ by about the ratio of their limbs) at the
 * circuit's domain; the prover's start on the CPU was measured on the
 * profile's cores and scales with the machine's (linearly: the G1 sums and
 * the NTT use every core); a stage that starts while the cores are asked
 * for more than they have (each synthesis and finish one core, a CPU start
 * every core) is stretched by the ratio.  Stretching at the start, not
 * continuously, keeps the simulation event-driven; docs/plan.md and
 * bench/plan_validate.sh say how far it is off.
 */
#define _GNU_SOURCE
#include "plan/plan.h"
#include "backend/backend.h"
#include "formats/formats.h"
#include "ledger/ledger.h"
#include "util/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pl_plan {
    pl__plan_result sim;
    pl_plan_result result;
    pl__ledger *ledger; /* with the records when the timeline is kept */
    bool timeline;
};

typedef struct {
    const pl_plan_costs *costs;
    pl_curve curve;
    uint64_t rows;
    unsigned cores;
} cost_ctx;

/* The cores a stage keeps busy: synthesis and the finish one, a CPU start
 * all of them, a GPU start none. */
static double stage_threads(const cost_ctx *c, pl__plan_stage stage)
{
    if (stage != PL__PLAN_PROVE)
        return 1;
    return c->costs->gpu ? 0 : (double)c->cores;
}

static double cost_duration(void *user, pl__plan_stage stage, uint64_t job,
                            size_t partition, const pl__plan_load *load)
{
    (void)job;
    (void)partition;
    const cost_ctx *c = user;
    double t = pl_plan_costs_seconds_curve(c->costs, c->curve,
                                           (pl_plan_stage)stage, c->rows);
    double own = stage_threads(c, stage);
    if (stage == PL__PLAN_PROVE && own > 0)
        t *= (double)c->costs->cores / (double)c->cores;
    if (own == 0 || t <= 0)
        return t;
    /* the cores the other running stages take while this one runs, on
     * average: each for as long as it still has to run, at most t */
    double others = 0;
    for (size_t i = 0; i < load->n_running; i++) {
        double overlap = load->remaining[i] < t ? load->remaining[i] : t;
        others += stage_threads(c, load->running[i]) * overlap;
    }
    double demand = own + others / t;
    if (demand > c->cores)
        t *= demand / (double)c->cores;
    return t;
}

void pl_plan_config_init(pl_plan_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
}

static pl_status shape_of(const pl_plan_config *cfg, pl__plan_shape *shape,
                          uint64_t *key_bytes, pl_error *err)
{
    pl_status st;
    double density = cfg->density > 0 ? cfg->density : 2.0;
    *key_bytes = 0;
    if (cfg->zkey_path) {
        pl_zkey *zk;
        struct stat sb;
        if ((st = pl_zkey_open(&zk, cfg->zkey_path, err)) != PL_OK)
            return st;
        pl__plan_shape_of_zkey(shape, zk); /* its curve included */
        pl_zkey_close(zk);
        if (stat(cfg->zkey_path, &sb) != 0)
            return pl__error_errno(err, PL_EIO, errno, "%s: cannot stat",
                                   cfg->zkey_path);
        *key_bytes = (uint64_t)sb.st_size;
        return PL_OK;
    }
    if (cfg->r1cs_path) {
        pl_r1cs *r;
        pl_r1cs_info info;
        if ((st = pl_r1cs_open(&r, cfg->r1cs_path, err)) != PL_OK)
            return st;
        pl_r1cs_get_info(r, &info);
        const pl__curve curve = r->curve;
        pl_r1cs_close(r);
        if ((st = pl__plan_shape_of(shape, info.n_constraints,
                                    (uint64_t)info.n_pub_out + info.n_pub_in,
                                    density, err)) != PL_OK)
            return st;
        shape->n_vars = info.n_wires; /* the header says it */
        shape->curve = curve;
        return PL_OK;
    }
    if (!cfg->constraints)
        return pl__error_set(err, PL_EUSAGE, "plan: the circuit: a zkey, an "
                             "r1cs, or a number of constraints");
    st = pl__plan_shape_of(shape, cfg->constraints, cfg->publics, density,
                           err);
    shape->curve = cfg->curve == PL_CURVE_BN254 ? PL__CURVE_BN254
                                                : PL__CURVE_BLS12_381;
    return st;
}

pl_status pl_plan_run(pl_plan **out, const pl_plan_config *cfg, pl_error *err)
{
    *out = NULL;
    if (!cfg->costs)
        return pl__error_set(err, PL_EUSAGE, "plan: no stage costs (a costs "
                             "file, from `proofline calibrate`)");
    pl__plan_shape shape;
    uint64_t key_bytes;
    pl_status st = shape_of(cfg, &shape, &key_bytes, err);
    if (st != PL_OK)
        return st;
    const pl_curve curve = shape.curve == PL__CURVE_BN254 ? PL_CURVE_BN254
                                                          : PL_CURVE_BLS12_381;
    if (!pl_plan_costs_has_curve(cfg->costs, curve))
        return pl__error_set(err, PL_EUSAGE, "plan: the circuit is for curve "
                             "%s, but the costs (profile %s) give stage costs "
                             "for %s only (a costs file's lines after `curve "
                             "%s` are that curve's; docs/plan.md)",
                             pl_curve_name(curve),
                             cfg->costs->profile[0] ? cfg->costs->profile
                                                    : "unnamed",
                             pl_curve_name(curve == PL_CURVE_BN254
                                               ? PL_CURVE_BLS12_381
                                               : PL_CURVE_BN254),
                             pl_curve_name(curve));
    pl_plan *p = calloc(1, sizeof(*p));
    if (!p)
        return pl__error_set(err, PL_ENOMEM, "plan: out of memory");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned cores = cfg->cores ? cfg->cores : online > 0 ? (unsigned)online : 1;
    uint64_t memory = cfg->memory_bytes ? cfg->memory_bytes : pl_memory_limit();

    pl__plan_config pc;
    memset(&pc, 0, sizeof(pc));
    /* the bytes of the backend that would run: a GPU's host share (the
     * CUDA backend's plan, which its emulation shares), or the CPU's, with
     * the machine's cores as the prover's threads */
    const pl__backend_ops *backend;
    if ((st = pl__prover_backend(&backend, cfg->gpus ? "cuda-emulated"
                                                     : "cpu",
                                 NULL, 0, err)) != PL_OK) {
        free(p);
        return st;
    }
    pl__plan_bytes_for(&pc.bytes, &shape, backend, cores, key_bytes,
                       cfg->witness_bytes);
    /* the engine's decision: one prover worker per device, unless told */
    pc.engine.synth_workers = cfg->synth_workers;
    pc.engine.prover_workers = cfg->prover_workers;
    pc.engine.devices = cfg->gpus;
    pc.engine.budget_bytes = cfg->no_budget ? UINT64_MAX : cfg->budget_bytes;
    pc.policy = cfg->policy == PL_PLAN_RELEASE_AT_SYNTH_END
                    ? PL__SCHED_RELEASE_AT_SYNTH_END
                    : PL__SCHED_OURS;
    pc.memory_bytes = memory;
    pc.baseline_bytes = cfg->baseline_bytes;
    pc.jobs = cfg->jobs ? cfg->jobs : 1;
    pc.partitions = cfg->partitions ? cfg->partitions : 1;
    pc.arrival_seconds = cfg->arrival_seconds;
    cost_ctx cc = {cfg->costs, curve, shape.domain_size, cores};
    pc.duration = cost_duration;
    pc.duration_user = &cc;
    pl__ledger_config lc = {PL_LOG_QUIET, NULL, NULL, NULL,
                            cfg->record_timeline};
    if ((st = pl__ledger_create(&p->ledger, &lc, err)) != PL_OK)
        goto fail;
    pc.ledger = p->ledger;
    p->timeline = cfg->record_timeline;
    if ((st = pl__plan_run(&p->sim, &pc, err)) != PL_OK)
        goto fail;

    pl_plan_result *r = &p->result;
    const pl__plan_result *s = &p->sim;
    r->fits = !s->out_of_memory;
    r->oom_seconds = s->oom_seconds;
    r->oom_memory_bytes = s->oom_memory_bytes;
    memcpy(r->oom_stage_now, s->oom_stage_now, sizeof(r->oom_stage_now));
    r->oom_class = s->oom_class;
    r->oom_event = s->oom_event;
    r->wall_seconds = s->wall_seconds;
    r->curve = curve;
    r->proved = s->proved;
    r->jobs_done = s->jobs_done;
    r->synth_workers = s->servers[PL__PLAN_SYNTH];
    r->prover_workers = s->servers[PL__PLAN_PROVE];
    r->cores = cores;
    r->gpus = cfg->gpus;
    r->budget_bytes = s->budget_bytes;
    r->memory_bytes = memory;
    r->resident_bytes = s->resident_bytes;
    r->partition_bytes = s->partition_bytes;
    r->device_bytes = pc.bytes.device;
    r->peak_reserved_bytes = s->peak_reserved_bytes;
    r->peak_memory_bytes = s->peak_memory_bytes;
    memcpy(r->peak_class_bytes, s->peak_class_bytes,
           sizeof(r->peak_class_bytes));
    memcpy(r->peak_memory_by_stage, s->peak_memory_by_stage,
           sizeof(r->peak_memory_by_stage));
    memcpy(r->stage_peak, s->stage_peak, sizeof(r->stage_peak));
    r->queue_bin_seconds = s->queue_bin_seconds;
    memcpy(r->queue_waiting, s->queue_waiting, sizeof(r->queue_waiting));
    memcpy(r->queue_in_flight, s->queue_in_flight,
           sizeof(r->queue_in_flight));
    r->events = s->events;
    r->domain_rows = shape.domain_size;
    double core_work = 0;
    for (int i = 0; i < PL_PLAN_STAGE_COUNT; i++) {
        double capacity = (double)s->servers[i] * s->wall_seconds;
        r->utilisation[i] = capacity > 0 ? s->busy_seconds[i] / capacity : 0;
        r->stage_seconds[i] =
            s->runs[i] ? s->busy_seconds[i] / (double)s->runs[i] : 0;
        if (r->utilisation[i] > 1)
            r->utilisation[i] = 1;
        bool on_gpu = i == PL__PLAN_PROVE && cfg->costs->gpu;
        if (!on_gpu)
            core_work += s->busy_seconds[i] *
                         (i == PL__PLAN_PROVE ? (double)cores : 1.0);
    }
    r->core_utilisation = s->wall_seconds > 0
                              ? core_work / (cores * s->wall_seconds) : 0;
    if (r->core_utilisation > 1)
        r->core_utilisation = 1;
    r->gpu_utilisation = cfg->gpus && cfg->costs->gpu && s->wall_seconds > 0
                             ? s->busy_seconds[PL__PLAN_PROVE] /
                                   (cfg->gpus * s->wall_seconds)
                             : 0;
    if (r->gpu_utilisation > 1)
        r->gpu_utilisation = 1;
    *out = p;
    return PL_OK;
fail:
    pl_plan_destroy(p);
    return st;
}

void pl_plan_destroy(pl_plan *p)
{
    if (!p)
        return;
    pl__ledger_destroy(p->ledger);
    free(p);
}

void pl_plan_result_read(const pl_plan *p, pl_plan_result *out)
{
    *out = p->result;
}

void pl_plan_stats_read(const pl_plan *p, pl_engine_stats *out)
{
    const pl_plan_result *r = &p->result;
    memset(out, 0, sizeof(*out));
    out->backend = "plan";
    out->budget_bytes = r->budget_bytes;
    out->peak_reserved_bytes = r->peak_reserved_bytes;
    /* the end of a run: every job done and the circuit released, so the
     * ledger is balanced (reserved, live and tracked are 0) */
    pl__ledger_peaks peaks;
    pl__ledger_read_peaks(p->ledger, &peaks);
    out->baseline_rss_anon_bytes = peaks.baseline_rss_anon;
    out->peak_rss_anon_bytes = r->peak_memory_bytes;
    out->peak_rss_bytes = r->peak_memory_bytes;
    out->peak_tracked_bytes = r->peak_memory_bytes - peaks.baseline_rss_anon;
    out->events = r->events;
    memcpy(out->stage_peak, r->stage_peak, sizeof(out->stage_peak));
    out->proofs = r->proved;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        out->classes[c].high_water_bytes = r->peak_class_bytes[c];
    out->rss_anon_bytes = peaks.baseline_rss_anon;
}

pl_status pl_plan_write_trace(pl_plan *p, const char *path, pl_error *err)
{
    if (!p->timeline)
        return pl__error_set(err, PL_EUSAGE, "%s: the plan was run without "
                             "record_timeline", path);
    return pl__ledger_write_trace(p->ledger, path, err);
}

pl_status pl_plan_write_plot(pl_plan *p, const char *path, pl_error *err)
{
    if (!p->timeline)
        return pl__error_set(err, PL_EUSAGE, "%s: the plan was run without "
                             "record_timeline", path);
    pl__plot_marks marks = {.memory_bytes = p->result.memory_bytes,
                            .out_of_memory = !p->result.fits,
                            .oom_seconds = p->result.oom_seconds};
    return pl__ledger_write_plot_marked(p->ledger, path, &marks, err);
}
