#!/usr/bin/env bash
# What relaying costs the primary database against what writing cost it (issue 30's table),
# measured from outside: the server's own CPU seconds (/proc/<pid>/stat, user + system) and its
# binary log's growth (SHOW BINARY LOGS), over a foreign writer's INSERTs (100 events a
# statement, 600-byte payloads, AGGREGATES of N/AGGREGATES versions) and then over one relay's
# drain of them (default config, the mock cluster). The relay runs twice per run on the same
# data, relay.binlog_row_image: server (the server's FULL image) and minimal, so the ratios of
# the two come from the same run. Profiles: durable (innodb_flush_log_at_trx_commit=1,
# sync_binlog=1) and tuned (2, 0), set for the run and put back. Each phase's figure includes
# the purge of what it left behind (it waits for the history list to shrink back), and the
# wait for the drain asks one index entry, not a count. Medians of RUNS.
# Assumes the build (scripts/build.sh build) and the test servers (scripts/local-mariadb.sh /
# local-mysql.sh start .local/test-*); their accounts may set binlog_row_image.
#   bench/primary-cost.sh [N=20000] [RUNS=3] [SERVERS="mariadb mysql"] [AGGREGATES=1000]
# OUTBOX_RELAY_BIN runs another build of the relay (an A/B of two commits on the same data);
# OUTBOX_COST_PAD=20 writes small events instead (primary-cost-lib.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20000}
runs=${2:-3}
servers=${3:-mariadb mysql}
aggregates=${4:-1000}
relay_bin=${OUTBOX_RELAY_BIN:-$root/build/src/relay/outbox-relay}
work=$(mktemp -d /tmp/outbox-primary-cost.XXXXXX)
broker_pid=
cleanup() {
  [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=bench/primary-cost-lib.sh
source "$root/bench/primary-cost-lib.sh"

# The mock cluster, fed a stdin that stays open (it reads commands from it).
mkfifo "$work/broker.in"
"$root/build/src/tools/test_broker/outbox-test-broker" --brokers 3 --partitions 8 \
  --topic outbox.order <"$work/broker.in" >"$work/broker.out" 2>&1 &
broker_pid=$!
exec 9>"$work/broker.in"
for _ in $(seq 100); do grep -q '^bootstrap=' "$work/broker.out" && break; sleep 0.1; done
bootstrap=$(sed -n 's/^bootstrap=//p' "$work/broker.out")
writer_inserts "$n" "$aggregates" >"$work/insert.sql"

echo "| server | profile | per event | writer's INSERTs | relay, server's image | relay, MINIMAL | server's / writer | MINIMAL / writer |"
echo "|---|---|---|---|---|---|---|---|"
for server in $servers; do
  use_server "$server"
  binlog() { "${client[@]}" -N -e "SHOW BINARY LOGS" | awk '{s += $2} END {print s}'; }
  for profile in durable tuned; do
    use_profile "$profile"
    : >"$work/figures"
    for run in $(seq "$runs"); do
      db=primary_cost_$$_$run
      fresh_database "$db"
      idle=$(history_length)
      c0=$(server_cpu); b0=$(binlog)
      "${client[@]}" "$db" <"$work/insert.sql"
      await_purge "$idle"
      c1=$(server_cpu); b1=$(binlog)
      line="$(ms_per_1k "$c0" "$c1" "$n") $(awk -v b="$((b1 - b0))" -v n="$n" 'BEGIN {printf "%f", b / n}')"
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
        await_purge "$idle"
        c2=$(server_cpu); b2=$(binlog)
        "$relay_bin" --config "$work/relay.yaml" >"$work/relay-$image.log" 2>&1 &
        relay=$!
        # Drained: no row left in a status before PUBLISHED (one entry of each range).
        until [ "$("${client[@]}" -N "$db" -e "SELECT COUNT(*) FROM (SELECT 1 FROM outbox_event FORCE INDEX (idx_outbox_due) WHERE status IN ('PENDING', 'PUBLISHING', 'RETRY', 'BLOCKED') LIMIT 1) unpublished")" = 0 ]; do
          sleep 0.2
        done
        kill "$relay"; wait "$relay" || true
        await_purge "$idle"
        c3=$(server_cpu); b3=$(binlog)
        line="$line $(ms_per_1k "$c2" "$c3" "$n") $(awk -v b="$((b3 - b2))" -v n="$n" 'BEGIN {printf "%f", b / n}')"
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
  restore_server
done
