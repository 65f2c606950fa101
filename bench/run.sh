#!/usr/bin/env bash
# The benchmark suite in one command, from a fresh Debian bookworm machine as root: installs
# packages (and gnuplot for the plots), builds, starts a private MariaDB for the benchmark
# (data under .local/bench-mariadb, 4 GiB buffer pool) and runs outbox-bench, which starts
# its own test broker (librdkafka's mock cluster) and, for the publish baseline and the drain
# again, a real 3-node Kafka cluster (scripts/kafka-cluster.sh; the broker comes from Maven
# Central into .local/ once). Report and plots: bench/out/ (report.md, *.png).
#   bench/run.sh [--smoke] [--out DIR]     (--smoke: a seconds-long run that only proves the
#                                            suite works)
#   bench/run.sh --debezium [--smoke] [--out DIR]
#                                           the relay side by side with Debezium (Kafka Connect
#                                           standalone, bench/anchors/debezium/) on a real 3-node
#                                           Kafka cluster; report in bench/out/debezium/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

"$root/scripts/deps.sh" gnuplot-nox
# The broker and Debezium come from Maven Central into .local/ (once; reused after).
"$root/scripts/kafka-cluster.sh" fetch
if [[ " $* " == *" --debezium "* ]]; then
  "$root/bench/anchors/debezium/debezium.sh" fetch
fi
echo "==> building"
"$root/scripts/build.sh" "$root/build" >/dev/null

db_dir=$root/.local/bench-mariadb
OUTBOX_MARIADB_BUFFER_POOL=4G "$root/scripts/local-mariadb.sh" start "$db_dir"
trap '"$root/scripts/local-mariadb.sh" stop "$db_dir"' EXIT
# shellcheck disable=SC1091
source "$db_dir/env"

cd "$root"
time "$root/build/bench/outbox-bench" "$@"
