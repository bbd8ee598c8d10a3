#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make demo: proves the committed example circuit (tests/vectors/chain10, a
# 1021-constraint circom circuit made with snarkjs), verifies the proof with
# our verifier, and prints each stage's time.  Outputs go to build/demo/.
set -eu
bin=$1
top=$(cd "$(dirname "$0")/.." && pwd)
vec="$top/tests/vectors/chain10"
out="$(dirname "$bin")/demo"
mkdir -p "$out"

echo "== proofline demo =="
"$bin" inspect "$vec/circuit.zkey" | sed 's/^/  /' | grep -E "n_vars|n_public|n_constraints|domain_size" || true
echo "-- prove ($vec/circuit.zkey, witness.wtns)"
"$bin" prove "$vec/circuit.zkey" "$vec/witness.wtns" "$out/proof.json" "$out/public.json" --timings
echo "-- export the verification key"
"$bin" vkey "$vec/circuit.zkey" "$out/verification_key.json"
echo "-- verify with proofline's verifier"
start=$(date +%s%N)
"$bin" verify "$out/verification_key.json" "$out/public.json" "$out/proof.json"
end=$(date +%s%N)
echo "  verify     $(( (end - start) / 1000000 )) ms"
echo "outputs: $out/proof.json $out/public.json $out/verification_key.json"
