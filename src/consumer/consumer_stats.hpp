#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace outbox::consumer {

// What a consumer did, for the progress line and tests. Written by the consumer's thread.
struct ConsumerStats {
  std::atomic<int64_t> applied{0};                 // effect committed, offset acknowledged
  std::atomic<int64_t> duplicates{0};              // already consumed: acknowledged, no effect
  std::atomic<int64_t> dead_lettered{0};           // stored on the dead-letter topic, acknowledged
  std::atomic<int64_t> gave_up{0};                 // ... of which after consumer.max_attempts
  std::atomic<int64_t> failed_attempts{0};         // attempts not acknowledged (retried later)
  std::atomic<int64_t> commit_unknown{0};          // ... of which the COMMIT threw
  std::atomic<int64_t> offset_commit_failures{0};  // acknowledgements the broker refused
                                                   // (the redelivery is deduplicated)
  std::atomic<int64_t> offset_commits{0};          // commit requests sent (each for many offsets)

  // "applied=... duplicates=... dead_lettered=... failed_attempts=... commit_unknown=...
  // offset_commit_failures=... gave_up=... offset_commits=..."
  std::string describe() const;
};

}  // namespace outbox::consumer
