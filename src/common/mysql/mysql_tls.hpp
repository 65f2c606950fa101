#pragma once

#include <optional>
#include <string>

namespace outbox {

// MySQL's own --ssl-mode words, so an operator can carry a setting over from the mysql client.
enum class TlsMode { disabled, preferred, required, verify_ca, verify_identity };

// mysql.tls: how a session protects itself. Client certificates (cert_file + key_file) are
// for servers whose accounts REQUIRE X509.
struct MysqlTls {
  // Unset: chosen by where the server is (effective_tls_mode), so the same default is safe for
  // a remote primary and still works for a loopback or unix-socket server that has no
  // certificate.
  std::optional<TlsMode> mode;
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

const char* tls_mode_name(TlsMode mode);
std::optional<TlsMode> parse_tls_mode(const std::string& word);

// True for a host name or address that never leaves the machine: localhost, 127.0.0.0/8, ::1.
bool is_loopback_host(const std::string& host);

// The mode a session uses: the configured one, else `required` for a server across the network
// (the password and every payload would cross it readable otherwise) and `disabled` for a unix
// socket or a loopback address (nothing crosses a network; most local servers have no
// certificate). Setting ca_file without a mode means verify_identity: a CA is given to be used.
TlsMode effective_tls_mode(const MysqlTls& tls, const std::string& host, const std::string& socket);

// Whether the mode refuses a session without TLS.
inline bool tls_mode_requires(TlsMode mode) {
  return mode != TlsMode::disabled && mode != TlsMode::preferred;
}

}  // namespace outbox
