#!/usr/bin/env bash
# The whole test suite, from a fresh Debian bookworm machine as root: installs packages,
# checks formatting, builds (Release with the tests; ASan+UBSan with clang; TSan of the
# threaded tests; the libFuzzer targets with clang), compiles the product file by file, runs
# clang-tidy over src/, runs each fuzz target for a bounded time, fetches the Kafka broker and
# Debezium (Maven Central, once) and the test-only Python clients (PyPI, pinned, once),
# starts a private MariaDB 10.11 and a private MySQL 9.7 (Debian sid's, in a private root made
# once under .local/), and runs every test with ctest: each test that talks to a database on
# both servers (its MySQL copy is named "mysql: ..."), against mock clusters and against real
# 3-node Kafka clusters the tests start themselves; then the tests under each sanitizer.
# Warnings are errors in every build.
#   scripts/test.sh [ctest args...]     e.g. scripts/test.sh -L unit
# OUTBOX_FUZZ_SECONDS (default 10) is each fuzz target's time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
# Tests at once: twice the cores. Most tests wait on MariaDB, a broker or a timeout rather than
# compute (measured: the CPU was 65 % idle with one test per core); the real-cluster tests
# share two kafka_clusters (tests/ctest-resources.json, RESOURCE_GROUPS in tests/CMakeLists.txt),
# so no more clusters run at once than before. OUTBOX_TEST_JOBS overrides it.
test_jobs=${OUTBOX_TEST_JOBS:-$((jobs * 2))}
resources=(--resource-spec-file "$root/tests/ctest-resources.json")
started=$SECONDS
fuzz_seconds=${OUTBOX_FUZZ_SECONDS:-10}

# Each phase prints when it starts; the summary at the end lists how long each one took, and
# each ctest run's time per label.
phase_names=()
phase_starts=()
summary_file=$(mktemp)
phase() {
  phase_names+=("$*")
  phase_starts+=("$SECONDS")
  echo "==> [$((SECONDS - started)) s] $*"
}
summary() {
  phase_starts+=("$SECONDS")
  echo "==> time per phase"
  for i in "${!phase_names[@]}"; do
    printf '    %6d s  %s\n' "$((phase_starts[i + 1] - phase_starts[i]))" "${phase_names[i]}"
  done
  printf '    %6d s  total\n' "$((SECONDS - started))"
  cat "$summary_file"
}
# ctest with its output kept for the summary: ctest's "Label Time Summary" (the sum of the
# test times under each label; tests run $test_jobs at a time, so it can exceed the phase's time)
# and the tallies per server: a test named "mysql: ..." ran on MySQL, any other test that talks
# to a database on MariaDB (unit and deploy tests talk to none).
run_ctest() {
  local name=$1
  shift
  local log
  log=$(mktemp)
  local status=0
  ctest "$@" 2>&1 | tee "$log" || status=$?
  {
    echo "==> tests per server: $name"
    tally "$log" '^mysql:' "MySQL $mysql_version"
    tally "$log" '^(integration|kafka|verify|bench):' "MariaDB $mariadb_version"
    tally "$log" '^(unit|deploy):' "no database"
    echo "==> time per label: $name"
    sed -n '/^Label Time Summary:/,/^$/p' "$log" | sed '1d;/^$/d;s/^/    /'
  } >>"$summary_file"
  rm -f "$log"
  return "$status"
}
# "    MySQL 9.7.4: 151 passed, 0 failed" from ctest's result lines ("12/300 Test #45: NAME ...
# Passed") whose test name matches the pattern.
tally() {
  local log=$1 pattern=$2 label=$3
  awk -v pattern="$pattern" -v label="$label" '
    / Test +#[0-9]+: / {
      name = $0
      sub(/^.* Test +#[0-9]+: /, "", name)
      if (name !~ pattern) next
      if ($0 ~ / Passed +[0-9.]+ sec$/) passed++
      else failed++
    }
    END { printf "    %s: %d passed, %d failed\n", label, passed, failed }' "$log"
}
mariadb_version=$(mariadbd --version 2>/dev/null | awk '{print $3}' || true)
mysql_version=unknown

trap 'summary; rm -f "$summary_file"' EXIT

"$root/scripts/deps.sh"

