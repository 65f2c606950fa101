#include "mysql/mysql_tls.hpp"

#include <array>
#include <utility>

namespace outbox {
namespace {

constexpr std::array<std::pair<TlsMode, const char*>, 5> kTlsModeNames{{
    {TlsMode::disabled, "disabled"},
    {TlsMode::preferred, "preferred"},
    {TlsMode::required, "required"},
    {TlsMode::verify_ca, "verify_ca"},
    {TlsMode::verify_identity, "verify_identity"},
}};

}  // namespace

const char* tls_mode_name(TlsMode mode) {
  for (const auto& [value, name] : kTlsModeNames) {
    if (value == mode) return name;
  }
  return "disabled";
}

std::optional<TlsMode> parse_tls_mode(const std::string& word) {
  for (const auto& [value, name] : kTlsModeNames) {
    if (word == name) return value;
  }
  return std::nullopt;
}

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

TlsMode effective_tls_mode(const MysqlTls& tls, const std::string& host,
                           const std::string& socket) {
  if (tls.mode) return *tls.mode;
  if (!tls.ca_file.empty()) return TlsMode::verify_identity;
  if (!socket.empty() || is_loopback_host(host)) return TlsMode::disabled;
  return TlsMode::required;
}

}  // namespace outbox
