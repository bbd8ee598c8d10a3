#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The CUDA backend's check on a machine with an NVIDIA GPU, in one call:
# everything it times it also checks, so that one run tells right from
# wrong at every size and says where the time goes.  Planned for about 6
# minutes on an H200 with 16 cores (bench/README.md has the plan row by
# row); it stops starting rows at GPU_CHECK_DEADLINE_S (540 s) so that the
# table comes back within a 600 s call even when the estimates are wrong.
#
#   1. builds build-gpu/ (nvcc for sm_90 + PTX, all cores, nvcc warnings
#      not errors: PL_CUDA_WERROR=OFF), and then, in the background, the
#      PTX form (build-gpu-ptx/, PL_CUDA_PTX=ON) and the proof rows' keys
#      (the PoRep-like circuit, `setup --dev`) while the GPU works;
#   2. the GPU tests of tests/test_cuda.c and tests/test_backend.c
#      (every *_on_device case; test_cuda's on both curves, BN254's MSMs,
#      NTTs and bn128 proofs among them);
#   3. NTT rows at 2^20, 2^22, 2^24: upload, transform, download timed
#      apart, results equal to the CPU's NTT;
#   4. MSM rows at 2^20, 2^22, 2^24, four cases each (bench_gpu.c): random
#      scalars timed (median of 5) and checked against the CPU MSM and by
#      discrete logs, with the device's phases; all-ones scalars (every
#      accumulate level), a witness-like mix with zero scalars and points
#      at infinity, and one point repeated (equal-point doubling), each
#      checked by discrete logs;
#   5. proof rows at 2^20 (and the CPU backend's proof with r = s = 0,
#      equal bit for bit) and 2^22: every proof verified, the prover's
#      stages as medians, and one profiled proof split into the device's
#      phases;
#   6. the PTX form: the tests, the 2^24 NTT and MSM rows, the 2^22 proof;
#   7. one table: a row per check, PASS / FAIL (with the reason) / SKIP,
#      its seconds; exit 1 if any row failed or was skipped for time.
#
# Usage: bash bench/gpu_check.sh [--quick] [--sizes full|tiny]
#                                [--build DIR] [--no-build]
#   --quick       2^20 only (NTT, MSM, proof), no PTX pass
#   --sizes tiny  the smallest plan (emulated only: the make test rehearsal)
#   --build DIR   the build folder (default build-gpu; GPU_BUILD too)
#   --no-build    use the binaries already in it (no PTX pass)
# OUT=dir keeps gpu_check.txt (the table) and gpu_check.log there.
#
# GPU_CHECK_EMULATED=1 runs the same steps on the host emulation at small
# sizes, so that the lent minutes are not spent debugging this script;
# tests/gpu_check_rehearsal.sh runs it in make test at tiny sizes.
#
# The machine needs nvcc, cmake, ninja or make and a C compiler, and no
# network: blst comes from the npm tarball a networked build fetched,
# build/_deps/chainsafe-blst-0.2.11.tgz (carry it; fetch_blst.sh checks its
# sha512 again), or from BLST_DIR.  Without a device it says so in one line
# and exits 1.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
quick=0 sizes=full nobuild=0 build=${GPU_BUILD:-build-gpu}
while [ $# -gt 0 ]; do
    case $1 in
        --quick) quick=1 ;;
        --sizes) sizes=${2:-}; shift ;;
        --build) build=${2:-}; shift ;;
        --no-build) nobuild=1 ;;
        *) echo "usage: bash bench/gpu_check.sh [--quick] [--sizes full|tiny]" \
                "[--build DIR] [--no-build]" >&2; exit 2 ;;
    esac
    shift
done
emulated=${GPU_CHECK_EMULATED:-0}
if [ "$sizes" != full ] && [ "$sizes" != tiny ]; then
    echo "gpu_check: --sizes full or tiny, not '$sizes'" >&2
    exit 2
fi
if [ "$sizes" = tiny ] && [ "$emulated" != 1 ]; then
    echo "gpu_check: --sizes tiny is for the emulation (GPU_CHECK_EMULATED=1)" >&2
    exit 2
