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
head -1 "$work/stdout" | grep -q "^plan: runs out of memory at t = .* with 42 partitions in flight (.*29 waiting" ||
    fail "story policy: $(head -1 "$work/stdout")"
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
grep -q "^circuit: domain 2^" "$work/stdout" || fail "r1cs: $(cat "$work/stdout")"
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
expect_exit 0 "$PROOFLINE" calibrate --help
expect_exit 2 "$PROOFLINE" calibrate --sizes 12,x
finish "cli_plan: ok"
