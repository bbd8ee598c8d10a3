#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The short report `make test` prints (scripts/test_summary.py over the
# JUnit file ctest writes): one line of counts, skipped tests grouped by the
# reason they printed, each failure with the end of its output.  Before,
# `make test` printed every build line and every test line.
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
python3 "$summary" "$work/junit.xml" build/ctest.log >"$work/out" || fail "exit $?"
cat >"$work/want" <<'TXT'
5 tests in 12 s
  skipped 1: snarkjs missing (run make npm-deps): cli_e
  skipped 2: this build has no CUDA backend: cuda.c_on_device, cuda.d_on_device
FAILED cli_b:
    ok first
    FAIL: the second check
ctest's full output: build/ctest.log
tests: 1 passed, 1 failed, 3 skipped
TXT
diff "$work/want" "$work/out" >"$work/diff" || fail "summary differs: $(cat "$work/diff")"

finish "test summary: ok"
