#include "config/env_substitution.hpp"

#include <cstdlib>

namespace outbox {

EnvLookup process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

namespace {

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return !(name[0] >= '0' && name[0] <= '9');
}

}  // namespace

Outcome<std::string> substitute_env(std::string_view text, const EnvLookup& env) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$') {
      out.push_back(text[i++]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '$') {
      out.push_back('$');
      i += 2;
      continue;
    }
    if (i + 1 >= text.size() || text[i + 1] != '{') {
      out.push_back(text[i++]);
      continue;
    }
    const size_t close = text.find('}', i + 2);
    // The messages below never quote the value: it may be a password (one that happens to
    // contain "${"), and diagnostics end up in the journal.
    if (close == std::string_view::npos) {
      return Error{"unterminated ${ at character " + std::to_string(i + 1) +
                   " of the value (write $$ for a literal $)"};
    }
    const std::string_view inner = text.substr(i + 2, close - i - 2);
    const size_t fallback_at = inner.find(":-");
    const std::string_view name = inner.substr(0, fallback_at);
    if (!valid_name(name)) {
      return Error{"the ${...} at character " + std::to_string(i + 1) +
                   " of the value is not a valid environment variable reference (write $$ for a "
                   "literal $)"};
    }
    std::optional<std::string> value = env(std::string(name));
    if (!value && fallback_at != std::string_view::npos) {
      value = std::string(inner.substr(fallback_at + 2));
    }
    if (!value) return Error{"environment variable " + std::string(name) + " is not set"};
    out += *value;
    i = close + 1;
  }
  return out;
}

bool holds_written_text(std::string_view text, const EnvLookup& env) {
  // Every set variable contributes nothing; what is left came from the file.
  const EnvLookup blanked = [&env](const std::string& name) -> std::optional<std::string> {
    if (env(name)) return std::string();
    return std::nullopt;
  };
  const Outcome<std::string> own = substitute_env(text, blanked);
  return own && !own.value().empty();
}

}  // namespace outbox
