#include "idle_cost.hpp"

#include <chrono>
#include <memory>
#include <thread>

#include "server_status.hpp"

namespace outbox::bench {

std::map<std::string, double> measure_idle_statements(BenchContext& context, double seconds) {
  const auto before = statement_counters(context.session);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const auto after = statement_counters(context.session);
  std::map<std::string, double> rates;
  for (const auto& [name, value] : after) {
    // The measuring SHOW itself counts once in Questions.
    const double own = name == "Questions" ? 1 : 0;
    rates[name] = (value - before.at(name) - own) / seconds;
  }
  return rates;
}

}  // namespace outbox::bench
