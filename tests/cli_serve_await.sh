# SPDX-License-Identifier: Apache-2.0
# `proofline serve`: idempotent submission, waiting for a job, and the
# one-call POST /v1/prove, end to end with curl on a port the system picks
# (--listen 127.0.0.1:0, the address read from DATA/listen.addr):
#  - Idempotency-Key: the same key 5 times (JSON and multipart) is one job
#    (each time the first answer's status, 201 or 202, and the retries
#    marked Idempotent-Replayed), 20 concurrent POST /v1/prove with one key
#    one job and 20 answers 200 with its proofs, the same key with another body
#    is 409 naming the difference, a malformed key is 400 naming its
#    rules, "request_id" in the body does the same as the header; after
#    kill -9 and a restart the key still names the same job; a keyed job
#    left receiving is completed by a multipart retry with its key;
#  - GET /v1/jobs/{id}?wait=: returns the done job (its proofs fetched and
#    checked by `proofline verify`), a wait past its time returns the job
#    unfinished, a bad wait is 400, waiters beyond the bound are 503 with
#    Retry-After, a cancel wakes them, and SIGTERM answers them at once;
#  - POST /v1/prove: the proofs in the reply, checked by `proofline verify`
#    and snarkjs; ?wait=0 is 202 with the job; the same key again is the
#    same job and its proofs;
#  - the job's timings (queue wait, proving, total) are in its reply.
# Waits are polls with a generous deadline, never timings, except the one
# that checks a wait lasts about as long as asked.
. "$(dirname "$0")/lib.sh"
zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$VECTORS/chain10/verification_key.json
. "$(dirname "$0")/serve_lib.sh"

# verify_pair REPLY PYEXPR [snarkjs]: the proof and public of the object
# PYEXPR picks out of the reply, checked by ours (and snarkjs when asked)
verify_pair() {
    python3 - "$1" "$2" "$work/p.json" "$work/pub.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
o = eval(sys.argv[2])
json.dump(o["proof"], open(sys.argv[3], "w"))
json.dump(o["public"], open(sys.argv[4], "w"))
EOF
    "$PROOFLINE" verify "$vkey" "$work/pub.json" "$work/p.json" >/dev/null 2>&1 ||
        fail "$2: proofline verify rejects it"
    if [ "${3:-}" = snarkjs ] && have_snarkjs; then
        snarkjs_accepts "$vkey" "$work/pub.json" "$work/p.json" ||
            fail "$2: snarkjs rejects it"
    fi
}
jobs_in_store() { # the number of jobs the service lists
    api GET "/v1/jobs?limit=10000" >/dev/null
    jget "$work/body" 'len(d["jobs"])'
}

A=$work/a
start "$A" --max-connections 8 || finish x
expect 201 POST /v1/circuits -H 'Content-Type: application/octet-stream' --data-binary "@$zkey"
cid=$(first "$work/body" id)
spec="{\"circuit\": \"$cid\", \"priority\": \"normal\", \"partitions\": 2}"

# ---- idempotency: JSON ----------------------------------------------------
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: sector-17.porep:1' -d "$spec"
key1=$(first "$work/body" id)
grep -qi '^Idempotent-Replayed' "$work/headers" && fail "the first answer marked replayed"
for i in 2 3 4 5; do
    expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: sector-17.porep:1' -d "$spec"
    [ "$(first "$work/body" id)" = "$key1" ] || fail "the same key, try $i: job $(first "$work/body" id), not $key1"
    grep -qi '^Idempotent-Replayed: true' "$work/headers" || fail "the same key, try $i: not marked replayed"
done
# the key in the body is the same key
expect 201 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"partitions\": 2, \"request_id\": \"sector-17.porep:1\"}"
[ "$(first "$work/body" id)" = "$key1" ] || fail "request_id: another job than the header's key"
[ "$(jobs_in_store)" = 1 ] || fail "the same key 6 times: $(jobs_in_store) jobs"
# another body: 409 naming what differs; the job unchanged
expect 409 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: sector-17.porep:1' \
    -d "{\"circuit\": \"$cid\", \"priority\": \"high\", \"partitions\": 3}"
