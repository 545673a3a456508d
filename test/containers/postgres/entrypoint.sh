#!/bin/sh
# What the official postgres image's entrypoint does, for the parts Paywire's compose file and testcontainers
# use: on the first start of an empty PGDATA, initdb with POSTGRES_USER (default postgres) and
# POSTGRES_PASSWORD, create POSTGRES_DB, run /docker-entrypoint-initdb.d/*.sh and *.sql against a server
# listening on its socket only, then start PostgreSQL for real, password auth from anywhere.
set -eu
export POSTGRES_USER="${POSTGRES_USER:-postgres}"
export POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
if [ "${1:-postgres}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -U "$POSTGRES_USER" --pwfile="$pwfile" -A scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=/var/run/postgresql" start >/dev/null
  export PGPASSWORD="$POSTGRES_PASSWORD" PGHOST=/var/run/postgresql
  if [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -q -c "create database \"$POSTGRES_DB\""
  fi
  for script in /docker-entrypoint-initdb.d/*; do
    case "$script" in
      *.sh) echo "running $script"; sh "$script" ;;
      *.sql) echo "running $script"; psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -q -f "$script" ;;
    esac
  done
  unset PGPASSWORD PGHOST
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'PostgreSQL init process complete; ready for start up.'
fi
if [ "$#" -eq 0 ] || [ "$1" = postgres ]; then
  [ "$#" -gt 0 ] && shift
  set -- postgres -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql "$@"
fi
exec "$@"
