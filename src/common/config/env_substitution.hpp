#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "outcome.hpp"

namespace outbox {

// Looks up an environment variable; injectable so tests do not touch the real environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

EnvLookup process_environment();

// Replaces ${NAME} and ${NAME:-fallback} with the variable's value; "$$" is a literal "$".
// Plain braces ("outbox.{aggregate_type}") are left alone: they belong to topic templates.
// A variable that is unset and has no fallback is an error naming it.
Outcome<std::string> substitute_env(std::string_view text, const EnvLookup& env);

// Whether the value as written supplies text of its own: literal characters, or the fallback
// of a ${NAME:-fallback} whose variable is unset. A value made only of references to set
// variables does not (a secret given that way lives in the environment, not in the file); nor
// does one that cannot be substituted (that is an error of its own).
bool holds_written_text(std::string_view text, const EnvLookup& env);

}  // namespace outbox
