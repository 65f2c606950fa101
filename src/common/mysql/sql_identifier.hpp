#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "outcome.hpp"

namespace outbox {

// A table or column name the configuration chooses (mysql.table, kafka.key_column, the columns
// of kafka.headers). Identifiers cannot be bound as parameters, so they are spliced into
// statements: this is the one identifier splice the project allows (values are always bound,
// never spliced from data). It comes from the operator's configuration, never from a row or a
// request; only a plain identifier is accepted ([A-Za-z_][A-Za-z0-9_]*, at most 64 characters,
// MySQL's limit), and it is always written quoted with backticks (quoted()), so no name can
// change a statement's meaning.
class SqlIdentifier {
 public:
  // The error says what is wrong with `text`.
  static Outcome<SqlIdentifier> parse(std::string_view text);

  const std::string& name() const { return name_; }
  // `name`, for statements: the only form in which an identifier is spliced into SQL.
  std::string quoted() const { return "`" + name_ + "`"; }

  bool operator==(const SqlIdentifier& other) const = default;

 private:
  explicit SqlIdentifier(std::string name) : name_(std::move(name)) {}
  std::string name_;
};

inline constexpr size_t kMaxIdentifierLength = 64;

// Why `text` is not a plain identifier, or nullopt when it is.
std::optional<std::string> identifier_problem(std::string_view text);

// The outbox table's default name (mysql.table), and as an identifier.
inline constexpr const char* kDefaultOutboxTable = "outbox_event";
const SqlIdentifier& default_outbox_table();

}  // namespace outbox
