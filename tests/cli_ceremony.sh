#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A whole trusted setup through `proofline ptau` and `proofline zkey`, with
# snarkjs (tests/vectors/node_modules) on both sides of every file:
#  - phase 1 at power 5 on BLS12-381: new, a contribution of ours, one of
#    snarkjs's on our file, one of ours on snarkjs's, a beacon, prepare;
#    `snarkjs powersoftau verify` and `proofline ptau verify` accept the
#    result;
#  - the deterministic steps write snarkjs's bytes: ptau new, ptau beacon,
#    ptau prepare (on the same input), zkey new (also of the demo circuit at
#    2^10, whose constant and public signals have hundreds of terms each),
#    zkey beacon;
#  - phase 2 (edgevalues, domain 16): zkey new, a contribution of ours, one
#    of snarkjs's, a beacon; `snarkjs zkey verify` and `proofline zkey
#    verify` accept it; the verification key equals snarkjs's export;
#    `proofline prove` with the final key gives a proof that `snarkjs
#    groth16 verify` accepts;
#  - verify refuses, with its reason, a tampered contribution, a swapped
#    section, a truncated file, a changed point of a key;
#  - the same ceremony on bn128 (phase 1 at power 5, phase 2 on the bn254
#    edgevalues circuit): snarkjs's bytes for the deterministic steps, both
#    verifiers, a proof by snarkjs with the key, a tampered contribution;
#  - usage: every subcommand's --help, bad arguments, an output over its
#    input (refused, the input unchanged).
# Needs snarkjs; exits 77 (skip) without it.
. "$(dirname "$0")/lib.sh"
P=$PROOFLINE
v="$VECTORS/edgevalues"
beacon=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

# usage needs no snarkjs
for sub in "ptau new" "ptau contribute" "ptau beacon" "ptau prepare" \
           "ptau verify" "zkey new" "zkey contribute" "zkey beacon" \
           "zkey verify"; do
    $P $sub --help >"$work/help" || fail "$sub --help: exit $?"
    grep -q "^Usage: proofline $sub" "$work/help" || fail "$sub --help: no usage line"
    grep -q -- "--budget SIZE" "$work/help" || fail "$sub --help: no --budget"
done
$P ptau --help | grep -q "prepare IN OUT" || fail "ptau --help lists no prepare"
$P zkey --help | grep -q "export verificationkey" || fail "zkey --help lists no export"
expect_exit 2 $P ptau new bls12381 29 "$work/x.ptau"
grep -q "between 1 and 28" "$work/log" || fail "power 29: $(cat "$work/log")"
expect_exit 2 $P ptau new bn256 4 "$work/x.ptau"
grep -q "bls12381, bn128" "$work/log" || fail "an unknown curve: $(cat "$work/log")"
# snarkjs's other names for its curves, compared as it compares them
for name in bn254 alt_bn128 BN128 BLS12-381; do
    expect_exit 0 $P ptau new "$name" 2 "$work/n.ptau"
    rm -f "$work/n.ptau"
done
expect_exit 2 $P ptau bogus
expect_exit 2 $P ptau verify
[ ! -e "$work/x.ptau" ] || fail "a refused ptau new wrote its file"

require_snarkjs
# snarkjs as a step: its output in sj.log, a failure unless it exits 0
sj() { "$snarkjs" "$@" >"$work/sj.log" 2>&1 || fail "snarkjs $*: $(tail -n 5 "$work/sj.log")"; }
same() { cmp -s "$1" "$2" || fail "$3: proofline's file is not snarkjs's ($(cmp "$1" "$2" 2>&1 | head -n 1))"; }
q=--quiet

# ---- phase 1 ---------------------------------------------------------------
$P ptau new bls12381 5 "$work/p0.ptau" $q || fail "ptau new"
sj powersoftau new bls12381 5 "$work/s0.ptau"
same "$work/p0.ptau" "$work/s0.ptau" "ptau new"
$P ptau contribute "$work/p0.ptau" "$work/p1.ptau" --name "Alice" --entropy "alice's text" $q ||
    fail "ptau contribute (ours)"
