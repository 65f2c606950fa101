// outbox-loadgen: an order service for the demo and the benchmarks, built on the writer
// library. Each order gets its request id and event id before its first attempt and keeps
// them through every retry; unknown commit outcomes are reconciled, never replayed.
// Flags -> run -> a summary line; exit 0 when every order is accepted.
#include <spdlog/spdlog.h>

#include <chrono>
#include <exception>
#include <iostream>
#include <stop_token>
#include <thread>

#include "backoff.hpp"
#include "config/config_diagnostics.hpp"
#include "failpoint.hpp"
#include "loadgen_options.hpp"
#include "logging.hpp"
#include "order_acceptance.hpp"
#include "order_stream.hpp"
#include "signal_watcher.hpp"

namespace {

using outbox::loadgen::AcceptanceCounts;

std::string summary(int64_t accepted, const AcceptanceCounts& counts) {
  return "accepted " + std::to_string(accepted) + " orders: committed " +
         std::to_string(counts.committed) + ", already accepted " +
         std::to_string(counts.already_accepted) + ", commit outcome unknown " +
         std::to_string(counts.unknown) + " (reconciled: found committed " +
         std::to_string(counts.reconciled_found) + ", absent and resubmitted " +
         std::to_string(counts.reconciled_absent) + "), rolled back and retried " +
         std::to_string(counts.retried);
}

// Everything after the options: a failure it cannot report as a result (the MySQL driver,
// out of memory) ends the run with its message, not with std::terminate.
int run_orders(const outbox::loadgen::LoadgenOptions& options) {
  outbox::setup_logging("info", outbox::LogFormat::kText, "outbox-loadgen");
  outbox::failpoints::warn_armed();
  std::stop_source stop;
  const outbox::SignalWatcher signals(
      [&](int signal) {
        spdlog::info("{}: stopping after the current order", outbox::signal_name(signal));
        stop.request_stop();
      },
      [] {});

  outbox::init_mysql_driver();
  const outbox::MysqlThreadScope main_thread_mysql;
  outbox::writer::OrderWriter writer(options.primary);
  const outbox::loadgen::OrderStream stream(options.tenant_id, options.first_order_id);
  outbox::Backoff backoff(std::chrono::milliseconds(50), std::chrono::seconds(2));
  AcceptanceCounts counts;
  const auto started = std::chrono::steady_clock::now();
  auto next_report = started + std::chrono::seconds(1);
  int64_t accepted = 0;
  for (int64_t n = 0; n < options.orders && !stop.stop_requested(); ++n) {
    if (options.rate > 0) {
      std::this_thread::sleep_until(
          started + std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::duration<double>(static_cast<double>(n) / options.rate)));
    }
    const outbox::Outcome<outbox::writer::AcceptedOrder> done =
        outbox::loadgen::accept_order(writer, stream.order(n), backoff, counts, stop.get_token());
    if (!done) {
      spdlog::error("{}", done.error().message);
      std::cout << summary(accepted, counts) << " (failed)" << std::endl;
      return 1;
    }
    ++accepted;
    if (std::chrono::steady_clock::now() >= next_report) {
      std::cout << "accepted " << accepted << std::endl;
      next_report += std::chrono::seconds(1);
    }
  }
  const bool complete = accepted == options.orders;
  std::cout << summary(accepted, counts) << (complete ? " (done)" : " (stopped)") << std::endl;
  return complete ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  outbox::block_shutdown_signals();
  std::string error;
  const auto options = outbox::loadgen::parse_loadgen_options(argc, argv, error);
  if (!options) {
    std::cerr << error << "\n" << outbox::loadgen::kUsage;
    return 64;  // EX_USAGE
  }
  if (const outbox::Status armed = outbox::failpoints::configure_from_environment(); !armed) {
    std::cerr << armed.error().message << "\n";
    return outbox::kExitConfig;
  }
  try {
    return run_orders(*options);
  } catch (const std::exception& e) {
    std::cerr << "outbox-loadgen: " << e.what() << "\n";
    return 70;  // EX_SOFTWARE
  }
}
