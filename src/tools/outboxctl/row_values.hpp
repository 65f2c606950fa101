#pragma once

#include <cppconn/resultset.h>

#include <cstdint>
#include <string>
#include <vector>

#include "answer_value.hpp"

// Reading result columns into answer values, and the SQL spellings outboxctl's queries share.
namespace outbox::ctl {

// SQL that renders a TIMESTAMP column as "2024-05-01T10:00:00.123456Z". Sessions run in UTC,
// so the database's own clock and values are shown, never the operator host's.
std::string iso_time(const std::string& column);

// SQL for a column's age in microseconds on the database clock.
std::string age_micros(const std::string& column);

// The column as text, integer, or seconds from microseconds; NULL becomes null.
Value text_at(sql::ResultSet& row, uint32_t column);
Value integer_at(sql::ResultSet& row, uint32_t column);
Value seconds_at(sql::ResultSet& row, uint32_t column);

// One field of an answer object and the SQL expression it is read from, side by side, so a
// query's select list and the object built from its rows cannot drift apart.
struct Column {
  enum class Kind { kText, kInteger };
  const char* field;
  std::string sql;
  Kind kind = Kind::kText;
};
using Columns = std::vector<Column>;

// "a, b, c": the columns' SQL, for a SELECT.
std::string select_list(const Columns& columns);
// The object of one result row whose select list is select_list(columns).
Value object_from_row(const Columns& columns, sql::ResultSet& row);

}  // namespace outbox::ctl
