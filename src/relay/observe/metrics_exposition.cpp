#include "observe/metrics_exposition.hpp"

#include <librdkafka/rdkafka.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <tuple>
#include <vector>

#include "build_info.hpp"

namespace outbox {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily family(const std::string& name, const std::string& help, MetricType type) {
  return MetricFamily{name, help, type, {}};
}

MetricFamily counter(const std::string& name, const std::string& help, double value) {
  MetricFamily out = family(name, help, MetricType::Counter);
  ClientMetric metric;
  metric.counter.value = value;
  out.metric.push_back(metric);
  return out;
}

ClientMetric gauge_value(double value, std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  return metric;
}

MetricFamily gauge(const std::string& name, const std::string& help, double value) {
  MetricFamily out = family(name, help, MetricType::Gauge);
  out.metric.push_back(gauge_value(value));
  return out;
}

template <typename Atomic>
double value_of(const Atomic& atomic) {
  return static_cast<double>(atomic.load());
}

}  // namespace

std::string render_metrics(const MetricsSources& sources) {
  const RelayStats& s = sources.stats;
  std::vector<MetricFamily> families{
      counter("outbox_relay_events_published_total",
              "Events confirmed by the broker and marked PUBLISHED.", value_of(s.events_published)),
      counter("outbox_relay_marks_refused_total",
              "Confirmed deliveries not marked because another claim had taken the lease.",
              value_of(s.marks_refused)),
      counter("outbox_relay_marks_abandoned_total",
              "Confirmed deliveries whose mark could not be written before the lease ended.",
              value_of(s.marks_abandoned)),
      counter("outbox_relay_claims_total", "Claim transactions that returned rows.",
              value_of(s.claims)),
      counter("outbox_relay_events_claimed_total", "Events leased by claims.",
              value_of(s.events_claimed)),
      counter("outbox_relay_leases_reclaimed_total", "Events taken over from an expired lease.",
              value_of(s.leases_reclaimed)),
      counter("outbox_relay_events_retrying_total",
              "Failed deliveries parked as RETRY (an attempt counted).",
              value_of(s.events_retrying)),
      counter("outbox_relay_events_failed_total",
              "Events parked as FAILED (permanent error or attempts used up).",
              value_of(s.events_failed)),
      counter("outbox_relay_events_released_total",
              "Events put back to PENDING without an attempt (drain, producer replaced).",
              value_of(s.events_released)),
      counter("outbox_relay_events_parked_total",
              "Events parked as BLOCKED behind an older event of their aggregate.",
              value_of(s.events_parked)),
      counter("outbox_relay_claim_waits_total",
              "Rows a claim left PENDING because their aggregate's oldest unpublished event was "
              "in flight (per-aggregate ordering, no write).",
              value_of(s.claim_waits)),
      counter("outbox_relay_events_chained_total",
              "Events claimed right behind the previous version of their aggregate in the same "
              "claim, sent once that one was acknowledged, or in the same transaction with "
              "ordering transactional (relay.chain_length).",
              value_of(s.events_chained)),
      counter("outbox_relay_db_errors_total", "Failed MySQL operations (retried).",
              value_of(s.db_errors)),
      counter("outbox_relay_broker_errors_total", "Errors reported by the Kafka client.",
              value_of(s.broker_errors)),
      counter("outbox_relay_order_inversions_total",
              "Versions acknowledged although an earlier version of their aggregate in the same "
              "pipelined batch was not (relay.pipelined_chains); 0 unless the gapless guarantee "
              "broke.",
              value_of(s.order_inversions)),
      counter("outbox_relay_pipelined_batches_total",
              "Batches holding several versions of an aggregate sent all at once on a gapless "
              "producer of their own (relay.pipelined_chains).",
              value_of(s.pipelined_batches)),
  };
  // From librdkafka's statistics (every statistics.interval.ms), summed over brokers and over
  // every producer the process created.
  const BrokerRequestTotals requests = s.kafka_requests.totals();
  const std::vector<std::tuple<const char*, const char*, uint64_t>> client_counters{
      {"outbox_relay_kafka_request_retries_total",
       "Requests librdkafka sent to a broker again (txretries).", requests.retries},
      {"outbox_relay_kafka_request_timeouts_total",
       "Requests to a broker that timed out (req_timeouts).", requests.timeouts},
      {"outbox_relay_kafka_transmit_errors_total", "Errors sending requests to a broker (txerrs).",
       requests.transmit_errors},
      {"outbox_relay_kafka_disconnects_total",
       "Connections to a broker that were lost (disconnects).", requests.disconnects},
      {"outbox_relay_kafka_messages_transmitted_total",
       "Messages sent in produce requests, resends included (txmsgs).",
       requests.messages_transmitted},
  };
  for (const auto& [name, help, value] : client_counters)
    families.push_back(counter(name, help, static_cast<double>(value)));

  MetricFamily failures =
      family("outbox_relay_publish_failures_total",
             "Deliveries not confirmed, by librdkafka error.", MetricType::Counter);
  for (const auto& [reason, count] : s.failures_by_reason()) {
    ClientMetric metric;
    metric.label = {{"reason", reason}};
    metric.counter.value = static_cast<double>(count);
    failures.metric.push_back(metric);
  }
  families.push_back(failures);

  MetricFamily claim = family("outbox_relay_claim_duration_seconds",
                              "Duration of one claim transaction.", MetricType::Histogram);
  claim.metric.push_back(s.claim_seconds.Collect());
  families.push_back(claim);
  MetricFamily latency = family("outbox_relay_delivery_latency_seconds",
                                "Time to the broker's acknowledgement, from the claim or from the "
                                "event's commit (created_at).",
                                MetricType::Histogram);
  ClientMetric claim_to_ack = s.claim_to_ack_seconds.Collect();
  claim_to_ack.label = {{"stage", "claim_to_ack"}};
  ClientMetric created_to_ack = s.created_to_ack_seconds.Collect();
  created_to_ack.label = {{"stage", "created_to_ack"}};
  latency.metric = {claim_to_ack, created_to_ack};
  families.push_back(latency);

  const BacklogSnapshot backlog = sources.backlog.snapshot();
  MetricFamily by_status =
      family("outbox_relay_backlog_events", "Events waiting, by status (from a periodic query).",
             MetricType::Gauge);
  for (const auto& [status, count] : backlog.by_status) {
    by_status.metric.push_back(gauge_value(static_cast<double>(count), {{"status", status}}));
  }
  families.push_back(by_status);
  families.push_back(gauge("outbox_relay_oldest_unpublished_age_seconds",
                           "Age of the oldest event still to publish (FAILED excluded).",
                           backlog.oldest_unpublished_age_seconds));
  families.push_back(gauge("outbox_relay_oldest_failed_age_seconds",
                           "Age of the oldest FAILED event.", backlog.oldest_failed_age_seconds));
  families.push_back(gauge("outbox_relay_blocked_aggregates",
                           "Aggregates held back by a FAILED event (per-aggregate ordering).",
                           static_cast<double>(backlog.blocked_aggregates)));
  families.push_back(gauge("outbox_relay_events_in_flight",
                           "Events claimed and not yet marked or released.",
                           value_of(s.events_in_flight)));
  families.push_back(gauge("outbox_relay_producer_queue_messages",
                           "Messages in the Kafka producer's queue (queued and in flight).",
                           static_cast<double>(sources.producer_queue())));
  families.push_back(gauge("outbox_relay_ready", "1 when the relay is ready (see /readyz).",
                           sources.ready() ? 1 : 0));
  families.push_back(gauge("outbox_relay_draining", "1 once a drain (SIGTERM) began.",
                           sources.health.draining() ? 1 : 0));
  families.push_back(gauge("outbox_relay_kafka_outage",
                           "1 while claims are paused because every delivery fails the cluster's "
                           "way (not enough replicas, no leader, timeouts); see /readyz.",
                           sources.kafka_outage() ? 1 : 0));
  families.push_back(counter("outbox_relay_kafka_outages_total",
                             "Kafka outages that paused claims (none counted an attempt).",
                             static_cast<double>(sources.kafka_outages_total())));
  MetricFamily paused = family("outbox_relay_paused_partitions",
                               "Partitions paused because deliveries to them fail the cluster's "
                               "way while others work; their events wait as RETRY, no attempt "
                               "counted.",
                               MetricType::Gauge);
  for (const auto& [topic, count] : sources.paused_partitions())
    paused.metric.push_back(gauge_value(static_cast<double>(count), {{"topic", topic}}));
  families.push_back(paused);
  families.push_back(counter("outbox_relay_partition_pauses_total",
                             "Partitions paused so far (each resumed on its own).",
                             static_cast<double>(sources.partition_pauses_total())));
  families.push_back(counter("outbox_relay_events_held_total",
                             "Events deferred for a paused partition (no attempt counted).",
                             value_of(s.events_held)));
  MetricFamily operator_paused = family(
      "outbox_relay_operator_paused",
      "1 while an operator's pause (outboxctl pause) holds this topic or aggregate type, 0 once "
      "resumed; its events wait as RETRY with no recheck, no attempt counted.",
      MetricType::Gauge);
  for (const auto& [pause, in_force] : sources.operator_pauses()) {
    operator_paused.metric.push_back(gauge_value(static_cast<double>(in_force),
                                                 {{"kind", pause.first}, {"name", pause.second}}));
  }
  families.push_back(operator_paused);
  families.push_back(counter("outbox_relay_events_held_by_operator_total",
                             "Events held for an operator's pause (no attempt counted).",
                             value_of(s.events_held_by_operator)));
  families.push_back(gauge("outbox_relay_max_events_per_second",
                           "relay.max_events_per_second: events claimed per second at most, all "
                           "workers together; 0 is unlimited.",
                           static_cast<double>(sources.max_events_per_second())));
  families.push_back(counter("outbox_relay_rate_limited_seconds_total",
                             "Time workers waited for relay.max_events_per_second, summed over "
                             "the workers.",
                             sources.rate_limited_seconds()));
  MetricFamily build = family("outbox_relay_build_info", "Versions, as labels.", MetricType::Gauge);
  build.metric.push_back(
      gauge_value(1, {{"version", kVersion}, {"librdkafka", rd_kafka_version_str()}}));
  families.push_back(build);

  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace outbox
