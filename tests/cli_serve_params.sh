#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline serve`: parameters as a managed resource, and the critical
# class (issue 19).
#  - residency: three circuits whose parameters together exceed
#    --params-budget, jobs alternating between them: every proof
#    verifies, hot bytes never above the parameter budget (their peak),
#    least recently used circuits demoted (the demotion counters), the
#    ledger back to the hot bytes when idle and to zero once evicted;
#    each promotion a span of /v1/trace;
#    preload makes a circuit hot, evict of an unknown circuit is 404, a
#    circuit larger than the parameter budget is refused at registration;
#  - critical: with room for one partition and a queue of normal jobs, a
#    critical job submitted last is claimed before every normal partition
#    still waiting then (the claim times), and its proof verifies.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

names=(chain10 multiplier pow2exact)
declare -A id_of
for n in "${names[@]}"; do
    "$PROOFLINE" vkey "$VECTORS/$n/circuit.zkey" "$work/$n.vk.json" || fail "vkey $n"
done
use() { # the circuit register, submit and check_proofs work on
    zkey=$VECTORS/$1/circuit.zkey wtns=$VECTORS/$1/witness.wtns vkey=$work/$1.vk.json
}

# ---- residency ------------------------------------------------------------
# learn each circuit's resident bytes (hot after registration)
P=$work/p
start "$P" --budget 1G || finish x
for n in "${names[@]}"; do
    use "$n"; register 201; id_of[$n]=$cid
done
expect 200 GET /v1/status
declare -A bytes_of
for n in "${names[@]}"; do
    bytes_of[$n]=$(jget "$work/body" '[c["resident_bytes"] for c in d["params"]["circuits"] if c["id"] == "'"${id_of[$n]}"'"][0]')
    [ "${bytes_of[$n]}" -gt 0 ] || fail "$n: no resident bytes in /v1/status"
done
stop
[ "$stopped" = 0 ] || fail "stop: exit $stopped"
total=$(( ${bytes_of[chain10]} + ${bytes_of[multiplier]} + ${bytes_of[pow2exact]} ))
largest=$(printf '%s\n' "${bytes_of[@]}" | sort -n | tail -1)
smallest=$(printf '%s\n' "${bytes_of[@]}" | sort -n | head -1)
pbudget=$((total - smallest)) # two at a time at most, never all three

start "$P" --budget 1G --params-budget "$pbudget" || finish x
jobs=() circuits=()
for round in 1 2 3; do
    for n in "${names[@]}"; do
        use "$n"; cid=${id_of[$n]}
        submit normal 1
        jobs+=("$jid") circuits+=("$n")
    done
done
wait_jobs "${jobs[@]}"
for i in "${!jobs[@]}"; do
    use "${circuits[$i]}"
    check_proofs "${jobs[$i]}" 1
done
expect 200 GET /v1/status
jget "$work/body" 'd["params"]["peak_hot_bytes"] <= d["params"]["budget_bytes"] == '"$pbudget" | grep -qx True ||
    fail "hot bytes above the parameter budget $pbudget: $(jget "$work/body" 'd["params"]')"
# idle: what is reserved is what is hot
for i in $(seq 100); do
    api GET /v1/status >/dev/null
    [ "$(jget "$work/body" 'd["reserved_bytes"] == d["params"]["hot_bytes"] and sum(d["stages"].values()) == 0')" = True ] && break
    sleep 0.1
done
[ "$(jget "$work/body" 'd["reserved_bytes"] == d["params"]["hot_bytes"]')" = True ] ||
    fail "idle: reserved is not the hot bytes: $(cat "$work/body")"
curl -sS "$url/metrics" >"$work/metrics.txt"
demoted=$(awk '/^proofline_params_demotions_total/ { s += $2 } END { print s + 0 }' "$work/metrics.txt")
[ "$demoted" -gt 0 ] || fail "no circuit was demoted, although the three do not fit together"
grep -q '^proofline_params_bytes{circuit="[0-9a-f]*",tier="hot"} [1-9]' "$work/metrics.txt" ||
    fail "/metrics: no hot circuit in proofline_params_bytes"
