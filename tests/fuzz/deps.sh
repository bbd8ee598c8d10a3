#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs what `make fuzz` and make test's fuzz.coverage need when it is
# missing, as scripts/deps.sh does for the build: clang, its libFuzzer
# runtime (Debian's libclang-rt-N-dev, N = clang's major version) and
# llvm-symbolizer (llvm-N: libFuzzer's coverage report names functions and
# files through it), with apt-get when run as root; otherwise says what to
# install.  Quiet when a test fuzzer links and a symbolizer is there, so it
# costs nothing after the first run and works offline.
set -eu
CC=${FUZZ_CC:-clang}
probe() {
    dir=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' >"$dir/p.c"
    ok=0
    "$CC" -fsanitize=fuzzer,address,undefined "$dir/p.c" -o "$dir/p" >/dev/null 2>&1 || ok=1
    rm -rf "$dir"
    return $ok
}
symbolizer() {
    command -v llvm-symbolizer >/dev/null 2>&1 && return 0
    for f in /usr/bin/llvm-symbolizer-*; do
        [ -x "$f" ] && return 0
    done
    return 1
}
command -v "$CC" >/dev/null 2>&1 && probe && symbolizer && exit 0
missing=""
command -v "$CC" >/dev/null 2>&1 || missing="clang"
if command -v "$CC" >/dev/null 2>&1; then
    major=$("$CC" -dumpversion | cut -d. -f1)
    probe || missing="$missing libclang-rt-$major-dev"
    symbolizer || missing="$missing llvm-$major"
else
    missing="$missing libclang-rt-dev llvm"
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "fuzz deps: installing$missing" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
    # with clang newly installed, its runtime package follows its version
    if ! probe; then
        major=$("$CC" -dumpversion | cut -d. -f1)
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "libclang-rt-$major-dev"
    fi
    symbolizer || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq llvm
    probe || { echo "fuzz deps: $CC still cannot link a libFuzzer target" >&2; exit 1; }
    symbolizer || { echo "fuzz deps: no llvm-symbolizer" >&2; exit 1; }
else
    echo "fuzz deps: missing packages:$missing (install them with apt-get, as root)" >&2
    exit 1
fi
