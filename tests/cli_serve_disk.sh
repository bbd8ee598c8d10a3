# SPDX-License-Identifier: Apache-2.0
# `proofline serve` when it can no longer write what it acknowledges:
#  - its data folder removed under it: /readyz 503 naming why, a new job
#    503 with Retry-After (never 201 into a store that is gone), /healthz
#    still 200, and SIGTERM still a clean exit;
#  - its disk full while it proves (DATA on a small tmpfs the test mounts,
#    then fills): /readyz 503 while full, a new job 503, no job failed and
#    no attempt charged for it; once room comes back (the filler removed),
#    ready again by itself, every job done and every proof verified,
#    without a restart (the same process).
# The full disk needs root (mount -t tmpfs); without it that part is
# skipped with the reason (exit 77 once the rest passed).
. "$(dirname "$0")/lib.sh"
zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$VECTORS/chain10/verification_key.json
. "$(dirname "$0")/serve_lib.sh"
disk=""
cleanup() {
    [ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true
    [ -z "$pid" ] || wait "$pid" 2>/dev/null || true
    [ -z "$disk" ] || umount "$disk" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# until PATH answers CODE (the probe runs every second): within 30 s
until_code() {
    local want=$1 path=$2 i got=""
    for i in $(seq 300); do
        got=$(api GET "$path")
        [ "$got" = "$want" ] && return 0
        sleep 0.1
    done
    fail "GET $path: $got after 30 s, wanted $want ($(head -c 300 "$work/body"))"
}
spec() { echo "{\"circuit\": \"$cid\", \"partitions\": $1}"; }

# ---- the data folder removed ------------------------------------------------------
start "$work/gone" || finish x
register 201
expect 200 GET /readyz
rm -rf "$work/gone"
until_code 503 /readyz
grep -q "gone\|removed\|No such file" "$work/body" || fail "/readyz does not say why: $(cat "$work/body")"
grep -q "$work" "$work/body" && fail "/readyz names a server path: $(cat "$work/body")"
expect 503 POST /v1/jobs -H 'Content-Type: application/json' -d "$(spec 1)"
grep -qi '^Retry-After:' "$work/headers" || fail "a job into a removed folder: 503 without Retry-After"
expect 200 GET /healthz
stop
[ "$stopped" = 0 ] || fail "SIGTERM with the folder removed: exit $stopped"

# ---- a full disk ------------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
    [ "$fails" = 0 ] || finish x
    echo "SKIP: the full disk needs root (to mount a tmpfs); the removed folder passed"
    exit 77
fi
disk=$work/disk
mkdir -p "$disk"
if ! mount -t tmpfs -o size=8m,mode=0700 tmpfs "$disk" 2>"$work/mount.log"; then
    disk=""
    [ "$fails" = 0 ] || finish x
    echo "SKIP: the full disk: mount -t tmpfs failed ($(cat "$work/mount.log")); the removed folder passed"
    exit 77
fi
start "$disk/data" --workers 1 --threads 1 || finish x
server=$pid
register 201
jobs=()
for i in $(seq 12); do submit normal 4; jobs+=("$jid"); done
# full now, while the jobs are proved
head -c 16m /dev/zero >"$disk/fill" 2>/dev/null || true
until_code 503 /readyz
expect 503 POST /v1/jobs -H 'Content-Type: application/json' -d "$(spec 1)"
grep -qi '^Retry-After:' "$work/headers" || fail "a job on a full disk: 503 without Retry-After"
grep -q "$disk" "$work/body" && fail "the 503 names a server path: $(cat "$work/body")"
expect 200 GET /v1/status
left=$(jget "$work/body" 'd["jobs"]["queued"] + d["jobs"]["running"]')
[ "$left" -gt 0 ] || echo "note: every job ended before the disk was full"
sleep 2 # a few of the worker's rounds on the full disk
expect 200 GET /v1/status
[ "$(jget "$work/body" 'd["jobs"]["failed"]')" = 0 ] || fail "a job failed for the full disk: $(cat "$work/body")"
# room again: ready by itself, everything done
rm -f "$disk/fill"
until_code 200 /readyz
wait_jobs "${jobs[@]}"
check_all_proofs "$vkey" 4 "${jobs[@]}"
kill -0 "$server" 2>/dev/null && [ "$pid" = "$server" ] || fail "the server did not live through the full disk"
if command -v sqlite3 >/dev/null; then
    [ "$(sqlite3 -cmd '.timeout 30000' "$disk/data/store.sqlite" "SELECT count(*) FROM attempts")" = 0 ] ||
        fail "attempts charged for the full disk: $(sqlite3 "$disk/data/store.sqlite" "SELECT error FROM attempts")"
fi
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -d "$(spec 1)"
stop
[ "$stopped" = 0 ] || fail "SIGTERM: exit $stopped"
grep -q "can be written again: ready" "$work/serve.log" || fail "the log does not say it was ready again"
finish "cli_serve_disk: ok"
