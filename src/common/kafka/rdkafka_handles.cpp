#include "kafka/rdkafka_handles.hpp"

#include <spdlog/spdlog.h>

#include <string>
#include <string_view>

#include "kafka/rdkafka_log_pump.hpp"

namespace outbox {

void log_from_rdkafka(const rd_kafka_t* handle, int level, const char* facility,
                      const char* message) {
  spdlog::level::level_enum mapped = spdlog::level::debug;
  if (level <= 3) {
    mapped = spdlog::level::err;
  } else if (level == 4) {
    mapped = spdlog::level::warn;
  } else if (level <= 6) {
    mapped = spdlog::level::info;
  }
  // The relay sets enable.gapless.guarantee on purpose (relay.pipelined_chains) and says so
  // once at start; librdkafka warns about it for every producer it creates, one per batch
  // that can be in flight and again after each replacement.
  if (std::string_view(facility) == "CONFWARN" &&
      std::string_view(message).find("enable.gapless.guarantee is experimental") !=
          std::string_view::npos) {
    mapped = spdlog::level::debug;
  }
  std::string line = fmt::format(
      "librdkafka {} {}: {}", handle != nullptr ? rd_kafka_name(handle) : "-", facility, message);
  if (!RdKafkaLogPump::offer(mapped, line)) spdlog::log(mapped, "{}", line);
}

void route_rdkafka_logs(rd_kafka_conf_t* conf) {
  rd_kafka_conf_set_log_cb(conf, log_from_rdkafka);
}

bool is_secret_kafka_property(const std::string& name) {
  for (const char* marker : {"password", "secret", "oauthbearer.config", ".pem", "key.pem"}) {
    if (name.find(marker) != std::string::npos) return true;
  }
  return false;
}

}  // namespace outbox
