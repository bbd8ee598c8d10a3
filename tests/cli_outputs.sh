#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What `prove` writes, and never clobbers (issue 13, point 4):
#  - a FIFO given as an output is written in place and stays a FIFO;
#    `prove Z W /dev/stdout /dev/stdout` writes the proof then the public
#    inputs to stdout, into a pipe or a file a shell opened, and leaves
#    /dev/stdout alone (as root the old writer renamed a regular file over
#    it: run in a private /dev when we can, so a regression cannot reach
#    the real one);
#  - one output path given twice (by any spelling), or an output that is
#    an input, is refused with exit 2 before any work, the files untouched;
#  - a prove that fails leaves the previous proof.json and public.json as
#    they were (public.json a folder: the old writer renamed proof.json
#    into place and then deleted it);
#  - --report, --trace and --plot never follow a symlink planted at
#    <path>.tmp, and no temporary is left behind;
#  - every command that writes (prove, batch, vkey in both formats, setup
#    --dev in both formats, convert each way, c2, plan, circuit export,
#    calibrate) refuses, with exit 2 and before any work, each of its
#    outputs given as each of its inputs and any two outputs given as one
#    file, and leaves that file byte-identical (issue 26: vkey wrote over
#    its zkey, setup over its r1cs, c2 --proofs over a witness; setup
#    --format bellperson R x x lost an output).
. "$(dirname "$0")/lib.sh"
v="$VECTORS/multiplier"
z="$v/circuit.zkey" w="$v/witness.wtns"

# ---- devices and pipes, written in place -------------------------------
mkfifo "$work/pipe"
cat "$work/pipe" >"$work/from_pipe" &
reader=$!
expect_exit 0 "$PROOFLINE" prove "$z" "$w" "$work/pipe" "$work/fifo.public.json"
wait "$reader"
[ -p "$work/pipe" ] || fail "the FIFO output was replaced"
grep -q '"pi_a"' "$work/from_pipe" || fail "the FIFO did not get the proof: $(cat "$work/from_pipe")"
rm -f "$work/fifo.public.json"

# both outputs to stdout: the proof, then the public inputs
"$PROOFLINE" prove "$z" "$w" /dev/stdout /dev/stdout | cat >"$work/piped" ||
    fail "prove to /dev/stdout twice (a pipe): exit $?"
grep -q '"pi_a"' "$work/piped" && grep -q '^ "33"$' "$work/piped" ||
    fail "stdout (a pipe) lacks the proof or the inputs: $(cat "$work/piped")"
check_stdout_file() {
    "$PROOFLINE" prove "$z" "$w" /dev/stdout /dev/stdout >"$work/redirected" ||
        echo "FAIL: prove to /dev/stdout twice (a file): exit $?"
    [ -L /dev/stdout ] || echo "FAIL: /dev/stdout was replaced: $(ls -l /dev/stdout)"
}
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    export PROOFLINE z w work
    export -f check_stdout_file
    unshare -m bash -c 'mount -t tmpfs none /dev && ln -s /proc/self/fd/1 /dev/stdout &&
        ln -s /proc/self/fd/2 /dev/stderr && ln -s /proc/self/fd /dev/fd &&
        mknod -m 666 /dev/null c 1 3 && check_stdout_file' >"$work/ns.log" 2>&1 ||
        fail "private /dev: $(cat "$work/ns.log")"
else
    check_stdout_file >"$work/ns.log" 2>&1
fi
grep "FAIL" "$work/ns.log" && fails=$((fails + 1))
tr -d '\n' <"$work/redirected" | grep -q '"curve": "bls12381"}\[ "33"\]' ||
    fail "stdout (a file) does not hold the proof then the inputs: $(cat "$work/redirected")"

# ---- clashes refused before any work -------------------------------------
cp "$w" "$work/in.wtns"
sum_in=$(cksum <"$work/in.wtns")
printf 'old proof' >"$work/same.json"
expect_exit 2 "$PROOFLINE" prove "$z" "$work/in.wtns" "$work/same.json" "$work/same.json"
grep -q "same.json is given as two outputs" "$work/log" || fail "same output twice: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" prove "$z" "$work/in.wtns" "$work/same.json" "$work/../$(basename "$work")/./same.json"
grep -q "name the same file" "$work/log" || fail "same output, two spellings: $(cat "$work/log")"
[ "$(cat "$work/same.json")" = "old proof" ] || fail "a refused prove changed same.json"
expect_exit 2 "$PROOFLINE" prove "$z" "$work/in.wtns" "$work/in.wtns" "$work/p.json"
grep -q "in.wtns is also an input" "$work/log" || fail "output = input: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" prove "$z" "$work/in.wtns" "$work/p.json" "$work/q.json" --report "$z"
grep -q "circuit.zkey is also an input" "$work/log" || fail "--report = the zkey: $(cat "$work/log")"
[ "$(cksum <"$work/in.wtns")" = "$sum_in" ] || fail "the witness given as an output was changed"
[ -e "$work/p.json" ] && fail "a refused prove wrote p.json"

