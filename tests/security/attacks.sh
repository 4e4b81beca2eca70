#!/usr/bin/env bash
# attacks.sh ZKARENA - issue 38: trust nothing another local user can touch. Run as root (CI
# does): it makes a throwaway unprivileged user with useradd (as tests/pipeline/harden.sh and
# the cluster tests' PostgreSQL do) and tries, as that user, each attack of the issue's list
# and a few more against root's keys, files, arenas and jobs; every check asserts the outcome:
# refused with a named reason, or harmless, and nothing of root's read or written.
# Without root it says loudly that it skipped and exits 77 (ctest: skipped).
#   1. key regions: another user's resident region of root's key is not used by prove, submit
#      or the pipeline (unless ZKARENA_KEY_OWNERS names that user); group/other-writable ones
#      neither
#   2. writes: planted links at the temporary names of import -o and prove (a world-writable
#      directory, links not protected) overwrite nothing; a link at the final name is
#      replaced, not followed; the key cache: another user's directory, a parent writable by
#      others, HOME unset (no /tmp fallback); cache 0700, entries 0600; outputs honour the
#      umask (prove) and the output directory's mode (the pipeline)
#   3. group arena: a member cannot cancel, release, wait on or read root's job, nor read its
#      witness in the slots (an owner-only object); a record a member rewrites (uid 0, a
#      root-only witness) is refused by the daemons (not attested)
#   4. witnesses: a witness swapped for a link to a root-only file, or a FIFO, after submit
#      fails the job (nothing of the file reaches the slot, the worker never blocks); witnesses truncated and restored in a loop while
#      jobs run never kill a worker (each job DONE and verified, or FAILED with a reason)
#   5. a FIFO planted at a gpud status name does not stop the daemon or status
#   6. a flood at priority 1000 from one user does not starve another's job ([limits]); submit
#      refuses beyond the limits
#   7. corruption: a ring's mutex word ff000000 is named by check, refused by run, repaired by
#      check --repair; a slot record with data_size 0 is quarantined and jobs go on; a
#      circuit record's scribbled state word is named by check and reset by --repair
#   8. smaller: no public.json left when proof.json cannot be written (ENOSPC hook); a .zkey
#      with a 50 GB sparse tail refused from its header at once; params evict refuses a region
#      an arena uses; arena create --jobs 0 refused; a SIGSTOPped gpud shown as stopped
#   9. a private arena behind `serve --unix-group`: a member submits through the socket and gets
#      its proof; it cannot see or cancel root's job, read the arena's shared memory or open
#      the arena; a user outside the group cannot connect; an unknown group is refused; [limits]
#      hold per socket peer (429 beyond user_queued, 403 above user_priority, the record counts
#      the job against the peer, status shows its queue)
here=$(cd "$(dirname "$0")" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "*** SKIPPED: tests/security/attacks.sh needs root (useradd, setpriv, chown) to act as a"
	echo "*** second local user; run it as root (CI does). Nothing was tested."
	exit 77
fi
source "$here/../pipeline/lib.sh" "$1"
U=zka-sec-$$
useradd --no-create-home --shell /usr/sbin/nologin --user-group "$U" || { echo "useradd failed"; exit 1; }
sec_cleanup() {
	cleanup
	rm -f "$T/flipping"
	rm -f "/dev/shm/zkarena-$NAME.gpud9-status"
	for r in /dev/shm/zka-key.*; do
		[ -e "$r" ] && [ "$(stat -c %U "$r")" = "$U" ] && rm -f "$r"
	done
	[ -n "${ROOT_REGION:-}" ] && rm -f "/dev/shm$ROOT_REGION"
	userdel "$U" >/dev/null 2>&1
	true
}
trap sec_cleanup EXIT
UID_B=$(id -u "$U")
GID_B=$(id -g "$U")
as_b() { env -u ZKARENA_CACHE HOME=/nonexistent setpriv --reuid="$UID_B" --regid="$GID_B" --init-groups -- "$@"; }
chmod 755 "$T"
keys bn128 300 c && keys bn128 300 d || { echo "keys failed"; exit 1; }
chmod 644 "$T"/c.* "$T"/d.*
mkdir -p "$T/o" "$T/victim" "$T/b" && chown "$U:$U" "$T/b" && chmod 700 "$T/victim"
echo precious >"$T/victim/secret" && chmod 600 "$T/victim/secret"
victim_intact() { [ "$(cat "$T/victim/secret")" = precious ] && [ "$(ls -A "$T/victim")" = secret ]; }
verify() { "$ZK" verify "$T/c.vk.json" "$1/public.json" "$1/proof.json" >/dev/null 2>&1; }

# ---- 1. resident key regions ----
as_b "$ZK" params load "$T/c.zkey" >"$T/out" 2>&1
B_REGION=$(ls -l /dev/shm | awk -v u="$U" '$3==u && $NF ~ /^zka-key\./ {print "/"$NF}' | head -1)
[ -n "$B_REGION" ] && ok "the other user loads root's key as its own resident region ($B_REGION)" ||
	ko "params load as $U made no region: $(tail -c 300 "$T/out")"
expect 0 "root's prove with that region present: exit 0" "$ZK" prove --times "$T/c.zkey" "$T/c.wtns" "$T/o/p1.json" "$T/o/pub1.json"
check "  the other user's region was not used" sh -c "! grep -q 'resident region' '$T/out'"
check "  the proof verifies against c's vk" "$ZK" verify "$T/c.vk.json" "$T/o/pub1.json" "$T/o/p1.json"
expect 0 "  with ZKARENA_KEY_OWNERS naming that user, its region is used (the control)" env ZKARENA_KEY_OWNERS="1,$UID_B" "$ZK" prove --times "$T/c.zkey" "$T/c.wtns" "$T/o/p2.json" "$T/o/pub2.json"
check "  says resident region" grep -q "resident region $B_REGION" "$T/out"
chmod 666 "/dev/shm$B_REGION"
expect 0 "  but not once it is writable by others" env ZKARENA_KEY_OWNERS="$UID_B" "$ZK" prove --times "$T/c.zkey" "$T/c.wtns" "$T/o/p3.json" "$T/o/pub3.json"
check "  (not used)" sh -c "! grep -q 'resident region' '$T/out'"
check "arena create" "$ZK" arena create "$NAME" --slots 2 --slot-bytes 1M --jobs 16
start_run 1
nd=0
for i in 1 2 3 4 5; do
	id=$(submit "$T/c.zkey" "$T/c.wtns" "$T/o/r$i")
	"$ZK" wait "$NAME" "$id" --timeout 60 >/dev/null 2>&1 && verify "$T/o/r$i" && nd=$((nd + 1))
done
[ "$nd" = 5 ] && ok "the pipeline beside the planted region: 5 of 5 root jobs DONE and verified" || ko "$nd of 5 DONE"
region=$("$ZK" arena status "$NAME" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).circuits[0].params_shm))")
[ "$region" != "$B_REGION" ] && [ "$(stat -c %u "/dev/shm$region")" = 0 ] &&
	ok "  the arena's circuit uses root's own region ($region)" || ko "  the arena uses $region"
