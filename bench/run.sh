#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make bench: times `proofline prove` against `snarkjs groth16 prove` on the
# same zkey and witness, alternating the two, and prints key=value lines and
# the ratio.  Only side-by-side figures mean anything on a shared machine.
set -eu
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/proofline"
snarkjs="$top/tests/vectors/node_modules/.bin/snarkjs"
out="$build/bench"; mkdir -p "$out"
runs=${BENCH_RUNS:-3}
ms() { date +%s%N | awk '{ printf "%d", $1 / 1000000 }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for name in chain10; do
    vec="$top/tests/vectors/$name"
    : >"$out/pl.times"; : >"$out/sj.times"
    i=0
    while [ $i -lt "$runs" ]; do
        t0=$(ms); "$bin" prove "$vec/circuit.zkey" "$vec/witness.wtns" "$out/p.json" "$out/s.json"; t1=$(ms)
        echo $((t1 - t0)) >>"$out/pl.times"
        t0=$(ms); "$snarkjs" groth16 prove "$vec/circuit.zkey" "$vec/witness.wtns" "$out/p2.json" "$out/s2.json" >/dev/null; t1=$(ms)
        echo $((t1 - t0)) >>"$out/sj.times"
        i=$((i + 1))
    done
    pl=$(median <"$out/pl.times"); sj=$(median <"$out/sj.times")
    echo "bench=prove circuit=$name proofline_ms=$pl snarkjs_ms=$sj speedup=$(awk "BEGIN { printf \"%.1f\", $sj / ($pl > 0 ? $pl : 1) }")"
done
