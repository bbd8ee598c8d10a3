#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The CUDA backend's check on a machine with an NVIDIA GPU, in one call
# (planned for under 8 minutes on an H200 machine with 16 cores):
#
#   1. builds (build-gpu/, nvcc for sm_90 + PTX, all cores);
#   2. runs the GPU tests of tests/test_cuda.c: the odd-coset NTT at 2^0 ..
#      2^20 and G1 MSMs up to 2^18 + 3 against the CPU on random and
#      structured inputs, all-ones MSMs at the accumulate levels' edges; the
#      kernels' stack reserved at open (the first MSM's growth printed in
#      the log, within the headroom); proofs of every test vector with r = s = 0 equal to
#      the CPU backend's bit for bit; a batch through the engine with the
#      ledger balanced and device memory back to zero;
#   3. times the G1 MSM at 2^20, 2^22 and 2^24 (bench_gpu msm);
#   4. makes the PoRep-like circuit and a `setup --dev` key at 2^20 and
#      2^22 and times full proofs on the CUDA backend, synthesis apart (and
#      the CPU backend once at 2^20, for the ratio);
#   5. rebuilds with the field multiplication over PTX carry chains
#      (PL_CUDA_PTX=ON) and repeats 2, 3 and the 2^22 proof, so one call
#      says whether that form is right and faster;
#   6. prints one table (also in $OUT/gpu_check.txt when OUT is set, with
#      the full log beside it).
#
# Usage: bash bench/gpu_check.sh [--quick]   (--quick: 2^20 only, no PTX pass)
#
# GPU_CHECK_EMULATED=1 runs the same steps on the host emulation at small
# sizes (MSM 2^8 and 2^10, proofs at 2^10 and 2^11): a check of this script
# on a machine without a GPU, so that the lent minutes are not spent on it.
#
# The machine needs nvcc, cmake, ninja or make and a C compiler, and no
# network:
# blst comes from the npm tarball a networked build fetched,
# build/_deps/chainsafe-blst-0.2.11.tgz (carry it; fetch_blst.sh checks its
# sha512 again), or from BLST_DIR.  Without a device it says so and exits 1.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${GPU_BUILD:-build-gpu}
work=${GPU_WORK:-$build/gpu-check}
out=${OUT:-$work}
quick=0
[ "${1:-}" = "--quick" ] && quick=1
emulated=${GPU_CHECK_EMULATED:-0}
if [ "$emulated" = 1 ]; then
    bench_flags=--emulated; suffix=emulated; msm_logs="8 10"; small=10; large=11
else
    bench_flags=; suffix=on_device; msm_logs="20 22 24"; small=20; large=22
fi
mkdir -p "$work" "$out" "$build/_deps"
log="$out/gpu_check.log"
: >"$log"
t_start=$(date +%s)
results=()
fails=0
note() { echo "$*" | tee -a "$log"; }
elapsed() { echo $(( $(date +%s) - t_start )); }
# row <what> <result>: one line of the final table
row() { results+=("$(printf '%-46s %s' "$1" "$2")"); note "gpu_check: $1: $2 ($(elapsed) s)"; }
table() {
    {
        echo
        echo "proofline GPU check ($(elapsed) s in all)"
        nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
        printf '%s\n' "${results[@]}"
    } | tee "$out/gpu_check.txt"
}
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$2"; }

tgz=_deps/chainsafe-blst-0.2.11.tgz
if [ ! -f "$build/$tgz" ] && [ -f "build/$tgz" ]; then
    cp "build/$tgz" "$build/$tgz"
fi

# build_tree <ON|OFF>: the tree with PL_CUDA_PTX set so (CMake directly:
# Ninja where the machine has it and the folder is new, else make)
build_tree() {
    local gen=()
    if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
        gen=(-G Ninja)
    fi
    cmake -S . -B "$build" "${gen[@]}" -DPL_CUDA_PTX="$1" >>"$log" 2>&1 &&
        cmake --build "$build" -j "$(nproc)" >>"$log" 2>&1
}

