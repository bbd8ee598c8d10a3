#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# BN254 (circom's default curve, snarkjs's "bn128") end to end through the
# CLI, on the vectors of tests/vectors/bn254/ (circom --prime bn128, a
# bn128 powers of tau, snarkjs groth16 setup; regen_bn254.sh):
#   - `proofline prove` on each zkey + wtns (the CPU backend, the engine's
#     path), the proof accepted by `snarkjs groth16 verify` and by
#     `proofline verify`, public.json equal to snarkjs's;
#   - snarkjs's own proofs accepted by ours; `proofline vkey` byte for byte
#     snarkjs's verification_key.json; `batch` on two witnesses;
#   - tampered proofs (a point moved, A and C swapped, a public input + 1)
#     refused by both verifiers;
#   - files of two curves refused naming both files and both curves (a
#     bn128 witness with a BLS12-381 key and the other way, a proof under a
#     key of the other curve, an r1cs of the other curve); inspect shows
#     the curve (the development setup on BN254: cli_setup_bn254.sh);
#   - the CUDA backend's BN254 proofs (on its host emulation) accepted by
#     snarkjs and by `proofline verify`.
. "$(dirname "$0")/lib.sh"
require_snarkjs

bn="$VECTORS/bn254"
bls="$VECTORS/multiplier"

# node: prints proof.json with one change (what: swap_ac, move_a, move_b)
tamper() {
    node - "$1" "$2" <<'JS'
const fs = require("fs");
const [file, what] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(file));
if (what === "swap_ac") [p.pi_a, p.pi_c] = [p.pi_c, p.pi_a];
/* x + 1: off the curve (almost surely), still below q */
if (what === "move_a") p.pi_a[0] = (BigInt(p.pi_a[0]) + 1n).toString();
if (what === "move_b") p.pi_b[0][0] = (BigInt(p.pi_b[0][0]) + 1n).toString();
process.stdout.write(JSON.stringify(p, null, 1));
JS
}

for v in multiplier chain10 nopublic noB manypublic edgevalues; do
    d="$bn/$v"
    expect_exit 0 "$PROOFLINE" prove "$d/circuit.zkey" "$d/witness.wtns" \
        "$work/$v.proof.json" "$work/$v.public.json"
    snarkjs_accepts "$d/verification_key.json" "$work/$v.public.json" \
        "$work/$v.proof.json" || fail "$v: snarkjs rejects our proof"
    expect_exit 0 "$PROOFLINE" verify "$d/verification_key.json" \
        "$work/$v.public.json" "$work/$v.proof.json"
    cmp -s "$work/$v.public.json" "$d/public.json" ||
        fail "$v: public.json differs from snarkjs's"
    grep -q '"curve": "bn128"' "$work/$v.proof.json" ||
        fail "$v: proof.json lacks curve bn128"
    expect_exit 0 "$PROOFLINE" verify "$d/verification_key.json" \
        "$d/public.json" "$d/proof_snarkjs.json"
    expect_exit 0 "$PROOFLINE" vkey "$d/circuit.zkey" "$work/$v.vk.json"
    cmp -s "$work/$v.vk.json" "$d/verification_key.json" ||
        fail "$v: vkey differs from snarkjs's verification_key.json"
    for t in swap_ac move_a move_b; do
        tamper "$work/$v.proof.json" "$t" >"$work/t.json"
        # snarkjs takes a second a call: its refusals on two vectors
        case $v in multiplier | noB)
            snarkjs_accepts "$d/verification_key.json" "$work/$v.public.json" \
                "$work/t.json" && fail "$v: snarkjs accepts the $t proof" ;;
        esac
        expect_exit 1 "$PROOFLINE" verify "$d/verification_key.json" \
            "$work/$v.public.json" "$work/t.json"
    done
done

# a public input + 1 (multiplier: one public, the output)
node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));
p[0]=(BigInt(p[0])+1n).toString();process.stdout.write(JSON.stringify(p,null,1));' \
    "$work/multiplier.public.json" >"$work/pub1.json"
snarkjs_accepts "$bn/multiplier/verification_key.json" "$work/pub1.json" \
    "$work/multiplier.proof.json" && fail "snarkjs accepts a changed input"
expect_exit 1 "$PROOFLINE" verify "$bn/multiplier/verification_key.json" \
    "$work/pub1.json" "$work/multiplier.proof.json"

# two witnesses through batch, proofs of the circuit's curve
mkdir -p "$work/batch"
cp "$bn/chain10/witness.wtns" "$work/w1.wtns"
cp "$bn/chain10/witness.wtns" "$work/w2.wtns"
expect_exit 0 "$PROOFLINE" batch --zkey "$bn/chain10/circuit.zkey" \
    --out "$work/batch" "$work/w1.wtns" "$work/w2.wtns"
