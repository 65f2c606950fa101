#pragma once

#include <string>
#include <vector>

#include "outbox_event.hpp"

namespace outbox::test {

// `aggregates` x `versions` as a claim chains them, for the publisher's send_chains(): each
// aggregate's head, then its versions, each after the one before it (after[i]: the index of
// events[i]'s predecessor, i for a head). Aggregate type "pipe", ids "<prefix>-<a>-<v>",
// aggregates "<prefix>-agg-<a>", payload {"v":<v>}.
struct ChainedBatch {
  std::vector<OutboxEvent> events;
  std::vector<size_t> after;
};
ChainedBatch chained_batch(const std::string& prefix, int aggregates, int versions);

}  // namespace outbox::test