sj powersoftau contribute "$work/p1.ptau" "$work/p2.ptau" --name="Bob" -e="bob's text"
$P ptau contribute "$work/p2.ptau" "$work/p3.ptau" --name "Carol" --entropy "carol's text" $q ||
    fail "ptau contribute (ours, on snarkjs's file)"
$P ptau verify "$work/p3.ptau" $q || fail "ptau verify of three contributions"
$P ptau beacon "$work/p3.ptau" "$work/p4.ptau" $beacon 10 --name "Final Beacon" $q || fail "ptau beacon"
sj powersoftau beacon "$work/p3.ptau" "$work/s4.ptau" $beacon 10 -n="Final Beacon"
same "$work/p4.ptau" "$work/s4.ptau" "ptau beacon"
$P ptau prepare "$work/p4.ptau" "$work/final.ptau" $q || fail "ptau prepare"
sj powersoftau prepare phase2 "$work/p4.ptau" "$work/s_final.ptau"
same "$work/final.ptau" "$work/s_final.ptau" "ptau prepare"
sj powersoftau verify "$work/final.ptau"
grep -q "Powers of Tau Ok!" "$work/sj.log" || fail "snarkjs powersoftau verify: $(tail -n 3 "$work/sj.log")"
$P ptau verify "$work/final.ptau" >"$work/out" 2>"$work/log" || fail "ptau verify: $(cat "$work/log")"
grep -q "Powers of Tau Ok!" "$work/out" || fail "ptau verify printed no verdict"
for who in Alice Bob Carol "Final Beacon"; do
    grep -q "contribution #[0-9] $who" "$work/out" || fail "ptau verify does not name $who"
done
grep -q "peak memory" "$work/log" || fail "ptau verify: no closing line"

# ---- phase 2 -----------------------------------------------------------------
$P zkey new "$v/circuit.r1cs" "$work/final.ptau" "$work/z0.zkey" $q || fail "zkey new"
sj groth16 setup "$v/circuit.r1cs" "$work/final.ptau" "$work/s_z0.zkey"
same "$work/z0.zkey" "$work/s_z0.zkey" "zkey new"
$P zkey contribute "$work/z0.zkey" "$work/z1.zkey" --name "Alice" --entropy "more text" $q ||
    fail "zkey contribute"
sj zkey contribute "$work/z1.zkey" "$work/z2.zkey" --name="Bob" -e="bob again"
$P zkey beacon "$work/z2.zkey" "$work/z3.zkey" $beacon 10 --name "Final" $q || fail "zkey beacon"
sj zkey beacon "$work/z2.zkey" "$work/s_z3.zkey" $beacon 10 -n="Final"
same "$work/z3.zkey" "$work/s_z3.zkey" "zkey beacon"
sj zkey verify "$v/circuit.r1cs" "$work/final.ptau" "$work/z3.zkey"
grep -q "ZKey Ok!" "$work/sj.log" || fail "snarkjs zkey verify: $(tail -n 3 "$work/sj.log")"
$P zkey verify "$v/circuit.r1cs" "$work/final.ptau" "$work/z3.zkey" >"$work/out" 2>"$work/log" ||
    fail "zkey verify: $(cat "$work/log")"
grep -q "ZKey Ok!" "$work/out" || fail "zkey verify printed no verdict"

# a beacon above the verifier's limit is refused naming its record, not
# replayed (a file's exponent can ask for 2^63 hashes)
expect_exit 2 $P ptau verify "$work/final.ptau" --max-beacon-exp 9 $q
$P ptau verify "$work/final.ptau" --max-beacon-exp 9 $q 2>"$work/log" || true
grep -q "contribution #4 'Final Beacon': its beacon takes 2^10 SHA-256 iterations to check, above this verify's limit of 2^9" "$work/log" ||
    fail "ptau verify over the beacon limit: $(cat "$work/log")"
