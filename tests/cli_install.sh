#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installed like a system library (issue 20), from this build:
#  - `make install DESTDIR=$root PREFIX=/usr` puts every file where it
#    belongs (the binary and its `prover` and `proofline-prover` links, the shared library with its
#    soname and links, the static one, the headers, the pkg-config file,
#    the man page, the docs);
#  - libproofline.so exports the public API and nothing else: every name
#    marked PL_API in the installed headers, and no other (no pl__
#    internal, no blst symbol);
#  - the versions agree: the header's macros, the soname, pl_version(),
#    `proofline --version` and pkg-config's;
#  - the C API's example (examples/api: prove_verify.c and its Makefile)
#    builds with `pkg-config --cflags --libs proofline` alone, runs against
#    the installed shared library, and proves and verifies the multiplier
#    vector, its public inputs from the witness and from public.json;
#    built with `pkg-config --static` too, it links libproofline.a and not
#    the shared library (no NEEDED entry), and those flags name no path
#    outside the prefix (no CUDA toolkit's); likewise SupraSeal's shim;
#  - the man page renders without warnings and is what the installed
#    binary's --help texts give;
#  - libproofline_supraseal and libproofline_supraseal_upstream (SupraSeal
#    C2's C ABI, Curio's and supra_seal's forms) are installed beside it
#    with their header and pkg-config files, and `nm -D` lists exactly
#    their crate's symbols and the pl_supraseal_ calls of the header; a
#    program built with `pkg-config proofline_supraseal` alone (and one
#    linked statically) opens an SRS and gets the error struct back for a
#    missing file (tests/install/supraseal_srs.c);
#  - `make uninstall` removes every file;
#  - the systemd unit of `proofline serve` is installed with ExecStart
#    naming the installed binary;
#  - `make package` makes two .debs with those files (proofline, and
#    proofline-dev depending on it), the post-install script (the system
#    user, the service enabled), the pre-removal one (the service stopped)
#    and dependencies from dpkg-shlibdeps; as root (CI runs so) both are
#    installed, run, removed and purged for real (PL_TEST_DPKG=0 turns
#    that off).
# The install manifest of an earlier `make install` from this build is
# kept as it was.  Skipped in sanitizer builds (a program built without the
# sanitizer cannot load their library).
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$(dirname "$PROOFLINE")" && pwd)
cc=${CC:-cc}
# run under `make test`: the outer make's flags and variables are not ours
unset MAKEFLAGS MFLAGS MAKELEVEL
if grep -q '^PL_SANITIZE:STRING=.' "$build/CMakeCache.txt"; then
    echo "SKIP: a sanitizer build (its library needs the sanitizer runtime)"
    exit 77
fi
for tool in pkg-config readelf nm man dpkg-deb dpkg-shlibdeps cpack "$cc"; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool missing"; exit 77; }
done
# keep a real install's manifest
for f in install_manifest.txt install_destdir; do
    [ -f "$build/$f" ] && cp "$build/$f" "$work/saved.$f"
done
restore() {
    for f in install_manifest.txt install_destdir; do
        rm -f "$build/$f"
        [ -f "$work/saved.$f" ] && cp "$work/saved.$f" "$build/$f"
    done
    rm -rf "$work"
}
trap restore EXIT

hdr="$src/include/proofline.h"
ver_part() { sed -n "s/^#define PL_VERSION_$1 \([0-9]*\)$/\1/p" "$hdr"; }
major=$(ver_part MAJOR) version="$(ver_part MAJOR).$(ver_part MINOR).$(ver_part PATCH)"

root="$work/root"
make -s -C "$src" install BUILD="$build" NO_BUILD=1 DESTDIR="$root" PREFIX=/usr \
    >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "make install"; finish x; }
