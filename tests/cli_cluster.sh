#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Several `proofline serve` processes on one PostgreSQL queue (issue 15),
# against a real PostgreSQL 15 this test starts (initdb into a folder under
# /tmp, a Unix socket there, as "nobody" when run as root) and stops:
#  - 3 workers, 30 jobs of 2 partitions submitted through all three, one
#    worker killed (-9) in the middle: every job done, every proof verified,
#    each partition completed exactly once (counted in the database), the
#    dead worker's claims taken over after their lease;
#  - PostgreSQL restarted under load: the workers reconnect, every job done;
#  - /v1/cluster (and `proofline status --cluster`) lists the workers;
#  - a worker whose budget is too small for the circuit's partitions never
#    takes them on (a look at one is given back at once, no attempt spent);
#    a worker with room proves them;
#  - two workers started at the same moment on an empty database: both up,
#    the schema migrated once.
# Exits 77 (skipped) without PostgreSQL's binaries.
. "$(dirname "$0")/lib.sh"
zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$VECTORS/chain10/verification_key.json
. "$(dirname "$0")/serve_lib.sh"

pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] && command -v psql >/dev/null ||
    { echo "SKIP: PostgreSQL is not installed (Debian: postgresql)"; exit 77; }
pg=$(mktemp -d /tmp/proofline-pg-XXXXXX) # short: a Unix socket lives here
as_pg=()
if [ "$(id -u)" = 0 ]; then
    chown nobody "$pg"
    as_pg=(runuser -u nobody --)
fi
pg_ctl() { "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pg/data" -l "$pg/server.log" "$@" >>"$work/pg.log" 2>&1; }
"${as_pg[@]}" "$pgbin/initdb" -D "$pg/data" -A trust -U proofline -E UTF8 --locale=C --no-sync \
    >>"$work/pg.log" 2>&1 || { cat "$work/pg.log"; fail "initdb"; finish x; }
pg_ctl -o "-k $pg -c listen_addresses=" -w start || { fail "PostgreSQL did not start"; finish x; }
sql() { psql -h "$pg" -U proofline -d "$1" -XAtqc "$2"; }
sql postgres "CREATE DATABASE q" && sql postgres "CREATE DATABASE q2" && sql postgres "CREATE DATABASE q3"
store="postgresql:///q?host=$pg&user=proofline"

# several servers: pids and urls by name
declare -A pid_of url_of
workers_stop() {
    local n
    for n in "${!pid_of[@]}"; do kill -9 "${pid_of[$n]}" 2>/dev/null || true; done
}
cleanup_all() {
    workers_stop
    pg_ctl -m immediate stop || true
    rm -rf "$pg" "$work"
}
trap cleanup_all EXIT

# spawn NAME STORE [options]: a worker with its own DATA (the store is the
# shared part; witnesses and proofs are on this machine's disk, which all
# of them reach at the same paths)
spawn() {
    local name=$1 st=$2; shift 2
    local data=$work/$name
    mkdir -p "$data"; rm -f "$data/listen.addr"
    "$PROOFLINE" serve --listen 127.0.0.1:0 --data "$data" --store "$st" --log-level quiet \
        --pw 1 --threads 1 --backend cpu --lease 2s "$@" 2>>"$work/$name.log" &
    pid_of[$name]=$!
}
await() { # NAME: until its address is written
    local data=$work/$1 i
    for i in $(seq 600); do
        [ -s "$data/listen.addr" ] && break
        kill -0 "${pid_of[$1]}" 2>/dev/null || break
        sleep 0.1
    done
    [ -s "$data/listen.addr" ] || { fail "$1 did not start: $(tail -3 "$work/$1.log")"; return 1; }
    url_of[$1]="http://$(cat "$data/listen.addr")"
}
use() { url=${url_of[$1]}; } # api and the helpers talk to this worker

