#!/bin/bash
# gpu-pipeline-check.sh BINDIR FIXDIR OUTDIR - the CUDA backend end to end on a GPU machine,
# with prebuilt zkarena, zkarena-gpud and zkarena-synth in BINDIR and the interop fixtures
# (tests/interop/make-fixtures.sh) in FIXDIR:
#   1. `zkarena prove --gpu` and the CPU prover with the same fixed r and s on every circom
#      circuit in FIXDIR/<curve>/*.zkey (with its .wtns), both curves: the proofs must be
#      byte-identical; each is also self-verified;
#   2. the pipeline with `zkarena run --backend cuda`: circom jobs of both curves in one arena;
#   3. `zkarena demo --backend cuda` on a 2^16-constraint random circuit (throughput).
# Writes logs and the proofs (for snarkjs to check elsewhere) under OUTDIR; prints
# "N passed, N failed".
set -u
B=$1 FX=$2 OUT=$3
mkdir -p "$OUT"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
R=123456789012345678901234567890 S=987654321098765432109876543210
for c in bn128 bls12381; do
	for z in "$FX/$c"/*.zkey; do
		k=$(basename "$z" .zkey)
		w=$FX/$c/${k%.setup}.wtns # make-fixtures.sh's NAME.setup.zkey goes with NAME.wtns
		d=$OUT/$c-$k
		mkdir -p "$d/gpu" "$d/cpu"
		if "$B/zkarena" prove --gpu --times --r $R --s $S "$z" "$w" "$d/gpu/proof.json" "$d/gpu/public.json" 2>"$d/gpu.log"; then
			ok "$c $k: prove --gpu (self-verified)"
		else
			ko "$c $k: prove --gpu: $(tail -2 "$d/gpu.log")"
		fi
		"$B/zkarena" prove --r $R --s $S "$z" "$w" "$d/cpu/proof.json" "$d/cpu/public.json" 2>"$d/cpu.log"
		if cmp -s "$d/gpu/proof.json" "$d/cpu/proof.json"; then ok "$c $k: GPU proof byte-identical to the CPU's"; else ko "$c $k: GPU and CPU proofs differ"; fi
	done
done
grep -h "registered\|device" "$OUT"/*/gpu.log | sort -u | head -4
# the pipeline on the CUDA backend
A=gpucheck$$
"$B/zkarena" arena create "$A" --slots 4 --slot-bytes 8M >/dev/null
"$B/zkarena" run "$A" --workers 4 --backend cuda >"$OUT/run.log" 2>&1 &
runpid=$!
ids=()
for i in $(seq 1 16); do
	c=bn128; [ $((i % 2)) = 0 ] && c=bls12381
	mkdir -p "$OUT/pipe/$i"
	ids+=("$("$B/zkarena" submit "$A" "$FX/$c/mix.zkey" "$FX/$c/mix.wtns" --r1cs "$FX/$c/mix.r1cs" --out "$OUT/pipe/$i" | tail -1)")
done
n=0
for i in $(seq 1 16); do
	"$B/zkarena" wait "$A" "${ids[$((i - 1))]}" --timeout 120 >/dev/null && n=$((n + 1))
done
[ "$n" = 16 ] && ok "pipeline (cuda backend): 16 jobs DONE" || ko "pipeline: $n of 16 DONE"
v=0
for i in $(seq 1 16); do
	c=bn128; [ $((i % 2)) = 0 ] && c=bls12381
	"$B/zkarena" verify "$FX/$c/mix.vk.json" "$OUT/pipe/$i/public.json" "$OUT/pipe/$i/proof.json" >/dev/null && v=$((v + 1))
done
[ "$v" = 16 ] && ok "pipeline proofs verify" || ko "$v of 16 pipeline proofs verify"
"$B/zkarena" status "$A" | head -3
kill -TERM $runpid; wait $runpid
"$B/zkarena" arena destroy "$A" >/dev/null
grep "backend cuda" "$OUT/run.log" | head -2
# throughput on a bigger random circuit
"$B/zkarena" demo --backend cuda --workers 8 --jobs 48 --constraints 65000 2>&1 | tr '\r' '\n' | grep -v "proving:" | tee "$OUT/demo.log"
grep -q "48 verified" "$OUT/demo.log" && ok "demo (cuda backend): 48 proofs verified" || ko "demo failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
