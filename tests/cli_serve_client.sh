#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The client commands against a running `proofline serve` (on a free
# loopback port, with a token; then on a Unix socket):
#  - `submit --zkey ... --wait --out DIR` registers the circuit, creates a
#    job of 3 partitions, uploads the witnesses and writes DIR/NAME.proof.json
#    and DIR/NAME.public.json per witness; every pair verifies with
#    `proofline verify` and with snarkjs;
#  - `submit --circuit ID` without --wait prints the job id alone on
#    stdout; `fetch --wait ID --out DIR` writes DIR/pK.*.json, which verify;
#    given the job's witnesses, fetch names the files as submit --out does
#    (DIR/NAME.*.json), and refuses a count that is not the partitions';
#  - the same proof fetched twice is the same bytes (the server serves the
#    file it wrote, never a new proof);
#  - `jobs` and `status` show the jobs and the ledger; their --json is the
#    server's JSON; the jobs table's columns line up under the header for
#    every priority, critical included;
#  - a file that is not a witness of the circuit (its zkey, another
#    circuit's witness): exit 2 before any job is made;
#  - a missing or wrong token: exit 2, the server's 401 named; an unknown
#    job: exit 2 naming the 404; a job whose witness does not satisfy the
#    circuit: exit 1 (the proof does not verify), the job's message shown;
#  - a full queue (--max-queued): submit waits out the 429 (Retry-After)
#    and goes in once room is made; fetch --wait of a job cancelled
#    meanwhile exits 2; SIGTERM stops a fetch --wait (143) and leaves the
#    job on the server;
#  - over a Unix socket: the same round trip.
# Skipped (77) when this build has no `proofline serve`.
. "$(dirname "$0")/lib.sh"
m="$VECTORS/multiplier"
z="$m/circuit.zkey" vk="$m/verification_key.json"
"$PROOFLINE" serve --help >/dev/null 2>&1 || { echo "SKIP: no proofline serve in this build"; exit 77; }

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# start_serve DATA [options...]: the service in the background; its
# address in $addr (from DATA/listen.addr)
start_serve() {
    local data=$1; shift
    mkdir -p "$data"
    "$PROOFLINE" serve --data "$data" --pw 1 "$@" >"$data.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 400); do
        [ -s "$data/listen.addr" ] && break
        kill -0 "${pids[-1]}" 2>/dev/null || { fail "serve exited: $(cat "$data.log")"; finish x; }
        sleep 0.05
    done
    [ -s "$data/listen.addr" ] || { fail "serve wrote no listen.addr: $(cat "$data.log")"; finish x; }
    addr=$(head -1 "$data/listen.addr")
}

verify_both() { # DIR NAME
    expect_exit 0 "$PROOFLINE" verify "$vk" "$1/$2.public.json" "$1/$2.proof.json"
    if have_snarkjs; then
        snarkjs_accepts "$vk" "$1/$2.public.json" "$1/$2.proof.json" ||
            fail "snarkjs rejects $2: $(cat "$work/sj.log")"
    fi
}

for i in 1 2 3; do cp "$m/witness.wtns" "$work/w$i.wtns"; done
printf 'proofline-test-token-%s\n' "$RANDOM$RANDOM" >"$work/token"
chmod 600 "$work/token"
start_serve "$work/data" --listen 127.0.0.1:0 --token-file "$work/token"
srv="http://$addr"
export PROOFLINE_SERVER="$srv" PROOFLINE_TOKEN_FILE="$work/token"

# submit --wait --out: three partitions, named as batch names them
expect_exit 0 "$PROOFLINE" submit --zkey "$z" --priority high --wait --quiet --out "$work/o" \
    "$work/w1.wtns" "$work/w2.wtns" "$work/w3.wtns"
job1=$(cat "$work/stdout")
[[ "$job1" =~ ^[A-Za-z0-9_-]+$ ]] || fail "submit --wait printed '$job1', not a job id"
for i in 1 2 3; do verify_both "$work/o" "w$i"; done

# submit by id, no --wait: the id alone; then fetch --wait
id=$(sha256sum "$z" | cut -d' ' -f1)
expect_exit 0 "$PROOFLINE" submit --circuit "$id" "$work/w1.wtns" "$work/w2.wtns"
job2=$(cat "$work/stdout")
[ "$(wc -l <"$work/stdout")" = 1 ] && [[ "$job2" =~ ^[A-Za-z0-9_-]+$ ]] ||
    fail "submit printed '$(cat "$work/stdout")', not one job id"
