#!/usr/bin/env bash
# witness.sh ZKARENA FIXDIR - witnesses from input.json (zkarena witness, prove with input.json)
# against snarkjs 0.7.6, on circuits compiled by circom2 at test time from circomlib templates,
# both curves: every witness byte-identical to `snarkjs wtns calculate`'s on fresh random inputs
# in every notation snarkjs reads (the seed is printed first: ZKA_SEED=N repeats a run);
# proofs from input.json accepted by snarkjs; bad input, failed asserts and unsupported circuits
# refused with one line, exit 2 and nothing written; fuzzed input.json never crashes; the
# graph's compiled form kept in the key cache is used on the next call, and a damaged or
# untrusted one refused in one line and rebuilt.
set -uo pipefail
zk=$1
fx=$2
here=$(cd "$(dirname "$0")" && pwd)
snarkjs="node $here/node_modules/snarkjs/cli.js"
export ZKA_CXX="$here/gxx-O0" # the tracers at -O0: compile time is this test's (gxx-O0)
circom2="$here/node_modules/.bin/circom2"
. "$here/harness.sh"
seed=${ZKA_SEED:-$RANDOM}
export ZKARENA_CACHE=$t/kc # the graphs' kept compiled forms stay in the test's directory
echo "seed $seed"
rounds=${ZKA_WITNESS_ROUNDS:-3}

# compile CIRCUIT PRIME DIR: circom2 --c --wasm of witness/CIRCUIT.circom into DIR (circom2
# runs under WASI and sees only its working folder: circomlib is copied there)
compile() {
	mkdir -p "$3/circomlib"
	[ -d "$3/circomlib/circuits" ] || cp -r "$here/node_modules/circomlib/circuits" "$3/circomlib/"
	cp "$here/witness/$1.circom" "$3/"
	(cd "$3" && "$circom2" "$1.circom" --c --wasm --prime "$2" -o . >/dev/null 2>&1)
}

# same_witness NAME GRAPH WASM INPUT: snarkjs and zkarena agree (both write identical files,
# or both refuse the input: zkarena with exit 2, one line and no file)
same_witness() {
	local name=$1 g=$2 wasm=$3 in=$4
	rm -f "$t/s.wtns" "$t/m.wtns"
	$snarkjs wtns calculate "$wasm" "$in" "$t/s.wtns" >"$t/s.err" 2>&1
	local sr=$?
	"$zk" witness "$g" "$in" "$t/m.wtns" 2>"$t/m.err"
	local mr=$?
	# the field-only evaluation (ZKA_WCG_PLAIN: no small-integer instructions, every assert)
	# must agree with the fast one
	rm -f "$t/p.wtns"
	ZKA_WCG_PLAIN=1 "$zk" witness "$g" "$in" "$t/p.wtns" 2>/dev/null
	local pr=$?
	if [ $pr != $mr ] || { [ $mr = 0 ] && ! cmp -s "$t/p.wtns" "$t/m.wtns"; }; then
		ko "$name: the field-only evaluation differs (exit $pr, fast path exit $mr)"
	elif [ $sr = 0 ] && [ $mr = 0 ] && cmp -s "$t/s.wtns" "$t/m.wtns"; then
		ok "$name: witness identical to snarkjs's"
	elif [ $sr != 0 ] && [ $mr = 2 ] && [ ! -e "$t/m.wtns" ] && [ "$(wc -l < "$t/m.err")" = 1 ]; then
		ok "$name: both refuse the input ($(cat "$t/m.err"))"
	else
		ko "$name: snarkjs exit $sr, zkarena exit $mr: $(tail -c 300 "$t/m.err" | tr '\n' ' ')"
		cp "$in" "$t/../witness-failed-input.json" 2>/dev/null
	fi
}

