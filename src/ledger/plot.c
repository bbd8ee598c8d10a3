/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger's timeline as a self-contained SVG, in two panels over one
 * time axis.  Above, memory: bytes over time stacked by buffer class (one
 * filled series per class that was ever live), reserved bytes, RssAnon and
 * the total RSS as lines, on a y-axis scaled to the data; the budget is a
 * line when it falls on the chart and a marked notice above it when the
 * data stays far below (the demo's 1 GiB budget over a few MiB of data
 * would flatten everything); lifecycle events as ticks under the axis.
 * Below, a lane per stage with the partitions in it over time, on one
 * scale for all lanes, so that a growing `waiting` (synthesized partitions
 * piling up in front of the prover, DESIGN.md's story) shows at a glance.
 * A plan adds the machine's memory as a line and, when it runs out, a
 * mark at that moment across both panels (pl__plot_marks).
 * Plain SVG 1.1, no scripts, no external fonts: any browser or image
 * viewer shows it.
 *
 * Every pass walks the same snapshot of the records (a count read once),
 * while the sampler may go on appending.
 */
#include "ledger/ledger.h"
#include "util/error.h"
#include "util/file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 1000.0
#define LEFT 90.0
#define RIGHT 190.0
#define TOP 56.0          /* the memory panel; room above for the budget */
#define MEM_BOTTOM 370.0
#define LANES_TOP 420.0   /* the stage lanes */
#define LANE_H 34.0
#define LANES_BOTTOM (LANES_TOP + LANE_H * PL_STAGE_COUNT)
#define H (LANES_BOTTOM + 70.0)

/* One per class, in the order of PL_BUFFER_CLASS_MAP. */
static const char *const class_colors[] = {
    "#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#b3de69", "#fccde5",
    "#d9d9d9", "#ccebc5", "#ffed6f"};
_Static_assert(sizeof(class_colors) / sizeof(class_colors[0]) ==
                   PL_BUF_CLASS_COUNT,
               "a colour for every buffer class");

/* One per stage, in the order of PL_STAGE_MAP; waiting stands out. */
static const char *const stage_colors[] = {"#9ecae1", "#74c476", "#de2d26",
                                           "#6baed6", "#bcbddc"};
_Static_assert(sizeof(stage_colors) / sizeof(stage_colors[0]) ==
                   PL_STAGE_COUNT,
               "a colour for every stage");

static uint64_t rss_total(const pl_ledger_record *r)
{
    return r->rss_anon_bytes + r->rss_file_bytes;
}

typedef struct {
    double t_max;
    uint64_t y_max;      /* the data: stacked classes, reserved, RSS */
    uint64_t budget;     /* the largest budget seen */
    uint64_t stage_peak[PL_STAGE_COUNT];
    uint64_t lane_max;   /* the lanes' common scale */
    bool class_used[PL_BUF_CLASS_COUNT];
    size_t n;
} extent;

static bool measure(void *arg, const pl_ledger_record *r)
{
    extent *x = arg;
    x->n++;
    if (r->t_seconds > x->t_max)
        x->t_max = r->t_seconds;
    uint64_t stacked = 0;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        stacked += r->class_bytes[c];
        if (r->class_bytes[c])
            x->class_used[c] = true;
    }
    uint64_t ys[] = {stacked, r->rss_anon_bytes, rss_total(r),
                     r->reserved_bytes};
    for (size_t i = 0; i < sizeof(ys) / sizeof(ys[0]); i++)
        if (ys[i] > x->y_max)
            x->y_max = ys[i];
    if (r->budget_bytes > x->budget)
        x->budget = r->budget_bytes;
    for (int s = 0; s < PL_STAGE_COUNT; s++) {
        if (r->stage_now[s] > x->stage_peak[s])
            x->stage_peak[s] = r->stage_now[s];
        if (r->stage_now[s] > x->lane_max)
            x->lane_max = r->stage_now[s];
    }
    return true;
}

typedef struct {
    FILE *f;
    const extent *x;
    int series;       /* class, line or stage being drawn */
    double *lower;    /* per record: the stack below the series */
    size_t i;
    uint64_t y_top;
    double last_x, last_y; /* a lane's step so far */
    double tick_x[4];      /* per tick colour: the last one drawn, + 1 */
    const bool *keep;      /* per record: drawn as a point (see mark_kept) */
} draw_ctx;

