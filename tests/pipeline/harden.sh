#!/usr/bin/env bash
# harden.sh ZKARENA - issue 19: a node that other users cannot subvert and that never stops
# taking work. Needs root (it makes a second user with useradd and runs commands as that user
# with setpriv); exits 77 (skipped) otherwise.
#  1. outputs: a submitter who swaps its --out directory for a symbolic link after submit, or
#     plants the done marker (a symbolic link, or a regular file with no proof), gets a FAILED
#     job with the reason, and nothing is written outside its directory; a good job's files
#     belong to the submitter; a symbolic link as --out is refused at submit
#  2. ownership: an arena created by another user is refused by run, submit, status, arena
#     status and the arena unit's command (naming the owner); a params region owned by another
#     user is refused by submit and by the pipeline; a user outside the arena's group is
#     refused with EACCES
#  3. retention: 5x the job table's size submitted one after another, never released: all
#     DONE (wait answers from the record or the done marker); a full table of live jobs is
#     refused saying how many; --retention frees old records
#  4. late failures caught at submit or named: slots too small (both sizes named), witness
#     not satisfying the circuit (the pipeline and prove name witness and key), a FIFO as
#     witness, verify with a FIFO exits 2 at once, an output directory the submitter cannot
#     write
#  5. corrupt records: arena check finds them, check --repair quarantines them for good
#  6. proof attempts: a gpud killed mid-proof leaves attempt 1 unfinished; status JOB shows
#     both attempts (pid, times), the done marker names attempt 2
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "skipped: needs root (useradd, setpriv)"
	exit 77
fi
source "$here/lib.sh" "$1"
U=zka-harden-user
NAME_B=${NAME}b
uid_made=0
if ! id -u "$U" >/dev/null 2>&1; then
	useradd --no-create-home --shell /usr/sbin/nologin --user-group "$U" && uid_made=1
fi
harden_cleanup() {
	cleanup
	"$ZK" arena destroy "$NAME_B" >/dev/null 2>&1
	rm -f /dev/shm/zkarena-"$NAME_B"* 2>/dev/null
	[ "$uid_made" = 1 ] && userdel "$U" >/dev/null 2>&1
	true
}
trap harden_cleanup EXIT
UID_B=$(id -u "$U")
as_b() { env HOME=/tmp setpriv --reuid="$UID_B" --regid="$(id -g "$U")" --init-groups -- "$@"; }
chmod 755 "$T"
keys bn128 300 bn && keys bn128 17000 big || { echo "keys failed"; exit 1; }
mkdir -p "$T/b" "$T/victim" "$T/o" && chown "$U:$U" "$T/b" && chmod 755 "$T/victim"
echo "precious" > "$T/victim/target"
jsonf() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);console.log(eval('j.'+process.argv[1]))})" "$1"; }

# ---- 1. outputs ----
check "arena create --group" "$ZK" arena create "$NAME" --slots 2 --slot-bytes 1M --jobs 8 --group "$U"
id0=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/root") # root loads the key (no pipeline yet)
as_b mkdir -p "$T/b/swap" "$T/b/mk1" "$T/b/mk2" "$T/b/good"
expect 2 "--out a symbolic link: submit refused" as_b sh -c "ln -s '$T/victim' '$T/b/link' && '$ZK' submit '$NAME' '$T/bn.zkey' '$T/bn.wtns' --out '$T/b/link'"
check "  says it is a symbolic link" grep -q "symbolic link" "$T/out"
sub_b() { as_b "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn.wtns" --out "$1" | tail -1; }
id1=$(sub_b "$T/b/swap")
id2=$(sub_b "$T/b/mk1")
id3=$(sub_b "$T/b/mk2")
id4=$(sub_b "$T/b/good")
[ -n "$id1" ] && [ -n "$id4" ] && ok "the group's member submits to root's arena" || ko "submit as $U failed"
epoch=$("$ZK" arena status "$NAME" --json | grep -o '"epoch_ns":[0-9]*' | cut -d: -f2) # > 2^53: not through node
# the swap: the directory moved away, a link to the victim in its place
as_b sh -c "mv '$T/b/swap' '$T/b/swap.real' && ln -s '$T/victim' '$T/b/swap'"
# planted markers: a link to a root file, and a regular file with no proof beside it
as_b ln -s "$T/victim/target" "$T/b/mk1/.zkarena-job-$epoch-$id2.done"
as_b touch "$T/b/mk2/.zkarena-job-$epoch-$id3.done"
start_run 1
expect 0 "root's job DONE" "$ZK" wait "$NAME" "$id0" --timeout 60
expect 1 "symlink swap: job FAILED" "$ZK" wait "$NAME" "$id1" --timeout 60
check "  reason: not the directory submitted" grep -q "not the directory submitted\|symbolic link" "$T/out"
expect 1 "planted marker (symbolic link): job FAILED" "$ZK" wait "$NAME" "$id2" --timeout 60
check "  reason names the marker" grep -q "done marker .* not a regular file" "$T/out"
expect 1 "planted marker (no proof beside it): job FAILED" "$ZK" wait "$NAME" "$id3" --timeout 60
check "  reason: outputs not this job's" grep -q "not this job's" "$T/out"
[ "$(ls -A "$T/victim")" = target ] && [ "$(cat "$T/victim/target")" = precious ] &&
	ok "nothing written outside the submitter's directories" || ko "victim dir: $(ls -la "$T/victim")"
