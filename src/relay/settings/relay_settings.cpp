#include "settings/relay_settings.hpp"

#include "lease_store/lease_token.hpp"
#include "observe/http_endpoint.hpp"

#include <utility>

namespace outbox {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

void read_instance_id(YamlSection& section, RelaySettings& relay) {
  relay.instance_id = section.string("instance_id", relay.instance_id);
  if (relay.instance_id.size() > kMaxInstanceIdLength) {
    section.problem("instance_id", "must be at most " + std::to_string(kMaxInstanceIdLength) +
                                       " characters (lease_owner is VARCHAR(128))");
  }
  if (relay.instance_id.find('/') != std::string::npos) {
    section.problem("instance_id", "must not contain '/', which separates lease token parts");
  }
}

// relay.ordering and relay.pipelined_chains, resolved into the one DeliveryOrder.
void read_ordering(YamlSection& section, RelaySettings& relay) {
  const std::string ordering =
      section.choice("ordering", "per_aggregate", {"per_aggregate", "transactional", "none"});
  // Read whatever the ordering: it only means something for per_aggregate.
  const bool pipelined_chains = section.boolean("pipelined_chains", true);
  if (ordering == "none") {
    relay.ordering = DeliveryOrder::kUnordered;
  } else if (ordering == "transactional") {
    relay.ordering = DeliveryOrder::kTransactional;
  } else {
    relay.ordering = pipelined_chains ? DeliveryOrder::kPipelined : DeliveryOrder::kWaves;
  }
}

SettingTable<RelaySettings> make_relay_keys() {
  using S = RelaySettings;
  SettingTable<S> keys;
  keys.custom({"instance_id"}, Reload::kRestart, read_instance_id,
              [](YAML::Emitter& out, const S& relay) {
                out << YAML::Key << "instance_id" << YAML::Value << relay.instance_id;
              })
      .integer("workers", &S::workers, 1, 64)
      .integer("batch_size", &S::batch_size, 1, 10000, Reload::kLive)
      .duration("lease", &S::lease, seconds(10), hours(1))
      .duration("poll_interval", &S::poll_interval, milliseconds(1), minutes(1), Reload::kLive)
      .duration("poll_interval_max", &S::poll_interval_max, milliseconds(1), minutes(1),
                Reload::kLive)
      .duration("drain_timeout", &S::drain_timeout, seconds(1), minutes(10))
      .duration("reclaim_interval", &S::reclaim_interval, milliseconds(10), minutes(10))
      .duration_range("backoff_initial", "backoff_max", &S::backoff_initial, &S::backoff_max,
                      milliseconds(1), minutes(1), hours(1))
      .custom({"ordering", "pipelined_chains"}, Reload::kRestart, read_ordering,
              [](YAML::Emitter& out, const S& relay) {
                out << YAML::Key << "ordering" << YAML::Value << ordering_name(relay);
                out << YAML::Key << "pipelined_chains" << YAML::Value
                    << (relay.ordering != DeliveryOrder::kWaves);
              })
      // After ordering: its default depends on it.
      .custom(
          {"chain_length"}, Reload::kRestart,
          [](YamlSection& section, S& relay) {
            relay.chain_length = static_cast<int>(section.integer(
                "chain_length",
                versions_go_together(relay.ordering) ? kLongChainLength : kWaveChainLength, 0,
                1000));
          },
          [](YAML::Emitter& out, const S& relay) {
            out << YAML::Key << "chain_length" << YAML::Value << relay.chain_length;
          })
      .integer("max_attempts", &S::max_attempts, 1, 1000)
      .duration_range("retry_backoff_initial", "retry_backoff_max", &S::retry_backoff_initial,
                      &S::retry_backoff_max, milliseconds(1), hours(1), hours(24))
      .duration("unknown_topic_grace", &S::unknown_topic_grace, Micros(0), hours(24))
      .duration("partition_recheck", &S::partition_recheck, seconds(10), hours(24))
      .integer("max_lease_expiries", &S::max_lease_expiries, 1, 1000)
      .byte_size("max_in_flight_bytes", &S::max_in_flight_bytes, uint64_t{1} << 20,
                 uint64_t{64} << 30)
      .integer("max_events_per_second", &S::max_events_per_second, 0, 10000000, Reload::kLive)
      .custom(
          {"binlog_row_image"}, Reload::kRestart,
          [](YamlSection& section, S& relay) {
            relay.minimal_row_image =
                section.choice("binlog_row_image", "minimal", {"minimal", "server"}) == "minimal";
          },
          [](YAML::Emitter& out, const S& relay) {
            out << YAML::Key << "binlog_row_image" << YAML::Value
                << (relay.minimal_row_image ? "minimal" : "server");
          });
  return keys;
}

SettingTable<MetricsSettings> make_metrics_keys() {
  using S = MetricsSettings;
  SettingTable<S> keys;
  keys.custom(
          {"listen"}, Reload::kRestart,
          [](YamlSection& section, S& metrics) {
            metrics.listen = section.string("listen", metrics.listen);
            if (!metrics.listen.empty() && !parse_listen(metrics.listen)) {
              section.problem("listen",
                              "must be host:port (port 0 picks a free one) or \"\" to turn "
                              "the endpoint off, got \"" +
                                  metrics.listen + "\"");
            }
          },
          [](YAML::Emitter& out, const S& metrics) {
            out << YAML::Key << "listen" << YAML::Value << metrics.listen;
          })
      .duration("backlog_interval", &S::backlog_interval, seconds(1), hours(1))
      .duration("stall_timeout", &S::stall_timeout, seconds(5), hours(1));
  return keys;
}

}  // namespace

const RelaySettings& relay_defaults() {
  static const RelaySettings defaults;
  return defaults;
}

const SettingTable<RelaySettings>& relay_keys() {
  static const SettingTable<RelaySettings> keys = make_relay_keys();
  return keys;
}

const SettingTable<MetricsSettings>& metrics_keys() {
  static const SettingTable<MetricsSettings> keys = make_metrics_keys();
  return keys;
}

RelaySettings read_relay(YamlSection section) {
  RelaySettings relay;
  relay_keys().read(section, relay);
  // Checks across keys.
  if (relay.poll_interval_max < relay.poll_interval) {
    section.problem("poll_interval_max", "must not be shorter than relay.poll_interval (" +
                                             format_duration(relay.poll_interval) + ")");
  }
  section.reject_unknown_keys();
  return relay;
}

MetricsSettings read_metrics(YamlSection section) {
  return metrics_keys().read_section(std::move(section));
}

std::string ordering_name(const RelaySettings& relay) {
  switch (relay.ordering) {
    case DeliveryOrder::kUnordered:
      return "none";
    case DeliveryOrder::kTransactional:
      return "transactional";
    case DeliveryOrder::kWaves:
    case DeliveryOrder::kPipelined:
      break;
  }
  return "per_aggregate";
}

}  // namespace outbox
