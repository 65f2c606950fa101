#!/usr/bin/env bash
# Applies sql/NNN_*.sql to DATABASE in order, each once, recording what ran in
# outbox_schema_history. Connection options after DATABASE go to the mariadb client.
#   apply-migrations.sh DATABASE [mariadb client options...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
database=${1:?DATABASE}
shift
client=(mariadb --no-defaults "$@")

"${client[@]}" -e "CREATE DATABASE IF NOT EXISTS \`$database\`"
"${client[@]}" "$database" -e "CREATE TABLE IF NOT EXISTS outbox_schema_history (
  version INT NOT NULL PRIMARY KEY,
  file VARCHAR(255) NOT NULL,
  applied_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6))"
for file in "$root"/sql/[0-9][0-9][0-9]_*.sql; do
  name=$(basename "$file")
  version=$((10#${name%%_*}))
  applied=$("${client[@]}" -N -B "$database" \
    -e "SELECT COUNT(*) FROM outbox_schema_history WHERE version = $version")
  [[ $applied == 0 ]] || continue
  "${client[@]}" "$database" <"$file"
  "${client[@]}" "$database" \
    -e "INSERT INTO outbox_schema_history (version, file) VALUES ($version, '$name')"
done
