// The typed scalars of the config files: ${VAR} substitution (src/common/config/
// env_substitution.hpp) and durations (src/common/config/duration.hpp).
// - substitution of a text whose '$' are all doubled gives the text back ("$$" is a literal);
// - a reference to a variable that is set gives its value, an unset one its fallback or an
//   error naming it;
// - a duration that parses formats to a spelling that parses back to the same value.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <map>
#include <string>

#include "config/duration.hpp"
#include "config/env_substitution.hpp"

namespace {

std::string doubled_dollars(const std::string& text) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '$') out += '$';
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider input(data, size);
  const std::string name = input.ConsumeRandomLengthString(16);
  const std::string value = input.ConsumeRandomLengthString(64);
  const std::string duration_text = input.ConsumeRandomLengthString(32);
  const std::string text = input.ConsumeRemainingBytesAsString();
  const std::map<std::string, std::string> variables{{name, value}, {"HOST", "db.internal"}};
  const outbox::EnvLookup env = [&variables](const std::string& key) -> std::optional<std::string> {
    const auto found = variables.find(key);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };

  const outbox::Outcome<std::string> substituted = outbox::substitute_env(text, env);
  if (!substituted && substituted.error().message.empty()) std::abort();
  if (text.find('$') == std::string::npos && (!substituted || substituted.value() != text))
    std::abort();

  const outbox::Outcome<std::string> literal = outbox::substitute_env(doubled_dollars(text), env);
  if (!literal || literal.value() != text) std::abort();

  if (!name.empty() && name.find_first_of(":-}") == std::string::npos) {
    const outbox::Outcome<std::string> reference = outbox::substitute_env("${" + name + "}", env);
    // A valid name gives its value; an invalid one (e.g. "1x") an error, never other text.
    if (reference && reference.value() != value) std::abort();
  }

  if (const std::optional<outbox::Micros> parsed = outbox::parse_duration(duration_text)) {
    if (parsed->count() < 0) std::abort();
    const std::string spelled = outbox::format_duration(*parsed);
    const std::optional<outbox::Micros> again = outbox::parse_duration(spelled);
    if (!again || *again != *parsed) std::abort();
    (void)outbox::format_pause(*parsed);
  }
  return 0;
}
