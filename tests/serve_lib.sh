# SPDX-License-Identifier: Apache-2.0
# The helpers of the service's shell tests (tests/cli_serve*.sh), sourced
# after lib.sh: a server on a port the system picks (--listen 127.0.0.1:0;
# the bound address read from DATA/listen.addr, so there is no race for a
# free port), curl calls with their status and body, jobs submitted and
# waited for, proofs fetched and verified.  The caller sets zkey, wtns and
# vkey (the circuit register/submit/check_proofs use).  Waits are polls
# with a generous deadline, never timings.
command -v curl >/dev/null || { echo "SKIP: curl missing"; exit 77; }

pid=""
url=""
token=""
# the binary under test as it was at the start: a rebuild of the tree
# during the run (a source edited while `make test` runs relinks it when
# cli_install's `make install` builds) makes every exec of it fail for a
# second or two (126, "Permission denied" or "Text file busy"), which a
# check must not read as a rejected proof
binary_stamp=$(stat -c '%y %s' "$PROOFLINE" 2>/dev/null || echo missing)

# jq-like field access with python: jget FILE 'd["id"]'
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# the first "key": "string" of a reply (the object's own id and state come
# first in every reply): cheaper than starting python on a loaded machine
# (one process: `grep | head` under pipefail fails when head exits first)
first() {
    awk -v k="\"$2\": \"" '{ i = index($0, k); if (i) { s = substr($0, i + length(k));
        print substr(s, 1, index(s, "\"") - 1); exit } }' "$1"
}

# start DATA [options...]: starts a server, waits for its address
start() {
    local data=$1 i; shift
    mkdir -p "$data"
    rm -f "$data/listen.addr"
    "$PROOFLINE" serve --listen 127.0.0.1:0 --data "$data" --log-level quiet \
        --pw 2 --threads 2 --backend cpu --lease 5s "$@" 2>>"$work/serve.log" &
    pid=$!
    for i in $(seq 600); do
        [ -s "$data/listen.addr" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -s "$data/listen.addr" ] || { fail "serve $* did not start: $(tail -5 "$work/serve.log")"; return 1; }
    url="http://$(cat "$data/listen.addr")"
}

