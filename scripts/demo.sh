#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make demo: the main job on built-in defaults.  `proofline demo` proves 16
# partitions of the PoRep-like demo circuit (SHA-256 Merkle openings,
# 2^16 constraints a partition) through the engine: each witness is
# computed by the circuit itself on a synthesis worker (witness-only; the
# constraints were recorded once), every proof is verified, and it prints
# the throughput, the synthesis share, the ledger summary and where the
# trace (Perfetto), the memory plot and the proofs went.  The r1cs and the
# development key are made on the first run and cached in build/demo-cache
# (about 10 s at 2^16 on 2 cores); later runs reuse them.
# The engine's ledger lines (one per event, ~150 of them) and the ledger's
# summary go to build/demo.log (--log), which the last line names; the
# terminal shows what the demo built, proved and verified, and its figures.
# Extra arguments go to `proofline demo` (e.g. --partitions 2 --pw 1).
set -eu
bin=$1
shift
dir=$(dirname "$bin")
exec "$bin" demo --cache "$dir/demo-cache" --log "$dir/demo.log" "$@"
