#!/usr/bin/env bash
# The whole test suite, from a fresh Debian bookworm machine as root: installs packages,
# checks formatting, builds twice (plain, and ASan+UBSan), starts a private MariaDB, and runs
# every test with ctest against it and against test brokers the tests start themselves.
#   scripts/test.sh [ctest args...]     e.g. scripts/test.sh -L unit
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

"$root/scripts/deps.sh"

echo "==> clang-format"
mapfile -t sources < <(cd "$root" && git ls-files '*.cpp' '*.hpp' 2>/dev/null ||
  find src tests -name '*.cpp' -o -name '*.hpp')
(cd "$root" && clang-format --dry-run --Werror "${sources[@]}")

echo "==> building (warnings are errors)"
"$root/scripts/build.sh" "$root/build" >/dev/null
echo "==> building with AddressSanitizer + UndefinedBehaviorSanitizer"
"$root/scripts/build.sh" "$root/build-asan" -DOUTBOX_SANITIZE=ON >/dev/null

db_dir=$root/.local/test-mariadb
"$root/scripts/local-mariadb.sh" start "$db_dir"
trap '"$root/scripts/local-mariadb.sh" stop "$db_dir"' EXIT
# shellcheck disable=SC1091
source "$db_dir/env"

echo "==> tests"
ctest --test-dir "$root/build" -j"$jobs" --output-on-failure "$@"

echo "==> tests under ASan + UBSan"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:suppressions=$root/tests/sanitizer/lsan.supp
export LSAN_OPTIONS=suppressions=$root/tests/sanitizer/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$root/build-asan" -j"$jobs" --output-on-failure "$@"
echo "==> all tests passed"
