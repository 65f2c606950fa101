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

// mysql.tls: what can be known without connecting is checked here, so --check-config names the
// key (a file that cannot be read, a mode that needs a CA without one); what needs the server
// (a CA that did not sign its certificate, a host name it does not name) fails at connection.
MysqlTls read_tls_section(YamlSection section) {
  MysqlTls tls;
  if (std::optional<std::string> word = section.optional_string("mode")) {
    tls.mode = parse_tls_mode(*word);
    if (!tls.mode) {
      section.problem("mode", "'" + *word +
                                  "' is not a TLS mode: disabled, preferred, required, verify_ca "
                                  "or verify_identity");
    }
  }
  const auto readable_file = [&section](const std::string& key) -> std::string {
    std::string path = section.string(key, "");
    if (path.empty()) return path;
    if (Outcome<std::string> read = read_secret_file(path); !read) {
      section.problem(key, read.error().message);
    }
    return path;
  };
  tls.ca_file = readable_file("ca_file");
  tls.cert_file = readable_file("cert_file");
  tls.key_file = readable_file("key_file");
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    section.problem(tls.cert_file.empty() ? "cert_file" : "key_file",
                    "a client certificate needs both mysql.tls.cert_file and mysql.tls.key_file");
  }
  if (!tls.key_file.empty()) {
    if (const std::string exposed = secret_file_exposure(tls.key_file); !exposed.empty()) {
      section.warning("key_file", exposed);
    }
  }
  if (tls.mode == TlsMode::disabled &&
      !(tls.ca_file.empty() && tls.cert_file.empty() && tls.key_file.empty())) {
    section.problem("mode",
                    "is disabled, yet a TLS file is set (ca_file, cert_file or "
                    "key_file): remove the files or choose another mode");
  }
  if ((tls.mode == TlsMode::verify_ca || tls.mode == TlsMode::verify_identity) &&
      tls.ca_file.empty()) {
    section.problem("mode", std::string(tls_mode_name(*tls.mode)) +
                                " checks the server's certificate against mysql.tls.ca_file, "
                                "which is not set");
  }
  section.reject_unknown_keys();
  return tls;
}

// mysql.password or mysql.password_file (read now or at connection, by `password_file_read`).
void read_password(YamlSection& section, MysqlEndpoint& mysql,
                   PasswordFileRead password_file_read) {
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
}

}  // namespace

SettingTable<MysqlEndpoint> mysql_keys(PasswordFileRead password_file_read) {
  using S = MysqlEndpoint;
  SettingTable<S> keys;
  keys.string("host", &S::host)
      .integer("port", &S::port, 1, 65535)
      .string("socket", &S::socket)
      .required("user", &S::user)
      .custom(
          {"password", "password_file"}, Reload::kRestart,
          [password_file_read](YamlSection& section, S& mysql) {
            read_password(section, mysql, password_file_read);
          },
          [](YAML::Emitter& out, const S& mysql) {
            out << YAML::Key << "password" << YAML::Value
                << (mysql.password.empty() ? "" : "*****");
            if (!mysql.password_file.empty()) {
              out << YAML::Key << "password_file" << YAML::Value << mysql.password_file;
            }
          })
      .required("database", &S::database)
      .duration("connect_timeout", &S::connect_timeout, seconds(1), minutes(5))
      .duration("read_timeout", &S::read_timeout, seconds(1), hours(1))
      .custom(
          {"tls"}, Reload::kRestart,
          [](YamlSection& section, S& mysql) {
            mysql.tls = read_tls_section(section.section("tls"));
          },
          [](YAML::Emitter& out, const S& mysql) {
            out << YAML::Key << "tls" << YAML::Value << YAML::BeginMap;
            const TlsMode mode = effective_tls_mode(mysql.tls, mysql.host, mysql.socket);
            out << YAML::Key << "mode" << YAML::Value << tls_mode_name(mode);
            if (!mysql.tls.mode) out << YAML::Comment("the default for this host");
            out << YAML::Key << "ca_file" << YAML::Value << mysql.tls.ca_file;
            out << YAML::Key << "cert_file" << YAML::Value << mysql.tls.cert_file;
            out << YAML::Key << "key_file" << YAML::Value << mysql.tls.key_file;
            out << YAML::EndMap;
          });
  return keys;
}

MysqlEndpoint read_mysql_section(YamlSection section, PasswordFileRead password_file_read) {
  MysqlEndpoint mysql;
  mysql_keys(password_file_read).read(section, mysql);
  section.reject_unknown_keys();
  return mysql;
}

void emit_mysql_section(const MysqlEndpoint& mysql, YAML::Emitter& out, const std::string& table) {
  out << YAML::BeginMap;
  // Printing never reads the password file.
  mysql_keys(PasswordFileRead::kWhenConnecting).print(out, mysql);
  if (!table.empty()) out << YAML::Key << "table" << YAML::Value << table;
  out << YAML::EndMap;
}

}  // namespace outbox
