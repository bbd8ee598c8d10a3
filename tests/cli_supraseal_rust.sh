#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Rust crate (contrib/rust/supraseal-c2) over this build's
# libproofline_supraseal, driven as bellperson and cuzk drive SupraSeal C2:
#  - our circuit (proofline circuit export, 2^10 constraints, 10
#    partitions) with its bellperson parameters (setup --dev --format
#    bellperson), synthesized as bellperson synthesizes (a, b, c, the
#    assignments in Montgomery form, the densities:
#    tests/supraseal_assignments.c);
#  - `cargo test --offline` over the crate (tests/c2.rs: bellperson's
#    calls, the SRS cached, cloned, evicted, dropped, 1, 3 and 10 circuits
#    in one call; tests/cuzk.rs: the split prove, a dropped pending proof,
#    two workers on one GPU mutex; tests/errors.rs), then with
#    --features upstream over libproofline_supraseal_upstream (bellperson
#    0.26's call);
#  - every proof the tests made, written as Filecoin's 192 bytes, verified
#    by proofline (verify --format bellperson) and by tests/bp_verify.mjs
#    (@noble/curves, from the bytes alone); one under another's inputs
#    refused by both.
# Skipped, with the reason, without cargo (PATH or ~/.cargo/bin) or in a
# sanitizer build (a Rust binary cannot load its library).
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$(dirname "$PROOFLINE")" && pwd)
cargo=$(command -v cargo || true)
[ -n "$cargo" ] || [ ! -x "$HOME/.cargo/bin/cargo" ] || cargo="$HOME/.cargo/bin/cargo"
if [ -z "$cargo" ]; then
    echo "SKIP: cargo not found (PATH, ~/.cargo/bin): the Rust crate is not tested"
    exit 77
fi
if grep -q '^PL_SANITIZE:STRING=.' "$build/CMakeCache.txt"; then
    echo "SKIP: a sanitizer build (its library needs the sanitizer runtime)"
    exit 77
fi
helper="$build/tests/supraseal_assignments"
[ -x "$helper" ] || { fail "no $helper (the build makes it)"; finish x; }

d="$work/c2"
expect_exit 0 "$PROOFLINE" circuit export --constraints 2^10 --partitions 10 --out "$d"
expect_exit 0 "$PROOFLINE" setup --dev --format bellperson "$d/circuit.r1cs" \
    "$d/circuit.params" "$d/circuit.vk"
wtns=()
for i in $(seq 0 9); do wtns+=("$d/p$i.wtns"); done
expect_exit 0 "$helper" assign "$d/circuit.r1cs" "$d" "${wtns[@]}"
[ "$fails" = 0 ] || finish x

# the crate, offline, built in the build folder (the source tree stays
# clean), linked with PROOFLINE_LIB_DIR; one test at a time per binary
# (the library's figures are process-wide)
run_cargo() {
    local what=$1; shift
    if ! env CARGO_TARGET_DIR="$build/cargo" PROOFLINE_LIB_DIR="$build" \
        LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        PROOFLINE_SUPRASEAL_TEST_DIR="$d" CARGO_TERM_COLOR=never \
        "$cargo" test --offline --quiet \
        --manifest-path "$src/contrib/rust/supraseal-c2/Cargo.toml" "$@" \
        -- --test-threads=1 >"$work/cargo.log" 2>&1; then
        fail "cargo test $what: $(tail -40 "$work/cargo.log")"
    elif grep -q "skipped:" "$work/cargo.log"; then
        fail "cargo test $what skipped a test: $(grep skipped: "$work/cargo.log" | head -3)"
    fi
    grep -h "^test result:" "$work/cargo.log" | grep -v " 0 passed" | sed "s/^/$what: /" || true
}
run_cargo "(Curio's form)"
run_cargo "(upstream form)" --features upstream

# every proof made, verified twice
want="bellperson_1 bellperson_3 bellperson_10 assignments_3 unblinded_3 split_3
mutex_w0_r0 mutex_w0_r1 mutex_w0_r2 mutex_w1_r0 mutex_w1_r1 mutex_w1_r2
after_errors_1 upstream_3"
have_node=
if command -v node >/dev/null && [ -d "$VECTORS/node_modules/@noble/curves" ]; then
    have_node=1
else
    echo "note: node or @noble/curves missing: bp_verify.mjs not run (make npm-deps)"
fi
bpv="$src/tests/bp_verify.mjs"
n_proofs=0
for name in $want; do
    grep -qx "$name" "$d/proofs.list" 2>/dev/null || { fail "the tests made no $name"; continue; }
    expect_exit 0 "$helper" proofs "$d/$name.raw" "$d/$name.proofs"
    expect_exit 0 "$PROOFLINE" verify --format bellperson "$d/circuit.vk" \
        "$d/$name.inputs" "$d/$name.proofs"
    if [ -n "$have_node" ]; then
        node "$bpv" "$d/circuit.vk" "$d/$name.inputs" "$d/$name.proofs" \
            >"$work/bpv.out" 2>&1 || fail "bp_verify.mjs $name: $(cat "$work/bpv.out")"
    fi
    n_proofs=$((n_proofs + $(stat -c %s "$d/$name.proofs") / 192))
done
[ "$n_proofs" = 39 ] || fail "verified $n_proofs proofs, wanted 39"
# the first proof of bellperson_3 under the second's inputs: refused
if [ -f "$d/bellperson_3.proofs" ]; then
    head -c 192 "$d/bellperson_3.proofs" >"$work/one.proofs"
    size=$(($(stat -c %s "$d/bellperson_3.inputs") / 3))
    tail -c +$((size + 1)) "$d/bellperson_3.inputs" | head -c "$size" >"$work/other.inputs"
    expect_exit 1 "$PROOFLINE" verify --format bellperson "$d/circuit.vk" \
        "$work/other.inputs" "$work/one.proofs"
    if [ -n "$have_node" ]; then
        rc=0
        node "$bpv" "$d/circuit.vk" "$work/other.inputs" "$work/one.proofs" \
            >"$work/bpv.out" 2>&1 || rc=$?
        [ "$rc" = 1 ] || fail "bp_verify.mjs took a proof under another's inputs: $(cat "$work/bpv.out")"
    fi
fi
finish "cli_supraseal_rust: ok ($n_proofs proofs from the crate verified${have_node:+ twice})"
