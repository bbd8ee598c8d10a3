#!/usr/bin/env node
// Small helpers for regen.sh (no dependencies; reads the iden3 binary containers directly).
//   node vectools.cjs info <circuit.r1cs> <circuit.zkey> [witness.wtns]
//       prints one JSON line: r1cs/zkey header figures, number of all-zero B1/B2 points,
//       and counts of the witness values 0, 1 and r-1.
//   node vectools.cjs corrupt-wtns <in.wtns> <out.wtns> <wire>
//       copies a witness, replacing wire <wire>'s value v by v+1 mod r (format stays valid).
"use strict";
const fs = require("fs");

function readContainer(file, magic) {
    const b = fs.readFileSync(file);
    if (b.toString("latin1", 0, 4) !== magic) throw new Error(`${file}: not a ${magic} file`);
    const version = b.readUInt32LE(4), nSections = b.readUInt32LE(8);
    const sections = {};
    let o = 12;
    for (let i = 0; i < nSections; i++) {
        const id = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
        o += 12;
        (sections[id] = sections[id] || []).push({ start: o, size });
        o += size;
    }
    if (o !== b.length) throw new Error(`${file}: trailing bytes`);
    return { b, version, sections, sec: (id) => { const s = sections[id][0]; return b.subarray(s.start, s.start + s.size); } };
}
const leBig = (b, o, n) => { let x = 0n; for (let i = n - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[o + i]); return x; };
const isZero = (b) => b.every((x) => x === 0);

function r1csInfo(file) {
    const { sec } = readContainer(file, "r1cs");
    const h = sec(1);
    const n8 = h.readUInt32LE(0);
    let o = 4 + n8;
    const nWires = h.readUInt32LE(o), nPubOut = h.readUInt32LE(o + 4), nPubIn = h.readUInt32LE(o + 8),
        nPrvIn = h.readUInt32LE(o + 12), nLabels = Number(h.readBigUInt64LE(o + 16)), nConstraints = h.readUInt32LE(o + 24);
    return { prime: leBig(h, 4, n8), nWires, nPubOut, nPubIn, nPrvIn, nLabels, nConstraints };
}

function zkeyInfo(file) {
    const { sec } = readContainer(file, "zkey");
    const protocol = sec(1).readUInt32LE(0);
    if (protocol !== 1) return { protocol };
    const h = sec(2);
    const n8q = h.readUInt32LE(0), n8r = h.readUInt32LE(4 + n8q);
    let o = 8 + n8q + n8r;
    const nVars = h.readUInt32LE(o), nPublic = h.readUInt32LE(o + 4), domainSize = h.readUInt32LE(o + 8);
    const count = (id, sz) => { const s = sec(id); const z = []; for (let i = 0; i < s.length / sz; i++) if (isZero(s.subarray(i * sz, (i + 1) * sz))) z.push(i); return z; };
    const zA = count(5, 2 * n8q), zB1 = count(6, 2 * n8q), zB2 = count(7, 4 * n8q);
    return { protocol, nVars, nPublic, domainSize, nCoef: sec(4).readUInt32LE(0), zeroA: zA, zeroB1: zB1, zeroB2: zB2 };
}

function wtnsValues(file) {
    const { sec } = readContainer(file, "wtns");
    const h = sec(1);
    const n8 = h.readUInt32LE(0), r = leBig(h, 4, n8), n = h.readUInt32LE(4 + n8);
    const d = sec(2);
    const v = []; for (let i = 0; i < n; i++) v.push(leBig(d, i * n8, n8));
    return { r, v };
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "info") {
    const r = r1csInfo(args[0]), z = zkeyInfo(args[1]);
    const out = {
        nConstraints: r.nConstraints, nWires: r.nWires, nPubOut: r.nPubOut, nPubIn: r.nPubIn, nPrvIn: r.nPrvIn,
        nVars: z.nVars, nPublic: z.nPublic, domainSize: z.domainSize, nCoef: z.nCoef,
        zeroB1: z.zeroB1.length, zeroB2: z.zeroB2.length, zeroB1Wires: z.zeroB1, zeroA: z.zeroA.length,
    };
    if (args[2]) {
        const { r: p, v } = wtnsValues(args[2]);
        out.nWitness = v.length;
        out.w0 = v.filter((x) => x === 0n).length;
        out.w1 = v.filter((x) => x === 1n).length;
        out.wRminus1 = v.filter((x) => x === p - 1n).length;
        out.wFull = v.filter((x) => x >= 1n << 200n).length; // "full-size" values
    }
    console.log(JSON.stringify(out));
} else if (cmd === "corrupt-wtns") {
    const [inF, outF, wireS] = args, wire = Number(wireS);
    const c = readContainer(inF, "wtns");
    const h = c.sec(1), n8 = h.readUInt32LE(0), r = leBig(h, 4, n8), n = h.readUInt32LE(4 + n8);
    if (!(wire > 0 && wire < n)) throw new Error("bad wire index");
    const b = Buffer.from(c.b);
    const off = c.sections[2][0].start + wire * n8;
    let x = (leBig(b, off, n8) + 1n) % r;
    for (let i = 0; i < n8; i++) { b[off + i] = Number(x & 0xffn); x >>= 8n; }
    fs.writeFileSync(outF, b);
} else {
    console.error("usage: vectools.cjs info <r1cs> <zkey> [wtns] | corrupt-wtns <in> <out> <wire>");
    process.exit(2);
}
