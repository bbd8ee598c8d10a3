#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline demo` on a small job: 2 partitions of ~2^12 constraints.
# The first run records the circuit and makes the key; every proof is
# verified, the ledger balances, the trace, the plot and the proofs are
# written (and snarkjs accepts one); a second run reuses the cache; the
# cache's note is written through the library's output path (a planted
# symlink replaced, not followed); with --log (as `make demo` runs it) the
# ledger's lines and summary go to that file alone, and the terminal gets
# the short account that names it.
. "$(dirname "$0")/lib.sh"
run() { "$PROOFLINE" demo --partitions 2 --constraints 2^12 --pw 2 --budget 256MiB --cache "$work/cache" \
    --log-level quiet >"$work/out" 2>"$work/err"; }

run || fail "demo exit $?: $(cat "$work/out" "$work/err")"
grep -q "^demo: 2 proved, 2 verified, 0 failed" "$work/out" || fail "not 2 verified: $(cat "$work/out")"
grep -q "^ledger balanced" "$work/out" || fail "ledger not balanced: $(cat "$work/out")"
grep -q "recorded in" "$work/out" || fail "first run did not record: $(cat "$work/out")"
grep -q "proofs/hour" "$work/out" || fail "no throughput"
grep -q "^synthesis per partition: witness" "$work/out" || fail "no synthesis share"
for f in last-run/trace.json last-run/memory.svg last-run/proofs/p0.proof.json last-run/proofs/p1.public.json; do
    [ -s "$work/cache/$f" ] || fail "no $f"
done
vk=$(ls "$work"/cache/porep-*/verification_key.json)
"$PROOFLINE" verify "$vk" "$work/cache/last-run/proofs/p1.public.json" "$work/cache/last-run/proofs/p1.proof.json" \
    >/dev/null || fail "proofline verify rejects p1"
if have_snarkjs; then
    "$snarkjs" groth16 verify "$vk" "$work/cache/last-run/proofs/p0.public.json" \
        "$work/cache/last-run/proofs/p0.proof.json" | grep -q OK || fail "snarkjs rejects p0"
fi

run || fail "second demo exit $?: $(cat "$work/out" "$work/err")"
grep -q "(reused" "$work/out" || fail "second run did not reuse the cache: $(cat "$work/out")"
grep -q "^demo: 2 proved, 2 verified" "$work/out" || fail "second run: $(cat "$work/out")"

# The cache's note goes through the one output path: a symlink planted at
# its name (holding no note, so the cache is rebuilt) is replaced, not
# followed, and no temporary is left beside it.
meta=$(ls "$work"/cache/porep-*/meta.txt)
printf 'stale\n' >"$work/outside"
rm "$meta" && ln -s "$work/outside" "$meta"
run || fail "third demo exit $?: $(cat "$work/out" "$work/err")"
grep -q "recorded in" "$work/out" || fail "a note not readable did not rebuild: $(cat "$work/out")"
[ "$(cat "$work/outside")" = stale ] || fail "the note was written through a planted symlink"
[ -f "$meta" ] && [ ! -L "$meta" ] || fail "the note is not a regular file: $(ls -l "$meta")"
grep -q "^setup_seconds=" "$meta" || fail "the note lacks its times: $(cat "$meta")"
if ls "$(dirname "$meta")" | grep -q '\.tmp'; then
    fail "a temporary is left: $(ls "$(dirname "$meta")")"
fi

# --log: the ledger at its default level, into the file; stdout the
# account of the run, its last line naming the log; nothing on stderr
"$PROOFLINE" demo --partitions 2 --constraints 2^12 --pw 2 --budget 256MiB --cache "$work/cache" \
    --log "$work/demo.log" >"$work/out" 2>"$work/err" || fail "demo --log exit $?: $(cat "$work/out" "$work/err")"
grep -q "^demo: 2 proved, 2 verified, 0 failed" "$work/out" || fail "demo --log: $(cat "$work/out")"
! grep -q "log=ledger\|^ledger" "$work/out" "$work/err" ||
    fail "demo --log: ledger lines on the terminal: $(grep -c "log=ledger" "$work/out" "$work/err")"
[ ! -s "$work/err" ] || fail "demo --log wrote to stderr: $(head -3 "$work/err")"
[ "$(grep -c "log=ledger event=" "$work/demo.log")" -ge 8 ] || fail "demo.log: $(head -3 "$work/demo.log")"
grep -q "^ledger balanced" "$work/demo.log" || fail "demo.log has no ledger summary"
[ "$(tail -n 1 "$work/out")" = "log: $work/demo.log (the ledger's lines and its summary)" ] ||
    fail "demo --log's last line: $(tail -n 1 "$work/out")"
[ "$(wc -l <"$work/out")" -le 15 ] || fail "demo --log printed $(wc -l <"$work/out") lines"

expect_exit 2 "$PROOFLINE" demo --partitions 0

finish "demo: ok"