for prime in bn128 bls12381; do
	w=$t/$prime
	mkdir -p "$w"
	circuits="ops bits" # BLS12-381: the operators and branches (hashes cost CI minutes)
	[ $prime = bn128 ] && circuits="ops bits hashes eddsa smt"
	for c in $circuits; do
		if ! compile $c $prime "$w"; then ko "$prime/$c: circom2 failed"; continue; fi
		expect 0 "$prime/$c: graph recorded" "$zk" witness --c "$w/${c}_cpp" --prime $prime -o "$w/$c.wcg" || continue
		for r in $(seq 1 "$rounds"); do
			node "$here/witness/inputs.js" $c $((seed * 100 + r)) $prime > "$w/in.json"
			same_witness "$prime/$c input $r" "$w/$c.wcg" "$w/${c}_js/$c.wasm" "$w/in.json"
		done
	done
done

# integer division by zero: circom's calculator stops on the path taken (y = -1: x \ (y + 1)),
# not on a branch not taken (y = -2: guarded by an if; y = -3: by a ternary)
for prime in bn128 bls12381; do
	w=$t/$prime
	[ -e "$w/ops.wcg" ] || continue
	for y in -1 -2 -3; do
		echo "{\"x\": \"12345678901234567890\", \"y\": \"$y\", \"s\": 7}" > "$w/in.json"
		same_witness "$prime/ops y=$y" "$w/ops.wcg" "$w/ops_js/ops.wasm" "$w/in.json"
	done
	echo '{"x": 5, "y": -1, "s": 0}' > "$w/in.json"
	"$zk" witness "$w/ops.wcg" "$w/in.json" "$t/m.wtns" 2>"$t/m.err"
	if grep -q "integer division (\\\\ or %) by zero at circom line 11$" "$t/m.err"; then
		ok "$prime/ops: a division by zero names circom's line"
	else
		ko "$prime/ops: a division by zero does not name circom's line"
	fi
done

# the compiled graph kept in the key cache (witness/wcg.c K1-K4): the first call compiles and
# keeps it, the next maps it; a damaged, truncated, group-writable, linked or (as root) another
# user's entry is refused with one line and rebuilt; a graph changed since compiles again
# without a complaint; every witness identical to snarkjs's (the hashes circuit: any input
# is valid)
w=$t/bn128
if [ -e "$w/hashes.wcg" ]; then
	g=$w/hashes.wcg
	node "$here/witness/inputs.js" hashes $((seed * 100 + 50)) bn128 > "$t/k.json"
	$snarkjs wtns calculate "$w/hashes_js/hashes.wasm" "$t/k.json" "$t/ks.wtns" >/dev/null 2>&1 ||
		ko "kept graph: snarkjs refused the input"
	export ZKARENA_CACHE=$t/kc-kept
	# kept NAME HOW [NOTE]: exit 0, snarkjs's witness, --times says HOW, and exactly one
	# "kept compiled graph" line matching NOTE (none without NOTE)
	kept() {
		rm -f "$t/k.wtns"
		"$zk" witness --times "$g" "$t/k.json" "$t/k.wtns" 2>"$t/k.err"
		local rc=$? n
		n=$(grep -c "^zkarena: kept compiled graph" "$t/k.err")
		if [ $rc = 0 ] && cmp -s "$t/ks.wtns" "$t/k.wtns" && grep -q "times: graph .*($2" "$t/k.err" &&
			{ { [ -z "${3:-}" ] && [ "$n" = 0 ]; } || { [ -n "${3:-}" ] && [ "$n" = 1 ] && grep -q "$3" "$t/k.err"; }; }; then
			ok "kept graph: $1"
		else
			ko "kept graph: $1: exit $rc, $(tr '\n' ' ' < "$t/k.err")"
		fi
	}
	kept "the first call compiles it and keeps it" "compiled; kept for the next call"
	e=$(ls "$ZKARENA_CACHE"/hashes-*.wcgx 2>/dev/null | head -1)
	[ -n "$e" ] && [ "$(stat -c %a "$e")" = 600 ] && ok "kept graph: $e, mode 0600" || ko "kept graph: no entry of mode 0600 in $ZKARENA_CACHE: $(ls -l "$ZKARENA_CACHE")"
	kept "the second call maps it" "kept compiled form"
	printf '\336\255\276\357\336\255\276\357' | dd of="$e" bs=1 seek=$(($(stat -c %s "$e") / 2)) conv=notrunc status=none
	kept "damaged: refused in one line, compiled again" "compiled (kept form checksum mismatch" "checksum mismatch"
	kept "... the rebuilt one is mapped" "kept compiled form"
	truncate -s $(($(stat -c %s "$e") / 3)) "$e"
	kept "truncated: refused in one line" "compiled (kept form" "truncated"
	chmod 620 "$e"
	kept "group-writable: refused in one line" "compiled (kept form" "writable by group or others"
	mv "$e" "$e.copy" && ln -s "$e.copy" "$e"
	kept "a symbolic link: refused in one line" "compiled (kept form" "symbolic link"
	rm -f "$e.copy"
	if [ "$(id -u)" = 0 ]; then
		chown 12345 "$e"
		kept "another user's: refused in one line" "compiled (kept form" "owned by another user"
	fi
	kept "... mapped again" "kept compiled form"
	touch "$g"
	kept "the graph changed since: compiled again, no complaint" "compiled (kept form of another version"
	kept "... and mapped" "kept compiled form"
	export ZKARENA_CACHE=$t/kc
