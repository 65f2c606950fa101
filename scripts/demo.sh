#!/usr/bin/env bash
# The demo, from a fresh Debian bookworm machine as root: installs packages, builds, starts a
# private MariaDB (data under .local/) and the test broker, applies sql/, and runs the whole
# chain with live progress: the writer (outbox-loadgen: order + event in one transaction) ->
# the relay (outbox-relay) -> the consumer (notification-planner: one notification_job per
# event). Then it proves with kcat that every event arrived, and with SQL that every order got
# exactly one notification job.
#   scripts/demo.sh [ORDERS] [RATE_PER_SECOND]      (default 20000 orders at 2000/s)
# The embedded default broker is librdkafka's mock cluster (no JVM, starts at once).
# OUTBOX_DEMO_KAFKA=real runs the same chain on a real Apache Kafka cluster instead: 3 KRaft
# nodes on loopback (scripts/kafka-cluster.sh; the broker comes from Maven Central into .local/
# once, which needs OpenJDK 17 and Maven), replication factor 3, min.insync.replicas 2.
# OUTBOX_DEMO_KAFKA=real-sasl: that cluster with its client listener on SASL_SSL (TLS with a CA
# the script makes, SCRAM-SHA-512, or PLAIN where the system's librdkafka is older than 2.6.1;
# scripts/kafka-cluster.sh says why); the relay and notification-planner read the password from
# the cluster's password file (kafka.property_files), kcat uses the same credentials.
# OUTBOX_DEMO_DB=mysql runs it on MySQL 9.7 instead of MariaDB 10.11 (scripts/local-mysql.sh:
# Debian sid's mysql-server-core in a private root under .local/, made once with mmdebstrap).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
orders=${1:-20000}
rate=${2:-2000}
work=$root/.local/demo
mkdir -p "$work"
kafka=${OUTBOX_DEMO_KAFKA:-mock}
[[ $kafka == mock || $kafka == real || $kafka == real-sasl ]] || {
  echo "OUTBOX_DEMO_KAFKA must be mock, real or real-sasl, not '$kafka'" >&2
  exit 64
}
db=${OUTBOX_DEMO_DB:-mariadb}
[[ $db == mariadb || $db == mysql ]] || {
  echo "OUTBOX_DEMO_DB must be mariadb or mysql, not '$db'" >&2
  exit 64
}
db_dir=$root/.local/demo-$db

"$root/scripts/deps.sh"
echo "==> building"
"$root/scripts/build.sh" "$root/build" >"$work/build.log" 2>&1 || {
  tail -30 "$work/build.log"
  exit 1
}
bin=$root/build/src

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$root/scripts/local-$db.sh" stop "$db_dir"
  if [[ $kafka != mock ]]; then "$root/scripts/kafka-cluster.sh" stop "$work/kafka" || true; fi
}
trap cleanup EXIT

"$root/scripts/local-$db.sh" start "$db_dir"
# shellcheck disable=SC1091
source "$db_dir/env"
sql=(mariadb --no-defaults -h"$OUTBOX_MYSQL_HOST" -P"$OUTBOX_MYSQL_PORT" -u"$OUTBOX_MYSQL_USER"
  -p"$OUTBOX_MYSQL_PASSWORD")
"${sql[@]}" -e 'DROP DATABASE IF EXISTS demo'
"$root/scripts/apply-migrations.sh" demo -h"$OUTBOX_MYSQL_HOST" -P"$OUTBOX_MYSQL_PORT" \
  -u"$OUTBOX_MYSQL_USER" -p"$OUTBOX_MYSQL_PASSWORD"
echo "==> schema applied to database demo"

