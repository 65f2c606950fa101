#!/usr/bin/env bash
# clang-tidy with the repo's .clang-tidy over every source file of src/ (and, through its
# HeaderFilterRegex, the headers they include from src/), using BUILD_DIR's
# compile_commands.json. Prints every finding and fails on any: a finding is fixed in the code,
# or silenced in place with a NOLINT(check) comment that says why.
#   scripts/clang-tidy.sh [BUILD_DIR] [FILE...]    (default: build/, every src/ .cpp)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$root/build}
shift || true
if [[ ! -f $build_dir/compile_commands.json ]]; then
  echo "clang-tidy: no $build_dir/compile_commands.json (configure with scripts/build.sh first)" >&2
  exit 2
fi
# A unity build (scripts/build.sh) lists unity sources in compile_commands.json, not src/'s
# files: then each unity source of a src/ target is checked, and what it includes from src/ is
# reported through HeaderFilterRegex like any header, each finding at its own file and line.
# Including .cpp files is what a unity source is for: bugprone-suspicious-include is off there.
extra_checks=""
if (($#)); then
  files=("$@")
elif grep -q '/Unity/unity_' "$build_dir/compile_commands.json"; then
  mapfile -t files < <(grep -o '"file": "[^"]*/src/[^"]*/Unity/unity_[^"]*"' \
    "$build_dir/compile_commands.json" | sed 's/"file": "//;s/"$//' | sort -u)
  extra_checks=-bugprone-suspicious-include
  sources=$(cd "$root" && git ls-files 'src/*.cpp' 2>/dev/null | wc -l || find src -name '*.cpp' | wc -l)
  echo "clang-tidy: $sources source files of src/ through ${#files[@]} unity sources"
else
  mapfile -t files < <(cd "$root" && git ls-files 'src/*.cpp' 2>/dev/null || find src -name '*.cpp')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# One file per call, nproc calls at a time, each call's output to a file of its own (so the
# parallel reports do not interleave); --warnings-as-errors makes a finding fail its call.
# compile_commands.json holds GCC's flags, and clang does not know every GCC warning option
# (-Wno-error=restrict, CMakeLists.txt): an unknown one is not a finding. The configuration is
# named: a unity source lives in the build directory, which may be outside the repo.
status=0
(cd "$root" && printf '%s\n' "${files[@]}" |
  xargs -P "$(nproc)" -n 1 sh -c 'exec clang-tidy -p "$0" --config-file=.clang-tidy --quiet --warnings-as-errors="*" \
    ${1:+--checks=$1} --extra-arg=-Wno-unknown-warning-option "$2" \
    >"$(mktemp -p "'"$out"'")" 2>&1' "$build_dir" "$extra_checks") || status=$?
log=$out/all
cat "$out"/tmp.* >"$log" 2>/dev/null || true
# A header's finding is reported once per file that includes it: print each place once.
grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error):' "$log" | sort -u >"$out/findings" || true
findings=$(wc -l <"$out/findings")
if ((findings == 0 && status != 0)); then
  cat "$log" >&2  # failed without a finding: a crash or a bad compile command
fi
sed "s|^$root/||" "$out/findings" >&2
echo "clang-tidy: ${#files[@]} files, $findings findings"
((status == 0 && findings == 0))
