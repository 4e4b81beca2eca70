#!/usr/bin/env bash
# crash.sh ZKARENA - SIGKILL a synthesis worker mid-synthesis: another attempt redoes the job;
# SIGKILL gpud mid-proof: the restarted gpud proves the same slot without re-synthesis;
# SIGKILL the supervisor (zkarena run) with jobs in every state: its children go too, and a
# new `zkarena run` finishes every job.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
keys bn128 500 bn || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 2 --slot-bytes 1M
start_run 1 ZKA_SYNTH_DELAY_MS=1500 ZKA_PROVE_DELAY_MS=1500
# 1. a worker killed mid-synthesis
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/a")
if wait_state "$id" SYNTHESIZING 20; then
	pid=$(jobjson "$id" owner_pid)
	kill -9 "$pid" && ok "killed worker $pid mid-synthesis" || ko "could not kill worker '$pid'"
else
	ko "job never reached SYNTHESIZING"
fi
expect 0 "job DONE after the worker's death" "$ZK" wait "$NAME" "$id" --timeout 60
sc=$(jobjson "$id" synth_count)
[ "$sc" = 2 ] && ok "synthesized twice (once per attempt)" || ko "synth_count $sc, wanted 2"
check "its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o/a/public.json" "$T/o/a/proof.json"
grep -q "worker 1 (pid $pid) killed by signal 9" "$T/run.log" && ok "run logs who died" || ko "run.log lacks the death: $(tail -5 "$T/run.log")"
# 2. gpud killed mid-proof
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/b")
if wait_state "$id" PROVING 30; then
	pid=$(jobjson "$id" owner_pid)
	sleep 0.3
	kill -9 "$pid" && ok "killed gpud $pid mid-proof" || ko "could not kill gpud '$pid'"
else
	ko "job never reached PROVING"
fi
expect 0 "job DONE after gpud's death" "$ZK" wait "$NAME" "$id" --timeout 60
sc=$(jobjson "$id" synth_count)
[ "$sc" = 1 ] && ok "not re-synthesized (synth_count stays 1)" || ko "synth_count $sc, wanted 1"
check "its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o/b/public.json" "$T/o/b/proof.json"
grep -q "gpud 0 (pid $pid) killed by signal 9" "$T/run.log" && ok "run logs the daemon's death" || ko "run.log lacks it"
stop_run
# 3. the supervisor killed while 8 jobs are queued, synthesizing and proving
start_run 2 ZKA_SYNTH_DELAY_MS=200 ZKA_PROVE_DELAY_MS=400
ids=()
for i in $(seq 1 8); do ids+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/c$i")"); done
# until some job is proving (whichever the two workers finished first): one status call per
# poll, so that a loaded machine still sees a 400 ms proof (a per-job poll of the first job
# missed it once on a busy 2-core box)
proving=0
for i in $(seq 1 600); do
	"$ZK" status "$NAME" 2>/dev/null | grep -q "PROVING [1-9]" && { proving=1; break; }
	sleep 0.05
done
[ "$proving" = 1 ] && ok "a job is proving" || ko "no job reached PROVING within 30 s: $("$ZK" status "$NAME" 2>&1 | head -3)"
disown "$RUN_PID" # no job-control notice for it
kill -9 "$RUN_PID" && ok "killed the supervisor $RUN_PID"
for i in $(seq 1 100); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.05; done
RUN_PID=
# its children get SIGTERM from the kernel (PR_SET_PDEATHSIG) and finish what they hold
left=1
for i in $(seq 1 100); do
	pgrep -f "zkarena-(synth|gpud).* $NAME\$" >/dev/null || { left=0; break; }
	sleep 0.1
done
[ "$left" = 0 ] && ok "its children are gone within 10 s" || ko "children outlived the supervisor: $(pgrep -fa "zkarena-(synth|gpud).* $NAME\$")"
start_run 2
n=0
for id in "${ids[@]}"; do "$ZK" wait "$NAME" "$id" --timeout 60 >/dev/null && n=$((n + 1)); done
[ "$n" = 8 ] && ok "a new zkarena run finished all 8 jobs" || ko "$n of 8 jobs DONE after the restart"
v=0
for i in $(seq 1 8); do "$ZK" verify "$T/bn.vk.json" "$T/o/c$i/public.json" "$T/o/c$i/proof.json" >/dev/null 2>&1 && v=$((v + 1)); done
[ "$v" = 8 ] && ok "their proofs verify" || ko "$v of 8 proofs verify"
stop_run
check "arena invariants hold" "$ZK" arena check "$NAME"
finish
