#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `batch` proves its witnesses as independent jobs (issue 13, point 5): a
# bad witness fails alone, named with the reason on stderr, with a status
# per witness in the report and the exit code of the worst failure (2 for
# bad input, 1 for a proof that does not verify); the good ones before and
# after it are proved and written, nothing is written for the bad one.
# Output paths are checked before proving starts.  Before, one bad witness
# failed the whole batch with exit 3, skipped the good ones after it, the
# report had no per-witness status, and a --report in a missing folder
# was found only after all the proving.
. "$(dirname "$0")/lib.sh"
m="$VECTORS/multiplier"
ln -s "$m/witness.wtns" "$work/good1.wtns"
ln -s "$m/witness.wtns" "$work/good2.wtns"
: >"$work/empty.wtns"
ln -s "$VECTORS/chain10/witness.wtns" "$work/long.wtns" # another circuit's
ln -s "$VECTORS/bad/unsat.wtns" "$work/unsat.wtns"

# check_report <report> <file:status:exit_code>...: the witnesses, in order
check_report() {
    local report=$1; shift
    node -e '
      const fs = require("fs"), path = require("path");
      const [report, ...want] = process.argv.slice(1);
      const got = JSON.parse(fs.readFileSync(report)).witnesses.map(w =>
        path.basename(w.file) + ":" + w.status + ":" + w.exit_code + (w.status === "proved" ? "" : w.message ? "" : ":no message"));
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        console.error("got " + got.join(" ") + ", wanted " + want.join(" ")); process.exit(1); }' \
        "$report" "$@" 2>"$work/node.log" || fail "report $(basename "$report"): $(cat "$work/node.log")"
}
# proved <out> <name>...: each has a proof pair that verifies
proved() {
    local out=$1; shift
    for n in "$@"; do
        "$PROOFLINE" verify "$m/verification_key.json" "$out/$n.public.json" "$out/$n.proof.json" \
            >/dev/null 2>&1 || fail "$n: no proof, or one that does not verify, in $out"
    done
}

# bad input among good witnesses: the bad ones fail alone, exit 2
expect_exit 2 "$PROOFLINE" batch --zkey "$m/circuit.zkey" --out "$work/out" --pw 1 --quiet \
    --report "$work/r.json" "$work/good1.wtns" "$work/empty.wtns" "$work/long.wtns" "$work/good2.wtns"
proved "$work/out" good1 good2
ls "$work/out" | grep -q 'empty\|long' && fail "files written for a failed witness: $(ls "$work/out")"
grep -q "batch: $work/empty.wtns: failed: malformed input: .*empty.wtns" "$work/log" ||
    fail "the empty witness is not named with its reason: $(cat "$work/log")"
grep -q "batch: $work/long.wtns: failed: " "$work/log" || fail "the long witness is not named: $(cat "$work/log")"
grep -q "2 of 4 witnesses failed" "$work/log" || fail "no count of the failures: $(cat "$work/log")"
check_report "$work/r.json" good1.wtns:proved:0 empty.wtns:failed:2 long.wtns:failed:2 good2.wtns:proved:0

# a witness that can never fit the budget is refused when it is submitted,
# and fails alone too: the budget holds the circuit and one partition of
# the good witnesses, and the other circuit's witness is larger
"$PROOFLINE" batch --zkey "$m/circuit.zkey" --out "$work/plan" --print-plan "$work/good1.wtns" \
    >"$work/plan.txt" 2>/dev/null || fail "--print-plan: exit $?"
eval "$(cat "$work/plan.txt")"
expect_exit 2 "$PROOFLINE" batch --zkey "$m/circuit.zkey" --out "$work/fit" --pw 1 --quiet \
    --budget $((resident_bytes + partition_bytes)) --report "$work/fit.json" \
    "$work/good1.wtns" "$work/long.wtns" "$work/good2.wtns"
proved "$work/fit" good1 good2
grep -q "batch: $work/long.wtns: failed: does not fit the memory budget" "$work/log" ||
    fail "a witness too large for the budget: $(cat "$work/log")"
check_report "$work/fit.json" good1.wtns:proved:0 long.wtns:failed:2 good2.wtns:proved:0

# --verify: a proof that does not verify is an invalid proof (exit 1), alone
expect_exit 1 "$PROOFLINE" batch --zkey "$m/circuit.zkey" --out "$work/v" --pw 2 --quiet --verify \
    --report "$work/v.json" "$work/unsat.wtns" "$work/good1.wtns"
proved "$work/v" good1
[ -e "$work/v/unsat.proof.json" ] && fail "a proof that does not verify was written"
grep -q "unsat.wtns: failed: proof is invalid: .*does not verify" "$work/log" || fail "unsat: $(cat "$work/log")"
check_report "$work/v.json" unsat.wtns:failed:1 good1.wtns:proved:0
# the worst exit code wins: bad input (2) over an invalid proof (1)
expect_exit 2 "$PROOFLINE" batch --zkey "$m/circuit.zkey" --out "$work/w" --quiet --verify \
    "$work/unsat.wtns" "$work/empty.wtns" "$work/good1.wtns"
proved "$work/w" good1

# outputs checked before proving: nothing is proved
for bad in "--report $work/no/such/dir/r.json" "--trace $work/good1.wtns" "--plot $work/out"; do
    rm -rf "$work/early"
    # shellcheck disable=SC2086
    expect_exit 2 "$PROOFLINE" batch --zkey "$m/circuit.zkey" --out "$work/early" --quiet $bad \
        "$work/good1.wtns" "$work/good2.wtns"
    [ -z "$(ls -A "$work/early" 2>/dev/null)" ] || fail "$bad: proofs were written: $(ls "$work/early")"
    grep -q "ledger\|proved" "$work/log" && fail "$bad: proving ran: $(cat "$work/log")"
done
grep -q "is a folder" "$work/log" || fail "--plot a folder: $(cat "$work/log")"

finish "batch jobs: ok"
