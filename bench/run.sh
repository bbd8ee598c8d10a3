#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make bench: proofline against baselines measured in the same run, printed
# as key=value lines (bench/README.md keeps a table of one run).
#   1. `proofline prove` vs `snarkjs groth16 prove` on the same zkey (from
#      `proofline setup --dev`) and witness at 2^14, 2^16, 2^18, alternating,
#      medians of BENCH_RUNS (3); wall seconds and peak RSS.
#   2. MSM and NTT micro-benchmarks (bench_msm) against blst.
#   3. The engine: 8 partitions at 2^16 with pw = 2 and a budget for 3
#      partitions vs unbounded (throughput ratio, peak RssAnon vs budget),
#      and the batch's wall time vs the sum of single proofs.
#   4. The job store's claim throughput (bench/store_claims.sh): SQLite and
#      PostgreSQL, 1, 4 and 16 worker processes.
#   5. The planner against runs (bench/plan_validate.sh): peak reserved,
#      RssAnon and wall time, planned and measured, 2^12 to 2^16.
#   6. BN254 (bench/bn254_prove.sh): proofline vs snarkjs on bn128 zkeys,
#      and BN254 vs BLS12-381, at BENCH_BN254_SIZES.
# Circuits, witnesses and zkeys are generated into $BUILD/bench and kept.
#   BENCH_SIZES="14 16 18"  BENCH_RUNS=3  BENCH_SKIP="msm engine prove store plan bn254"
set -eu
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/proofline"
node_modules="$top/tests/vectors/node_modules"
snarkjs="$node_modules/.bin/snarkjs"
work="$(cd "$build" && pwd)/bench"
sizes=${BENCH_SIZES:-"14 16 18"}
runs=${BENCH_RUNS:-3}
skip=${BENCH_SKIP:-}
mkdir -p "$work"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# timed <file> <command...>: appends "seconds max_rss_kib" to file
timed() { out=$1; shift; /usr/bin/time -f "%e %M" -o "$work/.t" "$@" >/dev/null 2>&1; cat "$work/.t" >>"$out"; }
skipped() { case " $skip " in *" $1 "*) return 0;; esac; return 1; }

# make_circuit k: r1cs, witness, zkey for a 2^k domain (cached)
make_circuit() {
    k=$1; d="$work/k$k"
    [ -f "$d/circuit.zkey" ] && [ -f "$d/witness.wtns" ] && return 0
    mkdir -p "$d"
    m=1024; n=$(( (1 << k) - 4 )); nb=$(( n / m - 1 )); r=$(( n - nb * m ))
    cp "$top/bench/circuits/chain_blocks.circom" "$d/"
    printf 'pragma circom 2.0.0;\ninclude "chain_blocks.circom";\ncomponent main {public [x]} = ChainBlocks(%d, %d, %d);\n' \
        "$nb" "$m" "$r" >"$d/circuit.circom"
    echo "bench: compiling the 2^$k circuit" >&2
    (cd "$d" && node "$node_modules/circom2/cli.js" circuit.circom --r1cs --wasm --prime bls12381 -o . >/dev/null)
    echo '{"x": "7", "y": "1234567890123456789012345678901234567890"}' >"$d/input.json"
    "$snarkjs" wtns calculate "$d/circuit_js/circuit.wasm" "$d/input.json" "$d/witness.wtns" >/dev/null
    t0=$(date +%s.%N)
    "$bin" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey" 2>/dev/null
    echo "bench=setup_dev k=$k seconds=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
}

