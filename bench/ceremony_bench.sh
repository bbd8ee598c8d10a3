#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The trusted setup, step by step, proofline against snarkjs on the same
# input files, on each curve of CURVES ("bls12381 bn128"):
#   phase 1: ptau new, contribute, beacon, prepare, verify;
#   phase 2 (the demo circuit, `proofline circuit export`, domain 2^P):
#   zkey new, contribute, beacon, verify;
# at each power of POWERS ("12 14 16"; "" for none), then proofline alone
# at BIG (20; "" for none) on the first curve.  On bn128 the circuit is the demo
# circuit's r1cs with BN254's prime (coefficients above r/2 kept as the
# same negative values): the same shape on both curves; it proves nothing,
# so bn128's run checks no proof.  Each step is timed once (wall seconds, peak RSS from
# /usr/bin/time); both tools' outputs of the deterministic steps are
# compared byte for byte (same=1), a proof with the final key is checked
# by `snarkjs groth16 verify`.  snarkjs's steps stop at SNARKJS_TIMEOUT
# seconds (3600): a step cut there prints snarkjs_s=>LIMIT and a ratio that
# is a lower bound; snarkjs's prepare runs up to SNARKJS_PREPARE_MAX (14:
# it takes an hour and more above that here).  SNARKJS_BIG=1 runs snarkjs
# at BIG too.  SNARKJS_STEPS (all nine: "new contribute beacon prepare
# verify zkeynew zkeycontribute zkeybeacon zkeyverify"; "" for none) names
# the steps snarkjs runs, so that a larger power fits a run's time (ours run all:
# each makes the next one's input).  Both wall and CPU seconds (user + system, all threads) are
# printed: on a shared machine the CPU ratio is the steadier figure.
# Prints key=value lines; bench/README.md keeps one run.
#     bench/ceremony_bench.sh [build]     (default: build)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bin="$build/proofline"
snarkjs="$top/tests/vectors/node_modules/.bin/snarkjs"
powers=${POWERS-"12 14 16"}
big=${BIG-20}
limit=${SNARKJS_TIMEOUT:-3600}
prepare_max=${SNARKJS_PREPARE_MAX:-14}
threads=${THREADS:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/ceremony_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x "$snarkjs" ] || { echo "snarkjs missing: make npm-deps" >&2; exit 1; }
beacon=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
sj_steps=${SNARKJS_STEPS-"new contribute beacon prepare verify zkeynew zkeycontribute zkeybeacon zkeyverify"}
# wants STEP: snarkjs runs STEP in this run
wants() { case " $sj_steps " in *" $1 "*) return 0 ;; esac; return 1; }

# run NAME CMD...: wall seconds and peak RSS (KiB) of CMD in $work/NAME.t;
# a failure stops the run, except a snarkjs step cut at the limit
run() {
    local name=$1; shift
    local rc=0
    /usr/bin/time -f "%e %M %U %S" -o "$work/$name.t" "$@" >"$work/$name.out" 2>&1 || rc=$?
    if [ "$rc" = 124 ]; then echo "cut $limit 0 0" >"$work/$name.t"; return 0; fi
    [ "$rc" = 0 ] || { echo "$name failed ($rc):" >&2; tail -n 20 "$work/$name.out" >&2; exit 1; }
}
secs() { cut -d' ' -f1 "$work/$1.t"; }
cpu() { awk '{ c = $3 + $4; if (c < 0.01) c = 0.01; printf "%.2f", c }' "$work/$1.t"; }
mib() { local k; k=$(cut -d' ' -f2 "$work/$1.t"); [ "$k" = "$limit" ] && echo "-" || echo $((k / 1024)); }
ours() { run "$@"; }
theirs() { run "$1" timeout "$limit" "${@:2}"; }

