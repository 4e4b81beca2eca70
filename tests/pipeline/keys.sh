#!/usr/bin/env bash
# keys.sh ZKARENA - keys through the CLI: `import`, `prove` from a .zka, from a .zkey with and
# without the cache, and from a resident region (`params load/list/evict`) with no key file
# opened (the --times counter; the file is even overwritten in place, identity kept, and the
# proof is still the same); corrupt and truncated .zka files refused with exit 2 naming the
# section; `prove --arena` and `submit` with a .zka through a running pipeline; `bench load`;
# `bench import` (zkarena's own prove standing in for rapidsnark).
# Proofs are compared byte for byte with fixed r, s.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh" "$1"
RS=(--r 123456789 --s 987654321)
resident_ids() { ls /dev/shm 2>/dev/null | sed -n 's/^zka-key\.//p'; }
before=$(resident_ids)
evict_ours() { # resident regions this test made
	local id
	for id in $(resident_ids); do
		grep -qx "$id" <<<"$before" || "$ZK" params evict "$id" >/dev/null 2>&1
	done
}
trap 'evict_ours; cleanup' EXIT
keys bn128 300 bn && keys bls12381 200 bls || { echo "keys failed"; exit 1; }
for k in bn bls; do
	expect 0 "$k: prove from the .zkey, no cache (reference)" "$ZK" prove --no-cache "${RS[@]}" "$T/$k.zkey" "$T/$k.wtns" "$T/$k.ref.json" "$T/$k.refpub.json"
	expect 0 "$k: import" "$ZK" import "$T/$k.zkey" -o "$T/$k.zka"
	expect 0 "$k: prove from the .zka" "$ZK" prove --times "${RS[@]}" "$T/$k.zka" "$T/$k.wtns" "$T/$k.p1.json" "$T/$k.pub1.json"
	check "  proof identical" cmp "$T/$k.ref.json" "$T/$k.p1.json"
	check "  public identical" cmp "$T/$k.refpub.json" "$T/$k.pub1.json"
	check "  read with io_uring" grep -q "key load .* (read .*$k.zka" "$T/out"
	expect 0 "$k: prove from the .zkey, cache empty (imports)" "$ZK" prove --times "${RS[@]}" "$T/$k.zkey" "$T/$k.wtns" "$T/$k.p2.json" "$T/$k.pub2.json"
	check "  proof identical" cmp "$T/$k.ref.json" "$T/$k.p2.json"
	check "  imported and cached" grep -q "imported .*$T/cache/" "$T/out"
	expect 0 "$k: prove from the .zkey again (the cached .zka)" "$ZK" prove --times "${RS[@]}" "$T/$k.zkey" "$T/$k.wtns" "$T/$k.p3.json" "$T/$k.pub3.json"
	check "  proof identical" cmp "$T/$k.ref.json" "$T/$k.p3.json"
	check "  read from the cache" grep -q "key load .* (cached $T/cache/" "$T/out"
	expect 0 "$k: params load the .zka" "$ZK" params load "$T/$k.zka"
	id=$(sed -n 's|.*/zka-key\.\([0-9a-f]*\):.*|\1|p' "$T/out")
	[ -n "$id" ] && ok "  resident as $id" || ko "  no id in: $(cat "$T/out")"
	check "  params list shows it" sh -c "'$ZK' params list | grep -q '^$id resident .*$k.zkey'"
	for f in zka zkey; do
		expect 0 "$k: prove the .$f with the key resident" "$ZK" prove --times "${RS[@]}" "$T/$k.$f" "$T/$k.wtns" "$T/$k.p4.json" "$T/$k.pub4.json"
		check "  proof identical" cmp "$T/$k.ref.json" "$T/$k.p4.json"
		check "  key files opened 0" grep -q "resident region /zka-key.$id); key files opened 0" "$T/out"
	done
	# the .zka overwritten in place with garbage, size and mtime kept (the identity the
	# lookup checks): the resident region still serves it, so nothing read the file
	sz=$(stat -c %s "$T/$k.zka")
	mt=$(stat -c %.9Y "$T/$k.zka")
	cp "$T/$k.zka" "$T/$k.zka.orig"
	head -c "$sz" /dev/urandom | dd of="$T/$k.zka" conv=notrunc status=none
	touch -d "@$mt" "$T/$k.zka"
	expect 0 "$k: prove the overwritten .zka, key resident" "$ZK" prove --times "${RS[@]}" "$T/$k.zka" "$T/$k.wtns" "$T/$k.p5.json" "$T/$k.pub5.json"
	check "  proof identical (the file was not read)" cmp "$T/$k.ref.json" "$T/$k.p5.json"
	expect 0 "$k: params evict" "$ZK" params evict "$id"
	check "  gone from the list" sh -c "! '$ZK' params list | grep -q '^$id '"
	expect 2 "$k: the overwritten .zka, evicted: refused" "$ZK" prove "${RS[@]}" "$T/$k.zka" "$T/$k.wtns" "$T/$k.p6.json" "$T/$k.pub6.json"
	check "  one line naming the file and the header" grep -q "$k.zka: header" "$T/out"
	[ -e "$T/$k.p6.json" ] && ko "  a proof was written" || ok "  nothing written"
	cp "$T/$k.zka.orig" "$T/$k.zka"
