#!/usr/bin/env bash
# The test-only Python clients (tests/tools/requirements.txt, pinned, from PyPI) in a venv of
# their own under .local/python-tools, made once and remade when the requirements change. Never
# part of the relay or the .deb.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/.local/python-tools
requirements=$root/tests/tools/requirements.txt
stamp=$venv/requirements.txt
if [[ -x $venv/bin/python3 ]] && cmp -s "$requirements" "$stamp"; then
  echo "==> Python test tools already in $venv"
  exit 0
fi
rm -rf "$venv"
# Debian's python3 (python3-venv: scripts/deps.sh), not whatever python3 is first on PATH.
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir -r "$requirements"
cp "$requirements" "$stamp"
echo "==> Python test tools in $venv: $("$venv/bin/pip" freeze --disable-pip-version-check | tr '\n' ' ')"
