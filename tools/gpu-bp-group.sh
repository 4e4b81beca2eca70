#!/bin/bash
# gpu-bp-group.sh BINDIR LOG2 [JOBS] - issue 37's bellperson-style job group on a GPU machine,
# with prebuilt zkarena, zkarena-gpud and tests' lib_producer in BINDIR/bin (libraries in
# BINDIR/lib):
#   1. keys: a random BLS12-381 circuit of 2^LOG2 - 64 constraints and 2 public inputs
#      (`zkarena circuit`: it prints how much of the witness is 0/1, ~95%), its test-only
#      bellperson key (`setup --insecure --gpu --format bellperson`: monomial H, 7^t roots),
#      imported with --r1cs into a .zka; the .params is then removed (the .zka and the vk
#      suffice; at 2^26 the .params is 38.6 GB);
#   2. group: an arena of 3 slots sized for the key, `zkarena run --workers 0 --backend cuda
#      --inflight 1` (the pipeline of external producers), and lib_producer bpgroup: one
#      group of JOBS (default 10) jobs through libzkarena, each job the circuit's a, b, c,
#      assignment and densities (computed once from the .r1cs, copied into each slot), its
#      timing; every proof's 192 bytes checked by `zkarena verify` against the vk.
# STEP=keys or STEP=group runs one step (the files stay in $WORK, default /dev/shm/bpg, and
# the .zka in $ZKA_DIR, default $HOME/bpg, between two device calls on a warm machine). The
# .params goes to $PARAMS_DIR (default $WORK): at 2^26 the .r1cs (~9 GB) and the .zka (~48 GB)
# fit the 64 GB disk and the .params (~27 GB) /dev/shm, so that the import's memory (the key
# parsed, its image, the circuit) fits beside it.
# Everything it prints is also in $OUT/bp-group-LOG2.txt when OUT is set.
set -u
B=$1 L=$2 N=${3:-10}
source "$(dirname "$0")/gpu-lib.sh" "$B" # ZK, ok/ko, gpu_machine
LP=$B/bin/lib_producer
W=${WORK:-/dev/shm/bpg}
Z=${ZKA_DIR:-$HOME/bpg}
P=${PARAMS_DIR:-$W}
LOG=${OUT:+$OUT/bp-group-$L.txt}
LOG=${LOG:-/dev/null}
mkdir -p "$W" "$Z" "$P"
exec > >(tee -a "$LOG") 2>&1
space() { echo "  space: $(df -h --output=avail "$W" | tail -1) free in $W, $(df -h --output=avail "$P" | tail -1) in $P, $(df -h --output=avail "$Z" | tail -1) in $Z; $(free -g | awk '/Mem:/ { print $7 " GiB available" }')"; }
gpu_machine
if [ "${STEP:-all}" != group ]; then
	m=$(((1 << L) - 64))
	t=$(date +%s.%N)
	"$ZK" circuit --curve bls12381 --constraints $m --public 2 --seed 37 "$W/c.r1cs" "$W/c.wtns" ||
		{ ko "circuit"; exit 1; }
	echo "circuit 2^$L - 64 = $m constraints: $(gpu_secs "$t") s; r1cs $(du -h "$W/c.r1cs" | cut -f1)"
	t=$(date +%s.%N)
	"$ZK" setup --insecure ${BP_SETUP_GPU---gpu} --seed 7 --format bellperson --no-progress "$W/c.r1cs" "$P/c.params" "$W/vk.json" ||
		{ ko "setup --format bellperson"; space; exit 1; }
	echo "setup --gpu --format bellperson: $(gpu_secs "$t") s; .params $(du -h "$P/c.params" | cut -f1)"
	space
	t=$(date +%s.%N)
	"$ZK" import "$P/c.params" --r1cs "$W/c.r1cs" -o "$Z/c.zka" || { ko "import"; space; exit 1; }
	echo "import --r1cs: $(gpu_secs "$t") s; .zka $(du -h "$Z/c.zka" | cut -f1)"
	rm -f "$P/c.params"
	ok "2^$L bellperson key imported"
	space
fi
[ "${STEP:-all}" = keys ] && { echo "$pass passed, $fail failed"; exit 0; }
[ -f "$Z/c.zka" ] || { ko "no $Z/c.zka (run STEP=keys first)"; exit 1; }
A=bpg$$
sb=$(((3 << L) * 32 / 1048576 + 2))M # a, b and the assignment: 2 x 2^L + n_vars < 3 x 2^L elements
"$ZK" arena create $A --slots 3 --slot-bytes "$sb" --jobs 64 >/dev/null || { ko "arena create ($sb a slot)"; space; exit 1; }
"$ZK" run $A --workers 0 --backend "${BP_BACKEND:-cuda}" --inflight 1 >"$W/run.log" 2>&1 &
RUN=$!
sleep 2
t=$(date +%s.%N)
"$LP" bpgroup $A "$Z/c.zka" "$W/c.wtns" "$W/o" "$W/c.r1cs" "$N" >"$W/lp.out" 2>&1
rc=$?
echo "lib_producer bpgroup ($N jobs), whole command (key open, a b c from the .r1cs, the group): $(gpu_secs "$t") s, exit $rc"
grep -v "^job .* DONE" "$W/lp.out"
[ $rc = 0 ] && ok "group of $N bellperson jobs at 2^$L: all DONE" || ko "group of $N at 2^$L"
v=0
for i in $(seq 0 $((N - 1))); do
	[ -f "$W/o/$i/proof.bin" ] && "$ZK" verify "$W/vk.json" "$W/o/$i/public.json" "$W/o/$i/proof.bin" >/dev/null 2>&1 && v=$((v + 1))
done
[ "$v" = "$N" ] && ok "all $N proofs (192 bytes) verify against the setup's vk" || ko "$v of $N proofs verify"
kill -TERM $RUN
wait $RUN 2>/dev/null
echo "-- zkarena run / zkarena-gpud log (its first 40 lines)"
head -40 "$W/run.log"
"$ZK" arena destroy $A >/dev/null 2>&1
space
echo "$pass passed, $fail failed"
