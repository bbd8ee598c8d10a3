#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The short report of `make test`: reads the JUnit file ctest wrote
(--output-junit) and prints the skipped tests grouped by the reason they
printed (a test that exits 77 says why on stdout: "SKIP: ..." or "skipped:
..."), each failure with the end of its output, then ctest's own closing
line copied from its log as ctest wrote it ("100% tests passed, 0 tests
failed out of N"), and last the bare counts: "N passed, N failed, N
skipped".

    test_summary.py JUNIT.xml [LOG]

LOG is ctest's own output, named at the end for the whole story.  Exits 0;
the caller keeps ctest's exit code.
"""
import re
import sys
import xml.etree.ElementTree as ET

TAIL_LINES = 25


def reason(out):
    """The skip reason a test printed: its SKIP line, else its last line."""
    lines = [l.strip() for l in (out or "").splitlines() if l.strip()]
    for l in lines:
        if l.lower().startswith(("skip:", "skipped:", "skip ")):
            return l.split(":", 1)[1].strip() if ":" in l else l
    return lines[-1] if lines else "no reason printed"


CTEST_CLOSING = re.compile(r"^\d+% tests passed, \d+ tests? failed out of \d+$")


def ctest_closing_line(log_path):
    """ctest's verdict line from its log, as it wrote it; None without one."""
    try:
        with open(log_path, errors="replace") as f:
            found = [l.strip() for l in f if CTEST_CLOSING.match(l.strip())]
    except OSError:
        return None
    return found[-1] if found else None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    try:
        suite = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test summary: cannot read {sys.argv[1]}: {e}")
        return 0
    passed, failed, skipped = [], [], {}
    for case in suite.iter("testcase"):
        name, out = case.get("name"), case.findtext("system-out") or ""
        if case.find("skipped") is not None or case.get("status") == "notrun":
            skipped.setdefault(reason(out), []).append(name)
        elif case.find("failure") is not None or case.get("status") == "fail":
            failed.append((name, out))
        else:
            passed.append(name)
    n_skip = sum(len(v) for v in skipped.values())
    total = len(passed) + len(failed) + n_skip
    print(f"{total} tests in {float(suite.get('time', 0)):.0f} s")
    for why, names in sorted(skipped.items()):
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more"
                                        if len(names) > 4 else "")
        print(f"  skipped {len(names)}: {why}: {shown}")
    for name, out in failed:
        print(f"FAILED {name}:")
        for l in out.splitlines()[-TAIL_LINES:]:
            print(f"    {l}")
    if failed and len(sys.argv) > 2:
        print(f"ctest's full output: {sys.argv[2]}")
    if len(sys.argv) > 2:
        closing = ctest_closing_line(sys.argv[2])
        print(closing or f"ctest wrote no closing line in {sys.argv[2]}")
    # The counts come last, bare and alone on their line: CI's reader takes
    # a run's closing line as its verdict, and a line after it would hide it.
    print(f"{len(passed)} passed, {len(failed)} failed, {n_skip} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
