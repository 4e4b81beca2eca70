#!/usr/bin/env bash
# basic.sh ZKARENA [SNARKJS_CLI] - the pipeline end to end on the CPU backend: both curves in
# one arena, proofs verified by zkarena (and snarkjs when given), bad witnesses and keys fail
# their jobs clearly while the pipeline keeps going, cancel, status, clean shutdown.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
SNARKJS=${2:-}
keys bn128 600 bn && keys bls12381 400 bls && keys bn128 300 bn2 || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 3 --slot-bytes 1M --jobs 64
start_run 2
ids=()
for i in 1 2 3 4 5 6; do ids+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/bn$i")"); done
for i in 1 2 3 4; do ids+=("$(submit "$T/bls.zkey" "$T/bls.wtns" "$T/o/bls$i")"); done
n=0
for id in "${ids[@]}"; do
	n=$((n + 1))
	expect 0 "job $n ($id) DONE" "$ZK" wait "$NAME" "$id" --timeout 120
done
for i in 1 2 3 4 5 6; do expect 0 "bn proof $i verifies" "$ZK" verify "$T/bn.vk.json" "$T/o/bn$i/public.json" "$T/o/bn$i/proof.json"; done
for i in 1 2 3 4; do expect 0 "bls proof $i verifies" "$ZK" verify "$T/bls.vk.json" "$T/o/bls$i/public.json" "$T/o/bls$i/proof.json"; done
if [ -n "$SNARKJS" ]; then
	expect 0 "snarkjs accepts a pipeline proof (BN254)" node "$SNARKJS" groth16 verify "$T/bn.vk.json" "$T/o/bn1/public.json" "$T/o/bn1/proof.json"
	expect 0 "snarkjs accepts a pipeline proof (BLS12-381)" node "$SNARKJS" groth16 verify "$T/bls.vk.json" "$T/o/bls1/public.json" "$T/o/bls1/proof.json"
