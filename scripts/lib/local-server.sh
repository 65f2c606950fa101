# Shared by scripts/local-mariadb.sh and scripts/local-mysql.sh (sourced): stopping a server by
# its pid file, and waiting until it answers.

# stop_server PIDFILE: SIGTERM (a clean shutdown), then wait up to a minute for it to exit.
stop_server() {
  local pidfile=$1 pid
  pid=$(cat "$pidfile" 2>/dev/null) || return 0
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 600); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  rm -f "$pidfile"
}

# wait_until_answers NAME ERROR_LOG CLIENT...: polls `CLIENT -e 'SELECT 1'` for up to a minute;
# fails with the log's tail when the server never answers.
wait_until_answers() {
  local name=$1 log=$2
  shift 2
  for _ in $(seq 1 600); do
    "$@" -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  "$@" -e 'SELECT 1' >/dev/null || {
    echo "$name did not start; see $log" >&2
    tail -20 "$log" >&2
    return 1
  }
}

# create_outbox_account CLIENT...: one account for the relay, the tools and the tests, all
# privileges. Both host forms: with skip-name-resolve both servers match 'localhost' for socket
# connections and '127.0.0.1' for TCP. Default authentication (MySQL: caching_sha2_password).
create_outbox_account() {
  "$@" <<'SQL'
CREATE USER IF NOT EXISTS 'outbox'@'localhost' IDENTIFIED BY 'outbox';
CREATE USER IF NOT EXISTS 'outbox'@'127.0.0.1' IDENTIFIED BY 'outbox';
GRANT ALL PRIVILEGES ON *.* TO 'outbox'@'localhost' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'outbox'@'127.0.0.1' WITH GRANT OPTION;
SQL
}

# write_env DIR PORT SOCKET PIDFILE SERVER: DIR/env, which tests, benchmarks and the demo
# source; OUTBOX_DB_SERVER (mariadb or mysql) tells which kind of server it is.
write_env() {
  cat >"$1/env" <<ENV
export OUTBOX_MYSQL_HOST=127.0.0.1
export OUTBOX_MYSQL_PORT=$2
export OUTBOX_MYSQL_SOCKET=$3
export OUTBOX_MYSQL_USER=outbox
export OUTBOX_MYSQL_PASSWORD=outbox
export OUTBOX_MYSQL_PID_FILE=$4
export OUTBOX_DB_SERVER=$5
ENV
}

# tls_server_args KIND: the server's TLS options from OUTBOX_DB_TLS_DIR (KIND mariadb or mysql).
#   unset  the server's own default (MariaDB 10.11: no TLS; MySQL: TLS with the certificate it
#          made itself at --initialize)
#   DIR    TLS with DIR's certificates (scripts/make-test-certs.sh) and require_secure_transport
#          ON: a TCP client without TLS is refused (the socket counts as secure on both servers)
#   none   no TLS at all (MySQL: an empty tls_version), for the tests of a client that requires it
tls_server_args() {
  local kind=$1 tls=${OUTBOX_DB_TLS_DIR:-}
  if [[ -z $tls ]]; then
    return 0
  elif [[ $tls == none ]]; then
    if [[ $kind == mysql ]]; then echo "--tls-version="; fi
  else
    echo "--ssl-ca=$tls/ca.pem --ssl-cert=$tls/server-cert.pem --ssl-key=$tls/server-key.pem" \
      "--require-secure-transport=ON"
  fi
}