u="$root/usr"
expected="bin/proofline bin/prover bin/proofline-prover lib/libproofline.so.$version
lib/libproofline.so.$major lib/libproofline.so lib/libproofline.a
include/proofline.h include/proofline_circuit.h include/proofline_c2.h
include/proofline_ceremony.h lib/pkgconfig/proofline.pc
lib/pkgconfig/proofline-shared.pc
share/man/man1/proofline.1.gz share/doc/proofline/README.md
lib/systemd/system/proofline.service share/doc/proofline/serve.md
include/proofline_supraseal.h"
for ss in proofline_supraseal proofline_supraseal_upstream; do
    expected="$expected lib/lib$ss.so.$version lib/lib$ss.so.$major lib/lib$ss.so
lib/lib$ss.a lib/pkgconfig/$ss.pc lib/pkgconfig/$ss-shared.pc"
done
for f in $expected; do
    [ -e "$u/$f" ] || fail "make install: no $f"
done
[ "$(readlink "$u/bin/prover")" = proofline ] || fail "bin/prover is not a link to proofline"
[ "$(readlink "$u/bin/proofline-prover")" = proofline ] ||
    fail "bin/proofline-prover is not a link to proofline"
# the service's unit starts the binary of the prefix installed to
grep -q "^ExecStart=/usr/bin/proofline serve " "$u/lib/systemd/system/proofline.service" ||
    fail "the unit's ExecStart: $(grep ExecStart= "$u/lib/systemd/system/proofline.service")"
[ "$(readlink "$u/lib/libproofline.so")" = "libproofline.so.$major" ] ||
    fail "libproofline.so -> $(readlink "$u/lib/libproofline.so")"
[ "$(readlink "$u/lib/libproofline.so.$major")" = "libproofline.so.$version" ] ||
    fail "libproofline.so.$major -> $(readlink "$u/lib/libproofline.so.$major")"

# soname, and the exported symbols against the headers' PL_API names
lib="$u/lib/libproofline.so.$version"
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libproofline.so.$major" ] || fail "soname $soname, wanted libproofline.so.$major"
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$work/exported"
sed -n 's/^PL_API .*[ *]\(pl_[a-z0-9_]*\)(.*/\1/p' "$u/include/proofline.h" \
    "$u/include/proofline_circuit.h" "$u/include/proofline_c2.h" \
    "$u/include/proofline_ceremony.h" |
    sort -u >"$work/api"
[ -s "$work/api" ] || fail "no PL_API names found in the installed headers"
extra=$(comm -23 "$work/exported" "$work/api" | tr '\n' ' ')
missing=$(comm -13 "$work/exported" "$work/api" | tr '\n' ' ')
[ -z "$extra" ] || fail "exported but not public API: $extra"
[ -z "$missing" ] || fail "public API not exported: $missing"

# SupraSeal C2's libraries: their soname, and exactly their crate's
# symbols (Curio's fork: extern/supraseal-c2/src/lib.rs; supra_seal's:
# c2/src/lib.rs) and ours (PL_SUPRASEAL_API pl_supraseal_* in the header)
ss_common="clone_SRS create_SRS drop_SRS evict_SRS generate_groth16_proofs_c"
ss_split="create_gpu_mutex destroy_gpu_mutex destroy_pending_proof
finalize_groth16_proof_c generate_groth16_proofs_start_c"
sed -n 's/^PL_SUPRASEAL_API .*[ *]\(pl_supraseal_[a-z0-9_]*\)(.*/\1/p' \
    "$u/include/proofline_supraseal.h" >"$work/ss_ours"