# What a client of the cluster needs besides its address: nothing (mock, real), or the SASL_SSL
# settings (real-sasl): kafka.properties lines, the kafka.property_files section, kcat's flags.
kafka_properties=""
kafka_property_files=""
kcat_security=()
if [[ $kafka == real || $kafka == real-sasl ]]; then
  security=plaintext
  [[ $kafka == real-sasl ]] && security=sasl_ssl
  "$root/scripts/kafka-cluster.sh" fetch
  rm -rf "$work/kafka"
  bootstrap=$(OUTBOX_KAFKA_SECURITY=$security "$root/scripts/kafka-cluster.sh" start "$work/kafka" |
    tail -1)
  for topic in outbox.order outbox.order.dead-letter; do
    "$root/scripts/kafka-cluster.sh" create-topic "$work/kafka" "$topic" 8
  done
  if [[ $security == sasl_ssl ]]; then
    # shellcheck disable=SC1091
    source "$work/kafka/env"
    kafka_properties="  properties:
    security.protocol: SASL_SSL
    sasl.mechanisms: $OUTBOX_KAFKA_SASL_MECHANISM
    sasl.username: $OUTBOX_KAFKA_SASL_USERNAME
    ssl.ca.location: $OUTBOX_KAFKA_CA"
    kafka_property_files="  property_files:
    sasl.password: $OUTBOX_KAFKA_SASL_PASSWORD_FILE"
    kcat_security=(-q -F "$work/kafka/kcat.conf")  # -q first: no "Reading configuration" line
    echo "==> real Kafka cluster, SASL_SSL ($OUTBOX_KAFKA_SASL_MECHANISM over TLS, user" \
      "$OUTBOX_KAFKA_SASL_USERNAME, CA $OUTBOX_KAFKA_CA; logs under $work/kafka) at $bootstrap"
  else
    echo "==> real Kafka cluster (3 KRaft nodes, logs under $work/kafka) at $bootstrap"
  fi
else
  "$bin/tools/test_broker/outbox-test-broker" --brokers 3 --partitions 8 --topic outbox.order \
    --topic outbox.order.dead-letter --control "$work/broker.sock" >"$work/broker.log" 2>&1 \
    </dev/null &
  pids+=($!)
  for _ in $(seq 1 100); do grep -q bootstrap= "$work/broker.log" && break; sleep 0.1; done
  bootstrap=$(sed -n 's/^bootstrap=//p' "$work/broker.log")
  echo "==> test broker (librdkafka mock cluster, 3 brokers) at $bootstrap"
fi

# Both programs read the server's address and credentials from the environment (\${VAR}).
mysql_section='mysql:
  host: ${OUTBOX_MYSQL_HOST}
  port: ${OUTBOX_MYSQL_PORT}
  user: ${OUTBOX_MYSQL_USER}
  password: ${OUTBOX_MYSQL_PASSWORD}
  database: demo'
cat >"$work/relay.yaml" <<YAML
$mysql_section
kafka:
  bootstrap_servers: $bootstrap
$kafka_properties
$kafka_property_files
relay:
  workers: 2
log:
  stats_interval: 5s
YAML
"$bin/relay/outbox-relay" --check-config "$work/relay.yaml"

cat >"$work/planner.yaml" <<YAML
$mysql_section
kafka:
  bootstrap_servers: $bootstrap
  topics: [outbox.order]
$kafka_properties
$kafka_property_files
consumer:
  name: notification-planner
  dead_letter_topic: outbox.order.dead-letter
log:
  stats_interval: 5s
YAML
planner_bin=$bin/consumer/notification_planner/notification-planner
"$planner_bin" --check-config "$work/planner.yaml"
echo "==> starting notification-planner (log: $work/planner.log)"
"$planner_bin" --config "$work/planner.yaml" >"$work/planner.log" 2>&1 &
planner=$!
pids+=($planner)

echo "==> writing $orders orders (order row + outbox event, one transaction each) at $rate/s"
"$bin/tools/loadgen/outbox-loadgen" --host "$OUTBOX_MYSQL_HOST" --port "$OUTBOX_MYSQL_PORT" \
  --user "$OUTBOX_MYSQL_USER" --password "$OUTBOX_MYSQL_PASSWORD" --database demo \
  --orders "$orders" --rate "$rate" >"$work/loadgen.log" 2>&1 &
loadgen=$!
pids+=($loadgen)

