#include "mysql/mysql_session.hpp"

#include <cppconn/exception.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <algorithm>

#include "mysql/mysql_error.hpp"
#include "mysql/server_greeting.hpp"
#include "secret_file.hpp"

namespace outbox {

namespace {

// Each row event's statement text, which the binary log can carry beside the rows: MariaDB
// writes it by default (binlog_annotate_row_events), MySQL where binlog_rows_query_log_events
// is on. A claim's or a mark's text names every event id it updates, so on MariaDB the text
// was a third of what the relay's updates logged (measured: 54 of the ~165 bytes per event of
// a claim and a mark, with MINIMAL row images). Nothing reads it but a person with
// mariadb-binlog. Each server knows only its own variable and answers the other's with 1193;
// both need the privilege binlog_row_image needs, which the caller's session has just used.
// A refusal all the same leaves the text in the log: more bytes, nothing else.
void drop_statement_text(MysqlSession& session) {
  for (const char* variable : {"binlog_annotate_row_events", "binlog_rows_query_log_events"}) {
    try {
      session.execute(std::string("SET SESSION ") + variable + " = OFF");
      return;
    } catch (const sql::SQLException& e) {
      if (e.getErrorCode() == kSpecificAccessDeniedError) return;
      if (e.getErrorCode() != kUnknownSystemVariableError) throw;
    }
  }
}

}  // namespace

std::string MysqlEndpoint::describe() const {
  const std::string where = socket.empty() ? host + ":" + std::to_string(port) : "unix:" + socket;
  return user + "@" + where + "/" + database;
}

void init_mysql_driver() {
  sql::mysql::get_mysql_driver_instance();
}

MysqlThreadScope::MysqlThreadScope() {
  sql::mysql::get_mysql_driver_instance()->threadInit();
}
MysqlThreadScope::~MysqlThreadScope() {
  sql::mysql::get_mysql_driver_instance()->threadEnd();
}

MysqlSession::MysqlSession(std::unique_ptr<sql::Connection> connection)
    : connection_(std::move(connection)) {}

namespace {

// "mysql.tls (mode verify_ca, ca_file /etc/x/ca.pem)": names the keys an error is about.
std::string tls_keys(const MysqlTls& tls, TlsMode mode) {
  std::string keys = std::string("mysql.tls (mode ") + tls_mode_name(mode);
  if (!tls.ca_file.empty()) keys += ", ca_file " + tls.ca_file;
  if (!tls.cert_file.empty()) keys += ", cert_file " + tls.cert_file;
  return keys + ")";
}

// Adds the connector's TLS options for the mode. Connector/C++ 1.1 over libmariadb: any of
// sslCA/sslCert/sslKey or sslEnforce turns TLS on; sslVerify checks the host name against the
// certificate; a CA makes the chain checked (a certificate it did not sign is refused).
void add_tls_options(const MysqlTls& tls, TlsMode mode, sql::ConnectOptionsMap& options) {
  if (mode == TlsMode::disabled) return;
  options["sslEnforce"] = true;
  if (!tls.ca_file.empty()) options["sslCA"] = sql::SQLString(tls.ca_file);
  if (!tls.cert_file.empty()) options["sslCert"] = sql::SQLString(tls.cert_file);
  if (!tls.key_file.empty()) options["sslKey"] = sql::SQLString(tls.key_file);
  if (mode == TlsMode::verify_identity) options["sslVerify"] = true;
}

// "TLSv1.3 TLS_AES_256_GCM_SHA384", or "" when the session is not encrypted.
std::string session_cipher(MysqlSession& session) {
  std::unique_ptr<sql::Statement> statement(session.connection().createStatement());
  std::unique_ptr<sql::ResultSet> rows(statement->executeQuery(
      "SHOW SESSION STATUS WHERE Variable_name = 'Ssl_version' OR Variable_name = 'Ssl_cipher'"));
  std::string version;
  std::string cipher;
  while (rows->next()) {
    const std::string name = rows->getString(1);
    (name == "Ssl_version" ? version : cipher) = rows->getString(2);
  }
  if (cipher.empty()) return "";
  return version + " " + cipher;
}

}  // namespace

Outcome<std::unique_ptr<MysqlSession>> MysqlSession::open(const MysqlEndpoint& endpoint,
                                                          const SessionSettings& settings) {
  const auto seconds = [](Micros value) {
    return std::max(1, static_cast<int>(std::chrono::ceil<std::chrono::seconds>(value).count()));
  };
  sql::ConnectOptionsMap options;
  options["hostName"] = sql::SQLString(endpoint.socket.empty() ? "tcp://" + endpoint.host + ":" +
                                                                     std::to_string(endpoint.port)
                                                               : "unix://" + endpoint.socket);
  options["userName"] = sql::SQLString(endpoint.user);
  std::string password = endpoint.password;
  if (!endpoint.password_file.empty()) {
    Outcome<std::string> current = read_secret_file(endpoint.password_file);
    if (!current) {
      return Error{"cannot connect to MySQL " + endpoint.describe() +
                   ": mysql.password_file: " + current.error().message};
    }
    password = std::move(current).value();
  }
  options["password"] = sql::SQLString(password);
  options["schema"] = sql::SQLString(endpoint.database);
  options["OPT_CONNECT_TIMEOUT"] = seconds(endpoint.connect_timeout);
  options["OPT_READ_TIMEOUT"] = seconds(endpoint.read_timeout);
  options["OPT_WRITE_TIMEOUT"] = seconds(endpoint.read_timeout);
  options["OPT_RECONNECT"] = false;
  options["OPT_CHARSET_NAME"] = sql::SQLString("utf8mb4");
  const TlsMode mode = effective_tls_mode(endpoint.tls, endpoint.host, endpoint.socket);
  if (tls_mode_requires(mode)) {
    // Before any credential goes out: a server that offers no TLS would get the login in
    // cleartext (server_greeting.hpp says why the connector cannot be trusted with this).
    Outcome<bool> offered =
        server_offers_tls(endpoint.host, endpoint.port, endpoint.socket, endpoint.connect_timeout);
    if (!offered) {
      return Error{"cannot connect to MySQL " + endpoint.describe() + ": " +
                   offered.error().message};
    }
    if (!offered.value()) {
      return Error{"cannot connect to MySQL " + endpoint.describe() + ": " +
                   tls_keys(endpoint.tls, mode) +
                   " requires TLS and the server offers none; nothing was sent to it (enable "
                   "TLS on the server, or set mysql.tls.mode: preferred or disabled)"};
    }
  }
  add_tls_options(endpoint.tls, mode, options);
  try {
    std::unique_ptr<sql::Connection> connection;
    try {
      connection.reset(sql::mysql::get_mysql_driver_instance()->connect(options));
    } catch (const sql::SQLException& e) {
      // 2026: the TLS handshake failed (a CA that did not sign the server's certificate, a host
      // name the certificate does not name, an unreadable file).
      if (e.getErrorCode() == 2026) {
        return Error{"cannot connect to MySQL " + endpoint.describe() + ": " +
                     tls_keys(endpoint.tls, mode) + ": " + describe_sql_error(e)};
      }
      throw;
    }
    std::unique_ptr<MysqlSession> session(new MysqlSession(std::move(connection)));
    if (mode == TlsMode::disabled) {
      session->tls_ = "no TLS (mode disabled)";
    } else {
      const std::string cipher = session_cipher(*session);
      if (cipher.empty() && tls_mode_requires(mode)) {
        return Error{"cannot connect to MySQL " + endpoint.describe() + ": " +
                     tls_keys(endpoint.tls, mode) +
                     " requires TLS and the session was opened without it; closed"};
      }
      session->tls_ =
          (cipher.empty() ? std::string("no TLS") : cipher) + " (mode " + tls_mode_name(mode) + ")";
    }
    session->execute("SET SESSION time_zone = '+00:00'");
    if (settings.read_committed) {
      session->execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    }
    session->execute("SET SESSION innodb_lock_wait_timeout = " +
                     std::to_string(settings.lock_wait_timeout_seconds));
    if (settings.wait_timeout_seconds > 0) {
      session->execute("SET SESSION wait_timeout = " +
                       std::to_string(settings.wait_timeout_seconds));
    }
    if (settings.minimal_row_image) {
      try {
        session->execute("SET SESSION binlog_row_image = 'MINIMAL'");
        drop_statement_text(*session);
      } catch (const sql::SQLException& e) {
        // ER_SPECIFIC_ACCESS_DENIED_ERROR: the account lacks the privilege. The session works
        // as well with the server's image; only the binary log grows more.
        if (e.getErrorCode() != kSpecificAccessDeniedError) throw;
        session->row_image_refusal_ = describe_sql_error(e);
      }
    }
    session->connection().setAutoCommit(settings.autocommit);
    return session;
  } catch (const sql::SQLException& e) {
    return Error{"cannot connect to MySQL " + endpoint.describe() + ": " + describe_sql_error(e)};
  }
}

sql::PreparedStatement& MysqlSession::prepare(const std::string& text) {
  auto found = statements_.find(text);
  if (found != statements_.end()) return *found->second;
  std::unique_ptr<sql::PreparedStatement> statement(connection_->prepareStatement(text));
  return *statements_.emplace(text, std::move(statement)).first->second;
}

void MysqlSession::execute(const std::string& text) {
  std::unique_ptr<sql::Statement> statement(connection_->createStatement());
  statement->execute(text);
}

void MysqlSession::commit() {
  execute("COMMIT");
}

Status MysqlSession::rollback() {
  try {
    execute("ROLLBACK");
    return ok_status();
  } catch (const sql::SQLException& e) {
    return Error{"rollback failed: " + describe_sql_error(e)};
  }
}

void MysqlSession::rollback_quietly() noexcept {
  try {
    execute("ROLLBACK");
  } catch (...) {  // NOLINT(bugprone-empty-catch): the caller is already reporting a failure
  }
}

}  // namespace outbox
