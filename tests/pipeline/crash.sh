#!/usr/bin/env bash
# crash.sh ZKARENA - SIGKILL a synthesis worker mid-synthesis: another attempt redoes the job;
# SIGKILL gpud mid-proof: the restarted gpud proves the same slot without re-synthesis, and it
# needs no key file (the key's file and cached import removed before the kill: it maps the
# params region);
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
kill_mid_proof "$id"
expect 0 "job DONE after gpud's death" "$ZK" wait "$NAME" "$id" --timeout 60
sc=$(jobjson "$id" synth_count)
[ "$sc" = 1 ] && ok "not re-synthesized (synth_count stays 1)" || ko "synth_count $sc, wanted 1"
check "its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o/b/public.json" "$T/o/b/proof.json"
grep -q "gpud 0 (pid $pid) killed by signal 9" "$T/run.log" && ok "run logs the daemon's death" || ko "run.log lacks it"
# 2b. a restarted gpud opens no key file: after the key's first load, its file and the cached
# import are removed; the gpud killed mid-proof is restarted and proves that job and the next
# one from the params region in /dev/shm alone
cp "$T/bn.zkey" "$T/gone.zkey"
id=$(submit "$T/gone.zkey" "$T/bn.wtns" "$T/o/g1")
expect 0 "gone.zkey: first job DONE (the key loaded once)" "$ZK" wait "$NAME" "$id" --timeout 60
id2=$(submit "$T/gone.zkey" "$T/bn.wtns" "$T/o/g2")
id3=$(submit "$T/gone.zkey" "$T/bn.wtns" "$T/o/g3")
if wait_state "$id2" PROVING 30; then
	rm -f "$T/gone.zkey" && rm -rf "$T/cache" && ok "key file and cached import removed"
	pid=$(jobjson "$id2" owner_pid)
	kill -9 "$pid" && ok "killed gpud $pid mid-proof, its key file gone" || ko "could not kill gpud '$pid'"
else
	ko "job $id2 never reached PROVING"
fi
n=0
for j in "$id2" "$id3"; do "$ZK" wait "$NAME" "$j" --timeout 60 >/dev/null 2>&1 && n=$((n + 1)); done
[ "$n" = 2 ] && ok "the restarted gpud proved both jobs with no key file" || ko "$n of 2 jobs DONE after the restart: $(tail -5 "$T/run.log")"
check "  their proofs verify" sh -c "'$ZK' verify '$T/bn.vk.json' '$T/o/g2/public.json' '$T/o/g2/proof.json' && '$ZK' verify '$T/bn.vk.json' '$T/o/g3/public.json' '$T/o/g3/proof.json'"
[ "$(grep -c "gpud 0 (pid [0-9]*) killed by signal 9" "$T/run.log")" = 2 ] && ok "  two gpud deaths logged (2 and 2b)" || ko "  gpud deaths: $(grep -c 'killed by signal 9' "$T/run.log")"
# 2c. a gpud that ran 2 s is restarted at its life pipe's hangup, before waitpid reports its
# death (its pid is reaped and recovered then, naming the pid that took its place)
pid=$(pgrep -f "zkarena-gpud .* $NAME\$" | head -1)
age=$(ps -o etimes= -p "$pid" 2>/dev/null | tr -d ' ')
age=${age:-0} # (no ps: wait the whole 3 s)
[ "$age" -lt 3 ] && sleep $((3 - age))
kill -9 "$pid" && ok "killed gpud $pid (alive 2 s or more)" || ko "no gpud to kill"
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/d")
expect 0 "a job after the restart DONE" "$ZK" wait "$NAME" "$id" --timeout 60
died=$(grep -n "gpud 0 (pid $pid) died (its life pipe closed)" "$T/run.log" | cut -d: -f1)
reaped=$(grep -n "gpud 0 (pid $pid) killed by signal 9.*took its place" "$T/run.log" | cut -d: -f1)
[ -n "$died" ] && [ -n "$reaped" ] && [ "$died" -lt "$reaped" ] &&
	ok "restarted at the life pipe's hangup, reaped after (log lines $died, $reaped)" ||
	ko "life pipe restart: died line '$died', reaped line '$reaped': $(grep "pid $pid" "$T/run.log")"
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
# 4. a worker that closes its life pipe but runs on is not taken for dead (no second one beside
# it): a stand-in worker closes its descriptors after 2.5 s and sleeps
cat >"$T/closer.sh" <<'EOS'
#!/bin/bash
sleep 2.5
for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
exec sleep 30
EOS
chmod +x "$T/closer.sh"
ZKA_SYNTH_BIN="$T/closer.sh" start_run 1
sleep 4
check "a live worker that closed its life pipe: a WARNING, not a restart" grep -q "WARNING: worker 1 (pid [0-9]*) closed its life pipe but runs on" "$T/run.log"
grep -q "worker 1 restarted as" "$T/run.log" && ko "  a second worker was started: $(tail -3 "$T/run.log")" || ok "  no second worker started"
stop_run
finish
