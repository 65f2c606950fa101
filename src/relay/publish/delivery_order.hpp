#pragma once

namespace outbox {

// How a claimed batch reaches Kafka: relay.ordering and relay.pipelined_chains, resolved once
// when the configuration is read (read_relay), and from then on the one value every part asks.
enum class DeliveryOrder {
  // ordering: none. Any claimable row, every batch on the shared producer; fastest.
  kUnordered,
  // ordering: per_aggregate, pipelined_chains: false. A version behind its aggregate's head in
  // the same batch goes once the broker acknowledged the one before it: a wave per round trip
  // (chained_deliveries.hpp).
  kWaves,
  // ordering: per_aggregate (the default). A batch holding several versions of an aggregate
  // goes all at once on a gapless producer of its own (pipelined_deliveries.hpp).
  kPipelined,
  // ordering: transactional. A batch holding several versions of an aggregate is one Kafka
  // transaction (transactional_deliveries.hpp); consumers read with isolation.level
  // read_committed for the order to hold.
  kTransactional,
};

// Whether an aggregate's versions are kept in order at all (every value but kUnordered).
constexpr bool keeps_aggregate_order(DeliveryOrder order) {
  return order != DeliveryOrder::kUnordered;
}

// Whether an aggregate's versions in one batch go together, without a round trip per version.
constexpr bool versions_go_together(DeliveryOrder order) {
  return order == DeliveryOrder::kPipelined || order == DeliveryOrder::kTransactional;
}

}  // namespace outbox
