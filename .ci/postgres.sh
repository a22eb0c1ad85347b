#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on 127.0.0.1 for the state-backend tests, installing it from Debian's
# packages when it is missing. Source it: it exports SCRAPEFORM_TEST_POSTGRES (an admin URL; the tests create
# their own databases). CI also sets SCRAPEFORM_REQUIRE_POSTGRES=1, which turns a skipped PostgreSQL test into a
# failure.
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  for attempt in 1 2 3; do
    if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; then break; fi
    echo "apt-get failed (attempt $attempt); retrying" >&2
    sleep 5
  done
fi
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
# The first free port from 55432: a server left by an earlier run on this machine keeps its own.
PG_PORT=""
for port in $(seq 55432 55482); do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then PG_PORT=$port; break; fi
done
PG_DATA=$(mktemp -d /tmp/scrapeform-pg.XXXXXX)
RUN_AS=()
if [ "$(id -u)" = "0" ]; then
  chown postgres "$PG_DATA"
  RUN_AS=(su postgres -s /bin/sh -c)
else
  RUN_AS=(sh -c)
fi
"${RUN_AS[@]}" "$PG_BIN/initdb -D $PG_DATA -A trust -U postgres >/dev/null"
"${RUN_AS[@]}" "$PG_BIN/pg_ctl -D $PG_DATA -o '-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DATA' -l $PG_DATA/server.log -w start >/dev/null"
export SCRAPEFORM_TEST_POSTGRES="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT" >&2
