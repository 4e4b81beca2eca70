#!/usr/bin/env bash
# witness_pipeline.sh ZKARENA FIXDIR - input.json jobs through the pipeline (zkarena run, CPU
# backend) on a circom circuit of the interop fixtures (Poseidon, both curves): submit --input
# checks the input before queuing; the workers compute each witness into its slot; proofs verify
# with snarkjs and public.json equals snarkjs's; a worker SIGKILLed mid-synthesis of an
# input.json job loses only that attempt (the job is DONE once); a circuit assert on a bad input
# fails the job at once (one attempt), naming circom's template and line.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../pipeline/lib.sh" "$1"
fx=$2
snarkjs="node $here/node_modules/snarkjs/cli.js"
export ZKA_CXX="$here/gxx-O0" # the tracers at -O0 (gxx-O0)
[ -f "$fx/.done" ] || { echo "no interop fixtures in $fx (interop_snarkjs makes them)"; exit 1; }
for c in bn128 bls12381; do
	cp "$fx/$c/hash.zkey" "$T/$c.zkey"
	check "$c: import --c" "$ZK" import "$T/$c.zkey" --c "$fx/$c/hash_cpp" -o "$T/$c.zka"
done
check "arena create" "$ZK" arena create "$NAME" --slots 2 --slot-bytes 1M
start_run 2 ZKA_SYNTH_DELAY_MS=2000
ids=()
for c in bn128 bls12381; do
	for i in 1 2 3; do
		# three inputs per curve: the fixture's, and two with other salts
		node -e "const j=JSON.parse(require('fs').readFileSync('$here/circuits/hash.input.json'));j.salt=String($i*1000+7);console.log(JSON.stringify(j))" > "$T/$c-in$i.json"
		mkdir -p "$T/o/$c$i"
		ids+=("$("$ZK" submit "$NAME" "$T/$c.zka" --input "$T/$c-in$i.json" --out "$T/o/$c$i" | tail -1)")
	done
done
# a worker killed mid-synthesis of an input.json job
if wait_state "${ids[0]}" SYNTHESIZING 30; then
	# the owner read while SYNTHESIZING is the worker (2 s in the delay hook): checked by its
	# name, so that a slow read can never kill the daemon instead
	pid=$(jobjson "${ids[0]}" owner_pid)
	comm=$(cat "/proc/$pid/comm" 2>/dev/null)
	if [ "$comm" = zkarena-synth ] && kill -9 "$pid"; then
		ok "killed worker $pid mid-synthesis of an input.json job"
	else
		ko "could not kill the worker (owner '$pid', '$comm')"
	fi
else
	ko "job ${ids[0]} never reached SYNTHESIZING"
fi
n=0
for c in bn128 bls12381; do
	for i in 1 2 3; do
		id=${ids[$n]}
		n=$((n + 1))
		expect 0 "$c job $i ($id) DONE" "$ZK" wait "$NAME" "$id" --timeout 120
		check "  snarkjs accepts its proof" $snarkjs groth16 verify "$fx/$c/hash.vk.json" "$T/o/$c$i/public.json" "$T/o/$c$i/proof.json"
		$snarkjs wtns calculate "$fx/$c/hash_js/hash.wasm" "$T/$c-in$i.json" "$T/s.wtns" >/dev/null 2>&1
		$snarkjs groth16 prove "$fx/$c/hash.zkey" "$T/s.wtns" "$T/sp.json" "$T/spub.json" >/dev/null 2>&1
		cmp -s "$T/spub.json" "$T/o/$c$i/public.json" && ok "  public.json identical to snarkjs's" || ko "  public.json differs from snarkjs's"
	done
