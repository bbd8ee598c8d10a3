/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ledger's timeline as a self-contained SVG: bytes over time stacked by
 * buffer class (one filled series per class that was ever live), the budget,
 * reserved bytes and RssAnon as lines, and lifecycle events as ticks under
 * the axis.  Plain SVG 1.1, no scripts, no external fonts: any browser or
 * image viewer shows it.
 */
#include "ledger/ledger.h"
#include "util/error.h"
#include "util/file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 1000.0
#define H 520.0
#define LEFT 90.0
#define RIGHT 190.0
#define TOP 40.0
#define BOTTOM 80.0

/* One per class, in the order of PL_BUFFER_CLASS_MAP. */
static const char *const class_colors[] = {
    "#8dd3c7", "#bebada", "#fb8072", "#80b1d3", "#b3de69", "#fccde5",
    "#d9d9d9", "#ccebc5", "#ffed6f"};
_Static_assert(sizeof(class_colors) / sizeof(class_colors[0]) ==
                   PL_BUF_CLASS_COUNT,
               "a colour for every buffer class");

typedef struct {
    double t_max;
    uint64_t y_max;
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
    uint64_t ys[] = {stacked, r->budget_bytes, r->rss_anon_bytes,
                     r->reserved_bytes};
    for (size_t i = 0; i < 4; i++)
        if (ys[i] > x->y_max)
            x->y_max = ys[i];
    return true;
}

typedef struct {
    FILE *f;
    const extent *x;
    int series;       /* class being drawn, or -1.. for lines */
    int pass;         /* 0: upper edge left to right, 1: lower edge back */
    double *lower;    /* per record: the stack below the series */
    size_t i;
    uint64_t y_top;
} draw_ctx;

static double px(const extent *x, double t)
{
    return LEFT + (x->t_max > 0 ? t / x->t_max : 0) * (W - LEFT - RIGHT);
}

static double py(const draw_ctx *d, double bytes)
{
    return H - BOTTOM - bytes / (double)d->y_top * (H - TOP - BOTTOM);
}

/* upper edge of one stacked series: lower[i] + its bytes; remembers it */
static bool stack_edge(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    double upper = d->lower[d->i] + (double)r->class_bytes[d->series];
    fprintf(d->f, "%s%.1f,%.1f", d->i ? " " : "", px(d->x, r->t_seconds),
            py(d, upper));
    d->i++;
    return true;
}

static bool stack_advance(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    d->lower[d->i++] += (double)r->class_bytes[d->series];
    return true;
}

typedef struct {
    draw_ctx *d;
    double *times;
} back_ctx;

static bool collect_times(void *arg, const pl_ledger_record *r)
{
    back_ctx *b = arg;
    b->times[b->d->i++] = r->t_seconds;
    return true;
}

static bool line_point(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    uint64_t v = d->series == 0 ? r->budget_bytes
               : d->series == 1 ? r->reserved_bytes : r->rss_anon_bytes;
    fprintf(d->f, "%s%.1f,%.1f", d->i++ ? " " : "", px(d->x, r->t_seconds),
            py(d, (double)v));
    return true;
}

static bool event_tick(void *arg, const pl_ledger_record *r)
{
    draw_ctx *d = arg;
    if (r->event >= PL_EV_COUNT)
        return true;
    const char *color = r->event == PL_EV_ADMITTED ? "#2b8cbe"
                      : r->event == PL_EV_DEALLOC_DONE ? "#31a354"
                      : r->event == PL_EV_FAILED || r->event == PL_EV_CANCELLED
                          ? "#de2d26" : "#999999";
    double x = px(d->x, r->t_seconds), y0 = H - BOTTOM + 22;
    fprintf(d->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
            "stroke=\"%s\" stroke-width=\"1\"><title>%s job %llu part %zu at "
            "%.3f s</title></line>\n", x, y0, x, y0 + 10, color,
            pl_event_name(r->event), (unsigned long long)r->job, r->partition,
            r->t_seconds);
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

pl_status pl__ledger_write_plot(pl__ledger *l, const char *path, pl_error *err)
{
    extent x;
    memset(&x, 0, sizeof(x));
    size_t count = pl__ledger_count(l); /* every pass walks these */
    pl__ledger_each(l, count, measure, &x);
    double *lower = calloc(x.n ? x.n : 1, sizeof(double));
    double *times = calloc(x.n ? x.n : 1, sizeof(double));
    if (!lower || !times) {
        free(lower);
        free(times);
        return pl__error_set(err, PL_ENOMEM, "%s: out of memory", path);
    }
    pl__output out;
    pl_status st = pl__output_open(&out, path, err);
    if (st != PL_OK) {
        free(lower);
        free(times);
        return st;
    }
    FILE *f = out.f;
    draw_ctx d = {f, &x, 0, 0, lower, 0, nice_max(x.y_max)};
    char b[24];
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
            "fill=\"white\"/>\n<text x=\"%.0f\" y=\"24\" font-size=\"15\">"
            "proofline memory: bytes by buffer class over time</text>\n",
            W, H, W, H, LEFT);
    /* axes and grid */
    for (int k = 0; k <= 4; k++) {
        double bytes = (double)d.y_top * k / 4, y = py(&d, bytes);
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
                "stroke=\"#eeeeee\"/>\n<text x=\"%.0f\" y=\"%.1f\" "
                "text-anchor=\"end\">%s</text>\n", LEFT, y, W - RIGHT, y,
                LEFT - 6, y + 4, pl_format_bytes(b, sizeof(b), (uint64_t)bytes));
        double t = x.t_max * k / 4;
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.2f s"
                "</text>\n", px(&x, t), H - BOTTOM + 48, t);
    }
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
            "stroke=\"black\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
            "y2=\"%.0f\" stroke=\"black\"/>\n", LEFT, TOP, LEFT, H - BOTTOM,
            LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#555555\">events: "
            "admitted (blue), dealloc_done (green), failed/cancelled (red), "
            "others (grey)</text>\n", LEFT, H - 8);

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
        back_ctx bc = {&d, times};
        d.i = 0;
        pl__ledger_each(l, count, collect_times, &bc);
        for (size_t i = x.n; i-- > 0;)
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
    /* lines: budget, reserved, RssAnon */
    static const char *const line_names[] = {"budget", "reserved", "rss_anon"};
    static const char *const line_styles[] = {
        "stroke=\"#de2d26\" stroke-dasharray=\"6,4\"",
        "stroke=\"#3182bd\" stroke-dasharray=\"2,3\"", "stroke=\"black\""};
    for (int k = 0; k < 3 && x.n; k++) {
        d.series = k;
        d.i = 0;
        fprintf(f, "<polyline class=\"line\" data-line=\"%s\" fill=\"none\" "
                "stroke-width=\"1.5\" %s points=\"", line_names[k],
                line_styles[k]);
        pl__ledger_each(l, count, line_point, &d);
        fprintf(f, "\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\""
                " stroke-width=\"1.5\" %s/><text x=\"%.0f\" y=\"%.0f\">%s"
                "</text>\n", W - RIGHT + 14, legend_y + 6, W - RIGHT + 26,
                legend_y + 6, line_styles[k], W - RIGHT + 32, legend_y + 10,
                line_names[k]);
        legend_y += 18;
    }
    pl__ledger_each(l, count, event_tick, &d);
    fputs("</svg>\n", f);
    free(lower);
    free(times);
    return pl__output_commit(&out, err);
}
