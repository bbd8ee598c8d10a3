#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The short report `make test` prints (scripts/test_summary.py over the
# JUnit file ctest writes): skipped tests grouped by the reason they
# printed, each failure with the end of its output, ctest's own closing line
# copied from its log, and last the bare counts (CI's reader takes the
# closing line as the run's verdict).  Before, `make test` printed every
# build line and every test line.  While ctest runs, scripts/test_progress.py
# shows a short line per finished test and keeps ctest's lines in the log;
# its lines come before the summary's and leave its two closing lines last,
# as they are.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
summary="$(dirname "$0")/../scripts/test_summary.py"
cat >"$work/junit.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="5" failures="1" time="12.4">
<testcase name="util.a" status="run"><system-out>ok a</system-out></testcase>
<testcase name="cli_b" status="fail"><failure message="Failed"/><system-out>ok first
FAIL: the second check</system-out></testcase>
<testcase name="cuda.c_on_device" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/><system-out>skipped: this build has no CUDA backend
</system-out></testcase>
<testcase name="cuda.d_on_device" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/><system-out>skipped: this build has no CUDA backend
</system-out></testcase>
<testcase name="cli_e" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/><system-out>SKIP: snarkjs missing (run make npm-deps)</system-out></testcase>
</testsuite>
XML
cat >"$work/ctest.log" <<'LOG'
Test project /tmp/build
1/5 Test #1: util.a ..........   Passed    0.01 sec
80% tests passed, 1 tests failed out of 5

Total Test time (real) =  12.40 sec
LOG
python3 "$summary" "$work/junit.xml" "$work/ctest.log" >"$work/out" || fail "exit $?"
cat >"$work/want" <<'TXT'
5 tests in 12 s
  skipped 1: snarkjs missing (run make npm-deps): cli_e
  skipped 2: this build has no CUDA backend: cuda.c_on_device, cuda.d_on_device
FAILED cli_b:
    ok first
    FAIL: the second check
ctest's full output: WORK/ctest.log
80% tests passed, 1 tests failed out of 5
1 passed, 1 failed, 3 skipped
TXT
sed -i "s|WORK|$work|" "$work/want"
diff "$work/want" "$work/out" >"$work/diff" || fail "summary differs: $(cat "$work/diff")"

# a log without ctest's line (ctest killed, say) is said so, never made up
: >"$work/empty.log"
python3 "$summary" "$work/junit.xml" "$work/empty.log" >"$work/out2" || fail "exit $?"
grep -qx "ctest wrote no closing line in $work/empty.log" "$work/out2" ||
    fail "no note of the missing closing line: $(cat "$work/out2")"
[ "$(tail -n 1 "$work/out2")" = "1 passed, 1 failed, 3 skipped" ] ||
    fail "the counts are not last: $(tail -n 1 "$work/out2")"

# progress: ctest's lines through test_progress.py (not a terminal: one
# line per finished test), the whole of them kept in the log, then the
# summary, whose closing lines stay last and unchanged
progress="$(dirname "$0")/../scripts/test_progress.py"
cat >"$work/ctest.out" <<'LOG'
Test project /tmp/build
    Start 1: util.a
1/5 Test #1: util.a ..........   Passed    0.01 sec
2/5 Test #2: cli_b ...........***Failed    3.20 sec
ok first
FAIL: the second check
3/5 Test #3: cuda.c_on_device ...***Skipped   0.01 sec
4/5 Test #4: cuda.d_on_device ...***Skipped   0.01 sec
5/5 Test #5: cli_e ...........***Timeout 1500.02 sec

80% tests passed, 1 tests failed out of 5

Total Test time (real) =  12.40 sec
LOG
{ python3 "$progress" "$work/run.log" <"$work/ctest.out" &&
  python3 "$summary" "$work/junit.xml" "$work/run.log"; } >"$work/out3" || fail "exit $?"
cmp -s "$work/ctest.out" "$work/run.log" || fail "test_progress.py's log is not ctest's output"
cat >"$work/want3" <<'TXT'
[1/5] ok      util.a  0.0 s
[2/5] FAILED  cli_b  3.2 s
[3/5] skipped cuda.c_on_device  0.0 s
[4/5] skipped cuda.d_on_device  0.0 s
[5/5] FAILED  cli_e  1500.0 s (Timeout)
TXT
head -n 5 "$work/out3" | diff "$work/want3" - >"$work/diff" ||
    fail "progress lines differ: $(cat "$work/diff")"
[ "$(tail -n 2 "$work/out3")" = "80% tests passed, 1 tests failed out of 5
1 passed, 1 failed, 3 skipped" ] || fail "the closing lines after the progress: $(tail -n 2 "$work/out3")"

finish "test summary: ok"
