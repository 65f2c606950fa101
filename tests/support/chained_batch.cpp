#include "chained_batch.hpp"

namespace outbox::test {

ChainedBatch chained_batch(const std::string& prefix, int aggregates, int versions) {
  ChainedBatch out;
  for (int a = 1; a <= aggregates; ++a) {
    for (int v = 1; v <= versions; ++v) {
      OutboxEvent event;
      event.event_id = prefix + "-" + std::to_string(a) + "-" + std::to_string(v);
      event.aggregate_type = "pipe";
      event.aggregate_id = prefix + "-agg-" + std::to_string(a);
      event.event_type = "Changed";
      event.event_version = v;
      event.payload = R"({"v":)" + std::to_string(v) + "}";
      event.payload_bytes = event.payload.size();
      const size_t index = out.events.size();
      out.after.push_back(v == 1 ? index : index - 1);
      out.events.push_back(std::move(event));
    }
  }
  return out;
}

}  // namespace outbox::test
