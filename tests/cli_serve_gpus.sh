# SPDX-License-Identifier: Apache-2.0
# The service's GPU memory per GPU, over the CUDA backend's host emulation
# with two cards (PL_GPU_EMULATED_DEVICES=2, --devices 2): after a job has
# been proved on them, /metrics has a proofline_gpu_device_used_bytes and
# a proofline_gpu_device_total_bytes row per card (label gpu), each the
# same as /v1/status's "gpus" object says, and the cards' figures sum to
# proofline_gpu_used_bytes and proofline_gpu_total_bytes; `proofline
# status` prints a line per card; the page (GET /, in headless Chromium
# when installed) shows each card's used and total and a line per card.
. "$(dirname "$0")/lib.sh"
zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$VECTORS/chain10/verification_key.json
. "$(dirname "$0")/serve_lib.sh"

S=$work/s
PL_GPU_EMULATED_DEVICES=2 start "$S" --backend cuda-emulated --devices 2 || finish x
register 201
submit normal 4
wait_jobs "$jid"

expect 200 GET /metrics
cp "$work/body" "$work/metrics.txt"
if command -v promtool >/dev/null; then
    promtool check metrics <"$work/metrics.txt" >"$work/promtool.log" 2>&1 ||
        fail "promtool check metrics: $(cat "$work/promtool.log")"
fi
expect 200 GET /v1/status
cp "$work/body" "$work/status.json"
python3 - "$work/metrics.txt" "$work/status.json" <<'PY' || fail "per-GPU figures"
import json, re, sys
text = open(sys.argv[1]).read()
status = json.load(open(sys.argv[2]))
def rows(name):
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r'^%s\{gpu="(\d+)"\} (\d+)$' % name, text, re.M)}
def one(name):
    m = re.search(r"^%s (\d+)$" % name, text, re.M)
    assert m, name
    return int(m.group(1))
used, total = rows("proofline_gpu_device_used_bytes"), rows("proofline_gpu_device_total_bytes")
assert sorted(used) == ["0", "1"] and sorted(total) == ["0", "1"], (used, total)
for g in used:
    assert 0 < used[g] <= total[g], (g, used[g], total[g])
assert sum(total.values()) == one("proofline_gpu_total_bytes"), total
# /metrics is one reading, so its sums are its cards' (used moves between
# readings, so /v1/status is compared with itself)
assert sum(used.values()) == one("proofline_gpu_used_bytes"), used
gpus = status["gpus"]
assert sorted(gpus) == ["0", "1"], gpus
assert sum(g["used_bytes"] for g in gpus.values()) == status["gpu"]["used_bytes"], status
assert sum(g["total_bytes"] for g in gpus.values()) == status["gpu"]["total_bytes"], status
assert all(gpus[g]["total_bytes"] == total[g] for g in gpus), (gpus, total)
print("gpus: %s used of %s" % (used, total))
PY

expect_exit 0 "$PROOFLINE" status --server "$url"
[ "$(grep -Ec '^(gpus)? +[01]: used .* of ' "$work/stdout")" = 2 ] ||
    fail "status: not a line per GPU: $(cat "$work/stdout")"

# the page (when Chromium is installed): each card's used and total among
# its figures, its total the one /metrics gave, and a line per card
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
    timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu \
        --disable-dev-shm-usage --no-first-run --no-default-browser-check \
        --user-data-dir="$work/chrome" --virtual-time-budget=3000 --dump-dom \
        "$url/" >"$work/dom.html" 2>>"$work/chrome.log" ||
        fail "chromium --dump-dom: exit $? ($(tail -3 "$work/chrome.log"))"
    for g in 0 1; do
        t=$(sed -n "s/^proofline_gpu_device_total_bytes{gpu=\"$g\"} //p" "$work/metrics.txt")
        grep -q "data-fig=\"gpus.$g.used_bytes\" data-value=\"[1-9]" "$work/dom.html" ||
            fail "page: no used figure for GPU $g"
        grep -q "data-fig=\"gpus.$g.total_bytes\" data-value=\"$t\"" "$work/dom.html" ||
            fail "page: GPU $g's total is not $t"
        grep -q "GPU $g used</span>" "$work/dom.html" || fail "page: no line for GPU $g"
    done
else
    echo "page not checked: chromium is not installed"
fi
stop
[ "$stopped" = 0 ] || fail "serve exited $stopped"
finish "cli_serve_gpus: ok"
