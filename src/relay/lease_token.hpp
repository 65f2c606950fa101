#pragma once

#include <cstdint>
#include <string>

namespace outbox {

// The lease_owner value of one claim: "<instance>/w<worker>/c<sequence>". Unique per claim,
// not per worker, so a worker that was stalled past its lease can never match the rows of a
// newer claim, even one made later by itself.
class LeaseToken {
 public:
  LeaseToken(const std::string& instance_id, int worker, uint64_t sequence);
  const std::string& value() const { return value_; }
  bool operator==(const LeaseToken&) const = default;

 private:
  std::string value_;
};

// "<host>-<pid>-<random>": a relay instance's default id, distinct across hosts, processes
// and restarts of the same pid.
std::string default_instance_id();

// The column is VARCHAR(128); a token must fit with room for the worker and sequence parts.
inline constexpr size_t kMaxInstanceIdLength = 96;

}  // namespace outbox
