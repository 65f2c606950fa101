#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "config/duration.hpp"
#include "config/setting_table.hpp"
#include "config/yaml_section.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "outcome.hpp"

// Sections of the relay's config file that only the operator tool (outboxctl) acts on. The
// relay validates them with the rest of the file, so --check-config catches their mistakes
// too, and ignores them at run time.
namespace outbox {

// retention.*: what `outboxctl purge` deletes. Every window is off unless set.
struct RetentionSettings {
  // PUBLISHED rows whose published_at is older than this, and SKIPPED rows whose created_at is
  // (a skip records no time of its own).
  std::optional<Micros> published_after;
  // consumed_event rows whose consumed_at is older than this.
  std::optional<Micros> consumed_after;
  // The longest time after a publish in which Kafka may hand the event to a consumer again
  // (the topics' retention.ms, a consumer group reset). No window may be shorter: a consumer
  // must still find its consumed_event row, and an operator the event's row, when an old
  // event comes back.
  std::optional<Micros> broker_redelivery_window;
  // Rows per delete: each batch is one short transaction that locks only its own rows.
  int batch_size = 500;
};

// outboxctl.*: the operator tool's own MySQL account. The relay's account may only SELECT and
// UPDATE outbox_event, while purge deletes and the order/consumed lookups read other tables.
// The password file is read by outboxctl when it connects, never by the relay (which, under
// systemd, cannot even see it).
struct OutboxctlSettings {
  std::string user;  // empty: connect as mysql.user with mysql's password
  std::optional<std::string> password;
  std::optional<std::string> password_file;
};

// retention.*'s and outboxctl.*'s keys (setting_table.hpp).
const SettingTable<RetentionSettings>& retention_keys();
const SettingTable<OutboxctlSettings>& outboxctl_keys();

// A window that breaks the retention rules; `key` is the dotted path, e.g.
// "retention.published_after".
struct RetentionProblem {
  std::string key;
  std::string what;
};

// Windows shorter than the redelivery window, and windows set without one.
std::vector<RetentionProblem> retention_problems(const RetentionSettings& retention);

RetentionSettings read_retention_section(YamlSection section);
OutboxctlSettings read_outboxctl_section(YamlSection section);

void emit_retention_section(const RetentionSettings& retention, YAML::Emitter& out);
void emit_outboxctl_section(const OutboxctlSettings& outboxctl, YAML::Emitter& out);

// The account outboxctl connects with: mysql.*, with outboxctl.user and its password when
// set. Fails when the password file of the account it uses cannot be read; the other
// account's is never read (mysql's may be left unread by load_outboxctl_config).
Outcome<MysqlEndpoint> outboxctl_endpoint(const MysqlEndpoint& mysql,
                                          const OutboxctlSettings& outboxctl);

}  // namespace outbox
