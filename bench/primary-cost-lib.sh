# shellcheck shell=bash
# Shared by bench/primary-cost.sh and bench/primary-cost-floor.sh: the test server's client,
# its own CPU seconds, and waiting for InnoDB's purge, so a phase's cost includes the purge of
# the row versions it left behind (undo records, delete-marked index entries) and the next
# phase's does not.

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# use_server mariadb|mysql: sets client (the mariadb CLI on the test server's account), pid,
# version, and flush / sync (the server's settings, to put back).
use_server() {
  # shellcheck disable=SC1090
  source "$root/.local/test-$1/env"
  client=(mariadb -h "$OUTBOX_MYSQL_HOST" -P "$OUTBOX_MYSQL_PORT" -u "$OUTBOX_MYSQL_USER" "-p$OUTBOX_MYSQL_PASSWORD")
  pid=$(cat "$OUTBOX_MYSQL_PID_FILE")
  version=$("${client[@]}" -N -e "SELECT VERSION()")
  read -r flush sync <<<"$("${client[@]}" -N -e "SELECT @@innodb_flush_log_at_trx_commit, @@sync_binlog")"
}

# fresh_database NAME: an empty database of that name with the project's migrations applied.
fresh_database() {
  "${client[@]}" -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1"
  "$root/scripts/apply-migrations.sh" "$1" -h "$OUTBOX_MYSQL_HOST" -P "$OUTBOX_MYSQL_PORT" \
    -u "$OUTBOX_MYSQL_USER" "-p$OUTBOX_MYSQL_PASSWORD" >/dev/null
}

# use_profile durable|tuned
use_profile() {
  if [ "$1" = durable ]; then
    "${client[@]}" -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1, GLOBAL sync_binlog = 1"
  else
    "${client[@]}" -e "SET GLOBAL innodb_flush_log_at_trx_commit = 2, GLOBAL sync_binlog = 0"
  fi
}

restore_server() {
  "${client[@]}" -e "SET GLOBAL innodb_flush_log_at_trx_commit = $flush, GLOBAL sync_binlog = $sync"
}

# The server's user + system CPU, in clock ticks.
server_cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

history_length() {
  "${client[@]}" -N -e "SHOW ENGINE INNODB STATUS\G" | sed -n 's/.*History list length \([0-9]*\).*/\1/p'
}

# Waits (up to a minute) until the purge is back near the history length `target` (the one
# before the phase): the transactions the phase committed are purged. A few are allowed over
# it: an idle server keeps a handful of its own unpurged (each phase commits 40 or more).
await_purge() {
  local target=$1 i
  for ((i = 0; i < 300; i++)); do
    [ "$(history_length)" -le $((target + 5)) ] && return 0
    sleep 0.2
  done
  echo "purge still behind after a minute (history list length $(history_length), target $target)" >&2
}

# CPU ms per 1k events from two tick counts.
ms_per_1k() { awk -v c="$(($2 - $1))" -v n="$3" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%f", c / hz / n * 1e6}'; }

# The foreign writer's statements: N events, 100 a statement (a transaction each under
# autocommit), 600-byte JSON payloads (OUTBOX_COST_PAD, default 580, is the padding's length:
# 20 gives the ~40-byte payloads of small events), AGGREGATES (default 1,000) of N/AGGREGATES
# versions, interleaved (event k is version k/AGGREGATES + 1 of aggregate k % AGGREGATES), ids
# e-<32 digits>.
writer_inserts() {
  local n=$1 aggregates=${2:-1000} pad=${OUTBOX_COST_PAD:-580} b i k
  for ((b = 0; b < n / 100; b++)); do
    printf 'INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, event_version, payload, status, created_at) VALUES '
    for ((i = 0; i < 100; i++)); do
      k=$((b * 100 + i))
      [ "$i" = 0 ] || printf ','
      printf "('e-%032d','order','agg-%d','ORDER_CHANGED',%d,JSON_OBJECT('k',%d,'pad',REPEAT('x',%d)),'PENDING',CURRENT_TIMESTAMP(6))" \
        "$k" $((k % aggregates)) $((k / aggregates + 1)) "$k" "$pad"
    done
    printf ';\n'
  done
}
