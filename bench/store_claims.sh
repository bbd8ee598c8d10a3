#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The job store's claim throughput: bench_store (claim, heartbeat,
# complete, no proving) with 1, 4 and 16 worker processes, on SQLite and on
# a PostgreSQL server this script starts (initdb in a temporary folder, a
# Unix socket there, as "nobody" when run as root; skipped without
# PostgreSQL's binaries).  key=value lines, one block per run; SQLite is
# the baseline of the same run.
#   bench/store_claims.sh BUILD  [STORE_WORKERS="1 4 16"] [STORE_PARTITIONS=2000]
set -eu
build=$1
bench="$(cd "$build" && pwd)/bench_store"
workers=${STORE_WORKERS:-"1 4 16"}
partitions=${STORE_PARTITIONS:-2000}
tmp=$(mktemp -d /tmp/proofline-bench-store-XXXXXX)
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
stop() {
    if [ -f "$tmp/pg/data/postmaster.pid" ]; then
        as_pg "$pgbin/pg_ctl" -D "$tmp/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$tmp"
}
trap stop EXIT INT TERM

for n in $workers; do
    "$bench" "$tmp/sqlite-$n" "$n" "$partitions" | sed "s/^/sqlite_w$n./"
done

if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
    echo "postgres=skipped (no /usr/lib/postgresql/*/bin/initdb)"
    exit 0
fi
chmod 755 "$tmp" # the server's user goes through it
mkdir "$tmp/pg"
[ "$(id -u)" = 0 ] && chown nobody "$tmp/pg"
as_pg "$pgbin/initdb" -D "$tmp/pg/data" -A trust -U proofline -E UTF8 \
    --locale=C >"$tmp/pg/initdb.log" 2>&1
as_pg "$pgbin/pg_ctl" -D "$tmp/pg/data" -l "$tmp/pg/server.log" -w \
    -o "-k $tmp/pg -c listen_addresses= -c max_connections=64" start >/dev/null
for n in $workers; do
    as_pg "$pgbin/createdb" -h "$tmp/pg" -U proofline "bench_$n"
    "$bench" "postgresql:///bench_$n?host=$tmp/pg&user=proofline" "$n" \
        "$partitions" | sed "s/^/postgres_w$n./"
done
