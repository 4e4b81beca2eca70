#!/bin/bash
# gpu-bench-pipeline.sh BINDIR OUTDIR [SIZES...] - the pipeline measurements of docs/synthesis.md
# on a GPU machine, with prebuilt zkarena, zkarena-gpud and zkarena-synth in BINDIR/bin (and the
# shared libraries the machine lacks in BINDIR/lib):
#   1. the circom fixtures of tests/data/fmt: `prove --gpu` byte-identical to the CPU prover
#      (fixed r and s) and the pipeline on the cuda backend with two proofs in flight;
#   2. `zkarena bench pipeline --backend cuda` for each SIZE (CURVE:LOG2[:JOBS][:sweep|:both];
#      both: --producer both, the built-in workers and then libzkarena producers, one run).
# Logs under OUTDIR; prints "N passed, N failed" for part 1.
set -u
B=$1 OUT=$2
shift 2
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, FX, ok/ko, gpu_machine
mkdir -p "$OUT"
gpu_machine
R=123456789012345678901234567890 S=987654321098765432109876543210
for k in bn128.mix bn128.nopub bls12381.nopub; do
	d=$OUT/fx-$k
	mkdir -p "$d"
	"$ZK" prove --gpu --r $R --s $S "$FX/$k.setup.zkey" "$FX/$k.wtns" "$d/g.proof.json" "$d/g.public.json" 2>"$d/gpu.log" &&
		"$ZK" prove --r $R --s $S "$FX/$k.setup.zkey" "$FX/$k.wtns" "$d/c.proof.json" "$d/c.public.json" 2>"$d/cpu.log" &&
		cmp -s "$d/g.proof.json" "$d/c.proof.json" && ok "$k: prove --gpu byte-identical to the CPU prover" ||
		ko "$k: GPU and CPU proofs differ or failed: $(tail -2 "$d/gpu.log" "$d/cpu.log")"
done
A=gpupipe$$
"$ZK" arena create "$A" --slots 6 --slot-bytes 8M >/dev/null
"$ZK" run "$A" --workers 3 --threads 4 --backend cuda >"$OUT/run.log" 2>&1 &
runpid=$!
ids=() dirs=() vks=()
for i in $(seq 1 24); do
	k=bn128.nopub
	[ $((i % 2)) = 0 ] && k=bls12381.nopub
	mkdir -p "$OUT/pipe/$i"
	ids+=("$("$ZK" submit "$A" "$FX/$k.zkey" "$FX/$k.wtns" --r1cs "$FX/$k.r1cs" --out "$OUT/pipe/$i" | tail -1)")
	vks+=("$FX/$k.vk.json")
done
n=0 v=0
for i in $(seq 1 24); do
	"$ZK" wait "$A" "${ids[$((i - 1))]}" --timeout 120 >/dev/null && n=$((n + 1))
	"$ZK" verify "${vks[$((i - 1))]}" "$OUT/pipe/$i/public.json" "$OUT/pipe/$i/proof.json" >/dev/null && v=$((v + 1))
done
[ "$n" = 24 ] && ok "pipeline (cuda, 2 in flight): 24 circom jobs of both curves (with --r1cs) DONE" || ko "pipeline: $n of 24 DONE"
[ "$v" = 24 ] && ok "pipeline proofs verify" || ko "$v of 24 pipeline proofs verify"
sleep 1.5 # the daemon's status is written once a second
"$ZK" status "$A" | grep daemon: | tee "$OUT/status.txt"
k=$(grep -c "key on the device" "$OUT/run.log")
[ "$k" = 2 ] && ok "each key loaded onto the device once (2 circuits, 2 lanes)" || ko "keys loaded $k times for 2 circuits"
kill -TERM $runpid
wait $runpid
"$ZK" arena destroy "$A" >/dev/null
echo "$pass passed, $fail failed"
for s in "$@"; do
	IFS=: read -r curve lg jobs sw <<<"$s"
	m=$(((1 << lg) - 64))
	extra=()
	[ "${sw:-}" = sweep ] && extra=(--sweep)
	t=420
	[ "${sw:-}" = both ] && extra=(--producer both) && t=840
	echo "=== bench pipeline $curve 2^$lg"
	timeout $t "$ZK" bench pipeline --backend cuda --curve "$curve" --constraints $m --jobs "${jobs:-200}" "${extra[@]}" 2>&1 |
		tr '\r' '\n' | grep -v "done$" | tee "$OUT/bench-$curve-$lg.txt"
done