phase "clang-format"
mapfile -t sources < <(cd "$root" && git ls-files '*.cpp' '*.hpp' 2>/dev/null ||
  find src tests -name '*.cpp' -o -name '*.hpp')
(cd "$root" && clang-format --dry-run --Werror "${sources[@]}")

phase "building Release with the tests (warnings are errors)"
"$root/scripts/build.sh" "$root/build" >/dev/null

# The checking builds, one after the other. (Tried: running them at nice 19 beside the tests.
# The plain tests are CPU-bound on two cores and took 1,430 s instead of 1,257 beside them, so
# the suite was 41 s shorter of 2,794, for a script of its own and a wait per sanitizer.)
phase "building with AddressSanitizer + UndefinedBehaviorSanitizer (clang)"
# Without the benchmark suite (its smoke run asserts no speed, so the plain build's covers it),
# and without the test programs this build does not run (labels kafka and deploy, below).
# With clang, as the fuzz targets: built side by side on two cores, these targets took clang 14
# 519 s of CPU and GCC 12 738 s (the GCC warnings stay in the Release and Debug builds), and the
# instrumented tests ran in 206 s instead of 237-258.
"$root/scripts/build.sh" "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DOUTBOX_SANITIZE=ON -DOUTBOX_BENCH=OFF -- unit_tests \
  library_unit_tests integration_tests writer_tests consumer_tests verify_tests outbox-relay \
  outboxctl outbox-verify notification-planner outbox-loadgen outbox-test-broker >/dev/null
phase "building with ThreadSanitizer (the tests that run threads)"
"$root/scripts/build.sh" "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOUTBOX_TSAN=ON \
  -DOUTBOX_BENCH=OFF -- unit_tests integration_tests outbox_c11_threads_for_tsan >/dev/null
# File by file, as a packager's plain cmake build compiles: the other builds use unity sources
# (scripts/build.sh), which can hide a missing #include.
phase "compiling the product file by file (front end only, warnings are errors)"
"$root/scripts/check-file-by-file.sh" "$root/build-debug"
phase "building the fuzz targets (clang, libFuzzer + ASan + UBSan)"
"$root/scripts/build.sh" "$root/build-fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DOUTBOX_FUZZ=ON -DOUTBOX_TESTS=OFF -- fuzz_targets >/dev/null

phase "clang-tidy over src/ (the repo's .clang-tidy; any finding fails)"
"$root/scripts/clang-tidy.sh" "$root/build"

phase "fuzzing: each target ${fuzz_seconds} s on its corpus and regression inputs"
"$root/scripts/fuzz.sh" "$root/build-fuzz" "$fuzz_seconds"

phase "fetching the Kafka broker for the real-cluster tests and making its class archives (cached under .local/)"
"$root/scripts/kafka-cluster.sh" fetch
phase "fetching Debezium and Kafka Connect for the comparison's smoke run (cached under .local/)"
"$root/bench/anchors/debezium/debezium.sh" fetch

phase "installing the test-only Python clients (PyPI, pinned, cached under .local/)"
"$root/scripts/python-tools.sh"

phase "starting MariaDB and MySQL (MySQL's private root made once under .local/, ~1 min)"
db_dir=$root/.local/test-mariadb
mysql_dir=$root/.local/test-mysql
trap '"$root/scripts/local-mariadb.sh" stop "$db_dir"; "$root/scripts/local-mysql.sh" stop "$mysql_dir"; summary; rm -f "$summary_file"' EXIT
"$root/scripts/local-mariadb.sh" start "$db_dir"
# The MySQL copies of the tests read this server's env file (tests/catch_main.cpp, --db-env).
"$root/scripts/local-mysql.sh" start "$mysql_dir"
mysql_version=$(cat "$root/.local/mysql-root.version")
# The environment names MariaDB: the tests without "mysql: " use it.
# shellcheck disable=SC1091
source "$db_dir/env"

phase "tests"
run_ctest "tests" --test-dir "$root/build" -j"$test_jobs" "${resources[@]}" --output-on-failure "$@"

