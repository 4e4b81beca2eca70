# gpu-lib.sh BINDIR - sourced by the tools/gpu-*.sh scripts that run prebuilt binaries on a GPU
# machine (zkarena, zkarena-gpud, zkarena-synth in BINDIR/bin, the shared libraries the machine
# lacks in BINDIR/lib). Sets ZK (BINDIR/bin/zkarena), FX (the circom fixtures of tests/data/fmt)
# and LD_LIBRARY_PATH; gives the pass/fail counters with ok/ko, gpu_secs, gpu_machine (one line: cores,
# the GPU, the time) and gpu_random_key.
# shellcheck shell=bash
export LD_LIBRARY_PATH=$1/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ZK=$1/bin/zkarena
FX=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/data/fmt" && pwd)
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
# gpu_secs T0: seconds since T0 (a `date +%s.%N`), one decimal
gpu_secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
gpu_machine() {
	echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name,clocks.sm,memory.total --format=csv,noheader 2>&1 | head -1), $(date -u '+%F %T') UTC"
}
# gpu_random_key CURVE LOG2 DIR: a random circuit of 2^LOG2 - 64 constraints and its key
# (`setup --insecure --gpu`, seed 7; GPU_LIB_SETUP= in the environment: without --gpu): DIR/c.r1cs,
# DIR/c.wtns, DIR/c.zkey, DIR/vk.json; 1 on failure
gpu_random_key() {
	local m=$(((1 << $2) - 64))
	"$ZK" circuit --curve "$1" --constraints $m --public 2 --seed 7 "$3/c.r1cs" "$3/c.wtns" >/dev/null &&
		"$ZK" setup --insecure ${GPU_LIB_SETUP---gpu} --seed 7 "$3/c.r1cs" "$3/c.zkey" "$3/vk.json" >/dev/null 2>"$3/setup.err" ||
		{ echo "FAIL circuit/setup: $(tail -1 "$3/setup.err" 2>/dev/null)"; return 1; }
}
