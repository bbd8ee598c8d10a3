#!/usr/bin/env bash
# Regenerate proofline's committed interop test vectors from the .circom sources and input.json.
#
#   ./regen.sh              (from anywhere; works in the script's own folder)
#
# Needs node >= 18. Network is needed only for the first `npm ci` (pinned snarkjs 0.7.6 and
# circom2 0.2.23 from package-lock.json). Scratch files (ptau, wasm, logs) go to ./work/,
# which is git-ignored; the ptau there is reused on later runs.
#
# Everything is deterministic (powersoftau/zkey beacons with a fixed hash, no random
# contributions), except proof_snarkjs.json, which snarkjs blinds with random r, s: an existing
# proof_snarkjs.json is kept if it still verifies against the regenerated key and public.json.
#
# proof_ref.json comes from ref_prove.mjs, a DEVELOPMENT HELPER outside this repository
# (the shared dev tools' deterministic reference prover, r = s = 0). Set REF_PROVE to its path;
# default: ../../../shared/tools/ref_prove.mjs relative to this script. If it is missing, the
# existing proof_ref.json files are left as they are (and still checked with snarkjs).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$HERE"
REF_PROVE=${REF_PROVE:-$HERE/../../../shared/tools/ref_prove.mjs}
WORK=$HERE/work          # must stay inside this folder: ref_prove.mjs resolves its imports from ./node_modules
LOG=$WORK/regen.log
BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
BEACON_ITER=10
POWER=10
CIRCUITS=(multiplier chain10 nopublic pow2exact pow2plus1 noB manypublic edgevalues)

mkdir -p "$WORK"
: > "$LOG"
say() { printf '%s\n' "$*"; }
run() { # run a command quietly, show the log tail on failure
    if ! "$@" >>"$LOG" 2>&1; then
        say "FAILED: $*"; tail -n 30 "$LOG"; exit 1
    fi
}

if [ ! -x node_modules/.bin/snarkjs ] || [ ! -f node_modules/circom2/cli.js ]; then
    say "npm ci"
    run npm ci --no-audit --no-fund
fi
SNARKJS=(node "$HERE/node_modules/snarkjs/build/cli.cjs")
CIRCOM=(node "$HERE/node_modules/circom2/cli.js")
snarkjs() { run "${SNARKJS[@]}" "$@"; }
circom() { run "${CIRCOM[@]}" "$@"; }
verify() { # verify <vk> <public> <proof>: snarkjs must print OK
    if ! "${SNARKJS[@]}" groth16 verify "$@" >"$WORK/verify.out" 2>&1 || ! grep -q 'OK!' "$WORK/verify.out"; then
        cat "$WORK/verify.out"; return 1
    fi
}
same_json() { node -e 'const f=require("fs");const a=JSON.parse(f.readFileSync(process.argv[1])),b=JSON.parse(f.readFileSync(process.argv[2]));process.exit(JSON.stringify(a)===JSON.stringify(b)?0:1)' "$1" "$2"; }

# ---- powers of tau (BLS12-381, 2^10), deterministic ----
PTAU=$WORK/pot${POWER}_final.ptau
if [ ! -s "$PTAU" ]; then
    say "ptau bls12381 2^$POWER (about a minute)"
    snarkjs powersoftau new bls12381 "$POWER" "$WORK/pot${POWER}_0000.ptau"
    snarkjs powersoftau beacon "$WORK/pot${POWER}_0000.ptau" "$WORK/pot${POWER}_beacon.ptau" "$BEACON" "$BEACON_ITER" -n="proofline vectors"
    snarkjs powersoftau prepare phase2 "$WORK/pot${POWER}_beacon.ptau" "$PTAU.tmp"
    mv "$PTAU.tmp" "$PTAU"
fi

HAVE_REF=1
if [ ! -f "$REF_PROVE" ]; then
    HAVE_REF=0
    say "WARNING: REF_PROVE=$REF_PROVE not found; keeping existing proof_ref.json files"
else
    cp "$REF_PROVE" "$WORK/ref_prove.mjs"
fi

