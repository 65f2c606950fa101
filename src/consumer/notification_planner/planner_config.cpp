#include "planner_config.hpp"

#include <yaml-cpp/yaml.h>

#include "config/mysql_section.hpp"

namespace outbox::planner {

std::optional<PlannerConfig> load_planner_config(const std::string& file, const EnvLookup& env,
                                                 ConfigDiagnostics& diagnostics) {
  const std::optional<YAML::Node> root_node = load_yaml_file(file, diagnostics);
  if (!root_node) return std::nullopt;
  YamlSection root(*root_node, "", 1, diagnostics, env);

  PlannerConfig config;
  config.mysql = read_mysql_section(root.section("mysql"));
  config.consumer = consumer::read_consumer_settings(
      root.section("kafka"), root.section("consumer"), kDefaultConsumerName, diagnostics);
  config.log = read_log_section(root.section("log"));
  root.reject_unknown_keys();
  if (!diagnostics.empty()) return std::nullopt;
  return config;
}

std::string print_planner_config(const PlannerConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "mysql" << YAML::Value;
  emit_mysql_section(config.mysql, out);
  consumer::emit_consumer_settings(config.consumer, out);
  out << YAML::Key << "log" << YAML::Value;
  emit_log_section(config.log, out);
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace outbox::planner
