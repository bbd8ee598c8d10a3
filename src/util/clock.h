/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A monotonic clock in seconds, for stage timings and the ledger, and the
 * stage timer the prover and its backends report their stages through.
 */
#ifndef PL_UTIL_CLOCK_H
#define PL_UTIL_CLOCK_H

#include "proofline.h"

double pl__now_seconds(void);

/* Times consecutive stages: each lap reports the stage that ends now to
 * fn (when set) and starts timing the next. */
typedef struct pl__stage_timer {
    pl_stage_fn fn;
    void *user;
    double since;
} pl__stage_timer;

void pl__stage_timer_start(pl__stage_timer *timer, pl_stage_fn fn,
                           void *user);
void pl__stage_lap(pl__stage_timer *timer, const char *stage);

#endif /* PL_UTIL_CLOCK_H */
