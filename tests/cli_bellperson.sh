#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bellperson's files through the CLI (docs/filecoin.md):
#  - `setup --dev --format bellperson` writes a .params and a .vk that
#    `inspect` recognises (and --check-params accepts); a failed setup
#    leaves neither;
#  - a zkey's key exported with `vkey --format bellperson`, the zkey path's
#    proofs and public inputs converted to bytes (`convert`): `verify
#    --format bellperson` accepts the batch, rejects a tampered proof (exit
#    1, naming the proof) and a wrong public input; 192 bytes convert back
#    to the same proof.json; a proof.json point off its curve or at
#    infinity is refused (exit 1), not encoded;
#  - `c2` proves the three small circuits (multiplier; noB, inputs never in
#    B; nopublic, no input besides ONE) through the SupraSeal-C2-shaped API
#    against `setup --dev --format bellperson`'s files: `verify --format
#    bellperson` accepts them, and so does an independent verifier
#    (tests/bp_verify.mjs: @noble/curves, from the bytes alone), which
#    rejects a tampered proof and a wrong public input;
#  - `demo --format bellperson` proves the demo circuit through the same API
#    (witnesses from the circuit, no zkey), and both verifiers accept;
#  - bad input names the file and the section: a truncated .params, a count
#    larger than the file, inputs of the wrong count.
# Needs the binary and the committed vectors; the @noble/curves check runs
# when tests/vectors/node_modules has it (make npm-deps), else says so.
. "$(dirname "$0")/lib.sh"

m="$VECTORS/multiplier"

# setup and inspect
"$PROOFLINE" setup --dev --format bellperson --threads 2 "$m/circuit.r1cs" \
    "$work/m.params" "$work/m.vk" 2>"$work/setup.err" || fail "setup: $(cat "$work/setup.err")"
grep -q "toxic waste is known" "$work/setup.err" || fail "setup printed no warning"
"$PROOFLINE" inspect --check-params "$work/m.params" >"$work/i.txt" || fail "inspect .params"
grep -q "^format: bellperson-params" "$work/i.txt" || fail "inspect: $(cat "$work/i.txt")"
grep -q "^points: checked" "$work/i.txt" || fail "inspect --check-params: $(cat "$work/i.txt")"
"$PROOFLINE" inspect "$work/m.vk" | grep -q "^format: bellperson-vk" || fail "inspect .vk"
expect_exit 2 "$PROOFLINE" setup --dev --format bellperson "$m/circuit.r1cs" "$work/only.params"
expect_exit 2 "$PROOFLINE" setup --dev --format bellperson "$work/none.r1cs" "$work/n.params" "$work/n.vk"
[ ! -e "$work/n.params" ] && [ ! -e "$work/n.vk" ] || fail "a failed setup left a file"

# the zkey path's proofs, verified in bellperson's bytes
"$PROOFLINE" prove "$m/circuit.zkey" "$m/witness.wtns" "$work/p.json" "$work/pub.json" 2>/dev/null ||
    fail "prove"
"$PROOFLINE" vkey --format bellperson "$m/circuit.zkey" "$work/z.vk" || fail "vkey --format bellperson"
"$PROOFLINE" convert "$work/p.json" "$m/proof_ref.json" "$work/two.proofs" || fail "convert proofs"
"$PROOFLINE" convert "$work/pub.json" "$m/public.json" "$work/two.inputs" || fail "convert inputs"
[ "$(stat -c %s "$work/two.proofs")" = 384 ] || fail "two proofs are not 384 bytes"
"$PROOFLINE" inspect "$work/two.proofs" | grep -q "^proofs: 2" || fail "inspect proofs"
expect_exit 0 "$PROOFLINE" verify --format bellperson "$work/z.vk" "$work/two.inputs" "$work/two.proofs"
grep -qx OK "$work/stdout" || fail "verify printed $(cat "$work/stdout")"
"$PROOFLINE" convert --index 1 "$work/two.proofs" "$work/back.json" || fail "convert back"
"$PROOFLINE" convert "$work/back.json" "$work/one.proofs" || fail "convert again"
cmp -s "$work/one.proofs" <(tail -c 192 "$work/two.proofs") || fail "192 bytes do not round-trip"
expect_exit 2 "$PROOFLINE" convert "$work/two.proofs" "$work/x.json"   # two proofs, no --index
# a proof.json point off its curve (pi_a's y + 1) or at infinity (pi_c) is
# refused, not encoded (its compressed x would come back as another point)
node -e '
  const fs = require("fs"), p = JSON.parse(fs.readFileSync(process.argv[1]));
  p.pi_a[1] = (BigInt(p.pi_a[1]) + 1n).toString();
  fs.writeFileSync(process.argv[2], JSON.stringify(p));
  const q = JSON.parse(fs.readFileSync(process.argv[1]));
  q.pi_c = ["0", "1", "0"];
  fs.writeFileSync(process.argv[3], JSON.stringify(q));' "$work/p.json" "$work/offcurve.json" "$work/inf.json"