static double px(const extent *x, double t)
{
    return LEFT + (x->t_max > 0 ? t / x->t_max : 0) * (W - LEFT - RIGHT);
}

static double py(const draw_ctx *d, double bytes)
{
    return MEM_BOTTOM - bytes / (double)d->y_top * (MEM_BOTTOM - TOP);
}

/* upper edge of one stacked series: lower[i] + its bytes */
static bool stack_edge(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    double upper = d->lower[d->i] + (double)r->class_bytes[d->series];
    if (d->keep[d->i])
        fprintf(d->f, "%s%.1f,%.1f", d->i ? " " : "",
                px(d->x, r->t_seconds), py(d, upper));
    d->i++;
    return true;
}

/* A record is drawn as a point when it is the first or the last, or half
 * a pixel or more right of the last one drawn: thousands of records (a
 * plan of a thousand partitions) stay a small file, and what is dropped
 * could not be told apart on the chart. */
static bool mark_kept(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    bool *keep = (bool *)d->keep;
    double x = px(d->x, r->t_seconds);
    keep[d->i] = d->i == 0 || d->i + 1 == d->x->n || x - d->last_x >= 0.5;
    if (keep[d->i])
        d->last_x = x;
    d->i++;
    return true;
}

static bool stack_advance(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    d->lower[d->i++] += (double)r->class_bytes[d->series];
    return true;
}

static bool collect_times(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    d->lower[d->i++] = r->t_seconds; /* the lower edge's x, walked back */
    return true;
}

/* The lines, in the order of line_names. */
enum { LINE_BUDGET, LINE_RESERVED, LINE_RSS_ANON, LINE_RSS, LINE_COUNT };
static const char *const line_names[LINE_COUNT] = {"budget", "reserved",
                                                   "rss_anon", "rss"};
static const char *const line_styles[LINE_COUNT] = {
    "stroke=\"#de2d26\" stroke-dasharray=\"6,4\"",
    "stroke=\"#3182bd\" stroke-dasharray=\"2,3\"", "stroke=\"black\"",
    "stroke=\"#636363\" stroke-dasharray=\"8,2,2,2\""};

static bool line_point(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    uint64_t v = d->series == LINE_BUDGET     ? r->budget_bytes
               : d->series == LINE_RESERVED   ? r->reserved_bytes
               : d->series == LINE_RSS_ANON   ? r->rss_anon_bytes
                                              : rss_total(r);
    if (d->keep[d->i])
        fprintf(d->f, "%s%.1f,%.1f", d->i ? " " : "",
                px(d->x, r->t_seconds), py(d, (double)v));
    d->i++;
    return true;
}

static bool event_tick(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    if (r->event >= PL_EV_COUNT)
        return true;
    static const char *const colors[4] = {"#2b8cbe", "#31a354", "#de2d26",
                                          "#999999"};
    int k = r->event == PL_EV_ADMITTED       ? 0
            : r->event == PL_EV_DEALLOC_DONE ? 1
            : r->event == PL_EV_FAILED || r->event == PL_EV_CANCELLED ? 2
                                                                      : 3;
    const char *color = colors[k];
    double x = px(d->x, r->t_seconds), y0 = MEM_BOTTOM + 6;
    /* a tick within 2 pixels of the last one of its colour adds nothing to
     * see: left out, so that thousands of partitions (a plan's) stay a
     * small file (its title is the trace's to tell) */
    if (d->tick_x[k] > 0 && fabs(x - (d->tick_x[k] - 1)) < 2)
        return true;
    d->tick_x[k] = x + 1;
    fprintf(d->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\" stroke-width=\"1\"><title>%s job %llu part %zu at "
            "%.3f s</title></line>\n", x, y0, x, y0 + 10, color,
            pl_event_name(r->event), (unsigned long long)r->job, r->partition,
            r->t_seconds);
    return true;
}

/* A lane's step line: the count holds until the next record. */
static double lane_y(const draw_ctx *d, uint64_t count)
{
    double base = LANES_TOP + LANE_H * (d->series + 1) - 3;
    return base - (double)count / (double)d->x->lane_max * (LANE_H - 8);
}

