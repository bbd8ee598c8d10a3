/* SPDX-License-Identifier: Apache-2.0 */
/* The monotonic clock and the stage timer (see clock.h). */
#define _POSIX_C_SOURCE 200809L
#include "util/clock.h"

#include <time.h>

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
    timer->since = t;
}
