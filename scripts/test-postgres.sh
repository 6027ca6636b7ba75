#!/usr/bin/env bash
# Starts (or finds running) the PostgreSQL server the sync tests use, on loopback only, and prints
# its address for MEMORA_TEST_POSTGRES: postgres://memora@127.0.0.1:PORT/postgres.
# Debian's `postgresql` package (scripts/install-deps.sh) gives initdb and pg_ctl; the cluster lives in
# a throwaway folder (MEMORA_TEST_PGDATA, default /tmp/memora-test-postgres-$UID) and trusts
# connections from 127.0.0.1 only: it holds test databases, nothing else. As root, the server runs as
# the `postgres` account (PostgreSQL refuses to run as root).
set -euo pipefail

port="${MEMORA_TEST_PGPORT:-55432}"
data="${MEMORA_TEST_PGDATA:-/tmp/memora-test-postgres-$(id -u)}"
bin=""
for candidate in /usr/lib/postgresql/*/bin; do
  [ -x "$candidate/pg_ctl" ] && bin="$candidate"
done
if [ -z "$bin" ]; then
  bin="$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/pg_ctl)")"
fi
if [ ! -x "$bin/pg_ctl" ]; then
  echo "PostgreSQL is not installed: run scripts/install-deps.sh (Debian's postgresql package)" >&2
  exit 1
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if ! as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  if [ ! -f "$data/PG_VERSION" ]; then
    rm -rf "$data"
    mkdir -p "$data"
    [ "$(id -u)" = 0 ] && chown postgres: "$data"
    chmod 700 "$data"
    as_owner "$bin/initdb" -D "$data" -U memora --auth=trust --no-sync -E UTF8 >/dev/null
  fi
  as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$data -c fsync=off -c max_connections=300" start >/dev/null \
    || { cat "$data/server.log" >&2; exit 1; }
fi
echo "postgres://memora@127.0.0.1:$port/postgres"
