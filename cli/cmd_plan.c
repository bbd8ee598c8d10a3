/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `proofline plan`: what a configuration will do to memory and throughput,
 * answered before it runs (pl_plan_run: the engine's own scheduling
 * decisions on a simulated clock, with the bytes admission reserves).
 * Prints the answer first, in one sentence: fits, or when the machine
 * runs out of memory, and why (how fast synthesis makes partitions
 * against how fast the provers take them); when it runs out, what was in
 * flight and the smallest change that fits; then the peaks by class and
 * by stage,
 * throughput, the bottleneck and each resource's utilisation; --report,
 * --trace and --plot write what `batch` writes for a run; --recommend
 * searches pw and prover workers for the best throughput that fits.
 *
 * The presets are the story's circuit (docs/design.md; figures and sources in
 * docs/plan.md): shape, partitions per sector, the machine, and an
 * estimated GPU profile of stage costs.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const cli_command plan_cmd = {
    "plan",
    "Usage: proofline plan (--zkey F | --r1cs F | --constraints N | --preset P)\n"
    "                      --costs FILE [options]\n"
    "\n"
    "Runs the engine's own scheduler (admission under the byte budget, the\n"
    "synthesis workers, the bounded hand-off, the provers) on a simulated\n"
    "clock, with the bytes each partition reserves and stage costs from a\n"
    "profile, and says whether the configuration fits the machine's memory,\n"
    "what peaks where, and its throughput.  Nothing is proved or allocated\n"
    "but the simulation's records.\n",
    "\n"
    "Presets (docs/plan.md gives the figures and their sources):\n"
    "  filecoin-porep-32g  ~130M constraints, 10 partitions per sector, the\n"
    "                      story's machine (755 GiB, 1 GPU) and its estimated\n"
    "                      stage costs\n"
    "  filecoin-porep-64g  the same at ~133M constraints (estimated)\n"
    "The costs file format is in docs/plan.md; `proofline calibrate` writes\n"
    "one for this machine.  Stage costs are per curve: the circuit's curve\n"
    "(a zkey's or an r1cs's, or --curve) picks the file's stages for it (a\n"
    "file without a `curve` line is BLS12-381's).  Exit codes: 0 fits, 1\n"
    "runs out of memory, 2 bad usage or input.\n",
    24};

typedef struct {
    const char *zkey, *r1cs, *preset, *costs_path, *arrival, *density;
    const char *witness;
    uint64_t constraints;
    long publics;
    unsigned cores, gpus, pw, workers, jobs, partitions, policy, curve;
    uint64_t memory, gpu_memory, budget;
    bool no_budget, recommend;
    bool steady; /* --jobs not given: enough jobs for a steady state */
    bool unheld; /* the plan's queue grows with nothing to hold it back */
    const char *report, *trace, *plot;
} plan_options;

static const char *const policies[] = {"ours", "release-at-synthesis-end",
                                       NULL};
/* index: pl_curve */
static const char *const curves[] = {"bls12381", "bn128", NULL};

