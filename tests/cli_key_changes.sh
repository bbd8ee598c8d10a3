#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A key changed on disk while `prove` and `batch` run (issue 13, point 3):
# overwritten in place by another key of the same circuit, truncated, or
# replaced with cp, again and again while the command reads and proves.
# Whatever the file does, no run crashes (no exit by a signal), every run
# ends with valid proofs (0) or a clear error about the file (2 or 3), and
# every proof written verifies, under the key it was made with (the old or
# the new).  A proof of a key read while it was being rewritten does not
# verify; that failure is blamed on the key (exit 2), not on the witness.  Before, this gave SIGSEGV in build_matrices, SIGBUS on
# truncation, and proofs that did not verify with exit 0: the key was
# mapped and read while it changed; now it is read whole into the budget
# and refused if it changed during the read, and every proof is verified
# before it is written.
. "$(dirname "$0")/lib.sh"
v="$VECTORS/chain10"
a="$v/circuit.zkey"
"$PROOFLINE" setup --dev "$v/circuit.r1cs" "$work/b.zkey" --seed another \
    >/dev/null 2>&1 || fail "setup of a second key"
"$PROOFLINE" vkey "$a" "$work/a.vk.json" || fail "vkey a"
"$PROOFLINE" vkey "$work/b.zkey" "$work/b.vk.json" || fail "vkey b"
size=$(stat -c %s "$a")

# one way to change the key, again and again until killed
change() {
    local mode=$1 key=$2
    while :; do
        case $mode in
        overwrite) dd if="$work/b.zkey" of="$key" conv=notrunc status=none
                   dd if="$a" of="$key" conv=notrunc status=none ;;
        truncate)  truncate -s $((size / 2)) "$key"; cat "$a" >"$key" ;;
        cp)        cp "$work/b.zkey" "$key"; cp "$a" "$key" ;;
        esac
    done
}

# The proof (pair) verifies under key a or key b.
verifies() {
    "$PROOFLINE" verify "$work/a.vk.json" "$2" "$1" >/dev/null 2>&1 ||
        "$PROOFLINE" verify "$work/b.vk.json" "$2" "$1" >/dev/null 2>&1
}

runs=0 written=0
for mode in overwrite truncate cp; do
    for i in 1 2 3 4 5 6 7 8 9 10; do
        key="$work/k.zkey"
        cp "$a" "$key"
        change "$mode" "$key" & changer=$!
        rm -rf "$work/out"
        rc=0
        if [ $((i % 2)) = 0 ]; then
            "$PROOFLINE" prove "$key" "$v/witness.wtns" "$work/p.json" "$work/q.json" \
                >/dev/null 2>"$work/log" || rc=$?
            [ "$rc" = 0 ] && { written=$((written + 1)); verifies "$work/p.json" "$work/q.json" ||
                fail "$mode: prove wrote a proof that does not verify"; }
            rm -f "$work/p.json" "$work/q.json"
        else
            mkdir -p "$work/out"
            "$PROOFLINE" batch --zkey "$key" --out "$work/out" --quiet \
                "$v/witness.wtns" >/dev/null 2>"$work/log" || rc=$?
            for p in "$work"/out/*.proof.json; do
                [ -e "$p" ] || continue
                written=$((written + 1))
                verifies "$p" "${p%.proof.json}.public.json" ||
                    fail "$mode: batch wrote a proof that does not verify"
            done
        fi
        kill "$changer"; wait "$changer" 2>/dev/null || true
        runs=$((runs + 1))
        case $rc in
        0|2|3) ;;
        1) fail "$mode: run $i ended with 1 (a proof blamed on the witness, though the key changed): $(tail -2 "$work/log")" ;;
        *) fail "$mode: run $i ended with $rc (a signal?): $(tail -2 "$work/log")" ;;
        esac
    done
done
echo "$runs runs, $written proofs written, each verified"
finish "cli_key_changes: ok"
