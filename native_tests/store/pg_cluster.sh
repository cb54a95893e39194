# Sourced by the store's PostgreSQL tests and benchmark: a throw-away cluster of Debian's
# `postgresql` server in a temporary folder, reachable only through a unix socket in that folder
# (listen_addresses is empty: no TCP at all). pg_cluster_start sets PG_CONNINFO (the store's
# `--store` value) and traps EXIT, INT and TERM to stop the server and remove the folder.
# initdb refuses to run as root, so as root the server runs as the `postgres` user (else `nobody`).

pg_cluster_bindir() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && echo "$dir"
}

pg_cluster_as() {
    if [ -n "${PG_RUN_AS:-}" ]; then runuser -u "$PG_RUN_AS" -- "$@"; else "$@"; fi
}

pg_cluster_stop() {
    if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
        pg_cluster_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 60 stop >/dev/null 2>&1 ||
            pg_cluster_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
    [ -n "${PG_DIR:-}" ] && rm -rf "$PG_DIR"
    PG_DIR=""
}

# $1: extra server settings ("-c fsync=off" for tests that need no durability). Returns 77 when
# no server is installed (the caller skips, saying so).
pg_cluster_start() {
    PG_BIN="$(pg_cluster_bindir)" || true
    if [ -z "$PG_BIN" ]; then
        echo "SKIPPED: no PostgreSQL server (Debian package postgresql: /usr/lib/postgresql/*/bin/initdb)"
        return 77
    fi
    PG_RUN_AS=""
    if [ "$(id -u)" = 0 ]; then
        PG_RUN_AS=postgres
        getent passwd postgres >/dev/null || PG_RUN_AS=nobody
    fi
    PG_DIR="$(mktemp -d "${TMPDIR:-/tmp}/gpuconform-pg.XXXXXX")"
    trap pg_cluster_stop EXIT
    trap 'pg_cluster_stop; exit 130' INT
    trap 'pg_cluster_stop; exit 143' TERM
    chmod 755 "$PG_DIR"
    [ -n "$PG_RUN_AS" ] && chown "$PG_RUN_AS" "$PG_DIR"
    if ! pg_cluster_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U gpuconform --auth=trust -E UTF8 --no-locale \
        >"$PG_DIR/initdb.log" 2>&1; then
        cat "$PG_DIR/initdb.log" >&2
        return 1
    fi
    if ! pg_cluster_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 120 \
        -o "-c listen_addresses='' -k $PG_DIR -c max_connections=64 ${1:-}" start >/dev/null; then
        cat "$PG_DIR/server.log" >&2
        return 1
    fi
    PG_CONNINFO="pg:host=$PG_DIR user=gpuconform dbname=postgres"
}