stop_run

# ---- 8a. params evict vs arenas ----
"$ZK" params load "$T/d.zkey" >/dev/null 2>&1
ROOT_REGION=$(ls -l /dev/shm | awk '$3=="root" && $NF ~ /^zka-key\./ {print "/"$NF}' | head -1)
did=$(submit "$T/d.zkey" "$T/d.wtns" "$T/o/d1")
[ -n "$ROOT_REGION" ] && [ -n "$did" ] && ok "root's resident region of d serves the arena" || ko "no resident region / submit failed"
expect 2 "params evict of a region an arena uses: refused" "$ZK" params evict "${ROOT_REGION#/zka-key.}"
check "  names the arena" grep -q "serves arena $NAME" "$T/out"
[ -e "/dev/shm$ROOT_REGION" ] && ok "  the region is still there" || ko "  the region is gone"

# ---- 2. writes: planted links, the key cache, modes ----
W=$T/ww
mkdir -p "$W" && chmod 1777 "$W"
# every name the old writers used: <out>.tmp<PID> (import) and <out>.tmp.<PID>.<n> (prove)
as_b sh -c "p=\$\$; for i in \$(seq \$p \$((p + 400))); do ln -s '$T/victim/secret' '$W/c.zka.tmp'\$i; for n in 0 1 2; do ln -s '$T/victim/secret' '$W/proof.json.tmp.'\$i.\$n; ln -s '$T/victim/secret' '$W/public.json.tmp.'\$i.\$n; done; done"
as_b ln -s "$T/victim/secret" "$W/pub.json"
expect 0 "import -o into a world-writable directory full of planted links" "$ZK" import "$T/c.zkey" -o "$W/c.zka"
expect 0 "prove into it, a link planted at public.json's final name" "$ZK" prove "$W/c.zka" "$T/c.wtns" "$W/proof.json" "$W/pub.json"
victim_intact && ok "  the root-only file is untouched" || ko "  victim: $(ls -la "$T/victim")"
[ -f "$W/c.zka" ] && [ ! -L "$W/pub.json" ] && [ "$(stat -c %U "$W/pub.json")" = root ] &&
	ok "  the outputs are root's files (the link at the final name replaced, not followed)" || ko "  $(ls -la "$W" | head -5)"