fi
ptx_build=$build-ptx
work=${GPU_WORK:-$build/gpu-check}
out=${OUT:-$work}
mkdir -p "$work" "$out" || exit 1
log="$out/gpu_check.log"
: >"$log"

# ---- the plan ------------------------------------------------------------
# Sizes per step, and estimates of each step on an H200 with 16 cores
# (seconds; bench/README.md explains them): a step starts only if its
# estimate fits before the deadline.  Proofs are LOG or LOG:cpu (with the
# CPU backend's proof beside it).
if [ "$emulated" = 1 ]; then
    bench=(--emulated) suffix=emulated
    deadline=${GPU_CHECK_DEADLINE_S:-3600}
    if [ "$sizes" = tiny ]; then
        ntt_logs="6 8" msm_logs="6 8" proofs="10:cpu"
        ptx_ntt="" ptx_msm="" ptx_proof=""
    else
        ntt_logs="10 12" msm_logs="8 10 12" proofs="10:cpu 11"
        ptx_ntt="12" ptx_msm="10" ptx_proof="11"
    fi
else
    bench=() suffix=on_device
    deadline=${GPU_CHECK_DEADLINE_S:-540}
    ntt_logs="20 22 24" msm_logs="20 22 24" proofs="20:cpu 22"
    ptx_ntt="24" ptx_msm="24" ptx_proof="22"
fi
if [ $quick = 1 ]; then
    ntt_logs=${ntt_logs%% *} msm_logs=${msm_logs%% *} proofs=${proofs%% *}
fi
[ $quick = 1 ] || [ $nobuild = 1 ] && ptx_ntt="" ptx_msm="" ptx_proof=""
est() { # est <step> [log]: seconds on an H200 (emulated: 0)
    [ "$emulated" = 1 ] && { echo 0; return; }
    case $1-${2:-} in
        tests-cuda) echo 55 ;; tests-backend) echo 30 ;;
        tests-bellperson) echo 10 ;;
        ntt-24) echo 8 ;; ntt-*) echo 4 ;;
        msm-24) echo 35 ;; msm-22) echo 15 ;; msm-*) echo 8 ;;
        proof-22) echo 30 ;; proof-*) echo 20 ;;
        *) echo 5 ;;
    esac
}

# ---- rows and time ---------------------------------------------------------
t_start=$(date +%s)
results=() fails=0 skips=0 passes=0
note() { echo "$*" | tee -a "$log"; }
elapsed() { echo $(( $(date +%s) - t_start )); }
left() { echo $(( deadline - $(elapsed) )); }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# row <PASS|FAIL|SKIP|INFO> <what> <seconds> <detail>: one line of the table
row() {
    case $1 in
        PASS) passes=$((passes + 1)) ;;
        FAIL) fails=$((fails + 1)) ;;
        SKIP) skips=$((skips + 1)) ;;
    esac
    local secs="${3:+$3 s}"
    results+=("$(printf '%-4s %-36s %8s  %s' "$1" "$2" "$secs" "$4")")
    note "gpu_check: $1 $2 (${secs:+$secs, }at $(elapsed) s): $4"
}
table() {
    {
        echo
        echo "proofline GPU check: $passes passed, $fails failed, $skips skipped" \
             "in $(elapsed) s ($(date -u +%Y-%m-%dT%H:%MZ))"
        [ "$emulated" = 1 ] && echo "EMULATED: the host emulation, not a GPU"
        nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
        nvcc --version 2>/dev/null | tail -1
        printf '%s\n' "${results[@]}"
    } | tee "$out/gpu_check.txt"
}
finish() {
    stop_background
    table
    [ $fails = 0 ] && [ $skips = 0 ]
    exit $?
}
# fits <what> <estimate>: whether a step of that estimate fits before the
# deadline; if not, a SKIP row says so
fits() {
    local l; l=$(left)
    [ "$2" -lt "$l" ] && return 0
    row SKIP "$1" 0 "time budget: needs ~$2 s, $l s left of ${deadline} s"
    return 1
}
# capped <cap_s> cmd...: the command with a time limit of at most the cap
# and the time left (exit 124 when it ran out; cut=1 when the limit was the
# deadline's rather than the cap's)
capped() {
    local cap=$1 l; shift
    l=$(left)
    cut=0
    [ "$l" -lt "$cap" ] && cap=$l cut=1
    [ "$cap" -lt 1 ] && cap=1
    timeout -k 10 "$cap" "$@"
}
# kv <key> <line>: a key=value field of a bench_gpu line
kv() { sed -nE "s/(^|.* )$1=([^ ]*).*/\2/p" <<<"$2"; }
why() { sed -n 's/.* why=//p' <<<"$1"; }
# exit_why <rc> <stderr file>: why a command gave no row
exit_why() {
    case $1 in
        124|137) echo "timed out (its limit reached)" ;;
        *) echo "exit $1: $(tail -n 1 "$2" 2>/dev/null | cut -c1-200)" ;;
    esac
}
# cut_off <rc>: whether the last capped command was stopped by the deadline
# (its row is then SKIP, not FAIL: nothing says it would not have ended)
cut_off() { [ "$cut" = 1 ] && { [ "$1" = 124 ] || [ "$1" = 137 ]; }; }

