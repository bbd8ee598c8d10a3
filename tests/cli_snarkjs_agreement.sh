#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Agreement with snarkjs on proofs that only a key's trapdoor can make
# (docs/snarkjs.md): a proof with B at infinity and C chosen from a key
# whose secrets we picked (alpha = 5, beta = 7, gamma = delta = 1, the
# multiplier's IC) satisfies the pairing equation; snarkjs rejects it, and
# so must we (exit 1, naming pi_b).  Forged with snarkjs's own curve
# library (ffjavascript), so the encoding is snarkjs's.  Before the
# identity was refused, `proofline verify` printed OK for it.
. "$(dirname "$0")/lib.sh"
require_snarkjs

node - "$VECTORS" "$work" <<'JS'
const fs = require("fs");
const path = require("path");
const [vecdir, out] = process.argv.slice(2);
const ff = require(path.join(vecdir, "node_modules/ffjavascript"));
(async () => {
  const curve = await ff.buildBls12381(true);
  const { G1, G2 } = curve;
  const S = ff.utils.stringifyBigInts, U = ff.utils.unstringifyBigInts;
  const vk = JSON.parse(fs.readFileSync(path.join(vecdir, "multiplier/verification_key.json")));
  const pub = JSON.parse(fs.readFileSync(path.join(vecdir, "multiplier/public.json")));
  const obj1 = p => S(G1.toObject(G1.toAffine(p)));
  const obj2 = p => S(G2.toObject(G2.toAffine(p)));
  vk.vk_alpha_1 = obj1(G1.timesScalar(G1.g, 5));
  vk.vk_beta_2 = obj2(G2.timesScalar(G2.g, 7));
  vk.vk_gamma_2 = obj2(G2.g);
  vk.vk_delta_2 = obj2(G2.g);
  delete vk.vk_alphabeta_12;
  let vkx = G1.fromObject(U(vk.IC[0]));
  pub.forEach((s, i) => { vkx = G1.add(vkx, G1.timesScalar(G1.fromObject(U(vk.IC[i + 1])), BigInt(s))); });
  const c = G1.neg(G1.add(vkx, G1.timesScalar(G1.g, 35)));
  const proof = { pi_a: obj1(G1.timesScalar(G1.g, 3)), pi_b: obj2(G2.zero), pi_c: obj1(c),
                  protocol: "groth16", curve: "bls12381" };
  fs.writeFileSync(path.join(out, "vk.json"), JSON.stringify(vk, null, 1));
  fs.writeFileSync(path.join(out, "proof.json"), JSON.stringify(proof, null, 1));
  fs.writeFileSync(path.join(out, "public.json"), JSON.stringify(pub, null, 1));
  await curve.terminate();
})();
JS
snarkjs_accepts "$work/vk.json" "$work/public.json" "$work/proof.json" &&
    fail "snarkjs accepts the proof with B at infinity (the test's premise)"
expect_exit 1 "$PROOFLINE" verify "$work/vk.json" "$work/public.json" "$work/proof.json"
grep -q "^INVALID$" "$work/stdout" || fail "verify printed $(cat "$work/stdout")"
grep -q "B (pi_b) is the point at infinity" "$work/log" || fail "message: $(cat "$work/log")"

finish "snarkjs agreement: ok"