#define O(field) offsetof(plan_options, field)
static const cli_opt plan_opts[] = {
    {"--zkey", "FILE", CLI_STRING, O(zkey),
     .help = "the circuit: a zkey (its header and size)", .io = CLI_IN},
    {"--r1cs", "FILE", CLI_STRING, O(r1cs),
     .help = "the circuit: an r1cs (its header; see --density)",
     .io = CLI_IN},
    {"--constraints", "N", CLI_CONSTRAINTS, O(constraints),
     .help = "the circuit: N constraints, 2^K or a number"},
    {"--public", "N", CLI_LONG, O(publics),
     .help = "public inputs, with --constraints (default 1)"},
    {"--curve", "C", CLI_CHOICE, O(curve), .choices = curves,
     .help = "the curve, with --constraints: bls12381 (default)\n"
             "or bn128",
     .bad = "%s is bls12381 or bn128, not '%s'"},
    {"--density", "D", CLI_STRING, O(density),
     .help = "A and B terms per constraint, with --constraints\n"
             "or --r1cs (default 2)"},
    {"--witness", "FILE", CLI_STRING, O(witness),
     .help = "partitions come from witness files like this one\n"
             "(its size is reserved; default: generated witnesses)",
     .io = CLI_IN},
    {"--preset", "P", CLI_STRING, O(preset),
     .help = "filecoin-porep-32g or filecoin-porep-64g"},
    {"--cores", "N", CLI_COUNT, O(cores), .max = 65536,
     .help = "the machine's cores (default: this one's)"},
    {"--memory", "SIZE", CLI_SIZE, O(memory),
     .help = "the machine's memory (default: this one's)"},
    {"--gpus", "N", CLI_COUNT, O(gpus), .max = 64,
     .help = "GPUs, one prover worker each (default 0: the CPU)"},
    {"--gpu-memory", "SIZE", CLI_SIZE, O(gpu_memory),
     .help = "each GPU's memory: the circuit's device buffers\n"
             "must fit it (less the MSM's sort scratch)"},
    {"--pw", "N", CLI_COUNT, O(pw), .help = "synthesis workers (default 2)"},
    {"--workers", "N", CLI_COUNT, O(workers),
     .help = "prover workers (default: the GPUs, or 1)"},
    {"--budget", "SIZE", CLI_SIZE, O(budget),
     .help = "the engine's byte budget (default: 80% of --memory;\n"
             "none with release-at-synthesis-end, as in the story)"},
    {"--no-budget", NULL, CLI_FLAG, O(no_budget),
     .help = "no byte budget at all"},
    {"--jobs", "N", CLI_COUNT, O(jobs), .max = 1000000,
     .help = "jobs (sectors, batches) (default: enough for a\n"
             "steady state, 50 partitions per worker, more while\n"
             "the queue grows with nothing to hold it back)"},
    {"--partitions", "K", CLI_COUNT, O(partitions), .max = 100000,
     .help = "partitions per job (default 1; a preset's: 10)"},
    {"--arrival", "RATE", CLI_STRING, O(arrival),
     .help = "jobs arriving at a rate, e.g. 1/60s, 2/h (default:\n"
             "all at once)"},
    {"--costs", "FILE", CLI_STRING, O(costs_path),
     .help = "stage costs (proofline calibrate; required without\n"
             "a preset)", .io = CLI_IN},
    {"--policy", "P", CLI_CHOICE, O(policy), .choices = policies,
     .help = "ours (default) or release-at-synthesis-end (the\n"
             "story's bug: the worker is freed when synthesis ends)",
     .bad = "%s is ours or release-at-synthesis-end, not '%s'"},
    {"--recommend", NULL, CLI_FLAG, O(recommend),
     .help = "the pw and workers that maximise throughput within\n"
             "the memory, and the budget they need"},
    {"--report", "FILE", CLI_STRING, O(report),
     .help = "the plan's figures as JSON (batch --report's format)",
     .io = CLI_OUT},
    {"--trace", "FILE", CLI_STRING, O(trace),
     .help = "a Chrome trace on the simulated clock", .io = CLI_OUT},
    {"--plot", "FILE", CLI_STRING, O(plot),
     .help = "an SVG of memory and stages over simulated time",
     .io = CLI_OUT},
    {NULL},
};

/* ---- presets ----------------------------------------------------------- */

typedef struct {
    const char *name;
    uint64_t constraints, publics;
    unsigned partitions, cores, gpus;
    uint64_t memory_gib;
    pl_plan_costs costs;
} preset;

/* The story's GPU machine: stage costs estimated from docs/design.md (37.1 s
 * per proof of 10 partitions on the GPU: 3.71 s a partition; synthesis
 * chosen inside the window the story implies, docs/plan.md). */
#define STORY_ROWS 134217728.0 /* 2^27 */
#define STORY_COSTS                                                          \
    {"story-gpu-estimate",                                                   \
     "docs/design.md: 37.1 s per 10-partition proof on the GPU; synthesis 40 s "  \
     "per partition, inside the window pw 10 fits and pw 12 does not",      \
     true, true, 96,                                                         \
     {0, 0, 0},                                                              \
     {40.0 / STORY_ROWS, 3.71 / STORY_ROWS, 1.0 / STORY_ROWS},                \
     false, false, {0, 0, 0}, {0, 0, 0}} /* BLS12-381's: Filecoin's curve */

static const preset presets[] = {
    {"filecoin-porep-32g", 130000000, 16, 10, 96, 1, 755, STORY_COSTS},
    {"filecoin-porep-64g", 133000000, 16, 10, 96, 1, 755, STORY_COSTS},
};

/* ---- arguments --------------------------------------------------------- */

/* A duration: a number (1 when absent and `bare` allows it) and a unit
 * s, m or h (s when absent). */
