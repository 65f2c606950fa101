#include "lease_store/mysql_lease_store.hpp"

#include "lease_store/mysql_statements.hpp"

namespace outbox {

Outcome<LeaseUpdateResult> MysqlLeaseStore::release(const LeaseToken& token,
                                                    const std::vector<std::string>& ids) {
  return in_transaction<LeaseUpdateResult>("release", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    for_each_id_chunk(ids, lease_sql::Release{.owner = token.value()},
                      [&](sql::PreparedStatement& statement) {
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    if (result.changed < ids.size()) {
      // Rows we released are locked by this transaction, so they read PENDING and unleased;
      // anything else is leased to (or published by) another claim.
      result.no_longer_leased = missing_from(ids, select_ids(ids, lease_sql::SelectReleased{}));
    }
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlLeaseStore::defer(const LeaseToken& token,
                                                  const std::vector<std::string>& ids, Micros delay,
                                                  const std::string& error) {
  const std::string stored = storable_error(error);
  return in_transaction<LeaseUpdateResult>("defer", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    result.no_longer_leased =
        missing_from(ids, select_ids(ids, lease_sql::SelectHeldBy{.owner = token.value()}));
    for_each_id_chunk(
        ids,
        lease_sql::RecordDeferral{.delay = delay, .last_error = stored, .owner = token.value()},
        [&](sql::PreparedStatement& statement) {
          result.changed += static_cast<size_t>(statement.executeUpdate());
        });
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlLeaseStore::hold(const LeaseToken& token,
                                                 const std::vector<std::string>& ids,
                                                 const std::string& error) {
  const std::string stored = storable_error(error);
  return in_transaction<LeaseUpdateResult>("hold", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    result.no_longer_leased =
        missing_from(ids, select_ids(ids, lease_sql::SelectHeldBy{.owner = token.value()}));
    for_each_id_chunk(ids, lease_sql::RecordHold{.last_error = stored, .owner = token.value()},
                      [&](sql::PreparedStatement& statement) {
                        result.changed += static_cast<size_t>(statement.executeUpdate());
                      });
    return result;
  });
}

Outcome<LeaseUpdateResult> MysqlLeaseStore::record_failure(const LeaseToken& token,
                                                           const std::vector<std::string>& ids,
                                                           const PublishFailure& failure) {
  // last_error is VARCHAR(1024): a longer (or unstorable) text would be rejected in strict mode,
  // and a rejected statement would leave the row to its lease instead of recording the failure.
  const std::string error = storable_error(failure.error);
  return in_transaction<LeaseUpdateResult>("record failure", [&] {
    LeaseUpdateResult result;
    if (ids.empty()) return result;
    // Failures are the rare path: one more read names the rows another claim took over, so
    // they are neither counted nor logged as this claim's failures.
    result.no_longer_leased =
        missing_from(ids, select_ids(ids, lease_sql::SelectHeldBy{.owner = token.value()}));
    const auto count_changed = [&](sql::PreparedStatement& statement) {
      result.changed += static_cast<size_t>(statement.executeUpdate());
    };
    if (failure.permanent) {
      for_each_id_chunk(
          ids, lease_sql::RecordPermanentFailure{.last_error = error, .owner = token.value()},
          count_changed);
    } else {
      for_each_id_chunk(ids,
                        lease_sql::RecordRetriableFailure{
                            .max_attempts = policy_.max_attempts,
                            .backoff_initial = policy_.retry_backoff_initial,
                            .backoff_max = policy_.retry_backoff_max,
                            .last_error = error,
                            .owner = token.value(),
                        },
                        count_changed);
    }
    return result;
  });
}

}  // namespace outbox
