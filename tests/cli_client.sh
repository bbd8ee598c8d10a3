#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The client commands of `proofline serve` (submit, jobs, status, fetch;
# cli/cmd_client.c, service/client.c) where no server is needed: their
# help, their usage errors (exit 2, before any request), a bad --server, a
# missing or empty token file, and a server that cannot be reached, over
# TCP and over a Unix socket (exit 2, a message naming the address, nothing
# on stdout: no job id is printed for a job that was not created).
# The round trip through a running server is tests/cli_serve_client.sh.
. "$(dirname "$0")/lib.sh"
w="$VECTORS/multiplier/witness.wtns"
z="$VECTORS/multiplier/circuit.zkey"
id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef

# --help: exit 0, the usage on stdout; the main help lists the commands
for cmd in submit jobs status fetch; do
    expect_exit 0 "$PROOFLINE" "$cmd" --help
    grep -q "^Usage: proofline $cmd" "$work/stdout" || fail "$cmd --help: $(head -2 "$work/stdout")"
    grep -q -- "--server URL" "$work/stdout" || fail "$cmd --help has no --server"
done
"$PROOFLINE" --help >"$work/main"
for cmd in submit jobs status fetch; do
    grep -q "^  $cmd " "$work/main" || fail "proofline --help does not list $cmd"
done

# usage errors: exit 2 with the reason, before anything is sent
nosrv="unix:$work/none.sock"
usage() { # expected message, then the command's arguments
    local want=$1; shift
    expect_exit 2 "$PROOFLINE" "$@" --server "$nosrv"
    grep -q -- "$want" "$work/log" || fail "$*: wanted '$want', got: $(cat "$work/log")"
    grep -q "cannot reach" "$work/log" && fail "$*: a request was tried"
    [ -s "$work/stdout" ] && fail "$*: printed $(cat "$work/stdout")"
    return 0
}
usage "needs --circuit ID or --zkey FILE" submit "$w"
usage "needs --circuit ID or --zkey FILE" submit --circuit "$id" --zkey "$z" "$w"
usage "needs at least one witness" submit --circuit "$id"
usage "--out needs --wait" submit --circuit "$id" --out "$work/o" "$w"
usage "--priority is critical, high, normal or low, not 'urgent'" submit --circuit "$id" --priority urgent "$w"
usage "unknown option" submit --circuit "$id" --bogus "$w"
usage "takes no arguments" jobs extra
usage "--state is receiving, queued" jobs --state sleeping
usage "--limit needs a count" jobs --limit 0
usage "takes no arguments" status extra
usage "needs one JOB and --out DIR" fetch
usage "needs one JOB and --out DIR" fetch some-job
usage "needs one JOB and --out DIR" fetch --out "$work/o"
usage "not a job id" fetch '../../etc' --out "$work/o"
usage "not an id" submit --circuit 'a/b?c' "$w"
usage "$work/missing.wtns: cannot read it" submit --circuit "$id" "$work/missing.wtns"
# two witnesses that would write one pair of files
mkdir -p "$work/w1" "$work/w2"
cp "$w" "$work/w1/x.wtns"; cp "$w" "$work/w2/x.wtns"
usage "would both write x.proof.json" submit --circuit "$id" --wait --out "$work/o" "$work/w1/x.wtns" "$work/w2/x.wtns"

# a --server that is not one: exit 2 naming it
for bad in ftp://host:21 host:7878 unix:relative.sock http://host:1/path; do
    expect_exit 2 "$PROOFLINE" status --server "$bad"
    grep -q -- "--server $bad" "$work/log" || fail "--server $bad: $(cat "$work/log")"
done

# token files: missing, empty
expect_exit 2 "$PROOFLINE" status --server "$nosrv" --token-file "$work/no-token"
grep -q "$work/no-token" "$work/log" || fail "missing token file: $(cat "$work/log")"
: >"$work/empty-token"
printf '\n' >"$work/blank-token"
expect_exit 2 "$PROOFLINE" status --server "$nosrv" --token-file "$work/blank-token"
grep -q "blank-token: the token file's first line is empty" "$work/log" || fail "blank token: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" status --server "$nosrv" --token-file "$work/empty-token"
grep -q "empty-token" "$work/log" || fail "empty token file: $(cat "$work/log")"

# no server: a Unix socket that does not exist, a TCP port nobody listens
# on (taken from the kernel, then closed)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
for srv in "$nosrv" "http://127.0.0.1:$port"; do
    expect_exit 2 "$PROOFLINE" status --server "$srv"
    grep -q "$srv.*cannot reach the server" "$work/log" || fail "status $srv: $(cat "$work/log")"
    expect_exit 2 "$PROOFLINE" jobs --server "$srv"
    grep -q "cannot reach the server" "$work/log" || fail "jobs $srv: $(cat "$work/log")"
    expect_exit 2 "$PROOFLINE" submit --server "$srv" --circuit "$id" "$w"
    grep -q "cannot reach the server" "$work/log" || fail "submit $srv: $(cat "$work/log")"
    [ -s "$work/stdout" ] && fail "submit $srv printed a job id: $(cat "$work/stdout")"
    expect_exit 2 "$PROOFLINE" submit --server "$srv" --zkey "$z" --wait --out "$work/o" "$w"
    grep -q "/v1/circuits.*cannot reach the server" "$work/log" || fail "submit --zkey $srv: $(cat "$work/log")"
    [ -e "$work/o/witness.proof.json" ] && fail "submit $srv wrote a proof"
    expect_exit 2 "$PROOFLINE" fetch --server "$srv" some-job --out "$work/o"
    grep -q "cannot reach the server" "$work/log" || fail "fetch $srv: $(cat "$work/log")"
done
# the server from the environment, and --server over it
PROOFLINE_SERVER="unix:$work/env.sock" expect_exit 2 "$PROOFLINE" status
grep -q "unix:$work/env.sock" "$work/log" || fail "PROOFLINE_SERVER: $(cat "$work/log")"
PROOFLINE_SERVER="unix:$work/env.sock" expect_exit 2 "$PROOFLINE" status --server "$nosrv"
grep -q "$nosrv" "$work/log" || fail "--server over PROOFLINE_SERVER: $(cat "$work/log")"
PROOFLINE_TOKEN_FILE="$work/no-token" expect_exit 2 "$PROOFLINE" status --server "$nosrv"
grep -q "$work/no-token" "$work/log" || fail "PROOFLINE_TOKEN_FILE: $(cat "$work/log")"
# without either, the default address
port_free=$(python3 -c 'import socket; s = socket.socket()
try:
    s.connect(("127.0.0.1", 7878)); print(0)
except OSError:
    print(1)')
if [ "$port_free" = 1 ]; then
    env -u PROOFLINE_SERVER -u PROOFLINE_TOKEN_FILE "$PROOFLINE" status >"$work/stdout" 2>"$work/log" && fail "status with no server succeeded"
    grep -q "http://127.0.0.1:7878/v1/status" "$work/log" || fail "the default server: $(cat "$work/log")"
fi

finish "cli_client: ok"
