/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A monotonic clock in seconds, for stage timings and the ledger.
 */
#ifndef PL_UTIL_CLOCK_H
#define PL_UTIL_CLOCK_H

double pl__now_seconds(void);

#endif /* PL_UTIL_CLOCK_H */