[ -s "$work/ss_ours" ] || fail "no PL_SUPRASEAL_API pl_supraseal_ names in the installed header"
for ss in proofline_supraseal proofline_supraseal_upstream; do
    sslib="$u/lib/lib$ss.so.$version"
    [ -e "$sslib" ] || continue
    soname=$(readelf -d "$sslib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$soname" = "lib$ss.so.$major" ] || fail "$ss: soname $soname, wanted lib$ss.so.$major"
    readelf -d "$sslib" | grep -q "NEEDED.*\[libproofline.so.$major\]" ||
        fail "$ss does not load libproofline.so.$major"
    ! readelf -d "$sslib" | grep -q "RPATH\|RUNPATH" ||
        fail "$ss keeps the build's run path: $(readelf -d "$sslib" | grep PATH)"
    names="$ss_common"
    [ "$ss" = proofline_supraseal ] && names="$names $ss_split"
    { tr ' ' '\n' <<<"$names" | tr -s '\n' '\n'; cat "$work/ss_ours"; } |
        grep . | sort -u >"$work/ss_api"
    nm -D --defined-only "$sslib" | awk '{print $NF}' | sort -u >"$work/ss_exported"
    extra=$(comm -23 "$work/ss_exported" "$work/ss_api" | tr '\n' ' ')
    missing=$(comm -13 "$work/ss_exported" "$work/ss_api" | tr '\n' ' ')
    [ -z "$extra" ] || fail "$ss exports more than SupraSeal's and ours: $extra"
    [ -z "$missing" ] || fail "$ss does not export: $missing"
    ss_counts="${ss_counts:-}, lib$ss $(wc -l <"$work/ss_exported")"
done

# a user's program, through pkg-config alone
export PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$u/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
[ "$(pkg-config --modversion proofline)" = "$version" ] ||
    fail "pkg-config version $(pkg-config --modversion proofline), wanted $version"
flags=$(pkg-config --cflags --libs proofline)
case "$flags" in *"$src/include"* | *"$src/src"* | *_deps*)
    fail "pkg-config points into the source or build tree: $flags" ;; esac
m="$VECTORS/multiplier"
# the example, built by its own Makefile (pkg-config alone)
example() { # output, make's extra variables...
    make -s -C "$src/examples/api" CC="$cc" OUT="$1" "${@:2}" \
        >"$work/cc.log" 2>&1 || fail "examples/api's make ${*:2}: $(cat "$work/cc.log")"
}
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
example "$work/prove_verify"
if [ -x "$work/prove_verify" ]; then
    # (ldd's output held first: grep -q stopping early would fail ldd's
    # write, and pipefail the check)
    loads=$(LD_LIBRARY_PATH="$u/lib" ldd "$work/prove_verify")
    grep -qF "libproofline.so.$major => $u/lib/" <<<"$loads" ||
        fail "prove_verify does not load the installed library: $loads"
    expect_exit 0 env LD_LIBRARY_PATH="$u/lib" "$work/prove_verify" "$m/circuit.zkey" \
        "$m/witness.wtns" "$m/public.json"
    grep -q "^proof: valid$" "$work/stdout" || fail "prove_verify: $(cat "$work/stdout" "$work/log")"
    grep -q "^public.json: the witness's wires 1\.\." "$work/stdout" ||
        fail "prove_verify with public.json: $(cat "$work/stdout" "$work/log")"
    grep -q "^library $version header $version$" "$work/stdout" ||
        fail "pl_version() and the header: $(head -1 "$work/stdout"), wanted $version"
fi
[ "$("$u/bin/proofline" --version)" = "proofline $version" ] ||
    fail "proofline --version: $("$u/bin/proofline" --version), wanted $version"