[ -z "$(ls -A "$T/b/swap.real")" ] && ok "the moved directory got nothing either" || ko "swap.real: $(ls -A "$T/b/swap.real")"
expect 0 "a good job of the member: DONE" "$ZK" wait "$NAME" "$id4" --timeout 60
[ "$(stat -c %U "$T/b/good/proof.json")" = "$U" ] && [ "$(stat -c %U "$T/b/good/public.json")" = "$U" ] &&
	ok "  its files belong to the submitter" || ko "  owners: $(stat -c '%n %U' "$T/b/good/"*)"
expect 0 "  its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/b/good/public.json" "$T/b/good/proof.json"
expect 2 "an output directory the submitter cannot write: refused" as_b "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn.wtns" --out "$T/victim"
check "  says so" grep -q "not writable by this user" "$T/out"
expect 2 "a member may not load a key" as_b "$ZK" submit "$NAME" "$T/big.zkey" "$T/big.wtns" --out "$T/b/good"
check "  names the owner who loads keys" grep -q "only its owner (uid 0) loads keys" "$T/out"

# ---- 6. proof attempts (gpud killed mid-proof, re-proved) ----
stop_run
start_run 1 ZKA_PROVE_DELAY_MS=1500
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/att")
kill_mid_proof "$id"
expect 0 "job DONE after the gpud's death" "$ZK" wait "$NAME" "$id" --timeout 60
"$ZK" status "$NAME" "$id" >"$T/st" 2>&1
check "status JOB: two proof attempts" grep -q "proof attempts: 2" "$T/st"
check "  attempt 1: the killed gpud, did not finish" grep -q "attempt 1: gpud pid $pid, .*did not finish" "$T/st"
check "  attempt 2: another gpud, ended" sh -c "grep 'attempt 2: gpud pid' '$T/st' | grep -v 'pid $pid,' | grep -q 'ended [0-9]'"
check "  the done marker names attempt 2" grep -q "attempt 2 gpud pid" "$T/o/att/.zkarena-job-$epoch-$id.done"
stop_run

# ---- 2. ownership ----

