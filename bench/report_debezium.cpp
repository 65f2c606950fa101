#include "report_debezium.hpp"

#include <algorithm>
#include <sstream>

#include "report_tools.hpp"

namespace outbox::bench {
namespace {

const char* const kLoadLabels[] = {"1k/s", "50% of R", "80% of R"};

// One row of a relay-vs-Debezium table: both figures, relay / Debezium of the medians.
void figure_row(std::ostringstream& md, const std::string& label, const Figure& relay,
                const Figure& debezium, int decimals, const std::string& target = "") {
  md << "| " << label << " | " << format_figure(relay, decimals) << " | "
     << format_figure(debezium, decimals) << " | " << ratio(relay.median(), debezium.median())
     << " | " << target << " |\n";
}

struct Targets {
  bool throughput = true;
  bool p99 = true;
  bool rss = true;
  bool primary_cpu = true;     // the catch-up's CPU on the server ≤ 0.5 × the writer's
  bool primary_binlog = true;  // its binary log ≤ 0.5 × the writer's
  std::string missed;          // one line per missed target, with its figures
};

void profile_section(std::ostringstream& md, const ProfileFigures& p, long events,
                     const std::string& server, Targets& targets) {
  const SystemFigures& r = p.relay;
  const SystemFigures& d = p.debezium;
  md << "### Profile " << p.name << " (" << p.settings << ")\n\n"
     << "| figure | relay | Debezium | relay / Debezium | target |\n|---|---|---|---|---|\n";
  const bool throughput = r.catchup_rate.median() >= d.catchup_rate.median();
  figure_row(md, "catch-up: " + std::to_string(events) + " events, start → all on the topic, s",
             r.catchup_seconds, d.catchup_seconds, 1);
  figure_row(md, "of which start-up: start → first event on the topic, s", r.startup_seconds,
             d.startup_seconds, 1);
  figure_row(md, "catch-up throughput, events/s (first → last append)", r.catchup_rate,
             d.catchup_rate, 0, "≥ 1: " + verdict(throughput));
  figure_row(md, server + " CPU s per 1k events (catch-up)", r.db_cpu_per_1k, d.db_cpu_per_1k, 3);
  // The cost on the primary against the writer's (database-cost issue: at most half).
  figure_row(md, server + " CPU s per 1k events (the writer's commits of the same events)",
             r.writer_db_cpu_per_1k, d.writer_db_cpu_per_1k, 3);
  const double relay_cpu = r.db_cpu_per_1k.median() / r.writer_db_cpu_per_1k.median();
  md << "| " << server << " CPU: catch-up / the writer's commits | "
     << ratio(r.db_cpu_per_1k.median(), r.writer_db_cpu_per_1k.median()) << " | "
     << ratio(d.db_cpu_per_1k.median(), d.writer_db_cpu_per_1k.median())
     << " | | relay ≤ 0.5: " << verdict(relay_cpu <= 0.5) << " |\n";
  figure_row(md, "binary log bytes per event (catch-up)", r.binlog_per_event, d.binlog_per_event,
             0);
  figure_row(md, "binary log bytes per event (the writer's commits)", r.writer_binlog_per_event,
             d.writer_binlog_per_event, 0);
  const double relay_binlog = r.binlog_per_event.median() / r.writer_binlog_per_event.median();
  md << "| binary log: catch-up / the writer's commits | "
     << ratio(r.binlog_per_event.median(), r.writer_binlog_per_event.median()) << " | "
     << ratio(d.binlog_per_event.median(), d.writer_binlog_per_event.median())
     << " | | relay ≤ 0.5: " << verdict(relay_binlog <= 0.5) << " |\n";
  figure_row(md, "statements per 1k events (catch-up, Questions)", r.statements_per_1k,
             d.statements_per_1k, 1);
  figure_row(md, "process CPU s per 1k events (catch-up, start-up included)", r.process_cpu_per_1k,
             d.process_cpu_per_1k, 3);
  figure_row(md, "process CPU s (catch-up)", r.process_cpu_seconds, d.process_cpu_seconds, 1);
  const double relay_rss = std::max(r.peak_rss_mib.max(), r.steady_peak_rss_mib);
  const double debezium_rss = std::max(d.peak_rss_mib.max(), d.steady_peak_rss_mib);
  const bool rss = relay_rss <= 0.1 * debezium_rss;
  figure_row(md, "peak RSS, MiB (catch-up)", r.peak_rss_mib, d.peak_rss_mib, 1);
  md << "| peak RSS, MiB (largest of catch-up and steady state) | " << format_number(relay_rss, 1)
     << " | " << format_number(debezium_rss, 1) << " | " << ratio(relay_rss, debezium_rss)
     << " | ≤ 0.1: " << verdict(rss) << " |\n"
     << "| duplicates (messages − distinct event ids, all runs) | "
     << r.catchup_duplicates + r.steady_duplicates << " | "
     << d.catchup_duplicates + d.steady_duplicates << " | | |\n"
     << "| stops that needed kill -9 (no exit within 180 s of SIGTERM; thread dump in the log) | "
     << r.killed_stops << " | " << d.killed_stops << " | | |\n\n";

  md << "Steady state (R = the relay's catch-up throughput above, "
     << format_number(r.catchup_rate.median()) << " events/s; latency = append time − created_at, "
     << "ms, one value per window):\n\n"
     << "| load | target/s | achieved/s relay / Debezium | relay p50 | relay p99 | Debezium p50 | "
        "Debezium p99 | p99 relay / Debezium | target |\n|---|---|---|---|---|---|---|---|---|\n";
  bool p99 = true;
  for (size_t i = 0; i < r.steady.size() && i < d.steady.size(); ++i) {
    const SteadyPhase& rp = r.steady[i];
    const SteadyPhase& dp = d.steady[i];
    const bool met = rp.p99_ms.median() <= dp.p99_ms.median();
    p99 = p99 && met;
    if (!met) {
      targets.missed += "- " + p.name + ", " + kLoadLabels[i] + ": relay p99 " +
                        format_number(rp.p99_ms.median(), 1) + " ms > Debezium p99 " +
                        format_number(dp.p99_ms.median(), 1) + " ms\n";
    }
    md << "| " << kLoadLabels[i] << " | " << format_number(rp.target_rate) << " | "
       << format_number(rp.achieved_rate) << " / " << format_number(dp.achieved_rate) << " | "
       << format_figure(rp.p50_ms, 1) << " | " << format_figure(rp.p99_ms, 1) << " | "
       << format_figure(dp.p50_ms, 1) << " | " << format_figure(dp.p99_ms, 1) << " | "
       << ratio(rp.p99_ms.median(), dp.p99_ms.median()) << " | p99 ≤ Debezium's: " << verdict(met)
       << " |\n";
  }
  md << "\nCost in the steady state (the writers' transactions are in " << server
     << "'s figures for both; tail = writers done → every event on the topic):\n\n"
        "| load | process CPU % relay / Debezium | "
     << server
     << " CPU % relay / Debezium | statements/s relay / Debezium | tail s relay / Debezium "
        "|\n|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.steady.size() && i < d.steady.size(); ++i) {
    const SteadyPhase& rp = r.steady[i];
    const SteadyPhase& dp = d.steady[i];
    md << "| " << kLoadLabels[i] << " | " << format_number(rp.process_cpu_percent) << " / "
       << format_number(dp.process_cpu_percent) << " | " << format_number(rp.db_cpu_percent)
       << " / " << format_number(dp.db_cpu_percent) << " | "
       << format_number(rp.statements_per_second) << " / "
       << format_number(dp.statements_per_second) << " | " << format_number(rp.tail_seconds, 1)
       << " / " << format_number(dp.tail_seconds, 1) << " |\n";
  }
  md << "\nOther work on the machine during the catch-ups (CPU of processes outside the "
        "benchmark, % of one core of the 200 %): "
     << format_figure(p.other_load_percent) << ".\n\n";