# `pkg-config --static`: the archive (blst and the CUDA runtime inside it)
# and system libraries, every path within the prefix
static_flags=$(pkg-config --static --libs proofline proofline_supraseal)
for w in $static_flags; do
    case $w in
    -L"$u"/*|-l*|-Wl,*) ;;
    *) fail "pkg-config --static --libs names $w (not a library of the prefix): $static_flags" ;;
    esac
done
example "$work/prove_verify_static" STATIC=1
if [ -x "$work/prove_verify_static" ]; then
    ! needed "$work/prove_verify_static" | grep -q '^libproofline' ||
        fail "pkg-config --static linked the shared library: $(needed "$work/prove_verify_static" | tr '\n' ' ')"
    expect_exit 0 "$work/prove_verify_static" "$m/circuit.zkey" "$m/witness.wtns"
    grep -q "^proof: valid$" "$work/stdout" || fail "prove_verify (static): $(cat "$work/stdout" "$work/log")"
fi

# a program of SupraSeal's C ABI, through pkg-config alone and statically
expect_exit 0 "$u/bin/proofline" setup --dev --format bellperson \
    "$m/circuit.r1cs" "$work/m.params" "$work/m.vk"
ssflags=$(pkg-config --cflags --libs proofline_supraseal)
# shellcheck disable=SC2086
"$cc" -o "$work/supraseal_srs" "$src/tests/install/supraseal_srs.c" $ssflags \
    2>"$work/cc.log" || fail "cc with pkg-config proofline_supraseal: $(cat "$work/cc.log")"
if [ -x "$work/supraseal_srs" ]; then
    expect_exit 0 env LD_LIBRARY_PATH="$u/lib" PROOFLINE_SUPRASEAL_BACKEND=cpu \
        "$work/supraseal_srs" "$work/m.params" "$work/missing.params"
    grep -q "^srs: ok$" "$work/stdout" || fail "supraseal_srs: $(cat "$work/stdout" "$work/log")"
fi
# shellcheck disable=SC2086
"$cc" -o "$work/supraseal_srs_static" "$src/tests/install/supraseal_srs.c" \
    $(pkg-config --cflags --static --libs proofline_supraseal) 2>"$work/cc.log" ||
    fail "cc with pkg-config --static proofline_supraseal: $(cat "$work/cc.log")"
if [ -x "$work/supraseal_srs_static" ]; then
    ! needed "$work/supraseal_srs_static" | grep -q '^libproofline' ||
        fail "pkg-config --static proofline_supraseal linked a shared library: $(needed "$work/supraseal_srs_static" | tr '\n' ' ')"
    expect_exit 0 env PROOFLINE_SUPRASEAL_BACKEND=cpu "$work/supraseal_srs_static" \
        "$work/m.params" "$work/missing.params"
fi

# the installed binaries prove and verify
expect_exit 0 "$u/bin/prover" "$m/circuit.zkey" "$m/witness.wtns" "$work/p.json" "$work/pub.json"
expect_exit 0 "$u/bin/proofline" verify "$m/verification_key.json" "$work/pub.json" "$work/p.json"
expect_exit 0 "$u/bin/proofline-prover" "$m/circuit.zkey" "$m/witness.wtns" "$work/p2.json" "$work/pub2.json"
expect_exit 0 "$u/bin/proofline" verify "$m/verification_key.json" "$work/pub2.json" "$work/p2.json"

# the man page: no warnings, and the installed binary's --help texts
# (installed gzipped, as Debian's policy asks)
gzip -t "$u/share/man/man1/proofline.1.gz" || fail "the installed man page is not gzip"
page="$work/proofline.1"
gzip -dc "$u/share/man/man1/proofline.1.gz" >"$page"
MANWIDTH=80 man --warnings -l "$u/share/man/man1/proofline.1.gz" >"$work/man.txt" \
    2>"$work/man.err" || fail "man -l failed"
[ ! -s "$work/man.err" ] || fail "man -l warns: $(head -5 "$work/man.err")"
for c in prove batch verify vkey inspect setup circuit demo; do
    grep -q "^\.SS $c$" "$page" || fail "the man page has no section for $c"
done
# one section per command, though verify and setup have two rows in --help
twice=$(grep '^\.SS ' "$page" | sort | uniq -d | tr '\n' ' ')
[ -z "$twice" ] || fail "the man page repeats sections: $twice"
if command -v python3 >/dev/null; then
    python3 "$src/scripts/help2roff.py" "$u/bin/proofline" "$work/regen.1"
    cmp -s "$page" "$work/regen.1" || fail "the man page differs from the installed --help texts"
fi

# uninstall leaves no file behind
make -s -C "$src" uninstall BUILD="$build" NO_BUILD=1 >"$work/uninstall.log" 2>&1 ||
    fail "make uninstall: $(cat "$work/uninstall.log")"
left=$(find "$root" ! -type d | sed "s|^$root||" | tr '\n' ' ')
[ -z "$left" ] || fail "make uninstall left: $left"

# the Debian packages: proofline (the command, the shared library, the
# man page, the docs, the service) and proofline-dev (the headers, the
# static library, the .so link, the pkg-config file), which depends on it
rm -f "$build"/proofline_*.deb "$build"/proofline-dev_*.deb
make -s -C "$src" package BUILD="$build" NO_BUILD=1 >"$work/package.log" 2>&1 ||
    fail "make package: $(tail -20 "$work/package.log")"
debs=("$build"/proofline_"$version"_*.deb)
deb=${debs[0]}
[ -e "$deb" ] || deb=
devs=("$build"/proofline-dev_"$version"_*.deb)
dev=${devs[0]}
[ -e "$dev" ] || dev=
if [ -z "$deb" ] || [ -z "$dev" ]; then
    fail "make package made no proofline or no proofline-dev .deb: $(ls "$build"/*.deb 2>&1)"
    deb=
else
    dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||' >"$work/deb.list"
    dpkg-deb -c "$dev" | awk '{print $6}' | sed 's|^\./||' >"$work/dev.list"
    for f in $expected; do
        case $f in
        include/*|lib/*.a|lib/lib*.so|lib/pkgconfig/*) list=dev ;;
        *) list=deb ;;
        esac
        grep -qx "usr/$f" "$work/$list.list" ||
            fail "$(basename "${!list}") has no /usr/$f"
    done
    ! grep -q "^usr/include/\|\.a$\|\.pc$" "$work/deb.list" ||
        fail "proofline carries development files: $(grep "^usr/include/\|\.a$\|\.pc$" "$work/deb.list" | head -3)"
    grep -qx "usr/share/doc/proofline-dev/copyright" "$work/dev.list" ||
        fail "proofline-dev has no copyright file"
    [ "$(dpkg-deb -f "$dev" Depends)" = "proofline (= $version)" ] ||
        fail "proofline-dev's Depends: $(dpkg-deb -f "$dev" Depends)"
    dpkg-deb -f "$deb" Depends >"$work/depends"
    grep -q "libc6" "$work/depends" || fail "the .deb's Depends has no libc6: $(cat "$work/depends")"
    grep -q "adduser" "$work/depends" || fail "the .deb's Depends has no adduser: $(cat "$work/depends")"
    # each service library the binary links is a declared dependency
    # (a t64 suffix, as on newer Debian, matches too)
    dpkg-deb -x "$deb" "$work/deb"
    needed=$(readelf -d "$work/deb/usr/bin/proofline" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    for pair in libmicrohttpd.so.12:libmicrohttpd12 libsqlite3.so.0:libsqlite3-0 \
                libpq.so.5:libpq5 libcurl.so.4:libcurl4; do
        if grep -qx "${pair%%:*}" <<<"$needed"; then
            grep -q "${pair#*:}" "$work/depends" ||
                fail "the binary links ${pair%%:*} but Depends has no ${pair#*:}: $(cat "$work/depends")"
        fi
    done
    dpkg-deb -e "$deb" "$work/control"
    grep -q "adduser --system" "$work/control/postinst" || fail "no system user in postinst"
    grep -q "/var/lib/proofline" "$work/control/postinst" || fail "no data folder in postinst"
    grep -q "ldconfig" "$work/control/triggers" || fail "no ldconfig trigger"
    grep -q "deb-systemd-helper enable" "$work/control/postinst" || fail "postinst does not enable the service"
    grep -q "was not started" "$work/control/postinst" ||
        fail "postinst does not say when the service was not started (no systemd)"
    # proofline-dev's pkg-config file names no path of the build machine
    dpkg-deb -x "$dev" "$work/dev"
    private=$(sed -n 's/^Libs.private: //p' "$work/dev/usr/lib/pkgconfig/proofline.pc")
    case " $private" in *" /"*|*-L*)
        fail "the .deb's proofline.pc: Libs.private: $private" ;; esac
    grep -q "deb-systemd-invoke stop proofline.service" "$work/control/prerm" || fail "no prerm stopping the service"
fi

# The package installed and removed for real when the tests run as root
# on a machine without proofline installed (it writes to /usr and adds the
# proofline user, which removal leaves, as Debian's removal does); skipped
# with the reason otherwise, or with PL_TEST_DPKG=0 (two test runs at once
# on one machine would contend for dpkg's lock).
dpkg_done=
if [ "${PL_TEST_DPKG:-1}" = 0 ]; then
    echo "note: dpkg -i/-r of the .deb not run (PL_TEST_DPKG=0)"
elif [ "$(id -u)" != 0 ]; then
    echo "note: dpkg -i/-r of the .deb not run (it needs root)"
elif dpkg -s proofline >/dev/null 2>&1 || dpkg -s proofline-dev >/dev/null 2>&1; then
    echo "note: dpkg -i/-r of the .deb not run (proofline is already installed here)"
elif [ -n "$deb" ]; then
    dpkg -i "$deb" "$dev" >"$work/dpkg.log" 2>&1 || fail "dpkg -i: $(tail -5 "$work/dpkg.log")"
    [ -e /usr/include/proofline.h ] && [ -e /usr/lib/pkgconfig/proofline.pc ] ||
        fail "dpkg -i of proofline-dev installed no header or no proofline.pc"
    getent passwd proofline >/dev/null || fail "dpkg -i made no proofline user"
    if [ ! -d /run/systemd/system ]; then
        grep -q "proofline.service was not started" "$work/dpkg.log" ||
            fail "dpkg -i without systemd does not say the service was not started: $(tail -5 "$work/dpkg.log")"
    fi
    [ "$(stat -c %U:%a /var/lib/proofline 2>/dev/null)" = proofline:700 ] ||
        fail "/var/lib/proofline: $(stat -c %U:%a /var/lib/proofline 2>&1)"
    [ "$(/usr/bin/proofline --version)" = "proofline $version" ] || fail "the installed proofline"
    [ "$(man -w proofline 2>&1)" = /usr/share/man/man1/proofline.1.gz ] ||
        fail "man -w proofline: $(man -w proofline 2>&1)"
    shown=$(MANWIDTH=80 man proofline 2>&1)   # held: see ldd above
    grep -q "^COMMANDS" <<<"$shown" || fail "man proofline: $(head -3 <<<"$shown")"
    dpkg -r proofline-dev proofline >"$work/dpkg.log" 2>&1 ||
        fail "dpkg -r: $(tail -5 "$work/dpkg.log")"
    [ ! -e /usr/bin/proofline ] && [ ! -e "/usr/lib/libproofline.so.$major" ] &&
        [ ! -e /usr/share/man/man1/proofline.1.gz ] &&
        [ ! -e /usr/include/proofline.h ] ||
        fail "dpkg -r left the binary, the library, the man page or a header"
    dpkg --purge proofline-dev proofline >"$work/dpkg.log" 2>&1 ||
        fail "dpkg --purge: $(tail -5 "$work/dpkg.log")"
    ! dpkg -s proofline >/dev/null 2>&1 && ! dpkg -s proofline-dev >/dev/null 2>&1 ||
        fail "dpkg --purge left proofline or proofline-dev known to dpkg"
    dpkg_done=", installed, run and removed with dpkg"
fi

finish "cli_install: ok ($(wc -l <"$work/exported") symbols exported${ss_counts:-}, $(basename "${deb:-no .deb}") and $(basename "${dev:-no -dev .deb}")${dpkg_done:-})"
