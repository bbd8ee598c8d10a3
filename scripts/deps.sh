#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages the build needs when they are missing (as root
# with apt-get; otherwise says what to install).  Quiet when all is present,
# so it costs nothing after the first run and works offline.
set -eu
missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need cc gcc
need make make
need cmake cmake
need node nodejs
need npm npm
need perl perl
need openssl openssl
need python3 python3
[ -x /usr/bin/time ] || missing="$missing time"
# The service (service/): SQLite, libmicrohttpd, libcurl, libpq (the
# PostgreSQL store), pkg-config.
hdr() { # header, package: /usr/include or its multiarch folder
    for h in /usr/include/$1 /usr/include/*/$1; do [ -f "$h" ] && return 0; done
    missing="$missing $2"
}
hdr sqlite3.h libsqlite3-dev
hdr microhttpd.h libmicrohttpd-dev
hdr curl/curl.h libcurl4-openssl-dev
hdr postgresql/libpq-fe.h libpq-dev
need pkg-config pkg-config
# The install test (tests/cli_install.sh): `man -l` on the generated page,
# and dpkg-shlibdeps, from which `make package` takes the .deb's Depends.
need man man-db
need dpkg-shlibdeps dpkg-dev
# jq: the docs' curl examples (README.md, docs/serve.md) pipe the service's
# JSON through it, and the service tests read replies with it.
need jq jq
# Optional: OpenSSL's headers, for the SHA-256 gadget's comparison test
# (tests/test_sha256.c; skipped without them).
optional=""
[ -f /usr/include/openssl/sha.h ] || optional="$optional libssl-dev"
# Optional: GMP's headers, for the comparison of BN254's field arithmetic
# with it (tests/test_bn254_field.c; skipped without them).
for h in /usr/include/gmp.h /usr/include/*/gmp.h; do
    [ -f "$h" ] && break
done
[ -f "$h" ] || optional="$optional libgmp-dev"
# Optional: promtool (Debian prometheus), to check /metrics in the service
# tests (that one check is skipped without it).
command -v promtool >/dev/null 2>&1 || optional="$optional prometheus"
# Optional: Chromium, the real browser the live page's test drives headless
# (tests/cli_serve_live.sh; skipped without it).
command -v chromium >/dev/null 2>&1 || optional="$optional chromium"
# Optional: the PostgreSQL server, which the PostgreSQL store's tests start
# on their own (initdb in a temporary folder; skipped without it).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
    optional="$optional postgresql"
[ -z "$missing$optional" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing$optional" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing $optional
elif [ -n "$missing" ]; then
    echo "deps: missing packages:$missing$optional (install them with apt-get, as root)" >&2
    exit 1
else
    echo "deps: optional package missing:$optional (the tests that need them are skipped)" >&2
fi
