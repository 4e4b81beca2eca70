#!/usr/bin/env bash
# make.sh - regenerates the snarkjs-made fixtures of the format tests (tests/data/fmt) with
# tests/interop/make-fixtures.sh (circom2 + a local snarkjs 0.7.6 ceremony) and
# `snarkjs groth16 prove`. Only the small files are kept (about 100 KB in all).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
interop=$here/../../interop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash "$interop/make-fixtures.sh" "$tmp" >/dev/null
snarkjs="node $interop/node_modules/snarkjs/cli.js"
for c in bn128 bls12381; do
	for k in mix nopub; do
		$snarkjs groth16 prove "$tmp/$c/$k.zkey" "$tmp/$c/$k.wtns" "$tmp/$c/$k.proof.json" \
			"$tmp/$c/$k.public.json" >/dev/null
	done
	for f in nopub.r1cs nopub.wtns nopub.setup.zkey nopub.zkey nopub.vk.json nopub.proof.json \
		nopub.public.json; do
		cp "$tmp/$c/$f" "$here/$c.$f"
	done
done
for f in mix.r1cs mix.wtns mix.setup.zkey mix.vk.json mix.proof.json mix.public.json; do
	cp "$tmp/bn128/$f" "$here/bn128.$f"
done
