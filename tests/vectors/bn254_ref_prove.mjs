// SPDX-License-Identifier: Apache-2.0
// Two references for a BN254 Groth16 proof with r = s = 0, for
// tests/test_bn254_prover.c (zero_blinding_equals_js_references):
//
//   node bn254_ref_prove.mjs circuit.zkey witness.wtns noble.json snarkjs.json
//
// noble.json: computed here from the zkey's sections and the witness with
// BigInt arithmetic and @noble/curves' bn254 groups, nothing of snarkjs's
// or proofline's:
//   A = alpha_1 + sum_i w_i A_i,  B = beta_2 + sum_i w_i B2_i,
//   C = sum_{i > nPublic} w_i C_i + sum_j h_j H_j,
// with a_k, b_k = the A and B matrices (section 4) times w at the domain's
// points, c_k = a_k b_k, and h_j = a(x_j) b(x_j) - c(x_j) at the odd
// points x_j = g omega^j (g a primitive 2n-th root: snarkjs's H points are
// Lagrange points of that coset, over Z), from the interpolants by NTTs.
// The roots are ffjavascript's: nqr the least non-residue, w[s] = nqr^t
// for r - 1 = 2^s t, w[k] = w[k+1]^2.
//
// snarkjs.json: snarkjs's own `groth16 prove` (the pinned 0.7.6) with its
// random source for r and s replaced by zero (curve.Fr.random), so that
// its whole code path runs unblinded.
//
// Both are written as snarkjs's proof.json; the C test compares them with
// proofline's r = s = 0 proof point for point.
import fs from 'node:fs';
import { bn254 } from '@noble/curves/bn254.js';
// snarkjs's sources (its package exports only its bundle): the prover and
// the curve cache it takes its curve from
import groth16Prove from './node_modules/snarkjs/src/groth16_prove.js';
import { getCurveFromName } from './node_modules/snarkjs/src/curves.js';

const [zkeyPath, wtnsPath, nobleOut, snarkjsOut] = process.argv.slice(2);

// ---- the files ---------------------------------------------------------
function container(file, magic) {
    const b = fs.readFileSync(file);
    if (b.toString('latin1', 0, 4) !== magic) throw new Error(`${file}: not ${magic}`);
    const n = b.readUInt32LE(8), sec = {};
    let o = 12;
    for (let i = 0; i < n; i++) {
        const id = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
        o += 12;
        sec[id] = b.subarray(o, o + size);
        o += size;
    }
    return sec;
}
const le = (b, o, n) => { let x = 0n; for (let i = n - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[o + i]); return x; };
const mod = (a, m) => ((a % m) + m) % m;
function pow(b, e, m) { let r = 1n; b = mod(b, m); for (; e > 0n; e >>= 1n, b = b * b % m) if (e & 1n) r = r * b % m; return r; }
const inv = (a, m) => pow(a, m - 2n, m);

const z = container(zkeyPath, 'zkey');
const h = z[2];
const n8q = h.readUInt32LE(0), q = le(h, 4, n8q);
const n8r = h.readUInt32LE(4 + n8q), r = le(h, 8 + n8q, n8r);
if (q !== bn254.fields.Fp.ORDER || r !== bn254.fields.Fr.ORDER) throw new Error('not a bn128 zkey');
let o = 8 + n8q + n8r;
const nVars = h.readUInt32LE(o), nPublic = h.readUInt32LE(o + 4), n = h.readUInt32LE(o + 8);
o += 12;
const Rq = inv((1n << BigInt(8 * n8q)) % q, q); // Montgomery: x = v R^-1
const fq = (b, at) => le(b, at, n8q) * Rq % q;
const g1 = (b, at) => {
    if (b.subarray(at, at + 2 * n8q).every((x) => x === 0)) return bn254.G1.Point.ZERO;
    return bn254.G1.Point.fromAffine({ x: fq(b, at), y: fq(b, at + n8q) });
};
const Fp2 = bn254.fields.Fp2;
const g2 = (b, at) => {
    if (b.subarray(at, at + 4 * n8q).every((x) => x === 0)) return bn254.G2.Point.ZERO;
    const c = (k) => fq(b, at + k * n8q);
    return bn254.G2.Point.fromAffine({ x: Fp2.create({ c0: c(0), c1: c(1) }),
                                       y: Fp2.create({ c0: c(2), c1: c(3) }) });
};
const alpha1 = g1(h, o), beta2 = g2(h, o + 4 * n8q);

