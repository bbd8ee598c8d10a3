#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a person sees (issue 13, point 9), each of which was missing before:
#  - the rapidsnark drop-in as its users call it: `proofline <zkey> <wtns>
#    <proof> <public>` with no subcommand, and the build's link `prover`
#    (rapidsnark's exit codes: cli_prover.sh);
#  - `prove` writes --report, --trace and --plot as `batch` does;
#  - a budget larger than this process can use (RAM, or the container's
#    limit) is warned about.
. "$(dirname "$0")/lib.sh"
m="$VECTORS/multiplier"
z="$m/circuit.zkey" w="$m/witness.wtns" vk="$m/verification_key.json"

expect_exit 0 "$PROOFLINE" "$z" "$w" "$work/a.proof.json" "$work/a.public.json"
expect_exit 0 "$PROOFLINE" verify "$vk" "$work/a.public.json" "$work/a.proof.json"
prover="$(dirname "$PROOFLINE")/prover"
[ -L "$prover" ] || fail "the build has no link $prover"
expect_exit 0 "$prover" "$z" "$w" "$work/b.proof.json" "$work/b.public.json"
expect_exit 0 "$PROOFLINE" verify "$vk" "$work/b.public.json" "$work/b.proof.json"
# the link is rapidsnark's command line, its exit codes too (tests/cli_prover.sh)
expect_exit 1 "$prover" "$z" "$w" "$work/c.proof.json"
grep -q "Invalid number of parameters" "$work/log" || fail "prover with 3 files: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" porve "$z"
grep -q "unknown command 'porve'" "$work/log" || fail "a mistyped command: $(cat "$work/log")"

expect_exit 0 "$PROOFLINE" prove "$z" "$w" "$work/d.proof.json" "$work/d.public.json" \
    --report "$work/report.json" --trace "$work/trace.json" --plot "$work/memory.svg"
node -e '
  const fs = require("fs");
  const r = JSON.parse(fs.readFileSync(process.argv[1]));
  const t = JSON.parse(fs.readFileSync(process.argv[2]));
  const ok = r.proofs === 1 && r.memory.balanced === true && r.witnesses.length === 1 &&
    r.witnesses[0].status === "proved" && t.traceEvents.some(e => e.name === "proving") &&
    fs.readFileSync(process.argv[3], "utf8").includes("<svg");
  if (!ok) { console.error(JSON.stringify(r.witnesses)); process.exit(1); }' \
    "$work/report.json" "$work/trace.json" "$work/memory.svg" || fail "prove's figures"

expect_exit 0 "$PROOFLINE" batch --zkey "$z" --out "$work/plan" --print-plan --budget 1000TiB "$w"
grep -q "warning: the budget 1000.0TiB is more than the .* this process can use" "$work/log" ||
    fail "no warning for a budget beyond the machine: $(cat "$work/log")"
expect_exit 0 "$PROOFLINE" batch --zkey "$z" --out "$work/plan" --print-plan --budget 1MiB "$w"
grep -q "warning" "$work/log" && fail "a warning for a small budget: $(cat "$work/log")"

finish "drop-in: ok"
