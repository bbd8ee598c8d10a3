/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run's report (src/ledger/report.c) from public data alone, no engine:
 * the JSON of pl_engine_write_report and the summary text, byte for byte
 * for a made-up set of stats (their layouts are parsed by scripts and
 * tests, so a change shows here first), `balanced` following the classes'
 * live counts, the RSS (anonymous, file-backed, total), the device line,
 * and a status per witness when the run lists them.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "ledger/report.h"

static void fake_stats(pl_engine_stats *st)
{
    memset(st, 0, sizeof(*st));
    st->backend = "cpu";
    st->budget_bytes = 64ull << 20;
    st->peak_reserved_bytes = 3 << 20;
    st->peak_tracked_bytes = 2 << 20;
    st->peak_rss_anon_bytes = 40 << 20;
    st->baseline_rss_anon_bytes = 30 << 20;
    st->peak_untracked_bytes = -5;
    st->rss_anon_bytes = 35 << 20;
    st->rss_file_bytes = 10 << 20;
    st->peak_rss_file_bytes = 12 << 20;
    st->peak_rss_bytes = 50 << 20;
    st->trimmed_bytes = 4096;
    st->proofs = 4;
    st->verified = 4;
    for (int s = 0; s < PL_STAGE_COUNT; s++)
        st->stage_peak[s] = (uint64_t)s + 1;
    pl_alloc_stats *w = &st->classes[PL_BUF_WITNESS];
    w->peak_count = 2;
    w->high_water_bytes = 1536;
    w->total_allocs = 4;
    w->total_frees = 4;
}

/* Fails the test unless got is want; frees got. */
static void check_text(char *got, const char *want, const char *what)
{
    if (strcmp(got, want) != 0)
        pl_test_fail(__FILE__, __LINE__, "%s:\n%s\nwanted:\n%s", what, got,
                     want);
    free(got);
}

static char *capture_summary(const pl_engine_stats *st, bool *balanced)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f);
    *balanced = pl__report_write_summary(f, st);
    fclose(f);
    return text;
}

static char *capture_report(const pl_engine_stats *st)
{
    pl_job_status js = {.done = true, .n_partitions = 4, .proved = 4,
                        .verified = 4};
    pl_run_facts run = {.wall_seconds = 1.23456, .synth_workers = 2,
                        .prover_workers = 1, .threads = 8};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f);
    pl_engine_write_report(f, st, &js, &run);
    fclose(f);
    return text;
}

PL_TEST(report_json_layout)
{
    pl_engine_stats st;
    fake_stats(&st);
    char *text = capture_report(&st);
    static const char want[] =
        "{\n  \"proofs\": 4,\n  \"verified\": 4,\n  \"failed\": 0,\n"
        "  \"skipped\": 0,\n  \"wall_seconds\": 1.235,\n"
        "  \"config\": {\"pw\": 2, \"workers\": 1, \"threads\": 8, "
        "\"budget_bytes\": 67108864, \"backend\": \"cpu\"},\n"
        "  \"memory\": {\n    \"budget_bytes\": 67108864,\n"
        "    \"peak_reserved_bytes\": 3145728,\n"
        "    \"peak_tracked_bytes\": 2097152,\n"
        "    \"peak_rss_anon_bytes\": 41943040,\n"
        "    \"baseline_rss_anon_bytes\": 31457280,\n"
        "    \"peak_untracked_bytes\": -5,\n"
        "    \"trimmed_bytes\": 4096,\n"
        "    \"peak_rss_bytes\": 52428800,\n"
        "    \"peak_rss_file_bytes\": 12582912,\n"
        "    \"rss_anon_bytes\": 36700160,\n"
        "    \"rss_file_bytes\": 10485760,\n"
        "    \"rss_bytes\": 47185920,\n"
        "    \"classes\": {\n"
        "      \"params\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"csr\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"witness\": {\"peak_count\": 2, \"peak_bytes\": 1536, \"allocs\": 4, \"frees\": 4, \"live_bytes\": 0},\n"
        "      \"abc\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"h\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"msm_scratch\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"pending\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"pinned\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0},\n"
        "      \"device\": {\"peak_count\": 0, \"peak_bytes\": 0, \"allocs\": 0, \"frees\": 0, \"live_bytes\": 0}\n"
        "    },\n"
        "    \"stages\": {\n"
        "      \"admitted\": {\"peak\": 1},\n"
        "      \"synth\": {\"peak\": 2},\n"
        "      \"waiting\": {\"peak\": 3},\n"
        "      \"proving\": {\"peak\": 4},\n"
        "      \"finishing\": {\"peak\": 5}\n"
        "    },\n    \"balanced\": true\n  }\n}\n";
    check_text(text, want, "report");
    /* a class that still holds a buffer unbalances it */
    st.classes[PL_BUF_PENDING].live_count = 1;
    text = capture_report(&st);
    CHECK(strstr(text, "\"balanced\": false\n") != NULL);
    free(text);
}

