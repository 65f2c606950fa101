#pragma once

#include <yaml-cpp/yaml.h>

#include "config/setting_table.hpp"
#include "config/yaml_section.hpp"
#include "publish/kafka_settings.hpp"

namespace outbox {

// kafka.*'s keys (setting_table.hpp). The message keys (profile, headers, ...) are one entry,
// read and printed by message_settings.hpp; properties print as the producer gets them.
const SettingTable<KafkaSettings>& kafka_keys();

// Reads the kafka section by its table.
KafkaSettings read_kafka(YamlSection section);

}  // namespace outbox
