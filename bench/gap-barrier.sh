#!/usr/bin/env bash
# An experiment for the design a relay without a write per event would need (issue 30,
# docs/operating.md "Where the CPU goes"): progress kept as a position in an AUTO_INCREMENT
# sequence, so the relay must know when a hole below a committed position can no longer fill.
# It checks, on each test server, the two claims that design rests on:
#   1. a locking read of a hole does not tell: a multi-row INSERT gets all its values when it
#      starts and inserts its rows one by one, so a hole whose row is not inserted yet reads
#      empty at once (and fills later), while one whose row is inserted and uncommitted waits;
#   2. a barrier does: the writer's transaction is in information_schema.INNODB_TRX while any
#      of its values is a hole, and once it is gone every hole it could fill is filled.
# A BEFORE INSERT trigger sleeps before the second row, which holds the multi-row INSERT
# between its rows long enough to look; a second writer commits a higher value meanwhile.
# Assumes the test servers (scripts/local-mariadb.sh / local-mysql.sh start .local/test-*).
#   bench/gap-barrier.sh [SERVERS="mariadb mysql"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
servers=${1:-mariadb mysql}
# shellcheck source=bench/primary-cost-lib.sh
source "$root/bench/primary-cost-lib.sh"
database=outbox_gap_barrier

sql() { "${client[@]}" -N "$database" -e "$1"; }

# Polls (up to 10 s) until the query prints what is expected.
await_sql() {
  local query=$1 expected=$2 i
  for ((i = 0; i < 100; i++)); do
    [ "$(sql "$query")" = "$expected" ] && return 0
    sleep 0.1
  done
  echo "gave up waiting for '$query' to print '$expected' (it printed '$(sql "$query")')" >&2
  return 1
}

fail=0
check() { # check WHAT EXPECTED ACTUAL
  local verdict=ok
  [ "$2" = "$3" ] || { verdict=FAILED; fail=1; }
  printf '| %s | %s | %s | %s | %s |\n' "$server" "$1" "$2" "$3" "$verdict"
}

echo "| server | what | expected | seen | |"
echo "|---|---|---|---|---|"
for server in $servers; do
  use_server "$server"
  "${client[@]}" -e "DROP DATABASE IF EXISTS $database; CREATE DATABASE $database"
  sql "CREATE TABLE gap_probe (seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB"
  # The writer's second row waits 4 s before it is inserted; its values are all allocated.
  sql "CREATE TRIGGER gap_probe_pause BEFORE INSERT ON gap_probe FOR EACH ROW DO IF(NEW.v = 2, SLEEP(4), 0)"
  "${client[@]}" "$database" -e "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; BEGIN; INSERT INTO gap_probe (v) VALUES (1), (2), (3); COMMIT" &
  writer=$!
  # The writer holds its transaction open (it is in INNODB_TRX) with row 1 inserted.
  await_sql "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_rows_modified > 0" 1
  # Another writer commits a higher value: the holes are now below a committed position.
  sql "INSERT INTO gap_probe (v) VALUES (10)"
  check "committed rows while the writer is between its rows" "4" "$(sql "SELECT GROUP_CONCAT(seq ORDER BY seq) FROM gap_probe")"
  # A locking read of hole 2 (allocated, not inserted): empty at once, no lock wait.
  hole2=$(sql "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; SET SESSION innodb_lock_wait_timeout = 1; BEGIN; SELECT COUNT(*) FROM gap_probe WHERE seq = 2 LOCK IN SHARE MODE; COMMIT" 2>&1 || true)
  check "locking read of hole 2 (allocated, not inserted): rows, at once" "0" "$hole2"
  # A locking read of hole 1 (inserted, not committed): waits for the writer (1205 here).
  hole1=$(sql "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED; SET SESSION innodb_lock_wait_timeout = 1; BEGIN; SELECT COUNT(*) FROM gap_probe WHERE seq = 1 LOCK IN SHARE MODE; COMMIT" 2>&1 || true)
  case "$hole1" in *1205*) hole1="lock wait timeout (1205)" ;; esac
  check "locking read of hole 1 (inserted, not committed)" "lock wait timeout (1205)" "$hole1"
  # The barrier: the transactions open now; the holes may be passed once none of them is.
  open=$(sql "SELECT COUNT(*) FROM information_schema.INNODB_TRX")
  check "transactions open after the scan that saw the holes" "1" "$open"
  # An account without PROCESS is refused the list (1227): it cannot run the barrier.
  "${client[@]}" -e "DROP USER IF EXISTS gap_no_process@'%'; CREATE USER gap_no_process@'%' IDENTIFIED BY 'gap'; GRANT SELECT ON $database.* TO gap_no_process@'%'"
  refused=$(mariadb -h "$OUTBOX_MYSQL_HOST" -P "$OUTBOX_MYSQL_PORT" -u gap_no_process -pgap -N \
    -e "SELECT COUNT(*) FROM information_schema.INNODB_TRX" 2>&1 || true)
  case "$refused" in *1227*) refused="refused (1227)" ;; esac
  check "the list for an account without PROCESS" "refused (1227)" "$refused"
  "${client[@]}" -e "DROP USER gap_no_process@'%'"
  await_sql "SELECT COUNT(*) FROM information_schema.INNODB_TRX" 0
  wait "$writer"
  check "rows once the barrier's transactions are gone" "1,2,3,4" "$(sql "SELECT GROUP_CONCAT(seq ORDER BY seq) FROM gap_probe")"
  "${client[@]}" -e "DROP DATABASE $database"
done
exit "$fail"
