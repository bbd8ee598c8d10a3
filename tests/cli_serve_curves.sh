#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `proofline serve` with a bn128 circuit and a BLS12-381 one side by side:
#  - each circuit's curve in GET /v1/circuits, in /v1/status's parameters,
#    in each job of GET /v1/jobs (and GET /v1/jobs/{id}), and in each
#    partition in flight in /v1/status (with its circuit); `proofline
#    jobs` shows a CURVE column; every proof verifies with ours (bn128's
#    with snarkjs too);
#  - under that load, every reply's claimed partitions each in exactly one
#    stage: `stages` sums to the worker's `in_flight`, and each partition
#    in flight names one of those stages;
#  - a store of schema 4 (the curve column dropped, as a build before it
#    left the tables, jobs and circuits in them) is migrated when the
#    service starts again, and the curves are filled in from the zkeys:
#    the same listings show them; `store info` says schema 5.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: sqlite3 missing"; exit 77; }

use() { # the circuit register, submit and check_proofs work on
    zkey=$VECTORS/$1/circuit.zkey wtns=$VECTORS/$1/witness.wtns
    vkey=$VECTORS/$1/verification_key.json
}
D=$work/data
start "$D" --pw 1 || finish x
declare -A cid_of curve_of=([bn254/multiplier]=bn128 [multiplier]=bls12381)
for v in bn254/multiplier multiplier; do
    use "$v"; register 201; cid_of[$v]=$cid
    [ "$(jget "$work/body" 'd["curve"]')" = "${curve_of[$v]}" ] ||
        fail "$v: registered as $(cat "$work/body")"
done

# the jobs: many small partitions; /v1/status polled from before they are
# submitted until they are done (a poller of its own, one connection), so
# that it sees partitions in flight: each must name its circuit and that
# circuit's curve
N=40
rm -f "$work/stop"
python3 - "$url" "$work/stop" >"$work/inflight.json" 2>"$work/poller.log" <<'PY' &
import http.client, json, os, sys, time, urllib.parse
url, stop = sys.argv[1:]
u = urllib.parse.urlparse(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
seen = []
busy = 0
end = time.monotonic() + 300
while not os.path.exists(stop) and time.monotonic() < end:
    conn.request("GET", "/v1/status")
    s = json.loads(conn.getresponse().read())
    # each claimed partition in exactly one stage (one reading of the
    # worker: the stages and in_flight; its partitions a moment after)
    w0 = s["workers"][0]
    assert sum(s["stages"].values()) == w0["in_flight"], ("stages", s["stages"], w0["in_flight"])
    busy += w0["in_flight"] > 0
    for w in s["workers"]:
        for p in w["partitions"]:
            assert p["stage"] in s["stages"], ("a partition in no stage", p)
            seen.append([p["job"], p.get("circuit"), p.get("curve")])
print("replies with partitions in flight: %d" % busy, file=sys.stderr)
json.dump(seen, sys.stdout)
PY
poller=$!
use bn254/multiplier; cid=${cid_of[bn254/multiplier]}; submit normal $N; jbn=$jid
use multiplier; cid=${cid_of[multiplier]}; submit normal $N; jbls=$jid
wait_jobs "$jbn" "$jbls"
touch "$work/stop"
wait "$poller" || fail "the status poller: $(cat "$work/poller.log")"
grep -q "replies with partitions in flight: [1-9]" "$work/poller.log" ||
    fail "the status poller saw no partition in flight: $(cat "$work/poller.log")"
cat "$work/poller.log"
python3 - "$work/inflight.json" "$jbn" "$jbls" "${cid_of[bn254/multiplier]}" \
    "${cid_of[multiplier]}" <<'PY' || fail "in flight: $(head -c 600 "$work/inflight.json")"
import json, sys
seen = json.load(open(sys.argv[1]))
jbn, jbls, cbn, cbls = sys.argv[2:]
want = {jbn: [cbn, "bn128"], jbls: [cbls, "bls12381"]}
assert seen, "no partition seen in flight"
for job, circuit, curve in seen:
    assert [circuit, curve] == want[job], (job, circuit, curve)
print("in flight, by curve:", {c: sum(1 for s in seen if s[2] == c) for c in ("bn128", "bls12381")})
PY
use bn254/multiplier; check_proofs "$jbn" 2 snarkjs
use multiplier; check_proofs "$jbls" 2

# the listings, both curves side by side
check_listings() { # $1: when
    expect 200 GET /v1/circuits
    jget "$work/body" 'sorted((c["id"], c["curve"]) for c in d["circuits"])' >"$work/got"
    python3 -c 'import sys; print(sorted([(sys.argv[1], "bn128"), (sys.argv[2], "bls12381")]))' \
        "${cid_of[bn254/multiplier]}" "${cid_of[multiplier]}" >"$work/want"
    cmp -s "$work/got" "$work/want" || fail "$1: /v1/circuits: $(cat "$work/got")"
    expect 200 GET /v1/jobs
    [ "$(jget "$work/body" 'sorted((j["id"], j["curve"]) for j in d["jobs"])')" = \
      "$(python3 -c 'import sys; print(sorted([(sys.argv[1], "bn128"), (sys.argv[2], "bls12381")]))' "$jbn" "$jbls")" ] ||
        fail "$1: /v1/jobs: $(head -c 600 "$work/body")"
    expect 200 GET "/v1/jobs/$jbn"
    [ "$(jget "$work/body" 'd["curve"]')" = bn128 ] || fail "$1: GET /v1/jobs/$jbn"
    expect_exit 0 "$PROOFLINE" jobs --server "$url"
    grep -q "^CURVE\|  CURVE  " "$work/stdout" || fail "$1: jobs: no CURVE column: $(cat "$work/stdout")"
    grep -q "^$jbn .* bn128 " "$work/stdout" && grep -q "^$jbls .* bls12381 " "$work/stdout" ||
        fail "$1: jobs: $(cat "$work/stdout")"
}
check_listings "first run"
# the parameters' entries (the circuits were opened: both resident)
expect 200 GET /v1/status
[ "$(jget "$work/body" 'sorted(c["curve"] for c in d["params"]["circuits"])')" = "['bls12381', 'bn128']" ] ||
    fail "status params: $(jget "$work/body" 'd["params"]')"
stop
[ "$stopped" = 0 ] || fail "stop: exit $stopped"

# a schema 4 store: the column gone, as a build before it left the tables
sqlite3 "$D/store.sqlite" "ALTER TABLE circuits DROP COLUMN curve; PRAGMA user_version = 4;" ||
    fail "sqlite3: cannot make a schema 4 store"
# (not `store info`: opening the store migrates it)
[ "$(sqlite3 "$D/store.sqlite" "PRAGMA user_version")" = 4 ] || fail "not a schema 4 store"
start "$D" --pw 1 || finish x
check_listings "after the migration"
stop
expect_exit 0 "$PROOFLINE" store info --store "$D"
grep -qx "schema=5" "$work/stdout" || fail "store info after: $(cat "$work/stdout")"
finish "cli_serve_curves: ok"