[ -f "$work/batch/w2.proof.json" ] || fail "batch wrote no w2.proof.json"
for p in "$work"/batch/*.proof.json; do
    snarkjs_accepts "$bn/chain10/verification_key.json" \
        "${p%.proof.json}.public.json" "$p" || fail "batch: snarkjs rejects $p"
done

# files of two curves: named, both, with their curves
expect_exit 2 "$PROOFLINE" prove "$bls/circuit.zkey" \
    "$bn/multiplier/witness.wtns" "$work/x.json" "$work/y.json"
grep -q "bn254/multiplier/witness.wtns is for curve bn128 but .*multiplier/circuit.zkey is for curve bls12381" \
    "$work/log" || fail "bn128 witness, BLS key: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" prove "$bn/multiplier/circuit.zkey" \
    "$bls/witness.wtns" "$work/x.json" "$work/y.json"
grep -q "is for curve bls12381 but .*bn254/multiplier/circuit.zkey is for curve bn128" \
    "$work/log" || fail "BLS witness, bn128 key: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" verify "$bls/verification_key.json" \
    "$work/multiplier.public.json" "$work/multiplier.proof.json"
grep -q "multiplier.proof.json is for curve bn128 but .*verification_key.json is for curve bls12381" \
    "$work/log" || fail "bn128 proof, BLS key: $(cat "$work/log")"
# the same two refusals from folders as deep as a service's job folder or a
# CI's build tree: the message outgrows pl_error.msg, and keeps both files'
# names and curves at the cost of their folders (a %.90s once cut the
# proof's name to "multiplier.proof.j" on CI's longer path)
deep="$work"
for k in 1 2 3 4 5 6 7 8; do deep="$deep/a-folder-with-a-long-name-$k"; done
mkdir -p "$deep"
cp "$work/multiplier.public.json" "$work/multiplier.proof.json" \
    "$bn/multiplier/witness.wtns" "$deep/"
cp "$bls/verification_key.json" "$bls/circuit.zkey" "$deep/"
expect_exit 2 "$PROOFLINE" verify "$deep/verification_key.json" \
    "$deep/multiplier.public.json" "$deep/multiplier.proof.json"
grep -q "multiplier.proof.json is for curve bn128 but .*/verification_key.json is for curve bls12381" \
    "$work/log" || fail "deep folders, bn128 proof, BLS key: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" prove "$deep/circuit.zkey" "$deep/witness.wtns" \
    "$deep/x.json" "$deep/y.json"
grep -q "/witness.wtns is for curve bn128 but .*/circuit.zkey is for curve bls12381" \
    "$work/log" || fail "deep folders, bn128 witness, BLS key: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" prove --check-witness --r1cs "$bls/circuit.r1cs" \
    "$bn/multiplier/circuit.zkey" "$bn/multiplier/witness.wtns" \
    "$work/x.json" "$work/y.json"
grep -q "is for curve" "$work/log" || fail "BLS r1cs: $(cat "$work/log")"
expect_exit 0 "$PROOFLINE" prove --check-witness --check-params \
    "$bn/edgevalues/circuit.zkey" "$bn/edgevalues/witness.wtns" \
    "$work/x.json" "$work/y.json"

# the CUDA backend's BN254 kernels (over the host emulation here): its
# proofs accepted by snarkjs and by us, public.json snarkjs's
for v in multiplier chain10 manypublic; do
    d="$bn/$v"
    expect_exit 0 "$PROOFLINE" prove --backend cuda-emulated \
        "$d/circuit.zkey" "$d/witness.wtns" "$work/cu.$v.proof.json" \
        "$work/cu.$v.public.json"
    snarkjs_accepts "$d/verification_key.json" "$work/cu.$v.public.json" \
        "$work/cu.$v.proof.json" ||
        fail "cuda-emulated $v: snarkjs rejects the proof"
    expect_exit 0 "$PROOFLINE" verify "$d/verification_key.json" \
        "$work/cu.$v.public.json" "$work/cu.$v.proof.json"
    cmp -s "$work/cu.$v.public.json" "$d/public.json" ||
        fail "cuda-emulated $v: public.json differs from snarkjs's"
done

for f in circuit.zkey witness.wtns circuit.r1cs; do
    expect_exit 0 "$PROOFLINE" inspect "$bn/multiplier/$f"
    grep -q "^curve: bn254 (bn128)$" "$work/stdout" || fail "inspect $f"
done

finish "bn254 cli: ok"
