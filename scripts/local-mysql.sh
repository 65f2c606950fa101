#!/usr/bin/env bash
# A private MySQL server for the demo, the tests and the benchmarks, under DIR (nothing
# system-wide), beside scripts/local-mariadb.sh and with the same env file convention.
#   local-mysql.sh start DIR   init DIR if new, start the server, wait until it answers,
#                              create the 'outbox' user, write DIR/env (source it)
#   local-mysql.sh stop DIR
#   local-mysql.sh fetch       only make the server's private root (below), if missing
# OUTBOX_DB_PORT=P starts it on port P (a restart that keeps its clients' address);
# OUTBOX_DB_BUFFER_POOL sizes the buffer pool (default 512M); OUTBOX_DB_TLS_DIR chooses its TLS
# (tls_server_args in lib/local-server.sh). The names are local-mariadb.sh's.
#
# Where MySQL comes from: Debian bookworm has no MySQL server (only MariaDB). Debian's
# archive serves mysql-server-core 9.7 (the MySQL LTS line) in its `sid` suite; 8.0 and 8.4
# are not to be had here. The host's packages stay bookworm's: mmdebstrap puts sid's
# mysql-server-core into a private root under .local/ (OUTBOX_MYSQL_ROOT overrides where),
# once, and records the version it resolved beside it (ROOT.version). mysqld runs from there
# through that root's own dynamic loader and libraries, not chrooted, so its data directory,
# socket and logs live under DIR like MariaDB's. Test-only: nothing of it ships.
#
# Settings are MariaDB's from local-mariadb.sh (binary log ROW, flush at commit 2, sync_binlog
# 0 as MariaDB's default where MySQL's is 1, 500 connections, no name resolution), so a test or
# benchmark that runs on both compares like for like.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/local-server.sh
source "$repo/scripts/lib/local-server.sh"
command=${1:?start|stop|fetch}
mysql_root=${OUTBOX_MYSQL_ROOT:-$repo/.local/mysql-root}
# The packages the root is made of. mysql-server-core: mysqld; mysql-client-core: the mysql
# CLI, for a person's look at the server (the tests' independent client is the host's
# mariadb CLI).
root_packages=mysql-server-core,mysql-client-core

# Makes the private root once. Several test processes may start servers at once: the first
# makes the root under a lock, the others wait for it and then use it.
make_root() {
  mkdir -p "$(dirname "$mysql_root")"
  exec 9>"$mysql_root.lock"
  flock 9
  if [[ ! -x $mysql_root/usr/sbin/mysqld ]]; then
    command -v mmdebstrap >/dev/null || {
      echo "local-mysql.sh: mmdebstrap is missing (scripts/deps.sh installs it)" >&2
      exit 1
    }
    echo "==> making a private root with Debian sid's $root_packages in $mysql_root (once)"
    rm -rf "$mysql_root.new"
    # sid's Release file is past its Valid-Until date at times: the archive keeps serving it.
    if ! mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' \
      --include="$root_packages" sid "$mysql_root.new" >"$mysql_root.log" 2>&1; then
      tail -20 "$mysql_root.log" >&2
      echo "local-mysql.sh: could not install $root_packages from Debian's sid suite" \
        "(log: $mysql_root.log). The archive may no longer serve it; see docs/testing.md" \
        "('MySQL')." >&2
      rm -rf "$mysql_root.new"
      exit 1
    fi
    mv "$mysql_root.new" "$mysql_root"
  fi
  if [[ ! -s $mysql_root.version ]]; then
    mysqld_in_root --version | sed 's/.*Ver \([^ ]*\).*/\1/' >"$mysql_root.version"
  fi
  exec 9>&-
}

# mysqld of the root, run through the root's loader with the root's libraries: sid's glibc
# and libstdc++ are newer than bookworm's.
mysqld_in_root() {
  local libs=$mysql_root/usr/lib/x86_64-linux-gnu
  "$libs/ld-linux-x86-64.so.2" --library-path "$libs" "$mysql_root/usr/sbin/mysqld" \
    --no-defaults "$@" \
    --lc-messages-dir="$mysql_root/usr/share/mysql" \
    --character-sets-dir="$mysql_root/usr/share/mysql/charsets" \
    --plugin-dir="$mysql_root/usr/lib/mysql/plugin"
}

if [[ $command == fetch ]]; then
  make_root
  echo "==> MySQL $(cat "$mysql_root.version") in $mysql_root"
  exit 0
fi

dir=$(mkdir -p "${2:?DIR}" && cd "$2" && pwd)
data=$dir/data
socket=$dir/mysqld.sock
pidfile=$dir/mysqld.pid

if [[ $command == stop ]]; then
  stop_server "$pidfile"
  exit 0
fi

make_root
stop_server "$pidfile"
# A temporary directory of its own, as in local-mariadb.sh: a starting server removes every
# '#sql' file in its tmpdir, another server's live temporary tables included.
mkdir -p "$dir/tmp"
if [[ ! -d $data/mysql ]]; then
  rm -rf "$data"
  # --initialize-insecure: root@localhost without a password, reached only through DIR's
  # socket; the accounts the tests use are made below.
  mysqld_in_root --initialize-insecure --user="$(id -un)" --datadir="$data" --tmpdir="$dir/tmp" \
    >"$dir/install.log" 2>&1 || {
    tail -20 "$dir/install.log" >&2
    echo "MySQL's --initialize failed; see $dir/install.log" >&2
    exit 1
  }
fi

# The first free TCP port from a random one in 23306-25305 up (MariaDB's in 13306-15305): the
# relay connects over TCP like in production. Random, not the lowest free one: a soak restarts
# its server on the same port, and MySQL takes seconds to restart, long enough for a server
# started meanwhile by another test to take the lowest free port (seen in CI: "Bind on TCP/IP
# port: Address already in use" on the restart).
port=${OUTBOX_DB_PORT:-$((23306 + RANDOM % 2000))}
if [[ -z ${OUTBOX_DB_PORT:-} ]]; then
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
fi

# --mysqlx=OFF: the X protocol's own port is not used. --secure-file-priv=: no export dir.
mysqld_in_root --user="$(id -un)" --datadir="$data" --socket="$socket" \
  --port="$port" --bind-address=127.0.0.1 --pid-file="$pidfile" --mysqlx=OFF --tmpdir="$dir/tmp" \
  --secure-file-priv= --log-error="$dir/error.log" \
  --innodb-buffer-pool-size="${OUTBOX_DB_BUFFER_POOL:-512M}" \
  --innodb-flush-log-at-trx-commit=2 --max-connections=500 --skip-name-resolve \
  --log-bin="$dir/binlog" --sync-binlog=0 --server-id=1 --max-binlog-size=256M \
  --binlog-expire-logs-seconds=7200 $(tls_server_args mysql) >>"$dir/error.log" 2>&1 &

client=(mariadb --no-defaults --socket="$socket" -uroot)
wait_until_answers MySQL "$dir/error.log" "${client[@]}"

create_outbox_account "${client[@]}"
write_env "$dir" "$port" "$socket" "$pidfile" mysql
echo "==> MySQL $(cat "$mysql_root.version") on 127.0.0.1:$port (socket $socket)"
