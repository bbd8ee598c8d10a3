# SPDX-License-Identifier: Apache-2.0
# `proofline serve` end to end with curl, each server on a port the system
# picks (--listen 127.0.0.1:0; the bound address is read from
# DATA/listen.addr, so there is no race for a free port):
#  - round trip: register the chain10 zkey (upload and by path), 3 jobs of
#    2 partitions, every proof checked by `proofline verify` and snarkjs;
#    a job in one multipart request;
#  - budget under load: 50 queued jobs with a budget for 2 partitions:
#    peak reserved never above the budget, /v1/status and /metrics agree,
#    nothing reserved or live once idle;
#  - web pages: a cross-site form post, a foreign Origin, Sec-Fetch-Site or
#    Host refused in the tokenless mode, the service's own origin served;
#    HEAD, strict ids and numbers, 401 before routing with a token, error
#    bodies without server paths, DATA 0700 and its files 0600;
#  - security and bad input: 401s, 404s, 405, 400s (wrong witness sizes,
#    malformed or deep JSON), a witness that does not fit failing its job
#    (naming the partition), an unsatisfied witness failing its job,
#    broken uploads leaving nothing, 403 outside --allow-path, 413, 429,
#    a world-readable token file and a non-loopback address refused; the
#    service healthy and the other jobs done afterwards;
#  - priority: high jobs submitted after low ones finish first;
#  - durability: kill -9 with work in flight, restart: every job done, each
#    partition completed exactly once, no temporary file left;
#  - drain: SIGTERM with work in flight exits 0; a restart finishes it;
#  - --retain: ended jobs and their files are forgotten;
#  - promtool check metrics (when promtool is installed).
# Waits are polls with a generous deadline, never timings.
. "$(dirname "$0")/lib.sh"
zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$VECTORS/chain10/verification_key.json
. "$(dirname "$0")/serve_lib.sh"

# the bytes one partition and the circuit reserve
"$PROOFLINE" batch --zkey "$zkey" --out "$work/plan" --print-plan "$wtns" >"$work/plan.txt"
part=$(sed -n 's/^partition_bytes=//p' "$work/plan.txt")
resident=$(sed -n 's/^resident_bytes=//p' "$work/plan.txt")
budget2=$((resident + 2 * part + part / 2)) # room for 2 partitions, not 3
budget1=$((resident + part + part / 2))     # room for 1

# ---- A: round trip, bad input, budget under load, metrics --------------
A=$work/a
mkdir -p "$work/allowed"
cp "$zkey" "$work/allowed/c.zkey"
start "$A" --budget "$budget2" --allow-path "$work/allowed" || { finish x; }
expect 200 GET /healthz
expect 200 GET /readyz
expect_exit 2 "$PROOFLINE" serve --listen 127.0.0.1:0 --data "$A" --backend cpu
grep -q 'another proofline serve' "$work/log" || fail "a second server on one DATA: $(cat "$work/log")"
register 201
[ "$cid" = "$(sha256sum "$zkey" | cut -d' ' -f1)" ] || fail "circuit id $cid is not the zkey's sha256"
register 200
expect 200 POST /v1/circuits -H 'Content-Type: application/json' \
    -d "{\"path\": \"$work/allowed/c.zkey\"}"
[ "$(jget "$work/body" 'd["id"]')" = "$cid" ] || fail "by path: another id"
expect 200 GET /v1/circuits
jget "$work/body" 'd["circuits"][0]["witness_bytes"]' | grep -qx "$(stat -c %s "$wtns")" ||
    fail "witness_bytes is not the witness file's size ($(cat "$work/body"))"
expect 200 GET "/v1/circuits/$cid"

jobs=()
for i in 1 2 3; do submit normal 2; jobs+=("$jid"); done
wait_jobs "${jobs[@]}"
for j in "${jobs[@]}"; do check_proofs "$j" 2 snarkjs; done
expect 200 GET "/v1/jobs?state=done&limit=10"
[ "$(jget "$work/body" 'len(d["jobs"])')" = 3 ] || fail "jobs?state=done: not 3 jobs"

