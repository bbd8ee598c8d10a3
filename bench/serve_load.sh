#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make bench-serve: `proofline serve` under load, against `proofline batch`
# on the same witnesses in the same run (not part of make test; ratios, not
# timings, mean something on a shared machine).  For each circuit size
# (2^12 and 2^16, the demo circuit of `proofline circuit export`, its zkey
# from `setup --dev`) and each client count K (1, 4, 16):
#   - `proofline batch` proves the M witnesses (the baseline: proofs/s),
#     again before each K, so that each ratio pairs runs under one load;
#   - one service (loopback, a fresh --data, the same budget and --pw)
#     takes M jobs of one witness each from K concurrent clients, each
#     `proofline submit --wait --out` one job after another;
# and prints key=value lines: proofs/s of each and their ratio, p50 and
# p99 of the latency from submit to the proof on the client's disk, the
# service's idle RssAnon (after the circuit is registered, and again after
# the load), and its peak RssAnon (sampled every 50 ms) against the budget.
# Every proof of the last run is verified (proofline verify).
#   SERVE_SIZES="12 16"  SERVE_CLIENTS="1 4 16"  SERVE_JOBS_12=48
#   SERVE_JOBS_16=16  SERVE_PW=2  SERVE_PARTS=3 (the budget: the circuit's
#   resident bytes + SERVE_PARTS partitions, as bench/run.sh sizes it)
# Circuits and zkeys are generated into $BUILD/bench/serve and kept.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
bin="$build/proofline"
work="$build/bench/serve"
sizes=${SERVE_SIZES:-"12 16"}
clients=${SERVE_CLIENTS:-"1 4 16"}
pw=${SERVE_PW:-2}
parts=${SERVE_PARTS:-3}
mkdir -p "$work"
[ -x "$bin" ] || { echo "serve_load: no $bin (make build first)" >&2; exit 2; }
command -v curl >/dev/null || { echo "serve_load: needs curl" >&2; exit 2; }

now() { date +%s.%N; }
rss_anon_kib() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
# p-th percentile (nearest rank) of the numbers on stdin
pct() { sort -g | awk -v p="$1" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; printf "%.3f", a[i] }'; }

srv_pid="" sampler_pid=""
stop_service() {
    [ -n "$sampler_pid" ] && { kill "$sampler_pid" 2>/dev/null || true; wait "$sampler_pid" 2>/dev/null || true; }
    [ -n "$srv_pid" ] && { kill -TERM "$srv_pid" 2>/dev/null || true; wait "$srv_pid" 2>/dev/null || true; }
    srv_pid="" sampler_pid=""
}
trap stop_service EXIT

# make_circuit k m: the demo circuit at 2^k, m witnesses, its zkey (cached)
make_circuit() {
    local k=$1 m=$2 d="$work/k$1"
    if [ ! -f "$d/circuit.zkey" ] || [ ! -f "$d/p$((m - 1)).wtns" ]; then
        echo "serve_load: the 2^$k circuit, $m witnesses" >&2
        "$bin" circuit export --constraints "2^$k" --partitions "$m" --out "$d" >/dev/null
        "$bin" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey" 2>/dev/null
        "$bin" vkey "$d/circuit.zkey" "$d/vkey.json"
    fi
}

# start_service k budget: a fresh service on a free loopback port
start_service() {
    local d="$work/k$1/data"
    rm -rf "$d"; mkdir -p "$d"
    "$bin" serve --listen 127.0.0.1:0 --data "$d" --budget "$2" --pw "$pw" \
        >"$work/k$1/serve.log" 2>&1 &
    srv_pid=$!
    for _ in $(seq 1 200); do
        [ -s "$d/listen.addr" ] && break
        kill -0 "$srv_pid" 2>/dev/null || { cat "$work/k$1/serve.log" >&2; exit 1; }
        sleep 0.05
    done
    server="http://$(head -1 "$d/listen.addr")"
    for _ in $(seq 1 100); do
        curl -sf "$server/readyz" >/dev/null && return 0
        sleep 0.05
    done
    echo "serve_load: the service at $server is not ready" >&2; exit 1
}

# sample_peak file: the largest RssAnon of the service, every 50 ms
sample_peak() {
    local peak=0 r
    while kill -0 "$srv_pid" 2>/dev/null; do
        r=$(rss_anon_kib "$srv_pid"); [ "${r:-0}" -gt "$peak" ] && { peak=$r; echo "$peak" >"$1"; }
        sleep 0.05
    done
}

