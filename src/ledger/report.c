/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The summary text and the JSON report of a run (see report.h).  Both
 * layouts are parsed by tests and scripts (tests/cli_batch.sh,
 * tests/cli_demo.sh, tests/test_ledger.c): fields are only ever added,
 * never renamed or moved.  Nothing here allocates or locks; the figures
 * are whatever snapshot the caller read.
 */
#include "ledger/report.h"
#include "formats/json.h"
#include "util/file.h"

bool pl__report_balanced(const pl_engine_stats *st)
{
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
        if (st->classes[k].live_count)
            return false;
    return true;
}

static uint64_t positive(int64_t v) { return v > 0 ? (uint64_t)v : 0; }

bool pl__report_write_summary(FILE *f, const pl_engine_stats *st)
{
    char a[24], b[24], c[24], d[24], e[24], g[24];
    fprintf(f, "ledger summary: %llu proofs, %llu verified, %llu failed, %llu "
            "skipped\n", (unsigned long long)st->proofs,
            (unsigned long long)st->verified, (unsigned long long)st->failed,
            (unsigned long long)st->skipped);
    fprintf(f, "  %-12s %10s %12s %8s %8s %12s\n", "class", "peak count",
            "peak bytes", "allocs", "frees", "live now");
    for (int k = 0; k < PL_BUF_CLASS_COUNT; k++) {
        const pl_alloc_stats *s = &st->classes[k];
        if (!s->total_allocs)
            continue;
        fprintf(f, "  %-12s %10llu %12s %8llu %8llu %12s\n",
                pl_buffer_class_name((pl_buffer_class)k),
                (unsigned long long)s->peak_count,
                pl_format_bytes(a, sizeof(a), s->high_water_bytes),
                (unsigned long long)s->total_allocs,
                (unsigned long long)s->total_frees,
                pl_format_bytes(b, sizeof(b), s->live_bytes));
    }
    fprintf(f, "  stages (peak partitions):");
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        fprintf(f, " %s=%llu", pl_stage_name((pl_stage)s),
                (unsigned long long)st->stage_peak[s]);
    fprintf(f, "\n  budget %s, peak reserved %s, peak tracked %s, peak "
            "rss_anon %s (baseline %s), peak untracked %s\n",
            pl_format_bytes(a, sizeof(a), st->budget_bytes),
            pl_format_bytes(b, sizeof(b), st->peak_reserved_bytes),
            pl_format_bytes(c, sizeof(c), st->peak_tracked_bytes),
            pl_format_bytes(d, sizeof(d), st->peak_rss_anon_bytes),
            pl_format_bytes(e, sizeof(e), st->baseline_rss_anon_bytes),
            pl_format_bytes(g, sizeof(g), positive(st->peak_untracked_bytes)));
    /* RssFile holds the mapped zkey's pages: the total is what the
     * machine gives the process */
    fprintf(f, "  peak rss %s (rss_anon + rss_file; peak rss_file %s), now "
            "rss %s = rss_anon %s + rss_file %s\n",
            pl_format_bytes(a, sizeof(a), st->peak_rss_bytes),
            pl_format_bytes(b, sizeof(b), st->peak_rss_file_bytes),
            pl_format_bytes(c, sizeof(c),
                            st->rss_anon_bytes + st->rss_file_bytes),
            pl_format_bytes(d, sizeof(d), st->rss_anon_bytes),
            pl_format_bytes(e, sizeof(e), st->rss_file_bytes));
    if (st->device_total_bytes)
        fprintf(f, "  backend %s: gpu0 used %s of %s now, peak untracked %s\n",
                st->backend,
                pl_format_bytes(a, sizeof(a), st->device_used_bytes),
                pl_format_bytes(b, sizeof(b), st->device_total_bytes),
                pl_format_bytes(c, sizeof(c),
                                positive(st->peak_device_untracked_bytes)));
    if (st->trimmed_bytes)
        fprintf(f, "  malloc_trim returned %s to the OS\n",
                pl_format_bytes(a, sizeof(a), st->trimmed_bytes));
    bool balanced = pl__report_balanced(st);
    if (balanced) {
        fprintf(f, "ledger balanced\n");
    } else {
        fprintf(f, "ledger NOT balanced:");
        for (int k = 0; k < PL_BUF_CLASS_COUNT; k++)
            if (st->classes[k].live_count)
                fprintf(f, " %s %llu buffers %llu bytes",
                        pl_buffer_class_name((pl_buffer_class)k),
                        (unsigned long long)st->classes[k].live_count,
                        (unsigned long long)st->classes[k].live_bytes);
        fprintf(f, "\n");
    }
    return balanced;
}