expect_exit 2 $P zkey verify "$v/circuit.r1cs" "$work/final.ptau" "$work/z3.zkey" --max-beacon-exp 9 $q
$P zkey verify "$v/circuit.r1cs" "$work/final.ptau" "$work/z3.zkey" --max-beacon-exp 9 $q 2>"$work/log" || true
grep -q "'Final': its beacon takes 2^10 SHA-256 iterations" "$work/log" ||
    fail "zkey verify over the beacon limit: $(cat "$work/log")"

# the verification key, and a proof snarkjs accepts
$P zkey export verificationkey "$work/z3.zkey" "$work/vk.json" || fail "zkey export verificationkey"
sj zkey export verificationkey "$work/z3.zkey" "$work/s_vk.json"
node -e '
const a = JSON.parse(require("fs").readFileSync(process.argv[1]));
const b = JSON.parse(require("fs").readFileSync(process.argv[2]));
for (const k of ["protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2",
                 "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12", "IC"])
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) {
        console.error("differs: " + k); process.exit(1); }
' "$work/vk.json" "$work/s_vk.json" || fail "the verification key is not snarkjs's"
$P prove "$work/z3.zkey" "$v/witness.wtns" "$work/proof.json" "$work/public.json" ||
    fail "prove with the ceremony's key"
snarkjs_accepts "$work/vk.json" "$work/public.json" "$work/proof.json" ||
    fail "snarkjs groth16 verify refuses the proof: $(cat "$work/sj.log")"

# ---- bn128: the same ceremony on BN254 ------------------------------------------
bv="$VECTORS/bn254/edgevalues"
$P ptau new bn128 5 "$work/b0.ptau" $q || fail "ptau new bn128"
sj powersoftau new bn128 5 "$work/sb0.ptau"
same "$work/b0.ptau" "$work/sb0.ptau" "ptau new (bn128)"
$P ptau contribute "$work/b0.ptau" "$work/b1.ptau" --name "Alice" --entropy "alice's text" $q ||
    fail "ptau contribute (bn128)"
sj powersoftau contribute "$work/b1.ptau" "$work/b2.ptau" --name="Bob" -e="bob's text"
$P ptau beacon "$work/b2.ptau" "$work/b3.ptau" $beacon 10 --name "Final Beacon" $q || fail "ptau beacon (bn128)"
sj powersoftau beacon "$work/b2.ptau" "$work/sb3.ptau" $beacon 10 -n="Final Beacon"
same "$work/b3.ptau" "$work/sb3.ptau" "ptau beacon (bn128)"
$P ptau prepare "$work/b3.ptau" "$work/bfinal.ptau" $q || fail "ptau prepare (bn128)"
sj powersoftau prepare phase2 "$work/b3.ptau" "$work/sbfinal.ptau"
same "$work/bfinal.ptau" "$work/sbfinal.ptau" "ptau prepare (bn128)"
# inspect names the curve, the powers and the sections as snarkjs does
$P inspect "$work/sbfinal.ptau" >"$work/inspect" 2>&1 || fail "inspect ptau"
for line in "format: ptau" "curve: bn254 (bn128)" "prepared: yes" \
    "name=tauG2" "name=contributions" "name=lagrange betaTauG1"; do
    grep -qF "$line" "$work/inspect" || fail "inspect ptau: no '$line': $(cat "$work/inspect")"
done
sj powersoftau verify "$work/bfinal.ptau"
grep -q "Powers of Tau Ok!" "$work/sj.log" || fail "snarkjs powersoftau verify (bn128): $(tail -n 3 "$work/sj.log")"
$P ptau verify "$work/bfinal.ptau" $q || fail "ptau verify (bn128): $(cat "$work/log")"
$P zkey new "$bv/circuit.r1cs" "$work/bfinal.ptau" "$work/bz0.zkey" $q || fail "zkey new (bn128)"
sj groth16 setup "$bv/circuit.r1cs" "$work/bfinal.ptau" "$work/sbz0.zkey"
same "$work/bz0.zkey" "$work/sbz0.zkey" "zkey new (bn128)"
$P zkey contribute "$work/bz0.zkey" "$work/bz1.zkey" --name "Alice" --entropy "more text" $q ||
    fail "zkey contribute (bn128)"