static bool lane_step(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    if (!d->keep[d->i++])
        return true;
    double x = px(d->x, r->t_seconds);
    double y = lane_y(d, r->stage_now[d->series]);
    fprintf(d->f, " %.1f,%.1f %.1f,%.1f", x, d->last_y, x, y);
    d->last_x = x;
    d->last_y = y;
    return true;
}

/* A round axis maximum: 1, 2, 5 or 10 times a power of ten, in the binary
 * unit (KiB, MiB, GiB, ...) the labels will use. */
static uint64_t nice_max(uint64_t v)
{
    uint64_t unit = 1;
    while (v / unit >= 1024 && unit < (1ull << 40))
        unit <<= 10;
    double x = (double)v / (double)unit;
    if (x < 1)
        x = 1;
    double p = pow(10.0, floor(log10(x)));
    double m = x / p;
    double step = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
    return (uint64_t)(step * p * (double)unit);
}

static void draw_frame(FILE *f, const draw_ctx *d)
{
    const extent *x = d->x;
    char b[24];
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
            "fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"15\">"
            "proofline memory: bytes by buffer class over time</text>\n",
            W, H, W, H, LEFT);
    /* the memory panel's y-axis, scaled to the data */
    fprintf(f, "<g class=\"memory-axis\" data-y-max=\"%llu\">\n",
            (unsigned long long)d->y_top);
    for (int k = 0; k <= 4; k++) {
        double bytes = (double)d->y_top * k / 4, y = py(d, bytes);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
                "stroke=\"#eeeeee\"/>\n<text x=\"%.0f\" y=\"%.1f\" "
                "text-anchor=\"end\">%s</text>\n", LEFT, y, W - RIGHT, y,
                LEFT - 6, y + 4, pl_format_bytes(b, sizeof(b), (uint64_t)bytes));
    }
    fputs("</g>\n", f);
    /* one time axis for both panels */
    for (int k = 0; k <= 4; k++) {
        double t = x->t_max * k / 4, xx = px(x, t);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                "stroke=\"#f4f4f4\"/>\n<text x=\"%.1f\" y=\"%.0f\" "
                "text-anchor=\"middle\">%.2f s</text>\n", xx, TOP, xx,
                LANES_BOTTOM, xx, LANES_BOTTOM + 18, t);
    }
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
            "stroke=\"black\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
            "y2=\"%.0f\" stroke=\"black\"/>\n", LEFT, TOP, LEFT, MEM_BOTTOM,
            LEFT, MEM_BOTTOM, W - RIGHT, MEM_BOTTOM);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555555\">events: "
            "admitted (blue), dealloc_done (green), failed/cancelled (red), "
            "others (grey)</text>\n", LEFT, H - 26);
}

/* Budget far above the data: a marked notice at the top, not a line that
 * would squash the data against the axis. */
static void draw_budget_notice(FILE *f, const draw_ctx *d)
{
    char b[24], top[24];
    double xr = W - RIGHT;
    fprintf(f, "<g class=\"budget-off-chart\" data-budget=\"%llu\">"
            "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
            "stroke=\"#de2d26\" stroke-width=\"1.5\"/><polygon points=\"%.0f,"
            "%.0f %.0f,%.0f %.0f,%.0f\" fill=\"#de2d26\"/><text x=\"%.0f\" "
            "y=\"%.0f\" text-anchor=\"end\" fill=\"#de2d26\">budget %s is "
            "above the chart (its top: %s)</text></g>\n",
            (unsigned long long)d->x->budget, xr - 8, TOP - 2, xr - 8, TOP - 14,
            xr - 13, TOP - 12, xr - 3, TOP - 12, xr - 8, TOP - 20, xr - 18,
            TOP - 6, pl_format_bytes(b, sizeof(b), d->x->budget),
            pl_format_bytes(top, sizeof(top), d->y_top));
}

