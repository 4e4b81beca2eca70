#!/usr/bin/env bash
# library.sh ZKARENA LIB_PRODUCER C_PRODUCER [RUST_PRODUCER] - libzkarena against a running CPU
# pipeline: both job shapes on both curves, proofs byte-identical to `zkarena prove --r --s`
# (the daemons prove with the same fixed r, s: gpud's test hook ZKA_TEST_RS); the C and Rust
# examples; a producer SIGKILLed between begin and commit (its job FAILED, its slot back, every
# other job DONE and proved once); commits with wrong lengths or values refused with the reason,
# nothing proved; a job group of 10. The bellperson shape on a .params key imported with
# --r1cs: proof.json and the 192 bytes equal `zkarena prove c.params --r1cs ... --r --s`'s,
# `zkarena verify` accepts them, the refused commits (lengths, a flipped density bit, a broken
# constraint, input[0] != 1, the wrong commit call, a snarkjs key), a group of 10, a producer
# SIGKILLed between begin and commit.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
LP=$2
CP=$3
RP=${4:-}
R=1234567890123456789012345678901234567890
S=9876543210987654321098765432109876543210
keys bn128 600 bn && keys bls12381 400 bls || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 4 --slot-bytes 1M --jobs 64
start_run 2 ZKA_TEST_RS=$R,$S
mkdir -p "$T/cli" "$T/ex"
for c in bn bls; do
	check "CLI proof ($c, fixed r, s)" "$ZK" prove "$T/$c.zkey" "$T/$c.wtns" "$T/cli/$c.proof.json" "$T/cli/$c.public.json" --r "$R" --s "$S"
done
# same() WHAT DIR C: DIR's proof/public (as the library returned them, DIR/got) equal the CLI's
same() {
	check "  $1: proof.json byte-identical to the CLI's" cmp "$2/got/proof.json" "$T/cli/$3.proof.json"
	check "  $1: public.json byte-identical to the CLI's" cmp "$2/got/public.json" "$T/cli/$3.public.json"
	check "  $1: the library returned the prover's files" cmp "$2/got/proof.json" "$2/proof.json"
}
for c in bn bls; do
	for shape in witness ab; do
		mkdir -p "$T/o/$c-$shape"
		expect 0 "$shape shape ($c): DONE" "$LP" "$shape" "$NAME" "$T/$c.zkey" "$T/$c.wtns" "$T/o/$c-$shape"
		same "$shape shape ($c)" "$T/o/$c-$shape" "$c"
	done
done
# the witness shape with a and b left to the prover (ZKA_LIB_AB=prover: the slot holds only
# the witness, form W; the cpu gpud makes a and b): the same proofs; a bad mode is said
for c in bn bls; do
	mkdir -p "$T/o/$c-wp"
	expect 0 "witness shape, a and b by the prover ($c): DONE" env ZKA_LIB_AB=prover "$LP" witness "$NAME" "$T/$c.zkey" "$T/$c.wtns" "$T/o/$c-wp"
	same "witness shape, a and b by the prover ($c)" "$T/o/$c-wp" "$c"