if ! skipped prove; then
    for k in $sizes; do
        make_circuit "$k"
        d="$work/k$k"
        : >"$work/pl.$k"; : >"$work/sj.$k"
        i=0
        while [ $i -lt "$runs" ]; do
            timed "$work/pl.$k" "$bin" prove "$d/circuit.zkey" "$d/witness.wtns" "$d/proof.json" "$d/public.json"
            timed "$work/sj.$k" "$snarkjs" groth16 prove "$d/circuit.zkey" "$d/witness.wtns" "$d/proof_sj.json" "$d/public_sj.json"
            i=$((i + 1))
        done
        pl=$(cut -d' ' -f1 "$work/pl.$k" | median); sj=$(cut -d' ' -f1 "$work/sj.$k" | median)
        plm=$(cut -d' ' -f2 "$work/pl.$k" | median); sjm=$(cut -d' ' -f2 "$work/sj.$k" | median)
        "$snarkjs" zkey export verificationkey "$d/circuit.zkey" "$d/vk.json" >/dev/null
        ok=$("$snarkjs" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" | grep -c OK || true)
        echo "bench=prove k=$k proofline_s=$pl snarkjs_s=$sj speedup=$(awk -v a="$sj" -v b="$pl" 'BEGIN { printf "%.2f", a / b }')" \
             "proofline_rss_mib=$((plm / 1024)) snarkjs_rss_mib=$((sjm / 1024)) snarkjs_verifies_ours=$ok"
    done
fi

if ! skipped msm && [ -x "$build/bench_msm" ]; then
    "$build/bench_msm"
fi

if ! skipped engine; then
    make_circuit 16
    d="$work/k16"; e="$work/engine"; rm -rf "$e"; mkdir -p "$e/w"
    for i in 1 2 3 4 5 6 7 8; do ln -s "$d/witness.wtns" "$e/w/p$i.wtns"; done
    eval "$("$bin" batch --zkey "$d/circuit.zkey" --out "$e/plan" --print-plan "$e/w/p1.wtns")"
    budget=$((resident_bytes + 3 * partition_bytes))
    "$bin" batch --zkey "$d/circuit.zkey" --out "$e/unbounded" --pw 2 --quiet --report "$e/unbounded.json" "$e"/w/*.wtns
    "$bin" batch --zkey "$d/circuit.zkey" --out "$e/bounded" --pw 2 --budget "$budget" --quiet --report "$e/bounded.json" "$e"/w/*.wtns
    t0=$(date +%s.%N)
    for i in 1 2 3 4 5 6 7 8; do "$bin" prove "$d/circuit.zkey" "$e/w/p$i.wtns" "$e/s.json" "$e/sp.json"; done
    singles=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    node -e '
      const [u, b, budget, singles, part, res] = process.argv.slice(1);
      const U = require(u), B = require(b), mib = x => (x / 1048576).toFixed(1);
      console.log(`bench=engine k=16 partitions=8 pw=2 partition_mib=${mib(+part)} resident_mib=${mib(+res)}` +
        ` unbounded_s=${U.wall_seconds} bounded_s=${B.wall_seconds} throughput_ratio=${(U.wall_seconds / B.wall_seconds).toFixed(2)}` +
        ` budget_mib=${mib(+budget)} bounded_peak_rss_anon_mib=${mib(B.memory.peak_rss_anon_bytes)}` +
        ` rss_within_budget_plus_64mib=${B.memory.peak_rss_anon_bytes <= +budget + 64 * 1048576}` +
        ` unbounded_peak_rss_anon_mib=${mib(U.memory.peak_rss_anon_bytes)} idle_baseline_rss_mib=${mib(B.memory.baseline_rss_anon_bytes)}` +
        ` peak_reserved_mib=${mib(B.memory.peak_reserved_bytes)} balanced=${B.memory.balanced && U.memory.balanced}`);
      console.log(`bench=overlap k=16 partitions=8 batch_s=${U.wall_seconds} sum_of_single_proves_s=${(+singles).toFixed(2)}` +
        ` ratio=${(+singles / U.wall_seconds).toFixed(2)}`);' \
        "$e/unbounded.json" "$e/bounded.json" "$budget" "$singles" "$partition_bytes" "$resident_bytes"
fi

if ! skipped store && [ -x "$build/bench_store" ]; then
    sh "$top/bench/store_claims.sh" "$build"
fi

if ! skipped plan; then
    sh "$top/bench/plan_validate.sh" "$build"
fi

if ! skipped bn254; then
    sh "$top/bench/bn254_prove.sh" "$build"
fi