fi

# bad input: one line naming the signal, exit 2, an existing output left as it was
w=$t/bn128
bad() {
	echo "$2" > "$t/bad.json"
	echo keep > "$t/out.wtns"
	"$zk" witness "$w/bits.wcg" "$t/bad.json" "$t/out.wtns" 2>"$t/err"
	local rc=$?
	if [ $rc = 2 ] && [ "$(cat "$t/out.wtns")" = keep ] && [ "$(wc -l < "$t/err")" = 1 ] && grep -q -- "$3" "$t/err"; then
		ok "bad input refused: $1 ($(cat "$t/err"))"
	else
		ko "bad input $1: exit $rc, '$(cat "$t/err")'"
	fi
}
good='"m": [[1,2,3],[4,5,6]], "sel": 1'
bad "unknown signal" "{\"a\": 1, $good, \"nope\": 3}" "'nope' is not an input"
bad "missing signal" "{$good}" "missing"
bad "too few values" "{\"a\": 1, \"m\": [[1,2,3],[4,5]], \"sel\": 1}" "'m' has 5 values, the circuit expects 6"
bad "too many values" "{\"a\": [1, 2], $good}" "'a' has 2 values"
bad "not a number" "{\"a\": \"12z\", $good}" "'a' is not an integer"
bad "a fraction" "{\"a\": 1.5, $good}" "'a' is not an integer"
bad "an object value" "{\"a\": {\"x\": 1}, $good}" "'a' is not a number"
bad "null" "{\"a\": null, $good}" "'a' is null"
bad "malformed JSON" "{\"a\": 1, $good" "bad.json: line"
bad "not an object" "[1, 2, 3]" "not a JSON object"
bad "nested too deeply" "{\"a\": $(printf '[%.0s' $(seq 100))1$(printf ']%.0s' $(seq 100)), $good}" "nested too deeply"
# a failed circuit assert names circom's template and line
node "$here/witness/inputs.js" eddsa 7 bn128 | node -e 'let j=JSON.parse(require("fs").readFileSync(0));j.enabled=1;console.log(JSON.stringify(j))' > "$t/sig.json"
rm -f "$t/sig.wtns"
"$zk" witness "$w/eddsa.wcg" "$t/sig.json" "$t/sig.wtns" 2>"$t/err"
rc=$?
if [ $rc = 2 ] && [ ! -e "$t/sig.wtns" ] && grep -q "assert failed: template ForceEqualIfEnabled line" "$t/err"; then
	ok "a forged signature fails circom's assert: $(cat "$t/err")"
else
	ko "forged signature: exit $rc, $(cat "$t/err")"
fi

# fuzzed input.json (byte and structure mutations of a valid one): exit 0 or 2, never a signal
node "$here/witness/inputs.js" bits 1 bn128 > "$t/valid.json"
crashed=0
for i in $(seq 1 150); do
	node -e '
