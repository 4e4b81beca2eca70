#!/bin/bash
# gpu-import.sh BINDIR OUTDIR RAPIDSNARK [CURVE:LOG2 ...] - issue 40's table on a GPU machine:
# for each random circuit (gpu-lib.sh's gpu_random_key; default bn128:20 bn128:22
# bls12381:22), `zkarena bench import` with --gpu and without (the CPU on every core), two runs
# each, rapidsnark in the same run for BN254; then, for the first BN254 key, the same --gpu run
# with ZKA_VALIDATE_EXACT=1 (the per-point subgroup tests: the path before the batched test).
# RUNS (default 2) runs each; MODES (default "gpu cpu") picks the rows; VON (default "auto")
# where the import validates the points: auto (the GPU when there is one), cpu
# (ZKA_VALIDATE_ON=cpu: every core); "auto cpu" runs both, A/B in one run.
# Prebuilt zkarena, zkarena-gpud, zkarena-synth in BINDIR/bin, libraries in BINDIR/lib.
set -u -o pipefail
B=$1 OUT=$2 RS=$3
shift 3
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, gpu_machine, gpu_random_key
mkdir -p "$OUT"
gpu_machine
exact_done=
for ck in "${@:-bn128:20 bn128:22 bls12381:22}"; do
	for k in $ck; do
		c=${k%:*} l=${k#*:} d=$OUT/$c-$l
		mkdir -p "$d"
		t0=$(date +%s.%N)
		gpu_random_key "$c" "$l" "$d" || { ko "$c 2^$l: key"; continue; }
		echo "== $c 2^$l: test-only key in $(gpu_secs "$t0") s"
		rs=()
		[ "$c" = bn128 ] && rs=(--rapidsnark "$RS")
		for mode in ${MODES:-gpu cpu}; do
			for von in ${VON:-auto}; do
				g=
				[ "$mode" = gpu ] && g=--gpu
				echo "-- bench import $c 2^$l ${g:-(CPU)}, points validated on: $von"
				# shellcheck disable=SC2086 # g is one flag or none
				ZKA_VALIDATE_ON=$von "$ZK" bench import "$d/c.zkey" --wtns "$d/c.wtns" "${rs[@]}" --runs "${RUNS:-2}" $g 2>&1 | grep -v '%' &&
					ok "$c 2^$l ${g:-cpu} validate:$von" || ko "$c 2^$l ${g:-cpu} validate:$von"
			done
		done
		if [ "$c" = bn128 ] && [ -z "$exact_done" ]; then
			exact_done=1
			echo "-- bench import $c 2^$l --gpu, ZKA_VALIDATE_EXACT=1 (per-point subgroup tests)"
			ZKA_VALIDATE_EXACT=1 "$ZK" bench import "$d/c.zkey" --wtns "$d/c.wtns" --runs 1 --gpu 2>&1 | grep -v '%'
		fi
		rm -f "$d/c.zkey"
	done
done
echo "$pass passed, $fail failed"