const w = (() => {
    const t = container(wtnsPath, 'wtns');
    const m = t[1].readUInt32LE(0), count = t[1].readUInt32LE(4 + m);
    if (le(t[1], 4, m) !== r || count !== nVars) throw new Error('witness of another circuit');
    return Array.from({ length: count }, (_, i) => le(t[2], i * m, m));
})();

// ---- the polynomials -----------------------------------------------------
const R2inv = inv(pow(2n, 512n, r), r); // a coefficient's bytes: coef R^2
const ev = [new Array(n).fill(0n), new Array(n).fill(0n)];
const coefs = z[4], nCoef = coefs.readUInt32LE(0);
for (let i = 0; i < nCoef; i++) {
    const at = 4 + i * (12 + n8r);
    const m = coefs.readUInt32LE(at), k = coefs.readUInt32LE(at + 4), s = coefs.readUInt32LE(at + 8);
    const v = le(coefs, at + 12, n8r) * R2inv % r;
    ev[m][k] = (ev[m][k] + v * w[s]) % r;
}
const ea = ev[0], eb = ev[1], ec = ea.map((a, k) => a * eb[k] % r);

// ffjavascript's roots
let s2 = 0n, t = r - 1n;
while ((t & 1n) === 0n) { s2++; t >>= 1n; }
let nqr = 2n;
while (pow(nqr, (r - 1n) / 2n, r) !== r - 1n) nqr++;
const root = (k) => pow(pow(nqr, t, r), 1n << (s2 - BigInt(k)), r); // w[k]
const log2n = Math.log2(n);
function ntt(a, wn) { // in place, natural order, a[k] -> sum_j a[j] wn^(jk)
    const N = a.length;
    for (let i = 1, j = 0; i < N; i++) {
        let bit = N >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) [a[i], a[j]] = [a[j], a[i]];
    }
    for (let len = 2; len <= N; len <<= 1) {
        const wl = pow(wn, BigInt(N / len), r);
        for (let i = 0; i < N; i += len) {
            let x = 1n;
            for (let j = 0; j < len / 2; j++) {
                const u = a[i + j], v = a[i + j + len / 2] * x % r;
                a[i + j] = (u + v) % r;
                a[i + j + len / 2] = (u - v + r) % r;
                x = x * wl % r;
            }
        }
    }
    return a;
}
const omega = root(log2n), g = root(log2n + 1), nInv = inv(BigInt(n), r);
const onCoset = (e) => { // evaluations on the domain -> on g omega^j
    const c = ntt(e.slice(), inv(omega, r)).map((x) => x * nInv % r);
    let gi = 1n;
    for (let i = 0; i < n; i++) { c[i] = c[i] * gi % r; gi = gi * g % r; }
    return ntt(c, omega);
};
const [ca, cb, cc] = [ea, eb, ec].map(onCoset);
const hs = ca.map((a, j) => mod(a * cb[j] - cc[j], r));

// ---- the sums ------------------------------------------------------------
const sum = (pts, scalars) => pts.reduce((acc, p, i) =>
    scalars[i] === 0n || p.equals(p.constructor.ZERO) ? acc : acc.add(p.multiply(scalars[i])), pts[0].constructor.ZERO);
const points = (sec, count, size, read) => Array.from({ length: count }, (_, i) => read(sec, i * size));
const A = alpha1.add(sum(points(z[5], nVars, 2 * n8q, g1), w));
const B = beta2.add(sum(points(z[7], nVars, 4 * n8q, g2), w));
const C = sum(points(z[8], nVars - nPublic - 1, 2 * n8q, g1), w.slice(nPublic + 1))
    .add(sum(points(z[9], n, 2 * n8q, g1), hs));
const j1 = (p) => { const a = p.toAffine(); return [`${a.x}`, `${a.y}`, '1']; };
const j2 = (p) => { const a = p.toAffine(); return [[`${a.x.c0}`, `${a.x.c1}`], [`${a.y.c0}`, `${a.y.c1}`], ['1', '0']]; };
fs.writeFileSync(nobleOut, JSON.stringify({ pi_a: j1(A), pi_b: j2(B), pi_c: j1(C),
                                            protocol: 'groth16', curve: 'bn128' }, null, 1));

// ---- snarkjs's own path, unblinded ----------------------------------------
const curve = await getCurveFromName('bn128'); // the instance prove uses
curve.Fr.random = () => curve.Fr.zero;
const { proof } = await groth16Prove(zkeyPath, wtnsPath);
fs.writeFileSync(snarkjsOut, JSON.stringify(proof, null, 1));
await curve.terminate();