# one request: a multipart spec and its witnesses, queued when acknowledged
expect 202 POST /v1/jobs -F "spec={\"circuit\": \"$cid\", \"partitions\": 2};type=application/json" \
    -F "witness=@$wtns" -F "witness=@$wtns"
mp=$(first "$work/body" id)
[ "$(first "$work/body" state)" = queued ] || fail "multipart: not queued: $(head -c 300 "$work/body")"
wait_jobs "$mp"
check_proofs "$mp" 2
expect 400 POST /v1/jobs -F "spec={\"circuit\": \"$cid\", \"partitions\": 3}" \
    -F "witness=@$wtns" -F "witness=@$wtns"
grep -q 'spec says 3' "$work/body" || fail "multipart, a witness short: $(cat "$work/body")"
expect 400 POST /v1/jobs -F "witness=@$wtns"
[ "$(ls "$A/witnesses" | wc -l)" = 8 ] || fail "refused multipart jobs left witness files"

# the data folder is its user's alone: folders 0700, witnesses 0600
[ "$(stat -c %a "$A")" = 700 ] || fail "DATA is mode $(stat -c %a "$A"), not 700"
for d in circuits witnesses proofs; do
    [ "$(stat -c %a "$A/$d")" = 700 ] || fail "DATA/$d is mode $(stat -c %a "$A/$d"), not 700"