done
check "  the library said who makes a and b" grep -q "libzkarena.*a and b: computed by the prover" "$T/out"
mkdir -p "$T/o/bn-wx"
expect 0 "ZKA_LIB_AB=sometimes: said, taken as auto" env ZKA_LIB_AB=sometimes "$LP" witness "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/o/bn-wx"
check "  ... in one line" grep -q "ZKA_LIB_AB='sometimes' is not auto, prover or worker" "$T/out"
# a .zka key (imported with its circuit: commit then checks every constraint)
check "import bls.zkey --r1cs into bls.zka" "$ZK" import "$T/bls.zkey" --r1cs "$T/bls.r1cs" -o "$T/bls.zka"
mkdir -p "$T/o/zka" "$T/o/unsat"
expect 0 "witness shape on a .zka key: DONE" "$LP" witness "$NAME" "$T/bls.zka" "$T/bls.wtns" "$T/o/zka"
same "the .zka key" "$T/o/zka" bls
cp "$T/bls.wtns" "$T/unsat.wtns"
sz=$(stat -c %s "$T/unsat.wtns")
printf '\x05' | dd of="$T/unsat.wtns" bs=1 seek=$((sz - 32)) conv=notrunc status=none
expect 1 "an unsatisfying witness on a key with its circuit: commit refused" "$LP" witness "$NAME" "$T/bls.zka" "$T/unsat.wtns" "$T/o/unsat"
check "  the reason names the constraint" grep -q "commit refused: the witness does not satisfy constraint [0-9]*" "$T/out"
[ ! -e "$T/o/unsat/proof.json" ] && ok "  nothing proved" || ko "  a proof was written"
expect 0 "  a library proof verifies (zkarena verify)" "$ZK" verify "$T/bls.vk.json" "$T/o/bls-ab/public.json" "$T/o/bls-ab/proof.json"
# the bellperson shape: a .params key (monomial H, blstrs's root) imported with its circuit
check "bellperson circuit and key (setup --format bellperson)" sh -c "'$ZK' circuit --curve bls12381 --constraints 400 --public 2 --seed 5 '$T/bp.r1cs' '$T/bp.wtns' && '$ZK' setup --insecure --seed 9 --format bellperson '$T/bp.r1cs' '$T/bp.params' '$T/bp.vk.json' 2>/dev/null"
check "import bp.params --r1cs into bp.zka" "$ZK" import "$T/bp.params" --r1cs "$T/bp.r1cs" -o "$T/bp.zka"
check "CLI proof of the .params (fixed r, s, --bellperson-proof)" "$ZK" prove "$T/bp.params" --r1cs "$T/bp.r1cs" "$T/bp.wtns" "$T/cli/bp.proof.json" "$T/cli/bp.public.json" --r "$R" --s "$S" --bellperson-proof "$T/cli/bp.proof.bin"
mkdir -p "$T/o/bp" "$T/o/bpw"
expect 0 "bellperson shape: DONE" "$LP" bp "$NAME" "$T/bp.zka" "$T/bp.wtns" "$T/o/bp" "$T/bp.r1cs"
# the densities the producer computed from the .r1cs are not all ones (aux variables missing
# from A and from B): the bitmaps carry information the check can get wrong
sparse=$(awk '/^density/{split($3, a, "/"); split($7, b, "/"); print (a[1] < a[2] && b[1] < b[2])}' "$T/out")
[ "$sparse" = 1 ] && ok "  the circuit's aux densities are not all ones ($(grep '^density' "$T/out"))" || ko "  densities: $(grep '^density' "$T/out")"
same "bellperson shape" "$T/o/bp" bp
check "  the 192-byte proof byte-identical to --bellperson-proof's" cmp "$T/o/bp/got/proof.bin" "$T/cli/bp.proof.bin"
expect 0 "  zkarena verify bp.params accepts the 192 bytes" "$ZK" verify "$T/bp.params" "$T/o/bp/got/public.json" "$T/o/bp/got/proof.bin"
expect 0 "  and the proof.json" "$ZK" verify "$T/bp.params" "$T/o/bp/got/public.json" "$T/o/bp/got/proof.json"
mkdir -p "$T/o/bpmont"
expect 0 "bellperson shape, Montgomery form: DONE" "$LP" bpmont "$NAME" "$T/bp.zka" "$T/bp.wtns" "$T/o/bpmont" "$T/bp.r1cs"
same "bellperson shape, Montgomery form" "$T/o/bpmont" bp
check "  the 192 bytes too" cmp "$T/o/bpmont/got/proof.bin" "$T/cli/bp.proof.bin"
expect 0 "witness shape on the bellperson key: DONE" "$LP" witness "$NAME" "$T/bp.zka" "$T/bp.wtns" "$T/o/bpw"
same "witness shape, bellperson key" "$T/o/bpw" bp
# bpref MODE DESCRIPTION PATTERN: a refused bellperson commit, its reason, nothing proved
bpref() {
	mkdir -p "$T/o/$1"
	expect 0 "bellperson $2: refused" "$LP" "$1" "$NAME" "$T/bp.zka" "$T/bp.wtns" "$T/o/$1" "$T/bp.r1cs"
	check "  reason: $3" grep -q "^reason: $3" "$T/out"
	[ -z "$(ls -A "$T/o/$1")" ] && ok "  nothing proved" || ko "  files written for $1"
}
bpref bpshort "a, b, c one short" "a, b, c length 402, the key's constraints (input constraints included) are 403"
bpref bpdens "b_aux_density bit 17 flipped" "b_aux_density bit 17 is \(0, the key's is 1\|1, the key's is 0\)"
bpref bpc "c[5] changed" "the assignment does not satisfy constraint 5 (c != a b)"
bpref bpone "input[0] = 2" "input element 0 is not 1"
bpref bpcr "c[3] = r" "c element 3 is not below the group order"
bpref bpaux "aux[4] = r (and c[3])" "aux element 4 is not below the group order"
bpref bpcall "zka_lib_commit on a bellperson job" "a ZKA_LIB_BELLPERSON job commits with zka_lib_commit_bellperson"
expect 0 "bellperson shape on a snarkjs key: begin refused" "$LP" bpkey "$NAME" "$T/bls.zka" "$T/bls.wtns" "$T/o/bpkey"
check "  the reason names the key's kind" grep -q "begin: -22 .*ZKA_LIB_BELLPERSON needs a bellperson key (a .params imported with --r1cs: monomial H); this is a snarkjs key" "$T/out"
check "  zka_lib_group_new and zka_lib_key_bp_info refuse it too" sh -c "grep -q '^group_new: -22 .*this is a snarkjs key' '$T/out' && grep -q '^key_bp_info: -22 .*this is a snarkjs key' '$T/out'"
expect 0 "a group of 10 bellperson jobs: all DONE" "$LP" bpgroup "$NAME" "$T/bp.zka" "$T/bp.wtns" "$T/o/bpg" "$T/bp.r1cs" 10
[ "$(grep -c "DONE" "$T/out")" = 10 ] && ok "  10 job ids reported" || ko "  $(cat "$T/out")"
g=0
v=0
for i in 0 1 2 3 4 5 6 7 8 9; do
	cmp -s "$T/o/bpg/$i/proof.json" "$T/cli/bp.proof.json" && cmp -s "$T/o/bpg/$i/proof.bin" "$T/cli/bp.proof.bin" && g=$((g + 1))
	"$ZK" verify "$T/bp.params" "$T/o/bpg/$i/public.json" "$T/o/bpg/$i/proof.bin" >/dev/null 2>&1 && v=$((v + 1))
