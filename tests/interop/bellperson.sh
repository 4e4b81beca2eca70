#!/usr/bin/env bash
# bellperson.sh ZKARENA - bellperson .params keys end to end (docs/bellperson.md) on the mix
# circuit compiled by circom2 for BLS12-381: setup --format bellperson, import, prove (cache
# and .zka, fixed r, s: the same proof), verify by zkarena (proof.json and the 192 bytes) and
# by snarkjs 0.7.6 (the vk exported from the .params), --gpu (the CPU's proof where there is a
# device), and the refusals: no --r1cs, a BN254 circuit, a corrupted .params (section and index
# named), a tampered 192-byte proof.
# The .zkey of the same seed converted (zkey export bellperson): h and the vk equal the
# bellperson setup's byte for byte; imported and proved with --root snarkjs (the .zkey's
# proof), verified by snarkjs and zkarena; without --root snarkjs refused; a BN254 .zkey
# refused in one line; a key of a snarkjs ceremony (2^7) converted, proved, verified.
# Prints one line per check and "N passed, N failed"; exits non-zero on a failure.
set -uo pipefail
zk=$1
here=$(cd "$(dirname "$0")" && pwd)
snarkjs="node $here/node_modules/snarkjs/cli.js"
circom2="$here/node_modules/.bin/circom2"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
export ZKARENA_CACHE=$t/cache
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
expect() {
	local want=$1 what=$2
	shift 2
	"$@" >"$t/out" 2>&1
	local got=$?
	if [ "$got" = "$want" ]; then ok "$what"; else ko "$what (exit $got, wanted $want): $(tail -c 300 "$t/out" | tr '\n' ' ')"; fi
	[ "$got" = "$want" ]
}
# says CODE PATTERN DESCRIPTION CMD...: expect, and the output matches PATTERN
says() {
	local want=$1 pat=$2 what=$3
	shift 3
	if expect "$want" "$what" "$@"; then
		grep -qE "$pat" "$t/out" || ko "$what: output lacks /$pat/: $(tr '\n' ' ' <"$t/out")"
	fi
}

# the circuit: mix (one public input, two outputs) for BLS12-381, and for BN254 (a refusal)
w=$t/c
mkdir -p "$w/circomlib"
cp "$here/circuits/mix.circom" "$w/"
cp -r "$here/node_modules/circomlib/circuits" "$w/circomlib/"
(cd "$w" && "$circom2" mix.circom --r1cs --wasm --prime bls12381 -o . >/dev/null) || { echo "circom2 failed"; echo "0 passed, 1 failed"; exit 1; }
$snarkjs wtns calculate "$w/mix_js/mix.wasm" "$here/circuits/mix.input.json" "$t/mix.wtns" >/dev/null
mkdir -p "$t/bn" && cp "$w/mix.circom" "$t/bn/" && cp -r "$w/circomlib" "$t/bn/"
(cd "$t/bn" && "$circom2" mix.circom --r1cs --prime bn128 -o . >/dev/null)
mkdir -p "$t/np" && cp "$here/circuits/nopub.circom" "$t/np/" && cp -r "$w/circomlib" "$t/np/"
(cd "$t/np" && "$circom2" nopub.circom --r1cs --prime bls12381 -o . >/dev/null)
r1=$w/mix.r1cs
R=123456789
S=987654321

says 0 "WARNING" "setup --format bellperson" "$zk" setup --insecure --seed 7 --format bellperson --no-progress "$r1" "$t/mix.params" "$t/setup.vk.json"
expect 0 "setup of a .zkey from the same toxic waste" "$zk" setup --insecure --seed 7 --no-progress "$r1" "$t/mix.zkey" "$t/zkey.vk.json"
says 2 "BLS12-381 only" "setup --format bellperson refuses a BN254 circuit" "$zk" setup --insecure --seed 7 --format bellperson "$t/bn/mix.r1cs" "$t/bn.params" "$t/bn.vk.json"
[ ! -e "$t/bn.params" ] && ok "nothing written for it" || ko "a BN254 .params was written"

