#!/usr/bin/env bash
# runcli.sh ZKARENA - the CLI's start errors: every command of `zkarena --commands` answers an
# unknown option with one line naming it and its --help (exit 2, not the whole help);
# `zkarena run` exits 2 when a child refuses to start (a gpud that exits 2; --backend cuda on
# a machine without an NVIDIA device), and a second `run` on an arena already run is refused
# naming the first's pid, while the first runs on; after the first stops, a run starts again.
# `setup --progress` prints its steps. The key cache keeps to its cap (least recently used
# entries removed first) and `params gc` prunes it.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
cleanup_r() { rm -f /dev/shm/zkarena-"$NAME".gpud*-status; cleanup; }
trap cleanup_r EXIT
for c in $("$ZK" --commands); do
	"$ZK" "$c" --no-such-option >"$T/opt.out" 2>&1
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/opt.out")" = 1 ] && grep -q -- "--no-such-option" "$T/opt.out" && grep -q -- "--help" "$T/opt.out" &&
		ok "$c --no-such-option: one line naming it and --help" || ko "$c --no-such-option: rc $rc: $(head -3 "$T/opt.out")"
done
# setup's progress: a line per step with --progress, none with --no-progress
"$ZK" circuit --constraints 300 "$T/p.r1cs" "$T/p.wtns" >/dev/null 2>&1
"$ZK" setup --insecure --progress "$T/p.r1cs" "$T/p.zkey" "$T/p.vk.json" 2>"$T/sp.err"
[ "$(grep -c '^zkarena setup: \[[1-7]/7\] .* points) at [0-9.]* s$' "$T/sp.err")" = 7 ] && grep -q "key computed after" "$T/sp.err" &&
	ok "setup --progress: 7 steps with their times" || ko "setup --progress: $(cat "$T/sp.err")"
"$ZK" setup --insecure --no-progress "$T/p.r1cs" "$T/p.zkey" "$T/p.vk.json" 2>"$T/sp.err"
! grep -q '\[1/7\]' "$T/sp.err" && ok "setup --no-progress: no step lines" || ko "setup --no-progress: $(cat "$T/sp.err")"
# the key cache's cap: least recently used entries go first, never the new one; params gc
export ZKARENA_CACHE=$T/kc
for i in 1 2 3; do "$ZK" setup --insecure --seed $i "$T/p.r1cs" "$T/k$i.zkey" "$T/k$i.vk.json" 2>/dev/null; done
kprove() { "$ZK" prove "$T/k$1.zkey" "$T/p.wtns" "$T/kp.json" "$T/kpub.json" 2>"$T/kp.err" >/dev/null; }
kprove 1 && kprove 2 && check "two keys cached" test "$(ls "$T/kc" | grep -c '\.zka$')" = 2
sz=$(stat -c %s "$T"/kc/k1-*.zka)
sleep 0.1
kprove 1 # a hit: k1's entry is now the most recently used
ZKARENA_CACHE_MAX=$((sz * 5 / 2)) kprove 3
[ -e "$(ls "$T"/kc/k1-*.zka)" ] && ! ls "$T"/kc/k2-*.zka >/dev/null 2>&1 && ls "$T"/kc/k3-*.zka >/dev/null 2>&1 &&
	grep -q "removed $T/kc/k2-.*least recently used" "$T/kp.err" &&
	ok "cache over its cap: the least recently used entry (k2) removed, said; k1 (hit) and k3 (new) kept" ||
	ko "cache cap: $(ls "$T/kc") / $(cat "$T/kp.err")"
ZKARENA_CACHE_MAX=12z "$ZK" params gc >"$T/gc.out" 2>&1
[ $? = 2 ] && grep -q "ZKARENA_CACHE_MAX='12z' is not a size" "$T/gc.out" && ok "params gc: a bad ZKARENA_CACHE_MAX named" || ko "params gc bad cap: $(cat "$T/gc.out")"
"$ZK" params gc >"$T/gc.out" 2>&1 && grep -q "0 entries removed" "$T/gc.out" && ok "params gc under the cap removes nothing" || ko "params gc: $(cat "$T/gc.out")"
"$ZK" params gc --max 0 >"$T/gc.out" 2>&1 && grep -q "2 entries removed, 0 bytes left" "$T/gc.out" && [ -z "$(ls "$T/kc" | grep '\.zka$')" ] &&
	ok "params gc --max 0 empties the cache" || ko "params gc --max 0: $(cat "$T/gc.out")"
