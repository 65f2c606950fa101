#pragma once

#include <string>
#include <vector>

#include "lease_store/lease_sql.hpp"
#include "mysql/mysql_session.hpp"
#include "outbox_event.hpp"
#include "replay_request.hpp"

// Reads the PUBLISHED events of a replay window with plain reads: no locks, no writes, nothing
// the relays' claims wait for (a claim reads PENDING rows, a replay PUBLISHED ones: the index
// ranges do not even meet). Two short statements per chunk, each bounded by the chunk's size
// whatever the filter:
//   - next(): the chunk's keys and routing columns along idx_outbox_pending (status,
//     created_at, event_id), in that index's order, then the rows that share the chunk's last
//     created_at, so that no created_at is split between two chunks;
//   - fetch_bodies(): the payload and the message columns of the rows the filter kept, by
//     primary key, read exactly as the relay's claim reads them.
namespace outbox::ctl {

struct ReplayRow {
  OutboxEvent event;       // the columns the relay's claim reads; payload after fetch_bodies()
  std::string created_at;  // as a key: "2026-12-06 10:00:00.123456"
  std::string topic;       // where the relay routes it (set by the replay once routed)
};

class ReplayReader {
 public:
  // `schema`: the relay's claim schema for this config, JSON columns already found
  // (lease_sql::Schema::read_json_as_text), so payloads read exactly as the relay read them.
  ReplayReader(MysqlSession& session, lease_sql::Schema schema, ReplayWindow window,
               int batch_size);

  // The next chunk in (created_at, event_id) order, without payloads; empty once the window
  // is read. Throws sql::SQLException.
  std::vector<ReplayRow> next();

  // Reads the payload and message columns of `rows`. Returns the rows still there: a row
  // deleted since next() (a retention purge running beside the replay) is left out, and
  // counted in `gone`. Throws sql::SQLException.
  std::vector<ReplayRow> fetch_bodies(std::vector<ReplayRow> rows, size_t& gone);

 private:
  size_t read_keys(sql::PreparedStatement& statement, std::vector<ReplayRow>& out);

  MysqlSession& session_;
  lease_sql::Schema schema_;
  ReplayWindow window_;
  int batch_size_;
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
