#!/usr/bin/env bash
# priority.sh ZKARENA - job priorities: with one synthesis worker busy, five jobs of priority 0
# queue; a later job of priority 10 overtakes them (its synthesis starts before theirs), and
# the five start in submission order (FIFO within a priority). All DONE and verified.
# Then the age rule (a job gains one level per step waited), with the step shortened to 400 ms
# by the test hook ZKA_PRIORITY_AGE_MS: with no worker running, an "old" priority-0 job waits
# 2 s, then a "young" priority-0 job and a "high" priority-3 job are submitted and one worker
# starts. The old job (5 levels gained) is taken before the high one, which is taken before
# the young one (the levels the young job gained do not make up the 3 it lacks); the order is
# read from the records' synthesis start times and checked against the rule's arithmetic on
# the records' submission times.
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

# the age rule, with a step of AGE ms (the workers' ZKA_PRIORITY_AGE_MS)
AGE=400
old=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/old")
sleep 2
young=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/young")
high=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/high3" --priority 3)
start_run 1 ZKA_PRIORITY_AGE_MS=$AGE
d=0
for id in "$old" "$young" "$high"; do "$ZK" wait "$NAME" "$id" --timeout 120 >/dev/null 2>&1 && d=$((d + 1)); done
[ "$d" = 3 ] && ok "old, young and high jobs DONE" || ko "$d of 3 jobs DONE"
v=0
for o in old young high3; do
	"$ZK" verify "$T/bn.vk.json" "$T/o/$o/public.json" "$T/o/$o/proof.json" >/dev/null 2>&1 && v=$((v + 1))
done
[ "$v" = 3 ] && ok "3 proofs verify" || ko "$v of 3 proofs verify"
os=$(jobjson "$old" t_synth_start) ys=$(jobjson "$young" t_synth_start) hs=$(jobjson "$high" t_synth_start)
ot=$(jobjson "$old" t_submit) yt=$(jobjson "$young" t_submit) ht=$(jobjson "$high" t_submit)
step=$((AGE * 1000000))
# effective priorities when the old job was taken, and when the high one was
eo=$(((os - ot) / step)) eh=$((3 + (os - ht) / step))
eh2=$((3 + (hs - ht) / step)) ey2=$(((hs - yt) / step))
echo "     old waited $(((os - ot) / 1000000)) ms (level $eo), high $(((os - ht) / 1000000)) ms (level $eh) when old was taken; high level $eh2, young level $ey2 when high was taken"
[ "$os" -lt "$hs" ] && ok "the aged priority-0 job was taken before the newer priority-3 job" || ko "the high job was taken first (old $os, high $hs)"
[ "$hs" -lt "$ys" ] && ok "the priority-3 job was taken before the young priority-0 job" || ko "the young job was taken before the high one (high $hs, young $ys)"
[ "$eo" -ge "$eh" ] && [ "$eh2" -gt "$ey2" ] && ok "both takes agree with the rule's levels (ties go to the earlier submitted)" || ko "levels: old $eo vs high $eh; high $eh2 vs young $ey2"
stop_run
check "arena invariants hold after the age test" "$ZK" arena check "$NAME"
finish
