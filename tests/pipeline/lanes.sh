#!/usr/bin/env bash
# lanes.sh ZKARENA - gpud with two proofs in flight (--inflight 2, CPU backend) and workers of
# two threads: every job of both curves DONE and verified; the status file shows the daemon's
# accounting (busy %, proofs/s, synthesis jobs/s) and its counters add up; a SIGKILL of gpud
# while both lanes hold a proof puts both slots back to READY, and the restarted gpud proves
# them without re-synthesis, each job DONE once.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
keys bn128 500 bn && keys bls12381 300 bls || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 5 --slot-bytes 1M --jobs 64
RUN_ARGS="--inflight 2 --threads 2"
start_run 2
ids=()
for i in 1 2 3 4 5 6; do ids+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/bn$i")"); done
for i in 1 2 3 4 5 6; do ids+=("$(submit "$T/bls.zkey" "$T/bls.wtns" "$T/o/bls$i" --r1cs "$T/bls.r1cs")"); done
n=0
for id in "${ids[@]}"; do
	n=$((n + 1))
	expect 0 "job $n DONE (two lanes)" "$ZK" wait "$NAME" "$id" --timeout 120
done
v=0
for i in 1 2 3 4 5 6; do
	"$ZK" verify "$T/bn.vk.json" "$T/o/bn$i/public.json" "$T/o/bn$i/proof.json" >/dev/null && v=$((v + 1))
	"$ZK" verify "$T/bls.vk.json" "$T/o/bls$i/public.json" "$T/o/bls$i/proof.json" >/dev/null && v=$((v + 1))
done
[ "$v" = 12 ] && ok "all 12 proofs verify" || ko "$v of 12 proofs verify"
check "run started workers with 2 threads and gpud with 2 in flight" grep -q "2 in flight.*2 workers x 2 threads" "$T/run.log"
sleep 1.5 # one more status write after the last proof
st="/dev/shm/zkarena-$NAME.gpud-status"
check "status file is private (0600)" sh -c "[ \"\$(stat -c %a '$st')\" = 600 ]"
check "status shows 2 proofs in flight" grep -q "2 proofs in flight" "$st"
check "status shows the last minute's prover busy, proofs/s and synthesis jobs/s" \
	grep -Eq "^last [0-9]+ s: prover busy [0-9.]+%, [0-9.]+ proofs/s, synthesis [0-9.]+ jobs/s" "$st"
proofs=$(sed -n 's/^counters: .* proofs=\([0-9]*\) .*/\1/p' "$st")
busy=$(sed -n 's/^counters: .* busy_ns=\([0-9]*\) .*/\1/p' "$st")
[ "$proofs" = 12 ] && ok "the daemon counted 12 proofs" || ko "the daemon counted '$proofs' proofs, not 12"
[ -n "$busy" ] && [ "$busy" -gt 0 ] && ok "busy time counted ($busy ns)" || ko "no busy time counted: '$busy'"
check "zkarena status shows the accounting" sh -c "'$ZK' status '$NAME' | grep -q 'daemon: last .* prover busy'"
stop_run
# a SIGKILL of gpud with both lanes proving: both slots back to READY, proved once each
start_run 2 ZKA_PROVE_DELAY_MS=2500
k1=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/k1")
k2=$(submit "$T/bls.zkey" "$T/bls.wtns" "$T/o/k2")
if wait_state "$k1" PROVING 60 && wait_state "$k2" PROVING 60; then
	ok "two jobs PROVING at once"
	pid=$(pgrep -f "zkarena-gpud .* $NAME\$" | head -1)
	kill -9 "$pid" && ok "killed gpud $pid with two proofs in flight" || ko "could not kill gpud '$pid'"
else
	ko "two jobs were never PROVING at once (k1 $(jobjson "$k1" state), k2 $(jobjson "$k2" state))"
fi
expect 0 "first killed job DONE after the restart" "$ZK" wait "$NAME" "$k1" --timeout 120
expect 0 "second killed job DONE after the restart" "$ZK" wait "$NAME" "$k2" --timeout 120
expect 0 "  its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o/k1/public.json" "$T/o/k1/proof.json"
expect 0 "  its proof verifies" "$ZK" verify "$T/bls.vk.json" "$T/o/k2/public.json" "$T/o/k2/proof.json"
[ "$(jobjson "$k1" synth_count)" = 1 ] && [ "$(jobjson "$k2" synth_count)" = 1 ] &&
	ok "no re-synthesis after the kill" || ko "re-synthesized: synth_count $(jobjson "$k1" synth_count), $(jobjson "$k2" synth_count)"
check "recovery put both records back" grep -Eq "gpud 0 .*recovery put back [2-9]" "$T/run.log"
stop_run
check "arena invariants hold" "$ZK" arena check "$NAME"
finish
