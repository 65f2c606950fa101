#include "report_ordered.hpp"

#include <functional>
#include <string>

#include "report_tools.hpp"

namespace outbox::bench {
namespace {

using PickFigure = std::function<const Figure&(const OrderedDrainProfile&)>;

void ordered_rate_row(std::ostream& md, const OrderedDrainResults& r, const std::string& label,
                      const PickFigure& pick) {
  md << "| " << label;
  for (const OrderedDrainProfile& p : r.profiles)
    md << " | " << format_figure(pick(p));
  md << " | |\n";
}

// A ratio of medians per profile; the target is met when every profile meets it.
void ordered_ratio_row(std::ostream& md, const OrderedDrainResults& r, const std::string& label,
                       const PickFigure& numerator, const PickFigure& denominator, double target) {
  md << "| " << label;
  bool met = !r.profiles.empty();
  for (const OrderedDrainProfile& p : r.profiles) {
    const double n = numerator(p).median();
    const double d = denominator(p).median();
    md << " | " << ratio(n, d);
    met = met && d > 0 && n >= target * d;
  }
  md << " | ≥ " << format_number(target, 2) << ": " << verdict(met) << " |\n";
}

}  // namespace

void write_ordered_drain(std::ostream& md, const OrderedDrainResults& r, int runs) {
  const long versions = r.aggregates > 0 ? r.events / r.aggregates : 0;
  md << "\n## Ordered drain: " << r.events << " PENDING rows, one per aggregate or " << r.aggregates
     << " aggregates × ~" << versions << " versions\n\n"
     << "Per-aggregate order (`ordering: per_aggregate`, the default) against `ordering: none` "
        "on the same rows, and against L_db(500) (the claim + mark loop alone, one event per "
        "aggregate, no broker), in the durable and the tuned database profile; the test "
        "broker; medians of "
     << runs
     << " runs with min–max, events/s. Each run drains the four backlogs one after the "
        "other.\n\n| figure";
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
  const PickFigure db = [](const OrderedDrainProfile& p) -> const Figure& { return p.db_limit; };
  const PickFigure single_ordered = [](const OrderedDrainProfile& p) -> const Figure& {
    return p.single_ordered;
  };
  const PickFigure single_unordered = [](const OrderedDrainProfile& p) -> const Figure& {
    return p.single_unordered;
  };
  const PickFigure multi_unordered = [](const OrderedDrainProfile& p) -> const Figure& {
    return p.multi_unordered;
  };
  const PickFigure multi_ordered = [](const OrderedDrainProfile& p) -> const Figure& {
    return p.multi_ordered;
  };
  ordered_rate_row(md, r, "L_db(500)", db);
  ordered_rate_row(md, r, "one per aggregate, per_aggregate", single_ordered);
  ordered_rate_row(md, r, "one per aggregate, none", single_unordered);
  ordered_rate_row(md, r, "several versions per aggregate, none", multi_unordered);
  ordered_rate_row(md, r, "several versions per aggregate, per_aggregate", multi_ordered);
  ordered_ratio_row(md, r, "several versions: per_aggregate / none", multi_ordered, multi_unordered,
                    0.8);
  ordered_ratio_row(md, r, "several versions: none / L_db(500)", multi_unordered, db, 0.95);
  ordered_ratio_row(md, r, "one per aggregate: per_aggregate / none", single_ordered,
                    single_unordered, 0.9);
  md << "| duplicates (ordered drains, kcat)";
  for (const OrderedDrainProfile& p : r.profiles)
    md << " | " << p.duplicates;
  md << " | |\n";
}

}  // namespace outbox::bench