mkdir -p "$T/bc" && chown "$U" "$T/bc"
expect 0 "a key cache directory owned by another user: prove still works" env ZKARENA_CACHE="$T/bc" "$ZK" prove "$T/c.zkey" "$T/c.wtns" "$T/o/p4.json" "$T/o/pub4.json"
check "  says why it does not cache" grep -q "owned by another user" "$T/out"
[ -z "$(ls -A "$T/bc")" ] && ok "  nothing written into it" || ko "  $(ls -la "$T/bc")"
mkdir -p "$T/open" && chmod 777 "$T/open"
expect 0 "a cache whose parent is writable by others without the sticky bit" env ZKARENA_CACHE="$T/open/cache" "$ZK" prove "$T/c.zkey" "$T/c.wtns" "$T/o/p5.json" "$T/o/pub5.json"
check "  refused, named" grep -q "writable by group or others without the sticky bit" "$T/out"
[ ! -e "$T/open/cache" ] && ok "  nothing created there" || ko "  $(ls -la "$T/open")"
env ZKARENA_CACHE="$T/own/cache" "$ZK" prove "$T/c.zkey" "$T/c.wtns" "$T/o/p6.json" "$T/o/pub6.json" >/dev/null 2>&1
[ "$(stat -c %a "$T/own/cache")" = 700 ] && [ "$(stat -c %a "$T"/own/cache/*.zka)" = 600 ] &&
	ok "the cache is made 0700, its entries 0600" || ko "  modes: $(stat -c '%a %n' "$T/own/cache" "$T"/own/cache/*)"
as_b ln -s "$T/own" "$W/lnk" # a link of the user's, in a sticky directory, to root's directory
expect 0 "a cache path through another user's symbolic link: prove works" env ZKARENA_CACHE="$W/lnk/cache" "$ZK" prove "$T/c.zkey" "$T/c.wtns" "$T/o/p7.json" "$T/o/pub7.json"
check "  refused, named" grep -q "is a symbolic link of another user" "$T/out"
rm -rf /tmp/.cache.zka-sec-test
mkdir -p /tmp/.cache.zka-sec-test/zkarena && chmod -R 777 /tmp/.cache.zka-sec-test
as_b mkdir -p "$T/b/h"
expect 0 "HOME unset: prove as the user works" as_b env -u HOME -u XDG_CACHE_HOME "$ZK" prove "$T/c.zkey" "$T/c.wtns" "$T/b/h/p.json" "$T/b/h/pub.json"
check "  without a cache in /tmp, and says so" grep -q "no key cache directory (HOME and XDG_CACHE_HOME unset" "$T/out"
[ -z "$(find /tmp/.cache /tmp/.cache.zka-sec-test -user "$U" 2>/dev/null)" ] && ok "  nothing of the user's in /tmp/.cache" || ko "  $(find /tmp/.cache -user "$U")"
rm -rf /tmp/.cache.zka-sec-test
(umask 077 && "$ZK" prove "$W/c.zka" "$T/c.wtns" "$T/o/um.json" "$T/o/umpub.json" >/dev/null 2>&1)
[ "$(stat -c %a "$T/o/um.json")" = 600 ] && [ "$(stat -c %a "$T/o/umpub.json")" = 600 ] &&
	ok "prove's outputs honour the umask (077: 0600)" || ko "  modes $(stat -c %a "$T/o/um.json")"

