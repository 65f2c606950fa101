#pragma once

#include <string>
#include <vector>

#include "config/config_diagnostics.hpp"
#include "config/duration.hpp"
#include "kafka/kafka_properties.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "outcome.hpp"
#include "publish/kafka_settings.hpp"

namespace outbox {

// One librdkafka property as the relay applies it, and why it has that value.
using ProducerProperty = KafkaProperty;

// A transactional producer's identity (relay.ordering: transactional, transaction_pool.hpp).
struct TransactionalIdentity {
  std::string transactional_id;
  Micros default_timeout{};  // transaction.timeout.ms unless kafka.properties sets it
};

// Which of the relay's producers: the shared one, a transactional one, or one that sends an
// aggregate's versions together (relay.pipelined_chains, gapless_pool.hpp).
struct ProducerRole {
  const TransactionalIdentity* transactional = nullptr;
  // enable.gapless.guarantee and no message timeout: a version never lands without the ones
  // produced before it on its partition (the relay bounds the wait itself, by a purge).
  bool gapless = false;
};

// The effective producer properties, in the order they are applied: the relay's defaults,
// then the user's kafka.properties, then the settings the relay's guarantees depend on.
// With a transactional role, its timeout is a default and its transactional.id a requirement;
// with a gapless one, enable.gapless.guarantee and message.timeout.ms are requirements.
std::vector<ProducerProperty> producer_properties(const KafkaSettings& kafka,
                                                  ProducerRole role = {});

// A librdkafka conf holding producer_properties(); the error names the property.
Outcome<RdKafkaConf> make_producer_conf(const KafkaSettings& kafka, ProducerRole role = {});

// Checks kafka.properties at load time: names and values librdkafka rejects, and overrides
// of what the relay must control, reported at their lines.
void validate_producer_properties(const KafkaSettings& kafka, ConfigDiagnostics& diagnostics);

// message.timeout.ms (or its alias delivery.timeout.ms) as the producer will use it: every
// message gets its delivery report within this time.
Micros effective_delivery_timeout(const KafkaSettings& kafka);

}  // namespace outbox