expect_exit 0 "$PROOFLINE" fetch --wait --quiet "$job2" --out "$work/f"
for k in 0 1; do verify_both "$work/f" "p$k"; done
# fetched again: the same bytes
expect_exit 0 "$PROOFLINE" fetch --quiet "$job2" --out "$work/f2"
for k in 0 1; do
    cmp -s "$work/f/p$k.proof.json" "$work/f2/p$k.proof.json" || fail "p$k fetched twice differs"
done

# fetch given the witnesses: their names, as submit --out writes them
expect_exit 0 "$PROOFLINE" fetch --quiet "$job2" --out "$work/f3" "$work/w1.wtns" "$work/w2.wtns"
for i in 1 2; do
    cmp -s "$work/f/p$((i - 1)).proof.json" "$work/f3/w$i.proof.json" ||
        fail "fetch with witnesses: w$i.proof.json is not partition $((i - 1))'s proof"
done
[ "$(ls "$work/f3" | wc -l)" = 4 ] || fail "fetch with witnesses wrote: $(ls "$work/f3")"
expect_exit 2 "$PROOFLINE" fetch --quiet "$job2" --out "$work/f4" "$work/w1.wtns"
grep -q "2 partitions, 1 witnesses given" "$work/log" || fail "fetch with 1 of 2 witnesses: $(cat "$work/log")"

# jobs and status; a critical job's row lines up with the others
expect_exit 0 "$PROOFLINE" submit --circuit "$id" --priority critical --wait --quiet "$work/w1.wtns"
expect_exit 0 "$PROOFLINE" jobs
grep -q " critical " "$work/stdout" || fail "jobs: no critical job: $(cat "$work/stdout")"
python3 - "$work/stdout" <<'PY' || fail "jobs: the columns do not line up: $(cat "$work/stdout")"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head = lines[0]
# each column's start in the header (two spaces apart); every row's
# fields (none holds two spaces) start at the same columns
starts = [m.start() for m in re.finditer(r"(?:^|(?<=  ))\S", head)]
for row in lines[1:]:
    got = [m.start() for m in re.finditer(r"(?:^|(?<=  ))\S", row)]
    # DONE and TOOK are right-aligned: compare the left-aligned columns
    for col in (0, 1, 2, 4, 5, 6):
        assert got[col] == starts[col], (row, got, starts)
PY
grep -q "^$job1 .*done" "$work/stdout" || fail "jobs: no line for $job1 done: $(cat "$work/stdout")"
grep -q "^$job2 .*done" "$work/stdout" || fail "jobs: no line for $job2 done"
expect_exit 0 "$PROOFLINE" jobs --state done --limit 1 --json
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); assert len(j["jobs"]) == 1, j' "$work/stdout" ||
    fail "jobs --json --limit 1: $(cat "$work/stdout")"
expect_exit 0 "$PROOFLINE" status
for word in budget memory class jobs queue; do
    grep -q "^$word" "$work/stdout" || fail "status has no '$word' line: $(cat "$work/stdout")"
done
expect_exit 0 "$PROOFLINE" status --json
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); assert "budget_bytes" in j' "$work/stdout" ||
    fail "status --json: $(head -c 300 "$work/stdout")"

# refusals
env -u PROOFLINE_TOKEN_FILE "$PROOFLINE" status >"$work/stdout" 2>"$work/log" && fail "status without a token succeeded"
grep -q "HTTP 401" "$work/log" || fail "no token: $(cat "$work/log")"
printf 'wrong\n' >"$work/wrong"; chmod 600 "$work/wrong"
expect_exit 2 "$PROOFLINE" jobs --token-file "$work/wrong"
grep -q "HTTP 401.*--token-file" "$work/log" || fail "wrong token: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" fetch no-such-job --out "$work/x"
grep -q "HTTP 404" "$work/log" || fail "unknown job: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" submit --circuit "${id//?/f}" "$work/w1.wtns"
grep -q "HTTP 404" "$work/log" || fail "unknown circuit: $(cat "$work/log")"
[ -s "$work/stdout" ] && fail "a refused submit printed $(cat "$work/stdout")"
# a file that is not a witness of the circuit (its zkey, a witness of
# another circuit): refused before any job is made, the whole reason said
n_jobs=$(curl -sf -H "Authorization: Bearer $(head -1 "$work/token")" "$srv/v1/jobs?limit=10000" |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)["jobs"]))')
expect_exit 2 "$PROOFLINE" submit --circuit "$id" "$z"
grep -q "no job was made" "$work/log" && grep -q "exactly" "$work/log" ||
    fail "a zkey as a witness: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" submit --circuit "$id" "$VECTORS/chain10/witness.wtns"
