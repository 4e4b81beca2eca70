#!/usr/bin/env bash
# ops.sh ZKARENA - the operator's surface on the CPU backend: `zkarena config check` reports
# every problem of a settings file with its line; `zkarena run` refuses a bad file, reads a good
# one (workers, devices, metrics address, NUMA node) and lets flags override it; the metrics at
# /metrics pass `promtool check metrics` (when promtool is installed) and count what happened
# (no device-memory gauges for the cpu backend);
# with numa_node = 0 the started gpuds and workers run on node 0's CPUs with their memory bound
# to it (read back from /proc/PID/status and /proc/PID/numa_maps).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
cleanup_ops() { rm -f /dev/shm/zkarena-"$NAME".gpud*-status; cleanup; }
trap cleanup_ops EXIT
# ---- topology (this box: whatever sysfs says; at least node 0 and a settings line)
"$ZK" topology >"$T/topo.out" 2>&1
check "topology lists GPUs, node 0 and the settings" sh -c "grep -q '^GPUs: [0-9]' '$T/topo.out' && grep -Eq '^  node 0  CPUs [0-9]' '$T/topo.out' && grep -q '^settings:' '$T/topo.out'"
# ---- config check
cat >"$T/bad.conf" <<'CONF'
# a comment
[arena]
slots = 0
slot_bytes = 4Q
this line has no equals sign
[run]
workers = 3
workers = 4
backend = tpu
devices = 0,x
colour = blue
[metrics]
listen = localhost
[extra]
[run]
table_budget = -1x
CONF
"$ZK" config check "$T/bad.conf" >"$T/cc.out" 2>&1
rc=$?
[ "$rc" = 2 ] && ok "config check: exit 2 on a bad file" || ko "config check exit $rc"
for want in ":3: \[arena\] slots = '0'" ":4: \[arena\] slot_bytes = '4Q'" ":5: 'this line has no equals sign'" \
	":8: \[run\] workers given twice" ":9: \[run\] backend = 'tpu'" ":10: \[run\] devices = '0,x'" \
	":11: \[run\] colour: unknown key" ":13: \[metrics\] listen = 'localhost'" "10 problems" ":14: \[extra\]: unknown section" \
	":16: \[run\] table_budget = '-1x'"; do
	grep -q -- "$want" "$T/cc.out" && ok "config check reports $want" || ko "config check misses '$want': $(cat "$T/cc.out")"
done
port=$((20000 + RANDOM % 20000))
cat >"$T/good.conf" <<CONF
[arena]
slots = 6
slot_bytes = 1M
numa_node = 0
[run]
workers = 3
threads = 1
backend = cpu
devices = 0,0
[metrics]
listen = 127.0.0.1:$port
CONF
expect 0 "config check: a good file" "$ZK" config check "$T/good.conf"
# the window tables' budget: every form the parser takes, passed on to the gpud flags
for b in max 0 1x 2.5x 3; do
	printf '[run]\nbackend = cuda\ntable_budget = %s\n' "$b" >"$T/tb.conf"
	check "config args gpud: table_budget = $b" sh -c "[ \"\$('$ZK' config args '$T/tb.conf' gpud)\" = ' --backend cuda --table-budget $b' ]"
done
# config exec (what the units run): the budget reaches a cuda gpud's flags; a cpu gpud's file
# gets one line saying it is ignored
mkdir -p "$T/cfd"
printf '[run]\nbackend = cuda\ntable_budget = 2x\n' >"$T/cfd/tbx.conf"
check "config exec gpud passes --table-budget (cuda)" sh -c "ZKA_CONFIG_DIR='$T/cfd' ZKA_GPUD_BIN=/bin/echo '$ZK' config exec gpud tbx | grep -q -- '--backend cuda --table-budget 2x --device 0'"
printf '[run]\nbackend = cpu\ntable_budget = 2x\n' >"$T/cfd/tbx.conf"
ZKA_CONFIG_DIR="$T/cfd" ZKA_GPUD_BIN=/bin/echo "$ZK" config exec gpud tbx >"$T/cx.out" 2>"$T/cx.err"
grep -q "table_budget 2x ignored: window tables exist only with the cuda backend (backend cpu)" "$T/cx.err" && ! grep -q -- "--table-budget" "$T/cx.out" && ok "config exec gpud (cpu): budget said to be ignored, not passed" || ko "config exec cpu: $(cat "$T/cx.out" "$T/cx.err")"
for b in '' x 1y -0.5 inf nan 1xx; do
	printf '[run]\ntable_budget = %s\n' "$b" >"$T/tb.conf"
	"$ZK" config check "$T/tb.conf" >"$T/tb.out" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q ":2: \[run\] table_budget = '$b'" "$T/tb.out" && ok "config check refuses table_budget = '$b'" || ko "table_budget = '$b': rc $rc: $(cat "$T/tb.out")"
