// mysql.tls: the default each kind of address gets, and what --check-config can tell without
// connecting (a mode that is not one, a file that cannot be read, a key without its
// certificate, a verify mode without a CA).
#include <sys/stat.h>
#include <catch2/catch.hpp>

#include "mysql/mysql_tls.hpp"
#include "relay_config_loading.hpp"
#include "test_env.hpp"

using outbox::effective_tls_mode;
using outbox::MysqlTls;
using outbox::TlsMode;

namespace {

outbox::test::LoadedConfig load_with_tls(const std::string& tls_lines,
                                         const std::string& host = "db.internal") {
  return outbox::test::load_relay_config_text("mysql:\n  host: " + host +
                                              "\n  user: relay\n  database: app\n  tls:\n" +
                                              tls_lines + "kafka:\n  bootstrap_servers: k:9092\n");
}

}  // namespace

TEST_CASE("mysql.tls defaults to required across a network, disabled on this machine", "[config]") {
  const MysqlTls unset;
  CHECK(effective_tls_mode(unset, "db.internal", "") == TlsMode::required);
  CHECK(effective_tls_mode(unset, "10.0.0.7", "") == TlsMode::required);
  CHECK(effective_tls_mode(unset, "127.0.0.1", "") == TlsMode::disabled);
  CHECK(effective_tls_mode(unset, "127.0.1.1", "") == TlsMode::disabled);
  CHECK(effective_tls_mode(unset, "localhost", "") == TlsMode::disabled);
  CHECK(effective_tls_mode(unset, "::1", "") == TlsMode::disabled);
  CHECK(effective_tls_mode(unset, "db.internal", "/run/mysqld/mysqld.sock") == TlsMode::disabled);
  // A CA given without a mode is meant to be used.
  MysqlTls with_ca;
  with_ca.ca_file = "/etc/ssl/rds-ca.pem";
  CHECK(effective_tls_mode(with_ca, "127.0.0.1", "") == TlsMode::verify_identity);
  // A mode given wins everywhere.
  MysqlTls disabled;
  disabled.mode = TlsMode::disabled;
  CHECK(effective_tls_mode(disabled, "db.internal", "") == TlsMode::disabled);
  for (const char* word : {"disabled", "preferred", "required", "verify_ca", "verify_identity"}) {
    REQUIRE(outbox::parse_tls_mode(word));
    CHECK(std::string(outbox::tls_mode_name(*outbox::parse_tls_mode(word))) == word);
  }
  CHECK_FALSE(outbox::parse_tls_mode("REQUIRED"));
}

TEST_CASE("mysql.tls mistakes are named by --check-config, before any connection", "[config]") {
  outbox::test::TempDir dir;
  const std::string ca = dir.write("ca.pem", "-----BEGIN CERTIFICATE-----\n");
  const std::string key = dir.write("key.pem", "-----BEGIN PRIVATE KEY-----\n");
  REQUIRE(chmod(key.c_str(), 0600) == 0);

  const auto ok = load_with_tls("    mode: verify_identity\n    ca_file: " + ca + "\n");
  INFO(ok.errors);
  REQUIRE(ok.config);
  CHECK(ok.config->mysql.tls.mode == TlsMode::verify_identity);
  CHECK(ok.config->mysql.tls.ca_file == ca);

  CHECK(load_with_tls("    mode: on\n").errors ==
        "relay.yaml:6: mysql.tls.mode: 'on' is not a TLS mode: disabled, preferred, required, "
        "verify_ca or verify_identity\n");
  CHECK(load_with_tls("    mode: verify_ca\n").errors ==
        "relay.yaml:6: mysql.tls.mode: verify_ca checks the server's certificate against "
        "mysql.tls.ca_file, which is not set\n");
  CHECK(load_with_tls("    mode: required\n    ca_file: /nonexistent/ca.pem\n").errors ==
        "relay.yaml:7: mysql.tls.ca_file: cannot read /nonexistent/ca.pem: No such file or "
        "directory\n");
  CHECK(load_with_tls("    mode: required\n    key_file: " + key + "\n").errors ==
        "relay.yaml:5: mysql.tls.cert_file: a client certificate needs both mysql.tls.cert_file "
        "and mysql.tls.key_file\n");
  CHECK(load_with_tls("    mode: disabled\n    ca_file: " + ca + "\n").errors ==
        "relay.yaml:6: mysql.tls.mode: is disabled, yet a TLS file is set (ca_file, cert_file or "
        "key_file): remove the files or choose another mode\n");
  CHECK(load_with_tls("    mode: required\n    cafile: x\n").errors.find("mysql.tls.cafile") !=
        std::string::npos);

  // A client key others can read is a warning, as a password file is.
  REQUIRE(chmod(key.c_str(), 0644) == 0);
  const auto exposed =
      load_with_tls("    mode: required\n    cert_file: " + ca + "\n    key_file: " + key + "\n");
  REQUIRE(exposed.config);
  CHECK(exposed.warnings.find("mysql.tls.key_file: mode 0644: readable by every user") !=
        std::string::npos);
}
