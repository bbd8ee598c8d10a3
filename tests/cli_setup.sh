#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline setup --dev` through the CLI:
#  - without --dev it refuses and writes nothing; --help warns about the
#    known toxic waste; the run itself warns on stderr;
#  - on small vectors (chain10; noB, whose B points are mostly infinity),
#    `snarkjs groth16 prove` with our key and the vector's witness gives a
#    proof that `snarkjs groth16 verify` (with the key from `proofline vkey`)
#    and `proofline verify` accept, and so does our own prover's proof.
# Needs tests/vectors/node_modules for snarkjs; exits 77 (skip) without it.
set -euo pipefail
: "${PROOFLINE:?} ${VECTORS:?} ${TMPROOT:?}"
work=$(mktemp -d "$TMPROOT/setup.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Refusals and help need no snarkjs.
rc=0; "$PROOFLINE" setup "$VECTORS/multiplier/circuit.r1cs" "$work/x.zkey" 2>"$work/err" || rc=$?
[ "$rc" = 2 ] || fail "setup without --dev exited $rc, wanted 2"
grep -q -- "--dev" "$work/err" || fail "setup without --dev does not mention --dev: $(cat "$work/err")"
[ ! -e "$work/x.zkey" ] || fail "setup without --dev wrote a file"
"$PROOFLINE" setup --help | grep -qi "toxic waste is known" || fail "--help does not warn about the toxic waste"
rc=0; "$PROOFLINE" setup --dev "$VECTORS/multiplier/circuit.r1cs" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "setup with one file exited $rc, wanted 2"
rc=0; "$PROOFLINE" setup --dev "$work/none.r1cs" "$work/y.zkey" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "setup of a missing r1cs exited $rc, wanted 2"
[ -z "$(ls "$work")" ] || [ "$(ls "$work")" = err ] || fail "a failed setup left files: $(ls "$work")"

snarkjs="$VECTORS/node_modules/.bin/snarkjs"
if [ ! -x "$snarkjs" ]; then
    [ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
    echo "SKIP: $snarkjs missing (run make npm-deps)"; exit 77
fi
snarkjs_accepts() { "$snarkjs" groth16 verify "$@" >"$work/sj.log" 2>&1 && grep -q "OK" "$work/sj.log"; }

for name in chain10 noB; do
    dir="$VECTORS/$name" out="$work/$name"; mkdir -p "$out"
    "$PROOFLINE" setup --dev --seed "cli-test-$name" --threads 2 "$dir/circuit.r1cs" "$out/k.zkey" 2>"$out/setup.err" \
        || { fail "$name: setup: $(cat "$out/setup.err")"; continue; }
    grep -q "toxic waste is known" "$out/setup.err" || fail "$name: setup printed no warning"
    "$PROOFLINE" vkey "$out/k.zkey" "$out/vk.json" || { fail "$name: vkey"; continue; }

    "$snarkjs" groth16 prove "$out/k.zkey" "$dir/witness.wtns" "$out/sj_proof.json" "$out/sj_public.json" >"$work/sj.log" 2>&1 \
        || { fail "$name: snarkjs cannot prove with our key: $(cat "$work/sj.log")"; continue; }
    snarkjs_accepts "$out/vk.json" "$out/sj_public.json" "$out/sj_proof.json" \
        || fail "$name: snarkjs rejects its proof with our key: $(cat "$work/sj.log")"
    "$PROOFLINE" verify "$out/vk.json" "$out/sj_public.json" "$out/sj_proof.json" >/dev/null 2>&1 \
        || fail "$name: we reject snarkjs's proof with our key"

    "$PROOFLINE" prove "$out/k.zkey" "$dir/witness.wtns" "$out/proof.json" "$out/public.json" --verify \
        || { fail "$name: our prover with our key"; continue; }
    snarkjs_accepts "$out/vk.json" "$out/public.json" "$out/proof.json" \
        || fail "$name: snarkjs rejects our proof with our key: $(cat "$work/sj.log")"
    # A key of another seed must not accept it.
    "$PROOFLINE" setup --dev --seed "other" "$dir/circuit.r1cs" "$out/other.zkey" 2>/dev/null
    "$PROOFLINE" vkey "$out/other.zkey" "$out/other_vk.json"
    rc=0; "$PROOFLINE" verify "$out/other_vk.json" "$out/public.json" "$out/proof.json" >/dev/null 2>&1 || rc=$?
    [ "$rc" = 1 ] || fail "$name: a key of another seed gave $rc, wanted 1 (invalid)"
    echo "ok $name"
done

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "setup: all checks pass"