# ---- a failure keeps the previous pair -----------------------------------
expect_exit 0 "$PROOFLINE" prove "$z" "$w" "$work/pair.proof.json" "$work/pair.public.json"
cp "$work/pair.proof.json" "$work/kept.proof.json"
rm "$work/pair.public.json" && mkdir -p "$work/pair.public.json/x"
expect_exit 2 "$PROOFLINE" prove "$z" "$w" "$work/pair.proof.json" "$work/pair.public.json"
cmp -s "$work/pair.proof.json" "$work/kept.proof.json" || fail "a failed prove changed or removed proof.json"

# ---- figures: no planted symlink followed, no temporary left ---------------
printf 'precious' >"$work/victim"
for f in report.json trace.json memory.svg; do ln -s "$work/victim" "$work/$f.tmp"; done
expect_exit 0 "$PROOFLINE" prove "$z" "$w" "$work/f.proof.json" "$work/f.public.json" \
    --report "$work/report.json" --trace "$work/trace.json" --plot "$work/memory.svg"
[ "$(cat "$work/victim")" = precious ] || fail "a symlink planted at <figure>.tmp was followed"
for f in report.json trace.json memory.svg; do
    [ -f "$work/$f" ] && [ ! -L "$work/$f" ] || fail "$f is not a plain file"
done
left=$(ls "$work" | grep '\.tmp[A-Za-z0-9]\{6\}$' || true)
[ -z "$left" ] || fail "temporaries left: $left"

# ---- every writing command: no output over an input or another output ---
# clashes "CMD ARGS..." with {I0} {I1} ... for its inputs (the files given
# after --in) and {O0} {O1} ... for its outputs: each output set to each
# input, then each two outputs set to one file, every run refused with exit
# 2 and the file it names left as it was.
d="$work/clash"
mkdir -p "$d"
cp "$z" "$d/z.zkey"; cp "$w" "$d/w.wtns"; cp "$w" "$d/w2.wtns"
cp "$v/circuit.r1cs" "$d/c.r1cs"; cp "$v/proof_snarkjs.json" "$d/p.json"
cp "$v/proof_snarkjs.json" "$d/p2.json"; cp "$v/public.json" "$d/pub.json"
cp "$VECTORS/../../docs/costs/cpu-2core-measured.costs" "$d/c.costs"
"$PROOFLINE" setup --dev --format bellperson "$d/c.r1cs" "$d/c.params" "$d/c.vk" 2>/dev/null ||
    fail "setup --format bellperson for the clash cases"
