#!/usr/bin/env bash
# e2e.sh ZKARENA [JOBS] - the cluster end to end on a throwaway PostgreSQL server (pg.sh): the
# schema (idempotent init, bad URL, version mismatch), two arenas each with `zkarena run
# --backend cpu` and a bridge, JOBS (default 200) small jobs of both curves submitted through
# `cluster submit`, one bridge and its pipeline SIGKILLed mid-run and restarted later; then
# every job DONE exactly once (one "done" event per job), every proof verifies, no lease left
# held, a duplicate --request-id returns the first job. Then a bridge that stalls past its
# lease has its result refused, and a database outage is ridden out with backoff.
here=$(cd "$(dirname "$0")" && pwd)
set -uo pipefail
ZK=$1
N=${2:-200}
source "$here/pg.sh"
T=$(mktemp -d /tmp/zka-cluster-XXXXXX)
A=cla$$-$RANDOM
B=clb$$-$RANDOM
declare -A RUN BR
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
expect() { # expect CODE DESCRIPTION CMD...
	local want=$1 what=$2; shift 2
	"$@" >"$T/out" 2>&1
	local got=$?
	if [ "$got" = "$want" ]; then ok "$what"; else ko "$what (exit $got, wanted $want): $(tail -c 400 "$T/out")"; fi
}
cleanup() {
	local p
	for p in "${BR[@]}" "${RUN[@]}"; do [ -n "$p" ] && kill -TERM "$p" 2>/dev/null; done
	for p in "${BR[@]}" "${RUN[@]}"; do [ -n "$p" ] && wait "$p" 2>/dev/null; done
	"$ZK" arena destroy "$A" >/dev/null 2>&1
	"$ZK" arena destroy "$B" >/dev/null 2>&1
	rm -f /dev/shm/zkarena-$A.* /dev/shm/zkarena-$B.* 2>/dev/null
	pg_stop
	rm -rf "$T"
}
trap cleanup EXIT
start_run() { # start_run ARENA
	"$ZK" run "$1" --workers 1 --backend cpu >>"$T/run-$1.log" 2>&1 &
	RUN[$1]=$!
}
start_bridge() { # start_bridge ARENA [ENV...] -- [ARGS...]
	local ar=$1; shift
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	env "${envs[@]}" "$ZK" bridge --db "$PGURL" --arena "$ar" --work "$T/work-$ar" --lease 2 "$@" \
		>>"$T/bridge-$ar.log" 2>&1 &
	BR[$ar]=$!
}
# kill9 ARENA: SIGKILL the bridge, the supervisor and its processes at once
kill9() {
	local pids
	pids="${BR[$1]:-} ${RUN[$1]:-} $(pgrep -f "zkarena-(synth|gpud).* $1\$" | tr '\n' ' ')"
	kill -9 $pids 2>/dev/null
	wait ${BR[$1]:-} ${RUN[$1]:-} 2>/dev/null
	BR[$1]=
	RUN[$1]=
}
wait_sql() { # wait_sql SECONDS QUERY WANT: until QUERY prints WANT
	local i
	for i in $(seq 1 $(($1 * 10))); do
		[ "$(sql "$2" 2>/dev/null)" = "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

pg_start "$T/db" || { echo "FAIL PostgreSQL did not start"; exit 1; }
echo "     (PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') as $( [ "$(id -u)" = 0 ] && echo nobody || id -un), $N jobs)"

# ---- schema ----
expect 2 "status before init: no schema, exit 2" "$ZK" cluster status --db "$PGURL"
grep -q "cluster init" "$T/out" && [ "$(wc -l <"$T/out")" = 1 ] && ok "... one line naming the fix" || ko "no-schema message: $(cat "$T/out")"
expect 0 "cluster init" "$ZK" cluster init --db "$PGURL"
grep -q "created" "$T/out" && ok "init created version 1" || ko "init said: $(cat "$T/out")"
expect 0 "cluster init again (idempotent)" "$ZK" cluster init --db "$PGURL"
grep -q "already up to date" "$T/out" && ok "second init changed nothing" || ko "second init said: $(cat "$T/out")"
[ "$(sql "SELECT count(*) || ':' || max(version) FROM zka_schema")" = "1:1" ] && ok "zka_schema holds one row, version 1" || ko "zka_schema: $(sql "SELECT * FROM zka_schema")"
expect 2 "bad URL: exit 2" "$ZK" cluster status --db "postgresql://[nope"
[ "$(wc -l <"$T/out")" = 1 ] && grep -q "bad database URL" "$T/out" && ok "... one line" || ko "bad URL said: $(cat "$T/out")"
expect 2 "unreachable server: exit 2" "$ZK" cluster submit --db "postgresql:///x?host=$T/nonexistent" "$here/pg.sh" "$here/pg.sh" --out "$T"
sql "UPDATE zka_schema SET version = 99" >/dev/null
expect 2 "schema version mismatch: exit 2" "$ZK" cluster status --db "$PGURL"
[ "$(wc -l <"$T/out")" = 1 ] && grep -q "version mismatch.*99" "$T/out" && ok "... one line naming both versions" || ko "mismatch said: $(cat "$T/out")"
expect 2 "init refuses a newer schema" "$ZK" cluster init --db "$PGURL"
expect 2 "a bridge refuses a schema mismatch" "$ZK" bridge --db "$PGURL" --arena "$A"
sql "UPDATE zka_schema SET version = 1" >/dev/null

# ---- keys, arenas, pipelines, bridges ----
for c in bn128:bn bls12381:bls; do
	"$ZK" circuit --curve "${c%%:*}" --constraints 300 --public 2 --seed $RANDOM "$T/${c##*:}.r1cs" "$T/${c##*:}.wtns" >/dev/null &&
		"$ZK" setup --insecure --seed $RANDOM "$T/${c##*:}.r1cs" "$T/${c##*:}.zkey" "$T/${c##*:}.vk.json" >/dev/null 2>&1 ||
		{ echo "FAIL keys ${c%%:*}"; exit 1; }
done
for ar in "$A" "$B"; do
	"$ZK" arena create "$ar" --slots 2 --slot-bytes 1M --jobs 64 >/dev/null || { echo "FAIL arena create"; exit 1; }
	start_run "$ar"
done

# ---- N jobs of both curves, queued before the bridges start ----
ids=()
t0=$SECONDS
for i in $(seq 1 "$N"); do
	k=bn
	[ $((i % 2)) = 0 ] && k=bls
	mkdir -p "$T/o/$i"
	ids+=("$("$ZK" cluster submit --db "$PGURL" "$T/$k.zkey" "$T/$k.wtns" --out "$T/o/$i" --request-id "req-$i" 2>>"$T/submit.err" | tail -1)")
done
# the bridges start once the queue is full (on 2 cores the submits would otherwise trail the
# provers, and bridge A would hold no lease when it is killed)
start_bridge "$A"
start_bridge "$B"
# mid-run: bridge A and its pipeline die once a third is done, while A holds leases; they are
# restarted when two thirds are done (by then A's leases have expired and B took them over)
wait_sql 60 "SELECT count(*) >= $((N / 3)) FROM zka_jobs WHERE state = 'DONE'" t
wait_sql 30 "SELECT count(*) > 0 FROM zka_jobs WHERE state = 'LEASED' AND lease_owner LIKE '%/$A'" t
KILLED_HELD=$(sql "SELECT count(*) FROM zka_jobs WHERE state = 'LEASED' AND lease_owner LIKE '%/$A'")
kill9 "$A"
echo "     (SIGKILLed bridge $A and its pipeline holding $KILLED_HELD lease(s) after $((SECONDS - t0)) s, $(sql "SELECT count(*) FROM zka_jobs WHERE state = 'DONE'") jobs DONE)"
good=$(printf '%s\n' "${ids[@]}" | grep -c '^[0-9][0-9]*$')
[ "$good" = "$N" ] && ok "$N jobs submitted (ids on the last line)" || ko "$good of $N submits printed an id: $(tail -3 "$T/submit.err")"
dup=$("$ZK" cluster submit --db "$PGURL" "$T/bn.zkey" "$T/bn.wtns" --out "$T/o/1" --request-id req-1 2>"$T/dup.err" | tail -1)
[ "$dup" = "${ids[0]}" ] && ok "a duplicate --request-id returns the first job ($dup)" || ko "duplicate request id gave '$dup', first was ${ids[0]}"
grep -q "nothing queued" "$T/dup.err" && ok "... and says nothing was queued" || ko "duplicate said: $(cat "$T/dup.err")"
[ "$(sql "SELECT count(*) FROM zka_jobs WHERE request_id LIKE 'req-%'")" = "$N" ] && ok "still $N rows" || ko "rows: $(sql "SELECT count(*) FROM zka_jobs")"
# restart A once its leases have expired (lease 2 s) and two thirds are done
wait_sql 120 "SELECT count(*) >= $((2 * N / 3)) FROM zka_jobs WHERE state = 'DONE'" t
sleep 1
start_run "$A"
start_bridge "$A"
echo "     (restarted $A after $((SECONDS - t0)) s)"

done_n=0
for id in "${ids[@]}"; do
	"$ZK" cluster wait --db "$PGURL" "$id" --timeout 120 >>"$T/wait.log" 2>&1 && done_n=$((done_n + 1))
done
echo "     (all waited for after $((SECONDS - t0)) s)"
[ "$done_n" = "$N" ] && ok "all $N jobs DONE (cluster wait exit 0)" || ko "$done_n of $N waits returned DONE: $(grep -v DONE "$T/wait.log" | tail -3)"
bad=0
for i in $(seq 1 "$N"); do
	k=bn
	[ $((i % 2)) = 0 ] && k=bls
	"$ZK" verify "$T/$k.vk.json" "$T/o/$i/public.json" "$T/o/$i/proof.json" >/dev/null 2>&1 || bad=$((bad + 1))
done
[ "$bad" = 0 ] && ok "all $N proofs verify ($((N / 2 + N % 2)) BN254, $((N / 2)) BLS12-381)" || ko "$bad proofs do not verify"
[ "$(sql "SELECT count(*) FROM zka_jobs WHERE state = 'DONE' AND proof IS NOT NULL")" = "$N" ] && ok "$N rows DONE with their proof" || ko "DONE rows: $(sql "SELECT state, count(*) FROM zka_jobs GROUP BY state")"
once=$(sql "SELECT count(*) FROM (SELECT job_id FROM zka_events WHERE kind = 'done' GROUP BY job_id HAVING count(*) = 1) x")
more=$(sql "SELECT count(*) FROM (SELECT job_id FROM zka_events WHERE kind = 'done' GROUP BY job_id HAVING count(*) > 1) x")
[ "$once" = "$N" ] && [ "$more" = 0 ] && ok "every job DONE exactly once (one done event each)" || ko "done once: $once, more than once: $more"
[ "$(sql "SELECT count(*) FROM zka_jobs WHERE lease_owner IS NOT NULL OR lease_token IS NOT NULL OR lease_expires IS NOT NULL OR state = 'LEASED'")" = 0 ] &&
	ok "no lease left held" || ko "leases held: $(sql "SELECT id, state, lease_owner FROM zka_jobs WHERE lease_owner IS NOT NULL")"
back=$(sql "SELECT count(*) FROM zka_events WHERE kind IN ('expired', 'released') AND node LIKE '%/$A'")
[ "$back" -ge 1 ] && ok "leases of the killed bridge went back to the queue ($back expired or given back at restart)" ||
	ko "no lease of the killed bridge went back (it held $KILLED_HELD)"
open=$(sql "SELECT count(*) FROM zka_events c WHERE c.kind = 'claim' AND NOT EXISTS (SELECT 1 FROM zka_events e
	WHERE e.token = c.token AND e.kind IN ('done', 'failed', 'expired', 'released'))")
[ "$open" = 0 ] && ok "every lease granted ended in a result or back in the queue" || ko "$open leases never ended"
for ar in "$A" "$B"; do
	d=$(sql "SELECT count(*) FROM zka_jobs WHERE done_by LIKE '%/$ar'")
	[ "$d" -ge 1 ] && ok "node $ar proved $d jobs" || ko "node $ar proved none"
done
"$ZK" cluster status --db "$PGURL" >"$T/status.out" 2>&1 && grep -q "DONE $N " "$T/status.out" && ok "cluster status: DONE $N" || ko "status: $(cat "$T/status.out")"
"$ZK" cluster status --db "$PGURL" "${ids[0]}" | grep -q "DONE" && ok "cluster status JOB" || ko "cluster status JOB"
# a directory no lease or arena job names (a predecessor killed between mkdir and submit)
mkdir -p "$T/work-$B/999999-1" && echo x >"$T/work-$B/999999-1/proof.json"
# a bridge removes a job's directory after writing its row, and a killed predecessor's leftovers
# at its next sweep (every 2 s): allow it 10 s
for i in $(seq 1 100); do
	left=$(find "$T/work-$A" "$T/work-$B" -mindepth 1 2>/dev/null | wc -l)
	[ "$left" = 0 ] && break
	sleep 0.1
done
[ "$left" = 0 ] && ok "the bridges' work directories are empty" || ko "$left files left in the work directories: $(find "$T/work-$A" "$T/work-$B" -mindepth 1 | head -4 | tr '\n' ' ')"

# ---- a lease stolen after expiry: the late result is refused ----
kill -TERM "${BR[$A]}" "${BR[$B]}" 2>/dev/null
wait "${BR[$A]}"
ra=$?
wait "${BR[$B]}"
rb=$?
BR[$A]=
BR[$B]=
[ "$ra:$rb" = 0:0 ] && ok "both bridges stop on SIGTERM with exit 0" || ko "bridges exited $ra and $rb on SIGTERM: $(tail -c 300 "$T/bridge-$A.log")"
start_bridge "$A" ZKA_BRIDGE_STALL_MS=5000 -- --node staller --lease 1
mkdir -p "$T/o/late"
late=$("$ZK" cluster submit --db "$PGURL" "$T/bls.zkey" "$T/bls.wtns" --out "$T/o/late" | tail -1)
wait_sql 20 "SELECT lease_owner FROM zka_jobs WHERE id = $late" staller && ok "the stalling bridge leased job $late" || ko "job $late not leased by the staller"
tok1=$(sql "SELECT coalesce(lease_token, 0) FROM zka_jobs WHERE id = $late")
start_bridge "$B"
expect 0 "job $late DONE" "$ZK" cluster wait --db "$PGURL" "$late" --timeout 30
"$ZK" verify "$T/bls.vk.json" "$T/o/late/public.json" "$T/o/late/proof.json" >/dev/null 2>&1 && ok "its proof verifies" || ko "its proof does not verify"
[ "$(sql "SELECT done_by FROM zka_jobs WHERE id = $late")" != staller ] && ok "it was finished by the other bridge" || ko "finished by the staller"
for i in $(seq 1 300); do grep -q "result refused" "$T/bridge-$A.log" && break; sleep 0.1; done
grep -q "job $late: result refused" "$T/bridge-$A.log" && ok "the stalled bridge's late result was refused" || ko "no refusal in the staller's log: $(tail -3 "$T/bridge-$A.log")"
[ "$(sql "SELECT count(*) FROM zka_events WHERE job_id = $late AND kind = 'refused' AND node = 'staller' AND token = $tok1")" = 1 ] &&
	ok "... recorded as a refused event for its lease token" || ko "refused events: $(sql "SELECT kind, node, token FROM zka_events WHERE job_id = $late")"
[ "$(sql "SELECT count(*) FROM zka_events WHERE job_id = $late AND kind = 'done'")" = 1 ] && ok "job $late DONE exactly once" || ko "job $late done events: $(sql "SELECT count(*) FROM zka_events WHERE job_id = $late AND kind = 'done'")"
"$ZK" cluster status --db "$PGURL" | awk '$1 == "staller" { print $8 }' | grep -qx 1 && ok "cluster status shows the refusal" || ko "status: $("$ZK" cluster status --db "$PGURL" | grep staller)"

# ---- the database goes away and comes back ----
pg_stop
sleep 1.5
"$ZK" bridge --status --arena "$B" | grep -q "database UNREACHABLE" && ok "bridge status: database unreachable" || ko "bridge status: $("$ZK" bridge --status --arena "$B")"
expect 2 "submit with the database down: exit 2" "$ZK" cluster submit --db "$PGURL" "$T/bn.zkey" "$T/bn.wtns" --out "$T/o/1"
pg_start_again || ko "PostgreSQL did not restart"
for i in $(seq 1 80); do "$ZK" bridge --status --arena "$B" | grep -q "database OK" && break; sleep 0.1; done
"$ZK" bridge --status --arena "$B" | grep -q "database OK" && ok "the bridge reconnected" || ko "bridge status: $("$ZK" bridge --status --arena "$B")"
mkdir -p "$T/o/after"
after=$("$ZK" cluster submit --db "$PGURL" "$T/bn.zkey" "$T/bn.wtns" --out "$T/o/after" | tail -1)
expect 0 "a job after the outage is DONE" "$ZK" cluster wait --db "$PGURL" "$after" --timeout 30
wait_sql 10 "SELECT db_outages >= 1 FROM zka_nodes WHERE name LIKE '%/$B'" t && ok "the outage is counted in the node's row" || ko "outages: $(sql "SELECT name, db_outages FROM zka_nodes")"
# ---- a job no node can run: given back by each lease, FAILED with the reason ----
# (no bridge runs while it is queued and its witness removed, or one might prove it first)
kill -TERM "${BR[$A]}" "${BR[$B]}" 2>/dev/null
wait "${BR[$A]}" "${BR[$B]}" 2>/dev/null
cp "$T/bn.wtns" "$T/gone.wtns"
mkdir -p "$T/o/gone"
gone=$("$ZK" cluster submit --db "$PGURL" "$T/bn.zkey" "$T/gone.wtns" --out "$T/o/gone" --max-attempts 2 | tail -1)
rm -f "$T/gone.wtns"
start_bridge "$B"
expect 1 "a job whose witness vanished: cluster wait exit 1" "$ZK" cluster wait --db "$PGURL" "$gone" --timeout 30
grep -q "FAILED: gave up after 2 leases.*gone.wtns" "$T/out" && ok "... with the reason, after its 2 leases" || ko "wait said: $(cat "$T/out")"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
