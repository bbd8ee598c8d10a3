#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ledger's outputs from `proofline batch`: one logfmt line per event per
# partition in the stable format (docs/ledger.md; each witness is its own
# job, so jobs 1 to 5 of one partition each), trace.json that parses and
# holds spans and counter tracks for every partition, with the prover's
# stages inside each partition's proving span (each MSM, the NTT) and its
# G2 MSM on a pl-g2msm track, memory.svg that is well-formed XML with one
# series per class that was live, the RSS lines and a lane per stage, and a
# balanced summary.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
v="$VECTORS/chain10"
for i in 1 2 3 4 5; do ln -s "$v/witness.wtns" "$work/p$i.wtns"; done
# two prover workers: G2 MSMs of different partitions overlap, and each
# must keep its own partition's tags
"$PROOFLINE" batch --zkey "$v/circuit.zkey" --out "$work/out" --budget 3MiB \
    --workers 2 --threads 2 \
    --trace "$work/trace.json" --plot "$work/memory.svg" "$work"/p*.wtns 2>"$work/log"
grep -q "^ledger balanced" "$work/log"
line="^ts=[0-9-]*T[0-9:.]*Z t=[0-9.]* log=ledger event=EV job=[1-5] part=0"
line="$line stage.admitted=[0-9]* stage.synth=[0-9]* stage.waiting=[0-9]* stage.proving=[0-9]* stage.finishing=[0-9]*"
line="$line buf.params=[0-9]*/[0-9.]*[KMGT]*i*B buf.csr=[0-9]*/[^ ]* buf.witness=[0-9]*/[^ ]*"
line="$line .* tracked=[^ ]* reserved=[^ ]* budget=3.0MiB rss_anon=[^ ]* rss_file=[^ ]* rss=[^ ]* untracked=-*[0-9.]*[KMGT]*i*B$"
for ev in admitted synth_start synth_done handed_off prove_start abc_freed prove_done finalize_done dealloc_done; do
    n=$(grep -c "${line/EV/$ev}" "$work/log" || true)
    [ "$n" = 5 ] || { echo "FAIL: event $ev logged $n times, wanted 5"; exit 1; }
done
grep -q "^  peak rss .* (rss_anon + rss_file; peak rss_file .*), now rss .* = rss_anon .* + rss_file " "$work/log" ||
    { echo "FAIL: no total RSS in the summary"; exit 1; }
python3 - "$work/trace.json" "$work/memory.svg" <<'PY'
import json, sys, xml.dom.minidom
trace = json.load(open(sys.argv[1]))["traceEvents"]
spans = {}
for e in trace:
    if e.get("ph") == "X":
        spans.setdefault(e["name"], set()).add((e["args"]["job"], e["args"]["part"]))
for name in ("synth", "proving", "deliver"):
    assert spans.get(name) == {(j, 0) for j in range(1, 6)}, (name, spans.get(name))
asyncs = {e["name"] for e in trace if e.get("ph") in ("b", "e")}
assert {"waiting", "finishing"} <= asyncs, asyncs
counters = {e["name"] for e in trace if e.get("ph") == "C"}
assert {"bytes by class", "reserved", "rss"} <= counters, counters
rss = [e["args"] for e in trace if e.get("ph") == "C" and e["name"] == "rss"]
assert all(a["rss"] == a["rss_anon"] + a["rss_file"] for a in rss), rss[:3]

# the prover's stages: each MSM and the NTT inside its partition's proving
# span, on the same thread; synthesize inside synth; the G2 MSM on a
# pl-g2msm track, between its partition's prove_start and prove_done
threads = {e["tid"]: e["args"]["name"] for e in trace if e.get("ph") == "M"}
def span_of(name, job):
    found = [e for e in trace if e.get("ph") == "X" and e["name"] == name
             and e["args"]["job"] == job and e["args"]["part"] == 0]
    assert len(found) == 1, (name, job, found)
    return found[0]
# (ends compared as the file's sums: a stage that ends its span, as the
# last G1 sum ends proving, is inside it to within a float's rounding)
def inside(inner, outer):
    return (outer["ts"] <= inner["ts"] and
            inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-6)
for job in range(1, 6):
    proving = span_of("proving", job)
    for stage in ("ntt", "h", "msm_h", "msm_a", "msm_b1", "msm_c"):
        s = span_of(stage, job)
        assert s["tid"] == proving["tid"] and inside(s, proving), (stage, s, proving)
    synth = span_of("synth", job)
    s = span_of("synthesize", job)
    assert s["tid"] == synth["tid"] and inside(s, synth), (s, synth)
    g2 = span_of("g2_msm", job)
    assert threads[g2["tid"]].startswith("pl-g2msm"), threads[g2["tid"]]
    finishing = [e for e in trace if e.get("ph") in ("b", "e") and
                 e["name"] == "finishing" and e["args"]["job"] == job]
    done = max(e["ts"] for e in finishing)
    assert proving["ts"] <= g2["ts"] and g2["ts"] + g2["dur"] <= done, (g2, proving, done)
    for stage in ("g2_join", "assemble"):
        assert threads[span_of(stage, job)["tid"]] == "pl-finish", stage
# no two spans on one pl-g2msm track overlap
g2 = sorted((e for e in trace if e.get("ph") == "X" and e["name"] == "g2_msm"),
            key=lambda e: (e["tid"], e["ts"]))
for a, b in zip(g2, g2[1:]):
    assert a["tid"] != b["tid"] or a["ts"] + a["dur"] <= b["ts"], (a, b)

# one series per class that was live in some record (h lives only inside
# prove_start, between two events, so only a timer sample can catch it)
live = set()
for e in trace:
    if e.get("ph") == "C" and e["name"] == "bytes by class":
        live |= {k for k, v in e["args"].items() if v}
assert {"csr", "witness", "abc", "msm_scratch", "pending", "params"} <= live, live
svg = xml.dom.minidom.parse(sys.argv[2])
polygons = svg.getElementsByTagName("polygon")
series = [p.getAttribute("data-class") for p in polygons
          if p.getAttribute("class") == "series"]
assert sorted(series) == sorted(live), (series, live)
lines = [p.getAttribute("data-line") for p in svg.getElementsByTagName("polyline")]
assert set(lines) == {"budget", "reserved", "rss_anon", "rss"}, lines
lanes = {p.getAttribute("data-stage"): int(p.getAttribute("data-peak"))
         for p in polygons if p.getAttribute("class") == "lane"}
assert set(lanes) == {"admitted", "synth", "waiting", "proving", "finishing"}, lanes
assert lanes["proving"] >= 1, lanes
print("trace and plot: ok")
PY
