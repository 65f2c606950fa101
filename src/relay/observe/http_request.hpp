#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace outbox {

// The head of one HTTP/1.x request to the metrics endpoint, read from the bytes received so far.
// The endpoint serves three GET paths and takes no request body, so anything else is refused
// early instead of being read.
struct RequestHead {
  enum class State {
    kIncomplete,  // no blank line yet and within the size limit: wait for more bytes
    kComplete,    // method and path parsed
    kRefused,     // answer `status` with `reason` and close
  };
  State state = State::kIncomplete;
  std::string method;
  std::string path;  // without the query string
  int status = 0;    // for kRefused: 400, 405, 413, 431, 505
  std::string reason;
};

// A request head larger than this is refused with 431 whatever it holds: a probe or a scrape
// sends a few hundred bytes.
inline constexpr size_t kMaxRequestHead = size_t{8} * 1024;

// Parses `received` (everything the connection sent so far).
RequestHead parse_request_head(std::string_view received);

}  // namespace outbox
