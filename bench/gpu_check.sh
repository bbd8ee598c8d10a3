#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The CUDA backend's check on a machine with an NVIDIA GPU, in one call
# (about 8 minutes on an H200 machine with 16 cores):
#
#   1. builds (build-gpu/, nvcc for sm_90 + PTX, all cores);
#   2. runs the GPU tests of tests/test_cuda.c: the odd-coset NTT at 2^0 ..
#      2^20 and G1 MSMs up to 2^18 + 3 against the CPU on random and
#      structured inputs; proofs of every test vector with r = s = 0 equal to
#      the CPU backend's bit for bit; a batch through the engine with the
#      ledger balanced and device memory back to zero;
#   3. times the G1 MSM at 2^20, 2^22 and 2^24 (bench_gpu msm);
#   4. makes the PoRep-like circuit and a `setup --dev` key at 2^20 and
#      2^22 and times full proofs on the CUDA backend, synthesis apart;
#   5. prints one table (also in $OUT/gpu_check.txt when OUT is set, with
#      the full log beside it).
#
# Usage: bash bench/gpu_check.sh [--quick]     (--quick: 2^20 proof only)
#
# The machine needs nvcc, cmake, make and a C compiler; no network: blst
# comes from the npm tarball that a build on a networked machine fetched,
# build/_deps/chainsafe-blst-0.2.11.tgz (carry it; fetch_blst.sh checks
# its sha512 again), or from BLST_DIR.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${GPU_BUILD:-build-gpu}
work=${GPU_WORK:-$build/gpu-check}
out=${OUT:-$work}
quick=0
[ "${1:-}" = "--quick" ] && quick=1
mkdir -p "$work" "$out" "$build/_deps"
log="$out/gpu_check.log"
: >"$log"
t_start=$(date +%s)
results=()
note() { echo "$*" | tee -a "$log"; }
elapsed() { echo $(( $(date +%s) - t_start )); }
# row <what> <result>
row() { results+=("$(printf '%-44s %s' "$1" "$2")"); note "gpu_check: $1: $2 ($(elapsed) s)"; }

tgz=_deps/chainsafe-blst-0.2.11.tgz
if [ ! -f "$build/$tgz" ] && [ -f "build/$tgz" ]; then
    cp "build/$tgz" "$build/$tgz"
fi

note "gpu_check: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo 'nvidia-smi: not found')"
if ! make build BUILD="$build" JOBS="$(nproc)" >>"$log" 2>&1; then
    row "build" "FAILED (see $log)"
    printf '%s\n' "${results[@]}"
    exit 1
fi
row "build (nvcc sm_90 + PTX)" "ok"

# no device: say so once and stop (the tests would all skip)
"$build/bench_gpu" >"$work/probe.txt" 2>&1
if [ $? = 77 ]; then
    row "CUDA device" "NONE: $(cat "$work/probe.txt")"
    printf '%s\n' "${results[@]}" | tee "$out/gpu_check.txt"
    exit 1
fi

# 2. the GPU tests
fails=0
for t in ntt_matches_cpu_on_device msm_matches_cpu_on_device \
         proofs_equal_cpu_on_device engine_batch_on_device; do
    t0=$(date +%s.%N)
    "$build/tests/test_cuda" "$t" >>"$log" 2>&1
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    case $rc in
        0) row "test $t" "passed (${secs} s)" ;;
        77) row "test $t" "SKIPPED: no device"; fails=$((fails + 1)) ;;
        *) row "test $t" "FAILED rc=$rc"; fails=$((fails + 1)) ;;
    esac
done

# 3. MSM timings
"$build/bench_gpu" msm 20 22 24 >"$work/msm.txt" 2>>"$log" ||
    { row "G1 MSM timings" "FAILED (see the log)"; fails=$((fails + 1)); }
cat "$work/msm.txt" >>"$log"
while read -r line; do
    case $line in
        bench=msm_g1*)
            lg=$(sed -n 's/.*log2=\([0-9]*\).*/\1/p' <<<"$line")
            ms=$(sed -n 's/.*gpu_ms=\([0-9.]*\).*/\1/p' <<<"$line")
            m=$(sed -n 's/.*matches_cpu=\([a-zA-Z]*\).*/\1/p' <<<"$line")
            row "G1 MSM 2^$lg (points on device)" "$ms ms (matches CPU: $m)" ;;
    esac
done <"$work/msm.txt"

# 4. full proofs
sizes="20 22"
[ $quick = 1 ] && sizes="20"
for k in $sizes; do
    d="$work/k$k"
    mkdir -p "$d"
    if [ ! -f "$d/circuit.zkey" ]; then
        t0=$(date +%s)
        "$build/proofline" circuit export --constraints "2^$k" --out "$d" >>"$log" 2>&1 &&
            "$build/proofline" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey" >>"$log" 2>&1 ||
            { row "proof 2^$k" "FAILED making the circuit or key"; fails=$((fails + 1)); continue; }
        note "gpu_check: circuit and key 2^$k in $(( $(date +%s) - t0 )) s"
    fi
    cpu=""
    [ "$k" = 20 ] && cpu="--cpu"
    line=$("$build/bench_gpu" prove "$d/circuit.zkey" "$d/p0.wtns" 3 $cpu 2>>"$log" | tee -a "$log" | grep '^bench=prove')
    if [ -z "$line" ]; then
        row "proof 2^$k" "FAILED"; fails=$((fails + 1)); continue
    fi
    g=$(sed -n 's/.*gpu_prove_ms=\([0-9.]*\).*/\1/p' <<<"$line")
    s=$(sed -n 's/.*synth_ms=\([0-9.]*\).*/\1/p' <<<"$line")
    c=$(sed -n 's/.*cpu_prove_ms=\([0-9.]*\).*/\1/p' <<<"$line")
    row "proof 2^$k, synthesis excluded (verified)" "$g ms${c:+ (CPU backend: $c ms)}; synthesis $s ms"
done

{
    echo
    echo "proofline GPU check ($(elapsed) s in all)"
    echo "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null)"
    printf '%s\n' "${results[@]}"
} | tee "$out/gpu_check.txt"
[ $fails = 0 ]
