#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline circuit`: the demo circuit as snarkjs files.
#  - info prints the chosen shape; bad targets are usage errors;
#  - export of a ~2^12 partition: snarkjs reads the r1cs (r1cs info) and
#    checks the witnesses (wtns check); `proofline setup --dev`, then
#    `proofline prove` of one partition, and both `snarkjs groth16 verify`
#    and `proofline verify` accept the proof;
#  - a partition whose Merkle path is broken (a sibling bit flipped in its
#    inputs, hidden flag --x-corrupt-sibling) is an unsatisfied constraint
#    for pl_witness_check (prove --check-witness) and for snarkjs.
# Without tests/vectors/node_modules the snarkjs steps are skipped (77 if
# nothing else ran).
. "$(dirname "$0")/lib.sh"

"$PROOFLINE" circuit info --constraints 2^16 >"$work/info" || fail "circuit info exit $?"
grep -q '^rounds=64$' "$work/info" && grep -q '^domain=65536$' "$work/info" \
    || fail "info at 2^16: $(cat "$work/info")"
expect_exit 2 "$PROOFLINE" circuit info --constraints 2^99
expect_exit 2 "$PROOFLINE" circuit info --constraints 100
grep -q "cannot hold" "$work/log" || fail "100 constraints: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" circuit export --constraints 2^12

d="$work/c"
"$PROOFLINE" circuit export --constraints 2^12 --partitions 3 --x-corrupt-sibling 2 --out "$d" \
    >"$work/export" 2>&1 || { fail "export: $(cat "$work/export")"; }
for f in circuit.r1cs p0.wtns p1.wtns p2.wtns; do [ -f "$d/$f" ] || fail "export wrote no $f"; done
"$PROOFLINE" setup --dev --threads 2 "$d/circuit.r1cs" "$d/circuit.zkey" 2>/dev/null || fail "setup --dev"
"$PROOFLINE" vkey "$d/circuit.zkey" "$d/vk.json" || fail "vkey"
"$PROOFLINE" prove "$d/circuit.zkey" "$d/p1.wtns" "$d/proof.json" "$d/public.json" --check-witness --verify \
    || fail "prove p1"
"$PROOFLINE" verify "$d/vk.json" "$d/public.json" "$d/proof.json" >/dev/null || fail "we reject our proof"
[ "$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' "$d/public.json")" = 2 ] \
    || fail "public.json does not hold the root and one index: $(cat "$d/public.json")"

expect_exit 2 "$PROOFLINE" prove "$d/circuit.zkey" "$d/p2.wtns" "$d/bad.json" "$d/badpub.json" --check-witness
grep -q "constraint [0-9]* is not satisfied" "$work/log" || fail "the broken path: $(cat "$work/log")"
[ -e "$d/bad.json" ] && fail "a proof was written for the broken path"

if have_snarkjs; then
    "$snarkjs" r1cs info "$d/circuit.r1cs" >"$work/sj" 2>&1 && grep -q "# of Constraints" "$work/sj" \
        || fail "snarkjs r1cs info: $(cat "$work/sj")"
    "$snarkjs" wtns check "$d/circuit.r1cs" "$d/p0.wtns" >"$work/sj" 2>&1 && grep -qi "WITNESS IS CORRECT" "$work/sj" \
        || fail "snarkjs wtns check p0: $(cat "$work/sj")"
    rc=0; "$snarkjs" wtns check "$d/circuit.r1cs" "$d/p2.wtns" >"$work/sj" 2>&1 || rc=$?
    grep -qi "WITNESS IS CORRECT" "$work/sj" && fail "snarkjs accepts the broken path's witness"
    "$snarkjs" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" >"$work/sj" 2>&1 && grep -q OK "$work/sj" \
        || fail "snarkjs rejects the proof: $(cat "$work/sj")"
else
    echo "note: $snarkjs missing: snarkjs checks skipped"
fi

finish "circuit: ok"
