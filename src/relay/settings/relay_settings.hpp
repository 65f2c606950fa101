#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "config/duration.hpp"
#include "config/setting_table.hpp"
#include "config/yaml_section.hpp"
#include "publish/delivery_order.hpp"

namespace outbox {

// relay.chain_length's default when an aggregate's versions go together (ordering:
// transactional, or per_aggregate with pipelined chains): as many versions as the batch has
// room for. A chain costs no round trip per version there, while each head with a chain costs
// one read of idx_outbox_aggregate, so fewer, longer chains claim faster: measured 8.3k/s with
// 7 against 12.3k/s (unordered: 13.7k/s) on a backlog of ~100 versions per aggregate.
inline constexpr int kLongChainLength = 1000;
// Its default when each version waits for its predecessor's acknowledgement (waves).
inline constexpr int kWaveChainLength = 7;

// relay.*: the claim/publish/mark loop.
struct RelaySettings {
  std::string instance_id;  // empty: "<host>-<pid>-<random>"
  int workers = 2;
  // 2000, not 500: against a real cluster (acks=all, replication factor 3) the relay is bound
  // by what it has in flight (workers x 2 batches) over the broker's round trip, not by the
  // database; 2000-row claims drained 40-55 % faster there, with fewer statements per event
  // and less broker CPU (docs/benchmarks.md, outbox-bench sweep). Memory stays bounded by
  // max_in_flight_bytes, whatever the batch.
  int batch_size = 2000;
  Micros lease = std::chrono::seconds(60);
  Micros poll_interval = std::chrono::milliseconds(25);
  Micros poll_interval_max = std::chrono::milliseconds(500);
  Micros drain_timeout = std::chrono::seconds(20);
  Micros reclaim_interval = std::chrono::seconds(1);
  Micros backoff_initial = std::chrono::milliseconds(100);
  Micros backoff_max = std::chrono::seconds(10);
  // relay.ordering with relay.pipelined_chains (publish/delivery_order.hpp).
  DeliveryOrder ordering = DeliveryOrder::kPipelined;
  // per_aggregate: how many versions right behind an aggregate's oldest unpublished event one
  // claim takes with it. 0: one event per aggregate in flight, the rest wait for its mark.
  // kLongChainLength unless set when versions go together (transactional, pipelined chains),
  // kWaveChainLength when each waits for a round trip.
  int chain_length = kWaveChainLength;
  int max_attempts = 10;
  Micros retry_backoff_initial = std::chrono::seconds(1);
  Micros retry_backoff_max = std::chrono::minutes(5);
  // Events to a topic or partition the cluster does not know are retried (no attempts) this
  // long, then FAILED with the reason.
  Micros unknown_topic_grace = std::chrono::minutes(5);
  // How long an event held for a paused partition waits before a relay that no longer
  // remembers it (restarted, or another one) claims it again; the probes bring it back sooner.
  Micros partition_recheck = std::chrono::minutes(5);
  // A row whose lease expired unsettled this many times is parked as FAILED.
  int max_lease_expiries = 5;
  // Payload bytes one process may hold (claimed and in flight); one larger row still goes alone.
  uint64_t max_in_flight_bytes = uint64_t{64} << 20;
  // Events the process claims per second at most, all workers together (event_rate.hpp); 0 is
  // unlimited. SIGHUP may change it.
  uint64_t max_events_per_second = 0;
  // relay.binlog_row_image: minimal (the default) sets binlog_row_image = MINIMAL on the
  // workers' sessions where the account may (mysql_session.hpp): each claim, mark, park and
  // wake then logs the row's key and the columns it changed, not the whole row with its
  // payload before and after, and not the statement's text beside the rows. server keeps the
  // server's settings (for a CDC reader of the outbox table's updates that needs whole rows).
  bool minimal_row_image = true;
};

// The longest a broker probe takes (the start-up wait's; a worker's while no broker answers
// is shorter): part of the longest wait metrics.stall_timeout must exceed.
inline constexpr Micros kBrokerProbeTimeout = std::chrono::seconds(2);

// metrics.*: the HTTP endpoint (/metrics, /healthz, /readyz) and what it reports.
struct MetricsSettings {
  std::string listen = "127.0.0.1:9464";  // host:port; "" turns the endpoint off
  Micros backlog_interval = std::chrono::seconds(15);
  // /healthz fails (and systemd's watchdog is no longer fed) when a worker loop has not gone
  // round for this long.
  Micros stall_timeout = std::chrono::seconds(60);
};

// The defaults, for the structs that take these settings further (ClaimPolicy,
// WorkerSettings) and must not restate them.
const RelaySettings& relay_defaults();

// relay.*'s keys: bounds, reload, printing (setting_table.hpp).
const SettingTable<RelaySettings>& relay_keys();
// metrics.*'s keys.
const SettingTable<MetricsSettings>& metrics_keys();

// Reads the relay section by its table, with the checks across keys.
RelaySettings read_relay(YamlSection section);
MetricsSettings read_metrics(YamlSection section);

// relay.ordering as written in the configuration: none, per_aggregate or transactional.
std::string ordering_name(const RelaySettings& relay);

}  // namespace outbox
