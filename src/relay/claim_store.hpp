#pragma once

#include <string>
#include <vector>

#include "config/duration.hpp"
#include "lease_token.hpp"
#include "outbox_event.hpp"
#include "outcome.hpp"

namespace outbox {

// Rows this worker now holds: status PUBLISHING, lease_owner = token.
struct ClaimedBatch {
  LeaseToken token;
  std::vector<OutboxEvent> events;
  // Event ids among `events` whose previous lease had expired (a dead or stalled owner).
  std::vector<std::string> reclaimed;
};

// What a conditional update (mark or release) did. Rows the condition refused are events whose
// lease this claim no longer holds: another claim reclaimed them after our lease expired.
struct LeaseUpdateResult {
  size_t changed = 0;
  std::vector<std::string> lease_lost;
};

// The database side of claim -> publish -> mark. Every method is one short transaction;
// an Error means the transaction did not commit (or its outcome is unknown), which is always
// safe: unmarked rows stay leased and are reclaimed when the lease ends.
class ClaimStore {
 public:
  virtual ~ClaimStore() = default;

  // Takes up to `limit` rows (expired leases first, then PENDING in created_at order) and
  // leases them to `token` until database now + `lease`.
  virtual Outcome<ClaimedBatch> claim(const LeaseToken& token, size_t limit, Micros lease) = 0;

  // PUBLISHING -> PUBLISHED for rows still leased to `token`; only for confirmed deliveries.
  virtual Outcome<LeaseUpdateResult> mark_published(const LeaseToken& token,
                                                    const std::vector<std::string>& ids) = 0;

  // PUBLISHING -> PENDING for rows still leased to `token`, so they are claimed again at once
  // instead of waiting for the lease to end.
  virtual Outcome<LeaseUpdateResult> release(const LeaseToken& token,
                                             const std::vector<std::string>& ids) = 0;

  // Whether the store's session is usable; false after a connection error.
  virtual bool connected() const = 0;
};

}  // namespace outbox
