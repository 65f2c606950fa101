#!/usr/bin/env bash
# The whole test suite, from a fresh Debian bookworm machine as root: installs packages,
# checks formatting, builds twice (plain, and ASan+UBSan), fetches the Kafka broker and
# Debezium (Maven Central, once), starts a private MariaDB, and runs every test with ctest
# against it, against mock clusters and against real 3-node Kafka clusters the tests start
# themselves.
#   scripts/test.sh [ctest args...]     e.g. scripts/test.sh -L unit
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
started=$SECONDS
phase() { echo "==> [$((SECONDS - started)) s] $*"; }

"$root/scripts/deps.sh"

phase "clang-format"
mapfile -t sources < <(cd "$root" && git ls-files '*.cpp' '*.hpp' 2>/dev/null ||
  find src tests -name '*.cpp' -o -name '*.hpp')
(cd "$root" && clang-format --dry-run --Werror "${sources[@]}")

phase "building (warnings are errors)"
"$root/scripts/build.sh" "$root/build" >/dev/null
phase "building with AddressSanitizer + UndefinedBehaviorSanitizer"
# Without the benchmark suite: its smoke run asserts no speed, so the plain build's covers it.
"$root/scripts/build.sh" "$root/build-asan" -DOUTBOX_SANITIZE=ON -DOUTBOX_BENCH=OFF >/dev/null

phase "fetching the Kafka broker for the real-cluster tests (cached under .local/)"
"$root/scripts/kafka-cluster.sh" fetch
phase "fetching Debezium and Kafka Connect for the comparison's smoke run (cached under .local/)"
"$root/bench/anchors/debezium/debezium.sh" fetch

db_dir=$root/.local/test-mariadb
"$root/scripts/local-mariadb.sh" start "$db_dir"
trap '"$root/scripts/local-mariadb.sh" stop "$db_dir"' EXIT
# shellcheck disable=SC1091
source "$db_dir/env"

phase "tests"
ctest --test-dir "$root/build" -j"$jobs" --output-on-failure "$@"

phase "tests under ASan + UBSan"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:suppressions=$root/tests/sanitizer/lsan.supp
export LSAN_OPTIONS=suppressions=$root/tests/sanitizer/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The packaging checks (label deploy) run no code of ours worth instrumenting, and the
# verifier's chaos soak and self-test repeat under faults what its seven windows cover: the
# plain build runs them, this one keeps CI's time in bounds.
ctest --test-dir "$root/build-asan" -j"$jobs" --output-on-failure -LE deploy \
  -E 'verify: ?(a short chaos soak|a verifier whose duplicate path never ran)' "$@"
phase "all tests passed"