idp=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/par")
region=$("$ZK" arena status "$NAME" --json | jsonf 'circuits[0].params_shm')
chown "$U" "/dev/shm$region"
expect 2 "params region of another user: submit refused" "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn.wtns" --out "$T/o"
check "  names the region and its owner" grep -q "params region $region is owned by uid $UID_B" "$T/out"
start_run 1
expect 1 "  and the pipeline fails the queued job" "$ZK" wait "$NAME" "$idp" --timeout 60
check "  with the reason" grep -q "owned by uid $UID_B" "$T/out"
stop_run
chown root "/dev/shm$region"
expect 2 "a user outside the group: EACCES" setpriv --reuid=65534 --regid=65534 --clear-groups -- "$ZK" status "$NAME"
check "  says permission denied" grep -q "EACCES" "$T/out"
check "B creates its own arena" as_b "$ZK" arena create "$NAME_B" --slots 1 --slot-bytes 1M
expect 2 "another user's arena: run refused" timeout 20 "$ZK" run "$NAME_B" --workers 1 --backend cpu
check "  names the owner" grep -q "owned by uid $UID_B" "$T/out"
expect 2 "  submit refused" "$ZK" submit "$NAME_B" "$T/bn.zkey" "$T/bn.wtns" --out "$T/o"
check "  names the owner" grep -q "owned by uid $UID_B" "$T/out"
expect 2 "  status refused" "$ZK" status "$NAME_B"
check "  names the owner" grep -q "owned by uid $UID_B" "$T/out"
expect 2 "  arena status refused" "$ZK" arena status "$NAME_B"
# the arena unit's ExecStart, word for word, with this build's zkarena and a settings file here
printf '[arena]\nslots = 1\nslot_bytes = 1M\njobs = 64\n' >"$T/unit.conf"
unit_cmd=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" "$here/../../systemd/zkarena-arena@.service" | sed 's/\$\$/$/g')
unit_cmd=${unit_cmd//\/usr\/bin\/zkarena/$ZK}
unit_cmd=${unit_cmd//\/etc\/zkarena\/%i.conf/$T/unit.conf}
unit() { env PATH="$(dirname "$ZK"):$PATH" sh -c "${unit_cmd//%i/$1}"; }
check "the arena unit runs arena ensure" sh -c "echo '$unit_cmd' | grep -q 'arena ensure'"
expect 2 "  the arena unit's command refuses it" unit "$NAME_B"
check "  names the owner" grep -q "owned by uid $UID_B" "$T/out"
"$ZK" arena destroy "$NAME_B" >/dev/null
expect 0 "the unit's command creates a missing arena" unit "$NAME_B"
expect 0 "  and accepts it again (this user's)" unit "$NAME_B"
check "  says it is this user's" grep -q "exists and is this user's" "$T/out"
"$ZK" arena destroy "$NAME_B" >/dev/null

# ---- 3. retention ----
check "arena re-create (8 job records)" sh -c "'$ZK' arena destroy '$NAME' && '$ZK' arena create '$NAME' --slots 2 --slot-bytes 1M --jobs 8"
start_run 1
ids=()
nsub=0
for i in $(seq 1 40); do
	id=$("$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn.wtns" --out "$(mkdir -p "$T/r/$i" && echo "$T/r/$i")" 2>"$T/suberr" | tail -1)
	[ -n "$id" ] && nsub=$((nsub + 1))
	ids+=("$id")
done
[ "$nsub" = 40 ] && ok "40 jobs (5x the 8 records) submitted without --release" || ko "only $nsub of 40 submitted: $(cat "$T/suberr")"
ndone=0
for i in $(seq 1 40); do
	"$ZK" wait "$NAME" "${ids[$((i - 1))]}" --timeout 60 --out "$T/r/$i" >/dev/null 2>&1 && ndone=$((ndone + 1))
done
[ "$ndone" = 40 ] && ok "all 40 DONE" || ko "$ndone of 40 DONE"
nv=0
for i in 1 20 40; do "$ZK" verify "$T/bn.vk.json" "$T/r/$i/public.json" "$T/r/$i/proof.json" >/dev/null && nv=$((nv + 1)); done
[ "$nv" = 3 ] && ok "  their proofs verify (3 sampled)" || ko "  $nv of 3 verify"
expect 2 "wait on a reused record without --out: says it expired" "$ZK" wait "$NAME" "${ids[0]}" --timeout 1
check "  message" grep -q "expired" "$T/out"
expect 0 "  with --out: DONE from the done marker" "$ZK" wait "$NAME" "${ids[0]}" --out "$T/r/1"
check "  says so" grep -q "from the done marker" "$T/out"
stop_run
for i in 1 2 3 4 5 6 7 8; do submit "$T/bn.zkey" "$T/bn.wtns" "$T/f/$i" >/dev/null; done
expect 2 "a table of 8 live jobs: submit refused" "$ZK" submit "$NAME" "$T/bn.zkey" "$T/bn.wtns" --out "$T/o"
check "  says every record is live" grep -q "all 8 records are live (8 queued or in progress" "$T/out"
check "arena re-create (--retention 1)" sh -c "'$ZK' arena destroy '$NAME' && '$ZK' arena create '$NAME' --slots 2 --slot-bytes 1M --retention 1"
start_run 1
id=$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/o/ret")
expect 0 "job DONE" "$ZK" wait "$NAME" "$id" --timeout 60
sleep 4 # retention 1 s; gpud's recovery every 2 s
[ "$(jobjson "$id" state)" = FREE ] && ok "  its record is freed after the retention time" || ko "  record still $(jobjson "$id" state)"
expect 0 "  wait still answers DONE (from the kept record and marker)" "$ZK" wait "$NAME" "$id"
expect 0 "  status JOB shows the kept record" "$ZK" status "$NAME" "$id"
check "  as freed by retention, DONE" sh -c "grep -q 'record freed by retention' '$T/out' && grep -q ': DONE' '$T/out'"

# ---- 4. late failures ----
expect 2 "a key that needs bigger slots: submit refused" "$ZK" submit "$NAME" "$T/big.zkey" "$T/big.wtns" --out "$T/o"
check "  names both sizes" grep -q "big.zkey: the key needs slots of [0-9]* bytes but arena .* slots hold 2097152 bytes" "$T/out"
cp "$T/bn.wtns" "$T/unsat.wtns"
sz=$(stat -c %s "$T/unsat.wtns")
printf '\x05' | dd of="$T/unsat.wtns" bs=1 seek=$((sz - 32)) conv=notrunc status=none
id=$(submit "$T/bn.zkey" "$T/unsat.wtns" "$T/o/unsat")
expect 1 "unsatisfying witness without --r1cs: FAILED" "$ZK" wait "$NAME" "$id" --timeout 60
check "  names the witness and the key, no internal error" sh -c "grep -q 'witness $T/unsat.wtns does not satisfy the circuit, or key $T/bn.zkey may be corrupt' '$T/out' && ! grep -qi 'internal error' '$T/out'"
expect 1 "prove: unsatisfying witness exits 1" "$ZK" prove "$T/bn.zkey" "$T/unsat.wtns" "$T/o/p.json" "$T/o/pub.json"
check "  names the witness and the key" grep -q "witness $T/unsat.wtns does not satisfy the circuit, or key $T/bn.zkey may be corrupt" "$T/out"
mkfifo "$T/fifo"
expect 2 "a FIFO as witness: submit refused" timeout 10 "$ZK" submit "$NAME" "$T/bn.zkey" "$T/fifo" --out "$T/o"
check "  not a regular file" grep -q "not a regular file" "$T/out"
t0=$(date +%s%N)
expect 2 "verify with a FIFO exits 2" timeout 10 "$ZK" verify "$T/fifo" "$T/o/ret/public.json" "$T/o/ret/proof.json"
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -lt 3000 ] && ok "  at once ($(((t1 - t0) / 1000000)) ms)" || ko "  took $(((t1 - t0) / 1000000)) ms"
expect 2 "verify with a FIFO as proof exits 2" timeout 10 "$ZK" verify "$T/bn.vk.json" "$T/o/ret/public.json" "$T/fifo"
check "  not a regular file" grep -q "not a regular file" "$T/out"
stop_run

# ---- 5. corrupt records quarantined ----
g=$("$ZK" arena status "$NAME" --json)
joff=$(echo "$g" | jsonf geometry.jobs_off); jrb=$(echo "$g" | jsonf geometry.job_rec_bytes)
soff=$(echo "$g" | jsonf geometry.slots_off); srb=$(echo "$g" | jsonf geometry.slot_rec_bytes)
printf '\x0f' | dd of="/dev/shm/zkarena-$NAME" bs=1 seek=$((joff + 5 * jrb)) conv=notrunc status=none
printf '\x0f' | dd of="/dev/shm/zkarena-$NAME" bs=1 seek=$((soff + 1 * srb)) conv=notrunc status=none
expect 1 "arena check finds the corrupt records" "$ZK" arena check "$NAME"
check "  says so" grep -q "corrupt record" "$T/out"
expect 0 "arena check --repair quarantines them" "$ZK" arena check "$NAME" --repair
check "  counts them" grep -q "quarantined 1 slot record(s) and 1 job record(s)" "$T/out"
g=$("$ZK" arena status "$NAME" --json)
[ "$(echo "$g" | jsonf slot_states.QUARANTINED)" = 1 ] && [ "$(echo "$g" | jsonf job_states.QUARANTINED)" = 1 ] &&
	ok "  status shows them QUARANTINED" || ko "  states: $(echo "$g" | jsonf 'JSON.stringify(j.slot_states)') $(echo "$g" | jsonf 'JSON.stringify(j.job_states)')"
check "  arena status (text) counts them" sh -c "'$ZK' arena status '$NAME' | grep -q 'QUARANTINED 1/1'"
start_run 1
ids=()
for i in 1 2 3 4 5 6; do ids+=("$(submit "$T/bn.zkey" "$T/bn.wtns" "$T/q/$i")"); done
nd=0
for id in "${ids[@]}"; do "$ZK" wait "$NAME" "$id" --timeout 60 >/dev/null && nd=$((nd + 1)); done
[ "$nd" = 6 ] && ok "6 jobs DONE beside the quarantined records" || ko "$nd of 6 DONE"
stop_run
g=$("$ZK" arena status "$NAME" --json)
[ "$(echo "$g" | jsonf 'slots[1].state')" = QUARANTINED ] && [ "$(echo "$g" | jsonf 'jobs.find(x=>x.index===5).state')" = QUARANTINED ] &&
	ok "  never handed out again" || ko "  slot 1 / job 5 now $(echo "$g" | jsonf 'slots[1].state')"
check "arena invariants hold" "$ZK" arena check "$NAME"
finish
