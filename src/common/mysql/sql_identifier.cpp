#include "mysql/sql_identifier.hpp"

namespace outbox {
namespace {

bool starts_identifier(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool continues_identifier(char c) {
  return starts_identifier(c) || (c >= '0' && c <= '9');
}

}  // namespace

std::optional<std::string> identifier_problem(std::string_view text) {
  // Appended, not "\"" + std::string(...): GCC 12 at -O3 warns of an overlapping memcpy
  // (-Wrestrict, a false positive in libstdc++'s operator+) on the latter.
  std::string shown(1, '"');
  shown.append(text.substr(0, 80)).push_back('"');
  if (text.empty()) return "must not be empty";
  if (text.size() > kMaxIdentifierLength) {
    return shown + " is " + std::to_string(text.size()) + " characters long (at most " +
           std::to_string(kMaxIdentifierLength) + ")";
  }
  if (!starts_identifier(text.front())) {
    return shown + " must start with a letter or '_'";
  }
  for (const char c : text) {
    if (!continues_identifier(c)) {
      return shown + " may hold only letters, digits and '_' (a plain identifier), not '" +
             std::string(1, c) + "'";
    }
  }
  return std::nullopt;
}

const SqlIdentifier& default_outbox_table() {
  static const SqlIdentifier table = SqlIdentifier::parse(kDefaultOutboxTable).value();
  return table;
}

Outcome<SqlIdentifier> SqlIdentifier::parse(std::string_view text) {
  if (const auto problem = identifier_problem(text)) return Error{*problem};
  return SqlIdentifier(std::string(text));
}

}  // namespace outbox