sj zkey contribute "$work/bz1.zkey" "$work/bz2.zkey" --name="Bob" -e="bob again"
$P zkey beacon "$work/bz2.zkey" "$work/bz3.zkey" $beacon 10 --name "Final" $q || fail "zkey beacon (bn128)"
sj zkey beacon "$work/bz2.zkey" "$work/sbz3.zkey" $beacon 10 -n="Final"
same "$work/bz3.zkey" "$work/sbz3.zkey" "zkey beacon (bn128)"
sj zkey verify "$bv/circuit.r1cs" "$work/bfinal.ptau" "$work/bz3.zkey"
grep -q "ZKey Ok!" "$work/sj.log" || fail "snarkjs zkey verify (bn128): $(tail -n 3 "$work/sj.log")"
$P zkey verify "$bv/circuit.r1cs" "$work/bfinal.ptau" "$work/bz3.zkey" $q ||
    fail "zkey verify (bn128): $(cat "$work/log")"
# the key proves (with snarkjs: the bn128 prover is not this module's)
sj zkey export verificationkey "$work/bz3.zkey" "$work/bvk.json"
sj groth16 prove "$work/bz3.zkey" "$bv/witness.wtns" "$work/bproof.json" "$work/bpublic.json"
snarkjs_accepts "$work/bvk.json" "$work/bpublic.json" "$work/bproof.json" ||
    fail "snarkjs groth16 verify refuses a proof with the bn128 key: $(cat "$work/sj.log")"
# Alice's tau g1_s becomes her g1_sx (bn128 points: 64 and 128 bytes)
python3 - "$work/bfinal.ptau" "$work/bbad.ptau" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", b, 8)[0]; o = 12
for _ in range(n):
    i, s = struct.unpack_from("<IQ", b, o)
    if i == 7: key = o + 12 + 4 + 3 * 64 + 2 * 128
    o += 12 + s
b[key:key + 64] = b[key + 64:key + 128]
open(sys.argv[2], "wb").write(b)
EOF
expect_exit 1 $P ptau verify "$work/bbad.ptau" $q
grep -q "contribution #1 'Alice': INVALID key (tau)" "$work/log" ||
    fail "tampered bn128 contribution: $(cat "$work/log")"
