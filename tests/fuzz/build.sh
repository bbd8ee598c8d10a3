#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Configures (once) and builds a fuzz build: clang, -DPL_FUZZ=ON (every
# object instrumented for libFuzzer), ASan + UBSan, no CUDA; then its
# target `fuzzers`.  The one place these options are written: `make fuzz`
# (in build-fuzz) and the coverage check of `make test` (coverage_check.sh,
# in <build>/fuzz-check) both build through here.
#
#   build.sh <source-dir> <build-dir> [folder with a blst tarball...]
#
# A new build folder takes the blst tarball (cmake/fetch_blst.sh's
# download) from the first folder given that has one (fetch_blst.sh checks
# its integrity again), so it configures offline.  FUZZ_CC: the compiler (clang); JOBS: make's -j.
set -eu
src=$1
dir=$2
shift 2
if [ ! -f "$dir/CMakeCache.txt" ]; then
    mkdir -p "$dir/_deps"
    for d in "$@"; do
        for f in "$d"/chainsafe-blst-*.tgz; do
            [ -f "$f" ] && [ ! -f "$dir/_deps/${f##*/}" ] && cp "$f" "$dir/_deps/"
        done
    done
    cmake -S "$src" -B "$dir" -DCMAKE_C_COMPILER="${FUZZ_CC:-clang}" \
        -DPL_FUZZ=ON -DPL_CUDA=OFF -DPL_SANITIZE=address,undefined \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$dir" -j "${JOBS:-2}" --target fuzzers
