# SPDX-License-Identifier: Apache-2.0
# `proofline store migrate|info --store LOCATOR` on SQLite stores (the
# PostgreSQL side of the same calls: tests/test_store.c, postgres_store):
# a new store migrated from nothing to this build's version, a second
# migrate that finds nothing to do, a store stopped at version 1 then
# upgraded, info's counts and workers, and the usage errors (exit 2).
. "$(dirname "$0")/lib.sh"

want() { grep -qx "$1" "$work/stdout" || fail "$2: no line '$1' in: $(cat "$work/stdout")"; }

expect_exit 0 "$PROOFLINE" store migrate --store "$work/a"
want schema_before=0 "a new store"
want schema_after=5 "a new store"
[ -f "$work/a/store.sqlite" ] || fail "no $work/a/store.sqlite"
expect_exit 0 "$PROOFLINE" store migrate --store "$work/a"
want schema_before=5 "migrated again"
want schema_after=5 "migrated again"

expect_exit 0 "$PROOFLINE" store migrate --store "$work/b" --to 1
want schema_after=1 "--to 1"
expect_exit 0 "$PROOFLINE" store migrate --store "$work/b"
want schema_before=1 "1 to 5"
want schema_after=5 "1 to 5"

expect_exit 0 "$PROOFLINE" store info --store "$work/a"
want schema=5 "info"
want jobs_queued=0 "info"
want queued_high=0 "info"
want claimed=0 "info"

expect_exit 2 "$PROOFLINE" store info
grep -q "needs --store" "$work/log" || fail "no --store: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" store frob --store "$work/a"
grep -q "migrate or info" "$work/log" || fail "unknown action: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" store migrate --store "$work/a" --to 9
grep -q "no schema version 9" "$work/log" || fail "--to 9: $(cat "$work/log")"
expect_exit 2 "$PROOFLINE" store info --store "$work/a" --to 1
expect_exit 0 "$PROOFLINE" store --help
grep -q "Usage: proofline store migrate" "$work/stdout" || fail "--help: $(cat "$work/stdout")"

finish "cli_store: ok"
