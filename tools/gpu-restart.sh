#!/bin/bash
# gpu-restart.sh BINDIR OUTDIR [CURVE:LOG2] - issue 18's restart on a GPU machine: how long a
# SIGKILLed cuda gpud takes to prove again. Prebuilt binaries in BINDIR/bin (libraries in
# BINDIR/lib, tools/gpu-lib.sh). A random circuit of 2^LOG2 (default bn128:22) and its key
# (`setup --insecure --gpu`, then `import` to a .zka), an arena and `zkarena run --backend cuda`,
# 3 jobs proved (the first loads the key); then 3 times: the gpud stopped (SIGSTOP), a job
# submitted and synthesized until its slot is READY, the gpud SIGKILLed, and the time from the
# kill to that job DONE (the supervisor restarts the gpud: CUDA init, slot registration, the
# params region registered, the key uploaded, window tables rebuilt, the proof). Prints a table
# with the key's size and, per restart, the gpud log's registration and upload (GB/s) figures;
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
"$ZK" run "$A" --workers 2 --backend "${GPU_RESTART_BACKEND:-cuda}" >"$OUT/run.log" 2>&1 &
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
	"$ZK" wait "$A" "$1" --timeout 120 >/dev/null && "$ZK" verify "$OUT/vk.json" "$OUT/o/$2/public.json" "$OUT/o/$2/proof.json" >/dev/null
}
for i in 1 2 3; do
	id=$(job w$i)
	done_ok "$id" w$i && ok "warm-up job $i DONE, verifies" || ko "warm-up job $i"
done
gpud_pid() { pgrep -f "zkarena-gpud .*$A\$" | head -1; }
keylines() { grep -c "key on the device" "$OUT/run.log"; }
rows=()
for r in 1 2 3; do
	sleep 2.2 # the supervisor's backoff is back to 100 ms for a gpud that lived 2 s
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
	if done_ok "$id" r$r; then
		td=$(date +%s.%N)
		ok "restart $r: job DONE after the gpud's SIGKILL, verifies"
	else
		td=$(date +%s.%N)
		ko "restart $r: job $id not DONE or does not verify"
	fi
	dt=$(awk "BEGIN { print $td - $tk }")
	for i in $(seq 1 50); do [ "$(keylines)" -gt "$k0" ] && break; sleep 0.1; done
	reg=$(grep "registered with cudaHostRegisterReadOnly\|cannot register its params region" "$OUT/run.log" | tail -1)
	key=$(grep "key on the device" "$OUT/run.log" | tail -1)
	pin=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' <<<"$reg")
	# "uploaded M MiB in S s (G GB/s, pinned), window tables T s, key load L s in all"
	f=$(sed -n 's/.*uploaded \([0-9.]*\) MiB in \([0-9.]*\) s (\([0-9.]*\) GB\/s, \([A-Za-z]*\)), window tables \([0-9.]*\) s, key load \([0-9.]*\) s in all.*/\1 \2 \3 \4 \5 \6/p' <<<"$key")
	[ -n "$f" ] || f="- - - - - -"
	rows+=("$(printf '%-4s %-13.3f %-8s %s' "$r" "$dt" "${pin:--}" "$f")")
	echo "  gpud log: ${reg#*zkarena-gpud: }"
	echo "  gpud log: ${key#*zkarena-gpud: }"
done
echo
echo "$CURVE 2^$LG, key (.zka) $((KB >> 20)) MiB; per restart: SIGKILL to the job DONE, the params region's"
echo "registration, the key's upload (MiB, s, GB/s, source), window tables rebuilt, zka_gpu_key_load in all"
printf '%-4s %-13s %-8s %s\n' rep "kill->DONE s" "pin s" "upload-MiB upload-s GB/s source tables-s key-load-s"
for l in "${rows[@]}"; do
	read -r a b c d e f g h i <<<"$l"
	printf '%-4s %-13s %-8s %-10s %-8s %-6s %-8s %-8s %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h" "$i"
done
grep -q "WARNING" "$OUT/run.log" && { echo; grep "WARNING" "$OUT/run.log" | sort -u | head -3; }
echo "total $(($(date +%s) - t0)) s; $pass passed, $fail failed"
[ "$fail" = 0 ]
