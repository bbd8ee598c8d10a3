# SPDX-License-Identifier: Apache-2.0
# Watching a service live (docs/serve.md "Watching it"), against one real
# `proofline serve` on a port the system picks:
#  - the page (GET /) in Debian's real Chromium, headless: loaded while a
#    batch of jobs is proved, every figure it shows (data-fig, data-value)
#    equals the /v1/status reply it drew (kept in the page, whose uptime
#    lies between two curl readings taken around the load), its lanes hold
#    exactly the partitions that reply puts in each stage, the waiting lane
#    included, and it kept polling; once the service is idle every figure
#    equals a /v1/status read by curl at the same time; a screenshot is
#    taken during the batch (PL_PAGE_SCREENSHOT=FILE copies it there:
#    `make screenshot`);
#    the page's headers (CSP, no CORS) and Host rule; with a token the page
#    loads without it and asks for it, no figure is read without it, and
#    typed once into its form (Chromium driven over its DevTools pipe) the
#    figures are drawn, the token is in no URL, and a reload needs it not
#    again.
#    Skipped (77) with the reason when chromium is not installed.
#  - `proofline status --watch` in a pseudo-terminal: it redraws in place,
#    every line within 80 columns, and Ctrl-C ends it with exit 0;
#    `--count 2` in a pipe draws twice and shows the jobs /v1/status counts.
#  - contrib/grafana/proofline.json: every metric its queries name is one
#    the live /metrics exports (and each label it groups by is one that
#    metric has); promtool parses every query (when installed).
# Waits are polls with a generous deadline, never timings.
. "$(dirname "$0")/lib.sh"
zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$VECTORS/chain10/verification_key.json
. "$(dirname "$0")/serve_lib.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "SKIP: chromium is not installed (apt-get install chromium; make deps does as root)"; exit 77; }

# chrome URL OUT [more flags]: the page's DOM after 3 s of its own time
chrome() {
    local u=$1 out=$2; shift 2
    timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu \
        --disable-dev-shm-usage --no-first-run --no-default-browser-check \
        --user-data-dir="$work/chrome" --virtual-time-budget=3000 "$@" \
        "$u" >"$out" 2>>"$work/chrome.log"
}

S=$work/s
start "$S" --pw 2 || finish x
register 201
expect 200 GET /
grep -qi '^Content-Security-Policy: default-src .none.' "$work/headers" || fail "GET /: no CSP"
grep -qi '^X-Frame-Options: DENY' "$work/headers" || fail "GET /: framable"
grep -qi '^Access-Control' "$work/headers" && fail "GET /: a CORS header"
grep -q 'id="snapshot"' "$work/body" || fail "GET /: not the page"
# nothing from elsewhere: no src= or href= at all, and no address but SVG's
# namespace (a name, never fetched)
grep -Eq '<script[^>]+src=|<link[^>]+href=|<img' "$work/body" &&
    fail "the page loads something"
grep -Eo 'https?://[^"]*' "$work/body" | grep -vqx 'http://www.w3.org/2000/svg' &&
    fail "the page names another site: $(grep -Eo 'https?://[^"]*' "$work/body" | sort -u)"
expect 403 GET / -H "Host: evil.example:${url##*:}"
expect 200 HEAD /