# report POWER STEP [file ours] [file theirs]
report() {
    local p=$1 step=$2 a="p${1}_$2_ours" b="p${1}_$2_sj"
    local line="curve=$curve power=$p step=$step proofline_s=$(secs "$a") proofline_cpu_s=$(cpu "$a") proofline_rss_mib=$(mib "$a")"
    if [ -f "$work/$b.t" ]; then
        local s; s=$(secs "$b")
        if [ "$s" = cut ]; then
            line="$line snarkjs_s=>$limit ratio=>$(echo "$limit / $(secs "$a")" | bc -l | cut -c1-6)"
        else
            line="$line snarkjs_s=$s snarkjs_cpu_s=$(cpu "$b") snarkjs_rss_mib=$(mib "$b") ratio=$(echo "$s / $(secs "$a")" | bc -l | cut -c1-6) cpu_ratio=$(echo "$(cpu "$b") / $(cpu "$a")" | bc -l | cut -c1-6)"
        fi
    elif [ "$with_sj" = 1 ]; then
        line="$line snarkjs_s=skipped"
    fi
    if [ $# -ge 4 ] && [ -f "$4" ] && [ -f "$3" ]; then
        cmp -s "$3" "$4" && line="$line same=1" || line="$line same=0"
    fi
    echo "$line"
}

echo "machine=\"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')\" cores=$(nproc) threads=$threads load=\"$(cut -d' ' -f1-3 /proc/loadavg)\""
# the demo circuit's r1cs on BN254: its prime replaced, each coefficient c
# above r_bls / 2 (a negative value) as r_bn - (r_bls - c)
to_bn128() {
    python3 - "$1" "$2" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
rb = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
rn = 21888242871839275222246405745257275088548364400416034343698204186575808495617
n = struct.unpack_from("<I", b, 8)[0]; o = 12; sec = {}
for _ in range(n):
    i, s = struct.unpack_from("<IQ", b, o); sec[i] = (o + 12, s); o += 12 + s
h = sec[1][0]
b[h + 4:h + 36] = rn.to_bytes(32, "little")
nc = struct.unpack_from("<I", b, h + 36 + 24)[0]
o = sec[2][0]
for _ in range(nc):
    for _ in range(3):
        nt = struct.unpack_from("<I", b, o)[0]; o += 4
        for _ in range(nt):
            c = int.from_bytes(b[o + 4:o + 36], "little")
            c = rn - (rb - c) if c > rb // 2 else c % rn
            b[o + 4:o + 36] = c.to_bytes(32, "little"); o += 36
open(sys.argv[2], "wb").write(b)
EOF
}

step_all() {
    local p=$1 with_sj=$2 d="$work/p$1" c="--threads $threads --quiet"
    mkdir -p "$d"
    ours "p${p}_new_ours" "$bin" ptau new "$curve" "$p" "$d/0.ptau" $c
    ours "p${p}_contribute_ours" "$bin" ptau contribute "$d/0.ptau" "$d/1.ptau" --name a --entropy x $c
    ours "p${p}_beacon_ours" "$bin" ptau beacon "$d/1.ptau" "$d/2.ptau" $beacon 10 --name b $c
    ours "p${p}_prepare_ours" "$bin" ptau prepare "$d/2.ptau" "$d/final.ptau" $c
    ours "p${p}_verify_ours" "$bin" ptau verify "$d/final.ptau" $c
    "$bin" circuit export --constraints "2^$p" --out "$d/circ" >/dev/null
    if [ "$curve" = bn128 ]; then
        to_bn128 "$d/circ/circuit.r1cs" "$d/circ/bn.r1cs"
        mv "$d/circ/bn.r1cs" "$d/circ/circuit.r1cs"
    fi
    ours "p${p}_zkeynew_ours" "$bin" zkey new "$d/circ/circuit.r1cs" "$d/final.ptau" "$d/z0.zkey" $c
    ours "p${p}_zkeycontribute_ours" "$bin" zkey contribute "$d/z0.zkey" "$d/z1.zkey" --name a --entropy y $c
    ours "p${p}_zkeybeacon_ours" "$bin" zkey beacon "$d/z1.zkey" "$d/z2.zkey" $beacon 10 --name b $c
    ours "p${p}_zkeyverify_ours" "$bin" zkey verify "$d/circ/circuit.r1cs" "$d/final.ptau" "$d/z2.zkey" $c
    if [ "$with_sj" = 1 ]; then
        if wants new; then
            theirs "p${p}_new_sj" "$snarkjs" powersoftau new "$curve" "$p" "$d/s0.ptau"
        fi
        if wants contribute; then
            theirs "p${p}_contribute_sj" "$snarkjs" powersoftau contribute "$d/0.ptau" "$d/s1.ptau" --name=a -e=x
        fi
        if wants beacon; then
            theirs "p${p}_beacon_sj" "$snarkjs" powersoftau beacon "$d/1.ptau" "$d/s2.ptau" $beacon 10 -n=b
        fi
        if wants prepare && [ "$p" -le "$prepare_max" ]; then
            theirs "p${p}_prepare_sj" "$snarkjs" powersoftau prepare phase2 "$d/2.ptau" "$d/sfinal.ptau"
        fi
        if wants verify; then
            theirs "p${p}_verify_sj" "$snarkjs" powersoftau verify "$d/final.ptau"
        fi
        if wants zkeynew; then
            theirs "p${p}_zkeynew_sj" "$snarkjs" groth16 setup "$d/circ/circuit.r1cs" "$d/final.ptau" "$d/sz0.zkey"
        fi
        if wants zkeycontribute; then
            theirs "p${p}_zkeycontribute_sj" "$snarkjs" zkey contribute "$d/z0.zkey" "$d/sz1.zkey" --name=a -e=y
        fi
        if wants zkeybeacon; then
            theirs "p${p}_zkeybeacon_sj" "$snarkjs" zkey beacon "$d/z1.zkey" "$d/sz2.zkey" $beacon 10 -n=b
        fi
        if wants zkeyverify; then
            theirs "p${p}_zkeyverify_sj" "$snarkjs" zkey verify "$d/circ/circuit.r1cs" "$d/final.ptau" "$d/z2.zkey"
            grep -q "ZKey Ok" "$work/p${p}_zkeyverify_sj.out" || [ "$(secs "p${p}_zkeyverify_sj")" = cut ] ||
                { echo "snarkjs refuses our key at 2^$p" >&2; exit 1; }
        fi
    fi
    report "$p" new "$d/0.ptau" "$d/s0.ptau"
    report "$p" contribute
    report "$p" beacon "$d/2.ptau" "$d/s2.ptau"
    report "$p" prepare "$d/final.ptau" "$d/sfinal.ptau"
    report "$p" verify
    report "$p" zkeynew "$d/z0.zkey" "$d/sz0.zkey"
    report "$p" zkeycontribute
    report "$p" zkeybeacon "$d/z2.zkey" "$d/sz2.zkey"
    report "$p" zkeyverify
    if [ "$curve" = bn128 ]; then
        echo "curve=$curve power=$p ptau_bytes=$(stat -c %s "$d/final.ptau") zkey_bytes=$(stat -c %s "$d/z2.zkey")"
        rm -rf "$d"
        return 0
    fi
    # the final key proves, and snarkjs verifies the proof
    "$bin" prove "$d/z2.zkey" "$d/circ/p0.wtns" "$d/proof.json" "$d/public.json"
    "$bin" zkey export verificationkey "$d/z2.zkey" "$d/vk.json"
    "$snarkjs" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" | grep -q OK ||
        { echo "snarkjs refuses the proof at 2^$p" >&2; exit 1; }
    echo "curve=$curve power=$p proof_verified_by_snarkjs=1 ptau_bytes=$(stat -c %s "$d/final.ptau") zkey_bytes=$(stat -c %s "$d/z2.zkey")"
    rm -rf "$d"
}
curves=${CURVES:-"bls12381 bn128"}
for curve in $curves; do
    for p in $powers; do step_all "$p" 1; done
done
curve=${curves%% *}
if [ -n "$big" ]; then step_all "$big" "${SNARKJS_BIG:-0}"; fi
