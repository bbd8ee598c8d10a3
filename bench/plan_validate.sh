#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The planner against runs (docs/plan.md): `proofline calibrate` measures
# this machine's stage costs on the demo circuit, then plans and runs each
# size under three configurations (pw 1 with a budget of one partition,
# pw 2 with three, pw 2 unlimited) and prints the table: peak reserved
# (planned = measured), peak RssAnon (planned / measured) and wall time
# (planned / measured).  The demo circuits and keys are cached under
# $BUILD/bench/plan.
#   PLAN_SIZES="12,13,14,15,16"  PLAN_PARTITIONS=6
# Usage: bench/plan_validate.sh BUILD_DIR
set -eu
build=${1:-build}
work="$build/bench/plan"
mkdir -p "$work"
"$build/proofline" calibrate --out "$work/measured.costs" \
    --sizes "${PLAN_SIZES:-12,13,14,15,16}" --cache "$work" \
    --validate --validate-partitions "${PLAN_PARTITIONS:-6}"
# how long a plan of a thousand sectors of the 32 GiB preset takes
t0=$(date +%s.%N)
"$build/proofline" plan --preset filecoin-porep-32g --pw 12 --jobs 1000 >/dev/null
awk -v a="$t0" -v b="$(date +%s.%N)" \
    'BEGIN { printf "bench=plan_speed preset=filecoin-porep-32g sectors=1000 partitions=10000 seconds=%.3f\n", b - a }'
