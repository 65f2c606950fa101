#!/usr/bin/env bash
# Debezium for the benchmark's side-by-side comparison (outbox-bench --debezium): Kafka Connect
# in standalone mode with Debezium's MariaDB connector (its MySQL connector on a MySQL server)
# and Outbox Event Router, resolved by Maven from bench/anchors/debezium/pom.xml into .local/
# (reused when present). Benchmark tooling only: nothing of it ships.
#
#   debezium.sh fetch                        resolve the pinned worker and plugin (prints its time)
#   debezium.sh connect WORKER CONNECTOR     exec a Connect standalone worker: what Kafka's
#                                            bin/connect-standalone.sh runs (its JVM options,
#                                            its heap), WORKER/CONNECTOR: .properties files
#   debezium.sh plugin-path                  the directory to name in the worker's plugin.path
#   debezium.sh version                      the pinned Debezium and Connect versions
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
pom=$here/pom.xml
debezium_version=$(sed -n 's:.*<debezium.version>\(.*\)</debezium.version>.*:\1:p' "$pom")
connect_version=$(sed -n 's:.*<connect.version>\(.*\)</connect.version>.*:\1:p' "$pom")
cache=$root/.local/debezium-$debezium_version-connect-$connect_version

die() {
  echo "debezium: $*" >&2
  exit 1
}

copy_profile() {
  # $1: Maven profile, $2: output directory, the rest: extra copy-dependencies options.
  local profile=$1 out=$2
  shift 2
  mvn -q -B -f "$pom" -P "$profile" -Dmaven.repo.local="$root/.local/maven" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$out" "$@" \
    >>"$cache/fetch.log" 2>&1 || {
    cat "$cache/fetch.log" >&2
    die "mvn could not resolve profile $profile of $pom (log above)"
  }
}

# One comparison runs at a time (scripts/test.sh fetches before its tests start), so unlike the
# broker's fetch this one takes no lock.
fetch() {
  # complete-2: the cache holds both connectors (a cache made before MySQL's is fetched again).
  [[ -f $cache/complete-2 ]] && return 0
  command -v mvn >/dev/null || die "mvn not found (install maven and OpenJDK 17)"
  local started=$SECONDS
  echo "==> fetching Kafka Connect $connect_version and Debezium $debezium_version with Maven into $cache" >&2
  rm -rf "$cache"
  mkdir -p "$cache"
  copy_profile connect "$cache/worker"
  # The plugin directory holds the connector and its own dependencies; the worker provides
  # the Kafka jars (Connect loads org.apache.kafka classes from the worker in any case).
  copy_profile plugin "$cache/plugins/debezium-connector-mariadb" -DexcludeGroupIds=org.apache.kafka
  copy_profile plugin-mysql "$cache/plugins/debezium-connector-mysql" -DexcludeGroupIds=org.apache.kafka
  touch "$cache/complete-2"
  echo "==> Debezium fetched in $((SECONDS - started)) s" >&2
}

connect() {
  local worker=${1:?WORKER properties} connector=${2:?CONNECTOR properties}
  fetch
  # bin/connect-standalone.sh: KAFKA_HEAP_OPTS "-Xms256M -Xmx2G"; bin/kafka-run-class.sh:
  # KAFKA_JVM_PERFORMANCE_OPTS. plugin.path (in WORKER) is $cache/plugins.
  exec java -Xms256M -Xmx2G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
    -XX:MaxInlineLevel=15 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$here/log4j2-connect.properties" \
    -cp "$cache/worker/*" org.apache.kafka.connect.cli.ConnectStandalone "$worker" "$connector"
}

case ${1:?fetch|connect|version} in
  fetch) fetch ;;
  connect) connect "${2:-}" "${3:-}" ;;
  plugin-path) echo "$cache/plugins" ;;
  version) echo "Debezium $debezium_version, Kafka Connect $connect_version" ;;
  *) die "unknown command $1" ;;
esac
