# lib.sh - shared by the pipeline tests: a private arena, keys from `zkarena setup --insecure`,
# `zkarena run` in the background, checks that count, and cleanup on any exit.
# Usage: source lib.sh ZKARENA_BIN; then use the functions below.
set -uo pipefail
ZK=$1
T=$(mktemp -d /tmp/zka-pipe-XXXXXX)
NAME=t$$-$RANDOM
export ZKARENA_CACHE=$T/cache # .zkey imports (zka_keys.h) stay in the test's directory
RUN_PID=
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { # check DESCRIPTION CMD...: passes when CMD succeeds
	local what=$1; shift
	if "$@" >"$T/check.out" 2>&1; then ok "$what"; else ko "$what: $(tail -c 400 "$T/check.out")"; fi
}
expect() { # expect CODE DESCRIPTION CMD...
	local want=$1 what=$2; shift 2
	"$@" >"$T/out" 2>&1
	local got=$?
	if [ "$got" = "$want" ]; then ok "$what"; else ko "$what (exit $got, wanted $want): $(tail -c 400 "$T/out")"; fi
}
cleanup() {
	[ -n "$RUN_PID" ] && kill -TERM "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null
	# the arena's params regions go with it (arena destroy unlinks them); a glob over
	# /dev/shm/zka-*+p* would also remove the regions of tests running beside this one
	"$ZK" arena destroy "$NAME" >/dev/null 2>&1
	rm -f "/dev/shm/zkarena-$NAME.gpud-status"
	rm -rf "$T"
}
trap cleanup EXIT
# keys CURVE CONSTRAINTS PREFIX: circuit, witness, key and vk under $T/PREFIX.*
keys() {
	"$ZK" circuit --curve "$1" --constraints "$2" --public 2 --seed $RANDOM "$T/$3.r1cs" "$T/$3.wtns" &&
	"$ZK" setup --insecure --seed $RANDOM "$T/$3.r1cs" "$T/$3.zkey" "$T/$3.vk.json" 2>/dev/null
}
# start_run WORKERS [ENV...]: zkarena run in the background (gpud's backend $RUN_BACKEND,
# default cpu; more flags of `zkarena run` in $RUN_ARGS), log in $T/run.log
RUN_BACKEND=cpu
RUN_ARGS=
start_run() {
	local w=$1; shift
	# shellcheck disable=SC2086 # RUN_ARGS is a list of flags
	env "$@" "$ZK" run "$NAME" --workers "$w" --backend "$RUN_BACKEND" $RUN_ARGS >"$T/run.log" 2>&1 &
	RUN_PID=$!
}
stop_run() {
	kill -TERM "$RUN_PID" 2>/dev/null
	wait "$RUN_PID" 2>/dev/null
	local rc=$?
	RUN_PID=
	return $rc
}
# jobjson ID FIELD: a field of job ID from `arena status --json`
jobjson() {
	"$ZK" arena status "$NAME" --json --all-jobs 2>/dev/null | node -e "
let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);
const r=j.jobs.find(x=>String(x.id)==='$1');console.log(r?r['$2']:'')})"
}
# wait_state ID STATE SECONDS: waits until job ID is in STATE
wait_state() {
	local i
	for i in $(seq 1 $(($3 * 20))); do
		[ "$(jobjson "$1" state)" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
kill_mid_proof() { # kill_mid_proof ID: once job ID is PROVING, SIGKILLs its gpud (pid left in $pid)
	if wait_state "$1" PROVING 30; then
		pid=$(jobjson "$1" owner_pid)
		sleep 0.3
		kill -9 "$pid" && ok "killed gpud $pid mid-proof" || ko "could not kill gpud '$pid'"
	else
		ko "job never reached PROVING"
	fi
}
submit() { # submit ZKEY WTNS OUTDIR [args]: prints the job id
	mkdir -p "$3"
	"$ZK" submit "$NAME" "$1" "$2" --out "$3" "${@:4}" | tail -1
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
}
