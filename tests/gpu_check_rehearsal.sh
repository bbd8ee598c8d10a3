#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The rehearsal of bench/gpu_check.sh in make test: the whole script on the
# host emulation at tiny sizes (--sizes tiny), over this build's binaries
# (--no-build: nothing is rebuilt here), so that the script, bench_gpu and
# the names they read (the prover's stages, the device's phases, the
# on-device test cases) cannot rot between the rare runs on a GPU.  Then
# once more with one row made wrong on purpose (BENCH_GPU_FAULT): that row
# fails with its reason, the rows after it still run, the table is printed
# and the script exits 1.  Skipped (77) where bench_gpu was not built.
# CTest gives BUILD (the build folder) and TMPROOT.
set -uo pipefail
: "${BUILD:?} ${TMPROOT:?}"
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x "$BUILD/bench_gpu" ]; then
    echo "SKIP: $BUILD/bench_gpu is not built"
    exit 77
fi
work=$(mktemp -d "$TMPROOT/gpu_check.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check [env...]: the tiny emulated check; its table in $work/table
check() {
    env "$@" GPU_CHECK_EMULATED=1 GPU_WORK="$work/w" OUT="$work/out" \
        bash "$src/bench/gpu_check.sh" --sizes tiny --build "$BUILD" --no-build \
        >"$work/stdout" 2>&1
    local rc=$?
    cp "$work/out/gpu_check.txt" "$work/table" 2>/dev/null || : >"$work/table"
    return $rc
}
has() { grep -qE "$1" "$work/table" || fail "no row matching '$1'"; }

check || fail "the check exits $?: $(tail -n 30 "$work/stdout")"
grep -qE '^(FAIL|SKIP) ' "$work/table" && fail "rows failed or skipped: $(cat "$work/table")"
has '^PASS portable: test [a-z_]+ '
has '^PASS portable: test backend\.[a-z_]+ '
has '^PASS portable: test bellperson\.c2_proofs_equal_cpu '
for lg in 6 8; do
    has "^PASS portable: NTT 2\\^$lg .* = CPU NTT; upload [0-9.]+ ms"
    has "^PASS portable: MSM 2\\^$lg random .* = CPU MSM .* and dlog; profiled: sort [0-9.]+ \\| accumulate [0-9.]+ \\| reduce [0-9.]+ \\| combine [0-9.]+ ms"
    for c in ones mixed repeated; do has "^PASS portable: MSM 2\\^$lg $c .* ms = dlog"; done
done
has '^PASS portable: proof 2\^10 .* all verified; CPU backend [0-9.]+ ms, r=s=0 proofs equal'
# every stage and phase column has a number: a renamed stage or phase
# would leave a gap here
has '^INFO portable: proof 2\^10 stages +h [0-9.]+ \| msm H [0-9.]+ A [0-9.]+ B1 [0-9.]+ C [0-9.]+ \| g2 wait [0-9.]+ \(G2 on CPU <?=? ?[0-9.]+\) \| assemble [0-9.]+ ms'
has '^INFO portable: proof 2\^10 profiled h +upload [0-9.]+ \([0-9.]+ GB/s\) \| ntt [0-9.]+ \| coset_h [0-9.]+ \| stage h [0-9.]+ ms'
msm='[0-9.]+ = sort [0-9.]+ \+ acc [0-9.]+ \+ reduce [0-9.]+ \+ combine [0-9.]+'
has "^INFO portable: proof 2\\^10 profiled MSMs +H $msm \\| A $msm \\| B1 $msm \\| C $msm ms"
has '^proofline GPU check: [0-9]+ passed, 0 failed, 0 skipped'

# a wrong sum in one case: that row fails, the others still run
check BENCH_GPU_FAULT=msm:ones && fail "the check passed with a wrong MSM"
has "^FAIL portable: MSM 2\\^6 ones .*differs from \\(sum s_i l_i\\) G"
has '^PASS portable: MSM 2\^8 repeated '
has '^PASS portable: proof 2\^10 '
has '^proofline GPU check: [0-9]+ passed, 2 failed, 0 skipped'

[ $fails = 0 ] || { echo "$fails failure(s); the last table:"; cat "$work/table"; exit 1; }
echo "gpu_check rehearsal: ok"
