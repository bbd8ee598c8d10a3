#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline plan` (docs/plan.md): the answer first and its exit code (0
# fits, 1 out of memory) on the story's preset with both policies; the
# report, trace and plot a run writes, from a plan; a plan and a `batch` run
# side by side with the same peak reserved (a budget of one partition);
# costs files and usage errors naming what is wrong; `calibrate`'s usage.
. "$(dirname "$0")/lib.sh"
c="$VECTORS/chain10"

# the story: pw 12 with the permit returned at synthesis end runs out of
# memory with synthesized partitions piled up; the engine's policy fits
expect_exit 1 "$PROOFLINE" plan --preset filecoin-porep-32g --pw 12 --jobs 100 \
    --policy release-at-synthesis-end
head -1 "$work/stdout" | grep -q "^plan: runs out of memory at t = 10.0 min (600 s): 12 synthesis workers make a partition every 3.3 s, the GPU proves one every 3.7 s: the queue grows by one every 33 s, each holding 20.9GiB, until 755.0GiB is reached at 600 s$" ||
    fail "story policy: $(head -1 "$work/stdout")"
sed -n 2p "$work/stdout" | grep -q "^  then: 42 partitions in flight (.*29 waiting" ||
    fail "story policy, then: $(sed -n 2p "$work/stdout")"
grep -q "^change: --pw 10 fits (the most synthesis workers that do); or a byte budget fits: --budget 604.0GiB" "$work/stdout" ||
    fail "no smallest change: $(grep change "$work/stdout")"
# by default a steady state: enough jobs that pw 12 runs out with the
# story's policy and pw 10 does not; with ours both fit, and the sentence
# says who sets the pace
expect_exit 1 "$PROOFLINE" plan --preset filecoin-porep-32g --pw 12 \
    --policy release-at-synthesis-end --plot "$work/oom.svg"
grep -q "^load: 65 jobs of 10 partitions, all at once (enough for a steady state" "$work/stdout" ||
    fail "steady state: $(grep load "$work/stdout")"
grep -q "^change: --pw 10 fits" "$work/stdout" || fail "steady state, change: $(grep change "$work/stdout")"
# pw 11 with nothing to hold it back: its queue grows by one every 183 s,
# so 60 jobs end before the memory is reached; the steady state doubles the
# load until it runs out (before: "fits", the budget and the hand-off said
# to hold back a queue that had no budget, and --pw 11 the smallest change)
expect_exit 1 "$PROOFLINE" plan --preset filecoin-porep-32g --pw 11 --policy release-at-synthesis-end
head -1 "$work/stdout" | grep -q "^plan: runs out of memory at t = .*: the queue grows by one every 183 s" ||
    fail "pw 11, steady state: $(head -1 "$work/stdout")"
grep -q "^load: 120 jobs of 10 partitions" "$work/stdout" || fail "pw 11 load: $(grep load "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --preset filecoin-porep-32g --pw 11 --jobs 60 --policy release-at-synthesis-end
head -1 "$work/stdout" | grep -q "^plan: fits: .*: synthesis feeds faster than the GPU drains and nothing holds it back (no budget, the permit returned at synthesis end): the queue grows by one every 183 s, each holding 20.9GiB, and this load ends (at most 22 waiting) before 755.0GiB is reached; a longer one runs out of memory$" ||
    fail "pw 11, 60 jobs: $(head -1 "$work/stdout")"
python3 - "$work/oom.svg" <<'PY' || fail "the plot's memory line and out-of-memory mark"
import re, sys
svg = open(sys.argv[1]).read()
m = re.search(r'class="memory" data-memory="(\d+)"', svg)
assert m and int(m.group(1)) == 755 << 30, "no memory line"
o = re.search(r'class="oom" data-oom-seconds="([0-9.]+)"', svg)
assert o and abs(float(o.group(1)) - 600) < 1, "no out-of-memory mark"
assert "out of memory at t = 600 s" in svg
PY
expect_exit 0 "$PROOFLINE" plan --preset filecoin-porep-32g --pw 10 --policy release-at-synthesis-end
head -1 "$work/stdout" | grep -q "^plan: fits: peak host memory .*: 10 synthesis workers make a partition every 4.0 s, the GPU proves one every 3.7 s: the GPU keeps up (at most 9 waiting), so synthesis sets the pace$" ||
    fail "pw 10: $(head -1 "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --preset filecoin-porep-32g --pw 12
