#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make fuzz`: runs every fuzz target of a PL_FUZZ build for N seconds each,
# one after the other, and fails if any found a crash, a leak, undefined
# behaviour, a timeout or an out-of-memory.  An input that failed is copied
# into tests/fuzz/regressions/<target>/, where `make test` replays it from
# then on (commit it with the fix).
#
#   run.sh <build-dir> <seconds> [target...]
#
# Limits, the same for every target: inputs of at most max_len bytes (64 KiB
# for the binary files), 10 s per input, no single allocation over 16 MiB
# and no more than 1 GiB resident (ASan's overhead included).  16 MiB is 256
# times the largest input: a parser that sizes a buffer from a count it has
# not checked against the input's length trips it long before it could do
# harm.  The working corpus (<build-dir>/tests/fuzz/corpus/<target>/) is kept
# between runs; the seeds are the committed vectors and tests/fuzz/corpus/.
set -eu
build=$1
seconds=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
bin="$build/tests/fuzz"
targets=${*:-"zkey wtns r1cs vkey_json proof_json public_json size bellperson"}

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

failed=""
summary=""
for t in $targets; do
    case $t in
    zkey|wtns|r1cs) max_len=65536 dict="$src/binary.dict" ;;
    vkey_json)      max_len=32768 dict="$src/json.dict" ;;
    proof_json|public_json) max_len=8192 dict="$src/json.dict" ;;
    size)           max_len=64 dict="$src/size.dict" ;;
    *) echo "fuzz: unknown target $t" >&2; exit 2 ;;
    esac
    corpus="$bin/corpus/$t"
    art="$bin/artifacts/$t"
    log="$bin/fuzz_$t.log"
    mkdir -p "$corpus" "$art"
    rm -f "$art"/*
    seeds="$bin/fuzz-seeds/$t $src/regressions/$t"
    [ -d "$src/corpus/$t" ] && seeds="$seeds $src/corpus/$t"
    echo "fuzz: $t for ${seconds}s (log: $log)"
    rc=0
    # shellcheck disable=SC2086
    "$bin/fuzz_$t" -max_total_time="$seconds" -max_len="$max_len" \
        -timeout=10 -malloc_limit_mb=16 -rss_limit_mb=1024 \
        -dict="$dict" -print_final_stats=1 -artifact_prefix="$art/" \
        "$corpus" $seeds >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    units=$(ls "$corpus" | wc -l)
    found=$(ls "$art" 2>/dev/null | grep -E '^(crash|leak|timeout|oom)-' || true)
    line="$t: ${execs:-?} executions, coverage ${cov:-?} edges, corpus $units"
    if [ "$rc" != 0 ] || [ -n "$found" ]; then
        line="$line: FAILED (exit $rc)"
        failed="$failed $t"
        mkdir -p "$src/regressions/$t"
        for f in $found; do
            cp "$art/$f" "$src/regressions/$t/$f"
            line="$line; kept tests/fuzz/regressions/$t/$f"
        done
        grep -E 'ERROR|SUMMARY|runtime error|fuzz: ' "$log" | head -n 5 >&2 || true
    fi
    echo "fuzz: $line"
    summary="$summary$line
"
done
printf '\nfuzz summary (%ss per target):\n%s' "$seconds" "$summary"
if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed; the inputs are kept under tests/fuzz/regressions/<target>/" >&2
    echo "fuzz: rerun one with $bin/fuzz_<target> FILE, or build/tests/fuzz/fuzz_<target>_replay FILE" >&2
    exit 1
fi
echo "fuzz: nothing found"