# a proof that does not verify (serve_lib.sh's verify_or_keep): its job's
# rows and attempts in the store, the workers' logs and proof files
db=q
on_bad_proof() {
    local j=$1 dir=$3
    { sql "$db" "SELECT * FROM proofline.partitions WHERE job_id = '$j'"
      sql "$db" "SELECT * FROM proofline.attempts WHERE job_id = '$j'"
      ls -l --time-style=full-iso "$work"/*/proofs/"$j".* 2>&1
    } >"$dir/$j.store.txt" 2>&1
    cp "$work"/*.log "$dir/" 2>/dev/null || true
    for f in "$work"/*/proofs/"$j".*; do cp "$f" "$dir/$(basename "$(dirname "$(dirname "$f")")").$(basename "$f")"; done 2>/dev/null || true
}

"$PROOFLINE" batch --zkey "$zkey" --out "$work/plan" --print-plan "$wtns" >"$work/plan.txt"
part=$(sed -n 's/^partition_bytes=//p' "$work/plan.txt")
resident=$(sed -n 's/^resident_bytes=//p' "$work/plan.txt")
budget=$((resident + 2 * part)) # two partitions each

# ---- 3 workers, 30 jobs, one killed -----------------------------------------
for n in w1 w2 w3; do spawn "$n" "$store" --budget "$budget"; done
for n in w1 w2 w3; do await "$n" || finish x; done
use w1; register 201
names=(w1 w2 w3) jobs=()
for i in $(seq 30); do
    use "${names[$((i % 3))]}"
    prio=normal; [ $((i % 5)) = 0 ] && prio=high
    submit "$prio" 2; jobs+=("$jid")
    [ "$i" = 10 ] && { kill -9 "${pid_of[w2]}"; unset 'pid_of[w2]'; names=(w1 w3 w1); }
done
use w1
wait_jobs "${jobs[@]}"
for j in "${jobs[@]}"; do check_proofs "$j" 2; done
[ "$(sql q "SELECT count(*) FROM proofline.partitions")" = 60 ] || fail "not 60 partitions in the database"
[ "$(sql q "SELECT count(*) FROM proofline.partitions WHERE completions <> 1")" = 0 ] ||
    fail "a partition completed other than once: $(sql q "SELECT job_id, idx, completions FROM proofline.partitions WHERE completions <> 1")"
# the cluster's view: three workers, w2 silent (not gone: it was killed)
expect 200 GET /v1/cluster
jget "$work/body" 'len(d["workers"]) == 3 and sum(1 for w in d["workers"] if w["gone"]) == 0' | grep -qx True ||
    fail "/v1/cluster: $(cat "$work/body")"
"$PROOFLINE" status --server "$url" --cluster >"$work/cluster.txt" || fail "status --cluster"
[ "$(grep -c "$(uname -n | cut -c1-16)" "$work/cluster.txt")" -ge 3 ] || fail "status --cluster: $(cat "$work/cluster.txt")"
grep -q "(this one)" "$work/cluster.txt" || fail "status --cluster does not mark the server asked"

# ---- PostgreSQL restarted under load ---------------------------------------------
jobs=()
for i in $(seq 8); do use w1; submit normal 2; jobs+=("$jid"); done
pg_ctl -m fast -w restart -o "-k $pg -c listen_addresses=" || fail "PostgreSQL did not restart"
for i in $(seq 4); do use w3; submit normal 2; jobs+=("$jid"); done
use w1
wait_jobs "${jobs[@]}"
for j in "${jobs[@]}"; do check_proofs "$j" 2; done
[ "$(sql q "SELECT count(*) FROM proofline.partitions WHERE completions <> 1")" = 0 ] ||
    fail "after the restart: a partition completed other than once"
for n in w1 w3; do
    kill -TERM "${pid_of[$n]}"; rc=0; wait "${pid_of[$n]}" || rc=$?
    unset "pid_of[$n]"
    [ "$rc" = 0 ] || fail "$n: exit $rc after SIGTERM"
done

# ---- a worker without room never claims; one with room does ---------------------
store2="postgresql:///q2?host=$pg&user=proofline" db=q2
spawn big "$store2" --budget "$budget"; await big || finish x
use big; register 201
kill -TERM "${pid_of[big]}"; wait "${pid_of[big]}" || true; unset 'pid_of[big]'
spawn small "$store2" --budget $((resident + part / 2)); await small || finish x
use small; submit normal 1; small_job=$jid
sleep 3 # a few claim rounds (the outcome does not depend on the time)
expect 200 GET "/v1/jobs/$small_job"
case $(first "$work/body" state) in queued|running) ;; *) fail "small worker: $(cat "$work/body")" ;; esac
# it may have looked (the store cannot know that the circuit's own key
# does not fit beside the partition: a claim given back at once, no attempt
# spent) but never submitted the partition to its engine
expect 200 GET /v1/status
jget "$work/body" '[(w := d["workers"][0])["claimed"] - w["released"], w["completed"], w["in_flight"], d["stages"]["admitted"], d["jobs"]["failed"]]' | grep -qx '\[0, 0, 0, 0, 0\]' ||
    fail "the small worker took on what it cannot hold: $(cat "$work/body")"
spawn big "$store2" --budget "$budget"; await big || finish x
use small
wait_jobs "$small_job"
check_proofs "$small_job" 1
owner=$(sql q2 "SELECT owner FROM proofline.partitions LIMIT 1")
[ "$owner" = "$(sql q2 "SELECT id FROM proofline.workers WHERE budget_bytes = $budget LIMIT 1")" ] ||
    fail "the partition was not proved by the worker with room (owner '$owner')"
workers_stop; unset 'pid_of[big]' 'pid_of[small]'

# ---- two workers at once on an empty database ------------------------------------
store3="postgresql:///q3?host=$pg&user=proofline"
spawn a "$store3" --budget "$budget"
spawn b "$store3" --budget "$budget"
await a && await b || finish x
use a; expect 200 GET /readyz
use b; expect 200 GET /readyz
[ "$(sql q3 "SELECT count(*) FROM proofline.meta")" = 1 ] 2>/dev/null ||
    fail "schema: $(sql q3 "SELECT * FROM proofline.meta" 2>&1 | head -3)"
workers_stop
finish "cli_cluster: ok"
