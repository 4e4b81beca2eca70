#!/usr/bin/env bash
# notify.sh ZKARENA LISTENER GPUD SYNTH - sd_notify (config/zka_notify.h, libsystemd) without
# systemd: LISTENER (tests/pipeline/notify_listen.c) binds the AF_UNIX datagram socket named in
# NOTIFY_SOCKET and prints each message line with its sender's pid (SO_PASSCRED).
# `zkarena run`: READY=1 and its STATUS= line first, a job submitted after READY is DONE,
# WATCHDOG=1 each second, every message from the supervisor's own pid (its gpud and worker
# get no NOTIFY_SOCKET), and on SIGTERM STOPPING=1 last and exit 0. Then zkarena-gpud and
# zkarena-synth started by hand with NOTIFY_SOCKET: READY=1 with their STATUS= lines, then
# WATCHDOG=1 (the gpud's with a STATUS= of its counters), and SIGTERM stops both with 0.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
LISTEN=$2 GPUD=$3 SYNTH=$4
LPID=
cleanup_n() {
	[ -n "$LPID" ] && kill -TERM "$LPID" 2>/dev/null && wait "$LPID" 2>/dev/null
	rm -f /dev/shm/zkarena-"$NAME".gpud*-status
	cleanup
}
trap cleanup_n EXIT
listen() { # listen FILE: the listener on $T/notify.sock in the background, output in FILE
	rm -f "$T/notify.sock"
	"$LISTEN" "$T/notify.sock" 60 >"$1" 2>&1 &
	LPID=$!
	local i
	for i in $(seq 1 100); do [ -S "$T/notify.sock" ] && return 0; sleep 0.05; done
	return 1
}
unlisten() {
	kill -TERM "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
	LPID=
}
# wait_msg FILE PID LINE SECONDS [COUNT]: waits until PID has sent LINE COUNT (1) times
wait_msg() {
	local i
	for i in $(seq 1 $(($4 * 20))); do
		[ "$(grep -cxF "$2 $3" "$1")" -ge "${5:-1}" ] && return 0
		sleep 0.05
	done
	return 1
}
keys bn128 200 bn || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 4 --slot-bytes 1M --jobs 16
N=$T/run.notify
listen "$N" || { echo "the listener did not bind $T/notify.sock"; exit 1; }
RUN_ARGS="--threads 1"
start_run 1 NOTIFY_SOCKET="$T/notify.sock"
rp=$RUN_PID # stop_run clears RUN_PID
if wait_msg "$N" "$rp" READY=1 20; then ok "zkarena run sent READY=1"; else ko "no READY=1 from zkarena run (pid $rp): $(head -c 400 "$N"; tail -c 400 "$T/run.log")"; fi
first2=$(grep "^$rp " "$N" | head -2 | cut -d' ' -f2- | tr '\n' '|')
want="READY=1|STATUS=arena $NAME: 1 gpud(s), 1 worker(s)|"
[ "$first2" = "$want" ] && ok "its first message: READY=1 and STATUS=arena $NAME: 1 gpud(s), 1 worker(s)" || ko "its first message: '$first2', wanted '$want'"
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/j1")
check "a job submitted after READY is DONE" "$ZK" wait "$NAME" "$id" --timeout 60
check "its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o/j1/public.json" "$T/o/j1/proof.json"
if wait_msg "$N" "$rp" WATCHDOG=1 10 2; then ok "zkarena run sent WATCHDOG=1 (each second)"; else ko "WATCHDOG=1 from zkarena run: $(grep -c WATCHDOG "$N") times"; fi
stop_run
rc=$?
[ "$rc" = 0 ] && ok "SIGTERM: zkarena run exited 0" || ko "SIGTERM: zkarena run exited $rc: $(tail -c 400 "$T/run.log")"
sleep 0.3 # the last datagram is read within the listener's 100 ms receive timeout
last=$(grep "^$rp " "$N" | tail -1 | cut -d' ' -f2-)
[ "$last" = STOPPING=1 ] && ok "its last message: STOPPING=1" || ko "its last message: '$last'"
others=$(grep -v "^$rp " "$N" | head -3)
[ -z "$others" ] && ok "every message came from the supervisor (pid $rp): its children got no NOTIFY_SOCKET" || ko "messages from other processes: $others"
unlisten

# the gpud and a worker on their own (as the zkarena-gpud@ and zkarena-synth@ units run them)
N=$T/daemons.notify
listen "$N" || { echo "the listener did not bind $T/notify.sock"; exit 1; }
NOTIFY_SOCKET=$T/notify.sock "$GPUD" --backend cpu --device 0 --id 0 "$NAME" >"$T/gpud.log" 2>&1 &
gp=$!
NOTIFY_SOCKET=$T/notify.sock "$SYNTH" --threads 1 "$NAME" >"$T/synth.log" 2>&1 &
sp=$!
wait_msg "$N" "$gp" READY=1 20 && ok "zkarena-gpud sent READY=1" || ko "no READY=1 from zkarena-gpud: $(tail -c 400 "$T/gpud.log")"
wait_msg "$N" "$sp" READY=1 20 && ok "zkarena-synth sent READY=1" || ko "no READY=1 from zkarena-synth: $(tail -c 400 "$T/synth.log")"
gs=$(grep "^$gp " "$N" | sed -n 2p | cut -d' ' -f2-)
[ "$gs" = "STATUS=gpud 0 (device 0, cpu): started" ] && ok "gpud: $gs" || ko "gpud's STATUS after READY: '$gs'"
ss=$(grep "^$sp " "$N" | sed -n 2p | cut -d' ' -f2-)
[ "$ss" = "STATUS=worker on arena $NAME" ] && ok "worker: $ss" || ko "worker's STATUS after READY: '$ss'"
wait_msg "$N" "$gp" WATCHDOG=1 10 && ok "zkarena-gpud sent WATCHDOG=1" || ko "no WATCHDOG=1 from zkarena-gpud"
grep -q "^$gp STATUS=.*proofs" "$N" && ok "with a STATUS= of its counters" || ko "no counters STATUS from gpud: $(grep "^$gp " "$N" | tail -2)"
wait_msg "$N" "$sp" WATCHDOG=1 10 && ok "zkarena-synth sent WATCHDOG=1" || ko "no WATCHDOG=1 from zkarena-synth"
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/j2")
check "a job is DONE by the hand-started gpud and worker" "$ZK" wait "$NAME" "$id" --timeout 60
kill -TERM "$gp" "$sp"
wait "$gp"
grc=$?
wait "$sp"
src=$?
[ "$grc" = 0 ] && [ "$src" = 0 ] && ok "SIGTERM: gpud and worker exited 0" || ko "SIGTERM: gpud exited $grc, worker $src"
unlisten
check "arena invariants hold" "$ZK" arena check "$NAME"
finish