"$PROOFLINE" convert "$d/p.json" "$d/b.proofs" || fail "convert for the clash cases"
"$PROOFLINE" convert "$d/pub.json" "$d/b.inputs" || fail "convert for the clash cases"
clash_run() { # text file-to-keep template-words...
    local text=$1 keep=$2 sum
    shift 2
    sum=$(cksum <"$keep")
    expect_exit 2 "$PROOFLINE" "$@"
    grep -qF -- "$text" "$work/log" || fail "$*: message lacks '$text': $(cat "$work/log")"
    [ "$(cksum <"$keep")" = "$sum" ] || fail "$*: $keep changed"
}
clashes() {
    local -a tmpl=() ins=()
    while [ "$1" != --in ]; do tmpl+=("$1"); shift; done
    shift
    ins=("$@")
    local n_out=0 word k j
    for word in "${tmpl[@]}"; do
        [[ $word =~ \{O([0-9])\} ]] && [ "${BASH_REMATCH[1]}" -ge "$n_out" ] &&
            n_out=$((BASH_REMATCH[1] + 1))
    done
    # subst OUT_k VALUE [OUT_l VALUE]: the template with the outputs given,
    # the others fresh names
    subst() {
        local -a args=()
        local word i
        for word in "${tmpl[@]}"; do
            for i in "${!ins[@]}"; do word=${word//"{I$i}"/${ins[$i]}}; done
            for ((i = 0; i < n_out; i++)); do
                if [ "$i" = "$1" ]; then word=${word//"{O$i}"/$2}
                elif [ "$i" = "${3:-}" ]; then word=${word//"{O$i}"/$4}
                else word=${word//"{O$i}"/$d/fresh$i.out}; fi
            done
            args+=("$word")
        done
        printf '%s\0' "${args[@]}"
    }
    for ((k = 0; k < n_out; k++)); do
        for j in "${!ins[@]}"; do
            mapfile -d '' -t args < <(subst "$k" "${ins[$j]}")
            clash_run "is also an input" "${ins[$j]}" "${args[@]}"
        done
        for ((j = k + 1; j < n_out; j++)); do
            printf 'old output' >"$d/twice.out"
            mapfile -d '' -t args < <(subst "$k" "$d/twice.out" "$j" "$d/twice.out")
            clash_run "is given as two outputs" "$d/twice.out" "${args[@]}"
        done
    done
    ls "$d" | grep -q fresh && fail "${tmpl[*]}: a refused run wrote $(ls "$d" | grep fresh)"
    return 0
}
clashes prove {I0} {I1} {O0} {O1} --check-witness --r1cs {I2} --report {O2} \
    --trace {O3} --plot {O4} --in "$d/z.zkey" "$d/w.wtns" "$d/c.r1cs"
clashes batch --zkey {I0} --r1cs {I1} --out "$d/out" --report {O0} --trace {O1} \
    --plot {O2} {I2} {I3} --in "$d/z.zkey" "$d/c.r1cs" "$d/w.wtns" "$d/w2.wtns"
clashes vkey {I0} {O0} --in "$d/z.zkey"
clashes vkey --format bellperson {I0} {O0} --in "$d/z.zkey"
clashes setup --dev {I0} {O0} --in "$d/c.r1cs"
clashes setup --dev --format bellperson {I0} {O0} {O1} --in "$d/c.r1cs"
clashes convert {I0} {I1} {O0} --in "$d/p.json" "$d/p2.json"
clashes convert {I0} {O0} --in "$d/pub.json"
clashes convert {I0} {O0} --in "$d/b.proofs"
clashes c2 --params {I0} --r1cs {I1} --proofs {O0} --inputs {O1} {I2} {I3} \
    --in "$d/c.params" "$d/c.r1cs" "$d/w.wtns" "$d/w2.wtns"
clashes plan --zkey {I0} --costs {I1} --witness {I2} --report {O0} --trace {O1} \
    --plot {O2} --in "$d/z.zkey" "$d/c.costs" "$d/w.wtns"
clashes plan --r1cs {I0} --costs {I1} --report {O0} --in "$d/c.r1cs" "$d/c.costs"
# outputs derived from the arguments: batch's DIR/<name>.proof.json over its
# zkey; circuit export's files named twice through a hard link, or one of
# them a folder: refused before the first is written
mkdir -p "$d/out" && cp "$z" "$d/out/w.proof.json"
clash_run "is also an input" "$d/out/w.proof.json" \
    batch --zkey "$d/out/w.proof.json" --out "$d/out" "$d/w.wtns"
mkdir -p "$d/exp" && printf 'old r1cs' >"$d/exp/circuit.r1cs" && ln "$d/exp/circuit.r1cs" "$d/exp/p1.wtns"
clash_run "name the same file" "$d/exp/circuit.r1cs" \
    circuit export --constraints 2^10 --partitions 2 --out "$d/exp"
[ -e "$d/exp/p0.wtns" ] && fail "a refused circuit export wrote p0.wtns"
rm "$d/exp/p1.wtns" && mkdir "$d/exp/p1.wtns"
clash_run "p1.wtns: is a folder" "$d/exp/circuit.r1cs" \
    circuit export --constraints 2^10 --partitions 2 --out "$d/exp"
# calibrate's --out is checked before its minutes of measuring
timeout 10 "$PROOFLINE" calibrate --out "$d" --cache "$d/cal" >"$work/stdout" 2>"$work/log" && rc=0 || rc=$?
[ "$rc" = 2 ] && grep -q "is a folder" "$work/log" ||
    fail "calibrate --out a folder: exit $rc (124: it ran), $(cat "$work/log")"
[ -e "$d/cal" ] && fail "a refused calibrate made its cache"

finish "outputs: ok"
