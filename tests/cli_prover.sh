#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rapidsnark's command line: `proofline prover <zkey> <wtns> <proof>
# <public> [log_level]` and the build's links `prover` and
# `proofline-prover`, with rapidsnark's exit codes (0, else 1):
#   - on BN254 vectors (circom --prime bn128: rapidsnark's own curve) and
#     BLS12-381 ones, each of the three names proves, nothing on stdout,
#     and `snarkjs groth16 verify` and `proofline verify` accept the proof;
#     public.json is snarkjs's;
#   - a wrong number of arguments (3, 6) prints rapidsnark's "Invalid
#     number of parameters" and usage, exit 1; a missing file, a bn128
#     witness with a BLS12-381 key, a truncated zkey: exit 1 with the
#     reason and no proof written; a bad log level exits 1; log level 3
#     prints the stage times on stderr; a file named -x is a file;
#   - --help describes it, exit 0.
. "$(dirname "$0")/lib.sh"
require_snarkjs

dir=$(dirname "$PROOFLINE")
names=("$PROOFLINE prover" "$dir/prover" "$dir/proofline-prover")
[ -L "$dir/prover" ] && [ -L "$dir/proofline-prover" ] ||
    fail "the build lacks the links prover, proofline-prover"

i=0
for v in bn254/multiplier bn254/chain10 bn254/manypublic multiplier chain10; do
    d="$VECTORS/$v"
    for name in "${names[@]}"; do
        i=$((i + 1)) o="$work/$i"
        # shellcheck disable=SC2086  # "proofline prover" is two words
        expect_exit 0 $name "$d/circuit.zkey" "$d/witness.wtns" \
            "$o.proof.json" "$o.public.json"
        [ -s "$work/stdout" ] && fail "$name ($v) wrote to stdout: $(cat "$work/stdout")"
        snarkjs_accepts "$d/verification_key.json" "$o.public.json" "$o.proof.json" ||
            fail "$name ($v): snarkjs rejects the proof"
        expect_exit 0 "$PROOFLINE" verify "$d/verification_key.json" \
            "$o.public.json" "$o.proof.json"
        cmp -s "$o.public.json" "$d/public.json" || fail "$name ($v): public.json differs"
        # snarkjs takes a second a call: the other names on one vector each
        [ "$v" = bn254/multiplier ] || break
    done
done
grep -q '"curve": "bn128"' "$work/1.proof.json" || fail "the bn128 proof's curve"

bn="$VECTORS/bn254/multiplier" bls="$VECTORS/multiplier"
for name in "${names[@]}"; do
    # shellcheck disable=SC2086
    expect_exit 1 $name "$bn/circuit.zkey" "$bn/witness.wtns" "$work/x.json"
    grep -q "^Invalid number of parameters$" "$work/log" &&
        grep -q "^Usage: prover <circuit.zkey> <witness.wtns> <proof.json> <public.json>" "$work/log" ||
        fail "$name with 3 files: $(cat "$work/log")"
    # shellcheck disable=SC2086
    expect_exit 1 $name "$bn/circuit.zkey" "$bn/witness.wtns" "$work/x.json" "$work/y.json" 0 extra
    grep -q "^Invalid number of parameters$" "$work/log" || fail "$name with 6: $(cat "$work/log")"
    # shellcheck disable=SC2086
    expect_exit 1 $name
done
expect_exit 1 "$PROOFLINE" prover "$work/none.zkey" "$bn/witness.wtns" "$work/x.json" "$work/y.json"
grep -q "none.zkey" "$work/log" || fail "a missing zkey: $(cat "$work/log")"
expect_exit 1 "$PROOFLINE" prover "$bls/circuit.zkey" "$bn/witness.wtns" "$work/x.json" "$work/y.json"
grep -q "is for curve bn128 but .* is for curve bls12381" "$work/log" ||
    fail "files of two curves: $(cat "$work/log")"
head -c 500 "$bn/circuit.zkey" >"$work/short.zkey"
expect_exit 1 "$dir/prover" "$work/short.zkey" "$bn/witness.wtns" "$work/x.json" "$work/y.json"
[ -e "$work/x.json" ] || [ -e "$work/y.json" ] && fail "a failed prove wrote a file"
expect_exit 1 "$dir/prover" "$bn/circuit.zkey" "$bn/witness.wtns" "$work/x.json" "$work/y.json" 7
grep -q "Invalid log level" "$work/log" || fail "log level 7: $(cat "$work/log")"
expect_exit 0 "$dir/prover" "$bn/circuit.zkey" "$bn/witness.wtns" "$work/l.json" "$work/lp.json" 3
grep -q "total" "$work/log" || fail "log level 3 printed no stage times: $(cat "$work/log")"
expect_exit 0 "$dir/prover" "$bn/circuit.zkey" "$bn/witness.wtns" "$work/q.json" "$work/qp.json" 0
[ -s "$work/log" ] && fail "log level 0 printed: $(cat "$work/log")"
# a file whose name begins with '-'
(cd "$work" && "$dir/prover" "$bn/circuit.zkey" "$bn/witness.wtns" -x.json -p.json) \
    2>"$work/log" || fail "files named -x.json: $(cat "$work/log")"
[ -s "$work/-x.json" ] && [ -s "$work/-p.json" ] || fail "the files named -x.json, -p.json"
expect_exit 0 "$PROOFLINE" prover --help
grep -q "rapidsnark" "$work/stdout" || fail "prover --help: $(cat "$work/stdout")"

finish "prover (rapidsnark's command line): ok"
