// outbox-bench: the relay measured against the limits of its own database and broker, in one
// run on the same machine, reported as ratios (the machine is shared and noisy; absolute
// numbers drift, ratios hold).
//   outbox-bench [--smoke] [--out DIR]
//   outbox-bench --debezium [--smoke] [--out DIR]   the relay side by side with Debezium on a
//       real 3-node Kafka cluster (bench/anchors/debezium/; report in DIR, default
//       bench/out/debezium)
//   outbox-bench drain EVENTS RELAYS [RELAY_YAML [AGGREGATES]]   one drain, for tuning sweeps:
//       outbox-bench drain 200000 1 "  workers: 4"  (YAML lines go under relay:)
//       outbox-bench drain 100000 1 "  ordering: none" 1000  (1000 aggregates, 100 events each)
//   outbox-bench ordered RUNS [mock|real]   the ordered-drain section alone (100k events: one
//       per aggregate, and 997 aggregates x ~100 versions; per_aggregate and transactional vs
//       none vs L_db(500); durable and tuned), medians of RUNS, on the test broker and then on
//       a real cluster (`mock` / `real`: one of the two only)
//   outbox-bench ldb BATCH SECONDS CONNECTIONS      one L_db measurement
//   outbox-bench sweep EVENTS RUNS AGGREGATES CONFIG...   drains of EVENTS on a real cluster,
//       every CONFIG once per run in turn (drift hits them alike), beside L_db(500): medians
//       of rate, R / L_db and the CPU of relay, MariaDB and brokers (drains claim 500 rows,
//       as L_db(500), unless a CONFIG sets batch_size). A CONFIG is YAML lines
//       under relay: ("" for the defaults), optionally behind "kafka:name=value,...|" for
//       producer properties: outbox-bench sweep 100000 3 0 "" "kafka:linger.ms=5|"
//       "kafka:linger.ms=5|  ordering: none"
//   outbox-bench protocols RUNS    L_db(500) (claim, then mark) beside the limit of a claim
//       that locks rows and marks them in the same transaction (each row written once), both
//       database profiles, no broker (bench/protocol_limits.hpp)
//   outbox-bench locked RUNS [mock|real]    L_db(500), the relay's `ordering: none` drain of
//       the several-versions backlog, L_db(500) again while a side producer keeps the broker
//       at that drain's rate, and the locked claim with the broker between lock and mark (2
//       and 4 sessions), per database profile, on the test broker and a real cluster
//   outbox-bench brokers EVENTS RUNS    the mock cluster beside the real one alone: L_db(500),
//       L_k(500) and RUNS drains of EVENTS on each (the suite's real-cluster section, quicker)
// Needs the MariaDB of scripts/local-mariadb.sh (OUTBOX_MYSQL_* variables); starts its own
// test broker, and a real Kafka cluster (scripts/kafka-cluster.sh) for the real-cluster
// section. bench/run.sh does all of that.
#include <sys/utsname.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "baselines.hpp"
#include "bench_context.hpp"
#include "harness/kafka_cluster.hpp"
#include "protocol_limits.hpp"
#include "real_cluster_runs.hpp"
#include "relay_runs.hpp"
#include "report.hpp"
#include "report_debezium.hpp"
#include "report_ordered.hpp"
#include "server_status.hpp"
#include "stats.hpp"
#include "suite.hpp"
#include "test_env.hpp"
#include "vs_debezium.hpp"