done
GPUD_BIN=$(dirname "$ZK")/zkarena-gpud
[ -x "$GPUD_BIN" ] || GPUD_BIN=$(dirname "$ZK")/../gpud/zkarena-gpud
"$GPUD_BIN" --backend cuda --table-budget 2q "$NAME" >"$T/gb.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "^zkarena-gpud: --table-budget: '2q' is not max, N or Nx" "$T/gb.out" && ok "gpud refuses --table-budget 2q" || ko "gpud --table-budget 2q: rc $rc: $(cat "$T/gb.out")"
"$GPUD_BIN" --table-budget 2x "$NAME" >"$T/gb.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "needs --backend cuda" "$T/gb.out" && ok "gpud: --table-budget with the cpu backend refused" || ko "gpud --table-budget cpu: rc $rc: $(cat "$T/gb.out")"
"$GPUD_BIN" --help >"$T/gh.out" 2>&1
grep -q -- "--table-budget B" "$T/gh.out" && ok "gpud --help names --table-budget" || ko "gpud --help: $(cat "$T/gh.out")"
grep -q -- "--finishers N" "$T/gh.out" && ok "gpud --help names --finishers" || ko "gpud --help: $(cat "$T/gh.out")"
expect 2 "gpud refuses --finishers 0" "$GPUD_BIN" --finishers 0 "$NAME"
expect 2 "run refuses --table-budget 1y" "$ZK" run "$NAME" --table-budget 1y
check "config args arena" sh -c "[ \"\$('$ZK' config args '$T/good.conf' arena)\" = ' --slots 6 --slot-bytes 1048576 --numa-node 0' ]"
check "arena create from config args" sh -c "'$ZK' arena create '$NAME' \$('$ZK' config args '$T/good.conf' arena)"
expect 2 "run refuses a bad settings file" "$ZK" run "$NAME" --config "$T/bad.conf"
# ---- run from the file, --workers overriding it
keys bn128 200 bn || { echo "keys failed"; exit 1; }
RUN_ARGS="--config $T/good.conf --table-budget 2x"
start_run 2 ZKA_PROVE_DELAY_MS=800
sleep 1
check "run: 2 workers (flag) x 1 thread (file), 2 gpuds (file)" grep -q "2 gpuds (cpu backend, 1 in flight, devices 0,0).* 2 workers x 1 threads" "$T/run.log"
check "run: metrics address from the file" grep -q "metrics on http://127.0.0.1:$port/metrics" "$T/run.log"
check "run: a table budget on the cpu backend is said to be ignored" grep -q "table budget 2x ignored: window tables exist only with the cuda backend (this run: cpu)" "$T/run.log"
check "run: no --table-budget passed to a cpu gpud" sh -c "p=\$(pgrep -f 'zkarena-gpud .* $NAME\$' | head -1); [ -n \"\$p\" ] && tr '\\0' ' ' </proc/\$p/cmdline | grep -q -- '--backend cpu' && ! grep -q -- '--table-budget' /proc/\$p/cmdline"
ids=()
for i in 1 2 3 4 5; do ids+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/$i")"); done
c=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/c") # queued behind 5 proofs of 0.8 s on 2 gpuds
"$ZK" cancel "$NAME" "$c" >/dev/null 2>&1
d=0
for id in "${ids[@]}"; do "$ZK" wait "$NAME" "$id" --timeout 120 >/dev/null 2>&1 && d=$((d + 1)); done
[ "$d" = 5 ] && ok "5 jobs DONE" || ko "$d of 5 jobs DONE"
expect 1 "the 6th job cancelled" "$ZK" wait "$NAME" "$c" --timeout 60
# ---- NUMA binding read back from /proc
gp=$(pgrep -f "zkarena-gpud .* $NAME\$" | head -1)
wp=$(pgrep -f "zkarena-synth .* $NAME\$" | head -1)
node0=$(cat /sys/devices/system/node/node0/cpulist 2>/dev/null)
if [ -n "$node0" ] && [ -n "$gp" ] && [ -n "$wp" ]; then
	for p in "$gp" "$wp"; do
		cpus=$(sed -n 's/^Cpus_allowed_list:\s*//p' "/proc/$p/status")
		[ "$cpus" = "$node0" ] && ok "pid $p runs on node 0's CPUs ($cpus)" || ko "pid $p Cpus_allowed_list '$cpus', node 0 has '$node0'"
		grep -q "bind:0" "/proc/$p/numa_maps" && ok "pid $p memory bound to node 0 (numa_maps)" ||
			ko "pid $p has no bind:0 mapping: $(head -3 "/proc/$p/numa_maps")"
	done
