#include "mysql/duplicate_key.hpp"

namespace outbox {

std::optional<std::string_view> duplicate_entry_key(int error_code, std::string_view message) {
  if (error_code != kErrorDuplicateEntry) return std::nullopt;
  if (message.size() < 2 || message.back() != '\'') return std::nullopt;
  const std::string_view body = message.substr(0, message.size() - 1);
  const size_t open = body.rfind('\'');
  if (open == std::string_view::npos || open + 1 == body.size()) return std::nullopt;
  return body.substr(open + 1);
}

bool is_duplicate_entry_on(int error_code, std::string_view message, std::string_view table,
                           std::string_view key) {
  const std::optional<std::string_view> named = duplicate_entry_key(error_code, message);
  if (!named) return false;
  if (*named == key) return true;  // MariaDB, MySQL 5.7
  // MySQL 8.0.19+: "<table>.<key>"
  return named->size() == table.size() + 1 + key.size() &&
         named->substr(0, table.size()) == table && (*named)[table.size()] == '.' &&
         named->substr(table.size() + 1) == key;
}

}  // namespace outbox