namespace {

std::string environment(outbox::test::TestDatabase& db, const std::string& broker) {
  std::string memory;
  std::ifstream meminfo("/proc/meminfo");
  std::getline(meminfo, memory);
  utsname host{};
  uname(&host);
  return "Machine: " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cores, " + memory + ", " +
         host.sysname + " " + host.release + ". " + db.server_name() + " " +
         db.scalar("SELECT VERSION()") + ", librdkafka " + rd_kafka_version_str() + ", " + broker +
         ".\n";
}

// What every entry point does around its measurement: a database of its own, a test broker
// (brokers, partitions of its topics), a bookkeeping session; any failure exits 1 with the
// reason.
template <typename Body>
int run_bench(int brokers, int partitions, const outbox::bench::BenchSizes& sizes,
              const std::string& out, Body body) {
  try {
    outbox::init_mysql_driver();
    outbox::test::TestDatabase db;
    outbox::test::TestBroker broker(brokers, partitions);
    auto session = outbox::MysqlSession::open(db.endpoint(), outbox::SessionSettings{});
    if (!session) throw std::runtime_error(session.error().message);
    outbox::bench::BenchContext context{sizes, db, &broker, broker.bootstrap(), *session.value(),
                                        out};
    body(context);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "outbox-bench: " << e.what() << "\n";
    return 1;
  }
}

// The comparison with Debezium: a real Kafka cluster (no proxies) instead of the test broker.
int debezium_comparison(const outbox::bench::BenchSizes& sizes, const std::string& out) {
  try {
    outbox::init_mysql_driver();
    outbox::test::TestDatabase db;
    outbox::test::TempDir kafka_dir("outbox-bench-kafka");
    const outbox::harness::KafkaCluster cluster(
        outbox::test::source_dir() + "/scripts/kafka-cluster.sh", kafka_dir.path(),
        outbox::harness::KafkaCluster::Wiring::kDirect);
    auto session = outbox::MysqlSession::open(db.endpoint(), outbox::SessionSettings{});
    if (!session) throw std::runtime_error(session.error().message);
    outbox::bench::BenchContext context{sizes, db, nullptr, cluster.bootstrap(), *session.value(),
                                        out};
    context.cluster = &cluster;
    const outbox::bench::DebeziumComparison comparison =
        outbox::bench::compare_with_debezium(context, cluster);
    outbox::bench::write_debezium_report(
        comparison, context,
        environment(db, "Apache Kafka " + cluster.version() + " (3 KRaft nodes on loopback)"));
    std::cout << std::ifstream(out + "/report.md").rdbuf();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "outbox-bench --debezium: " << e.what() << "\n";
    return 1;
  }
}

int single_db_limit(int batch, double seconds, int connections) {
  outbox::bench::BenchSizes sizes = outbox::bench::BenchSizes::full();
  sizes.runs = 1;
  sizes.baseline_seconds = seconds;
  return run_bench(1, 1, sizes, "/tmp", [&](outbox::bench::BenchContext& context) {
    const auto figure = outbox::bench::measure_db_limit(context, batch, connections);
    std::cout << "L_db(" << batch << "), " << connections << " connections, " << seconds
              << " s: " << static_cast<long>(figure.median()) << " events/s\n";
  });
}

int single_drain(long events, int relays, const std::string& relay_yaml, long aggregates) {
  return run_bench(
      3, 8, outbox::bench::BenchSizes::full(), "/tmp", [&](outbox::bench::BenchContext& context) {
        const auto run =
            outbox::bench::drain(context, events, relays, false,
                                 relay_yaml.empty() ? "" : relay_yaml + "\n", aggregates);
        std::cout << events << " events, " << relays << " relays [" << relay_yaml
                  << "]: " << static_cast<long>(run.rate) << " events/s, relay CPU "
                  << static_cast<int>(run.relay_cpu_percent) << "%, database server CPU "
                  << static_cast<int>(run.db_cpu_percent) << "%, peak RSS " << run.peak_rss_mib
                  << " MiB\n";
      });
}

// A sweep's CONFIG: "[kafka:name=value,...|]relay YAML lines".
struct SweepConfig {
  std::string kafka_properties;
  std::string relay_yaml;
};

SweepConfig sweep_config(const std::string& config) {
  const size_t bar = config.find('|');
  if (config.rfind("kafka:", 0) != 0 || bar == std::string::npos) return {"", config};
  return {config.substr(6, bar - 6), config.substr(bar + 1)};
}

int real_cluster_sweep(long events, int runs, long aggregates,
                       const std::vector<std::string>& configs) {
  outbox::bench::BenchSizes sizes = outbox::bench::BenchSizes::full();
  sizes.runs = runs;
  return run_bench(1, 1, sizes, "/tmp", [&](outbox::bench::BenchContext& context) {
    using outbox::bench::Figure;
    using outbox::bench::format_figure;
    using outbox::bench::format_number;
    const auto l_db = outbox::bench::measure_db_limit(context, 500, 2);
    struct Sweep {
      Figure rate, relay, db, brokers;
      long duplicates = 0;
    };
    std::vector<Sweep> sweeps(configs.size());
    outbox::bench::on_real_cluster(context, [&] {
      for (int run = 0; run < runs; ++run) {
        for (size_t i = 0; i < configs.size(); ++i) {
          const SweepConfig config = sweep_config(configs[i]);
          setenv("OUTBOX_BENCH_KAFKA_PROPERTIES", config.kafka_properties.c_str(), 1);
          const auto drained = outbox::bench::drain(
              context, events, 1, true, config.relay_yaml.empty() ? "" : config.relay_yaml + "\n",
              aggregates);
          unsetenv("OUTBOX_BENCH_KAFKA_PROPERTIES");
          sweeps[i].rate.runs.push_back(drained.rate);
          sweeps[i].relay.runs.push_back(drained.relay_cpu_percent);
          sweeps[i].db.runs.push_back(drained.db_cpu_percent);
          sweeps[i].brokers.runs.push_back(drained.broker_cpu_percent);
          sweeps[i].duplicates += drained.duplicates;
        }
      }
    });
    std::cout << "medians of " << runs << " runs (min-max), " << events << " events per drain"
              << (aggregates > 0 ? " over " + std::to_string(aggregates) + " aggregates" : "")
              << ", real cluster; L_db(500) " << format_figure(l_db) << "\n";
    for (size_t i = 0; i < configs.size(); ++i) {
      const Sweep& sweep = sweeps[i];
      std::cout << "[" << (configs[i].empty() ? "batch_size: 500" : configs[i]) << "] "
                << format_figure(sweep.rate) << " events/s, R/L_db "
                << format_number(sweep.rate.median() / l_db.median(), 2) << ", CPU % relay "
                << format_number(sweep.relay.median(), 0) << " database server "
                << format_number(sweep.db.median(), 0) << " brokers "
                << format_number(sweep.brokers.median(), 0) << ", duplicates " << sweep.duplicates
                << "\n";
    }
  });
}

int brokers_side_by_side(int events, int runs) {
  outbox::bench::BenchSizes sizes = outbox::bench::BenchSizes::full();
  sizes.runs = runs;
  sizes.drain_events = events;
  return run_bench(3, 8, sizes, "/tmp", [&](outbox::bench::BenchContext& context) {
    using outbox::bench::format_figure;
    const auto l_db = outbox::bench::measure_db_limit(context, 500, 2);
    const auto mock_k = outbox::bench::measure_broker_limit(context, 500, 2);
    outbox::bench::Figure mock_rate;
    long mock_duplicates = 0;
    for (int run = 0; run < runs; ++run) {
      const auto drained = outbox::bench::drain(context, events, 1, true);
      mock_rate.runs.push_back(drained.rate);
      mock_duplicates += drained.duplicates;
    }
    const auto real =
        outbox::bench::measure_on_real_cluster(context, {.workers = 2, .ordered_drain = false});
    const auto ratio = [](double a, double b) { return outbox::bench::format_number(a / b, 2); };
    std::cout << "medians of " << runs << " runs (min-max), " << events << " events per drain\n"
              << "L_db(500)            " << format_figure(l_db) << "\n"
              << "L_k(500)  mock       " << format_figure(mock_k) << "\n"
              << "L_k(500)  real       " << format_figure(real.broker_limit) << "  real/mock "
              << ratio(real.broker_limit.median(), mock_k.median()) << "\n"
              << "R         mock       " << format_figure(mock_rate) << "  R/L_db "
              << ratio(mock_rate.median(), l_db.median()) << ", duplicates " << mock_duplicates
              << "\n"
              << "R         real       " << format_figure(real.drain_rate) << "  R/L_db "
              << ratio(real.drain_rate.median(), l_db.median()) << ", real/mock "
              << ratio(real.drain_rate.median(), mock_rate.median()) << ", duplicates "
              << real.drain_duplicates << "\n";
  });
}

// Issue 13's "fewer database writes per event": L_db(500) (claim, then mark: each row written
// twice, in two transactions) beside the locked claim's limit (one transaction, each row
// written once), per database profile, interleaved run by run so the machine's noise hits all.
int protocol_limits(int runs) {
  outbox::bench::BenchSizes sizes = outbox::bench::BenchSizes::full();
  sizes.runs = 1;
  return run_bench(3, 8, sizes, "/tmp", [&](outbox::bench::BenchContext& context) {
    using outbox::bench::Figure;
    using outbox::bench::format_figure;
    using outbox::bench::format_number;
    std::cout << "medians of " << runs << " runs (min-max), events/s, batches of 500, "
              << "2 connections, " << sizes.drain_events << " PENDING rows per run\n";
    outbox::bench::for_each_durability_profile(context.session, [&](const std::string& name,
                                                                    const std::string& settings) {
      std::cout << name << ": " << settings << "\n";
      Figure ordered, unordered, locked;
      for (int run = 0; run < runs; ++run) {
        ordered.runs.push_back(outbox::bench::measure_db_limit(context, 500, 2).median());
        unordered.runs.push_back(
            outbox::bench::measure_db_limit(context, 500, 2, outbox::Ordering::kNone).median());
        locked.runs.push_back(outbox::bench::measure_locked_claim_limit(context, 500, 2).median());
      }
      std::cout << "  L_db(500), claim + mark (per_aggregate)  " << format_figure(ordered) << "\n"
                << "  L_db(500), claim + mark (none)           " << format_figure(unordered) << "\n"
                << "  locked claim + mark, one write per row   " << format_figure(locked)
                << "  locked / L_db " << format_number(locked.median() / ordered.median(), 2)
                << ", locked / L_db(none) "
                << format_number(locked.median() / unordered.median(), 2) << "\n";
    });
  });
}

// Issue 13's real-cluster gap, measured before building anything: per database profile and
// run, L_db(500), the relay's drain of the several-versions backlog with ordering: none,
// L_db(500) while the broker carries that drain's rate (the database's limit at the relay's
// operating point, on a machine whose cores the brokers share), and the locked claim with
// the broker in the loop (2 and 4 sessions), all on the same broker.
int locked_publish(int runs, const std::string& where) {
  outbox::bench::BenchSizes sizes = outbox::bench::BenchSizes::full();
  sizes.runs = 1;
  sizes.drain_events = 100'000;
  return run_bench(3, 8, sizes, "/tmp", [&](outbox::bench::BenchContext& context) {
    using outbox::bench::Figure;
    using outbox::bench::format_figure;
    using outbox::bench::format_number;
    const auto measure = [&] {
      std::cout << "on "
                << (context.cluster != nullptr ? "a real 3-node cluster" : "the test broker")
                << ", medians of " << runs << " runs (min-max), events/s, " << sizes.drain_events
                << " PENDING rows per run\n";
      outbox::bench::for_each_durability_profile(context.session, [&](const std::string& name,
                                                                      const std::string& settings) {
        std::cout << name << ": " << settings << "\n";
        Figure l_db, none, locked2, locked4, loaded, load_rate, load_brokers, load_machine;
        long duplicates = 0;
        for (int run = 0; run < runs; ++run) {
          l_db.runs.push_back(outbox::bench::measure_db_limit(context, 500, 2).median());
          const auto drained =
              outbox::bench::drain(context, sizes.drain_events, 1, true, "  ordering: none\n", 997);
          none.runs.push_back(drained.rate);
          duplicates += drained.duplicates;
          const auto beside =
              outbox::bench::measure_db_limit_beside_broker_load(context, 500, 2, drained.rate);
          loaded.runs.push_back(beside.db_limit);
          load_rate.runs.push_back(beside.broker_load);
          load_brokers.runs.push_back(beside.broker_cpu);
          load_machine.runs.push_back(beside.machine_cpu);
          locked2.runs.push_back(
              outbox::bench::measure_locked_publish_limit(context, 500, 2).median());
          locked4.runs.push_back(
              outbox::bench::measure_locked_publish_limit(context, 500, 4).median());
        }
        const auto vs_db = [&](const Figure& f) {
          return format_number(f.median() / l_db.median(), 2);
        };
        std::cout << "  L_db(500)                                  " << format_figure(l_db) << "\n"
                  << "  relay, ordering none, several versions     " << format_figure(none)
                  << "  / L_db " << vs_db(none) << ", duplicates " << duplicates << "\n"
                  << "  L_db(500) beside the brokers carrying the relay's rate ("
                  << format_figure(load_rate) << " events/s acknowledged; CPU % brokers "
                  << format_number(load_brokers.median(), 0) << ", machine "
                  << format_number(load_machine.median(), 0) << ", loading included)  "
                  << format_figure(loaded) << "  relay none / it "
                  << format_number(none.median() / loaded.median(), 2) << "\n"
                  << "  locked claim + publish + mark, 2 sessions  " << format_figure(locked2)
                  << "  / L_db " << vs_db(locked2) << "\n"
                  << "  locked claim + publish + mark, 4 sessions  " << format_figure(locked4)
                  << "  / L_db " << vs_db(locked4) << "\n";
      });
    };
    if (where != "real") measure();
    if (where != "mock") outbox::bench::on_real_cluster(context, measure);
  });
}

// The report's ordered-drain section alone (issue 13's table), on the test broker, then on a
// real cluster; `where` "mock" or "real" runs one of the two.
int ordered_drain(int runs, const std::string& where) {
  outbox::bench::BenchSizes sizes = outbox::bench::BenchSizes::full();
  sizes.runs = runs;
  return run_bench(3, 8, sizes, "/tmp", [&](outbox::bench::BenchContext& context) {
    if (where != "real") {
      outbox::bench::write_ordered_drain(std::cout, outbox::bench::measure_ordered_drain(context),
                                         runs);
    }
    if (where == "mock") return;
    const auto on_cluster = outbox::bench::measure_on_real_cluster(
        context, {.workers = 2, .drains = false, .ordered_drain = true});
    outbox::bench::write_ordered_drain(std::cout, *on_cluster.ordered, runs);
  });
}

}  // namespace

