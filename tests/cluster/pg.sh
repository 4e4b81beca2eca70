# pg.sh - a throwaway PostgreSQL server for the cluster tests and `zkarena bench cluster`:
# Debian's server binaries (/usr/lib/postgresql/VERSION/bin, or $ZKA_PGBIN), a fresh cluster
# in DIR/pg, listening only on a unix socket in DIR/sock, trust authentication for role zka,
# fsync off (the data is thrown away). Run as root, the server runs as user nobody (PostgreSQL
# refuses to run as root); otherwise as the caller.
# Usage: source pg.sh; pg_start DIR (sets PGURL); ...; pg_stop; pg_start_again (same data).
PGBIN=${ZKA_PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
PGDIR=
PGURL=
pg_as() {
	if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}
pg_start() {
	PGDIR=$1
	if [ ! -x "$PGBIN/initdb" ]; then
		echo "pg.sh: no PostgreSQL server binaries (install postgresql; or set ZKA_PGBIN)" >&2
		return 1
	fi
	mkdir -p "$PGDIR/pg" "$PGDIR/sock" || return 1
	if [ "$(id -u)" = 0 ]; then
		chmod o+x "$(dirname "$PGDIR")" # nobody must reach DIR (mktemp -d makes it 0700)
		chmod 755 "$PGDIR"
		chown nobody "$PGDIR/pg" "$PGDIR/sock"
	fi
	chmod 700 "$PGDIR/pg"
	pg_as "$PGBIN/initdb" -D "$PGDIR/pg" -U zka --auth=trust -E UTF8 --no-sync >"$PGDIR/initdb.log" 2>&1 ||
		{ echo "pg.sh: initdb failed: $(tail -3 "$PGDIR/initdb.log")" >&2; return 1; }
	PGURL="postgresql:///postgres?host=$PGDIR/sock&user=zka"
	pg_start_again
}
pg_start_again() {
	pg_as "$PGBIN/pg_ctl" -D "$PGDIR/pg" -l "$PGDIR/sock/server.log" -w -t 60 \
		-o "-k $PGDIR/sock -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60" \
		start >/dev/null 2>&1 ||
		{ echo "pg.sh: the server did not start: $(tail -3 "$PGDIR/sock/server.log" 2>/dev/null)" >&2; return 1; }
}
pg_stop() {
	[ -n "$PGDIR" ] && [ -f "$PGDIR/pg/postmaster.pid" ] &&
		pg_as "$PGBIN/pg_ctl" -D "$PGDIR/pg" -m fast -w stop >/dev/null 2>&1
}
# sql QUERY: one value per line (unaligned, no header)
sql() {
	"$PGBIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 "$PGURL" -c "$1"
}