const fs = require("fs"); const s = fs.readFileSync(process.argv[1], "utf8"); let seed = +process.argv[2];
const r = n => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
let b = Buffer.from(s);
const k = r(6);
if (k === 0) { for (let j = 0; j < 1 + r(4); j++) b[r(b.length)] = r(256); }
else if (k === 1) b = b.subarray(0, r(b.length));
else if (k === 2) b = Buffer.from(s.replace(/"[0-9a-fx-]+"|[0-9]+/, ["\"-0x\"", "1e400", "\"0x" + "f".repeat(5000) + "\"", "-1", "[]", "\"\"", "true"][r(7)]));
else if (k === 3) b = Buffer.from(s.replace(/\[/, "[".repeat(1 + r(80))));
else if (k === 4) b = Buffer.from(s.replace(/"a"/, "\"a\\u0000\""));
else b = Buffer.from(s + s);
fs.writeFileSync(process.argv[3], b);' "$t/valid.json" $((seed + i)) "$t/fz.json"
	"$zk" witness "$w/bits.wcg" "$t/fz.json" "$t/fz.wtns" >/dev/null 2>&1
	rc=$?
	if [ $rc != 0 ] && [ $rc != 2 ]; then crashed=$((crashed + 1)); cp "$t/fz.json" "$t/../witness-crash-$i.json" 2>/dev/null; fi
done
if [ $crashed = 0 ]; then ok "150 fuzzed input.json files: no crash"; else ko "$crashed of 150 fuzzed inputs crashed zkarena witness"; fi

# circuits the graph cannot hold, refused at import with the reason, nothing left
cat > "$w/sqrt.circom" <<'CIRCOM'
pragma circom 2.0.0;
include "circomlib/circuits/pointbits.circom";
template S() { signal input in[256]; signal output x; component b = Bits2Point_Strict(); for (var i = 0; i < 256; i++) b.in[i] <== in[i]; x <== b.out[0]; }
component main = S();
CIRCOM
if (cd "$w" && "$circom2" sqrt.circom --c -o . >/dev/null 2>&1); then
	expect 2 "a loop on a signal's value (babyjub sqrt) is refused at import" "$zk" witness --c "$w/sqrt_cpp" -o "$w/sqrt.wcg"
	grep -q "depends on a signal\|on a signal's value (unsupported)" "$t/out" && ok "  ... naming the construct" || ko "  ... without naming it: $(cat "$t/out")"
	[ ! -e "$w/sqrt.wcg" ] && ok "  ... and nothing written" || ko "  ... but a graph was written"
fi
expect 2 "a bn128 circuit recorded as bls12381 is refused" "$zk" witness --c "$w/ops_cpp" --prime bls12381 -o "$w/x.wcg"
expect 2 "a directory without circom output is refused" "$zk" witness --c "$t" -o "$w/x.wcg"

# prove from input.json (fullprove) through import --c; snarkjs verifies; same public.json
for c in bn128 bls12381; do
	d=$fx/$c
	for k in mix hash nopub; do
		expect 0 "$c/$k: import --c" "$zk" import "$d/$k.zkey" --c "$d/${k}_cpp" -o "$t/$c-$k.zka" || continue
		expect 0 "$c/$k: prove from input.json" "$zk" prove "$t/$c-$k.zka" "$here/circuits/$k.input.json" "$t/p.json" "$t/pub.json" || continue
		expect 0 "$c/$k: snarkjs accepts it" $snarkjs groth16 verify "$d/$k.vk.json" "$t/pub.json" "$t/p.json"
		$snarkjs wtns calculate "$d/${k}_js/$k.wasm" "$here/circuits/$k.input.json" "$t/s.wtns" >/dev/null 2>&1
		$snarkjs wtns export json "$t/s.wtns" "$t/s.json" >/dev/null 2>&1
		"$zk" witness "$t/$c-$k.zka" "$here/circuits/$k.input.json" "$t/m.wtns" 2>/dev/null
		cmp -s "$t/s.wtns" "$t/m.wtns" && ok "$c/$k: witness identical to snarkjs's" || ko "$c/$k: witness differs"
	done
done
expect 2 "prove with input.json and no graph names the missing graph" "$zk" prove "$fx/bn128/mix.zkey" "$here/circuits/mix.input.json" "$t/p.json" "$t/pub.json"
grep -q "no witness graph" "$t/out" && ok "  ... saying import --c" || ko "  ... said: $(cat "$t/out")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