done
for f in "$A"/witnesses/* "$A"/proofs/* "$A"/circuits/* "$A"/store.sqlite; do
    [ "$(stat -c %a "$f")" = 600 ] || fail "$f is mode $(stat -c %a "$f"), not 600"
done

# a web page on the same host cannot reach the tokenless service: a
# cross-site form post (text/plain, form-urlencoded), a foreign Origin or
# Sec-Fetch-Site, a foreign Host (DNS rebinding) are refused; the
# service's own origin, and programs (no Origin), are served
spec1="{\"circuit\": \"$cid\", \"partitions\": 1}"
expect 415 POST /v1/jobs -H 'Content-Type: text/plain' -d "$spec1"
expect 415 POST /v1/jobs -d "$spec1"
expect 403 POST /v1/jobs -H 'Content-Type: application/json' -H 'Origin: https://evil.example' -d "$spec1"
grep -q 'Origin' "$work/body" || fail "foreign Origin: $(cat "$work/body")"
expect 403 POST /v1/jobs -H 'Content-Type: application/json' -H 'Origin: null' -d "$spec1"
expect 403 POST /v1/jobs -H 'Content-Type: application/json' -H 'Sec-Fetch-Site: cross-site' -d "$spec1"
expect 403 POST /v1/jobs -F "spec=$spec1;type=application/json" -F "witness=@$wtns" -H 'Origin: http://evil.example'
port=${url##*:}
expect 403 GET /v1/status -H "Host: evil.example:$port"
grep -q 'Host' "$work/body" || fail "foreign Host: $(cat "$work/body")"
expect 403 GET "/v1/jobs/${jobs[0]}/proofs/0" -H "Host: attacker.example"
expect 403 GET /v1/status -H "Host: 127.0.0.1:$((port + 1))"
expect 200 GET /v1/status -H "Host: localhost:$port"
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -H "Origin: http://127.0.0.1:$port" -d "$spec1"
expect 200 DELETE "/v1/jobs/$(first "$work/body" id)" -H "Origin: http://localhost:$port"

# HEAD where GET is allowed; 405 names HEAD; strict ids and numbers;
# never a 500 for the client's mistake
expect 200 HEAD /healthz
expect 200 HEAD "/v1/jobs/${jobs[0]}"
expect 405 PUT /v1/jobs
grep -qi '^Allow: GET, HEAD, POST' "$work/headers" || fail "405's Allow: $(grep -i allow "$work/headers")"
expect 404 GET "/v1/jobs/${jobs[0]}%00x"
expect 404 GET "/v1/jobs/${jobs[0]}%00"
expect 404 GET "/v1/jobs/$(echo "${jobs[0]}" | tr a-f A-F)"
expect 404 GET "/v1/jobs//${jobs[0]}"
for w in 0x10 inf nan 1e3 -1 99999999999999999999 '1.5.5' '+1' ' 1' '10%00'; do
    expect 400 GET "/v1/jobs/${jobs[0]}?wait=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$w")"
done
expect 200 GET "/v1/jobs/${jobs[0]}?wait=0.5s"
for w in nan inf 0x1 -1 1e9; do expect 400 GET "/v1/trace?since=$w"; done
expect 200 GET "/v1/trace?since=2.5"
for l in 0 0x10 10001 -5 1e2; do expect 400 GET "/v1/jobs?limit=$l"; done

# error bodies name files relative to DATA, never by the server's path
mv "$A/proofs/${jobs[0]}.0.proof.json" "$work/moved.json"
expect 503 GET "/v1/jobs/${jobs[0]}/proofs/0"
grep -q "proofs/${jobs[0]}.0.proof.json" "$work/body" || fail "a missing proof: $(cat "$work/body")"
grep -q "$(realpath "$A")" "$work/body" && fail "an error body carries the server's path: $(cat "$work/body")"
grep -q "$A/" "$work/body" && fail "an error body carries DATA's path: $(cat "$work/body")"
mv "$work/moved.json" "$A/proofs/${jobs[0]}.0.proof.json"

# bad input: each a 4xx with a message; nothing else disturbed
expect 404 GET /v1/nothing
expect 404 GET /v1/jobs/no-such-job
expect 404 GET /v1/circuits/0000
expect 405 DELETE /v1/circuits
grep -qi '^Allow:' "$work/headers" || fail "405 without Allow"
expect 400 POST /v1/jobs -H 'Content-Type: application/json' -d '{"circuit": '
grep -q '"error"' "$work/body" || fail "malformed JSON: no error message"
expect 400 POST /v1/jobs -H 'Content-Type: application/json' -d '{"circuit": 5}'
expect 400 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"priority\": \"urgent\"}"
expect 400 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"partitions\": 0}"
expect 404 POST /v1/jobs -H 'Content-Type: application/json' \
    -d '{"circuit": "0000000000000000000000000000000000000000000000000000000000000000"}'
python3 -c 'print("[" * 100 + "]" * 100)' >"$work/deep.json"
expect 400 POST /v1/jobs -H 'Content-Type: application/json' --data-binary "@$work/deep.json"
grep -q 'nest' "$work/body" || fail "deep JSON: $(cat "$work/body")"
python3 -c 'print("{\"circuit\": \"" + "x" * 70000 + "\"}")' >"$work/big.json"
expect 413 POST /v1/jobs -H 'Content-Type: application/json' --data-binary "@$work/big.json"
expect 403 POST /v1/circuits -H 'Content-Type: application/json' -d "{\"path\": \"$zkey\"}"
expect 400 POST /v1/circuits -H 'Content-Type: application/octet-stream' --data-binary "@$vkey"
expect 201 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"partitions\": 1}"
bad=$(first "$work/body" id)
head -c 1000 "$wtns" >"$work/short.wtns"
{ cat "$wtns"; printf x; } >"$work/long.wtns"
expect 400 PUT "/v1/jobs/$bad/witness/0" --data-binary "@$work/short.wtns"
grep -q 'exactly' "$work/body" || fail "short witness: $(cat "$work/body")"
expect 400 PUT "/v1/jobs/$bad/witness/0" --data-binary "@$work/long.wtns"
expect 404 PUT "/v1/jobs/$bad/witness/1" --data-binary "@$wtns"
# chunked (no Content-Length): refused before the body is read (411),
# whatever its chunks carry: a chunk extension too long for the library's
# buffer would otherwise end as its own 500
expect 411 PUT "/v1/jobs/$bad/witness/0" -H 'Transfer-Encoding: chunked' --data-binary "@$work/long.wtns"
grep -q 'Content-Length' "$work/body" || fail "chunked: $(cat "$work/body")"
python3 - "$url" "$bad" >"$work/chunk.out" <<'EOF2'
import socket, sys
host, port = sys.argv[1][len("http://"):].rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(("PUT /v1/jobs/%s/witness/0 HTTP/1.1\r\nHost: %s:%s\r\n"
           "Transfer-Encoding: chunked\r\n\r\n5;" % (sys.argv[2], host, port)).encode()
          + b"x" * 200000 + b"\r\nhello\r\n0\r\n\r\n")
s.settimeout(10)
out = b""
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        out += b
except Exception:
    pass
print(out.split(b"\r\n", 1)[0].decode())
EOF2
grep -q ' 411 ' "$work/chunk.out" || fail "a long chunk extension: $(cat "$work/chunk.out")"
# a client that goes away mid-upload leaves no temporary file
curl -sS -X PUT --limit-rate 8K --max-time 1 --data-binary "@$wtns" \
    "$url/v1/jobs/$bad/witness/0" >/dev/null 2>&1 || true
for i in $(seq 100); do
    [ -z "$(find "$A/witnesses" -name '*.tmp*')" ] && break
    sleep 0.1
done
[ -z "$(find "$A/witnesses" -name '*.tmp*')" ] || fail "a broken upload left $(find "$A/witnesses" -name '*.tmp*')"
expect 200 GET "/v1/jobs/$bad"
[ "$(jget "$work/body" 'd["state"]')" = receiving ] || fail "a witness of the wrong size changed the job"
expect 409 GET "/v1/jobs/$bad/proofs/0"
expect 200 DELETE "/v1/jobs/$bad"
[ "$(jget "$work/body" 'd["state"]')" = cancelled ] || fail "DELETE: not cancelled"
expect 409 DELETE "/v1/jobs/$bad"
ls "$A/witnesses" | grep -q "^$bad" && fail "a refused witness left a file"
# the right size, but not a witness of this circuit: refused before it is
# stored, and its job fails naming the partition
expect 201 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"partitions\": 2}"
misfit=$(first "$work/body" id)
head -c "$(stat -c %s "$wtns")" /dev/zero >"$work/zero.wtns"
expect 400 PUT "/v1/jobs/$misfit/witness/1" --data-binary "@$work/zero.wtns"
expect 200 GET "/v1/jobs/$misfit"
[ "$(first "$work/body" state)" = failed ] || fail "a witness that does not fit: job $(first "$work/body" state)"
grep -q "\"error\": \"job $misfit partition 1: witness" "$work/body" || fail "the failure does not name the partition: $(head -c 400 "$work/body")"
ls "$A/witnesses" | grep -q "^$misfit" && fail "a witness that does not fit left a file"

# a witness of the right size and shape whose values do not satisfy the
# circuit: its job fails with a message naming the partition, and nothing
# else is disturbed (the load below runs on the same service)
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[-32] ^= 1; open(sys.argv[2], "wb").write(b)' \
    "$wtns" "$work/unsat.wtns"
expect 201 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"partitions\": 2}"
unsat=$(first "$work/body" id)
expect 202 PUT "/v1/jobs/$unsat/witness/0" --data-binary "@$wtns"
expect 202 PUT "/v1/jobs/$unsat/witness/1" --data-binary "@$work/unsat.wtns"
for i in $(seq 600); do
    api GET "/v1/jobs/$unsat" >/dev/null
    case $(first "$work/body" state) in done|failed|cancelled) break ;; esac
    sleep 0.1
done
[ "$(first "$work/body" state)" = failed ] || fail "unsatisfied witness: $(cat "$work/body")"
grep -q '"error": "job [^"]* partition 1' "$work/body" || fail "the failure does not name partition 1: $(cat "$work/body")"

# budget under load: 50 jobs queued, room for 2 partitions
jobs=()
for i in $(seq 50); do submit low 1; jobs+=("$jid"); done
wait_jobs "${jobs[@]}"
check_proofs "${jobs[49]}" 1
expect 200 GET /v1/status
peak=$(jget "$work/body" 'd["peak_reserved_bytes"]')
bud=$(jget "$work/body" 'd["budget_bytes"]')
[ "$bud" = "$budget2" ] || fail "status budget $bud, wanted $budget2"
[ "$peak" -le "$bud" ] || fail "peak reserved $peak above the budget $bud"
[ "$peak" -gt 0 ] || fail "peak reserved 0"
# idle: only the hot circuit reserved (its parameters stay for the next
# proof); evicted, nothing reserved and no partition buffer live
for i in $(seq 100); do
    api GET /v1/status >/dev/null
    [ "$(jget "$work/body" 'd["reserved_bytes"] == d["params"]["hot_bytes"] and sum(d["stages"].values()) == 0')" = True ] && break
    sleep 0.1
done
jget "$work/body" '[c["tier"] for c in d["params"]["circuits"] if c["id"] == "'"$cid"'"]' | grep -qx "\['hot'\]" ||
    fail "the circuit is not hot after its proofs: $(cat "$work/body")"
expect 200 POST "/v1/circuits/$cid/evict"
[ "$(first "$work/body" tier)" != hot ] || fail "evict: still hot: $(cat "$work/body")"
expect 200 GET /v1/status
jget "$work/body" '[d["reserved_bytes"], sum(c["bytes"] for k, c in d["classes"].items() if k != "params"), d["stages"]]' \
    | grep -qx '\[0, 0, {.*}\]' || fail "not idle: $(cat "$work/body")"
jget "$work/body" 'sum(d["stages"].values())' | grep -qx 0 || fail "partitions in stages when idle"
curl -sS "$url/metrics" >"$work/metrics.txt"
grep -q "^proofline_budget_bytes $bud\$" "$work/metrics.txt" || fail "/metrics budget differs"
grep -q "^proofline_budget_peak_reserved_bytes $peak\$" "$work/metrics.txt" || fail "/metrics peak differs"
grep -q '^proofline_jobs{state="done"} 54$' "$work/metrics.txt" || fail "/metrics: not 54 jobs done"
timed=$(sed -n 's/^proofline_proof_duration_seconds_count //p' "$work/metrics.txt")
# 58 proofs, and the unsatisfied job's good partition when it ran first
[ "${timed:-0}" -ge 58 ] && [ "$timed" -le 59 ] || fail "/metrics: $timed proofs timed, not 58 or 59"
grep -q '^proofline_jobs{state="failed"} 2$' "$work/metrics.txt" || fail "/metrics: not 2 jobs failed"
for m in proofline_buffer_bytes proofline_buffer_peak_bytes proofline_buffers \
    proofline_partitions proofline_rss_anon_bytes proofline_untracked_bytes \
    proofline_queue_depth proofline_stage_duration_seconds_bucket; do
    grep -q "^$m" "$work/metrics.txt" || fail "/metrics has no $m"
done
if command -v promtool >/dev/null; then
    promtool check metrics <"$work/metrics.txt" >"$work/promtool.log" 2>&1 ||
        fail "promtool check metrics: $(cat "$work/promtool.log")"
fi
expect 200 GET "/v1/trace?since=60"
jget "$work/body" 'any(e["ph"] == "X" and e["args"].get("job") for e in d["traceEvents"])' |
    grep -qx True || fail "/v1/trace has no span naming a store job"
expect 200 GET /healthz
stop
[ "$stopped" = 0 ] || fail "SIGTERM when idle: exit $stopped"

# ---- a Unix socket --------------------------------------------------------
D=$work/d
"$PROOFLINE" serve --listen "unix:$work/s.sock" --data "$D" --log-level quiet \
    --backend cpu --threads 2 --max-zkey 1000 2>>"$work/serve.log" &
pid=$!
for i in $(seq 600); do [ -s "$D/listen.addr" ] && break; sleep 0.1; done
[ "$(cat "$D/listen.addr" 2>/dev/null)" = "unix:$work/s.sock" ] || fail "unix socket: listen.addr $(cat "$D/listen.addr" 2>/dev/null)"
curl -sS --unix-socket "$work/s.sock" http://localhost/healthz | grep -q ok || fail "healthz over the Unix socket"
code=$(curl -sS --unix-socket "$work/s.sock" -o "$work/body" -w '%{http_code}' \
    -X POST -H 'Content-Type: application/octet-stream' --data-binary "@$zkey" http://localhost/v1/circuits)
[ "$code" = 413 ] || fail "--max-zkey 1000: $code $(cat "$work/body")"
# a client that waits for 100-continue is answered before it sends
code=$(curl -sS --unix-socket "$work/s.sock" -o "$work/body" -w '%{http_code}' \
    -X POST -H 'Expect: 100-continue' -H 'Content-Type: application/octet-stream' \
    --data-binary "@$zkey" http://localhost/v1/circuits)
[ "$code" = 413 ] || fail "--max-zkey 1000, Expect: 100-continue: $code $(cat "$work/body")"
[ -z "$(find "$D/circuits" -type f)" ] || fail "a refused zkey left a file"
stop
[ "$stopped" = 0 ] || fail "unix socket: exit $stopped"
[ -e "$work/s.sock" ] && fail "the socket file is left"

# ---- refused at start -----------------------------------------------------
printf 'secret-token-0123456789\n' >"$work/token"
chmod 644 "$work/token"
expect_exit 2 "$PROOFLINE" serve --listen 127.0.0.1:0 --data "$work/r" --token-file "$work/token"
grep -q 'others' "$work/log" || fail "world-readable token: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" serve --listen 0.0.0.0:0 --data "$work/r"
grep -q 'token-file' "$work/log" || fail "non-loopback: $(cat "$work/log")"
expect_exit 0 "$PROOFLINE" serve --help
grep -q -- '--drain-timeout' "$work/stdout" || fail "serve --help has no --drain-timeout"

# ---- B: a token: 401s; --max-queued: 429 ---------------------------------
chmod 600 "$work/token"
B=$work/b
start "$B" --budget "$budget1" --token-file "$work/token" --max-queued 2 || finish x
expect 401 GET /v1/status
token=wrong-token-0123456789
expect 401 GET /v1/status
expect 401 POST /v1/jobs -H 'Content-Type: application/json' -d '{}'
token=""
expect 401 GET /metrics
expect 401 GET /v1/nothing
expect 401 DELETE /v1/circuits
expect 200 GET /healthz
expect 200 HEAD /healthz
token=secret-token-0123456789
# with a token, any Host is taken (the token is the guard)
expect 200 GET /v1/status -H 'Host: prover.example:7878'
expect 404 GET /v1/nothing
expect 200 GET /v1/status
register 201
# two jobs waiting for their witnesses fill a queue of 2
for i in 1 2; do
    expect 201 POST /v1/jobs -H 'Content-Type: application/json' \
        -d "{\"circuit\": \"$cid\", \"partitions\": 1}"
    waiting=$(first "$work/body" id)
done
expect 429 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"partitions\": 1}"
grep -qi '^Retry-After:' "$work/headers" || fail "429 without Retry-After"
expect 202 PUT "/v1/jobs/$waiting/witness/0" --data-binary "@$wtns"
wait_jobs "$waiting"
expect 201 POST /v1/jobs -H 'Content-Type: application/json' \
    -d "{\"circuit\": \"$cid\", \"partitions\": 1}"
expect 200 GET /healthz
stop
[ "$stopped" = 0 ] || fail "B: exit $stopped"
token=""

# ---- C: priority with a blocker, then kill -9 and restart ---------------
C=$work/c
start "$C" --budget "$budget1" || finish x
register 201
submit normal 16
blocker=$jid
lows=(); highs=()
for i in 1 2; do submit low 1; lows+=("$jid"); done
for i in 1 2; do submit high 1; highs+=("$jid"); done
wait_jobs "$blocker" "${lows[@]}" "${highs[@]}"
last_high=0; first_low=""
for j in "${highs[@]}"; do
    api GET "/v1/jobs/$j" >/dev/null
    f=$(jget "$work/body" 'd["finished_ms"]'); [ "$f" -gt "$last_high" ] && last_high=$f
done
for j in "${lows[@]}"; do
    api GET "/v1/jobs/$j" >/dev/null
    f=$(jget "$work/body" 'd["finished_ms"]')
    [ -z "$first_low" ] || [ "$f" -lt "$first_low" ] && first_low=$f
done
[ "$last_high" -le "$first_low" ] || fail "priority: a low job finished ($first_low) before a high one ($last_high)"

# durability: 6 jobs of 2, kill -9 once the first partition is done
jobs=()
for i in $(seq 6); do submit normal 2; jobs+=("$jid"); done
for i in $(seq 600); do
    api GET "/v1/jobs/${jobs[0]}" >/dev/null
    grep -q '"state": "done"' "$work/body" && break
    sleep 0.05
done
kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=""
start "$C" --budget "$budget1" || finish x
wait_jobs "${jobs[@]}"
for j in "${jobs[@]}"; do
    check_proofs "$j" 2
    api GET "/v1/jobs/$j" >/dev/null
    jget "$work/body" '[p["completions"] for p in d["partitions"]]' | grep -qx '\[1, 1\]' ||
        fail "job $j: completions $(jget "$work/body" '[p["completions"] for p in d["partitions"]]')"
done
left=$(find "$C" -name '*.tmp*' | wc -l)
[ "$left" = 0 ] || fail "temporary files left: $(find "$C" -name '*.tmp*')"

# drain: SIGTERM with work in flight, exit 0; the restart finishes it
submit normal 16
drained=$jid
for i in $(seq 600); do
    api GET "/v1/jobs/$drained" >/dev/null
    grep -qE '"state": "(claimed|done)"' "$work/body" && break
    sleep 0.05
done
stop
[ "$stopped" = 0 ] || fail "drain: exit $stopped, wanted 0"
start "$C" --budget "$budget1" || finish x
wait_jobs "$drained"
check_proofs "$drained" 16
expect 200 GET /healthz
stop
[ "$stopped" = 0 ] || fail "exit $stopped after the drained job"

# --retain: ended jobs older than that are forgotten, their files removed
sleep 1.1
start "$C" --budget "$budget1" --retain 1s || finish x
for i in $(seq 100); do
    [ "$(api GET "/v1/jobs/$drained")" = 404 ] && break
    sleep 0.1
done
expect 404 GET "/v1/jobs/$drained"
for i in $(seq 100); do
    [ -z "$(find "$C/proofs" "$C/witnesses" -type f)" ] && break
    sleep 0.1
done
[ -z "$(find "$C/proofs" "$C/witnesses" -type f)" ] || fail "--retain left files: $(find "$C/proofs" "$C/witnesses" -type f | head -3)"
stop
[ "$stopped" = 0 ] || fail "exit $stopped after the last stop"

[ "$fails" = 0 ] || tail -20 "$work/serve.log"
finish "cli_serve: ok"
