#!/usr/bin/env bash
# A private MariaDB server for the demo and the tests, under DIR (nothing system-wide).
#   local-mariadb.sh start DIR   init DIR if new, start the server, wait until it answers,
#                                create the 'outbox' user, write DIR/env (source it)
#   local-mariadb.sh stop DIR
# OUTBOX_DB_PORT=P (or OUTBOX_MARIADB_PORT) starts it on port P (a restart that keeps its
# clients' address); OUTBOX_DB_BUFFER_POOL (or OUTBOX_MARIADB_BUFFER_POOL) sizes the buffer pool
# (default 512M). The OUTBOX_DB_ names are scripts/local-mysql.sh's too.
# The binary log is on (ROW: what a CDC reader such as Debezium needs, and what durable
# production servers pay for); files older than two hours go at each rotation (every 256 MiB),
# since a benchmark run writes gigabytes of it and nothing here reads it later (a long-lived
# bench server had filled the disk with 41 GB of it).
set -euo pipefail

command=${1:?start|stop}
dir=$(mkdir -p "${2:?DIR}" && cd "$2" && pwd)
data=$dir/data
socket=$dir/mysqld.sock
pidfile=$dir/mysqld.pid

stop() {
  local pid
  pid=$(cat "$pidfile" 2>/dev/null) || return 0
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 300); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  rm -f "$pidfile"
}

if [[ $command == stop ]]; then
  stop
  exit 0
fi

stop
if [[ ! -d $data/mysql ]]; then
  mariadb-install-db --no-defaults --datadir="$data" --user="$(id -un)" \
    --auth-root-authentication-method=socket >"$dir/install.log" 2>&1
fi

# The first free TCP port from 13306 up: the relay connects over TCP like in production.
fixed_port=${OUTBOX_DB_PORT:-${OUTBOX_MARIADB_PORT:-}}
port=${fixed_port:-13306}
if [[ -z $fixed_port ]]; then
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
fi

mariadbd --no-defaults --datadir="$data" --user="$(id -un)" --socket="$socket" \
  --port="$port" --bind-address=127.0.0.1 --pid-file="$pidfile" \
  --log-error="$dir/error.log" --innodb-buffer-pool-size="${OUTBOX_DB_BUFFER_POOL:-${OUTBOX_MARIADB_BUFFER_POOL:-512M}}" \
  --innodb-flush-log-at-trx-commit=2 --max-connections=500 --skip-name-resolve \
  --log-bin="$dir/binlog" --binlog-format=ROW --server-id=1 \
  --max-binlog-size=256M --binlog-expire-logs-seconds=7200 >>"$dir/error.log" 2>&1 &

for _ in $(seq 1 300); do
  mariadb --no-defaults --socket="$socket" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.1
done
mariadb --no-defaults --socket="$socket" -uroot -e 'SELECT 1' >/dev/null || {
  echo "MariaDB did not start; see $dir/error.log" >&2
  tail -20 "$dir/error.log" >&2
  exit 1
}

# One account for the relay, the tools and the tests. Both host forms: MariaDB matches
# 'localhost' for socket connections and '127.0.0.1' for TCP (with skip-name-resolve).
mariadb --no-defaults --socket="$socket" -uroot <<'SQL'
DROP USER IF EXISTS ''@'localhost';
CREATE USER IF NOT EXISTS 'outbox'@'localhost' IDENTIFIED BY 'outbox';
CREATE USER IF NOT EXISTS 'outbox'@'127.0.0.1' IDENTIFIED BY 'outbox';
GRANT ALL PRIVILEGES ON *.* TO 'outbox'@'localhost' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'outbox'@'127.0.0.1' WITH GRANT OPTION;
SQL

cat >"$dir/env" <<ENV
export OUTBOX_MYSQL_HOST=127.0.0.1
export OUTBOX_MYSQL_PORT=$port
export OUTBOX_MYSQL_SOCKET=$socket
export OUTBOX_MYSQL_USER=outbox
export OUTBOX_MYSQL_PASSWORD=outbox
export OUTBOX_MYSQL_PID_FILE=$pidfile
export OUTBOX_DB_SERVER=mariadb
ENV
echo "==> MariaDB $(mariadbd --version | awk '{print $3}') on 127.0.0.1:$port (socket $socket)"