static bool parse_duration(const char *text, bool bare, double *out)
{
    char *end = (char *)text;
    double v = 1;
    if (!bare || (*text != 's' && *text != 'm' && *text != 'h'))
        v = strtod(text, &end);
    if ((end == text && !bare) || !(v >= 0) || !isfinite(v))
        return false;
    double unit = !*end          ? 1
                  : !strcmp(end, "s") ? 1
                  : !strcmp(end, "m") ? 60
                  : !strcmp(end, "h") ? 3600
                                      : 0;
    *out = v * unit;
    return unit > 0;
}

/* "1/60s", "2/h", "30s", "0": seconds between two jobs' arrivals. */
static bool parse_arrival(const char *text, double *seconds)
{
    const char *slash = strchr(text, '/');
    if (!slash)
        return parse_duration(text, false, seconds);
    char *end;
    double jobs = strtod(text, &end);
    double per;
    if (end != slash || !(jobs > 0) || !isfinite(jobs) ||
        !parse_duration(slash + 1, true, &per))
        return false;
    *seconds = per / jobs;
    return true;
}

/* ---- output ------------------------------------------------------------ */

static const char *when(char *buf, size_t cap, double s)
{
    if (s < 120)
        snprintf(buf, cap, "%.2f s", s);
    else if (s < 7200)
        snprintf(buf, cap, "%.1f min (%.0f s)", s / 60, s);
    else
        snprintf(buf, cap, "%.2f h (%.0f s)", s / 3600, s);
    return buf;
}

static const char *bytes(char *buf, size_t cap, uint64_t b)
{
    if (b == UINT64_MAX)
        snprintf(buf, cap, "none");
    else
        pl_format_bytes(buf, cap, b);
    return buf;
}

static const char *const stage_work[PL_PLAN_STAGE_COUNT] = {
    "synthesis", "proving (start)", "finishing"};

static void print_stage_counts(const uint64_t *now)
{
    uint64_t total = 0;
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        total += now[s];
    printf("%llu partitions in flight (", (unsigned long long)total);
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        printf("%s%llu %s", s ? ", " : "", (unsigned long long)now[s],
               pl_stage_name((pl_stage)s));
    printf(")");
}

/* "a partition every 3.3 s" from a stage's seconds and its servers. */
static double every(double seconds, unsigned servers)
{
    return servers ? seconds / servers : 0;
}

/* The why of the answer, in one sentence after "plan: fits: ..." or
 * "plan: runs out of memory ...": how fast synthesis makes partitions
 * against how fast the provers take them, and what that does to the
 * queue and the memory. */
static void print_why(const pl_plan_result *r, bool unheld)
{
    char b1[40], b2[40], b3[40];
    double make = every(r->stage_seconds[PL_PLAN_STAGE_SYNTH], r->synth_workers);
    double take = every(r->stage_seconds[PL_PLAN_STAGE_PROVE], r->prover_workers);
    bool plural = r->prover_workers > 1;
    const char *prover = r->gpus ? (plural ? "the GPUs" : "the GPU")
                                 : (plural ? "the prover workers"
                                           : "the prover worker");
    printf("%u synthesis worker%s make%s a partition every %.1f s, %s "
           "prove%s one every %.1f s", r->synth_workers,
           r->synth_workers == 1 ? "" : "s", r->synth_workers == 1 ? "s" : "",
           make, prover, plural ? "" : "s", take);
    bool faster = make > 0 && take > 0 && make < take * 0.999;
    uint64_t waited = r->stage_peak[PL_STAGE_WAITING];
    if (!r->fits && faster) {
        double grow = 1.0 / (1.0 / make - 1.0 / take);
        printf(": the queue grows by one every %.0f s, each holding %s, "
               "until %s is reached at %.0f s", grow,
               bytes(b1, sizeof(b1), r->partition_bytes),
               bytes(b2, sizeof(b2), r->memory_bytes), r->oom_seconds);
    } else if (!r->fits) {
        uint64_t flying = 0;
        for (int s = 0; s < PL_STAGE_COUNT; s++)
            flying += r->oom_stage_now[s];
        printf(": the prover keeps up, but %llu partitions in flight of %s "
               "each and the circuit's %s resident are more than %s",
               (unsigned long long)flying,
               bytes(b1, sizeof(b1), r->partition_bytes),
               bytes(b2, sizeof(b2), r->resident_bytes),
               bytes(b3, sizeof(b3), r->memory_bytes));
    } else if (faster && unheld) {
        double grow = 1.0 / (1.0 / make - 1.0 / take);
        printf(": synthesis feeds faster than %s drains and nothing holds it "
               "back (no budget, the permit returned at synthesis end): the "
               "queue grows by one every %.0f s, each holding %s, and this "
               "load ends (at most %llu waiting) before %s is reached; a "
               "longer one runs out of memory", prover, grow,
               bytes(b1, sizeof(b1), r->partition_bytes),
               (unsigned long long)waited,
               bytes(b2, sizeof(b2), r->memory_bytes));
    } else if (faster) {
        printf(": synthesis feeds faster than %s drains, and the budget and "
               "the hand-off hold it back (at most %llu waiting), so %s "
               "sets the pace", prover, (unsigned long long)waited, prover);
    } else {
        printf(": %s keeps up (at most %llu waiting), so synthesis sets the "
               "pace", prover, (unsigned long long)waited);
    }
    printf("\n");
}

