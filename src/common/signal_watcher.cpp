#include "signal_watcher.hpp"

#include <signal.h>  // NOLINT(modernize-deprecated-headers): POSIX sigwait, pthread_sigmask
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <ctime>

namespace outbox {
namespace {

sigset_t watched_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

std::string signal_name(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation : std::to_string(signal);
}

void block_shutdown_signals() {
  const sigset_t set = watched_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

SignalWatcher::SignalWatcher(std::function<void(int)> on_stop, std::function<void()> on_reload) {
  thread_ = std::jthread([on_stop = std::move(on_stop),
                          on_reload = std::move(on_reload)](const std::stop_token& stop) {
    const sigset_t set = watched_signals();
    bool stopping = false;
    // sigtimedwait instead of sigwait so the thread notices its own stop request.
    const timespec tick{0, 200'000'000};
    while (!stop.stop_requested()) {
      const int signal = sigtimedwait(&set, nullptr, &tick);
      if (signal < 0) continue;
      if (signal == SIGHUP) {
        on_reload();
        continue;
      }
      if (stopping) {
        spdlog::warn("second {}: exiting now without draining; held leases end on their own",
                     signal_name(signal));
        _exit(1);
      }
      stopping = true;
      on_stop(signal);
    }
  });
}

SignalWatcher::~SignalWatcher() = default;

}  // namespace outbox
