#pragma once

#include <string>
#include <utility>
#include <variant>

namespace outbox {

// Why an expected operation failed, in words an operator can act on.
struct Error {
  std::string message;
};

// A completed operation that yields no value.
struct Done {};

// The result of an operation that can fail in an expected way (database down, broker
// refused). [[nodiscard]] makes the caller look at it; exceptions are kept for what the
// caller cannot handle.
template <typename T>
class [[nodiscard]] Outcome {
 public:
  Outcome(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Outcome(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

using Status = Outcome<Done>;

inline Status ok_status() {
  return Done{};
}

}  // namespace outbox
