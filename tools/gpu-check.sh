#!/bin/bash
# gpu-check.sh - builds the GPU prover without CMake (the GPU machine has no CUnit, liburing,
# or jansson/GMP development files: headers and static libraries may be carried in
# .devcarry/{include,lib}), runs the GPU tests and the GPU benchmark, and writes the logs
# into OUTDIR. `sanitize` runs the GPU tests under compute-sanitizer's memcheck, racecheck and
# synccheck (sanitize.log; fails on any reported error or hazard).
#   tools/gpu-check.sh OUTDIR [test|bench|all|sanitize] [quick|full] [bench args...]
set -u
OUTD=${1:-gpu-check-out}
WHAT=${2:-all}
MODE=${3:-quick}
shift 3 2>/dev/null || shift $#
mkdir -p "$OUTD"
OUTD=$(cd "$OUTD" && pwd)
cd "$(dirname "$0")/.."
B=build-gpucheck
mkdir -p $B/obj
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
# ZK_SRC: where zk/ comes from; a snapshot in .devcarry/snap (git archive HEAD zk) keeps a
# device run independent of in-progress edits in the working tree
ZK_SRC=${ZK_SRC:-.}
[ -d .devcarry/snap/zk ] && [ "$ZK_SRC" = . ] && ZK_SRC=.devcarry/snap
INC="-I$ZK_SRC -I. -I.devcarry/include"
LIBDIRS="-L.devcarry/lib -L/usr/local/cuda/lib64"
log=$OUTD/build.log
: >"$log"
t0=$(date +%s)
if [ "${SKIP_BUILD:-0}" = 1 ] && [ -x $B/gpu_test ] && [ -x $B/bench_gpu ]; then
	echo "using prebuilt $B/gpu_test and $B/bench_gpu" | tee -a "$log"
else
pids=()
for f in cuda/zka_gpu.cu cuda/bn254.cu cuda/bls12_381.cu; do
	o=$B/obj/$(basename $f .cu).o
	stale=0
	[ ! -f $o ] || [ $f -nt $o ] && stale=1
	for h in cuda/*.cuh; do [ $h -nt $o ] && stale=1; done # the engine's parts (engine.cuh includes them)
	if [ $stale = 1 ]; then
		($NVCC -arch=sm_90 -O3 -std=c++17 $INC -c $f -o $o >>"$log" 2>&1 || echo "BUILD FAILED: $f" >>"$log") &
		pids+=($!)
	fi
done
cobjs=()
for f in cuda/host.c $ZK_SRC/zk/*.c; do
	o=$B/obj/c_$(echo $f | tr / _ | sed 's/\.c$//').o
	cobjs+=($o)
	(gcc -std=c11 -O2 -g -D_GNU_SOURCE $INC -c $f -o $o >>"$log" 2>&1 || { echo "C BUILD FAILED: $f" >>"$log"; rm -f $o; }) &
	pids+=($!)
done
for p in "${pids[@]}"; do wait $p; done
ok=()
for o in "${cobjs[@]}"; do [ -f $o ] && ok+=($o); done
rm -f $B/libzkcore.a
ar rcs $B/libzkcore.a "${ok[@]}"
LIBS="$B/obj/zka_gpu.o $B/obj/bn254.o $B/obj/bls12_381.o $B/libzkcore.a $LIBDIRS -lcudart_static -ljansson -lgmp -lstdc++ -ldl -lrt -lpthread -lm"
gcc -std=c11 -O2 -D_GNU_SOURCE $INC tests/gpu_test.c -o $B/gpu_test $LIBS >>"$log" 2>&1 || echo "LINK FAILED: gpu_test" >>"$log"
gcc -std=c11 -O2 -D_GNU_SOURCE -DZKG_BENCH_MAIN -DZKA_HAVE_CUDA_LIB $INC tools/bench_gpu.c -o $B/bench_gpu $LIBS >>"$log" 2>&1 || echo "LINK FAILED: bench_gpu" >>"$log"
fi
echo "build: $(( $(date +%s) - t0 )) s" | tee -a "$log"
grep -E "FAILED|error" "$log" | head -20
rc=0
if [ "$WHAT" = test ] || [ "$WHAT" = all ]; then
	if [ -x $B/gpu_test ]; then
		$B/gpu_test $MODE 2>&1 | tee "$OUTD/test.log"
		rc=${PIPESTATUS[0]}
		echo "gpu_test exit: $rc" | tee -a "$OUTD/test.log"
	else
		rc=1
	fi
fi
if [ "$WHAT" = sanitize ]; then
	CS=${CS:-/usr/local/cuda/bin/compute-sanitizer}
	: >"$OUTD/sanitize.log"
	for tool in memcheck racecheck synccheck; do
		"$CS" --tool $tool $B/gpu_test $MODE >>"$OUTD/sanitize.log" 2>&1 || rc=1
		tail -1 "$OUTD/sanitize.log" | sed "s/^/$tool: /"
		grep -qE "ERROR SUMMARY: 0 errors|SUMMARY: 0 hazards" <(tail -1 "$OUTD/sanitize.log") || rc=1
	done
	echo "sanitize exit: $rc" | tee -a "$OUTD/sanitize.log"
fi
if [ "$WHAT" = bench ] || [ "$WHAT" = all ]; then
	if [ -x $B/bench_gpu ]; then
		$B/bench_gpu "$@" 2>&1 | tee "$OUTD/bench.log"
	fi
fi
exit $rc