PL_TEST(report_summary_layout)
{
    pl_engine_stats st;
    fake_stats(&st);
    bool balanced = false;
    char *text = capture_summary(&st, &balanced);
    CHECK(balanced);
    static const char want[] =
        "ledger summary: 4 proofs, 4 verified, 0 failed, 0 skipped\n"
        "  class        peak count   peak bytes   allocs    frees     live now\n"
        "  witness               2       1.5KiB        4        4           0B\n"
        "  stages (peak partitions): admitted=1 synth=2 waiting=3 proving=4 "
        "finishing=5\n"
        "  budget 64.0MiB, peak reserved 3.0MiB, peak tracked 2.0MiB, peak "
        "rss_anon 40.0MiB (baseline 30.0MiB), peak untracked 0B\n"
        "  peak rss 50.0MiB (rss_anon + rss_file; peak rss_file 12.0MiB), now "
        "rss 45.0MiB = rss_anon 35.0MiB + rss_file 10.0MiB\n"
        "  malloc_trim returned 4.0KiB to the OS\n"
        "ledger balanced\n";
    check_text(text, want, "summary");
    /* with a device, and a class left live */
    st.device_total_bytes = 80ull << 30;
    st.device_used_bytes = 1ull << 30;
    st.peak_device_untracked_bytes = 512 << 20;
    st.classes[PL_BUF_DEVICE].live_count = 2;
    st.classes[PL_BUF_DEVICE].live_bytes = 777;
    st.classes[PL_BUF_DEVICE].total_allocs = 2;
    text = capture_summary(&st, &balanced);
    CHECK(!balanced);
    CHECK(strstr(text, "  backend cpu: gpu0 used 1.0GiB of 80.0GiB now, peak "
                       "untracked 512.0MiB\n") != NULL);
    CHECK(strstr(text, "ledger NOT balanced: device 2 buffers 777 bytes\n")
          != NULL);
    free(text);
}

/* `witnesses`: a status per witness after the memory figures, only when
 * the run lists them (batch, prove); names and messages escaped. */
PL_TEST(report_lists_each_witness)
{
    pl_engine_stats st;
    fake_stats(&st);
    pl_job_status js = {.done = true, .n_partitions = 3, .proved = 1,
                        .failed = 1, .skipped = 1};
    pl_run_item items[] = {
        {"w1.wtns", PL_OK, ""},
        {"dir/\"odd\".wtns", PL_EFORMAT, "odd.wtns: file is empty\tat 0"},
        {"w3.wtns", PL_ECANCELLED, NULL},
    };
    pl_run_facts run = {.wall_seconds = 1, .synth_workers = 1,
                        .prover_workers = 1, .threads = 1, .items = items,
                        .n_items = 3};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f);
    pl_engine_write_report(f, &st, &js, &run);
    fclose(f);
    static const char want[] =
        "    \"balanced\": true\n  },\n  \"witnesses\": [\n"
        "    {\"file\": \"w1.wtns\", \"status\": \"proved\", \"exit_code\": 0, "
        "\"error\": \"\", \"message\": \"\"},\n"
        "    {\"file\": \"dir/\\\"odd\\\".wtns\", \"status\": \"failed\", "
        "\"exit_code\": 2, \"error\": \"malformed input\", \"message\": "
        "\"odd.wtns: file is empty\\u0009at 0\"},\n"
        "    {\"file\": \"w3.wtns\", \"status\": \"cancelled\", \"exit_code\": "
        "2, \"error\": \"cancelled\", \"message\": \"\"}\n  ]\n}\n";
    char *at = strstr(text, "    \"balanced\"");
    CHECK(at != NULL);
    check_text(strdup(at), want, "report witnesses");
    free(text);
}