static void print_result(const pl_plan_result *r, const plan_options *o,
                         const pl_plan_costs *costs, double arrival)
{
    char b1[40], b2[40], b3[40];
    bool gpu_short = o->gpu_memory && r->device_bytes > o->gpu_memory;
    if (gpu_short) {
        printf("plan: the circuit does not fit a GPU: its device buffers "
               "take %s of the GPU's %s (the open would be refused)\n",
               bytes(b1, sizeof(b1), r->device_bytes),
               bytes(b2, sizeof(b2), o->gpu_memory));
    }
    if (r->fits) {
        printf("plan: %s: peak host memory %s of %s: ",
               gpu_short ? "host memory fits" : "fits",
               bytes(b1, sizeof(b1), r->peak_memory_bytes),
               bytes(b2, sizeof(b2), r->memory_bytes));
        print_why(r, o->unheld);
    } else {
        printf("plan: runs out of memory at t = %s: ",
               when(b1, sizeof(b1), r->oom_seconds));
        print_why(r, o->unheld);
        printf("  then: ");
        print_stage_counts(r->oom_stage_now);
        printf("; %s would reach %s of %s, the largest class %s\n",
               pl_event_name(r->oom_event),
               bytes(b2, sizeof(b2), r->oom_memory_bytes),
               bytes(b3, sizeof(b3), r->memory_bytes),
               pl_buffer_class_name(r->oom_class));
    }
    printf("circuit: %s, domain 2^%.0f; a partition reserves %s, the "
           "circuit %s resident\n", pl_curve_name(r->curve),
           log2((double)r->domain_rows),
           bytes(b1, sizeof(b1), r->partition_bytes),
           bytes(b2, sizeof(b2), r->resident_bytes));
    printf("machine: %u cores, %s, %u GPU%s", r->cores,
           bytes(b1, sizeof(b1), r->memory_bytes), r->gpus,
           r->gpus == 1 ? "" : "s");
    if (o->gpu_memory)
        printf(" of %s", bytes(b1, sizeof(b1), o->gpu_memory));
    printf("; engine: pw %u, %u prover worker%s, budget %s; policy %s\n",
           r->synth_workers, r->prover_workers,
           r->prover_workers == 1 ? "" : "s",
           bytes(b2, sizeof(b2), r->budget_bytes), policies[o->policy]);
    printf("load: %u job%s of %u partition%s, %s%s\n", o->jobs,
           o->jobs == 1 ? "" : "s", o->partitions,
           o->partitions == 1 ? "" : "s",
           arrival > 0 ? "arriving" : "all at once",
           o->steady ? " (enough for a steady state, 50 partitions per "
                       "worker, doubled while the queue grows with nothing "
                       "to hold it back; --jobs sets it)" : "");
    if (arrival > 0)
        printf("  one job every %.1f s\n", arrival);
    printf("costs: %s (%s%s%s)\n", costs->profile,
           costs->estimated ? "ESTIMATED: " : "measured: ", costs->source,
           costs->gpu ? "; the start on a GPU" : "");
    printf("peaks:\n");
    printf("  reserved           %s of a budget of %s\n",
           bytes(b1, sizeof(b1), r->peak_reserved_bytes),
           bytes(b2, sizeof(b2), r->budget_bytes));
    printf("  host memory        %s\n",
           bytes(b1, sizeof(b1), r->peak_memory_bytes));
    if (r->gpus)
        printf("  device, per GPU    %s%s%s (the circuit's buffers, from its "
               "open; + the MSM's sort scratch, which the device sizes)\n",
               bytes(b1, sizeof(b1), r->device_bytes),
               o->gpu_memory ? " of " : "",
               o->gpu_memory ? bytes(b2, sizeof(b2), o->gpu_memory) : "");
    printf("  by class           ");
    bool first = true;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++)
        if (r->peak_class_bytes[c]) {
            printf("%s%s %s", first ? "" : ", ",
                   pl_buffer_class_name((pl_buffer_class)c),
                   bytes(b1, sizeof(b1), r->peak_class_bytes[c]));
            first = false;
        }
    printf("\n  by stage           at the memory's peak: resident %s",
           bytes(b1, sizeof(b1), r->resident_bytes));
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        printf(", %s %s", pl_stage_name((pl_stage)s),
               bytes(b1, sizeof(b1), r->peak_memory_by_stage[s]));
    printf("\n  partitions         ");
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        printf("%s%s %llu", s ? ", " : "", pl_stage_name((pl_stage)s),
               (unsigned long long)r->stage_peak[s]);
    printf(" (most at once)\n");
    /* the queues over time, in eighths of the plan */
    if (r->wall_seconds > 0 && r->queue_bin_seconds > 0) {
        printf("queues over time (most waiting / in flight):");
        double eighth = r->wall_seconds / 8;
        for (int k = 0; k < 8; k++) {
            uint64_t w = 0, f = 0;
            for (size_t b = 0; b < PL_PLAN_QUEUE_BINS; b++) {
                double t0 = b * r->queue_bin_seconds;
                double t1 = t0 + r->queue_bin_seconds;
                if (t1 <= k * eighth || t0 >= (k + 1) * eighth)
                    continue;
                if (r->queue_waiting[b] > w)
                    w = r->queue_waiting[b];
                if (r->queue_in_flight[b] > f)
                    f = r->queue_in_flight[b];
            }
            printf("%s %s %llu/%llu", k ? "," : "",
                   when(b1, sizeof(b1), (k + 1) * eighth),
                   (unsigned long long)w, (unsigned long long)f);
        }
        printf(" (each to the time shown)\n");
    }
    double wall = r->wall_seconds;
    printf("throughput: %.1f jobs/hour, %.3f partitions/s (%zu partitions, "
           "%zu jobs done in %s%s)\n",
           wall > 0 ? r->jobs_done * 3600.0 / wall : 0,
           wall > 0 ? (double)r->proved / wall : 0, r->proved, r->jobs_done,
           when(b1, sizeof(b1), wall), r->fits ? "" : ", until out of memory");
    int bottleneck = 0;
    for (int s = 1; s < PL_PLAN_STAGE_COUNT; s++)
        if (r->utilisation[s] > r->utilisation[bottleneck])
            bottleneck = s;
    printf("bottleneck: %s (%.0f%% busy)\n", stage_work[bottleneck],
           r->utilisation[bottleneck] * 100);
    printf("utilisation: synthesis workers %.0f%%, prover workers %.0f%%, "
           "finisher %.0f%%; cores %.0f%%",
           r->utilisation[0] * 100, r->utilisation[1] * 100,
           r->utilisation[2] * 100, r->core_utilisation * 100);
    if (r->gpus)
        printf(", GPUs %.0f%%", r->gpu_utilisation * 100);
    printf("\n");
}

