#!/usr/bin/env bash
# Regenerate the BN254 (snarkjs's bn128) test vectors in bn254/ from the same
# .circom sources and input.json as the BLS12-381 ones (regen.sh):
#
#   ./regen_bn254.sh        (from anywhere; works in the script's own folder)
#
# Each bn254/<circuit>/ gets circuit.r1cs (circom2 --prime bn128), witness.wtns,
# circuit.zkey (groth16 setup on a 2^10 bn128 ptau, then a zkey beacon),
# verification_key.json, proof_snarkjs.json and public.json (snarkjs groth16
# prove, randomly blinded: a committed proof is kept while it still verifies, so
# a rerun leaves git clean).  Everything else is deterministic (fixed beacons,
# no random contributions).  Scratch files go to ./work/bn254 (git-ignored);
# the ptau there is reused.  Needs node >= 18 and tests/vectors/node_modules
# (npm ci).  About two minutes on 2 cores the first time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
WORK=$HERE/work/bn254
LOG=$WORK/regen.log
BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
BEACON_ITER=10
POWER=10
CIRCUITS=(multiplier chain10 nopublic noB manypublic edgevalues)

mkdir -p "$WORK"
: > "$LOG"
say() { printf '%s\n' "$*"; }
run() { # run a command quietly, show the log tail on failure
    if ! "$@" >>"$LOG" 2>&1; then
        say "FAILED: $*"; tail -n 30 "$LOG"; exit 1
    fi
}
SNARKJS=(node "$HERE/node_modules/snarkjs/build/cli.cjs")
CIRCOM=(node "$HERE/node_modules/circom2/cli.js")
snarkjs() { run "${SNARKJS[@]}" "$@"; }
circom() { run "${CIRCOM[@]}" "$@"; }
verify() { # verify <vk> <public> <proof>: snarkjs must print OK
    "${SNARKJS[@]}" groth16 verify "$@" >"$WORK/verify.out" 2>&1 &&
        grep -q 'OK!' "$WORK/verify.out"
}
same_json() { node -e 'const f=require("fs");const a=JSON.parse(f.readFileSync(process.argv[1])),b=JSON.parse(f.readFileSync(process.argv[2]));process.exit(JSON.stringify(a)===JSON.stringify(b)?0:1)' "$1" "$2"; }

PTAU=$WORK/pot${POWER}_final.ptau
if [ ! -s "$PTAU" ]; then
    say "ptau bn128 2^$POWER"
    snarkjs powersoftau new bn128 "$POWER" "$WORK/pot${POWER}_0000.ptau"
    snarkjs powersoftau beacon "$WORK/pot${POWER}_0000.ptau" "$WORK/pot${POWER}_beacon.ptau" "$BEACON" "$BEACON_ITER" -n="proofline vectors"
    snarkjs powersoftau prepare phase2 "$WORK/pot${POWER}_beacon.ptau" "$PTAU.tmp"
    mv "$PTAU.tmp" "$PTAU"
fi

for c in "${CIRCUITS[@]}"; do
    say "== bn254/$c"
    W=$WORK/$c
    O=bn254/$c
    rm -rf "$W"; mkdir -p "$W" "$O"
    circom "$c/circuit.circom" --r1cs --wasm --prime bn128 -o "$W"
    cp "$W/circuit.r1cs" "$O/circuit.r1cs"
    snarkjs wtns calculate "$W/circuit_js/circuit.wasm" "$c/input.json" "$O/witness.wtns"
    snarkjs wtns check "$O/circuit.r1cs" "$O/witness.wtns"
    snarkjs groth16 setup "$O/circuit.r1cs" "$PTAU" "$W/circuit_0000.zkey"
    snarkjs zkey beacon "$W/circuit_0000.zkey" "$O/circuit.zkey" "$BEACON" "$BEACON_ITER" -n="proofline vectors"
    snarkjs zkey export verificationkey "$O/circuit.zkey" "$O/verification_key.json"
    snarkjs groth16 prove "$O/circuit.zkey" "$O/witness.wtns" "$W/proof.json" "$W/public.json"
    verify "$O/verification_key.json" "$W/public.json" "$W/proof.json" || { cat "$WORK/verify.out"; exit 1; }
    if [ -f "$O/proof_snarkjs.json" ] && [ -f "$O/public.json" ] && same_json "$W/public.json" "$O/public.json" \
        && verify "$O/verification_key.json" "$O/public.json" "$O/proof_snarkjs.json"; then
        : # keep the committed (randomly blinded) proof: it still verifies
    else
        cp "$W/proof.json" "$O/proof_snarkjs.json"
        cp "$W/public.json" "$O/public.json"
    fi
done
say "done (log: $LOG)"
