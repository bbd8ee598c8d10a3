#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The option tables of the CLI (cli/options.c), without proving anything:
#  - the engine's shared options are accepted by prove, batch and demo
#    alike, with one validation and one message each;
#  - --help is generated from the tables: every option once, a command's
#    own entry shadowing a shared one (demo's --budget default), hidden
#    test hooks left out;
#  - bad values, missing values and unknown options are usage errors
#    (exit 2) naming the option; positional arguments may come before,
#    between and after options.
. "$(dirname "$0")/lib.sh"
v="$VECTORS/chain10"

# expect_usage <text in the message> <args...>: exit 2, the text on stderr,
# and a pointer to --help.
expect_usage() {
    local text=$1; shift
    expect_exit 2 "$PROOFLINE" "$@"
    grep -qF -- "$text" "$work/log" || fail "$*: message lacks \"$text\": $(cat "$work/log")"
    grep -q -- "--help'" "$work/log" || fail "$*: no pointer to --help"
}

for cmd in prove batch demo; do
    expect_usage "--threads needs a count from 1 to 4096" $cmd --threads 0
    expect_usage "--threads needs a count from 1 to 4096" $cmd --threads 4097
    expect_usage "--threads needs a count from 1 to 4096" $cmd --threads
    expect_usage "--backend needs auto, cpu or cuda" $cmd --backend
    expect_usage "unknown option --bogus" $cmd --bogus
    "$PROOFLINE" $cmd --help >"$work/help" || fail "$cmd --help: exit $?"
    for opt in --threads --backend; do
        [ "$(grep -c -- "^  $opt " "$work/help")" = 1 ] || fail "$cmd --help: $opt not listed once"
    done
    grep -q "^  -h, --help  *this text$" "$work/help" || fail "$cmd --help: no -h line"
done
for cmd in batch demo; do
    expect_usage "--pw needs a count from 1 to 4096" $cmd --pw 0
    expect_usage "--workers needs a count from 1 to 4096" $cmd --workers x
    expect_usage "--budget needs a size such as 512MiB or 4GiB, not '12Q'" $cmd --budget 12Q
    expect_usage "--log-level is info or quiet, not 'loud'" $cmd --log-level loud
    "$PROOFLINE" $cmd --help >"$work/help"
    for opt in --pw --workers --budget --threads --backend --log-level --quiet; do
        [ "$(grep -c -- "^  $opt " "$work/help")" = 1 ] || fail "$cmd --help: $opt not listed once"
    done
done
# prove takes the prover's options, not the pipeline's
expect_usage "unknown option --pw" prove --pw 2
"$PROOFLINE" demo --help | grep -q "^  --budget SIZE  *memory budget (default 1GiB)$" \
    || fail "demo --help: --budget does not show the demo's default"
"$PROOFLINE" batch --help | grep -A1 "^  --budget SIZE  *memory budget, e.g. 512MiB, 4GiB (default: 80% of RAM,$" |
    grep -q "^  *or of the container's memory limit if smaller)$" || fail "batch --help: --budget"
# continuation lines are indented to the help column
"$PROOFLINE" prove --help | grep -q "^                       CPU), cpu or cuda$" \
    || fail "prove --help: --backend's second line is not at column 23"
"$PROOFLINE" circuit --help | grep -q -- "--x-corrupt-sibling" && fail "circuit --help shows a hidden option"
"$PROOFLINE" setup --help | grep -q "^  --dev  *required: accept a key with known toxic waste$" \
    || fail "setup --help: --dev"

# the commands' own options
expect_usage "--depth takes 1 to 32, not '33'" demo --depth 33
expect_usage "--depth takes 1 to 32, not '0'" circuit info --constraints 2^12 --depth 0
expect_usage "--partitions takes 1 to 4096, not '0'" circuit info --constraints 2^12 --partitions 0
expect_usage "--constraints takes 2^K (K from 4 to 28) or a number, not '2^99'" demo --constraints 2^99
expect_usage "--x-corrupt-sibling needs a number, not 'x'" circuit export --constraints 2^12 --x-corrupt-sibling x
expect_usage "foo: expected an option with a value" circuit info foo
expect_usage "unknown option foo" demo foo
expect_usage "--r1cs needs a file" prove --r1cs
expect_usage "--seed needs a value" setup --seed
expect_usage "unexpected argument e" prove a b c d e
expect_usage "needs 4 files" prove a b c
expect_usage "needs --zkey, --out and at least one witness" batch --zkey "$v/circuit.zkey" --out "$work/o"
expect_usage "--check-witness needs --r1cs FILE" batch --zkey "$v/circuit.zkey" --out "$work/o" --check-witness w
expect_usage "only the development setup exists" setup a b
expect_usage "needs 3 files" verify a b
expect_usage "needs one file" inspect

# positional arguments anywhere among the options: both witnesses are
# taken (the same one twice is refused as a duplicate), and the plan runs
ln -s "$v/witness.wtns" "$work/w1.wtns"
ln -s "$v/witness.wtns" "$work/w2.wtns"
expect_exit 2 "$PROOFLINE" batch "$work/w1.wtns" --zkey "$v/circuit.zkey" --pw 3 --print-plan \
    --out "$work/plan" --pw 1 "$work/w1.wtns"
grep -q "would both write w1.proof.json" "$work/log" || fail "duplicate: $(cat "$work/log")"
expect_exit 0 "$PROOFLINE" batch "$work/w1.wtns" --zkey "$v/circuit.zkey" --pw 3 --print-plan \
    --out "$work/plan" --pw 1 "$work/w2.wtns"
grep -q "^partition_bytes=[1-9][0-9]*$" "$work/stdout" || fail "--print-plan: $(cat "$work/stdout")"
# a value is taken as given, even one that looks like an option
expect_exit 2 "$PROOFLINE" batch --zkey --help --out "$work/o2" "$work/w1.wtns"
grep -q "\-\-help" "$work/log" || fail "--zkey --help: $(cat "$work/log")"

finish "options: ok"