# ---- the page while a batch is proved -----------------------------------
# page_check N: the page loaded once, its figures against the replies
# just before and after; counts the loads that saw partitions in flight.
page_check() {
    local n=$1
    expect 200 GET /v1/status; cp "$work/body" "$work/before$n.json"
    chrome "$url/" "$work/dom$n.html" --dump-dom || fail "chromium --dump-dom: exit $? ($(tail -3 "$work/chrome.log"))"
    expect 200 GET /v1/status; cp "$work/body" "$work/after$n.json"
    python3 - "$work/dom$n.html" "$work/before$n.json" "$work/after$n.json" >"$work/check$n" <<'PY' || fail "page $n: $(cat "$work/check$n")"
import html.parser, json, sys
dom, before, after = open(sys.argv[1]).read(), *(json.load(open(p)) for p in sys.argv[2:])
class P(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.figs = {}; s.lanes = {}; s.lane = None; s.depth = 0
        s.snap = None; s.in_snap = False; s.text = ""
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "div":
            s.depth += 1
            if "data-lane" in a: s.lane, s.lane_depth = a["data-lane"], s.depth; s.lanes[s.lane] = []
        if "data-fig" in a: s.figs[a["data-fig"]] = a["data-value"]
        if "data-partition" in a and s.lane: s.lanes[s.lane].append(a["data-partition"])
        if tag == "textarea" and a.get("id") == "snapshot": s.in_snap = True
    def handle_endtag(s, tag):
        if tag == "div":
            if s.lane and s.depth == s.lane_depth: s.lane = None
            s.depth -= 1
        if tag == "textarea" and s.in_snap: s.in_snap = False; s.snap = s.text
    def handle_data(s, d):
        if s.in_snap: s.text += d
p = P(); p.feed(dom)
assert p.snap, "no snapshot: the page never drew"
snap = json.loads(p.snap)
assert set(snap) == set(before), ("not a /v1/status reply", set(snap) ^ set(before))
assert before["uptime_s"] <= snap["uptime_s"] <= after["uptime_s"], "the page's reply is not of this moment"
def at(path):
    v = snap
    for k in path.split("."): v = v[k]
    return v
n_figs = 0
for path, shown in p.figs.items():
    if path == "polls": continue
    want = sum(snap["queue"].values()) if path == "queue" else at(path)
    assert float(shown) == float(want), (path, shown, want)
    n_figs += 1
assert n_figs >= 40, ("too few figures on the page", n_figs)
parts = snap["workers"][0]["partitions"]
for stage, n in snap["stages"].items():
    chips = sorted(p.lanes.get(stage, []))
    want = sorted("%s/%d" % (q["job"], q["index"]) for q in parts if q["stage"] == stage)
    assert chips == want and len(chips) == n, (stage, chips, want, n)
assert int(p.figs["polls"]) >= 2, ("the page did not keep updating", p.figs["polls"])
busy = snap["jobs"]["queued"] + snap["jobs"]["running"]
print("figures %d, polls %s, in flight %d, waiting %d, jobs queued or running %d"
      % (n_figs, p.figs["polls"], len(parts), snap["stages"]["waiting"], busy))
PY
    cat "$work/check$n"
    grep -q "in flight [1-9]" "$work/check$n" && during=$((during + 1))
    # the screenshot while the batch runs (the lanes hold partitions)
    if [ "$n" = 1 ]; then
        shot=$work/live-page.png
        chrome "$url/" /dev/null --hide-scrollbars --window-size=1400,1000 \
            --screenshot="$shot" || true
    fi
}
# Three loads a batch; another batch while none of them caught partitions
# in flight (a fast machine can end a batch between two loads), so the
# lane checks never pass without partitions to check.
during=0 loads=0 batches=0
for batch in 1 2 3; do
    batches=$batch
    jobs=()
    for j in $(seq 12); do submit normal 4; jobs+=("$jid"); done
    for k in 1 2 3; do loads=$((loads + 1)); page_check "$loads"; done
    wait_jobs "${jobs[@]}"
    [ "$during" -ge 1 ] && break
done
echo "page loads that saw partitions in flight: $during of $loads"
[ "$during" -ge 1 ] || fail "no page load saw partitions in flight in $loads loads over 3 batches"

# ---- idle: the page and curl read the same figures ------------------------
for i in $(seq 100); do
    expect 200 GET /v1/status
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["reserved_bytes"] or sum(d["stages"].values()))' "$work/body" && break
    sleep 0.1
done
chrome "$url/" "$work/idle.html" --dump-dom || fail "chromium idle: exit $?"
expect 200 GET /v1/status
python3 - "$work/idle.html" "$work/body" $((12 * batches)) <<'PY' || fail "idle page differs from /v1/status"
import json, re, sys
dom, status = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
jobs_done = int(sys.argv[3])  # 12 a batch
volatile = {"uptime_s", "polls", "rss_anon_bytes", "peak_rss_anon_bytes", "rss_file_bytes",
            "untracked_bytes", "tracked_bytes", "peak_tracked_bytes"}
