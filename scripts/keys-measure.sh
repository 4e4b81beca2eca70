#!/usr/bin/env bash
# keys-measure.sh ZKARENA DIR [CONSTRAINTS] - the key-load measurement of docs/keys.md, in one
# run: a random BN254 circuit and an insecure key in DIR (kept for reruns), then
#   1. `prove --times` from the .zkey with nothing cached (the .zkey imported: parsed, every
#      point validated, written to the cache),
#   2. `params load` (the .zkey's cached .zka read into a resident region),
#   3. `prove --times` with the key resident (no key file opened),
#   4. `bench load` on the cached .zka,
# and the ratio of the two "key load" stages. Uses its own cache directory (DIR/cache).
set -euo pipefail
ZK=$1 D=$2 N=${3:-262144}
mkdir -p "$D"
cd "$D"
[ -e c.zkey ] || { "$ZK" circuit --constraints "$N" --public 2 --seed 7 c.r1cs c.wtns &&
	"$ZK" setup --insecure --seed 7 c.r1cs c.zkey c.vk.json; }
export ZKARENA_CACHE=$PWD/cache
rm -rf cache
list=$("$ZK" params list)
for id in $(ls /dev/shm | sed -n 's/^zka-key\.//p'); do
	if grep -q "^$id resident *c.zkey " <<<"$list"; then "$ZK" params evict "$id" >/dev/null; fi
done
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(uname -r), zkarena $(git -C "$(dirname "$(readlink -f "$0")")" rev-parse --short HEAD 2>/dev/null)"
sync
"$ZK" prove --times --r 5 --s 7 c.zkey c.wtns p0.json pub0.json 2>&1 | tee cold.log | grep "zkarena prove:"
"$ZK" params load c.zkey
"$ZK" prove --times --r 5 --s 7 c.zkey c.wtns p1.json pub1.json 2>&1 | tee warm.log | grep "zkarena prove:"
cmp p0.json p1.json && echo "proofs identical"
cold=$(sed -n 's/.*key load \([0-9.]*\) s.*/\1/p' cold.log)
warm=$(sed -n 's/.*key load \([0-9.]*\) s.*/\1/p' warm.log)
awk -v c="$cold" -v w="$warm" 'BEGIN { printf "key load: %.3f s from the .zkey (nothing cached), %.4f s resident: %.0fx\n", c, w, c / w }'
"$ZK" params list
"$ZK" bench load cache/*.zka --reps 3
