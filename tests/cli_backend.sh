#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --backend on the command line: cpu proves; an unknown name is bad usage
# (exit 2) that lists the choices; auto proves whether or not a GPU is
# present, and without one says in one line that it uses the CPU (and why);
# cuda without a device fails (exit 2) with the reason, with one it proves.
# The report names the backend that ran.
. "$(dirname "$0")/lib.sh"
v="$VECTORS/chain10"

"$PROOFLINE" prove "$v/circuit.zkey" "$v/witness.wtns" "$work/p.json" "$work/pub.json" \
    --backend cpu --verify || fail "--backend cpu: exit $?"

expect_exit 2 "$PROOFLINE" prove "$v/circuit.zkey" "$v/witness.wtns" "$work/q.json" "$work/qub.json" \
    --backend gpu
grep -q "unknown backend 'gpu' (cpu, cuda or auto)" "$work/log" || fail "--backend gpu: $(cat "$work/log")"
[ ! -e "$work/q.json" ] || fail "--backend gpu wrote a proof"

"$PROOFLINE" batch --zkey "$v/circuit.zkey" --out "$work/out" --backend auto --verify \
    --report "$work/report.json" "$v/witness.wtns" >"$work/auto.log" 2>&1 || fail "--backend auto: exit $?"
fallback=$(grep -c "^engine: backend auto: " "$work/auto.log" || true)
ran=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).config.backend)' "$work/report.json")
if [ "$fallback" = 1 ]; then
    grep -q "^engine: backend auto: .*; using the CPU$" "$work/auto.log" || fail "fallback line: $(head -1 "$work/auto.log")"
    [ "$ran" = cpu ] || fail "auto fell back but the report says $ran"
    expect_exit 2 "$PROOFLINE" prove "$v/circuit.zkey" "$v/witness.wtns" "$work/c.json" "$work/cub.json" \
        --backend cuda
    grep -q "backend cuda: " "$work/log" || fail "--backend cuda: $(cat "$work/log")"
else
    [ "$fallback" = 0 ] || fail "the fallback line was printed $fallback times"
    [ "$ran" = cuda ] || fail "auto with a device ran $ran"
    "$PROOFLINE" prove "$v/circuit.zkey" "$v/witness.wtns" "$work/c.json" "$work/cub.json" \
        --backend cuda --verify || fail "--backend cuda with a device: exit $?"
fi
finish "cli_backend: ok (auto ran $ran)"