# ---- 3. group arena: another user's job ----
check "arena re-created with --group $U" sh -c "'$ZK' arena destroy '$NAME' && '$ZK' arena create '$NAME' --slots 2 --slot-bytes 1M --jobs 16 --group '$U'"
mkdir -p "$T/priv" && chmod 700 "$T/priv"
rid=$(submit "$T/c.zkey" "$T/c.wtns" "$T/priv/q")
expect 2 "a member cancels root's job: refused" as_b "$ZK" cancel "$NAME" "$rid"
check "  names the owner (uid 0)" grep -q "belongs to uid 0: only its submitter" "$T/out"
expect 2 "  status JOB of root's job: refused" as_b "$ZK" status "$NAME" "$rid"
expect 2 "  wait --release on it: refused" as_b "$ZK" wait "$NAME" "$rid" --timeout 1 --release
as_b "$ZK" list "$NAME" >"$T/out" 2>&1
check "  list hides its paths" sh -c "grep -q '(a job of uid 0)' '$T/out' && ! grep -q '$T/priv' '$T/out'"
start_run 1 RUN_DUMMY=1
expect 0 "root's job DONE (not cancelled)" "$ZK" wait "$NAME" "$rid" --timeout 60
# the slots: root's witness went through one; the member can read no byte of it. The probe is a
# witness value of root's: the last 32-byte value of c.wtns with 16+ nonzero bytes (the slot
# holds the witness as .wtns does)
probe=$(node -e "const b=require('fs').readFileSync(process.argv[1]);
for(let o=b.length-32;o>0;o-=32){const v=b.subarray(o,o+32);
if(v.filter(x=>x).length>=16){console.log(v.toString('hex'));break}}" "$T/c.wtns")
printf '%s\n' "const b=require('fs').readFileSync(process.argv[2]);" \
	"process.exit(b.indexOf(Buffer.from(process.argv[3],'hex'))>=0?0:1)" >"$T/probe.js"
chmod 644 "$T/probe.js"
check "  (control: the probe, a value of root's witness, is in root's slot object)" sh -c \
	"[ ${#probe} = 64 ] && node '$T/probe.js' '/dev/shm/zkarena-$NAME+slots' '$probe'"
expect 1 "  the member opens the slot object: permission denied" as_b cat "/dev/shm/zkarena-$NAME+slots"
leak= nread=0
for f in /dev/shm/zkarena-"$NAME"*; do
	as_b test -r "$f" || continue
	nread=$((nread + 1))
	as_b node "$T/probe.js" "$f" "$probe" && leak="$leak $f"
done
[ -z "$leak" ] && [ "$nread" -ge 1 ] && ok "  none of root's witness in the $nread arena object(s) the member can read" ||
	ko "  root's witness readable by the member in:$leak (read $nread)"
as_b "$ZK" arena status "$NAME" >"$T/out" 2>&1
check "  arena status tells the member the slots are not readable by it" grep -q "owner's alone); not readable by this user" "$T/out"

# a member forges its own queued record: uid/gid 0 and a root-only witness (the shm object
# is group-writable); root's daemons must not act on it as root
stop_run
mkdir -p "$T/rootonly" && chmod 700 "$T/rootonly"
cp "$T/c.wtns" "$T/rootonly/root.wtns" && chmod 600 "$T/rootonly/root.wtns"
as_b cp "$T/c.wtns" "$T/b/w2.wtns"
as_b mkdir -p "$T/b/forged"
fid=$(as_b "$ZK" submit "$NAME" "$T/c.zkey" "$T/b/w2.wtns" --out "$T/b/forged" | tail -1)
g=$("$ZK" arena status "$NAME" --json)
as_b node -e "
const fs=require('fs'),[shm,g,id,wold,wnew,uid,gid]=process.argv.slice(1);const G=JSON.parse(g).geometry;
const idx=Number(BigInt(id)&0xffffffn),off=G.jobs_off+idx*G.job_rec_bytes,f=fs.openSync(shm,'r+');
const r=Buffer.alloc(G.job_rec_bytes);fs.readSync(f,r,0,r.length,off);
const w=r.indexOf(Buffer.from(wold+'\\0','latin1'));const ug=Buffer.alloc(8);ug.writeUInt32LE(+uid,0);ug.writeUInt32LE(+gid,4);
const u=r.indexOf(ug);if(w<0||u<0){console.error('fields not found');process.exit(1);}
const nw=Buffer.from(wnew+'\\0','latin1');fs.writeSync(f,nw,0,nw.length,off+w);fs.writeSync(f,Buffer.alloc(8),0,8,off+u);" \
	"/dev/shm/zkarena-$NAME" "$g" "$fid" "$T/b/w2.wtns" "$T/rootonly/root.wtns" "$UID_B" "$GID_B" &&
	ok "the member rewrote its queued record: uid 0, a root-only witness" || ko "could not forge the record"
[ "$(jobjson "$fid" witness)" = "$T/rootonly/root.wtns" ] && [ "$(jobjson "$fid" uid)" = 0 ] &&
	ok "  (the record now says so)" || ko "  record: $(jobjson "$fid" witness) uid $(jobjson "$fid" uid)"
start_run 1
expect 1 "the forged record: job FAILED, not proved as root" "$ZK" wait "$NAME" "$fid" --timeout 60
check "  the reason: not attested by its submitter" grep -q "not attested: its attestation was made by another user" "$T/out"
[ -z "$(ls -A "$T/b/forged")" ] && ok "  nothing written for it" || ko "  written: $(ls -la "$T/b/forged")"

# ---- 4. witnesses changed under the worker ----
stop_run
as_b cp "$T/c.wtns" "$T/b/w.wtns"
as_b mkdir -p "$T/b/o1" "$T/b/o2"
id1=$(as_b "$ZK" submit "$NAME" "$T/c.zkey" "$T/b/w.wtns" --out "$T/b/o1" | tail -1)
as_b sh -c "rm '$T/b/w.wtns' && ln -s '$T/rootonly/root.wtns' '$T/b/w.wtns'"
as_b cp "$T/c.wtns" "$T/b/w3.wtns"
id3=$(as_b "$ZK" submit "$NAME" "$T/c.zkey" "$T/b/w3.wtns" --out "$T/b/o2" | tail -1)
as_b sh -c "rm '$T/b/w3.wtns' && mkfifo '$T/b/w3.wtns'"
start_run 1
expect 1 "a witness swapped for a link to a root-only file after submit: job FAILED" "$ZK" wait "$NAME" "$id1" --timeout 60
check "  the reason names the link" grep -q "symbolic link: refused" "$T/out"
expect 1 "a witness swapped for a FIFO after submit: job FAILED at once (the worker never blocks)" "$ZK" wait "$NAME" "$id3" --timeout 30
check "  not a regular file" grep -q "not a regular file" "$T/out"
# truncations in a loop while jobs synthesize: never a dead worker
as_b cp "$T/c.wtns" "$T/b/flip.wtns"
touch "$T/flipping" # the loop ends when this goes (or $T with it, whatever kills this script)
as_b sh -c "while [ -e '$T/flipping' ]; do cp '$T/c.wtns' '$T/b/flip.tmp'; truncate -s 100 '$T/b/flip.wtns'; cat '$T/b/flip.tmp' > '$T/b/flip.wtns'; done" &
FLIP_PID=$!
ids=()
for i in $(seq 1 10); do
	as_b mkdir -p "$T/b/f$i"
	ids+=("$(as_b "$ZK" submit "$NAME" "$T/c.zkey" "$T/b/flip.wtns" --out "$T/b/f$i" 2>/dev/null | tail -1)")
done
nd=0 nf=0 bad=0 ns=0
for i in $(seq 1 10); do
	id=${ids[$((i - 1))]}
	[ -z "$id" ] && continue
	ns=$((ns + 1))
	"$ZK" wait "$NAME" "$id" --timeout 60 >"$T/w" 2>&1
	case $? in
	0) verify "$T/b/f$i" && nd=$((nd + 1)) || bad=$((bad + 1)) ;;
	1) grep -q "short read\|changed under us\|not a version-2\|too short\|past the end\|section\|does not satisfy\|not below\|is not 1\|values but the key" "$T/w" && nf=$((nf + 1)) || { bad=$((bad + 1)); cat "$T/w"; } ;;
	*) bad=$((bad + 1)) ;;
	esac
