#include "lease_store/mysql_lease_store.hpp"

#include "lease_store/mysql_statements.hpp"

namespace outbox {

Outcome<MarkResult> MysqlLeaseStore::mark_published(const LeaseToken& token,
                                                    const std::vector<std::string>& ids) {
  return in_transaction<MarkResult>("mark published", [&] {
    MarkResult result;
    if (ids.empty()) return result;
    for_each_id_chunk(ids, lease_sql::MarkPublished{.owner = token.value()},
                      [&](sql::PreparedStatement& statement) {
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    if (result.changed < ids.size()) {
      // Some rows were not ours any more. published_by tells our marks (including those of an
      // earlier attempt whose commit outcome was unknown) from rows another claim now owns.
      result.refused =
          missing_from(ids, select_ids(ids, lease_sql::SelectMarkedBy{.owner = token.value()}));
    }
    return result;
  });
}

}  // namespace outbox