done
# corrupt and truncated files: exit 2, the section named, nothing written
cp "$T/bn.zka" "$T/c.zka"
printf '\x01' | dd of="$T/c.zka" bs=1 seek=$((4096 + 10)) conv=notrunc status=none # in alpha1
expect 2 "corrupt .zka refused" "$ZK" prove "${RS[@]}" "$T/c.zka" "$T/bn.wtns" "$T/c.json" "$T/cpub.json"
check "  names the file and the section" grep -q "c.zka: section alpha1: checksum mismatch" "$T/out"
head -c 20480 "$T/bn.zka" >"$T/t.zka"
expect 2 "truncated .zka refused" "$ZK" prove "${RS[@]}" "$T/t.zka" "$T/bn.wtns" "$T/c.json" "$T/cpub.json"
check "  names the section" grep -q "t.zka: section .*: truncated" "$T/out"
expect 2 "truncated .zka: params load refused" "$ZK" params load "$T/t.zka"
[ -e "$T/c.json" ] && ko "a refused key wrote a proof" || ok "refused keys wrote nothing"
# a .zkey with an off-curve point: its first prove validates beside the proof, and refuses it
# before anything is released (exit 2, section and point named, no output, no cache entry)
cp "$T/bn.zkey" "$T/planted.zkey"
node -e "
const fs=require('fs'),f=fs.openSync(process.argv[1],'r+'),b=Buffer.alloc(12);
fs.readSync(f,b,0,12,0);let n=b.readUInt32LE(8),pos=12;
for(let i=0;i<n;i++){fs.readSync(f,b,0,12,pos);if(b.readUInt32LE(0)===5)break;pos+=12+Number(b.readBigUInt64LE(4));}
const at=pos+12+7*64+32,y=Buffer.alloc(1);fs.readSync(f,y,0,1,at);y[0]^=1;fs.writeSync(f,y,0,1,at);" "$T/planted.zkey"
ncache=$(ls "$T/cache" 2>/dev/null | wc -l)
expect 2 "prove of a .zkey with a planted off-curve point: refused" "$ZK" prove "${RS[@]}" "$T/planted.zkey" "$T/bn.wtns" "$T/pl.json" "$T/plpub.json"
check "  naming the section and the point" grep -q "section A: point 7 is not on the curve" "$T/out"
[ ! -e "$T/pl.json" ] && [ ! -e "$T/plpub.json" ] && ok "  no proof.json or public.json" || ko "  outputs written for a bad key"
[ "$(ls "$T/cache" 2>/dev/null | wc -l)" = "$ncache" ] && ok "  no cache entry (or temporary) left" || ko "  cache: $(ls -a "$T/cache")"
expect 2 "import of a bad key refused" "$ZK" import "$T/t.zka" -o "$T/x.zka"
# on tmpfs (O_DIRECT refused before Linux 6.6, or the refusal simulated): one notice, same proof
cp "$T/bn.zka" "/dev/shm/zka-test-$$.zka"
expect 0 "prove from a .zka on /dev/shm" env ZKA_TEST_REFUSE_DIRECT=1 "$ZK" prove "${RS[@]}" "/dev/shm/zka-test-$$.zka" "$T/bn.wtns" "$T/s.json" "$T/spub.json"
rm -f "/dev/shm/zka-test-$$.zka"
check "  one notice line" test "$(grep -c 'refuses O_DIRECT' "$T/out")" = 1
check "  proof identical" cmp "$T/bn.ref.json" "$T/s.json"
# the pipeline: submit and prove --arena with a .zka
check "arena create" "$ZK" arena create "$NAME" --slots 2 --slot-bytes 1M --jobs 16
start_run 1
mkdir -p "$T/o1" "$T/o2"
expect 0 "prove --arena with the .zka" "$ZK" prove --arena "$NAME" "$T/bn.zka" "$T/bn.wtns" "$T/o1/proof.json" "$T/o2/public.json"
expect 0 "  its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o2/public.json" "$T/o1/proof.json"
check "  public.json as the CPU prover's" cmp "$T/bn.refpub.json" "$T/o2/public.json"
check "  no job directory left" sh -c "! ls -d '$T'/o1/.zkarena-prove-* 2>/dev/null"
expect 0 "prove --arena with the .zkey (BLS12-381)" "$ZK" prove --arena "$NAME" "$T/bls.zkey" "$T/bls.wtns" "$T/o1/bls.json" "$T/o1/blspub.json"
expect 0 "  its proof verifies" "$ZK" verify "$T/bls.vk.json" "$T/o1/blspub.json" "$T/o1/bls.json"
expect 2 "prove --arena with another circuit's witness: exit 2" "$ZK" prove --arena "$NAME" "$T/bn.zka" "$T/bls.wtns" "$T/o1/x.json" "$T/o1/xpub.json"
[ -e "$T/o1/x.json" ] && ko "  a proof was written" || ok "  nothing written"
id=$(submit "$T/bn.zka" "$T/bn.wtns" "$T/o3")
expect 0 "submit with a .zka: DONE" "$ZK" wait "$NAME" "$id" --timeout 60
expect 0 "  its proof verifies" "$ZK" verify "$T/bn.vk.json" "$T/o3/public.json" "$T/o3/proof.json"
stop_run
expect 0 "bench load runs" "$ZK" bench load "$T/bn.zka" --reps 1
check "  one table with every method" sh -c "grep -q 'io_uring O_DIRECT' '$T/out' && grep -q 'read(2)' '$T/out' && grep -q 'mmap + memcpy' '$T/out' && grep -q 'file system' '$T/out'"
check "  the O_DIRECT reference, the loader's phases and the verdict line" sh -c "grep -q 'pread O_DIRECT (reference)' '$T/out' && grep -q 'mean setup .* reads .* verify' '$T/out' && grep -Eq 'loader at its defaults .* [0-9]+% of the best O_DIRECT reference .*x cold read' '$T/out'"
cp "$T/bn.zkey" "$T/fresh.zkey" # a file no resident region was loaded from
printf '#!/bin/sh\nexec "%s" prove "$@"\n' "$ZK" >"$T/fake-rapidsnark" && chmod +x "$T/fake-rapidsnark"
expect 0 "bench import runs" "$ZK" bench import "$T/fresh.zkey" --wtns "$T/bn.wtns" --runs 2 --rapidsnark "$T/fake-rapidsnark"
check "  a row a run and the medians, every stage and the wall timed" sh -c "[ \$(grep -Ec '^\| (1|2|median) *( \| +[0-9.]+){11} \| +[0-9.]+x / [0-9.]+x \|$' '$T/out') = 3 ]"
expect 0 "params load the fresh .zkey" "$ZK" params load "$T/fresh.zkey"
expect 2 "bench import refuses a resident key" "$ZK" bench import "$T/fresh.zkey" --wtns "$T/bn.wtns"
check "  saying so" grep -q "fresh.zkey is resident (/zka-key\." "$T/out"
finish