expect_exit 1 "$PROOFLINE" convert "$work/offcurve.json" "$work/oc.proofs"
grep -q "proof 0: point A is not on the curve: not written" "$work/log" ||
    fail "convert of an off-curve point: $(cat "$work/log")"
expect_exit 1 "$PROOFLINE" convert "$work/p.json" "$work/inf.json" "$work/oc.proofs"
grep -q "proof 1: point C is the point at infinity" "$work/log" ||
    fail "convert of a point at infinity: $(cat "$work/log")"
[ -e "$work/oc.proofs" ] && fail "convert wrote a refused proof"
# tampered: the second proof's C replaced by its A (still a valid point)
cp "$work/two.proofs" "$work/bad.proofs"
dd if="$work/two.proofs" of="$work/bad.proofs" bs=1 skip=192 seek=336 count=48 conv=notrunc 2>/dev/null
expect_exit 1 "$PROOFLINE" verify --format bellperson "$work/z.vk" "$work/two.inputs" "$work/bad.proofs"
grep -q "proof 1" "$work/log" || fail "the invalid proof is not named: $(cat "$work/log")"
# a wrong public input: the first byte of the first input changed
cp "$work/two.inputs" "$work/bad.inputs"
printf '\x07' | dd of="$work/bad.inputs" bs=1 seek=0 conv=notrunc 2>/dev/null
expect_exit 1 "$PROOFLINE" verify --format bellperson "$work/z.vk" "$work/bad.inputs" "$work/two.proofs"
# inputs for one proof only
head -c 32 "$work/two.inputs" >"$work/short.inputs"
expect_exit 2 "$PROOFLINE" verify --format bellperson "$work/z.vk" "$work/short.inputs" "$work/two.proofs"
grep -q "short.inputs" "$work/log" || fail "wrong input count: $(cat "$work/log")"

# bad parameter files: truncated inside section h, a count past the end
size=$(stat -c %s "$work/m.params")
head -c 1100 "$work/m.params" >"$work/cut.params"
expect_exit 2 "$PROOFLINE" inspect "$work/cut.params"
grep -q "cut.params: .*bellperson file: section h" "$work/log" || fail "truncated: $(cat "$work/log")"
cp "$work/m.params" "$work/big.params"
printf '\x7f' | dd of="$work/big.params" bs=1 seek=1060 conv=notrunc 2>/dev/null  # h's count
expect_exit 2 "$PROOFLINE" verify --format bellperson "$work/big.params" "$work/two.inputs" "$work/two.proofs"
grep -q "big.params: section h: count" "$work/log" || fail "count past the end: $(cat "$work/log")"
[ "$size" -gt 1100 ] || fail "the parameter file is smaller than expected ($size)"

# proofs through the C API, checked by ours and by @noble/curves
noble=""
if command -v node >/dev/null && [ -d "$VECTORS/node_modules/@noble/curves" ]; then
    noble=1
else
    echo "note: no @noble/curves in $VECTORS/node_modules: the independent check is skipped"
