# harness.sh - sourced by run.sh and random.sh: the interop fixtures, a scratch folder and the
# check counters. Needs $here (this folder) and $fx (the fixture folder) set by the caller.
# After sourcing: $t is a scratch folder removed on exit; ok/ko count a check; expect runs one.

# the fixtures (make-fixtures.sh) once per FIXDIR, again when a circuit of circuits/ has none
# (a FIXDIR from before it was added); a failure ends the script as one failed check
stale=0
for f in "$here"/circuits/*.circom; do
	[ -f "$fx/bls12381/$(basename "$f" .circom).zkey" ] || stale=1
	[ -d "$fx/bls12381/$(basename "$f" .circom)_cpp" ] || stale=1
done
if [ ! -f "$fx/.done" ] || [ $stale = 1 ]; then
	rm -rf "$fx"
	"$here/make-fixtures.sh" "$fx" >/dev/null || { echo "fixture generation failed"; echo "0 passed, 1 failed"; exit 1; }
	touch "$fx/.done"
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
# expect CODE DESCRIPTION CMD...: runs CMD, counts whether it exited with CODE (the tail of its
# output on one line when not) and returns 0 exactly when it did
expect() {
	local want=$1 what=$2
	shift 2
	"$@" >"$t/out" 2>&1
	local got=$?
	if [ "$got" = "$want" ]; then ok "$what"; else ko "$what (exit $got, wanted $want): $(tail -c 300 "$t/out" | tr '\n' ' ')"; fi
	[ "$got" = "$want" ]
}
