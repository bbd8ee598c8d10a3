#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 29 item 2: k proofs batched against k separate ones, on the CPU.
#   1. bench_batch's MSMs: k sums over one base set in one batched call
#      against k calls (G1 at 2^16 and 2^18, G2 at 2^16), with the cost
#      model's ratio for 2 to 96 workers;
#   2. whole proofs: `proofline circuit export` + `setup --dev` at each
#      size, then bench_batch over the zkey: k proofs started together
#      (pl__groth16_start_batch) against k pl__groth16_start calls.
# Throughput is in process CPU time (a shared machine's waits left out),
# as ratios separate / batch (above 1: the batch wins), medians of
# BENCH_RUNS (3), the contenders alternating; peak memory is the accounted
# classes' high-water marks.  Niced.  bench/README.md holds one run.
#     bench/batch_bench.sh [LOG2 ...]     (default: 16 18)
set -euo pipefail
bin=${PROOFLINE:-build/proofline}
bench=${BENCH_BATCH:-build/bench_batch}
threads=${THREADS:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/batch_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

BENCH_THREADS=$threads nice -n 10 "$bench"
for k in "${@:-16 18}"; do
    d="$work/k$k"; mkdir -p "$d"
    "$bin" circuit export --constraints "2^$k" --out "$d" >/dev/null
    nice -n 10 "$bin" setup --dev --threads "$threads" "$d/circuit.r1cs" \
        "$d/c.zkey" 2>/dev/null
    BENCH_THREADS=$threads BENCH_ZKEY="$d/c.zkey" BENCH_WTNS="$d/p0.wtns" \
        nice -n 10 "$bench"
    rm -rf "$d"
done
