#pragma once

#include <string>
#include <vector>

#include "config/config_diagnostics.hpp"
#include "config/duration.hpp"
#include "kafka/kafka_properties.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "outcome.hpp"
#include "relay_config.hpp"

namespace outbox {

// One librdkafka property as the relay applies it, and why it has that value.
using ProducerProperty = KafkaProperty;

// The effective producer properties, in the order they are applied: the relay's defaults,
// then the user's kafka.properties, then the settings the relay's guarantees depend on.
std::vector<ProducerProperty> producer_properties(const KafkaSettings& kafka);

// A librdkafka conf holding producer_properties(); the error names the property.
Outcome<RdKafkaConf> make_producer_conf(const KafkaSettings& kafka);

// Checks kafka.properties at load time: names and values librdkafka rejects, and overrides
// of what the relay must control, reported at their lines.
void validate_producer_properties(const KafkaSettings& kafka, ConfigDiagnostics& diagnostics);

// message.timeout.ms (or its alias delivery.timeout.ms) as the producer will use it: every
// message gets its delivery report within this time.
Micros effective_delivery_timeout(const KafkaSettings& kafka);

}  // namespace outbox
