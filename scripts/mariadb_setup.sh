#!/usr/bin/env bash
# Start the local MariaDB server (bound to 127.0.0.1), load the demo world DB into it and create
# the read-only account; print the `export` lines a caller needs on stdout (everything else goes
# to stderr), so that this works:
#
#     eval "$(scripts/mariadb_setup.sh)"
#     .venv/bin/pytest -m mariadb tests/integration
#
# Re-runnable: a running server is reused, the database is dropped and reloaded, and the reader
# account is re-created. The password is taken from $VBA_WORLD_DB_PASSWORD, or generated (a new
# one on every run: use the printed export line). It is only ever printed in that export line.
#
# Environment (all optional): VBA_WORLD_DB_PASSWORD, VBA_MARIADB_SOCKET (/run/mysqld/mysqld.sock),
# VBA_WORLD_DB_NAME (vba_world), VBA_WORLD_DB_READER (vba_reader), PYTHON (.venv/bin/python).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SOCKET="${VBA_MARIADB_SOCKET:-/run/mysqld/mysqld.sock}"
DATABASE="${VBA_WORLD_DB_NAME:-vba_world}"
READER="${VBA_WORLD_DB_READER:-vba_reader}"
PORT=3306
PYTHON="${PYTHON:-$REPO/.venv/bin/python}"
[[ -x "$PYTHON" ]] || PYTHON="$(command -v python3)"
CONFIG="$REPO/config/project.mariadb-ci.toml"

log() { echo "mariadb_setup: $*" >&2; }
fail() { log "error: $*"; exit 1; }
alive() { mariadb-admin --socket="$SOCKET" --connect-timeout=2 ping >/dev/null 2>&1; }

command -v mariadb-admin >/dev/null || fail "mariadb-admin not found: install mariadb-server"

start_server() {
    if [[ ! -d /var/lib/mysql/mysql ]]; then
        log "initializing the data directory"
        mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db \
            --auth-root-authentication-method=socket >&2
    fi
    mkdir -p "$(dirname "$SOCKET")"
    chown mysql:mysql "$(dirname "$SOCKET")" 2>/dev/null || true
    if command -v service >/dev/null && [[ -x /etc/init.d/mariadb ]] \
        && [[ "$SOCKET" == /run/mysqld/mysqld.sock ]]; then
        log "starting MariaDB with 'service mariadb start'"
        service mariadb start >&2 || log "service start failed; trying mariadbd-safe"
    fi
    if ! alive; then
        log "starting mariadbd-safe --bind-address=127.0.0.1"
        nohup mariadbd-safe --user=mysql --bind-address=127.0.0.1 --port="$PORT" \
            --socket="$SOCKET" >/tmp/vba-mariadbd-safe.log 2>&1 &
    fi
    for _ in $(seq 1 60); do
        alive && return 0
        sleep 1
    done
    fail "MariaDB did not answer on $SOCKET within 60 s"
}

if alive; then
    log "MariaDB is already running on $SOCKET"
else
    start_server
fi

# Refuse a server that listens on anything but loopback, and check the port the config uses.
read -r BIND NO_NETWORK ACTUAL_PORT < <(
    mariadb --socket="$SOCKET" -N -B -e 'SELECT @@bind_address, @@skip_networking, @@port'
)
case "$BIND" in
    127.0.0.1 | localhost | ::1) ;;
    *) fail "MariaDB is bound to '$BIND', not 127.0.0.1; fix bind-address and restart it" ;;
esac
[[ "$NO_NETWORK" == 0 ]] || fail "MariaDB runs with skip_networking; the config connects via TCP"
[[ "$ACTUAL_PORT" == "$PORT" ]] || fail "MariaDB listens on port $ACTUAL_PORT, the config says $PORT"

if [[ -z "${VBA_WORLD_DB_PASSWORD:-}" ]]; then
    VBA_WORLD_DB_PASSWORD="$("$PYTHON" -c 'import secrets; print(secrets.token_urlsafe(24))')"
    log "generated a new reader password"
fi
export VBA_WORLD_DB_PASSWORD

log "loading the world data into '$DATABASE'"
"$PYTHON" -m vba_assets.worlddata.mariadb_load --socket "$SOCKET" --database "$DATABASE" \
    --reader-user "$READER" --reader-password-env VBA_WORLD_DB_PASSWORD >&2

printf 'export VBA_WORLD_DB_PASSWORD=%q\n' "$VBA_WORLD_DB_PASSWORD"
printf 'export VBA_TEST_PROJECT_CONFIG=%q\n' "$CONFIG"