/* Whether nothing holds synthesis back while it feeds faster than the
 * provers drain: no byte budget and the story's policy (a synthesis worker
 * freed when its synthesis ends), jobs all at once or arriving faster than
 * the provers take their partitions.  The queue then grows without end, so
 * whether a plan fits is only a question of how long its load lasts. */
static bool unheld_growth(const pl_plan_config *c, const pl_plan_result *r)
{
    double make = every(r->stage_seconds[PL_PLAN_STAGE_SYNTH], r->synth_workers);
    double take = every(r->stage_seconds[PL_PLAN_STAGE_PROVE], r->prover_workers);
    size_t parts = c->partitions ? c->partitions : 1;
    bool arrivals_keep_up = c->arrival_seconds <= 0 ||
                            c->arrival_seconds / (double)parts < take * 0.999;
    return c->policy == PL_PLAN_RELEASE_AT_SYNTH_END &&
           r->budget_bytes == UINT64_MAX && arrivals_keep_up && make > 0 &&
           take > 0 && make < take * 0.999;
}

/* At most this many times the first steady-state load (doubled each time). */
#define STEADY_MAX_DOUBLINGS 6

/* Runs a plan (into *out when out is not NULL, else only its result).  With
 * steady (no --jobs), a plan that fits while its queue grows with nothing
 * to hold it back has not reached a steady state: its load is doubled until
 * it runs out of memory (or 2^STEADY_MAX_DOUBLINGS times the first load),
 * c->jobs then the load planned. */