done
[ "$g" = 10 ] && ok "  all 10 proofs (JSON and 192 bytes) are the CLI's" || ko "  $g of 10 proofs equal the CLI's"
[ "$v" = 10 ] && ok "  all 10 verify (zkarena verify bp.params, the 192 bytes)" || ko "  $v of 10 verify"
mkdir -p "$T/o/bphang" "$T/o/bpafter"
"$LP" bphang "$NAME" "$T/bp.zka" "$T/bp.wtns" "$T/o/bphang" "$T/bp.r1cs" >"$T/bphang.out" 2>&1 &
hp=$!
for _ in $(seq 1 200); do grep -q LEASED "$T/bphang.out" && break; sleep 0.05; done
hid=$(awk '/LEASED/{print $2}' "$T/bphang.out")
[ -n "$hid" ] && [ "$(jobjson "$hid" state)" = LEASED ] && ok "bellperson producer holds a lease (job $hid)" || ko "bellperson producer: $(cat "$T/bphang.out")"
kill -9 "$hp" && wait "$hp" 2>/dev/null
if wait_state "$hid" FAILED 20; then ok "  SIGKILLed before commit: its job FAILED (recovered)"; else ko "  the killed producer's job is $(jobjson "$hid" state)"; fi
jobjson "$hid" reason | grep -q "its producer (pid $hp) died before committing" && ok "  reason names the producer" || ko "  reason: $(jobjson "$hid" reason)"
expect 0 "  a bellperson job after it: DONE" "$LP" bp "$NAME" "$T/bp.zka" "$T/bp.wtns" "$T/o/bpafter" "$T/bp.r1cs"
check "  its proof is the CLI's" cmp "$T/o/bpafter/got/proof.bin" "$T/cli/bp.proof.bin"
[ -z "$(ls -A "$T/o/bphang")" ] && ok "  nothing written for the killed job" || ko "  files written for the killed job"
# the examples: C linked with the shared library; Rust built by rustc alone
expect 0 "c-producer proves" "$CP" "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/ex/c.proof.json" "$T/ex/c.public.json"
check "  its proof is the CLI's, byte for byte" cmp "$T/ex/c.proof.json" "$T/cli/bn.proof.json"
check "  its public.json too" cmp "$T/ex/c.public.json" "$T/cli/bn.public.json"
if [ -n "$RP" ]; then
	expect 0 "rust-producer proves" env LD_PRELOAD="${ZKA_RUST_PRELOAD:-}" "$RP" "$NAME" "$T/bls.zkey" "$T/bls.wtns" "$T/ex/r.proof.json" "$T/ex/r.public.json"
	check "  its proof is the CLI's, byte for byte" cmp "$T/ex/r.proof.json" "$T/cli/bls.proof.json"