done
rm -f "$T/flipping"
wait "$FLIP_PID" 2>/dev/null
FLIP_PID=
[ "$bad" = 0 ] && [ "$ns" -ge 5 ] && [ $((nd + nf)) = "$ns" ] && ok "witness truncated in a loop: of $ns submitted, $nd DONE and verified, $nf FAILED with a reason" || ko "of $ns submitted: $nd DONE, $nf FAILED, $bad bad"
check "  no worker died (no restart in the log)" sh -c "! grep -q 'worker .* died\|killed by signal' '$T/run.log'"

# ---- 5. a FIFO at a gpud status name ----
as_b mkfifo "/dev/shm/zkarena-$NAME.gpud9-status" 2>/dev/null || mkfifo "/dev/shm/zkarena-$NAME.gpud9-status"
id=$(submit "$T/c.zkey" "$T/c.wtns" "$T/o/fifo")
expect 0 "with a FIFO planted at a status name, a job is DONE" "$ZK" wait "$NAME" "$id" --timeout 60
expect 0 "  and status answers" timeout 10 "$ZK" status "$NAME"
rm -f "/dev/shm/zkarena-$NAME.gpud9-status"
stop_run

# ---- 6. a priority flood, and the per-user limits ----
export ZKA_CONFIG_DIR=$T/conf
mkdir -p "$ZKA_CONFIG_DIR"
as_b mkdir -p "$T/b/fl"
flood=()
for i in $(seq 1 12); do
	as_b mkdir -p "$T/b/fl/$i"
	flood+=("$(as_b "$ZK" submit "$NAME" "$T/c.zkey" "$T/c.wtns" --out "$T/b/fl/$i" --priority 1000 | tail -1)")
done
rid=$(submit "$T/c.zkey" "$T/c.wtns" "$T/o/prio" --priority 0)
# the limits arrive with the next start of the workers (the flood was queued before them)
printf '[limits]\nuser_queued = 2\nuser_priority = 0\n' >"$ZKA_CONFIG_DIR/$NAME.conf"
"$ZK" status "$NAME" >"$T/st" 2>&1
check "status shows the user's queue and the limits" sh -c "grep -q 'uid $UID_B ($U) 12 queued' '$T/st' && grep -q 'per-user limits' '$T/st'"
start_run 1
expect 0 "root's priority-0 job behind 12 queued priority-1000 jobs of the user: DONE" "$ZK" wait "$NAME" "$rid" --timeout 90
t_root=$(jobjson "$rid" t_synth_start)
before=0
for id in "${flood[@]}"; do
	t=$(jobjson "$id" t_synth_start)
	[ -n "$t" ] && [ "$t" != 0 ] && [ "$t" -lt "$t_root" ] && before=$((before + 1))
done
[ "$before" -le 2 ] && ok "  taken after at most 2 of the flood ($before), not after all 12" || ko "  $before flood jobs went first"
expect 2 "submit at priority 1000 beyond user_priority: refused" as_b "$ZK" submit "$NAME" "$T/c.zkey" "$T/c.wtns" --out "$T/b/fl/1" --priority 1000
check "  names the limit" grep -q "above the per-user cap 0" "$T/out"
stop_run
unset ZKA_CONFIG_DIR

