#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Bad inputs through the CLI: each must print one message naming the file,
# exit 2, and leave no output file behind (not even a temporary one).
#   truncation at every section boundary and inside the headers, a wrong
#   magic, a BN254 zkey, a PLONK zkey, a witness of the wrong length, a
#   section size that disagrees with its count, an unsatisfied witness
#   with --check-witness; zkey points off the curve or outside the subgroup
#   with --check-params; verify with each JSON file malformed, cut, for
#   another curve, with a point off the curve or an input >= r; inspect of
#   cut and damaged r1cs files; vkey from a bad zkey.
. "$(dirname "$0")/lib.sh"
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
expect_exit 2 "$PROOFLINE" verify "$work/none.json" "$VECTORS/multiplier/public.json" "$VECTORS/multiplier/proof_snarkjs.json"
expect_exit 2 "$PROOFLINE" prove --bogus

# ---- --check-params: zkey points checked before proving ------------------
# patch_zkey <in> <out> <section id> <byte offset in the payload> <hex bytes>
patch_zkey() {
    node -e '
      const fs=require("fs"); const b=fs.readFileSync(process.argv[1]);
      const id=+process.argv[3], at=+process.argv[4], hex=process.argv[5];
      let off=12; for (let i=0;i<b.readUInt32LE(8);i++){ const sid=b.readUInt32LE(off), size=Number(b.readBigUInt64LE(off+4));
        if (sid===id){ if (hex==="flip") b[off+12+at]^=1; else Buffer.from(hex,"hex").copy(b,off+12+at); } off+=12+size; }
      fs.writeFileSync(process.argv[2], b)' "$@"
}
# multiplier's A point 2 (wire a) is not infinity; flipping the low bit of
# its x (Montgomery form, still below q) takes it off the curve.
patch_zkey "$zkey" "$work/offcurve.zkey" 5 192 flip
expect_refused "A point off the curve (--check-params)" offcurve.zkey \
    "$work/offcurve.zkey" "$wtns" --check-params
grep -q "section 5 (A points): point 2 is not on the curve (at byte offset" "$work/log" ||
    fail "--check-params: message does not name the section, point and offset: $(cat "$work/log")"
# A point of E1 (y^2 = x^3 + 4) outside the order-r subgroup, as H point 0.
nonsub=f3ff0c00000027aa0a0034fc3200cc537f800a6b7ae98f47d724bae6be7ed3b12fab78bf3b73c98e7ede833d5145d6097e1426621d63ff7dfa944cb4c4ff555cdcccb2cec74a4c53d4e4cd0a1157abc0bd6848a00ccb7d3cc7723de9d4a51b16
patch_zkey "$zkey" "$work/subgroup.zkey" 9 0 "$nonsub"
expect_refused "H point outside G1 (--check-params)" subgroup.zkey \
    "$work/subgroup.zkey" "$wtns" --check-params
grep -q "section 9 (H points): point 0 is not in the G1 subgroup" "$work/log" ||
    fail "--check-params: subgroup message: $(cat "$work/log")"
patch_zkey "$zkey" "$work/alpha.zkey" 2 100 "$(printf '0%.0s' $(seq 1 192))"
expect_refused "alpha_1 at infinity (--check-params)" alpha.zkey \
    "$work/alpha.zkey" "$wtns" --check-params
grep -q "alpha_1 is the point at infinity" "$work/log" ||
    fail "--check-params: alpha message: $(cat "$work/log")"
# a good zkey passes the check and proves
expect_exit 0 "$PROOFLINE" prove "$zkey" "$wtns" "$work/ok.proof.json" "$work/ok.public.json" --check-params
rm -f "$work"/ok.*

