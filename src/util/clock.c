/* SPDX-License-Identifier: Apache-2.0 */
/* The monotonic clock, the stage timer and the stage sink (see clock.h). */
#define _POSIX_C_SOURCE 200809L
#include "util/clock.h"

#include <string.h>
#include <time.h>

static _Thread_local pl__stage_sink current_sink;

double pl__now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pl__stage_timer_start(pl__stage_timer *timer, pl_stage_fn fn,
                           void *user)
{
    timer->fn = fn;
    timer->user = user;
    timer->since = pl__now_seconds();
}

void pl__stage_lap(pl__stage_timer *timer, const char *stage)
{
    double t = pl__now_seconds();
    if (timer->fn)
        timer->fn(timer->user, stage, t - timer->since);
    pl__stage_span(stage, timer->since, t);
    timer->since = t;
}

void pl__stage_sink_get(pl__stage_sink *out)
{
    *out = current_sink;
}

void pl__stage_sink_set(const pl__stage_sink *sink)
{
    if (sink)
        current_sink = *sink;
    else
        memset(&current_sink, 0, sizeof(current_sink));
}

void pl__stage_span(const char *stage, double start, double end)
{
    if (current_sink.fn)
        current_sink.fn(&current_sink, stage, start, end);
}
