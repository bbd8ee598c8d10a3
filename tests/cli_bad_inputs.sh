#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bad inputs through the CLI: each must print one message naming the file,
# exit 2, and leave no output file behind (not even a temporary one).
#   truncation at every section boundary and inside the headers, a wrong
#   magic, a BN254 zkey, a PLONK zkey, a witness of the wrong length, a
#   section size that disagrees with its count, an unsatisfied witness
#   with --check-witness.
set -euo pipefail
: "${PROOFLINE:?} ${VECTORS:?} ${TMPROOT:?}"
work=$(mktemp -d "$TMPROOT/bad.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
zkey="$VECTORS/multiplier/circuit.zkey"
wtns="$VECTORS/multiplier/witness.wtns"

# expect_refused <label> <file named in the message> <prove args...>
expect_refused() {
    local label=$1 named=$2; shift 2
    rm -f "$work"/out.*
    local rc=0
    "$PROOFLINE" prove "$@" "$work/out.proof.json" "$work/out.public.json" >"$work/log" 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "$label: exit $rc, wanted 2 ($(cat "$work/log"))"
    grep -qF "$(basename "$named")" "$work/log" || fail "$label: message does not name $named: $(cat "$work/log")"
    ls "$work"/out.* >/dev/null 2>&1 && fail "$label: left an output file: $(ls "$work"/out.*)"
    return 0
}

# Section boundaries of a snarkjs container file: prints header-end offsets.
boundaries() {
    node -e '
      const b = require("fs").readFileSync(process.argv[1]);
      const cuts = new Set([0, 2, 4, 6, 8, 10, 12]);
      let off = 12; const n = b.readUInt32LE(8);
      for (let i = 0; i < n && off + 12 <= b.length; i++) {
        cuts.add(off); cuts.add(off + 4); cuts.add(off + 12);
        const size = Number(b.readBigUInt64LE(off + 4));
        cuts.add(off + 12 + Math.floor(size / 2)); off += 12 + size;
      }
      cuts.delete(b.length);
      console.log([...cuts].filter(c => c < b.length).join(" "));' "$1"
}
truncate_to() { head -c "$2" "$1" >"$3"; }

for cut in $(boundaries "$zkey"); do
    truncate_to "$zkey" "$cut" "$work/t.zkey"
    expect_refused "zkey cut at $cut" t.zkey "$work/t.zkey" "$wtns"
done
for cut in $(boundaries "$wtns"); do
    truncate_to "$wtns" "$cut" "$work/t.wtns"
    expect_refused "wtns cut at $cut" t.wtns "$zkey" "$work/t.wtns"
done

node -e 'const fs=require("fs"); const b=fs.readFileSync(process.argv[1]); b.write("zkez",0); fs.writeFileSync(process.argv[2], b)' "$zkey" "$work/magic.zkey"
expect_refused "wrong magic" magic.zkey "$work/magic.zkey" "$wtns"
node -e 'const fs=require("fs"); const b=fs.readFileSync(process.argv[1]); b.writeUInt32LE(7,4); fs.writeFileSync(process.argv[2], b)' "$zkey" "$work/version.zkey"
expect_refused "wrong version" version.zkey "$work/version.zkey" "$wtns"
expect_refused "BN254 zkey" bn254.zkey "$VECTORS/bad/bn254.zkey" "$wtns"
grep -qi "bn254\|bn128" "$work/log" || fail "BN254 zkey: message does not say BN254: $(cat "$work/log")"
expect_refused "PLONK zkey" plonk.zkey "$VECTORS/bad/plonk.zkey" "$wtns"
grep -qi "plonk" "$work/log" || fail "PLONK zkey: message does not say PLONK: $(cat "$work/log")"
expect_refused "witness of the wrong length" witness.wtns "$VECTORS/chain10/circuit.zkey" "$wtns"

# nVars in the Groth header (section 2) off by one: the A section no longer
# matches its count.
node -e '
  const fs=require("fs"); const b=fs.readFileSync(process.argv[1]);
  let off=12; for (let i=0;i<b.readUInt32LE(8);i++){ const id=b.readUInt32LE(off), size=Number(b.readBigUInt64LE(off+4));
    if (id===2){ const p=off+12+4+48+4+32; b.writeUInt32LE(b.readUInt32LE(p)+1,p); } off+=12+size; }
  fs.writeFileSync(process.argv[2], b)' "$zkey" "$work/count.zkey"
expect_refused "section size vs count" count.zkey "$work/count.zkey" "$wtns"

expect_refused "unsatisfied witness" unsat.wtns "$zkey" "$VECTORS/bad/unsat.wtns" \
    --check-witness --r1cs "$VECTORS/multiplier/circuit.r1cs"
grep -q "constraint" "$work/log" || fail "unsat: message does not name the constraint: $(cat "$work/log")"

# verify: bad input is 2, invalid is 1
rc=0; "$PROOFLINE" verify "$work/none.json" "$VECTORS/multiplier/public.json" "$VECTORS/multiplier/proof_snarkjs.json" >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "verify with a missing key: exit $rc, wanted 2"
rc=0; "$PROOFLINE" prove --bogus >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "unknown option: exit $rc, wanted 2"

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "bad inputs: all refused cleanly"
