#pragma once

#include <cstdint>
#include <string>

namespace outbox {

// The lease_owner value of one claim: "<claimant>/w<worker>/c<sequence>", where the claimant
// is "<instance id>/<start nonce>" (claimant_id()). Unique per claim, not per worker, so a
// worker that was stalled past its lease can never match the rows of a newer claim, even one
// made later by itself; and unique per process start, so two processes given the same
// relay.instance_id (a config copied across hosts, a restarted pod) never share a token.
class LeaseToken {
 public:
  LeaseToken(const std::string& claimant, int worker, uint64_t sequence);
  const std::string& value() const { return value_; }
  bool operator==(const LeaseToken&) const = default;

 private:
  std::string value_;
};

// "<host>-<pid>": a relay instance's default id.
std::string default_instance_id();

// "<instance_id>/<6 random hex digits>", drawn once per call: the prefix of every token of
// one process start.
std::string claimant_id(const std::string& instance_id);

// The column is VARCHAR(128); a token must fit with room for the nonce, worker and sequence.
inline constexpr size_t kMaxInstanceIdLength = 95;

}  // namespace outbox
