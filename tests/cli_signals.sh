#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# SIGTERM and SIGINT during a long `batch` (issue 13, point 4): once the
# first proof is out, the signal stops admission (what is not finished is
# cancelled), the proofs already finished stay, no temporary is left in
# the output folder, the report, the trace and the plot are written for
# what finished, and the exit code is 143 (SIGTERM) or 130 (SIGINT).
# Before, the signal killed the process: no report, temporaries left.
. "$(dirname "$0")/lib.sh"
v="$VECTORS/chain10"
n=300
mkdir "$work/in"
for i in $(seq -w 1 $n); do ln -s "$v/witness.wtns" "$work/in/w$i.wtns"; done

# run_and_signal <signal> <wanted exit code>
run_and_signal() {
    local sig=$1 want=$2 out="$work/out_$1" rc=0
    # a background job of a non-interactive shell starts with SIGINT
    # ignored; the handler proofline installs replaces that
    "$PROOFLINE" batch --zkey "$v/circuit.zkey" --out "$out" --pw 1 --quiet \
        --report "$work/$sig.report.json" --trace "$work/$sig.trace.json" \
        --plot "$work/$sig.svg" "$work"/in/w*.wtns 2>"$work/$sig.log" &
    local pid=$!
    for _ in $(seq 1 600); do # the first proof, within 60 s
        ls "$out"/*.public.json >/dev/null 2>&1 && break
        sleep 0.1
    done
    kill -"$sig" "$pid"
    wait "$pid" || rc=$?
    [ "$rc" = "$want" ] || fail "$sig: exit $rc, wanted $want ($(cat "$work/$sig.log"))"
    grep -q "stopped by SIG$sig" "$work/$sig.log" || fail "$sig: no message: $(cat "$work/$sig.log")"
    local left
    left=$(ls -a "$out" "$work" | grep '\.tmp' || true)
    [ -z "$left" ] || fail "$sig: temporaries left: $left"
    [ -f "$work/$sig.trace.json" ] && [ -f "$work/$sig.svg" ] || fail "$sig: no trace or plot"
    # the report names what finished: each proved witness has its pair, the
    # others none, and not all of them finished
    node -e '
      const fs = require("fs"), path = require("path");
      const [report, out, n] = process.argv.slice(1);
      const r = JSON.parse(fs.readFileSync(report));
      const w = r.witnesses, bad = [];
      if (!Array.isArray(w) || w.length !== +n) bad.push("witnesses: " + (w && w.length));
      let proved = 0;
      for (const x of w || []) {
        const name = path.basename(x.file, ".wtns");
        const has = fs.existsSync(path.join(out, name + ".proof.json")) &&
                    fs.existsSync(path.join(out, name + ".public.json"));
        if (x.status === "proved") { proved++; if (!has) bad.push(name + ": proved, no files"); }
        else if (x.status !== "cancelled") bad.push(name + ": " + x.status + " " + x.message);
        else if (fs.existsSync(path.join(out, name + ".proof.json"))) bad.push(name + ": cancelled, has a proof");
      }
      if (proved < 1 || proved >= +n || r.proofs !== proved || r.skipped !== +n - proved)
        bad.push("proved " + proved + ", proofs " + r.proofs + ", skipped " + r.skipped);
      if (!r.memory.balanced) bad.push("ledger not balanced");
      if (bad.length) { console.error(bad.join("\n")); process.exit(1); }' \
        "$work/$sig.report.json" "$out" "$n" 2>"$work/node.log" || fail "$sig: report: $(cat "$work/node.log")"
    local kept=("$out"/*.proof.json)
    "$PROOFLINE" verify "$v/verification_key.json" "${kept[0]%.proof.json}.public.json" "${kept[0]}" \
        >/dev/null || fail "$sig: a kept proof does not verify"
}

run_and_signal TERM 143
run_and_signal INT 130

finish "signals: ok"