grep -q 'priority normal (this request: high)' "$work/body" && grep -q 'partitions 2 (this request: 3)' "$work/body" ||
    fail "409 does not name the differences: $(cat "$work/body")"
expect 400 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: bad key!' -d "$spec"
grep -q 'Idempotency-Key: 1 to 128 characters' "$work/body" || fail "a bad key: $(cat "$work/body")"
expect 400 POST /v1/jobs -H 'Content-Type: application/json' -H "Idempotency-Key: $(printf 'k%.0s' $(seq 129))" -d "$spec"
expect 400 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: one' \
    -d "{\"circuit\": \"$cid\", \"request_id\": \"two\"}"
grep -q 'request_id: differs' "$work/body" || fail "two keys: $(cat "$work/body")"
[ "$(jobs_in_store)" = 1 ] || fail "refused keys made jobs"
# its witnesses; then ?wait= returns it done
for k in 0 1; do
    expect 202 PUT "/v1/jobs/$key1/witness/$k" --data-binary "@$wtns"
done
expect 200 GET "/v1/jobs/$key1?wait=60s"
[ "$(first "$work/body" state)" = done ] || fail "?wait=60s: $(head -c 300 "$work/body")"
jget "$work/body" '[p["timings"]["prove_ms"] >= 0 and p["timings"]["queue_wait_ms"] >= 0 for p in d["partitions"]]' |
    grep -qx '\[True, True\]' || fail "timings: $(head -c 600 "$work/body")"
jget "$work/body" 'd["timings"]["total_ms"] >= 0' | grep -qx True || fail "total_ms: $(head -c 600 "$work/body")"
for k in 0 1; do
    expect 200 GET "/v1/jobs/$key1/proofs/$k"
    verify_pair "$work/body" d
done
# a retry after the end: still that job, done
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: sector-17.porep:1' -d "$spec"
[ "$(first "$work/body" state)" = done ] || fail "a retry of a done job: $(head -c 300 "$work/body")"

# ---- idempotency: multipart ----------------------------------------------
expect 202 POST /v1/jobs -H 'Idempotency-Key: mp-1' -F "spec=$spec;type=application/json" \
    -F "witness=@$wtns" -F "witness=@$wtns"
mp=$(first "$work/body" id)
for i in 2 3 4 5; do
    expect 202 POST /v1/jobs -H 'Idempotency-Key: mp-1' -F "spec=$spec;type=application/json" \
        -F "witness=@$wtns" -F "witness=@$wtns"
    [ "$(first "$work/body" id)" = "$mp" ] || fail "multipart, the same key, try $i: another job"
done
expect 409 POST /v1/jobs -H 'Idempotency-Key: mp-1' \
    -F "spec={\"circuit\": \"$cid\", \"partitions\": 1};type=application/json" -F "witness=@$wtns"
grep -q 'partitions 2 (this request: 1)' "$work/body" || fail "multipart 409: $(cat "$work/body")"
[ "$(jobs_in_store)" = 2 ] || fail "multipart, one key: $(jobs_in_store) jobs, wanted 2 in all"
[ "$(ls "$A/witnesses" | grep -c "^$mp")" = 2 ] || fail "retries left witness files: $(ls "$A/witnesses")"

# a keyed job left receiving (one witness of two, as after a broken
# upload): the multipart retry with the same key stores what is missing
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: resume-1' -d "$spec"
res=$(first "$work/body" id)
expect 202 PUT "/v1/jobs/$res/witness/0" --data-binary "@$wtns"
expect 202 POST /v1/jobs -H 'Idempotency-Key: resume-1' -F "spec=$spec;type=application/json" \
    -F "witness=@$wtns" -F "witness=@$wtns"
[ "$(first "$work/body" id)" = "$res" ] && [ "$(first "$work/body" state)" != receiving ] ||
    fail "a multipart retry of a receiving job: $(head -c 300 "$work/body")"
