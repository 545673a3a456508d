#!/bin/sh
# Compose's PostgreSQL, on the first start of its cluster only (the image runs /docker-entrypoint-initdb.d
# once): the owner role paywire_owner, which owns the database paywire and runs the migrations, and the app
# role paywire_app, which owns nothing and is what core connects as; the migration grants it row access only
# (docs/security.md, Database roles). Passwords from infra/secrets/postgres.env, passed as psql variables
# so they are quoted by psql.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v owner_password="$PAYWIRE_OWNER_PASSWORD" -v app_password="$PAYWIRE_APP_PASSWORD" <<'SQL'
create role paywire_owner login password :'owner_password';
create role paywire_app login password :'app_password';
create database paywire owner paywire_owner;
SQL
