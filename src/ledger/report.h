/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A run's figures for people and for programs, from public data only
 * (pl_engine_stats, pl_job_status, pl_run_facts): the summary table that
 * pl_engine_write_summary prints at the end of `batch` and `demo`, and the
 * JSON report (pl_engine_write_report, `batch --report`).  Kept apart from
 * the engine and the CLI so that the service's /v1/status and /metrics can
 * write the same figures.  Writes to a stream it is given; opening, naming
 * and renaming files is the caller's.
 */
#ifndef PL_LEDGER_REPORT_H
#define PL_LEDGER_REPORT_H

#include "proofline.h"

#include <stdio.h>

/* No buffer class holds a buffer. */
bool pl__report_balanced(const pl_engine_stats *stats);
/* The summary (docs/ledger.md, "Outputs"); returns pl__report_balanced. */
bool pl__report_write_summary(FILE *f, const pl_engine_stats *stats);

#endif /* PL_LEDGER_REPORT_H */
