// SPDX-License-Identifier: Apache-2.0
// An independent check of bellperson's bytes (tests/cli_bellperson.sh):
// decodes a .vk, a file of 192-byte proofs and a file of 32-byte
// little-endian public inputs from their bytes alone, with @noble/curves
// (not blst, not proofline), and runs the Groth16 pairing check
//     e(A, B) = e(alpha, beta) e(IC_0 + sum x_i IC_i, gamma) e(C, delta)
// for each proof.  Prints OK or INVALID per proof; exits 0 when every
// proof is valid, 1 when one is not, 2 on a file it cannot read.
//     node bp_verify.mjs <key.vk> <inputs.bin> <proofs.bin>
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// @noble/curves lives in tests/vectors/node_modules (pinned there)
const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, 'vectors', 'package.json'));
const { bls12_381: bls } = await import(require.resolve('@noble/curves/bls12-381.js'));
const { G1, G2 } = bls;
const Fp12 = bls.fields.Fp12;

const [vkPath, inPath, proofsPath] = process.argv.slice(2);
const vk = readFileSync(vkPath), inputs = readFileSync(inPath), proofs = readFileSync(proofsPath);

// the .vk: alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 (uncompressed),
// u32 big-endian count, that many G1 (uncompressed)
let at = 0;
const g1u = () => { const p = G1.Point.fromBytes(vk.subarray(at, at + 96)); at += 96; return p; };
const g2u = () => { const p = G2.Point.fromBytes(vk.subarray(at, at + 192)); at += 192; return p; };
const alpha = g1u(); g1u(); const beta = g2u(); const gamma = g2u(); g1u(); const delta = g2u();
const nIc = vk.readUInt32BE(at); at += 4;
const ic = []; for (let i = 0; i < nIc; i++) ic.push(g1u());
if (at !== vk.length) { console.error(`${vkPath}: ${vk.length - at} bytes after the ic points`); process.exit(2); }

const nPub = nIc - 1;
if (proofs.length % 192 !== 0 || inputs.length !== (proofs.length / 192) * nPub * 32) {
    console.error('sizes do not fit: proofs', proofs.length, 'inputs', inputs.length, 'n_public', nPub);
    process.exit(2);
}
const leToBig = (b) => { let x = 0n; for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]); return x; };

let allOk = true;
for (let k = 0; k < proofs.length / 192; k++) {
    const p = proofs.subarray(k * 192, (k + 1) * 192);
    let ok;
    try {
        const A = G1.Point.fromBytes(p.subarray(0, 48));
        const B = G2.Point.fromBytes(p.subarray(48, 144));
        const C = G1.Point.fromBytes(p.subarray(144, 192));
        let vkx = ic[0];
        for (let i = 0; i < nPub; i++) {
            const x = leToBig(inputs.subarray((k * nPub + i) * 32, (k * nPub + i + 1) * 32));
            if (x !== 0n) vkx = vkx.add(ic[i + 1].multiply(x));
        }
        const lhs = bls.pairing(A, B);
        const rhs = Fp12.mul(Fp12.mul(bls.pairing(alpha, beta), bls.pairing(vkx, gamma)), bls.pairing(C, delta));
        ok = Fp12.eql(lhs, rhs);
    } catch (e) {
        ok = false; // a point that does not decode: not a valid proof
    }
    console.log(ok ? 'OK' : 'INVALID');
    allOk = allOk && ok;
}
process.exit(allOk ? 0 : 1);
