#!/usr/bin/env bash
# A private MariaDB server for the demo and the tests, under DIR (nothing system-wide).
#   local-mariadb.sh start DIR   init DIR if new, start the server, wait until it answers,
#                                create the 'outbox' user, write DIR/env (source it)
#   local-mariadb.sh stop DIR
# OUTBOX_DB_PORT=P (or OUTBOX_MARIADB_PORT) starts it on port P (a restart that keeps its
# clients' address); OUTBOX_DB_BUFFER_POOL (or OUTBOX_MARIADB_BUFFER_POOL) sizes the buffer pool
# (default 512M); OUTBOX_DB_TLS_DIR chooses its TLS (tls_server_args in lib/local-server.sh).
# The OUTBOX_DB_ names are scripts/local-mysql.sh's too.
# The binary log is on (ROW: what a CDC reader such as Debezium needs, and what durable
# production servers pay for); files older than two hours go at each rotation (every 256 MiB),
# since a benchmark run writes gigabytes of it and nothing here reads it later (a long-lived
# bench server had filled the disk with 41 GB of it).
set -euo pipefail
# shellcheck source=lib/local-server.sh
source "$(dirname "$0")/lib/local-server.sh"

command=${1:?start|stop}
dir=$(mkdir -p "${2:?DIR}" && cd "$2" && pwd)
data=$dir/data
socket=$dir/mysqld.sock
pidfile=$dir/mysqld.pid

if [[ $command == stop ]]; then
  stop_server "$pidfile"
  exit 0
fi

stop_server "$pidfile"
# A temporary directory of its own: at start-up (and mariadb-install-db's bootstrap) the server
# removes every '#sql' file in its tmpdir, including another server's live temporary tables;
# two servers sharing /tmp made mariadb-install-db fail ("Could not remove temporary table ...
# Unknown table 'mysql.tmp_user_sys'") when two soaks started theirs at once.
mkdir -p "$dir/tmp"
if [[ ! -d $data/mysql ]]; then
  rm -rf "$data"
  mariadb-install-db --no-defaults --datadir="$data" --user="$(id -un)" --tmpdir="$dir/tmp" \
    --auth-root-authentication-method=socket >"$dir/install.log" 2>&1 || {
    grep -v '^$' "$dir/install.log" | head -8 >&2
    echo "mariadb-install-db failed; see $dir/install.log" >&2
    exit 1
  }
fi

# The first free TCP port from a random one in 13306-15305 up: the relay connects over TCP like
# in production. Random, not always 13306: two servers started at once (the chaos soaks of the
# MariaDB and the MySQL copies of the suite each start one) would both find the same port free
# and one would fail "Bind on TCP/IP port: Address already in use" (seen running soaks side by
# side).
fixed_port=${OUTBOX_DB_PORT:-${OUTBOX_MARIADB_PORT:-}}
port=${fixed_port:-$((13306 + RANDOM % 2000))}
if [[ -z $fixed_port ]]; then
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
fi

mariadbd --no-defaults --datadir="$data" --user="$(id -un)" --socket="$socket" \
  --port="$port" --bind-address=127.0.0.1 --pid-file="$pidfile" --tmpdir="$dir/tmp" \
  --log-error="$dir/error.log" --innodb-buffer-pool-size="${OUTBOX_DB_BUFFER_POOL:-${OUTBOX_MARIADB_BUFFER_POOL:-512M}}" \
  --innodb-flush-log-at-trx-commit=2 --max-connections=500 --skip-name-resolve \
  --log-bin="$dir/binlog" --binlog-format=ROW --server-id=1 \
  --max-binlog-size=256M --binlog-expire-logs-seconds=7200 $(tls_server_args mariadb) \
  >>"$dir/error.log" 2>&1 &

wait_until_answers MariaDB "$dir/error.log" mariadb --no-defaults --socket="$socket" -uroot

# MariaDB's anonymous ''@'localhost' would match the account's socket logins first.
mariadb --no-defaults --socket="$socket" -uroot -e "DROP USER IF EXISTS ''@'localhost'"
create_outbox_account mariadb --no-defaults --socket="$socket" -uroot
write_env "$dir" "$port" "$socket" "$pidfile" mariadb
echo "==> MariaDB $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$port (socket $socket)"