static void draw_lanes(FILE *f, pl__ledger *l, size_t count, draw_ctx *d)
{
    const extent *x = d->x;
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"13\">partitions per "
            "stage (one scale: %llu at a lane's top)</text>\n", LEFT,
            LANES_TOP - 10, (unsigned long long)x->lane_max);
    for (int s = 0; s < PL_STAGE_COUNT; s++) {
        d->series = s;
        double base = lane_y(d, 0);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
                "stroke=\"#cccccc\"/>\n<text x=\"%.0f\" y=\"%.1f\" "
                "text-anchor=\"end\">%s</text>\n<text x=\"%.0f\" y=\"%.1f\">"
                "peak %llu</text>\n", LEFT, base, W - RIGHT, base, LEFT - 6,
                base - 4, pl_stage_name((pl_stage)s), W - RIGHT + 14, base - 4,
                (unsigned long long)x->stage_peak[s]);
        if (!x->n)
            continue;
        const char *name = pl_stage_name((pl_stage)s);
        unsigned long long peak = x->stage_peak[s];
        fprintf(f, "<polygon class=\"lane\" data-stage=\"%s\" "
                "data-peak=\"%llu\" fill=\"%s\" fill-opacity=\"0.8\" "
                "stroke=\"%s\" points=\"%.1f,%.1f", name, peak,
                stage_colors[s], stage_colors[s], LEFT, base);
        d->last_x = LEFT;
        d->last_y = base;
        d->i = 0;
        pl__ledger_each(l, count, lane_step, d);
        fprintf(f, " %.1f,%.1f\"><title>%s: partitions in the stage, peak "
                "%llu</title></polygon>\n", d->last_x, base, name, peak);
    }
}

/* The machine's memory: a line across the memory panel when it falls on
 * the chart, else a notice at the top; its legend entry. */
static void draw_memory(FILE *f, const draw_ctx *d, uint64_t memory,
                        double *legend_y)
{
    char b[32];
    pl_format_bytes(b, sizeof(b), memory);
    const char *style = "stroke=\"#7f0000\" stroke-width=\"2.5\"";
    if (memory <= d->y_top) {
        double y = py(d, (double)memory);
        fprintf(f, "<line class=\"memory\" data-memory=\"%llu\" x1=\"%.0f\" "
                "y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" %s/><text x=\"%.0f\" "
                "y=\"%.1f\" fill=\"#7f0000\">the machine's memory, %s</text>\n",
                (unsigned long long)memory, LEFT, y, W - RIGHT, y, style,
                LEFT + 6, y - 4, b);
    } else {
        fprintf(f, "<text class=\"memory-off-chart\" data-memory=\"%llu\" "
                "x=\"%.0f\" y=\"%.0f\" fill=\"#7f0000\">the machine's memory, "
                "%s, is above the chart</text>\n", (unsigned long long)memory,
                LEFT + 6, TOP - 20, b);
    }
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" %s/>"
            "<text x=\"%.0f\" y=\"%.0f\">memory%s</text>\n", W - RIGHT + 14,
            *legend_y + 6, W - RIGHT + 26, *legend_y + 6, style,
            W - RIGHT + 32, *legend_y + 10,
            memory <= d->y_top ? "" : " (above)");
    *legend_y += 18;
}

/* Out of memory: a mark at its time from the memory panel's top to the
 * last lane, and what it is. */
static void draw_oom(FILE *f, const draw_ctx *d, double t)
{
    double x = px(d->x, t);
    fprintf(f, "<g class=\"oom\" data-oom-seconds=\"%.3f\"><line x1=\"%.1f\" "
            "y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#b30000\" "
            "stroke-width=\"2\" stroke-dasharray=\"5,3\"/><text x=\"%.1f\" "
            "y=\"%.0f\" text-anchor=\"end\" fill=\"#b30000\" "
            "font-weight=\"bold\">out of memory at t = %.0f s</text></g>\n",
            t, x, TOP - 4, x, LANES_BOTTOM, x - 4, TOP + 14, t);
}

pl_status pl__ledger_write_plot(pl__ledger *l, const char *path, pl_error *err)
{
    return pl__ledger_write_plot_marked(l, path, NULL, err);
}

