#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline demo` on a small job: 2 partitions of ~2^12 constraints.
# The first run records the circuit and makes the key; every proof is
# verified, the ledger balances, the trace, the plot and the proofs are
# written (and snarkjs accepts one); a second run reuses the cache.
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

expect_exit 2 "$PROOFLINE" demo --partitions 0

finish "demo: ok"
