#!/usr/bin/env bash
# Configures and builds into BUILD_DIR (default build/): a Release build with warnings as errors
# (the project's own builds; a packager's plain `cmake` build has OUTBOX_WERROR off). Extra args
# go to cmake; args after `--` name the targets to build (default: all).
#   scripts/build.sh build-tsan -DOUTBOX_TSAN=ON -- unit_tests integration_tests
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$root/build}
shift || true
cmake_args=()
targets=()
while (($#)); do
  if [[ $1 == -- ]]; then
    shift
    targets=("$@")
    break
  fi
  cmake_args+=("$1")
  shift
done
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DOUTBOX_WERROR=ON \
  "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" ${targets[@]+--target "${targets[@]}"}
