#!/usr/bin/env bash
# cli.sh version VERSION COMMIT BINARY... - each BINARY's --version and -V print exactly
#   "NAME VERSION (git COMMIT)" (or "NAME VERSION" when COMMIT is empty) and exit 0.
# cli.sh help ZKARENA - `zkarena --commands` names exactly the commands `zkarena --help` lists,
#   and each `zkarena COMMAND --help` exits 0 with its text on stdout (what the install copies).
set -uo pipefail
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
mode=${1:-}
case "$mode" in
version)
	v=$2 c=$3
	shift 3
	for b in "$@"; do
		want="$(basename "$b") $v"
		[ -n "$c" ] && want="$want (git $c)"
		for f in --version -V; do
			got=$("$b" $f 2>&1)
			rc=$?
			[ $rc = 0 ] && [ "$got" = "$want" ] && ok || ko "$b $f: rc $rc, '$got' (want '$want')"
		done
	done
	;;
help)
	z=$2
	names=$("$z" --commands) || ko "zkarena --commands failed"
	listed=$("$z" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && !/^commands:/ {print $1}')
	[ -n "$names" ] && [ "$names" = "$listed" ] && ok ||
		ko "--commands '$(echo $names)' vs --help '$(echo $listed)'"
	for c in $names; do
		out=$("$z" "$c" --help 2>/dev/null)
		rc=$?
		[ $rc = 0 ] && [ -n "$out" ] && ok || ko "zkarena $c --help: rc $rc, $(echo "$out" | wc -l) lines"
	done
	;;
*)
	echo "usage: cli.sh version VERSION COMMIT BINARY... | cli.sh help ZKARENA" >&2
	exit 2
	;;
esac
echo "cli.sh $mode: $pass passed, $fail failed"
[ "$fail" = 0 ]
