#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make bench-cluster: real proving through one PostgreSQL queue (issue 15),
# not part of make test.  A PostgreSQL 15 of its own (initdb under /tmp, a
# Unix socket, as "nobody" when run as root); then for N = 1, 2, 3 workers
# (`proofline serve --store postgres://...`, each --pw 1 --threads
# CORES/N, so that together they use the machine as one batch does):
#   - `proofline batch` proves the M witnesses (the baseline, again before
#     each N so that each ratio pairs runs under one load);
#   - M jobs of one partition are submitted through the workers in turn and
#     waited for;
# and prints key=value lines: proofs/s of each and their ratio (what the
# database and the HTTP hops cost).  Every proof is verified.
#   CLUSTER_K=14 CLUSTER_JOBS=24 CLUSTER_WORKERS="1 2 3"
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
bin="$build/proofline"
work="$build/bench/cluster"
k=${CLUSTER_K:-14} m=${CLUSTER_JOBS:-24} counts=${CLUSTER_WORKERS:-"1 2 3"}
cores=$(nproc)
mkdir -p "$work"
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || { echo "cluster_load: needs PostgreSQL (Debian: postgresql)" >&2; exit 2; }

pg=$(mktemp -d /tmp/proofline-pg-XXXXXX)
as_pg=()
[ "$(id -u)" = 0 ] && { chown nobody "$pg"; as_pg=(runuser -u nobody --); }
pids=()
finish() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$pg"
}
trap finish EXIT
"${as_pg[@]}" "$pgbin/initdb" -D "$pg/data" -A trust -U proofline -E UTF8 --locale=C --no-sync >/dev/null
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -o "-k $pg -c listen_addresses=" -w start >/dev/null

d="$work/k$k"
if [ ! -f "$d/circuit.zkey" ] || [ ! -f "$d/p$((m - 1)).wtns" ]; then
    echo "cluster_load: the 2^$k circuit, $m witnesses" >&2
    "$bin" circuit export --constraints "2^$k" --partitions "$m" --out "$d" >/dev/null
    "$bin" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey" 2>/dev/null
    "$bin" vkey "$d/circuit.zkey" "$d/vkey.json"
fi
cid=$(sha256sum "$d/circuit.zkey" | cut -d' ' -f1)
now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.3f", n / (b - a) }'; }

for n in $counts; do
    threads=$(( cores / n > 0 ? cores / n : 1 ))
    rm -rf "$work/batch"; mkdir -p "$work/batch"
    t0=$(now)
    "$bin" batch --zkey "$d/circuit.zkey" --out "$work/batch" --quiet --pw 1 \
        --threads "$cores" "$d"/p*.wtns >/dev/null
    t1=$(now)
    db="w$n$$"
    psql -h "$pg" -U proofline -d postgres -XAtqc "CREATE DATABASE $db"
    store="postgresql:///$db?host=$pg&user=proofline"
    urls=()
    pids=()
    for i in $(seq "$n"); do
        data="$work/data-$n-$i"; rm -rf "$data"; mkdir -p "$data"
        "$bin" serve --listen 127.0.0.1:0 --data "$data" --store "$store" --pw 1 \
            --threads "$threads" --backend cpu --log-level quiet 2>"$work/serve-$n-$i.log" &
        pids+=($!)
        for _ in $(seq 600); do [ -s "$data/listen.addr" ] && break; sleep 0.1; done
        urls+=("http://$(cat "$data/listen.addr")")
    done
    curl -sS -o /dev/null -H 'Content-Type: application/octet-stream' \
        --data-binary "@$d/circuit.zkey" "${urls[0]}/v1/circuits"
    t2=$(now)
    jobs=()
    for i in $(seq 0 $((m - 1))); do
        jobs+=("$("$bin" submit --server "${urls[$((i % n))]}" --circuit "$cid" "$d/p$i.wtns")")
    done
    out="$work/out-$n"; rm -rf "$out"; mkdir -p "$out"
    for j in "${jobs[@]}"; do
        "$bin" fetch --server "${urls[0]}" --wait "$j" --out "$out/$j" >/dev/null 2>>"$work/fetch.log"
    done
    t3=$(now)
    for p in "$out"/*/*.proof.json; do
        "$bin" verify "$d/vkey.json" "${p%.proof.json}.public.json" "$p" >/dev/null ||
            { echo "cluster_load: a proof does not verify: $p" >&2; exit 1; }
    done
    for p in "${pids[@]}"; do kill -TERM "$p"; wait "$p" || true; done
    pids=()
    b=$(rate "$m" "$t0" "$t1") c=$(rate "$m" "$t2" "$t3")
    echo "cluster_workers=$n k=$k jobs=$m batch_proofs_per_s=$b cluster_proofs_per_s=$c" \
         "ratio=$(awk -v c="$c" -v b="$b" 'BEGIN { printf "%.2f", c / b }')"
done
