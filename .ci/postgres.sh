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
PG_DATA=$(mktemp -d /tmp/scrapeform-pg.XXXXXX)
RUN_AS=()
if [ "$(id -u)" = "0" ]; then
  chown postgres "$PG_DATA"
  RUN_AS=(su postgres -s /bin/sh -c)
else
  RUN_AS=(sh -c)
fi
# Run from a folder the postgres user can enter (the clone may be private to root).
cd /tmp
"${RUN_AS[@]}" "$PG_BIN/initdb -D $PG_DATA -A trust -U postgres >/dev/null"
# Ports below the ephemeral range (32768+), so no outgoing connection holds them; the next one when taken.
PG_PORT=""
for port in $(seq 25432 25482); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
  if "${RUN_AS[@]}" "$PG_BIN/pg_ctl -D $PG_DATA -o '-c listen_addresses=127.0.0.1 -p $port -k $PG_DATA' -l $PG_DATA/server.log -w start >/dev/null"; then
    PG_PORT=$port
    break
  fi
done
cd - >/dev/null
if [ -z "$PG_PORT" ]; then
  echo "could not start PostgreSQL on any port from 25432 to 25482; see $PG_DATA/server.log" >&2
  exit 1
fi
export SCRAPEFORM_TEST_POSTGRES="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PG_PORT" >&2
