// The Grafana dashboard: valid JSON (checked by jq), a panel for each thing the operating guide
// names, and queries over exactly the metrics the relay exports: a renamed or mistyped metric
// would leave a panel silently empty.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "relay_process.hpp"
#include "test_env.hpp"

namespace {

const std::string kDashboard = outbox::test::source_dir() + "/deploy/grafana/outbox-relay.json";

// What the relay's /metrics exports; histograms are queried through their _bucket series.
const std::set<std::string> kExported{
    "outbox_relay_events_published_total",
    "outbox_relay_publish_failures_total",
    "outbox_relay_marks_refused_total",
    "outbox_relay_marks_abandoned_total",
    "outbox_relay_claims_total",
    "outbox_relay_events_claimed_total",
    "outbox_relay_leases_reclaimed_total",
    "outbox_relay_events_retrying_total",
    "outbox_relay_events_failed_total",
    "outbox_relay_events_released_total",
    "outbox_relay_events_parked_total",
    "outbox_relay_claim_waits_total",
    "outbox_relay_events_chained_total",
    "outbox_relay_db_errors_total",
    "outbox_relay_broker_errors_total",
    "outbox_relay_kafka_request_retries_total",
    "outbox_relay_kafka_request_timeouts_total",
    "outbox_relay_kafka_transmit_errors_total",
    "outbox_relay_kafka_disconnects_total",
    "outbox_relay_kafka_messages_transmitted_total",
    "outbox_relay_claim_duration_seconds",
    "outbox_relay_delivery_latency_seconds",
    "outbox_relay_backlog_events",
    "outbox_relay_oldest_unpublished_age_seconds",
    "outbox_relay_oldest_failed_age_seconds",
    "outbox_relay_blocked_aggregates",
    "outbox_relay_events_in_flight",
    "outbox_relay_producer_queue_messages",
    "outbox_relay_ready",
    "outbox_relay_draining",
    "outbox_relay_build_info",
};
const std::set<std::string> kHistograms{"outbox_relay_claim_duration_seconds",
                                        "outbox_relay_delivery_latency_seconds"};

std::string dashboard_json() {
  return outbox::test::read_text_file(kDashboard);
}

}  // namespace

TEST_CASE("the dashboard is valid JSON with the panels of the operating guide", "[grafana]") {
  const std::string json = dashboard_json();
  REQUIRE(outbox::test::is_json(json));
  const std::string titles = outbox::test::jq("[.panels[].title] | join(\"|\")", json);
  for (const char* title :
       {"Publish rate", "Publish failures by reason", "Backlog by status", "Oldest unpublished age",
        "FAILED and blocked", "Delivery latency p50 / p99", "Leases lost and reclaimed",
        "DB and broker errors", "In flight and producer queue",
        "Kafka client: resends, timeouts, disconnects"}) {
    INFO(title);
    // std::string("|") + title, not "|" + std::string(title): the latter trips GCC 12's false
    // -Wrestrict at -O2 and above (GCC PR 105651).
    CHECK(("|" + titles + "|").find(std::string("|") + title + "|") != std::string::npos);
  }
  // Every query goes to the dashboard's Prometheus data source variable.
  CHECK(outbox::test::jq("[.panels[].targets[].datasource.uid] | unique | join(\",\")", json) ==
        "${datasource}");
}

TEST_CASE("the dashboard queries exactly the metrics the relay exports", "[grafana]") {
  // Every string in the document: queries, template variables, legends.
  const std::string strings = outbox::test::jq("[.. | strings] | join(\"\\n\")", dashboard_json());
  std::set<std::string> used;
  const std::regex metric(R"(outbox_relay_[a-z0-9_]+)");
  for (auto it = std::sregex_iterator(strings.begin(), strings.end(), metric);
       it != std::sregex_iterator(); ++it) {
    std::string name = it->str();
    const std::string bucket = "_bucket";
    if (name.size() > bucket.size() &&
        name.compare(name.size() - bucket.size(), bucket.size(), bucket) == 0 &&
        kHistograms.count(name.substr(0, name.size() - bucket.size())) != 0) {
      name.resize(name.size() - bucket.size());
    }
    INFO(it->str());
    CHECK(kExported.count(name) == 1);
    used.insert(name);
  }
  CHECK(used == kExported);
}
