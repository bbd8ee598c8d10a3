#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ctest's fuzz.coverage (in `make test`): builds a fuzz build of its own
# (build.sh, in <build>/fuzz-check; the first time about two minutes on
# two cores, then only what changed) and runs `run.sh --check` on it: every
# target from its seeds for its fixed runs, failed when its coverage is
# below its floor.  So a change to the build that leaves the library
# uninstrumented, or a target that no longer reaches its parser, is a red
# test, not a fuzzer that runs blind.
#
#   coverage_check.sh <source-dir> <check-build-dir> <folder with blst's tarball>
#
# Skipped (exit 77, with the reason) where clang cannot link a libFuzzer
# target and deps.sh cannot install it (it installs clang and its runtime
# with apt-get when run as root).  The build's lines go to
# <check-build-dir>/check-build.log, shown when the build fails.
set -u
src=$1
dir=$2
deps=$3
if ! out=$(FUZZ_CC="${FUZZ_CC:-clang}" sh "$src/tests/fuzz/deps.sh" 2>&1); then
    echo "fuzz.coverage: skipped: ${FUZZ_CC:-clang} cannot build a libFuzzer target here: $out"
    exit 77
fi
mkdir -p "$dir"
log="$dir/check-build.log"
if ! sh "$src/tests/fuzz/build.sh" "$src" "$dir" "$deps" >"$log" 2>&1; then
    tail -n 30 "$log"
    echo "fuzz.coverage: the fuzz build failed (all of it: $log)"
    exit 1
fi
# from the source folder, as `make fuzz` runs: a seed of the service's
# names tests/vectors/multiplier by a path relative to it
cd "$src" && sh tests/fuzz/run.sh --check "$dir"
