#pragma once

#include <algorithm>
#include <chrono>

#include "config/duration.hpp"

namespace outbox {

// How long a worker's MySQL session may sit idle, on the server's side and on the worker's.
//
// A relay paused inside a claim or a mark transaction (a VM stall, a debugger, SIGSTOP) keeps
// that transaction's row locks until MySQL ends its session. Every other relay's claim skips
// locked rows (FOR UPDATE SKIP LOCKED), and under per_aggregate ordering every later version of
// those aggregates waits behind them; with the server's default wait_timeout (8 hours) that is
// a stall of hours for an event whose lease ended within a minute. The relay asks for its lease
// instead: a paused transaction and its locks end within one lease of the pause (MySQL counts
// from the session's last statement, so a mark begun late in its rows' lease can hold them
// up to one lease past it).
inline int claim_session_wait_timeout_seconds(Micros lease) {
  return std::max(1, static_cast<int>(std::chrono::ceil<std::chrono::seconds>(lease).count()));
}

// The worker replaces a session idle for half that before using it again (a broker outage
// stops claims for as long as it lasts), so its next claim or mark never meets a connection
// the server closed in the meantime: a failed mark would wait for a reconnect and a retry.
inline Micros claim_session_reuse_limit(Micros lease) {
  return Micros(std::chrono::seconds(claim_session_wait_timeout_seconds(lease))) / 2;
}

}  // namespace outbox
