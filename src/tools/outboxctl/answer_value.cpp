#include "answer_value.hpp"

#include <algorithm>
#include <cstdio>

namespace outbox::ctl {
namespace {

// Control characters would break the line-per-field layout: they are shown escaped, as in
// JSON; everything else is printed as it is.
std::string printable(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) {
      const std::string escaped = json_string(std::string(1, c));
      out += escaped.substr(1, escaped.size() - 2);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Value::Value(bool value) : kind_(Kind::kBool), scalar_(value ? "true" : "false") {}
Value::Value(int64_t value) : kind_(Kind::kNumber), scalar_(std::to_string(value)) {}
Value::Value(std::string text) : kind_(Kind::kText), scalar_(std::move(text)) {}

Value Value::seconds(double value) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  Value out(Kind::kNumber);
  out.scalar_ = buffer;
  return out;
}

Value Value::object() {
  return Value(Kind::kObject);
}

Value Value::list() {
  return Value(Kind::kList);
}

Value& Value::set(std::string key, Value value) {
  fields_.emplace_back(std::move(key), std::move(value));
  return *this;
}

Value& Value::add(Value item) {
  items_.push_back(std::move(item));
  return *this;
}

const Value& Value::at(const std::string& key) const {
  static const Value kNull;
  for (const auto& [name, value] : fields_) {
    if (name == key) return value;
  }
  return kNull;
}

std::string Value::json() const {
  std::string out;
  append_json(out);
  return out;
}

void Value::append_json(std::string& out) const {
  switch (kind_) {
    case Kind::kNull:
      out += "null";
      break;
    case Kind::kBool:
    case Kind::kNumber:
      out += scalar_;
      break;
    case Kind::kText:
      out += json_string(scalar_);
      break;
    case Kind::kObject:
      out += '{';
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) out += ',';
        out += json_string(fields_[i].first);
        out += ':';
        fields_[i].second.append_json(out);
      }
      out += '}';
      break;
    case Kind::kList:
      out += '[';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out += ',';
        items_[i].append_json(out);
      }
      out += ']';
      break;
  }
}

bool Value::inline_scalar() const {
  return (kind_ != Kind::kObject || fields_.empty()) && (kind_ != Kind::kList || items_.empty());
}

std::string Value::scalar_text() const {
  switch (kind_) {
    case Kind::kNull:
      return "-";
    case Kind::kText:
      return scalar_.empty() ? "\"\"" : printable(scalar_);
    case Kind::kObject:
    case Kind::kList:
      return "(none)";
    default:
      return scalar_;
  }
}

std::vector<std::string> Value::lines() const {
  std::vector<std::string> out;
  if (kind_ == Kind::kList) {
    for (const Value& item : items_) {
      if (item.inline_scalar()) {
        out.push_back("- " + item.scalar_text());
        continue;
      }
      const std::vector<std::string> inner = item.lines();
      for (size_t i = 0; i < inner.size(); ++i)
        out.push_back((i == 0 ? "- " : "  ") + inner[i]);
    }
    return out;
  }
  size_t width = 0;
  for (const auto& [key, value] : fields_) {
    if (value.inline_scalar()) width = std::max(width, key.size());
  }
  for (const auto& [key, value] : fields_) {
    if (value.inline_scalar()) {
      out.push_back(key + ":" + std::string(width - key.size() + 1, ' ') + value.scalar_text());
      continue;
    }
    out.push_back(key + ":");
    for (const std::string& line : value.lines())
      out.push_back("  " + line);
  }
  return out;
}

std::string Value::text_lines() const {
  if (inline_scalar()) return scalar_text() + "\n";
  std::string out;
  for (const std::string& line : lines())
    out += line + "\n";
  return out;
}

std::string json_string(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace outbox::ctl
