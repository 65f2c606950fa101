#include "row_values.hpp"

namespace outbox::ctl {

std::string iso_time(const std::string& column) {
  return "DATE_FORMAT(" + column + ", '%Y-%m-%dT%H:%i:%s.%fZ')";
}

std::string age_micros(const std::string& column) {
  return "TIMESTAMPDIFF(MICROSECOND, " + column + ", CURRENT_TIMESTAMP(6))";
}

Value text_at(sql::ResultSet& row, uint32_t column) {
  if (row.isNull(column)) return {};
  return {std::string(row.getString(column))};
}

Value integer_at(sql::ResultSet& row, uint32_t column) {
  if (row.isNull(column)) return {};
  return {static_cast<int64_t>(row.getInt64(column))};
}

Value seconds_at(sql::ResultSet& row, uint32_t column) {
  if (row.isNull(column)) return {};
  return Value::seconds(static_cast<double>(row.getInt64(column)) / 1e6);
}

std::string select_list(const Columns& columns) {
  std::string out;
  for (const Column& column : columns)
    out += (out.empty() ? "" : ", ") + column.sql;
  return out;
}

Value object_from_row(const Columns& columns, sql::ResultSet& row) {
  Value object = Value::object();
  uint32_t index = 1;
  for (const Column& column : columns) {
    object.set(column.field, column.kind == Column::Kind::kInteger ? integer_at(row, index)
                                                                   : text_at(row, index));
    ++index;
  }
  return object;
}

}  // namespace outbox::ctl
