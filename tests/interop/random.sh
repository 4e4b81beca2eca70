#!/usr/bin/env bash
# random.sh ZKARENA FIXDIR [COUNT] - zkarena against snarkjs 0.7.6 on COUNT (default 3) fresh
# random circom circuits (gen-circuit.js), each compiled for both curves and keyed with the
# powers of tau of make-fixtures.sh (FIXDIR/<curve>/pot.ptau, made if FIXDIR/.done is missing).
# The first line printed is the seed: ZKA_SEED=SEED random.sh ... repeats the run (circuit i
# comes from the generator seed SEED-i: `node gen-circuit.js SEED-i DIR NAME` rewrites it).
# Prints one line per check and a closing "N passed, N failed"; exits non-zero on a failure.
# KEEP=DIR copies each circuit's r1cs, zkey, wtns and vk.json to DIR/<curve>/rand<i>.*.
set -uo pipefail
zk=$1
fx=$2
count=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
snarkjs="node $here/node_modules/snarkjs/cli.js"
circom2="$here/node_modules/.bin/circom2"
gen="node $here/gen-circuit.js"
seed=${ZKA_SEED:-$RANDOM}
echo "seed $seed (repeat with ZKA_SEED=$seed)"
. "$here/harness.sh"
# step DESCRIPTION CMD...: a preparation step (compile, witness, key); silent when it works
step() {
	local what=$1
	shift
	"$@" >"$t/out" 2>&1 && return 0
	ko "$what (exit $?): $(tail -c 300 "$t/out" | tr '\n' ' ')"
	return 1
}
# circom2 runs under WASI and sees only its working directory: circomlib is copied into it
# and the circuits include it by relative path
w=$t/work
mkdir -p "$w/circomlib"
cp -r "$here/node_modules/circomlib/circuits" "$w/circomlib/"

for i in $(seq 1 "$count"); do
	name=rand$i
	s=$seed-$i
	rm -rf "${w:?}"/rand*
	# the circuit; a seed that wants a domain edge needs a first compile to count constraints
	$gen "$s" "$w" "$name" >"$t/summary" || { ko "$name: gen-circuit.js $s: $(cat "$t/summary")"; continue; }
	opt=$(sed -n 's|^// circom-flags: *||p' "$w/$name.circom")
	if ! grep -q 'edge=none' "$t/summary"; then
		(cd "$w" && "$circom2" "$name.circom" --r1cs $opt --prime bn128 -o . >"$t/out" 2>&1) ||
			{ ko "$name (seed $s): circom2 (first pass): $(tail -c 300 "$t/out" | tr '\n' ' ')"; continue; }
		$gen "$s" "$w" "$name" "$w/$name.r1cs" >"$t/summary" || { ko "$name: gen-circuit.js $s (padding)"; continue; }
	fi
	echo "# $name (seed $s): $(cat "$t/summary")"
	for c in bn128 bls12381; do
		d=$t/$c
		mkdir -p "$d"
		rm -f "$d"/*
		step "$c $name (seed $s): circom2 $opt" bash -c "cd '$w' && '$circom2' $name.circom --r1cs --wasm $opt --prime $c -o ." || continue
		cp "$w/$name.r1cs" "$d/c.r1cs"
		step "$c $name (seed $s): snarkjs wtns calculate" $snarkjs wtns calculate "$w/${name}_js/$name.wasm" "$w/$name.input.json" "$d/c.wtns" || continue
		step "$c $name (seed $s): snarkjs groth16 setup" $snarkjs groth16 setup "$d/c.r1cs" "$fx/$c/pot.ptau" "$d/setup.zkey" || continue
		step "$c $name (seed $s): snarkjs zkey contribute" $snarkjs zkey contribute "$d/setup.zkey" "$d/c.zkey" --name=rnd -e="rnd $RANDOM" || continue
		step "$c $name (seed $s): snarkjs zkey export verificationkey" $snarkjs zkey export verificationkey "$d/c.zkey" "$d/vk.json" || continue
		read -r m np < <($gen --info "$d/c.r1cs")
		n=$((m + np + 1))
		dom=1
		while [ $dom -lt $n ]; do dom=$((dom * 2)); done
		echo "# $c $name: $m constraints + $np public + 1 = $n, domain $dom"
		if [ -n "${KEEP:-}" ]; then
			mkdir -p "$KEEP/$c"
			cp "$d/c.r1cs" "$KEEP/$c/$name.r1cs"
			cp "$d/c.zkey" "$KEEP/$c/$name.zkey"
			cp "$d/c.wtns" "$KEEP/$c/$name.wtns"
			cp "$d/vk.json" "$KEEP/$c/$name.vk.json"
		fi
		# zkarena proves (checking the witness against the r1cs first); both verifiers accept
		# (the checks of its proof are left out when it wrote none: the failure is counted)
		zkproved=0
		expect 0 "$c $name: zkarena prove --r1cs" "$zk" prove --r1cs "$d/c.r1cs" "$d/c.zkey" "$d/c.wtns" "$d/p.json" "$d/pub.json" && zkproved=1
		if [ $zkproved = 1 ]; then
			expect 0 "$c $name: snarkjs accepts zkarena's proof" $snarkjs groth16 verify "$d/vk.json" "$d/pub.json" "$d/p.json"
			expect 0 "$c $name: zkarena accepts its own proof" "$zk" verify "$d/vk.json" "$d/pub.json" "$d/p.json"
		fi
		# snarkjs proves, zkarena verifies; the public signals are written alike
		expect 0 "$c $name: snarkjs prove" $snarkjs groth16 prove "$d/c.zkey" "$d/c.wtns" "$d/sp.json" "$d/spub.json"
		expect 0 "$c $name: zkarena accepts snarkjs's proof" "$zk" verify "$d/vk.json" "$d/spub.json" "$d/sp.json"
		if [ $zkproved = 0 ]; then
			:
		elif cmp -s "$d/pub.json" "$d/spub.json"; then
			ok "$c $name: public.json identical to snarkjs's"
		else
			ko "$c $name: public.json differs from snarkjs's: $(head -c 200 "$d/pub.json" | tr '\n' ' ') vs $(head -c 200 "$d/spub.json" | tr '\n' ' ')"
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
