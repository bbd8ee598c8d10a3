#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fetches blst (the source carried in the npm tarball @chainsafe/blst@0.2.11),
# checks the tarball's sha512 integrity, and builds libblst.a with blst's own
# build.sh.  @chainsafe/blst 0.2.11 carries blst 0.3.10 (its
# blst/bindings/rust/Cargo.toml says so); CMakeLists.txt records that as
# PL_BLST_VERSION, so a new pin changes both.  Called by CMake at configure time; the result is cached under
# $1, so a second configure neither refetches nor rebuilds.
#
#   fetch_blst.sh <deps-dir>        output: <deps-dir>/blst/{libblst.a,bindings/}
#   BLST_DIR=/path/to/blst          use a local blst checkout instead of npm
set -eu

deps=$1
pkg="@chainsafe/blst@0.2.11"
tarball="chainsafe-blst-0.2.11.tgz"
integrity="URyOLq5GtxBoxibOnd2pgLydCy0UZzbiIIBcsRAvGxAsRzjZL04TsQfwRkz5aphU3a1ebeRoMmI/HHyMCiFSQg=="
out="$deps/blst"
cc=${CC:-cc}
# Extra compiler flags for blst's own build (BLST_CFLAGS): the ThreadSanitizer
# build instruments a portable C build of blst, so TSan sees the writes the
# assembly would hide (CMakeLists.txt sets them).
extra=${BLST_CFLAGS:-}

mkdir -p "$deps"
stamp="$out/.built-from"
want="${BLST_DIR:-$pkg}${extra:+ $extra}"
if [ -f "$out/libblst.a" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi

rm -rf "$out" "$deps/package"
if [ -n "${BLST_DIR:-}" ]; then
    [ -f "$BLST_DIR/build.sh" ] || { echo "fetch_blst: BLST_DIR=$BLST_DIR has no build.sh" >&2; exit 1; }
    mkdir -p "$out"
    cp -R "$BLST_DIR/." "$out/"
else
    if [ ! -f "$deps/$tarball" ]; then
        echo "fetch_blst: npm pack $pkg" >&2
        (cd "$deps" && npm pack --silent "$pkg" >/dev/null) || {
            echo "fetch_blst: 'npm pack $pkg' failed (is npm installed and the registry reachable?)" >&2
            exit 1; }
    fi
    # openssl, else python3 (machines without openssl, such as a GPU box
    # that was handed the tarball), else node
    file="$deps/$tarball"
    if command -v openssl >/dev/null 2>&1; then
        got=$(openssl dgst -sha512 -binary "$file" | base64 -w0)
    elif command -v python3 >/dev/null 2>&1; then
        got=$(python3 -c "import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], 'rb').read()).digest()).decode(), end='')" "$file")
    else
        got=$(node -e "process.stdout.write(require('crypto').createHash('sha512').update(require('fs').readFileSync(process.argv[1])).digest('base64'))" "$file")
    fi
    if [ "$got" != "$integrity" ]; then
        echo "fetch_blst: INTEGRITY MISMATCH for $deps/$tarball" >&2
        echo "  expected sha512-$integrity" >&2
        echo "  got      sha512-$got" >&2
        echo "  the tarball was removed; refusing to build with it" >&2
        rm -f "$deps/$tarball"
        exit 1
    fi
    (cd "$deps" && tar xzf "$tarball" package/blst)
    mv "$deps/package/blst" "$out"
    rm -rf "$deps/package"
fi

echo "fetch_blst: building blst in $out" >&2
# the extra flags go as build.sh's arguments, which it puts after its own
# (so a -U can undo the -D__ADX__ it adds on ADX machines)
# shellcheck disable=SC2086
(cd "$out" && CC="$cc" CFLAGS="-O2 -fno-builtin -fPIC -Wall -Wextra" ./build.sh $extra >build.log 2>&1) || {
    echo "fetch_blst: blst build failed, see $out/build.log" >&2; exit 1; }
# blst's build.sh assembles its assembly whatever the flags: a portable
# build (-D__BLST_NO_ASM__) keeps only the C, which defines the same symbols
case " $extra " in
*" -D__BLST_NO_ASM__ "*) ar d "$out/libblst.a" assembly.o ;;
esac
echo "$want" > "$stamp"
