#pragma once

#include "config/setting_table.hpp"
#include "config/yaml_section.hpp"
#include "mysql/mysql_endpoint.hpp"
#include "outcome.hpp"
#include "secret_file.hpp"

namespace outbox {

// When mysql.password_file is first read.
enum class PasswordFileRead {
  // With the rest of the file: a missing or unreadable one is a config error (--check-config
  // says so before the program connects anywhere). Every daemon.
  kWithTheFile,
  // Only when a session opens (MysqlSession::open reads it then anyway): the path is kept, the
  // password left empty. outboxctl, which connects as mysql.user only when the file names no
  // account of its own, so that the purge unit needs no copy of the relay's password.
  kWhenConnecting,
};

// mysql.*'s keys (setting_table.hpp); `password_file_read` says when mysql.password_file is
// read.
SettingTable<MysqlEndpoint> mysql_keys(PasswordFileRead password_file_read);

// Reads a `mysql:` section (host, port, socket, user, password | password_file, database,
// connect_timeout, read_timeout, tls), shared by every program configured by YAML. A password_file
// that other users can read is a warning; the file is read again at every connection.
MysqlEndpoint read_mysql_section(
    YamlSection section, PasswordFileRead password_file_read = PasswordFileRead::kWithTheFile);

// Writes the endpoint as a YAML mapping value with the password as *****; `table` (the relay's
// mysql.table, read by the relay's own reader) is written last when not empty.
void emit_mysql_section(const MysqlEndpoint& mysql, YAML::Emitter& out,
                        const std::string& table = "");

}  // namespace outbox