static pl_status plan_load(pl_plan **out, pl_plan_config *c, bool steady,
                           pl_plan_result *r, pl_error *err)
{
    for (int doubling = 0;; doubling++) {
        pl_plan *p;
        pl_status st = pl_plan_run(&p, c, err);
        if (st != PL_OK)
            return st;
        pl_plan_result_read(p, r);
        bool longer = steady && r->fits && unheld_growth(c, r) &&
                      doubling < STEADY_MAX_DOUBLINGS && c->jobs <= SIZE_MAX / 2;
        if (out && !longer)
            *out = p;
        else
            pl_plan_destroy(p);
        if (!longer)
            return PL_OK;
        c->jobs *= 2;
    }
}

/* One plan's result alone (the searches below run many). */
static pl_status plan_once(const pl_plan_config *c, bool steady,
                           pl_plan_result *r, pl_error *err)
{
    pl_plan_config copy = *c;
    return plan_load(NULL, &copy, steady, r, err);
}

/* Out of memory: the smallest change that fits, as a line: fewer
 * synthesis workers (the most that still fit), else the engine's byte
 * budget (80% of memory) with the same policy. */
static pl_status smallest_change(const pl_plan_config *base, bool steady,
                                 const pl_plan_result *r0, pl_error *err)
{
    pl_plan_config c = *base;
    c.record_timeline = false;
    unsigned fit_pw = 0;
    for (unsigned pw = r0->synth_workers; pw-- > 1 && !fit_pw;) {
        c.synth_workers = pw;
        pl_plan_result r;
        pl_status st = plan_once(&c, steady, &r, err);
        if (st == PL_EBUDGET)
            continue;
        if (st != PL_OK)
            return st;
        if (r.fits)
            fit_pw = pw;
    }
    c.synth_workers = base->synth_workers;
    bool budget_fits = false;
    uint64_t budget = 0;
    if (base->no_budget) {
        c.no_budget = false;
        c.budget_bytes = 0; /* the engine's default */
        pl_plan_result r;
        pl_status st = plan_once(&c, steady, &r, err);
        if (st != PL_OK && st != PL_EBUDGET)
            return st;
        budget_fits = st == PL_OK && r.fits;
        budget = st == PL_OK ? r.budget_bytes : 0;
    }
    char b[40];
    if (fit_pw)
        printf("change: --pw %u fits (the most synthesis workers that do)%s",
               fit_pw, budget_fits ? "; or " : "\n");
    else
        printf("change: ");
    if (budget_fits)
        printf("a byte budget fits: --budget %s (the engine's default, 80%% "
               "of memory) admits no more than it holds\n",
               bytes(b, sizeof(b), budget));
    else if (!fit_pw)
        printf("no smaller pw fits%s; give more memory or fewer "
               "partitions at once\n",
               base->no_budget ? " and no budget helps" : "");
    return PL_OK;
}

/* --recommend: pw from 1 to the cores (at most 64) and workers from 1 to
 * the GPUs (or 2 on the CPU), policy ours, the budget left to the default;
 * the best throughput that fits, then the fewest workers within 1% of it,
 * and the budget it needs: its peak reserved. */
