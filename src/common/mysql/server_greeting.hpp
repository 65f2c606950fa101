#pragma once

#include <string>

#include "config/duration.hpp"
#include "outcome.hpp"

namespace outbox {

// Whether the server at host:port (or the unix socket, when not empty) offers TLS, read from
// the first packet it sends (the protocol greeting's CLIENT_SSL capability), before any
// credential is sent. The connection is closed right after.
//
// Why: Debian's Connector/C++ 1.1 over libmariadb ignores OPT_SSL_MODE, and with sslEnforce a
// server that offers no TLS gets the login in cleartext anyway. Asking the greeting first lets
// a session that requires TLS refuse such a server with nothing sent to it.
//
// Cost: one extra TCP connection per session opened; MySQL counts it as a handshake error of
// the client's host (host_cache), reset by the successful login that follows.
Outcome<bool> server_offers_tls(const std::string& host, int port, const std::string& socket,
                                Micros timeout);

}  // namespace outbox