# ---- 7. corruption at rest ----
check "arena re-created" sh -c "'$ZK' arena destroy '$NAME' && '$ZK' arena create '$NAME' --slots 2 --slot-bytes 1M --jobs 16"
g=$("$ZK" arena status "$NAME" --json)
soff=$(echo "$g" | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const g=JSON.parse(s).geometry;console.log(g.slots_off+Math.ceil(g.slots*g.slot_rec_bytes/64)*64+' '+g.slots_off+' '+g.slot_rec_bytes)})")
read -r ring0 slots_off srb <<<"$soff"
printf '\xff\x00\x00\x00' | dd of="/dev/shm/zkarena-$NAME" bs=1 seek="$ring0" conv=notrunc status=none
expect 1 "a ring mutex word ff000000: check names it" timeout 30 "$ZK" arena check "$NAME"
check "  reason" grep -q "mutex of ring free_slots: not a valid state" "$T/out"
expect 2 "  run refuses the arena" timeout 30 "$ZK" run "$NAME" --workers 1 --backend cpu
check "  saying how to repair" grep -q "refusing to start (repair it" "$T/out"
expect 0 "  check --repair initialises it again" timeout 30 "$ZK" arena check "$NAME" --repair
check "  says so" grep -q "initialised 1 mutex(es) again" "$T/out"
# a slot record with data_size 0 (slot 1: offset + 16, the record's data_size word)
printf '\x00\x00\x00\x00\x00\x00\x00\x00' | dd of="/dev/shm/zkarena-$NAME" bs=1 seek=$((slots_off + srb + 16)) conv=notrunc status=none
start_run 1
nd=0
for i in 1 2 3 4 5 6 7 8; do
	id=$(submit "$T/c.zkey" "$T/c.wtns" "$T/o/z$i")
	"$ZK" wait "$NAME" "$id" --timeout 60 >/dev/null 2>&1 && nd=$((nd + 1))
done
[ "$nd" = 8 ] && ok "a slot with data_size 0: 8 of 8 jobs DONE" || ko "$nd of 8 DONE"
stop_run
# circuit record 0 (loaded by those jobs): its state word scribbled (the header is 4 KiB, then
# the owner table of 8-byte entries, then the circuit table)
owners=$("$ZK" arena status "$NAME" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).geometry.owners))")
printf '\x0f' | dd of="/dev/shm/zkarena-$NAME" bs=1 seek=$((4096 + owners * 8)) conv=notrunc status=none
expect 1 "a circuit record's state word scribbled: check names it" "$ZK" arena check "$NAME"
check "  reason" grep -q "circuit record 0: state word out of range" "$T/out"
expect 0 "  check --repair resets it" "$ZK" arena check "$NAME" --repair
check "  says so" grep -q "reset 1 corrupt circuit record" "$T/out"
start_run 1
id=$(submit "$T/c.zkey" "$T/c.wtns" "$T/o/recirc")
expect 0 "  the key loads again: a job DONE" "$ZK" wait "$NAME" "$id" --timeout 60
stop_run
[ "$("$ZK" arena status "$NAME" --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).slots[1].state))")" = QUARANTINED ] &&
	ok "  the slot is QUARANTINED (not CORRUPT, never handed out)" || ko "  slot 1 not quarantined"
expect 0 "  arena check: ok" "$ZK" arena check "$NAME"

# ---- 8. smaller ones ----
start_run 1 ZKA_TEST_ENOSPC=proof.json
id=$(submit "$T/c.zkey" "$T/c.wtns" "$T/o/nospc")
expect 1 "proof.json cannot be written (ENOSPC): job FAILED" "$ZK" wait "$NAME" "$id" --timeout 60
[ ! -e "$T/o/nospc/public.json" ] && [ -z "$(ls -A "$T/o/nospc")" ] && ok "  no public.json (or temporary) left behind" || ko "  left: $(ls -A "$T/o/nospc")"
stop_run
start_run 1
mkdir -p "$T/o/stop"
sleep 2
gpid=$(grep -o 'gpud 0 .*pid [0-9]*' "$T/run.log" | grep -o '[0-9]*$' | head -1)
[ -z "$gpid" ] && gpid=$("$ZK" status "$NAME" 2>/dev/null | awk '$1=="0" && $3=="cpu" {print $4}')
if [ -n "$gpid" ] && kill -STOP "$gpid"; then
	sleep 1
	"$ZK" status "$NAME" >"$T/st" 2>&1
	check "a SIGSTOPped gpud: status says stopped" grep -q "\[stopped" "$T/st"
	kill -CONT "$gpid"
else
	ko "no gpud pid to stop"
fi
stop_run
# the tail inside the last section (its size field grown by 50 GB), so the container is whole
cp "$T/c.zkey" "$T/sparse.zkey"
node -e "
const fs=require('fs'),f=fs.openSync(process.argv[1],'r+'),b=Buffer.alloc(12);
fs.readSync(f,b,0,12,0);let n=b.readUInt32LE(8),pos=12,last=0;
for(let i=0;i<n;i++){fs.readSync(f,b,0,12,pos);last=pos;pos+=12+Number(b.readBigUInt64LE(4));}
fs.readSync(f,b,0,12,last);b.writeBigUInt64LE(b.readBigUInt64LE(4)+50n*(1n<<30n),4);fs.writeSync(f,b,0,12,last);" "$T/sparse.zkey"
truncate -s +50G "$T/sparse.zkey"
t0=$(date +%s%N)
expect 2 "a .zkey with a 50 GB sparse tail: import refused" "$ZK" import "$T/sparse.zkey" -o "$T/o/sparse.zka"
t1=$(date +%s%N)
check "  from its header (names the section)" grep -q "refused from the header" "$T/out"
[ $(((t1 - t0) / 1000000)) -lt 3000 ] && ok "  at once ($(((t1 - t0) / 1000000)) ms)" || ko "  took $(((t1 - t0) / 1000000)) ms"
rm -f "$T/sparse.zkey"
expect 2 "arena create --jobs 0: refused" "$ZK" arena create "${NAME}z" --slots 1 --slot-bytes 1M --jobs 0
check "  says why" grep -q "0 job records is not a table" "$T/out"

