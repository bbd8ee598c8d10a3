#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make bench-classes: the story's mix at small scale (issue 19), not part of
# make test.  A `proofline serve` (loopback, a budget for SERVE_PARTS large
# partitions) receives a queue of normal jobs of a large circuit (2^LARGE,
# the demo circuit; kept at NORMAL waiting jobs throughout) and, every GAP
# seconds, one job of a small circuit (2^SMALL), twice:
#   - classes: the small jobs are `critical`;
#   - none: the small jobs are `normal` like the rest;
# and prints key=value lines: the small jobs' latency from submit to proof
# on the client's disk (p50, p99) in each run, their ratio, and the large
# jobs' throughput in each run over the same window (what the classes cost
# them).  Every small proof is verified.  Ratios, not seconds, mean
# something on a shared machine.
#   CLASSES_LARGE=16 CLASSES_SMALL=10 CLASSES_NORMAL=12 CLASSES_SMALL_JOBS=8
#   CLASSES_GAP=1 SERVE_PARTS=2 SERVE_PW=2
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
bin="$build/proofline"
work="$build/bench/classes"
large=${CLASSES_LARGE:-16} small=${CLASSES_SMALL:-10}
n_normal=${CLASSES_NORMAL:-12} n_small=${CLASSES_SMALL_JOBS:-8}
gap=${CLASSES_GAP:-1} parts=${SERVE_PARTS:-2} pw=${SERVE_PW:-2}
mkdir -p "$work"
[ -x "$bin" ] || { echo "serve_classes: no $bin (make build first)" >&2; exit 2; }
command -v curl >/dev/null || { echo "serve_classes: needs curl" >&2; exit 2; }

pct() { sort -g | awk -v p="$1" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; printf "%.3f", a[i] }'; }
srv_pid=""
stop_service() {
    [ -n "$srv_pid" ] && { kill -TERM "$srv_pid" 2>/dev/null || true; wait "$srv_pid" 2>/dev/null || true; }
    srv_pid=""
}
trap stop_service EXIT

make_circuit() { # k: the demo circuit at 2^k, one witness, its zkey (cached)
    local d="$work/k$1"
    if [ ! -f "$d/circuit.zkey" ]; then
        echo "serve_classes: the 2^$1 circuit" >&2
        "$bin" circuit export --constraints "2^$1" --out "$d" >/dev/null
        "$bin" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey" 2>/dev/null
        "$bin" vkey "$d/circuit.zkey" "$d/vkey.json"
    fi
}
make_circuit "$large"
make_circuit "$small"
L=$work/k$large S=$work/k$small
"$bin" batch --zkey "$L/circuit.zkey" --out "$work/plan" --print-plan "$L/p0.wtns" >"$work/plan.txt"
part=$(sed -n 's/^partition_bytes=//p' "$work/plan.txt")
resident=$(sed -n 's/^resident_bytes=//p' "$work/plan.txt")
"$bin" batch --zkey "$S/circuit.zkey" --out "$work/plan" --print-plan "$S/p0.wtns" >"$work/plan-small.txt"
resident_small=$(sed -n 's/^resident_bytes=//p' "$work/plan-small.txt")
# both circuits resident and `parts` large partitions, nothing more: a
# small partition is claimed only in room a large one gave back, so it
# waits its turn (without classes) or goes first (critical)
budget=$((resident + resident_small + parts * part))