# ---- verify: each JSON file bad in turn ------------------------------------
vk="$VECTORS/multiplier/verification_key.json"
pub="$VECTORS/multiplier/public.json"
prf="$VECTORS/multiplier/proof_snarkjs.json"
# expect_verify_refused <label> <file named> <text in the message> <vk> <public> <proof>
expect_verify_refused() {
    local label=$1 named=$2 field=$3; shift 3
    local rc=0
    "$PROOFLINE" verify "$@" >"$work/stdout" 2>"$work/log" || rc=$?
    [ "$rc" = 2 ] || fail "verify, $label: exit $rc, wanted 2 ($(cat "$work/log"))"
    grep -qF "$(basename "$named")" "$work/log" || fail "verify, $label: message does not name $named: $(cat "$work/log")"
    [ -z "$field" ] || grep -qF -- "$field" "$work/log" || fail "verify, $label: message lacks \"$field\": $(cat "$work/log")"
    [ ! -s "$work/stdout" ] || fail "verify, $label: printed a verdict: $(cat "$work/stdout")"
    return 0
}
# replace <in> <out> <from> <to>: the first occurrence, literally
replace() {
    node -e 'const fs=require("fs"); const t=fs.readFileSync(process.argv[1],"utf8");
      const i=t.indexOf(process.argv[3]); if (i<0) process.exit(3);
      fs.writeFileSync(process.argv[2], t.slice(0,i)+process.argv[4]+t.slice(i+process.argv[3].length))' "$@"
}
for f in vk pub prf; do
    src=${!f}
    : >"$work/empty.$f.json"
    head -c "$(( $(wc -c <"$src") / 2 ))" "$src" >"$work/cut.$f.json"
    printf 'not json' >"$work/text.$f.json"
    for bad in empty cut text; do
        args=("$vk" "$pub" "$prf")
        case $f in vk) args[0]="$work/$bad.$f.json" ;; pub) args[1]="$work/$bad.$f.json" ;; prf) args[2]="$work/$bad.$f.json" ;; esac
        expect_verify_refused "$bad $f" "$bad.$f.json" "" "${args[@]}"
    done
done
replace "$vk" "$work/curve.vk.json" '"bls12381"' '"bn128"'
expect_verify_refused "vkey for bn128" curve.vk.json bn128 "$work/curve.vk.json" "$pub" "$prf"
replace "$vk" "$work/npub.vk.json" '"nPublic": 1' '"nPublic": 2'
expect_verify_refused "vkey nPublic off by one" npub.vk.json "IC" "$work/npub.vk.json" "$pub" "$prf"
replace "$vk" "$work/npub0.vk.json" '"nPublic": 1' '"nPublic": 0'
expect_verify_refused "vkey nPublic 0" npub0.vk.json "IC" "$work/npub0.vk.json" "$pub" "$prf"
replace "$vk" "$work/npubmax.vk.json" '"nPublic": 1' '"nPublic": 4294967295'
expect_verify_refused "vkey nPublic 2^32-1" npubmax.vk.json "nPublic" "$work/npubmax.vk.json" "$pub" "$prf"
# vk_alpha_1's x with its last digit changed: off the curve
alpha_x=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).vk_alpha_1[0])' "$vk")
last=${alpha_x: -1}; alt=$(( (last + 1) % 10 ))
replace "$vk" "$work/offcurve.vk.json" "\"$alpha_x\"" "\"${alpha_x%?}$alt\""
expect_verify_refused "vkey point off the curve" offcurve.vk.json "vk_alpha_1" "$work/offcurve.vk.json" "$pub" "$prf"
printf '["52435875175126190479447740508185965837690552500527637822603658699938581184513"]' >"$work/r.pub.json"
expect_verify_refused "public input = r" r.pub.json "[0]" "$vk" "$work/r.pub.json" "$prf"
printf '["33", 7]' >"$work/num.pub.json"
expect_verify_refused "public input not a string" num.pub.json "[1]" "$vk" "$work/num.pub.json" "$prf"
printf '{"0": "33"}' >"$work/obj.pub.json"
expect_verify_refused "public.json an object" obj.pub.json "expected an array" "$vk" "$work/obj.pub.json" "$prf"
# two inputs for a one-input key: the count is named (the verifier sees
# values, not files, so the message names the public inputs, not the path)
printf '["33", "1"]' >"$work/two.pub.json"
expect_exit 2 "$PROOFLINE" verify "$vk" "$work/two.pub.json" "$prf"
grep -q "public inputs: 2 given" "$work/log" || fail "verify, input count: $(cat "$work/log")"
replace "$prf" "$work/curve.prf.json" '"bls12381"' '"bn128"'
expect_verify_refused "proof for bn128" curve.prf.json bn128 "$vk" "$pub" "$work/curve.prf.json"
replace "$prf" "$work/pia.prf.json" '"pi_a": [' '"pi_a": 7, "x": ['
expect_verify_refused "pi_a not a point" pia.prf.json "pi_a" "$vk" "$pub" "$work/pia.prf.json"
replace "$prf" "$work/dup.prf.json" '"pi_c"' '"pi_a": 1, "pi_c"'
expect_verify_refused "duplicate key" dup.prf.json "pi_a" "$vk" "$pub" "$work/dup.prf.json"

