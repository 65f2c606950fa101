// TLS to MySQL (mysql.tls), on a server of the test's own started with certificates from a CA
// the test makes (scripts/make-test-certs.sh) and require_secure_transport=ON, and on one that
// offers no TLS at all. Each mode is tried against it, with the right CA, a wrong CA and a host
// name the certificate does not name; the relay's --check-db says which TLS the session got.
// One test case per server, the modes in turn: each server costs seconds to make.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "child_process.hpp"
#include "mysql/mysql_session.hpp"
#include "programs.hpp"
#include "relay_process.hpp"
#include "soak_server.hpp"
#include "test_database.hpp"
#include "test_env.hpp"

using outbox::MysqlEndpoint;
using outbox::MysqlSession;
using outbox::TlsMode;
using outbox::test::TestDatabase;

namespace {

// A private server started with OUTBOX_DB_TLS_DIR set (scripts/lib/local-server.sh).
struct TlsServer {
  outbox::test::TempDir dir;
  std::string certs = dir.path() + "/certs";
  std::unique_ptr<outbox::verify::SoakServer> server;
  bool mysql = false;  // MySQL's script, not MariaDB's

  // tls_dir: "certs" (this server's own CA) or "none".
  explicit TlsServer(const std::string& tls) {
    const std::string script = outbox::verify::Programs::of_this_build().server_script;
    const std::string scripts = std::filesystem::path(script).parent_path().string();
    mysql = std::filesystem::path(script).filename() == "local-mysql.sh";
    const auto made = outbox::test::run_command({scripts + "/make-test-certs.sh", certs});
    REQUIRE(made.status == 0);
    ::setenv("OUTBOX_DB_TLS_DIR", tls == "none" ? "none" : certs.c_str(), 1);
    server = std::make_unique<outbox::verify::SoakServer>(script, dir.path() + "/server");
    ::unsetenv("OUTBOX_DB_TLS_DIR");
  }
  // The server's root over its socket (secure to require_secure_transport), for set-up.
  void as_root(const std::string& sql) const {
    const auto ran = outbox::test::run_command({"mariadb", "--no-defaults",
                                                "--socket=" + dir.path() + "/server/mysqld.sock",
                                                "-uroot", "-e", sql});
    INFO(ran.err);
    REQUIRE(ran.status == 0);
  }
  // The test account over TCP, with this TLS.
  MysqlEndpoint endpoint(std::optional<TlsMode> mode, const std::string& ca = "",
                         const std::string& host = "127.0.0.1") const {
    MysqlEndpoint endpoint = server->endpoint();
    endpoint.host = host;
    endpoint.tls.mode = mode;
    endpoint.tls.ca_file = ca.empty() ? "" : certs + "/" + ca;
    return endpoint;
  }
};

struct Opened {
  bool ok = false;
  std::string tls;    // the session's TLS, when opened
  std::string error;  // why not, when not
};

Opened open(const MysqlEndpoint& endpoint) {
  auto session = MysqlSession::open(endpoint, outbox::SessionSettings{});
  if (!session) return {false, "", session.error().message};
  return {true, session.value()->tls(), ""};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("MySQL TLS: each mode against a server that requires secure transport", "[tls]") {
  outbox::init_mysql_driver();
  const TlsServer server("certs");

  {  // disabled, and the loopback default (disabled), are refused by the server
    for (const auto mode : {std::optional<TlsMode>(TlsMode::disabled), std::optional<TlsMode>()}) {
      const Opened opened = open(server.endpoint(mode));
      INFO(opened.error);
      CHECK_FALSE(opened.ok);
      // MySQL names the reason (3159); MariaDB answers "access denied" (1045).
      CHECK((contains(opened.error, "3159") || contains(opened.error, "1045")));
    }
  }
  {  // preferred and required get TLS without checking the certificate
    for (const auto mode : {TlsMode::preferred, TlsMode::required}) {
      const Opened opened = open(server.endpoint(mode));
      INFO(opened.error);
      REQUIRE(opened.ok);
      CHECK(opened.tls.rfind("TLSv1.", 0) == 0);
      CHECK(contains(opened.tls, std::string("(mode ") + outbox::tls_mode_name(mode) + ")"));
    }
  }
  {  // verify_ca checks the chain, not the host name
    // The certificate names "localhost"; 127.0.0.1 is fine under verify_ca.
    const Opened right = open(server.endpoint(TlsMode::verify_ca, "ca.pem"));
    INFO(right.error);
    CHECK(right.ok);
    CHECK(contains(right.tls, "(mode verify_ca)"));
    const Opened wrong = open(server.endpoint(TlsMode::verify_ca, "other-ca.pem"));
    INFO(wrong.error);
    CHECK_FALSE(wrong.ok);
    CHECK(contains(wrong.error,
                   "mysql.tls (mode verify_ca, ca_file " + server.certs + "/other-ca.pem)"));
  }
  {  // verify_identity checks the chain and the host name
    const Opened right = open(server.endpoint(TlsMode::verify_identity, "ca.pem", "localhost"));
    INFO(right.error);
    CHECK(right.ok);
    CHECK(contains(right.tls, "(mode verify_identity)"));
    const Opened wrong_host = open(server.endpoint(TlsMode::verify_identity, "ca.pem"));
    INFO(wrong_host.error);
    CHECK_FALSE(wrong_host.ok);
    CHECK(contains(wrong_host.error, "mysql.tls (mode verify_identity, ca_file"));
    const Opened wrong_ca =
        open(server.endpoint(TlsMode::verify_identity, "other-ca.pem", "localhost"));
    INFO(wrong_ca.error);
    CHECK_FALSE(wrong_ca.ok);
    CHECK(contains(wrong_ca.error, "other-ca.pem"));
  }
  {  // an account that requires X509 needs cert_file and key_file
    server.as_root(
        "CREATE USER 'x509'@'127.0.0.1' IDENTIFIED BY 'x509-password' REQUIRE X509;"
        "GRANT SELECT ON *.* TO 'x509'@'127.0.0.1'");
    MysqlEndpoint endpoint = server.endpoint(TlsMode::verify_ca, "ca.pem");
    endpoint.user = "x509";
    endpoint.password = "x509-password";
    const Opened without = open(endpoint);
    CHECK_FALSE(without.ok);
    endpoint.tls.cert_file = server.certs + "/client-cert.pem";
    endpoint.tls.key_file = server.certs + "/client-key.pem";
    const Opened with = open(endpoint);
    INFO(with.error);
    CHECK(with.ok);
  }
  {  // the relay's --check-db says which TLS version and cipher it got
    MysqlEndpoint admin = server.server->endpoint();
    admin.socket = server.dir.path() + "/server/mysqld.sock";
    const TestDatabase db(admin);
    const std::string config =
        "mysql:\n"
        "  host: localhost\n"
        "  port: " +
        std::to_string(admin.port) +
        "\n"
        "  user: " +
        admin.user + "\n  password: " + admin.password + "\n  database: " + db.name() +
        "\n"
        "  tls:\n"
        "    mode: verify_identity\n"
        "    ca_file: " +
        server.certs +
        "/ca.pem\n"
        "kafka:\n"
        "  bootstrap_servers: 127.0.0.1:1\n";
    const std::string file = server.dir.write("relay.yaml", config);
    const auto ready =
        outbox::test::run_command({outbox::test::relay_binary(), "--check-db", file});
    INFO(ready.out << ready.err);
    CHECK(ready.status == 0);
    CHECK(contains(ready.out, " ready, TLSv1."));
    CHECK(contains(ready.out, "(mode verify_identity): "));
    // outboxctl reads the same mysql section (and its tls) from the same file.
    const auto backlog = outbox::test::run_command(
        {outbox::test::outboxctl_binary(), "--config", file, "--json", "backlog"});
    INFO(backlog.out << backlog.err);
    CHECK(backlog.status == 0);
  }
}

TEST_CASE("MySQL TLS: a client that requires TLS sends nothing to a server without it", "[tls]") {
  outbox::init_mysql_driver();
  const TlsServer server("none");
  // Every login the server sees, in its general log.
  server.as_root("SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = ON");
  const auto logins = [&] {
    const auto ran = outbox::test::run_command(
        {"mariadb", "--no-defaults", "--socket=" + server.dir.path() + "/server/mysqld.sock",
         "-uroot", "-N", "-e",
         "SELECT COUNT(*) FROM mysql.general_log WHERE command_type = 'Connect' AND "
         "argument LIKE 'outbox@%'"});
    REQUIRE(ran.status == 0);
    return std::stoll(ran.out);
  };
  const long long before = logins();
  for (const auto mode : {TlsMode::required, TlsMode::verify_ca, TlsMode::verify_identity}) {
    const Opened opened = open(server.endpoint(mode, mode == TlsMode::required ? "" : "ca.pem"));
    INFO(outbox::tls_mode_name(mode) << ": " << opened.error);
    CHECK_FALSE(opened.ok);
    CHECK(contains(opened.error, "requires TLS and the server offers none; nothing was sent"));
  }
  CHECK(logins() == before);
  // preferred takes what the server offers: no TLS, and says so. The login reaches the server
  // (so the count above would have seen the others'), and the server judges it.
  const Opened preferred = open(server.endpoint(TlsMode::preferred));
  INFO(preferred.error);
  if (server.mysql) {
    // MySQL's caching_sha2_password refuses a first login of the account without TLS (the
    // connector cannot ask for the server's RSA key): docs/configuration.md says so.
    CHECK(contains(preferred.error, "MySQL error 1045"));
  } else {
    REQUIRE(preferred.ok);
    CHECK(preferred.tls == "no TLS (mode preferred)");
  }
  CHECK(logins() > before);
}