grep -q "no job was made" "$work/log" || fail "another circuit's witness: $(cat "$work/log")"
[ "$(curl -sf -H "Authorization: Bearer $(head -1 "$work/token")" "$srv/v1/jobs?limit=10000" |
    python3 -c 'import json, sys; print(len(json.load(sys.stdin)["jobs"]))')" = "$n_jobs" ] ||
    fail "a refused witness made a job"
# a witness that does not satisfy the circuit: the job fails; exit 1 (a
# proof that does not verify), and the job's whole message printed, to
# the engine's hint at its end (the service and the client cut nothing;
# the engine's own message is cut at its pl_error's 255 bytes when it
# names a long witness path, and then says so)
rc=0
"$PROOFLINE" submit --circuit "$id" --wait --quiet --out "$work/u" "$VECTORS/bad/unsat.wtns" \
    >"$work/stdout" 2>"$work/log" || rc=$?
grep -q "failed" "$work/log" || fail "unsat: $(cat "$work/log")"
[ "$rc" = 1 ] || fail "unsat: exit $rc, wanted 1: $(cat "$work/log")"
grep -q -- "--check-witness names the constraint\|the engine's message is cut at 255 bytes\]$" "$work/log" ||
    fail "unsat: the message is not whole: $(cat "$work/log")"
[ -e "$work/u/unsat.proof.json" ] && fail "a failed job's proof was written"

# a full queue: with --max-queued 1 and one job receiving, the next
# submit gets 429 with Retry-After, waits, and goes in once that job is
# cancelled; fetch --wait on a job that never ends stops on SIGTERM (143),
# leaving the job on the server
start_serve "$work/data3" --listen 127.0.0.1:0 --max-queued 1
srv3="http://$addr"
new_job() { # a job of one partition on $srv3, its witness never sent
    curl -sf -H 'Content-Type: application/json' \
        -d "{\"circuit\": \"$id\", \"priority\": \"low\", \"partitions\": 1}" "$srv3/v1/jobs" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])'
}
expect_exit 0 "$PROOFLINE" submit --server "$srv3" --zkey "$z" --wait --quiet "$work/w1.wtns"
held=$(new_job)
"$PROOFLINE" fetch --server "$srv3" --wait --quiet "$held" --out "$work/h" >"$work/h.out" 2>"$work/h.log" &
fetcher=$!
( sleep 1; curl -s -X DELETE "$srv3/v1/jobs/$held" >/dev/null ) &
canceller=$!
expect_exit 0 "$PROOFLINE" submit --server "$srv3" --circuit "$id" --wait --quiet "$work/w2.wtns"
wait "$canceller"
rc=0; wait "$fetcher" || rc=$?
# the held job was cancelled while fetch waited: exit 2 naming it
[ "$rc" = 2 ] && grep -q "cancelled" "$work/h.log" || fail "fetch --wait of a cancelled job: exit $rc: $(cat "$work/h.log")"
held2=$(new_job)
"$PROOFLINE" fetch --server "$srv3" --wait --quiet "$held2" --out "$work/h" >"$work/h.out" 2>"$work/h.log" &
fetcher=$!
sleep 1
kill -TERM "$fetcher"
rc=0; wait "$fetcher" || rc=$?
[ "$rc" = 143 ] || fail "fetch --wait after SIGTERM: exit $rc: $(cat "$work/h.log")"
curl -sf "$srv3/v1/jobs/$held2" | grep -q '"receiving"' || fail "the job waited for is gone after the client stopped"

# over a Unix socket (no token: a socket is local)
start_serve "$work/data2" --listen "unix:$work/s.sock"
export PROOFLINE_SERVER="unix:$work/s.sock"
unset PROOFLINE_TOKEN_FILE
expect_exit 0 "$PROOFLINE" submit --zkey "$z" --wait --quiet --out "$work/s" "$work/w1.wtns"
verify_both "$work/s" w1
expect_exit 0 "$PROOFLINE" jobs
grep -q "done" "$work/stdout" || fail "jobs over the socket: $(cat "$work/stdout")"

finish "cli_serve_client: ok"