# ---- inspect: r1cs (and the other kinds) cut and damaged ------------------
r1cs="$VECTORS/multiplier/circuit.r1cs"
expect_inspect_refused() {
    local label=$1 named=$2 field=$3 file=$4
    local rc=0
    "$PROOFLINE" inspect "$file" >"$work/stdout" 2>"$work/log" || rc=$?
    [ "$rc" = 2 ] || fail "inspect, $label: exit $rc, wanted 2 ($(cat "$work/log"))"
    grep -qF "$named" "$work/log" || fail "inspect, $label: message does not name $named: $(cat "$work/log")"
    [ -z "$field" ] || grep -qF -- "$field" "$work/log" || fail "inspect, $label: message lacks \"$field\": $(cat "$work/log")"
    [ ! -s "$work/stdout" ] || fail "inspect, $label: printed facts of a bad file"
    return 0
}
for cut in $(boundaries "$r1cs"); do
    truncate_to "$r1cs" "$cut" "$work/t.r1cs"
    expect_inspect_refused "r1cs cut at $cut" t.r1cs "" "$work/t.r1cs"
done
# (zkey and wtns cuts go through the same readers as prove's, above)
for cut in 11 100 2000; do
    truncate_to "$zkey" "$cut" "$work/t.zkey"
    expect_inspect_refused "zkey cut at $cut" t.zkey "" "$work/t.zkey"
done
node -e 'const fs=require("fs"); const b=fs.readFileSync(process.argv[1]); b.write("r1cz",0); fs.writeFileSync(process.argv[2], b)' "$r1cs" "$work/magic.r1cs"
expect_inspect_refused "r1cs wrong magic" magic.r1cs "unknown magic" "$work/magic.r1cs"
node -e 'const fs=require("fs"); const b=fs.readFileSync(process.argv[1]); b.writeUInt32LE(2,4); fs.writeFileSync(process.argv[2], b)' "$r1cs" "$work/version.r1cs"
expect_inspect_refused "r1cs version 2" version.r1cs "version 2" "$work/version.r1cs"
# header counts (section 1 after n8 and the prime): nWires +36, nConstraints
# +60, each at 0, n - 1, n + 1 and 2^32 - 1 (one node run writes them all)
node -e '
  const fs=require("fs"); const b=fs.readFileSync(process.argv[1]);
  let off=12, s1=0; for (let i=0;i<b.readUInt32LE(8);i++){ const id=b.readUInt32LE(off), size=Number(b.readBigUInt64LE(off+4));
    if (id===1) s1=off+12; off+=12+size; }
  for (const [at, name] of [[36, "nWires"], [60, "nConstraints"]]) {
    const n=b.readUInt32LE(s1+at);
    for (const [k, v] of [[0, 0], [1, n-1], [2, n+1], [3, 4294967295]]) { const m=Buffer.from(b); m.writeUInt32LE(v, s1+at);
      fs.writeFileSync(process.argv[2]+"/count_"+name+"_"+k+"_"+v+".r1cs", m); } }' "$r1cs" "$work"
n=$(ls "$work"/count_*.r1cs | wc -l)
[ "$n" = 8 ] || fail "r1cs counts: wrote $n files, wanted 8"
for f in "$work"/count_*.r1cs; do
    expect_inspect_refused "r1cs $(basename "$f" .r1cs)" "$(basename "$f")" "" "$f"
done
# a prime of neither curve (BN254's r with its low byte changed; BN254
# files themselves are read: tests/cli_bn254.sh)
node -e 'const fs=require("fs"); const b=fs.readFileSync(process.argv[1]); b[28]^=2; fs.writeFileSync(process.argv[2], b)' \
    "$VECTORS/bad/bn254.wtns" "$work/prime.wtns"
expect_inspect_refused "foreign prime witness" prime.wtns "another curve" "$work/prime.wtns"

# ---- vkey: a bad zkey leaves no output ------------------------------------
for bad in "$work/magic.zkey" "$work/alpha.zkey"; do
    rm -f "$work"/out.*
    expect_exit 2 "$PROOFLINE" vkey "$bad" "$work/out.vkey.json"
    grep -qF "$(basename "$bad")" "$work/log" || fail "vkey $(basename "$bad"): message does not name the file"
    ls "$work"/out.* >/dev/null 2>&1 && fail "vkey $(basename "$bad"): left an output file: $(ls "$work"/out.*)"
done

finish "bad inputs: all refused cleanly"