done
sc=$(jobjson "${ids[0]}" synth_count)
[ "$sc" = 2 ] && ok "the killed job was synthesized twice and proved once" || ko "synth_count $sc, wanted 2"
# a circuit assert on a bad input (LessThan(32)'s Num2Bits with b = 2^40): the job FAILED at
# once, not retried, its reason naming circom's template
cp "$fx/bn128/mix.zkey" "$T/mix.zkey"
check "mix: import --c" "$ZK" import "$T/mix.zkey" --c "$fx/bn128/mix_cpp" -o "$T/mix.zka"
node -e "const j=JSON.parse(require('fs').readFileSync('$here/circuits/mix.input.json'));j.b='1099511627776';console.log(JSON.stringify(j))" > "$T/mix-bad.json"
mkdir -p "$T/o/mixbad"
id=$("$ZK" submit "$NAME" "$T/mix.zka" --input "$T/mix-bad.json" --out "$T/o/mixbad" | tail -1)
expect 1 "an input failing circom's assert: the job FAILED" "$ZK" wait "$NAME" "$id" --timeout 60
grep -q "assert failed: template Num2Bits line" "$T/out" && ok "  ... with circom's template and line" || ko "  ... reason: $(cat "$T/out")"
sc=$(jobjson "$id" synth_count)
[ "$sc" = 1 ] && ok "  ... at once (one synthesis, not retried)" || ko "  synth_count $sc, wanted 1"
[ ! -e "$T/o/mixbad/proof.json" ] && ok "  ... and no proof.json" || ko "  a proof.json was written"
# prove --arena from input.json: a proof through the pipeline; the assert-failing input is bad
# input (exit 2, nothing written)
expect 0 "prove --arena from input.json" "$ZK" prove --arena "$NAME" "$T/mix.zka" "$here/circuits/mix.input.json" "$T/pa.json" "$T/paub.json"
check "  snarkjs accepts it" $snarkjs groth16 verify "$fx/bn128/mix.vk.json" "$T/paub.json" "$T/pa.json"
expect 2 "prove --arena with an input failing circom's assert: bad input" "$ZK" prove --arena "$NAME" "$T/mix.zka" "$T/mix-bad.json" "$T/pb.json" "$T/pbub.json"
[ ! -e "$T/pb.json" ] && ok "  ... nothing written" || ko "  a proof was written"
# bad inputs are refused at submit, nothing queued
echo '{"a": [1, 2], "nope": 1}' > "$T/bad.json"
mkdir -p "$T/o/bad"
expect 2 "submit --input with an unknown signal: refused" "$ZK" submit "$NAME" "$T/bn128.zka" --input "$T/bad.json" --out "$T/o/bad"
grep -q "'nope' is not an input" "$T/out" && ok "  ... naming it" || ko "  ... said: $(cat "$T/out")"
# the HTTP job API from input.json (zkarena serve on a Unix socket: no token; issue 39)
mkdir -p "$T/spool"
"$ZK" serve "$NAME" --unix "$T/api.sock" --spool "$T/spool" --key "$T/mix.zka" >"$T/srv.log" 2>&1 &
srv=$!
for _ in $(seq 1 100); do [ -S "$T/api.sock" ] && break; sleep 0.1; done
code=$(curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$T/api.sock" -H 'Content-Type: application/json' \
	--data-binary @"$here/circuits/mix.input.json" "http://x/v1/jobs?key=$T/mix.zka")
hid=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$T/body','utf8')).id)" 2>/dev/null)
[ "$code" = 202 ] && [ -n "$hid" ] && ok "POST /v1/jobs with input.json: 202, job $hid" || ko "POST input.json: HTTP $code: $(head -c 300 "$T/body")"
st=
for _ in $(seq 1 300); do
	curl -s -o "$T/body" --unix-socket "$T/api.sock" "http://x/v1/jobs/$hid"
	st=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$T/body','utf8')).state)" 2>/dev/null)
	[ "$st" = DONE ] || [ "$st" = FAILED ] && break
	sleep 0.2
done
code=$(curl -s -o "$T/body" -w '%{http_code}' --unix-socket "$T/api.sock" "http://x/v1/jobs/$hid/proof")
node -e "const j=JSON.parse(require('fs').readFileSync('$T/body','utf8'));require('fs').writeFileSync('$T/hp.json',JSON.stringify(j.proof));require('fs').writeFileSync('$T/hpub.json',JSON.stringify(j.public))" 2>/dev/null
[ "$st" = DONE ] && [ "$code" = 200 ] && $snarkjs groth16 verify "$fx/bn128/mix.vk.json" "$T/hpub.json" "$T/hp.json" >/dev/null 2>&1 &&
	ok "  DONE; its proof (GET .../proof) accepted by snarkjs" || ko "  job $hid: state $st, proof HTTP $code: $(head -c 300 "$T/body")"
kill -TERM "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
expect 2 "submit --input on a key without a graph: refused" "$ZK" submit "$NAME" "$fx/bn128/mix.zkey" --input "$T/bn128-in1.json" --out "$T/o/bad"
grep -q "no witness graph" "$T/out" && ok "  ... saying so" || ko "  ... said: $(cat "$T/out")"
# --ab prover (slots of form W: the workers write only the witness, the gpud makes a and b):
# with the daemons' fixed r, s, every proof (input.json and .wtns jobs, both curves) equals the
# CLI's and the --ab worker pipeline's byte for byte; a worker killed mid-synthesis loses only
# that attempt; a witness value not below r fails its job at once with the reason
R=1234567890123456789012345678901234567890
S=9876543210987654321098765432109876543210
stop_run
for c in bn128 bls12381; do
	check "$c: CLI proof from input.json (fixed r, s)" "$ZK" prove "$T/$c.zka" "$T/$c-in2.json" "$T/cli-$c.json" "$T/cli-$c.pub.json" --r "$R" --s "$S"
	$snarkjs wtns calculate "$fx/$c/hash_js/hash.wasm" "$T/$c-in3.json" "$T/$c-3.wtns" >/dev/null 2>&1
	check "$c: CLI proof from the .wtns (fixed r, s)" "$ZK" prove "$T/$c.zka" "$T/$c-3.wtns" "$T/cliw-$c.json" "$T/cliw-$c.pub.json" --r "$R" --s "$S"
done
for mode in prover worker; do
	RUN_ARGS="--ab $mode"
	start_run 2 ZKA_TEST_RS=$R,$S ZKA_SYNTH_DELAY_MS=1500
	ids=()
	for c in bn128 bls12381; do
		mkdir -p "$T/o/$mode-$c" "$T/o/$mode-w$c"
		ids+=("$("$ZK" submit "$NAME" "$T/$c.zka" --input "$T/$c-in2.json" --out "$T/o/$mode-$c" | tail -1)")
		ids+=("$(submit "$T/$c.zka" "$T/$c-3.wtns" "$T/o/$mode-w$c")")
	done
	if [ $mode = prover ] && wait_state "${ids[0]}" SYNTHESIZING 30; then
		pid=$(jobjson "${ids[0]}" owner_pid)
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = zkarena-synth ] && kill -9 "$pid" &&
			ok "--ab prover: killed worker $pid mid-synthesis" || ko "--ab prover: could not kill the worker"
	fi
	n=0
	for c in bn128 bls12381; do
		expect 0 "--ab $mode: $c input.json job DONE" "$ZK" wait "$NAME" "${ids[$n]}" --timeout 120
		check "  proof.json byte-identical to the CLI's" cmp "$T/o/$mode-$c/proof.json" "$T/cli-$c.json"
		check "  public.json byte-identical to the CLI's" cmp "$T/o/$mode-$c/public.json" "$T/cli-$c.pub.json"
		expect 0 "--ab $mode: $c .wtns job DONE" "$ZK" wait "$NAME" "${ids[$((n + 1))]}" --timeout 120
		check "  proof.json byte-identical to the CLI's" cmp "$T/o/$mode-w$c/proof.json" "$T/cliw-$c.json"
		n=$((n + 2))
	done
	if [ $mode = prover ]; then
		sc=$(jobjson "${ids[0]}" synth_count)
		[ "$sc" = 2 ] && ok "--ab prover: the killed job synthesized twice, proved once" || ko "--ab prover: synth_count $sc, wanted 2"
		check "  the workers said who makes a and b" grep -q "a and b: computed by the prover" "$T/run.log"
		check "  the snarkjs verifier accepts a form-W proof" $snarkjs groth16 verify "$fx/bls12381/hash.vk.json" "$T/o/prover-bls12381/public.json" "$T/o/prover-bls12381/proof.json"
		# a witness value >= r (the last value's top byte 0xff): the worker refuses it
		cp "$T/bn128-3.wtns" "$T/big.wtns"
		printf '\xff' | dd of="$T/big.wtns" bs=1 seek=$(($(stat -c %s "$T/big.wtns") - 1)) conv=notrunc status=none
		mkdir -p "$T/o/big"
		bid=$("$ZK" submit "$NAME" "$T/bn128.zka" "$T/big.wtns" --out "$T/o/big" 2>"$T/bigerr" | tail -1)
		if [ -n "$bid" ]; then
			expect 1 "--ab prover: a witness value not below r: FAILED" "$ZK" wait "$NAME" "$bid" --timeout 60
			grep -q "is not below the prime" "$T/out" && ok "  ... naming the value" || ko "  ... said: $(cat "$T/out")"
		else
			grep -q "big.wtns" "$T/bigerr" && ok "--ab prover: a witness value not below r: refused at submit" || ko "big.wtns: $(cat "$T/bigerr")"
		fi
		[ ! -e "$T/o/big/proof.json" ] && ok "  ... no proof.json" || ko "  a proof.json was written"
	fi
	stop_run
done
expect 2 "run --ab with a bad mode: refused" "$ZK" run "$NAME" --ab sometimes
grep -q "\-\-ab: 'sometimes' is not auto, prover or worker" "$T/out" && ok "  ... naming it" || ko "  ... said: $(cat "$T/out")"
finish
