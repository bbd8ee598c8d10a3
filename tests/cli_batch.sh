#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline batch` end to end: proofs written per witness name and accepted
# by snarkjs and by us, a report that balances, a budget too small for one
# partition refused at admission, a failing witness failing alone (each
# witness is its own job: tests/cli_batch_jobs.sh).
. "$(dirname "$0")/lib.sh"
v="$VECTORS/chain10"
for i in 1 2 3 4; do ln -s "$v/witness.wtns" "$work/w$i.wtns"; done

"$PROOFLINE" batch --zkey "$v/circuit.zkey" --out "$work/out" --pw 2 --budget 64MiB \
    --verify --report "$work/report.json" --quiet "$work"/w*.wtns || fail "batch exit $?"
for i in 1 2 3 4; do
    [ -f "$work/out/w$i.proof.json" ] && [ -f "$work/out/w$i.public.json" ] || fail "w$i: no proof files"
    "$PROOFLINE" verify "$v/verification_key.json" "$work/out/w$i.public.json" "$work/out/w$i.proof.json" >/dev/null \
        || fail "w$i: we reject the proof"
done
if have_snarkjs; then
    "$snarkjs" groth16 verify "$v/verification_key.json" "$work/out/w1.public.json" "$work/out/w1.proof.json" \
        | grep -q OK || fail "snarkjs rejects a batch proof"
fi
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1]));
  const ok = r.proofs === 4 && r.verified === 4 && r.failed === 0 && r.memory.balanced === true &&
    r.memory.peak_reserved_bytes <= r.memory.budget_bytes && r.config.pw === 2 &&
    r.memory.budget_bytes === 64 * 1024 * 1024 && r.memory.classes.abc.allocs === 4 &&
    r.memory.classes.abc.live_bytes === 0 && typeof r.memory.stages.waiting.peak === "number";
  if (!ok) { console.error(JSON.stringify(r)); process.exit(1); }' "$work/report.json" || fail "report.json content"

expect_exit 2 "$PROOFLINE" batch --zkey "$v/circuit.zkey" --out "$work/small" --budget 100000 --quiet "$work/w1.wtns"
grep -q "budget" "$work/log" || fail "tiny budget: message does not name the budget: $(cat "$work/log")"

m="$VECTORS/multiplier"
ln -s "$m/witness.wtns" "$work/good.wtns"
expect_exit 2 "$PROOFLINE" batch --zkey "$m/circuit.zkey" --r1cs "$m/circuit.r1cs" --check-witness --out "$work/unsat" \
    --pw 1 --quiet "$VECTORS/bad/unsat.wtns" "$work/good.wtns"
grep -q "constraint" "$work/log" || fail "unsat: message does not name the constraint: $(cat "$work/log")"
[ -e "$work/unsat/unsat.proof.json" ] && fail "unsat: a proof was written for the failing witness"
[ -f "$work/unsat/good.proof.json" ] || fail "unsat: the good witness beside it was not proved"

expect_exit 2 "$PROOFLINE" batch --zkey "$v/circuit.zkey" --out "$work/dup" --quiet "$work/w1.wtns" "$work/w1.wtns"

finish "batch: ok"
