#pragma once

#include <optional>
#include <string>
#include <vector>

#include "claim_sql.hpp"
#include "mysql/mysql_session.hpp"
#include "outbox_event.hpp"
#include "replay_request.hpp"

// Reads the PUBLISHED events of a replay window, a chunk at a time, with plain reads: no
// locks, no writes, nothing the relays' claims wait for (a claim reads PENDING rows, a replay
// PUBLISHED ones: the index ranges do not even meet). Each chunk is one short read along
// idx_outbox_pending (status, created_at, event_id), in that index's order, so a chunk costs
// what it returns whatever the table's size; then the rows that share the chunk's last
// created_at, so that no created_at is split between two chunks.
namespace outbox::ctl {

struct ReplayRow {
  OutboxEvent event;       // the columns the relay's claim reads, payload included
  std::string created_at;  // as a key: "2026-12-06 10:00:00.123456"
};

class ReplayReader {
 public:
  // `schema`: the relay's claim schema for this config, JSON columns already found
  // (claim_sql::Schema::read_json_as_text), so payloads read exactly as the relay read them.
  // Without payloads (a dry run) the payload reads empty.
  ReplayReader(MysqlSession& session, claim_sql::Schema schema, ReplayWindow window,
               std::optional<std::string> aggregate_type, int batch_size, bool with_payloads);

  // The next chunk in (created_at, event_id) order; empty once the window is read. Throws
  // sql::SQLException.
  std::vector<ReplayRow> next();

 private:
  // Appends the rows the filter keeps; returns how many the statement returned.
  size_t read(sql::PreparedStatement& statement, std::vector<ReplayRow>& out);
  size_t read_chunk(std::vector<ReplayRow>& out);
  size_t read_ties(std::vector<ReplayRow>& out);

  MysqlSession& session_;
  claim_sql::Schema schema_;
  ReplayWindow window_;
  std::optional<std::string> aggregate_type_;
  int batch_size_;
  std::string select_chunk_;
  std::string select_ties_;
  // The last row read: the next chunk starts after it.
  std::string after_time_;
  std::string after_id_;
  bool done_ = false;
};

// Puts each aggregate's events of a chunk in event_version order, in the places its events
// held: the chunk stays in created_at order between aggregates, and within one aggregate the
// replay follows the versions even where a writer stamped created_at out of version order.
void order_versions_within_aggregates(std::vector<ReplayRow>& rows);

}  // namespace outbox::ctl
