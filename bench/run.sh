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
# OUTBOX_BENCH_DB=mysql runs it on MySQL 9.7 (scripts/local-mysql.sh, .local/bench-mysql)
# instead of MariaDB 10.11; so do the single sections, e.g.
#   OUTBOX_BENCH_DB=mysql bench/run.sh protocols 3
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

db=${OUTBOX_BENCH_DB:-mariadb}
[[ $db == mariadb || $db == mysql ]] || {
  echo "OUTBOX_BENCH_DB must be mariadb or mysql, not '$db'" >&2
  exit 64
}
db_dir=$root/.local/bench-$db
OUTBOX_DB_BUFFER_POOL=4G "$root/scripts/local-$db.sh" start "$db_dir"
trap '"$root/scripts/local-$db.sh" stop "$db_dir"' EXIT
# shellcheck disable=SC1091
source "$db_dir/env"

cd "$root"
time "$root/build/bench/outbox-bench" "$@"