[ "$(ls "$A/witnesses" | grep -c "^$res")" = 2 ] || fail "a resumed job: witness files $(ls "$A/witnesses" | grep "^$res")"
expect 200 GET "/v1/jobs/$res?wait=60s"
[ "$(first "$work/body" state)" = done ] || fail "a resumed job: $(head -c 300 "$work/body")"

# ---- waits -------------------------------------------------------------------
expect 200 GET "/v1/jobs/$mp?wait=60"
[ "$(first "$work/body" state)" = done ] || fail "?wait=60 (multipart job): $(head -c 300 "$work/body")"
# a job that cannot end (no witnesses): the wait runs out, the job as it is
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -d "$spec"
open_job=$(first "$work/body" id)
t0=$(date +%s%N)
expect 200 GET "/v1/jobs/$open_job?wait=1500ms"
dt=$((($(date +%s%N) - t0) / 1000000))
[ "$(first "$work/body" state)" = receiving ] || fail "a wait that runs out: $(head -c 300 "$work/body")"
[ "$dt" -ge 1400 ] || fail "?wait=1500ms answered after $dt ms"
expect 400 GET "/v1/jobs/$open_job?wait=soon"
grep -q 'wait: a duration' "$work/body" || fail "a bad wait: $(cat "$work/body")"
# waiters are bounded (--max-connections 8: 4); a cancel wakes them.
# The probe below holds a slot itself for a moment when there is room, so
# a waiter refused meanwhile (503) asks again.
for i in 1 2 3 4; do
    (
        for t in $(seq 600); do
            code=$(curl -sS --max-time 200 -o "$work/waiter$i" -w '%{http_code}' \
                "$url/v1/jobs/$open_job?wait=120s") || exit 1
            [ "$code" = 503 ] || exit 0
            sleep 0.05
        done
        exit 1
    ) &
    eval "w$i=\$!"
done
got=""
for i in $(seq 200); do
    got=$(api GET "/v1/jobs/$open_job?wait=1ms")
    [ "$got" = 503 ] && break
    sleep 0.1
done
[ "$got" = 503 ] || fail "a fifth waiter: $got, wanted 503"
grep -qi '^Retry-After:' "$work/headers" || fail "503 for a waiter without Retry-After"
grep -q 'requests wait already' "$work/body" || fail "503 for a waiter: $(cat "$work/body")"
expect 200 GET "/v1/jobs/$open_job" # without wait: answered
expect 200 DELETE "/v1/jobs/$open_job"
for i in 1 2 3 4; do
    eval "wait \$w$i" || fail "waiter $i: curl failed, or never got a slot"
    [ "$(first "$work/waiter$i" state)" = cancelled ] || fail "waiter $i: $(head -c 200 "$work/waiter$i")"
done

# ---- POST /v1/prove ----------------------------------------------------------
expect 200 POST /v1/prove -H 'Idempotency-Key: prove-1' -F "spec=$spec;type=application/json" \
    -F "witness=@$wtns" -F "witness=@$wtns"
pj=$(first "$work/body" id)
[ "$(first "$work/body" state)" = done ] || fail "prove: $(head -c 300 "$work/body")"
[ "$(jget "$work/body" 'len(d["proofs"])')" = 2 ] || fail "prove: not 2 proofs"
cp "$work/body" "$work/prove.json"
verify_pair "$work/prove.json" 'd["proofs"][0]' snarkjs
verify_pair "$work/prove.json" 'd["proofs"][1]' snarkjs
expect 200 POST /v1/prove -H 'Idempotency-Key: prove-1' -F "spec=$spec;type=application/json" \
    -F "witness=@$wtns" -F "witness=@$wtns"
