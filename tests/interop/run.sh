#!/usr/bin/env bash
# run.sh ZKARENA FIXDIR - interop with snarkjs 0.7.6 on both curves: circuits compiled by
# circom2 and keyed by a local snarkjs ceremony (made once into FIXDIR by make-fixtures.sh).
# Prints one line per check and a closing "N passed, N failed"; exits non-zero on a failure.
set -uo pipefail
zk=$1
fx=$2
here=$(cd "$(dirname "$0")" && pwd)
snarkjs="node $here/node_modules/snarkjs/cli.js"
. "$here/harness.sh"
# json_edit FILE EXPR: edits JSON with node (EXPR sees the parsed value as j)
json_edit() { node -e "const fs=require('fs');let j=JSON.parse(fs.readFileSync('$1'));$2;fs.writeFileSync('$1',JSON.stringify(j))"; }

for c in bn128 bls12381; do
	d=$fx/$c
	# zkarena proves, snarkjs and zkarena verify (key after contribute: sections 1..10)
	expect 0 "$c: zkarena prove mix" "$zk" prove "$d/mix.zkey" "$d/mix.wtns" "$t/p.json" "$t/pub.json"
	expect 0 "$c: snarkjs accepts zkarena's proof" $snarkjs groth16 verify "$d/mix.vk.json" "$t/pub.json" "$t/p.json"
	expect 0 "$c: zkarena accepts its own proof" "$zk" verify "$d/mix.vk.json" "$t/pub.json" "$t/p.json"
	# the key as `groth16 setup` wrote it: sections 1,2,4,3,9,8,5,6,7,10
	expect 0 "$c: zkarena prove with a setup-order zkey" "$zk" prove "$d/mix.setup.zkey" "$d/mix.wtns" "$t/p2.json" "$t/pub2.json"
	expect 0 "$c: snarkjs accepts it" $snarkjs groth16 verify "$d/mix.setup.vk.json" "$t/pub2.json" "$t/p2.json"
	# snarkjs proves, zkarena verifies
	expect 0 "$c: snarkjs prove mix" $snarkjs groth16 prove "$d/mix.zkey" "$d/mix.wtns" "$t/sp.json" "$t/spub.json"
	expect 0 "$c: zkarena accepts snarkjs's proof" "$zk" verify "$d/mix.vk.json" "$t/spub.json" "$t/sp.json"
	if cmp -s "$t/pub.json" "$t/spub.json"; then ok "$c: public.json identical to snarkjs's"; else ko "$c: public.json differs from snarkjs's"; fi
	# tampered proofs: valid points, wrong proof (pi_a and pi_c swapped)
	cp "$t/sp.json" "$t/tam.json"
	json_edit "$t/tam.json" "const a=j.pi_a;j.pi_a=j.pi_c;j.pi_c=a"
	expect 1 "$c: snarkjs rejects swapped pi_a/pi_c" $snarkjs groth16 verify "$d/mix.vk.json" "$t/spub.json" "$t/tam.json"
	expect 1 "$c: zkarena rejects swapped pi_a/pi_c" "$zk" verify "$d/mix.vk.json" "$t/spub.json" "$t/tam.json"
	# a coordinate changed: off the curve
	cp "$t/sp.json" "$t/tam.json"
	json_edit "$t/tam.json" "j.pi_a[0]=(BigInt(j.pi_a[0])+1n).toString()"
	expect 1 "$c: snarkjs rejects a changed coordinate" $snarkjs groth16 verify "$d/mix.vk.json" "$t/spub.json" "$t/tam.json"
	expect 2 "$c: zkarena rejects a changed coordinate (not on curve)" "$zk" verify "$d/mix.vk.json" "$t/spub.json" "$t/tam.json"
	# a public input changed
	cp "$t/spub.json" "$t/tpub.json"
	json_edit "$t/tpub.json" "j[j.length-1]=(BigInt(j[j.length-1])+1n).toString()"
	expect 1 "$c: snarkjs rejects a changed public input" $snarkjs groth16 verify "$d/mix.vk.json" "$t/tpub.json" "$t/sp.json"
	expect 1 "$c: zkarena rejects a changed public input" "$zk" verify "$d/mix.vk.json" "$t/tpub.json" "$t/sp.json"
	# a Poseidon hash (public input array, public output, wide linear combinations)
	expect 0 "$c: zkarena prove hash (Poseidon)" "$zk" prove --r1cs "$d/hash.r1cs" "$d/hash.zkey" "$d/hash.wtns" "$t/hp.json" "$t/hpub.json"
	expect 0 "$c: snarkjs accepts it" $snarkjs groth16 verify "$d/hash.vk.json" "$t/hpub.json" "$t/hp.json"
	expect 0 "$c: snarkjs prove hash" $snarkjs groth16 prove "$d/hash.zkey" "$d/hash.wtns" "$t/shp.json" "$t/shpub.json"
	expect 0 "$c: zkarena accepts snarkjs's hash proof" "$zk" verify "$d/hash.vk.json" "$t/shpub.json" "$t/shp.json"
	if cmp -s "$t/hpub.json" "$t/shpub.json"; then ok "$c: hash public.json identical to snarkjs's"; else ko "$c: hash public.json differs"; fi
	# no public signals: public.json is [] as snarkjs writes it
	expect 0 "$c: zkarena prove nopub" "$zk" prove "$d/nopub.zkey" "$d/nopub.wtns" "$t/np.json" "$t/npub.json"
	if [ "$(tr -d ' \n' < "$t/npub.json")" = "[]" ]; then ok "$c: public.json is [] without public signals"; else ko "$c: public.json is '$(cat "$t/npub.json")'"; fi
	expect 0 "$c: snarkjs accepts the nopub proof" $snarkjs groth16 verify "$d/nopub.vk.json" "$t/npub.json" "$t/np.json"
	# edge circuits: private inputs no constraint uses (circom drops them from the wires but
	# counts them in the header), and no constraints at all
	for e in unusedin none; do
		expect 0 "$c: zkarena prove $e" "$zk" prove --r1cs "$d/$e.r1cs" "$d/$e.zkey" "$d/$e.wtns" "$t/e.json" "$t/epub.json"
		expect 0 "$c: snarkjs accepts the $e proof" $snarkjs groth16 verify "$d/$e.vk.json" "$t/epub.json" "$t/e.json"
		expect 0 "$c: snarkjs prove $e" $snarkjs groth16 prove "$d/$e.zkey" "$d/$e.wtns" "$t/se.json" "$t/sepub.json"
		expect 0 "$c: zkarena accepts snarkjs's $e proof" "$zk" verify "$d/$e.vk.json" "$t/sepub.json" "$t/se.json"
		if cmp -s "$t/epub.json" "$t/sepub.json"; then ok "$c: $e public.json identical to snarkjs's"; else ko "$c: $e public.json differs"; fi
	done
	# a key from zkarena setup --insecure, used by snarkjs and by zkarena
	expect 0 "$c: zkarena setup --insecure" "$zk" setup --insecure --seed $RANDOM "$d/mix.r1cs" "$t/s.zkey" "$t/s.vk.json"
	expect 0 "$c: snarkjs proves with zkarena's key" $snarkjs groth16 prove "$t/s.zkey" "$d/mix.wtns" "$t/ssp.json" "$t/sspub.json"
	expect 0 "$c: snarkjs verifies with zkarena's vk" $snarkjs groth16 verify "$t/s.vk.json" "$t/sspub.json" "$t/ssp.json"
	expect 0 "$c: zkarena proves with its key" "$zk" prove "$t/s.zkey" "$d/mix.wtns" "$t/zsp.json" "$t/zspub.json"
	expect 0 "$c: snarkjs accepts that proof" $snarkjs groth16 verify "$t/s.vk.json" "$t/zspub.json" "$t/zsp.json"
	expect 2 "$c: setup refuses without --insecure" "$zk" setup "$d/mix.r1cs" "$t/x.zkey" "$t/x.json"
	# a witness that does not satisfy the circuit: --r1cs names the constraint, writes nothing
	cp "$d/mix.wtns" "$t/bad.wtns"
	sz=$(stat -c %s "$t/bad.wtns")
	printf '\x02' | dd of="$t/bad.wtns" bs=1 seek=$((sz - 32)) conv=notrunc status=none
	rm -f "$t/bp.json" "$t/bpub.json"
	expect 2 "$c: --r1cs rejects an unsatisfying witness" "$zk" prove --r1cs "$d/mix.r1cs" "$d/mix.zkey" "$t/bad.wtns" "$t/bp.json" "$t/bpub.json"
	if grep -q "constraint" "$t/out" && [ ! -e "$t/bp.json" ] && [ ! -e "$t/bpub.json" ]; then ok "$c: names the constraint, no output"; else ko "$c: unsatisfying witness: $(cat "$t/out")"; fi
	# bad inputs: wrong witness for the key, truncated key
	expect 2 "$c: witness of another circuit" "$zk" prove "$d/mix.zkey" "$d/nopub.wtns" "$t/bp.json" "$t/bpub.json"
	head -c 3000 "$d/mix.zkey" > "$t/trunc.zkey"
	expect 2 "$c: truncated zkey" "$zk" prove "$t/trunc.zkey" "$d/mix.wtns" "$t/bp.json" "$t/bpub.json"
	if [ ! -e "$t/bp.json" ] && [ ! -e "$t/bpub.json" ]; then ok "$c: no partial output after errors"; else ko "$c: output left behind after an error"; fi
