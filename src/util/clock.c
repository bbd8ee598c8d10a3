/* SPDX-License-Identifier: Apache-2.0 */
/* The monotonic clock (see clock.h). */
#define _POSIX_C_SOURCE 200809L
#include "util/clock.h"

#include <time.h>

double pl__now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