[ "$(first "$work/body" id)" = "$pj" ] || fail "prove, the same key: another job"
[ "$(jget "$work/body" 'len(d["proofs"])')" = 2 ] || fail "prove, the same key: not its 2 proofs"
expect 202 POST "/v1/prove?wait=0" -F "spec=$spec;type=application/json" -F "witness=@$wtns" -F "witness=@$wtns"
quick=$(first "$work/body" id)
[ -n "$quick" ] && ! grep -q '"proofs"' "$work/body" || fail "prove?wait=0: $(head -c 300 "$work/body")"
expect 200 GET "/v1/jobs/$quick?wait=60s"
[ "$(first "$work/body" state)" = done ] || fail "prove?wait=0, then ?wait=60s: $(head -c 300 "$work/body")"
expect 415 POST /v1/prove -H 'Content-Type: application/json' -d "$spec"
expect 405 GET /v1/prove

# ---- kill -9 and restart: the keys name the same jobs ----------------------
n_before=$(jobs_in_store)
kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=""
start "$A" --max-connections 8 || finish x
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H 'Idempotency-Key: sector-17.porep:1' -d "$spec"
[ "$(first "$work/body" id)" = "$key1" ] || fail "after kill -9: the key names $(first "$work/body" id), not $key1"
expect 200 POST /v1/prove -H 'Idempotency-Key: prove-1' -F "spec=$spec;type=application/json" \
    -F "witness=@$wtns" -F "witness=@$wtns"
[ "$(first "$work/body" id)" = "$pj" ] || fail "after kill -9: prove-1 names another job"
verify_pair "$work/body" 'd["proofs"][1]'
[ "$(jobs_in_store)" = "$n_before" ] || fail "after kill -9: $(jobs_in_store) jobs, were $n_before"

# ---- drain: a waiter is answered at once -----------------------------------
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -d "$spec"
open_job=$(first "$work/body" id)
curl -sS --max-time 200 -o "$work/drained" -w '%{http_code}' "$url/v1/jobs/$open_job?wait=300s" >"$work/drained.code" &
wpid=$!
sleep 0.5
t0=$(date +%s)
stop
wait "$wpid" || fail "the waiter during a drain: curl failed"
[ "$stopped" = 0 ] || fail "drain with a waiter: exit $stopped"
[ $(($(date +%s) - t0)) -lt 30 ] || fail "drain with a waiter took $(($(date +%s) - t0)) s"
[ "$(cat "$work/drained.code")" = 200 ] && [ "$(first "$work/drained" state)" = receiving ] ||
    fail "the waiter during a drain: $(cat "$work/drained.code") $(head -c 200 "$work/drained")"

# ---- 20 concurrent tries with one key: one job, every one the first answer ---
start "$A" || finish x
for i in $(seq 20); do
    curl -sS --max-time 200 -o "$work/conc$i" -D "$work/conc$i.h" -w '%{http_code}' \
        -H 'Idempotency-Key: prove-concurrent' -F "spec=$spec;type=application/json" \
        -F "witness=@$wtns" -F "witness=@$wtns" "$url/v1/prove" >"$work/conc$i.code" 2>&1 &
    eval "c$i=\$!"
done
n_before=$(jobs_in_store)
for i in $(seq 20); do
    eval "wait \$c$i" || fail "concurrent prove $i: curl failed ($(cat "$work/conc$i.code"))"
done
codes=$(for i in $(seq 20); do cat "$work/conc$i.code"; echo; done | sort | uniq -c | tr -s ' ')
ids=$(for i in $(seq 20); do first "$work/conc$i" id; done | sort -u)
[ "$codes" = " 20 200" ] || fail "20 concurrent tries of one key:$codes"
[ "$(wc -l <<<"$ids")" = 1 ] || fail "20 concurrent tries of one key: jobs $ids"
[ "$(grep -il '^Idempotent-Replayed: true' "$work"/conc*.h | wc -l)" = 19 ] ||
    fail "20 concurrent tries: $(grep -il '^Idempotent-Replayed' "$work"/conc*.h | wc -l) marked replayed, wanted 19"
verify_pair "$work/conc1" 'd["proofs"][1]'
stop

[ "$fails" = 0 ] || tail -20 "$work/serve.log"
finish "cli_serve_await: ok"