# tests_and_msm <label>: the GPU tests and the MSM timings of this build
tests_and_msm() {
    local label=$1 t rc t0 secs lg ms m
    for t in ntt_matches_cpu_$suffix msm_matches_cpu_$suffix \
             msm_longest_runs_$suffix stack_reserved_at_open_$suffix \
             proofs_equal_cpu_$suffix engine_batch_$suffix; do
        t0=$(date +%s.%N)
        "$build/tests/test_cuda" "$t" >>"$log" 2>&1
        rc=$?
        secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        case $rc in
            0) row "$label test $t" "passed (${secs} s)" ;;
            *) row "$label test $t" "FAILED rc=$rc"; fails=$((fails + 1)) ;;
        esac
    done
    "$build/bench_gpu" $bench_flags msm $msm_logs >"$work/msm.txt" 2>>"$log" ||
        { row "$label G1 MSM timings" "FAILED (see the log)"; fails=$((fails + 1)); }
    cat "$work/msm.txt" >>"$log"
    while read -r line; do
        case $line in
            bench=msm_g1*)
                lg=$(field log2 "$line"); ms=$(field gpu_ms "$line")
                m=$(field matches_cpu "$line")
                [ "$m" = NO ] && fails=$((fails + 1))
                row "$label G1 MSM 2^$lg (points on device)" "$ms ms (matches CPU: $m)" ;;
        esac
    done <"$work/msm.txt"
}

# proof <label> <k> [--cpu]: a 2^k proof of the demo circuit, timed
proof() {
    local label=$1 k=$2 cpu=${3:-} d="$work/k$2" t0 line g s c
    if [ ! -f "$d/circuit.zkey" ]; then
        mkdir -p "$d"
        t0=$(date +%s)
        if ! "$build/proofline" circuit export --constraints "2^$k" --out "$d" >>"$log" 2>&1 ||
           ! "$build/proofline" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey" >>"$log" 2>&1; then
            row "$label proof 2^$k" "FAILED making the circuit or key"
            fails=$((fails + 1)); rm -f "$d/circuit.zkey"; return
        fi
        note "gpu_check: circuit and key 2^$k in $(( $(date +%s) - t0 )) s"
    fi
    line=$("$build/bench_gpu" $bench_flags prove "$d/circuit.zkey" "$d/p0.wtns" 3 $cpu 2>>"$log" |
           tee -a "$log" | grep '^bench=prove')
    if [ -z "$line" ]; then
        row "$label proof 2^$k" "FAILED"; fails=$((fails + 1)); return
    fi
    g=$(field gpu_prove_ms "$line"); s=$(field synth_ms "$line"); c=$(field cpu_prove_ms "$line")
    row "$label proof 2^$k excl. synthesis, verified" "$g ms${c:+ (CPU backend: $c ms)}; synthesis $s ms"
}

note "gpu_check: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo 'nvidia-smi: not found')"
if ! build_tree OFF; then
    row "build" "FAILED (see $log)"; table; exit 1
fi
row "build (nvcc sm_90 + PTX)" "ok"
"$build/bench_gpu" >"$work/probe.txt" 2>&1
if [ $? = 77 ] && [ "$emulated" != 1 ]; then
    row "CUDA device" "NONE: $(cat "$work/probe.txt")"; table; exit 1
fi

tests_and_msm "portable:"
proof "portable:" $small --cpu
[ $quick = 0 ] && proof "portable:" $large

if [ $quick = 0 ]; then
    if build_tree ON; then
        row "build with PL_CUDA_PTX=ON" "ok"
        tests_and_msm "ptx:"
        proof "ptx:" $large
    else
        row "build with PL_CUDA_PTX=ON" "FAILED (see the log)"; fails=$((fails + 1))
    fi
    cmake -S . -B "$build" -DPL_CUDA_PTX=OFF >>"$log" 2>&1
fi

table
[ $fails = 0 ]
