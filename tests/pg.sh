# Shell helpers that run a private PostgreSQL server for the tests and
# benchmarks (Debian's postgresql package). Source, then:
#
#   reason=$(pg_skip_reason)   # "" when a server can be started here
#   pg_start                   # initdb + start; sets and exports PG_DIR,
#                              # PG_HOST (the socket folder), PG_PORT, PG_BIN
#   pg_url DB [USER]           # a location for database DB over the socket
#   pg_tcp_url DB USER         # the same over 127.0.0.1 (password auth)
#   pg_createdb DB             # a fresh, empty database DB
#   pg_sql DB SQL              # runs SQL with psql, prints the rows
#   pg_restart                 # stop (fast: clients are cut off) and start
#   pg_stop                    # stop and remove everything
#
# The server is initialised into a new folder under $TMPDIR (or /tmp) and
# listens on a Unix socket in that folder and on 127.0.0.1 at a free port.
# Over the socket the role "skillci" (a superuser) needs no password; over
# TCP every role needs one (scram-sha-256): pg_start creates the role
# "fleet" with the password "fleet-secret" and its database "fleet" for
# the credential tests.
# PostgreSQL refuses to run as root, so under root the server runs as the
# unprivileged system user "postgres" (created by the package) through
# runuser. fsync is off: the tests need a server, not durability.
#
# pg_export sets SKILLCI_TEST_PG (the location of database "skillci") and
# SKILLCI_TEST_PG_HOST/_PORT/_BIN for suites started from the same shell.

_pg_find_bin() {
	if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/initdb" ]; then
		echo "$PG_BIN"; return 0
	fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
	done
	d=$(pg_config --bindir 2>/dev/null) && [ -x "$d/initdb" ] && { echo "$d"; return 0; }
	command -v initdb > /dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
	return 1
}

pg_skip_reason() {
	if ! _pg_find_bin > /dev/null; then
		echo "no PostgreSQL server binaries (initdb, pg_ctl): install the Debian package postgresql (make deps)"
		return 0
	fi
	if [ "$(id -u)" -eq 0 ]; then
		if ! id -u postgres > /dev/null 2>&1; then
			echo "running as root and there is no unprivileged user 'postgres' to run the server"
			return 0
		fi
		if ! command -v runuser > /dev/null 2>&1; then
			echo "running as root without runuser to start the server as 'postgres'"
			return 0
		fi
	fi
	echo ""
}

_pg_as() {  # runs a command as the server's user
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

pg_start() {
	PG_BIN=$(_pg_find_bin) || { echo "pg_start: $(pg_skip_reason)" >&2; return 1; }
	PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/skillci-pg.XXXXXX") || return 1
	chmod 755 "$PG_DIR"
	[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR"
	PG_HOST=$PG_DIR
	PG_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	if ! (cd "$PG_DIR" && _pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -U skillci -E UTF8 \
		--auth-local=trust --auth-host=scram-sha-256 --no-sync) > "$PG_DIR/initdb.log" 2>&1; then
		echo "pg_start: initdb failed:" >&2; cat "$PG_DIR/initdb.log" >&2
		return 1
	fi
	_pg_ctl_start || return 1
	pg_sql postgres "CREATE DATABASE skillci" > /dev/null &&
		pg_sql postgres "CREATE ROLE fleet LOGIN PASSWORD 'fleet-secret'" > /dev/null &&
		pg_sql postgres "CREATE DATABASE fleet OWNER fleet" > /dev/null || return 1
	export PG_DIR PG_HOST PG_PORT PG_BIN
}

_pg_ctl_start() {
	if ! (cd "$PG_DIR" && _pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
		-o "-k $PG_DIR -p $PG_PORT -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		start) > "$PG_DIR/pg_ctl.log" 2>&1; then
		echo "pg_start: the server did not start:" >&2
		cat "$PG_DIR/pg_ctl.log" "$PG_DIR/server.log" >&2 2>/dev/null
		return 1
	fi
}

pg_restart() {
	(cd "$PG_DIR" && _pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop) > /dev/null 2>&1
	_pg_ctl_start
}

pg_stop() {
	[ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ] || return 0
	(cd "$PG_DIR" && _pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop) > /dev/null 2>&1
	rm -rf "$PG_DIR"
	PG_DIR=""
}

pg_url() {  # pg_url DB [USER]
	echo "postgresql:///$1?host=$PG_HOST&port=$PG_PORT&user=${2:-skillci}"
}

pg_tcp_url() {  # pg_tcp_url DB USER
	echo "postgresql://$2@127.0.0.1:$PG_PORT/$1"
}

pg_sql() {  # pg_sql DB SQL: rows as text, fields separated by |
	"$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U skillci -d "$1" -c "$2"
}

pg_createdb() {  # pg_createdb DB
	pg_sql postgres "DROP DATABASE IF EXISTS \"$1\"" > /dev/null 2>&1 &&
		pg_sql postgres "CREATE DATABASE \"$1\"" > /dev/null
}

pg_export() {
	SKILLCI_TEST_PG=$(pg_url skillci)
	SKILLCI_TEST_PG_HOST=$PG_HOST
	SKILLCI_TEST_PG_PORT=$PG_PORT
	SKILLCI_TEST_PG_BIN=$PG_BIN
	export SKILLCI_TEST_PG SKILLCI_TEST_PG_HOST SKILLCI_TEST_PG_PORT SKILLCI_TEST_PG_BIN
}

# pg_use_shared: when a server was started by tests/run-tests.sh (the
# SKILLCI_TEST_PG_* variables), use it; returns 1 when there is none.
pg_use_shared() {
	[ -n "${SKILLCI_TEST_PG_HOST:-}" ] || return 1
	PG_HOST=$SKILLCI_TEST_PG_HOST
	PG_PORT=$SKILLCI_TEST_PG_PORT
	PG_BIN=$SKILLCI_TEST_PG_BIN
	PG_DIR=""  # not ours: pg_stop leaves it alone
	return 0
}