fi
# bad witnesses: length, curve and container are refused at submit (issue 19), naming the
# file; one that does not satisfy the circuit fails its own job only
mkdir -p "$T/o/badlen" "$T/o/badprime" "$T/o/garbage"
expect 2 "witness of another length: submit refused" "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn2.wtns" --out "$T/o/badlen"
check "  message names the file and the length" grep -q "bn2.wtns: witness has .* values but the key expects" "$T/out"
expect 2 "witness of another curve: submit refused" "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bls.wtns" --out "$T/o/badprime"
check "  message names the curve" grep -q "bls.wtns: witness is for BLS12-381" "$T/out"
cp "$T/bn.wtns" "$T/unsat.wtns"
sz=$(stat -c %s "$T/unsat.wtns")
printf '\x05' | dd of="$T/unsat.wtns" bs=1 seek=$((sz - 32)) conv=notrunc status=none
id=$(submit "$T/bn.zkey" "$T/unsat.wtns" "$T/o/unsat" --r1cs "$T/bn.r1cs")
expect 1 "unsatisfying witness (with --r1cs): FAILED" "$ZK" wait "$NAME" "$id" --timeout 60
check "  reason names the constraint" grep -q "does not satisfy constraint" "$T/out"
printf 'garbage' > "$T/garbage.wtns"
expect 2 "corrupt witness file: submit refused" "$ZK" submit "$NAME" "$T/bn.zkey" "$T/garbage.wtns" --out "$T/o/garbage"
check "  message names the file" grep -q "garbage.wtns" "$T/out"
[ -e "$T/o/unsat/proof.json" ] || [ -e "$T/o/badlen/proof.json" ] && ko "a failed job wrote a proof" || ok "failed jobs wrote nothing"
# bad keys are refused at submit, naming the file; nothing is queued
expect 2 "missing key: submit refused" "$ZK" submit "$NAME" "$T/nope.zkey" "$T/bn.wtns" --out "$T/o"
check "  message names the file" grep -q "nope.zkey" "$T/out"
head -c 5000 "$T/bls.zkey" > "$T/trunc.zkey"
expect 2 "corrupt key: submit refused" "$ZK" submit "$NAME" "$T/trunc.zkey" "$T/bls.wtns" --out "$T/o"
check "  message names the file" grep -q "trunc.zkey" "$T/out"
expect 2 "missing output directory: submit refused" "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn.wtns" --out "$T/nodir"
# the pipeline keeps going
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/after")
expect 0 "a good job after the bad ones: DONE" "$ZK" wait "$NAME" "$id" --timeout 60
expect 1 "cancel of a finished job is refused" "$ZK" cancel "$NAME" "$id"
expect 2 "wait on an unknown job" "$ZK" wait "$NAME" 999999999 --timeout 1
check "status shows the daemon's backend" sh -c "'$ZK' status '$NAME' | grep -q 'backend cpu'"
# clean shutdown: every child gone, every slot FREE, invariants hold
stop_run
sleep 0.2
if pgrep -f "zkarena-(synth|gpud).* $NAME\$" >/dev/null; then ko "processes left after SIGTERM"; else ok "SIGTERM stops every process"; fi
check "arena invariants hold" "$ZK" arena check "$NAME"
free=$("$ZK" arena status "$NAME" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).slot_states.FREE))")
[ "$free" = 3 ] && ok "all 3 slots FREE at the end" || ko "slots FREE at the end: $free of 3"
# a new arena reusing an output directory: job ids start again, yet the new job is proved
# (a done marker of the old arena's job with the same id must not pass for the new one's)
check "arena destroy" "$ZK" arena destroy "$NAME"
check "arena re-create" "$ZK" arena create "$NAME" --slots 3 --slot-bytes 1M --jobs 64
start_run 1
old=$(sha256sum "$T/o/bn1/proof.json" | cut -c1-64)
id=$(submit "$T/bls.zkey" "$T/bls.wtns" "$T/o/bn1")
[ "$id" = "${ids[0]}" ] && ok "the new arena reuses job id $id" || ko "the new arena's first job id is $id, not ${ids[0]}: the id collision is not exercised"
expect 0 "job in a reused output directory: DONE" "$ZK" wait "$NAME" "$id" --timeout 60
expect 0 "  its proof is the new job's (verifies with the new key)" "$ZK" verify "$T/bls.vk.json" "$T/o/bn1/public.json" "$T/o/bn1/proof.json"
[ "$(sha256sum "$T/o/bn1/proof.json" | cut -c1-64)" != "$old" ] && ok "  proof.json was rewritten" || ko "  proof.json is the old arena's"
grep -q "already written before a crash" "$T/run.log" && ko "gpud took an old marker for the new job" || ok "  no old marker taken for the new job"
stop_run
# a lone job on an idle pipeline gets the idle workers' threads: run passes --max-threads W x T
# to its workers, so of two workers of --threads 1 the one that takes the job uses 2 threads
RUN_ARGS="$RUN_ARGS --threads 1" start_run 2
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/lone")
expect 0 "a lone job on an idle pipeline: DONE" "$ZK" wait "$NAME" "$id" --timeout 60
expect 0 "  its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o/lone/public.json" "$T/o/lone/proof.json"
check "  it ran on both workers' threads (2 x --threads 1)" grep -q "zkarena-synth\[[0-9]*\]: job record [0-9]*: 2 threads (1 job synthesizing or waiting, --max-threads 2)" "$T/run.log"
stop_run
# the default shape follows the CPUs the supervisor may run on (its affinity), not the online
# ones: under taskset to one CPU (the first this shell may use), one worker of one thread
cpu=$(taskset -pc $$ | sed 's/.*: *//' | cut -d, -f1 | cut -d- -f1)
taskset -c "$cpu" "$ZK" run "$NAME" --backend "$RUN_BACKEND" >"$T/run.log" 2>&1 &
RUN_PID=$!
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/one")
expect 0 "on one CPU (taskset): a job DONE" "$ZK" wait "$NAME" "$id" --timeout 60
check "  the default shape is 1 worker x 1 thread on 1 core" grep -q "and 1 workers x 1 threads started (1 cores)" "$T/run.log"
stop_run
finish
