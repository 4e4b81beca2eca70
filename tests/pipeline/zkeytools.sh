#!/usr/bin/env bash
# zkeytools.sh ZKARENA [SNARKJS_CLI] - the circom user's small tools against snarkjs:
# `zkarena zkey export verificationkey` gives the bytes of snarkjs's verification_key.json
# (vk_alphabeta_12 included) on the committed snarkjs fixtures of both curves, and, with
# snarkjs installed, on keys made here with fresh random toxic waste (both curves) and on the
# fixtures' setup keys, exported by snarkjs itself; `zkarena r1cs info` prints snarkjs's lines;
# bad input: one line, exit 2, nothing written.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
SNARKJS=${2:-}
D=$(cd "$here/../data/fmt" && pwd)
for f in bn128.nopub bls12381.nopub; do
	expect 0 "zkey export verificationkey $f.zkey" "$ZK" zkey export verificationkey "$D/$f.zkey" "$T/$f.vk.json"
	cmp -s "$T/$f.vk.json" "$D/$f.vk.json" && ok "  the bytes of snarkjs's $f.vk.json" || ko "$f: differs from snarkjs's: $(diff "$T/$f.vk.json" "$D/$f.vk.json" | head -5)"
done
expect 2 "zkey export of a missing key" "$ZK" zkey export verificationkey "$T/none.zkey" "$T/none.json"
[ ! -e "$T/none.json" ] && [ "$(wc -l <"$T/out")" = 1 ] && ok "  one line, nothing written" || ko "missing key: $(cat "$T/out")"
expect 2 "zkey export of a .wtns" "$ZK" zkey export verificationkey "$D/bn128.nopub.wtns" "$T/w.json"
[ ! -e "$T/w.json" ] && ok "  nothing written" || ko "wrote from a .wtns"
expect 2 "zkey with a wrong subcommand" "$ZK" zkey export provingkey "$D/bn128.nopub.zkey" "$T/x.json"
expect 2 "r1cs info of a .zkey" "$ZK" r1cs info "$D/bn128.nopub.zkey"
if [ -n "$SNARKJS" ]; then
	strip() { sed 's/\x1b\[[0-9;]*m//g; s/^\[INFO\]  snarkJS: //'; }
	for f in bn128.mix bn128.nopub bls12381.nopub; do
		node "$SNARKJS" r1cs info "$D/$f.r1cs" 2>&1 | strip >"$T/s.info"
		"$ZK" r1cs info "$D/$f.r1cs" >"$T/z.info" 2>&1
		cmp -s "$T/s.info" "$T/z.info" && ok "r1cs info $f: snarkjs's lines" || ko "r1cs info $f: $(diff "$T/s.info" "$T/z.info" | head -6)"
		node "$SNARKJS" zkey export verificationkey "$D/$f.setup.zkey" "$T/s.vk.json" >/dev/null 2>&1
		"$ZK" zkey export verificationkey "$D/$f.setup.zkey" "$T/z.vk.json"
		cmp -s "$T/s.vk.json" "$T/z.vk.json" && ok "  $f.setup.zkey: the bytes snarkjs exports" || ko "$f.setup.zkey: $(diff "$T/s.vk.json" "$T/z.vk.json" | head -4)"
	done
	for c in bn128 bls12381 bn128 bls12381; do
		keys "$c" 50 k || { ko "keys $c"; continue; }
		node "$SNARKJS" zkey export verificationkey "$T/k.zkey" "$T/s.vk.json" >/dev/null 2>&1
		"$ZK" zkey export verificationkey "$T/k.zkey" "$T/z.vk.json"
		cmp -s "$T/s.vk.json" "$T/z.vk.json" && ok "fresh $c key: the bytes snarkjs exports" || ko "fresh $c key: $(diff "$T/s.vk.json" "$T/z.vk.json" | head -4)"
		cmp -s "$T/s.vk.json" "$T/k.vk.json" && ok "  and setup's vk.json is the same (vk_alphabeta_12 included)" || ko "setup's vk.json differs: $(diff "$T/s.vk.json" "$T/k.vk.json" | head -4)"
	done
else
	echo "skip the live snarkjs comparisons: snarkjs not installed (scripts/install-deps.sh)"
fi
finish