static pl_status recommend(const pl_plan_config *base, const pl_plan_result *r0,
                           pl_error *err)
{
    pl_plan_config c = *base;
    c.policy = PL_PLAN_OURS;
    c.record_timeline = false;
    unsigned max_pw = r0->cores < 64 ? r0->cores : 64;
    unsigned max_w = base->gpus ? base->gpus : 2;
    double best = -1;
    unsigned best_pw = 0, best_w = 0;
    uint64_t best_reserved = 0, best_mem = 0;
    size_t tried = 0, oom = 0;
    double rates[65][65];
    memset(rates, 0, sizeof(rates));
    for (unsigned w = 1; w <= max_w && w <= 64; w++)
        for (unsigned pw = 1; pw <= max_pw; pw++) {
            c.synth_workers = pw;
            c.prover_workers = w;
            pl_plan_result r;
            pl_status st = plan_once(&c, false, &r, err);
            if (st == PL_EBUDGET)
                continue;
            if (st != PL_OK)
                return st;
            tried++;
            if (!r.fits) {
                oom++;
                continue;
            }
            double rate = r.wall_seconds > 0 ? r.proved / r.wall_seconds : 0;
            rates[w][pw] = rate;
            if (rate > best) {
                best = rate;
                best_pw = pw;
                best_w = w;
                best_reserved = r.peak_reserved_bytes;
                best_mem = r.peak_memory_bytes;
            }
        }
    if (best_pw == 0) {
        printf("recommend: no configuration of pw 1-%u and 1-%u workers "
               "fits this machine's memory\n", max_pw, max_w);
        return PL_OK;
    }
    /* the fewest workers within 1% of the best: less memory, same speed */
    for (unsigned w = 1; w <= max_w && w <= 64; w++)
        for (unsigned pw = 1; pw <= max_pw; pw++)
            if (rates[w][pw] >= best * 0.99 &&
                pw + w < best_pw + best_w) {
                best_pw = pw;
                best_w = w;
            }
    c.synth_workers = best_pw;
    c.prover_workers = best_w;
    pl_plan_result r;
    pl_status st = plan_once(&c, false, &r, err);
    if (st != PL_OK)
        return st;
    best_reserved = r.peak_reserved_bytes;
    best_mem = r.peak_memory_bytes;
    char b1[40], b2[40], b3[40];
    printf("recommend: --pw %u --workers %u --budget %s\n", best_pw, best_w,
           bytes(b1, sizeof(b1), best_reserved));
    int bottleneck = 0;
    for (int s = 1; s < PL_PLAN_STAGE_COUNT; s++)
        if (r.utilisation[s] > r.utilisation[bottleneck])
            bottleneck = s;
    printf("  %zu configurations planned (%zu ran out of memory); this one "
           "proves %.3f partitions/s, within 1%% of the best that fits, with "
           "the fewest workers: more would only add partitions in flight, "
           "because %s is the bottleneck (%.0f%% busy).  Its peak reserved "
           "is %s, so a budget of that much admits as much as it can use; "
           "its host memory peaks at %s of %s.\n",
           tried, oom, r.wall_seconds > 0 ? r.proved / r.wall_seconds : 0,
           stage_work[bottleneck], r.utilisation[bottleneck] * 100,
           bytes(b1, sizeof(b1), best_reserved),
           bytes(b2, sizeof(b2), best_mem),
           bytes(b3, sizeof(b3), r.memory_bytes));
    return PL_OK;
}

