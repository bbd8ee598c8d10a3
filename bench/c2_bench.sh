#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The demo partition proved two ways, side by side: the snarkjs path
# (`proofline prove`, a zkey from `setup --dev`) and the SupraSeal-C2-shaped
# API (`proofline c2`, a bellperson parameter file from `setup --dev
# --format bellperson`, the same seed).  Wall time of the proving command
# (medians of 3, alternating) and its peak RSS (/usr/bin/time's maximum
# resident set: the files' mapped pages included); both proofs verified.
#     bench/c2_bench.sh [K ...]      (default: 16)
# Prints key=value lines.  bench/README.md holds one run.
set -euo pipefail
bin=${PROOFLINE:-build/proofline}
work=$(mktemp -d "${TMPDIR:-/tmp}/c2_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
threads=${THREADS:-2}

median() { sort -g | sed -n 2p; }
# runs "$@" under /usr/bin/time; appends "seconds kib" to $out
timed() {
    local out=$1; shift
    /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>"$work/err" ||
        { cat "$work/err" >&2; exit 1; }
    cat "$work/t" >>"$out"
}

for k in "${@:-16}"; do
    d="$work/k$k"; mkdir -p "$d"
    "$bin" circuit export --constraints "2^$k" --out "$d" >/dev/null
    "$bin" setup --dev --threads "$threads" "$d/circuit.r1cs" "$d/c.zkey" 2>/dev/null
    "$bin" setup --dev --format bellperson --threads "$threads" "$d/circuit.r1cs" \
        "$d/c.params" "$d/c.vk" 2>/dev/null
    : >"$d/zkey.t"; : >"$d/c2.t"
    for i in 1 2 3; do
        timed "$d/zkey.t" "$bin" prove --threads "$threads" "$d/c.zkey" "$d/p0.wtns" \
            "$d/proof.json" "$d/public.json"
        timed "$d/c2.t" "$bin" c2 --threads "$threads" --params "$d/c.params" \
            --r1cs "$d/circuit.r1cs" --proofs "$d/c.proofs" --inputs "$d/c.inputs" "$d/p0.wtns"
    done
    "$bin" verify --format bellperson "$d/c.vk" "$d/c.inputs" "$d/c.proofs" >/dev/null
    "$bin" vkey "$d/c.zkey" "$d/vk.json"
    "$bin" verify "$d/vk.json" "$d/public.json" "$d/proof.json" >/dev/null
    zs=$(cut -d' ' -f1 "$d/zkey.t" | median); cs=$(cut -d' ' -f1 "$d/c2.t" | median)
    zm=$(cut -d' ' -f2 "$d/zkey.t" | sort -g | tail -1); cm=$(cut -d' ' -f2 "$d/c2.t" | sort -g | tail -1)
    echo "k=$k zkey_prove_s=$zs c2_prove_s=$cs ratio_c2_over_zkey=$(echo "$cs / $zs" | bc -l | cut -c1-5)" \
         "zkey_peak_rss_mib=$((zm / 1024)) c2_peak_rss_mib=$((cm / 1024))" \
         "zkey_bytes=$(stat -c %s "$d/c.zkey") params_bytes=$(stat -c %s "$d/c.params") verified=1"
done