  if (!throughput) {
    targets.missed += "- " + p.name + ": relay catch-up " + format_number(r.catchup_rate.median()) +
                      " events/s < Debezium " + format_number(d.catchup_rate.median()) +
                      " events/s\n";
  }
  if (relay_cpu > 0.5) {
    targets.missed += "- " + p.name + ": relay catch-up costs " + server + " " +
                      format_number(relay_cpu, 2) + " × the CPU of the writer's commits\n";
  }
  if (relay_binlog > 0.5) {
    targets.missed += "- " + p.name + ": relay catch-up logs " + format_number(relay_binlog, 2) +
                      " × the binary log of the writer's commits\n";
  }
  if (!rss) {
    targets.missed += "- " + p.name + ": relay peak RSS " + format_number(relay_rss, 1) +
                      " MiB > 0.1 × Debezium's " + format_number(debezium_rss, 1) + " MiB\n";
  }
  targets.throughput = targets.throughput && throughput;
  targets.p99 = targets.p99 && p99;
  targets.rss = targets.rss && rss;
  targets.primary_cpu = targets.primary_cpu && relay_cpu <= 0.5;
  targets.primary_binlog = targets.primary_binlog && relay_binlog <= 0.5;
}

}  // namespace

void write_debezium_report(const DebeziumComparison& c, const BenchContext& context,
                           const std::string& environment) {
  const std::string& out = context.out_dir;
  std::ostringstream md;
  md << "# outbox-relay vs Debezium\n\n"
     << environment << c.versions << " (Kafka Connect standalone, Debezium's " << c.server
     << " connector, Outbox Event Router).\n\n"
     << "Both systems run one after the other on the same " << c.server
     << " server and the same 3-node Kafka "
        "cluster (replication factor 3, min.insync.replicas 2), each with its defaults: the "
        "relay with its default configuration, Debezium as docs/benchmarks.md lists (only the "
        "connection, the converters, snapshot.mode=no_data and the router's column mapping are "
        "set). Connect's source producer ran with: "
     << c.producer_settings
     << ". Topics are created with message.timestamp.type=LogAppendTime, so both are timed by "
        "the broker's clock. Every figure is the median of "
     << context.sizes.runs
     << " runs (steady state: of the windows) with min–max in parentheses; ratios are relay / "
        "Debezium of the same run. Comparison time: "
     << format_number(c.seconds) << " s.\n\n## vs Debezium\n\n";
  Targets targets;
  std::ostringstream p99_dat;
  std::ostringstream rate_dat;
  int row = 0;
  for (const ProfileFigures& profile : c.profiles) {
    profile_section(md, profile, c.catchup_events, c.server, targets);
    for (size_t i = 0; i < profile.relay.steady.size() && i < profile.debezium.steady.size(); ++i) {
      p99_dat << row++ << " \"" << profile.name << " " << kLoadLabels[i] << "\" "
              << profile.relay.steady[i].p99_ms.median() << " "
              << profile.debezium.steady[i].p99_ms.median() << "\n";
    }
    rate_dat << "\"" << profile.name << "\" " << profile.relay.catchup_rate.median() << " "
             << profile.debezium.catchup_rate.median() << "\n";
  }
  md << "### Targets\n\n"
     << "- throughput (catch-up events/s) ≥ Debezium's: " << verdict(targets.throughput) << "\n"
     << "- p99 commit → on the topic ≤ Debezium's at every load: " << verdict(targets.p99) << "\n"
     << "- relay peak RSS ≤ 0.1 × Debezium's: " << verdict(targets.rss) << "\n"
     << "- the catch-up's " << c.server
     << " CPU ≤ 0.5 × the writer's commits': " << verdict(targets.primary_cpu) << "\n"
     << "- the catch-up's binary log ≤ 0.5 × the writer's commits': "
     << verdict(targets.primary_binlog) << "\n";
  if (!targets.missed.empty()) md << "\nMissed, with the figures:\n\n" << targets.missed;
  md << "\nPlots: vs_debezium_p99.png, vs_debezium_throughput.png.\n";
  write_file(out + "/report.md", md.str());

  plot(out, "vs_debezium_p99", p99_dat.str(),
       "set title 'Commit -> on the topic, p99 by load'\nset ylabel 'ms'\nset logscale y\n"
       "set style data histograms\nset style fill solid\nset xtics rotate by -20\nplot '" +
           out +
           "/vs_debezium_p99.dat' using 3:xtic(2) title 'relay', '' using 4 title 'Debezium'\n");
  plot(out, "vs_debezium_throughput", rate_dat.str(),
       "set title 'Catch-up throughput'\nset ylabel 'events/s'\nset style data histograms\n"
       "set style fill solid\nset yrange [0:*]\nplot '" +
           out +
           "/vs_debezium_throughput.dat' using 2:xtic(1) title 'relay', '' using 3 title "
           "'Debezium'\n");
}

}  // namespace outbox::bench
