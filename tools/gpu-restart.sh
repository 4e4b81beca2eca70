#!/bin/bash
# gpu-restart.sh BINDIR OUTDIR [CURVE:LOG2] - issue 18's restart on a GPU machine: how long a
# SIGKILLed cuda gpud takes to prove again. Prebuilt binaries in BINDIR/bin (libraries in
# BINDIR/lib, tools/gpu-lib.sh). A random circuit of 2^LOG2 (default bn128:22) and its key
# (`setup --insecure --gpu`, then `import` to a .zka), an arena and `zkarena run --backend cuda`,
# 3 jobs proved (the first loads the key); then 3 times: the gpud stopped (SIGSTOP), a job
# submitted and synthesized until its slot is READY, the gpud SIGKILLed, and the time from the
# kill to that job DONE (the supervisor restarts the gpud: CUDA init, slot registration, the
# params region registered, the key uploaded, the proof, while the window tables build behind
# it). The proof's verification comes after the clock stops. Prints a table with the key's
# size and, per restart, the gpud log's CUDA start, slot and key registration, upload (GB/s)
# and window-table figures;
# logs under OUTDIR. About 1-2 minutes at bn128:22 on an H200 (most of it circuit, setup and
# import). Exit 0 when every job is DONE and verifies. A dry run of the script on a machine
# without a GPU: GPU_RESTART_BACKEND=cpu GPU_LIB_SETUP= tools/gpu-restart.sh BINDIR OUT bn128:12
# (the cpu backend has no key upload: its table columns stay "-").
set -u
B=$1 OUT=$2
IFS=: read -r CURVE LG <<<"${3:-bn128:22}"
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, ok/ko, gpu_machine, gpu_random_key
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export ZKARENA_CACHE=$OUT/cache
gpu_machine
t0=$(date +%s)
# a caller may provide the key already (c.zkey, c.wtns, vk.json, c.zka in OUTDIR)
[ -f "$OUT/c.zkey" ] || gpu_random_key "$CURVE" "$LG" "$OUT" || exit 1
[ -f "$OUT/c.zka" ] || "$ZK" import "$OUT/c.zkey" -o "$OUT/c.zka" >"$OUT/import.log" 2>&1 || { echo "FAIL import: $(tail -1 "$OUT/import.log")"; exit 1; }
KB=$(stat -c %s "$OUT/c.zka")
echo "key: $CURVE 2^$LG, .zka $KB bytes ($((KB >> 20)) MiB); circuit, setup and import $(($(date +%s) - t0)) s"
A=restart$$
"$ZK" arena create "$A" --slots 4 --slot-bytes $((160 << LG)) >/dev/null || exit 1
rm -f /dev/shm/zkarena-"$A".gpud*-status
# each log line stamped with the time it arrived (CLOCK_REALTIME, as date +%s.%N below)
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done; }
"$ZK" run "$A" --workers 2 --backend "${GPU_RESTART_BACKEND:-cuda}" > >(stamp >"$OUT/run.log") 2>&1 &
runpid=$!
cleanup() {
	kill -TERM "$runpid" 2>/dev/null && wait "$runpid" 2>/dev/null
	"$ZK" arena destroy "$A" >/dev/null 2>&1
	rm -f /dev/shm/zkarena-"$A".gpud*-status
}
trap cleanup EXIT
job() { # job N: submits job N (outputs in OUT/o/N), prints its id
	mkdir -p "$OUT/o/$1"
	"$ZK" submit "$A" "$OUT/c.zka" "$OUT/c.wtns" --out "$OUT/o/$1" | tail -1
}
done_ok() { # done_ok ID N: DONE within 120 s and its proof verifies
	"$ZK" wait "$A" "$1" --timeout 120 >/dev/null && verifies "$2"
}
verifies() { "$ZK" verify "$OUT/vk.json" "$OUT/o/$1/public.json" "$OUT/o/$1/proof.json" >/dev/null; }
for i in 1 2 3; do
	id=$(job w$i)
	done_ok "$id" w$i && ok "warm-up job $i DONE, verifies" || ko "warm-up job $i"