fi
bpv="$(dirname "$0")/bp_verify.mjs"
# the zkey path's proofs and key in bellperson's bytes, checked there too
if [ -n "$noble" ]; then
    node "$bpv" "$work/z.vk" "$work/two.inputs" "$work/two.proofs" >"$work/n.out" 2>&1 ||
        fail "@noble/curves rejects the zkey path's proofs: $(cat "$work/n.out")"
    rc=0; node "$bpv" "$work/z.vk" "$work/two.inputs" "$work/bad.proofs" >"$work/n.out" 2>&1 || rc=$?
    [ "$rc" = 1 ] || fail "@noble/curves accepts a tampered zkey-path proof (exit $rc)"
fi
for name in multiplier noB nopublic; do
    d="$VECTORS/$name" o="$work/$name"; mkdir -p "$o"
    "$PROOFLINE" setup --dev --format bellperson --threads 2 "$d/circuit.r1cs" \
        "$o/c.params" "$o/c.vk" 2>/dev/null || { fail "$name: setup"; continue; }
    "$PROOFLINE" c2 --threads 2 --check-params --params "$o/c.params" --r1cs "$d/circuit.r1cs" \
        --proofs "$o/c.proofs" --inputs "$o/c.inputs" "$d/witness.wtns" "$d/witness.wtns" \
        2>"$o/c2.err" || { fail "$name: c2: $(cat "$o/c2.err")"; continue; }
    expect_exit 0 "$PROOFLINE" verify --format bellperson "$o/c.vk" "$o/c.inputs" "$o/c.proofs"
    [ -z "$noble" ] && continue
    node "$bpv" "$o/c.vk" "$o/c.inputs" "$o/c.proofs" >"$o/n.out" 2>&1 ||
        fail "$name: @noble/curves rejects our proofs: $(cat "$o/n.out")"
    # tampered: the second proof's A replaced by its C
    cp "$o/c.proofs" "$o/bad.proofs"
    dd if="$o/c.proofs" of="$o/bad.proofs" bs=1 skip=336 seek=192 count=48 conv=notrunc 2>/dev/null
    rc=0; node "$bpv" "$o/c.vk" "$o/c.inputs" "$o/bad.proofs" >"$o/n.out" 2>&1 || rc=$?
    [ "$rc" = 1 ] && [ "$(sed -n 2p "$o/n.out")" = INVALID ] ||
        fail "$name: @noble/curves accepts a tampered proof (exit $rc): $(cat "$o/n.out")"
    if [ "$(stat -c %s "$o/c.inputs")" -gt 0 ]; then
        cp "$o/c.inputs" "$o/bad.inputs"
        printf '\x07' | dd of="$o/bad.inputs" bs=1 seek=0 conv=notrunc 2>/dev/null
        rc=0; node "$bpv" "$o/c.vk" "$o/bad.inputs" "$o/c.proofs" >"$o/n.out" 2>&1 || rc=$?
        [ "$rc" = 1 ] && [ "$(sed -n 1p "$o/n.out")" = INVALID ] ||
            fail "$name: @noble/curves accepts a wrong input (exit $rc): $(cat "$o/n.out")"
    fi
done

# the demo circuit through the C2-shaped interface: a C2 job whose
# synthesis workers run the circuit in assignment mode (no zkey), every
# proof verified, by us and by @noble/curves
"$PROOFLINE" demo --format bellperson --partitions 2 --constraints 2^12 --threads 2 \
    --cache "$work/demo-cache" --out "$work/demo-out" >"$work/demo.log" 2>&1 ||
    fail "demo --format bellperson: $(tail -3 "$work/demo.log")"
grep -q "2 proved, 2 verified" "$work/demo.log" || fail "demo: $(grep demo "$work/demo.log")"
dvk=$(ls "$work"/demo-cache/*/circuit.vk 2>/dev/null | head -1)
if [ -n "$dvk" ]; then
    expect_exit 0 "$PROOFLINE" verify --format bellperson "$dvk" "$work/demo-out/inputs.bin" \
        "$work/demo-out/proofs.bin"
    if [ -n "$noble" ]; then
        node "$bpv" "$dvk" "$work/demo-out/inputs.bin" "$work/demo-out/proofs.bin" >"$work/n.out" 2>&1 ||
            fail "@noble/curves rejects the demo's proofs: $(cat "$work/n.out")"
    fi
else
    fail "demo --format bellperson left no circuit.vk in its cache"
fi

finish "bellperson: all checks pass"
