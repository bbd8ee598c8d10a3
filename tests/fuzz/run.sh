#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs the fuzz targets of a PL_FUZZ build (tests/fuzz/build.sh), one after
# the other, and prints each one's executions and coverage (edges).
#
#   run.sh <build-dir> <seconds> [target...]     `make fuzz`
#   run.sh --check <build-dir> [target...]       the coverage check
#
# The targets are the build's: <build-dir>/tests/fuzz/targets.txt, written
# by tests/fuzz/CMakeLists.txt from its one list (name, longest input,
# dictionary, coverage floor, the check's runs).
#
# `make fuzz`: each target for <seconds>; fails if any found a crash, a
# leak, undefined behaviour, a timeout or an out-of-memory, and copies the
# input into tests/fuzz/regressions/<target>/, where `make test` replays it
# from then on (commit it with the fix).  The working corpus
# (<build-dir>/tests/fuzz/corpus/<target>/) is kept between runs; the
# seeds are the committed vectors (fuzz-seeds/), tests/fuzz/corpus/ and
# tests/fuzz/regressions/.
#
# Coverage: libFuzzer's edges, and of them those outside the harness (the
# functions of src/, service/, cli/ that -print_coverage reports reached).
#
# --check: each target from its seeds alone (an empty working corpus) for
# its fixed number of runs with a fixed seed -- the same work on any
# machine, a few seconds on this one -- and fails when its edges outside
# the harness are below its floor: a build change that blinds the fuzzers
# (as the object library once did: cov 11 for the zkey reader, none of it
# the reader's) fails `make test`.  A crash fails it too; nothing is copied
# into the source tree.
#
# Limits, the same for every target and both modes: inputs of at most the
# target's max_len bytes, 10 s per input, no single allocation over 16 MiB
# and no more than 1 GiB resident (ASan's overhead included).  16 MiB is 256
# times the largest input: a parser that sizes a buffer from a count it has
# not checked against the input's length trips it long before it could do
# harm.
set -eu
mode=fuzz
if [ "${1:-}" = --check ]; then
    mode=check
    shift
fi
build=$1
shift
if [ "$mode" = fuzz ]; then
    seconds=$1
    shift
fi
src=$(cd "$(dirname "$0")" && pwd)
bin="$build/tests/fuzz"
list="$bin/targets.txt"
[ -f "$list" ] || { echo "fuzz: $list is missing: not a configured build" >&2; exit 2; }
known=$(cut -d' ' -f1 "$list" | tr '\n' ' ')
targets=${*:-$known}
for t in $targets; do
    case " $known " in
    *" $t "*) ;;
    *) echo "fuzz: unknown target $t (the build's: $known)" >&2; exit 2 ;;
    esac
done

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# The library's share of the coverage is read from libFuzzer's
# -print_coverage report, which names each function's file: that takes
# llvm-symbolizer, which Debian installs as llvm-symbolizer-N alone when
# the llvm package is missing.
if ! command -v llvm-symbolizer >/dev/null 2>&1 && [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
    for f in /usr/bin/llvm-symbolizer-*; do
        [ -x "$f" ] && export ASAN_SYMBOLIZER_PATH="$f"
    done
fi

failed=""
summary=""
for t in $targets; do
    read -r _ max_len dict floor runs <<EOF
$(grep "^$t " "$list")
EOF
    art="$bin/artifacts/$t"
    mkdir -p "$art"
    rm -f "$art"/*
    seeds=""
    for d in "$bin/fuzz-seeds/$t" "$src/regressions/$t" "$src/corpus/$t"; do
        [ -d "$d" ] && seeds="$seeds $d"
    done
    if [ "$mode" = fuzz ]; then
        corpus="$bin/corpus/$t"
        log="$bin/fuzz_$t.log"
        limit="-max_total_time=$seconds"
        echo "fuzz: $t for ${seconds}s (log: $log)"
    else
        corpus=$(mktemp -d)
        log="$bin/check_$t.log"
        limit="-runs=$runs -seed=1"
    fi
    mkdir -p "$corpus"
    rc=0
    # shellcheck disable=SC2086
    "$bin/fuzz_$t" $limit -max_len="$max_len" \
        -timeout=10 -malloc_limit_mb=16 -rss_limit_mb=1024 \
        -dict="$src/$dict" -print_final_stats=1 -print_coverage=1 \
        -artifact_prefix="$art/" "$corpus" $seeds >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    # the edges of functions outside tests/fuzz/: what the target reaches
    # of the code it is for (a harness alone reaches tens of its own)
    lib=$(awk '$1 == "COVERED_FUNC:" && $4 == "edges:" && $NF ~ /\// &&
               $NF !~ /\/tests\/fuzz\// { split($5, e, "/"); n += e[1] }
               END { print n + 0 }' "$log")
    units=$(ls "$corpus" | wc -l)
    found=$(ls "$art" 2>/dev/null | grep -E '^(crash|leak|timeout|oom)-' || true)
    line="$t: ${execs:-?} executions, coverage ${cov:-?} edges ($lib outside the harness), corpus $units"
    if [ "$mode" = check ]; then
        line="$line (floor $floor)"
        rm -rf "$corpus"
    fi
    if [ "$rc" != 0 ] || [ -n "$found" ]; then
        line="$line: FAILED (exit $rc; log $log)"
        failed="$failed $t"
        for f in $found; do
            if [ "$mode" = fuzz ]; then
                mkdir -p "$src/regressions/$t"
                cp "$art/$f" "$src/regressions/$t/$f"
                line="$line; kept tests/fuzz/regressions/$t/$f"
            else
                line="$line; the input: $art/$f"
            fi
        done
        grep -E 'ERROR|SUMMARY|runtime error|fuzz: ' "$log" | head -n 5 >&2 || true
    elif [ "$mode" = check ] && ! grep -q '^COVERED_FUNC: .*/' "$log"; then
        line="$line: NO COVERAGE REPORT (llvm-symbolizer missing? see deps.sh)"
        failed="$failed $t"
    elif [ "$mode" = check ] && [ "$lib" -lt "$floor" ]; then
        line="$line: BELOW THE FLOOR (does the build instrument the library?)"
        failed="$failed $t"
    fi
    echo "fuzz: $line"
    summary="$summary$line
"
done
if [ "$mode" = fuzz ]; then
    printf '\nfuzz summary (%ss per target):\n%s' "$seconds" "$summary"
else
    printf '\nfuzz coverage check (each target from its seeds, its runs, seed 1):\n%s' "$summary"
fi
if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed" >&2
    if [ "$mode" = fuzz ]; then
        echo "fuzz: the inputs are kept under tests/fuzz/regressions/<target>/" >&2
        echo "fuzz: rerun one with $bin/fuzz_<target> FILE, or build/tests/fuzz/fuzz_<target>_replay FILE" >&2
    fi
    exit 1
fi
if [ "$mode" = fuzz ]; then
    echo "fuzz: nothing found"
else
    echo "fuzz: every target at or above its floor"
fi