# prove from the .params (imported through the cache), then from an imported .zka: same proof
expect 0 "prove mix.params --r1cs (--bellperson-proof)" "$zk" prove --r $R --s $S "$t/mix.params" --r1cs "$r1" --bellperson-proof "$t/p.bin" "$t/mix.wtns" "$t/p.json" "$t/pub.json"
[ "$(stat -c %s "$t/p.bin" 2>/dev/null)" = 192 ] && ok "the bellperson proof is 192 bytes" || ko "the bellperson proof is not 192 bytes"
expect 0 "prove again (the cache entry)" "$zk" prove --r $R --s $S "$t/mix.params" --r1cs "$r1" "$t/mix.wtns" "$t/p2.json" "$t/pub2.json"
cmp -s "$t/p.json" "$t/p2.json" && ok "cache hit: the same proof" || ko "cache hit: another proof"
# a cache entry of the .zka version before the H kind (3) is imported again, not misread
ce=$(ls "$ZKARENA_CACHE"/mix.params-*.zka 2>/dev/null | head -1)
if [ -n "$ce" ]; then
	printf '\x03\x00\x00\x00' | dd of="$ce" bs=1 seek=8 conv=notrunc status=none
	says 0 "version 3, this zkarena reads version 4.*importing again" "a version-3 cache entry is re-imported" "$zk" prove --r $R --s $S "$t/mix.params" --r1cs "$r1" "$t/mix.wtns" "$t/p4.json" "$t/pub4.json"
	cmp -s "$t/p.json" "$t/p4.json" && ok "re-imported: the same proof" || ko "re-imported: another proof"
else
	ko "no cache entry of mix.params in $ZKARENA_CACHE"
fi
expect 0 "import mix.params --r1cs -o mix.zka" "$zk" import "$t/mix.params" --r1cs "$r1" -o "$t/mix.zka"
expect 0 "prove mix.zka" "$zk" prove --r $R --s $S "$t/mix.zka" "$t/mix.wtns" "$t/p3.json" "$t/pub3.json"
cmp -s "$t/p.json" "$t/p3.json" && ok ".zka: the same proof" || ko ".zka: another proof"
says 2 "needs its circuit" "prove mix.params without --r1cs is refused" "$zk" prove "$t/mix.params" "$t/mix.wtns" "$t/x.json" "$t/xp.json"
# --gpu: a bellperson key proves on the device too (its monomial H, cuda/drv_ntt.cuh), the CPU's
# proof for the same r, s; a build without CUDA, or a machine without a device, says so instead
# (and must not refuse the key itself)
gpu_prove() {
	local what=$1
	shift
	rm -f "$t/g.json"
	"$zk" prove --gpu --r $R --s $S "$@" "$t/mix.wtns" "$t/g.json" "$t/gp.json" >"$t/out" 2>&1
	local got=$?
	if [ "$got" = 0 ]; then
		cmp -s "$t/p.json" "$t/g.json" && ok "$what --gpu: the CPU's proof" || ko "$what --gpu: a proof other than the CPU's"
	elif grep -qiE "CPU only|monomial|bellperson" "$t/out"; then
		ko "$what --gpu: the key refused (exit $got): $(tr '\n' ' ' <"$t/out")"
	elif grep -qiE "without CUDA|CUDA|device" "$t/out"; then
		ok "$what --gpu: not proved here (exit $got: $(head -c 160 "$t/out" | tr '\n' ' '))"
	else
		ko "$what --gpu (exit $got): $(tr '\n' ' ' <"$t/out")"
	fi
}
gpu_prove "prove mix.params --r1cs" "$t/mix.params" --r1cs "$r1"
gpu_prove "prove mix.zka (monomial H)" "$t/mix.zka"
says 2 "needs its circuit" "import mix.params without --r1cs is refused" "$zk" import "$t/mix.params" -o "$t/x.zka"