# ---- 9. a private arena behind `serve --unix-group`: the group's members submit through the
# socket, get their own proofs, and never see the arena, the others' jobs or their witnesses
export ZKA_CONFIG_DIR=$T/conf # no settings file until the [limits] checks below
rm -f "$ZKA_CONFIG_DIR/$NAME.conf"
start_run 1
mkdir -p "$T/s9" && chmod 755 "$T/s9"
SOCK=$T/s9/api.sock
expect 2 "serve --unix-group of a group that does not exist: refused" "$ZK" serve "$NAME" --unix "$SOCK" --unix-group zka-no-such-group-$$ --spool "$T/spool9"
check "  naming it" grep -q "unix-group zka-no-such-group-$$: no such group" "$T/out"
"$ZK" serve "$NAME" --unix "$SOCK" --unix-group "$U" --spool "$T/spool9" --key "$T/c.zkey" >"$T/srv9.log" 2>&1 &
SRV9=$!
for i in $(seq 1 100); do grep -q "on unix:" "$T/srv9.log" && break; sleep 0.05; done
[ "$(stat -c '%G %a' "$SOCK" 2>/dev/null)" = "$U 660" ] && ok "the socket is group $U, mode 0660" || ko "socket: $(stat -c '%U %G %a' "$SOCK" 2>&1) $(cat "$T/srv9.log")"
b_api() { as_b curl -s -o "$T/b/body" -w '%{http_code}' --unix-socket "$SOCK" "$@"; }
bjs() { node -e "const j=JSON.parse(require('fs').readFileSync('$T/b/body','utf8'));console.log($1)"; }
c=$(b_api --data-binary @"$T/c.wtns" "http://x/v1/jobs?key=$T/c.zkey")
bid=$(bjs j.id 2>/dev/null)
[ "$c" = 202 ] && [ "$(bjs j.submitter)" = "uid:$UID_B" ] && ok "a member submits through the socket (HTTP 202, submitter uid:$UID_B)" || ko "member submit: HTTP $c $(cat "$T/b/body" 2>/dev/null)"
c=$(curl -s -o "$T/rbody" -w '%{http_code}' --unix-socket "$SOCK" --data-binary @"$T/c.wtns" "http://x/v1/jobs?key=$T/c.zkey")
rid=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$T/rbody','utf8')).id)" 2>/dev/null)
[ "$c" = 202 ] && [ -n "$rid" ] && ok "root submits through the same socket" || ko "root submit: HTTP $c"
c=$(b_api "http://x/v1/jobs/$rid")
[ "$c" = 404 ] && ok "  the member cannot see root's job (HTTP 404)" || ko "member sees root's job: HTTP $c"
c=$(b_api -X POST "http://x/v1/jobs/$rid/cancel")
[ "$c" = 404 ] && ok "  nor cancel it (HTTP 404)" || ko "member cancels root's job: HTTP $c"
for i in $(seq 1 600); do
	c=$(b_api "http://x/v1/jobs/$bid/proof")
	[ "$c" != 409 ] && break
	sleep 0.1
done
if [ "$c" = 200 ]; then
	bjs 'JSON.stringify(j.proof)' >"$T/s9/proof.json" && bjs 'JSON.stringify(j.public)' >"$T/s9/public.json"
	check "  the member's proof (GET /v1/jobs/ID/proof) verifies" "$ZK" verify "$T/c.vk.json" "$T/s9/public.json" "$T/s9/proof.json"
else
	ko "member's proof: HTTP $c $(cat "$T/b/body")"
fi
expect 0 "  root's job is DONE" "$ZK" wait "$NAME" "$rid" --timeout 60
n_shm=0 n_read=0
for f in /dev/shm/zkarena-"$NAME"*; do
	[ -e "$f" ] || continue
	n_shm=$((n_shm + 1))
	as_b sh -c "head -c 1 '$f' >/dev/null" 2>/dev/null && n_read=$((n_read + 1))
