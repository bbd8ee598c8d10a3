#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline c2` has every safeguard `prove` has (issue 26): before, c2
# read its inputs through memory maps checked once, had no verify step and
# committed its two outputs by two renames.
#  - a witness that does not satisfy the circuit (a private value changed,
#    ONE = 2, a public input changed) and parameters whose query point was
#    replaced by another valid point: exit 1, the proof not written (before:
#    exit 0 and proofs that do not verify); --no-verify writes it and says
#    so;
#  - --proofs or --inputs naming a witness, the parameters, the r1cs or
#    each other: exit 2 and the input untouched;
#  - the proofs and the inputs are a pair: a run that fails leaves the
#    previous pair as it was, byte for byte;
#  - whatever the parameters, the r1cs or a witness do while c2 runs
#    (rewritten in place with another file's bytes, truncated and written
#    back, replaced with cp, again and again), no run dies by a signal
#    (before: SIGBUS, SIGSEGV), every run ends with 0 and proofs that
#    verify (under the parameters read, a or b) or with 2 or 3 naming the
#    file (never 1: a file that changed is not an unsatisfied witness), and
#    every proof written verifies.
. "$(dirname "$0")/lib.sh"

"$PROOFLINE" circuit export --constraints 2^10 --partitions 2 --out "$work/c" \
    >/dev/null 2>&1 || fail "circuit export"
r1cs="$work/c/circuit.r1cs" w0="$work/c/p0.wtns" w1="$work/c/p1.wtns"
for k in a b; do
    "$PROOFLINE" setup --dev --format bellperson --threads 2 --seed "$k" \
        "$r1cs" "$work/$k.params" "$work/$k.vk" >/dev/null 2>&1 || fail "setup $k"
done
c2() { "$PROOFLINE" c2 --threads 2 --params "$1" --r1cs "$r1cs" "${@:2}"; }
verifies() { # verifies PROOFS INPUTS: under key a or key b
    "$PROOFLINE" verify --format bellperson "$work/a.vk" "$2" "$1" >/dev/null 2>&1 ||
        "$PROOFLINE" verify --format bellperson "$work/b.vk" "$2" "$1" >/dev/null 2>&1
}

expect_exit 0 c2 "$work/a.params" --proofs "$work/ok.proofs" --inputs "$work/ok.inputs" "$w0" "$w1"
"$PROOFLINE" verify --format bellperson "$work/a.vk" "$work/ok.inputs" "$work/ok.proofs" \
    >/dev/null 2>&1 || fail "c2's proofs do not verify"

# ---- proofs that do not verify are not written ---------------------------
# value k of a witness (n values at the end of the file) changed: its
# lowest bit flipped (a value stays below r), or set to 2
n=$(( $(stat -c %s "$w0") - 76 )); n=$((n / 32))
changed() { # changed OUT K flip|two
    cp "$w0" "$1"
    local at=$(( $(stat -c %s "$w0") - (n - $2) * 32 ))
    if [ "$3" = two ]; then
        printf '\002' | dd of="$1" bs=1 seek="$at" conv=notrunc status=none
        dd if=/dev/zero of="$1" bs=1 seek=$((at + 1)) count=31 conv=notrunc status=none
    else
        local byte=$(od -An -tu1 -j "$at" -N1 "$w0" | tr -d ' ')
        printf "\\$(printf %03o $((byte ^ 1)))" |
            dd of="$1" bs=1 seek="$at" conv=notrunc status=none
    fi
}
changed "$work/private.wtns" $((n - 1)) flip
changed "$work/one.wtns" 0 two
changed "$work/public.wtns" 1 flip
for w in private one public; do
    rm -f "$work/x.proofs" "$work/x.inputs"
    expect_exit 1 c2 "$work/a.params" --proofs "$work/x.proofs" --inputs "$work/x.inputs" "$work/$w.wtns"
    grep -q "does not verify" "$work/log" || fail "$w: no reason given: $(cat "$work/log")"
    [ ! -e "$work/x.proofs" ] && [ ! -e "$work/x.inputs" ] || fail "$w: a proof was written"