else
	echo "SKIP rust-producer: rustc was not found at configure time (scripts/install-deps.sh)"
fi
expect 2 "c-producer without arguments: usage, exit 2" "$CP"
expect 1 "c-producer on a missing arena: exit 1" "$CP" nope-$NAME "$T/bn.zkey" "$T/bn.wtns" "$T/ex/x" "$T/ex/y"
check "  message names the arena" grep -q "arena nope-$NAME: no such arena" "$T/out"
# refused commits: the job FAILED with the reason, the slot back, nothing proved
for m in short badval badab abort; do mkdir -p "$T/o/$m"; done
expect 0 "witness one value short: refused" "$LP" short "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/o/short"
check "  reason names the lengths" grep -q "reason: witness length [0-9]*, the key's is [0-9]*" "$T/out"
expect 0 "witness element = r: refused" "$LP" badval "$NAME" "$T/bls.zkey" "$T/bls.wtns" "$T/o/badval"
check "  reason names the element" grep -q "reason: witness element 1 is not below the group order" "$T/out"
expect 0 "a one element short (ab shape): refused" "$LP" badab "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/o/badab"
check "  reason names a and the domain" grep -q "reason: a length [0-9]*, the key's domain size is [0-9]*" "$T/out"
expect 0 "abort: FAILED with the caller's reason, commit after it refused" "$LP" abort "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/o/abort"
expect 0 "a job and a group left to zka_lib_close" "$LP" close "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/o"
read -r _ c1 c2 <<<"$(grep LEASED "$T/out")"
# aborted (FAILED), then released by the free that close makes: FREE, the reason kept
[ "$(jobjson "$c1" state)" = FREE ] && [ "$(jobjson "$c2" state)" = FREE ] && ok "  both aborted and released by close" || ko "  states: $(jobjson "$c1" state) $(jobjson "$c2" state)"
[ "$(jobjson "$c1" reason)" = "freed before commit" ] && [ "$(jobjson "$c2" reason)" = "freed before commit" ] && ok "  reasons: freed before commit" || ko "  reasons: $(jobjson "$c1" reason) / $(jobjson "$c2" reason)"
n=$(find "$T/o/short" "$T/o/badval" "$T/o/badab" "$T/o/abort" -name '*.json' | wc -l)
[ "$n" = 0 ] && ok "refused and aborted jobs wrote nothing" || ko "refused jobs wrote $n files"
# a producer SIGKILLed between begin and commit, while other jobs run
mkdir -p "$T/o/hang"
"$LP" hang "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/o/hang" >"$T/hang.out" 2>&1 &
hp=$!
for _ in $(seq 1 200); do grep -q LEASED "$T/hang.out" && break; sleep 0.05; done
hid=$(awk '/LEASED/{print $2}' "$T/hang.out")
[ -n "$hid" ] && ok "producer holds a lease (job $hid)" || ko "producer never leased: $(cat "$T/hang.out")"
[ "$(jobjson "$hid" state)" = LEASED ] && ok "  the job is LEASED" || ko "  the job is $(jobjson "$hid" state)"
ids=()
for i in 1 2 3 4 5 6; do ids+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/k$i")"); done
mkdir -p "$T/o/kl"
"$LP" witness "$NAME" "$T/bls.zkey" "$T/bls.wtns" "$T/o/kl" >"$T/kl.out" 2>&1 &
lp=$!
kill -9 "$hp" && ok "producer $hp SIGKILLed between begin and commit" || ko "could not kill $hp"
wait "$hp" 2>/dev/null
n=0
for id in "${ids[@]}"; do
	n=$((n + 1))
	expect 0 "  job $n ($id) DONE" "$ZK" wait "$NAME" "$id" --timeout 120
	[ "$(jobjson "$id" prove_count)" = 1 ] && ok "    proved once" || ko "    proved $(jobjson "$id" prove_count) times"