else
	ko "no node0 cpulist or processes (gpud '$gp', worker '$wp')"
fi
# ---- metrics
sleep 1.5
node -e "
require('http').get('http://127.0.0.1:$port/metrics', r => {let s='';r.on('data',d=>s+=d);
r.on('end',()=>{process.stdout.write(s);process.exit(r.statusCode===200?0:1)})}).on('error',e=>{console.error(e.message);process.exit(1)})" >"$T/metrics.txt"
[ $? = 0 ] && ok "GET /metrics: 200" || ko "GET /metrics failed"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/metrics.txt" >"$T/promtool.out" 2>&1 &&
		ok "promtool check metrics" || ko "promtool check metrics: $(head -c 600 "$T/promtool.out")"
else
	echo "skip promtool: not installed (scripts/install-deps.sh installs prometheus)"
fi
m() { grep -E "^$1 " "$T/metrics.txt" | awk '{print $2}'; }
[ "$(m zkarena_jobs_submitted_total)" = 6 ] && ok "zkarena_jobs_submitted_total 6" || ko "submitted_total '$(m zkarena_jobs_submitted_total)'"
[ "$(m zkarena_jobs_done_total)" = 5 ] && ok "zkarena_jobs_done_total 5" || ko "done_total '$(m zkarena_jobs_done_total)'"
[ "$(m zkarena_jobs_cancelled_total)" = 1 ] && ok "zkarena_jobs_cancelled_total 1" || ko "cancelled_total '$(m zkarena_jobs_cancelled_total)'"
[ "$(m 'zkarena_job_end_to_end_seconds_count\{circuit="bn.zkey"\}')" = 5 ] && ok "end-to-end histogram counts 5 jobs of bn.zkey" ||
	ko "end_to_end count: $(grep end_to_end_seconds_count "$T/metrics.txt")"
[ "$(m 'zkarena_job_witness_seconds_count\{circuit="bn.zkey"\}')" = 5 ] && ok "witness histogram (a stage within synthesis) counts the 5 jobs" ||
	ko "witness count: $(grep witness_seconds_count "$T/metrics.txt")"
[ $(($(m 'zkarena_slots\{state="FREE"\}') + $(m 'zkarena_slots\{state="WRITING"\}'))) = 6 ] && [ "$(m 'zkarena_slots\{state="PROVING"\}')" = 0 ] &&
	ok "zkarena_slots: 6 FREE or WRITING (workers waiting), none PROVING" || ko "slots: $(grep '^zkarena_slots' "$T/metrics.txt")"
[ "$(grep -c '^zkarena_gpud_up{gpud="[01]",device="0"} 1' "$T/metrics.txt")" = 2 ] && ok "two gpuds up" || ko "gpud_up: $(grep gpud_up "$T/metrics.txt")"
pr=$(grep '^zkarena_proofs_total' "$T/metrics.txt" | awk '{s+=$2} END {print s}')
[ "$pr" = 5 ] && ok "zkarena_proofs_total sums to 5" || ko "proofs_total sum '$pr'"
by=$(grep '^zkarena_device_copied_bytes_total' "$T/metrics.txt" | awk '{s+=$2} END {print s}')
[ "${by:-0}" -gt 0 ] && ok "bytes copied counted ($by)" || ko "no bytes copied counted"
# the cpu backend has no device memory: no mem_used= in its counters, no gauge families
! grep -q 'zkarena_gpu_memory_' "$T/metrics.txt" && ok "cpu gpuds: no zkarena_gpu_memory_* families" ||
	ko "device-memory gauges for cpu gpuds: $(grep zkarena_gpu_memory_ "$T/metrics.txt")"