done
expect_exit 0 c2 "$work/a.params" --no-verify --proofs "$work/x.proofs" --inputs "$work/x.inputs" "$work/private.wtns"
grep -q "no-verify" "$work/log" || fail "--no-verify does not say so: $(cat "$work/log")"
expect_exit 1 "$PROOFLINE" verify --format bellperson "$work/a.vk" "$work/x.inputs" "$work/x.proofs"

# parameters whose first h point is replaced by its first l point (on the
# curve, in the subgroup: only the proof shows it)
cp "$work/a.params" "$work/bad.params"
u32_at() { od -An -j "$2" -N4 --endian=big -tu4 "$1" | tr -d ' '; }
ic=$(u32_at "$work/a.params" 864) # after the verifying key's six points
h_at=$((864 + 4 + ic * 96 + 4))
h_n=$(u32_at "$work/a.params" $((h_at - 4)))
l_at=$((h_at + h_n * 96 + 4))
dd if="$work/a.params" of="$work/bad.params" bs=1 skip="$l_at" seek="$h_at" count=96 \
    conv=notrunc status=none
rm -f "$work/x.proofs"
expect_exit 1 c2 "$work/bad.params" --proofs "$work/x.proofs" "$w0"
[ ! -e "$work/x.proofs" ] || fail "bad parameters: a proof was written"
grep -q "parameters are damaged\|does not verify" "$work/log" || fail "bad parameters: $(cat "$work/log")"

# ---- no output over an input or another output ---------------------------
for victim in "$w0" "$work/a.params" "$r1cs"; do
    sum=$(md5sum <"$victim")
    expect_exit 2 c2 "$work/a.params" --proofs "$victim" "$w0"
    expect_exit 2 c2 "$work/a.params" --proofs "$work/y.proofs" --inputs "$victim" "$w0"
    [ "$(md5sum <"$victim")" = "$sum" ] || fail "c2 wrote over $victim"
done
expect_exit 2 c2 "$work/a.params" --proofs "$work/same" --inputs "$work/same" "$w0"

# ---- the pair: a failed run leaves the previous pair ---------------------
cp "$work/ok.proofs" "$work/pair.proofs"
cp "$work/ok.inputs" "$work/pair.inputs"
expect_exit 1 c2 "$work/a.params" --proofs "$work/pair.proofs" --inputs "$work/pair.inputs" "$work/public.wtns"
cmp -s "$work/ok.proofs" "$work/pair.proofs" && cmp -s "$work/ok.inputs" "$work/pair.inputs" ||
    fail "a failed run changed the previous pair"
expect_exit 0 c2 "$work/a.params" --proofs "$work/pair.proofs" --inputs "$work/pair.inputs" "$w1"
[ "$(stat -c %s "$work/pair.proofs")" = 192 ] || fail "the new pair's proofs are not one proof"
verifies "$work/pair.proofs" "$work/pair.inputs" || fail "the new pair does not verify"

# ---- the r1cs is in the budget ---------------------------------------------
# Read whole into the circuit beside the parameters, its bytes reserved
# before it is read: a budget that holds the parameters but not the r1cs
# too is refused naming the r1cs, before any witness is read.
psize=$(stat -c %s "$work/a.params") rsize=$(stat -c %s "$r1cs")
named=""
for step in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
    budget=$((psize + step * rsize / 4))
    rc=0
    c2 "$work/a.params" --budget "$budget" --proofs "$work/b.proofs" "$w0" \
        >/dev/null 2>"$work/blog" || rc=$?
    [ "$rc" = 0 ] && break
    [ "$rc" = 2 ] || fail "budget $budget: exit $rc: $(cat "$work/blog")"
    grep -q "the circuit's r1cs needs" "$work/blog" && named=$budget