done
wait "$lp" && ok "  a library job beside them DONE" || ko "  library job: $(cat "$T/kl.out")"
if wait_state "$hid" FAILED 20; then ok "  the killed producer's job FAILED (recovered)"; else ko "  the killed producer's job is $(jobjson "$hid" state)"; fi
jobjson "$hid" reason | grep -q "its producer (pid $hp) died before committing" && ok "  reason names the producer" || ko "  reason: $(jobjson "$hid" reason)"
[ -z "$(ls -A "$T/o/hang")" ] && ok "  nothing written for it" || ko "  files written for the killed job"
# a job group of 10 on one key
expect 0 "a job group of 10: all DONE" "$LP" group "$NAME" "$T/bn.zkey" "$T/bn.wtns" "$T/o/g" 10
[ "$(grep -c "DONE" "$T/out")" = 10 ] && ok "  10 job ids reported" || ko "  $(cat "$T/out")"
g=0
for i in 0 1 2 3 4 5 6 7 8 9; do
	cmp -s "$T/o/g/$i/proof.json" "$T/cli/bn.proof.json" && g=$((g + 1))
done
[ "$g" = 10 ] && ok "  all 10 proofs are the CLI's, byte for byte" || ko "  $g of 10 proofs equal the CLI's"
stop_run
check "arena invariants hold" "$ZK" arena check "$NAME"
free=$("$ZK" arena status "$NAME" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).slot_states.FREE))")
[ "$free" = 4 ] && ok "all 4 slots FREE at the end" || ko "slots FREE at the end: $free of 4"
# bench pipeline --producer: the built-in workers and libzkarena producers in one run
expect 0 "bench pipeline --producer both (small circuit): runs" "$ZK" bench pipeline --constraints 8000 --jobs 150 --workers 1 --threads 1 --reps 1 --producer both
check "  prints both tables" sh -c "grep -q 'fed by the built-in workers:' '$T/out' && grep -q 'fed by libzkarena:' '$T/out'"
check "  and the comparison" grep -q "libzkarena / built-in workers: [0-9.]*% of the proofs/s" "$T/out"
expect 2 "bench pipeline --producer bogus: refused" "$ZK" bench pipeline --producer bogus
check "  message names the option" grep -q "\-\-producer: 'bogus' is not workers, lib or both" "$T/out"
finish
