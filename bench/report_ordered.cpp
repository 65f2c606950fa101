#include "report_ordered.hpp"

#include <string>

#include "report_tools.hpp"

namespace outbox::bench {
namespace {

// One of a profile's figures.
using FigureOf = Figure OrderedDrainProfile::*;

void ordered_rate_row(std::ostream& md, const OrderedDrainResults& r, const std::string& label,
                      FigureOf figure) {
  md << "| " << label;
  for (const OrderedDrainProfile& p : r.profiles)
    md << " | " << format_figure(p.*figure);
  md << " | |\n";
}

// A ratio of medians per profile; the target is met when every profile meets it.
void ordered_ratio_row(std::ostream& md, const OrderedDrainResults& r, const std::string& label,
                       FigureOf numerator, FigureOf denominator, double target) {
  md << "| " << label;
  bool met = !r.profiles.empty();
  for (const OrderedDrainProfile& p : r.profiles) {
    const double n = (p.*numerator).median();
    const double d = (p.*denominator).median();
    md << " | " << ratio(n, d);
    met = met && d > 0 && n >= target * d;
  }
  md << " | ≥ " << format_number(target, 2) << ": " << verdict(met) << " |\n";
}

// A ratio of medians per profile that no target applies to.
void ordered_plain_ratio_row(std::ostream& md, const OrderedDrainResults& r,
                             const std::string& label, FigureOf numerator, FigureOf denominator) {
  md << "| " << label;
  for (const OrderedDrainProfile& p : r.profiles)
    md << " | " << ratio((p.*numerator).median(), (p.*denominator).median());
  md << " | |\n";
}

}  // namespace

void write_ordered_drain(std::ostream& md, const OrderedDrainResults& r, int runs) {
  const long versions = r.aggregates > 0 ? r.events / r.aggregates : 0;
  md << "\n## Ordered drain: " << r.events << " PENDING rows, one per aggregate or " << r.aggregates
     << " aggregates × ~" << versions << " versions, on "
     << (r.broker.empty() ? std::string("the test broker") : r.broker) << "\n\n"
     << "Per-aggregate order (`ordering: per_aggregate`, the default) against `ordering: none` "
        "on the same rows, and against L_db(500) (the claim + mark loop alone, one event per "
        "aggregate, no broker), in each database profile below (a smoke run: the durable one "
        "only); medians of "
     << runs
     << " runs with min–max, events/s. Each run drains the seven backlogs one after the "
        "other. `transactional` sends each batch holding several versions of an aggregate as one "
        "Kafka transaction (consumers read read_committed); kcat reads back read_committed.\n\n| "
        "figure";
  for (const OrderedDrainProfile& p : r.profiles)
    md << " | " << p.name;
  md << " | target |\n|---";
  for (size_t i = 0; i <= r.profiles.size(); ++i)
    md << "|---";
  md << "|\n";
  md << "| settings";
  for (const OrderedDrainProfile& p : r.profiles)
    md << " | " << p.settings;
  md << " | |\n";
  using P = OrderedDrainProfile;
  ordered_rate_row(md, r, "L_db(500)", &P::db_limit);
  ordered_rate_row(md, r, "locked claim + mark, each row written once (no relay yet)",
                   &P::locked_limit);
  ordered_rate_row(md, r, "one per aggregate, per_aggregate", &P::single_ordered);
  ordered_rate_row(md, r, "one per aggregate, none", &P::single_unordered);
  ordered_rate_row(md, r, "several versions per aggregate, none", &P::multi_unordered);
  ordered_rate_row(md, r, "several versions per aggregate, per_aggregate", &P::multi_ordered);
  ordered_rate_row(md, r, "several versions per aggregate, per_aggregate, chains in waves",
                   &P::multi_waves);
  ordered_rate_row(md, r, "one per aggregate, transactional", &P::single_transactional);
  ordered_rate_row(md, r, "several versions per aggregate, transactional", &P::multi_transactional);
  ordered_ratio_row(md, r, "several versions: per_aggregate / none", &P::multi_ordered,
                    &P::multi_unordered, 0.8);
  ordered_ratio_row(md, r, "several versions: per_aggregate in waves / none (before)",
                    &P::multi_waves, &P::multi_unordered, 0.8);
  ordered_ratio_row(md, r, "several versions: none / L_db(500)", &P::multi_unordered, &P::db_limit,
                    0.95);
  ordered_ratio_row(md, r, "one per aggregate: per_aggregate / none", &P::single_ordered,
                    &P::single_unordered, 0.9);
  ordered_ratio_row(md, r, "several versions: transactional / none", &P::multi_transactional,
                    &P::multi_unordered, 0.8);
  ordered_ratio_row(md, r, "one per aggregate: transactional / none", &P::single_transactional,
                    &P::single_unordered, 0.9);
  ordered_plain_ratio_row(md, r, "locked claim limit / L_db(500)", &P::locked_limit, &P::db_limit);
  md << "| CPU, several versions none (% of one core, 200 = both cores): relay / database server / "
        "broker / whole machine";
  for (const OrderedDrainProfile& p : r.profiles) {
    md << " | " << format_number(p.none_relay_cpu.median(), 0) << " / "
       << format_number(p.none_db_cpu.median(), 0) << " / "
       << format_number(p.none_broker_cpu.median(), 0) << " / "
       << format_number(p.none_machine_cpu.median(), 0);
  }
  md << " | |\n";
  md << "| duplicates (every drain, kcat)";
  for (const OrderedDrainProfile& p : r.profiles)
    md << " | " << p.duplicates;
  md << " | |\n";
}

}  // namespace outbox::bench
