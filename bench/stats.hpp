#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace outbox::bench {

// One figure measured several times: the report shows the median and the min-max spread,
// because single runs on a shared 2-core machine drift.
struct Figure {
  std::vector<double> runs;

  double median() const { return percentile(50); }
  double min() const { return runs.empty() ? 0 : *std::min_element(runs.begin(), runs.end()); }
  double max() const { return runs.empty() ? 0 : *std::max_element(runs.begin(), runs.end()); }
  double percentile(double p) const { return percentile_of(runs, p); }

  // Nearest-rank percentile of a sample (p in 0..100).
  static double percentile_of(std::vector<double> sample, double p) {
    if (sample.empty()) return 0;
    std::sort(sample.begin(), sample.end());
    const double rank = p / 100.0 * static_cast<double>(sample.size() - 1);
    const size_t lower = static_cast<size_t>(rank);
    const size_t upper = std::min(lower + 1, sample.size() - 1);
    const double fraction = rank - static_cast<double>(lower);
    return sample[lower] + (sample[upper] - sample[lower]) * fraction;
  }
};

// "12.3k (11.9k-12.8k)" style text for tables.
std::string format_figure(const Figure& figure, int decimals = 0);
std::string format_number(double value, int decimals = 0);

}  // namespace outbox::bench
