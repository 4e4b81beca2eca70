#!/bin/bash
# gpu-witness.sh BINDIR DATA OUTDIR [JOBS] - issue 41's measurements on a GPU machine, with
# prebuilt zkarena, zkarena-gpud and zkarena-synth in BINDIR/bin (libraries in BINDIR/lib) and
# DATA a tar.xz of the two 2^20 circuits of tools/witness-bench (made on a machine with circom2:
# NAME.r1cs, NAME.wcg from `zkarena witness --c`, NAME.in.json from inputs.js, and t-NAME/, the
# circom C++ generator kept by `bench witness --keep-cpp`), for NAME in merkle sha16:
#   1. a test-only key per circuit (`setup --insecure --gpu`), the graph beside it;
#   2. `zkarena bench witness`: zkarena's graph against circom's C++ (prebuilt), per core;
#   3. `zkarena bench pipeline --backend cuda` from the .wtns, then from input.json (--input):
#      proofs/s, GPU busy and the GPU-only ceiling of each, in the same call. The workers of
#      the input.json runs: $INPUT_WORKERS (default 16 x 1 thread: the witness is one thread).
#      CIRCUITS (default "merkle sha16") picks the circuits.
set -u
B=$1 DATA=$2 OUT=$3 JOBS=${4:-300}
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, ok/ko, gpu_machine
mkdir -p "$OUT/w"
gpu_machine
tar -xJf "$DATA" -C "$OUT/w" || { echo "FAIL cannot unpack $DATA"; exit 1; }
INPUT_WORKERS=${INPUT_WORKERS:---workers 16 --threads 1}
for c in ${CIRCUITS:-merkle sha16}; do
	d=$OUT/w
	t0=$(date +%s.%N)
	"$ZK" setup --insecure --gpu --seed 7 "$d/$c.r1cs" "$d/$c.zkey" "$d/$c.vk.json" >/dev/null 2>"$d/$c.setup.log" ||
		{ ko "$c: setup: $(tail -1 "$d/$c.setup.log")"; continue; }
	echo "$c: test-only key in $(gpu_secs "$t0") s"
	mv "$d/$c.wcg" "$d/$c.zkey.wcg"
	"$ZK" witness "$d/$c.zkey" "$d/$c.in.json" "$d/$c.wtns" && ok "$c: witness from input.json"
	"$ZK" bench witness "$d/$c.zkey" "$d/$c.in.json" --cpp "$d/t-$c" --runs 9 2>&1 | tee "$OUT/bench-witness-$c.txt"
	for mode in wtns input; do
		arg=(--wtns "$d/$c.wtns")
		# shellcheck disable=SC2206
		[ $mode = input ] && arg=(--input "$d/$c.in.json" $INPUT_WORKERS)
		"$ZK" bench pipeline --backend cuda --zkey "$d/$c.zkey" "${arg[@]}" --jobs "$JOBS" 2>&1 |
			tee "$OUT/bench-pipeline-$c-$mode.txt" | grep -v " done " | tail -22
	done
done
echo "$pass passed, $fail failed"
