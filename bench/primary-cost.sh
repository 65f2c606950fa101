#!/usr/bin/env bash
# What relaying costs the primary database against what writing cost it (issue 30's table),
# measured from outside: the server's own CPU seconds (/proc/<pid>/stat, user + system) and its
# binary log's growth (SHOW BINARY LOGS), over a foreign writer's INSERTs (100 events a
# statement, 600-byte payloads, 1,000 aggregates of N/1,000 versions) and then over one relay's
# drain of them (default config, the mock cluster). The relay runs twice per run on the same
# data, relay.binlog_row_image: server (the server's FULL image) and minimal, so the ratios of
# the two come from the same run. Profiles: durable (innodb_flush_log_at_trx_commit=1,
# sync_binlog=1) and tuned (2, 0), set for the run and put back. Medians of RUNS.
# Assumes the build (scripts/build.sh build) and the test servers (scripts/local-mariadb.sh /
# local-mysql.sh start .local/test-*); their accounts may set binlog_row_image.
#   bench/primary-cost.sh [N=20000] [RUNS=3] [SERVERS="mariadb mysql"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20000}
runs=${2:-3}
servers=${3:-mariadb mysql}
work=$(mktemp -d /tmp/outbox-primary-cost.XXXXXX)
broker_pid=
cleanup() {
  [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# The mock cluster, fed a stdin that stays open (it reads commands from it).
mkfifo "$work/broker.in"
"$root/build/src/tools/test_broker/outbox-test-broker" --brokers 3 --partitions 8 \
  --topic outbox.order <"$work/broker.in" >"$work/broker.out" 2>&1 &
broker_pid=$!
exec 9>"$work/broker.in"
for _ in $(seq 100); do grep -q '^bootstrap=' "$work/broker.out" && break; sleep 0.1; done
bootstrap=$(sed -n 's/^bootstrap=//p' "$work/broker.out")

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

echo "| server | profile | per event | writer's INSERTs | relay, server's image | relay, MINIMAL | server's / writer | MINIMAL / writer |"
echo "|---|---|---|---|---|---|---|---|"
for server in $servers; do
  # shellcheck disable=SC1090
  source "$root/.local/test-$server/env"
  client=(mariadb -h "$OUTBOX_MYSQL_HOST" -P "$OUTBOX_MYSQL_PORT" -u "$OUTBOX_MYSQL_USER" "-p$OUTBOX_MYSQL_PASSWORD")
  pid=$(cat "$OUTBOX_MYSQL_PID_FILE")
  version=$("${client[@]}" -N -e "SELECT VERSION()")
  read -r flush sync <<<"$("${client[@]}" -N -e "SELECT @@innodb_flush_log_at_trx_commit, @@sync_binlog")"
  cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
  binlog() { "${client[@]}" -N -e "SHOW BINARY LOGS" | awk '{s += $2} END {print s}'; }
  for profile in durable tuned; do
    if [ "$profile" = durable ]; then
      "${client[@]}" -e "SET GLOBAL innodb_flush_log_at_trx_commit = 1, GLOBAL sync_binlog = 1"
    else
      "${client[@]}" -e "SET GLOBAL innodb_flush_log_at_trx_commit = 2, GLOBAL sync_binlog = 0"
    fi
    : >"$work/figures"
    for run in $(seq "$runs"); do
      db=primary_cost_$$_$run
      "${client[@]}" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
      "$root/scripts/apply-migrations.sh" "$db" -h "$OUTBOX_MYSQL_HOST" -P "$OUTBOX_MYSQL_PORT" \
        -u "$OUTBOX_MYSQL_USER" "-p$OUTBOX_MYSQL_PASSWORD" >/dev/null
      # The writer: N events, 100 a statement (a transaction each: autocommit).
      for ((b = 0; b < n / 100; b++)); do
        printf 'INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id, event_type, event_version, payload, status, created_at) VALUES '
        for ((i = 0; i < 100; i++)); do
          k=$((b * 100 + i))
          [ "$i" = 0 ] || printf ','
          printf "('e-%032d','order','agg-%d','ORDER_CHANGED',%d,JSON_OBJECT('k',%d,'pad',REPEAT('x',580)),'PENDING',CURRENT_TIMESTAMP(6))" \
            "$k" $((k % 1000)) $((k / 1000 + 1)) "$k"
        done
        printf ';\n'
      done >"$work/insert.sql"
      c0=$(cpu); b0=$(binlog)
      "${client[@]}" "$db" <"$work/insert.sql"
      c1=$(cpu); b1=$(binlog)
      line="$(awk -v c="$((c1 - c0))" -v b="$((b1 - b0))" -v n="$n" -v hz="$(getconf CLK_TCK)" \
        'BEGIN {printf "%f %f", c / hz / n * 1e6, b / n}')"
      for image in server minimal; do
        "${client[@]}" "$db" -e "UPDATE outbox_event SET status = 'PENDING', lease_owner = NULL, lease_until = NULL, published_at = NULL, published_by = NULL, next_attempt_at = NULL, attempts = 0"
        cat >"$work/relay.yaml" <<EOF
mysql:
  host: $OUTBOX_MYSQL_HOST
  port: $OUTBOX_MYSQL_PORT
  user: $OUTBOX_MYSQL_USER
  password: $OUTBOX_MYSQL_PASSWORD
  database: $db
kafka:
  bootstrap_servers: $bootstrap
relay:
  binlog_row_image: $image
metrics:
  listen: ""
EOF
        chmod 600 "$work/relay.yaml"
        c2=$(cpu); b2=$(binlog)
        "$root/build/src/relay/outbox-relay" --config "$work/relay.yaml" >"$work/relay-$image.log" 2>&1 &
        relay=$!
        until [ "$("${client[@]}" -N "$db" -e "SELECT COUNT(*) FROM outbox_event WHERE status = 'PUBLISHED'")" = "$n" ]; do
          sleep 0.2
        done
        c3=$(cpu); b3=$(binlog)
        kill "$relay"; wait "$relay" || true
        line="$line $(awk -v c="$((c3 - c2))" -v b="$((b3 - b2))" -v n="$n" -v hz="$(getconf CLK_TCK)" \
          'BEGIN {printf "%f %f", c / hz / n * 1e6, b / n}')"
      done
      echo "$line" >>"$work/figures"
      echo "$version $profile run $run: writer CPU us/event, binlog B/event; relay server's; relay MINIMAL: $line" >&2
      "${client[@]}" -e "DROP DATABASE $db"
    done
    # Columns: writer cpu, writer binlog, relay server's cpu, binlog, relay minimal cpu, binlog.
    m() { awk -v c="$1" '{print $c}' "$work/figures" | median; }
    wc=$(m 1); wb=$(m 2); sc=$(m 3); sb=$(m 4); mc=$(m 5); mb=$(m 6)
    printf '| %s | %s | server CPU ms per 1k | %.0f | %.0f | %.0f | %s | %s |\n' "$version" "$profile" \
      "$wc" "$sc" "$mc" "$(ratio "$sc" "$wc")" "$(ratio "$mc" "$wc")"
    printf '| %s | %s | binary log bytes | %.0f | %.0f | %.0f | %s | %s |\n' "$version" "$profile" \
      "$wb" "$sb" "$mb" "$(ratio "$sb" "$wb")" "$(ratio "$mb" "$wb")"
  done
  "${client[@]}" -e "SET GLOBAL innodb_flush_log_at_trx_commit = $flush, GLOBAL sync_binlog = $sync"
done