# verify: zkarena with the .params's vk, both proof forms; snarkjs with the exported vk
says 0 "^OK" "zkarena verify mix.params pub.json p.json" "$zk" verify "$t/mix.params" "$t/pub.json" "$t/p.json"
says 0 "^OK" "zkarena verify mix.params pub.json p.bin (192 bytes)" "$zk" verify "$t/mix.params" "$t/pub.json" "$t/p.bin"
expect 0 "zkey export verificationkey mix.params" "$zk" zkey export verificationkey "$t/mix.params" "$t/vk.json"
cmp -s "$t/vk.json" "$t/setup.vk.json" && ok "the exported vk is setup's" || ko "the exported vk differs from setup's"
says 0 "^OK" "zkarena verify vk.json pub.json p.bin" "$zk" verify "$t/vk.json" "$t/pub.json" "$t/p.bin"
mkfifo "$t/f.params" "$t/f.bin"
says 2 "not a regular file" "a FIFO as the .params: refused at once" timeout 10 "$zk" verify "$t/f.params" "$t/pub.json" "$t/p.bin"
says 2 "not a regular file" "a FIFO as the proof: refused at once" timeout 10 "$zk" verify "$t/mix.params" "$t/pub.json" "$t/f.bin"
says 0 "OK" "snarkjs groth16 verify vk.json pub.json p.json" $snarkjs groth16 verify "$t/vk.json" "$t/pub.json" "$t/p.json"
# the .zkey of the same toxic waste: its own proof verifies (its domain's roots are snarkjs's,
# so its A, B, C points differ from the .params's; test_bellperson compares the two H kinds
# on one root byte for byte)
expect 0 "prove mix.zkey (same toxic waste)" "$zk" prove --r $R --s $S "$t/mix.zkey" "$t/mix.wtns" "$t/z.json" "$t/zpub.json"
cmp -s "$t/pub.json" "$t/zpub.json" && ok "the same public.json" || ko "another public.json"
says 0 "OK" "snarkjs verifies the .zkey's proof" $snarkjs groth16 verify "$t/zkey.vk.json" "$t/zpub.json" "$t/z.json"