int main(int argc, char** argv) {
  outbox::bench::BenchSizes sizes = outbox::bench::BenchSizes::full();
  std::string out;
  bool debezium = false;
  bool real_cluster = true;
  if (argc == 5 && std::string(argv[1]) == "ldb") {
    return single_db_limit(std::stoi(argv[2]), std::stod(argv[3]), std::stoi(argv[4]));
  }
  if (argc == 3 && std::string(argv[1]) == "protocols") return protocol_limits(std::stoi(argv[2]));
  if ((argc == 3 || argc == 4) && std::string(argv[1]) == "locked") {
    return locked_publish(std::stoi(argv[2]), argc == 4 ? argv[3] : "");
  }
  if (argc == 4 && std::string(argv[1]) == "brokers") {
    return brokers_side_by_side(std::stoi(argv[2]), std::stoi(argv[3]));
  }
  if (argc >= 6 && std::string(argv[1]) == "sweep") {
    return real_cluster_sweep(std::stol(argv[2]), std::stoi(argv[3]), std::stol(argv[4]),
                              std::vector<std::string>(argv + 5, argv + argc));
  }
  if ((argc == 3 || argc == 4) && std::string(argv[1]) == "ordered") {
    return ordered_drain(std::stoi(argv[2]), argc == 4 ? argv[3] : "");
  }
  if (argc >= 4 && std::string(argv[1]) == "drain") {
    return single_drain(std::stol(argv[2]), std::stoi(argv[3]), argc >= 5 ? argv[4] : "",
                        argc >= 6 ? std::stol(argv[5]) : 0);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      sizes = outbox::bench::BenchSizes::smoke_run();
    } else if (arg == "--no-real-cluster") {
      real_cluster = false;
    } else if (arg == "--debezium") {
      debezium = true;
    } else if (arg == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else {
      std::cerr << "usage: outbox-bench [--debezium] [--smoke] [--no-real-cluster] [--out DIR]\n";
      return 64;
    }
  }
  sizes.real_cluster = real_cluster;  // after the loop: --smoke replaces the sizes
  if (out.empty()) out = debezium ? "bench/out/debezium" : "bench/out";
  std::filesystem::create_directories(out);
  if (debezium) return debezium_comparison(sizes, out);
  return run_bench(3, 8, sizes, out, [&](outbox::bench::BenchContext& context) {
    const outbox::bench::SuiteResults results = outbox::bench::run_suite(context);
    outbox::bench::write_report(
        results, context,
        environment(context.db, "test broker: librdkafka mock cluster (3 brokers) over TCP"));
    std::cout << std::ifstream(out + "/report.md").rdbuf();
  });
}