phase "tests under ASan + UBSan and under ThreadSanitizer, side by side"
# Side by side rather than one after the other: measured on CI's two cores from the same
# builds, 312 s for both together against 206-237 s and 138-217 s apart. Each run's output goes
# to its own file, printed whole once both are done.
sanitizer_logs=$(mktemp -d)
# The packaging checks (label deploy) run no code of ours worth instrumenting, and the
# verifier's chaos soak and self-tests repeat under faults what its seven windows and its
# ordering run cover (the self-tests check the verifier's judgement, not code of the relay's):
# the plain build runs them, this one keeps CI's time in bounds. So do the real-cluster tests
# (label kafka): they run the relay's and the consumer's code paths the mock-cluster tests run
# here too, and each spends most of its minutes in the brokers' JVMs, not in code of ours.
# (kafka_tests and deploy_tests are not built here: ctest's placeholders for them, and the check
# that reads every test program's names, are left out too.) The 4,000 producer replacements
# measure the process's RSS, which ASan's quarantine of freed memory makes grow by design, and
# take minutes instrumented: the plain build runs them (neither sanitizer build does).
(
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:suppressions=$root/tests/sanitizer/lsan.supp
  export LSAN_OPTIONS=suppressions=$root/tests/sanitizer/lsan.supp
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  run_ctest "tests under ASan + UBSan" --test-dir "$root/build-asan" -j"$test_jobs" \
    --output-on-failure -LE 'deploy|kafka' \
    -E '(_NOT_BUILT|test names fit ctest|producers replaced thousands of times|verify: ?(a short chaos soak|a verifier whose duplicate path never ran|outbox-verify ordering fails))' "$@"
) >"$sanitizer_logs/asan" 2>&1 &
asan_pid=$!
# What runs threads of ours: the worker pipeline (unit: worker, with its fake claim store and
# publisher), and outbox-relay itself, built with TSan, in the integration tests that run it
# (the build has only unit_tests and integration_tests; "test names fit ctest" needs all):
# its workers, the librdkafka producer and its delivery-report callbacks, the metrics and
# health endpoint, the signal watcher (SIGTERM drains, SIGHUP reloads), the backlog monitor.
# Each instrumented process writes its reports to .local/tsan/ (a relay killed with -9 has
# written them already); any report fails the phase, after the test that caused it has.
tsan_logs=$root/.local/tsan
rm -rf "$tsan_logs"
mkdir -p "$tsan_logs"
(
  export TSAN_OPTIONS="log_path=$tsan_logs/report:halt_on_error=0:second_deadlock_stack=1:print_suppressions=1:suppressions=$root/tests/sanitizer/tsan.supp"
  # librdkafka's C11 threads and locks, made visible to TSan (tests/sanitizer/c11_threads_for_tsan.cpp).
  export LD_PRELOAD=$root/build-tsan/tests/liboutbox_c11_threads_for_tsan.so
  run_ctest "tests under ThreadSanitizer" --test-dir "$root/build-tsan" -j"$test_jobs" \
    --output-on-failure -R '^(unit|integration):' \
    -E '(test names fit ctest|producers replaced thousands of times)' "$@"
) >"$sanitizer_logs/tsan" 2>&1 &
tsan_pid=$!
asan_status=0
tsan_status=0
wait "$asan_pid" || asan_status=$?
wait "$tsan_pid" || tsan_status=$?
echo "==> tests under ASan + UBSan"
cat "$sanitizer_logs/asan"
echo "==> tests under ThreadSanitizer"
cat "$sanitizer_logs/tsan"
rm -rf "$sanitizer_logs"
((asan_status == 0))
# A process whose only output is the list of suppressions it matched (print_suppressions) has
# a file too: what counts is a report. The matched suppressions are printed either way.
if compgen -G "$tsan_logs/report.*" >/dev/null; then
  grep -h -A3 'Matched [0-9]* suppressions' "$tsan_logs"/report.* || true
  reports=$(cat "$tsan_logs"/report.* | grep -c '^WARNING: ThreadSanitizer' || true)
  if ((reports > 0)); then
    grep -l '^WARNING: ThreadSanitizer' "$tsan_logs"/report.* | xargs cat >&2
    echo "ThreadSanitizer reported $reports problems (above; files in $tsan_logs)" >&2
    exit 1
  fi
fi
((tsan_status == 0))

phase "all tests passed"