done
gpud_pid() { pgrep -f "zkarena-gpud .*$A\$" | head -1; }
keylines() { grep -c "key on the device" "$OUT/run.log"; }
rows=() phases=()
for r in 1 2 3; do
	sleep 2.2 # the supervisor restarts a gpud that lived 2 s at once (no backoff)
	g=$(gpud_pid)
	[ -n "$g" ] || { ko "restart $r: no gpud running"; break; }
	kill -STOP "$g"
	id=$(job r$r)
	ready=0
	for i in $(seq 1 1200); do # until synthesized: its slot READY behind the stopped gpud
		"$ZK" status "$A" 2>/dev/null | grep -Eq "READY [1-9]" && { ready=1; break; }
		sleep 0.05
	done
	[ "$ready" = 1 ] || ko "restart $r: job $id never READY"
	k0=$(keylines)
	tk=$(date +%s.%N)
	kill -KILL "$g"
	"$ZK" wait "$A" "$id" --timeout 120 >/dev/null
	wrc=$?
	td=$(date +%s.%N) # the job DONE (or failed): the verification below is not timed
	if [ "$wrc" = 0 ] && verifies r$r; then
		ok "restart $r: job DONE after the gpud's SIGKILL, verifies"
	else
		ko "restart $r: job $id not DONE (wait: $wrc) or does not verify"
	fi
	dt=$(awk "BEGIN { print $td - $tk }")
	for i in $(seq 1 50); do [ "$(keylines)" -gt "$k0" ] && break; sleep 0.1; done
	for i in $(seq 1 50); do [ "$(grep -c "window tables ready" "$OUT/run.log")" -gt "$r" ] && break; sleep 0.1; done
	init=$(grep "backend cuda:" "$OUT/run.log" | tail -1)
	reg=$(grep "registered with cudaHostRegisterReadOnly\|cannot register its params region" "$OUT/run.log" | tail -1)
	key=$(grep "key on the device" "$OUT/run.log" | tail -1)
	tab=$(grep "window tables ready" "$OUT/run.log" | tail -1)
	cuda=$(sed -n 's/.*CUDA started in \([0-9.]*\) s.*/\1/p' <<<"$init")
	slots=$(sed -n 's/.*cudaHostRegister in \([0-9.]*\) s.*/\1/p' <<<"$init")
	pin=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' <<<"$reg")
	# "uploaded M MiB in S s (G GB/s, pinned), window tables ..., key load L s in all"
	f=$(sed -n 's/.*uploaded \([0-9.]*\) MiB in \([0-9.]*\) s (\([0-9.]*\) GB\/s, \([A-Za-z]*\)), .*key load \([0-9.]*\) s in all.*/\1 \2 \3 \4 \5/p' <<<"$key")
	[ -n "$f" ] || f="- - - - -"
	# "window tables ready, built in T s on the device behind N proofs"
	tb=$(sed -n 's/.*built in \([0-9.]*\) s on the device behind \([0-9]*\) proof.*/\1 \2/p' <<<"$tab")
	[ -n "$tb" ] || tb="- -"
	rows+=("$(printf '%-4s %-13.3f %-6s %-6s %-6s %s %s' "$r" "$dt" "${cuda:--}" "${slots:--}" "${pin:--}" "$f" "$tb")")
	# the restart's phases from the stamped log, seconds after the SIGKILL: the supervisor
	# sees the death, starts the gpud, the backend is up, the key is on the device; DONE
	at() { awk -v k="$tk" -v pat="$1" '$1 > k && index($0, pat) { printf "%.3f", $1 - k; exit }' "$OUT/run.log"; }
	phases+=("$(printf '%-4s %-10s %-10s %-10s %-10s %.3f' "$r" "$(at "(pid $g)")" "$(at "restarted as")" "$(at "backend cuda:")" "$(at "key on the device")" "$dt")")
	echo "  gpud log: ${init#*zkarena-gpud: }"
	echo "  gpud log: ${reg#*zkarena-gpud: }"
	echo "  gpud log: ${key#*zkarena-gpud: }"
	echo "  gpud log: ${tab#*zkarena-gpud: }"
done
echo
echo "$CURVE 2^$LG, key (.zka) $((KB >> 20)) MiB; per restart: SIGKILL to the job DONE, CUDA's start and the"
echo "slots' registration, the params region's registration, the key's upload (MiB, s, GB/s, source),"
echo "zka_gpu_key_load in all, then the window tables' build behind the proofs (device s, proofs without them)"
printf '%-4s %-13s %-6s %-6s %-6s %s\n' rep "kill->DONE s" cuda-s slots pin-s "upload-MiB upload-s GB/s source key-load-s tables-s windowed"
for l in "${rows[@]}"; do
	read -r a b c d e f g h i j k l <<<"$l"
	printf '%-4s %-13s %-6s %-6s %-6s %-10s %-8s %-6s %-8s %-10s %-8s %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h" "$i" "$j" "$k" "$l"
done
echo
echo "seconds after the SIGKILL: the supervisor sees the death | starts the gpud | backend up (CUDA,"
echo "slots registered) | key on the device | the job DONE"
printf '%-4s %-10s %-10s %-10s %-10s %s\n' rep death restarted backend key DONE
printf '%s\n' "${phases[@]}"
grep -q "WARNING" "$OUT/run.log" && { echo; grep "WARNING" "$OUT/run.log" | sort -u | head -3; }
echo "total $(($(date +%s) - t0)) s; $pass passed, $fail failed"
[ "$fail" = 0 ]
