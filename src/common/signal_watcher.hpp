#pragma once

#include <functional>
#include <string>
#include <thread>

namespace outbox {

// "SIGTERM", "SIGINT", ...
std::string signal_name(int signal);

// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and every thread it starts later;
// call first thing in main(), before any library starts a thread, so that only the watcher
// thread ever receives them.
void block_shutdown_signals();

// Turns signals into ordinary callbacks on its own thread (never work inside a signal
// handler). The first SIGTERM/SIGINT calls on_stop (a gentle drain); a second one exits the
// process at once with exit code 1. SIGHUP calls on_reload.
class SignalWatcher {
 public:
  SignalWatcher(std::function<void(int)> on_stop, std::function<void()> on_reload);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  std::jthread thread_;
};

}  // namespace outbox
