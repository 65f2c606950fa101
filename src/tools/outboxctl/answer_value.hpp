#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace outbox::ctl {

// A command's answer as a tree: null, true/false, a number, text, an object of named fields
// (kept in the order they were set) or a list. Every command builds one and prints it either
// as aligned text for a person or as one JSON document for a script, so the two forms never
// disagree and share one set of names.
class Value {
 public:
  Value() = default;                                        // null
  Value(std::nullptr_t) {}                                  // NOLINT(google-explicit-constructor)
  Value(bool value);                                        // NOLINT(google-explicit-constructor)
  Value(int64_t value);                                     // NOLINT(google-explicit-constructor)
  Value(int value) : Value(static_cast<int64_t>(value)) {}  // NOLINT(google-explicit-constructor)
  Value(std::string text);                                  // NOLINT(google-explicit-constructor)
  Value(const char* text) : Value(std::string(text)) {}     // NOLINT(google-explicit-constructor)

  // A duration in seconds with millisecond precision, e.g. 3600.125.
  static Value seconds(double value);
  static Value object();
  static Value list();

  // Adds a field to an object; returns the object, so fields chain.
  Value& set(std::string key, Value value);
  // Appends an item to a list.
  Value& add(Value item);

  bool is_null() const { return kind_ == Kind::kNull; }
  // A field of an object (null when absent).
  const Value& at(const std::string& key) const;
  const std::string& text() const { return scalar_; }  // a text or number's spelling
  const std::vector<Value>& items() const { return items_; }

  // One line of JSON, no trailing newline.
  std::string json() const;
  // "key: value" lines, values of one object aligned, nested objects and lists indented; null
  // reads "-", an empty object or list "(none)". Each line ends in a newline.
  std::string text_lines() const;

 private:
  enum class Kind { kNull, kBool, kNumber, kText, kObject, kList };
  explicit Value(Kind kind) : kind_(kind) {}

  void append_json(std::string& out) const;
  // The lines of an object or list, unindented.
  std::vector<std::string> lines() const;
  bool inline_scalar() const;  // printed on its key's line
  std::string scalar_text() const;

  Kind kind_ = Kind::kNull;
  std::string scalar_;                                 // bool, number, text
  std::vector<std::pair<std::string, Value>> fields_;  // object
  std::vector<Value> items_;                           // list
};

// A JSON string literal of text (quotes, backslashes and control characters escaped).
std::string json_string(const std::string& text);

}  // namespace outbox::ctl