figs = dict(re.findall(r'data-fig="([^"]+)" data-value="([^"]*)"', dom))
bad = []
for path, shown in figs.items():
    if path in volatile: continue
    v = status
    if path == "queue": v = sum(status["queue"].values())
    else:
        for k in path.split("."): v = v[k]
    if float(shown) != float(v): bad.append((path, shown, v))
assert not bad, bad
assert float(figs["jobs.done"]) == jobs_done, (figs["jobs.done"], jobs_done)
print("idle: %d figures equal" % len(figs))
PY
[ -s "$shot" ] || fail "no screenshot"
[ -z "${PL_PAGE_SCREENSHOT:-}" ] || cp "$shot" "$PL_PAGE_SCREENSHOT"

# ---- status --watch --------------------------------------------------------
expect_exit 0 "$PROOFLINE" status --server "$url" --watch --count 2
[ "$(grep -c '^budget' "$work/stdout")" = 2 ] || fail "--count 2: $(cat "$work/stdout")"
grep -q "^jobs .*done $((12 * batches))," "$work/stdout" || fail "--watch: no jobs line: $(cat "$work/stdout")"
expect_exit 2 "$PROOFLINE" status --server "$url" --count 2
python3 - "$PROOFLINE" "$url" <<'PY' || fail "status --watch in a terminal"
import os, pty, re, select, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "status", "--server", sys.argv[2], "--watch"])
out, deadline = b"", time.time() + 60
while out.count(b"\x1b[H\x1b[2J") < 3 and time.time() < deadline:
    if select.select([fd], [], [], 1)[0]:
        try: out += os.read(fd, 65536)
        except OSError: break
os.write(fd, b"\x03")  # Ctrl-C, through the terminal
while True:
    try:
        chunk = os.read(fd, 65536)
        if not chunk: break
        out += chunk
    except OSError: break
_, status = os.waitpid(pid, 0)
draws = out.count(b"\x1b[H\x1b[2J")
assert draws >= 3, ("redraws", draws, out[-400:])
assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, ("exit", status)
text = re.sub(rb"\x1b\[[0-9;]*[A-Za-z]", b"", out).decode()
long = [l for l in text.replace("\r", "").split("\n") if len(l) > 80]
assert not long, long
print("watch: %d redraws, widest line %d" % (draws, max(len(l) for l in text.replace("\r", "").split("\n"))))
PY

# ---- the Grafana dashboard over this /metrics -----------------------------
expect 200 GET /metrics
python3 - "$root/contrib/grafana/proofline.json" "$work/body" "$work/rules.yml" <<'PY' || fail "grafana dashboard"
import json, re, sys
dash = json.load(open(sys.argv[1]))
metrics = open(sys.argv[2]).read()
types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", metrics, re.M))
labels = {}
for m in re.finditer(r"^([a-z_]+)\{([^}]*)\}", metrics, re.M):
    labels.setdefault(m.group(1), set()).update(re.findall(r'(\w+)="', m.group(2)))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
assert len(exprs) >= 15, len(exprs)
missing, badlabel = [], []
for e in exprs:
    for name in set(re.findall(r"\bproofline_[a-z0-9_]+", e)):
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        if name not in types and not (base in types and types[base] == "histogram"):
            missing.append(name)
    for group, name in re.findall(r"by \(([^)]*)\)[^a-z]*(?:[a-z_]+\()?(proofline_[a-z0-9_]+)", e):
        have = labels.get(name, set()) | {"instance", "job"}
        for l in (x.strip() for x in group.split(",")):
            if l not in have: badlabel.append((name, l))
assert not missing, ("metrics the service does not export", sorted(set(missing)))
assert not badlabel, ("labels those metrics lack", badlabel)
# every query as a recording rule, for promtool to parse
with open(sys.argv[3], "w") as f:
    f.write("groups:\n- name: dashboard\n  rules:\n")
    for i, e in enumerate(exprs):
        e = e.replace("$__rate_interval", "5m").replace("$instance", ".*")
        f.write("  - record: proofline:dashboard_%d\n    expr: %s\n" % (i, json.dumps(e)))