done
[ "$n_shm" -gt 0 ] && [ "$n_read" = 0 ] && ok "  the member reads none of the arena's $n_shm shared-memory objects (slots, witnesses)" || ko "arena objects: $n_shm, readable by the member: $n_read"
expect 2 "  the member cannot open the arena (status)" as_b "$ZK" status "$NAME"
check "    EACCES, the owner named" grep -q "permission denied (EACCES): the arena belongs to another user" "$T/out"
c=$(env -u ZKARENA_CACHE HOME=/nonexistent setpriv --reuid="$UID_B" --regid=65534 --clear-groups -- curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" "http://x/v1/queue")
[ "$c" = 000 ] && ok "a user outside the group cannot connect to the socket" || ko "outside the group: HTTP $c"
# [limits] through the socket: each peer is its own user (the server submits for all of them)
stop_run
printf '[limits]\nuser_queued = 1\nuser_priority = 0\n' >"$ZKA_CONFIG_DIR/$NAME.conf"
c=$(b_api --data-binary @"$T/c.wtns" "http://x/v1/jobs?key=$T/c.zkey")
qid=$(bjs j.id 2>/dev/null)
[ "$c" = 202 ] && ok "[limits] user_queued = 1: the member's first queued job through the socket (202)" || ko "member submit: HTTP $c $(cat "$T/b/body")"
[ "$(jobjson "$qid" acct_uid)" = "$UID_B" ] && [ "$(jobjson "$qid" uid)" = 0 ] &&
	ok "  the record counts it against the member (acct_uid $UID_B), submitted by the server (uid 0)" ||
	ko "  record: uid $(jobjson "$qid" uid) acct_uid $(jobjson "$qid" acct_uid)"
c=$(b_api --data-binary @"$T/c.wtns" "http://x/v1/jobs?key=$T/c.zkey")
[ "$c" = 429 ] && grep -q "uid $UID_B has 1 job(s) queued.*user_queued" "$T/b/body" &&
	ok "  its second: 429, the per-user limit named" || ko "  second: HTTP $c $(cat "$T/b/body")"
c=$(b_api --data-binary @"$T/c.wtns" "http://x/v1/jobs?key=$T/c.zkey&priority=5")
[ "$c" = 403 ] && grep -q "above the per-user cap 0" "$T/b/body" &&
	ok "  priority 5 over user_priority 0: 403, the cap named" || ko "  priority: HTTP $c $(cat "$T/b/body")"
c=$(curl -s -o "$T/rbody" -w '%{http_code}' --unix-socket "$SOCK" --data-binary @"$T/c.wtns" "http://x/v1/jobs?key=$T/c.zkey&priority=5")
r2=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$T/rbody','utf8')).id)" 2>/dev/null)
[ "$c" = 202 ] && ok "  root through the same socket is not limited (202)" || ko "  root: HTTP $c $(cat "$T/rbody")"
"$ZK" status "$NAME" >"$T/out" 2>&1
check "  status shows the member's queue apart from root's" sh -c "grep -q 'uid $UID_B ($U) 1 queued' '$T/out' && grep -q 'uid 0 (root) 1 queued' '$T/out'"
"$ZK" cancel "$NAME" "$qid" >/dev/null 2>&1
"$ZK" cancel "$NAME" "$r2" >/dev/null 2>&1
rm -f "$ZKA_CONFIG_DIR/$NAME.conf"
unset ZKA_CONFIG_DIR
kill -TERM "$SRV9" && wait "$SRV9"
expect 0 "arena create --group: created" "$ZK" arena create "${NAME}g" --slots 1 --slot-bytes 1M --group "$U"
check "  and says the slots are this user's alone, naming the slot object" grep -q "slots (the witnesses) are in /dev/shm/zkarena-${NAME}g+slots, this user's alone" "$T/out"
check "  the slot object: 0600, root's" sh -c "[ \"\$(stat -c %a:%U '/dev/shm/zkarena-${NAME}g+slots')\" = 600:root ]"
"$ZK" arena destroy "${NAME}g" >/dev/null 2>&1
check "  destroy removes both objects" sh -c "! ls /dev/shm/zkarena-${NAME}g* 2>/dev/null | grep -q ."
# a member plants the slot object of a group arena before it exists (0666, its own): root's
# create must not use it (root may remove it; a user who cannot is refused at create)
as_b sh -c "umask 0; echo planted >/dev/shm/zkarena-${NAME}s+slots"
expect 0 "arena create --group over a slot object the member planted: created" "$ZK" arena create "${NAME}s" --slots 1 --slot-bytes 1M --group "$U"
check "  the slot object is root's own (0600), not the planted one" sh -c "[ \"\$(stat -c %a:%U:%s '/dev/shm/zkarena-${NAME}s+slots')\" = 600:root:2097152 ]"
"$ZK" arena destroy "${NAME}s" >/dev/null 2>&1
# the other way round: root planted it, the member creates the group arena: refused, no arena left
echo planted >"/dev/shm/zkarena-${NAME}m+slots"
expect 2 "the member's arena create --group over root's planted slot object: refused" as_b "$ZK" arena create "${NAME}m" --slots 1 --slot-bytes 1M --group "$U"
check "  names it (squatted)" grep -q "slot object /dev/shm/zkarena-${NAME}m+slots exists and is not this user's to remove" "$T/out"
check "  no arena object left behind, the planted object untouched" sh -c "[ ! -e '/dev/shm/zkarena-${NAME}m' ] && [ \"\$(cat '/dev/shm/zkarena-${NAME}m+slots')\" = planted ]"
rm -f "/dev/shm/zkarena-${NAME}m+slots"
victim_intact && ok "root's private file never touched" || ko "victim changed"
finish