# client i k n: submits jobs i, i+K, ... (n in all, K clients) one after
# another, each waited for; appends "latency_s" lines
client() {
    local i=$1 K=$2 n=$3 j=$1 t0
    while [ "$j" -lt "$n" ]; do
        t0=$(now)
        "$bin" submit --server "$server" --circuit "$circuit" --wait --quiet \
            --out "$out" "$w/p$j.wtns" >/dev/null
        awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.4f\n", b - a }' >>"$out/lat.$i"
        j=$((j + K))
    done
}

for k in $sizes; do
    m_var="SERVE_JOBS_$k"; m=${!m_var:-$([ "$k" -le 12 ] && echo 48 || echo 16)}
    make_circuit "$k" "$m"
    d="$work/k$k" w="$work/k$k"
    eval "$("$bin" batch --zkey "$d/circuit.zkey" --out "$d/plan" --print-plan "$d/p0.wtns")"
    budget=$((resident_bytes + parts * partition_bytes))
    wits=(); for ((j = 0; j < m; j++)); do wits+=("$w/p$j.wtns"); done

    start_service "$k" "$budget"
    circuit=$(curl -sf --data-binary @"$d/circuit.zkey" -H 'Content-Type: application/octet-stream' \
        "$server/v1/circuits" | sed -n 's/.*"id": *"\([0-9a-f]*\)".*/\1/p')
    [ -n "$circuit" ] || { echo "serve_load: registering the circuit failed" >&2; exit 1; }
    sleep 0.5
    idle0=$(rss_anon_kib "$srv_pid")
    : >"$d/peak"; sample_peak "$d/peak" & sampler_pid=$!
    for K in $clients; do
        # the baseline, just before: batch over the same witnesses, same
        # budget and --pw (the service idles meanwhile), so that each ratio
        # pairs two runs under the same load
        rm -rf "$d/batch"
        t0=$(now)
        "$bin" batch --zkey "$d/circuit.zkey" --out "$d/batch" --pw "$pw" --budget "$budget" --quiet "${wits[@]}"
        batch_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
        batch_pps=$(awk -v n="$m" -v s="$batch_s" 'BEGIN { printf "%.3f", n / s }')
        out="$d/out.K$K"; rm -rf "$out"; mkdir -p "$out"
        t0=$(now)
        pids=()
        for ((i = 0; i < K; i++)); do client "$i" "$K" "$m" & pids+=($!); done
        for p in "${pids[@]}"; do wait "$p"; done
        wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
        pps=$(awk -v n="$m" -v s="$wall" 'BEGIN { printf "%.3f", n / s }')
        p50=$(cat "$out"/lat.* | pct 50); p99=$(cat "$out"/lat.* | pct 99)
        echo "bench=serve k=$k clients=$K jobs=$m pw=$pw serve_s=$wall serve_proofs_per_s=$pps" \
             "batch_s=$batch_s batch_proofs_per_s=$batch_pps" \
             "ratio=$(awk -v a="$pps" -v b="$batch_pps" 'BEGIN { printf "%.3f", a / b }')" \
             "p50_latency_s=$p50 p99_latency_s=$p99"
    done
    sleep 1
    idle1=$(rss_anon_kib "$srv_pid")
    peak=$(cat "$d/peak" 2>/dev/null || echo 0); peak=${peak:-0}
    status=$(curl -sf "$server/v1/status" || echo '{}')
    peak_reserved=$(sed -n 's/.*"peak_reserved_bytes": *\([0-9]*\).*/\1/p' <<<"$status")
    # every proof of the last run verifies
    bad=0
    for ((j = 0; j < m; j++)); do
        "$bin" verify "$d/vkey.json" "$out/p$j.public.json" "$out/p$j.proof.json" >/dev/null 2>&1 || bad=$((bad + 1))
    done
    stop_service
    budget_kib=$((budget / 1024))
    echo "bench=serve_memory k=$k budget_mib=$(mib "$budget_kib")" \
         "peak_reserved_mib=$(mib $(( ${peak_reserved:-0} / 1024 )))" \
         "idle_rss_anon_mib=$(mib "$idle0") idle_after_rss_anon_mib=$(mib "$idle1")" \
         "peak_rss_anon_mib=$(mib "$peak") peak_over_budget_mib=$(mib $((peak - budget_kib)))" \
         "goal_peak_le_budget_plus_64mib=$([ $((peak - budget_kib)) -le 65536 ] && echo 1 || echo 0)" \
         "proofs_not_verified=$bad"
done
