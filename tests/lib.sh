# SPDX-License-Identifier: Apache-2.0
# The shared preamble of the shell tests (tests/cli_*.sh), sourced first:
#     . "$(dirname "$0")/lib.sh"
# CTest gives every shell test PROOFLINE (the binary), VECTORS
# (tests/vectors) and TMPROOT (a scratch folder of the build); this file
# checks them, makes the test's own folder $work (removed on exit), and
# holds the helpers the tests share.  A test counts its failures with
# `fail`, carries on, and ends with `finish "<name>: ok"`, so one run shows
# every failure rather than the first.
set -euo pipefail
: "${PROOFLINE:?} ${VECTORS:?} ${TMPROOT:?}"
work=$(mktemp -d "$TMPROOT/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
snarkjs="$VECTORS/node_modules/.bin/snarkjs"

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Exits 1 if anything failed, else prints the line given.
finish() {
    [ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
    echo "$1"
}

# expect_exit CODE cmd [args...]: runs the command with its stdout in
# $work/stdout and its stderr in $work/log; a failure unless it exits CODE.
expect_exit() {
    local want=$1 rc=0; shift
    "$@" >"$work/stdout" 2>"$work/log" || rc=$?
    [ "$rc" = "$want" ] || fail "${*/#"$PROOFLINE"/proofline}: exit $rc," \
        "wanted $want ($(cat "$work/log"))"
    return 0
}

# snarkjs from tests/vectors/node_modules (make npm-deps installs it).
have_snarkjs() { [ -x "$snarkjs" ]; }
# Ends the test as skipped (77) without snarkjs, unless something failed.
require_snarkjs() {
    have_snarkjs && return 0
    [ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
    echo "SKIP: $snarkjs missing (run make npm-deps)"
    exit 77
}
# snarkjs prints "OK!" and exits 0 on success; anything else is a rejection.
snarkjs_accepts() {
    "$snarkjs" groth16 verify "$@" >"$work/sj.log" 2>&1 &&
        grep -q "OK" "$work/sj.log"
}
