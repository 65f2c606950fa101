#pragma once

// What the MysqlLeaseStore files (mysql_lease_store.cpp, claim.cpp, mark.cpp,
// lease_updates.cpp, wake.cpp) share: how a statement's parameters are bound, the transaction
// around each step, and running an id-list statement chunk by chunk. Not for other code.

#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "lease_store/lease_sql.hpp"
#include "lease_store/mysql_lease_store.hpp"
#include "mysql/mysql_error.hpp"

namespace outbox {

// The claim's own consistency check failed: not a database or connection error, so it must
// not be reported as one (nor make the session look broken).
class ClaimInconsistency : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Binds a statement's parameters in the order its lease_sql binder gives them.
class StatementParameters final : public lease_sql::Parameters {
 public:
  explicit StatementParameters(sql::PreparedStatement& statement) : statement_(statement) {}
  void text(const std::string& value) override { statement_.setString(next_++, value); }
  void integer(int64_t value) override { statement_.setInt64(next_++, value); }
  void count(uint64_t value) override { statement_.setUInt64(next_++, value); }

 private:
  sql::PreparedStatement& statement_;
  unsigned next_ = 1;
};

// The ids of `ids` not in `present`, in their order.
inline std::vector<std::string> missing_from(const std::vector<std::string>& ids,
                                             const std::unordered_set<std::string>& present) {
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    if (present.count(id) == 0) out.push_back(id);
  }
  return out;
}

template <typename T, typename Body>
Outcome<T> MysqlLeaseStore::in_transaction(const char* what, Body&& body) {
  try {
    TransactionScope transaction(*session_);
    T result = body();
    transaction.commit();
    return result;
  } catch (const sql::SQLException& e) {
    std::string error = std::string(what) + " failed: " + describe_sql_error(e);
    if (needs_new_session(e.getErrorCode())) {
      // For /readyz: the condition and the step, not the server's words (the returned error,
      // which the worker logs, has them).
      session_problem_ = session_condition(e.getErrorCode()) + ": " + what + " failed";
    }
    return Error{std::move(error)};
  } catch (const ClaimInconsistency& e) {
    return Error{std::string(what) + " failed: " + e.what() + " (rolled back)"};
  }
}

template <typename Statement, typename Run>
void MysqlLeaseStore::for_each_id_chunk(const std::vector<std::string>& ids,
                                        const Statement& statement, Run run) {
  for (size_t begin = 0; begin < ids.size(); begin += lease_sql::kMaxIdList) {
    const size_t count = std::min(lease_sql::kMaxIdList, ids.size() - begin);
    const lease_sql::IdChunk chunk{ids, begin, count, lease_sql::id_list_capacity(count)};
    sql::PreparedStatement& prepared =
        session_->prepare(Statement::sql(policy_.schema, chunk.capacity));
    StatementParameters parameters(prepared);
    statement.bind(parameters, chunk);
    run(prepared);
  }
}

template <typename Statement>
std::unordered_set<std::string> MysqlLeaseStore::select_ids(const std::vector<std::string>& ids,
                                                            const Statement& statement) {
  std::unordered_set<std::string> found;
  for_each_id_chunk(ids, statement, [&](sql::PreparedStatement& select) {
    std::unique_ptr<sql::ResultSet> rows(select.executeQuery());
    while (rows->next())
      found.insert(rows->getString(1));
  });
  return found;
}

}  // namespace outbox
