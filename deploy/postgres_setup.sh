#!/usr/bin/env bash
# Start the local PostgreSQL (Debian package `postgresql`) on 127.0.0.1 and create the role and
# database of a Dagster instance; print the `export` lines a caller needs on stdout (everything
# else goes to stderr), so that this works:
#
#     eval "$(bash deploy/postgres_setup.sh)"
#     DAGSTER_HOME=... with deploy/dagster.yaml -> Dagster on PostgreSQL
#
# Re-runnable: a running cluster is reused and the role's password is reset (taken from
# $DAGSTER_PG_PASSWORD, or generated). The role may create databases: the tests give each test
# its own database. Runs as root (it switches to the `postgres` user) or as `postgres`.
#
# Environment (all optional): DAGSTER_PG_USER (vba_dagster), DAGSTER_PG_DB (vba_dagster),
# DAGSTER_PG_PORT (5432), DAGSTER_PG_PASSWORD, PYTHON (.venv/bin/python).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROLE="${DAGSTER_PG_USER:-vba_dagster}"
DATABASE="${DAGSTER_PG_DB:-vba_dagster}"
PORT="${DAGSTER_PG_PORT:-5432}"
PYTHON="${PYTHON:-$REPO/.venv/bin/python}"
[[ -x "$PYTHON" ]] || PYTHON="$(command -v python3)"

log() { echo "postgres_setup: $*" >&2; }
fail() { log "error: $*"; exit 1; }
as_postgres() {
    if [[ "$(id -un)" == postgres ]]; then "$@"; else runuser -u postgres -- "$@"; fi
}

command -v pg_lsclusters >/dev/null || fail "pg_lsclusters not found: install the postgresql package"
[[ "$ROLE" =~ ^[a-z_][a-z0-9_]*$ && "$DATABASE" =~ ^[a-z_][a-z0-9_]*$ ]] \
    || fail "role and database names must be plain lower-case identifiers"

read -r VERSION CLUSTER _ < <(pg_lsclusters --no-header | head -n 1) || true
if [[ -z "${VERSION:-}" ]]; then
    VERSION="$(ls /usr/lib/postgresql | sort -n | tail -n 1)"
    CLUSTER=main
    log "creating cluster $VERSION/$CLUSTER"
    pg_createcluster "$VERSION" "$CLUSTER" --port="$PORT" >&2
fi

# Loopback only, on the port the instance config uses (Debian's postgresql.conf includes conf.d/).
CONF_DIR="/etc/postgresql/$VERSION/$CLUSTER/conf.d"
mkdir -p "$CONF_DIR"
printf "# written by vba-assets deploy/postgres_setup.sh\nlisten_addresses = '127.0.0.1'\nport = %s\n" \
    "$PORT" > "$CONF_DIR/vba-dagster.conf"
if pg_lsclusters --no-header | awk -v v="$VERSION" -v c="$CLUSTER" '$1==v && $2==c {print $4}' \
    | grep -q online; then
    log "PostgreSQL $VERSION/$CLUSTER is running; restarting it to apply listen_addresses/port"
    pg_ctlcluster "$VERSION" "$CLUSTER" restart >&2
else
    log "starting PostgreSQL $VERSION/$CLUSTER on 127.0.0.1:$PORT"
    pg_ctlcluster "$VERSION" "$CLUSTER" start >&2
fi
for _ in $(seq 1 60); do
    pg_isready -q -h 127.0.0.1 -p "$PORT" && break
    sleep 1
done
pg_isready -q -h 127.0.0.1 -p "$PORT" || fail "PostgreSQL did not answer on 127.0.0.1:$PORT"

if [[ -z "${DAGSTER_PG_PASSWORD:-}" ]]; then
    DAGSTER_PG_PASSWORD="$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(24))')"
    log "generated a new password for role $ROLE"
fi

# The password goes through stdin (psql variable), never on a command line.
as_postgres psql -q -v ON_ERROR_STOP=1 -p "$PORT" -d postgres -v role="$ROLE" -v db="$DATABASE" \
    -v password="$DAGSTER_PG_PASSWORD" >&2 <<'SQL'
SELECT format('CREATE ROLE %I LOGIN CREATEDB', :'role')
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN CREATEDB PASSWORD %L', :'role', :'password') \gexec
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'role')
 WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SQL
log "role $ROLE and database $DATABASE ready on 127.0.0.1:$PORT"

printf 'export DAGSTER_PG_HOST=127.0.0.1\n'
printf 'export DAGSTER_PG_PORT=%s\n' "$PORT"
printf 'export DAGSTER_PG_USER=%s\n' "$ROLE"
printf 'export DAGSTER_PG_DB=%s\n' "$DATABASE"
printf 'export DAGSTER_PG_PASSWORD=%q\n' "$DAGSTER_PG_PASSWORD"