rm -f "$work"/b[0-3].ptau "$work"/sb[0-3].ptau "$work"/sbfinal.ptau "$work"/*bz[0-3].zkey

# signals with many terms in several matrices (the demo circuit's ONE and
# public inputs: summed by MSMs, not term by term) at 2^10
$P ptau new bls12381 10 "$work/d0.ptau" $q && $P ptau beacon "$work/d0.ptau" "$work/d1.ptau" 01 10 $q &&
    $P ptau prepare "$work/d1.ptau" "$work/d.ptau" $q || fail "a ptau of power 10"
$P circuit export --constraints 2^10 --out "$work/demo" >/dev/null 2>&1 || fail "circuit export"
$P zkey new "$work/demo/circuit.r1cs" "$work/d.ptau" "$work/d.zkey" $q || fail "zkey new (demo)"
sj groth16 setup "$work/demo/circuit.r1cs" "$work/d.ptau" "$work/s_d.zkey"
same "$work/d.zkey" "$work/s_d.zkey" "zkey new of the demo circuit"
rm -f "$work"/d0.ptau "$work"/d1.ptau "$work"/d.ptau "$work"/s_d.zkey

# ---- what verify refuses ---------------------------------------------------------
# a contribution's public key changed (Alice's tau g1_s becomes her g1_sx)
python3 - "$work/final.ptau" "$work/bad1.ptau" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
def payload(b, want):
    n = struct.unpack_from("<I", b, 8)[0]; o = 12
    for _ in range(n):
        i, s = struct.unpack_from("<IQ", b, o)
        if i == want: return o + 12
        o += 12 + s
key = payload(b, 7) + 4 + 3 * 96 + 2 * 192
b[key:key + 96] = b[key + 96:key + 192]
open(sys.argv[2], "wb").write(b)
EOF
expect_exit 1 $P ptau verify "$work/bad1.ptau" $q
grep -q "section 7 (contributions): contribution #1 'Alice': INVALID key (tau)" "$work/log" ||
    fail "tampered contribution: $(cat "$work/log")"
"$snarkjs" powersoftau verify "$work/bad1.ptau" >"$work/sj.log" 2>&1 &&
    grep -q "Powers of Tau Ok!" "$work/sj.log" && fail "snarkjs accepts the tampered contribution"
# sections 4 and 5 swapped
python3 - "$work/final.ptau" "$work/bad2.ptau" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", b, 8)[0]; o = 12
for _ in range(n):
    i, s = struct.unpack_from("<IQ", b, o)
    if i in (4, 5): struct.pack_into("<I", b, o, 9 - i)
    o += 12 + s
open(sys.argv[2], "wb").write(b)
EOF
expect_exit 1 $P ptau verify "$work/bad2.ptau" $q
grep -q "section 4 (alphaTauG1): its first point is not the alpha G1 of the last contribution" "$work/log" ||
    fail "swapped sections: $(cat "$work/log")"
# truncated
head -c 20000 "$work/final.ptau" >"$work/bad3.ptau"
expect_exit 2 $P ptau verify "$work/bad3.ptau" $q
grep -q "bad3.ptau: section" "$work/log" || fail "truncated ptau: $(cat "$work/log")"
# a key's A point changed, and a truncated key
python3 - "$work/z3.zkey" "$work/bad4.zkey" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", b, 8)[0]; o = 12
for _ in range(n):
    i, s = struct.unpack_from("<IQ", b, o)
    if i == 5: p = o + 12
    o += 12 + s
b[p + 96:p + 192] = b[p + 192:p + 288]
open(sys.argv[2], "wb").write(b)
EOF
expect_exit 1 $P zkey verify "$v/circuit.r1cs" "$work/final.ptau" "$work/bad4.zkey" $q
grep -q "section 5 (A points) is not the one the circuit" "$work/log" ||
    fail "tampered zkey: $(cat "$work/log")"
head -c 3000 "$work/z3.zkey" >"$work/bad5.zkey"
expect_exit 2 $P zkey verify "$v/circuit.r1cs" "$work/final.ptau" "$work/bad5.zkey" $q
grep -q "bad5.zkey" "$work/log" || fail "truncated zkey: $(cat "$work/log")"

# ---- outputs and arguments ---------------------------------------------------------
cp "$work/p4.ptau" "$work/keep.ptau"
expect_exit 2 $P ptau prepare "$work/p4.ptau" "$work/p4.ptau" $q
cmp -s "$work/p4.ptau" "$work/keep.ptau" || fail "prepare over its input changed it"
expect_exit 2 $P ptau beacon "$work/p4.ptau" "$work/x.ptau" 0x01 10 $q
grep -q "hexadecimal" "$work/log" || fail "0x beacon: $(cat "$work/log")"
expect_exit 2 $P zkey beacon "$work/z3.zkey" "$work/x.zkey" 01 9 $q
grep -q "between 10 and 63" "$work/log" || fail "exponent 9: $(cat "$work/log")"
expect_exit 2 $P zkey new "$VECTORS/chain10/circuit.r1cs" "$work/final.ptau" "$work/x.zkey" $q
grep -q "more than the" "$work/log" || fail "a circuit too large: $(cat "$work/log")"
expect_exit 2 $P zkey new "$v/circuit.r1cs" "$work/p4.ptau" "$work/x.zkey" $q
grep -q "not prepared" "$work/log" || fail "an unprepared ptau: $(cat "$work/log")"
expect_exit 2 $P ptau contribute "$work/p4.ptau" "$work/x.ptau" </dev/null
grep -q -- "--entropy" "$work/log" || fail "contribute without entropy: $(cat "$work/log")"
[ ! -e "$work/x.ptau" ] && [ ! -e "$work/x.zkey" ] || fail "a refused step wrote its output"
finish "cli_ceremony: ok"