echo "==> starting outbox-relay (log: $work/relay.log)"
"$bin/relay/outbox-relay" --config "$work/relay.yaml" >"$work/relay.log" 2>&1 &
relay=$!
pids+=($relay)

count() { "${sql[@]}" -N -B demo -e "$1"; }
last=0
printf '%8s %10s %10s %10s %10s %10s\n' time written published jobs backlog published/s
for t in $(seq 1 600); do
  sleep 1
  read -r written published backlog jobs < <(count "SELECT COUNT(*), COALESCE(SUM(status = 'PUBLISHED'), 0), COALESCE(SUM(status <> 'PUBLISHED'), 0), (SELECT COUNT(*) FROM notification_job) FROM outbox_event")
  printf '%7ss %10s %10s %10s %10s %10s\n' "$t" "$written" "$published" "$jobs" "$backlog" $((published - last))
  last=$published
  if ! kill -0 "$loadgen" 2>/dev/null && [[ $published == "$orders" && $jobs == "$orders" ]]; then break; fi
  kill -0 "$relay" 2>/dev/null || { echo "relay exited unexpectedly:"; tail -20 "$work/relay.log"; exit 1; }
  kill -0 "$planner" 2>/dev/null || { echo "notification-planner exited unexpectedly:"; tail -20 "$work/planner.log"; exit 1; }
done
wait "$loadgen" || { echo "load generator failed:"; tail "$work/loadgen.log"; exit 1; }
echo "    loadgen: $(tail -1 "$work/loadgen.log")"

echo "==> draining the relay and notification-planner (SIGTERM)"
kill -TERM "$relay" "$planner"
wait "$relay" && echo "    relay exited 0"
wait "$planner" && echo "    notification-planner exited 0"

echo "==> verifying with kcat (an independent Kafka client)"
kcat ${kcat_security[@]+"${kcat_security[@]}"} -b "$bootstrap" -C -t outbox.order -o beginning -e -q \
  -f '%h\n' |
  sed -n 's/.*event_id=\([^,]*\).*/\1/p' | sort >"$work/kafka-event-ids"
count "SELECT event_id FROM outbox_event" | sort >"$work/db-event-ids"
on_kafka=$(wc -l <"$work/kafka-event-ids")
distinct=$(uniq <"$work/kafka-event-ids" | wc -l)
missing=$(comm -23 "$work/db-event-ids" <(uniq "$work/kafka-event-ids") | wc -l)
orders_rows=$(count "SELECT COUNT(*) FROM orders")
jobs=$(count "SELECT COUNT(*) FROM notification_job")
# A job counts only if it belongs to its order: the order's acceptance event, its id, version.
matching=$(count "SELECT COUNT(*) FROM orders o JOIN notification_job j ON j.event_id = o.acceptance_event_id AND j.order_id = o.id AND j.source_version = o.version")
consumed=$(count "SELECT COUNT(*) FROM consumed_event WHERE consumer_name = 'notification-planner'")
dead=$(kcat ${kcat_security[@]+"${kcat_security[@]}"} -b "$bootstrap" -C -t outbox.order.dead-letter -o beginning -e -q -f 'x\n' | wc -l)
echo "    orders committed:          $orders_rows"
echo "    outbox events PUBLISHED:   $(count "SELECT COUNT(*) FROM outbox_event WHERE status = 'PUBLISHED'")"
echo "    messages on outbox.order:  $on_kafka ($distinct distinct event ids, $((on_kafka - distinct)) duplicates)"
echo "    events missing on Kafka:   $missing"
echo "    notification jobs:         $jobs ($matching matching their order; consumed_event rows: $consumed)"
echo "    dead letters:              $dead"
if [[ $missing == 0 && $distinct == "$orders_rows" && $jobs == "$orders_rows" && $matching == "$orders_rows" && $dead == 0 ]]; then
  echo "==> OK: every committed event is on Kafka, and every order has exactly one notification job"
else
  echo "==> FAILED: see $work"
  exit 1
fi