check "cpu gpud's counters line without mem_used" sh -c "grep -q '^counters: mono_ns=' /dev/shm/zkarena-$NAME.gpud-status && ! grep -q 'mem_used=' /dev/shm/zkarena-$NAME.gpud-status"
# ---- status --watch in a pipe, and --snapshot
timeout 2.5 "$ZK" status "$NAME" --watch >"$T/watch.out" 2>&1
n=$(grep -c "^arena $NAME " "$T/watch.out")
[ "$n" -ge 2 ] && ok "status --watch: $n snapshots in a pipe" || ko "status --watch: $n snapshots: $(head -c 400 "$T/watch.out")"
"$ZK" status "$NAME" --snapshot >"$T/snap.out" 2>&1
check "snapshot: slots by state" grep -Eq "^slots: FREE [0-9]+  WRITING [0-9]+  READY 0  PROVING 0" "$T/snap.out"
check "snapshot: jobs, 5 DONE 1 FAILED" grep -q "DONE 5  FAILED 1" "$T/snap.out"
check "snapshot: both gpuds' busy and proofs/s" sh -c "[ \$(grep -Ec '^gpud [01]  device 0  cpu   busy +[0-9.]+%  +[0-9.]+ proofs/s' '$T/snap.out') = 2 ]"
check "snapshot: the last failure" grep -q "job $c: cancelled" "$T/snap.out"
check "snapshot: queue empty" grep -q "queue by priority: empty" "$T/snap.out"
kill -9 "$gp" && sleep 2.5
node -e "
require('http').get('http://127.0.0.1:$port/metrics', r => {let s='';r.on('data',d=>s+=d);
r.on('end',()=>process.stdout.write(s))})" >"$T/metrics2.txt"
grep -q '^zkarena_process_restarts_total{process="gpud"} 1' "$T/metrics2.txt" && ok "a gpud restart counted" ||
	ko "restarts: $(grep restarts "$T/metrics2.txt")"
# the device-memory gauges as a cuda gpud reports them: a status file of a gpud 5 on device 3
# (alive: this shell's pid) with the counters line's mem_used= and mem_total=
cat >"/dev/shm/zkarena-$NAME.gpud5-status" <<ST
pid $$: backend cuda: a status file written by the test
last 60 s: GPU busy 0.0%, 0.00 proofs/s, synthesis 0.00 jobs/s, 0 ready slot(s) waiting; input copies 0.00 ms per proof, 0% hidden behind another proof
gpud: id=5 device=3 backend=cuda lanes=2
keys: 0 resident, 0 bytes:
counters: mono_ns=1 busy_ns=0 proofs=0 failed=0 copy_ns=0 copy_hidden_ns=0 ready_total=0 lanes=2 bytes_in=0 yields=0 keys=0 key_bytes=0 mem_used=4000000000 mem_total=150000000000
ST
node -e "
require('http').get('http://127.0.0.1:$port/metrics', r => {let s='';r.on('data',d=>s+=d);
r.on('end',()=>process.stdout.write(s))})" >"$T/metrics3.txt"
grep -q '^zkarena_gpu_memory_used_bytes{gpud="5",device="3"} 4000000000$' "$T/metrics3.txt" &&
	grep -q '^zkarena_gpu_memory_total_bytes{gpud="5",device="3"} 150000000000$' "$T/metrics3.txt" &&
	[ "$(grep -c '^zkarena_gpu_memory_' "$T/metrics3.txt")" = 2 ] &&
	ok "device memory exported for the cuda gpud only" || ko "memory gauges: $(grep zkarena_gpu_memory "$T/metrics3.txt")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/metrics3.txt" >"$T/promtool.out" 2>&1 &&
		ok "promtool check metrics (with the memory gauges)" || ko "promtool (memory gauges): $(head -c 600 "$T/promtool.out")"
fi
rm -f "/dev/shm/zkarena-$NAME.gpud5-status"
stop_run
finish