done
[ -n "$named" ] || fail "no budget was refused for the r1cs: $(cat "$work/blog")"

# ---- inputs that change while c2 runs ------------------------------------
# change MODE FILE A B: again and again until killed, FILE becomes B's
# bytes and A's again (overwrite: in place; truncate: cut, then A written
# back; cp: replaced)
change() {
    local mode=$1 f=$2 a=$3 b=$4 size
    size=$(stat -c %s "$a")
    while :; do
        case $mode in
        overwrite) dd if="$b" of="$f" conv=notrunc status=none
                   dd if="$a" of="$f" conv=notrunc status=none ;;
        truncate)  truncate -s $((size / 2)) "$f"; cat "$a" >"$f" ;;
        cp)        cp "$b" "$f"; cp "$a" "$f" ;;
        esac
    done
}
# b.r1cs: the same circuit with its sections in the reverse order (the
# container takes them in any order): other bytes, one meaning, so a run
# that reads either whole proves, and one that reads a mix of the two
# must refuse it.
u32_at() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
head -c 12 "$r1cs" >"$work/b.r1cs"
order="" off=12
for _ in $(seq 1 "$(u32_at "$r1cs" 8)"); do
    len=$((12 + $(u64_at "$r1cs" $((off + 4)))))
    order="$off:$len $order"
    off=$((off + len))
done
for sec in $order; do
    dd if="$r1cs" iflag=skip_bytes,count_bytes skip="${sec%:*}" \
        count="${sec#*:}" status=none >>"$work/b.r1cs"
done
cmp -s "$r1cs" "$work/b.r1cs" && fail "b.r1cs has the r1cs's bytes"
[ "$(stat -c %s "$r1cs")" = "$(stat -c %s "$work/b.r1cs")" ] ||
    fail "b.r1cs is not the r1cs's size"
"$PROOFLINE" c2 --threads 2 --params "$work/a.params" --r1cs "$work/b.r1cs" \
    --proofs "$work/b.proofs" --inputs "$work/b.inputs" "$w0" \
    >/dev/null 2>"$work/clog" || fail "c2 on b.r1cs: $(tail -2 "$work/clog")"
verifies "$work/b.proofs" "$work/b.inputs" || fail "b.r1cs's proof"

runs=0 written=0
for what in params r1cs witness; do
    for mode in overwrite truncate cp; do
        for i in 1 2 3 4; do
            cp "$work/a.params" "$work/k.params"
            cp "$r1cs" "$work/k.r1cs"
            cp "$w0" "$work/k.wtns"
            case $what in
            params)  change "$mode" "$work/k.params" "$work/a.params" "$work/b.params" & ;;
            r1cs)    change "$mode" "$work/k.r1cs" "$r1cs" "$work/b.r1cs" & ;;
            witness) change "$mode" "$work/k.wtns" "$w0" "$w1" & ;;
            esac
            changer=$!
            rm -f "$work/k.proofs" "$work/k.inputs"
            rc=0
            "$PROOFLINE" c2 --threads 2 --params "$work/k.params" --r1cs "$work/k.r1cs" \
                --proofs "$work/k.proofs" --inputs "$work/k.inputs" "$work/k.wtns" \
                >/dev/null 2>"$work/clog" || rc=$?
            kill "$changer"; wait "$changer" 2>/dev/null || true
            runs=$((runs + 1))
            case $rc in
            0) written=$((written + 1))
               verifies "$work/k.proofs" "$work/k.inputs" ||
                   fail "$what $mode: c2 wrote proofs that do not verify" ;;
            2|3) ;;
            1) fail "$what $mode: run $i ended with 1 (blamed on the witness, though a file changed): $(tail -2 "$work/clog")" ;;
            *) fail "$what $mode: run $i ended with $rc (a signal?): $(tail -2 "$work/clog")" ;;
            esac
        done
    done
done
echo "$runs runs under changing inputs, $written wrote proofs, each verified"
finish "cli_c2_safeguards: ok"