head -1 "$work/stdout" | grep -q "^plan: fits: .*: 12 synthesis workers make a partition every 3.3 s, the GPU proves one every 3.7 s: synthesis feeds faster than the GPU drains, and the budget and the hand-off hold it back (at most 11 waiting), so the GPU sets the pace$" ||
    fail "pw 12 ours: $(head -1 "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --preset filecoin-porep-32g --pw 12 --jobs 100 \
    --report "$work/story.json" --trace "$work/story-trace.json" --plot "$work/story.svg"
head -1 "$work/stdout" | grep -q "^plan: fits: peak host memory" || fail "ours: $(head -1 "$work/stdout")"
grep -q "^bottleneck: proving (start)" "$work/stdout" || fail "ours: no GPU bottleneck"
grep -q "ESTIMATED" "$work/stdout" || fail "the preset's costs are not marked estimated"
python3 - "$work/story.json" "$work/story-trace.json" "$work/story.svg" <<'PY' || fail "the plan's figures"
import json, sys, xml.dom.minidom
r = json.load(open(sys.argv[1]))
assert r["proofs"] == 1000 and r["config"]["pw"] == 12, r
m = r["memory"]
assert 0 < m["peak_reserved_bytes"] <= m["budget_bytes"] and m["balanced"], m
assert m["stages"]["waiting"]["peak"] <= 12, m["stages"]
t = json.load(open(sys.argv[2]))["traceEvents"]
assert sum(1 for e in t if e.get("ph") == "X" and e["name"] == "proving") == 1000
xml.dom.minidom.parse(sys.argv[3])
PY
# a GPU too small for the circuit's device buffers is the answer, exit 1
expect_exit 1 "$PROOFLINE" plan --preset filecoin-porep-32g --jobs 10 --gpu-memory 40GiB
head -1 "$work/stdout" | grep -q "^plan: the circuit does not fit a GPU: its device buffers take .* of the GPU's 40.0GiB" ||
    fail "small GPU: $(head -1 "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --preset filecoin-porep-32g --jobs 10 --gpu-memory 141GiB
grep -q "^  device, per GPU .* of 141.0GiB" "$work/stdout" || fail "no device line: $(cat "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --preset filecoin-porep-32g --jobs 20 --recommend
grep -q "^recommend: --pw [0-9]* --workers 1 --budget " "$work/stdout" || fail "no recommendation"

# a plan and a run side by side: chain10, three witnesses, pw 1, a budget
# of one partition: the same peak reserved, to the byte
printf 'profile test\ncores 1\nsynth 0.01 0\nprove 0.05 0\nfinish 0.001 0\n' >"$work/t.costs"
for i in 1 2 3; do ln -s "$c/witness.wtns" "$work/w$i.wtns"; done
eval "$("$PROOFLINE" batch --zkey "$c/circuit.zkey" --out "$work/out" --print-plan "$work/w1.wtns")"
budget=$((resident_bytes + partition_bytes))
expect_exit 0 "$PROOFLINE" batch --zkey "$c/circuit.zkey" --out "$work/out" --backend cpu \
    --pw 1 --budget "$budget" --quiet --report "$work/run.json" "$work"/w*.wtns
expect_exit 0 "$PROOFLINE" plan --zkey "$c/circuit.zkey" --witness "$c/witness.wtns" \
    --costs "$work/t.costs" --pw 1 --budget "$budget" --jobs 3 --report "$work/plan.json"
python3 - "$work/run.json" "$work/plan.json" <<'PY' || fail "plan and run differ"
import json, sys
run, plan = (json.load(open(p)) for p in sys.argv[1:])
assert run["memory"]["peak_reserved_bytes"] == plan["memory"]["peak_reserved_bytes"], \
    (run["memory"]["peak_reserved_bytes"], plan["memory"]["peak_reserved_bytes"])
assert run["proofs"] == plan["proofs"] == 3
PY

