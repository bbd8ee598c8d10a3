#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the pinned snarkjs and circom2 (tests/vectors/package-lock.json)
# used by the interop tests.  Skipped when node_modules is up to date with the
# lockfile, so later runs need no network.
set -eu
dir=$(dirname "$0")/../tests/vectors
stamp="$dir/node_modules/.lock-stamp"
if [ -f "$stamp" ] && cmp -s "$stamp" "$dir/package-lock.json"; then
    exit 0
fi
echo "npm-deps: npm ci in tests/vectors" >&2
(cd "$dir" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error)
cp "$dir/package-lock.json" "$stamp"
