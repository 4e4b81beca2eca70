#!/usr/bin/env bash
# chaos.sh ZKARENA [JOBS] [BACKEND] [CURVE] - JOBS (default 200) proofs while a killer SIGKILLs a
# random worker or the daemon every 0.2-1 s: every job DONE exactly once with a proof that
# verifies, no slot leaked, nothing written twice, nothing stuck. Bounded: gives up after 240 s.
# BACKEND: gpud's (cpu, the default, or cuda on a GPU machine); CURVE: bn128 (default) or
# bls12381. Needs no node, so that it runs on a GPU machine without it.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
N=${2:-200}
RUN_BACKEND=${3:-cpu}
curve=${4:-bn128}
echo "     (backend $RUN_BACKEND, curve $curve)"
keys "$curve" 200 bn || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 4 --slot-bytes 1M --jobs 256 --max-attempts 50
# the test hooks widen each synthesis and proof a little (30 ms, 90 ms) so that the run lasts
# long enough for the killer to land mid-operation many times however fast the prover is (at
# 60 ms, once a process that lived 2 s came back without the 100 ms backoff, a 200-job run on
# the 2-core box took 9 strikes, one short of N / 20)
start_run 3 ZKA_SYNTH_DELAY_MS=30 ZKA_PROVE_DELAY_MS=90
ids=()
for i in $(seq 1 "$N"); do ids+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/$i")"); done
[ "${#ids[@]}" = "$N" ] && ok "$N jobs submitted" || ko "submitted ${#ids[@]} of $N"
# the killer: the first and every fourth strike after it at the daemon (so that even a short
# run kills it: a 30-job run on the GPU once ended after three strikes, none at the daemon),
# the others at a random worker or the daemon
(
	k=0
	while :; do
		sleep "0.$((2 + RANDOM % 8))"
		k=$((k + 1))
		who="zkarena-(synth|gpud)"
		[ $((k % 4)) = 1 ] && who=zkarena-gpud
		mapfile -t pids < <(pgrep -f "$who.* $NAME\$")
		[ "${#pids[@]}" -gt 0 ] && kill -9 "${pids[RANDOM % ${#pids[@]}]}" 2>/dev/null
	done
) &
killer=$!
deadline=$((SECONDS + 240))
done_n=0
for i in $(seq 1 "$N"); do
	left=$((deadline - SECONDS))
	[ "$left" -lt 1 ] && left=1
	if "$ZK" wait "$NAME" "${ids[$((i - 1))]}" --timeout "$left" >/dev/null 2>&1; then done_n=$((done_n + 1)); fi
done
kill "$killer" 2>/dev/null
wait "$killer" 2>/dev/null
kills=$(grep -c "killed by signal 9" "$T/run.log")
dkills=$(grep "killed by signal 9" "$T/run.log" | grep -c "zkarena run: gpud ")
echo "     ($kills processes SIGKILLed during the run, $dkills of them the daemon)"
min=$((N / 20 > 3 ? N / 20 : 3))
[ "$kills" -ge "$min" ] && ok "the killer struck $kills times" || ko "only $kills kills (wanted >= $min)"
# every fourth strike, the first included, is aimed at the daemon (it may be restarting then,
# and is not hit)
[ "$dkills" -ge $((kills / 8)) ] && [ "$dkills" -ge 1 ] && ok "the daemon was killed $dkills times" ||
	ko "the daemon was killed $dkills times of $kills (wanted >= 1 and >= $((kills / 8)))"
[ "$done_n" = "$N" ] && ok "all $N jobs DONE" || ko "$done_n of $N jobs DONE"
bad=0
for i in $(seq 1 "$N"); do
	"$ZK" verify "$T/bn.vk.json" "$T/o/$i/public.json" "$T/o/$i/proof.json" >/dev/null 2>&1 || bad=$((bad + 1))
done
[ "$bad" = 0 ] && ok "all $N proofs verify" || ko "$bad proofs do not verify"
extra=$(find "$T/o" -name '*.tmp*' | wc -l)
[ "$extra" = 0 ] && ok "no temporary files left" || ko "$extra temporary files left"
multi=$(for i in $(seq 1 "$N"); do ls -A "$T/o/$i" | grep -c '^\.zkarena-job-'; done | grep -vc '^1$')
[ "$multi" = 0 ] && ok "each output directory holds exactly one job's marker" || ko "$multi directories with 0 or several markers"
twice=$(grep -c "already written before a crash" "$T/run.log")
echo "     ($twice jobs finished from their marker after the daemon died between writing and DONE)"
stop_run
check "arena invariants hold" "$ZK" arena check "$NAME"
# "slot states (now/entered): FREE 4/.. ..." and "job states (now/entered): .. DONE 200/.. .."
free=$("$ZK" arena status "$NAME" | awk '/^slot states/ { for (i = 1; i < NF; i++) if ($i == "FREE") { split($(i + 1), a, "/"); f = a[1] } }
	/^job states/ { for (i = 1; i < NF; i++) if ($i == "DONE") { split($(i + 1), a, "/"); d = a[1] } } END { print f " " d }')
[ "$free" = "4 $N" ] && ok "no slot leaked, $N jobs DONE in the table" || ko "FREE slots / DONE jobs: $free"
finish