# stop: SIGTERM, wait; $stopped holds the exit status
stop() {
    stopped=0
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" || stopped=$?
    pid=""
}
cleanup() { [ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# a command that ends the test early says which, with the servers' log
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND (exit $?)"; tail -20 "$work/serve.log"' ERR

# api METHOD PATH [curl args...]: the status code on stdout (000 and
# curl's error when it failed), the body in $work/body, the headers in
# $work/headers
api() {
    local method=$1 path=$2; shift 2
    local auth=() how=(-X "$method")
    [ -z "$token" ] || auth=(-H "Authorization: Bearer $token")
    [ "$method" != HEAD ] || how=(--head) # a HEAD reply has no body to wait for
    curl -sS --max-time 300 "${how[@]}" -o "$work/body" -D "$work/headers" -w '%{http_code}' \
        "${auth[@]}" "$@" "$url$path" 2>"$work/curl.log" || echo " (curl: $(cat "$work/curl.log"))"
}
# expect CODE METHOD PATH [curl args...]
expect() {
    local want=$1 got; shift
    got=$(api "$@")
    [ "$got" = "$want" ] || fail "$1 $2: $got, wanted $want ($(head -c 300 "$work/body"))"
    return 0
}

# register: the circuit's id in $cid
register() {
    expect "$1" POST /v1/circuits -H 'Content-Type: application/octet-stream' \
        --data-binary "@$zkey"
    cid=$(first "$work/body" id)
}

# submit PRIORITY N: a job of N partitions with the vector's witness; its
# id in $jid
submit() {
    local k
    expect 201 POST /v1/jobs -H 'Content-Type: application/json' \
        -d "{\"circuit\": \"$cid\", \"priority\": \"$1\", \"partitions\": $2}"
    jid=$(first "$work/body" id)
    for k in $(seq 0 $(($2 - 1))); do
        expect 202 PUT "/v1/jobs/$jid/witness/$k" \
            -H 'Content-Type: application/octet-stream' --data-binary "@$wtns"
    done
}

# wait_jobs ID...: until each is done (or failed/cancelled: a failure)
wait_jobs() {
    local j i s
    for j in "$@"; do
        for i in $(seq 1200); do
            api GET "/v1/jobs/$j" >/dev/null
            s=$(first "$work/body" state)
            case $s in done|failed|cancelled) break ;; esac
            sleep 0.1
        done
        [ "$s" = done ] || fail "job $j: $s ($(head -c 400 "$work/body"))"
    done
}

# keep NAME FILE...: copies of a failure's files that outlive the test
# ($work is removed at its end), as $TMPROOT/kept/TEST.PID/NAME.FILE;
# prints the folder
keep() {
    local name=$1 f dir="$TMPROOT/kept/$(basename "$0" .sh).$$"; shift
    mkdir -p "$dir"
    for f in "$@"; do cp "$f" "$dir/$name.$(basename "$f")" 2>/dev/null || true; done
    echo "$dir"
}

# verify_or_keep VKEY PUBLIC PROOF JOB K [FILE...]: ours verifies the pair,
# else a failure that says why (verify's own words, the server that served
# it) and keeps the pair and the files given (the reply's body).  A test
# may define on_bad_proof JOB K DIR to keep more (its store's rows, logs).
verify_or_keep() {
    local vk=$1 pub=$2 proof=$3 j=$4 k=$5 dir rc=0; shift 5
    "$PROOFLINE" verify "$vk" "$pub" "$proof" >"$work/verify.log" 2>&1 || rc=$?
    [ "$rc" != 0 ] || return 0
    dir=$(keep "$j.$k" "$pub" "$proof" "$work/verify.log" "$@")
    ! declare -F on_bad_proof >/dev/null || on_bad_proof "$j" "$k" "$dir" || true
    local what="rejects it" now
    now=$(stat -c '%y %s' "$PROOFLINE" 2>/dev/null || echo missing)
    [ "$rc" -lt 126 ] || what="did not run"
    [ "$now" = "$binary_stamp" ] ||
        what="$what, and $PROOFLINE was rebuilt during the test ($binary_stamp, now $now)"
    fail "job $j proof $k (from $url): proofline verify $what (exit $rc:" \
        "$(tr '\n' ' ' <"$work/verify.log")) (kept in $dir)"
}

# check_proofs ID N [snarkjs]: fetch each proof, verify it with ours (and
# snarkjs when asked)
check_proofs() {
    local k
    for k in $(seq 0 $(($2 - 1))); do
        expect 200 GET "/v1/jobs/$1/proofs/$k"
        python3 - "$work/body" "$work/p.json" "$work/pub.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d["proof"], open(sys.argv[2], "w"))
json.dump(d["public"], open(sys.argv[3], "w"))
EOF
        verify_or_keep "$vkey" "$work/pub.json" "$work/p.json" "$1" "$k" \
            "$work/body" "$work/headers"
        if [ "${3:-}" = snarkjs ] && have_snarkjs; then
            snarkjs_accepts "$vkey" "$work/pub.json" "$work/p.json" ||
                fail "job $1 proof $k: snarkjs rejects it"
        fi
    done
}


# check_all_proofs VKEY N ID...: every proof of the N-partition jobs,
# fetched, split by one python (a start of python per proof would be most
# of a test's time on a loaded machine), verified with ours
check_all_proofs() {
    local vk=$1 n=$2 j k dir="$work/all_proofs"; shift 2
    rm -rf "$dir"; mkdir -p "$dir"
    for j in "$@"; do
        for k in $(seq 0 $((n - 1))); do
            expect 200 GET "/v1/jobs/$j/proofs/$k"
            mv "$work/body" "$dir/$j.$k"
        done
    done
    python3 - "$dir" <<'PYEOF'
import json, os, sys
for name in os.listdir(sys.argv[1]):
    path = os.path.join(sys.argv[1], name)
    d = json.load(open(path))
    json.dump(d["proof"], open(path + ".proof", "w"))
    json.dump(d["public"], open(path + ".public", "w"))
PYEOF
    for j in "$@"; do
        for k in $(seq 0 $((n - 1))); do
            verify_or_keep "$vk" "$dir/$j.$k.public" "$dir/$j.$k.proof" "$j" "$k" \
                "$dir/$j.$k"
        done
    done
}
