#pragma once

#include <catch2/catch.hpp>

#include "outcome.hpp"

// Failed REQUIRE(outcome) lines show the error text instead of "{?}".
namespace Catch {
template <typename T>
struct StringMaker<outbox::Outcome<T>> {
  static std::string convert(const outbox::Outcome<T>& outcome) {
    return outcome.ok() ? std::string("ok") : "error: " + outcome.error().message;
  }
};
}  // namespace Catch
