#include "config/config_diagnostics.hpp"

#include <algorithm>

namespace outbox {

std::string ConfigProblem::to_string() const {
  std::string out = file;
  // Appended piece by piece: GCC 12 at -O2/-O3 reports a false -Wrestrict inside
  // `"literal" + std::string&&` (GCC PR 105651), and -Werror builds must not trip on it.
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": ";
  if (!key_path.empty()) out += key_path + ": ";
  out += what;
  return out;
}

void ConfigDiagnostics::add(int line, std::string key_path, std::string what) {
  problems_.push_back(ConfigProblem{file_, line, std::move(key_path), std::move(what)});
}

void ConfigDiagnostics::warn(int line, std::string key_path, std::string what) {
  warnings_.push_back(ConfigProblem{file_, line, std::move(key_path), std::move(what)});
}

std::string ConfigDiagnostics::render_warnings() const {
  std::string out;
  for (const ConfigProblem& warning : warnings_)
    out += "warning: " + warning.to_string() + "\n";
  return out;
}

std::string ConfigDiagnostics::render() const {
  std::vector<ConfigProblem> sorted = problems_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const ConfigProblem& a, const ConfigProblem& b) { return a.line < b.line; });
  std::string out;
  for (const ConfigProblem& problem : sorted)
    out += problem.to_string() + "\n";
  return out;
}

}  // namespace outbox
