#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server for Lockstep's tests and prints its URL on the last line:
#
#   export LOCKSTEP_TEST_POSTGRES_URL=$(bash .ci/postgres.sh | tail -1)
#
# Installs PostgreSQL from Debian's packages if it is missing, creates a cluster of its own
# (never touching the system's clusters), listens on 127.0.0.1 only, and creates a database
# and a user with a password. Running it again reuses the cluster, and restarts it if it stopped.
#
# Settings (environment): LOCKSTEP_PG_PORT (55432), LOCKSTEP_PG_DIR (/tmp/lockstep-postgres),
# LOCKSTEP_PG_USER / LOCKSTEP_PG_PASSWORD / LOCKSTEP_PG_DATABASE (all "lockstep").
set -euo pipefail

port="${LOCKSTEP_PG_PORT:-55432}"
root="${LOCKSTEP_PG_DIR:-/tmp/lockstep-postgres}"
user="${LOCKSTEP_PG_USER:-lockstep}"
password="${LOCKSTEP_PG_PASSWORD:-lockstep}"
database="${LOCKSTEP_PG_DATABASE:-lockstep}"
data="$root/data"

log() { echo "postgres.sh: $*" >&2; }

find_bin() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

bin="$(find_bin)"
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
    log "installing PostgreSQL from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
    bin="$(find_bin)"
fi

# The server refuses to run as root: run it as the postgres user when we are root.
if [[ "$(id -u)" == 0 ]]; then
    owner=postgres
    as_owner() { runuser -u postgres -- "$@"; }
else
    owner="$(id -un)"
    as_owner() { "$@"; }
fi

mkdir -p "$root"
chown "$owner" "$root"
chmod 700 "$root"

if [[ ! -s "$data/PG_VERSION" ]]; then
    log "creating a cluster in $data"
    as_owner "$bin/initdb" -D "$data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
        --encoding=UTF8 --locale=C.UTF-8 >/dev/null
fi

if ! as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        log "port $port is taken by another program: set LOCKSTEP_PG_PORT to a free port"
        exit 1
    fi
    log "starting the server on 127.0.0.1:$port"
    as_owner "$bin/pg_ctl" -D "$data" -l "$root/server.log" -w -t 60 start \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$root -c max_connections=200" >/dev/null
fi

psql_admin() {
    as_owner "$bin/psql" -h "$root" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt "$@"
}

if [[ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$user'")" != 1 ]]; then
    psql_admin -c "CREATE ROLE \"$user\" LOGIN PASSWORD '$password'"
fi
if [[ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]]; then
    psql_admin -c "CREATE DATABASE \"$database\" OWNER \"$user\""
fi

echo "postgres://$user:$password@127.0.0.1:$port/$database"
