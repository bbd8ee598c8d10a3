#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's table of exit codes, a case or more for each row (issue 13,
# point 6):
#   0  success;
#   1  an invalid proof: `verify` of a changed input, and `prove` or
#      `batch` whose proof does not verify (an unsatisfied witness, a
#      damaged key; verified by default, --no-verify turns it off): these
#      exited 3, "internal error", before, and wrote the proof unless
#      --verify was given;
#   2  bad usage or bad input;
#   3  internal error, out of memory: a key that cannot be mapped for lack
#      of address space (ulimit -v; vkey and inspect map it) exited 2,
#      "input/output error", before;
#   130, 143  SIGINT, SIGTERM: tests/cli_signals.sh.
. "$(dirname "$0")/lib.sh"
m="$VECTORS/multiplier"
z="$m/circuit.zkey" w="$m/witness.wtns"
vk="$m/verification_key.json"

# row 0
expect_exit 0 "$PROOFLINE" prove "$z" "$w" "$work/p.json" "$work/q.json" --verify
expect_exit 0 "$PROOFLINE" verify "$vk" "$work/q.json" "$work/p.json"

# row 1
printf '["34"]' >"$work/changed.json"
expect_exit 1 "$PROOFLINE" verify "$vk" "$work/changed.json" "$work/p.json"
expect_exit 1 "$PROOFLINE" prove "$z" "$VECTORS/bad/unsat.wtns" "$work/u.json" "$work/uq.json" --verify
grep -q "proof is invalid: .*unsat.wtns: the proof does not verify" "$work/log" || fail "unsat: $(cat "$work/log")"
[ -e "$work/u.json" ] && fail "a proof that does not verify was written"
# a damaged key: the low bit of wire 2's A point flipped (off the curve)
node -e '
  const fs = require("fs"); const b = fs.readFileSync(process.argv[1]);
  let off = 12; for (let i = 0; i < b.readUInt32LE(8); i++) { const id = b.readUInt32LE(off), size = Number(b.readBigUInt64LE(off + 4));
    if (id === 5) b[off + 12 + 192] ^= 1; off += 12 + size; }
  fs.writeFileSync(process.argv[2], b)' "$z" "$work/damaged.zkey"
expect_exit 1 "$PROOFLINE" prove "$work/damaged.zkey" "$w" "$work/d.json" "$work/dq.json" --verify
expect_exit 1 "$PROOFLINE" batch --zkey "$z" --out "$work/b" --quiet --verify "$VECTORS/bad/unsat.wtns"
# verification is the default: the same without --verify
expect_exit 1 "$PROOFLINE" prove "$z" "$VECTORS/bad/unsat.wtns" "$work/u.json" "$work/uq.json"
[ -e "$work/u.json" ] && fail "by default, a proof that does not verify was written"
expect_exit 1 "$PROOFLINE" batch --zkey "$z" --out "$work/b2" --quiet "$VECTORS/bad/unsat.wtns"
# and --no-verify turns it off, and says so: the invalid proof is
# written, exit 0 (a run that verifies says nothing of it)
grep -q -- "--no-verify" "$work/log" && fail "batch mentions --no-verify unasked"
expect_exit 0 "$PROOFLINE" prove "$z" "$VECTORS/bad/unsat.wtns" "$work/n.json" "$work/nq.json" --no-verify
grep -q "prove: --no-verify: proofs are written without being verified" "$work/log" ||
    fail "prove --no-verify does not say so: $(cat "$work/log")"
expect_exit 1 "$PROOFLINE" verify "$vk" "$work/nq.json" "$work/n.json"
expect_exit 0 "$PROOFLINE" batch --zkey "$z" --out "$work/b3" --quiet --no-verify "$w"
grep -q "batch: --no-verify: proofs are written without being verified" "$work/log" ||
    fail "batch --no-verify does not say so: $(cat "$work/log")"

# row 2
expect_exit 2 "$PROOFLINE" prove --bogus
expect_exit 2 "$PROOFLINE" prove "$z" "$work/missing.wtns" "$work/p2.json" "$work/q2.json"
expect_exit 2 "$PROOFLINE" prove "$z" "$VECTORS/bad/unsat.wtns" "$work/p2.json" "$work/q2.json" \
    --check-witness --r1cs "$m/circuit.r1cs"
expect_exit 2 "$PROOFLINE" verify "$vk" "$work/missing.json" "$work/p.json"
expect_exit 2 "$PROOFLINE" batch --zkey "$z" --out "$work/tiny" --budget 1000 --quiet "$w"

# row 3: a zkey of 64 GiB (sparse) cannot be mapped in 8 GiB of address
# space.  Sanitizer builds reserve terabytes of address space at start, so
# the row is only run where proofline starts under the limit.
truncate -s 64G "$work/huge.zkey"
if (ulimit -v 8388608 && "$PROOFLINE" --version) >/dev/null 2>&1; then
    # vkey and inspect map the key (prove reads it into the budget: there
    # a key larger than the budget is refused, exit 2, before any read)
    for cmd in "vkey $work/huge.zkey $work/h.vkey.json" "inspect $work/huge.zkey"; do
        rc=0
        # shellcheck disable=SC2086
        (ulimit -v 8388608 && exec "$PROOFLINE" $cmd) >/dev/null 2>"$work/log" || rc=$?
        [ "$rc" = 3 ] || fail "$cmd, a zkey that cannot be mapped: exit $rc, wanted 3 ($(cat "$work/log"))"
        grep -q "out of memory: .*huge.zkey: cannot map its 68719476736 bytes" "$work/log" ||
            fail "$cmd, mapping: $(cat "$work/log")"
    done
else
    echo "note: row 3 (address space) not run: proofline does not start under ulimit -v (a sanitizer build)"
fi

finish "exit codes: ok"