# the .zkey's key converted to a .params (zkey export bellperson): h and the vk are the
# bellperson setup's of the same toxic waste byte for byte (the monomials do not depend on the
# roots); its rows stay numbered by snarkjs's roots, so it proves with --root snarkjs only
says 0 "with --root snarkjs" "zkey export bellperson mix.zkey conv.params" "$zk" zkey export bellperson "$t/mix.zkey" "$t/conv.params"
# section offsets: vk 864 bytes, ic (count + 96 nic), h (count + 96 nh)
be32() { od -An -tu1 -j"$2" -N4 "$1" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}'; }
nic=$(be32 "$t/mix.params" 864)
nh=$(od -An -tu1 -j$((864 + 4 + 96 * nic)) -N4 "$t/mix.params" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
hsec() { tail -c +$((864 + 4 + 96 * nic + 1)) "$1" | head -c $((4 + 96 * nh)); }
[ "$nh" -gt 0 ] && cmp -s <(hsec "$t/conv.params") <(hsec "$t/mix.params") && ok "converted h = the bellperson setup's ($nh points)" || ko "converted h differs from the bellperson setup's"
cmp -s <(head -c 864 "$t/conv.params") <(head -c 864 "$t/mix.params") && ok "converted vk points = the bellperson setup's" || ko "converted vk points differ"
cmp -s "$t/conv.params" "$t/mix.params" && ko "the converted file equals the bellperson setup's (a, b, l, ic should differ)" || ok "a, b, l, ic differ (another numbering of the rows)"
expect 0 "import conv.params --root snarkjs --r1cs -o conv.zka" "$zk" import "$t/conv.params" --root snarkjs --r1cs "$r1" -o "$t/conv.zka"
expect 0 "prove conv.zka --bellperson-proof" "$zk" prove --r $R --s $S --bellperson-proof "$t/c.bin" "$t/conv.zka" "$t/mix.wtns" "$t/c.json" "$t/cpub.json"
cmp -s "$t/c.json" "$t/z.json" && ok "the converted key's proof is the .zkey's (same r, s)" || ko "the converted key's proof differs from the .zkey's"
expect 0 "zkey export verificationkey conv.params" "$zk" zkey export verificationkey "$t/conv.params" "$t/cvk.json"
cmp -s "$t/cvk.json" "$t/zkey.vk.json" && ok "its vk is the .zkey's" || ko "its vk differs from the .zkey's"
says 0 "OK" "snarkjs groth16 verify (converted vk)" $snarkjs groth16 verify "$t/cvk.json" "$t/cpub.json" "$t/c.json"
says 0 "^OK" "zkarena verify conv.params cpub.json c.bin" "$zk" verify "$t/conv.params" "$t/cpub.json" "$t/c.bin"
# without --root snarkjs: the rows read as 7^t's, the proof does not verify, nothing written;
# the cache keeps the two imports apart (one entry each), so the second --root snarkjs proof
# comes from its own entry
expect 0 "prove conv.params --root snarkjs (imported through the cache)" "$zk" prove --r $R --s $S "$t/conv.params" --root snarkjs --r1cs "$r1" "$t/mix.wtns" "$t/c2.json" "$t/c2pub.json"
cmp -s "$t/c.json" "$t/c2.json" && ok "the same proof" || ko "another proof"
says 1 "does not verify.*--root snarkjs" "prove conv.params without --root snarkjs is refused" "$zk" prove --r $R --s $S "$t/conv.params" --r1cs "$r1" "$t/mix.wtns" "$t/c3.json" "$t/c3pub.json"
[ ! -e "$t/c3.json" ] && [ ! -e "$t/c3pub.json" ] && ok "nothing written for it" || ko "a proof was written without --root snarkjs"
[ "$(ls "$ZKARENA_CACHE"/conv.params-*.zka 2>/dev/null | wc -l)" = 2 ] && ok "two cache entries, one per root" || ko "not two cache entries for conv.params: $(ls "$ZKARENA_CACHE")"
expect 0 "prove conv.params --root snarkjs again (its cache entry)" "$zk" prove --r $R --s $S "$t/conv.params" --root snarkjs --r1cs "$r1" "$t/mix.wtns" "$t/c4.json" "$t/c4pub.json"
cmp -s "$t/c.json" "$t/c4.json" && ok "the same proof" || ko "another proof"
expect 0 "import conv.params without --root -o convg.zka" "$zk" import "$t/conv.params" --r1cs "$r1" -o "$t/convg.zka"
says 1 "does not verify" "prove convg.zka (7^t recorded): refused" "$zk" prove "$t/convg.zka" "$t/mix.wtns" "$t/c5.json" "$t/c5pub.json"
# refusals: a BN254 .zkey (one line), --root with a .zkey, an unknown root
expect 0 "setup of a BN254 .zkey" "$zk" setup --insecure --seed 7 --no-progress "$t/bn/mix.r1cs" "$t/bn.zkey" "$t/bnz.vk.json"
says 2 "bn.zkey: a BN254 key; bellperson .params keys are BLS12-381 only" "zkey export bellperson refuses a BN254 .zkey" "$zk" zkey export bellperson "$t/bn.zkey" "$t/bnc.params"
[ "$(wc -l <"$t/out")" = 1 ] && [ ! -e "$t/bnc.params" ] && ok "in one line, nothing written" || ko "not one line, or a file written: $(cat "$t/out")"
says 2 "not a bellperson .params" "prove --root with a .zkey is refused" "$zk" prove --root snarkjs "$t/mix.zkey" "$t/mix.wtns" "$t/x.json" "$t/xp.json"
says 2 "expected snarkjs or bellperson" "--root other is refused" "$zk" import "$t/conv.params" --root other --r1cs "$r1" -o "$t/x.zka"
# a snarkjs ceremony's key (powers of tau 2^7 with a contribution, groth16 setup, a phase-2
# contribution: ~6 s): converted, proved with --root snarkjs, verified by snarkjs and zkarena
sj=$t/sj
mkdir -p "$sj"
if $snarkjs powersoftau new bls12381 7 "$sj/p0.ptau" >/dev/null &&
	$snarkjs powersoftau contribute "$sj/p0.ptau" "$sj/p1.ptau" --name=ci -e="ci $RANDOM" >/dev/null &&
	$snarkjs powersoftau prepare phase2 "$sj/p1.ptau" "$sj/p.ptau" >/dev/null &&
	$snarkjs groth16 setup "$r1" "$sj/p.ptau" "$sj/s0.zkey" >/dev/null &&
	$snarkjs zkey contribute "$sj/s0.zkey" "$sj/s.zkey" --name=ci -e="ci $RANDOM" >/dev/null &&
	$snarkjs zkey export verificationkey "$sj/s.zkey" "$sj/svk.json" >/dev/null; then
	expect 0 "snarkjs's .zkey: zkey export bellperson" "$zk" zkey export bellperson "$sj/s.zkey" "$sj/s.params"
	expect 0 "prove s.params --root snarkjs --bellperson-proof" "$zk" prove --root snarkjs --bellperson-proof "$sj/p.bin" "$sj/s.params" --r1cs "$r1" "$t/mix.wtns" "$sj/p.json" "$sj/pub.json"
	expect 0 "zkey export verificationkey s.params" "$zk" zkey export verificationkey "$sj/s.params" "$sj/vk.json"
	cmp -s "$sj/vk.json" "$sj/svk.json" && ok "its vk is snarkjs's export of the .zkey" || ko "its vk differs from snarkjs's export"
	says 0 "OK" "snarkjs groth16 verify (converted vk)" $snarkjs groth16 verify "$sj/vk.json" "$sj/pub.json" "$sj/p.json"
	says 0 "^OK" "zkarena verify s.params pub.json p.bin" "$zk" verify "$sj/s.params" "$sj/pub.json" "$sj/p.bin"
	says 1 "does not verify" "prove s.params without --root snarkjs is refused" "$zk" prove "$sj/s.params" --r1cs "$r1" "$t/mix.wtns" "$sj/q.json" "$sj/qpub.json"
else
	ko "the snarkjs ceremony failed"
fi
# wrong: a public input, a tampered proof
node -e "const fs=require('fs');let j=JSON.parse(fs.readFileSync('$t/pub.json'));j[j.length-1]=(BigInt(j[j.length-1])+1n).toString();fs.writeFileSync('$t/tpub.json',JSON.stringify(j))"
says 1 "INVALID" "zkarena rejects a changed public input (192 bytes)" "$zk" verify "$t/mix.params" "$t/tpub.json" "$t/p.bin"
expect 1 "snarkjs rejects it" $snarkjs groth16 verify "$t/vk.json" "$t/tpub.json" "$t/p.json"
# the sign bit of C flipped: a valid point, a wrong proof
cp "$t/p.bin" "$t/tam.bin"
printf "$(printf '\\%03o' $(( $(od -An -tu1 -j144 -N1 "$t/p.bin") ^ 0x20 )))" | dd of="$t/tam.bin" bs=1 seek=144 conv=notrunc status=none
says 1 "INVALID" "zkarena rejects C negated (192 bytes)" "$zk" verify "$t/mix.params" "$t/pub.json" "$t/tam.bin"
# x of A changed: most likely off the curve, else out of the subgroup
cp "$t/p.bin" "$t/tam.bin"
printf '\x11' | dd of="$t/tam.bin" bs=1 seek=47 conv=notrunc status=none
says 2 "A: " "zkarena rejects A changed (malformed)" "$zk" verify "$t/mix.params" "$t/pub.json" "$t/tam.bin"

# a corrupted .params: a point's last byte, the count of h, truncated, extra bytes
size=$(stat -c %s "$t/mix.params")
cp "$t/mix.params" "$t/bad.params"
# vk (864 bytes), ic's count (4, big-endian) and points, h's count (4): h[0] ends 96 later
nic=$(od -An -tu1 -j864 -N4 "$t/mix.params" | awk '{print $1*16777216 + $2*65536 + $3*256 + $4}')
h0=$((864 + 4 + 96 * nic + 4 + 95))
printf '\x00' | dd of="$t/bad.params" bs=1 seek=$h0 conv=notrunc status=none
cmp -s "$t/bad.params" "$t/mix.params" && printf '\x01' | dd of="$t/bad.params" bs=1 seek=$h0 conv=notrunc status=none
says 2 "section h index 0: " "a bad h[0] is refused naming it" "$zk" prove "$t/bad.params" --r1cs "$r1" "$t/mix.wtns" "$t/x.json" "$t/xp.json"
head -c $((size - 100)) "$t/mix.params" >"$t/bad.params"
says 2 "truncated" "a truncated .params is refused" "$zk" import "$t/bad.params" --r1cs "$r1" -o "$t/x.zka"
cp "$t/mix.params" "$t/bad.params" && printf 'xyz' >>"$t/bad.params"
says 2 "3 extra bytes" "extra bytes are refused" "$zk" import "$t/bad.params" --r1cs "$r1" -o "$t/x.zka"
[ ! -e "$t/x.zka" ] && ok "nothing imported from a bad .params" || ko "a .zka was written from a bad .params"
says 2 "BLS12-381 only" "a .params with a BN254 circuit is refused" "$zk" prove "$t/mix.params" --r1cs "$t/bn/mix.r1cs" "$t/mix.wtns" "$t/x.json" "$t/xp.json"
says 2 "ic has 4 points, the circuit 0 public" "a .params with another circuit is refused" "$zk" import "$t/mix.params" --r1cs "$t/np/nopub.r1cs" -o "$t/x.zka"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