pl_status pl__ledger_write_plot_marked(pl__ledger *l, const char *path,
                                       const pl__plot_marks *marks,
                                       pl_error *err)
{
    extent x;
    memset(&x, 0, sizeof(x));
    size_t count = pl__ledger_count(l); /* every pass walks these */
    pl__ledger_each(l, count, measure, &x);
    if (!x.lane_max)
        x.lane_max = 1;
    double *lower = calloc(x.n ? x.n : 1, sizeof(double));
    double *times = calloc(x.n ? x.n : 1, sizeof(double));
    bool *keep = calloc(x.n ? x.n : 1, sizeof(bool));
    if (!lower || !times || !keep) {
        free(lower);
        free(times);
        free(keep);
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
    }
    pl__output out;
    pl_status st = pl__output_open(&out, path, err);
    if (st != PL_OK) {
        free(lower);
        free(times);
        free(keep);
        return st;
    }
    FILE *f = out.f;
    /* Scaled to the data; to the budget too when the data reaches half of
     * it (a budget just above the data is worth a line, one far above
     * would flatten the data against the axis: it gets a notice). */
    uint64_t scale = x.y_max;
    if (x.budget > scale && x.budget / 2 <= x.y_max)
        scale = x.budget;
    /* the machine's memory likewise: on the chart when the data comes
     * near it (a plan that runs out reaches it) */
    uint64_t memory = marks ? marks->memory_bytes : 0;
    if (memory > scale && memory / 2 <= x.y_max)
        scale = memory;
    draw_ctx d = {f, &x, 0, lower, 0, nice_max(scale), 0, 0, {0}, keep};
    draw_frame(f, &d);
    draw_ctx back = {f, &x, 0, times, 0, d.y_top, 0, 0, {0}, keep};
    pl__ledger_each(l, count, collect_times, &back);
    back.i = 0;
    pl__ledger_each(l, count, mark_kept, &back);

    /* stacked classes, one polygon each */
    double legend_y = TOP + 10;
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        if (!x.class_used[c] || x.n == 0)
            continue;
        d.series = c;
        fprintf(f, "<polygon class=\"series\" data-class=\"%s\" fill=\"%s\" "
                "fill-opacity=\"0.85\" stroke=\"none\" points=\"",
                pl_buffer_class_name((pl_buffer_class)c), class_colors[c]);
        d.i = 0;
        pl__ledger_each(l, count, stack_edge, &d);
        for (size_t i = x.n; i-- > 0;)
            if (keep[i])
                fprintf(f, " %.1f,%.1f", px(&x, times[i]), py(&d, lower[i]));
        fputs("\"/>\n", f);
        d.i = 0;
        pl__ledger_each(l, count, stack_advance, &d);
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" "
                "fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                W - RIGHT + 14, legend_y, class_colors[c], W - RIGHT + 32,
                legend_y + 10, pl_buffer_class_name((pl_buffer_class)c));
        legend_y += 18;
    }
    /* lines: the budget when it falls on the chart, reserved, RSS */
    bool budget_on_chart = x.budget <= d.y_top;
    /* UINT64_MAX: no budget at all (a plan of the story's engine) */
    bool no_budget = x.budget == UINT64_MAX;
    for (int k = 0; k < LINE_COUNT && x.n; k++) {
        if (k == LINE_BUDGET && no_budget) {
            /* nothing to draw: the legend says so */
        } else if (k == LINE_BUDGET && !budget_on_chart) {
            draw_budget_notice(f, &d);
        } else {
            d.series = k;
            d.i = 0;
            fprintf(f, "<polyline class=\"line\" data-line=\"%s\" "
                    "fill=\"none\" stroke-width=\"1.5\" %s points=\"",
                    line_names[k], line_styles[k]);
            pl__ledger_each(l, count, line_point, &d);
            fputs("\"/>\n", f);
        }
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\""
                " stroke-width=\"1.5\" %s/><text x=\"%.0f\" y=\"%.0f\">%s%s"
                "</text>\n", W - RIGHT + 14, legend_y + 6, W - RIGHT + 26,
                legend_y + 6, line_styles[k], W - RIGHT + 32, legend_y + 10,
                line_names[k],
                k == LINE_BUDGET && no_budget          ? " (none)"
                : k == LINE_BUDGET && !budget_on_chart ? " (above)"
                                                       : "");
        legend_y += 18;
    }
    if (memory && x.n)
        draw_memory(f, &d, memory, &legend_y);
    pl__ledger_each(l, count, event_tick, &d);
    draw_lanes(f, l, count, &d);
    if (marks && marks->out_of_memory && x.n)
        draw_oom(f, &d, marks->oom_seconds);
    fputs("</svg>\n", f);
    free(lower);
    free(times);
    free(keep);
    return pl__output_commit(&out, err);
}
