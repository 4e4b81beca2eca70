#!/usr/bin/env bash
# unit.sh SUITE - runs a CUnit suite of the cluster module (tests/cluster_lease.c) against a
# throwaway PostgreSQL server (pg.sh), whose URL it gets in $ZKA_TEST_DB.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/pg.sh"
T=$(mktemp -d /tmp/zka-cluster-unit-XXXXXX)
trap 'pg_stop; rm -rf "$T"' EXIT
pg_start "$T/db" || exit 1
ZKA_TEST_DB=$PGURL "$1"
