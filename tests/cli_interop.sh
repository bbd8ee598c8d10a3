#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Interop with snarkjs through the CLI, on every committed vector:
#  - our proof verifies with `snarkjs groth16 verify` and with ours;
#  - snarkjs's proof verifies with ours;
#  - our `vkey` output has the same values as snarkjs's export;
#  - a changed public input, swapped proof points and a proof of another
#    circuit are rejected by both verifiers.
# Needs tests/vectors/node_modules (make test runs npm ci); exits 77 (skip)
# without it.
. "$(dirname "$0")/lib.sh"
require_snarkjs

ours_accepts() { "$PROOFLINE" verify "$@" >"$work/pl.log" 2>&1; }
ours_rejects() { local rc=0; "$PROOFLINE" verify "$@" >"$work/pl.log" 2>&1 || rc=$?; [ "$rc" = 1 ]; }

same_json_values() { # canonical comparison of two JSON files
    node -e '
      const fs = require("fs");
      const canon = v => Array.isArray(v) ? v.map(canon) :
        (v && typeof v === "object") ? Object.keys(v).sort().reduce((o, k) => (o[k] = canon(v[k]), o), {}) : String(v);
      const a = canon(JSON.parse(fs.readFileSync(process.argv[1])));
      const b = canon(JSON.parse(fs.readFileSync(process.argv[2])));
      process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1);' "$1" "$2"
}

for dir in "$VECTORS"/*/; do
    name=$(basename "$dir")
    [ -f "$dir/circuit.zkey" ] && [ -f "$dir/witness.wtns" ] || continue
    [ "$name" = bad ] && continue
    out="$work/$name"; mkdir -p "$out"
    vk="$dir/verification_key.json"

    "$PROOFLINE" prove "$dir/circuit.zkey" "$dir/witness.wtns" "$out/proof.json" "$out/public.json" --verify \
        || { fail "$name: prove"; continue; }
    snarkjs_accepts "$vk" "$out/public.json" "$out/proof.json" || fail "$name: snarkjs rejects our proof: $(cat "$work/sj.log")"
    ours_accepts "$vk" "$out/public.json" "$out/proof.json" ||
        fail "$name: we reject our proof ($(cat "$work/pl.log"))" "$(cat "$out/proof.json")"
    same_json_values "$out/public.json" "$dir/public.json" || fail "$name: public.json differs from snarkjs's"
    ours_accepts "$vk" "$dir/public.json" "$dir/proof_snarkjs.json" ||
        fail "$name: we reject snarkjs's proof ($(cat "$work/pl.log"))"

    "$PROOFLINE" vkey "$dir/circuit.zkey" "$out/vk.json" || fail "$name: vkey"
    same_json_values "$out/vk.json" "$vk" || fail "$name: our vkey differs from snarkjs's"

    # Tampering: a public input changed (if any), A and C swapped.
    node -e '
      const fs = require("fs"); const [src, dst, pub, pubOut] = process.argv.slice(1);
      const p = JSON.parse(fs.readFileSync(src)); [p.pi_a, p.pi_c] = [p.pi_c, p.pi_a];
      fs.writeFileSync(dst, JSON.stringify(p));
      const s = JSON.parse(fs.readFileSync(pub));
      if (s.length) { /* another value, still < r */
        const v = BigInt(s[0]); s[0] = (v === 0n ? 1n : v - 1n).toString();
        fs.writeFileSync(pubOut, JSON.stringify(s));
      }' \
        "$out/proof.json" "$out/swapped.json" "$out/public.json" "$out/public_bad.json"
    ours_rejects "$vk" "$out/public.json" "$out/swapped.json" || fail "$name: we accept a swapped proof"
    snarkjs_accepts "$vk" "$out/public.json" "$out/swapped.json" && fail "$name: snarkjs accepts a swapped proof"
    if [ -f "$out/public_bad.json" ]; then
        ours_rejects "$vk" "$out/public_bad.json" "$out/proof.json" || fail "$name: we accept a changed public input"
        snarkjs_accepts "$vk" "$out/public_bad.json" "$out/proof.json" && fail "$name: snarkjs accepts a changed public input"
    fi
    echo "ok $name"
done

# A proof of one circuit against another circuit's key (same public count).
a="$VECTORS/multiplier" b="$VECTORS/pow2exact"
if [ "$(node -e 'console.log(require(process.argv[1]).nPublic)' "$a/verification_key.json")" = \
     "$(node -e 'console.log(require(process.argv[1]).nPublic)' "$b/verification_key.json")" ]; then
    ours_rejects "$b/verification_key.json" "$work/multiplier/public.json" "$work/multiplier/proof.json" \
        || fail "we accept a proof of another circuit"
    snarkjs_accepts "$b/verification_key.json" "$work/multiplier/public.json" "$work/multiplier/proof.json" \
        && fail "snarkjs accepts a proof of another circuit"
else
    ours_rejects "$b/verification_key.json" "$b/public.json" "$work/multiplier/proof.json" \
        || fail "we accept a proof of another circuit"
fi

finish "interop: all vectors pass"