# ---- BLS12-381 vectors ----
for c in "${CIRCUITS[@]}"; do
    say "== $c"
    W=$WORK/$c
    rm -rf "$W"; mkdir -p "$W"
    circom "$c/circuit.circom" --r1cs --wasm --prime bls12381 -o "$W"
    cp "$W/circuit.r1cs" "$c/circuit.r1cs"
    snarkjs wtns calculate "$W/circuit_js/circuit.wasm" "$c/input.json" "$c/witness.wtns"
    snarkjs wtns check "$c/circuit.r1cs" "$c/witness.wtns"
    snarkjs groth16 setup "$c/circuit.r1cs" "$PTAU" "$W/circuit_0000.zkey"
    snarkjs zkey beacon "$W/circuit_0000.zkey" "$c/circuit.zkey" "$BEACON" "$BEACON_ITER" -n="proofline vectors"
    snarkjs zkey verify "$c/circuit.r1cs" "$PTAU" "$c/circuit.zkey"
    snarkjs zkey export verificationkey "$c/circuit.zkey" "$c/verification_key.json"

    snarkjs groth16 prove "$c/circuit.zkey" "$c/witness.wtns" "$W/proof.json" "$W/public.json"
    verify "$c/verification_key.json" "$W/public.json" "$W/proof.json"
    if [ -f "$c/proof_snarkjs.json" ] && [ -f "$c/public.json" ] && same_json "$W/public.json" "$c/public.json" \
        && verify "$c/verification_key.json" "$c/public.json" "$c/proof_snarkjs.json" >/dev/null 2>&1; then
        : # keep the committed (randomly blinded) proof: it still verifies
    else
        cp "$W/proof.json" "$c/proof_snarkjs.json"
        cp "$W/public.json" "$c/public.json"
    fi

    if [ "$HAVE_REF" = 1 ]; then
        run node "$WORK/ref_prove.mjs" "$c/circuit.zkey" "$c/witness.wtns" "$c/proof_ref.json" "$W/public_ref.json"
        same_json "$W/public_ref.json" "$c/public.json" || { say "public_ref.json != public.json for $c"; exit 1; }
    fi
    verify "$c/verification_key.json" "$c/public.json" "$c/proof_snarkjs.json" || { say "$c: proof_snarkjs.json does not verify"; exit 1; }
    verify "$c/verification_key.json" "$c/public.json" "$c/proof_ref.json" || { say "$c: proof_ref.json does not verify"; exit 1; }

    node vectools.cjs info "$c/circuit.r1cs" "$c/circuit.zkey" "$c/witness.wtns" > "$W/info.json"
    node -e 'const i=require(process.argv[1]);console.log(`   nConstraints=${i.nConstraints} nPublic=${i.nPublic} nVars=${i.nVars} domainSize=${i.domainSize} zeroB1/B2=${i.zeroB1}/${i.zeroB2} w(0/1/r-1)=${i.w0}/${i.w1}/${i.wRminus1}`)' "$W/info.json"
done

# ---- sanity checks on what some vectors are meant to exercise ----
node - "$WORK" <<'EOF'
const dir = process.argv[2], I = (c) => require(`${dir}/${c}/info.json`);
const must = (ok, msg) => { if (!ok) { console.error("CHECK FAILED: " + msg); process.exit(1); } };
must(I("chain10").domainSize === 1024 && I("chain10").nConstraints + I("chain10").nPublic + 1 === 1024, "chain10 domain exactly 1024");
must(I("chain10").wFull > 1000, "chain10 has full-size witness values");
must(I("nopublic").nPublic === 0, "nopublic has nPublic = 0");
const e = I("pow2exact"); must(e.nConstraints + e.nPublic + 1 === e.domainSize, "pow2exact fills its domain");
const p = I("pow2plus1"); must(p.nConstraints + p.nPublic === e.domainSize && p.domainSize === 2 * e.domainSize, "pow2plus1 doubles the domain");
const b = I("noB"); must(b.zeroB1 > 0 && b.zeroB1 === b.zeroB2, "noB has infinity B1/B2 points");
must(I("manypublic").nPublic >= 40, "manypublic has >= 40 public signals");
const v = I("edgevalues"); must(v.w0 > 0 && v.w1 > 1 && v.wRminus1 > 0, "edgevalues holds 0, 1 and r-1");
EOF

# ---- bad-format fixtures ----
say "== bad fixtures"
B=$WORK/bad; rm -rf "$B"; mkdir -p "$B" bad
# groth16 zkey + witness over BN254 (wrong curve)
circom multiplier/circuit.circom --r1cs --wasm --prime bn128 -o "$B"
snarkjs powersoftau new bn128 4 "$B/bn_0000.ptau"
snarkjs powersoftau beacon "$B/bn_0000.ptau" "$B/bn_beacon.ptau" "$BEACON" "$BEACON_ITER" -n="proofline vectors"
snarkjs powersoftau prepare phase2 "$B/bn_beacon.ptau" "$B/bn_final.ptau"
snarkjs groth16 setup "$B/circuit.r1cs" "$B/bn_final.ptau" "$B/bn_0000.zkey"
snarkjs zkey beacon "$B/bn_0000.zkey" bad/bn254.zkey "$BEACON" "$BEACON_ITER" -n="proofline vectors"
snarkjs wtns calculate "$B/circuit_js/circuit.wasm" multiplier/input.json bad/bn254.wtns
# PLONK zkey on BLS12-381 (wrong protocol)
snarkjs plonk setup multiplier/circuit.r1cs "$PTAU" bad/plonk.zkey
# multiplier witness that does not satisfy the circuit: wire 2 (private input a) := a + 1
node vectools.cjs corrupt-wtns multiplier/witness.wtns bad/unsat.wtns 2
if "${SNARKJS[@]}" wtns check multiplier/circuit.r1cs bad/unsat.wtns >>"$LOG" 2>&1; then
    say "bad/unsat.wtns unexpectedly satisfies the circuit"; exit 1
fi

say "done (log: $LOG)"
