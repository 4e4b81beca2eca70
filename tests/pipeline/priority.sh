#!/usr/bin/env bash
# priority.sh ZKARENA - job priorities: with one synthesis worker busy, five jobs of priority 0
# queue; a later job of priority 10 overtakes them (its synthesis starts before theirs), and
# the five start in submission order (FIFO within a priority). All DONE and verified.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
cleanup_p() { rm -f /dev/shm/zkarena-"$NAME".gpud*-status; cleanup; }
trap cleanup_p EXIT
keys bn128 200 bn || { echo "keys failed"; exit 1; }
check "arena create" "$ZK" arena create "$NAME" --slots 4 --slot-bytes 1M --jobs 64
RUN_ARGS="--threads 1"
start_run 1 ZKA_SYNTH_DELAY_MS=1500
first=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/first")
wait_state "$first" SYNTHESIZING 30 || ko "the first job never started"
low=()
for i in 1 2 3 4 5; do low+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/low$i")"); done
high=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/high" --priority 10)
expect 2 "submit --priority out of range refused" "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn.wtns" --out "$T/o" --priority 5000
d=0
for id in "$first" "${low[@]}" "$high"; do "$ZK" wait "$NAME" "$id" --timeout 120 >/dev/null 2>&1 && d=$((d + 1)); done
[ "$d" = 7 ] && ok "7 jobs DONE" || ko "$d of 7 jobs DONE"
v=0
for o in first low1 low2 low3 low4 low5 high; do
	"$ZK" verify "$T/bn.vk.json" "$T/o/$o/public.json" "$T/o/$o/proof.json" >/dev/null 2>&1 && v=$((v + 1))
done
[ "$v" = 7 ] && ok "7 proofs verify" || ko "$v of 7 proofs verify"
hs=$(jobjson "$high" t_synth_start)
over=0
prev=0 fifo=1
for id in "${low[@]}"; do
	s=$(jobjson "$id" t_synth_start)
	[ "$hs" -lt "$s" ] && over=$((over + 1))
	[ "$s" -gt "$prev" ] || fifo=0
	prev=$s
done
[ "$over" = 5 ] && ok "the priority-10 job overtook the 5 queued priority-0 jobs" || ko "it overtook $over of 5"
[ "$fifo" = 1 ] && ok "priority-0 jobs started in submission order" || ko "priority-0 jobs out of order: $(for id in "${low[@]}"; do jobjson "$id" t_synth_start; done | tr "\n" " ")"
stop_run
check "arena invariants hold" "$ZK" arena check "$NAME"
finish