# promotions are spans of the trace (the parameters' own track)
expect 200 GET /v1/trace
python3 - "$work/body" <<'EOF2' || fail "/v1/trace: no params_promotion span with a circuit and a duration"
import json, sys
d = json.load(open(sys.argv[1]))
spans = [e for e in d["traceEvents"] if e.get("name") == "params_promotion"]
assert spans and all(e["ph"] == "X" and e["dur"] > 0 and e["args"]["circuit"] for e in spans)
EOF2
# preload, evict; unknown ids
expect 200 POST "/v1/circuits/${id_of[pow2exact]}/preload"
[ "$(first "$work/body" tier)" = hot ] || fail "preload: not hot: $(cat "$work/body")"
expect 404 POST "/v1/circuits/$(printf '0%.0s' $(seq 64))/evict"
for n in "${names[@]}"; do expect 200 POST "/v1/circuits/${id_of[$n]}/evict"; done
expect 200 GET /v1/status
[ "$(jget "$work/body" '[d["reserved_bytes"], d["params"]["hot_bytes"]]')" = "[0, 0]" ] ||
    fail "evicted all: still reserved: $(cat "$work/body")"
stop
[ "$stopped" = 0 ] || fail "stop: exit $stopped"

# a circuit whose parameters alone exceed the parameter budget
start "$work/q" --budget 1G --params-budget $((largest / 4)) || finish x
use chain10
expect 400 POST /v1/circuits -H 'Content-Type: application/octet-stream' --data-binary "@$zkey"
grep -q "parameter budget" "$work/body" || fail "too large: the refusal does not say why: $(cat "$work/body")"
stop

# ---- critical ----------------------------------------------------------------
# a 2^13 demo circuit, so that a queue of its partitions takes a while
d=$work/demo
"$PROOFLINE" circuit export --constraints 2^13 --out "$d" >/dev/null 2>&1 || fail "circuit export"
"$PROOFLINE" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey" >/dev/null 2>&1 || fail "setup"
"$PROOFLINE" vkey "$d/circuit.zkey" "$d/vk.json" || fail "vkey demo"
zkey=$d/circuit.zkey wtns=$d/p0.wtns vkey=$d/vk.json
"$PROOFLINE" batch --zkey "$zkey" --out "$work/plan" --print-plan "$wtns" >"$work/plan.txt"
part=$(sed -n 's/^partition_bytes=//p' "$work/plan.txt")
resident=$(sed -n 's/^resident_bytes=//p' "$work/plan.txt")
start "$work/c" --budget $((resident + part + part / 2)) || finish x # room for 1
register 201
normal=()
for i in $(seq 8); do submit normal 2; normal+=("$jid"); done
submit critical 1
critical=$jid
queued_ms=$(date +%s%3N) # its witness is stored: it is queued from here
wait_jobs "$critical" "${normal[@]}"
check_proofs "$critical" 1
# every normal partition claimed after the critical job was queued was
# claimed after it; and some were (it overtook the queue)
for j in "$critical" "${normal[@]}"; do api GET "/v1/jobs/$j" >/dev/null; cp "$work/body" "$work/job.$j.json"; done
python3 - "$work" "$critical" "$queued_ms" "${normal[@]}" <<'EOF' || fail "critical: claimed out of order"
import json, sys
work, crit, queued = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = json.load(open(f"{work}/job.{crit}.json"))["partitions"][0]["claimed_ms"]
later = 0
for j in sys.argv[4:]:
    for p in json.load(open(f"{work}/job.{j}.json"))["partitions"]:
        t = p["claimed_ms"]
        if queued < t < c:
            sys.exit(f"normal job {j} partition {p['index']} claimed at {t}, "
                     f"after the critical job was queued ({queued}) and "
                     f"before it was claimed ({c})")
        later += t > c
if later == 0:
    sys.exit("no normal partition was claimed after the critical one: the "
             "queue drained before it was submitted (nothing overtaken)")
EOF
stop
[ "$stopped" = 0 ] || fail "stop: exit $stopped"
finish "cli_serve_params: ok"
