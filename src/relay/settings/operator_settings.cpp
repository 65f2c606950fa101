#include "settings/operator_settings.hpp"

#include "config/mysql_section.hpp"
#include "lease_store/lease_sql.hpp"

namespace outbox {
namespace {

using std::chrono::minutes;

// Retention windows are days to years; anything shorter than a minute is a typo.
constexpr Micros kMinWindow = minutes(1);
constexpr Micros kMaxWindow = std::chrono::hours(24 * 3660);

SettingTable<RetentionSettings> make_retention_keys() {
  using S = RetentionSettings;
  SettingTable<S> keys;
  keys.optional_duration("published_after", &S::published_after, kMinWindow, kMaxWindow)
      .optional_duration("consumed_after", &S::consumed_after, kMinWindow, kMaxWindow)
      .optional_duration("broker_redelivery_window", &S::broker_redelivery_window, kMinWindow,
                         kMaxWindow)
      .integer("batch_size", &S::batch_size, 1, static_cast<int64_t>(lease_sql::kMaxIdList));
  return keys;
}

// An optional string, present or not; `shown` as it prints.
SettingTable<OutboxctlSettings>::Printer print_optional(
    const std::string& key, std::optional<std::string> OutboxctlSettings::*member, Shown shown) {
  return [key, member, shown](YAML::Emitter& out, const OutboxctlSettings& settings) {
    const std::optional<std::string>& value = settings.*member;
    out << YAML::Key << key << YAML::Value
        << (!value                      ? std::string()
            : shown == Shown::kRedacted ? std::string("*****")
                                        : *value);
  };
}

SettingTable<OutboxctlSettings> make_outboxctl_keys() {
  using S = OutboxctlSettings;
  SettingTable<S> keys;
  keys.string("user", &S::user)
      .custom(
          {"password"}, Reload::kRestart,
          [](YamlSection& section, S& outboxctl) {
            outboxctl.password = section.optional_string("password");
            if (outboxctl.password) section.warn_if_inline_secret_exposed("password");
          },
          print_optional("password", &S::password, Shown::kRedacted))
      // Only the path: the file belongs to outboxctl and is read when it connects.
      .custom(
          {"password_file"}, Reload::kRestart,
          [](YamlSection& section, S& outboxctl) {
            outboxctl.password_file = section.optional_string("password_file");
          },
          print_optional("password_file", &S::password_file, Shown::kAsIs));
  return keys;
}

}  // namespace

const SettingTable<OutboxctlSettings>& outboxctl_keys() {
  static const SettingTable<OutboxctlSettings> keys = make_outboxctl_keys();
  return keys;
}

const SettingTable<RetentionSettings>& retention_keys() {
  static const SettingTable<RetentionSettings> keys = make_retention_keys();
  return keys;
}

std::vector<RetentionProblem> retention_problems(const RetentionSettings& retention) {
  std::vector<RetentionProblem> problems;
  const bool any_window = retention.published_after || retention.consumed_after;
  if (any_window && !retention.broker_redelivery_window) {
    problems.push_back(
        {"retention.broker_redelivery_window",
         "is required when retention.published_after or retention.consumed_after is set: the "
         "longest time in which Kafka may deliver an event again (the topics' retention.ms, or "
         "longer if consumer groups are ever reset), which no window may undercut"});
    return problems;
  }
  const auto check = [&](const char* key, const std::optional<Micros>& window) {
    if (window && *window < *retention.broker_redelivery_window) {
      problems.push_back({std::string("retention.") + key,
                          "must not be shorter than retention.broker_redelivery_window (" +
                              format_duration(*retention.broker_redelivery_window) + "), got " +
                              format_duration(*window) +
                              ": an event Kafka delivers again must still find its rows"});
    }
  };
  check("published_after", retention.published_after);
  check("consumed_after", retention.consumed_after);
  return problems;
}

RetentionSettings read_retention_section(YamlSection section) {
  RetentionSettings retention;
  retention_keys().read(section, retention);
  for (const RetentionProblem& problem : retention_problems(retention)) {
    section.problem(problem.key.substr(problem.key.find('.') + 1), problem.what);
  }
  section.reject_unknown_keys();
  return retention;
}

OutboxctlSettings read_outboxctl_section(YamlSection section) {
  OutboxctlSettings outboxctl;
  outboxctl_keys().read(section, outboxctl);
  if (outboxctl.password && outboxctl.password_file) {
    section.problem("password_file",
                    "set either outboxctl.password or outboxctl.password_file, not both");
  }
  if (outboxctl.user.empty() && (outboxctl.password || outboxctl.password_file)) {
    section.problem("user",
                    "is required with outboxctl.password or outboxctl.password_file (without "
                    "it outboxctl connects as mysql.user with mysql's password)");
  }
  section.reject_unknown_keys();
  return outboxctl;
}

void emit_retention_section(const RetentionSettings& retention, YAML::Emitter& out) {
  retention_keys().emit_section(out, retention);
}

void emit_outboxctl_section(const OutboxctlSettings& outboxctl, YAML::Emitter& out) {
  outboxctl_keys().emit_section(out, outboxctl);
}

Outcome<MysqlEndpoint> outboxctl_endpoint(const MysqlEndpoint& mysql,
                                          const OutboxctlSettings& outboxctl) {
  MysqlEndpoint endpoint = mysql;
  if (outboxctl.user.empty()) {
    if (!mysql.password_file.empty()) {
      Outcome<std::string> secret = read_secret_file(mysql.password_file);
      if (!secret) {
        return Error{"mysql.password_file: " + secret.error().message +
                     " (outboxctl.user is not set, so outboxctl connects as mysql.user with its "
                     "password; give outboxctl an account of its own with outboxctl.user and "
                     "outboxctl.password_file)"};
      }
      endpoint.password = std::move(secret).value();
    }
    return endpoint;
  }
  endpoint.user = outboxctl.user;
  endpoint.password = outboxctl.password.value_or("");
  // Never mysql's file: MysqlSession::open reads the endpoint's password_file at every
  // connection and would log outboxctl's account in with the relay's password.
  endpoint.password_file = outboxctl.password_file.value_or("");
  if (outboxctl.password_file) {
    Outcome<std::string> secret = read_secret_file(*outboxctl.password_file);
    if (!secret) return Error{"outboxctl.password_file: " + secret.error().message};
    endpoint.password = std::move(secret).value();
  }
  return endpoint;
}

}  // namespace outbox
