#pragma once

#include <cppconn/prepared_statement.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace outbox {

// Statements over a list of ids are prepared for a few fixed capacities (never built per call,
// never an empty IN ()). This fills `capacity` placeholders, from parameter `first` on, with
// ids[begin, begin + count), repeating the last id: a repeated id matches the same row again
// and changes nothing more.
inline void bind_id(sql::PreparedStatement& statement, unsigned index, const std::string& id) {
  statement.setString(index, id);
}
inline void bind_id(sql::PreparedStatement& statement, unsigned index, int64_t id) {
  statement.setInt64(index, id);
}

template <typename Id>
void bind_id_list(sql::PreparedStatement& statement, unsigned first, const std::vector<Id>& ids,
                  size_t begin, size_t count, size_t capacity) {
  for (size_t i = 0; i < capacity; ++i) {
    bind_id(statement, first + static_cast<unsigned>(i), ids[begin + std::min(i, count - 1)]);
  }
}

}  // namespace outbox
