#!/bin/bash
# gpu-keys-table.sh BINDIR OUTDIR RAPIDSNARK LOG2... - issue 18's table on a GPU machine, in one
# run: for each BN254 random circuit of 2^LOG2 (minus 64) constraints, wall seconds of
#   rapidsnark (all cores) | import to .zka (points validated: what a .zkey's first use costs) | prove --gpu from the .zka (loader, no resident key) |
#   (and each run's wall minus its own key load) | prove --gpu with the key resident (params load) |
#   prove (CPU, all cores) resident |
#   prove --arena (a running cuda pipeline; first call loads the key into the arena)
# three runs each (min/max), the "key load" stage and the key-file open count of `--times`.
# Prebuilt zkarena, zkarena-gpud, zkarena-synth in BINDIR/bin, libraries in BINDIR/lib.
set -u
B=$1 OUT=$2 RS=$3
shift 3
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, gpu_machine, gpu_random_key
export ZKARENA_CACHE=$OUT/cache
mkdir -p "$OUT" "$ZKARENA_CACHE"
gpu_machine
echo "files on $(df -T "$OUT" | awk 'NR==2 {print $2}')"
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f", a - b }'; } # seconds since $1 (no bc on the GPU machine)
# t3 LABEL CMD...: runs CMD three times, prints "min-max" wall seconds; the last run's stderr in $OUT/last.err
t3() {
	local lab=$1 lo= hi= i t0 t1 d
	shift
	for i in 1 2 3; do
		t0=$(now)
		"$@" >/dev/null 2>"$OUT/last.err" || { echo "FAIL $lab: $(tail -1 "$OUT/last.err")" >&2; echo "fail"; return; }
		d=$(since "$t0")
		[ -z "$lo" ] || awk -v a="$d" -v b="$lo" 'BEGIN { exit !(a < b) }' && lo=$d
		[ -z "$hi" ] || awk -v a="$d" -v b="$hi" 'BEGIN { exit !(a > b) }' && hi=$d
	done
	printf "%.2f-%.2f" "$lo" "$hi"
}
stage() { grep -o "key load [0-9.]* s" "$OUT/last.err" | head -1 | awk '{print $3}'; }
# t3o LABEL CMD...: as t3, then each run's wall minus its own "key load" stage, "min-max" in $OVER
t3o() {
	local lab=$1 i t0 d l
	shift
	OVER= T3O=
	local lo= hi= olo= ohi=
	for i in 1 2 3; do
		t0=$(now)
		"$@" >/dev/null 2>"$OUT/last.err" || { T3O=fail; return; }
		d=$(since "$t0")
		l=$(stage)
		o=$(awk -v a="$d" -v b="${l:-0}" 'BEGIN { printf "%.3f", a - b }')
		[ -z "$lo" ] || awk -v a="$d" -v b="$lo" 'BEGIN { exit !(a < b) }' && lo=$d
		[ -z "$hi" ] || awk -v a="$d" -v b="$hi" 'BEGIN { exit !(a > b) }' && hi=$d
		[ -z "$olo" ] || awk -v a="$o" -v b="$olo" 'BEGIN { exit !(a < b) }' && olo=$o
		[ -z "$ohi" ] || awk -v a="$o" -v b="$ohi" 'BEGIN { exit !(a > b) }' && ohi=$o
	done
	T3O=$(printf "%.2f-%.2f" "$lo" "$hi")
	OVER=$(printf "%.2f-%.2f" "$olo" "$ohi")
}
opens() { grep -o "key files opened [0-9]*" "$OUT/last.err" | awk '{print $4}'; }
rows=()
for lg in "$@"; do
	d=$OUT/k$lg
	mkdir -p "$d"
	# a caller may have made the circuit, key and .zka already (c.zkey, c.wtns, vk.json, and
	# c.zka with its import time in import.s) to share them with other measurements
	[ -f "$d/c.zkey" ] || gpu_random_key bn128 "$lg" "$d" || continue
	zb=$(stat -c %s "$d/c.zkey")
	rs=$(t3 rapidsnark "$RS" "$d/c.zkey" "$d/c.wtns" "$d/rs.proof.json" "$d/rs.public.json")
	if [ -f "$d/c.zka" ] && [ -f "$d/import.s" ]; then
		imp=$(cat "$d/import.s")
	else
		t0=$(now)
		"$ZK" import "$d/c.zkey" -o "$d/c.zka" >/dev/null 2>"$d/import.err" || { echo "FAIL import 2^$lg: $(tail -1 "$d/import.err")"; continue; }
		imp=$(printf "%.1f" "$(since "$t0")")
	fi
	t3o "gpu zka" "$ZK" prove --gpu --times "$d/c.zka" "$d/c.wtns" "$d/p.json" "$d/pub.json"
	gx=$T3O gx_over=$OVER
	gx_load=$(stage)
	grep "zkarena prove: \(key load\|gpu:\|BN254\)" "$OUT/last.err" >"$d/gpu-zka.times"
	t0=$(now)
	"$ZK" params load "$d/c.zka" >"$d/load.out" 2>&1 || { echo "FAIL params load 2^$lg: $(tail -1 "$d/load.out")"; continue; }
	pl=$(printf "%.2f" "$(since "$t0")")
	gr=$(t3 "gpu resident" "$ZK" prove --gpu --times "$d/c.zka" "$d/c.wtns" "$d/p.json" "$d/pub.json")
	gr_load=$(stage) gr_open=$(opens)
	grep "zkarena prove: \(key load\|gpu:\|BN254\)" "$OUT/last.err" >"$d/gpu-resident.times"
	cr=$(t3 "cpu resident" "$ZK" prove --times "$d/c.zka" "$d/c.wtns" "$d/p.json" "$d/pub.json")
	cr_load=$(stage)
	"$ZK" verify "$d/vk.json" "$d/pub.json" "$d/p.json" >/dev/null && ok=verifies || ok="DOES NOT VERIFY"
	A=keys$lg$$
	"$ZK" arena create "$A" --slots 4 --slot-bytes $(((160 << lg) >> 20))M >/dev/null
	"$ZK" run "$A" --backend cuda >"$d/run.log" 2>&1 &
	runpid=$!
	sleep 2
	t0=$(now)
	"$ZK" prove --arena "$A" "$d/c.zka" "$d/c.wtns" "$d/a.json" "$d/apub.json" >/dev/null 2>"$d/arena1.err"
	first=$(printf "%.2f" "$(since "$t0")")
	ar=$(t3 "arena" "$ZK" prove --arena "$A" --times "$d/c.zka" "$d/c.wtns" "$d/a.json" "$d/apub.json")
	cp "$OUT/last.err" "$d/arena.times"
	"$ZK" verify "$d/vk.json" "$d/apub.json" "$d/a.json" >/dev/null && aok=verifies || aok="DOES NOT VERIFY"
	kill -TERM $runpid
	wait $runpid
	"$ZK" arena destroy "$A" >/dev/null 2>&1
	"$ZK" params list >"$d/list.out" 2>&1
	# KEEP=1: the resident key and the files stay (for a pipeline benchmark on the same key)
	[ "${KEEP:-0}" = 1 ] ||
		for id in $(awk '$2 == "resident" {print $1}' "$d/list.out"); do "$ZK" params evict "$id" >/dev/null 2>&1; done
	rows+=("| 2^$lg | $((zb >> 20)) MiB | $rs | $imp | $gx (key $gx_load; wall - key load $gx_over) | $pl | $gr (key $gr_load, $gr_open files) | $cr (key $cr_load) | $first / $ar |")
	echo "2^$lg done: cpu/gpu proof $ok, arena proof $aok"
	echo "  prove --gpu from the .zka, last run's stages:"
	sed 's/^/    /' "$d/gpu-zka.times"
	echo "  prove --gpu resident, last run's stages:"
	sed 's/^/    /' "$d/gpu-resident.times"
	grep "zkarena prove: arena" "$d/arena.times" 2>/dev/null | sed 's/^/    /'
	[ "${KEEP:-0}" = 1 ] || rm -f "$d/c.zkey" "$d/c.r1cs" "$d/c.zka"
done
echo
echo "| domain | .zkey | rapidsnark | import (once) | prove --gpu .zka | params load | prove --gpu resident | prove CPU resident | prove --arena first / next |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
