#!/usr/bin/env bash
# outboxctl replay's pace on a real 3-node Kafka cluster, on MariaDB and on MySQL: N PUBLISHED
# events (600-byte payloads, 1,000 aggregates) replayed with no limit (--rate 0), then with
# --rate R; each RUNS times, medians printed, with the paced run's rate as a ratio of its limit
# (the limit holds: about 1.00) and of the unpaced rate measured in the same run (the share of
# the brokers a paced replay leaves to the live flow). Every replayed message is counted back
# with kcat. Assumes the build (scripts/build.sh build), the test servers
# (scripts/local-mariadb.sh / local-mysql.sh start .local/test-*) and the broker
# (scripts/kafka-cluster.sh fetch).
#   bench/replay.sh [N=20000] [R=2000] [RUNS=3]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20000}
rate=${2:-2000}
runs=${3:-3}
outboxctl=$root/build/src/tools/outboxctl/outboxctl
work=$(mktemp -d /tmp/outbox-replay-bench.XXXXXX)
cleanup() { "$root/scripts/kafka-cluster.sh" stop "$work/kafka" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

"$root/scripts/kafka-cluster.sh" start "$work/kafka" >/dev/null
# shellcheck disable=SC1091
source "$work/kafka/env"
topic_number=0

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for server in mariadb mysql; do
  # shellcheck disable=SC1090
  source "$root/.local/test-$server/env"
  client=(mariadb -h "$OUTBOX_MYSQL_HOST" -P "$OUTBOX_MYSQL_PORT" -u "$OUTBOX_MYSQL_USER" "-p$OUTBOX_MYSQL_PASSWORD")
  db=replay_bench_$$
  "${client[@]}" -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
  "$root/scripts/apply-migrations.sh" "$db" -h "$OUTBOX_MYSQL_HOST" -P "$OUTBOX_MYSQL_PORT" \
    -u "$OUTBOX_MYSQL_USER" "-p$OUTBOX_MYSQL_PASSWORD" >/dev/null
  digits="(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"
  "${client[@]}" "$db" -e "INSERT INTO outbox_event (event_id, aggregate_type, aggregate_id,
      event_type, event_version, payload, status, created_at, published_at)
    SELECT CONCAT('rpl-', LPAD(s, 32, '0')), 'order', CONCAT('agg-', s % 1000), 'ORDER_CHANGED',
      s DIV 1000 + 1, JSON_OBJECT('s', s, 'pad', REPEAT('x', 580)), 'PUBLISHED',
      CURRENT_TIMESTAMP(6) - INTERVAL 1 HOUR + INTERVAL s MICROSECOND, CURRENT_TIMESTAMP(6)
    FROM (SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d AS s
          FROM $digits a, $digits b, $digits c, $digits e, $digits f) seq WHERE s < $n"
  server_version=$("${client[@]}" -N -e "SELECT VERSION()")
  unpaced=()
  paced=()
  for run in $(seq "$runs"); do
    for limit in 0 "$rate"; do
      topic_number=$((topic_number + 1))
      topic=replay.bench$topic_number
      "$root/scripts/kafka-cluster.sh" create-topic "$work/kafka" "$topic" 8 >/dev/null
      cat >"$work/relay.yaml" <<EOF
mysql:
  host: $OUTBOX_MYSQL_HOST
  port: $OUTBOX_MYSQL_PORT
  user: $OUTBOX_MYSQL_USER
  password: $OUTBOX_MYSQL_PASSWORD
  database: $db
kafka:
  bootstrap_servers: $OUTBOX_KAFKA_BOOTSTRAP
  topic: $topic
EOF
      answer=$("$outboxctl" --config "$work/relay.yaml" --json replay --since 2h --rate "$limit")
      delivered=$(jq -r .delivered <<<"$answer")
      seconds=$(jq -r .seconds <<<"$answer")
      on_topic=$(kcat -C -b "$OUTBOX_KAFKA_BOOTSTRAP" -t "$topic" -e -q -f '%o\n' | wc -l)
      if [ "$delivered" != "$n" ] || [ "$on_topic" != "$n" ]; then
        echo "run $run rate $limit: delivered $delivered, kcat read $on_topic of $n" >&2
        exit 1
      fi
      per_second=$(awk -v n="$n" -v s="$seconds" 'BEGIN {printf "%.0f", n / s}')
      if [ "$limit" = 0 ]; then unpaced+=("$per_second"); else paced+=("$per_second"); fi
      echo "$server_version run $run --rate $limit: $n events in $seconds s ($per_second/s), kcat read $on_topic" >&2
    done
  done
  "${client[@]}" -e "DROP DATABASE $db"
  u=$(printf '%s\n' "${unpaced[@]}" | median)
  p=$(printf '%s\n' "${paced[@]}" | median)
  printf '| %s | %s | %s/s | %s/s | %.2f | %.2f |\n' "$server_version" "$n" "$u" "$p" \
    "$(awk -v p="$p" -v r="$rate" 'BEGIN {print p / r}')" "$(awk -v p="$p" -v u="$u" 'BEGIN {print p / u}')"
done | { echo "| server | events | --rate 0 (median) | --rate $rate (median) | paced / limit | paced / unpaced |"; echo "|---|---|---|---|---|---|"; cat; }
