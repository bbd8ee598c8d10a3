# SPDX-License-Identifier: Apache-2.0
# `proofline serve` under a slowloris: 300 connections from five client
# addresses (127.0.0.2 to .6) trickle header lines, reconnecting whenever
# they are closed, and 16 authenticated uploads drag their bodies a byte at
# a time, for three of the service's header deadlines.  Throughout:
#  - /healthz (from 127.0.0.1) answers 200 within 1 s, every probe;
#  - an authenticated client is served (GET /v1/status 200, a job
#    submitted and proved);
#  - the service closed trickling connections (header deadline), dragging
#    bodies (minimum rate) and made room by closing the oldest connections
#    still sending headers (the caps per address and in total), and says
#    so in /v1/status.
# Then 80 tricklers from one address that do not reconnect: 16 closed for
# the cap per address, the others by the header deadline.  The attacks are a python process (select over
# its sockets); the limits are the flags' defaults, but the deadline,
# shortened to keep the test short.
. "$(dirname "$0")/lib.sh"
zkey=$VECTORS/multiplier/circuit.zkey
wtns=$VECTORS/multiplier/witness.wtns
vkey=$VECTORS/multiplier/verification_key.json
. "$(dirname "$0")/serve_lib.sh"

printf 'slow-test-token-0123456789\n' >"$work/token"
chmod 600 "$work/token"
token=slow-test-token-0123456789
deadline=3
start "$work/data" --token-file "$work/token" --header-timeout ${deadline}s || finish x
register 201
port=${url##*:}

cat >"$work/attack.py" <<'EOF'
# attack.py PORT TOKEN SECONDS HEADERS BODIES FIRST_ADDR N_ADDRS RECONNECT:
# HEADERS connections trickling header lines and BODIES authenticated
# uploads dragging a byte at a time, from 127.0.0.FIRST_ADDR and the next
# N_ADDRS - 1 addresses, for SECONDS; with RECONNECT=1 each one the
# service closes is opened again.
import select, socket, sys, time
port, token, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
n_headers, n_bodies = int(sys.argv[4]), int(sys.argv[5])
first, n_addrs, reconnect = int(sys.argv[6]), int(sys.argv[7]), sys.argv[8] == "1"
end = time.monotonic() + seconds
socks = {}  # socket -> (kind, source address)
opened = closed = failed = 0

def open_one(kind, src):
    global opened, failed
    s = socket.socket()
    try:
        s.bind((src, 0))
        s.settimeout(2)
        s.connect(("127.0.0.1", port))
        if kind == "headers":
            s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: localhost\r\n")
        else:
            s.sendall(("POST /v1/jobs HTTP/1.1\r\nHost: localhost\r\n"
                       "Authorization: Bearer %s\r\n"
                       "Content-Type: application/json\r\n"
                       "Content-Length: 100000\r\n\r\n{" % token).encode())
        s.setblocking(False)
        socks[s] = (kind, src)
        opened += 1
    except OSError:
        failed += 1
        s.close()

for i in range(n_headers):
    open_one("headers", "127.0.0.%d" % (first + i % n_addrs))
for i in range(n_bodies):
    open_one("body", "127.0.0.%d" % (first + i % n_addrs))
tick = 0
while time.monotonic() < end and socks:
    tick += 1
    for s, (kind, src) in list(socks.items()):
        try:
            s.send(b"X-Pad-%d: x\r\n" % tick if kind == "headers" else b" ")
        except OSError:
            pass
    # closed by the service: read the end (and open another)
    r, _, _ = select.select(list(socks), [], [], 0.5)
    for s in r:
        try:
            data = s.recv(4096)
        except OSError:
            data = b""
        if not data:
            kind, src = socks.pop(s)
            s.close()
            closed += 1
            if reconnect:
                open_one(kind, src)
print("opened %d closed %d failed %d open-at-end %d" % (opened, closed, failed, len(socks)))
EOF
# the slowloris: 300 tricklers from five addresses (beyond the total cap
# of 256: each new one makes room by closing the oldest) and 16 dragging
# uploads, reconnecting, for three deadlines
python3 "$work/attack.py" "$port" "$token" $((deadline * 3)) 300 16 2 5 1 >"$work/attack.log" 2>&1 &
attack=$!

# probes while the attack lasts: /healthz within 1 s, every time; the
# authenticated client served
sleep 0.5
probes=0 slow=0
job_done=0
expect 201 POST /v1/jobs -H 'Content-Type: application/json' -d "{\"circuit\": \"$cid\", \"partitions\": 1}"
jid=$(first "$work/body" id)
expect 202 PUT "/v1/jobs/$jid/witness/0" -H 'Content-Type: application/octet-stream' --data-binary "@$wtns"
while kill -0 "$attack" 2>/dev/null; do
    r=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 5 "$url/healthz" || true)
    probes=$((probes + 1))
    code=${r% *} t=${r#* }
    [ "$code" = 200 ] || fail "probe $probes: /healthz answered '$r' during the attack"
    awk -v t="$t" 'BEGIN { exit !(t < 1.0) }' || { slow=$((slow + 1)); fail "probe $probes: /healthz took $t s"; }
    if [ $((probes % 4)) = 0 ]; then
        expect 200 GET /v1/status
    fi
    sleep 0.2
done
wait "$attack" || fail "the attack's script failed: $(cat "$work/attack.log")"
echo "attack: $(cat "$work/attack.log"); $probes /healthz probes, $slow over 1 s"
[ "$probes" -ge 10 ] || fail "only $probes probes during the attack"
wait_jobs "$jid"
check_proofs "$jid" 1

# 80 tricklers from one address that do not come back: the 16 beyond the
# cap per address make room by closing that address's oldest, the other
# 64 are closed by the header deadline
expect 200 GET /v1/status
evicted_before=$(jget "$work/body" 'd["connections_closed"]["evicted"]')
python3 "$work/attack.py" "$port" "$token" $((deadline * 3)) 80 0 8 1 0 >"$work/attack2.log" 2>&1 ||
    fail "the second attack's script failed: $(cat "$work/attack2.log")"
grep -q "closed 80 failed 0 open-at-end 0" "$work/attack2.log" ||
    fail "80 tricklers: $(cat "$work/attack2.log")"

expect 200 GET /v1/status
counts=$(jget "$work/body" '[d["connections_closed"][k] for k in ("header_timeout", "slow_body", "evicted")]')
echo "closed by the service: header_timeout, slow_body, evicted = $counts"
jget "$work/body" "(c := d['connections_closed'])['header_timeout'] >= 64 and c['slow_body'] >= 16 and c['evicted'] - $evicted_before >= 16" | grep -qx True ||
    fail "the guard did not close what it should: $(jget "$work/body" 'd["connections_closed"]')"
expect 200 GET /metrics
grep -q '^proofline_http_connections_closed_total{reason="header_timeout"} [1-9]' "$work/body" ||
    fail "/metrics: $(grep connections "$work/body")"
stop
[ "$stopped" = 0 ] || fail "SIGTERM after the attack: exit $stopped"
finish "cli_serve_slow: ok"