# ---- background jobs: the PTX build and the keys ----------------------------
bg_pids=()
# kill_tree <pid>: a job this script started and everything below it
# (cmake, ninja and the compilers; proofline setup)
kill_tree() {
    local c
    for c in $(pgrep -P "$1"); do kill_tree "$c"; done
    kill "$1" 2>/dev/null
}
stop_background() {
    local p
    for p in "${bg_pids[@]}"; do
        kill -0 "$p" 2>/dev/null && kill_tree "$p"
    done
}
trap 'stop_background' EXIT
# await <pid>: waits for a background job until the deadline; its status
await() {
    while kill -0 "$1" 2>/dev/null; do
        [ "$(left)" -le 0 ] && return 124
        sleep 1
    done
    wait "$1"
}

cut=0
tgz=_deps/chainsafe-blst-0.2.11.tgz
# build_tree <dir> <PTX ON|OFF> [target...]: CMake directly (Ninja where the
# machine has it and the folder is new, else make); nvcc warnings are not
# errors here (PL_CUDA_WERROR=OFF)
build_tree() {
    local dir=$1 ptx=$2 gen=() targets=()
    shift 2
    for t in "$@"; do targets+=(--target "$t"); done
    mkdir -p "$dir/_deps"
    if [ ! -f "$dir/$tgz" ] && [ -f "build/$tgz" ]; then
        cp "build/$tgz" "$dir/$tgz"
    fi
    if [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
        gen=(-G Ninja)
    fi
    cmake -S . -B "$dir" "${gen[@]}" -DPL_CUDA_PTX="$ptx" -DPL_CUDA_WERROR=OFF &&
        cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
}

# make_key <k>: the PoRep-like circuit of 2^k constraints, its witness and
# a `setup --dev` key in $work/k<k> (kept between runs)
make_key() {
    local d="$work/k$1"
    [ -f "$d/circuit.zkey" ] && return 0
    mkdir -p "$d"
    "$build/proofline" circuit export --constraints "2^$1" --out "$d" &&
        "$build/proofline" setup --dev "$d/circuit.r1cs" "$d/circuit.zkey.part" &&
        mv "$d/circuit.zkey.part" "$d/circuit.zkey"
}

# ---- the rows ---------------------------------------------------------------

# tests <label> <build>: every on-device case of tests/test_cuda.c,
# tests/test_backend.c (the backend interface over both key shapes) and
# tests/test_bellperson.c (C2 proofs through an engine on the device
# against the CPU's) (in the emulation, those with an emulated twin; at
# tiny sizes only each file's first: make test runs them all anyway)
tests() {
    local label=$1 dir=$2 t rc t0 cases src bin name
    for src in tests/test_cuda.c tests/test_backend.c tests/test_bellperson.c; do
        bin=$(basename "$src" .c)
        fits "$label tests ${bin#test_}" "$(est "tests" "${bin#test_}")" || return
        cases=$(sed -n 's/^PL_TEST(\([a-z0-9_]*\)_on_device)$/\1/p' "$src")
        for t in $cases; do
            if [ "$emulated" = 1 ] && ! grep -q "^PL_TEST(${t}_emulated)" "$src"; then
                continue
            fi
            # test_cuda's rows keep their names; the others say their file
            name=$t
            [ "$bin" = test_cuda ] || name="${bin#test_}.$t"
            t0=$(now)
            capped 240 "$dir/tests/$bin" "${t}_$suffix" >"$work/test.out" 2>&1
            rc=$?
            cat "$work/test.out" >>"$log"
            case $rc in
                0) row PASS "$label test $name" "$(since "$t0")" "" ;;
                77) row FAIL "$label test $name" "$(since "$t0")" \
                        "skipped although a device answered: $(tail -n 1 "$work/test.out")" ;;
                124|137) if cut_off $rc; then
                             row SKIP "$label test $name" "$(since "$t0")" "cut off at the deadline (${deadline} s)"
                         else
                             row FAIL "$label test $name" "$(since "$t0")" "$(exit_why $rc "$work/test.out")"
                         fi ;;
                *) row FAIL "$label test $name" "$(since "$t0")" \
                       "$(exit_why $rc "$work/test.out") (log: $log)" ;;
            esac
            [ "$sizes" = tiny ] && break
        done
    done
}

