#include "report.hpp"

#include <fstream>
#include <sstream>

#include "report_ordered.hpp"
#include "report_tools.hpp"

namespace outbox::bench {
namespace {

double serial_bound(double db, double broker) {
  return db > 0 && broker > 0 ? 1.0 / (1.0 / db + 1.0 / broker) : 0;
}

}  // namespace

void write_report(const SuiteResults& r, const BenchContext& context,
                  const std::string& environment) {
  const std::string& out = context.out_dir;
  std::ostringstream md;
  const double l_db = r.db_limit.at(500).median();
  const double l_k = r.broker_limit.at(500).median();
  const double rate = r.drain_rate.median();

  md << "# outbox-relay benchmark report\n\n" << environment << "\n";
  md << "Every figure is the median of " << context.sizes.runs
     << " runs, with min–max in parentheses; ratios are against baselines measured in the same "
        "run, on the same database server and test broker. Suite time: "
     << format_number(r.seconds) << " s.\n\n";

  md << "## Baselines (events/s)\n\n"
        "L_db(N): the relay's claim + mark transactions (MysqlLeaseStore, default policy), 2 "
        "connections (the default worker count), no broker; N = 500 drains a backlog as large as "
        "the relay's drain below, N = 100 half of it, N = 1 runs for a few seconds. L_k(N): the "
        "relay's publish path "
        "(KafkaPublisher, default producer settings), 2 senders, batches of N awaited in full, no "
        "database.\n\n"
        "| N | L_db(N) | L_k(N) | serial bound 1/(1/L_db+1/L_k) | pipelined bound min(L_db, L_k) "
        "|\n"
        "|---|---|---|---|---|\n";
  std::ostringstream throughput_dat;
  for (int batch : {1, 100, 500}) {
    const double db = r.db_limit.at(batch).median();
    const double k = r.broker_limit.at(batch).median();
    md << "| " << batch << " | " << format_figure(r.db_limit.at(batch)) << " | "
       << format_figure(r.broker_limit.at(batch)) << " | " << format_number(serial_bound(db, k))
       << " | " << format_number(std::min(db, k)) << " |\n";
    throughput_dat << batch << " " << db << " " << k << " " << serial_bound(db, k) << "\n";
  }

  md << "\n## Drain: " << context.sizes.drain_events
     << " PENDING rows, 8 partitions, default config (2 workers, batch 500)\n\n"
        "| figure | value | target |\n|---|---|---|\n"
     << "| R, events/s (first to last publish, database clock) | " << format_figure(r.drain_rate)
     << " | |\n"
     << "| R / L_db(500) | " << ratio(rate, l_db) << " | ≥ 0.8: " << verdict(rate >= 0.8 * l_db)
     << " |\n"
     << "| R / min(L_db, L_k) | " << ratio(rate, std::min(l_db, l_k)) << " | |\n"
     << "| R / serial bound | " << ratio(rate, serial_bound(l_db, l_k)) << " | |\n"
     << "| relay CPU, % of one core | " << format_figure(r.drain_relay_cpu) << " | |\n"
     << "| database server CPU (" << context.db.server_name() << "), % of one core | "
     << format_figure(r.drain_db_cpu) << " | |\n"
     << "| duplicates (kcat: deliveries − distinct ids, all runs) | " << r.drain_duplicates
     << " | 0: " << verdict(r.drain_duplicates == 0) << " |\n";
  write_ordered_drain(md, r.ordered, context.sizes.runs);

  if (r.real_cluster.version.empty()) {
    md << "\n## The same on a real Kafka cluster\n\nNot measured in this run "
          "(--no-real-cluster).\n";
  } else {
    const RealClusterResults& real = r.real_cluster;
    const double real_k = real.broker_limit.median();
    const double real_rate = real.drain_rate.median();
    md << "\n## The same on a real Kafka cluster\n\nApache Kafka " << real.version
       << ", 3 KRaft nodes on loopback started by scripts/kafka-cluster.sh, replication factor 3, "
          "min.insync.replicas 2, acks=all; measured in this run beside the mock cluster above, "
          "on the same database.\n\n"
          "| figure | mock cluster | real cluster | real / mock |\n|---|---|---|---|\n"
       << "| L_k(500), events/s | " << format_figure(r.broker_limit.at(500)) << " | "
       << format_figure(real.broker_limit) << " | " << ratio(real_k, l_k) << " |\n"
       << "| R, events/s | " << format_figure(r.drain_rate) << " | "
       << format_figure(real.drain_rate) << " | " << ratio(real_rate, rate) << " |\n"
       << "| R / L_db(500) | " << ratio(rate, l_db) << " | " << ratio(real_rate, l_db) << " | |\n"
       << "| R / min(L_db, L_k) | " << ratio(rate, std::min(l_db, l_k)) << " | "
       << ratio(real_rate, std::min(l_db, real_k)) << " | |\n"
       << "| relay CPU, % of one core | " << format_figure(r.drain_relay_cpu) << " | "
       << format_figure(real.drain_relay_cpu) << " | |\n"
       << "| duplicates (kcat, all runs) | " << r.drain_duplicates << " | " << real.drain_duplicates
       << " | |\n";
    if (real.ordered) write_ordered_drain(md, *real.ordered, context.sizes.runs);
  }

  md << "\n## Claim cost vs backlog (claim of 500 rows, ms, " << context.sizes.claim_samples
     << " samples each)\n\n| table | p50 | p99 | p50 / p50 at the first row |\n|---|---|---|---|\n";
  std::ostringstream claim_dat;
  const double first_p50 = r.claim_cost.front().claim_ms.percentile(50);
  for (size_t i = 0; i < r.claim_cost.size(); ++i) {
    const BacklogPoint& point = r.claim_cost[i];
    const double p50 = point.claim_ms.percentile(50);
    md << "| " << point.label << " | " << format_number(p50, 2) << " | "
       << format_number(point.claim_ms.percentile(99), 2) << " | " << ratio(p50, first_p50)
       << " |\n";
    claim_dat << i << " \"" << point.label << "\" " << p50 << " " << point.claim_ms.percentile(99)
              << "\n";
  }
  const double largest_pending = r.claim_cost[2].claim_ms.percentile(50);
  const double largest_retained = r.claim_cost.back().claim_ms.percentile(50);
  md << "\nTarget: p50 at the largest backlog ≤ 1.5 × p50 at 10k: PENDING "
     << ratio(largest_pending, first_p50) << " (" << verdict(largest_pending <= 1.5 * first_p50)
     << "), retained PUBLISHED " << ratio(largest_retained, first_p50) << " ("
     << verdict(largest_retained <= 1.5 * first_p50) << ").\n\n### EXPLAIN of the claim scans\n\n"
     << r.explain;

  md << "## Steady-state latency (writers commit order + event, relay running; latency = "
        "published_at − created_at, both by the database clock; one value per "
     << context.sizes.latency_window_seconds << " s window)\n\n"
     << "| load | target/s | achieved/s | p50 ms | p99 ms | max ms | max PENDING | PENDING at end "
        "|\n"
        "|---|---|---|---|---|---|---|---|\n";
  std::ostringstream latency_dat;
  const char* labels[] = {"1k/s", "25% of R", "50% of R", "80% of R"};
  for (size_t i = 0; i < r.latency.size(); ++i) {
    const LatencyPhase& phase = r.latency[i];
    md << "| " << labels[i] << " | " << format_number(phase.target_rate) << " | "
       << format_number(phase.achieved_rate) << " | " << format_figure(phase.p50_ms, 1) << " | "
       << format_figure(phase.p99_ms, 1) << " | " << format_figure(phase.max_ms, 1) << " | "
       << phase.max_backlog << " | " << phase.final_backlog << " |\n";
    latency_dat << i << " \"" << labels[i] << "\" " << phase.p50_ms.median() << " "
                << phase.p99_ms.median() << " " << phase.max_ms.median() << "\n";
  }
  if (!r.latency.empty()) {
    md << "\nTargets: p99 ≤ 100 ms at 1k events/s: " << verdict(r.latency[0].p99_ms.median() <= 100)
       << "; backlog bounded at 80% of R: "
       << verdict(r.latency.back().final_backlog <= r.latency.back().target_rate) << ".\n";
  }

  md << "\n## Idle cost (empty outbox, one relay with default settings)\n\n"
        "| counter | per second |\n|---|---|\n";
  for (const auto& [name, value] : r.idle)
    md << "| " << name << " | " << format_number(value, 1) << " |\n";
  const double idle = r.idle.count("Questions") ? r.idle.at("Questions") : 0;
  md << "\nTarget: ≤ 20 statements/s per instance: " << verdict(idle <= 20) << ".\n";

  md << "\n## Memory\n\n| drain | peak RSS of the relay, MiB |\n|---|---|\n"
     << "| " << context.sizes.drain_events << " events | " << format_figure(r.drain_peak_rss, 1)
     << " |\n| " << context.sizes.memory_events << " events | "
     << format_number(r.memory_drain.peak_rss_mib, 1) << " (at "
     << format_number(r.memory_drain.rate) << " events/s) |\n\nTarget: ≤ 100 MiB, independent "
     << "of backlog: " << verdict(r.memory_drain.peak_rss_mib <= 100) << ".\n";

  md << "\n## Scale-out (" << context.sizes.scale_events
     << " PENDING rows, 1–3 relay processes × 2 workers)\n\n| relays | events/s | vs 1 relay | "
        "duplicates |\n|---|---|---|---|\n";
  std::ostringstream scale_dat;
  for (const auto& [relays, figure] : r.scale_rate) {
    md << "| " << relays << " | " << format_figure(figure) << " | "
       << ratio(figure.median(), r.scale_rate.at(1).median()) << " | "
       << r.scale_duplicates.at(relays) << " |\n";
    scale_dat << relays << " " << figure.median() << " " << figure.min() << " " << figure.max()
              << "\n";
  }
  md << "\nPlots: throughput.png, claim_cost.png, latency.png, scaleout.png.\n";
  write_file(out + "/report.md", md.str());

  plot(out, "throughput", throughput_dat.str(),
       "set title 'Baselines by batch size'\nset ylabel 'events/s'\nset logscale y\n"
       "set style data histograms\n"
       "set style fill solid\nplot '" +
           out +
           "/throughput.dat' using 2:xtic(1) title 'L_db', "
           "'' using 3 title 'L_k', '' using 4 title 'serial bound', " +
           format_number(rate) + " with lines lw 2 title 'relay R (batch 500)'\n");
  plot(out, "claim_cost", claim_dat.str(),
       "set title 'Claim of 500 rows vs table contents'\nset ylabel 'ms'\nset style data "
       "histograms\nset style fill solid\nset xtics rotate by -20\nplot '" +
           out + "/claim_cost.dat' using 3:xtic(2) title 'p50', '' using 4 title 'p99'\n");
  plot(out, "latency", latency_dat.str(),
       "set title 'Commit -> published latency by load'\nset ylabel 'ms'\nset logscale y\nset "
       "style data histograms\nset style fill solid\nplot '" +
           out +
           "/latency.dat' using 3:xtic(2) title 'p50', '' using 4 title 'p99', '' using 5 title "
           "'max'\n");
  plot(out, "scaleout", scale_dat.str(),
       "set title 'Scale-out'\nset xlabel 'relay processes'\nset ylabel 'events/s'\nset xtics 1\n"
       "plot '" +
           out + "/scaleout.dat' using 1:2:3:4 with yerrorlines title 'events/s'\n");
}

}  // namespace outbox::bench