static int plan_main(plan_options *o)
{
    pl_error err = {0};
    pl_status st = PL_OK;
    pl_plan *plan = NULL;
    pl_plan_costs costs;
    pl_plan_config cfg;
    pl_plan_config_init(&cfg);
    const preset *pre = NULL;
    int sources = !!o->zkey + !!o->r1cs + !!o->constraints + !!o->preset;
    if (sources != 1)
        return cli_usage_error("plan", "give the circuit once: --zkey, "
                               "--r1cs, --constraints or --preset");
    if (o->preset) {
        for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
            if (strcmp(o->preset, presets[i].name) == 0)
                pre = &presets[i];
        if (!pre)
            return cli_usage_error("plan", "--preset: '%s' is not one of "
                                   "filecoin-porep-32g, filecoin-porep-64g",
                                   o->preset);
    }
    if (o->curve && !o->constraints)
        return cli_usage_error("plan", "--curve goes with --constraints (a "
                               "zkey's or an r1cs's curve is the file's)");
    if (o->density) {
        char *end;
        cfg.density = strtod(o->density, &end);
        if (*end || !(cfg.density > 0))
            return cli_usage_error("plan", "--density: '%s' is not a "
                                   "positive number", o->density);
    }
    double arrival = 0;
    if (o->arrival && !parse_arrival(o->arrival, &arrival))
        return cli_usage_error("plan", "--arrival: '%s' is not a rate "
                               "(1/60s, 2/h) or an interval (30s)",
                               o->arrival);
    if (o->publics < 0 || o->publics > 1000000)
        return cli_usage_error("plan", "--public: %ld is not a count of "
                               "public inputs", o->publics);
    if (o->costs_path) {
        if ((st = pl_plan_costs_read(&costs, o->costs_path, &err)))
            return cli_exit("plan", st, &err);
    } else if (pre) {
        costs = pre->costs;
    } else {
        return cli_usage_error("plan", "--costs FILE is needed without a "
                               "preset (`proofline calibrate` writes one; "
                               "docs/costs/ has profiles)");
    }
    if (pre) {
        cfg.constraints = pre->constraints;
        cfg.publics = pre->publics;
        if (!o->partitions)
            o->partitions = pre->partitions;
        if (!o->cores)
            o->cores = pre->cores;
        if (!o->gpus)
            o->gpus = pre->gpus;
        if (!o->memory)
            o->memory = pre->memory_gib << 30;
    } else {
        cfg.zkey_path = o->zkey;
        cfg.r1cs_path = o->r1cs;
        cfg.constraints = o->constraints;
        cfg.publics = o->constraints && !o->publics ? 1 : (uint64_t)o->publics;
        cfg.curve = (pl_curve)o->curve;
    }
    if (o->witness) { /* what the engine reserves for a witness file */
        struct stat sb;
        if (stat(o->witness, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            if (stat(o->witness, &sb) != 0)
                pl__error_errno(&err, PL_EIO, errno, "%s", o->witness);
            else
                pl__error_set(&err, PL_EIO, "%s: not a regular file",
                              o->witness);
            return cli_exit("plan", PL_EIO, &err);
        }
        cfg.witness_bytes = (uint64_t)sb.st_size;
    }
    if (!o->partitions)
        o->partitions = 1;
    if (!o->jobs) {
        /* a steady state: the queue either stops growing within this
         * many partitions or has grown past any doubt */
        unsigned pw = o->pw ? o->pw : 2;
        unsigned workers = o->workers ? o->workers : o->gpus ? o->gpus : 1;
        uint64_t parts = 50ull * (pw + workers);
        o->jobs = (unsigned)((parts + o->partitions - 1) / o->partitions);
        o->steady = true;
    }
    cfg.cores = o->cores;
    cfg.gpus = o->gpus;
    cfg.memory_bytes = o->memory;
    cfg.synth_workers = o->pw;
    cfg.prover_workers = o->workers;
    cfg.budget_bytes = o->budget;
    cfg.policy = (pl_plan_policy)o->policy;
    /* the story's engine had no byte budget: its policy plans without one
     * unless a budget is given */
    cfg.no_budget = o->no_budget ||
                    (!o->budget && cfg.policy == PL_PLAN_RELEASE_AT_SYNTH_END);
    cfg.jobs = o->jobs;
    cfg.partitions = o->partitions;
    cfg.arrival_seconds = arrival;
    cfg.costs = &costs;
    cfg.record_timeline = o->trace || o->plot;
    pl_plan_result r;
    if ((st = plan_load(&plan, &cfg, o->steady, &r, &err)))
        goto done;
    o->jobs = (unsigned)cfg.jobs;
    o->unheld = unheld_growth(&cfg, &r);
    print_result(&r, o, &costs, arrival);
    if (!r.fits && (st = smallest_change(&cfg, o->steady, &r, &err)))
        goto done;
    if (o->report) {
        pl_engine_stats es;
        pl_plan_stats_read(plan, &es);
        pl_job_status js = {.done = true, .status = PL_OK,
                            .n_partitions = (size_t)o->jobs * o->partitions,
                            .proved = r.proved};
        pl_run_facts facts = {.wall_seconds = r.wall_seconds,
                              .synth_workers = r.synth_workers,
                              .prover_workers = r.prover_workers,
                              .threads = r.cores};
        if ((st = pl_engine_write_report_file(o->report, &es, &js, &facts,
                                              &err)))
            goto done;
        printf("report: %s\n", o->report);
    }
    if (o->trace) {
        if ((st = pl_plan_write_trace(plan, o->trace, &err)))
            goto done;
        printf("trace: %s\n", o->trace);
    }
    if (o->plot) {
        if ((st = pl_plan_write_plot(plan, o->plot, &err)))
            goto done;
        printf("plot: %s\n", o->plot);
    }
    if (o->recommend && (st = recommend(&cfg, &r, &err)))
        goto done;
    pl_plan_destroy(plan);
    return r.fits && !(o->gpu_memory && r.device_bytes > o->gpu_memory) ? 0
                                                                       : 1;
done:
    pl_plan_destroy(plan);
    return cli_exit("plan", st, &err);
}

int cli_plan(int argc, char **argv)
{
    plan_options o = {0};
    const cli_table tables[] = {{plan_opts, &o}};
    int npos = 0;
    int rc = cli_parse(&plan_cmd, tables, 1, argc, argv, &npos);
    if (rc == CLI_RUN && npos > 0)
        rc = cli_usage_error("plan", "unexpected argument '%s'", argv[0]);
    if (rc == CLI_RUN)
        rc = plan_main(&o);
    return rc;
}
