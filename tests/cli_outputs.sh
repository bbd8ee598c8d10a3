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
#    <path>.tmp, and no temporary is left behind.
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

finish "outputs: ok"
