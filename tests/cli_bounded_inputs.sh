#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Inputs are bounded and checked before they are read (issue 13, point 7):
#  - a 50 MB public.json for a key of one input is refused by its size,
#    unread (it can hold 1 KiB + 256 bytes an input), in little memory:
#    before, verify read and parsed it, 1.42 GB at its peak;
#  - /dev/zero as an input is refused at once (before: 4 GiB read first);
#  - a FIFO as an input is refused at once (before: open() hung waiting
#    for a writer), for verify's JSON and prove's zkey and witness alike;
#    and for every reader the CLI exposes (issue 26: `convert` hung on a
#    FIFO, peeking at its first byte): zkey, wtns, r1cs, bellperson's
#    .params, .vk, proofs and inputs, proof.json, public.json, the
#    verification key's JSON, plan's costs file, each in every command
#    that reads it.
. "$(dirname "$0")/lib.sh"
m="$VECTORS/multiplier"
vk="$m/verification_key.json" prf="$m/proof_snarkjs.json" pub="$m/public.json"

# expect_refused_fast <text in the message> <args...>: exit 2 within 10 s
expect_refused_fast() {
    local text=$1 rc=0; shift
    timeout 10 "$PROOFLINE" "$@" >"$work/stdout" 2>"$work/log" || rc=$?
    [ "$rc" = 2 ] || fail "$*: exit $rc, wanted 2 (124: it hung) ($(cat "$work/log"))"
    grep -qF -- "$text" "$work/log" || fail "$*: message lacks \"$text\": $(cat "$work/log")"
}

node -e '
  const fs = require("fs"), fd = fs.openSync(process.argv[1], "w");
  const chunk = Buffer.from("\"1\",".repeat(250000));
  fs.writeSync(fd, "["); for (let i = 0; i < 50; i++) fs.writeSync(fd, chunk);
  fs.writeSync(fd, "\"1\"]"); fs.closeSync(fd);' "$work/big.json"
rc=0
/usr/bin/time -f "%M" -o "$work/kib" timeout 10 "$PROOFLINE" verify "$vk" "$work/big.json" "$prf" \
    >/dev/null 2>"$work/log" || rc=$?
[ "$rc" = 2 ] || fail "50 MB public.json: exit $rc, wanted 2 ($(cat "$work/log"))"
grep -q "big.json: 500000[0-9][0-9] bytes, more than the 1280 bytes it can hold" "$work/log" ||
    fail "50 MB public.json: $(cat "$work/log")"
[ "$(tail -1 "$work/kib")" -lt 65536 ] || fail "50 MB public.json: peak RSS $(tail -1 "$work/kib") KiB"

expect_refused_fast "/dev/zero: not a regular file" verify "$vk" /dev/zero "$prf"
expect_refused_fast "/dev/zero: not a regular file" verify /dev/zero "$pub" "$prf"
mkfifo "$work/fifo"
expect_refused_fast "fifo: not a regular file" verify "$work/fifo" "$pub" "$prf"
expect_refused_fast "fifo: not a regular file" verify "$vk" "$pub" "$work/fifo"
expect_refused_fast "fifo: not a regular file" prove "$work/fifo" "$m/witness.wtns" "$work/p.json" "$work/q.json"
expect_refused_fast "fifo: not a regular file" prove "$m/circuit.zkey" "$work/fifo" "$work/p.json" "$work/q.json"
expect_refused_fast "fifo: not a regular file" inspect "$work/fifo"
# every reader, in every command that reads it
z="$m/circuit.zkey" w="$m/witness.wtns" r="$m/circuit.r1cs"
"$PROOFLINE" setup --dev --format bellperson "$r" "$work/c.params" "$work/c.vk" 2>/dev/null ||
    fail "setup --format bellperson"
"$PROOFLINE" convert "$prf" "$work/b.proofs" || fail "convert proof.json"
"$PROOFLINE" convert "$pub" "$work/b.inputs" || fail "convert public.json"
f="$work/fifo" o="$work/out" dir="$work/outdir" costs="$VECTORS/../../docs/costs/cpu-2core-measured.costs"
for args in "vkey $f $o" "vkey --format bellperson $f $o" "inspect --check-params $f" \
    "batch --zkey $f --out $dir $w" "plan --zkey $f --costs $costs" \
    "batch --zkey $z --out $dir $f" "c2 --params $work/c.params --r1cs $r --proofs $o $f" \
    "plan --zkey $z --witness $f --costs $costs" \
    "setup --dev $f $o" "setup --dev --format bellperson $f $o $o.vk" \
    "c2 --params $work/c.params --r1cs $f --proofs $o $w" \
    "prove --check-witness --r1cs $f $z $w $o $o.pub" "plan --r1cs $f --costs $costs" \
    "c2 --params $f --r1cs $r --proofs $o $w" "verify --format bellperson $f $work/b.inputs $work/b.proofs" \
    "verify --format bellperson --check-params $work/c.params $work/b.inputs $f" \
    "verify --format bellperson $work/c.vk $f $work/b.proofs" "convert $f $o" \
    "convert $prf $f $o" "convert $pub $f $o" "verify $vk $f $prf" \
    "plan --constraints 2^10 --costs $f"; do
    # shellcheck disable=SC2086
    expect_refused_fast "fifo: not a regular file" $args
done
[ -e "$o" ] && fail "a refused command wrote $o"

# the bound is the key's: manypublic's 43 inputs fit, padded as they are
expect_exit 0 "$PROOFLINE" verify "$VECTORS/manypublic/verification_key.json" \
    "$VECTORS/manypublic/public.json" "$VECTORS/manypublic/proof_snarkjs.json"

finish "bounded inputs: ok"
