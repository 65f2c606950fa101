#include "relay_config_loading.hpp"

#include "test_env.hpp"

namespace outbox::test {

EnvLookup env_of(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    const auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

LoadedConfig load_relay_config_text(const std::string& yaml,
                                    std::map<std::string, std::string> env) {
  TempDir dir;
  const std::string path = dir.write("relay.yaml", yaml);
  ConfigDiagnostics diagnostics(path);
  LoadedConfig loaded;
  loaded.config = load_relay_config(path, env_of(std::move(env)), diagnostics);
  // Tests compare messages without the temp path.
  loaded.errors = replace_all(diagnostics.render(), path, "relay.yaml");
  loaded.warnings = replace_all(diagnostics.render_warnings(), path, "relay.yaml");
  return loaded;
}

}  // namespace outbox::test