# run_bench <cap_s> <build> <args...>: bench_gpu of that build, its output
# in $work/bench.out and .err (and the log), its exit status in brc
run_bench() {
    local cap=$1 dir=$2
    shift 2
    capped "$cap" "$dir/bench_gpu" ${bench[@]+"${bench[@]}"} "$@" >"$work/bench.out" 2>"$work/bench.err"
    brc=$?
    cat "$work/bench.out" "$work/bench.err" >>"$log"
}
# ok_line <what> <seconds> <line>: whether a row's line of run_bench says
# ok=yes; if not, a FAIL row with the line's reason (or with why there was
# no line)
ok_line() {
    if [ -z "$3" ] && cut_off $brc; then
        row SKIP "$1" "$2" "cut off at the deadline (${deadline} s)"
        return 1
    fi
    if [ -z "$3" ]; then
        row FAIL "$1" "$2" "no result: $(exit_why $brc "$work/bench.err")"
        return 1
    fi
    if [ "$(kv ok "$3")" != yes ]; then
        row FAIL "$1" "$2" "$(why "$3")"
        return 1
    fi
}

# ntt_rows <label> <build> <log...>
ntt_rows() {
    local label=$1 dir=$2 lg line t0
    shift 2
    for lg in "$@"; do
        fits "$label NTT 2^$lg" "$(est ntt "$lg")" || continue
        t0=$(now)
        run_bench 120 "$dir" ntt "$lg"
        line=$(grep '^bench=ntt' "$work/bench.out")
        ok_line "$label NTT 2^$lg" "$(since "$t0")" "$line" || continue
        row PASS "$label NTT 2^$lg" "$(since "$t0")" \
            "$(kv ntt_ms "$line") ms = CPU NTT; upload $(kv upload_ms "$line") ms ($(kv upload_gbps "$line") GB/s), download $(kv download_ms "$line") ms ($(kv download_gbps "$line") GB/s)"
    done
}

