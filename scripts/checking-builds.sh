#!/usr/bin/env bash
# The builds that only check the code, not the ones the plain tests run: Debug file by file,
# ASan + UBSan, ThreadSanitizer, the fuzz targets, and clang-tidy over build/'s compile database
# (build/ must be configured). scripts/test.sh runs this at nice 19 beside the plain tests,
# which spend most of their time waiting on a server, a broker or a timeout: on two cores the
# builds took 14 minutes of CI's time one after the other. Each step prints when it starts and
# TIMES (default: none) gets one line per finished step, "SECONDS<tab>NAME", and a last line
# "exit<tab>STATUS" however the script ends (scripts/test.sh waits for a step's line to run
# its tests while the next steps build); the first failure ends it.
#   scripts/checking-builds.sh [TIMES]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
times=${1:-/dev/null}
started=$SECONDS
trap 'printf "exit\t%d\n" "$?" >>"$times"' EXIT

step() {
  local name=$1 at=$SECONDS
  shift
  echo "==> [$((SECONDS - started)) s] $name"
  "$@"
  printf '%d\t%s\n' "$((SECONDS - at))" "$name" >>"$times"
}
# make's progress lines are noise here; its warnings and errors are on stderr.
build() {
  "$root/scripts/build.sh" "$@" >/dev/null
}

# The sanitizer builds first: their tests run first once the plain tests are done.
# Without the benchmark suite (its smoke run asserts no speed, so the plain build's covers it),
# and without the test programs this build does not run (labels kafka and deploy,
# scripts/test.sh). With clang, as the fuzz targets: built side by side on two cores, these
# targets took clang 14 519 s of CPU and GCC 12 738 s (the GCC warnings stay in the Release and
# Debug builds), and the instrumented tests ran in 206 s instead of 237-258.
step "building with AddressSanitizer + UndefinedBehaviorSanitizer (clang)" \
  build "$root/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DOUTBOX_SANITIZE=ON -DOUTBOX_BENCH=OFF -- unit_tests library_unit_tests integration_tests \
  writer_tests consumer_tests verify_tests outbox-relay outboxctl outbox-verify \
  notification-planner outbox-loadgen outbox-test-broker
step "building with ThreadSanitizer (the tests that run threads)" \
  build "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOUTBOX_TSAN=ON \
  -DOUTBOX_BENCH=OFF -- unit_tests integration_tests outbox_c11_threads_for_tsan
# File by file, as a packager's plain cmake build compiles: the other builds use unity sources
# (scripts/build.sh), which can hide a missing #include or a name two files both define.
step "building Debug (the product, without the tests, file by file)" \
  build "$root/build-debug" -DCMAKE_BUILD_TYPE=Debug -DOUTBOX_TESTS=OFF \
  -DCMAKE_UNITY_BUILD=OFF
step "building the fuzz targets (clang, libFuzzer + ASan + UBSan)" \
  build "$root/build-fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DOUTBOX_FUZZ=ON -DOUTBOX_TESTS=OFF -- fuzz_targets
step "clang-tidy over src/ (the repo's .clang-tidy; any finding fails)" \
  "$root/scripts/clang-tidy.sh" "$root/build"
echo "==> [$((SECONDS - started)) s] checking builds done"