# the circuit from an r1cs header gives chain10's domain
expect_exit 0 "$PROOFLINE" plan --r1cs "$c/circuit.r1cs" --costs "$work/t.costs" --jobs 2
grep -q "^circuit: bls12381, domain 2^" "$work/stdout" || fail "r1cs: $(cat "$work/stdout")"
expect_exit 2 "$PROOFLINE" plan --zkey "$work/missing.zkey" --costs "$work/t.costs"
grep -q "missing.zkey" "$work/log" || fail "missing zkey: $(cat "$work/log")"

# costs and usage errors name what is wrong
printf 'profile x\nsynth 1 0\nprove 1\nfinish 0 0\n' >"$work/bad.costs"
expect_exit 2 "$PROOFLINE" plan --constraints 2^16 --costs "$work/bad.costs"
grep -q "bad.costs:3: prove" "$work/log" || fail "bad costs: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" plan --preset filecoin-porep-16g
grep -q "filecoin-porep-16g" "$work/log" || fail "unknown preset: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" plan --costs "$work/t.costs"
expect_exit 2 "$PROOFLINE" plan --constraints 2^16
grep -q -- "--costs FILE" "$work/log" || fail "no costs: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" plan --preset filecoin-porep-32g --arrival soon
expect_exit 0 "$PROOFLINE" plan --preset filecoin-porep-32g --arrival 1/60s --jobs 30
grep -q "one job every 60.0 s" "$work/stdout" || fail "arrival: $(cat "$work/stdout")"
expect_exit 2 "$PROOFLINE" plan --constraints 2^16 --costs "$work/t.costs" --budget 56MiB
grep -q "smallest budget" "$work/log" || fail "never fits: $(cat "$work/log")"
# stage costs per curve: a bn128 zkey takes the file's BN254 stages; a
# file without a `curve` line is BLS12-381's, refused for a bn128 circuit
bn="$VECTORS/bn254/chain10"
expect_exit 2 "$PROOFLINE" plan --zkey "$bn/circuit.zkey" --costs "$work/t.costs"
grep -q "the circuit is for curve bn128, but the costs (profile .*) give stage costs for bls12381 only" \
    "$work/log" || fail "bn128 zkey, BLS costs: $(cat "$work/log")"
{ cat "$work/t.costs"; printf 'curve bn128\nsynth 0 1e-07\nprove 0.001 1e-06\nfinish 0.001 1e-08\n'; } \
    >"$work/two.costs"
expect_exit 0 "$PROOFLINE" plan --zkey "$bn/circuit.zkey" --costs "$work/two.costs" --jobs 2
grep -q "^circuit: bn128, domain 2^" "$work/stdout" || fail "bn128 zkey: $(cat "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --r1cs "$bn/circuit.r1cs" --costs "$work/two.costs" --jobs 2
grep -q "^circuit: bn128, domain 2^" "$work/stdout" || fail "bn128 r1cs: $(cat "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --zkey "$c/circuit.zkey" --costs "$work/two.costs" --jobs 2
grep -q "^circuit: bls12381, domain 2^" "$work/stdout" || fail "BLS zkey, two curves: $(cat "$work/stdout")"
expect_exit 0 "$PROOFLINE" plan --constraints 2^16 --curve bn128 --costs "$work/two.costs" --jobs 2
grep -q "^circuit: bn128, domain 2^17" "$work/stdout" || fail "--curve bn128: $(cat "$work/stdout")"
expect_exit 2 "$PROOFLINE" plan --constraints 2^16 --curve bn128 --costs "$work/t.costs"
expect_exit 2 "$PROOFLINE" plan --zkey "$bn/circuit.zkey" --curve bn128 --costs "$work/two.costs"
grep -q -- "--curve goes with --constraints" "$work/log" || fail "--curve with --zkey: $(cat "$work/log")"
printf 'synth 0 0\nprove 0 0\nfinish 0 0\ncurve bn128\nsynth 0 0\n' >"$work/part.costs"
expect_exit 2 "$PROOFLINE" plan --constraints 2^16 --costs "$work/part.costs"
grep -q "part.costs: curve bn128: prove: missing" "$work/log" || fail "partial bn128: $(cat "$work/log")"
expect_exit 0 "$PROOFLINE" calibrate --help
expect_exit 2 "$PROOFLINE" calibrate --sizes 12,x
finish "cli_plan: ok"