# msm_rows <label> <build> <log...>: one process per size, a row per case
msm_rows() {
    local label=$1 dir=$2 lg line t0 c what detail secs
    shift 2
    for lg in "$@"; do
        fits "$label MSM 2^$lg" "$(est msm "$lg")" || continue
        t0=$(now)
        run_bench 240 "$dir" msm "$lg"
        for c in random ones mixed repeated; do
            what="$label MSM 2^$lg $c"
            line=$(grep "^bench=msm_g1 .* case=$c " "$work/bench.out")
            secs=$(kv row_s "$line")
            secs=${secs:-$(since "$t0")}
            ok_line "$what" "$secs" "$line" || continue
            if [ $c = random ]; then
                detail="$(kv gpu_ms "$line") ms (best $(kv gpu_best_ms "$line")) = CPU MSM ($(kv cpu_msm_s "$line") s) and dlog; profiled: sort $(kv prof_msm_sort_ms "$line") | accumulate $(kv prof_msm_accumulate_ms "$line") | reduce $(kv prof_msm_reduce_ms "$line") | combine $(kv prof_msm_combine_ms "$line") ms; $(kv levels "$line") levels, c=$(kv c "$line")"
            else
                detail="$(kv gpu_ms "$line") ms = dlog"
            fi
            row PASS "$what" "$secs" "$detail"
        done
    done
}

# proof_rows <label> <build> <LOG[:cpu]...>: the keys come from the
# background job
proof_rows() {
    local label=$1 dir=$2 p lg cpu line t0 what
    shift 2
    for p in "$@"; do
        lg=${p%%:*} cpu=
        [ "$p" != "$lg" ] && cpu=--cpu
        what="$label proof 2^$lg"
        fits "$what" "$(est proof "$lg")" || continue
        t0=$(now)
        if [ -n "${keys_pid:-}" ]; then
            await "$keys_pid"
            keys_rc=$?
            keys_pid=
            [ $keys_rc = 0 ] || note "gpu_check: making the keys: exit $keys_rc"
        fi
        if [ ! -f "$work/k$lg/circuit.zkey" ]; then
            row FAIL "$what" "$(since "$t0")" "no key: $(exit_why "${keys_rc:-1}" "$work/keys.log")"
            continue
        fi
        run_bench 240 "$dir" prove "$work/k$lg/circuit.zkey" "$work/k$lg/p0.wtns" 3 $cpu
        line=$(grep '^bench=prove' "$work/bench.out")
        ok_line "$what" "$(since "$t0")" "$line" || continue
        local cpu_part="" g2="G2 on CPU"
        # the G2 MSM's time is exact when finish waited for it, else a bound
        awk -v w="$(kv gpu_g2_join_ms "$line")" 'BEGIN { exit !(w < 0.5) }' && g2="G2 on CPU <="
        [ -n "$cpu" ] && cpu_part="; CPU backend $(kv cpu_prove_ms "$line") ms, r=s=0 proofs equal"
        row PASS "$what" "$(since "$t0")" \
            "$(kv gpu_prove_ms "$line") ms excl. synthesis ($(kv synth_ms "$line") ms), all verified$cpu_part"
        row INFO "$what stages" "" \
            "h $(kv gpu_h_ms "$line") | msm H $(kv gpu_msm_h_ms "$line") A $(kv gpu_msm_a_ms "$line") B1 $(kv gpu_msm_b1_ms "$line") C $(kv gpu_msm_c_ms "$line") | g2 wait $(kv gpu_g2_join_ms "$line") ($g2 $(kv g2_cpu_ms "$line")) | assemble $(kv gpu_assemble_ms "$line") ms"
        row INFO "$what profiled h" "" \
            "upload $(kv prof_h_upload_ms "$line") ($(kv prof_upload_gbps "$line") GB/s) | ntt $(kv prof_h_ntt_ms "$line") | coset_h $(kv prof_h_coset_h_ms "$line") | stage h $(kv prof_h_ms "$line") ms"
        local m msms="" name
        for m in h:H a:A b1:B1 c:C; do
            name=msm_${m%%:*}
            msms="$msms${msms:+ | }${m#*:} $(kv "prof_${name}_ms" "$line") = sort $(kv "prof_${name}_msm_sort_ms" "$line") + acc $(kv "prof_${name}_msm_accumulate_ms" "$line") + reduce $(kv "prof_${name}_msm_reduce_ms" "$line") + combine $(kv "prof_${name}_msm_combine_ms" "$line")"
        done
        row INFO "$what profiled MSMs" "" "$msms ms"
    done
}

