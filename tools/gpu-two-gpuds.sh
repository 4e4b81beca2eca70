#!/bin/bash
# gpu-two-gpuds.sh BINDIR OUTDIR [LOG2 [JOBS]] - issue 20's H200 check: two cuda gpuds on device 0
# (`zkarena run --devices 0,0 --backend cuda`) on one arena. JOBS BN254 random-circuit jobs of
# 2^LOG2 (default 2^20, 120 jobs) plus the circom fixtures of both curves: every job DONE, every
# proof verifies, both gpuds proved (their status files' counters), and the throughput and busy %
# of each gpud. Prebuilt binaries in BINDIR/bin, libraries in BINDIR/lib.
set -u
B=$1 OUT=$2 LG=${3:-20} N=${4:-120}
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, FX, ok/ko, gpu_machine, gpu_random_key
mkdir -p "$OUT"
gpu_machine
gpu_random_key bn128 "$LG" "$OUT" || exit 1
A=two$$
"$ZK" arena create "$A" --slots 8 --slot-bytes $(((160 << LG) >> 20))M --jobs $((2 * N + 64)) >/dev/null || exit 1
rm -f /dev/shm/zkarena-"$A".gpud*-status
"$ZK" run "$A" --devices 0,0 --backend cuda >"$OUT/run.log" 2>&1 &
runpid=$!
ids=() vks=() dirs=()
t0=$(date +%s.%N)
for i in $(seq 1 "$N"); do
	mkdir -p "$OUT/o/$i"
	ids+=("$("$ZK" submit "$A" "$OUT/c.zkey" "$OUT/c.wtns" --out "$OUT/o/$i" | tail -1)")
	vks+=("$OUT/vk.json")
done
for k in bn128.nopub bls12381.nopub; do # (bn128.mix.vk.json is not the vk of bn128.mix.setup.zkey)
	for r in 1 2 3 4 5 6; do
		i=$((${#ids[@]} + 1))
		mkdir -p "$OUT/o/$i"
		ids+=("$("$ZK" submit "$A" "$FX/$k.zkey" "$FX/$k.wtns" --r1cs "$FX/$k.r1cs" --out "$OUT/o/$i" | tail -1)")
		vks+=("$FX/$k.vk.json")
	done
done
n=0 v=0
for i in $(seq 1 ${#ids[@]}); do
	"$ZK" wait "$A" "${ids[$((i - 1))]}" --timeout 300 >/dev/null && n=$((n + 1))
	"$ZK" verify "${vks[$((i - 1))]}" "$OUT/o/$i/public.json" "$OUT/o/$i/proof.json" >/dev/null 2>&1 && v=$((v + 1))
done
el=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { print a - b }')
[ "$n" = ${#ids[@]} ] && ok "two cuda gpuds on device 0: all ${#ids[@]} jobs DONE ($N of 2^$LG, 12 circom fixtures)" || ko "$n of ${#ids[@]} DONE"
[ "$v" = ${#ids[@]} ] && ok "all proofs verify" || ko "$v of ${#ids[@]} verify"
sleep 1.5
"$ZK" status "$A" >"$OUT/status.txt" 2>&1
p0=$(sed -n 's/^counters: .* proofs=\([0-9]*\) .*/\1/p' "/dev/shm/zkarena-$A.gpud-status")
p1=$(sed -n 's/^counters: .* proofs=\([0-9]*\) .*/\1/p' "/dev/shm/zkarena-$A.gpud1-status")
[ "${p0:-0}" -ge 1 ] && [ "${p1:-0}" -ge 1 ] && ok "both gpuds proved ($p0 + $p1)" || ko "proofs per gpud: '$p0' '$p1'"
grep -q "device=0 backend=cuda" "/dev/shm/zkarena-$A.gpud-status" && grep -q "device=0 backend=cuda" "/dev/shm/zkarena-$A.gpud1-status" &&
	ok "both on device 0, backend cuda" || ko "status files: $(head -2 /dev/shm/zkarena-"$A".gpud*-status)"
echo "     (${#ids[@]} jobs in $(printf %.1f "$el") s; status:)"
sed 's/^/     /' "$OUT/status.txt" | head -20
kill -TERM $runpid
wait $runpid
"$ZK" arena destroy "$A" >/dev/null 2>&1
rm -f /dev/shm/zkarena-"$A".gpud*-status
echo "$pass passed, $fail failed"
