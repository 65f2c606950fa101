#include "sql_literal.hpp"

#include <stdexcept>

namespace outbox::verify {

std::string sql_literal(const std::string& value) {
  for (const char c : value) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == ':' || c == '/' || c == '-';
    if (!plain) throw std::invalid_argument("refusing to put \"" + value + "\" into SQL");
  }
  return "'" + value + "'";
}

}  // namespace outbox::verify
