#!/bin/bash
# gpu-upload-modes.sh BINDIR OUTDIR LOG2 REPS MODE... - `prove --gpu` with the key resident, the
# upload modes interleaved (issue 18): for each of REPS rounds every MODE (a ZKA_PROVE_UPLOAD
# value: registered, staged, staged:T) runs once, in rotated order; each run's wall seconds and
# its --times stage line; then per mode the sorted walls and their median, and whether the last
# proof of each mode verifies, and that with fixed r, s every mode's proof is the CPU prover's byte
# for byte. BN254 random circuit of 2^LOG2 - 64 constraints (gpu_random_key).
set -u
B=$1 OUT=$2 LG=$3 REPS=$4
shift 4
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, gpu_machine, gpu_random_key
export ZKARENA_CACHE=$OUT/cache
mkdir -p "$OUT" "$ZKARENA_CACHE"
gpu_machine
d=$OUT/k$LG
mkdir -p "$d"
[ -f "$d/c.zkey" ] || gpu_random_key bn128 "$LG" "$d" || exit 1
[ -f "$d/c.zka" ] || "$ZK" import "$d/c.zkey" -o "$d/c.zka" >/dev/null 2>"$d/import.err" || { echo "FAIL import: $(tail -1 "$d/import.err")"; exit 1; }
"$ZK" params load "$d/c.zka" 2>&1 | tail -1
now() { date +%s.%N; }
modes=("$@")
nm=${#modes[@]}
for ((r = 0; r < REPS; r++)); do
	for ((j = 0; j < nm; j++)); do
		m=${modes[$(((j + r) % nm))]}
		t0=$(now)
		ZKA_PROVE_UPLOAD=$m "$ZK" prove --gpu --times "$d/c.zka" "$d/c.wtns" "$d/p-$m.json" "$d/pub-$m.json" >/dev/null 2>"$d/err-$m" 
		rc=$?
		w=$(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
		echo "$w" >>"$d/walls-$m"
		echo "mode $m rep $((r + 1)) rc $rc wall $w s"
		grep "zkarena prove: \(gpu:\|NOTE\|key copied\|key load\)\|files written" "$d/err-$m" | sed 's/^/   /'
	done
done
for m in "${modes[@]}"; do
	v=$("$ZK" verify "$d/vk.json" "$d/pub-$m.json" "$d/p-$m.json" >/dev/null 2>&1 && echo verifies || echo "DOES NOT VERIFY")
	s=$(sort -n "$d/walls-$m" | tr '\n' ' ')
	med=$(sort -n "$d/walls-$m" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	over=$(awk '$1 > 0.6' "$d/walls-$m" | wc -l)
	echo "mode $m: walls $s median $med, over 0.6 s: $over of $(wc -l <"$d/walls-$m"); last proof $v"
done
# the same proof every way: fixed r, s, each mode and the CPU prover (resident key too)
"$ZK" prove --r 5 --s 7 "$d/c.zka" "$d/c.wtns" "$d/fix-cpu.json" "$d/fixq-cpu.json" 2>/dev/null || echo "FAIL cpu prove (fixed r, s)"
for m in "${modes[@]}"; do
	ZKA_PROVE_UPLOAD=$m "$ZK" prove --gpu --r 5 --s 7 "$d/c.zka" "$d/c.wtns" "$d/fix-$m.json" "$d/fixq-$m.json" 2>"$d/fix-$m.err"
	if cmp -s "$d/fix-$m.json" "$d/fix-cpu.json" && cmp -s "$d/fixq-$m.json" "$d/fixq-cpu.json"; then
		echo "mode $m, fixed r, s: proof identical to the CPU prover's"
	else
		echo "FAIL mode $m, fixed r, s: proof differs from the CPU prover's ($(tail -1 "$d/fix-$m.err"))"
	fi
done
# an unreadable setting: a NOTE line, and the default staged path
ZKA_PROVE_UPLOAD=staged:99 "$ZK" prove --gpu --r 5 --s 7 "$d/c.zka" "$d/c.wtns" "$d/fix-bad.json" "$d/fixq-bad.json" 2>"$d/fix-bad.err"
if grep -q "NOTE: ZKA_PROVE_UPLOAD='staged:99' is not" "$d/fix-bad.err" && cmp -s "$d/fix-bad.json" "$d/fix-cpu.json"; then
	echo "ZKA_PROVE_UPLOAD=staged:99: NOTE line, the default path, the same proof"
else
	echo "FAIL ZKA_PROVE_UPLOAD=staged:99: $(grep -c NOTE "$d/fix-bad.err") NOTE lines, $(tail -1 "$d/fix-bad.err")"
fi
for id in $("$ZK" params list 2>/dev/null | awk '$2 == "resident" {print $1}'); do "$ZK" params evict "$id" >/dev/null 2>&1; done