static void json_classes(FILE *f, const pl_engine_stats *st)
{
    fprintf(f, "    \"classes\": {");
    for (int c = 0; c < PL_BUF_CLASS_COUNT; c++) {
        const pl_alloc_stats *a = &st->classes[c];
        fprintf(f, "%s\n      \"%s\": {\"peak_count\": %llu, \"peak_bytes\": "
                "%llu, \"allocs\": %llu, \"frees\": %llu, \"live_bytes\": %llu}",
                c ? "," : "", pl_buffer_class_name((pl_buffer_class)c),
                (unsigned long long)a->peak_count,
                (unsigned long long)a->high_water_bytes,
                (unsigned long long)a->total_allocs,
                (unsigned long long)a->total_frees,
                (unsigned long long)a->live_bytes);
    }
    fprintf(f, "\n    },\n");
}

/* `witnesses`: what became of each one (none without items, so a report
 * without them keeps its layout). */
static void json_items(FILE *f, const pl_run_facts *run)
{
    if (!run->items || !run->n_items)
        return;
    fprintf(f, ",\n  \"witnesses\": [");
    for (size_t i = 0; i < run->n_items; i++) {
        const pl_run_item *it = &run->items[i];
        const char *status = it->status == PL_OK            ? "proved"
                             : it->status == PL_ECANCELLED ? "cancelled"
                                                           : "failed";
        fprintf(f, "%s\n    {\"file\": ", i ? "," : "");
        pl__json_fputs(f, it->name);
        fprintf(f, ", \"status\": \"%s\", \"exit_code\": %d, \"error\": ",
                status, pl_status_exit_code(it->status));
        pl__json_fputs(f, it->status == PL_OK ? "" : pl_strerror(it->status));
        fprintf(f, ", \"message\": ");
        pl__json_fputs(f, it->message);
        fputc('}', f);
    }
    fprintf(f, "\n  ]");
}

void pl_engine_write_report(FILE *f, const pl_engine_stats *st,
                            const pl_job_status *js, const pl_run_facts *run)
{
    fprintf(f, "{\n  \"proofs\": %zu,\n  \"verified\": %zu,\n  \"failed\": %zu,\n"
            "  \"skipped\": %zu,\n  \"wall_seconds\": %.3f,\n",
            js->proved, js->verified, js->failed, js->skipped,
            run->wall_seconds);
    fprintf(f, "  \"config\": {\"pw\": %u, \"workers\": %u, \"threads\": %u, "
            "\"budget_bytes\": %llu, \"backend\": \"%s\"},\n",
            run->synth_workers, run->prover_workers, run->threads,
            (unsigned long long)st->budget_bytes, st->backend);
    fprintf(f, "  \"memory\": {\n    \"budget_bytes\": %llu,\n"
            "    \"peak_reserved_bytes\": %llu,\n"
            "    \"peak_tracked_bytes\": %llu,\n"
            "    \"peak_rss_anon_bytes\": %llu,\n"
            "    \"baseline_rss_anon_bytes\": %llu,\n"
            "    \"peak_untracked_bytes\": %lld,\n"
            "    \"trimmed_bytes\": %llu,\n"
            "    \"peak_rss_bytes\": %llu,\n"
            "    \"peak_rss_file_bytes\": %llu,\n"
            "    \"rss_anon_bytes\": %llu,\n"
            "    \"rss_file_bytes\": %llu,\n"
            "    \"rss_bytes\": %llu,\n",
            (unsigned long long)st->budget_bytes,
            (unsigned long long)st->peak_reserved_bytes,
            (unsigned long long)st->peak_tracked_bytes,
            (unsigned long long)st->peak_rss_anon_bytes,
            (unsigned long long)st->baseline_rss_anon_bytes,
            (long long)st->peak_untracked_bytes,
            (unsigned long long)st->trimmed_bytes,
            (unsigned long long)st->peak_rss_bytes,
            (unsigned long long)st->peak_rss_file_bytes,
            (unsigned long long)st->rss_anon_bytes,
            (unsigned long long)st->rss_file_bytes,
            (unsigned long long)(st->rss_anon_bytes + st->rss_file_bytes));
    json_classes(f, st);
    fprintf(f, "    \"stages\": {");
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        fprintf(f, "%s\n      \"%s\": {\"peak\": %llu}", s ? "," : "",
                pl_stage_name((pl_stage)s),
                (unsigned long long)st->stage_peak[s]);
    fprintf(f, "\n    },\n    \"balanced\": %s\n  }",
            pl__report_balanced(st) ? "true" : "false");
    json_items(f, run);
    fprintf(f, "\n}\n");
}

pl_status pl_engine_write_report_file(const char *path,
                                      const pl_engine_stats *st,
                                      const pl_job_status *js,
                                      const pl_run_facts *run, pl_error *err)
{
    pl__output out;
    pl_status status = pl__output_open(&out, path, err);
    if (status != PL_OK)
        return status;
    pl_engine_write_report(out.f, st, js, run);
    return pl__output_commit(&out, err);
}
