#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make demo: the main job on built-in defaults.  Proves the committed example
# circuit (tests/vectors/chain10: 1021 constraints, made with circom and
# snarkjs) once with stage timings, then as a batch of 6 partitions through
# the engine under a 64 MiB budget, verifies every proof with our verifier,
# and prints the memory summary.  Outputs go to build/demo/.
set -eu
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
vec="$top/tests/vectors/chain10"
out="$(dirname "$bin")/demo"
rm -rf "$out"
mkdir -p "$out/witnesses"

echo "== proofline demo =="
"$bin" inspect "$vec/circuit.zkey" | grep -E "n_vars|n_public|n_constraints|domain_size" | sed 's/^/  /'
echo "-- one proof, stage by stage"
"$bin" prove "$vec/circuit.zkey" "$vec/witness.wtns" "$out/proof.json" "$out/public.json" --timings
"$bin" vkey "$vec/circuit.zkey" "$out/verification_key.json"
printf -- "-- verify with proofline's verifier: "
"$bin" verify "$out/verification_key.json" "$out/public.json" "$out/proof.json"

echo "-- a batch of 6 partitions: pw=2, one prover worker, budget 64 MiB"
for i in 1 2 3 4 5 6; do ln -s "$vec/witness.wtns" "$out/witnesses/partition$i.wtns"; done
"$bin" batch --zkey "$vec/circuit.zkey" --out "$out/batch" --pw 2 --workers 1 --budget 64MiB \
    --verify --report "$out/report.json" --trace "$out/trace.json" --plot "$out/memory.svg" \
    "$out"/witnesses/*.wtns
printf -- "-- verify partition 6 again from its files: "
"$bin" verify "$out/verification_key.json" "$out/batch/partition6.public.json" "$out/batch/partition6.proof.json"
echo "outputs: $out (proof.json, public.json, verification_key.json, batch/, report.json, trace.json, memory.svg)"