done
# the pipeline on the circom circuits: both curves in one arena, checked against the r1cs,
# proofs accepted by snarkjs
arena=interop$$
if "$zk" arena create "$arena" --slots 2 --slot-bytes 1M >/dev/null; then
	"$zk" run "$arena" --workers 2 >"$t/run.log" 2>&1 &
	runpid=$!
	for c in bn128 bls12381; do
		mkdir -p "$t/pipe-$c"
		id=$("$zk" submit "$arena" "$fx/$c/mix.zkey" "$fx/$c/mix.wtns" --r1cs "$fx/$c/mix.r1cs" --out "$t/pipe-$c" | tail -1)
		expect 0 "$c: pipeline job DONE" "$zk" wait "$arena" "$id" --timeout 120
		expect 0 "$c: snarkjs accepts the pipeline's proof" $snarkjs groth16 verify "$fx/$c/mix.vk.json" "$t/pipe-$c/public.json" "$t/pipe-$c/proof.json"
	done
	kill -TERM "$runpid"
	wait "$runpid"
	"$zk" arena destroy "$arena" >/dev/null
else
	ko "arena create"
fi
# malformed verifier inputs: exit 2 with one line naming the file, never a crash
printf '{"pi_a": [' > "$t/bad.json"
echo '[]' > "$t/empty.json"
expect 2 "verify: truncated proof.json" "$zk" verify "$fx/bn128/nopub.vk.json" "$t/empty.json" "$t/bad.json"
if [ "$(wc -l < "$t/out")" = 1 ] && grep -q "bad.json" "$t/out"; then ok "  one line naming the file"; else ko "  message: $(cat "$t/out")"; fi
echo '["21888242871839275222246405745257275088548364400416034343698204186575808495617"]' > "$t/big.json"
expect 2 "verify: public value >= r" "$zk" verify "$fx/bn128/nopub.vk.json" "$t/big.json" "$t/np.json"
expect 2 "verify: BLS12-381 proof against a BN254 key" "$zk" verify "$fx/bn128/nopub.vk.json" "$t/empty.json" "$t/np.json"
expect 2 "verify: missing file" "$zk" verify "$fx/bn128/mix.vk.json" "$t/spub.json" "$t/nonexistent.json"
expect 2 "prove: wrong argument count" "$zk" prove "$fx/bn128/mix.zkey"
# a witness of the other curve
expect 2 "witness of the other curve" "$zk" prove "$fx/bn128/mix.zkey" "$fx/bls12381/mix.wtns" "$t/bp.json" "$t/bpub.json"
# bad option values: exit 2, one line naming the option, nothing written (no atoi: "3x" is not 3)
bin=$(dirname "$zk")
f=$fx/bn128
rm -f "$t/op.json" "$t/opub.json"
for args in "prove --threads 3x" "prove --threads 0" "prove --threads ''" "prove --device -1" \
	"prove --device ' 1'" "setup --insecure --threads abc" "setup --insecure --device 99999999999"; do
	eval "set -- $args"
	sub=$1
	shift
	case $sub in
	prove) expect 2 "$sub $*: rejected" "$zk" prove "$@" "$f/mix.zkey" "$f/mix.wtns" "$t/op.json" "$t/opub.json" ;;
	setup) expect 2 "$sub $*: rejected" "$zk" setup "$@" "$f/mix.r1cs" "$t/o.zkey" "$t/o.vk.json" ;;
	esac
	opt=$(printf '%s\n' "$@" | grep -e '^--' | grep -v insecure)
	if [ "$(wc -l < "$t/out")" = 1 ] && grep -q -- "$opt" "$t/out"; then ok "  one line naming $opt"; else ko "  message: $(cat "$t/out")"; fi