# ---- the run ----------------------------------------------------------------
if [ "$emulated" != 1 ]; then
    if ! command -v nvidia-smi >/dev/null 2>&1; then
        echo "gpu_check: no CUDA device (nvidia-smi not found)" | tee -a "$log"
        exit 1
    fi
    gpu=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1)
    if [ $? != 0 ] || [ -z "$gpu" ]; then
        echo "gpu_check: no CUDA device (nvidia-smi: $(head -n 1 <<<"$gpu"))" | tee -a "$log"
        exit 1
    fi
    note "gpu_check: $gpu; $(nproc) cores"
fi
note "gpu_check: plan: NTT ${ntt_logs}; MSM ${msm_logs}; proofs ${proofs}; PTX: NTT ${ptx_ntt:-none} MSM ${ptx_msm:-none} proof ${ptx_proof:-none}; deadline ${deadline} s"

t0=$(now)
if [ $nobuild = 1 ]; then
    if [ ! -x "$build/bench_gpu" ] || [ ! -x "$build/tests/test_cuda" ] ||
        [ ! -x "$build/tests/test_backend" ] || [ ! -x "$build/proofline" ]; then
        row FAIL "binaries in $build" 0 "bench_gpu, tests/test_cuda, tests/test_backend or proofline missing"
        finish
    fi
    row INFO "binaries of $build" "" "not rebuilt (--no-build)"
elif build_tree "$build" OFF >>"$log" 2>&1; then
    warnings=$(grep -c 'gpu_cuda.cu.*warning' "$log")
    row PASS "build (nvcc sm_90 + PTX)" "$(since "$t0")" "nvcc warnings: $warnings"
else
    row FAIL "build (nvcc sm_90 + PTX)" "$(since "$t0")" "see $log: $(grep -m1 -E 'error|Error' "$log" | cut -c1-160)"
    finish
fi
"$build/bench_gpu" ${bench[@]+"${bench[@]}"} >"$work/probe.txt" 2>&1
if [ $? != 0 ]; then
    row FAIL "CUDA device" 0 "$(cat "$work/probe.txt")"
    finish
fi

# the keys and the PTX build run beside the GPU rows, niced (each job
# lowers its own priority first, so that what it starts inherits it): the
# rows' CPU references come first
keys_pid=
key_logs=""
for p in $proofs $ptx_proof; do key_logs="$key_logs ${p%%:*}"; done
(
    renice -n 10 -p "$BASHPID" >/dev/null 2>&1
    for k in $(tr ' ' '\n' <<<"$key_logs" | sort -un); do make_key "$k" || exit 1; done
) >"$work/keys.log" 2>&1 &
keys_pid=$!
bg_pids+=("$keys_pid")
ptx_pid=
if [ -n "$ptx_ntt$ptx_msm$ptx_proof" ]; then
    (
        renice -n 10 -p "$BASHPID" >/dev/null 2>&1
        build_tree "$ptx_build" ON bench_gpu test_cuda test_backend
    ) >"$work/ptx_build.log" 2>&1 &
    ptx_pid=$!
    bg_pids+=("$ptx_pid")
fi

tests "portable:" "$build"
ntt_rows "portable:" "$build" $ntt_logs
msm_rows "portable:" "$build" $msm_logs
proof_rows "portable:" "$build" $proofs

if [ -n "$ptx_pid" ]; then
    t0=$(now)
    if await "$ptx_pid"; then
        row PASS "build with PL_CUDA_PTX=ON" "$(since "$t0")" "(built in the background; waited this long)"
        cat "$work/ptx_build.log" >>"$log"
        tests "ptx:" "$ptx_build"
        ntt_rows "ptx:" "$ptx_build" $ptx_ntt
        msm_rows "ptx:" "$ptx_build" $ptx_msm
        proof_rows "ptx:" "$ptx_build" $ptx_proof
    else
        cat "$work/ptx_build.log" >>"$log"
        row FAIL "build with PL_CUDA_PTX=ON" "$(since "$t0")" "see $log: $(grep -m1 -E 'error|Error' "$work/ptx_build.log" | cut -c1-160)"
    fi
fi
finish