print("grafana: %d queries, %d metrics, all exported" % (len(exprs), len({n for e in exprs for n in re.findall(r"\bproofline_[a-z0-9_]+", e)})))
PY
if command -v promtool >/dev/null; then
    promtool check rules "$work/rules.yml" >"$work/promtool.log" 2>&1 ||
        fail "promtool check rules: $(cat "$work/promtool.log")"
else
    echo "promtool not installed: the queries' syntax is not checked"
fi
stop
[ "$stopped" = 0 ] || fail "serve exit $stopped"

# ---- with a token: the page loads, asks for it, reads nothing without it ---
printf 'live-test-token-0123456789abcdef\n' >"$work/token"
chmod 600 "$work/token"
T=$work/t
start "$T" --token-file "$work/token" || finish x
expect 200 GET /
expect 401 GET /v1/status
chrome "$url/" "$work/token.html" --dump-dom || fail "chromium with a token: exit $?"
grep -q 'id="login" class="on"' "$work/token.html" || fail "the page does not ask for the token"
grep -q 'data-ready="1"' "$work/token.html" && fail "figures drawn without the token"
# a person enters it once: Chromium driven over its DevTools pipe types the
# token into the form; the page draws, the URL never holds it, and a reload
# of the tab draws again without asking
python3 - "$chromium" "$url/" "$(cat "$work/token")" "$work/chrome-cdp" <<'PY' || fail "the page with a token: see above"
import json, os, subprocess, sys, time
chromium, url, token, profile = sys.argv[1:]
to_chrome, from_us = os.pipe()
to_us, from_chrome = os.pipe()
def fds():
    os.dup2(to_chrome, 3); os.dup2(from_chrome, 4)
proc = subprocess.Popen([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile,
                         "--remote-debugging-pipe", "about:blank"],
                        pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
os.close(to_chrome); os.close(from_chrome)
buf, n = b"", [0]
def call(method, params=None, session=None):
    global buf
    n[0] += 1
    msg = {"id": n[0], "method": method, "params": params or {}}
    if session: msg["sessionId"] = session
    os.write(from_us, json.dumps(msg).encode() + b"\0")
    deadline = time.time() + 60
    while time.time() < deadline:
        while b"\0" in buf:
            line, buf = buf.split(b"\0", 1)
            r = json.loads(line)
            if r.get("id") == n[0]:
                assert "error" not in r, (method, r["error"])
                return r["result"]
        buf += os.read(to_us, 1 << 20)
    raise AssertionError("no answer to " + method)
def js(session, expr):
    r = call("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True}, session)
    return r["result"].get("value")
def until(session, expr, what):
    deadline = time.time() + 60
    while time.time() < deadline:
        if js(session, expr): return
        time.sleep(0.2)
    raise AssertionError("never: " + what)
try:
    target = call("Target.createTarget", {"url": url})["targetId"]
    s = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    until(s, "document.getElementById('login').className === 'on'", "the page asks for the token")
    js(s, "document.getElementById('token').value = %s; document.getElementById('tokenform').requestSubmit(); true" % json.dumps(token))
    until(s, "document.body.dataset.ready === '1'", "figures drawn with the token")
    until(s, "Number(document.getElementById('polls').dataset.value) >= 2", "the page keeps updating")
    assert token not in js(s, "location.href"), "the token is in the URL"
    assert js(s, "document.getElementById('token').value") == "", "the token stays in the form"
    jobs = js(s, "document.querySelector('[data-fig=\"jobs.done\"]').dataset.value")
    assert jobs == "0", jobs
    js(s, "location.reload(); true")
    time.sleep(0.5)
    until(s, "document.body && document.body.dataset.ready === '1'", "figures drawn after a reload, without asking again")
    assert js(s, "document.getElementById('login').className") != "on", "asked again after a reload"
    print("token: entered once, figures drawn, kept across a reload, not in the URL")
finally:
    proc.kill(); proc.wait()
PY
stop
[ "$stopped" = 0 ] || fail "serve (token) exit $stopped"
finish "cli_serve_live: ok"
