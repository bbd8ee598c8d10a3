# SPDX-License-Identifier: Apache-2.0
# `proofline serve --workers 1` killed (SIGKILL) 10 times at random moments
# while 40 keyed jobs of two circuits are submitted and proved, restarted on
# the same data each time.  An acknowledged job must survive that:
#  - 40 of 40 keyed jobs done, none failed, each key one job;
#  - no partition done twice (completions = 1), every proof verified by
#    `proofline verify` against its circuit's key;
#  - at each kill the worker held at most one claim more than the
#    partitions its engine had admitted (it claims only what the engine can
#    admit now), and exactly the admitted ones were charged an attempt (the
#    store's attempts rows say "while it was proving the partition"), the
#    others released for nothing;
#  - no temporary file left in the data folder.
# A partition running at every kill would rightly end failed after its
# third attempt (one that kills its worker each time must not go round for
# ever), so a kill waits until no partition still to do has been charged
# twice; the kills' moments are otherwise random (the seed is printed; set
# PL_SEED to replay one).  The figures (claims at each kill, attempts
# charged) are printed for docs and notes.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: the sqlite3 command is missing"; exit 77; }
zkey=$VECTORS/chain10/circuit.zkey
wtns=$VECTORS/chain10/witness.wtns
vkey=$VECTORS/chain10/verification_key.json
. "$(dirname "$0")/serve_lib.sh"

data=$work/data
seed=${PL_SEED:-$RANDOM}
RANDOM=$seed
echo "seed $seed"
sq() { sqlite3 -cmd '.timeout 30000' "$data/store.sqlite" "$@"; }
serve() { start "$data" --workers 1 --pw 2 --threads 1 --lease 5s; }

serve || finish x
register 201; cid_a=$cid
zkey=$VECTORS/pow2exact/circuit.zkey
register 201; cid_b=$cid
wtns_of() { if [ $(($1 % 2)) = 1 ]; then echo "$VECTORS/chain10/witness.wtns"; else echo "$VECTORS/pow2exact/witness.wtns"; fi; }
vkey_of() { if [ $(($1 % 2)) = 1 ]; then echo "$VECTORS/chain10/verification_key.json"; else echo "$VECTORS/pow2exact/verification_key.json"; fi; }
cid_of() { if [ $(($1 % 2)) = 1 ]; then echo "$cid_a"; else echo "$cid_b"; fi; }

# ---- the submitter: 40 keyed jobs of 3 partitions, each retried with its
# key until it is acknowledged (202 the first time, 200 for a retry), on
# whatever port the server of the moment listens --------------------------------
parts=3
submitter() {
    local i code w tries
    set +e
    for i in $(seq 40); do
        w=$(wtns_of "$i")
        for tries in $(seq 600); do
            code=$(curl -sS --max-time 60 -o "$work/sub.body" -w '%{http_code}' \
                -H "Idempotency-Key: restart-$i" \
                -F "spec={\"circuit\": \"$(cid_of "$i")\", \"partitions\": $parts};type=application/json" \
                -F "witness=@$w" -F "witness=@$w" -F "witness=@$w" \
                "http://$(cat "$data/listen.addr" 2>/dev/null)/v1/jobs" 2>/dev/null)
            case $code in
            200|202) echo "$i $(first "$work/sub.body" id) $code" >>"$work/acked"; break ;;
            000|503) sleep 0.1 ;; # the server is down or starting: again
            *) echo "job $i: $code $(head -c 300 "$work/sub.body")" >>"$work/sub.fail"; break ;;
            esac
        done
    done
    echo done >"$work/sub.end"
}
submitter &
sub_pid=$!