run() { # name small_priority: one run; key=value lines
    local name=$1 prio=$2 data="$work/data-$1" i
    rm -rf "$data"; mkdir -p "$data"
    "$bin" serve --listen 127.0.0.1:0 --data "$data" --budget "$budget" --pw "$pw" \
        --backend cpu --log-level quiet 2>"$work/serve-$name.log" &
    srv_pid=$!
    for i in $(seq 600); do [ -s "$data/listen.addr" ] && break; sleep 0.1; done
    local url="http://$(cat "$data/listen.addr")"
    local lid sid
    lid=$("$bin" submit --server "$url" --zkey "$L/circuit.zkey" --priority normal "$L/p0.wtns")
    local t_start; t_start=$(date +%s.%N)
    local lcid scid feeder
    lcid=$(sha256sum "$L/circuit.zkey" | cut -d' ' -f1)
    for i in $(seq 2 "$n_normal"); do # registered: by id, no hashing
        "$bin" submit --server "$url" --circuit "$lcid" --priority normal "$L/p0.wtns" >/dev/null
    done
    # the large queue never runs dry while the small jobs come: topped up
    # to n_normal waiting partitions
    rm -f "$work/stop-feeder"
    (
        while [ ! -e "$work/stop-feeder" ]; do
            q=$(curl -sS "$url/v1/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["queue"]["normal"])' 2>/dev/null || echo "$n_normal")
            if [ "$q" -lt "$n_normal" ]; then
                "$bin" submit --server "$url" --circuit "$lcid" --priority normal "$L/p0.wtns" >/dev/null || true
            else
                sleep 0.2
            fi
        done
    ) &
    feeder=$!
    curl -sS -o /dev/null -H 'Content-Type: application/octet-stream' \
        --data-binary "@$S/circuit.zkey" "$url/v1/circuits" # registered
    scid=$(sha256sum "$S/circuit.zkey" | cut -d' ' -f1)
    : >"$work/lat-$name"
    for i in $(seq "$n_small"); do
        sleep "$gap"
        local t0 t1
        t0=$(date +%s.%N)
        "$bin" submit --server "$url" --circuit "$scid" --priority "$prio" --wait \
            --out "$work/out-$name-$i" "$S/p0.wtns" >/dev/null
        t1=$(date +%s.%N)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >>"$work/lat-$name"
        for p in "$work/out-$name-$i"/*.proof.json; do
            "$bin" verify "$S/vkey.json" "${p%.proof.json}.public.json" "$p" >/dev/null ||
                { echo "serve_classes: $name: a small proof does not verify" >&2; exit 1; }
        done
    done
    local t_end; t_end=$(date +%s.%N)
    touch "$work/stop-feeder"; wait "$feeder" 2>/dev/null || true
    # large jobs done within the window
    local done_n
    done_n=$("$bin" jobs --server "$url" --state done --limit 1000 --json |
        python3 -c 'import json,sys; print(sum(1 for j in json.load(sys.stdin)["jobs"] if j["circuit"] != sys.argv[1]))' \
            "$(sha256sum "$S/circuit.zkey" | cut -d' ' -f1)")
    stop_service
    local window; window=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.3f", b - a }')
    echo "classes_run=$name small_priority=$prio small_p50_s=$(pct 50 <"$work/lat-$name")" \
         "small_p99_s=$(pct 99 <"$work/lat-$name") large_done=$done_n window_s=$window" \
         "large_per_min=$(awk -v n="$done_n" -v w="$window" 'BEGIN { printf "%.2f", 60 * n / w }')"
}

echo "classes_config large=2^$large small=2^$small normal_jobs=$n_normal small_jobs=$n_small gap_s=$gap budget=$budget pw=$pw"
run none normal | tee "$work/none.txt"
run classes critical | tee "$work/classes.txt"
python3 - "$work/none.txt" "$work/classes.txt" <<'EOF'
import sys
def kv(p):
    return dict(x.split("=", 1) for x in open(p).read().split())
a, b = kv(sys.argv[1]), kv(sys.argv[2])
print("classes_small_p50_ratio=%.2f classes_small_p99_ratio=%.2f "
      "classes_large_throughput_ratio=%.2f" % (
      float(b["small_p50_s"]) / float(a["small_p50_s"]),
      float(b["small_p99_s"]) / float(a["small_p99_s"]),
      float(b["large_per_min"]) / max(float(a["large_per_min"]), 1e-9)))
EOF
