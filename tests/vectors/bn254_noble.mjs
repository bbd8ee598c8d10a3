// SPDX-License-Identifier: Apache-2.0
// BN254 reference values from @noble/curves (pinned in package-lock.json),
// for tests/test_bn254_curve.c: for each decimal scalar k given as an
// argument, [k]G1 and [k]G2 in affine standard form; then the pairing of
// [a]G1 and [b]G2 for each pair of consecutive arguments (a, b).  Output:
// one line per value, "g1 k x y", "g2 k x.c0 x.c1 y.c0 y.c1",
// "gt a b" followed by the twelve Fp coefficients of GT in the order
// c0.c0.c0 c0.c0.c1 c0.c1.c0 ... c1.c2.c1.  noble's final exponentiation
// raises to a fixed multiple of (p^12 - 1) / r (the C test says which).
import { bn254 } from '@noble/curves/bn254.js';

const G1 = bn254.G1.Point.BASE, G2 = bn254.G2.Point.BASE;
const ks = process.argv.slice(2).map(BigInt);
const out = [];
for (const k of ks) {
    const a = G1.multiply(k).toAffine();
    out.push(`g1 ${k} ${a.x} ${a.y}`);
    const b = G2.multiply(k).toAffine();
    out.push(`g2 ${k} ${b.x.c0} ${b.x.c1} ${b.y.c0} ${b.y.c1}`);
}
for (let i = 0; i + 1 < ks.length; i += 2) {
    const gt = bn254.pairing(G1.multiply(ks[i]), G2.multiply(ks[i + 1]));
    const c = [];
    for (const f6 of [gt.c0, gt.c1])
        for (const f2 of [f6.c0, f6.c1, f6.c2]) c.push(f2.c0, f2.c1);
    out.push(`gt ${ks[i]} ${ks[i + 1]} ${c.join(' ')}`);
}
console.log(out.join('\n'));
