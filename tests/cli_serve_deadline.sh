#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline serve`: a job's deadline (issue 19, item 3).
#  - "deadline_s" far ahead: the job is done, deadline_ms is its creation
#    plus the seconds asked, deadline_missed false, counted as met;
#  - a deadline of 0.001 s (past by the time any proof is done): the job
#    is still completed and its proof verifies, deadline_missed true, the
#    miss counted under its class in /metrics and logged with the job id;
#  - the multipart spec takes it too; `proofline submit --deadline`
#    passes it;
#  - an Idempotency-Key retry with another deadline is the same job (not
#    a conflict), its first deadline kept;
#  - a bad deadline_s (0, below 0, text, over 30 days) is 400 naming the
#    field, as is a bad --deadline (exit 2);
#  - every class's counter is listed, 0 included; promtool check metrics
#    (when promtool is installed).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$work/vk.json
"$PROOFLINE" vkey "$zkey" "$vkey" || fail "vkey"

# spec JSON: POST /v1/jobs with that body, then the one witness; $jid
submit_spec() {
    expect 201 POST /v1/jobs -H 'Content-Type: application/json' -d "$1"
    jid=$(first "$work/body" id)
    expect 202 PUT "/v1/jobs/$jid/witness/0" \
        -H 'Content-Type: application/octet-stream' --data-binary "@$wtns"
}
# metric NAME LABELS: its value in $work/metrics.txt
metric() {
    awk -v k="$1{$2}" '$1 == k { print $2; found = 1 } END { if (!found) print "absent" }' \
        "$work/metrics.txt"
}

D=$work/d
start "$D" --budget 1G
register 201

# ---- a deadline far ahead: met -----------------------------------------------
submit_spec "{\"circuit\": \"$cid\", \"priority\": \"high\", \"deadline_s\": 3600}"
far=$jid
wait_jobs "$far"
expect 200 GET "/v1/jobs/$far"
python3 - "$work/body" <<'EOF' || fail "far deadline: $(head -c 400 "$work/body")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "done", j["state"]
assert j["deadline_ms"] == j["created_ms"] + 3600000, (j["deadline_ms"], j["created_ms"])
assert j["deadline_missed"] is False, j["deadline_missed"]
EOF
check_proofs "$far" 1

# ---- a deadline already past when it completes: missed, still proved ----------
submit_spec "{\"circuit\": \"$cid\", \"priority\": \"critical\", \"deadline_s\": 0.001}"
late=$jid
wait_jobs "$late"
expect 200 GET "/v1/jobs/$late"
python3 - "$work/body" <<'EOF' || fail "late deadline: $(head -c 400 "$work/body")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["state"] == "done", j["state"]
assert j["deadline_ms"] == j["created_ms"] + 1, (j["deadline_ms"], j["created_ms"])
assert j["finished_ms"] > j["deadline_ms"]
assert j["deadline_missed"] is True, j["deadline_missed"]
EOF
check_proofs "$late" 1 snarkjs
grep -q "job $late (critical) missed its deadline by" "$work/serve.log" ||
    fail "no log line of the miss: $(tail -5 "$work/serve.log")"

# a job without a deadline: 0, never missed, never counted
submit_spec "{\"circuit\": \"$cid\", \"priority\": \"low\"}"
none=$jid
wait_jobs "$none"
expect 200 GET "/v1/jobs/$none"
[ "$(jget "$work/body" 'd["deadline_ms"], d["deadline_missed"]')" = "(0, False)" ] ||
    fail "no deadline: $(head -c 300 "$work/body")"

# ---- multipart, and the client ---------------------------------------------------
expect 202 POST /v1/jobs -F "spec={\"circuit\": \"$cid\", \"priority\": \"normal\", \"deadline_s\": 600};type=application/json" \
    -F "witness=@$wtns;type=application/octet-stream"
mp=$(first "$work/body" id)
wait_jobs "$mp"
expect 200 GET "/v1/jobs/$mp"
[ "$(jget "$work/body" 'd["deadline_ms"] - d["created_ms"], d["deadline_missed"]')" = "(600000, False)" ] ||
    fail "multipart deadline: $(head -c 300 "$work/body")"

expect_exit 0 "$PROOFLINE" submit --server "$url" --circuit "$cid" --priority low \
    --deadline 2m --wait --quiet "$wtns"
cl=$(head -1 "$work/stdout")
expect 200 GET "/v1/jobs/$cl"
[ "$(jget "$work/body" 'd["state"], d["deadline_ms"] - d["created_ms"], d["deadline_missed"]')" = "('done', 120000, False)" ] ||
    fail "submit --deadline 2m: $(head -c 300 "$work/body")"
for bad in 0 -5s soon 31d; do
    expect_exit 2 "$PROOFLINE" submit --server "$url" --circuit "$cid" --deadline "$bad" "$wtns"
    grep -q -- "--deadline" "$work/log" || fail "--deadline $bad: $(cat "$work/log")"
done

# ---- an idempotent retry with another deadline: the same job, the first kept ---
key=deadline-retry-1
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H "Idempotency-Key: $key" \
    -d "{\"circuit\": \"$cid\", \"deadline_s\": 900}"
kj=$(first "$work/body" id)
kd=$(jget "$work/body" 'd["deadline_ms"]')
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H "Idempotency-Key: $key" \
    -d "{\"circuit\": \"$cid\", \"deadline_s\": 5}"
[ "$(first "$work/body" id)" = "$kj" ] || fail "retry: another job"
[ "$(jget "$work/body" 'd["deadline_ms"]')" = "$kd" ] || fail "retry: the deadline changed"
expect 202 PUT "/v1/jobs/$kj/witness/0" -H 'Content-Type: application/octet-stream' \
    --data-binary "@$wtns"
wait_jobs "$kj"

# ---- bad deadlines: 400 naming the field --------------------------------------
for d in 0 -1 '"10"' 2592001 1e400 null true; do
    expect 400 POST /v1/jobs -H 'Content-Type: application/json' \
        -d "{\"circuit\": \"$cid\", \"deadline_s\": $d}"
    grep -q deadline_s "$work/body" || fail "deadline_s $d: $(cat "$work/body")"
done
expect 400 POST /v1/jobs -F "spec={\"circuit\": \"$cid\", \"deadline_s\": 0};type=application/json" \
    -F "witness=@$wtns;type=application/octet-stream"
grep -q "spec: deadline_s" "$work/body" || fail "multipart bad deadline: $(cat "$work/body")"

# ---- the counters, by class ---------------------------------------------------------
expect 200 GET /metrics
cp "$work/body" "$work/metrics.txt"
for want in 'missed critical 1' 'missed high 0' 'missed normal 0' 'missed low 0' \
            'met critical 0' 'met high 1' 'met normal 2' 'met low 1'; do
    set -- $want
    got=$(metric "proofline_deadline_$1_total" "class=\"$2\"")
    [ "$got" = "$3" ] || fail "proofline_deadline_$1_total{class=\"$2\"}: $got, wanted $3"
done
grep -q '^# TYPE proofline_deadline_missed_total counter' "$work/metrics.txt" ||
    fail "no TYPE line for proofline_deadline_missed_total"
if command -v promtool >/dev/null; then
    promtool check metrics <"$work/metrics.txt" >"$work/promtool.log" 2>&1 ||
        fail "promtool check metrics: $(cat "$work/promtool.log")"
fi

stop
[ "$stopped" = 0 ] || fail "stop: exit $stopped"
finish "cli_serve_deadline: ok"
