#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ledger's outputs from `proofline batch`: one log line per event per
# partition in the stable format, trace.json that parses and holds spans and
# counter tracks for every partition, memory.svg that is well-formed XML
# with one series per class that was live, and a balanced summary.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
v="$VECTORS/chain10"
for i in 1 2 3 4 5; do ln -s "$v/witness.wtns" "$work/p$i.wtns"; done
"$PROOFLINE" batch --zkey "$v/circuit.zkey" --out "$work/out" --budget 3MiB \
    --trace "$work/trace.json" --plot "$work/memory.svg" "$work"/p*.wtns 2>"$work/log"
grep -q "^ledger balanced" "$work/log"
for ev in admitted synth_start synth_done handed_off prove_start abc_freed prove_done finalize_done dealloc_done; do
    n=$(grep -c "^ledger event=$ev job=1 part=[0-9]* | stages admitted=[0-9]* synth=[0-9]* waiting=[0-9]* proving=[0-9]* finishing=[0-9]* | witness [0-9]*/" "$work/log" || true)
    [ "$n" = 5 ] || { echo "FAIL: event $ev logged $n times, wanted 5"; exit 1; }
done
python3 - "$work/trace.json" "$work/memory.svg" <<'PY'
import json, sys, xml.dom.minidom
trace = json.load(open(sys.argv[1]))["traceEvents"]
spans = {}
for e in trace:
    if e.get("ph") == "X":
        spans.setdefault(e["name"], set()).add(e["args"]["part"])
for name in ("synth", "proving", "deliver"):
    assert spans.get(name) == set(range(5)), (name, spans.get(name))
asyncs = {e["name"] for e in trace if e.get("ph") in ("b", "e")}
assert {"waiting", "finishing"} <= asyncs, asyncs
counters = {e["name"] for e in trace if e.get("ph") == "C"}
assert {"bytes by class", "reserved", "rss"} <= counters, counters
# one series per class that was live in some record (h lives only inside
# prove_start, between two events, so only a timer sample can catch it)
live = set()
for e in trace:
    if e.get("ph") == "C" and e["name"] == "bytes by class":
        live |= {k for k, v in e["args"].items() if v}
assert {"csr", "witness", "abc", "msm_scratch", "pending", "params"} <= live, live
svg = xml.dom.minidom.parse(sys.argv[2])
series = [p.getAttribute("data-class") for p in svg.getElementsByTagName("polygon")]
assert sorted(series) == sorted(live), (series, live)
lines = [p.getAttribute("data-line") for p in svg.getElementsByTagName("polyline")]
assert set(lines) == {"budget", "reserved", "rss_anon"}, lines
print("trace and plot: ok")
PY
