#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --check-params at size: bellperson parameter files of the chain circuit
# (bench/circuits/chain_blocks.circom, a 2^K domain) from `proofline setup
# --dev --format bellperson`, then bench_check on each: the batched
# subgroup check against every point checked alone, on one thread and on
# the pool (bench/README.md keeps one run and the extrapolation to the
# 32 GiB PoRep file).  Files are kept in $BUILD/bench (576 MiB at 2^20).
#     bench/check_params.sh BUILD [K ...]      (default: 16 18)
#     BENCH_ALONE=0: the batched check only
#     BENCH_THREADS=k  BENCH_ALONE_1=0 (skip the slow one-thread baseline)
set -eu
build=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/proofline"
node_modules="$top/tests/vectors/node_modules"
work="$(cd "$build" && pwd)/bench"
mkdir -p "$work"

sizes=${*:-"16 18"}
files=
for k in $sizes; do
    d="$work/chain$k"
    mkdir -p "$d"
    if [ ! -f "$d/circuit.r1cs" ]; then
        m=1024; n=$(( (1 << k) - 4 )); nb=$(( n / m - 1 )); r=$(( n - nb * m ))
        cp "$top/bench/circuits/chain_blocks.circom" "$d/"
        printf 'pragma circom 2.0.0;\ninclude "chain_blocks.circom";\ncomponent main {public [x]} = ChainBlocks(%d, %d, %d);\n' \
            "$nb" "$m" "$r" >"$d/circuit.circom"
        echo "check_params: compiling the 2^$k chain" >&2
        (cd "$d" && node "$node_modules/circom2/cli.js" circuit.circom --r1cs --prime bls12381 -o . >/dev/null)
    fi
    if [ ! -f "$d/circuit.params" ]; then
        echo "check_params: setup --dev --format bellperson at 2^$k" >&2
        t0=$(date +%s)
        "$bin" setup --dev --format bellperson "$d/circuit.r1cs" "$d/circuit.params" "$d/circuit.vk" 2>/dev/null
        echo "bench=setup_dev_bellperson k=$k seconds=$(( $(date +%s) - t0 )) params_bytes=$(stat -c %s "$d/circuit.params")"
    fi
    files="$files $d/circuit.params"
done
# shellcheck disable=SC2086
"$build/bench_check" $files
