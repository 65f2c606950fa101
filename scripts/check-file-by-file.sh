#!/usr/bin/env bash
# Compiles every source file of the product on its own, as a packager's plain cmake build does
# (CMAKE_UNITY_BUILD off), with the project's warnings as errors: the other builds use unity
# sources (scripts/build.sh), where a file that lacks an #include can borrow it from the file
# before it. Front end only (-fsyntax-only, no debug info, no objects): the question is whether
# each file compiles alone, and the Release build links the same code. BUILD_DIR (default
# build-debug/) is configured as a Debug file-by-file tree without the tests; it is also the
# tree `scripts/clang-tidy.sh build-debug FILE` checks one file against.
#   scripts/check-file-by-file.sh [BUILD_DIR]
#
# Measured on CI's two cores: 88-116 s, where building that tree (Debug, objects and links) took
# 156-160 s for the same check, with or without -g.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$root/build-debug}
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DOUTBOX_WERROR=ON -DOUTBOX_TESTS=OFF \
  -DCMAKE_UNITY_BUILD=OFF >/dev/null
# One line per source, "DIRECTORY<tab>COMMAND", the command without its -o and -g.
commands=$(mktemp)
failures=$(mktemp -d)
trap 'rm -rf "$commands" "$failures"' EXIT
python3 - "$build_dir/compile_commands.json" >"$commands" <<'EOF'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    args = shlex.split(entry["command"])
    out = args.index("-o")
    del args[out:out + 2]
    args = [a for a in args if a != "-g"] + ["-fsyntax-only"]
    print(entry["directory"] + "\t" + shlex.join(args))
EOF
files=$(wc -l <"$commands")
# nproc at a time; each failing file's diagnostics go to a file of their own, printed whole.
status=0
xargs -d '\n' -P "$(nproc)" -n 1 sh -c '
  dir=${1%%	*}
  command=${1#*	}
  cd "$dir" && eval "$command" >"$0/$$.log" 2>&1 || { cat "$0/$$.log"; exit 1; }
  rm -f "$0/$$.log"' "$failures" <"$commands" || status=$?
if ((status != 0)); then
  echo "check-file-by-file: a source file does not compile on its own (above)" >&2
  exit 1
fi
echo "check-file-by-file: $files source files compiled one by one, warnings as errors"
