#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>

#include "outcome.hpp"

namespace outbox {

// What librdkafka did below the delivery reports, from its statistics (statistics.interval.ms,
// librdkafka's STATISTICS.md): a produce request lost with its connection is sent again inside
// the client and, with the idempotent producer, deduplicated by the broker, so no delivery
// report ever shows it. These totals do.
struct BrokerRequestTotals {
  uint64_t retries = 0;          // brokers.*.txretries: requests sent again
  uint64_t timeouts = 0;         // brokers.*.req_timeouts: requests that got no answer in time
  uint64_t transmit_errors = 0;  // brokers.*.txerrs
  uint64_t disconnects = 0;      // brokers.*.disconnects: connections lost
  // txmsgs (top level): messages put on the wire in produce requests, every resend included.
  // librdkafka 2.0.2 resends a failed produce request's messages in a new request (they go
  // back to their partition's queue) and counts that in no txretries; more messages sent than
  // the relay handed over is how such resends show.
  uint64_t messages_transmitted = 0;
  // Whether any of the trouble counters (all but messages_transmitted) moved.
  bool any() const { return retries + timeouts + transmit_errors + disconnects > 0; }
};

// Reads those counters from one statistics document (the JSON text the stats callback
// receives): the four summed over brokers.<name>, txmsgs from the top level. The same names
// elsewhere (a partition's txmsgs, a topic called "txretries", a string value) do not count.
// No JSON library: a small scanner that reads strings, numbers, objects and arrays and fails
// on anything that is not well-formed, so a truncated document is rejected, not half counted.
Outcome<BrokerRequestTotals> parse_broker_request_totals(std::string_view json);

// Per-process totals over every producer the relay created. Each producer's statistics count
// from its own creation, and the relay replaces a producer after a fatal error, so the total is
// the sum of each generation's latest report. A generation never goes backwards (a broker that
// left the cluster drops out of its document; its counts stay), so the sums are counters.
class ClientStatistics {
 public:
  void record(int generation, const BrokerRequestTotals& totals);
  // The generation's producer is gone (its handle destroyed, so no report of it can follow):
  // its latest totals move into one sum, so a relay that replaces producers for days (gapless
  // producers after every failed batch) holds one entry per live producer, not per producer
  // it ever made.
  void retire(int generation);
  BrokerRequestTotals totals() const;
  // Entries held: one per producer not yet retired.
  size_t generations_held() const;

 private:
  mutable std::mutex mutex_;
  std::map<int, BrokerRequestTotals> by_generation_;
  BrokerRequestTotals retired_;  // the sum of every retired generation's latest totals
};

}  // namespace outbox
