#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline setup --dev` through the CLI:
#  - without --dev it refuses and writes nothing; --help warns about the
#    known toxic waste; the run itself warns on stderr;
#  - on small vectors (chain10; noB, whose B points are mostly infinity),
#    `snarkjs groth16 prove` with our key and the vector's witness gives a
#    proof that `snarkjs groth16 verify` (with the key from `proofline vkey`)
#    and `proofline verify` accept, and so does our own prover's proof;
#  - snarkjs reads the key's contribution section (section 10): its own
#    reader (zkey_utils.js readMPCParams) finds one contribution named
#    "... TOXIC WASTE KNOWN ...", whose deltaAfter is the key's delta_1;
#    `snarkjs zkey export verificationkey` and `zkey export json` accept the
#    key (neither reads section 10); `snarkjs zkey contribute` on top of it
#    keeps our record, and its key still proves and verifies.
# Needs tests/vectors/node_modules for snarkjs; exits 77 (skip) without it.
. "$(dirname "$0")/lib.sh"

# Refusals and help need no snarkjs.
expect_exit 2 "$PROOFLINE" setup "$VECTORS/multiplier/circuit.r1cs" "$work/x.zkey"
grep -q -- "--dev" "$work/log" || fail "setup without --dev does not mention --dev: $(cat "$work/log")"
[ ! -e "$work/x.zkey" ] || fail "setup without --dev wrote a file"
"$PROOFLINE" setup --help | grep -qi "toxic waste is known" || fail "--help does not warn about the toxic waste"
expect_exit 2 "$PROOFLINE" setup --dev "$VECTORS/multiplier/circuit.r1cs"
expect_exit 2 "$PROOFLINE" setup --dev "$work/none.r1cs" "$work/y.zkey"
# only expect_exit's own stdout and log
left=$(ls "$work" | grep -vx 'stdout\|log' || true)
[ -z "$left" ] || fail "a failed setup left files: $left"

require_snarkjs
mark="TOXIC WASTE KNOWN"
# One line per contribution in a zkey's section 10, read by snarkjs's own code.
sj_contributions() {
    node --input-type=module -e "
const zu = await import('$VECTORS/node_modules/snarkjs/src/zkey_utils.js');
const bfu = await import('$VECTORS/node_modules/@iden3/binfileutils/src/binfileutils.js');
const { getCurveFromQ } = await import('$VECTORS/node_modules/snarkjs/src/curves.js');
const { fd, sections } = await bfu.readBinFile(process.argv[1], 'zkey', 2);
const zkey = await zu.readHeader(fd, sections);
const curve = await getCurveFromQ(zkey.q);
const mpc = await zu.readMPCParams(fd, curve, sections);
for (const c of mpc.contributions)
    console.log('type=' + c.type + ' deltaAfter_is_delta1=' +
                curve.G1.eq(c.deltaAfter, zkey.vk_delta_1) + ' name=' + c.name);
await fd.close();
process.exit(0);
" "$1"
}

for name in chain10 noB; do
    dir="$VECTORS/$name" out="$work/$name"; mkdir -p "$out"
    "$PROOFLINE" setup --dev --seed "cli-test-$name" --threads 2 "$dir/circuit.r1cs" "$out/k.zkey" 2>"$out/setup.err" \
        || { fail "$name: setup: $(cat "$out/setup.err")"; continue; }
    grep -q "toxic waste is known" "$out/setup.err" || fail "$name: setup printed no warning"
    "$PROOFLINE" vkey "$out/k.zkey" "$out/vk.json" || { fail "$name: vkey"; continue; }

    # The contribution section, as snarkjs reads it.
    grep -qa "$mark" "$out/k.zkey" || fail "$name: the key does not contain '$mark'"
    sj_contributions "$out/k.zkey" >"$out/contrib.txt" 2>&1 || fail "$name: snarkjs cannot read section 10: $(cat "$out/contrib.txt")"
    [ "$(grep -c '^type=' "$out/contrib.txt")" = 1 ] || fail "$name: snarkjs reads not one contribution: $(cat "$out/contrib.txt")"
    grep -q "^type=0 deltaAfter_is_delta1=true name=.*$mark" "$out/contrib.txt" \
        || fail "$name: the contribution is not ours: $(cat "$out/contrib.txt")"
    "$snarkjs" zkey export verificationkey "$out/k.zkey" "$out/sj_vk.json" >"$work/sj.log" 2>&1 \
        || fail "$name: snarkjs zkey export verificationkey: $(cat "$work/sj.log")"
    "$snarkjs" zkey export json "$out/k.zkey" "$out/k.json" >"$work/sj.log" 2>&1 \
        || fail "$name: snarkjs zkey export json: $(cat "$work/sj.log")"
    "$snarkjs" zkey contribute "$out/k.zkey" "$out/k2.zkey" --name="cli-test" -e="cli-test entropy" >"$work/sj.log" 2>&1 \
        || fail "$name: snarkjs zkey contribute on our key: $(cat "$work/sj.log")"
    sj_contributions "$out/k2.zkey" >"$out/contrib2.txt" 2>&1
    { [ "$(grep -c '^type=' "$out/contrib2.txt")" = 2 ] && head -1 "$out/contrib2.txt" | grep -q "$mark" \
        && tail -1 "$out/contrib2.txt" | grep -q "name=cli-test$"; } \
        || fail "$name: after snarkjs contribute, section 10 reads: $(cat "$out/contrib2.txt")"
    "$snarkjs" zkey export verificationkey "$out/k2.zkey" "$out/vk2.json" >/dev/null 2>&1 \
        && "$snarkjs" groth16 prove "$out/k2.zkey" "$dir/witness.wtns" "$out/p2.json" "$out/pub2.json" >"$work/sj.log" 2>&1 \
        && snarkjs_accepts "$out/vk2.json" "$out/pub2.json" "$out/p2.json" \
        || fail "$name: the key snarkjs contributed to does not prove and verify: $(cat "$work/sj.log")"

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
    expect_exit 1 "$PROOFLINE" verify "$out/other_vk.json" "$out/public.json" "$out/proof.json"
    echo "ok $name"
done

finish "setup: all checks pass"
