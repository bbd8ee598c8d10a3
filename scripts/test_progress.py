#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The progress of `make test` while ctest runs: reads ctest's output on
stdin, writes all of it to LOG (what test_summary.py and a person read
afterwards), and shows one short line per finished test ("[ 12/421] ok
      cli_plan  3.1 s"), a failed one marked FAILED.  On a terminal the
passed and skipped ones share one line, rewritten in place, and only the
failures stay on the screen; the line is ended before exit, so the
summary that follows (counts last) starts on a line of its own.

    ctest ... 2>&1 | test_progress.py LOG

Exits 0; the caller keeps ctest's exit code.
"""
import re
import sys

# "  12/421 Test  #57: cli_plan .......   Passed    3.10 sec"
RESULT = re.compile(r"^\s*(\d+)/(\d+) Test\s+#\d+: (\S+) \.*\s*"
                    r"(?:\*\*\*)?(.*?)\s+([\d.]+) sec\s*$")


def verdict(text):
    """ctest's word for a test's end -> ours."""
    t = text.lower()
    if t.startswith("passed"):
        return "ok"
    if t.startswith("skipped") or t.startswith("not run"):
        return "skipped"
    return "FAILED"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tty = sys.stdout.isatty()
    open_line = False  # a rewritten line is on the terminal
    with open(sys.argv[1], "w") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            m = RESULT.match(line)
            if not m:
                continue
            done, total, name, word, secs = m.groups()
            what = verdict(word)
            shown = (f"[{done:>{len(total)}}/{total}] {what:<7} {name}"
                     f"  {float(secs):.1f} s")
            if what == "FAILED" and word.lower() != "failed":
                shown += f" ({word})"  # Timeout, Exception: ...
            if tty and what != "FAILED":
                sys.stdout.write("\r\033[K" + shown[:200])
                open_line = True
            else:
                sys.stdout.write(("\r\033[K" if open_line else "") + shown + "\n")
                open_line = False
            sys.stdout.flush()
    if open_line:
        sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