done
if [ ! -e "$t/op.json" ] && [ ! -e "$t/opub.json" ] && [ ! -e "$t/o.zkey" ]; then ok "no output after bad options"; else ko "output written after a bad option"; fi
expect 2 "run --workers 2x: rejected" "$zk" run noarena --workers 2x
if grep -q -- "--workers" "$t/out"; then ok "  names --workers"; else ko "  message: $(cat "$t/out")"; fi
expect 2 "demo --jobs 0: rejected" "$zk" demo --jobs 0
expect 2 "wait --timeout x: rejected" "$zk" wait noarena 1 --timeout x
if grep -q -- "--timeout" "$t/out"; then ok "  names --timeout"; else ko "  message: $(cat "$t/out")"; fi
expect 2 "bench prove --runs 1.5: rejected" "$zk" bench prove --runs 1.5
expect 2 "bench prove --rapidsnark (no such file): rejected" "$zk" bench prove --rapidsnark "$t/no-such-prover"
if grep -q -- "--rapidsnark $t/no-such-prover" "$t/out"; then ok "  names the path"; else ko "  message: $(cat "$t/out")"; fi
# bench prove's peer column with stand-ins for rapidsnark's CLI (same arguments): one that proves
# (zkarena itself) is timed and given a ratio; one that exits 0 without a proof is not
printf '#!/bin/sh\nexec "%s" prove --no-verify "$@"\n' "$zk" >"$t/rs-good"
printf '#!/bin/sh\nexit 0\n' >"$t/rs-bad"
chmod +x "$t/rs-good" "$t/rs-bad"
export ZKARENA_CACHE=$t/bench-cache
expect 0 "bench prove with a rapidsnark stand-in that proves" "$zk" bench prove --curve both --constraints 64 --runs 1 --snarkjs none --rapidsnark "$t/rs-good"
if grep -q "^| BN254 .* s | *[0-9.]*x |$" "$t/out" && grep -q "^| BLS12-381 .*BN254 only" "$t/out"; then ok "  BN254 timed with its ratio, BLS12-381 not"; else ko "  table: $(grep '^| B' "$t/out")"; fi
expect 1 "bench prove with a stand-in that writes no proof" "$zk" bench prove --curve bn128 --constraints 64 --runs 1 --snarkjs none --rapidsnark "$t/rs-bad"
if grep -q "failed" "$t/out" && grep -q "rapidsnark's proof .* does not verify" "$t/out"; then ok "  reported failed, not timed"; else ko "  output: $(tail -3 "$t/out")"; fi
unset ZKARENA_CACHE
if [ -x "$bin/../synth/zkarena-synth" ]; then
	expect 2 "zkarena-synth --threads x: rejected" "$bin/../synth/zkarena-synth" --threads x noarena
	if grep -q -- "--threads" "$t/out"; then ok "  names --threads"; else ko "  message: $(cat "$t/out")"; fi
	expect 2 "zkarena-gpud --device 1x: rejected" "$bin/../gpud/zkarena-gpud" --device 1x noarena
	if grep -q -- "--device" "$t/out"; then ok "  names --device"; else ko "  message: $(cat "$t/out")"; fi
fi
# every command's --help: exit 0 and a usage line on stdout
for c in prove verify setup circuit arena run submit wait status list cancel demo bench "bench prove" \
	"bench ring" "bench gpu"; do
	# shellcheck disable=SC2086 # $c is a command and its subcommand
	if "$zk" $c --help >"$t/help" 2>&1 && head -1 "$t/help" | grep -q "^usage: zkarena $c"; then
		ok "$c --help"
	else
		ko "$c --help: $(head -c 200 "$t/help")"
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
