#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# BN254 ("bn128") proving against baselines in the same run, as key=value
# lines (make bench runs it; bench/README.md keeps a table of one run):
#   - `proofline prove` vs `snarkjs groth16 prove` on the same bn128 zkey
#     and witness (chain_blocks.circom, full-size witness values, compiled
#     with --prime bn128), alternating, medians of BENCH_RUNS;
#   - proofline on BN254 vs proofline on BLS12-381 at the same size (the
#     same circuit compiled with --prime bls12381, zkey from setup --dev).
# The bn128 zkeys come from our ceremony (proofline ptau new, one beacon,
# prepare, zkey new: the bytes snarkjs's steps write, in seconds where
# snarkjs takes minutes at 2^16); snarkjs's prove is what takes the time
# at 2^18, so the default sizes are small.  rapidsnark is not measured:
# it is not in the package registries reachable here (npm has no
# rapidsnark package).
#   BENCH_BN254_SIZES="12 14"  BENCH_RUNS=3
# usage: bench/bn254_prove.sh BUILD_DIR
set -eu
build=$1
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/proofline"
node_modules="$top/tests/vectors/node_modules"
snarkjs="$node_modules/.bin/snarkjs"
work="$(cd "$build" && pwd)/bench/bn254"
sizes=${BENCH_BN254_SIZES:-"12 14"}
runs=${BENCH_RUNS:-3}
mkdir -p "$work"

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timed() { out=$1; shift; /usr/bin/time -f "%e %M" -o "$work/.t" "$@" >/dev/null 2>&1; cat "$work/.t" >>"$out"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

max=0
for k in $sizes; do
    # the chain circuit is blocks of 1024 constraints, at least two
    [ "$k" -ge 12 ] || { echo "bench: BENCH_BN254_SIZES: $k is below 12" >&2; exit 2; }
    [ "$k" -gt "$max" ] && max=$k
done
ptau="$work/pot${max}_final.ptau"
if [ ! -s "$ptau" ]; then
    # our ceremony: the same bytes as snarkjs's new, beacon and prepare
    # (tests/cli_ceremony.sh compares them), hours faster at 2^18
    echo "bench: bn128 powers of tau 2^$max (proofline ptau)" >&2
    "$bin" ptau new bn128 "$max" "$work/pot0.ptau" >/dev/null 2>&1
    "$bin" ptau beacon "$work/pot0.ptau" "$work/pot1.ptau" \
        0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f 10 >/dev/null 2>&1
    "$bin" ptau prepare "$work/pot1.ptau" "$ptau" >/dev/null 2>&1
    rm -f "$work/pot0.ptau" "$work/pot1.ptau"
fi

# circuit k prime: the chain circuit of a 2^k domain for a prime, with its
# witness (cached)
circuit() {
    k=$1; prime=$2; d="$work/$prime.k$k"
    [ -f "$d/witness.wtns" ] && return 0
    mkdir -p "$d"
    m=1024; n=$(( (1 << k) - 4 )); nb=$(( n / m - 1 )); r=$(( n - nb * m ))
    cp "$top/bench/circuits/chain_blocks.circom" "$d/"
    printf 'pragma circom 2.0.0;\ninclude "chain_blocks.circom";\ncomponent main {public [x]} = ChainBlocks(%d, %d, %d);\n' \
        "$nb" "$m" "$r" >"$d/circuit.circom"
    (cd "$d" && node "$node_modules/circom2/cli.js" circuit.circom --r1cs --wasm --prime "$prime" -o . >/dev/null)
    echo '{"x": "7", "y": "1234567890123456789012345678901234567890"}' >"$d/input.json"
    "$snarkjs" wtns calculate "$d/circuit_js/circuit.wasm" "$d/input.json" "$d/witness.wtns" >/dev/null
}

for k in $sizes; do
    circuit "$k" bn128
    circuit "$k" bls12381
    bn="$work/bn128.k$k"; bls="$work/bls12381.k$k"
    [ -f "$bn/circuit.zkey" ] ||
        "$bin" zkey new "$bn/circuit.r1cs" "$ptau" "$bn/circuit.zkey" >/dev/null 2>&1
    [ -f "$bls/circuit.zkey" ] ||
        "$bin" setup --dev "$bls/circuit.r1cs" "$bls/circuit.zkey" 2>/dev/null
    : >"$work/pl.$k"; : >"$work/sj.$k"; : >"$work/bls.$k"
    i=0
    while [ $i -lt "$runs" ]; do
        timed "$work/pl.$k" "$bin" prove "$bn/circuit.zkey" "$bn/witness.wtns" "$bn/proof.json" "$bn/public.json"
        timed "$work/sj.$k" "$snarkjs" groth16 prove "$bn/circuit.zkey" "$bn/witness.wtns" "$bn/proof_sj.json" "$bn/public_sj.json"
        timed "$work/bls.$k" "$bin" prove "$bls/circuit.zkey" "$bls/witness.wtns" "$bls/proof.json" "$bls/public.json"
        i=$((i + 1))
    done
    pl=$(cut -d' ' -f1 "$work/pl.$k" | median); sj=$(cut -d' ' -f1 "$work/sj.$k" | median)
    bl=$(cut -d' ' -f1 "$work/bls.$k" | median)
    plm=$(cut -d' ' -f2 "$work/pl.$k" | median); sjm=$(cut -d' ' -f2 "$work/sj.$k" | median)
    "$snarkjs" zkey export verificationkey "$bn/circuit.zkey" "$bn/vk.json" >/dev/null
    ok=$("$snarkjs" groth16 verify "$bn/vk.json" "$bn/public.json" "$bn/proof.json" | grep -c OK || true)
    echo "bench=prove_bn254 k=$k proofline_s=$pl snarkjs_s=$sj speedup=$(ratio "$sj" "$pl")" \
         "proofline_bls12381_s=$bl bn254_vs_bls12381=$(ratio "$bl" "$pl")" \
         "proofline_rss_mib=$((plm / 1024)) snarkjs_rss_mib=$((sjm / 1024)) snarkjs_verifies_ours=$ok"
done
