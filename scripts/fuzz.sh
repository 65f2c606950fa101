#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD_DIR (configured with -DOUTBOX_FUZZ=ON and clang, see
# docs/testing.md) for SECONDS each: first every input of tests/fuzz/corpus/<target>/ (the seeds)
# and tests/fuzz/regressions/<target>/ (inputs that once crashed; fuzz_config_file also every
# file of config/, the shipped configs), then new inputs until the
# time is up. New interesting inputs go to a scratch corpus under .local/fuzz/ (kept between
# runs, never committed); a crash ends that target's run and leaves its input in
# .local/fuzz/crashes/; the other targets still run, and the script fails at the end.
# Targets run one per core at a time (OUTBOX_FUZZ_JOBS overrides it).
#   scripts/fuzz.sh [BUILD_DIR] [SECONDS] [TARGET...]    (default: build-fuzz/, 20, all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$root/build-fuzz}
seconds=${2:-20}
shift 2 || shift $# || true
if (($#)); then
  targets=("$@")
else
  mapfile -t targets < <(cd "$root/tests/fuzz/corpus" && ls)
fi
crashes=$root/.local/fuzz/crashes
mkdir -p "$crashes"
failures=$(mktemp -d)
trap 'rm -rf "$failures"' EXIT
run_target() {
  local target=$1
  local binary=$build_dir/tests/fuzz/$target
  local scratch=$root/.local/fuzz/corpus/$target
  local regressions=$root/tests/fuzz/regressions/$target
  mkdir -p "$scratch"
  local inputs=("$scratch" "$root/tests/fuzz/corpus/$target")
  [[ -d $regressions ]] && inputs+=("$regressions")
  # The config loaders also start from the configs the project ships, read where they live:
  # copies in the corpus fell behind every key added since.
  [[ $target == fuzz_config_file ]] && inputs+=("$root/config")
  local log=$root/.local/fuzz/$target.log
  # -timeout: one input running 10 s is a hang worth reporting; -rss_limit_mb bounds memory.
  if ! "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/$target-" "${inputs[@]}" >"$log" 2>&1; then
    # One block, so the report of a target beside another's stays whole.
    { tail -60 "$log"; echo "fuzz: $target FAILED; the input is in $crashes/ (full log: $log)"; } >&2
    touch "$failures/$target"
    return 0
  fi
  local runs coverage
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "fuzz: $target: ${runs:-?} inputs in ${seconds} s, ${coverage:-cov: ?}, no crash"
}
# One target per core at a time: each fuzzer is one process on one core.
parallel=${OUTBOX_FUZZ_JOBS:-$(nproc)}
for target in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do
    wait -n || true
  done
  run_target "$target" &
done
wait
mapfile -t failed < <(ls "$failures")
if ((${#failed[@]})); then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
