#!/usr/bin/env bash
# What each kind of statement a relay could run costs the primary, per event, against the
# writer's INSERT of the same rows in the same run (issue 30: "measure rather than believe").
# bench/primary-cost.sh measures the relay as it is; this one measures the parts and the
# floors of other designs, each statement over all N rows in chunks of 500 (the relay's
# claim size), with binlog_row_image=MINIMAL as the relay sets it:
#   insert           the writer: 100 rows a statement, 600-byte JSON payloads
#   scan             a claim's read: 500 PENDING rows along idx_outbox_pending, no payload
#   payload          the payloads of 500 rows by primary key
#   mark_only        a mark straight from PENDING, the one write of a design without a claim
#                    write (moves the 3 indexes that hold status)
#   claim            today's claim write: PENDING -> PUBLISHING with lease (moves 2 indexes)
#   mark             today's mark: PUBLISHING -> PUBLISHED (moves 3 indexes)
#   in_place         attempts = attempts + 1: a fixed-size column no index holds, so the row
#                    is changed in place and no index moves; the floor of any per-row write
#   watermark        one progress row updated per 500 events: a design with no per-row write
# Server CPU seconds from /proc/<pid>/stat, each phase's own purge included (it waits for the
# history list to shrink back), medians of RUNS, ratios to the insert's.
# Assumes the test servers (scripts/local-mariadb.sh / local-mysql.sh start .local/test-*).
#   bench/primary-cost-floor.sh [N=20000] [RUNS=3] [SERVERS="mariadb mysql"] [PROFILES="durable tuned"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20000}
runs=${2:-3}
servers=${3:-mariadb mysql}
profiles=${4:-durable tuned}
chunk=500
work=$(mktemp -d /tmp/outbox-primary-floor.XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/primary-cost-lib.sh
source "$root/bench/primary-cost-lib.sh"
id() { printf "'e-%032d'" "$1"; }
ids() {
  local k
  for ((k = $1; k < $2; k++)); do
    [ "$k" = "$1" ] || printf ','
    id "$k"
  done
}

# The statements, written once: the same text on both servers.
writer_inserts "$n" >"$work/insert.sql"
minimal='SET SESSION binlog_row_image = MINIMAL;'
for ((s = 0; s < n; s += chunk)); do
  list=$(ids "$s" $((s + chunk)))
  # Where the chunk starts: a claim reads the front of the PENDING range, so the scan starts
  # at the chunk's first row (each 100-row statement has its own created_at).
  echo "SELECT created_at INTO @since FROM outbox_event WHERE event_id = $(id "$s"); SELECT e.event_id, e.aggregate_type, e.aggregate_id, e.event_type, e.event_version, e.payload_bytes FROM outbox_event e FORCE INDEX (idx_outbox_pending) WHERE e.status = 'PENDING' AND e.created_at >= @since ORDER BY e.created_at, e.event_id LIMIT $chunk;" >>"$work/scan.sql"
  echo "SELECT event_id, CAST(payload AS CHAR CHARACTER SET utf8mb4) FROM outbox_event WHERE event_id IN ($list);" >>"$work/payload.sql"
  echo "$minimal UPDATE outbox_event SET status = 'PUBLISHING', lease_owner = 'relay-1', lease_until = CURRENT_TIMESTAMP(6) + INTERVAL 30 SECOND, next_attempt_at = CURRENT_TIMESTAMP(6) + INTERVAL 30 SECOND WHERE event_id IN ($list);" >>"$work/claim.sql"
  echo "$minimal UPDATE outbox_event SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6), published_by = 'relay-1', lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL WHERE event_id IN ($list) AND status = 'PUBLISHING' AND lease_owner = 'relay-1';" >>"$work/mark.sql"
  echo "$minimal UPDATE outbox_event SET status = 'PUBLISHED', published_at = CURRENT_TIMESTAMP(6), published_by = 'relay-1' WHERE event_id IN ($list) AND status = 'PENDING';" >>"$work/mark_only.sql"
  echo "$minimal UPDATE outbox_event SET attempts = attempts + 1 WHERE event_id IN ($list);" >>"$work/in_place.sql"
  echo "$minimal UPDATE floor_progress SET position = $((s + chunk)) WHERE id = 1;" >>"$work/watermark.sql"
done
reset="UPDATE outbox_event SET status = 'PENDING', published_at = NULL, published_by = NULL, lease_owner = NULL, lease_until = NULL, next_attempt_at = NULL"
phases=(insert scan payload mark_only claim mark in_place watermark)

echo "| server | profile | $(printf '%s | ' "${phases[@]}")"
echo "|---|---|$(printf -- '---|%.0s' "${phases[@]}")"
for server in $servers; do
  use_server "$server"
  for profile in $profiles; do
    use_profile "$profile"
    : >"$work/figures"
    for run in $(seq "$runs"); do
      db=primary_floor_$$_$run
      fresh_database "$db"
      "${client[@]}" "$db" -e "CREATE TABLE floor_progress (id INT PRIMARY KEY, position BIGINT NOT NULL); INSERT INTO floor_progress VALUES (1, 0)"
      line=
      idle=$(history_length)
      for phase in "${phases[@]}"; do
        # mark_only takes the fresh PENDING rows, as a design without a claim write would; then
        # they are put back for today's claim and mark.
        [ "$phase" = claim ] && "${client[@]}" "$db" -e "$reset"
        await_purge "$idle"
        c0=$(server_cpu)
        "${client[@]}" "$db" <"$work/$phase.sql" >/dev/null
        await_purge "$idle"
        c1=$(server_cpu)
        line="$line $(ms_per_1k "$c0" "$c1" "$n")"
      done
      echo "$line" >>"$work/figures"
      echo "$version $profile run $run, server CPU ms per 1k events (${phases[*]}):$line" >&2
      "${client[@]}" -e "DROP DATABASE $db"
    done
    row="| $version | $profile |"
    insert_ms=$(awk '{print $1}' "$work/figures" | median)
    for i in "${!phases[@]}"; do
      ms=$(awk -v c=$((i + 1)) '{print $c}' "$work/figures" | median)
      if [ "$i" = 0 ]; then
        row="$row $(printf '%.1f ms' "$ms") |"
      else
        row="$row $(printf '%.1f ms (%sx)' "$ms" "$(ratio "$ms" "$insert_ms")") |"
      fi
    done
    echo "$row"
  done
  restore_server
done