# ---- 10 kills ------------------------------------------------------------------
# no partition still to do with two attempts charged: the next kill cannot
# be its third
charged_done() {
    [ "$(sq "SELECT count(*) FROM (SELECT a.job_id FROM attempts a JOIN partitions p ON p.job_id = a.job_id AND p.idx = a.idx WHERE p.state <> 'done' GROUP BY a.job_id, a.idx HAVING count(*) >= 2)")" = 0 ]
}
kills=0 busy_kills=0 max_claimed=0 started_sum=0
figures=""
while [ "$kills" -lt 10 ]; do
    ms=$((200 + RANDOM % 1300))
    sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
    kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=""
    kills=$((kills + 1))
    claimed=$(sq "SELECT count(*) FROM partitions WHERE state = 'claimed'")
    started=$(sq "SELECT count(*) FROM partitions WHERE state = 'claimed' AND started_ms > 0")
    waiting=$(sq "SELECT count(*) FROM partitions WHERE state IN ('queued', 'claimed')")
    [ "$waiting" = 0 ] || busy_kills=$((busy_kills + 1))
    [ "$claimed" -le "$max_claimed" ] || max_claimed=$claimed
    started_sum=$((started_sum + started))
    figures="$figures ${claimed}/${started}"
    [ "$claimed" -le $((started + 1)) ] ||
        fail "kill $kills: $claimed claims held, $started of them admitted (a claim beyond the engine's room)"
    serve || finish x
    for i in $(seq 600); do charged_done && break; sleep 0.1; done
    charged_done || fail "kill $kills: the partitions charged twice are not done after 60 s"
done
echo "kills: $kills ($busy_kills with work left); claims/admitted at each kill:$figures"

# ---- every acknowledged job done, once ------------------------------------------
wait "$sub_pid" || true
[ -s "$work/sub.end" ] || fail "the submitter did not end"
[ ! -s "$work/sub.fail" ] || fail "submissions refused: $(cat "$work/sub.fail")"
[ "$(wc -l <"$work/acked")" = 40 ] || fail "$(wc -l <"$work/acked") of 40 jobs acknowledged"
[ "$(cut -d' ' -f1 "$work/acked" | sort -u | wc -l)" = 40 ] || fail "a job acknowledged twice: $(cat "$work/acked")"
odd=() even=()
while read -r i j code; do
    wait_jobs "$j"
    if [ $((i % 2)) = 1 ]; then odd+=("$j"); else even+=("$j"); fi
done <"$work/acked"
check_all_proofs "$(vkey_of 1)" "$parts" "${odd[@]}"
check_all_proofs "$(vkey_of 2)" "$parts" "${even[@]}"
[ "$(sq "SELECT count(*) FROM jobs")" = 40 ] || fail "$(sq "SELECT count(*) FROM jobs") jobs in the store for 40 keys"
[ "$(sq "SELECT count(*) FROM jobs WHERE state <> 'done'")" = 0 ] ||
    fail "jobs not done: $(sq "SELECT id, state, error FROM jobs WHERE state <> 'done'")"
[ "$(sq "SELECT count(*) FROM partitions WHERE completions <> 1")" = 0 ] ||
    fail "a partition completed other than once"
charged=$(sq "SELECT count(*) FROM attempts")
[ "$(sq "SELECT count(*) FROM attempts WHERE error NOT LIKE '%while it was proving the partition%'")" = 0 ] ||
    fail "an attempt charged for other than a proof in flight: $(sq "SELECT error FROM attempts")"
# each claim admitted at a kill is one attempt, and nothing else is
[ "$charged" = "$started_sum" ] ||
    fail "$charged attempts charged, $started_sum claims were admitted at the kills"
echo "attempts charged: $charged over $kills kills (the admitted claims), at most $max_claimed claims held at a kill," \
    "$(sq "SELECT count(*) FROM (SELECT 1 FROM attempts GROUP BY job_id, idx HAVING count(*) = 2)") partitions charged twice"

stop
[ "$stopped" = 0 ] || fail "SIGTERM: exit $stopped"
left=$(find "$data" -name '*.tmp*' | head -5)
[ -z "$left" ] || fail "temporaries left: $left"
finish "cli_serve_restarts: ok"
