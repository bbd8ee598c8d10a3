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
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
else
    echo "deps: missing packages:$missing (install them with apt-get, as root)" >&2
    exit 1
fi
