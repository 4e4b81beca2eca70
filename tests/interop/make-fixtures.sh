#!/usr/bin/env bash
# make-fixtures.sh OUTDIR - compiles the interop circuits with circom2 and keys them with a
# local snarkjs ceremony, for both curves. Writes per curve and circuit:
#   OUTDIR/<curve>/<circuit>.r1cs .wtns  <circuit>_cpp/ (circom --c)  <circuit>_js/  setup.zkey (section order of `groth16 setup`)
#   contrib.zkey (order 1..10, after `zkey contribute`)  vk.json (of contrib.zkey)
# A powers of tau of 2^10 (the Poseidon circuit needs a domain of 1024) takes about a minute
# per curve.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
snarkjs="node $here/node_modules/snarkjs/cli.js"
circom2="$here/node_modules/.bin/circom2"
POW=${POW:-10}

for curve in bn128 bls12381; do
	d=$out/$curve
	mkdir -p "$d"
	prime=$curve
	[ "$curve" = bn128 ] && prime=bn128
	$snarkjs powersoftau new "$curve" "$POW" "$d/pot0.ptau" >/dev/null
	$snarkjs powersoftau contribute "$d/pot0.ptau" "$d/pot1.ptau" --name=ci -e="ci entropy $RANDOM" >/dev/null
	$snarkjs powersoftau prepare phase2 "$d/pot1.ptau" "$d/pot.ptau" >/dev/null
	for f in "$here"/circuits/*.circom; do
		c=$(basename "$f" .circom)
		# circom2 runs under WASI and sees only its working directory
		w=$(mktemp -d)
		cp "$here/circuits/$c.circom" "$w/"
		mkdir -p "$w/circomlib"
		cp -r "$here/node_modules/circomlib/circuits" "$w/circomlib/"
		(cd "$w" && "$circom2" "$c.circom" --r1cs --wasm --c --prime "$prime" -o . >/dev/null)
		cp "$w/$c.r1cs" "$d/$c.r1cs"
		# circom's C++ output (for `import --c`: witnesses from input.json) and its wasm
		rm -rf "$d/${c}_cpp" "$d/${c}_js"
		cp -r "$w/${c}_cpp" "$w/${c}_js" "$d/"
		$snarkjs wtns calculate "$w/${c}_js/$c.wasm" "$here/circuits/$c.input.json" "$d/$c.wtns" >/dev/null
		$snarkjs groth16 setup "$d/$c.r1cs" "$d/pot.ptau" "$d/$c.setup.zkey" >/dev/null
		$snarkjs zkey contribute "$d/$c.setup.zkey" "$d/$c.zkey" --name=ci -e="ci entropy $RANDOM" >/dev/null
		$snarkjs zkey export verificationkey "$d/$c.zkey" "$d/$c.vk.json" >/dev/null
		$snarkjs zkey export verificationkey "$d/$c.setup.zkey" "$d/$c.setup.vk.json" >/dev/null
		rm -rf "$w"
	done
	rm -f "$d"/pot0.ptau "$d"/pot1.ptau
done
echo "fixtures in $out"
