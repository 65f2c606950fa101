#include "config/mysql_section.hpp"

#include "secret_file.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace outbox {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

}  // namespace

MysqlEndpoint read_mysql_section(YamlSection section, PasswordFileRead password_file_read) {
  MysqlEndpoint mysql;
  mysql.host = section.string("host", mysql.host);
  mysql.port = static_cast<int>(section.integer("port", mysql.port, 1, 65535));
  mysql.socket = section.string("socket", "");
  mysql.user = section.required_string("user");
  mysql.database = section.required_string("database");
  const std::optional<std::string> password = section.optional_string("password");
  const std::optional<std::string> password_file = section.optional_string("password_file");
  if (password && password_file) {
    section.problem("password_file", "set either mysql.password or mysql.password_file, not both");
  } else if (password_file) {
    mysql.password_file = *password_file;
    if (password_file_read == PasswordFileRead::kWithTheFile) {
      Outcome<std::string> secret = read_secret_file(*password_file);
      if (secret) {
        mysql.password = std::move(secret).value();
      } else {
        section.problem("password_file", secret.error().message);
      }
    }
    if (const std::string exposed = secret_file_exposure(*password_file); !exposed.empty()) {
      section.warning("password_file", exposed);
    }
  } else if (password) {
    mysql.password = *password;
    section.warn_if_inline_secret_exposed("password");
  }
  mysql.connect_timeout =
      section.duration("connect_timeout", mysql.connect_timeout, seconds(1), minutes(5));
  mysql.read_timeout = section.duration("read_timeout", mysql.read_timeout, seconds(1), hours(1));
  section.reject_unknown_keys();
  return mysql;
}

void emit_mysql_section(const MysqlEndpoint& mysql, YAML::Emitter& out, const std::string& table) {
  out << YAML::BeginMap;
  out << YAML::Key << "host" << YAML::Value << mysql.host;
  out << YAML::Key << "port" << YAML::Value << mysql.port;
  out << YAML::Key << "socket" << YAML::Value << mysql.socket;
  out << YAML::Key << "user" << YAML::Value << mysql.user;
  out << YAML::Key << "password" << YAML::Value << (mysql.password.empty() ? "" : "*****");
  if (!mysql.password_file.empty()) {
    out << YAML::Key << "password_file" << YAML::Value << mysql.password_file;
  }
  out << YAML::Key << "database" << YAML::Value << mysql.database;
  if (!table.empty()) out << YAML::Key << "table" << YAML::Value << table;
  out << YAML::Key << "connect_timeout" << YAML::Value << format_duration(mysql.connect_timeout);
  out << YAML::Key << "read_timeout" << YAML::Value << format_duration(mysql.read_timeout);
  out << YAML::EndMap;
}

}  // namespace outbox
