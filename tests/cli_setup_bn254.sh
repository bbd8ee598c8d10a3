#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline setup --dev` on BN254 (circom --prime bn128 r1cs files of
# tests/vectors/bn254/): the key is the r1cs's curve's, and snarkjs takes it
# as a bn128 key:
#   - inspect names the curve; `snarkjs zkey export verificationkey` reads
#     it and writes what `proofline vkey` writes, byte for byte;
#   - `snarkjs groth16 prove` with it gives a proof that `snarkjs groth16
#     verify` and `proofline verify` accept; our prover's proof too; a key
#     of another seed refuses the proof, and so does the key with a point
#     of the proof moved;
#   - snarkjs's own reader finds section 10's one contribution (deltaAfter
#     the key's delta_1, the TOXIC WASTE KNOWN name);
#   - the bytes do not depend on the thread count, and do on the seed;
#   - bellperson's layout (BLS12-381's) is refused for a bn128 r1cs.
. "$(dirname "$0")/lib.sh"

bn="$VECTORS/bn254"
expect_exit 2 "$PROOFLINE" setup --dev --format bellperson \
    "$bn/multiplier/circuit.r1cs" "$work/x.params" "$work/x.vk"
grep -q "bellperson's layout is BLS12-381's, but this r1cs is for curve bn128" \
    "$work/log" || fail "bellperson on bn128: $(cat "$work/log")"
[ -e "$work/x.params" ] && fail "a refused setup left x.params"

require_snarkjs
mark="TOXIC WASTE KNOWN"
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
    console.log('curve=' + curve.name + ' type=' + c.type +
                ' deltaAfter_is_delta1=' +
                curve.G1.eq(c.deltaAfter, zkey.vk_delta_1) + ' name=' + c.name);
await fd.close();
process.exit(0);
" "$1"
}

for v in multiplier chain10 noB manypublic; do
    d="$bn/$v" o="$work/$v"; mkdir -p "$o"
    expect_exit 0 "$PROOFLINE" setup --dev --seed "bn-$v" --threads 2 \
        "$d/circuit.r1cs" "$o/k.zkey"
    [ -s "$o/k.zkey" ] || { fail "$v: no key"; continue; }
    expect_exit 0 "$PROOFLINE" inspect "$o/k.zkey"
    grep -q "^curve: bn254 (bn128)$" "$work/stdout" || fail "$v: inspect: $(cat "$work/stdout")"
    "$snarkjs" zkey export verificationkey "$o/k.zkey" "$o/sj_vk.json" >"$work/sj.log" 2>&1 ||
        fail "$v: snarkjs zkey export verificationkey: $(cat "$work/sj.log")"
    grep -q '"curve": "bn128"' "$o/sj_vk.json" || fail "$v: snarkjs's vkey is not bn128"
    expect_exit 0 "$PROOFLINE" vkey "$o/k.zkey" "$o/vk.json"
    cmp -s "$o/vk.json" "$o/sj_vk.json" || fail "$v: proofline vkey differs from snarkjs's"

    sj_contributions "$o/k.zkey" >"$o/contrib.txt" 2>&1 ||
        fail "$v: snarkjs cannot read section 10: $(cat "$o/contrib.txt")"
    [ "$(grep -c '^curve=' "$o/contrib.txt")" = 1 ] &&
        grep -q "^curve=bn128 type=0 deltaAfter_is_delta1=true name=.*$mark" "$o/contrib.txt" ||
        fail "$v: section 10 reads: $(cat "$o/contrib.txt")"

    "$snarkjs" groth16 prove "$o/k.zkey" "$d/witness.wtns" "$o/sj_proof.json" \
        "$o/sj_public.json" >"$work/sj.log" 2>&1 ||
        { fail "$v: snarkjs cannot prove with our key: $(cat "$work/sj.log")"; continue; }
    snarkjs_accepts "$o/vk.json" "$o/sj_public.json" "$o/sj_proof.json" ||
        fail "$v: snarkjs rejects its proof with our key"
    expect_exit 0 "$PROOFLINE" verify "$o/vk.json" "$o/sj_public.json" "$o/sj_proof.json"

    expect_exit 0 "$PROOFLINE" prove "$o/k.zkey" "$d/witness.wtns" \
        "$o/proof.json" "$o/public.json"
    snarkjs_accepts "$o/vk.json" "$o/public.json" "$o/proof.json" ||
        fail "$v: snarkjs rejects our proof with our key"
    expect_exit 0 "$PROOFLINE" verify "$o/vk.json" "$o/public.json" "$o/proof.json"
    cmp -s "$o/public.json" "$d/public.json" || fail "$v: public.json differs"
    # a point moved: refused by both
    node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));
p.pi_a[0]=(BigInt(p.pi_a[0])+1n).toString();process.stdout.write(JSON.stringify(p,null,1));' \
        "$o/proof.json" >"$o/moved.json"
    expect_exit 1 "$PROOFLINE" verify "$o/vk.json" "$o/public.json" "$o/moved.json"
    if [ "$v" = multiplier ]; then
        snarkjs_accepts "$o/vk.json" "$o/public.json" "$o/moved.json" &&
            fail "$v: snarkjs accepts a moved point"
        # the bytes: the same on one thread, another seed another key
        expect_exit 0 "$PROOFLINE" setup --dev --seed "bn-$v" --threads 1 \
            "$d/circuit.r1cs" "$o/k1.zkey"
        cmp -s "$o/k.zkey" "$o/k1.zkey" || fail "$v: the thread count changes the key"
        expect_exit 0 "$PROOFLINE" setup --dev --seed other "$d/circuit.r1cs" "$o/other.zkey"
        cmp -s "$o/k.zkey" "$o/other.zkey" && fail "$v: another seed, the same key"
        expect_exit 0 "$PROOFLINE" vkey "$o/other.zkey" "$o/other_vk.json"
        expect_exit 1 "$PROOFLINE" verify "$o/other_vk.json" "$o/public.json" "$o/proof.json"
        snarkjs_accepts "$o/other_vk.json" "$o/public.json" "$o/proof.json" &&
            fail "$v: snarkjs accepts the proof under another seed's key"
    fi
done

finish "setup bn254: ok"