export ZKARENA_CACHE=$T/cache
# an arena larger than /dev/shm: the refusal says how much it needs and how much is free
"$ZK" arena create "$NAME-big" --slots 64 --slot-bytes 16G >"$T/big.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "needs at least 1099511627776 bytes (1024.00 GiB: 64 slots x 17179869184 bytes, plus its tables) and /dev/shm has .* GiB free of" "$T/big.out" && [ ! -e "/dev/shm/zkarena-$NAME-big" ] &&
	ok "arena create over /dev/shm's size: needs 1024 GiB, says what is free, nothing left" || ko "big arena: rc $rc: $(cat "$T/big.out")"
check "arena create" "$ZK" arena create "$NAME" --slots 2 --slot-bytes 1M --jobs 16
printf '#!/bin/sh\necho "fake gpud: refusing" >&2\nexit 2\n' >"$T/gpud2"
chmod +x "$T/gpud2"
ZKA_GPUD_BIN=$T/gpud2 timeout 60 "$ZK" run "$NAME" --workers 1 --backend cpu >"$T/r.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "refused to start" "$T/r.log" && ok "run exits 2 when its gpud refuses to start" || ko "run with a refusing gpud: rc $rc: $(tail -3 "$T/r.log")"
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	# detect_leaks=0: under ASan, LeakSanitizer turns the refusing gpud's exit 2 into its own
	# status (the gpud's refusal path leaks its buffers; a known defect, not this test's subject)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 "$ZK" run "$NAME" --workers 1 --backend cuda >"$T/r.log" 2>&1
	rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 124 ] && ok "run --backend cuda without a GPU exits $rc" || ko "run --backend cuda without a GPU: rc $rc: $(tail -3 "$T/r.log")"
fi
start_run 1
for i in $(seq 1 100); do grep -q "started" "$T/run.log" && break; sleep 0.05; done
"$ZK" run "$NAME" --workers 1 --backend cpu >"$T/r2.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "arena $NAME is already run by pid $RUN_PID" "$T/r2.log" && ok "a second run refused, naming pid $RUN_PID" || ko "second run: rc $rc: $(cat "$T/r2.log")"
kill -0 "$RUN_PID" 2>/dev/null && ok "  the first run goes on" || ko "the first run died"
stop_run && ok "the first run stops with exit 0" || ko "the first run's exit status"
[ ! -e "/dev/shm/zkarena-$NAME.run" ] && ok "  its lock file removed" || ko "lock file left"
start_run 1
sleep 1
kill -9 "$RUN_PID"
wait "$RUN_PID" 2>/dev/null
RUN_PID=
sleep 0.5
start_run 1
for i in $(seq 1 100); do grep -q "started" "$T/run.log" && break; sleep 0.05; done
kill -0 "$RUN_PID" 2>/dev/null && grep -q started "$T/run.log" && ok "after a SIGKILLed run, a new run starts (the lock died with it)" || ko "run after SIGKILL: $(tail -3 "$T/run.log")"
stop_run
rm -f "/dev/shm/zkarena-$NAME.run"
# the shipped example settings file runs on any machine: its arena fits, backend auto picks
# what there is (metrics off here: tests run side by side)
EX=$here/../../systemd/example.conf
expect 0 "config check systemd/example.conf" "$ZK" config check "$EX"
sed 's/^listen = .*/listen =/' "$EX" >"$T/ex.conf"
"$ZK" arena destroy "$NAME" >/dev/null 2>&1
# shellcheck disable=SC2046 # the flags of config args, split
check "arena create with the example's [arena]" "$ZK" arena create "$NAME" $("$ZK" config args "$T/ex.conf" arena)
RUN_ARGS="--config $T/ex.conf"
RUN_BACKEND=auto # start_run passes --backend; auto is what the file says too
start_run 1
for i in $(seq 1 100); do grep -q "started" "$T/run.log" && break; sleep 0.05; done
grep -q "backend auto: \(cpu\|cuda\) (" "$T/run.log" && grep -q started "$T/run.log" && kill -0 "$RUN_PID" &&
	ok "zkarena run with the example settings: $(grep -o 'backend auto: [a-z]*' "$T/run.log"), started" || ko "example run: $(cat "$T/run.log")"
keys bn128 200 ex && id=$(submit "$T/ex.zkey" "$T/ex.wtns" "$T/o/ex") && expect 0 "  a job DONE" "$ZK" wait "$NAME" "$id" --timeout 120
stop_run
RUN_ARGS=
RUN_BACKEND=cpu
finish
